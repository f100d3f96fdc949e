/* What golden-active computes on the CPU: the phase deadlines within the
 * budget, bf16 rounding, random inputs, the GEMM reference and its
 * tolerance (a wrong result must be caught, a correctly rounded one not),
 * and the cpulist of the CPUs next to a GPU. */
#include <config.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "active/hostside.h"
#include "t/unit/tap.h"

static void test_deadlines(void)
{
	int sum = 0;

	for (int p = 0; p < GOLDEN_ACTIVE_NPHASES; p++)
		sum += golden_active_phase_deadline_ms(60, (enum golden_active_phase)p);
	is_int(sum, 60000, "the phases' deadlines add up to the 60 s budget");
	ok(golden_active_phase_deadline_ms(20, GOLDEN_ACTIVE_PH_DISCOVER) == 3000,
	   "discovery gets at least 3 s");
	ok(golden_active_phase_deadline_ms(60, GOLDEN_ACTIVE_PH_GEMM) == 15000, "GEMM gets 25%%");
	ok(golden_active_phase_deadline_ms(0, GOLDEN_ACTIVE_PH_GEMM) == 0, "no budget, no time");
}

static void test_bf16(void)
{
	ok(golden_active_bf16(1.0f) == 0x3f80, "1.0 -> 0x3f80");
	ok(golden_active_bf16(-2.0f) == 0xc000, "-2.0 -> 0xc000");
	ok(golden_active_bf16_float(golden_active_bf16(0.1f)) == 0.10009765625f,
	   "0.1 rounds to the nearest bf16");
	/* 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even (1.0). */
	ok(golden_active_bf16(1.00390625f) == 0x3f80, "ties go to even");
	ok(isnan(golden_active_bf16_float(golden_active_bf16(NAN))), "NaN stays NaN");
}

static void test_gemm_reference(void)
{
	enum { M = 64, N = 48, K = 512, NS = 32 };
	uint16_t *a = malloc(sizeof(uint16_t) * M * K), *b = malloc(sizeof(uint16_t) * K * N);
	int is_[NS], js[NS], inrange = 1, corners;
	double ref[NS], absum[NS];
	float got[NS];

	golden_active_fill_bf16(a, M * K, 42);
	golden_active_fill_bf16(b, K * N, 43);
	for (int i = 0; i < M * K; i++) {
		float f = golden_active_bf16_float(a[i]);

		inrange &= f >= -1 && f <= 1;
	}
	ok(inrange, "random inputs lie in [-1, 1]");
	ok(a[0] != a[1] || a[1] != a[2], "and are not constant");
	golden_active_gemm_samples(M, N, NS, 7, is_, js);
	corners = is_[0] == 0 && js[0] == 0 && is_[3] == M - 1 && js[3] == N - 1;
	ok(corners, "the samples include the corners");
	for (int t = 0; t < NS; t++) {
		double acc = 0;

		inrange &= is_[t] >= 0 && is_[t] < M && js[t] >= 0 && js[t] < N;
		ref[t] = golden_active_gemm_ref(a, b, M, K, is_[t], js[t], &absum[t]);
		/* What a GPU does: fp32 accumulation of exact products. */
		for (int l = 0; l < K; l++) {
			float p = golden_active_bf16_float(a[is_[t] + l * M]) *
			          golden_active_bf16_float(b[l + js[t] * K]);

			acc = (float)(acc + p);
		}
		got[t] = (float)acc;
	}
	ok(inrange, "samples lie within the matrix");
	ok(golden_active_gemm_check(got, ref, absum, NS) < 0.05,
	   "an fp32-accumulated result is far within the tolerance (%.4f)",
	   golden_active_gemm_check(got, ref, absum, NS));
	got[9] = (float)(ref[9] * 1.01 + 0.05); /* a high mantissa bit flipped */
	ok(golden_active_gemm_check(got, ref, absum, NS) > 1, "a 1%% error is caught");
	got[9] = NAN;
	ok(isinf(golden_active_gemm_check(got, ref, absum, NS)), "a NaN is caught");
	free(a);
	free(b);
}

static void test_cpulist(void)
{
	uint64_t m[4];

	is_int(golden_active_cpulist("0-23,48-71\n", m, 256), 48, "0-23,48-71: 48 CPUs");
	ok((m[0] & 1) && (m[0] & (1ULL << 23)) && !(m[0] & (1ULL << 24)) && (m[0] & (1ULL << 48)) &&
	       (m[1] & (1ULL << 7)) && !(m[1] & (1ULL << 8)),
	   "the right bits");
	is_int(golden_active_cpulist("5", m, 256), 1, "a single CPU");
	is_int(golden_active_cpulist("3-1", m, 256), -1, "a reversed range is refused");
	is_int(golden_active_cpulist("x", m, 256), -1, "garbage is refused");
	is_int(golden_active_cpulist("0-511", m, 256), 256, "CPUs beyond the mask are ignored");
}

/* The first lines of /proc/driver/nvidia/version: the open flavour as an
 * H200 node showed it (contrib/device/real-gpu-node, 2026-12-04), the
 * proprietary one as NVIDIA's README words it. */
static void test_driver_version(void)
{
	char v[32];

	is_int(
	    golden_active_driver_version("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  "
	                                 "580.159.04  Release Build  (nixbld@)  \n",
	                                 v, sizeof(v)),
	    0, "open kernel module: found");
	is(v, "580.159.04", "open kernel module: the version, not 'for'");
	is_int(golden_active_driver_version(
	           "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.183.01  "
	           "Sun May 12 19:39:15 UTC 2024\n",
	           v, sizeof(v)),
	       0, "proprietary module: found");
	is(v, "535.183.01", "proprietary module: the version");
	is_int(
	    golden_active_driver_version("GCC version:  gcc version 15.3.0 (GCC)\n", v, sizeof(v)),
	    -1, "a line without the module: no version");
	is(v, "", "and nothing written");
	is_int(golden_active_driver_version(
	           "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64\n", v, sizeof(v)),
	       -1, "a module line without a number: no version");
	is_int(golden_active_driver_version(
	           "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04 ", v, 4),
	       -1, "a version longer than the buffer is refused, not cut");
}

int main(void)
{
	test_driver_version();
	test_deadlines();
	test_bf16();
	test_gemm_reference();
	test_cpulist();
	return done_testing();
}
