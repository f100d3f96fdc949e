/* Judging a sweep: findings, each with the sizes and numbers that justify
 * it, per run and per placement (out-of-place and in-place apart).
 *
 *   wrong                 a non-zero #wrong, an old-format error above
 *                         nccl-tests' own tolerance for the type
 *                         (DeltaMaxValue: half/bfloat16 1e-2, float 1e-5,
 *                         double 1e-12, integers any), or a FAILED
 *                         out-of-bounds footer;
 *   missing               sizes absent from the configured sweep, a run
 *                         that stopped early, a row cut short, a hang or
 *                         time limit, a failure line in the log;
 *   slower-than-default   A/B runs (golden sweep run --compare-default):
 *                         sizes where the golden environment's busbw is
 *                         clearly below NCCL's defaults at the same size;
 *   scaling               runs at several node counts: large-message busbw
 *                         that drops as nodes double beyond what the
 *                         collective's algorithm explains
 *                         (golden_sweep_scaling_expected);
 *   below-expected        peak busbw below the platform's figure
 *                         (expect.h), judged only where the sweep reaches
 *                         the size the figure holds for;
 *   dip                   busbw clearly below the best already reached at
 *                         a smaller size; sizes where that best is below
 *                         the noise floor are latency-bound and not judged,
 *                         and a plateau or a step that keeps rising never
 *                         falls below its own best;
 *   not-a-bandwidth-test  one rank (busbw factor 0, nothing crosses a bus)
 *                         or only latency-bound sizes.
 * Findings are sorted worst first. Notes say what could not be judged. */
#ifndef GOLDEN_SWEEP_DETECT_H
#define GOLDEN_SWEEP_DETECT_H

#include "sweep/expect.h"
#include "sweep/sweep.h"

enum golden_sweep_kind {
	GOLDEN_FIND_WRONG,
	GOLDEN_FIND_MISSING,
	GOLDEN_FIND_SLOWER,
	GOLDEN_FIND_SCALING,
	GOLDEN_FIND_BELOW,
	GOLDEN_FIND_DIP,
	GOLDEN_FIND_NOTBW,
	GOLDEN_FIND_NKINDS
};

struct golden_sweep_finding {
	enum golden_sweep_kind kind;
	char what[24];  /* detail of the kind: "sizes-absent", "stopped-early", ... */
	int run;        /* the run it is about */
	int placement;  /* GOLDEN_SWEEP_OOP, GOLDEN_SWEEP_IP, or -1: the run as a whole */
	int other;      /* the run compared with (fewer nodes; NCCL's defaults), -1 none */
	long long size; /* first size it applies to, 0 none */
	long long size_to;
	int nsizes;
	double value;          /* busbw (GB/s) measured where it is worst */
	double reference;      /* what it is compared with (GB/s) */
	double ratio;          /* value / reference */
	double expected_ratio; /* scaling: the ratio the algorithm explains */
	double wrong;          /* worst #wrong or error */
	double severity;       /* for sorting, worst first */
	char text[384];        /* one line for people, without the run's name */
};

struct golden_sweep_note {
	int run; /* -1: the whole set */
	char text[320];
};

struct golden_sweep_result {
	int n, cap;
	struct golden_sweep_finding *f;
	int nnotes, notecap;
	struct golden_sweep_note *notes;
};

struct golden_sweep_opts {
	double dip_threshold;     /* 0.10: a dip is this far below the best smaller size */
	double noise_floor;       /* 1.0 GB/s: sizes whose best so far is below are not judged */
	double scaling_tolerance; /* 0.10: beyond the algorithm's explained ratio */
	double ab_tolerance;      /* 0.10: golden this far below the default is slower */
	long long large_size;     /* 1 GiB: where large-message busbw is taken */
	long long min_bw_size;    /* 1 MiB: a run that never gets here is latency-only */
	const struct golden_sweep_expect *expect; /* NULL: below-expected not judged */
};

void golden_sweep_opts_init(struct golden_sweep_opts *o);

/* Judge SET (inferred: infer.h). Returns 0, or -1 when out of memory. */
int golden_sweep_detect(const struct golden_sweep_set *set, const struct golden_sweep_opts *o,
                        struct golden_sweep_result *res);

void golden_sweep_result_free(struct golden_sweep_result *res);

/* "dip", "wrong", "missing", "below-expected", "scaling",
 * "slower-than-default", "not-a-bandwidth-test". */
const char *golden_sweep_kind_name(enum golden_sweep_kind k);

/* The largest busbw of a run's placement over sizes in [lo, hi]; -1 none. */
double golden_sweep_peak(const struct golden_sweep_run *r, int placement, long long lo,
                         long long hi, long long *at);

/* Is this row of the run part of a dip finding (for the plot)? */
bool golden_sweep_is_dip(const struct golden_sweep_result *res, int run, int placement,
                         long long size);

#endif
