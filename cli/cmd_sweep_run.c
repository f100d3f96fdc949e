/* golden sweep run: the sweep through Slurm itself, node counts doubling,
 * optionally A/B against NCCL's defaults, then the analysis and the plot.
 * What running a step takes (node lists, the log, the launcher under its
 * deadline) is shared with golden sweep locate. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "node/node_main.h"
#include "sweep/launch.h"
#include "sweep/parse.h"
#include "sweep/plan.h"
#include "sweep_cli.h"
#include "util/child.h"
#include "util/nodename.h"
#include "util/strutil.h"

#define SLURM_QUERY_MS 20000

/* ------------------------------------------------------------- shared */

const char *sweep_opt_value(int argc, char **argv, int *i, char *name, size_t len)
{
	const char *eq = strchr(argv[*i] + 2, '=');

	if (eq) {
		snprintf(name, len, "%.*s", (int)(eq - argv[*i] - 2), argv[*i] + 2);
		return eq + 1;
	}
	snprintf(name, len, "%s", argv[*i] + 2);
	if (*i + 1 < argc)
		return argv[++*i];
	return NULL;
}

int sweep_prepare_out(const char *cmd, const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		cli_error(cmd, "--out %s: cannot create: %s", dir, strerror(errno));
		return -1;
	}
	if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		cli_error(cmd, "--out %s: not a directory (a symbolic link is not followed)", dir);
		return -1;
	}
	if (st.st_uid != geteuid()) {
		cli_error(cmd, "--out %s: owned by uid %u, not by you; expected your own directory",
		          dir, (unsigned)st.st_uid);
		return -1;
	}
	return 0;
}

static int add_node(struct sweep_nodes *n, const char *name)
{
	char **nn;

	if (!golden_is_safe_name(name, 63))
		return 0; /* not a Slurm node name we pass on */
	for (int i = 0; i < n->n; i++)
		if (!strcmp(n->name[i], name))
			return 0;
	nn = realloc(n->name, sizeof(*nn) * (size_t)(n->n + 1));
	if (!nn)
		return -1;
	n->name = nn;
	if (!(n->name[n->n] = strdup(name)))
		return -1;
	n->n++;
	return 0;
}

void sweep_nodes_free(struct sweep_nodes *n)
{
	for (int i = 0; i < n->n; i++)
		free(n->name[i]);
	free(n->name);
	memset(n, 0, sizeof(*n));
}

/* Run a Slurm query (argv) and collect one node name per line. */
static int query_nodes(const char *cmd, char *const argv[], struct sweep_nodes *n)
{
	static char out[1 << 20];
	char *save = NULL;
	int rc = golden_child_capture(argv, out, sizeof(out), SLURM_QUERY_MS);

	if (rc != 0) {
		cli_error(cmd, "%s %s failed%s", argv[0], argv[1],
		          rc < 0 ? " or did not answer within 20 s" : "");
		return -1;
	}
	for (char *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		golden_rtrim(l);
		while (*l == ' ')
			l++;
		if (*l && add_node(n, l) < 0)
			return -1;
	}
	return 0;
}

int sweep_resolve_nodes(const char *cmd, const char *nodelist, const char *partition,
                        struct sweep_nodes *n)
{
	char exe[PATH_MAX], arg[1024];

	if (nodelist) {
		char *argv[] = {exe, "show", "hostnames", arg, NULL};

		if (golden_sweep_which("scontrol", exe, sizeof(exe)) < 0) {
			cli_error(cmd, "scontrol not found on PATH");
			return -1;
		}
		if (strlen(nodelist) >= sizeof(arg) || strchr(nodelist, ' ')) {
			cli_error(cmd, "--nodelist %s: expected a Slurm host list such as n[1-4]",
			          nodelist);
			return -1;
		}
		golden_strlcpy(arg, nodelist, sizeof(arg));
		return query_nodes(cmd, argv, n);
	} else {
		char part[128];
		char *argv[] = {exe, "-h", "-N", "-t", "idle", "-o", "%N", part, NULL};

		if (golden_sweep_which("sinfo", exe, sizeof(exe)) < 0) {
			cli_error(cmd, "sinfo not found on PATH");
			return -1;
		}
		if (partition) {
			if (!golden_is_safe_name(partition, 64)) {
				cli_error(cmd, "--partition %s: expected a partition name",
				          partition);
				return -1;
			}
			snprintf(part, sizeof(part), "--partition=%s", partition);
		} else {
			argv[7] = NULL;
		}
		return query_nodes(cmd, argv, n);
	}
}

