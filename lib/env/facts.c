/* Topology facts for recipe templates. Every fact is a pure function of the
 * topology, so the same node always renders the same environment. */
#include "env/facts.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strutil.h"

#define PORT_ACTIVE 4

#ifndef GOLDEN_PKGDATADIR
#define GOLDEN_PKGDATADIR "/usr/local/share/slurm-golden"
#endif

/* clang-format off */
const struct golden_fact_info golden_facts[] = {
	{"compute_hcas", "compute IB/RoCE devices, nearest to a GPU first, then PCI order, e.g. mlx5_0,mlx5_3"},
	{"compute_hca_ports", "the same with each ACTIVE port (all if unknown), e.g. mlx5_0:1"},
	{"compute_netdevs", "netdevs of the compute RDMA devices, nearest first, then PCI order, e.g. ens1np0"},
	{"compute_nic_count", "number of compute RDMA devices (IB, RoCE or EFA)"},
	{"compute_nic_kind", "compute fabric: ib, roce, efa or none"},
	{"compute_link_layer", "InfiniBand or Ethernet if every compute port agrees, else empty"},
	{"efa_devices", "EFA devices in PCI order, e.g. rdmap16s27"},
	{"efa_count", "number of EFA devices"},
	{"bootstrap_if", "the interface chosen for NCCL bootstrap, e.g. eno1"},
	{"roce_gid_index", "RoCE v2 GID index if every compute RoCE port agrees, else empty"},
	{"gpu_count", "number of NVIDIA GPUs"},
	{"gpu_model", "model of the first GPU in PCI order, e.g. H100 SXM5 80GB"},
	{"numa_count", "number of NUMA nodes"},
	{"nvswitch_count", "number of NVSwitch PCI devices"},
	{"storage_hcas", "storage-class IB/RoCE devices in PCI order (never for NCCL)"},
	{"gpu_eth_netdevs", "plain Ethernet netdevs (no RDMA) PIX/PXB to a GPU, PCI order, e.g. GCP gVNICs"},
	{"gpu_eth_count", "number of plain Ethernet netdevs PIX/PXB to a GPU"},
	{"host_eth_netdevs", "plain Ethernet netdevs with a PCI device that are not next to a GPU, PCI order"},
	{"pci_netdevs", "netdevs whose PCI address matches the fnmatch pattern after ':', PCI order; BB:DD.F without a domain, e.g. {pci_netdevs:[08][67de]:00.0}"},
	{"pkgdatadir", "where golden's data files are installed, e.g. /usr/share/slurm-golden"},
	{NULL, NULL},
};
/* clang-format on */

static int clamp(int n, int max)
{
	return n < 0 ? 0 : (n > max ? max : n);
}

static bool is_rdma(const struct golden_nic *n)
{
	return n->kind == GOLDEN_NIC_IB || n->kind == GOLDEN_NIC_ROCE || n->kind == GOLDEN_NIC_EFA;
}

static bool is_hca(const struct golden_nic *n)
{
	return n->kind == GOLDEN_NIC_IB || n->kind == GOLDEN_NIC_ROCE;
}

bool golden_fact_nic_is_compute_rdma(const struct golden_nic *nic)
{
	return nic->cls == GOLDEN_CLASS_COMPUTE && is_rdma(nic);
}

static bool pick_compute_hca(const struct golden_nic *n)
{
	return n->cls == GOLDEN_CLASS_COMPUTE && is_hca(n);
}

static bool pick_compute_roce(const struct golden_nic *n)
{
	return n->cls == GOLDEN_CLASS_COMPUTE && n->kind == GOLDEN_NIC_ROCE;
}

static bool pick_storage_hca(const struct golden_nic *n)
{
	return n->cls == GOLDEN_CLASS_STORAGE && is_hca(n);
}

static bool pick_efa(const struct golden_nic *n)
{
	return n->kind == GOLDEN_NIC_EFA;
}

/* PCI order: bus ids compare as strings (fixed-width lower-case hex); devices
 * without one go last, by natural name order. */
static int cmp_pci(const void *a, const void *b)
{
	const struct golden_nic *x = *(const struct golden_nic *const *)a;
	const struct golden_nic *y = *(const struct golden_nic *const *)b;
	int c;

	if (!x->busid[0] != !y->busid[0])
		return x->busid[0] ? -1 : 1;
	c = strcmp(x->busid, y->busid);
	return c ? c : golden_natcmp(x->name, y->name);
}

