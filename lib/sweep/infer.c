#include "sweep/infer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The row that says most about busbw/algbw: the largest size with an
 * algbw big enough that two printed decimals hold little rounding. */
static const struct golden_sweep_half *best_ratio_row(const struct golden_sweep_run *r)
{
	const struct golden_sweep_half *best = NULL;

	for (int i = 0; i < r->nrows; i++)
		for (int h = 0; h < 2; h++) {
			const struct golden_sweep_half *x = &r->rows[i].half[h];

			if (x->present && x->algbw > 0.5 && (!best || x->algbw > best->algbw))
				best = x;
		}
	return best;
}

/* busbw/algbw of the run, or -1 when no row allows it. */
static double ratio(const struct golden_sweep_run *r)
{
	const struct golden_sweep_half *b = best_ratio_row(r);

	return b ? b->busbw / b->algbw : -1;
}

/* Does busbw = factor(n) x algbw hold for every usable row, within the
 * rounding of two printed decimals? */
static bool fits(const struct golden_sweep_run *r, enum golden_sweep_coll c, int n)
{
	double f = golden_sweep_busbw_factor(c, n);
	int checked = 0;

	for (int i = 0; i < r->nrows; i++)
		for (int h = 0; h < 2; h++) {
			const struct golden_sweep_half *x = &r->rows[i].half[h];

			if (!x->present || x->algbw < 0.5)
				continue;
			if (fabs(f * x->algbw - x->busbw) > 0.011 + 0.006 * f + 1e-4 * x->busbw)
				return false;
			checked++;
		}
	return checked > 0;
}

/* n from busbw/algbw for a collective whose factor depends on n. With
 * many ranks, two printed decimals fit several n: prefer a multiple of the
 * GPUs per node when it is known, else of 8, 4 or 2 (ranks come in whole
 * nodes), and among those the one with the largest power of two. */
static int ranks_from_ratio(const struct golden_sweep_run *r, enum golden_sweep_coll c, int gpn)
{
	static const int multiples[] = {0, 8, 4, 2, 1};
	double q = ratio(r), n;
	int n0, span, best = 0;

	if (q < 0)
		return 0;
	switch (golden_sweep_coll_factor_kind(c)) {
	case GOLDEN_FACTOR_2N1N:
		if (q >= 2)
			return 0;
		n = 2 / (2 - q);
		break;
	case GOLDEN_FACTOR_N1N:
		if (q >= 1)
			return 0;
		n = 1 / (1 - q);
		break;
	default:
		return 0;
	}
	if (n < 1 || n > 1e6)
		return 0;
	n0 = (int)lround(n);
	if (fits(r, c, n0) && (n0 < 16 || !gpn || n0 % gpn == 0))
		return n0;
	span = n0 / 10 > 2 ? n0 / 10 : 2;
	for (int m = 0; m < 5 && !best; m++) {
		int k = m == 0 ? gpn : multiples[m];

		if (k <= 0)
			continue;
		/* Several fit: the one with the largest power of two in it
		 * (clusters grow in powers of two), then the nearest. */
		for (int cand = n0 - span; cand <= n0 + span; cand++) {
			if (cand < 1 || cand % k || !fits(r, c, cand))
				continue;
			if (!best ||
			    __builtin_ctz((unsigned)cand) > __builtin_ctz((unsigned)best) ||
			    (__builtin_ctz((unsigned)cand) == __builtin_ctz((unsigned)best) &&
			     abs(cand - n0) < abs(best - n0)))
				best = cand;
		}
	}
	return best ? best : n0;
}

static bool any_redop(const struct golden_sweep_run *r, const char *op)
{
	for (int i = 0; i < r->nrows; i++)
		if (!strcmp(r->rows[i].redop, op))
			return true;
	return false;
}

static bool inplace_wrong_na(const struct golden_sweep_run *r)
{
	bool oop_checked = false, ip_na = true;

	for (int i = 0; i < r->nrows; i++) {
		oop_checked |= r->rows[i].half[0].present && r->rows[i].half[0].wrong >= 0;
		ip_na &= !r->rows[i].half[1].present || r->rows[i].half[1].wrong < 0;
	}
	return oop_checked && ip_na;
}

static enum golden_sweep_coll guess_coll(const struct golden_sweep_run *r)
{
	const struct golden_sweep_layout *l = &r->layout;
	bool root = false, has_op, none;
	double q = ratio(r);

	if (!r->nrows)
		return GOLDEN_COLL_UNKNOWN;
	for (int i = 0; i < r->nrows; i++)
		root |= r->rows[i].root >= 0;
	none = any_redop(r, "none");
	has_op = !none && (any_redop(r, "sum") || any_redop(r, "prod") || any_redop(r, "max") ||
	                   any_redop(r, "min") || any_redop(r, "avg"));
	if (l->known && l->errcol != GOLDEN_SWEEP_ERR_WRONG) {
		/* 2019-2022: each collective printed its own header. */
		if (l->has_root && l->has_redop)
			return GOLDEN_COLL_REDUCE;
		if (l->has_root)
			return GOLDEN_COLL_BROADCAST;
		if (!l->has_redop)
			return q >= 0.995 ? GOLDEN_COLL_SENDRECV : GOLDEN_COLL_ALL_GATHER;
		if (!has_op)
			return GOLDEN_COLL_ALLTOALL; /* redop printed blank */
	} else {
		/* Rooted: reduce and broadcast keep busbw = algbw; scatter and
		 * gather (the columns cannot tell them apart) have (n-1)/n. */
		if (root)
			return has_op                ? GOLDEN_COLL_REDUCE
			       : q >= 0 && q < 0.995 ? GOLDEN_COLL_SCATTER
			                             : GOLDEN_COLL_BROADCAST;
		if (!has_op)
			return inplace_wrong_na(r) ? GOLDEN_COLL_ALLTOALL : GOLDEN_COLL_ALL_GATHER;
	}
	/* A reduction over all ranks: all_reduce's factor is >= 1 from two
	 * ranks on, reduce_scatter's below 1. With one rank both are 0. */
	if (q >= 0 && q < 0.995 && q > 0.001)
		return GOLDEN_COLL_REDUCE_SCATTER;
	return GOLDEN_COLL_ALL_REDUCE;
}

