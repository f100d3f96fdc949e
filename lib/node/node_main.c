#include <config.h>

#include "node/node_main.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "health/check_run.h"
#include "node/scontrol.h"
#include "health/golden_conf.h"
#include "health/health_log.h"
#include "node/active_run.h"
#include "node/lifecycle.h"
#include "node/metrics.h"
#include "health/reason.h"
#include "util/strutil.h"
#include "stall/wbexposure.h"
#include "stall/wbstall.h"
#include "stall/check_kernel.h"
#include "util/kmsg.h"
#include "util/statefile.h"
#include "node/check_registry.h"
#include "node/topofacts.h"
#include "util/child.h"
#include "util/nodename.h"

#define DEFAULT_CONF "/etc/slurm/golden.conf"

struct hc_opts {
	enum golden_phase phase;
	const char *config, *sysroot, *topology, *kmsg, *node;
	int json, no_drain, kernel, explain, ack;
};

static void usage(const char *prog, enum golden_phase phase, FILE *out)
{
	int w = (int)strlen(prog);

	if (phase == GOLDEN_PHASE_PROLOG || phase == GOLDEN_PHASE_EPILOG) {
		const char *slurm = phase == GOLDEN_PHASE_PROLOG ? "Prolog" : "Epilog";

		fprintf(
		    out,
		    "Usage: %s [--config FILE] [--sysroot DIR] [--topology FILE] [--kmsg FILE]\n"
		    "       %*s [--node NAME] [--json] [--no-drain] [--version]\n"
		    "\n"
		    "Slurm's %s= program: runs slurm-golden's %s checks (GPU, fabric,\n"
		    "storage, kernel log), each in its own process under a hard deadline.\n",
		    prog, w, "", slurm, phase == GOLDEN_PHASE_PROLOG ? "prolog" : "epilog");
		if (phase == GOLDEN_PHASE_PROLOG)
			fputs("A failed check drains the node with golden's reason and exits 1,\n"
			      "so Slurm requeues the job on another node.\n",
			      out);
		else
			fputs("Faults raised during the job are attributed to it; only hardware\n"
			      "faults drain the node (exit 1).\n",
			      out);
		fputs(
		    "Config: --config, $GOLDEN_CONF or " DEFAULT_CONF " (optional). A broken\n"
		    "golden.conf is a configuration error, not a node fault: no check runs,\n"
		    "nothing is drained or resumed, the error (FILE:LINE) goes to stderr, syslog\n"
		    "and golden's log, and the exit status is 0 so the job runs.\n"
		    "Exit status: 0 healthy, warnings or a broken golden.conf; 1 a check failed;\n"
		    "2 usage error. 'golden check --help' has the rest.\n",
		    out);
		return;
	}
	fprintf(out,
	        "Usage: %s [--prolog|--epilog|--healthcheck] [--config FILE] [--sysroot DIR]\n"
	        "       %*s [--topology FILE] [--kmsg FILE] [--node NAME] [--json] [--no-drain]\n"
	        "       %*s [--kernel] [--explain-config] [--acknowledge-kmsg]\n"
	        "\n"
	        "Run slurm-golden's GPU, fabric, storage and kernel-log health checks, each in\n"
	        "its own process under a hard deadline. On a failure the node is drained with a\n"
	        "reason that starts with the component and fault (sinfo -R shows 20 characters)\n"
	        "and ends with " GOLDEN_REASON_MARKER
	        ", unless it is already drained or down for another\n"
	        "reason. Config: --config, $GOLDEN_CONF or " DEFAULT_CONF " (optional).\n"
	        "--explain-config prints every golden.conf line, whether it applies to this\n"
	        "node (--node NAME for another) and why, then the settings in effect.\n"
	        "--no-drain is a dry run: nothing is drained and nothing consumed (kernel-log\n"
	        "cursors, counters), so the next prolog sees the same faults.\n"
	        "--acknowledge-kmsg checks nothing: the kernel log up to now counts as seen by\n"
	        "the checks that read it (xid, wb-stall), for faults already dealt with by hand.\n"
	        "--kernel prints the teardown-stall exposure report (kernel version against\n"
	        "the fixes, cgroup writeback, filesystems) and exits 1 if exposed.\n"
	        "--healthcheck is Slurm's HealthCheckProgram: passive checks only while a job\n"
	        "runs, and a node golden drained is resumed once its fault has cleared as its\n"
	        "class requires (transient: the check passes; gpu-reset: the GPU was\n"
	        "re-initialised; reboot: the boot id changed; flapping: never).\n"
	        "A broken golden.conf never drains: no check runs and the error (FILE:LINE) is\n"
	        "printed; with --prolog/--epilog it also goes to syslog and golden's log and the\n"
	        "exit status is 0 (the job runs); otherwise 2 (slurmd only logs a\n"
	        "HealthCheckProgram's status).\n"
	        "Exit status: 0 healthy or warnings, 1 a check failed, 2 usage/config error.\n",
	        prog, w, "", w, "");
}

