/* golden drill run|report: the fire drill of lib/node/drill.h on this node,
 * and the drills this node has run, judged against golden.conf's targets. */
#include <config.h>

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cli/cli.h"
#include "fleet/fleet_out.h"
#include "node/drill.h"
#include "node/drill_record.h"
#include "node/node_main.h"
#include "util/jsonschema.h"
#include "util/nodename.h"

static void usage(void)
{
	printf("Usage: golden drill run [--node NAME] [--xid N] [--gpu I]\n"
	       "                        [--fault rail-down|mount-hang] [--rail DEV]\n"
	       "                        [--return auto|manual] [--validate-now] [--no-probe]\n"
	       "                        [--allow-busy] [--timeout SECS] [--config FILE]\n"
	       "       golden drill report [--node NAME] [--json] [--config FILE]\n"
	       "\n"
	       "run (as root, on the node): write into the kernel log the line NVIDIA's driver\n"
	       "prints for XID N (default 79, fallen off the bus) on GPU I (default 0) of this\n"
	       "node, then observe golden's production path: time to detect (golden decided),\n"
	       "time to drain (Slurm shows DRAIN, polled with scontrol every 20 ms), whether a\n"
	       "running job was left running (--allow-busy), whether a new job is kept off\n"
	       "the node (an srun --immediate probe; --no-probe skips it), and with --return\n"
	       "auto the time until golden resumed it: the drill's own fault then ends at the\n"
	       "node's next passing health check, without the reboot or GPU reset a real one\n"
	       "needs (--validate-now runs that health check at once instead of waiting for\n"
	       "HealthCheckInterval). --return manual (default) leaves the node drained.\n"
	       "\n"
	       "--fault rail-down: a compute rail's port (--rail DEV, default the first one up)\n"
	       "reads DOWN in the node's sysroot (golden.conf sysroot; on the real /sys it is\n"
	       "refused: use ibportstate). --fault mount-hang: a filesystem whose statfs never\n"
	       "answers is mounted on golden.conf drill_mount, an empty directory the mounts\n"
	       "check watches while something is mounted there. The health check detects both\n"
	       "(--validate-now runs it as soon as the fault is staged); the drill takes its\n"
	       "fault away after the drain, and the next passing health check returns the node.\n"
	       "A drain the blast-radius guard held back is reported as suppressed by guard.\n"
	       "Refused, with nothing injected: a node drained, down or running a job, golden\n"
	       "holding a drain, another drill running, an XID golden does not drain for.\n"
	       "\n"
	       "report: every drill of the node with its three times and its verdict against\n"
	       "golden.conf drill_detect_ms, drill_drain_ms and drill_return_s; a drill whose\n"
	       "node never drained is a FAILED DRILL. Exit 1 when any drill failed.\n"
	       "\n"
	       "Exit status: 0 the drill passed / no failed drill, 1 it failed or was\n"
	       "refused, 2 usage or configuration error.\n");
}

struct drill_cli {
	const char *node, *config, *ret, *rail;
	int xid, gpu, timeout;
	enum golden_drill_kind fault;
	bool json, validate_now, probe, allow_busy, gpu_fault; /* --xid or --gpu given */
};

