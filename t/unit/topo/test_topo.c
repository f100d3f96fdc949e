/* Topology discovery over the generated fixtures (t/fixtures/nodes.json,
 * written by mkfixture.py into $GOLDEN_FIXTURES) and over three real hwloc
 * exports from hwloc's own test suite (t/fixtures/hwloc/). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <hwloc.h>

#include "t/unit/tap.h"
#include "topo/topo.h"

static char fixtures[1024];
static char srcdir[1024];
static struct golden_topo *topo;

static const char *const hgx_gpu_bus[8] = {
    "0000:1b:00.0", "0000:43:00.0", "0000:52:00.0", "0000:61:00.0",
    "0000:9d:00.0", "0000:c3:00.0", "0000:d1:00.0", "0000:df:00.0",
};
static const int hgx_gpu_numa[8] = {0, 0, 0, 0, 1, 1, 1, 1};
/* The compute CX-7 sharing each GPU's PCIe switch, in the same order. */
static const char *const hgx_hca_bus[8] = {
    "0000:18:00.0", "0000:40:00.0", "0000:4f:00.0", "0000:5e:00.0",
    "0000:9a:00.0", "0000:c0:00.0", "0000:ce:00.0", "0000:dc:00.0",
};
static const char *const hgx_hca[8] = {"mlx5_0", "mlx5_3", "mlx5_4",  "mlx5_5",
                                       "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11"};
static const char *const hgx_ipoib[8] = {"ibp24s0",  "ibp64s0",  "ibp79s0",  "ibp94s0",
                                         "ibp154s0", "ibp192s0", "ibp206s0", "ibp220s0"};

