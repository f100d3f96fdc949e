/* golden active: active health checks.
 *
 *   run     on a node: run golden-active (golden.conf `active =`) under a
 *           deadline, record the result (ledger of figures, JSON log,
 *           metrics) and drain through the lifecycle if a GPU failed;
 *   submit  on an admin node: one short preemptible job per idle node that
 *           has not passed within --max-age, each running `golden active run`.
 */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "active/report_json.h"
#include "cli.h"
#include "health/golden_conf.h"
#include "node/active_run.h"
#include "node/lifecycle.h"
#include "node/node_main.h"
#include "util/child.h"
#include "util/jsonschema.h"
#include "util/nodename.h"
#include "util/strutil.h"

#define DEFAULT_CONF "/etc/slurm/golden.conf"
#define CMD_TIMEOUT  10000
#define MAX_NODES    4096

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	stop = sig;
}

static void usage(FILE *out)
{
	fprintf(out,
	        "Usage: golden active run [--config FILE] [--node NAME] [--max-age DURATION]\n"
	        "                         [--budget SECONDS] [--source job|manual] [--json]\n"
	        "                         [--no-drain]\n"
	        "       golden active submit --partition P [--qos Q] [--nodes LIST|idle]\n"
	        "                         [--max-age DURATION] [--time MINUTES] [--config FILE]\n"
	        "                         [--golden PATH] [--dry-run] [--json]\n"
	        "\n"
	        "run: run golden-active (golden.conf: active = PATH) on this node under a\n"
	        "deadline, record the result in the node's state (golden status shows it), the\n"
	        "JSON log and the metrics, and drain the node with the GPU and test in the\n"
	        "reason (e.g. 'gpu3 hbm 2.1<2.7TB/s; active [golden]') if a GPU failed. A run\n"
	        "interrupted by SIGTERM (a preempting job) is recorded and not held against the\n"
	        "node. --max-age: do nothing if the node passed within it.\n"
	        "submit: for every idle node of the partition (or of LIST) that has not passed\n"
	        "an active check within --max-age (default 24h) and has no golden-active job\n"
	        "yet, submit one exclusive job to the partition/QOS, which the site configures\n"
	        "as preemptible (PreemptType, PreemptMode=CANCEL or REQUEUE, a scavenger QOS).\n"
	        "DURATION: N[smhd]. Exit status: run: 0 passed (or skipped, or interrupted),\n"
	        "1 a GPU failed, 2 could not judge; submit: 0, 1 a submission failed, 2 error.\n");
}

/* "24h", "90m", "3600s", "2d", "3600" -> seconds; -1 if malformed. */
static long long parse_duration(const char *v)
{
	char *end;
	long long n;

	errno = 0;
	n = strtoll(v, &end, 10);
	if (errno || end == v || n < 0)
		return -1;
	switch (*end) {
	case '\0':
	case 's':
		break;
	case 'm':
		n *= 60;
		break;
	case 'h':
		n *= 3600;
		break;
	case 'd':
		n *= 86400;
		break;
	default:
		return -1;
	}
	if (*end && end[1])
		return -1;
	return n;
}

/* --- run ------------------------------------------------------------------- */

struct run_opts {
	const char *config, *node, *source;
	long long max_age;
	int budget;
	bool json, no_drain;
};

static int drain_on_failure(const struct golden_conf *conf, const char *node, const char *state,
                            const char *metrics, const char *sysroot,
                            const struct golden_active_report *rep, int ms,
                            struct golden_lifecycle_result *res)
{
	struct golden_run_report *r = calloc(1, sizeof(*r));
	struct golden_lifecycle lc = {
	    conf, node, state, sysroot[0] ? sysroot : NULL, NULL, "active", metrics, NULL, 0};
	int rc;

	if (!r)
		return -1;
	golden_active_outcome_fill(GOLDEN_ACTIVE_RUN_FAIL, rep, false, ms, &r->out[0]);
	r->n = 1;
	r->worst = 0;
	r->total_ms = ms;
	rc = golden_lifecycle_after_run(&lc, r, false, res);
	free(r);
	return rc;
}

