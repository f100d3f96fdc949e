/* The nccl-tests collectives and what their bus bandwidth means.
 *
 * nccl-tests reports algbw = S/t and busbw = algbw x a factor that depends
 * on the collective and the number of ranks n (NVIDIA/nccl-tests
 * doc/PERFORMANCE.md and the *GetBw() functions in src/): 2(n-1)/n for
 * all_reduce, (n-1)/n for all_gather, reduce_scatter, alltoall, gather and
 * scatter, 1 for broadcast, reduce, sendrecv and hypercube. busbw is the
 * figure that should reflect the hardware bottleneck, so it is what golden
 * judges; with one rank the (n-1) factors are 0 and nothing is judged. */
#ifndef GOLDEN_SWEEP_COLLECTIVE_H
#define GOLDEN_SWEEP_COLLECTIVE_H

#include <stdbool.h>

enum golden_sweep_coll {
	GOLDEN_COLL_UNKNOWN,
	GOLDEN_COLL_ALL_REDUCE,
	GOLDEN_COLL_ALL_GATHER,
	GOLDEN_COLL_REDUCE_SCATTER,
	GOLDEN_COLL_ALLTOALL,
	GOLDEN_COLL_BROADCAST,
	GOLDEN_COLL_REDUCE,
	GOLDEN_COLL_SENDRECV,
	GOLDEN_COLL_GATHER,
	GOLDEN_COLL_SCATTER,
	GOLDEN_COLL_HYPERCUBE,
	GOLDEN_COLL_NCOLLS
};

enum golden_sweep_factor {
	GOLDEN_FACTOR_2N1N, /* 2(n-1)/n */
	GOLDEN_FACTOR_N1N,  /* (n-1)/n */
	GOLDEN_FACTOR_ONE   /* 1 */
};

/* "all_reduce" (the name recipes and reports use). */
const char *golden_sweep_coll_name(enum golden_sweep_coll c);
/* "all_reduce_perf" (the nccl-tests binary). */
const char *golden_sweep_coll_binary(enum golden_sweep_coll c);
/* "all_reduce", "all_reduce_perf", "allreduce", "all_reduce_perf_mpi", a
 * path ending in one of those: the collective, or GOLDEN_COLL_UNKNOWN. */
enum golden_sweep_coll golden_sweep_coll_parse(const char *s);

enum golden_sweep_factor golden_sweep_coll_factor_kind(enum golden_sweep_coll c);
/* busbw / algbw for n ranks (0 when n < 1 or the collective is unknown). */
double golden_sweep_busbw_factor(enum golden_sweep_coll c, int n);
/* "2(n-1)/n", "(n-1)/n", "1". */
const char *golden_sweep_factor_formula(enum golden_sweep_coll c);

/* Does a reduction (redop column names an operation)? */
bool golden_sweep_coll_reduces(enum golden_sweep_coll c);

/* What large-message busbw is expected to do from n1 to n2 nodes (n2 > n1
 * >= 2), as a ratio busbw(n2)/busbw(n1) that the algorithm explains:
 *   alltoall: busbw ~ N/(N-1) x per-GPU NIC bandwidth (sjeaugey,
 *     NVIDIA/nccl-tests#130), so it falls from 2x at 2 nodes toward 1x;
 *   all_reduce from 2 nodes: 2-node results ride the tree algorithm and
 *     can read ~20% above the ring figure (466.7 vs 392.7 on the same two
 *     H100 nodes, NVIDIA/nccl-tests#309), so up to 1/1.2 is explained;
 *   otherwise 1: busbw is normalised to stay flat as ranks grow. */
double golden_sweep_scaling_expected(enum golden_sweep_coll c, int n1, int n2);

#endif
