/* What a log does not say outright: the collective, the ranks and the
 * nodes of each run, from what it does say.
 *
 *   collective  the log (`Collective test starting`, -J args), golden's
 *               own line, else the columns: Gen1 headers name redop/root
 *               per collective; redop "none"/an operation, the root, an
 *               alltoall's in-place N/A, and busbw/algbw (2(n-1)/n >= 1
 *               for all_reduce, (n-1)/n < 1 for the gathers) tell the rest;
 *   ranks       the device list (highest rank + 1) unless busbw/algbw
 *               proves the list incomplete (a copy cut without a marker);
 *               else busbw/algbw solved for n;
 *   nodes       distinct hosts of a complete device list; with an elided
 *               list, ranks / (highest device index + 1); else golden's
 *               line or --gpus-per-node.
 * Options fill only what the log leaves unknown. */
#ifndef GOLDEN_SWEEP_INFER_H
#define GOLDEN_SWEEP_INFER_H

#include "sweep/sweep.h"

struct golden_sweep_infer_opts {
	enum golden_sweep_coll coll; /* --collective, GOLDEN_COLL_UNKNOWN: none */
	int gpus_per_node;           /* --gpus-per-node, 0: none */
	int nodes;                   /* --nodes, 0: none */
};

void golden_sweep_infer(struct golden_sweep_run *run, const struct golden_sweep_infer_opts *o);
void golden_sweep_infer_all(struct golden_sweep_set *set, const struct golden_sweep_infer_opts *o);

#endif
