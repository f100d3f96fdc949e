/* golden: show what slurm-golden would do on this node. */
#include <config.h>

#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "node/node_main.h"
#include "util/strutil.h"

#ifndef GOLDEN_RECIPEDIR
#define GOLDEN_RECIPEDIR "/usr/local/share/slurm-golden/recipes"
#endif

/* The recipes a plain `golden` uses: the installed ones, except for the very
 * binary `make` built in the build tree (not installed yet, so the installed
 * directory may be missing or hold another version's recipes), which uses
 * its source tree's. Decided by this process's own executable path, never
 * by anything a caller sets. */
static const char *default_recipes(void)
{
#if defined(GOLDEN_BUILD_EXE) && defined(GOLDEN_SRC_RECIPEDIR)
	static char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n > 0) {
		self[n] = '\0';
		if (!strcmp(self, GOLDEN_BUILD_EXE))
			return GOLDEN_SRC_RECIPEDIR;
	}
#endif
	return GOLDEN_RECIPEDIR;
}

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "Usage: golden COMMAND [OPTIONS]\n"
	    "\n"
	    "Commands:\n"
	    "  env      print the golden NCCL environment the SPANK plugin would inject here\n"
	    "  topo     print GPUs, NICs (class, locality), NUMA nodes and GPU->NIC map\n"
	    "  recipe   lint, list or explain recipes\n"
	    "  check    run the health checks (--kernel: teardown-stall exposure report)\n"
	    "  teardown measure/flush a cgroup's dirty inodes as the plugin does at task exit\n"
	    "  status   this node's health, golden's drain and what it waits for, history\n"
	    "  active   run golden-active here (run), or submit it to idle nodes (submit)\n"
	    "  nccl-topo print an NCCL_TOPO_FILE generated from a GPU-NIC pairing description\n"
	    "  topology gather node facts, build topology.conf/topology.yaml for Slurm from\n"
	    "           the fabric and NVLink domains, check what the controller uses\n"
	    "  sweep    judge nccl-tests sweeps (dips, scaling, A/B), run them through Slurm, "
	    "plot\n"
	    "  report   the fleet's reliability from Slurm's accounting (sacctmgr show event)\n"
	    "  drill    inject a GPU fault line (or stage a rail down, a hung mount) here and\n"
	    "           time detect, drain and return\n"
	    "\n"
	    "Options of env, topo, recipe and check:\n"
	    "  --topology FILE  hwloc XML instead of the live topology   (env GOLDEN_TOPOLOGY)\n"
	    "  --sysroot DIR    read /sys and /proc below DIR            (env GOLDEN_SYSROOT)\n"
	    "Options of env and recipe:\n"
	    "  --recipes DIR    recipe directory [%s] (env GOLDEN_RECIPES)\n"
	    "\n"
	    "Run 'golden COMMAND --help' for the options of a command.\n"
	    "Exit status: 0 ok, 1 nothing to set / problems found, 2 usage error.\n",
	    default_recipes());
}

void cli_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "golden %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int cli_self_path(char *buf, size_t len)
{
	ssize_t n = len ? readlink("/proc/self/exe", buf, len - 1) : -1;

	if (n <= 0) {
		if (len)
			buf[0] = '\0';
		return -1;
	}
	buf[n] = '\0';
	return 0;
}

int cli_int(const char *cmd, const char *name, const char *v, int lo, int hi, const char *what,
            int *out)
{
	if (golden_parse_int(v, lo, hi, out) < 0) {
		if (what)
			cli_error(cmd, "--%s %s: expected %s", name, v, what);
		else
			cli_error(cmd, "--%s %s: expected a whole number %d-%d", name, v, lo, hi);
		return -1;
	}
	return 0;
}

void cli_diag(void *arg, const char *msg)
{
	fprintf(stderr, "golden %s: warning: %s\n", (const char *)arg, msg);
}

void cli_age(long long s, char *buf, size_t len)
{
	if (s < 120)
		snprintf(buf, len, "%llds", s);
	else if (s < 7200)
		snprintf(buf, len, "%lldm", s / 60);
	else if (s < 172800)
		snprintf(buf, len, "%lldh%02lldm", s / 3600, s % 3600 / 60);
	else
		snprintf(buf, len, "%lldd", s / 86400);
}

