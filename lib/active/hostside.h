/* What golden-active computes on the CPU, apart from the verdict: the split
 * of the time budget over the phases, fresh random GEMM inputs, the GEMM
 * reference a GPU's result is checked against, and the CPUs next to a GPU
 * (host-to-device copies run from them, so a far socket does not pass for
 * a slow link). Plain C, unit-tested without a GPU. */
#ifndef GOLDEN_ACTIVE_HOSTSIDE_H
#define GOLDEN_ACTIVE_HOSTSIDE_H

#include <stddef.h>
#include <stdint.h>

#include "active/report.h"

/* A phase's deadline within a budget of budget_s seconds: the shares add up
 * to the budget, so the whole run stays within it (discovery at least 3 s). */
int golden_active_phase_deadline_ms(int budget_s, enum golden_active_phase p);

/* bf16 <-> float (round to nearest even; NaN stays NaN). */
uint16_t golden_active_bf16(float f);
float golden_active_bf16_float(uint16_t h);

/* n bf16 values uniform in [-1, 1) from seed (xorshift64*). */
void golden_active_fill_bf16(uint16_t *dst, size_t n, uint64_t seed);

/* Sample positions (i, j) of an m x n result, spread over it. */
void golden_active_gemm_samples(int m, int n, int ns, uint64_t seed, int *is, int *js);

/* C[i][j] of A (m x k) times B (k x n), both column-major (cuBLAS's layout),
 * in double; *absum is the sum of |A[i][l] B[l][j]|, the scale of the
 * rounding error an fp32 accumulation may make. */
double golden_active_gemm_ref(const uint16_t *a, const uint16_t *b, int m, int k, int i, int j,
                              double *absum);

/* The worst |got - ref| as a multiple of the tolerance 2^-10 x absum (plus
 * a tiny absolute term): above 1 the GPU computed a wrong result. bf16
 * values are exact in fp32 and TF32, so every product is exact and only the
 * accumulation rounds, far below this. */
double golden_active_gemm_check(const float *got, const double *ref, const double *absum, int ns);

/* Parse a sysfs cpulist ("0-23,48-71") into a bitmap of ncpus bits (words
 * of 64). Returns the number of CPUs set, or -1 if it is malformed. */
int golden_active_cpulist(const char *list, uint64_t *mask, int ncpus);

/* The driver version in the first line of /proc/driver/nvidia/version:
 * the first word after "Kernel Module" that is a dotted number. The two
 * flavours word it differently (seen on an H200 node, driver 580.159.04):
 *   "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  ..."
 *   "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  ..."
 * Returns 0, or -1 with out empty when the line names no version. */
int golden_active_driver_version(const char *line, char *out, size_t outlen);

#endif
