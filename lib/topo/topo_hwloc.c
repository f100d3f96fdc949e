/* The hwloc half of discovery: the PCIe tree. */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hwloc.h>

#include "util/strutil.h"
#include "topo/topo_internal.h"

#define PCI_VENDOR_NVIDIA  0x10de
#define PCI_VENDOR_AMAZON  0x1d0f
#define PCI_CLASS_VGA      0x0300
#define PCI_CLASS_3D       0x0302
#define PCI_CLASS_NVSWITCH 0x0680 /* NCCL xml.h PCI_NVSWITCH_CLASS */

/* Marketing names for the PCI device ids we match recipes on; unknown ids
 * fall back to what hwloc knows, then to the raw id. */
static const struct {
	unsigned id;
	const char *model;
} gpu_models[] = {
    {0x2330, "H100 SXM5 80GB"},
    {0x2331, "H100 PCIe 80GB"},
    {0x2321, "H100 NVL"},
    {0x2324, "H800"},
    {0x2335, "H200 SXM 141GB"},
    {0x233b, "H200 NVL"},
    {0x2342, "GH200 480GB"},
    {0x2348, "GH200 144GB HBM3e"},
    {0x20b0, "A100 SXM4 40GB"},
    {0x20b2, "A100 SXM4 80GB"},
    {0x20b5, "A100 PCIe 80GB"},
    {0x20f1, "A100 PCIe 40GB"},
    {0x20b3, "A100 SXM 64GB"},
    {0x20f3, "A800 SXM4 80GB"},
    {0x2901, "B200"},
    {0x2941, "GB200"},
    {0x26b9, "L40S"},
    {0x26b5, "L40"},
    {0x27b8, "L4"},
    {0x1db1, "V100 SXM2 16GB"},
    {0x1db5, "V100 SXM2 32GB"},
    {0x1db4, "V100 PCIe 16GB"},
    {0x1df6, "V100S PCIe 32GB"},
    {0x102d, "Tesla K80"},
    {0x1094, "Tesla M2075"},
    {0x1023, "Tesla K40m"},
    {0x15f9, "Tesla P100 SXM2"},
    {0x06d2, "Tesla M2070"},
};

static void gpu_model(hwloc_obj_t pci, char *buf, size_t len)
{
	const char *s;

	for (size_t i = 0; i < sizeof(gpu_models) / sizeof(gpu_models[0]); i++)
		if (gpu_models[i].id == pci->attr->pcidev.device_id) {
			golden_strlcpy(buf, gpu_models[i].model, len);
			return;
		}
	for (hwloc_obj_t c = pci->io_first_child; c; c = c->next_sibling)
		if ((s = hwloc_obj_get_info_by_name(c, "GPUModel"))) {
			golden_strlcpy(buf, s, len);
			return;
		}
	if ((s = hwloc_obj_get_info_by_name(pci, "PCIDevice")) && *s) {
		golden_strlcpy(buf, s, len);
		return;
	}
	snprintf(buf, len, "10de:%04x", pci->attr->pcidev.device_id);
}

static void busid(hwloc_obj_t pci, char *buf, size_t len)
{
	snprintf(buf, len, "%04x:%02x:%02x.%01x", pci->attr->pcidev.domain, pci->attr->pcidev.bus,
	         pci->attr->pcidev.dev, pci->attr->pcidev.func);
}

/* The NUMA node a device hangs off, or -1 when hwloc attached it above the
 * NUMA level (the firmware gave no locality, or the device is local to a
 * whole package of several nodes): claiming the first node of that set
 * would make a device of unknown place look same-socket to node 0's GPUs. */
static int numa_of(hwloc_topology_t t, hwloc_obj_t obj)
{
	hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(t, obj);

	if (!anc || !anc->nodeset || hwloc_bitmap_weight(anc->nodeset) != 1)
		return -1;
	return hwloc_bitmap_first(anc->nodeset);
}

static bool is_pci_bridge(hwloc_obj_t o)
{
	return o->type == HWLOC_OBJ_BRIDGE && o->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_PCI;
}