static int active_run(int argc, char **argv)
{
	static const struct option lo[] = {{"config", required_argument, NULL, 'c'},
	                                   {"node", required_argument, NULL, 'n'},
	                                   {"max-age", required_argument, NULL, 'a'},
	                                   {"budget", required_argument, NULL, 'b'},
	                                   {"source", required_argument, NULL, 's'},
	                                   {"json", no_argument, NULL, 'j'},
	                                   {"no-drain", no_argument, NULL, 'N'},
	                                   {"help", no_argument, NULL, 'h'},
	                                   {NULL, 0, NULL, 0}};
	const char *job = getenv("SLURM_JOB_ID");
	struct run_opts o = {NULL, NULL, job ? "job" : "manual", 0, 0, false, false};
	struct golden_conf *conf = malloc(sizeof(*conf));
	struct golden_active_report *rep = malloc(sizeof(*rep));
	struct golden_lifecycle_result *res = calloc(1, sizeof(*res));
	char node[64], state[PATH_MAX], logp[PATH_MAX], metrics[PATH_MAX], topo[PATH_MAX],
	    sysroot[PATH_MAX];
	struct sigaction sa;
	enum golden_active_outcome oc;
	long t0 = golden_child_now_ms();
	int c, rc = 2;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'c':
			o.config = optarg;
			break;
		case 'n':
			o.node = optarg;
			break;
		case 'a':
			o.max_age = parse_duration(optarg);
			if (o.max_age < 0) {
				cli_error("active run", "--max-age %s: expected N[smhd]", optarg);
				goto out;
			}
			break;
		case 'b':
			o.budget = atoi(optarg);
			if (o.budget < 10 || o.budget > 3600) {
				cli_error("active run", "--budget %s: expected 10-3600 seconds",
				          optarg);
				goto out;
			}
			break;
		case 's':
			if (strcmp(optarg, "job") && strcmp(optarg, "manual")) {
				cli_error("active run", "--source %s: expected job or manual",
				          optarg);
				goto out;
			}
			o.source = optarg;
			break;
		case 'j':
			o.json = true;
			break;
		case 'N':
			o.no_drain = true;
			break;
		case 'h':
			usage(stdout);
			rc = 0;
			goto out;
		default:
			cli_error("active run", "unknown option '%s' (see golden active --help)",
			          argv[optind - 1]);
			goto out;
		}
	}
	golden_nodename_get(o.node, node, sizeof(node));
	if (!conf || !rep || !res ||
	    golden_node_load_conf("golden active run", o.config, node, conf, NULL) < 0)
		goto out;
	if (!golden_is_safe_name(job ? job : "0", 32))
		job = NULL;
	if (golden_node_expand("golden active run", "state_dir", conf->state_dir, node, state,
	                       sizeof(state)) ||
	    golden_node_expand("golden active run", "log", conf->log_path, node, logp,
	                       sizeof(logp)) ||
	    golden_node_expand("golden active run", "metrics_dir", conf->metrics_dir, node, metrics,
	                       sizeof(metrics)) ||
	    golden_node_expand("golden active run", "topology", conf->topology, node, topo,
	                       sizeof(topo)) ||
	    golden_node_expand("golden active run", "sysroot", conf->sysroot, node, sysroot,
	                       sizeof(sysroot)))
		goto out;
	/* A preempting job's SIGTERM must end the run, not be retried around. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	{
		struct golden_active_run_opts ro = {conf,           node,     state,     logp,
		                                    metrics,        topo,     sysroot,   o.source,
		                                    job ? job : "", o.budget, o.max_age, &stop};

		oc = golden_active_run(&ro, rep);
	}
	if (oc == GOLDEN_ACTIVE_RUN_FAIL && !o.no_drain &&
	    drain_on_failure(conf, node, state, metrics, sysroot, rep,
	                     (int)(golden_child_now_ms() - t0), res) < 0)
		fprintf(stderr, "golden active run: cannot update the lifecycle ledger in %s\n",
		        state);
	if (o.json) {
		struct json_object *j = golden_active_report_to_json(rep);

		json_object_object_add(j, "outcome",
		                       json_object_new_string(golden_active_outcome_name(oc)));
		if (res->reason[0])
			json_object_object_add(j, "drain_reason",
			                       json_object_new_string(res->reason));
		if (res->drain[0])
			json_object_object_add(j, "drain", json_object_new_string(res->drain));
		printf("%s\n", json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY));
		json_object_put(j);
	} else {
		printf("active check on %s: %s%s%s\n", node, golden_active_outcome_name(oc),
		       rep->code[0] ? " " : "", rep->code);
		if (rep->detail[0])
			printf("  %s\n", rep->detail);
		if (res->reason[0])
			printf("reason: %s\nnode: %s\n", res->reason, res->drain);
		else if (oc == GOLDEN_ACTIVE_RUN_FAIL && o.no_drain)
			printf("node: not drained (--no-drain)\n");
	}
	switch (oc) {
	case GOLDEN_ACTIVE_RUN_FAIL:
		rc = 1;
		break;
	case GOLDEN_ACTIVE_RUN_ERROR:
		rc = 2;
		break;
	default:
		rc = 0;
		break;
	}
out:
	free(conf);
	free(rep);
	free(res);
	return rc;
}

/* --- submit ---------------------------------------------------------------- */

