/* What one run of golden-active measured and concluded, as plain data.
 *
 * The CUDA phases (active/golden-active.cu) fill the measured fields in
 * memory shared with the parent, each phase in its own child under a
 * deadline; everything else (expectations, sibling medians, verdicts, the
 * reason, JSON, the table) is host-side logic in lib/active that never
 * needs a GPU. The struct is fixed-size and pointer-free so that a phase
 * child can write it through a shared mapping and a unit test can build
 * one by hand.
 */
#ifndef GOLDEN_ACTIVE_REPORT_H
#define GOLDEN_ACTIVE_REPORT_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GOLDEN_ACTIVE_MAX_GPUS  16
#define GOLDEN_ACTIVE_MAX_PAIRS (GOLDEN_ACTIVE_MAX_GPUS * (GOLDEN_ACTIVE_MAX_GPUS - 1) / 2)
#define GOLDEN_ACTIVE_CODE_LEN  21  /* the 20 characters sinfo -R shows, and a NUL */
#define GOLDEN_ACTIVE_ERR_LEN   96  /* "cudaErrorECCUncorrectable at cudaMemcpy" */
#define GOLDEN_ACTIVE_DETAIL    512 /* everything an operator needs to act */

/* The figures golden-active measures on every GPU. */
enum golden_active_test {
	GOLDEN_ACTIVE_HBM,     /* device-to-device copy, bytes read + written: TB/s */
	GOLDEN_ACTIVE_BF16,    /* cuBLAS GEMM, bf16 in, fp32 accumulate: TFLOP/s */
	GOLDEN_ACTIVE_TF32,    /* cuBLAS GEMM, fp32 in, TF32 tensor cores: TFLOP/s */
	GOLDEN_ACTIVE_H2D,     /* pinned host -> device: GB/s */
	GOLDEN_ACTIVE_D2H,     /* device -> pinned host: GB/s */
	GOLDEN_ACTIVE_P2P,     /* median of this GPU's peer copies: GB/s */
	GOLDEN_ACTIVE_MEMTEST, /* pattern test: errors found (value), bytes tested */
	GOLDEN_ACTIVE_NTESTS
};

/* The phases, each one child under its own deadline, in run order. */
enum golden_active_phase {
	GOLDEN_ACTIVE_PH_DISCOVER,
	GOLDEN_ACTIVE_PH_HBM,
	GOLDEN_ACTIVE_PH_GEMM, /* bf16 and tf32 */
	GOLDEN_ACTIVE_PH_PCIE, /* h2d and d2h */
	GOLDEN_ACTIVE_PH_P2P,
	GOLDEN_ACTIVE_PH_NCCL,
	GOLDEN_ACTIVE_PH_MEMTEST,
	GOLDEN_ACTIVE_NPHASES
};

/* How a phase ended. */
enum golden_active_phase_end {
	GOLDEN_ACTIVE_NOT_RUN, /* skipped (option, or an earlier phase made it moot) */
	GOLDEN_ACTIVE_DONE,
	GOLDEN_ACTIVE_TIMEOUT, /* killed at its deadline */
	GOLDEN_ACTIVE_CRASHED  /* the child died without finishing */
};

/* A verdict on one figure, mildest first. */
enum golden_active_verdict {
	GOLDEN_ACTIVE_V_NONE, /* not measured */
	GOLDEN_ACTIVE_V_OK,
	GOLDEN_ACTIVE_V_LOW_SIBLINGS, /* more than X% below the median of this node's GPUs */
	GOLDEN_ACTIVE_V_LOW_TABLE,    /* below the model's expectation */
	GOLDEN_ACTIVE_V_WRONG,        /* a wrong result (GEMM, memory pattern, all-reduce) */
	GOLDEN_ACTIVE_V_ERROR,        /* a CUDA/cuBLAS/NCCL call failed on this GPU */
	GOLDEN_ACTIVE_V_TIMEOUT       /* the phase hung on this GPU */
};

/* The run as a whole: the exit status is 0, 0, 1, 2. */
enum golden_active_result {
	GOLDEN_ACTIVE_PASS,
	GOLDEN_ACTIVE_WARN, /* passed; something could not be judged */
	GOLDEN_ACTIVE_FAIL,
	GOLDEN_ACTIVE_ERROR /* could not judge: no GPU, no driver, bad options, interrupted */
};