/* Lowest common ancestor. hwloc_get_common_ancestor_obj() compares depths,
 * which I/O objects do not have in a usable form, so walk parents. */
static hwloc_obj_t common_ancestor(hwloc_obj_t a, hwloc_obj_t b)
{
	for (hwloc_obj_t x = a; x; x = x->parent)
		for (hwloc_obj_t y = b; y; y = y->parent)
			if (x == y)
				return x;
	return NULL;
}

/* No PCI bridge between obj and its host bridge (or the CPU side). */
static bool on_host_bridge(hwloc_obj_t obj)
{
	for (hwloc_obj_t x = obj->parent; x && x->type == HWLOC_OBJ_BRIDGE; x = x->parent)
		if (is_pci_bridge(x))
			return false;
	return true;
}

static int bridges_below(hwloc_obj_t obj, hwloc_obj_t top)
{
	int n = 0;

	for (hwloc_obj_t x = obj->parent; x && x != top; x = x->parent)
		if (x->type == HWLOC_OBJ_BRIDGE)
			n++;
	return n;
}

/* NCCL's path classes (graph/paths.cc): a PCIe switch, i.e. one bridge
 * between each device and the switch they share, is PIX; deeper trees
 * below a common bridge are PXB; anything through the host bridge is PHB
 * on the same NUMA node and SYS across nodes. */
static enum golden_loc locality(hwloc_obj_t a, int numa_a, hwloc_obj_t b, int numa_b)
{
	hwloc_obj_t lca = common_ancestor(a, b);

	if (lca && is_pci_bridge(lca))
		return (bridges_below(a, lca) <= 1 && bridges_below(b, lca) <= 1) ? GOLDEN_LOC_PIX
		                                                                  : GOLDEN_LOC_PXB;
	return (numa_a >= 0 && numa_a == numa_b) ? GOLDEN_LOC_PHB : GOLDEN_LOC_SYS;
}

static bool is_efa(hwloc_obj_t pci)
{
	return pci->attr->pcidev.vendor_id == PCI_VENDOR_AMAZON &&
	       (pci->attr->pcidev.device_id & 0xfff0) == 0xefa0;
}

static struct golden_nic *new_nic(struct golden_topo *topo, hwloc_obj_t pci, const char *name,
                                  int numa)
{
	struct golden_nic *nic;

	if (topo->nnics >= GOLDEN_MAX_NICS)
		return NULL;
	nic = &topo->nics[topo->nnics++];
	memset(nic, 0, sizeof(*nic));
	golden_strlcpy(nic->name, name, sizeof(nic->name));
	busid(pci, nic->busid, sizeof(nic->busid));
	nic->vendor = pci->attr->pcidev.vendor_id;
	nic->device = pci->attr->pcidev.device_id;
	nic->numa = numa;
	nic->gpu_loc = GOLDEN_LOC_NONE;
	nic->has_device = true;
	return nic;
}

/* Bytes in a netdev's hardware address as hwloc exports it ("aa:bb:..."). */
static size_t hwaddr_len(hwloc_obj_t osdev)
{
	const char *a = hwloc_obj_get_info_by_name(osdev, "Address");
	size_t n = 0;

	if (!a || !*a)
		return 0;
	for (n = 1; *a; a++)
		n += *a == ':';
	return n;
}

/* The kind of an RDMA function from what hwloc knows; sysfs port link layers
 * replace it later when there is a sysfs. The function's netdevs are the
 * best evidence: an IPoIB netdev has a 20-byte address (INFINIBAND_ALEN), an
 * Ethernet one 6, whatever the driver named them and whatever PCI class the
 * card reports (a ConnectX-3 VPI is class 0280 with ib0). Counted as sysfs
 * ports are: the majority wins, a tie is InfiniBand. Without netdevs, the
 * PCI class: 0207 InfiniBand controller, 0c06 InfiniBand on older ConnectX. */
static enum golden_nic_kind hwloc_kind(hwloc_obj_t pci)
{
	int ib = 0, eth = 0;

