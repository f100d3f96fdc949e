/* What each node said about itself, gathered for the cluster: its
 * InfiniBand ports (GUID, subnet prefix, link layer, rate, state, whether
 * the adapter is a GPU-local compute rail) and its NVLink domain. The input
 * is the facts file of `golden topology gather`:
 *
 *   {"format": "slurm-golden topology facts", "version": 1,
 *    "generated": "2026-12-03T15:00:00Z", "method": "srun",
 *    "nodes": {"n1": <golden topo --format json of n1>, ...},
 *    "unanswered": {"n5": "srun: error: ...", ...}}
 *
 * Nodes are Slurm node names; nothing here trusts an adapter's
 * NodeDescription. */
#ifndef GOLDEN_FABRIC_FACTS_H
#define GOLDEN_FABRIC_FACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/errbuf.h"

#define GOLDEN_FACTS_FORMAT "slurm-golden topology facts"
#define GOLDEN_FACTS_NAME   64

struct json_object;

struct golden_facts_port {
	char dev[64]; /* RDMA device, mlx5_0 */
	int num;
	uint64_t guid;   /* port GUID, 0 unknown */
	uint64_t prefix; /* subnet prefix, 0 unknown */
	bool ib;         /* link layer InfiniBand */
	bool compute;    /* the adapter is a GPU-local compute rail */
	bool active;     /* state ACTIVE */
	double rate_gbps;
};

struct golden_facts_node {
	char name[GOLDEN_FACTS_NAME];
	struct golden_facts_port *ports;
	int nports;
	/* NVLink domain (topo's "nvlink" object) */
	bool nvl_read;
	int nvl_gpus;
	char nvl_state[24]; /* "completed", "in-progress", ... */
	int nvl_status;
	bool nvl_consistent, nvl_attached;
	char domain[64]; /* "<uuid>.<clique>" when attached */
	char nvl_why[200];
};

struct golden_facts_missing {
	char name[GOLDEN_FACTS_NAME];
	char why[256];
};

struct golden_facts {
	struct golden_facts_node *nodes; /* sorted by name (natural order) */
	int n, cap;
	struct golden_facts_missing *missing;
	int nmissing;
	char generated[40];
	char method[64];
};

/* Read a facts file. Returns 0, or -1 with file and key in err. */
int golden_facts_load(const char *path, struct golden_facts *f, struct golden_err *err);

/* The same from a parsed document (what gather produced in memory). */
int golden_facts_from_json(struct json_object *root, const char *what, struct golden_facts *f,
                           struct golden_err *err);

/* One node from its `golden topo --format json` object. */
int golden_facts_add_node(struct golden_facts *f, const char *name, struct json_object *topo,
                          struct golden_err *err);

int golden_facts_add_missing(struct golden_facts *f, const char *name, const char *why);

/* Sort nodes by name; call after adding. */
void golden_facts_sort(struct golden_facts *f);

/* Index of a node, or -1 (binary search: sorted). */
int golden_facts_find(const struct golden_facts *f, const char *name);

/* Why the node is missing, or NULL. */
const char *golden_facts_missing_why(const struct golden_facts *f, const char *name);

void golden_facts_free(struct golden_facts *f);

/* "0x0123456789abcdef" -> value. Returns 0 or -1. */
int golden_facts_parse_guid(const char *s, uint64_t *out);

#endif
