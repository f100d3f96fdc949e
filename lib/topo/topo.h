/* Node topology as slurm-golden sees it: NVIDIA GPUs, network devices,
 * their PCIe locality and the class each NIC plays on the node.
 *
 * Everything here is a plain value (fixed-size arrays, no pointers) so a
 * topology can be copied, compared and freed with one call.
 */
#ifndef GOLDEN_TOPO_TOPO_H
#define GOLDEN_TOPO_TOPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/errbuf.h"

#define GOLDEN_MAX_GPUS  64
#define GOLDEN_MAX_NICS  128
#define GOLDEN_MAX_PORTS 4
#define GOLDEN_NAME_LEN  64
#define GOLDEN_BUSID_LEN 16 /* "0000:18:00.0" */

/* NCCL's path classes, best first (src/graph/paths.h). */
enum golden_loc {
	GOLDEN_LOC_PIX = 1, /* same PCIe switch: at most one bridge */
	GOLDEN_LOC_PXB,     /* several bridges, no host bridge */
	GOLDEN_LOC_PHB,     /* through the host bridge, same NUMA node */
	GOLDEN_LOC_SYS,     /* across the SMP interconnect */
	GOLDEN_LOC_NONE     /* no PCI device (virtual) or no GPU */
};

enum golden_nic_kind {
	GOLDEN_NIC_IB,   /* OpenFabrics device, link layer InfiniBand */
	GOLDEN_NIC_ROCE, /* OpenFabrics device, link layer Ethernet */
	GOLDEN_NIC_EFA,  /* AWS Elastic Fabric Adapter (0x1d0f:0xefa*) */
	GOLDEN_NIC_ETH   /* plain netdev (Ethernet, IPoIB child, bond, virtual) */
};

enum golden_nic_class {
	GOLDEN_CLASS_COMPUTE, /* GPU-local fast fabric: belongs in NCCL_IB_HCA */
	GOLDEN_CLASS_STORAGE, /* high-speed but not GPU-local: never in NCCL_IB_HCA */
	GOLDEN_CLASS_MGMT,    /* management / bootstrap candidates */
	GOLDEN_CLASS_VIRTUAL  /* lo, docker0, veth*, bridges without a device... */
};

struct golden_port {
	int num;
	char link_layer[16]; /* "InfiniBand", "Ethernet" or "" if unknown */
	int state;           /* 4 = ACTIVE; -1 unknown */
	int phys_state;      /* 5 = LinkUp; -1 unknown */
	double rate_gbps;    /* 400.0; 0 unknown */
	int roce_v2_gid;     /* lowest RoCE v2 GID index (IPv4 preferred), -1 none */
	/* InfiniBand: GID 0 is the subnet prefix (which fabric) followed by the
	 * port GUID (the key ibnetdiscover shows for this port); 0 unknown. */
	uint64_t subnet_prefix;
	uint64_t port_guid;
};

/* A GPU's place in a multi-node NVLink domain (NVML fabric info). */
struct golden_gpu_fabric {
	bool read;      /* NVML answered for this GPU */
	unsigned state; /* 0 not supported, 1 not started, 2 in progress, 3 completed */
	int status;     /* NVML return code of the registration (when completed) */
	unsigned char cluster_uuid[16];
	unsigned clique_id;
};

/* The node's NVLink domain, summarised over its GPUs. */
struct golden_nvlink {
	bool read;       /* golden_topo_read_nvlink ran and NVML answered */
	char why[160];   /* when !read, or what is wrong: one line */
	int ngpus;       /* GPUs that report a fabric (state != not supported) */
	unsigned state;  /* the least advanced GPU's state */
	int status;      /* the first failed registration's NVML code, else 0 */
	bool consistent; /* every completed GPU is in the same domain and clique */
	bool attached;   /* completed, success, consistent and a non-zero UUID */
	char cluster_uuid[40];
	unsigned clique_id;
	char domain[56]; /* "<cluster uuid>.<clique id>" when attached, else "" */
};

struct golden_gpu {
	char busid[GOLDEN_BUSID_LEN];
	unsigned vendor, device;
	char model[GOLDEN_NAME_LEN]; /* "H100 SXM5 80GB", or the PCI id if unknown */
	int numa;                    /* -1 unknown */
	int nearest_nic;             /* index into nics[] of the best compute NIC, -1 */
	enum golden_loc nearest_loc;
	struct golden_gpu_fabric fabric; /* filled by golden_topo_read_nvlink */
	/* No PCI bridge (root port) between the GPU and its host bridge: real
	 * PCIe puts every add-in device below a root port, a hypervisor that
	 * hides the tree does not. */
	bool on_host_bridge;
};

struct golden_nic {
	char name[GOLDEN_NAME_LEN];   /* RDMA device (mlx5_0, rdmap16s27) or netdev */
	char netdev[GOLDEN_NAME_LEN]; /* netdev of an RDMA device, "" if none */
	enum golden_nic_kind kind;
	enum golden_nic_class cls;
	char busid[GOLDEN_BUSID_LEN]; /* "" for virtual devices */
	unsigned vendor, device;
	int numa;                /* -1 unknown */
	enum golden_loc gpu_loc; /* best locality to any GPU */
	int nports;
	struct golden_port ports[GOLDEN_MAX_PORTS];
	double rate_gbps;   /* best port rate, or netdev speed/1000 */
	char operstate[16]; /* netdev operstate ("up"), "" if no netdev */
	bool has_addr;      /* netdev carries an IPv4 route or global IPv6 */
	bool default_route; /* netdev carries the IPv4 default route */
	bool has_device;    /* sysfs netdev has a device link (PCI or not) */
	bool is_bridge;     /* sysfs bridge/ directory */
	bool is_bond;       /* sysfs bonding/ directory */
	uint64_t node_guid; /* RDMA devices: sysfs node_guid, 0 unknown */
	char node_desc[72]; /* RDMA devices: the NodeDescription ibnetdiscover shows */
};

