/* golden_nccl: SPANK plugin that gives every task the golden NCCL
 * environment of the node it runs on.
 *
 * Contexts: local/allocator (srun, sbatch, salloc) only register and
 * validate --golden-nccl. Remote (slurmstepd), once per step: init_post_opt
 * decides the environment, user_init applies it (which covers the batch
 * script and every task), and the first task's task_init prints the
 * verbose/diagnostic lines, where stderr is already the job's own.
 *
 * Why the decision is made in init_post_opt: it is the last callback that
 * runs as root (slurmstepd drops to the job user's euid before user_init).
 * The per-node cache must be written by root into a root-only directory and
 * read only when root owns it: a cache the job user could write would let
 * any user choose the NCCL environment of everyone else's jobs on the node.
 * Decided in user_init, as the user, the cache can be neither created nor
 * trusted, and every step of every non-root job paid the cold path.
 *
 * Remote callbacks always return 0: a failing remote callback can drain the
 * node or fail the job, and a missing NCCL hint must never do either.
 *
 * A mistake in the plugstack.conf arguments never takes job submission down:
 * slurm_spank_init still registers --golden-nccl and returns 0 everywhere;
 * srun/sbatch/salloc print the error and refuse only --golden-nccl itself;
 * slurmd (at start) and slurmstepd (every step) log it; nothing is injected.
 */
#include <config.h>

#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/spank.h>

#include "plugin_args.h"
#include "step_env.h"
#include "env/env.h"
#include "env/imex.h"
#include "env/marker.h"
#include "option.h"
#include "util/strutil.h"
#include "task_exit.h"
#include "util/nodename.h"

#define PUBLIC __attribute__((visibility("default")))

/* The plugin is built with hidden visibility; Slurm looks these up by name. */
#pragma GCC visibility push(default)
SPANK_PLUGIN(golden_nccl, 1)
#pragma GCC visibility pop

#define MAX_LINES 96

static struct golden_plugin_args conf;
static bool conf_ok;
static char conf_error[1024]; /* why the plugstack arguments were refused */
static struct golden_mode_opt mode_opt;
static bool mode_given;
static char *lines[MAX_LINES]; /* for the job's stderr, printed by task 0 */
static int nlines;
static char node[64];

/* This step's decision, made in init_post_opt (as root), applied in
 * user_init (as the user). */
static struct {
	bool decided; /* init_post_opt got as far as deciding (or failing) */
	bool ok;      /* res holds the environment */
	enum golden_mode mode;
	bool asked; /* the job chose the mode (not default=on): failures reach it */
	char sysroot[PATH_MAX];
	struct golden_decision res;
} step;

static void add_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void add_line(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	if (nlines >= MAX_LINES)
		return;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) >= 0)
		lines[nlines++] = s;
	va_end(ap);
}

static int opt_cb(int val, const char *optarg, int remote)
{
	struct golden_mode_opt m;
	char msg[1024];

	(void)val;
	if (!conf_ok) {
		if (!remote) {
			slurm_error("golden_nccl: --golden-nccl is disabled: plugstack.conf: %s",
			            conf_error);
			return -1;
		}
		add_line("golden_nccl: --golden-nccl is disabled on this node: plugstack.conf: %s; "
		         "environment left untouched",
		         conf_error);
		m = (struct golden_mode_opt){.mode = GOLDEN_MODE_OFF};
		mode_opt = m;
		mode_given = true;
		return 0;
	}
	if (golden_mode_parse(optarg, remote ? NULL : conf.recipes, &m, msg, sizeof(msg)) < 0) {
		if (!remote) {
			slurm_error("golden_nccl: %s", msg);
			return -1;
		}
		add_line("golden_nccl: %s; environment left untouched", msg);
		m.mode = GOLDEN_MODE_OFF;
	}
	/* Slurm may call us more than once (command line, then the env copy
	 * a nested srun inherits); the last value given wins. */
	mode_opt = m;
	mode_given = true;
	return 0;
}