static void bail(const char *what)
{
	printf("Bail out! %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Discover fixture NAME (topo.xml + root/) into topo. */
static int load_fixture(const char *name, struct golden_err *err)
{
	char xml[2048], root[2048];
	struct golden_topo_opts opts = {.topology_xml = xml, .sysroot = root};

	snprintf(xml, sizeof(xml), "%s/%s/topo.xml", fixtures, name);
	snprintf(root, sizeof(root), "%s/%s/root", fixtures, name);
	/* Poison: discovery must fill in every field itself. */
	memset(topo, 0x5a, sizeof(*topo));
	memset(err, 0, sizeof(*err));
	return golden_topo_discover(&opts, topo, err);
}

static int load_xml(const char *xml, const char *root, struct golden_err *err)
{
	struct golden_topo_opts opts = {.topology_xml = xml, .sysroot = root};

	memset(topo, 0x5a, sizeof(*topo));
	memset(err, 0, sizeof(*err));
	return golden_topo_discover(&opts, topo, err);
}

static int nic_index(const char *name)
{
	for (int i = 0; i < topo->nnics; i++)
		if (!strcmp(topo->nics[i].name, name))
			return i;
	return -1;
}

/* The nic named name; a failed test (and a dummy) if there is none. */
static const struct golden_nic *nic(const char *name)
{
	static struct golden_nic none;
	int i = nic_index(name);

	if (i < 0) {
		ok(0, "nic %s exists", name);
		memset(&none, 0, sizeof(none));
		none.gpu_loc = GOLDEN_LOC_NONE;
		return &none;
	}
	return &topo->nics[i];
}

static int gpu_index(const char *busid)
{
	for (int i = 0; i < topo->ngpus; i++)
		if (!strcmp(topo->gpus[i].busid, busid))
			return i;
	return -1;
}

static void no_nic(const char *name, const char *why)
{
	ok(nic_index(name) < 0, "no nic entry %s (%s)", name, why);
}

static void dump(const char *fixture)
{
	diag("%s: %d GPUs, %d NICs, %d NUMA, %d NVSwitch, flat %d, bootstrap '%s', dmi '%s'",
	     fixture, topo->ngpus, topo->nnics, topo->nnuma, topo->nvswitches, topo->pcie_flat,
	     topo->bootstrap_if, topo->dmi_product);
	for (int i = 0; i < topo->nnics; i++) {
		const struct golden_nic *n = &topo->nics[i];

		diag("  nic %-10s netdev %-10s %-4s %-8s %-12s loc %s rate %g oper '%s' addr %d "
		     "dflt %d",
		     n->name, n->netdev, golden_topo_nic_kind_name(n->kind),
		     golden_topo_nic_class_name(n->cls), n->busid, golden_topo_loc_name(n->gpu_loc),
		     n->rate_gbps, n->operstate, n->has_addr, n->default_route);
	}
}

/* An RDMA device on an ACTIVE single port. */
static void check_rdma(const char *name, const char *netdev, const char *busid,
                       enum golden_nic_kind kind, enum golden_nic_class cls, enum golden_loc loc,
                       double rate, const char *link_layer)
{
	const struct golden_nic *n = nic(name);

	is(n->netdev, netdev, "%s: netdev", name);
	is(n->busid, busid, "%s: busid", name);
	is_int(n->kind, kind, "%s: kind %s", name, golden_topo_nic_kind_name(kind));
	is_int(n->cls, cls, "%s: class %s", name, golden_topo_nic_class_name(cls));
	is_int(n->gpu_loc, loc, "%s: gpu_loc %s", name, golden_topo_loc_name(loc));
	ok(n->rate_gbps == rate, "%s: rate %g Gb/s (got %g)", name, rate, n->rate_gbps);
	is_int(n->nports, 1, "%s: one port", name);
	is_int(n->ports[0].num, 1, "%s: port 1", name);
	is(n->ports[0].link_layer, link_layer, "%s: link layer", name);
	is_int(n->ports[0].state, 4, "%s: port ACTIVE", name);
	is_int(n->ports[0].phys_state, 5, "%s: port LinkUp", name);
	ok(n->ports[0].rate_gbps == rate, "%s: port rate %g", name, n->ports[0].rate_gbps);
	is(n->operstate, "up", "%s: netdev %s is up", name, netdev);
	ok(n->has_device, "%s: has a device", name);
}

static void check_hgx_gpus(void)
{
	is_int(topo->ngpus, 8, "8 GPUs");
	for (int g = 0; g < 8 && g < topo->ngpus; g++) {
		is(topo->gpus[g].busid, hgx_gpu_bus[g], "GPU %d busid (PCI order)", g);
		is(topo->gpus[g].model, "H100 SXM5 80GB", "GPU %d model", g);
		is_int(topo->gpus[g].vendor, 0x10de, "GPU %d vendor", g);
		is_int(topo->gpus[g].device, 0x2330, "GPU %d device", g);
		is_int(topo->gpus[g].numa, hgx_gpu_numa[g], "GPU %d NUMA node", g);
	}
	is_int(topo->nvswitches, 4, "4 NVSwitches (class 0680, not GPUs)");
	is_int(topo->nnuma, 2, "2 NUMA nodes");
	ok(!topo->pcie_flat, "not flat: every compute HCA shares a switch with a GPU");
}

/* Every GPU's nearest compute NIC is the HCA on its own PCIe switch. */
static void check_hgx_nearest(const char *const names[8])
{
	for (int g = 0; g < 8 && g < topo->ngpus; g++) {
		int i = topo->gpus[g].nearest_nic;

		ok(i >= 0 && i < topo->nnics && !strcmp(topo->nics[i].name, names[g]),
		   "GPU %s nearest NIC is %s (got %s)", hgx_gpu_bus[g], names[g],
		   i >= 0 && i < topo->nnics ? topo->nics[i].name : "none");
		is_int(topo->gpus[g].nearest_loc, GOLDEN_LOC_PIX, "GPU %s nearest loc PIX",
		       hgx_gpu_bus[g]);
	}
}

static void test_hgx_ib(void)
{
	struct golden_err err;
	const struct golden_nic *n;
	int g0, g4, i;

	if (!ok(load_fixture("hgx-h100-ib", &err) == 0, "hgx-h100-ib discovered: %s", err.msg))
		return;
	dump("hgx-h100-ib");
	check_hgx_gpus();
	for (int k = 0; k < 8; k++)
		check_rdma(hgx_hca[k], hgx_ipoib[k], hgx_hca_bus[k], GOLDEN_NIC_IB,
		           GOLDEN_CLASS_COMPUTE, GOLDEN_LOC_PIX, 400, "InfiniBand");
	n = nic("mlx5_0");
	is_int(n->vendor, 0x15b3, "mlx5_0 vendor Mellanox");
	is_int(n->device, 0x1021, "mlx5_0 device CX-7");
	is_int(n->numa, 0, "mlx5_0 NUMA 0");
	is_int(nic("mlx5_11")->numa, 1, "mlx5_11 NUMA 1");
	is_int(n->ports[0].roce_v2_gid, -1, "IB port: no RoCE v2 GID");
	ok(n->has_addr, "ibp24s0 carries 192.168.10.0/24");
	ok(!n->default_route, "ibp24s0 has no default route");
	ok(!nic("mlx5_3")->has_addr, "ibp64s0 has no IPv4 route (only a link-local IPv6)");

	/* Storage: one dual-port card on its own root port of NUMA 0, not under
	 * any GPU switch; the GPUs on NUMA 0 reach it through the host bridge. */
	check_rdma("mlx5_1", "ibp41s0f0", "0000:29:00.0", GOLDEN_NIC_IB, GOLDEN_CLASS_STORAGE,
	           GOLDEN_LOC_PHB, 400, "InfiniBand");
	check_rdma("mlx5_2", "ibp41s0f1", "0000:29:00.1", GOLDEN_NIC_IB, GOLDEN_CLASS_STORAGE,
	           GOLDEN_LOC_PHB, 400, "InfiniBand");
	ok(nic("mlx5_1")->has_addr, "ibp41s0f0 carries 10.20.0.0/16");

	n = nic("eno1");
	is_int(n->kind, GOLDEN_NIC_ETH, "eno1 kind eth");
	is_int(n->cls, GOLDEN_CLASS_MGMT, "eno1 class mgmt");
	ok(n->default_route, "eno1 carries the default route");
	ok(n->has_addr, "eno1 has an address");
	is(n->operstate, "up", "eno1 up");
	is(n->busid, "0000:05:00.0", "eno1 busid");
	is_int(n->vendor, 0x8086, "eno1 vendor Intel");
	is_int(n->device, 0x1533, "eno1 device I210");
	ok(n->rate_gbps == 1, "eno1 rate 1 Gb/s (got %g)", n->rate_gbps);
	ok(n->has_device && !n->is_bridge && !n->is_bond, "eno1 is a plain PCI NIC");
	is(n->netdev, "", "a plain netdev has no separate netdev name");

	n = nic("eno2");
	is_int(n->cls, GOLDEN_CLASS_MGMT, "eno2 class mgmt");
	is(n->operstate, "down", "eno2 down");
	ok(!n->default_route && !n->has_addr, "eno2 has no route");

	n = nic("docker0");
	is_int(n->cls, GOLDEN_CLASS_VIRTUAL, "docker0 virtual");
	ok(n->is_bridge, "docker0 is a bridge");
	ok(!n->has_device, "docker0 has no device");
	is(n->busid, "", "docker0 has no busid");
	is_int(n->gpu_loc, GOLDEN_LOC_NONE, "docker0 loc NONE");
	ok(n->has_addr && !n->default_route, "docker0 has 172.17.0.0/16 only");

	n = nic("lo");
	is_int(n->cls, GOLDEN_CLASS_VIRTUAL, "lo virtual");
	ok(!n->has_device, "lo has no device");

	/* IPoIB netdevs belong to their RDMA device, not to a nic of their own. */
	for (int k = 0; k < 8; k++)
		no_nic(hgx_ipoib[k], "IPoIB child of an HCA");
	no_nic("ibp41s0f0", "IPoIB child of mlx5_1");
	no_nic("ibp41s0f1", "IPoIB child of mlx5_2");
	is_int(topo->nnics, 14, "14 NICs: 10 HCAs, eno1, eno2, docker0, lo");

	check_hgx_nearest(hgx_hca);
	/* The locality matrix itself. */
	g0 = gpu_index("0000:1b:00.0");
	g4 = gpu_index("0000:9d:00.0");
	if (g0 >= 0 && g4 >= 0 && (i = nic_index("mlx5_0")) >= 0) {
		is_int(topo->loc[g0][i], GOLDEN_LOC_PIX, "GPU 1b - mlx5_0: same switch, PIX");
		is_int(topo->loc[g4][i], GOLDEN_LOC_SYS, "GPU 9d - mlx5_0: other socket, SYS");
	}
	if (g0 >= 0 && (i = nic_index("mlx5_3")) >= 0)
		is_int(topo->loc[g0][i], GOLDEN_LOC_PHB, "GPU 1b - mlx5_3: other switch, PHB");
	if (g4 >= 0 && (i = nic_index("mlx5_1")) >= 0)
		is_int(topo->loc[g4][i], GOLDEN_LOC_SYS, "GPU 9d - mlx5_1: other socket, SYS");

	is(topo->bootstrap_if, "eno1", "bootstrap on eno1 (mgmt, default route)");
	is(topo->dmi_product, "DGX H100", "DMI product");
	ok(strstr(topo->source, "hwloc XML") && strstr(topo->source, "hgx-h100-ib/topo.xml"),
	   "source names the XML: %s", topo->source);
}

static void test_hgx_ib_alt(void)
{
	static const char *const names[8] = {"ibp24s0",  "ibp64s0",  "ibp79s0",  "ibp94s0",
	                                     "ibp154s0", "ibp192s0", "ibp206s0", "ibp220s0"};
	struct golden_err err;
	const struct golden_nic *n;

	if (!ok(load_fixture("hgx-h100-ib-alt", &err) == 0, "hgx-h100-ib-alt discovered: %s",
	        err.msg))
		return;
	dump("hgx-h100-ib-alt");
	check_hgx_gpus();
	for (int k = 0; k < 8; k++) {
		char netdev[8];

		snprintf(netdev, sizeof(netdev), "ib%d", k);
		check_rdma(names[k], netdev, hgx_hca_bus[k], GOLDEN_NIC_IB, GOLDEN_CLASS_COMPUTE,
		           GOLDEN_LOC_PIX, 400, "InfiniBand");
		no_nic(netdev, "IPoIB child of an HCA");
	}
	check_rdma("ibp41s0f0", "ib8", "0000:29:00.0", GOLDEN_NIC_IB, GOLDEN_CLASS_STORAGE,
	           GOLDEN_LOC_PHB, 400, "InfiniBand");
	check_rdma("ibp41s0f1", "ib9", "0000:29:00.1", GOLDEN_NIC_IB, GOLDEN_CLASS_STORAGE,
	           GOLDEN_LOC_PHB, 400, "InfiniBand");
	n = nic("ens1f0");
	is_int(n->cls, GOLDEN_CLASS_MGMT, "ens1f0 class mgmt");
	ok(n->default_route, "ens1f0 carries the default route");
	no_nic("eno1", "renamed ens1f0");
	no_nic("eno2", "not on this node");
	is_int(nic("docker0")->cls, GOLDEN_CLASS_VIRTUAL, "docker0 virtual");
	is_int(topo->nnics, 13, "13 NICs: 10 HCAs, ens1f0, docker0, lo");
	check_hgx_nearest(names);
	is(topo->bootstrap_if, "ens1f0", "bootstrap on ens1f0");
	is(topo->dmi_product, "PowerEdge XE9680", "DMI product");
}

static void test_hgx_roce(void)
{
	static const char *const names[8] = {"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3",
	                                     "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_7"};
	static const char *const netdevs[8] = {
	    "enp24s0np0",  "enp64s0np0",  "enp79s0np0",  "enp94s0np0",
	    "enp154s0np0", "enp192s0np0", "enp206s0np0", "enp220s0np0",
	};
	struct golden_err err;
	const struct golden_nic *n;

	if (!ok(load_fixture("hgx-h100-roce", &err) == 0, "hgx-h100-roce discovered: %s", err.msg))
		return;
	dump("hgx-h100-roce");
	check_hgx_gpus();
	for (int k = 0; k < 8; k++) {
		check_rdma(names[k], netdevs[k], hgx_hca_bus[k], GOLDEN_NIC_ROCE,
		           GOLDEN_CLASS_COMPUTE, GOLDEN_LOC_PIX, 200, "Ethernet");
		n = nic(names[k]);
		/* GIDs 0/1 are link-local v1/v2, 2/3 IPv4-mapped v1/v2: the
		 * lowest RoCE v2 GID with an IPv4 address is 3. */
		is_int(n->ports[0].roce_v2_gid, 3, "%s: RoCE v2 IPv4 GID index 3", names[k]);
		ok(n->has_addr, "%s: %s carries 10.224.%d.0/24", names[k], netdevs[k], k);
		no_nic(netdevs[k], "netdev of a RoCE HCA");
	}
	n = nic("eth0");
	is_int(n->kind, GOLDEN_NIC_ETH, "eth0 kind eth");
	is_int(n->cls, GOLDEN_CLASS_MGMT, "eth0 class mgmt");
	ok(n->default_route, "eth0 carries the default route");
	no_nic("mlx5_8", "no storage HCAs");
	no_nic("docker0", "not on this node");
	is_int(topo->nnics, 10, "10 NICs: 8 RoCE HCAs, eth0, lo");
	check_hgx_nearest(names);
	is(topo->bootstrap_if, "eth0", "bootstrap on eth0");
	is(topo->dmi_product, "BM.GPU.H100.8", "DMI product");
}

static void test_hgx_ib_down(void)
{
	struct golden_err err;
	const struct golden_nic *n;

	if (!ok(load_fixture("hgx-h100-ib-down", &err) == 0, "hgx-h100-ib-down discovered: %s",
	        err.msg))
		return;
	dump("hgx-h100-ib-down");
	check_hgx_gpus();
	n = nic("mlx5_4");
	/* Class comes from where the HCA sits, not from its link state: a
	 * rail that is down is still a compute rail (and worth a warning). */
	is_int(n->cls, GOLDEN_CLASS_COMPUTE, "mlx5_4 still compute");
	is_int(n->kind, GOLDEN_NIC_IB, "mlx5_4 still IB");
	is_int(n->gpu_loc, GOLDEN_LOC_PIX, "mlx5_4 still PIX");
	is_int(n->ports[0].state, 1, "mlx5_4 port DOWN");
	is_int(n->ports[0].phys_state, 3, "mlx5_4 port Disabled");
	ok(n->ports[0].rate_gbps == 10, "mlx5_4 port rate 10 (got %g)", n->ports[0].rate_gbps);
	ok(n->rate_gbps == 10, "mlx5_4 rate 10 (got %g)", n->rate_gbps);
	for (int k = 0; k < 8; k++)
		if (strcmp(hgx_hca[k], "mlx5_4"))
			check_rdma(hgx_hca[k], hgx_ipoib[k], hgx_hca_bus[k], GOLDEN_NIC_IB,
			           GOLDEN_CLASS_COMPUTE, GOLDEN_LOC_PIX, 400, "InfiniBand");
	is_int(nic("mlx5_1")->cls, GOLDEN_CLASS_STORAGE, "mlx5_1 still storage");
	is(topo->bootstrap_if, "eno1", "bootstrap on eno1");
}

static void test_cpu_only(void)
{
	struct golden_err err;
	const struct golden_nic *n;

	if (!ok(load_fixture("cpu-only", &err) == 0, "cpu-only discovered: %s", err.msg))
		return;
	dump("cpu-only");
	is_int(topo->ngpus, 0, "no GPU");
	is_int(topo->nvswitches, 0, "no NVSwitch");
	is_int(topo->nnuma, 1, "1 NUMA node");
	/* Without a GPU nothing is GPU-local, so the HCA is not a compute rail. */
	check_rdma("mlx5_0", "ib0", "0000:3b:00.0", GOLDEN_NIC_IB, GOLDEN_CLASS_STORAGE,
	           GOLDEN_LOC_NONE, 200, "InfiniBand");
	n = nic("mlx5_0");
	is_int(n->device, 0x101b, "mlx5_0 device CX-6");
	ok(n->has_addr, "ib0 carries 192.168.20.0/24");
	no_nic("ib0", "IPoIB child of mlx5_0");
	n = nic("eth0");
	is_int(n->cls, GOLDEN_CLASS_MGMT, "eth0 class mgmt");
	ok(n->default_route, "eth0 carries the default route");
	is_int(n->gpu_loc, GOLDEN_LOC_NONE, "eth0 loc NONE (no GPU)");
	is_int(nic("lo")->cls, GOLDEN_CLASS_VIRTUAL, "lo virtual");
	is_int(topo->nnics, 3, "3 NICs: mlx5_0, eth0, lo");
	is(topo->bootstrap_if, "eth0", "bootstrap on eth0");
	is(topo->dmi_product, "PowerEdge R650", "DMI product");
}

static void test_vm_flat(void)
{
	static const char *const bus[4] = {"0001:00:00.0", "0002:00:00.0", "0003:00:00.0",
	                                   "0004:00:00.0"};
	struct golden_err err;
	const struct golden_nic *n;

	if (!ok(load_fixture("vm-flat", &err) == 0, "vm-flat discovered: %s", err.msg))
		return;
	dump("vm-flat");
	is_int(topo->ngpus, 4, "4 GPUs");
	for (int g = 0; g < 4 && g < topo->ngpus; g++) {
		is(topo->gpus[g].busid, bus[g], "GPU %d busid", g);
		is(topo->gpus[g].model, "A100 SXM4 80GB", "GPU %d model", g);
		is_int(topo->gpus[g].numa, 0, "GPU %d NUMA 0", g);
	}
	is_int(topo->nnuma, 1, "1 NUMA node");
	is_int(topo->nvswitches, 0, "NVSwitches are not visible to the VM");
	/* Every device sits alone under its own host bridge: no NIC is PIX or
	 * PXB to any GPU, the best there is is PHB, for every HCA alike. */
	ok(topo->pcie_flat, "PCIe flat");
	for (int k = 0; k < 4; k++) {
		char name[16], netdev[8], busid[16];

		snprintf(name, sizeof(name), "mlx5_%d", k);
		snprintf(netdev, sizeof(netdev), "ib%d", k);
		snprintf(busid, sizeof(busid), "01%02x:00:00.0", k + 1);
		check_rdma(name, netdev, busid, GOLDEN_NIC_IB, GOLDEN_CLASS_COMPUTE, GOLDEN_LOC_PHB,
		           200, "InfiniBand");
		is_int(nic(name)->device, 0x101c, "%s is a CX-6 VF", name);
		ok(!nic(name)->has_addr, "%s: %s has no route", name, netdev);
	}
	for (int g = 0; g < 4 && g < topo->ngpus; g++) {
		int i = topo->gpus[g].nearest_nic;

		ok(i >= 0 && i < topo->nnics && topo->nics[i].cls == GOLDEN_CLASS_COMPUTE,
		   "GPU %d has a nearest compute NIC", g);
		is_int(topo->gpus[g].nearest_loc, GOLDEN_LOC_PHB, "GPU %d nearest loc PHB", g);
	}
	/* The VMBus NIC: a device, just not a PCI one. */
	n = nic("eth0");
	is_int(n->kind, GOLDEN_NIC_ETH, "eth0 kind eth");
	is_int(n->cls, GOLDEN_CLASS_MGMT, "eth0 mgmt, not virtual");
	ok(n->has_device, "eth0 has a device");
	is(n->busid, "", "eth0 has no PCI address (VMBus)");
	ok(n->default_route, "eth0 carries the default route");
	is_int(nic("lo")->cls, GOLDEN_CLASS_VIRTUAL, "lo virtual");
	is_int(topo->nnics, 6, "6 NICs: 4 HCAs, eth0, lo");
	is(topo->bootstrap_if, "eth0", "bootstrap on eth0");
	is(topo->dmi_product, "Virtual Machine", "DMI product");
}

/* ------------------------------------------------------ real hwloc exports */

static void real_gpu(int g, const char *busid, int numa)
{
	if (g >= topo->ngpus) {
		ok(0, "GPU %d exists", g);
		return;
	}
	is(topo->gpus[g].busid, busid, "GPU %d busid (PCI order)", g);
	is_int(topo->gpus[g].vendor, 0x10de, "GPU %d is NVIDIA", g);
	is_int(topo->gpus[g].numa, numa, "GPU %d NUMA %d", g, numa);
}

static void loc_is(const char *gpu, const char *nicname, enum golden_loc want, const char *why)
{
	int g = gpu_index(gpu), i = nic_index(nicname);

	if (!ok(g >= 0 && i >= 0, "GPU %s and %s exist", gpu, nicname))
		return;
	is_int(topo->loc[g][i], want, "%s - %s: %s (%s)", gpu, nicname, golden_topo_loc_name(want),
	       why);
}

/* Nothing in an empty sysroot: no operstate, no route, so no interface can
 * be trusted for bootstrap. The product name is the export's own. */
static void no_sysfs_facts(const char *dmi)
{
	is(topo->bootstrap_if, "", "no sysfs: no bootstrap interface");
	is(topo->dmi_product, dmi, "DMI product from the XML itself: '%s'", dmi);
	for (int i = 0; i < topo->nnics; i++)
		ok(!topo->nics[i].has_addr && !topo->nics[i].default_route,
		   "no sysfs: %s has no address", topo->nics[i].name);
}

static void test_real(const char *empty)
{
	struct golden_err err;
	char xml[2048];
	const struct golden_nic *n;

	/* 24em64t-2n6c2t-pci: HP SL390s G7, two X58 IOHs, one per package.
	 * lstopo: Tesla M2070 (10de:06d2, class 0302) at 06:00.0 under IOH 0,
	 * 14:00.0 and 11:00.0 under IOH 1; ATI ES1000 (1002:515e) VGA at
	 * 01:03.0 is not NVIDIA; ConnectX-2 VPI (15b3:6746, class 0c06) at
	 * 05:00.0 with eth2, ib0 and mlx4_0, on root port 00:05.0, next to
	 * the GPU's root port 00:07.0 under the same host bridge; eth0/eth1 on
	 * 04:00.0/1. */
	snprintf(xml, sizeof(xml), "%s/t/fixtures/hwloc/24em64t-2n6c2t-pci.xml", srcdir);
	if (ok(load_xml(xml, empty, &err) == 0, "24em64t loads: %s", err.msg)) {
		dump("24em64t");
		is_int(topo->ngpus, 3, "24em64t: 3 NVIDIA GPUs, the ES1000 VGA is not one");
		real_gpu(0, "0000:06:00.0", 0);
		real_gpu(1, "0000:11:00.0", 1);
		real_gpu(2, "0000:14:00.0", 1);
		is(topo->gpus[0].model, "Tesla M2070", "24em64t: model from the PCI id 06d2");
		is_int(topo->nnuma, 2, "24em64t: 2 NUMA nodes");
		is_int(topo->nvswitches, 0, "24em64t: no NVSwitch");
		n = nic("mlx4_0");
		is(n->busid, "0000:05:00.0", "24em64t: mlx4_0 busid");
		is_int(n->numa, 0, "24em64t: mlx4_0 on NUMA 0");
		/* Different root ports of one host bridge: PHB; other IOH: SYS. */
		is_int(n->gpu_loc, GOLDEN_LOC_PHB, "24em64t: mlx4_0 best loc PHB");
		loc_is("0000:06:00.0", "mlx4_0", GOLDEN_LOC_PHB, "same host bridge");
		loc_is("0000:11:00.0", "mlx4_0", GOLDEN_LOC_SYS, "other package");
		loc_is("0000:14:00.0", "mlx4_0", GOLDEN_LOC_SYS, "other package");
		/* Every GPU sits below a root port: bare metal, not a VM. */
		ok(!topo->pcie_flat, "24em64t: GPUs below root ports: not flat");
		ok(topo->rdma_fallback, "24em64t: no RDMA device shares a switch with a GPU");
		is_int(n->cls, GOLDEN_CLASS_COMPUTE, "24em64t: mlx4_0 is still NCCL's (compute)");
		is_int(n->kind, GOLDEN_NIC_IB, "24em64t: mlx4_0 IB (ib0's 20-byte address)");
		for (int g = 0; g < topo->ngpus; g++)
			ok(topo->gpus[g].nearest_nic == nic_index("mlx4_0"),
			   "24em64t: GPU %d nearest NIC mlx4_0", g);
		ok(topo->nnotes == 1 && !topo->notes[0].warning &&
		       strstr(topo->notes[0].text, "nearest first: mlx4_0 (PHB)"),
		   "24em64t: a note says which RDMA devices NCCL gets: %s",
		   topo->nnotes ? topo->notes[0].text : "(none)");
		no_nic("eth2", "netdev of mlx4_0");
		/* A VPI card's second netdev stays its own entry: from hwloc alone
		 * we cannot tell which port it belongs to. */
		ok(nic_index("ib0") >= 0, "24em64t: second netdev ib0 kept as its own entry");
		ok(nic_index("eth0") >= 0 && nic_index("eth1") >= 0,
		   "24em64t: eth0, eth1 from hwloc");
		is_int(topo->nnics, 4, "24em64t: 4 NICs: eth0, eth1, ib0, mlx4_0");
		no_sysfs_facts("ProLiant SL390s G7");
		is(topo->xml_host, "mirage004", "24em64t: the host the export was taken on");
	}

	/* 32em64t-2n8c2t-pci-wholeio: Tesla M2075 (10de:1094) at 03:00.0
	 * (package 0), 83:00.0 and 84:00.0 (package 1); Matrox G200eW
	 * (102b:0532) at 05:03.0 and AMD Radeon (1002:6798) at 84:00.1 are VGA
	 * but not NVIDIA. The export places a ConnectX-4 (15b3:1013, class
	 * 0207) at 04:00.0 with ib0 and mlx5_0 directly under root port
	 * 80:03.0, beside GPU 84:00.0: one bridge between them, PIX. */
	snprintf(xml, sizeof(xml), "%s/t/fixtures/hwloc/32em64t-2n8c2t-pci-wholeio.xml", srcdir);
	if (ok(load_xml(xml, empty, &err) == 0, "32em64t loads: %s", err.msg)) {
		dump("32em64t");
		is_int(topo->ngpus, 3, "32em64t: 3 NVIDIA GPUs, Matrox and AMD VGA are not");
		real_gpu(0, "0000:03:00.0", 0);
		real_gpu(1, "0000:83:00.0", 1);
		real_gpu(2, "0000:84:00.0", 1);
		ok(gpu_index("0000:05:03.0") < 0 && gpu_index("0000:84:00.1") < 0,
		   "32em64t: Matrox 05:03.0 and AMD 84:00.1 not counted");
		for (int g = 0; g < topo->ngpus; g++)
			ok(topo->gpus[g].model[0] != '\0', "32em64t: GPU %d has a model: %s", g,
			   topo->gpus[g].model);
		is_int(topo->nnuma, 2, "32em64t: 2 NUMA nodes");
		n = nic("mlx5_0");
		is(n->busid, "0000:04:00.0", "32em64t: mlx5_0 busid as exported");
		is(n->netdev, "ib0", "32em64t: mlx5_0 netdev ib0");
		/* No sysfs link layer: the PCI class (0207, InfiniBand) decides. */
		is_int(n->kind, GOLDEN_NIC_IB, "32em64t: mlx5_0 kind IB from the PCI class");
		is_int(n->numa, 1, "32em64t: mlx5_0 on NUMA 1");
		is_int(n->gpu_loc, GOLDEN_LOC_PIX, "32em64t: mlx5_0 best loc PIX");
		loc_is("0000:84:00.0", "mlx5_0", GOLDEN_LOC_PIX, "same root port");
		loc_is("0000:83:00.0", "mlx5_0", GOLDEN_LOC_PHB, "same host bridge");
		loc_is("0000:03:00.0", "mlx5_0", GOLDEN_LOC_SYS, "other package");
		ok(!topo->pcie_flat, "32em64t: not flat");
		diag("32em64t: mlx5_0 class %s, GPU 84:00.0 nearest %d",
		     golden_topo_nic_class_name(n->cls),
		     gpu_index("0000:84:00.0") >= 0
		         ? topo->gpus[gpu_index("0000:84:00.0")].nearest_nic
		         : -2);
		no_nic("ib0", "netdev of mlx5_0");
		is_int(topo->nnics, 3, "32em64t: 3 NICs: eth0, eth1, mlx5_0");
		ok(!topo->rdma_fallback && topo->nnotes == 0,
		   "32em64t: mlx5_0 is GPU-local: no fallback");
		no_sysfs_facts("X9DRG-HF");
	}

	/* power8gpudistances: 4 Tesla P100 SXM2 (10de:15f9), each alone behind
	 * its own host bridge and root port, domains 0002/0003 on package 0 and
	 * 000a/000b on package 1; no network device at all. */
	snprintf(xml, sizeof(xml), "%s/t/fixtures/hwloc/power8gpudistances.xml", srcdir);
	if (ok(load_xml(xml, empty, &err) == 0, "power8 loads: %s", err.msg)) {
		dump("power8");
		is_int(topo->ngpus, 4, "power8: 4 GPUs");
		real_gpu(0, "0002:01:00.0", 0);
		real_gpu(1, "0003:01:00.0", 0);
		real_gpu(2, "000a:01:00.0", 1);
		real_gpu(3, "000b:01:00.0", 1);
		for (int g = 0; g < topo->ngpus; g++) {
			is(topo->gpus[g].model, "Tesla P100 SXM2", "power8: GPU %d model", g);
			is_int(topo->gpus[g].nearest_nic, -1, "power8: GPU %d has no NIC", g);
		}
		is_int(topo->nnics, 0, "power8: no HCA, no NIC");
		is_int(topo->nnuma, 2, "power8: 2 NUMA nodes");
		/* Each GPU has a host bridge of its own, but below a root port: a
		 * real machine, not a hypervisor's flattened tree. */
		for (int g = 0; g < topo->ngpus; g++)
			ok(!topo->gpus[g].on_host_bridge, "power8: GPU %d below a root port", g);
		ok(!topo->pcie_flat, "power8: not flat");
		no_sysfs_facts("");
	}

	/* h200-firecracker-vm: lstopo --whole-io on a Firecracker VM with one
	 * H200 (10de:2335) passed through (contrib/device/real-gpu-node,
	 * 2026-12-04): every device, the GPU too, sits right on the host bridge
	 * (a hypervisor's flat tree), one NUMA node, a virtio NIC. */
	snprintf(xml, sizeof(xml), "%s/t/fixtures/hwloc/h200-firecracker-vm.xml", srcdir);
	if (ok(load_xml(xml, empty, &err) == 0, "h200 VM loads: %s", err.msg)) {
		dump("h200-vm");
		is_int(topo->ngpus, 1, "h200 VM: 1 GPU");
		real_gpu(0, "0000:00:06.0", 0);
		is(topo->gpus[0].model, "H200 SXM 141GB", "h200 VM: the model from 10de:2335");
		ok(topo->gpus[0].on_host_bridge, "h200 VM: the GPU sits on the host bridge");
		ok(topo->pcie_flat, "h200 VM: a flat (hypervisor) PCIe tree");
		is_int(topo->nnuma, 1, "h200 VM: 1 NUMA node");
		is_int(topo->nvswitches, 0, "h200 VM: no NVSwitch");
		no_sysfs_facts("");
	}
}

/* ------------------------------------------- inputs derived from real ones */

/* Copy the file PATH to DST with FROM replaced by TO (once; FROM must be
 * there). */
static void derive_file(const char *path, const char *dst, const char *from, const char *to)
{
	char *buf, *at;
	FILE *f;
	long len;

	f = fopen(path, "r");
	if (!f || fseek(f, 0, SEEK_END) < 0 || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) < 0)
		bail(path);
	buf = calloc(1, (size_t)len + 1);
	if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len)
		bail(path);
	fclose(f);
	at = strstr(buf, from);
	if (!at) {
		printf("Bail out! %s: no '%.40s'\n", path, from);
		exit(1);
	}
	f = fopen(dst, "w");
	if (!f)
		bail(dst);
	fwrite(buf, 1, (size_t)(at - buf), f);
	fputs(to, f);
	fputs(at + strlen(from), f);
	fclose(f);
	free(buf);
}

