/* Topology facts over hand-built topologies. */
#include <stdlib.h>
#include <string.h>

#include "env/facts.h"
#include "util/strutil.h"
#include "t/unit/tap.h"

static struct golden_topo *new_topo(void)
{
	struct golden_topo *t = calloc(1, sizeof(*t));

	if (!t) {
		printf("Bail out! out of memory\n");
		exit(1);
	}
	return t;
}

static struct golden_nic *add_nic(struct golden_topo *t, const char *name, const char *netdev,
                                  enum golden_nic_kind kind, enum golden_nic_class cls,
                                  const char *busid)
{
	struct golden_nic *n = &t->nics[t->nnics++];

	memset(n, 0, sizeof(*n));
	golden_strlcpy(n->name, name, sizeof(n->name));
	golden_strlcpy(n->netdev, netdev, sizeof(n->netdev));
	golden_strlcpy(n->busid, busid, sizeof(n->busid));
	n->kind = kind;
	n->cls = cls;
	n->numa = -1;
	if (kind != GOLDEN_NIC_ETH) {
		n->nports = 1;
		n->ports[0].num = 1;
		golden_strlcpy(n->ports[0].link_layer,
		               kind == GOLDEN_NIC_IB     ? "InfiniBand"
		               : kind == GOLDEN_NIC_ROCE ? "Ethernet"
		                                         : "Unspecified",
		               sizeof(n->ports[0].link_layer));
		n->ports[0].state = 4;
		n->ports[0].phys_state = 5;
		n->ports[0].rate_gbps = 400;
		n->ports[0].roce_v2_gid = kind == GOLDEN_NIC_ROCE ? 3 : -1;
	}
	return n;
}

static void add_gpu(struct golden_topo *t, const char *model, const char *busid)
{
	struct golden_gpu *g = &t->gpus[t->ngpus++];

	golden_strlcpy(g->model, model, sizeof(g->model));
	golden_strlcpy(g->busid, busid, sizeof(g->busid));
	g->numa = -1;
	g->nearest_nic = -1;
}

static const char *fact(const struct golden_topo *t, const char *name)
{
	static char buf[4096];

	if (golden_fact_value(t, name, buf, sizeof(buf)) < 0)
		return "(error)";
	return buf;
}

/* DGX-like: 8 compute IB rails, 2 storage IB, 2 front-end RoCE, in a
 * scrambled array order so that PCI ordering is exercised. */
static struct golden_topo *hgx(void)
{
	static const char *const bus[] = {"0000:18:00.0", "0000:40:00.0", "0000:4f:00.0",
	                                  "0000:5e:00.0", "0000:9a:00.0", "0000:c0:00.0",
	                                  "0000:ce:00.0", "0000:dc:00.0"};
	static const char *const name[] = {"mlx5_0", "mlx5_3", "mlx5_4",  "mlx5_5",
	                                   "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11"};
	struct golden_topo *t = new_topo();

	add_nic(t, "eno1", "eno1", GOLDEN_NIC_ETH, GOLDEN_CLASS_MGMT, "0000:01:00.0");
	for (int i = 7; i >= 0; i--) {
		char nd[32];

		snprintf(nd, sizeof(nd), "ibp%ds0", i);
		add_nic(t, name[i], nd, GOLDEN_NIC_IB, GOLDEN_CLASS_COMPUTE, bus[i]);
		add_gpu(t, "H100 SXM5 80GB", bus[i]);
	}
	add_nic(t, "mlx5_2", "ibs2", GOLDEN_NIC_IB, GOLDEN_CLASS_STORAGE, "0000:aa:00.0");
	add_nic(t, "mlx5_1", "ibs1", GOLDEN_NIC_IB, GOLDEN_CLASS_STORAGE, "0000:29:00.0");
	add_nic(t, "mlx5_7", "ens7", GOLDEN_NIC_ROCE, GOLDEN_CLASS_MGMT, "0000:b0:00.0");
	add_nic(t, "mlx5_8", "ens8", GOLDEN_NIC_ROCE, GOLDEN_CLASS_MGMT, "0000:b0:00.1");
	add_nic(t, "docker0", "docker0", GOLDEN_NIC_ETH, GOLDEN_CLASS_VIRTUAL, "");
	t->nnuma = 2;
	t->nvswitches = 4;
	golden_strlcpy(t->bootstrap_if, "eno1", sizeof(t->bootstrap_if));
	return t;
}

