/* golden sweep: what analyse, run and locate share. */
#ifndef GOLDEN_CLI_SWEEP_H
#define GOLDEN_CLI_SWEEP_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "sweep/detect.h"
#include "sweep/infer.h"
#include "sweep/launch.h"
#include "sweep/plan.h"

#define SWEEP_MAX_PLOTS 4

/* Options of the analysis, common to every subcommand. */
struct sweep_analysis {
	const char *format; /* text | json */
	const char *plots[SWEEP_MAX_PLOTS];
	int nplots;
	const char *expect; /* recipe name, recipe file, "auto", NULL */
	const char *recipes;
	const char *topology;
	const char *sysroot;
	const char *title;
	struct golden_sweep_opts opts;
	struct golden_sweep_infer_opts infer;
	struct golden_sweep_expect expectations;
};

void sweep_analysis_init(struct sweep_analysis *a);

/* An analysis option (the long name without "--") and its value: 1 taken,
 * 0 not an analysis option, -1 bad value (message printed). */
int sweep_analysis_option(struct sweep_analysis *a, const char *cmd, const char *name,
                          const char *value);

/* Fill a->expectations from a->expect. Returns 0, or -1 (message printed). */
int sweep_load_expect(struct sweep_analysis *a, const char *cmd);

/* Analyse SET, print the report (stdout), draw the plots. Returns the exit
 * status: 0 no findings, 1 findings, 2 could not analyse. */
int sweep_report(struct sweep_analysis *a, struct golden_sweep_set *set, const char *cmd,
                 const char *report_dir);

/* The usage text of the analysis options. */
extern const char sweep_analysis_usage[];

/* Running steps (run and locate). */
struct sweep_nodes {
	int n;
	char **name;
};

struct sweep_ctx {
	const char *cmd;
	struct golden_sweep_launch launch;
	char tests_dir[PATH_MAX];
	long step_timeout_ms;
	int total, done; /* steps, for the progress lines */
	long t0;
};

void sweep_ctx_init(struct sweep_ctx *c, const char *cmd);
/* --launcher, --gpus-per-node, --partition, --min-bytes, --max-bytes,
 * --step-factor, --time-limit, --step-timeout, --test-args: 1 taken, 0 not
 * one of them, -1 bad value (message printed). */
int sweep_launch_option(struct sweep_ctx *c, struct sweep_analysis *a, const char *name,
                        const char *v);
/* The deadlines, and the clock of the progress lines, once options are read. */
void sweep_ctx_ready(struct sweep_ctx *c);
/* --tests-dir, else golden.conf's nccl_tests_dir. */
int sweep_tests_dir(struct sweep_ctx *c, const char *opt, const char *config);
/* --out DIR: created (0755) or an existing directory of ours, never a link. */
int sweep_prepare_out(const char *cmd, const char *dir);
/* The nodes of a Slurm host list (scontrol show hostnames), or the idle
 * nodes (sinfo). */
int sweep_resolve_nodes(const char *cmd, const char *nodelist, const char *partition,
                        struct sweep_nodes *n);
void sweep_nodes_free(struct sweep_nodes *n);
/* Run one step on names[0..count) into FILE (golden's lines around the
 * launcher's output), print its progress line. WHAT: more meta (k=v ...).
 * Returns 0 when it ran, -1 when it could not start. */
int sweep_step(struct sweep_ctx *c, const struct golden_sweep_step *s, char **names, int count,
               const char *file, const char *what, struct golden_sweep_outcome *out);
int sweep_parse_logs(const char *cmd, char **files, int n, struct golden_sweep_set *set);

/* "--name=value" / "--name value" at argv[*i]: the value (NULL if none). */
const char *sweep_opt_value(int argc, char **argv, int *i, char *name, size_t len);

int cmd_sweep_analyse(int argc, char **argv);
int cmd_sweep_run(int argc, char **argv);
int cmd_sweep_locate(int argc, char **argv);

#endif