/* derive_file from the real export SRC under t/fixtures/hwloc/. */
static void derive(const char *src, const char *dst, const char *from, const char *to)
{
	char path[2048];

	snprintf(path, sizeof(path), "%s/t/fixtures/hwloc/%s", srcdir, src);
	derive_file(path, dst, from, to);
}

/* The same HP SL390s with its NUMA-0 GPU taken out: the only HCA, mlx4_0,
 * is now on the other socket from every GPU. Its one RDMA device must
 * still be NCCL's; sockets (NCCL_IB_DISABLE) would be ~100x slower. */
static void test_cross_socket(const char *tmp)
{
	char xml[2048];
	struct golden_err err;

	snprintf(xml, sizeof(xml), "%s/cross-socket.xml", tmp);
	derive("24em64t-2n6c2t-pci.xml", xml,
	       "          <object type=\"PCIDev\" gp_index=\"47\" pci_busid=\"0000:06:00.0\" "
	       "pci_type=\"0302 [10de:06d2] [00de:0030] a3 00\" pci_link_speed=\"4.000000\">\n"
	       "            <info name=\"PCIVendor\" value=\"nVidia Corporation\"/>\n"
	       "          </object>\n",
	       "");
	if (ok(load_xml(xml, tmp, &err) == 0, "cross-socket loads: %s", err.msg)) {
		dump("cross-socket");
		is_int(topo->ngpus, 2, "cross-socket: 2 GPUs, both on NUMA 1");
		const struct golden_nic *n = nic("mlx4_0");

		is_int(n->gpu_loc, GOLDEN_LOC_SYS, "cross-socket: mlx4_0 SYS to every GPU");
		is_int(n->cls, GOLDEN_CLASS_COMPUTE, "cross-socket: mlx4_0 compute, not storage");
		ok(topo->rdma_fallback && !topo->pcie_flat, "cross-socket: fallback, not a VM");
		for (int g = 0; g < topo->ngpus; g++) {
			ok(topo->gpus[g].nearest_nic == nic_index("mlx4_0"),
			   "cross-socket: GPU %d nearest mlx4_0", g);
			is_int(topo->gpus[g].nearest_loc, GOLDEN_LOC_SYS,
			       "cross-socket: GPU %d nearest SYS", g);
		}
		ok(topo->nnotes == 1 && strstr(topo->notes[0].text, "another socket") &&
		       strstr(topo->notes[0].text, "mlx4_0 (SYS)"),
		   "cross-socket: the note says so: %s", topo->nnotes ? topo->notes[0].text : "");
	}
	unlink(xml);
}