struct submit_opts {
	const char *config, *partition, *qos, *nodes, *golden;
	long long max_age;
	int minutes;
	bool dry_run, json;
};

/* Slurm's clients sit next to scontrol (golden.conf's `scontrol =`). */
static void tool(const struct golden_conf *conf, const char *name, char *buf, size_t len)
{
	const char *slash = strrchr(conf->scontrol, '/');

	snprintf(buf, len, "%.*s/%s", slash ? (int)(slash - conf->scontrol) : 0, conf->scontrol,
	         name);
}

/* What goes into the job's script and sbatch's argv: never anything a
 * shell would read differently. */
static bool plain(const char *s, const char *extra)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr(extra, *s))
			return false;
	return true;
}

struct node_state {
	char name[64];
	char state[32];
	bool queued; /* a golden-active job is already there */
};

static int list_nodes(const struct golden_conf *conf, const struct submit_opts *o,
                      struct node_state *nodes, int max)
{
	char sinfo[PATH_MAX], squeue[PATH_MAX], *out = malloc(1 << 20), *save = NULL;
	char *argv[12];
	int n = 0, a = 0;

	if (!out)
		return -1;
	tool(conf, "sinfo", sinfo, sizeof(sinfo));
	tool(conf, "squeue", squeue, sizeof(squeue));
	argv[a++] = sinfo;
	argv[a++] = "-h";
	argv[a++] = "-N";
	argv[a++] = "-p";
	argv[a++] = (char *)o->partition;
	argv[a++] = "-o";
	argv[a++] = "%N %T";
	if (o->nodes && strcmp(o->nodes, "idle")) {
		argv[a++] = "-n";
		argv[a++] = (char *)o->nodes;
	}
	argv[a] = NULL;
	if (golden_child_capture(argv, out, 1 << 20, CMD_TIMEOUT) != 0) {
		cli_error("active submit", "%s -p %s failed or timed out", sinfo, o->partition);
		free(out);
		return -1;
	}
	for (char *line = strtok_r(out, "\n", &save); line && n < max;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[64], st[32];

		if (sscanf(line, "%63s %31s", name, st) != 2 || !golden_is_safe_name(name, 63))
			continue;
		for (int i = 0; i < n; i++)
			if (!strcmp(nodes[i].name, name))
				goto next;
		golden_strlcpy(nodes[n].name, name, sizeof(nodes[n].name));
		golden_strlcpy(nodes[n].state, st, sizeof(nodes[n].state));
		nodes[n++].queued = false;
	next:;
	}
	/* golden-active jobs already pending or running, by node. */
	{
		char *qargv[] = {squeue, "-h",    "-n", "golden-active", "-t", "PD,CF,R,CG",
		                 "-o",   "%N %n", NULL};

		save = NULL;
		if (golden_child_capture(qargv, out, 1 << 20, CMD_TIMEOUT) == 0)
			for (char *line = strtok_r(out, "\n", &save); line;
			     line = strtok_r(NULL, "\n", &save))
				for (int i = 0; i < n; i++)
					if (golden_list_has(line, ' ', nodes[i].name))
						nodes[i].queued = true;
	}
	free(out);
	return n;
}

