/* golden_nccl: SPANK plugin that gives every task the golden NCCL
 * environment of the node it runs on.
 *
 * Contexts: local/allocator (srun, sbatch, salloc) only register and
 * validate --golden-nccl; remote (slurmstepd) computes the environment in
 * user_init, once per step, which covers the batch script and every task,
 * and prints verbose/diagnostic lines from the first task's task_init, where
 * stderr is already the job's own.
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

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/spank.h>

#include "plugin_args.h"
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

/* spank_getenv into a pool of buffers that live as long as one plan. */
struct env_pool {
	spank_t sp;
	int used;
	char bufs[200][4096];
};

static const char *pool_getenv(void *arg, const char *name)
{
	struct env_pool *pool = arg;
	char *buf;

	if (pool->used >= (int)(sizeof(pool->bufs) / sizeof(pool->bufs[0])))
		return NULL;
	buf = pool->bufs[pool->used];
	if (spank_getenv(pool->sp, name, buf, sizeof(pool->bufs[0])) != ESPANK_SUCCESS)
		return NULL;
	pool->used++;
	return buf;
}

/* The job's mode; *asked: the job chose it (option or GOLDEN_NCCL), rather
 * than getting default=on. */
static enum golden_mode effective_mode(spank_t sp, struct golden_mode_opt *m, bool *asked)
{
	char val[128];
	char msg[1024];

	*asked = true;
	if (mode_given) {
		*m = mode_opt;
		return m->mode;
	}
	/* slurmrestd cannot pass SPANK options: GOLDEN_NCCL=MODE in the job's
	 * environment does the same. */
	if (spank_getenv(sp, "GOLDEN_NCCL", val, sizeof(val)) == ESPANK_SUCCESS) {
		if (golden_mode_parse(val, NULL, m, msg, sizeof(msg)) == 0)
			return m->mode;
		add_line("golden_nccl: GOLDEN_NCCL=%s: %s", val, msg);
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

PUBLIC int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
	struct golden_mode_opt m;
	enum golden_mode mode;
	char topo[PATH_MAX], sysroot[PATH_MAX];
	struct golden_err err = {{0}};
	struct golden_decision res;
	struct golden_env_request req;
	struct golden_env_plan *plan = NULL;
	struct env_pool *pool = NULL;
	uint32_t stepid = 0;
	bool verbose, asked;

	(void)ac;
	(void)av;
	if (!spank_remote(sp) || !conf_ok)
		return 0;
	if (spank_get_item(sp, S_JOB_STEPID, &stepid) == ESPANK_SUCCESS &&
	    stepid == SLURM_EXTERN_CONT)
		return 0;
	mode = effective_mode(sp, &m, &asked);
	if (mode == GOLDEN_MODE_OFF)
		return 0;
	verbose = mode == GOLDEN_MODE_VERBOSE;
	find_node_name(sp);
	if (golden_nodename_expand(conf.topology, node, topo, sizeof(topo), &err) < 0 ||
	    golden_nodename_expand(conf.sysroot, node, sysroot, sizeof(sysroot), &err) < 0) {
		report_failure(asked, err.msg);
		return 0;
	}
	golden_decision_init(&res);
	req = (struct golden_env_request){
	    .topology = topo[0] ? topo : NULL,
	    .sysroot = sysroot[0] ? sysroot : NULL,
	    .recipes_dir = conf.recipes,
	    .recipe = mode == GOLDEN_MODE_RECIPE ? m.recipe : NULL,
	    .cache_dir = conf.cache_dir[0] ? conf.cache_dir : NULL,
	    .node = node,
	    .check_owner = true,
	    .diag = diag_line,
	};
	if (golden_env_compute(&req, &res, &err) < 0) {
		report_failure(asked, err.msg);
		goto out;
	}
	plan = malloc(sizeof(*plan));
	pool = malloc(sizeof(*pool));
	if (!plan || !pool) {
		report_failure(asked, "out of memory");
		goto out;
	}
	pool->sp = sp;
	pool->used = 0;
	if (golden_marker_plan(&res, conf.user_env, pool_getenv, pool, plan) < 0) {
		report_failure(asked, "too many variables in the recipe");
		goto out;
	}
	if (verbose)
		add_line("golden_nccl: %s: recipe %s%s (source: %s)", node, res.recipe,
		         res.from_cache ? " [cached]" : "", res.source ? res.source : "-");
	/* Not cached: the channel belongs to this job, not to the node. */
	if (verbose && golden_imex_wanted(&res)) {
		char imex[768];

		if (!golden_imex_check(sysroot[0] ? sysroot : NULL, imex, sizeof(imex)))
			add_line("golden_nccl: %s: warning: %s", node, imex);
	}
	apply_plan(sp, &res, plan, verbose);
out:
	free(plan);
	free(pool);
	golden_decision_free(&res);
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
	return 0;
}
