/* What a platform should reach: minimum large-message busbw per collective
 * and node count, each figure with its public source. The table is plain
 * data; recipes carry it in their `expect` section (lib/env), and the
 * golden command copies the selected recipe's entries here, so judging a
 * sweep never depends on how recipes are found. */
#ifndef GOLDEN_SWEEP_EXPECT_H
#define GOLDEN_SWEEP_EXPECT_H

#include "sweep/collective.h"

#define GOLDEN_SWEEP_MAX_EXPECT 32

struct golden_sweep_expect_entry {
	enum golden_sweep_coll coll;
	int nodes_min, nodes_max; /* inclusive */
	double min_busbw;         /* GB/s */
	long long min_size;       /* the figure holds from this message size on */
	char source[512];
};

struct golden_sweep_expect {
	char recipe[64]; /* where the figures come from ("" none) */
	int n;
	struct golden_sweep_expect_entry e[GOLDEN_SWEEP_MAX_EXPECT];
};

/* The entry for COLL at NODES (the first that covers it), or NULL. */
const struct golden_sweep_expect_entry *
golden_sweep_expect_find(const struct golden_sweep_expect *x, enum golden_sweep_coll coll,
                         int nodes);

#endif