static int parse(int argc, char **argv, struct drill_cli *o)
{
	static const struct option lo[] = {
	    {"node", required_argument, NULL, 'n'},    {"xid", required_argument, NULL, 'x'},
	    {"gpu", required_argument, NULL, 'g'},     {"return", required_argument, NULL, 'r'},
	    {"timeout", required_argument, NULL, 't'}, {"config", required_argument, NULL, 'c'},
	    {"validate-now", no_argument, NULL, 'V'},  {"no-probe", no_argument, NULL, 'P'},
	    {"allow-busy", no_argument, NULL, 'B'},    {"json", no_argument, NULL, 'j'},
	    {"fault", required_argument, NULL, 'f'},   {"rail", required_argument, NULL, 'R'},
	    {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0}};
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'n':
			o->node = optarg;
			break;
		case 'x':
			if (cli_int("drill", "xid", optarg, 0, 999,
			            "an XID number (79, 48, 95, ...)", &o->xid) < 0)
				return -1;
			o->gpu_fault = true;
			break;
		case 'g':
			if (cli_int("drill", "gpu", optarg, 0, 63, "a GPU index 0-63", &o->gpu) < 0)
				return -1;
			o->gpu_fault = true;
			break;
		case 'f':
			if (!strcmp(optarg, "rail-down")) {
				o->fault = GOLDEN_DRILL_RAIL;
			} else if (!strcmp(optarg, "mount-hang")) {
				o->fault = GOLDEN_DRILL_MOUNT;
			} else {
				cli_error("drill", "--fault %s: expected rail-down or mount-hang",
				          optarg);
				return -1;
			}
			break;
		case 'R':
			o->rail = optarg;
			break;
		case 't':
			if (cli_int("drill", "timeout", optarg, 5, 86400, "5-86400 seconds",
			            &o->timeout) < 0)
				return -1;
			break;
		case 'r':
			if (strcmp(optarg, "auto") && strcmp(optarg, "manual")) {
				cli_error("drill", "--return %s: expected auto or manual", optarg);
				return -1;
			}
			o->ret = optarg;
			break;
		case 'c':
			o->config = optarg;
			break;
		case 'V':
			o->validate_now = true;
			break;
		case 'P':
			o->probe = false;
			break;
		case 'B':
			o->allow_busy = true;
			break;
		case 'j':
			o->json = true;
			break;
		case 'h':
			usage();
			return 1;
		default:
			cli_error("drill", "unknown option '%s' (see golden drill --help)",
			          argv[optind - 1]);
			return -1;
		}
	}
	if (o->fault != GOLDEN_DRILL_XID && o->gpu_fault) {
		cli_error("drill", "--fault %s with --xid/--gpu: one fault per drill",
		          golden_drill_kind_name(o->fault));
		return -1;
	}
	if (o->rail && o->fault != GOLDEN_DRILL_RAIL) {
		cli_error("drill", "--rail is for --fault rail-down");
		return -1;
	}
	return 0;
}

static void ms_text(long long ms, char *buf, size_t len)
{
	if (ms < 0)
		snprintf(buf, len, "-");
	else if (ms < 10000)
		snprintf(buf, len, "%lld ms", ms);
	else
		snprintf(buf, len, "%.1f s", ms / 1000.0);
}

static void print_drill(const struct golden_drill *d)
{
	char a[24], b[24], c[24];

	ms_text(golden_drill_detect_ms(d), a, sizeof(a));
	ms_text(golden_drill_drain_ms(d), b, sizeof(b));
	ms_text(golden_drill_return_ms(d), c, sizeof(c));
	printf("%-26s %-32.32s %9s %9s %9s  %s%s\n", d->id, d->what, a, b,
	       d->return_auto ? c : "manual",
	       d->state == GOLDEN_DRILL_RUNNING ? "running"
	       : d->passed                      ? "pass"
	                                        : "FAIL: ",
	       d->state == GOLDEN_DRILL_RUNNING || d->passed ? "" : d->verdict);
}

static int report(const struct golden_conf *conf, const char *node, const char *state, bool json)
{
	struct golden_drills *ds = malloc(sizeof(*ds));
	int failed = 0, rc = 2;

	if (!ds)
		return 2;
	if (golden_drills_load(state, ds) < 0) {
		cli_error("drill", "%s/%s: unreadable", state, GOLDEN_DRILLS);
		goto out;
	}
	golden_drills_running(ds); /* marks the abandoned ones */
	for (int i = 0; i < ds->n; i++)
		if (ds->d[i].state != GOLDEN_DRILL_RUNNING && !ds->d[i].passed)
			failed++;
	if (json) {
		struct json_object *o = json_object_new_object(), *a = json_object_new_array(),
		                   *t = json_object_new_object();

		golden_json_stamp(o, "golden-drill-report");
		json_object_object_add(o, "node", json_object_new_string(node));
		json_object_object_add(t, "detect_ms",
		                       json_object_new_int(conf->fleet.drill_detect_ms));
		json_object_object_add(t, "drain_ms",
		                       json_object_new_int(conf->fleet.drill_drain_ms));
		json_object_object_add(t, "return_s",
		                       json_object_new_int(conf->fleet.drill_return_s));
		json_object_object_add(o, "targets", t);
		for (int i = 0; i < ds->n; i++)
			json_object_array_add(a, golden_fleet_drill_json(&ds->d[i]));
		json_object_object_add(o, "drills", a);
		json_object_object_add(o, "failed", json_object_new_int(failed));
		printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY));
		json_object_put(o);
	} else {
		printf("drills on %s (targets: detect <= %d ms, drain <= %d ms, return <= %d s; "
		       "golden.conf drill_*)\n",
		       node, conf->fleet.drill_detect_ms, conf->fleet.drill_drain_ms,
		       conf->fleet.drill_return_s);
		if (!ds->n)
			printf("  none yet: golden drill run\n");
		else
			printf("%-26s %-32s %9s %9s %9s  %s\n", "ID", "WHAT", "DETECT", "DRAIN",
			       "RETURN", "VERDICT");
		for (int i = 0; i < ds->n; i++)
			print_drill(&ds->d[i]);
		for (int i = 0; i < ds->n; i++) {
			const struct golden_drill *d = &ds->d[i];

			if (d->state != GOLDEN_DRILL_DONE || d->drained_ms)
				continue;
			if (d->guard[0])
				printf(
				    "SUPPRESSED BY GUARD %s: %s did not drain for the staged fault "
				    "(%s): the blast-radius guard held the drain back: %s\n",
				    d->id, node, d->what, d->guard);
			else
				printf("FAILED DRILL %s: %s never drained after the injected fault "
				       "(%s): jobs would have kept landing on a broken %s\n",
				       d->id, node, d->what,
				       d->kind == GOLDEN_DRILL_XID ? "GPU" : "node");
		}
	}
	rc = failed ? 1 : 0;
