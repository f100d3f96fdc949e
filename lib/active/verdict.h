/* golden-active's verdict: every measured figure against the model's
 * expectation (active/expect.h) and against the median of the node's own
 * GPUs of the same model, wrong results and failed or hung calls; the worst
 * finding becomes the run's result and a code that fits the 20 characters
 * of `sinfo -R` ("gpu3 hbm 2.1<2.7TB/s"). Pure computation on the report:
 * no GPU, no I/O. */
#ifndef GOLDEN_ACTIVE_VERDICT_H
#define GOLDEN_ACTIVE_VERDICT_H

#include <stddef.h>

#include "active/report.h"

struct golden_active_judge_opts {
	double sibling_pct; /* > 0: this tolerance for every test; else each test's own */
};

/* Fill expectations, medians, verdicts, result, code, detail and nfailed.
 * Measured values and errors are left as they are; judging twice gives the
 * same answer. */
void golden_active_judge(struct golden_active_report *r, const struct golden_active_judge_opts *o);

/* Median of v[0..n) (n > 0; v is not changed). */
double golden_active_median(const double *v, int n);

/* All-reduce bus bandwidth in GB/s: bytes per rank moved in seconds, scaled
 * by 2(n-1)/n (nccl-tests' definition, doc/PERFORMANCE.md). */
double golden_active_busbw(double bytes, double seconds, int nranks);

/* "WHO WHAT VALUE<LIMIT UNIT" in at most 20 characters: the unit goes first,
 * then the text is cut. */
void golden_active_code(char *buf, size_t len, const char *who, const char *what, double value,
                        double limit, const char *unit);

#endif