static struct spank_option golden_opt = {
    "golden-nccl",
    "[MODE]",
    "Set the golden NCCL environment for the node each task runs on. MODE: auto (default), "
    "off, verbose (print the recipe and every variable to stderr), or a recipe name.",
    2,
    0,
    opt_cb};

PUBLIC int slurm_spank_init(spank_t sp, int ac, char **av)
{
	spank_context_t ctx = spank_context();
	struct golden_err err = {{0}};

	if (ctx != S_CTX_LOCAL && ctx != S_CTX_ALLOCATOR && ctx != S_CTX_REMOTE &&
	    ctx != S_CTX_SLURMD)
		return 0;
	golden_plugin_args_init(&conf);
	conf_ok = golden_plugin_args_parse(&conf, ac, av, &err) == 0;
	if (!conf_ok) {
		golden_strlcpy(conf_error, err.msg, sizeof(conf_error));
		/* Loud where an admin looks (the submitting terminal, slurmd's log
		 * at start), one line per step in the slurmd log, never in a job's
		 * output: slurm_error in slurmstepd also reaches the job's stderr. */
		if (ctx == S_CTX_REMOTE)
			slurm_info("golden_nccl: plugstack.conf: %s; --golden-nccl is disabled "
			           "until it is fixed",
			           conf_error);
		else
			slurm_error("golden_nccl: plugstack.conf: %s; --golden-nccl is disabled "
			            "until it is fixed",
			            conf_error);
	}
	if (ctx == S_CTX_SLURMD)
		return 0;
	/* Registered even when the arguments are bad: an unknown option would
	 * make srun/sbatch fail for every job, and the callback refuses it. */
	if (spank_option_register(sp, &golden_opt) != ESPANK_SUCCESS) {
		slurm_error("golden_nccl: cannot register --golden-nccl");
		return ctx == S_CTX_REMOTE ? 0 : -1;
	}
	return 0;
}

static enum golden_step_env_read spank_read(void *ctx, const char *name, char *buf, size_t len)
{
	spank_err_t rc = spank_getenv(ctx, name, buf, (int)(len > INT32_MAX ? INT32_MAX : len));

	if (rc == ESPANK_SUCCESS)
		return GOLDEN_STEP_ENV_FOUND;
	if (rc == ESPANK_NOSPACE)
		return GOLDEN_STEP_ENV_TOO_LONG;
	return GOLDEN_STEP_ENV_ABSENT;
}

/* The job's mode; *asked: the job chose it (option or GOLDEN_NCCL), rather
 * than getting default=on. */
static enum golden_mode effective_mode(spank_t sp, struct golden_mode_opt *m, bool *asked)
{
	char val[128];
	char msg[1024];
	spank_err_t rc;

	*asked = true;
	if (mode_given) {
		*m = mode_opt;
		return m->mode;
	}
	/* slurmrestd cannot pass SPANK options: GOLDEN_NCCL=MODE in the job's
	 * environment does the same. */
	rc = spank_getenv(sp, "GOLDEN_NCCL", val, sizeof(val));
	if (rc == ESPANK_SUCCESS) {
		if (golden_mode_parse(val, NULL, m, msg, sizeof(msg)) == 0)
			return m->mode;
		add_line("golden_nccl: GOLDEN_NCCL=%s: %s", val, msg);
		return GOLDEN_MODE_OFF;
	}
	if (rc == ESPANK_NOSPACE) { /* set, and too long for any valid mode */
		add_line(
		    "golden_nccl: GOLDEN_NCCL: value longer than %zu bytes; expected auto, off, "
		    "verbose or a recipe name",
		    sizeof(val) - 1);
		return GOLDEN_MODE_OFF;
	}
	*asked = false;
	memset(m, 0, sizeof(*m));
	m->mode = conf.default_on ? GOLDEN_MODE_AUTO : GOLDEN_MODE_OFF;
	return m->mode;
}

/* The node this slurmstepd serves. Not the step environment's
 * SLURMD_NODENAME: srun inside a batch script carries the batch node's value
 * there. slurmd sets its own node name in the environment it hands
 * slurmstepd, which the job cannot influence. */