/* The nodes as a Slurm host list: "n[1-4]" from scontrol show hostlist,
 * else "n1,n2,n3,n4". Long lists stay short in argv, logs and reports.
 * Returns a malloc'd string, or NULL. */
static char *hostlist(char **names, int count)
{
	size_t len = 1;
	char *joined, exe[PATH_MAX], out[4096];

	for (int i = 0; i < count; i++)
		len += strlen(names[i]) + 1;
	joined = malloc(len);
	if (!joined)
		return NULL;
	joined[0] = '\0';
	for (int i = 0; i < count; i++) {
		golden_strlcat(joined, i ? "," : "", len);
		golden_strlcat(joined, names[i], len);
	}
	if (count > 1 && golden_sweep_which("scontrol", exe, sizeof(exe)) == 0) {
		char *argv[] = {exe, "show", "hostlist", joined, NULL};

		if (golden_child_capture(argv, out, sizeof(out), SLURM_QUERY_MS) == 0) {
			golden_rtrim(out);
			if (out[0] && !strchr(out, '\n') && strlen(out) < len) {
				free(joined);
				return strdup(out);
			}
		}
	}
	return joined;
}

static void meta(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void meta(int fd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdprintf(fd, fmt, ap);
	va_end(ap);
	dprintf(fd, "\n");
}

int sweep_step(struct sweep_ctx *c, const struct golden_sweep_step *s, char **names, int count,
               const char *file, const char *what, struct golden_sweep_outcome *out)
{
	char *nodelist = hostlist(names, count), *buf, *argv[GOLDEN_SWEEP_MAX_ARGV], el[32],
	     left[32];
	size_t buflen = (nodelist ? strlen(nodelist) : 0) + 8192;
	int fd, argc;
	long elapsed;

	buf = malloc(buflen);
	if (!nodelist || !buf) {
		free(nodelist);
		free(buf);
		cli_error(c->cmd, "out of memory");
		return -1;
	}
	argc = golden_sweep_step_argv(&c->launch, s, nodelist, argv, GOLDEN_SWEEP_MAX_ARGV, buf,
	                              buflen);
	if (argc < 0) {
		cli_error(c->cmd, "cannot build the launcher's command line (is '%s' on PATH?)",
		          c->launch.launcher);
		free(nodelist);
		free(buf);
		return -1;
	}
	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		cli_error(c->cmd, "%s: cannot write: %s", file, strerror(errno));
		free(nodelist);
		free(buf);
		return -1;
	}
	meta(fd, "# golden-sweep: run collective=%s nodes=%d env=%s nodelist=%s step=%d/%d%s%s",
	     golden_sweep_coll_binary(s->coll), s->nodes, s->golden ? "golden" : "default",
	     nodelist, c->done + 1, c->total, what ? " " : "", what ? what : "");
	dprintf(fd, "# golden-sweep: launch");
	for (int i = 0; i < argc; i++)
		dprintf(fd, " %s", argv[i]);
	dprintf(fd, "\n");
	if (golden_sweep_launch(argv, fd, c->step_timeout_ms, out) < 0) {
		cli_error(c->cmd, "cannot start %s: %s", argv[0], strerror(errno));
		close(fd);
		free(nodelist);
		free(buf);
		return -1;
	}
	if (out->timed_out)
		meta(fd, "# golden-sweep: end timeout=%ld elapsed=%.1f", c->step_timeout_ms / 1000,
		     out->elapsed_ms / 1000.0);
	else
		meta(fd, "# golden-sweep: end exit=%d elapsed=%.1f",
		     out->exit_code >= 0 ? out->exit_code : 128 + out->signal,
		     out->elapsed_ms / 1000.0);
	close(fd);
	c->done++;
	elapsed = golden_child_now_ms() - c->t0;
	golden_sweep_duration(elapsed, el, sizeof(el));
	golden_sweep_duration(c->done < c->total ? elapsed / c->done * (c->total - c->done) : 0,
	                      left, sizeof(left));
	fprintf(stderr,
	        "[%d/%d] %s on %d node%s (%s), %s%s%s: %s in %.1f s; elapsed %s, about %s left\n",
	        c->done, c->total, golden_sweep_coll_binary(s->coll), s->nodes,
	        s->nodes == 1 ? "" : "s", nodelist, s->golden ? "golden" : "NCCL defaults",
	        what ? ", " : "", what ? what : "",
	        out->timed_out        ? "TIMED OUT"
	        : out->exit_code == 0 ? "done"
	        : out->exit_code > 0  ? "FAILED"
	                              : "KILLED",
	        out->elapsed_ms / 1000.0, el, left);
	free(nodelist);
	free(buf);
	return 0;
}