/* A ConnectX-3 (15b3:1003) reports PCI class 0280, not 0207. Without sysfs,
 * its netdevs say what its ports are: ib0 carries a 20-byte IPoIB address,
 * an Ethernet port a 6-byte MAC. (24em64t's VPI card with the CX-3's id.) */
static void test_cx3(const char *tmp)
{
	static const char eth2[] =
	    "            <object type=\"OSDev\" gp_index=\"43\" name=\"eth2\" osdev_type=\"2\">\n"
	    "              <info name=\"Address\" value=\"78:e7:d1:21:55:35\"/>\n"
	    "            </object>\n";
	char xml[2048], xml2[2048], xml3[2048];
	struct golden_err err;

	snprintf(xml, sizeof(xml), "%s/cx3.xml", tmp);
	derive("24em64t-2n6c2t-pci.xml", xml, "0c06 [15b3:6746] [003c:0049] b0 00",
	       "0280 [15b3:1003] [003c:0049] 00 00");
	if (ok(load_xml(xml, tmp, &err) == 0, "cx3 loads: %s", err.msg))
		is_int(nic("mlx4_0")->kind, GOLDEN_NIC_IB,
		       "cx3 with eth2 and ib0 (VPI, one port each): IB, as sysfs would count it");
	/* The same card with only its IPoIB netdev. */
	snprintf(xml2, sizeof(xml2), "%s/cx3-ib.xml", tmp);
	derive_file(xml, xml2, eth2, "");
	if (ok(load_xml(xml2, tmp, &err) == 0, "cx3-ib loads: %s", err.msg)) {
		const struct golden_nic *n = nic("mlx4_0");

		is_int(n->kind, GOLDEN_NIC_IB, "cx3 with only ib0: IB, not RoCE");
		is(n->netdev, "ib0", "cx3: its netdev is ib0");
	}
	/* And a RoCE-only card of the same class: its netdev has a MAC. */
	snprintf(xml3, sizeof(xml3), "%s/cx3-eth.xml", tmp);
	derive("24em64t-2n6c2t-pci.xml", xml3,
	       "            <object type=\"OSDev\" gp_index=\"44\" name=\"ib0\" osdev_type=\"2\">\n"
	       "              <info name=\"Address\" "
	       "value=\"80:00:00:48:fe:80:00:00:00:00:00:00:78:e7:d1:03:00:21:55:35\"/>\n"
	       "            </object>\n",
	       "");
	if (ok(load_xml(xml3, tmp, &err) == 0, "eth-only loads: %s", err.msg))
		is_int(nic("mlx4_0")->kind, GOLDEN_NIC_ROCE,
		       "VPI card with only an Ethernet netdev: RoCE, whatever its class says");
	unlink(xml);
	unlink(xml2);
	unlink(xml3);
}