/* Nearest to a GPU first (PIX, PXB, PHB, SYS), then PCI order. Where the
 * compute devices are GPU-local they all tie and this is PCI order; where
 * none is (the fallback), the list reads as NCCL will prefer them. */
static int cmp_near(const void *a, const void *b)
{
	const struct golden_nic *x = *(const struct golden_nic *const *)a;
	const struct golden_nic *y = *(const struct golden_nic *const *)b;

	if (x->gpu_loc != y->gpu_loc)
		return x->gpu_loc < y->gpu_loc ? -1 : 1;
	return cmp_pci(a, b);
}

/* The NICs PICK selects, in PCI order (nearest first for the compute
 * picks). Returns how many. */
static int select_nics(const struct golden_topo *t, bool (*pick)(const struct golden_nic *),
                       const struct golden_nic **out)
{
	int n = 0, nnics = clamp(t->nnics, GOLDEN_MAX_NICS);
	bool compute = pick == pick_compute_hca || pick == golden_fact_nic_is_compute_rdma;

	for (int i = 0; i < nnics; i++)
		if (pick(&t->nics[i]))
			out[n++] = &t->nics[i];
	if (n > 1)
		qsort(out, (size_t)n, sizeof(*out), compute ? cmp_near : cmp_pci);
	return n;
}

static int count_nics(const struct golden_topo *t, bool (*pick)(const struct golden_nic *))
{
	const struct golden_nic *sel[GOLDEN_MAX_NICS];

	return select_nics(t, pick, sel);
}

/* Append ITEM to a comma list. */
static int join(char *buf, size_t len, const char *item)
{
	if (buf[0] && golden_strlcat(buf, ",", len) < 0)
		return -1;
	return golden_strlcat(buf, item, len);
}

static int names_of(const struct golden_topo *t, bool (*pick)(const struct golden_nic *),
                    bool netdevs, char *buf, size_t len)
{
	const struct golden_nic *sel[GOLDEN_MAX_NICS];
	int n = select_nics(t, pick, sel);

	for (int i = 0; i < n; i++) {
		const char *name = netdevs ? sel[i]->netdev : sel[i]->name;

		if (name[0] && join(buf, len, name) < 0)
			return -1;
	}
	return 0;
}

/* The ports of NIC that NCCL would use: the ACTIVE ones; all of them when no
 * port state is known at all. Returns how many, indexes in idx. */
static int used_ports(const struct golden_nic *nic, int *idx)
{
	int n = 0, known = 0, nports = clamp(nic->nports, GOLDEN_MAX_PORTS);

	for (int p = 0; p < nports; p++) {
		if (nic->ports[p].state >= 0)
			known++;
		if (nic->ports[p].state == PORT_ACTIVE)
			idx[n++] = p;
	}
	if (known)
		return n;
	for (int p = 0; p < nports; p++)
		idx[p] = p;
	return nports;
}

static int fact_hca_ports(const struct golden_topo *t, char *buf, size_t len)
{
	const struct golden_nic *sel[GOLDEN_MAX_NICS];
	int n = select_nics(t, pick_compute_hca, sel);

	for (int i = 0; i < n; i++) {
		int idx[GOLDEN_MAX_PORTS], np;
		char item[GOLDEN_NAME_LEN + 16];

		if (sel[i]->nports <= 0) {
			/* No port list: the bare name means every port to NCCL. */
			if (join(buf, len, sel[i]->name) < 0)
				return -1;
			continue;
		}
		np = used_ports(sel[i], idx);
		for (int p = 0; p < np; p++) {
			snprintf(item, sizeof(item), "%s:%d", sel[i]->name,
			         sel[i]->ports[idx[p]].num);
			if (join(buf, len, item) < 0)
				return -1;
		}
	}
	return 0;
}