static void infer_ranks(struct golden_sweep_run *r, int gpn)
{
	int listed = r->max_rank + 1, solved;

	if (r->ranks_src == GOLDEN_SWEEP_SRC_META && r->ranks > 0)
		return;
	solved = ranks_from_ratio(r, r->coll, gpn);
	if (listed > 0 &&
	    (fits(r, r->coll, listed) ||
	     golden_sweep_coll_factor_kind(r->coll) == GOLDEN_FACTOR_ONE || !solved)) {
		r->ranks = listed;
		r->ranks_src = GOLDEN_SWEEP_SRC_LOG;
		return;
	}
	if (solved > 0 && fits(r, r->coll, solved)) {
		r->ranks = solved;
		r->ranks_src = GOLDEN_SWEEP_SRC_INFERRED;
		return;
	}
	/* Every busbw 0: one rank (the (n-1) factors vanish). */
	if (golden_sweep_coll_factor_kind(r->coll) != GOLDEN_FACTOR_ONE && r->nrows) {
		const struct golden_sweep_half *b = best_ratio_row(r);

		if (b && b->busbw == 0) {
			r->ranks = 1;
			r->ranks_src = GOLDEN_SWEEP_SRC_INFERRED;
		}
	}
}

static void infer_nodes(struct golden_sweep_run *r, const struct golden_sweep_infer_opts *o)
{
	bool complete = r->ranks > 0 && r->ndev_lines == r->ranks && !r->dev_elided;

	if (r->nodes_src == GOLDEN_SWEEP_SRC_META && r->nodes > 0)
		return;
	if (complete && r->nhosts > 0) {
		r->nodes = r->nhosts;
		r->nodes_src = GOLDEN_SWEEP_SRC_LOG;
		return;
	}
	/* An elided list that still shows its last rank: ranks per host from
	 * the local device indexes (one GPU per rank, as nccl-tests runs
	 * multi-node). A single process driving every GPU (-g N) is one host. */
	if (r->ranks > 0 && r->ndev_lines && r->max_rank + 1 == r->ranks && r->max_device >= 0) {
		int per = r->ngpus > 1 ? r->ngpus : r->max_device + 1;

		if (r->ngpus > 1 && r->nhosts == 1 && r->ndev_lines == r->ranks)
			per = r->ranks;
		if (per > 0 && r->ranks % per == 0) {
			r->nodes = r->ranks / per;
			r->nodes_src = GOLDEN_SWEEP_SRC_INFERRED;
			return;
		}
	}
	if (o && o->nodes > 0) {
		r->nodes = o->nodes;
		r->nodes_src = GOLDEN_SWEEP_SRC_OPTION;
	} else if (o && o->gpus_per_node > 0 && r->ranks > 0 && r->ranks % o->gpus_per_node == 0) {
		r->nodes = r->ranks / o->gpus_per_node;
		r->nodes_src = GOLDEN_SWEEP_SRC_OPTION;
	}
}

static void infer_errcol(struct golden_sweep_run *r)
{
	if (r->layout.errcol != GOLDEN_SWEEP_ERR_UNKNOWN)
		return;
	/* No header: a fractional "error" means the old float column. */
	r->layout.errcol = GOLDEN_SWEEP_ERR_WRONG;
	for (int i = 0; i < r->nrows; i++)
		for (int h = 0; h < 2; h++) {
			double w = r->rows[i].half[h].wrong;

			if (r->rows[i].half[h].present && w > 0 && w != floor(w))
				r->layout.errcol = GOLDEN_SWEEP_ERR_FLOAT;
		}
}

void golden_sweep_infer(struct golden_sweep_run *r, const struct golden_sweep_infer_opts *o)
{
	infer_errcol(r);
	if (r->coll == GOLDEN_COLL_UNKNOWN && o && o->coll != GOLDEN_COLL_UNKNOWN) {
		r->coll = o->coll;
		r->coll_src = GOLDEN_SWEEP_SRC_OPTION;
	}
	if (r->coll == GOLDEN_COLL_UNKNOWN) {
		r->coll = guess_coll(r);
		if (r->coll != GOLDEN_COLL_UNKNOWN)
			r->coll_src = GOLDEN_SWEEP_SRC_INFERRED;
	}
	infer_ranks(r, o ? o->gpus_per_node : 0);
	infer_nodes(r, o);
}

void golden_sweep_infer_all(struct golden_sweep_set *set, const struct golden_sweep_infer_opts *o)
{
	for (int i = 0; i < set->nruns; i++)
		golden_sweep_infer(&set->runs[i], o);
}