static int parse(int argc, char **argv, struct hc_opts *o)
{
	static const struct option longopts[] = {{"prolog", no_argument, NULL, 'p'},
	                                         {"epilog", no_argument, NULL, 'e'},
	                                         {"config", required_argument, NULL, 'c'},
	                                         {"sysroot", required_argument, NULL, 's'},
	                                         {"topology", required_argument, NULL, 't'},
	                                         {"kmsg", required_argument, NULL, 'k'},
	                                         {"node", required_argument, NULL, 'n'},
	                                         {"json", no_argument, NULL, 'j'},
	                                         {"no-drain", no_argument, NULL, 'N'},
	                                         {"kernel", no_argument, NULL, 'K'},
	                                         {"healthcheck", no_argument, NULL, 'H'},
	                                         {"explain-config", no_argument, NULL, 'X'},
	                                         {"acknowledge-kmsg", no_argument, NULL, 'A'},
	                                         {"help", no_argument, NULL, 'h'},
	                                         {"version", no_argument, NULL, 'V'},
	                                         {NULL, 0, NULL, 0}};
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			o->phase = GOLDEN_PHASE_PROLOG;
			break;
		case 'e':
			o->phase = GOLDEN_PHASE_EPILOG;
			break;
		case 'H':
			o->phase = GOLDEN_PHASE_HEALTH;
			break;
		case 'c':
			o->config = optarg;
			break;
		case 's':
			o->sysroot = optarg;
			break;
		case 't':
			o->topology = optarg;
			break;
		case 'k':
			o->kmsg = optarg;
			break;
		case 'n':
			o->node = optarg;
			break;
		case 'j':
			o->json = 1;
			break;
		case 'N':
			o->no_drain = 1;
			break;
		case 'K':
			o->kernel = 1;
			break;
		case 'X':
			o->explain = 1;
			break;
		case 'A':
			o->ack = 1;
			break;
		case 'h':
			usage(argv[0], o->phase, stdout);
			exit(0);
		case 'V': {
			const char *base = strrchr(argv[0], '/');

			printf("%s (slurm-golden) %s\n", base ? base + 1 : argv[0],
			       PACKAGE_VERSION);
			exit(0);
		}
		default:
			fprintf(stderr, "%s: unknown option '%s' (see --help)\n", argv[0],
			        argv[optind - 1]);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", argv[0], argv[optind]);
		return -1;
	}
	return 0;
}

struct conf_reader {
	const char *prog;
	const char *node;
	const struct golden_conf *conf; /* the lines for every node, read so far */
	FILE *explain;                  /* --explain-config: where to print */
};

/* The node's Slurm features, for [feature] sections: one scontrol query,
 * under a deadline, only when the file has such a section. */