out:
	free(ds);
	return rc;
}

int cmd_drill(int argc, char **argv)
{
	struct drill_cli o = {.ret = "manual", .xid = 79, .fault = GOLDEN_DRILL_XID, .probe = true};
	struct golden_conf *conf = malloc(sizeof(*conf));
	struct golden_drill d;
	struct golden_err err = {{0}};
	char node[64], state[PATH_MAX], topo[PATH_MAX], sysroot[PATH_MAX], self[PATH_MAX] = "";
	const char *sub = argc > 1 ? argv[1] : "";
	int rc = 2, p;

	if (!conf)
		return 2;
	if (!strcmp(sub, "--help") || !strcmp(sub, "-h")) {
		usage();
		rc = 0;
		goto out;
	}
	if (strcmp(sub, "run") && strcmp(sub, "report")) {
		cli_error("drill", "expected run or report (see golden drill --help)");
		goto out;
	}
	p = parse(argc - 1, argv + 1, &o);
	if (p != 0) {
		rc = p > 0 ? 0 : 2;
		goto out;
	}
	golden_nodename_get(o.node, node, sizeof(node));
	if (golden_node_load_conf("golden drill", o.config, node, conf, NULL) < 0 ||
	    golden_node_expand("golden drill", "state_dir", conf->state_dir, node, state,
	                       sizeof(state)) ||
	    golden_node_expand("golden drill", "topology", conf->topology, node, topo,
	                       sizeof(topo)) ||
	    golden_node_expand("golden drill", "sysroot", conf->sysroot, node, sysroot,
	                       sizeof(sysroot)))
		goto out;
	if (!strcmp(sub, "report")) {
		rc = report(conf, node, state, o.json);
		goto out;
	}
	cli_self_path(self, sizeof(self));
	{
		struct golden_drill_opts dopts = {.conf = conf,
		                                  .node = node,
		                                  .state_dir = state,
		                                  .topology = topo,
		                                  .sysroot = sysroot,
		                                  .golden = self,
		                                  .config = o.config,
		                                  .fault = o.fault,
		                                  .rail = o.rail,
		                                  .xid = o.xid,
		                                  .gpu = o.gpu,
		                                  .return_auto = !strcmp(o.ret, "auto"),
		                                  .allow_busy = o.allow_busy,
		                                  .validate_now = o.validate_now,
		                                  .probe = o.probe,
		                                  .timeout_s = o.timeout,
		                                  .progress = stdout};

		switch (golden_drill_run(&dopts, &d, &err)) {
		case 1:
			cli_error("drill", "not run: %s", err.msg);
			rc = 1;
			goto out;
		case -1:
			cli_error("drill", "%s", err.msg);
			rc = 1;
			goto out;
		default:
			break;
		}
	}
	if (d.passed) {
		printf("drill %s: pass\n", d.id);
		rc = 0;
	} else {
		printf("%sdrill %s: FAIL: %s\n",
		       d.drained_ms ? ""
		       : d.guard[0] ? "SUPPRESSED BY GUARD: "
		                    : "FAILED DRILL: ",
		       d.id, d.verdict);
		rc = 1;
	}
out:
	free(conf);
	return rc;
}
