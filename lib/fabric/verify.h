/* `golden topology check`: the controller's topology (`scontrol show
 * topology`) against the discovered fabric and NVLink domains. Each
 * mismatch says what is wrong, about whom, and the fix:
 *
 *   missing-switch    a Slurm node under no leaf switch (Slurm only warns,
 *                     then never schedules it well)
 *   multi-leaf        a node under several leaf switches
 *   wrong-leaf        a node under a leaf whose other nodes are cabled
 *                     elsewhere (recabling since the file was written)
 *   split-leaf        one discovered leaf split over several Slurm leaves
 *   cross-fabric      a Slurm switch over nodes of fabrics that cannot
 *                     reach each other
 *   no-common-parent  nodes of one fabric with no common Slurm switch
 *   no-tree/no-block  Slurm has no switches/blocks at all
 *   missing-block     a node of an NVLink domain in no block
 *   mixed-block       a block holding nodes of several NVLink domains
 *   split-domain      one NVLink domain spread over several blocks
 *   fabric-state      a node whose NVLink registration is not COMPLETED
 *                     with success, or whose GPUs disagree
 *
 * Nodes golden could not place, or that did not answer the gather, are
 * warnings: their placement is not checked. */
#ifndef GOLDEN_FABRIC_VERIFY_H
#define GOLDEN_FABRIC_VERIFY_H

#include <stdbool.h>
#include <stdio.h>

#include "fabric/block.h"
#include "fabric/facts.h"
#include "fabric/showtopo.h"
#include "fabric/tree.h"
#include "util/errbuf.h"
#include "util/hostlist.h"

struct json_object;

struct golden_mismatch {
	char kind[24];
	char subject[128];
	char detail[600];
	char fix[300];
};

struct golden_verify {
	struct golden_mismatch *m;
	int n;
	char **warnings;
	int nwarnings;
	bool tree_checked, block_checked;
	int nodes; /* Slurm nodes looked at */
	int slurm_switches, slurm_blocks;
};

/* The kinds, in the order reports and metrics list them. */
extern const char *const golden_verify_kinds[];

/* Compare. tree/blocks: what golden discovered (either may be NULL: that
 * side is not checked, except fabric states); slurm_nodes: every node of
 * the cluster (sinfo), may be empty. Returns 0, or -1 with err. */
int golden_verify_run(const struct golden_facts *facts, const struct golden_tree *tree,
                      const struct golden_blocks *blocks, const struct golden_showtopo *actual,
                      const struct golden_hostlist *slurm_nodes, struct golden_verify *v,
                      struct golden_err *err);

void golden_verify_print(const struct golden_verify *v, FILE *out);
struct json_object *golden_verify_json(const struct golden_verify *v);

/* The Prometheus textfile slurm_golden_topology.prom in dir (mode 0644,
 * replaced atomically): mismatches in total and by kind, whether the check
 * ran, and when. ok: the check could compare at all. */
int golden_verify_metrics(const char *dir, const struct golden_verify *v, bool ok,
                          struct golden_err *err);

void golden_verify_free(struct golden_verify *v);

#endif