static int node_features(void *arg, char *buf, size_t len)
{
	const struct conf_reader *r = arg;
	struct golden_node_state st;
	struct golden_err err = {{0}};

	if (!r->node || golden_scontrol_show_node(r->conf->scontrol, r->node, 3000, &st, &err) < 0)
		return -1;
	return golden_strlcpy(buf, st.features, len) < 0 ? -1 : 0;
}

static void conf_warn(void *arg, const char *msg)
{
	const struct conf_reader *r = arg;

	fprintf(stderr, "%s: golden.conf: %s\n", r->prog, msg);
}

static void conf_explain(void *arg, const char *where, const char *key, const char *value,
                         const char *why)
{
	const struct conf_reader *r = arg;

	fprintf(r->explain, "%-28s %-24s = %-20s %s\n", where, key, value, why);
}

/* golden.conf into conf for node; on -1, err says what is wrong and where. */
static int load_conf(const char *prog, const char *config, const char *node,
                     struct golden_conf *conf, FILE *explain, struct golden_err *err)
{
	const char *path = config ? config : getenv("GOLDEN_CONF");
	struct stat st;
	struct conf_reader reader = {prog, node, conf, explain};
	struct golden_conf_node who = {node, node_features, explain ? conf_explain : NULL,
	                               conf_warn, &reader};

	golden_conf_init(conf);
	if (!path || !*path) {
		path = DEFAULT_CONF;
		if (stat(path, &st) < 0) {
			if (explain)
				fprintf(explain, "no %s: built-in defaults for every key\n", path);
			return 0; /* no config: defaults */
		}
	}
	if (golden_conf_load_node(path, geteuid() == 0, &who, conf, err) < 0)
		return -1;
	for (int i = 0; i < conf->nchecks; i++)
		if (!golden_check_find(conf->checks[i].name))
			return golden_err_set(
			    err, "%s: check.%s: no such check (see golden check --help)", path,
			    conf->checks[i].name);
	return 0;
}

int golden_node_load_conf(const char *prog, const char *config, const char *node,
                          struct golden_conf *conf, FILE *explain)
{
	struct golden_err err = {{0}};

	if (load_conf(prog, config, node, conf, explain, &err) < 0) {
		fprintf(stderr, "%s: %s\n", prog, err.msg);
		return -1;
	}
	return 0;
}

static int expand(const char *key, const char *tmpl, const char *node, char *out, size_t len,
                  struct golden_err *err)
{
	struct golden_err why = {{0}};

	if (golden_nodename_expand(tmpl, node, out, len, &why) < 0)
		return golden_err_set(err, "%s: %s", key, why.msg);
	return 0;
}

int golden_node_expand(const char *prog, const char *key, const char *tmpl, const char *node,
                       char *out, size_t len)
{
	struct golden_err err = {{0}};

	if (expand(key, tmpl, node, out, len, &err) < 0) {
		fprintf(stderr, "%s: %s\n", prog, err.msg);
		return -1;
	}
	return 0;
}

struct discover_arg {
	struct golden_topo_opts opts;
};

static void discover_child(void *shared, void *arg)
{
	struct golden_err err = {{0}};
	struct golden_topo *topo = shared;

	if (golden_topo_discover(&((struct discover_arg *)arg)->opts, topo, &err) < 0)
		_exit(3);
}

int golden_node_discover(const char *topology, const char *sysroot, int deadline_ms,
                         struct golden_topo *topo)
{
	struct discover_arg darg;

	darg.opts.topology_xml = topology && topology[0] ? topology : NULL;
	darg.opts.sysroot = sysroot && sysroot[0] ? sysroot : NULL;
	/* The same deadline inside: otherwise hwloc's own default would cap a
	 * longer discovery_deadline_ms. */
	darg.opts.deadline_ms = deadline_ms;
	return golden_child_run(discover_child, &darg, topo, sizeof(*topo), deadline_ms);
}