/* Something a person should know about how the answer came about: where
 * facts came from, a fallback that was taken. Warnings mean the answer may
 * be wrong for the node (facts from two hosts); notes explain a choice. */
#define GOLDEN_TOPO_MAX_NOTES 4
#define GOLDEN_TOPO_NOTE_LEN  768

struct golden_topo_note {
	bool warning;
	char text[GOLDEN_TOPO_NOTE_LEN];
};

struct golden_topo {
	int ngpus;
	struct golden_gpu gpus[GOLDEN_MAX_GPUS];
	int nnics;
	struct golden_nic nics[GOLDEN_MAX_NICS];
	int nnuma;
	int nvswitches;                     /* NVIDIA PCI class 0x0680 devices */
	bool pcie_flat;                     /* every GPU sits right on a host bridge (VM) */
	bool rdma_fallback;                 /* RDMA devices exist, none is PIX/PXB to a GPU */
	char dmi_product[128];              /* the XML's DMIProductName, else sysfs */
	char xml_host[GOLDEN_NAME_LEN];     /* the XML's HostName, "" if none or live */
	char bootstrap_if[GOLDEN_NAME_LEN]; /* chosen NCCL_SOCKET_IFNAME, "" none */
	char source[512];                   /* "hwloc XML FILE" or "live hwloc" */
	struct golden_nvlink nvlink;        /* filled by golden_topo_read_nvlink */
	int nnotes;
	struct golden_topo_note notes[GOLDEN_TOPO_MAX_NOTES];
	/* PCIe locality of every GPU to every NIC (enum golden_loc values). */
	unsigned char loc[GOLDEN_MAX_GPUS][GOLDEN_MAX_NICS];
};

struct golden_topo_opts {
	const char *topology_xml; /* NULL: load the live topology */
	/* NULL: the real root, but with topology_xml only when the XML names
	 * this host (otherwise its sysfs facts would be mixed into another
	 * node's answer). "/" or a directory: read there, as asked. */
	const char *sysroot;
	/* How long hwloc and the sysfs reads may take before they are killed;
	 * 0: GOLDEN_TOPO_DEADLINE_MS. The admin's knob (plugstack
	 * discovery_deadline_ms=, golden.conf discovery_deadline_ms) for nodes
	 * slower than the default assumes, such as an emulated one. */
	int deadline_ms;
};

/* The default longest discovery may take before it is killed. */
#define GOLDEN_TOPO_DEADLINE_MS 10000

/* Discover the node. hwloc and the sysfs reads run in a child process under
 * opts->deadline_ms, so a malformed XML that crashes libhwloc, or a
 * hung read, costs the caller (slurmstepd) nothing but this error.
 * Returns 0, or -1 with a one-line reason in err (hwloc's own reason for an
 * XML it rejects). */
int golden_topo_discover(const struct golden_topo_opts *opts, struct golden_topo *topo,
                         struct golden_err *err);

/* Ask NVML which NVLink domain the GPUs are in: fills gpus[].fabric and
 * the nvlink summary. Not part of golden_topo_discover (the plugin never
 * loads NVML); NVML can hang with a sick driver, so run this in a child
 * under a deadline. Returns 0, or -1 when NVML cannot be used (the reason
 * is in err and in nvlink.why, nvlink.read stays false). */
int golden_topo_read_nvlink(struct golden_topo *topo, struct golden_err *err);

/* The nvlink summary from gpus[].fabric (pure: no I/O). extra are fabric
 * records of GPUs NVML reports but the topology does not know. */
void golden_topo_nvlink_summarize(struct golden_topo *topo, const struct golden_gpu_fabric *extra,
                                  int nextra);

/* "0x0123456789abcdef" (out: at least 19 bytes). */
void golden_topo_guid_format(uint64_t guid, char *out, size_t len);

/* Classify NICs, choose the bootstrap interface and each GPU's nearest
 * compute NIC from the facts discovery filled in (pure: no I/O). */
void golden_topo_classify(struct golden_topo *topo);

/* Append a note (printf format). Ignored when the notes are full. */
void golden_topo_note(struct golden_topo *topo, bool warning, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Is this netdev name one of the well-known virtual interfaces? */
bool golden_topo_netdev_is_virtual(const char *name);

/* Names for printing and JSON. */
const char *golden_topo_loc_name(enum golden_loc loc);
const char *golden_topo_nic_kind_name(enum golden_nic_kind kind);
const char *golden_topo_nic_class_name(enum golden_nic_class cls);

/* Human-readable and JSON renderings used by `golden topo`. */
struct json_object;
struct json_object *golden_topo_to_json(const struct golden_topo *topo);

/* The facts file the health check leaves in state_dir for
 * `golden topology gather --facts-dir`: {"format": GOLDEN_NODE_FACTS_FORMAT,
 * "version": 1, "node", "time" (epoch seconds), "topo": golden_topo_to_json}. */
#define GOLDEN_NODE_FACTS_FILE   "topology-facts.json"
#define GOLDEN_NODE_FACTS_FORMAT "slurm-golden node facts"
struct json_object *golden_topo_node_facts_json(const char *node, const struct golden_topo *topo);
void golden_topo_print_text(const struct golden_topo *topo, FILE *out);

#endif