/* POWER8 with HCAs on host bridges of their own (t/fixtures/nodes.json
 * power8-ib, GPUs as in the real export): not a VM, every HCA NCCL's, and
 * each GPU's nearest HCA the one on its own socket. mlx5_0's slot has no
 * NUMA locality (hwloc attaches it to the Machine): it is not "NUMA 0",
 * so socket 0's GPUs do not take it for a neighbour. */
static void test_power8_ib(void)
{
	static const char *const near[4] = {"mlx5_1", "mlx5_1", "mlx5_2", "mlx5_2"};
	struct golden_err err;

	if (!ok(load_fixture("power8-ib", &err) == 0, "power8-ib discovered: %s", err.msg))
		return;
	dump("power8-ib");
	is_int(topo->ngpus, 4, "power8-ib: 4 GPUs");
	ok(!topo->pcie_flat, "power8-ib: GPUs below root ports: not flat (bare metal)");
	ok(topo->rdma_fallback, "power8-ib: no HCA shares a switch with a GPU");
	is_int(nic("mlx5_0")->numa, -1, "power8-ib: mlx5_0 NUMA unknown, not 0");
	is_int(nic("mlx5_0")->gpu_loc, GOLDEN_LOC_SYS, "power8-ib: mlx5_0 SYS (locality unknown)");
	is_int(nic("mlx5_1")->gpu_loc, GOLDEN_LOC_PHB, "power8-ib: mlx5_1 PHB");
	is_int(nic("mlx5_2")->gpu_loc, GOLDEN_LOC_PHB, "power8-ib: mlx5_2 PHB");
	for (int k = 0; k < 3; k++) {
		char name[8];

		snprintf(name, sizeof(name), "mlx5_%d", k);
		is_int(nic(name)->cls, GOLDEN_CLASS_COMPUTE, "power8-ib: %s compute", name);
	}
	for (int g = 0; g < 4 && g < topo->ngpus; g++) {
		int i = topo->gpus[g].nearest_nic;

		is(i >= 0 ? topo->nics[i].name : "-", near[g],
		   "power8-ib: GPU %s nearest HCA is on its own socket", topo->gpus[g].busid);
		is_int(topo->gpus[g].nearest_loc, GOLDEN_LOC_PHB, "power8-ib: GPU %d nearest PHB",
		       g);
	}
	is(topo->bootstrap_if, "enP5p1s0f0", "power8-ib: bootstrap on the BCM5719");
}