static void find_node_name(spank_t sp)
{
	const char *own = getenv("SLURMD_NODENAME");

	(void)sp;
	if (own && *own)
		golden_strlcpy(node, own, sizeof(node));
	else if (gethostname(node, sizeof(node)) < 0)
		golden_strlcpy(node, "unknown", sizeof(node));
	node[sizeof(node) - 1] = '\0';
}

static void diag_line(void *arg, const char *msg)
{
	(void)arg;
	slurm_info("golden_nccl: %s", msg);
}

/* Why the job gets nothing: always in the slurmd log; in the job's stderr only
 * when the job asked for golden (a job that only got default=on, e.g. on a
 * CPU node, is told nothing: it did not ask). */
static void report_failure(bool to_job, const char *what)
{
	/* slurm_error would also reach the job's stderr; one line there is ours. */
	slurm_info("golden_nccl: %s: %s; environment left untouched", node, what);
	if (to_job)
		add_line("golden_nccl: %s: %s; environment left untouched", node, what);
}

static void apply_plan(spank_t sp, const struct golden_decision *res,
                       const struct golden_env_plan *plan, bool verbose)
{
	int nset = 0;

	for (int i = 0; i < plan->n; i++) {
		const struct golden_env_action *a = &plan->acts[i];

		switch (a->kind) {
		case GOLDEN_ACT_SET:
		case GOLDEN_ACT_OVERRIDE:
			if (spank_setenv(sp, a->name, a->value, 1) != ESPANK_SUCCESS) {
				slurm_error("golden_nccl: %s: cannot set %s", node, a->name);
				continue;
			}
			nset++;
			if (verbose)
				add_line("golden_nccl: %s: %s=%s%s  # %s", node, a->name, a->value,
				         a->kind == GOLDEN_ACT_OVERRIDE
				             ? " (over the user's value: user_env=override)"
				             : "",
				         a->why ? a->why : "");
			break;
		case GOLDEN_ACT_KEEP_USER:
			if (verbose)
				add_line(
				    "golden_nccl: %s: keeping your %s=%s (golden would set %s)",
				    node, a->name, a->value,
				    golden_decision_getvar(res, a->name)->value);
			break;
		case GOLDEN_ACT_UNSET:
			spank_unsetenv(sp, a->name);
			if (verbose)
				add_line(
				    "golden_nccl: %s: unset %s (golden set it for another node; "
				    "this node's recipe does not use it)",
				    node, a->name);
			break;
		}
	}
	spank_setenv(sp, GOLDEN_RECIPE_VAR, res->recipe, 1);
	spank_setenv(sp, GOLDEN_MARKER_VAR, plan->marker, 1);
	slurm_verbose("golden_nccl: %s: recipe %s, %d variables set", node, res->recipe, nset);
}

/* Decide this step's environment into `step`. with_cache: only as root (see
 * the top of this file). Failures are reported here, once. */
static void decide(spank_t sp, bool with_cache)
{
	struct golden_mode_opt m;
	char topo[PATH_MAX];
	struct golden_err err = {{0}};
	struct golden_env_request req;

	step.decided = true;
	step.ok = false;
	step.mode = effective_mode(sp, &m, &step.asked);
	if (step.mode == GOLDEN_MODE_OFF)
		return;
	find_node_name(sp);
	if (golden_nodename_expand(conf.topology, node, topo, sizeof(topo), &err) < 0 ||
	    golden_nodename_expand(conf.sysroot, node, step.sysroot, sizeof(step.sysroot), &err) <
	        0) {
		report_failure(step.asked, err.msg);
		return;
	}
	golden_decision_free(&step.res);
	req = (struct golden_env_request){
	    .topology = topo[0] ? topo : NULL,
	    .sysroot = step.sysroot[0] ? step.sysroot : NULL,
	    .discovery_deadline_ms = conf.discovery_deadline_ms,
	    .recipes_dir = conf.recipes,
	    .recipe = step.mode == GOLDEN_MODE_RECIPE ? m.recipe : NULL,
	    .cache_dir = with_cache && conf.cache_dir[0] ? conf.cache_dir : NULL,
	    .node = node,
	    .check_owner = true,
	    .diag = diag_line,
	};
	if (golden_env_compute(&req, &step.res, &err) < 0) {
		report_failure(step.asked, err.msg);
		return;
	}
	/* A warning means the admin's topology=/sysroot= mix two hosts: the
	 * slurmd log hears of it whenever it is decided afresh. */
	for (int i = 0; i < step.res.nnotes; i++)
		if (step.res.notes[i].warning && !step.res.from_cache)
			slurm_info("golden_nccl: %s: warning: %s", node, step.res.notes[i].text);
	step.ok = true;
}

