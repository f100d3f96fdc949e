/* golden teardown: run the plugin's task_exit teardown probe by hand, on the
 * caller's own step cgroup or on --cgroup DIR. Same code as the plugin. */
#include <config.h>

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cli.h"
#include "util/errbuf.h"
#include "stall/teardown.h"

static void usage(void)
{
	printf("Usage: golden teardown [--cgroup DIR] [--flush auto|always|off]\n"
	       "       [--threshold BYTES[K|M|G]] [--inodes N] [--deadline-ms N]\n"
	       "       [--sysroot DIR] [--record DIR --job ID --step NAME] [--json]\n"
	       "\n"
	       "Measure the dirty and writeback bytes (and, on cgroup v2 with debugfs, the\n"
	       "attached inodes) a memory cgroup holds, and above the threshold syncfs the\n"
	       "writable local block filesystems and Lustre mounts under a deadline, as the\n"
	       "SPANK plugin does before Slurm removes a step's cgroups. Without --cgroup:\n"
	       "the step cgroup of this process. Defaults: flush auto (only where memory\n"
	       "and io are on cgroup v2), threshold 256M, inodes 10000, deadline 5000 ms.\n");
}

static void print_text(const struct golden_teardown_result *r)
{
	printf("cgroup: %s (v%d)\n", r->cgroup[0] ? r->cgroup : "(none)", r->before.version);
	printf("exposure: %s (%s)\n", r->exposed ? "exposed" : "not exposed", r->exposure);
	printf("before: dirty %lld writeback %lld wb_inodes %lld\n", r->before.dirty,
	       r->before.writeback, r->before.inodes);
	printf("action: %s\n", r->action);
	if (!strncmp(r->action, "flush", 5))
		printf("after: dirty %lld writeback %lld (%d filesystems, %d ms)\n", r->after.dirty,
		       r->after.writeback, r->nmounts, r->flush_ms);
}

int cmd_teardown(int argc, char **argv)
{
	static const struct option opts[] = {{"cgroup", required_argument, NULL, 'c'},
	                                     {"flush", required_argument, NULL, 'f'},
	                                     {"threshold", required_argument, NULL, 't'},
	                                     {"inodes", required_argument, NULL, 'i'},
	                                     {"deadline-ms", required_argument, NULL, 'd'},
	                                     {"sysroot", required_argument, NULL, 's'},
	                                     {"record", required_argument, NULL, 'r'},
	                                     {"job", required_argument, NULL, 'j'},
	                                     {"step", required_argument, NULL, 'S'},
	                                     {"json", no_argument, NULL, 'J'},
	                                     {"help", no_argument, NULL, 'h'},
	                                     {NULL, 0, NULL, 0}};
	struct golden_teardown_opts o = GOLDEN_TEARDOWN_DEFAULTS;
	static struct golden_teardown_result r;
	const char *cgroup = NULL, *record = NULL, *job = NULL, *step = NULL;
	struct golden_err err = {{0}};
	bool json = false;
	int c, idx = 0;

	optind = 1;
	opterr = 0;
	o.sysroot = getenv("GOLDEN_SYSROOT");
	while ((c = getopt_long(argc, argv, "h", opts, &idx)) != -1) {
		switch (c) {
		case 'c':
			cgroup = optarg;
			break;
		case 'f':
		case 't':
		case 'i':
		case 'd':
			if (golden_teardown_opt_set(&o,
			                            c == 'f'   ? "flush"
			                            : c == 't' ? "threshold"
			                            : c == 'i' ? "inodes"
			                                       : "deadline_ms",
			                            optarg, &err) < 0) {
				cli_error("teardown", "--%s %s: %s", opts[idx].name, optarg,
				          err.msg);
				return 2;
			}
			break;
		case 's':
			o.sysroot = optarg;
			break;
		case 'r':
			record = optarg;
			break;
		case 'j':
			job = optarg;
			break;
		case 'S':
			step = optarg;
			break;
		case 'J':
			json = true;
			break;
		case 'h':
			usage();
			return 0;
		default:
			cli_error("teardown", "unknown option '%s' (see 'golden teardown --help')",
			          argv[optind - 1]);
			return 2;
		}
	}
	if (o.sysroot && !*o.sysroot)
		o.sysroot = NULL;
	if (record && (!job || !step)) {
		cli_error("teardown", "--record needs --job and --step");
		return 2;
	}
	golden_teardown_probe(cgroup, &o, &r);
	if (record) {
		if (golden_teardown_record(record, job, step, &r, &err) < 0) {
			cli_error("teardown", "%s", err.msg);
			return 1;
		}
	}
	if (json) {
		struct json_object *j = golden_teardown_to_json(&r);

		printf("%s\n", json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY));
		json_object_put(j);
	} else {
		print_text(&r);
	}
	return !strcmp(r.action, "no-cgroup") || !strcmp(r.action, "flush-timeout") ||
	               !strcmp(r.action, "flush-failed")
	           ? 1
	           : 0;
}