static int fact_gid(const struct golden_topo *t, char *buf, size_t len)
{
	const struct golden_nic *sel[GOLDEN_MAX_NICS];
	int n = select_nics(t, pick_compute_roce, sel), gid = -1;

	for (int i = 0; i < n; i++) {
		int idx[GOLDEN_MAX_PORTS], np = used_ports(sel[i], idx);

		for (int p = 0; p < np; p++) {
			int g = sel[i]->ports[idx[p]].roce_v2_gid;

			/* One port without a v2 GID, or two that differ: no single
			 * index is right for all of them. */
			if (g < 0 || (gid >= 0 && g != gid))
				return 0;
			gid = g;
		}
	}
	if (gid >= 0)
		snprintf(buf, len, "%d", gid);
	return 0;
}

/* A GPUDirect-TCP(X/XO) style NIC: no RDMA, but behind a GPU's switch. */
static bool pick_gpu_eth(const struct golden_nic *n)
{
	return n->kind == GOLDEN_NIC_ETH && n->busid[0] && n->gpu_loc <= GOLDEN_LOC_PXB;
}

static bool pick_host_eth(const struct golden_nic *n)
{
	return n->kind == GOLDEN_NIC_ETH && n->busid[0] && n->gpu_loc > GOLDEN_LOC_PXB &&
	       n->cls != GOLDEN_CLASS_VIRTUAL;
}

int golden_fact_gpu_eth_count(const struct golden_topo *topo)
{
	return count_nics(topo, pick_gpu_eth);
}

/* Vendor profile scripts pick NICs by lspci address ("06:00.0"): PATTERN is
 * matched against BB:DD.F, or against DDDD:BB:DD.F when it names a domain. */
static int fact_pci_netdevs(const struct golden_topo *t, const char *pattern, char *buf, size_t len)
{
	const struct golden_nic *sel[GOLDEN_MAX_NICS];
	bool domain = strchr(pattern, ':') != strrchr(pattern, ':');
	int n = 0, nnics = clamp(t->nnics, GOLDEN_MAX_NICS);

	for (int i = 0; i < nnics; i++) {
		const struct golden_nic *nic = &t->nics[i];
		const char *name = nic->kind == GOLDEN_NIC_ETH ? nic->name : nic->netdev;

		if (strlen(nic->busid) == 12 && name[0] &&
		    fnmatch(pattern, domain ? nic->busid : nic->busid + 5, 0) == 0)
			sel[n++] = nic;
	}
	if (n > 1)
		qsort(sel, (size_t)n, sizeof(*sel), cmp_pci);
	for (int i = 0; i < n; i++)
		if (join(buf, len, sel[i]->kind == GOLDEN_NIC_ETH ? sel[i]->name : sel[i]->netdev) <
		    0)
			return -1;
	return 0;
}

int golden_fact_compute_nic_count(const struct golden_topo *topo)
{
	return count_nics(topo, golden_fact_nic_is_compute_rdma);
}

const char *golden_fact_compute_kind(const struct golden_topo *topo)
{
	int ib = 0, roce = 0, efa = 0, nnics = clamp(topo->nnics, GOLDEN_MAX_NICS);

	for (int i = 0; i < nnics; i++) {
		const struct golden_nic *n = &topo->nics[i];

		if (n->cls != GOLDEN_CLASS_COMPUTE)
			continue;
		ib += n->kind == GOLDEN_NIC_IB;
		roce += n->kind == GOLDEN_NIC_ROCE;
		efa += n->kind == GOLDEN_NIC_EFA;
	}
	if (ib || roce)
		return ib >= roce ? "ib" : "roce";
	return efa ? "efa" : "none";
}

static const char *kind_link_layer(enum golden_nic_kind k)
{
	return k == GOLDEN_NIC_IB ? "InfiniBand" : (k == GOLDEN_NIC_ROCE ? "Ethernet" : "");
}

const char *golden_fact_compute_link_layer(const struct golden_topo *topo)
{
	const struct golden_nic *sel[GOLDEN_MAX_NICS];
	int n = select_nics(topo, golden_fact_nic_is_compute_rdma, sel);
	const char *common = NULL;

	for (int i = 0; i < n; i++) {
		int nports = clamp(sel[i]->nports, GOLDEN_MAX_PORTS);

		for (int p = 0; p < (nports ? nports : 1); p++) {
			const char *ll = nports && sel[i]->ports[p].link_layer[0]
			                     ? sel[i]->ports[p].link_layer
			                     : kind_link_layer(sel[i]->kind);

			if (strcmp(ll, "InfiniBand") && strcmp(ll, "Ethernet"))
				return "";
			if (common && strcmp(common, ll))
				return "";
			common = ll;
		}
	}
	return common ? common : "";
}