	if (is_efa(pci))
		return GOLDEN_NIC_EFA;
	for (hwloc_obj_t c = pci->io_first_child; c; c = c->next_sibling) {
		size_t len;

		if (c->type != HWLOC_OBJ_OS_DEVICE ||
		    c->attr->osdev.type != HWLOC_OBJ_OSDEV_NETWORK)
			continue;
		len = hwaddr_len(c);
		ib += len == 20;
		eth += len == 6;
	}
	if (ib || eth)
		return ib >= eth ? GOLDEN_NIC_IB : GOLDEN_NIC_ROCE;
	if (pci->attr->pcidev.class_id == 0x0207 || pci->attr->pcidev.class_id == 0x0c06)
		return GOLDEN_NIC_IB;
	return GOLDEN_NIC_ROCE;
}

/* One PCI function: an RDMA device (with its netdev), or plain netdevs. */
static void add_pci_nics(hwloc_topology_t t, hwloc_obj_t pci, struct golden_topo *topo,
                         hwloc_obj_t *objs)
{
	hwloc_obj_t rdma = NULL, net = NULL;
	int numa = numa_of(t, pci);

	for (hwloc_obj_t c = pci->io_first_child; c; c = c->next_sibling) {
		if (c->type != HWLOC_OBJ_OS_DEVICE || !c->name)
			continue;
		if (c->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS && !rdma)
			rdma = c;
		else if (c->attr->osdev.type == HWLOC_OBJ_OSDEV_NETWORK && !net)
			net = c;
	}
	if (rdma) {
		struct golden_nic *nic = new_nic(topo, pci, rdma->name, numa);
		hwloc_obj_t extra;

		if (!nic)
			return;
		nic->kind = hwloc_kind(pci);
		if (net)
			golden_strlcpy(nic->netdev, net->name, sizeof(nic->netdev));
		objs[topo->nnics - 1] = pci;
		/* A VPI card can carry a second netdev (mlx4: eth2 and ib0): it
		 * stays visible as its own entry. */
		for (extra = pci->io_first_child; extra; extra = extra->next_sibling) {
			struct golden_nic *e;

			if (extra == net || extra->type != HWLOC_OBJ_OS_DEVICE || !extra->name ||
			    extra->attr->osdev.type != HWLOC_OBJ_OSDEV_NETWORK)
				continue;
			e = new_nic(topo, pci, extra->name, numa);
			if (!e)
				return;
			e->kind = GOLDEN_NIC_ETH;
			objs[topo->nnics - 1] = pci;
		}
		return;
	}
	for (hwloc_obj_t c = pci->io_first_child; c; c = c->next_sibling) {
		struct golden_nic *nic;

		if (c->type != HWLOC_OBJ_OS_DEVICE || !c->name ||
		    c->attr->osdev.type != HWLOC_OBJ_OSDEV_NETWORK)
			continue;
		nic = new_nic(topo, pci, c->name, numa);
		if (!nic)
			return;
		nic->kind = GOLDEN_NIC_ETH;
		objs[topo->nnics - 1] = pci;
	}
}

static const char *const slow_components[] = {"cuda", "nvml", "opencl", "rsmi", "levelzero", "gl"};

static int open_topology(const struct golden_topo_opts *opts, hwloc_topology_t *out,
                         struct golden_err *err)
{
	hwloc_topology_t t = NULL;
	bool fsroot =
	    !opts->topology_xml && opts->sysroot && *opts->sysroot && strcmp(opts->sysroot, "/");