struct golden_active_figure {
	bool measured;
	double value;       /* in the test's unit */
	double expect_min;  /* the table's floor, 0 = no entry */
	double sibling_med; /* median over this node's GPUs, 0 = not compared */
	enum golden_active_verdict verdict;
	char error[GOLDEN_ACTIVE_ERR_LEN]; /* the failing call, "" none */
};

struct golden_active_gpu {
	int index; /* CUDA ordinal with CUDA_DEVICE_ORDER=PCI_BUS_ID: nvidia-smi's */
	char name[64];
	char busid[20]; /* "0000:19:00.0" */
	double mem_total_gib;
	int sms, cc_major, cc_minor;
	bool done[GOLDEN_ACTIVE_NPHASES]; /* the phase finished this GPU (names a hang) */
	struct golden_active_figure fig[GOLDEN_ACTIVE_NTESTS];
	double gemm_max_err[2];       /* bf16, tf32: worst |C - ref| / tolerance (> 1 wrong) */
	double memtest_gib;           /* tested */
	unsigned long long first_bad; /* offset of the first wrong word (memtest) */
};

struct golden_active_pair {
	int a, b;    /* GPU indices; a < b, a's memory copied to b */
	double gbps; /* 0 when it failed */
	char error[GOLDEN_ACTIVE_ERR_LEN];
};

struct golden_active_nccl {
	bool measured;
	double busbw_gbps;
	double bytes; /* per rank */
	double expect_min;
	bool wrong; /* a rank's sum was not what every rank contributed */
	enum golden_active_verdict verdict;
	char error[GOLDEN_ACTIVE_ERR_LEN];
	char recipe[48]; /* the golden recipe whose variables were set, "" none */
	int nvars_set;
};

struct golden_active_phase_rec {
	enum golden_active_phase_end end;
	int deadline_ms, duration_ms;
	char note[GOLDEN_ACTIVE_ERR_LEN]; /* why skipped or how it ended */
};

struct golden_active_report {
	char node[64];
	char program[32]; /* "golden-active 0.1.0" or a stand-in's name */
	char driver[32], runtime[32];
	long long started; /* epoch seconds */
	int budget_s;
	int duration_ms;
	char env_error[GOLDEN_ACTIVE_ERR_LEN]; /* why the run could not judge, "" */
	int expected_gpus;                     /* -1: whatever CUDA shows */
	int ngpus;
	struct golden_active_gpu gpu[GOLDEN_ACTIVE_MAX_GPUS];
	int npairs;
	struct golden_active_pair pair[GOLDEN_ACTIVE_MAX_PAIRS];
	struct golden_active_nccl nccl;
	struct golden_active_phase_rec phase[GOLDEN_ACTIVE_NPHASES];
	/* The verdict (lib/active/verdict.c). */
	enum golden_active_result result;
	char code[GOLDEN_ACTIVE_CODE_LEN]; /* "gpu3 hbm 2.1<3.2TB/s", "" on a pass */
	char detail[GOLDEN_ACTIVE_DETAIL];
	int nfailed; /* figures that failed */
};

const char *golden_active_test_name(enum golden_active_test t);   /* "hbm" */
const char *golden_active_test_unit(enum golden_active_test t);   /* "TB/s" */
const char *golden_active_phase_name(enum golden_active_phase p); /* "gemm" */
const char *golden_active_verdict_name(enum golden_active_verdict v);
const char *golden_active_result_name(enum golden_active_result r); /* "pass" */
/* Returns the enum value, or -1 for an unknown name. */
int golden_active_test_parse(const char *name);
int golden_active_result_parse(const char *name);
int golden_active_verdict_parse(const char *name);
int golden_active_phase_end_parse(const char *name);
const char *golden_active_phase_end_name(enum golden_active_phase_end e);

/* The exit status for a result: 0 pass or warn, 1 fail, 2 error. */
int golden_active_exit_status(enum golden_active_result r);

/* Start a report: no GPUs, every phase not run. */
void golden_active_report_init(struct golden_active_report *r);

#ifdef __cplusplus
}
#endif

#endif