static const struct golden_gpu *first_gpu(const struct golden_topo *t)
{
	const struct golden_gpu *best = NULL;
	int n = clamp(t->ngpus, GOLDEN_MAX_GPUS);

	for (int i = 0; i < n; i++)
		if (!best || (t->gpus[i].busid[0] && strcmp(t->gpus[i].busid, best->busid) < 0))
			best = &t->gpus[i];
	return best;
}

static int put_int(char *buf, size_t len, int v)
{
	return (size_t)snprintf(buf, len, "%d", v) < len ? 0 : -1;
}

static int put_str(char *buf, size_t len, const char *s)
{
	return golden_strlcpy(buf, s, len);
}

int golden_fact_value(const struct golden_topo *topo, const char *name, char *buf, size_t len)
{
	const struct golden_gpu *g;

	if (!buf || !len || !name)
		return -1;
	buf[0] = '\0';
	if (!strcmp(name, "compute_hcas"))
		return names_of(topo, pick_compute_hca, false, buf, len);
	if (!strcmp(name, "compute_hca_ports"))
		return fact_hca_ports(topo, buf, len);
	if (!strcmp(name, "compute_netdevs"))
		return names_of(topo, golden_fact_nic_is_compute_rdma, true, buf, len);
	if (!strcmp(name, "compute_nic_count"))
		return put_int(buf, len, golden_fact_compute_nic_count(topo));
	if (!strcmp(name, "compute_nic_kind"))
		return put_str(buf, len, golden_fact_compute_kind(topo));
	if (!strcmp(name, "compute_link_layer"))
		return put_str(buf, len, golden_fact_compute_link_layer(topo));
	if (!strcmp(name, "efa_devices"))
		return names_of(topo, pick_efa, false, buf, len);
	if (!strcmp(name, "efa_count"))
		return put_int(buf, len, count_nics(topo, pick_efa));
	if (!strcmp(name, "bootstrap_if"))
		return memchr(topo->bootstrap_if, '\0', sizeof(topo->bootstrap_if))
		           ? put_str(buf, len, topo->bootstrap_if)
		           : -1;
	if (!strcmp(name, "roce_gid_index"))
		return fact_gid(topo, buf, len);
	if (!strcmp(name, "gpu_count"))
		return put_int(buf, len, clamp(topo->ngpus, GOLDEN_MAX_GPUS));
	if (!strcmp(name, "gpu_model")) {
		g = first_gpu(topo);
		return g ? put_str(buf, len, g->model) : 0;
	}
	if (!strcmp(name, "numa_count"))
		return put_int(buf, len, topo->nnuma);
	if (!strcmp(name, "nvswitch_count"))
		return put_int(buf, len, topo->nvswitches);
	if (!strcmp(name, "storage_hcas"))
		return names_of(topo, pick_storage_hca, false, buf, len);
	if (!strcmp(name, "gpu_eth_netdevs"))
		return names_of(topo, pick_gpu_eth, false, buf, len);
	if (!strcmp(name, "host_eth_netdevs"))
		return names_of(topo, pick_host_eth, false, buf, len);
	if (!strcmp(name, "gpu_eth_count"))
		return put_int(buf, len, golden_fact_gpu_eth_count(topo));
	if (!strcmp(name, "pkgdatadir"))
		return put_str(buf, len, GOLDEN_PKGDATADIR);
	return -1;
}

bool golden_fact_takes_arg(const char *name)
{
	return name && !strcmp(name, "pci_netdevs");
}

int golden_fact_value_arg(const struct golden_topo *topo, const char *name, const char *arg,
                          char *buf, size_t len)
{
	if (!buf || !len || !name)
		return -1;
	buf[0] = '\0';
	if (!golden_fact_takes_arg(name))
		return arg ? -1 : golden_fact_value(topo, name, buf, len);
	if (!arg || !arg[0])
		return -1;
	return fact_pci_netdevs(topo, arg, buf, len);
}

bool golden_fact_known(const char *name)
{
	if (!name)
		return false;
	for (const struct golden_fact_info *f = golden_facts; f->name; f++)
		if (!strcmp(f->name, name))
			return true;
	return false;
}