static const char *phase_name(enum golden_phase p)
{
	switch (p) {
	case GOLDEN_PHASE_PROLOG:
		return "prolog";
	case GOLDEN_PHASE_EPILOG:
		return "epilog";
	case GOLDEN_PHASE_HEALTH:
	case GOLDEN_PHASE_BUSY:
		return "healthcheck";
	default:
		return "manual";
	}
}

static void print_text(const struct golden_run_report *rep, const struct golden_run_info *info)
{
	printf("%s on %s%s%s: %d checks in %d ms\n", info->phase, info->node,
	       info->job_id[0] ? " job " : "", info->job_id, rep->n, rep->total_ms);
	if (info->topology_note)
		printf("  topology: %s\n", info->topology_note);
	for (int i = 0; i < rep->n; i++) {
		const struct golden_check_outcome *c = &rep->out[i];

		printf("  %-5s %-14s %5d ms  %s%s%s\n", golden_check_status_name(c->res.status),
		       c->chk->name, c->duration_ms, c->res.code, c->res.code[0] ? ": " : "",
		       c->res.detail);
	}
	if (info->reason)
		printf("reason: %s\nnode: %s\n", info->reason,
		       info->drain ? info->drain
		                   : "not drained, nothing consumed (--no-drain: a dry run)");
	if (info->resume)
		printf("node: %s\n", info->resume);
	if (info->waiting)
		printf("golden holds its drain until %s\n", info->waiting);
}

struct exposure_text {
	char text[4096];
	int exposed;
};

static void exposure_child(void *shared, void *arg)
{
	struct exposure_text *t = shared;
	struct golden_exposure e;

	golden_exposure_read(arg, &e);
	golden_exposure_format(&e, t->text, sizeof(t->text));
	t->exposed = e.exposed;
}

/* The mount table and sysfs can hang like anything else: a child again. */
static int kernel_report(const char *sysroot)
{
	static struct exposure_text t;
	int rc = golden_child_run(exposure_child, (void *)sysroot, &t, sizeof(t), 3000);

	if (rc != 0) {
		fprintf(stderr, "golden check --kernel: %s\n",
		        rc == 1 ? "timed out after 3000 ms reading the kernel state"
		                : "could not read the kernel state");
		return 2;
	}
	fputs(t.text, stdout);
	return t.exposed ? 1 : 0;
}

/* --acknowledge-kmsg: move the cursors of the checks that read the kernel
 * log (xid in state, wb-stall in state/stall) to its newest record. */
static int acknowledge_kmsg(const char *prog, const char *kmsg, const char *state,
                            const char *sysroot)
{
	char stall[PATH_MAX];
	struct golden_kmsg_stats st;
	const char *path = kmsg ? kmsg : "/dev/kmsg";

	if (golden_path_join(stall, sizeof(stall), state, GOLDEN_STALL_CURSOR_DIR) < 0) {
		fprintf(stderr, "%s: state_dir %s: path too long\n", prog, state);
		return 2;
	}
	do { /* a scan stops after GOLDEN_KMSG_MAX_RECORDS: go on from there */
		if (golden_kmsg_scan(kmsg, state, sysroot, false, NULL, NULL, &st) < 0) {
			fprintf(stderr, "%s: cannot read %s: %s\n", prog, path, strerror(errno));
			return 2;
		}
		if ((st.records || st.cursor_found) &&
		    (golden_kmsg_cursor_advance(state, GOLDEN_KMSG_CURSOR, st.boot_id,
		                                st.last_seq) < 0 ||
		     golden_kmsg_cursor_advance(stall, GOLDEN_KMSG_CURSOR, st.boot_id,
		                                st.last_seq) < 0)) {
			fprintf(stderr, "%s: cannot save the kernel-log cursors in %s: %s\n", prog,
			        state, strerror(errno));
			return 2;
		}
	} while (st.limited);
	printf("%s acknowledged up to record %llu (boot %s): the xid and wb-stall checks look "
	       "only at later records\n",
	       path, (unsigned long long)st.last_seq, st.boot_id);
	return 0;
}