	if (opts->topology_xml && access(opts->topology_xml, R_OK) < 0)
		return golden_err_set(err, "hwloc XML %s: %s", opts->topology_xml, strerror(errno));
	if (hwloc_topology_init(&t) < 0)
		return golden_err_set(err, "hwloc_topology_init failed");
	hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_ALL);
	/* Never start CUDA/NVML/OpenCL inside slurmstepd just to name devices. */
	for (size_t i = 0; i < sizeof(slow_components) / sizeof(slow_components[0]); i++)
		hwloc_topology_set_components(t, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST,
		                              slow_components[i]);
	if (opts->topology_xml && hwloc_topology_set_xml(t, opts->topology_xml) < 0) {
		hwloc_topology_destroy(t);
		return golden_err_set(err, "hwloc XML %s: cannot be used: %s", opts->topology_xml,
		                      strerror(errno));
	}
	/* hwloc reads a different /sys only through this variable. Discovery
	 * runs in its own child process (topo.c), so setting it here changes
	 * nothing in the caller's environment. */
	if (fsroot)
		setenv("HWLOC_FSROOT", opts->sysroot, 1);
	if (hwloc_topology_load(t) < 0) {
		hwloc_topology_destroy(t);
		if (opts->topology_xml)
			return golden_err_set(err, "hwloc XML %s: not a valid hwloc topology",
			                      opts->topology_xml);
		return golden_err_set(err, "hwloc cannot load the live topology: %s",
		                      strerror(errno));
	}
	*out = t;
	return 0;
}

int golden_topo_load_hwloc(const struct golden_topo_opts *opts, struct golden_topo *topo,
                           struct golden_err *err)
{
	hwloc_obj_t gpu_objs[GOLDEN_MAX_GPUS], *nic_objs;
	hwloc_topology_t t = NULL;
	hwloc_obj_t pci = NULL;

	if (open_topology(opts, &t, err) < 0)
		return -1;
	nic_objs = calloc(GOLDEN_MAX_NICS, sizeof(*nic_objs));
	if (!nic_objs) {
		hwloc_topology_destroy(t);
		return golden_err_set(err, "out of memory");
	}
	topo->nnuma = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
	while ((pci = hwloc_get_next_pcidev(t, pci))) {
		unsigned cls = pci->attr->pcidev.class_id;

		if (pci->attr->pcidev.vendor_id == PCI_VENDOR_NVIDIA &&
		    (cls == PCI_CLASS_3D || cls == PCI_CLASS_VGA)) {
			struct golden_gpu *g;

			if (topo->ngpus >= GOLDEN_MAX_GPUS)
				continue;
			g = &topo->gpus[topo->ngpus];
			gpu_objs[topo->ngpus++] = pci;
			busid(pci, g->busid, sizeof(g->busid));
			g->vendor = pci->attr->pcidev.vendor_id;
			g->device = pci->attr->pcidev.device_id;
			gpu_model(pci, g->model, sizeof(g->model));
			g->numa = numa_of(t, pci);
			g->on_host_bridge = on_host_bridge(pci);
			g->nearest_nic = -1;
			g->nearest_loc = GOLDEN_LOC_NONE;
		} else if (pci->attr->pcidev.vendor_id == PCI_VENDOR_NVIDIA &&
		           cls == PCI_CLASS_NVSWITCH) {
			topo->nvswitches++;
		} else {
			add_pci_nics(t, pci, topo, nic_objs);
		}
	}
	for (int n = 0; n < topo->nnics; n++) {
		struct golden_nic *nic = &topo->nics[n];

		for (int g = 0; g < topo->ngpus; g++) {
			enum golden_loc l =
			    locality(gpu_objs[g], topo->gpus[g].numa, nic_objs[n], nic->numa);

			topo->loc[g][n] = (unsigned char)l;
			if (l < nic->gpu_loc)
				nic->gpu_loc = l;
		}
	}
	if (opts->topology_xml) {
		hwloc_obj_t root = hwloc_get_root_obj(t);
		const char *v;

		snprintf(topo->source, sizeof(topo->source), "hwloc XML %s", opts->topology_xml);
		/* What the export says about its own machine: which host it was
		 * taken on, and the platform (the DMI product name AWS and Azure
		 * recipes match on). */
		if ((v = hwloc_obj_get_info_by_name(root, "HostName")))
			golden_strlcpy(topo->xml_host, v, sizeof(topo->xml_host));
		if ((v = hwloc_obj_get_info_by_name(root, "DMIProductName")))
			golden_strlcpy(topo->dmi_product, v, sizeof(topo->dmi_product));
	} else {
		golden_strlcpy(topo->source, "live hwloc", sizeof(topo->source));
	}
	free(nic_objs);
	hwloc_topology_destroy(t);
	return 0;
}