static const struct option long_opts[] = {
    {"topology", required_argument, NULL, 't'}, {"sysroot", required_argument, NULL, 's'},
    {"recipes", required_argument, NULL, 'r'},  {"recipe", required_argument, NULL, 'R'},
    {"format", required_argument, NULL, 'f'},   {"node", required_argument, NULL, 'n'},
    {"cache", required_argument, NULL, 'c'},    {"no-cache", no_argument, NULL, 'N'},
    {"help", no_argument, NULL, 'h'},           {NULL, 0, NULL, 0}};

static bool allowed_opt(const char *allowed, const char *name)
{
	return golden_list_has(allowed, ' ', name);
}

int cli_parse(int argc, char **argv, const char *cmd, const char *allowed, struct cli_opts *o,
              void (*cmd_usage)(void))
{
	int c, idx;

	memset(o, 0, sizeof(*o));
	o->topology = getenv("GOLDEN_TOPOLOGY");
	o->sysroot = getenv("GOLDEN_SYSROOT");
	o->recipes = getenv("GOLDEN_RECIPES");
	if (!o->recipes || !*o->recipes)
		o->recipes = default_recipes();
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", long_opts, &idx)) != -1) {
		if (c == 'h') {
			cmd_usage();
			exit(0);
		}
		if (c == '?') {
			cli_error(cmd, "unknown option '%s' (see 'golden %s --help')",
			          argv[optind - 1], cmd);
			return -1;
		}
		if (!allowed_opt(allowed, long_opts[idx].name)) {
			cli_error(cmd, "option --%s does not apply to '%s'", long_opts[idx].name,
			          cmd);
			return -1;
		}
		switch (c) {
		case 't':
			o->topology = optarg;
			break;
		case 's':
			o->sysroot = optarg;
			break;
		case 'r':
			o->recipes = optarg;
			break;
		case 'R':
			o->recipe = optarg;
			break;
		case 'f':
			o->format = optarg;
			break;
		case 'n':
			o->node = optarg;
			break;
		case 'c':
			o->cache = optarg;
			break;
		case 'N':
			o->no_cache = true;
			break;
		}
	}
	if (o->topology && !*o->topology)
		o->topology = NULL;
	if (o->sysroot && !*o->sysroot)
		o->sysroot = NULL;
	return optind;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("golden (slurm-golden) %s\n", PACKAGE_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "env"))
		return cmd_env(argc - 1, argv + 1);
	if (!strcmp(argv[1], "topo"))
		return cmd_topo(argc - 1, argv + 1);
	if (!strcmp(argv[1], "recipe"))
		return cmd_recipe(argc - 1, argv + 1);
	if (!strcmp(argv[1], "teardown"))
		return cmd_teardown(argc - 1, argv + 1);
	if (!strcmp(argv[1], "status"))
		return cmd_status(argc - 1, argv + 1);
	if (!strcmp(argv[1], "nccl-topo"))
		return cmd_ncclxml(argc - 1, argv + 1);
	if (!strcmp(argv[1], "topology"))
		return cmd_topology(argc - 1, argv + 1);
	if (!strcmp(argv[1], "active"))
		return cmd_active(argc - 1, argv + 1);
	if (!strcmp(argv[1], "sweep"))
		return cmd_sweep(argc - 1, argv + 1);
	if (!strcmp(argv[1], "report"))
		return cmd_report(argc - 1, argv + 1);
	if (!strcmp(argv[1], "drill"))
		return cmd_drill(argc - 1, argv + 1);
	if (!strcmp(argv[1], "check")) {
		argv[1] = "golden check";
		return golden_node_main(GOLDEN_PHASE_MANUAL, argc - 1, argv + 1);
	}
	fprintf(stderr,
	        "golden: unknown command '%s'; expected env, topo, recipe, check, teardown, "
	        "status, nccl-topo, topology, active, sweep, report or drill (see golden --help)\n",
	        argv[1]);
	return 2;
}
