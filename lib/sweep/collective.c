#include "sweep/collective.h"

#include <string.h>

static const struct {
	const char *name;
	const char *alias; /* superbench and others drop the underscore */
	enum golden_sweep_factor factor;
	bool reduces;
} colls[GOLDEN_COLL_NCOLLS] = {
    [GOLDEN_COLL_UNKNOWN] = {"unknown", "", GOLDEN_FACTOR_ONE, false},
    [GOLDEN_COLL_ALL_REDUCE] = {"all_reduce", "allreduce", GOLDEN_FACTOR_2N1N, true},
    [GOLDEN_COLL_ALL_GATHER] = {"all_gather", "allgather", GOLDEN_FACTOR_N1N, false},
    [GOLDEN_COLL_REDUCE_SCATTER] = {"reduce_scatter", "reducescatter", GOLDEN_FACTOR_N1N, true},
    [GOLDEN_COLL_ALLTOALL] = {"alltoall", "all_to_all", GOLDEN_FACTOR_N1N, false},
    [GOLDEN_COLL_BROADCAST] = {"broadcast", "bcast", GOLDEN_FACTOR_ONE, false},
    [GOLDEN_COLL_REDUCE] = {"reduce", "reduce", GOLDEN_FACTOR_ONE, true},
    [GOLDEN_COLL_SENDRECV] = {"sendrecv", "send_recv", GOLDEN_FACTOR_ONE, false},
    [GOLDEN_COLL_GATHER] = {"gather", "gather", GOLDEN_FACTOR_N1N, false},
    [GOLDEN_COLL_SCATTER] = {"scatter", "scatter", GOLDEN_FACTOR_N1N, false},
    [GOLDEN_COLL_HYPERCUBE] = {"hypercube", "hypercube", GOLDEN_FACTOR_ONE, false},
};

static const char *const binaries[GOLDEN_COLL_NCOLLS] = {
    "unknown",       "all_reduce_perf", "all_gather_perf", "reduce_scatter_perf",
    "alltoall_perf", "broadcast_perf",  "reduce_perf",     "sendrecv_perf",
    "gather_perf",   "scatter_perf",    "hypercube_perf"};

const char *golden_sweep_coll_name(enum golden_sweep_coll c)
{
	return c > 0 && c < GOLDEN_COLL_NCOLLS ? colls[c].name : "unknown";
}

const char *golden_sweep_coll_binary(enum golden_sweep_coll c)
{
	return c > 0 && c < GOLDEN_COLL_NCOLLS ? binaries[c] : "unknown";
}

enum golden_sweep_coll golden_sweep_coll_parse(const char *s)
{
	const char *base = s ? strrchr(s, '/') : NULL;
	char name[64];
	size_t n;

	if (!s)
		return GOLDEN_COLL_UNKNOWN;
	base = base ? base + 1 : s;
	n = strlen(base);
	if (n >= sizeof(name))
		return GOLDEN_COLL_UNKNOWN;
	memcpy(name, base, n + 1);
	/* all_reduce_perf_mpi (the MPI build), all_reduce_perf, all_reduce */
	if (n > 4 && !strcmp(name + n - 4, "_mpi")) {
		n -= 4;
		name[n] = '\0';
	}
	if (n > 5 && !strcmp(name + n - 5, "_perf"))
		name[n - 5] = '\0';
	for (int c = 1; c < GOLDEN_COLL_NCOLLS; c++)
		if (!strcmp(name, colls[c].name) || !strcmp(name, colls[c].alias))
			return (enum golden_sweep_coll)c;
	return GOLDEN_COLL_UNKNOWN;
}

enum golden_sweep_factor golden_sweep_coll_factor_kind(enum golden_sweep_coll c)
{
	return c > 0 && c < GOLDEN_COLL_NCOLLS ? colls[c].factor : GOLDEN_FACTOR_ONE;
}

double golden_sweep_busbw_factor(enum golden_sweep_coll c, int n)
{
	if (c <= GOLDEN_COLL_UNKNOWN || c >= GOLDEN_COLL_NCOLLS || n < 1)
		return 0;
	switch (colls[c].factor) {
	case GOLDEN_FACTOR_2N1N:
		return 2.0 * (n - 1) / n;
	case GOLDEN_FACTOR_N1N:
		return (double)(n - 1) / n;
	default:
		return 1;
	}
}

const char *golden_sweep_factor_formula(enum golden_sweep_coll c)
{
	switch (golden_sweep_coll_factor_kind(c)) {
	case GOLDEN_FACTOR_2N1N:
		return "2(n-1)/n";
	case GOLDEN_FACTOR_N1N:
		return "(n-1)/n";
	default:
		return "1";
	}
}

bool golden_sweep_coll_reduces(enum golden_sweep_coll c)
{
	return c > 0 && c < GOLDEN_COLL_NCOLLS && colls[c].reduces;
}

double golden_sweep_scaling_expected(enum golden_sweep_coll c, int n1, int n2)
{
	if (n1 < 2 || n2 <= n1)
		return 1;
	if (c == GOLDEN_COLL_ALLTOALL)
		return ((double)n2 / (n2 - 1)) / ((double)n1 / (n1 - 1));
	if (c == GOLDEN_COLL_ALL_REDUCE && n1 == 2)
		return 1 / 1.2;
	return 1;
}
