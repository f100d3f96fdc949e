/* The CUDA side of golden-active (golden-active.cu): one function per phase,
 * each called inside a phase child of its own (main.c) with the report in
 * memory shared with the parent. They only measure: every CUDA, cuBLAS and
 * NCCL call is checked and a failure is written into the figure it spoils
 * ("cudaErrorECCUncorrectable at cudaMemcpyAsync"); all judging happens in
 * lib/active. A GPU's done[phase] is set when the phase finished with it, so
 * that a hang names the GPU it hung on. */
#ifndef GOLDEN_ACTIVE_PHASES_H
#define GOLDEN_ACTIVE_PHASES_H

#include <stddef.h>
#include <stdint.h>

#include "active/report.h"

#ifdef __cplusplus
extern "C" {
#endif

struct golden_active_params {
	double target_s;  /* how long a phase measures (its deadline leaves room for setup) */
	size_t hbm_bytes; /* copy size per GPU (0: min(1 GiB, free / 8)) */
	int gemm_n;       /* m = n = k of the GEMMs (8192) */
	const uint16_t *gemm_a, *gemm_b; /* bf16 inputs, column-major, made on the host */
	const int *sample_i, *sample_j;  /* result positions checked against the reference */
	int nsamples;
	float *gemm_got;     /* [gpu][2][nsamples]: bf16 then tf32 results at the samples */
	size_t pcie_bytes;   /* host <-> device copy size (256 MiB) */
	size_t p2p_bytes;    /* peer copy size (256 MiB) */
	size_t nccl_bytes;   /* all-reduce size per rank (256 MiB) */
	double memtest_frac; /* of free memory */
	uint64_t seed;
};

/* Count the GPUs and read their names, PCI addresses, memory and compute
 * capability, the driver and runtime versions. On failure r->env_error
 * says which call failed with which error. */
void golden_active_cuda_discover(struct golden_active_report *r);

/* Device-to-device copy, every GPU at once. */
void golden_active_cuda_hbm(struct golden_active_report *r, const struct golden_active_params *p);

/* bf16 and tf32 GEMMs, every GPU at once; results at the sample positions
 * go to p->gemm_got for the caller's reference check. */
void golden_active_cuda_gemm(struct golden_active_report *r, const struct golden_active_params *p);

/* The CPUs next to a GPU (its PCI device's local_cpulist), as a bitmap of
 * 1024 CPUs; all zero: no binding. */
struct golden_active_cpus {
	uint64_t mask[16];
};

/* Pinned host <-> device copies, one GPU at a time, from the CPUs next to
 * the GPU (cpus[g] for GPU g). */
void golden_active_cuda_pcie(struct golden_active_report *r, const struct golden_active_params *p,
                             const struct golden_active_cpus *cpus);

/* Peer copies for every pair where peer access exists, one pair at a time. */
void golden_active_cuda_p2p(struct golden_active_report *r, const struct golden_active_params *p);

/* All-reduce inside the node over every GPU (the caller sets NCCL_* first). */
void golden_active_cuda_nccl(struct golden_active_report *r, const struct golden_active_params *p);

/* Memory patterns over a fraction of free memory, every GPU at once. */
void golden_active_cuda_memtest(struct golden_active_report *r,
                                const struct golden_active_params *p);

#ifdef __cplusplus
}
#endif

#endif