int sweep_tests_dir(struct sweep_ctx *c, const char *opt, const char *config)
{
	struct golden_conf *conf;
	char node[64];
	int rc = -1;

	if (opt) {
		golden_strlcpy(c->tests_dir, opt, sizeof(c->tests_dir));
		rc = 0;
	} else if ((conf = malloc(sizeof(*conf)))) {
		/* golden.conf as it applies to this host (its node sections). */
		golden_nodename_get(NULL, node, sizeof(node));
		if (golden_node_load_conf("golden sweep", config, node, conf, NULL) == 0) {
			if (conf->nccl_tests_dir[0]) {
				golden_strlcpy(c->tests_dir, conf->nccl_tests_dir,
				               sizeof(c->tests_dir));
				rc = 0;
			} else {
				cli_error(c->cmd,
				          "where are the nccl-tests binaries? give --tests-dir "
				          "DIR or set nccl_tests_dir in golden.conf");
			}
		}
		free(conf);
	}
	if (rc == 0 && c->tests_dir[0] != '/') {
		cli_error(c->cmd,
		          "--tests-dir %s: expected an absolute path (it is used on every node)",
		          c->tests_dir);
		rc = -1;
	}
	c->launch.tests_dir = c->tests_dir;
	return rc;
}

void sweep_ctx_init(struct sweep_ctx *c, const char *cmd)
{
	memset(c, 0, sizeof(*c));
	c->cmd = cmd;
	c->launch.launcher = "srun --mpi=pmix";
	c->launch.tasks_per_node = 8;
	c->launch.time_limit_min = 10;
	c->launch.min_bytes = 8;
	c->launch.max_bytes = 16LL << 30;
	c->launch.step_factor = 2;
	c->launch.job_name = "golden-sweep";
}