/* sysfs facts belong to one host. The export names its own (HostName). */
static void test_host_mix(const char *tmp)
{
	char xml[2048], real[2048], root[2048], path[2100];
	struct golden_topo_opts opts;
	struct golden_err err = {{0}};
	struct utsname u;
	FILE *f;

	snprintf(real, sizeof(real), "%s/t/fixtures/hwloc/24em64t-2n6c2t-pci.xml", srcdir);
	/* No sysroot: this machine's /sys would describe another node. */
	opts = (struct golden_topo_opts){.topology_xml = real};
	memset(topo, 0x5a, sizeof(*topo));
	if (ok(golden_topo_discover(&opts, topo, &err) == 0, "24em64t, no sysroot: %s", err.msg)) {
		is_int(topo->nnics, 4,
		       "no sysroot, other host: only the export's 4 NICs, none of "
		       "this host's (lo, docker0...)");
		is(topo->bootstrap_if, "", "no sysroot, other host: no bootstrap from this host");
		ok(topo->nnotes >= 1 && topo->notes[0].warning &&
		       strstr(topo->notes[0].text, "describes host 'mirage004'") &&
		       strstr(topo->notes[0].text, "--sysroot"),
		   "a warning says whose facts are missing and how to give them: %s",
		   topo->nnotes ? topo->notes[0].text : "(none)");
	}
	/* The export of this very host: its sysfs is the right one. */
	if (uname(&u) < 0)
		bail("uname");
	snprintf(xml, sizeof(xml), "%s/this-host.xml", tmp);
	snprintf(path, sizeof(path), "<info name=\"HostName\" value=\"%s\"/>", u.nodename);
	derive("24em64t-2n6c2t-pci.xml", xml, "<info name=\"HostName\" value=\"mirage004\"/>",
	       path);
	opts = (struct golden_topo_opts){.topology_xml = xml};
	if (ok(golden_topo_discover(&opts, topo, &err) == 0, "this host's export: %s", err.msg)) {
		ok(nic_index("lo") >= 0, "this host's export: its sysfs is read (lo is there)");
		for (int i = 0; i < topo->nnotes; i++)
			ok(!topo->notes[i].warning, "no warning: %s", topo->notes[i].text);
	}
	unlink(xml);
	/* A sysroot that says it is another host than the export. */
	snprintf(root, sizeof(root), "%s/otherhost", tmp);
	snprintf(path, sizeof(path), "%s/proc/sys/kernel", root);
	{
		char cmd[2200];

		snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", path);
		if (system(cmd) != 0)
			bail(path);
	}
	snprintf(path, sizeof(path), "%s/proc/sys/kernel/hostname", root);
	f = fopen(path, "w");
	if (!f)
		bail(path);
	fputs("n17\n", f);
	fclose(f);
	opts = (struct golden_topo_opts){.topology_xml = real, .sysroot = root};
	if (ok(golden_topo_discover(&opts, topo, &err) == 0, "sysroot of n17: %s", err.msg)) {
		bool warned = false;

		for (int i = 0; i < topo->nnotes; i++)
			warned |= topo->notes[i].warning &&
			          strstr(topo->notes[i].text, "'mirage004'") &&
			          strstr(topo->notes[i].text, "'n17'");
		ok(warned, "export of mirage004 with the sysroot of n17: warned");
	}
	{
		char cmd[2200];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		if (system(cmd) != 0)
			bail(root);
	}
}

