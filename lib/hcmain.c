#include <config.h>

#include "hcmain.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "check_run.h"
#include "conf.h"
#include "drain.h"
#include "hcconf.h"
#include "hclog.h"
#include "reason.h"
#include "strutil.h"
#include "wbexposure.h"
#include "wbstall.h"

#define DEFAULT_CONF "/etc/slurm/golden.conf"

struct hc_opts {
	enum golden_phase phase;
	const char *config, *sysroot, *topology, *kmsg, *node;
	int json, no_drain, kernel;
};

static void usage(const char *prog, FILE *out)
{
	fprintf(out,
	        "Usage: %s [--prolog|--epilog] [--config FILE] [--sysroot DIR] [--topology FILE]\n"
	        "       %*s [--kmsg FILE] [--node NAME] [--json] [--no-drain] [--kernel]\n"
	        "\n"
	        "Run slurm-golden's GPU, fabric, storage and kernel-log health checks, each in\n"
	        "its own process under a hard deadline. On a failure the node is drained with a\n"
	        "reason that starts with the component and fault (sinfo -R shows 20 characters)\n"
	        "and ends with " GOLDEN_REASON_MARKER
	        ", unless it is already drained or down for another\n"
	        "reason. Config: --config, $GOLDEN_CONF or " DEFAULT_CONF " (optional).\n"
	        "--kernel prints the teardown-stall exposure report (kernel version against\n"
	        "the fixes, cgroup writeback, filesystems) and exits 1 if exposed.\n"
	        "Exit status: 0 healthy or warnings, 1 a check failed, 2 usage/config error.\n",
	        prog, (int)strlen(prog), "");
}