static int submit_one(const struct golden_conf *conf, const struct submit_opts *o, const char *node,
                      const char *config, char *job, size_t len)
{
	char sbatch[PATH_MAX], wrap[2 * PATH_MAX + 128], minutes[16], out[256];
	char *argv[32];
	int a = 0, rc;

	tool(conf, "sbatch", sbatch, sizeof(sbatch));
	snprintf(wrap, sizeof(wrap), "exec %s active run --source job --max-age %lld%s%s",
	         o->golden, o->max_age, config ? " --config " : "", config ? config : "");
	snprintf(minutes, sizeof(minutes), "%d", o->minutes);
	argv[a++] = sbatch;
	argv[a++] = "--parsable";
	argv[a++] = "--job-name=golden-active";
	argv[a++] = "-p";
	argv[a++] = (char *)o->partition;
	if (o->qos) {
		argv[a++] = "--qos";
		argv[a++] = (char *)o->qos;
	}
	argv[a++] = "-w";
	argv[a++] = (char *)node;
	argv[a++] = "-N";
	argv[a++] = "1";
	argv[a++] = "--exclusive";
	argv[a++] = "-t";
	argv[a++] = minutes;
	argv[a++] = "--output=/dev/null";
	argv[a++] = "--export=NONE";
	argv[a++] = "--wrap";
	argv[a++] = wrap;
	argv[a] = NULL;
	rc = golden_child_capture(argv, out, sizeof(out), CMD_TIMEOUT);
	out[strcspn(out, ";\n")] = '\0';
	if (rc != 0 || !out[0]) {
		snprintf(job, len, "sbatch failed (exit %d)", rc);
		return -1;
	}
	golden_strlcpy(job, out, len);
	return 0;
}