static void test_hgx(void)
{
	struct golden_topo *t = hgx();
	char small[8];

	is(fact(t, "compute_hcas"), "mlx5_0,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_9,mlx5_10,mlx5_11",
	   "compute_hcas: 8 compute rails in PCI order, no storage or front-end HCAs");
	is(fact(t, "compute_hca_ports"),
	   "mlx5_0:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_9:1,mlx5_10:1,mlx5_11:1",
	   "compute_hca_ports: each ACTIVE port");
	is(fact(t, "compute_netdevs"), "ibp0s0,ibp1s0,ibp2s0,ibp3s0,ibp4s0,ibp5s0,ibp6s0,ibp7s0",
	   "compute_netdevs in the same order");
	is(fact(t, "compute_nic_count"), "8", "compute_nic_count");
	is(fact(t, "compute_nic_kind"), "ib", "compute_nic_kind fact");
	is(golden_fact_compute_kind(t), "ib", "golden_fact_compute_kind: ib");
	is(fact(t, "compute_link_layer"), "InfiniBand", "compute_link_layer");
	is(fact(t, "storage_hcas"), "mlx5_1,mlx5_2", "storage_hcas in PCI order");
	is(fact(t, "efa_devices"), "", "efa_devices empty");
	is(fact(t, "efa_count"), "0", "efa_count 0");
	is(fact(t, "bootstrap_if"), "eno1", "bootstrap_if");
	is(fact(t, "roce_gid_index"), "",
	   "roce_gid_index empty: front-end RoCE ports do not count");
	is(fact(t, "gpu_count"), "8", "gpu_count");
	is(fact(t, "gpu_model"), "H100 SXM5 80GB", "gpu_model");
	is(fact(t, "numa_count"), "2", "numa_count");
	is(fact(t, "nvswitch_count"), "4", "nvswitch_count");
	ok(golden_fact_value(t, "no_such_fact", small, sizeof(small)) == -1, "unknown fact: -1");
	ok(golden_fact_value(t, "compute_hcas", small, sizeof(small)) == -1,
	   "a value that does not fit: -1");
	ok(!golden_fact_known("no_such_fact") && golden_fact_known("compute_hcas"),
	   "golden_fact_known");
	for (const struct golden_fact_info *f = golden_facts; f->name; f++) {
		char buf[4096];

		ok(golden_fact_value_arg(t, f->name, golden_fact_takes_arg(f->name) ? "*" : NULL,
		                         buf, sizeof(buf)) == 0 &&
		       f->help && f->help[0],
		   "fact %s renders and has help", f->name);
	}
	free(t);
}

static void test_pci_order_and_ports(void)
{
	struct golden_topo *t = new_topo();
	struct golden_nic *n;

	add_nic(t, "mlx5_2", "", GOLDEN_NIC_IB, GOLDEN_CLASS_COMPUTE, "0000:40:00.0");
	add_nic(t, "mlx5_10", "", GOLDEN_NIC_IB, GOLDEN_CLASS_COMPUTE, "0000:18:00.0");
	add_nic(t, "mlx5_virt", "", GOLDEN_NIC_IB, GOLDEN_CLASS_COMPUTE, "");
	is(fact(t, "compute_hcas"), "mlx5_10,mlx5_2,mlx5_virt",
	   "PCI bus order, not name order; devices without a bus id last");
	is(fact(t, "compute_netdevs"), "", "no netdevs: empty, not a list of empties");

	/* Dual port, port 2 down: only port 1. */
	n = &t->nics[0];
	n->nports = 2;
	n->ports[1] = n->ports[0];
	n->ports[1].num = 2;
	n->ports[1].state = 1;
	/* Port states unknown: every port. */
	n = &t->nics[1];
	n->nports = 2;
	n->ports[0].state = -1;
	n->ports[1] = n->ports[0];
	n->ports[1].num = 2;
	/* No port list at all: the bare name (all ports to NCCL). */
	t->nics[2].nports = 0;
	is(fact(t, "compute_hca_ports"), "mlx5_10:1,mlx5_10:2,mlx5_2:1,mlx5_virt",
	   "compute_hca_ports: active ports, all when unknown, bare name without ports");
	t->nics[0].ports[0].state = 1;
	is(fact(t, "compute_hca_ports"), "mlx5_10:1,mlx5_10:2,mlx5_virt",
	   "a device whose known ports are all down is left out");
	is(fact(t, "compute_link_layer"), "InfiniBand",
	   "a device without ports takes its kind's link layer");
	free(t);
}

static struct golden_topo *roce(int n)
{
	struct golden_topo *t = new_topo();

	for (int i = 0; i < n; i++) {
		char name[16], nd[16], bus[16];

		snprintf(name, sizeof(name), "mlx5_%d", i);
		snprintf(nd, sizeof(nd), "ens%df0", i);
		snprintf(bus, sizeof(bus), "0000:%02x:00.0", 0x20 + i);
		add_nic(t, name, nd, GOLDEN_NIC_ROCE, GOLDEN_CLASS_COMPUTE, bus);
	}
	golden_strlcpy(t->bootstrap_if, "eth0", sizeof(t->bootstrap_if));
	return t;
}

