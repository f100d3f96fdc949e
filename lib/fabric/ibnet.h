/* An InfiniBand fabric as `ibnetdiscover` prints it: switches, channel
 * adapters (host HCAs, SHARP aggregation nodes, UFM hosts) and routers,
 * keyed by GUID, with one link per connected port.
 *
 * Both of ibnetdiscover's formats are read: the default topology dump
 * (`Switch 65 "S-<guid>" # "<desc>" ...` blocks with `[port] "<remote>"[port]`
 * lines) and the `-p` ports report (`SW <lid> <port> 0x<guid> ... - CA ...`).
 * The grammar is rdma-core's infiniband-diags/ibnetdiscover.c; the parser
 * accepts what real captures contain: tabs or spaces, blocks without blank
 * lines, stray stderr lines, `#` and `"` inside descriptions, GUIDs printed
 * padded, unpadded and with or without 0x, nodes without links, self-links.
 *
 * Several dumps may be added to one graph: the same GUID is the same node
 * (two dumps of one fabric), different fabrics stay apart (fabric ids are
 * the connected components of switch-to-switch links). Descriptions are
 * kept for messages only: hosts are matched to Slurm nodes by port GUID.
 */
#ifndef GOLDEN_FABRIC_IBNET_H
#define GOLDEN_FABRIC_IBNET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/errbuf.h"

enum golden_ibnet_type { GOLDEN_IBNET_SWITCH, GOLDEN_IBNET_CA, GOLDEN_IBNET_ROUTER };

struct golden_ibnet_port {
	int num;       /* 1.. */
	uint64_t guid; /* port GUID (CAs, routers); 0 unknown */
	int remote;    /* index of the node at the other end, -1 not connected */
	int remote_port;
};

struct golden_ibnet_node {
	enum golden_ibnet_type type;
	uint64_t guid; /* node GUID; for -p input the (first) port GUID */
	char *desc;    /* NodeDescription as printed, malloc'd */
	bool seen;     /* its own block/lines were in the input (not only named by a neighbour) */
	int fabric;    /* connected component over switch links; -1 unconnected CA */
	struct golden_ibnet_port *ports;
	int nports, cap;
};

struct golden_ibnet {
	struct golden_ibnet_node *nodes;
	int n, cap;
	int nfabrics; /* after golden_ibnet_finish */
	int ninputs;
	/* GUID -> node index and CA port GUID -> (node, port), open addressing */
	struct golden_ibnet_slot *by_guid, *by_port;
	size_t hcap, pcap, pcount;
};

void golden_ibnet_init(struct golden_ibnet *net);
void golden_ibnet_free(struct golden_ibnet *net);

/* Parse one dump (either format, detected per line) into net. name is for
 * messages ("file:line"). Returns the number of nodes read from it, or -1
 * with what is wrong in err (nothing recognisable at all, or out of memory). */
int golden_ibnet_parse(struct golden_ibnet *net, const char *text, const char *name,
                       struct golden_err *err);

/* Read a file and parse it. */
int golden_ibnet_load(struct golden_ibnet *net, const char *path, struct golden_err *err);

/* Compute fabric ids once all inputs are in. */
void golden_ibnet_finish(struct golden_ibnet *net);

/* Index of the node with this GUID, or -1. */
int golden_ibnet_find(const struct golden_ibnet *net, uint64_t guid);

/* The CA/router port with this port GUID: node index (and *port), or -1. */
int golden_ibnet_find_port(const struct golden_ibnet *net, uint64_t port_guid, int *port);

/* What a CA is, from its description: a SHARP aggregation node (never a
 * host), and whether the description is a default model string or a
 * placeholder that names no host (messages only). */
bool golden_ibnet_is_sharp(const struct golden_ibnet_node *node);
bool golden_ibnet_desc_is_default(const char *desc);

/* The switch's name: the <name> of a managed switch's "MF0;<name>:<model>"
 * description when it is a safe Slurm name, else "" (the caller falls back
 * to the GUID). */
void golden_ibnet_switch_name(const struct golden_ibnet_node *node, char *buf, size_t len);

/* Counts for headers: switches, CAs, SHARP nodes, routers, links. */
struct golden_ibnet_counts {
	int switches, cas, sharp, routers, links, fabrics;
};
void golden_ibnet_count(const struct golden_ibnet *net, struct golden_ibnet_counts *c);

#endif