/* HealthCheckProgram runs on idle, allocated and drained nodes alike: while
 * a job runs only passive checks; if Slurm cannot tell, assume one runs. */
static enum golden_phase health_phase(const struct golden_conf *conf, const char *node,
                                      struct golden_run_info *info)
{
	struct golden_node_state st;
	struct golden_err err = {{0}};

	if (golden_scontrol_show_node(conf->scontrol, node, 5000, &st, &err) < 0) {
		info->node_state = "unknown (scontrol failed): passive checks only";
		return GOLDEN_PHASE_BUSY;
	}
	if (golden_node_state_busy(&st)) {
		info->node_state = "busy: passive checks only";
		return GOLDEN_PHASE_BUSY;
	}
	info->node_state = "idle";
	return GOLDEN_PHASE_HEALTH;
}

/* golden.conf (or a path template in it) is wrong. A configuration mistake
 * must never look like a node fault: no check runs (so no kernel-log cursor
 * moves and no fault is consumed), nothing is drained, resumed or applied
 * from the ledger. By hand the FILE:LINE message and exit 2 are right. As
 * Slurm's Prolog/Epilog, exit 2 would drain the node as "Prolog error" (a
 * reason golden never owns), so exit 0 and say it loudly where an admin
 * looks: stderr (slurmd logs it at debug2), syslog, and golden's log at the
 * path the lines that did parse give. As HealthCheckProgram, exit 2:
 * slurmd only logs a health check's status, with its output, at error level. */
static int config_broken(const char *prog, const struct hc_opts *o, const struct golden_conf *conf,
                         const char *job, const char *msg)
{
	bool slurm_job = o->phase == GOLDEN_PHASE_PROLOG || o->phase == GOLDEN_PHASE_EPILOG;
	struct golden_run_report *rep;
	struct golden_run_info info = {0};
	char node[64];

	if (!slurm_job && o->phase != GOLDEN_PHASE_HEALTH) {
		fprintf(stderr, "%s: %s\n", prog, msg);
		return 2;
	}
	fprintf(stderr, "%s: %s; golden.conf is broken: no checks ran, nothing drained%s\n", prog,
	        msg, slurm_job ? "; the job runs" : "");
	golden_nodename_get(o->node, node, sizeof(node));
	info.node = node;
	info.job_id = job ? job : "";
	info.phase = phase_name(o->phase);
	info.config_error = msg;
	rep = calloc(1, sizeof(*rep));
	if (rep) {
		struct golden_err err = {{0}};
		char logp[PATH_MAX];

		rep->worst = -1;
		if (expand("log", conf->log_path, node, logp, sizeof(logp), &err) == 0 &&
		    golden_health_log_append(logp, rep, &info) < 0)
			fprintf(stderr, "%s: cannot append to %s\n", prog, logp);
		golden_health_log_syslog(rep, &info);
		free(rep);
	}
	return slurm_job ? 0 : 2;
}

/* Validation before return: on an idle drained node whose drain needs it,
 * run golden-active here (HealthCheckProgram runs on drained nodes) and add
 * its outcome to the run; the lifecycle resumes only if it passed. Not when
 * a passive check failed: the node stays drained for that anyway. */
static void validate_before_return(const struct golden_conf *conf, const char *node,
                                   const char *state, const char *metrics, const char *topo,
                                   const char *sysroot, struct golden_run_report *rep)
{
	struct golden_lifecycle lc = {
	    conf, node, state, sysroot[0] ? sysroot : NULL, NULL, "healthcheck", NULL, NULL, 0};
	struct golden_active_report *arep;
	struct golden_active_run_opts ro = {
	    conf, node,    state,        "", metrics,
	    topo, sysroot, "validation", "", conf->active_validate_s,
	    0,    NULL};
	enum golden_active_outcome oc;
	long t0 = golden_child_now_ms();
	struct golden_check_outcome *out;

	if (rep->n >= GOLDEN_MAX_CHECKS ||
	    (rep->worst >= 0 && rep->out[rep->worst].res.status == GOLDEN_ST_FAIL) ||
	    !golden_lifecycle_wants_validation(&lc) || !(arep = malloc(sizeof(*arep))))
		return;
	oc = golden_active_run(&ro, arep);
	out = &rep->out[rep->n];
	golden_active_outcome_fill(oc, arep, true, (int)(golden_child_now_ms() - t0), out);
	if (out->res.status != GOLDEN_ST_OK &&
	    (rep->worst < 0 || out->res.status > rep->out[rep->worst].res.status))
		rep->worst = rep->n;
	rep->n++;
	free(arep);
}