static int active_submit(int argc, char **argv)
{
	static const struct option lo[] = {{"config", required_argument, NULL, 'c'},
	                                   {"partition", required_argument, NULL, 'p'},
	                                   {"qos", required_argument, NULL, 'q'},
	                                   {"nodes", required_argument, NULL, 'w'},
	                                   {"max-age", required_argument, NULL, 'a'},
	                                   {"time", required_argument, NULL, 't'},
	                                   {"golden", required_argument, NULL, 'g'},
	                                   {"dry-run", no_argument, NULL, 'd'},
	                                   {"json", no_argument, NULL, 'j'},
	                                   {"help", no_argument, NULL, 'h'},
	                                   {NULL, 0, NULL, 0}};
	struct submit_opts o = {NULL, NULL, NULL, "idle", NULL, 86400, 0, false, false};
	struct golden_conf *conf = malloc(sizeof(*conf));
	struct node_state *nodes = calloc(MAX_NODES, sizeof(*nodes));
	struct golden_active_record *rec = malloc(sizeof(*rec));
	struct json_object *arr = json_object_new_array();
	char self[PATH_MAX], state[PATH_MAX], here[64];
	const char *config;
	long long now = (long long)time(NULL);
	int c, n, rc = 2, failed = 0;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'c':
			o.config = optarg;
			break;
		case 'p':
			o.partition = optarg;
			break;
		case 'q':
			o.qos = optarg;
			break;
		case 'w':
			o.nodes = optarg;
			break;
		case 'a':
			o.max_age = parse_duration(optarg);
			if (o.max_age < 0) {
				cli_error("active submit", "--max-age %s: expected N[smhd]",
				          optarg);
				goto out;
			}
			break;
		case 't':
			o.minutes = atoi(optarg);
			if (o.minutes < 1 || o.minutes > 1440) {
				cli_error("active submit", "--time %s: expected 1-1440 minutes",
				          optarg);
				goto out;
			}
			break;
		case 'g':
			o.golden = optarg;
			break;
		case 'd':
			o.dry_run = true;
			break;
		case 'j':
			o.json = true;
			break;
		case 'h':
			usage(stdout);
			rc = 0;
			goto out;
		default:
			cli_error("active submit", "unknown option '%s' (see golden active --help)",
			          argv[optind - 1]);
			goto out;
		}
	}
	golden_nodename_get(NULL, here, sizeof(here));
	if (!conf || !nodes || !rec ||
	    golden_node_load_conf("golden active submit", o.config, here, conf, NULL) < 0)
		goto out;
	if (!o.partition || !plain(o.partition, "_.-")) {
		cli_error("active submit",
		          "--partition %s: expected the preemptible partition's name (see README: "
		          "Active checks)",
		          o.partition ? o.partition : "missing");
		goto out;
	}
	if (o.qos && !plain(o.qos, "_.-")) {
		cli_error("active submit", "--qos %s: expected a QOS name", o.qos);
		goto out;
	}
	if (!plain(o.nodes, "_.-,[]")) {
		cli_error("active submit", "--nodes %s: expected idle or a node list like n[1-4]",
		          o.nodes);
		goto out;
	}
	if (!o.golden) {
		cli_self_path(self, sizeof(self));
		o.golden = self;
	}
	config = o.config ? o.config : getenv("GOLDEN_CONF");
	if (config && (!*config || !strcmp(config, DEFAULT_CONF)))
		config = NULL;
	if (o.golden[0] != '/' || !plain(o.golden, "/_.+-") ||
	    (config && (config[0] != '/' || !plain(config, "/_.+-")))) {
		cli_error("active submit",
		          "%s: the job's command line takes absolute paths of [A-Za-z0-9/_.+-] "
		          "only",
		          config && !plain(config, "/_.+-") ? config : o.golden);
		goto out;
	}
	if (!o.minutes) /* the budget, the program's slack, and time to record */
		o.minutes = (conf->active_budget_s + 15 + 59) / 60 + 2;
	n = list_nodes(conf, &o, nodes, MAX_NODES);
	if (n < 0)
		goto out;
	rc = 0;
	for (int i = 0; i < n; i++) {
		struct json_object *e = json_object_new_object();
		char why[160] = "", job[64] = "", age[32];
		const char *action = "skipped";

		if (strcmp(nodes[i].state, "idle")) {
			snprintf(why, sizeof(why), "not idle (%s)", nodes[i].state);
		} else if (nodes[i].queued) {
			snprintf(why, sizeof(why),
			         "a golden-active job is already queued or running");
		} else {
			if (golden_node_expand("golden active submit", "state_dir", conf->state_dir,
			                       nodes[i].name, state, sizeof(state)) ||
			    golden_active_record_load(state, rec) < 0)
				memset(rec, 0, sizeof(*rec));
			if (rec->last_pass && now - rec->last_pass < o.max_age) {
				cli_age(now - rec->last_pass, age, sizeof(age));
				snprintf(why, sizeof(why), "passed %s ago", age);
			} else if (o.dry_run) {
				action = "would submit";
			} else if (submit_one(conf, &o, nodes[i].name, config, job, sizeof(job)) ==
			           0) {
				action = "submitted";
			} else {
				action = "failed";
				snprintf(why, sizeof(why), "%s", job);
				job[0] = '\0';
				failed++;
			}
			if (!why[0]) {
				if (rec->last_pass) {
					cli_age(now - rec->last_pass, age, sizeof(age));
					snprintf(why, sizeof(why), "last pass %s ago", age);
				} else {
					snprintf(why, sizeof(why), "never passed");
				}
			}
		}
		json_object_object_add(e, "node", json_object_new_string(nodes[i].name));
		json_object_object_add(e, "action", json_object_new_string(action));
		if (job[0])
			json_object_object_add(e, "job", json_object_new_string(job));
		json_object_object_add(e, "why", json_object_new_string(why));
		json_object_array_add(arr, e);
		if (!o.json)
			printf("%s: %s%s%s (%s)\n", nodes[i].name, action, job[0] ? " job " : "",
			       job, why);
	}
	if (o.json) {
		/* An object, not the bare array: every document names itself. */
		struct json_object *doc = json_object_new_object();

		golden_json_stamp(doc, "golden-active-submit");
		json_object_object_add(doc, "nodes", json_object_get(arr));
		printf("%s\n", json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY));
		json_object_put(doc);
	}
	if (failed)
		rc = 1;
out:
	json_object_put(arr);
	free(conf);
	free(nodes);
	free(rec);
	return rc;
}

int cmd_active(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "run"))
		return active_run(argc - 1, argv + 1);
	if (!strcmp(argv[1], "submit"))
		return active_submit(argc - 1, argv + 1);
	cli_error("active", "unknown subcommand '%s'; expected run or submit", argv[1]);
	return 2;
}
