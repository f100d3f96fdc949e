/* What `golden sweep run` and `golden sweep locate` will ask Slurm for,
 * decided before anything runs (pure, so tests check it without a cluster):
 * the node counts, the order of the steps, and each step's launcher argv.
 *
 * Node counts double from 1 (or 2) up to the nodes available, the last
 * count being all of them. With --compare-default every step runs twice,
 * with --golden-nccl and with --golden-nccl=off, back to back so both see
 * the same fabric, and the pair's order alternates (golden first, then
 * defaults first) so a drift over the sweep does not favour either. */
#ifndef GOLDEN_SWEEP_PLAN_H
#define GOLDEN_SWEEP_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "sweep/collective.h"

#define GOLDEN_SWEEP_MAX_STEPS  512
#define GOLDEN_SWEEP_MAX_ARGV   96
#define GOLDEN_SWEEP_MAX_COLLS  16
#define GOLDEN_SWEEP_MAX_COUNTS 24

/* 1 (or from), 2, 4, ... < total, then total. Returns how many. */
int golden_sweep_node_counts(int from, int total, int *out, int max);

struct golden_sweep_step {
	int index; /* 0-based position in the plan */
	enum golden_sweep_coll coll;
	int nodes;
	bool golden; /* --golden-nccl (true) or --golden-nccl=off */
};

/* The steps: for each node count (ascending), for each collective, golden
 * (and with compare_default its NCCL-defaults twin, order alternating).
 * Returns how many, or -1 if more than max. */
int golden_sweep_plan(const int *counts, int ncounts, const enum golden_sweep_coll *colls,
                      int ncolls, bool compare_default, struct golden_sweep_step *out, int max);

/* How each step is launched. */
struct golden_sweep_launch {
	const char *launcher;  /* "srun --mpi=pmix": words, split on blanks (no shell) */
	const char *tests_dir; /* where all_reduce_perf and friends are */
	const char *partition; /* NULL: Slurm's default */
	int tasks_per_node;    /* one rank per GPU */
	int time_limit_min;    /* srun --time */
	long long min_bytes, max_bytes;
	int step_factor;
	const char *test_args;  /* more nccl-tests options, split on blanks; NULL none */
	const char *export_env; /* "NAME=VALUE" for --export=ALL,...; NULL none */
	const char *job_name;
};

/* Build the argv of one step on NODELIST ("n1,n2"): the launcher's words,
 * then --nodes, --ntasks-per-node, --nodelist, --time, --job-name,
 * --kill-on-bad-exit, the --golden-nccl option, [--partition, --export],
 * "--", TESTS_DIR/COLL_perf -b -e -f -g 1 [test args]. Strings are stored
 * in buf. Returns argc, or -1 (too long, or a word that is not printable). */
int golden_sweep_step_argv(const struct golden_sweep_launch *l, const struct golden_sweep_step *s,
                           const char *nodelist, char **argv, int max, char *buf, size_t len);

/* Split S on blanks into words stored in buf. Returns the count, or -1. */
int golden_sweep_words(const char *s, char **words, int max, char *buf, size_t len);

/* The first executable NAME on $PATH (or NAME itself when it has a '/').
 * Returns 0, or -1. */
int golden_sweep_which(const char *name, char *buf, size_t len);

/* "3:07" or "1:02:03" */
const char *golden_sweep_duration(long ms, char *buf, size_t len);

#endif