int golden_node_main(enum golden_phase default_phase, int argc, char **argv)
{
	const char *prog = argv[0];
	struct hc_opts o = {default_phase, NULL, NULL, NULL, NULL, NULL, 0, 0, 0, 0, 0};
	struct golden_conf *conf = malloc(sizeof(*conf));
	struct golden_topo *topo = malloc(sizeof(*topo));
	char node[64], topopath[PATH_MAX], sysroot[PATH_MAX], state[PATH_MAX], logp[PATH_MAX];
	char tdir[PATH_MAX];
	char discovery_note[96];
	char reason[GOLDEN_REASON_MAX];
	const struct golden_check *list[GOLDEN_MAX_CHECKS];
	struct golden_run_report *rep = malloc(sizeof(*rep));
	struct golden_lifecycle_result *lcres = malloc(sizeof(*lcres));
	struct golden_run_info info = {0};
	char metrics[PATH_MAX];
	struct golden_check_ctx ctx;
	const char *job = getenv("SLURM_JOB_ID");
	struct golden_err cerr = {{0}};
	int rc = 2, n, drc;

	if (!conf || !topo || !rep || !lcres || parse(argc, argv, &o) < 0)
		goto out;
	if (!golden_is_safe_name(job ? job : "0", 32))
		job = NULL;
	golden_nodename_get(o.node, node, sizeof(node));
	if (load_conf(prog, o.config, node, conf, o.explain ? stdout : NULL, &cerr) < 0) {
		if (o.explain) /* by hand, whatever the phase */
			o.phase = GOLDEN_PHASE_MANUAL;
		rc = config_broken(prog, &o, conf, job, cerr.msg);
		goto out;
	}
	if (o.explain) {
		golden_conf_print(conf, stdout);
		rc = 0;
		goto out;
	}
	if (expand("topology", o.topology ? o.topology : conf->topology, node, topopath,
	           sizeof(topopath), &cerr) ||
	    expand("sysroot", o.sysroot ? o.sysroot : conf->sysroot, node, sysroot, sizeof(sysroot),
	           &cerr) ||
	    expand("state_dir", conf->state_dir, node, state, sizeof(state), &cerr) ||
	    expand("log", conf->log_path, node, logp, sizeof(logp), &cerr) ||
	    expand("teardown_dir", conf->teardown_dir, node, tdir, sizeof(tdir), &cerr) ||
	    expand("metrics_dir", conf->metrics_dir, node, metrics, sizeof(metrics), &cerr)) {
		rc = config_broken(prog, &o, conf, job, cerr.msg);
		goto out;
	}
	if (o.kernel) {
		rc = kernel_report(sysroot[0] ? sysroot : NULL);
		goto out;
	}
	if (o.ack) {
		rc = acknowledge_kmsg(prog, o.kmsg, state, sysroot[0] ? sysroot : NULL);
		goto out;
	}

	info.node = node;
	info.job_id = job ? job : "";
	if (o.phase == GOLDEN_PHASE_HEALTH)
		o.phase = health_phase(conf, node, &info);
	info.phase = phase_name(o.phase);
	/* Discovery reads sysfs too: it gets a deadline like every check. */
	drc = golden_node_discover(topopath, sysroot, conf->discovery_deadline_ms, topo);
	if (drc == 1) {
		snprintf(discovery_note, sizeof(discovery_note),
		         "discovery timed out after %d ms (discovery_deadline_ms)",
		         conf->discovery_deadline_ms);
		info.topology_note = discovery_note;
	} else if (drc != 0) {
		info.topology_note = "discovery failed (see golden topo)";
	}
	ctx = (struct golden_check_ctx){conf,
	                                drc == 0 ? topo : NULL,
	                                sysroot[0] ? sysroot : NULL,
	                                node,
	                                info.job_id,
	                                o.phase,
	                                o.kmsg,
	                                state,
	                                tdir,
	                                o.no_drain != 0};
	n = golden_checks_select(conf, o.phase, list, GOLDEN_MAX_CHECKS);
	golden_checks_run(list, n, &ctx, conf->budget_ms, rep);
	/* A storage check that timed out during a writeback stall blames the kernel. */
	golden_stall_attribute(rep, state, ctx.sysroot);
	if (o.phase == GOLDEN_PHASE_HEALTH && !o.no_drain)
		validate_before_return(conf, node, state, metrics, topopath, sysroot, rep);

	rc = 0;
	if (golden_reason_format(rep, reason, sizeof(reason)) == 0) {
		info.reason = reason;
		rc = 1;
	}
	if (!o.no_drain) {
		struct golden_lifecycle lc = {
		    conf, node, state, ctx.sysroot, o.kmsg, info.phase, metrics, ctx.topo, 0};
		bool review = o.phase == GOLDEN_PHASE_HEALTH || o.phase == GOLDEN_PHASE_BUSY;

		struct golden_err err = {{0}};

		if (golden_lifecycle_after_run(&lc, rep, review, lcres) < 0)
			fprintf(stderr, "%s: cannot update the lifecycle ledger in %s\n", prog,
			        state);
		/* Faults are consumed only once acted on: drained, or owed. */
		if (lcres->recorded && golden_checks_commit(rep, &err) < 0)
			fprintf(stderr,
			        "%s: %s; the same kernel records are read again next time\n", prog,
			        err.msg);
		if (lcres->reason[0])
			info.reason = lcres->reason;
		info.drain = lcres->drain[0] ? lcres->drain : NULL;
		info.resume = lcres->resume[0] ? lcres->resume : NULL;
		info.waiting = lcres->waiting[0] ? lcres->waiting : NULL;
		/* An owed drain was applied: this node must not take the job. */
		if (lcres->applied_owed)
			rc = 1;
	}
	/* HealthCheckProgram leaves this node's topology facts for
	 * `golden topology gather --facts-dir`. */
	if ((o.phase == GOLDEN_PHASE_HEALTH || o.phase == GOLDEN_PHASE_BUSY) && drc == 0) {
		struct golden_err ferr = {{0}};

		if (golden_topofacts_write(state, node, topo, &ferr) < 0)
			fprintf(stderr, "%s: topology facts: %s\n", prog, ferr.msg);
	}
	if (metrics[0] && golden_metrics_checks(metrics, node, info.phase, rep) < 0)
		fprintf(stderr, "%s: cannot write metrics to %s\n", prog, metrics);
	if (golden_health_log_append(logp, rep, &info) < 0)
		fprintf(stderr, "%s: cannot append to %s\n", prog, logp);
	golden_health_log_syslog(rep, &info);
	if (o.json) {
		struct json_object *j = golden_health_log_json(rep, &info);

		printf("%s\n", json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY));
		json_object_put(j);
	} else if (o.phase == GOLDEN_PHASE_MANUAL || o.no_drain) {
		print_text(rep, &info);
	} else if (info.reason || info.resume) {
		fprintf(stderr, "%s: %s: %s%s%s\n", prog, node, info.reason ? info.reason : "",
		        info.reason && info.drain ? ": " : "",
		        info.resume  ? info.resume
		        : info.drain ? info.drain
		                     : "");
	}
out:
	free(conf);
	free(topo);
	free(rep);
	free(lcres);
	return rc;
}
