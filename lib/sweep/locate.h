/* Finding the node (and rail) that drags a multi-node run down, from
 * pairwise 2-node tests: the nodes paired (0-1, 2-3, ...), then re-paired
 * (1-2, 3-4, ..., last-0), so every node meets two partners. A pair is
 * slow when its busbw is clearly below the median pair (or below a given
 * minimum); a node slow with every partner while other nodes have a good
 * pair is the culprit — a slow partner alone cannot explain both of its
 * pairs. For a culprit, one test per rail (NCCL_IB_HCA pinned to one HCA)
 * against a good node names the rail that is slow, where the data allows. */
#ifndef GOLDEN_SWEEP_LOCATE_H
#define GOLDEN_SWEEP_LOCATE_H

#include <stdbool.h>
#include <stddef.h>

#define GOLDEN_LOCATE_MAX_NODES 256
#define GOLDEN_LOCATE_MAX_RAILS 32

struct golden_locate_pair {
	int a, b;     /* node indexes */
	double busbw; /* peak busbw of the pair's test; < 0: it failed */
	bool slow;
};

/* The pairs of ROUND (0 or 1) over n nodes: the ring (i, i+1 mod n), even
 * i in round 0 (0-1, 2-3, ...), odd i in round 1 (1-2, 3-4, ..., last-0).
 * Two nodes make one pair. Returns how many. */
int golden_locate_pairs(int n, int round, struct golden_locate_pair *out, int max);

struct golden_locate_node {
	int pairs, slow;
	double worst; /* lowest busbw of its pairs */
	bool culprit;
};

struct golden_locate_result {
	int nnodes;
	double reference; /* median pair busbw */
	double threshold; /* slow below this */
	int nslow_pairs, nculprits;
	bool all_slow; /* every pair slow: the fabric, not one node */
	struct golden_locate_node node[GOLDEN_LOCATE_MAX_NODES];
};

/* Judge the pairs: slow below median x (1 - tolerance), or below
 * min_busbw when > 0. Marks pairs[i].slow. */
void golden_locate_judge(struct golden_locate_pair *pairs, int npairs, int nnodes, double tolerance,
                         double min_busbw, struct golden_locate_result *res);

struct golden_locate_rail {
	char name[32]; /* mlx5_4 */
	double busbw;  /* < 0: failed */
	bool slow;
};

/* Judge one culprit's per-rail tests: slow below the median rail x
 * (1 - tolerance). Returns the index of the slowest slow rail, or -1. */
int golden_locate_rails(struct golden_locate_rail *rails, int n, double tolerance, double *median);

/* The drain reason's code, at most 20 readable characters so sinfo -R
 * shows all of it: "mlx5_4 busbw 27%" or "nccl busbw 41%". */
void golden_locate_code(const char *rail, double ratio, char *buf, size_t len);

#endif