static void test_roce(void)
{
	struct golden_topo *t = roce(4);

	is(golden_fact_compute_kind(t), "roce", "compute kind roce");
	is(fact(t, "roce_gid_index"), "3", "roce_gid_index: every port has v2 GID 3");
	is(fact(t, "compute_link_layer"), "Ethernet", "compute_link_layer Ethernet");
	is(fact(t, "compute_netdevs"), "ens0f0,ens1f0,ens2f0,ens3f0", "compute_netdevs");
	/* A down second port with another GID is not used, so it does not count. */
	t->nics[1].nports = 2;
	t->nics[1].ports[1] = t->nics[1].ports[0];
	t->nics[1].ports[1].num = 2;
	t->nics[1].ports[1].state = 1;
	t->nics[1].ports[1].roce_v2_gid = 7;
	is(fact(t, "roce_gid_index"), "3", "an inactive port's GID is ignored");
	t->nics[2].ports[0].roce_v2_gid = 5;
	is(fact(t, "roce_gid_index"), "", "ports disagree (3 vs 5): empty");
	t->nics[2].ports[0].roce_v2_gid = -1;
	is(fact(t, "roce_gid_index"), "", "a port without a v2 GID: empty");
	t->nics[2].ports[0].roce_v2_gid = 3;
	t->nics[3].ports[0].link_layer[0] = '\0';
	is(fact(t, "compute_link_layer"), "Ethernet", "unknown port link layer: from the kind");
	free(t);
}

static void test_mixed(void)
{
	struct golden_topo *t = roce(2);

	add_nic(t, "mlx5_8", "", GOLDEN_NIC_IB, GOLDEN_CLASS_COMPUTE, "0000:80:00.0");
	is(golden_fact_compute_kind(t), "roce", "1 IB + 2 RoCE: majority roce");
	is(fact(t, "compute_link_layer"), "", "mixed link layers: empty");
	is(fact(t, "compute_hcas"), "mlx5_0,mlx5_1,mlx5_8", "compute_hcas lists IB and RoCE");
	add_nic(t, "mlx5_9", "", GOLDEN_NIC_IB, GOLDEN_CLASS_COMPUTE, "0000:81:00.0");
	is(golden_fact_compute_kind(t), "ib", "2 IB + 2 RoCE: a tie counts as ib");
	add_nic(t, "mlx5_10", "", GOLDEN_NIC_IB, GOLDEN_CLASS_COMPUTE, "0000:82:00.0");
	is(golden_fact_compute_kind(t), "ib", "3 IB + 2 RoCE: majority ib");
	is(fact(t, "compute_nic_count"), "5", "compute_nic_count counts both");
	free(t);
}

static void test_efa_and_none(void)
{
	struct golden_topo *t = new_topo();

	add_nic(t, "ens5", "ens5", GOLDEN_NIC_ETH, GOLDEN_CLASS_MGMT, "0000:00:05.0");
	is(golden_fact_compute_kind(t), "none", "only Ethernet: kind none");
	is(fact(t, "compute_nic_count"), "0", "compute_nic_count 0");
	is(fact(t, "gpu_model"), "", "no GPUs: gpu_model empty");
	is(fact(t, "gpu_count"), "0", "no GPUs: gpu_count 0");
	is(fact(t, "bootstrap_if"), "", "no bootstrap interface chosen: empty");
	is(fact(t, "compute_link_layer"), "", "no compute devices: link layer empty");
	add_nic(t, "eth1", "eth1", GOLDEN_NIC_ETH, GOLDEN_CLASS_COMPUTE, "0000:06:00.0");
	is(golden_fact_compute_kind(t), "none", "a compute-class plain Ethernet NIC is not RDMA");
	is(fact(t, "compute_nic_count"), "0", "nor is it counted");
	add_nic(t, "rdmap32s0", "", GOLDEN_NIC_EFA, GOLDEN_CLASS_COMPUTE, "0000:20:00.0");
	add_nic(t, "rdmap16s0", "", GOLDEN_NIC_EFA, GOLDEN_CLASS_COMPUTE, "0000:10:00.0");
	is(golden_fact_compute_kind(t), "efa", "EFA devices: kind efa");
	is(fact(t, "efa_devices"), "rdmap16s0,rdmap32s0", "efa_devices in PCI order");
	is(fact(t, "efa_count"), "2", "efa_count");
	is(fact(t, "compute_nic_count"), "2", "EFA counts as compute RDMA");
	is(fact(t, "compute_hcas"), "", "EFA devices are not IB/RoCE HCAs");
	is(fact(t, "compute_link_layer"), "", "EFA has no IB/Ethernet link layer");
	add_gpu(t, "A100-SXM4-40GB", "0000:c0:00.0");
	add_gpu(t, "H100 PCIe", "0000:18:00.0");
	is(fact(t, "gpu_model"), "H100 PCIe", "gpu_model is the first GPU in PCI order");
	free(t);
}

int main(void)
{
	test_hgx();
	test_pci_order_and_ports();
	test_roce();
	test_mixed();
	test_efa_and_none();
	return done_testing();
}