static bool skip_step(spank_t sp)
{
	uint32_t stepid = 0;

	return !spank_remote(sp) || !conf_ok ||
	       (spank_get_item(sp, S_JOB_STEPID, &stepid) == ESPANK_SUCCESS &&
	        stepid == SLURM_EXTERN_CONT);
}

PUBLIC int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	if (spank_context() != S_CTX_REMOTE || skip_step(sp))
		return 0;
	decide(sp, geteuid() == 0);
	return 0;
}

PUBLIC int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
	struct golden_env_plan *plan = NULL;
	struct golden_step_env env;
	bool verbose;

	(void)ac;
	(void)av;
	if (skip_step(sp))
		return 0;
	/* init_post_opt always runs first in slurmstepd; if it did not get to
	 * decide, decide now, without the cache (we are the user here). */
	if (!step.decided)
		decide(sp, false);
	if (!step.ok)
		return 0;
	verbose = step.mode == GOLDEN_MODE_VERBOSE;
	plan = malloc(sizeof(*plan));
	if (!plan) {
		report_failure(step.asked, "out of memory");
		return 0;
	}
	golden_step_env_init(&env, spank_read, sp);
	if (golden_marker_plan(&step.res, conf.user_env, golden_step_env_get, &env, plan) < 0) {
		report_failure(step.asked, "too many variables in the recipe");
		goto out;
	}
	if (verbose) {
		add_line("golden_nccl: %s: recipe %s%s (source: %s)", node, step.res.recipe,
		         step.res.from_cache ? " [cached]" : "",
		         step.res.source ? step.res.source : "-");
		for (int i = 0; i < step.res.nnotes; i++)
			add_line("golden_nccl: %s: %s: %s", node,
			         step.res.notes[i].warning ? "warning" : "note",
			         step.res.notes[i].text);
	}
	/* Not cached: the channel belongs to this job, not to the node. */
	if (verbose && golden_imex_wanted(&step.res)) {
		char imex[768];

		if (!golden_imex_check(step.sysroot[0] ? step.sysroot : NULL, imex, sizeof(imex)))
			add_line("golden_nccl: %s: warning: %s", node, imex);
	}
	apply_plan(sp, &step.res, plan, verbose);
out:
	golden_step_env_free(&env);
	free(plan);
	return 0;
}

PUBLIC int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	int taskid = -1;

	(void)ac;
	(void)av;
	if (!spank_remote(sp) || !nlines)
		return 0;
	if (spank_get_item(sp, S_TASK_ID, &taskid) != ESPANK_SUCCESS || taskid != 0)
		return 0;
	for (int i = 0; i < nlines; i++)
		dprintf(STDERR_FILENO, "%s\n", lines[i]);
	return 0;
}

PUBLIC int slurm_spank_task_exit(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	if (spank_context() != S_CTX_REMOTE || !conf_ok)
		return 0;
	if (!node[0])
		find_node_name(sp);
	golden_task_exit(sp, &conf, node);
	return 0;
}

PUBLIC int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	(void)sp;
	(void)ac;
	(void)av;
	for (int i = 0; i < nlines; i++)
		free(lines[i]);
	nlines = 0;
	golden_decision_free(&step.res);
	step.decided = step.ok = false;
	return 0;
}
