/* What a healthy GPU of a given model should measure in golden-active: one
 * row per model with the vendor's datasheet figures and where they come
 * from, an achievable fraction per test with its rationale, and a sibling
 * tolerance per test. A figure below datasheet x fraction fails; so does a
 * GPU more than the tolerance below the median of its own node's GPUs, even
 * for a model the table does not know.
 *
 * No row has been checked against real hardware by this project yet
 * (`verified` is false everywhere): the floors are datasheet figures scaled
 * by fractions chosen from public measurements, see README "Active checks".
 */
#ifndef GOLDEN_ACTIVE_EXPECT_H
#define GOLDEN_ACTIVE_EXPECT_H

#include <stdbool.h>

#include "active/report.h"

struct golden_active_model {
	const char *names[4]; /* CUDA device names that are this model, exactly */
	const char *label;    /* "H100 SXM5 80GB" */
	double hbm_tbs;       /* datasheet memory bandwidth, TB/s */
	double bf16_tflops;   /* dense bf16 tensor-core rate, TFLOP/s */
	double tf32_tflops;   /* dense TF32 tensor-core rate, TFLOP/s */
	double host_gbps;     /* host link, raw, one direction, GB/s */
	const char *host_link;
	double p2p_gbps;    /* NVLink, one direction, to any peer; 0: no expectation */
	double nccl8_busbw; /* all-reduce busbw floor on 8 GPUs, GB/s; 0: none */
	const char *source; /* the datasheet(s) */
	const char *nccl_source;
	bool verified;    /* figures measured on real hardware by this project */
	const char *note; /* the date and driver of that measurement, or why not */
};

extern const struct golden_active_model golden_active_models[];
extern const int golden_active_nmodels;

/* The row for a CUDA device name ("NVIDIA H100 80GB HBM3"), or NULL. */
const struct golden_active_model *golden_active_model_find(const char *cuda_name);

/* The achievable fraction of the datasheet figure a healthy GPU reaches at
 * least, and why that fraction (0 for tests without one: memtest). */
double golden_active_fraction(enum golden_active_test t);
const char *golden_active_fraction_why(enum golden_active_test t);

/* The datasheet figure for test t (0: none), and the floor golden fails
 * below: datasheet x fraction (0: no absolute expectation). */
double golden_active_datasheet(const struct golden_active_model *m, enum golden_active_test t);
double golden_active_floor(const struct golden_active_model *m, enum golden_active_test t);

/* How far below its siblings' median a GPU may measure, in percent. */
double golden_active_sibling_pct(enum golden_active_test t);

#endif