static int parse(int argc, char **argv, struct hc_opts *o)
{
	static const struct option longopts[] = {
	    {"prolog", no_argument, NULL, 'p'},         {"epilog", no_argument, NULL, 'e'},
	    {"config", required_argument, NULL, 'c'},   {"sysroot", required_argument, NULL, 's'},
	    {"topology", required_argument, NULL, 't'}, {"kmsg", required_argument, NULL, 'k'},
	    {"node", required_argument, NULL, 'n'},     {"json", no_argument, NULL, 'j'},
	    {"no-drain", no_argument, NULL, 'N'},       {"kernel", no_argument, NULL, 'K'},
	    {"help", no_argument, NULL, 'h'},           {NULL, 0, NULL, 0}};
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
		case 'h':
			usage(argv[0], stdout);
			exit(0);
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

static int load_conf(const char *prog, const struct hc_opts *o, struct golden_hc_conf *conf)
{
	const char *path = o->config ? o->config : getenv("GOLDEN_CONF");
	struct golden_err err = {{0}};
	struct stat st;

	golden_hc_conf_init(conf);
	if (!path || !*path) {
		path = DEFAULT_CONF;
		if (stat(path, &st) < 0)
			return 0; /* no config: defaults */
	}
	if (golden_hc_conf_load(path, geteuid() == 0, conf, &err) < 0) {
		fprintf(stderr, "%s: %s\n", prog, err.msg);
		return -1;
	}
	for (int i = 0; i < conf->nchecks; i++)
		if (!golden_check_find(conf->checks[i].name)) {
			fprintf(stderr,
			        "%s: %s: check.%s: no such check (see golden check --help)\n", prog,
			        path, conf->checks[i].name);
			return -1;
		}
	return 0;
}

static int expand(const char *prog, const char *key, const char *tmpl, const char *node, char *out,
                  size_t len)
{
	struct golden_err err = {{0}};

	if (golden_expand_node(tmpl, node, out, len, &err) < 0) {
		fprintf(stderr, "%s: %s: %s\n", prog, key, err.msg);
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

static const char *phase_name(enum golden_phase p)
{
	return p == GOLDEN_PHASE_PROLOG ? "prolog" : p == GOLDEN_PHASE_EPILOG ? "epilog" : "manual";
}

static const char *drain_word(enum golden_drain_outcome d)
{
	switch (d) {
	case GOLDEN_DRAINED:
		return "drained";
	case GOLDEN_ALREADY_OURS:
		return "already drained by golden";
	case GOLDEN_LEFT_FOREIGN:
		return "already drained or down for another reason: left alone";
	case GOLDEN_DRAIN_FAILED:
		break;
	}
	return "drain failed";
}

static void print_text(const struct golden_run_report *rep, const struct golden_run_info *info)
{
	printf("%s on %s%s%s: %d checks in %d ms\n", info->phase, info->node,
	       info->job_id[0] ? " job " : "", info->job_id, rep->n, rep->total_ms);
	if (info->topology_note)
		printf("  topology: %s\n", info->topology_note);
	for (int i = 0; i < rep->n; i++) {
		const struct golden_check_outcome *c = &rep->out[i];

		printf("  %-5s %-14s %5d ms  %s%s%s\n", golden_status_name(c->res.status),
		       c->chk->name, c->duration_ms, c->res.code, c->res.code[0] ? ": " : "",
		       c->res.detail);
	}
	if (info->reason)
		printf("reason: %s\nnode: %s\n", info->reason,
		       info->drain ? info->drain : "not drained (--no-drain)");
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
	int rc = golden_run_guarded(exposure_child, (void *)sysroot, &t, sizeof(t), 3000);

	if (rc != 0) {
		fprintf(stderr, "golden check --kernel: %s\n",
		        rc == 1 ? "timed out after 3000 ms reading the kernel state"
		                : "could not read the kernel state");
		return 2;
	}
	fputs(t.text, stdout);
	return t.exposed ? 1 : 0;
}

int golden_hc_main(enum golden_phase default_phase, int argc, char **argv)
{
	const char *prog = argv[0];
	struct hc_opts o = {default_phase, NULL, NULL, NULL, NULL, NULL, 0, 0, 0};
	struct golden_hc_conf *conf = malloc(sizeof(*conf));
	struct golden_topo *topo = malloc(sizeof(*topo));
	char node[64], topopath[PATH_MAX], sysroot[PATH_MAX], state[PATH_MAX], logp[PATH_MAX];
	char tdir[PATH_MAX];
	char reason[GOLDEN_REASON_MAX];
	const struct golden_check *list[GOLDEN_MAX_CHECKS];
	struct golden_run_report *rep = malloc(sizeof(*rep));
	struct golden_run_info info = {0};
	struct golden_check_ctx ctx;
	struct discover_arg darg;
	const char *job = getenv("SLURM_JOB_ID");
	int rc = 2, n, drc;

	if (!conf || !topo || !rep || parse(argc, argv, &o) < 0 || load_conf(prog, &o, conf) < 0)
		goto out;
	if (o.node)
		golden_strlcpy(node, o.node, sizeof(node));
	else if (getenv("SLURMD_NODENAME"))
		golden_strlcpy(node, getenv("SLURMD_NODENAME"), sizeof(node));
	else if (gethostname(node, sizeof(node)) < 0)
		golden_strlcpy(node, "localhost", sizeof(node));
	node[sizeof(node) - 1] = '\0';
	if (!golden_is_safe_name(job ? job : "0", 32))
		job = NULL;
	if (expand(prog, "topology", o.topology ? o.topology : conf->topology, node, topopath,
	           sizeof(topopath)) ||
	    expand(prog, "sysroot", o.sysroot ? o.sysroot : conf->sysroot, node, sysroot,
	           sizeof(sysroot)) ||
	    expand(prog, "state_dir", conf->state_dir, node, state, sizeof(state)) ||
	    expand(prog, "log", conf->log_path, node, logp, sizeof(logp)) ||
	    expand(prog, "teardown_dir", conf->teardown_dir, node, tdir, sizeof(tdir)))
		goto out;
	if (o.kernel) {
		rc = kernel_report(sysroot[0] ? sysroot : NULL);
		goto out;
	}

	info.node = node;
	info.job_id = job ? job : "";
	info.phase = phase_name(o.phase);
	darg.opts.topology_xml = topopath[0] ? topopath : NULL;
	darg.opts.sysroot = sysroot[0] ? sysroot : NULL;
	/* Discovery reads sysfs too: it gets a deadline like every check. */
	drc = golden_run_guarded(discover_child, &darg, topo, sizeof(*topo), 3000);
	if (drc != 0)
		info.topology_note = drc == 1 ? "discovery timed out after 3000 ms"
		                              : "discovery failed (see golden topo)";
	ctx = (struct golden_check_ctx){conf,
	                                drc == 0 ? topo : NULL,
	                                darg.opts.sysroot,
	                                node,
	                                info.job_id,
	                                o.phase,
	                                o.kmsg,
	                                state,
	                                tdir};
	n = golden_checks_select(conf, o.phase, list, GOLDEN_MAX_CHECKS);
	golden_checks_run(list, n, &ctx, conf->budget_ms, rep);
	/* A storage check that timed out during a writeback stall blames the kernel. */
	golden_stall_attribute(rep, state, ctx.sysroot);

	rc = 0;
	if (golden_reason_format(rep, reason, sizeof(reason)) == 0) {
		struct golden_err err = {{0}};

		info.reason = reason;
		rc = 1;
		if (!o.no_drain) {
			info.drain = drain_word(golden_drain(conf->scontrol, node, reason, &err));
			if (err.msg[0])
				fprintf(stderr, "%s: %s\n", prog, err.msg);
		}
	}
	if (golden_hclog_append(logp, rep, &info) < 0)
		fprintf(stderr, "%s: cannot append to %s\n", prog, logp);
	golden_hclog_syslog(rep, &info);
	if (o.json) {
		struct json_object *j = golden_report_to_json(rep, &info);

		printf("%s\n", json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY));
		json_object_put(j);
	} else if (o.phase == GOLDEN_PHASE_MANUAL || o.no_drain) {
		print_text(rep, &info);
	} else if (info.reason) {
		fprintf(stderr, "%s: %s: %s\n", prog, node, reason);
	}
out:
	free(conf);
	free(topo);
	free(rep);
	return rc;
}
