/* What each NIC is for, and which interface NCCL should bootstrap on.
 * Pure functions of the discovered facts, so they are testable on
 * hand-built topologies. */
#include <config.h>

#include <fnmatch.h>
#include <string.h>

#include "util/strutil.h"
#include "topo/topo.h"

/* Interfaces NCCL's own heuristic does not skip (only docker, lo, virbr)
 * but that never reach another node: container, VPN and tunnel devices. */
static const char *const virtual_patterns[] = {
    "lo",     "docker*", "virbr*",   "veth*",   "cali*",   "flannel*", "cni*",
    "vxlan*", "tun*",    "tap*",     "kube-*",  "weave*",  "genev*",   "tailscale*",
    "wg*",    "br-*",    "lxcbr*",   "lxdbr*",  "podman*", "cilium*",  "vnet*",
    "dummy*", "ip6tnl*", "sit*",     "tunl*",   "gre*",    "gretap*",  "erspan*",
    "nlmon*", "ifb*",    "macvtap*", "ipvlan*", "zt*",     "nebula*",
};

bool golden_topo_netdev_is_virtual(const char *name)
{
	for (size_t i = 0; i < sizeof(virtual_patterns) / sizeof(virtual_patterns[0]); i++)
		if (fnmatch(virtual_patterns[i], name, 0) == 0)
			return true;
	return false;
}

static bool is_rdma(const struct golden_nic *n)
{
	return n->kind != GOLDEN_NIC_ETH;
}

static bool is_virtual(const struct golden_nic *n)
{
	if (is_rdma(n) || n->busid[0])
		return false;
	if (golden_topo_netdev_is_virtual(n->name))
		return true;
	/* A bond of physical ports is a real management interface; a bridge
	 * or anything else without a device is not. */
	if (n->is_bond)
		return false;
	return n->is_bridge || !n->has_device;
}

/* No RDMA device is PIX/PXB to a GPU: a VM whose hypervisor flattened PCIe,
 * a node whose HCAs sit on their own host bridges (POWER), or a small node
 * whose only HCA is on the other socket. Locality cannot tell compute from
 * storage rails here, and NCCL without NCCL_IB_HCA would use every ACTIVE
 * port: so every RDMA device of the top rate tier (at least half the best
 * rate) is compute, and GPUs take the nearest of them. Falling back to
 * sockets instead (NCCL_IB_DISABLE) would be ~100x slower than NCCL's own
 * default over the same HCA. */
static void classify_fallback(struct golden_topo *topo)
{
	double best = 0;
	char list[GOLDEN_TOPO_NOTE_LEN / 2] = "";
	enum golden_loc nearest = GOLDEN_LOC_NONE;

	for (int i = 0; i < topo->nnics; i++)
		if (is_rdma(&topo->nics[i]) && topo->nics[i].rate_gbps > best)
			best = topo->nics[i].rate_gbps;
	for (int i = 0; i < topo->nnics; i++) {
		struct golden_nic *n = &topo->nics[i];

		if (!is_rdma(n))
			continue;
		n->cls = (best <= 0 || n->rate_gbps >= best / 2) ? GOLDEN_CLASS_COMPUTE
		                                                 : GOLDEN_CLASS_STORAGE;
		if (n->cls == GOLDEN_CLASS_COMPUTE && n->gpu_loc < nearest)
			nearest = n->gpu_loc;
	}
	/* Say which, nearest first, for `golden topo` and explain mode. */
	for (int l = GOLDEN_LOC_PIX; l <= GOLDEN_LOC_NONE; l++)
		for (int i = 0; i < topo->nnics; i++) {
			const struct golden_nic *n = &topo->nics[i];
			char item[GOLDEN_NAME_LEN + 16];

			if (!is_rdma(n) || n->cls != GOLDEN_CLASS_COMPUTE || (int)n->gpu_loc != l)
				continue;
			snprintf(item, sizeof(item), "%s%s (%s)", list[0] ? ", " : "", n->name,
			         golden_topo_loc_name(n->gpu_loc));
			golden_strlcat(list, item, sizeof(list));
		}
	golden_topo_note(
	    topo, false,
	    "no RDMA device shares a PCIe switch with a GPU (%s): NCCL gets every "
	    "RDMA device of the top rate tier, nearest first: %s; GPUDirect RDMA "
	    "needs PXB or closer, so NCCL stages through host memory%s",
	    topo->pcie_flat             ? "the hypervisor hides the PCIe tree"
	    : nearest == GOLDEN_LOC_SYS ? "they are on another socket"
	                                : "they reach the GPUs only through the CPU's host bridge",
	    list, topo->pcie_flat ? " unless NCCL_TOPO_FILE describes the real pairing" : "");
}