/* ------------------------------------------------------------------ errors */

static void test_errors(const char *tmp)
{
	struct golden_err err;
	char path[2048];
	FILE *f;

	ok(load_xml("/nonexistent/golden-test/topo.xml", tmp, &err) == -1, "missing XML: -1");
	ok(strstr(err.msg, "/nonexistent/golden-test/topo.xml") != NULL,
	   "missing XML: message names it: %s", err.msg);

	snprintf(path, sizeof(path), "%s/garbage.xml", tmp);
	f = fopen(path, "w");
	if (!f)
		bail(path);
	fputs("this is <not an hwloc topology\n\x01\x02", f);
	fclose(f);
	ok(load_xml(path, tmp, &err) == -1, "garbage XML: -1");
	ok(err.msg[0] != '\0', "garbage XML: a message: %s", err.msg);
	ok(strstr(err.msg, path) != NULL, "garbage XML: message names the file");

	snprintf(path, sizeof(path), "%s/empty.xml", tmp);
	f = fopen(path, "w");
	if (!f)
		bail(path);
	fclose(f);
	ok(load_xml(path, tmp, &err) == -1, "empty XML file: -1: %s", err.msg);
	unlink(path);

	/* hwloc 3.x writes version="3.0"; hwloc 2 refuses it and says why on
	 * stderr only. That reason, not a generic one, reaches the admin. */
	snprintf(path, sizeof(path), "%s/v3.xml", tmp);
	derive("power8gpudistances.xml", path, "<topology version=\"2.0\">",
	       "<topology version=\"3.0\">");
#if HWLOC_API_VERSION >= 0x00020c00
	/* hwloc 2.12 (Debian 13's; 26.05's matrix environment has 2.15)
	 * imports 3.0 exports: the same file is a topology there. */
	ok(load_xml(path, tmp, &err) == 0, "hwloc 3.x export: hwloc >= 2.12 reads it %s", err.msg);
	ok(topo->ngpus == 4, "hwloc 3.x export: its 4 GPUs");
#else
	ok(load_xml(path, tmp, &err) == -1, "hwloc 3.x export: -1");
	ok(strstr(err.msg, "hwloc says:") && strstr(err.msg, "version 3.0"),
	   "hwloc 3.x export: hwloc's own reason: %s", err.msg);
#endif
	unlink(path);

	/* A malformed export that crashes libhwloc itself (its XML importer
	 * recurses once per nesting level: 60000 nested groups overflow an 8 MiB
	 * stack). Discovery must come back with an error, not take the caller
	 * (slurmstepd) down with it. */
	snprintf(path, sizeof(path), "%s/deep.xml", tmp);
	f = fopen(path, "w");
	if (!f)
		bail(path);
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<topology version=\"2.0\">\n"
	      "<object type=\"Machine\" os_index=\"0\" cpuset=\"0x1\" complete_cpuset=\"0x1\" "
	      "allowed_cpuset=\"0x1\" nodeset=\"0x1\" complete_nodeset=\"0x1\" "
	      "allowed_nodeset=\"0x1\">\n",
	      f);
	for (int i = 0; i < 60000; i++)
		fputs("<object type=\"Group\" cpuset=\"0x1\" nodeset=\"0x1\">", f);
	fputs("<object type=\"PU\" os_index=\"0\" cpuset=\"0x1\"/>", f);
	for (int i = 0; i < 60000; i++)
		fputs("</object>", f);
	fputs("\n</object>\n</topology>\n", f);
	fclose(f);
	{
		struct rlimit rl = {8 << 20, 8 << 20}, old;

		/* The stack the crash needs to happen at all, as on a node. */
		getrlimit(RLIMIT_STACK, &old);
		rl.rlim_max = old.rlim_max;
		if (rl.rlim_max != RLIM_INFINITY && rl.rlim_cur > rl.rlim_max)
			rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_STACK, &rl);
		ok(load_xml(path, tmp, &err) == -1, "XML that crashes hwloc: -1, and we are alive");
		/* signal 11, or the exit status of ASan's SEGV handler. Where hwloc
		 * reads XML without crashing on it (Debian 13's libxml2 stops at
		 * depth 256; forky's hwloc 2.15 without libxml2 rejects the first
		 * Group), hwloc's own reason, naming the file. */
		ok((strstr(err.msg, "hwloc crashed (") || strstr(err.msg, "hwloc says:")) &&
		       strstr(err.msg, "deep.xml"),
		   "it says hwloc crashed on that file, or why hwloc refused it: %s", err.msg);
		setrlimit(RLIMIT_STACK, &old);
	}
	unlink(path);
	snprintf(path, sizeof(path), "%s/garbage.xml", tmp);
	unlink(path);
}