/* A launch option shared by run and locate: 1 taken, 0 not one, -1 bad. */
int sweep_launch_option(struct sweep_ctx *c, struct sweep_analysis *a, const char *name,
                        const char *v)
{
	int n;

	if (!strcmp(name, "launcher")) {
		char *w[32], b[1024];

		if (golden_sweep_words(v, w, 32, b, sizeof(b)) < 1) {
			cli_error(c->cmd,
			          "--launcher '%s': expected a command such as 'srun --mpi=pmix'",
			          v);
			return -1;
		}
		c->launch.launcher = v;
	} else if (!strcmp(name, "gpus-per-node")) {
		if (cli_int(c->cmd, name, v, 1, 1024, NULL, &n) < 0)
			return -1;
		c->launch.tasks_per_node = n;
		a->infer.gpus_per_node = n;
	} else if (!strcmp(name, "partition")) {
		c->launch.partition = v;
	} else if (!strcmp(name, "min-bytes") || !strcmp(name, "max-bytes")) {
		long long *d =
		    !strcmp(name, "min-bytes") ? &c->launch.min_bytes : &c->launch.max_bytes;

		if (golden_sweep_size_parse(v, d) < 0 || *d < 1) {
			cli_error(c->cmd, "--%s %s: expected a message size such as 8, 1M or 16G",
			          name, v);
			return -1;
		}
	} else if (!strcmp(name, "step-factor")) {
		if (cli_int(c->cmd, name, v, 2, 1024, NULL, &c->launch.step_factor) < 0)
			return -1;
	} else if (!strcmp(name, "time-limit")) {
		if (cli_int(c->cmd, name, v, 1, 24 * 60, NULL, &c->launch.time_limit_min) < 0)
			return -1;
	} else if (!strcmp(name, "step-timeout")) {
		if (cli_int(c->cmd, name, v, 1, 24 * 3600, NULL, &n) < 0)
			return -1;
		c->step_timeout_ms = n * 1000L;
	} else if (!strcmp(name, "test-args")) {
		char *w[32], b[1024];

		if (golden_sweep_words(v, w, 32, b, sizeof(b)) < 0) {
			cli_error(c->cmd, "--test-args '%s': expected nccl-tests options", v);
			return -1;
		}
		c->launch.test_args = v;
	} else {
		return 0;
	}
	return 1;
}

void sweep_ctx_ready(struct sweep_ctx *c)
{
	/* srun enforces its --time; golden's own deadline is a minute later,
	 * unless --step-timeout says otherwise (then --time follows it). */
	if (c->step_timeout_ms > 0)
		c->launch.time_limit_min = (int)((c->step_timeout_ms + 59999) / 60000) + 1;
	else
		c->step_timeout_ms = c->launch.time_limit_min * 60000L + 60000L;
	c->t0 = golden_child_now_ms();
}

/* Parse the logs of a finished sweep (in order) into SET. */
int sweep_parse_logs(const char *cmd, char **files, int n, struct golden_sweep_set *set)
{
	for (int i = 0; i < n; i++) {
		struct golden_err err = {{0}};

		if (!files[i])
			continue;
		if (golden_sweep_parse_file(files[i], set, &err) < 0) {
			cli_error(cmd, "%s", err.msg);
			return -1;
		}
	}
	return 0;
}

/* ---------------------------------------------------------------- run */

static void run_usage(void)
{
	printf(
	    "Usage: golden sweep run --out DIR [options]\n\n"
	    "Run nccl-tests through Slurm on 1 (or 2), 2, 4, ... nodes up to --nodes, each\n"
	    "step its own job step with --golden-nccl (and, with --compare-default, again\n"
	    "with --golden-nccl=off right after, alternating which goes first), collect the\n"
	    "logs in DIR, then analyse them and draw DIR/sweep.svg and DIR/sweep.png.\n\n"
	    "  --out DIR               where the logs, report.txt/json and the plots go\n"
	    "  --nodes N|all-idle      the most nodes to use (default: every idle node)\n"
	    "  --min-nodes 1|2         the first node count (default 1)\n"
	    "  --nodelist LIST         use these nodes (a Slurm host list), in this order\n"
	    "  --partition NAME        Slurm partition\n"
	    "  --collectives LIST      all_reduce,all_gather,reduce_scatter,alltoall,...\n"
	    "                          (default all_reduce)\n"
	    "  --min-bytes SIZE --max-bytes SIZE --step-factor N   (8, 16G, 2)\n"
	    "  --tests-dir DIR         nccl-tests binaries (default: golden.conf nccl_tests_dir)\n"
	    "  --config FILE           golden.conf (default $GOLDEN_CONF, /etc/slurm/golden.conf)\n"
	    "  --launcher 'CMD'        srun and its options (default 'srun --mpi=pmix';\n"
	    "                          nccl-tests' multi-node build needs MPI)\n"
	    "  --gpus-per-node N       tasks (ranks) per node, one per GPU (default 8)\n"
	    "  --compare-default       A/B: every step also with NCCL's defaults\n"
	    "  --time-limit MIN        srun --time per step (default 10)\n"
	    "  --step-timeout SECS     golden's own deadline per step (default: the time\n"
	    "                          limit plus a minute)\n"
	    "  --test-args 'ARGS'      more nccl-tests options (e.g. '-c 0 -n 50')\n\n%s"
	    "\nExit status: 0 no findings, 1 findings, 2 could not run or analyse.\n",
	    sweep_analysis_usage);
}