/* The hypervisor signature: every GPU right on a host bridge, with no root
 * port above it. Bare metal puts add-in devices below a root port, also on
 * POWER, where each GPU and each HCA has a host bridge of its own. */
static bool gpus_on_host_bridges(const struct golden_topo *topo)
{
	for (int g = 0; g < topo->ngpus; g++)
		if (!topo->gpus[g].on_host_bridge)
			return false;
	return topo->ngpus > 0;
}

static void classify_nics(struct golden_topo *topo)
{
	bool any_rdma = false, any_local = false;

	for (int i = 0; i < topo->nnics; i++) {
		const struct golden_nic *n = &topo->nics[i];

		if (is_rdma(n)) {
			any_rdma = true;
			if (n->gpu_loc <= GOLDEN_LOC_PXB)
				any_local = true;
		}
	}
	topo->pcie_flat = gpus_on_host_bridges(topo);
	topo->rdma_fallback = topo->ngpus > 0 && any_rdma && !any_local;
	if (topo->rdma_fallback)
		classify_fallback(topo);
	for (int i = 0; i < topo->nnics; i++) {
		struct golden_nic *n = &topo->nics[i];

		if (is_rdma(n)) {
			if (!topo->rdma_fallback)
				n->cls = n->gpu_loc <= GOLDEN_LOC_PXB ? GOLDEN_CLASS_COMPUTE
				                                      : GOLDEN_CLASS_STORAGE;
		} else if (is_virtual(n)) {
			n->cls = GOLDEN_CLASS_VIRTUAL;
		} else if (n->busid[0] && n->rate_gbps >= 100 && !n->default_route) {
			n->cls = GOLDEN_CLASS_STORAGE;
		} else {
			n->cls = GOLDEN_CLASS_MGMT;
		}
	}
}

static const char *ifname_of(const struct golden_nic *n)
{
	return is_rdma(n) ? n->netdev : n->name;
}

/* Lower is better; -1 = never. */
static int bootstrap_rank(const struct golden_nic *n)
{
	if (!*ifname_of(n) || n->cls == GOLDEN_CLASS_VIRTUAL || strcmp(n->operstate, "up") ||
	    !n->has_addr)
		return -1;
	if (n->cls == GOLDEN_CLASS_MGMT)
		return n->default_route ? 0 : 1;
	if (n->cls == GOLDEN_CLASS_COMPUTE)
		return 2;
	return 3;
}

static void choose_bootstrap(struct golden_topo *topo)
{
	int best = -1, best_rank = 99;

	for (int i = 0; i < topo->nnics; i++) {
		int r = bootstrap_rank(&topo->nics[i]);

		if (r < 0)
			continue;
		if (r < best_rank ||
		    (r == best_rank &&
		     golden_natcmp(ifname_of(&topo->nics[i]), ifname_of(&topo->nics[best])) < 0)) {
			best = i;
			best_rank = r;
		}
	}
	topo->bootstrap_if[0] = '\0';
	if (best >= 0)
		golden_strlcpy(topo->bootstrap_if, ifname_of(&topo->nics[best]),
		               sizeof(topo->bootstrap_if));
}

static void nearest_nics(struct golden_topo *topo)
{
	for (int g = 0; g < topo->ngpus; g++) {
		struct golden_gpu *gpu = &topo->gpus[g];

		gpu->nearest_nic = -1;
		gpu->nearest_loc = GOLDEN_LOC_NONE;
		for (int i = 0; i < topo->nnics; i++) {
			const struct golden_nic *n = &topo->nics[i], *b;
			enum golden_loc l = (enum golden_loc)topo->loc[g][i];

			if (n->cls != GOLDEN_CLASS_COMPUTE || !is_rdma(n))
				continue;
			b = gpu->nearest_nic >= 0 ? &topo->nics[gpu->nearest_nic] : NULL;
			if (!b || l < gpu->nearest_loc ||
			    (l == gpu->nearest_loc &&
			     (n->rate_gbps > b->rate_gbps ||
			      (n->rate_gbps == b->rate_gbps && strcmp(n->busid, b->busid) < 0)))) {
				gpu->nearest_nic = i;
				gpu->nearest_loc = l;
			}
		}
	}
}

void golden_topo_classify(struct golden_topo *topo)
{
	classify_nics(topo);
	choose_bootstrap(topo);
	nearest_nics(topo);
}