/* What ibnetdiscover keys an adapter by: node GUID, port GUID and subnet
 * prefix from GID 0, the NodeDescription. RoCE ports have none. */
static void test_ib_ids(void)
{
	struct golden_err err;
	const struct golden_nic *n;
	char buf[24];

	if (!ok(load_fixture("gb200-n2", &err) == 0, "gb200-n2 discovered: %s", err.msg))
		return;
	n = nic("mlx5_1");
	golden_topo_guid_format(n->node_guid, buf, sizeof(buf));
	is(buf, "0x0002c90300002010", "gb200-n2 mlx5_1 node GUID from sysfs node_guid");
	golden_topo_guid_format(n->ports[0].port_guid, buf, sizeof(buf));
	is(buf, "0x0002c90300002011", "mlx5_1 port 1 GUID from GID 0 (ibsim numbering)");
	golden_topo_guid_format(n->ports[0].subnet_prefix, buf, sizeof(buf));
	is(buf, "0xfe80000000000000", "mlx5_1 port 1 subnet prefix from GID 0");
	is(n->node_desc, "localhost mlx5_1", "the NodeDescription is read as it is (a trap)");
	n = nic("mlx5_2");
	ok(n->ports[0].port_guid == 0 && n->ports[0].subnet_prefix == 0,
	   "RoCE port (BlueField-3 mlx5_2): no port GUID");
	if (!ok(load_fixture("hgx-h100-ib", &err) == 0, "hgx-h100-ib discovered: %s", err.msg))
		return;
	n = nic("mlx5_0");
	ok(n->node_guid && n->ports[0].port_guid == n->node_guid,
	   "hgx-h100-ib mlx5_0: port GUID equals the node GUID, as ConnectX has");
	is(n->node_desc, "", "no node_desc file: empty");
	ok(topo->nvlink.read == false && topo->nvlink.domain[0] == '\0',
	   "discovery alone never reads NVML");
}

static void set_fabric(struct golden_gpu_fabric *f, unsigned state, int status, unsigned char u0,
                       unsigned clique)
{
	memset(f, 0, sizeof(*f));
	f->read = true;
	f->state = state;
	f->status = status;
	f->cluster_uuid[0] = u0;
	f->cluster_uuid[15] = u0;
	f->clique_id = clique;
}

/* The node's NVLink domain from its GPUs' fabric records (pure). */
static void test_nvlink_summary(void)
{
	struct golden_gpu_fabric extra;

	memset(topo, 0, sizeof(*topo));
	topo->ngpus = 4;
	for (int i = 0; i < 4; i++)
		set_fabric(&topo->gpus[i].fabric, 3, 0, 0xab, 7);
	golden_topo_nvlink_summarize(topo, NULL, 0);
	ok(topo->nvlink.attached && topo->nvlink.consistent && topo->nvlink.ngpus == 4,
	   "4 GPUs completed in one domain: attached");
	is(topo->nvlink.domain, "ab000000-0000-0000-0000-0000000000ab.7",
	   "domain = cluster UUID . clique id");

	set_fabric(&topo->gpus[2].fabric, 2, 0, 0xab, 7);
	golden_topo_nvlink_summarize(topo, NULL, 0);
	ok(!topo->nvlink.attached && topo->nvlink.state == 2 && topo->nvlink.domain[0] == '\0',
	   "one GPU still in progress: node not attached, state in progress");
	ok(strstr(topo->nvlink.why, "in progress") != NULL, "why: %s", topo->nvlink.why);

	set_fabric(&topo->gpus[2].fabric, 3, 15, 0xab, 7);
	golden_topo_nvlink_summarize(topo, NULL, 0);
	ok(!topo->nvlink.attached && topo->nvlink.status == 15,
	   "a failed registration (status 15): not attached");

	set_fabric(&topo->gpus[2].fabric, 3, 0, 0xab, 7);
	set_fabric(&extra, 3, 0, 0xab, 8);
	golden_topo_nvlink_summarize(topo, &extra, 1);
	ok(!topo->nvlink.attached && !topo->nvlink.consistent,
	   "a GPU outside the topology in another clique: not consistent");

	for (int i = 0; i < 4; i++)
		set_fabric(&topo->gpus[i].fabric, 3, 0, 0, 0);
	golden_topo_nvlink_summarize(topo, NULL, 0);
	ok(!topo->nvlink.attached && topo->nvlink.consistent && topo->nvlink.state == 3,
	   "HGX: completed with a zero UUID is no multi-node domain");
	ok(strstr(topo->nvlink.why, "zero") != NULL, "why: %s", topo->nvlink.why);

	for (int i = 0; i < 4; i++)
		set_fabric(&topo->gpus[i].fabric, 0, 0, 0, 0);
	golden_topo_nvlink_summarize(topo, NULL, 0);
	ok(!topo->nvlink.attached && topo->nvlink.ngpus == 0 && topo->nvlink.state == 0,
	   "no GPU with a fabric (PCIe): not supported");
}

/* A read that never finishes (an XML on a FIFO nobody writes: hwloc's open
 * blocks) is stopped at the caller's deadline, which the error names, so an
 * admin who raised discovery_deadline_ms sees that it was the one applied. */
static void test_deadline(const char *empty)
{
	char fifo[2048];
	struct golden_topo_opts opts = {.sysroot = empty, .deadline_ms = 300};
	struct golden_err err = {{0}};

	snprintf(fifo, sizeof(fifo), "%s/never.xml", empty);
	if (!ok(mkfifo(fifo, 0600) == 0, "FIFO for a read that never finishes"))
		return;
	opts.topology_xml = fifo;
	ok(golden_topo_discover(&opts, topo, &err) < 0 &&
	       strstr(err.msg, "within 300 ms; stopped it"),
	   "discovery stopped at its own deadline_ms: %s", err.msg);
	unlink(fifo);
}

int main(void)
{
	const char *env_fx = getenv("GOLDEN_FIXTURES");
	const char *env_src = getenv("GOLDEN_SRCDIR");
	char empty[] = "/tmp/golden-test-topo-XXXXXX";

	snprintf(fixtures, sizeof(fixtures), "%s", env_fx && *env_fx ? env_fx : "t/fixtures/out");
	snprintf(srcdir, sizeof(srcdir), "%s", env_src && *env_src ? env_src : ".");
	topo = malloc(sizeof(*topo));
	if (!topo)
		bail("malloc");
	if (!mkdtemp(empty))
		bail("mkdtemp");

	test_hgx_ib();
	test_hgx_ib_alt();
	test_hgx_roce();
	test_hgx_ib_down();
	test_cpu_only();
	test_vm_flat();
	test_real(empty);
	test_cross_socket(empty);
	test_cx3(empty);
	test_power8_ib();
	test_host_mix(empty);
	test_errors(empty);
	test_ib_ids();
	test_nvlink_summary();
	test_deadline(empty);

	ok(rmdir(empty) == 0, "temporary sysroot left empty and removed");
	free(topo);
	return done_testing();
}
