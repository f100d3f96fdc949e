/* The blocks Slurm's topology/block plugin schedules on: one block per
 * multi-node NVLink domain (an NVL72 rack under the default partition),
 * from the gathered node facts.
 *
 * - A node joins its domain's block only when every GPU's fabric
 *   registration is COMPLETED with status success, the GPUs agree, and the
 *   cluster UUID is not zero; every other node is reported with why.
 * - Aggregation in Slurm is positional (blocks i..i+2^k-1 in file order form
 *   a larger block), so blocks are ordered to keep neighbouring racks
 *   consecutive: by their place in the InfiniBand tree when there is one
 *   (racks under the same leaf, then the same top), then by node name.
 * - BlockSizes: the site's segment sizes, or the most common rack size and
 *   its doublings up to the number of racks. Slurm 24.05 and 24.11 refuse a
 *   block with fewer nodes than the base size (slurmctld does not start):
 *   for those versions such a block is left out and its nodes reported.
 */
#ifndef GOLDEN_FABRIC_BLOCK_H
#define GOLDEN_FABRIC_BLOCK_H

#include <stdbool.h>

#include "fabric/facts.h"
#include "fabric/topoconf.h"
#include "fabric/tree.h"
#include "util/errbuf.h"

#define GOLDEN_BLOCK_MAX_SIZES 16

struct golden_block {
	char name[72];   /* BlockName */
	char domain[64]; /* "<cluster uuid>.<clique>" */
	int *nodes;      /* facts node indices, sorted by name */
	int nnodes;
	bool left_out; /* not written (too small for this Slurm) */
	char why[200]; /* when left out */
};

struct golden_block_unplaced {
	int node;
	char why[240];
};

struct golden_blocks {
	struct golden_block *b; /* in file order */
	int n;
	int sizes[GOLDEN_BLOCK_MAX_SIZES]; /* BlockSizes, base first */
	int nsizes;
	bool sizes_given; /* from the site, not inferred */
	struct golden_block_unplaced *unplaced;
	int nunplaced;
	int *block_of; /* facts node -> block index, -1 */
};

/* Build the blocks. sizes/nsizes: the site's BlockSizes (nsizes 0: infer);
 * tree may be NULL (order by node name only). Returns 0, or -1 with err:
 * invalid sizes (each a multiple of the first by a power of two, at most
 * 2^15, increasing), or the version has no topology/block. */
int golden_blocks_build(const struct golden_facts *facts, const struct golden_tree *tree,
                        const int *sizes, int nsizes, struct golden_slurm_version ver,
                        struct golden_blocks *out, struct golden_err *err);

/* Parse "18,36,72" into sizes. Returns the count, or -1 with err. */
int golden_blocks_parse_sizes(const char *s, int *sizes, int max, struct golden_err *err);

void golden_blocks_free(struct golden_blocks *bl);

#endif
