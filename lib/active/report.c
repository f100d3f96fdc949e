#include <config.h>

#include "active/report.h"

#include <string.h>

static const char *const test_names[GOLDEN_ACTIVE_NTESTS] = {"hbm", "bf16", "tf32", "h2d",
                                                             "d2h", "p2p",  "mem"};
static const char *const test_units[GOLDEN_ACTIVE_NTESTS] = {"TB/s", "TF/s", "TF/s",  "GB/s",
                                                             "GB/s", "GB/s", "errors"};
static const char *const phase_names[GOLDEN_ACTIVE_NPHASES] = {"discover", "hbm",  "gemm",   "pcie",
                                                               "p2p",      "nccl", "memtest"};
static const char *const verdict_names[] = {"none",  "ok",    "low-siblings", "low-table",
                                            "wrong", "error", "timeout"};
static const char *const result_names[] = {"pass", "warn", "fail", "error"};
static const char *const end_names[] = {"not-run", "done", "timeout", "crashed"};

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static int find(const char *const *names, int n, const char *name)
{
	for (int i = 0; name && i < n; i++)
		if (!strcmp(names[i], name))
			return i;
	return -1;
}

const char *golden_active_test_name(enum golden_active_test t)
{
	return (unsigned)t < GOLDEN_ACTIVE_NTESTS ? test_names[t] : "?";
}

const char *golden_active_test_unit(enum golden_active_test t)
{
	return (unsigned)t < GOLDEN_ACTIVE_NTESTS ? test_units[t] : "";
}

const char *golden_active_phase_name(enum golden_active_phase p)
{
	return (unsigned)p < GOLDEN_ACTIVE_NPHASES ? phase_names[p] : "?";
}

const char *golden_active_verdict_name(enum golden_active_verdict v)
{
	return (int)v >= 0 && (int)v < N(verdict_names) ? verdict_names[v] : "?";
}

const char *golden_active_result_name(enum golden_active_result r)
{
	return (int)r >= 0 && (int)r < N(result_names) ? result_names[r] : "?";
}

const char *golden_active_phase_end_name(enum golden_active_phase_end e)
{
	return (int)e >= 0 && (int)e < N(end_names) ? end_names[e] : "?";
}

int golden_active_test_parse(const char *name)
{
	return find(test_names, GOLDEN_ACTIVE_NTESTS, name);
}

int golden_active_result_parse(const char *name)
{
	return find(result_names, N(result_names), name);
}

int golden_active_verdict_parse(const char *name)
{
	return find(verdict_names, N(verdict_names), name);
}

int golden_active_phase_end_parse(const char *name)
{
	return find(end_names, N(end_names), name);
}

int golden_active_exit_status(enum golden_active_result r)
{
	switch (r) {
	case GOLDEN_ACTIVE_PASS:
	case GOLDEN_ACTIVE_WARN:
		return 0;
	case GOLDEN_ACTIVE_FAIL:
		return 1;
	default:
		return 2;
	}
}

void golden_active_report_init(struct golden_active_report *r)
{
	memset(r, 0, sizeof(*r));
	r->expected_gpus = -1;
	r->result = GOLDEN_ACTIVE_ERROR;
}