static int parse_colls(const char *cmd, const char *v, enum golden_sweep_coll *out, int *n)
{
	char buf[256], *save = NULL;

	*n = 0;
	golden_strlcpy(buf, v, sizeof(buf));
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		enum golden_sweep_coll c = golden_sweep_coll_parse(t);

		if (c == GOLDEN_COLL_UNKNOWN || *n >= GOLDEN_SWEEP_MAX_COLLS) {
			cli_error(
			    cmd,
			    "--collectives %s: '%s' is not an nccl-tests collective; expected "
			    "all_reduce, all_gather, reduce_scatter, alltoall, broadcast, reduce, "
			    "sendrecv, ...",
			    v, t);
			return -1;
		}
		out[(*n)++] = c;
	}
	return *n ? 0 : -1;
}

int cmd_sweep_run(int argc, char **argv)
{
	struct sweep_analysis a;
	struct sweep_ctx c;
	struct sweep_nodes nodes = {0};
	struct golden_sweep_set set = {0};
	enum golden_sweep_coll colls[GOLDEN_SWEEP_MAX_COLLS] = {GOLDEN_COLL_ALL_REDUCE};
	struct golden_sweep_step *steps = NULL;
	int ncolls = 1, want = 0, from = 1, counts[GOLDEN_SWEEP_MAX_COUNTS], ncounts, nsteps;
	const char *out = NULL, *nodelist = NULL, *tests = NULL, *config = NULL;
	bool compare = false;
	char **files = NULL;
	char plot_svg[PATH_MAX + 16], plot_png[PATH_MAX + 16];
	int rc = 2, started = 0;

	sweep_analysis_init(&a);
	sweep_ctx_init(&c, "sweep run");
	for (int i = 1; i < argc; i++) {
		char name[64];
		const char *v;
		int r;

		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			run_usage();
			return 0;
		}
		if (!strcmp(argv[i], "--compare-default")) {
			compare = true;
			continue;
		}
		if (strncmp(argv[i], "--", 2)) {
			cli_error(c.cmd, "unexpected argument '%s' (see 'golden sweep run --help')",
			          argv[i]);
			return 2;
		}
		v = sweep_opt_value(argc, argv, &i, name, sizeof(name));
		if (!v) {
			cli_error(c.cmd, "--%s needs a value", name);
			return 2;
		}
		if (!strcmp(name, "out"))
			out = v;
		else if (!strcmp(name, "nodes")) {
			if (strcmp(v, "all-idle") &&
			    cli_int(c.cmd, name, v, 1, 100000, NULL, &want) < 0)
				return 2;
		} else if (!strcmp(name, "min-nodes")) {
			if (cli_int(c.cmd, name, v, 1, 2, NULL, &from) < 0)
				return 2;
		} else if (!strcmp(name, "nodelist"))
			nodelist = v;
		else if (!strcmp(name, "collectives")) {
			if (parse_colls(c.cmd, v, colls, &ncolls) < 0)
				return 2;
		} else if (!strcmp(name, "tests-dir"))
			tests = v;
		else if (!strcmp(name, "config"))
			config = v;
		else if ((r = sweep_launch_option(&c, &a, name, v)) != 0) {
			if (r < 0)
				return 2;
		} else if ((r = sweep_analysis_option(&a, c.cmd, name, v)) != 0) {
			if (r < 0)
				return 2;
		} else {
			cli_error(c.cmd, "unknown option '--%s' (see 'golden sweep run --help')",
			          name);
			return 2;
		}
	}
	if (!out) {
		cli_error(c.cmd,
		          "--out DIR is required: the logs, the report and the plots go there");
		return 2;
	}
	if (c.launch.min_bytes > c.launch.max_bytes) {
		cli_error(c.cmd, "--min-bytes is above --max-bytes");
		return 2;
	}
	if (sweep_tests_dir(&c, tests, config) < 0 || sweep_load_expect(&a, c.cmd) < 0 ||
	    sweep_prepare_out(c.cmd, out) < 0)
		return 2;
	for (int k = 0; k < ncolls; k++) {
		char exe[PATH_MAX + 64];

		snprintf(exe, sizeof(exe), "%s/%s", c.tests_dir,
		         golden_sweep_coll_binary(colls[k]));
		if (access(exe, X_OK) < 0)
			fprintf(
			    stderr,
			    "golden %s: warning: %s is not executable here; it must be on every "
			    "compute node\n",
			    c.cmd, exe);
	}
	if (sweep_resolve_nodes(c.cmd, nodelist, c.launch.partition, &nodes) < 0)
		goto out;
	if (nodes.n == 0) {
		cli_error(c.cmd, "no %s nodes to run on", nodelist ? "listed" : "idle");
		goto out;
	}
	if (want > nodes.n) {
		cli_error(c.cmd, "--nodes %d: only %d %s node%s (%s...)", want, nodes.n,
		          nodelist ? "listed" : "idle", nodes.n == 1 ? "" : "s", nodes.name[0]);
		goto out;
	}
	if (!want)
		want = nodes.n;
	if (from > want)
		from = want;
	ncounts = golden_sweep_node_counts(from, want, counts, GOLDEN_SWEEP_MAX_COUNTS);
	steps = calloc(GOLDEN_SWEEP_MAX_STEPS, sizeof(*steps));
	files = calloc(GOLDEN_SWEEP_MAX_STEPS, sizeof(*files));
	if (!steps || !files)
		goto out;
	nsteps = golden_sweep_plan(counts, ncounts, colls, ncolls, compare, steps,
	                           GOLDEN_SWEEP_MAX_STEPS);
	if (nsteps < 0) {
		cli_error(c.cmd, "too many steps (at most %d)", GOLDEN_SWEEP_MAX_STEPS);
		goto out;
	}
	c.total = nsteps;
	sweep_ctx_ready(&c);
	fprintf(stderr, "golden %s: %d step%s on up to %d node%s (%s...), logs in %s\n", c.cmd,
	        nsteps, nsteps == 1 ? "" : "s", want, want == 1 ? "" : "s", nodes.name[0], out);
	for (int i = 0; i < nsteps; i++) {
		struct golden_sweep_outcome o;
		char file[PATH_MAX + 64];

		if (steps[i].nodes > nodes.n)
			continue; /* the plan never asks for more nodes than there are */
		snprintf(file, sizeof(file), "%s/%s-%dn-%s.log", out,
		         golden_sweep_coll_name(steps[i].coll), steps[i].nodes,
		         steps[i].golden ? "golden" : "default");
		if (!(files[i] = strdup(file)))
			goto out;
		if (sweep_step(&c, &steps[i], nodes.name, steps[i].nodes, file, NULL, &o) == 0)
			started++;
	}
	if (!started) {
		cli_error(c.cmd, "no step could be started");
		goto out;
	}
	if (!a.nplots) {
		snprintf(plot_svg, sizeof(plot_svg), "%s/sweep.svg", out);
		snprintf(plot_png, sizeof(plot_png), "%s/sweep.png", out);
		a.plots[a.nplots++] = plot_svg;
		a.plots[a.nplots++] = plot_png;
	}
	if (sweep_parse_logs(c.cmd, files, nsteps, &set) < 0)
		goto out;
	rc = sweep_report(&a, &set, c.cmd, out);
out:
	if (files)
		for (int i = 0; i < GOLDEN_SWEEP_MAX_STEPS; i++)
			free(files[i]);
	free(files);
	free(steps);
	sweep_nodes_free(&nodes);
	golden_sweep_set_free(&set);
	return rc;
}
