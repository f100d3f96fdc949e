/* golden report: the fleet's reliability from Slurm's accounting. Node
 * events come from slurmdbd (`sacctmgr show event`, one read-only query
 * under a deadline) or a file of them; drills from each node's drill
 * records where this host can read them (state_dir with %n). */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cli.h"
#include "fleet/event.h"
#include "fleet/fleet.h"
#include "fleet/fleet_out.h"
#include "fleet/plot.h"
#include "health/golden_conf.h"
#include "node/drill_record.h"
#include "node/node_main.h"
#include "util/child.h"
#include "util/hostlist.h"
#include "util/nodename.h"
#include "util/strutil.h"

#define SACCTMGR_DEADLINE_MS 60000
#define EVENTS_MAX           (64 << 20) /* bytes of sacctmgr output we take */
#define DEFAULT_DAYS         7

struct report_opts {
	const char *config, *since, *until, *nodes, *format, *plot, *events, *cluster;
};

static void usage(void)
{
	printf("Usage: golden report [--since DATE] [--until DATE] [--nodes HOSTLIST]\n"
	       "                     [--format text|json|csv] [--plot FILE.svg|FILE.png]\n"
	       "                     [--events FILE] [--cluster NAME] [--config FILE]\n"
	       "\n"
	       "The fleet's reliability from Slurm's own records of node state changes\n"
	       "(slurmdbd: sacctmgr show event) and golden's drill records: drains by owner\n"
	       "(golden by its [golden] marker, admin, Slurm, other tools), golden's drains by\n"
	       "class and check, downtime and availability (golden.conf report_downtime,\n"
	       "report_count_reason, report_ignore_reason), mean and p90 time to return,\n"
	       "repeat offenders (report_repeat) and drills with their times.\n"
	       "DATE: YYYY-MM-DD[THH:MM[:SS]] (local time), @EPOCH, now, or Nd / Nh ago\n"
	       "(default: the last %d days up to now). --events FILE reads the output of\n"
	       "  SLURM_TIME_FORMAT=%%s sacctmgr -n -P show event event=node \\\n"
	       "    format=nodename,start,end,state,user,reason\n"
	       "instead of asking slurmdbd. The fleet is --nodes, else every node sinfo\n"
	       "lists, else the nodes the events name. sacctmgr and sinfo are taken from the\n"
	       "directory of golden.conf's scontrol.\n"
	       "Exit status: 0 report printed, 2 usage, configuration or query error.\n",
	       DEFAULT_DAYS);
}

/* DATE as in usage(); now is "now". Returns 0, or -1. */
static int parse_date(const char *s, long long now, long long *out)
{
	char *end;
	long long n;

	if (!strcmp(s, "now")) {
		*out = now;
		return 0;
	}
	if (s[0] == '@') {
		errno = 0;
		n = strtoll(s + 1, &end, 10);
		if (errno || end == s + 1 || *end || n < 0)
			return -1;
		*out = n;
		return 0;
	}
	errno = 0;
	n = strtoll(s[0] == '-' ? s + 1 : s, &end, 10);
	if (!errno && end != s && n >= 0 && (!strcmp(end, "d") || !strcmp(end, "h"))) {
		*out = now - n * (end[0] == 'd' ? 86400 : 3600);
		return 0;
	}
	return golden_event_time(s, out) == 0 && *out > 0 ? 0 : -1;
}

/* A program next to scontrol (sacctmgr, sinfo). */
static void sibling(const char *scontrol, const char *name, char *buf, size_t len)
{
	char dir[PATH_MAX];

	golden_strlcpy(dir, scontrol, sizeof(dir));
	snprintf(buf, len, "%s/%s", dirname(dir), name);
}

static char *read_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	char *buf;
	ssize_t n;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > EVENTS_MAX) {
		close(fd);
		errno = EFBIG;
		return NULL;
	}
	buf = malloc((size_t)st.st_size + 1);
	n = buf ? read(fd, buf, (size_t)st.st_size) : -1;
	close(fd);
	if (n < 0) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	return buf;
}

static const char *iso(long long t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	localtime_r(&tt, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	return buf;
}

/* Ask slurmdbd: one read-only query under a deadline. */
static char *query_events(const char *scontrol, long long since, long long until)
{
	char sacctmgr[PATH_MAX], start[64], end[64], a[40], b[40];
	char *argv[] = {sacctmgr, "-n",    "-P",
	                "show",   "event", "event=node",
	                start,    end,     "format=nodename,start,end,state,user,reason",
	                NULL};
	char *out = malloc(EVENTS_MAX);
	int rc;

	if (!out)
		return NULL;
	sibling(scontrol, "sacctmgr", sacctmgr, sizeof(sacctmgr));
	snprintf(start, sizeof(start), "start=%s", iso(since, a, sizeof(a)));
	snprintf(end, sizeof(end), "end=%s", iso(until, b, sizeof(b)));
	/* Epoch seconds: no time-zone or locale guessing on the way back. */
	setenv("SLURM_TIME_FORMAT", "%s", 1);
	rc = golden_child_capture(argv, out, EVENTS_MAX, SACCTMGR_DEADLINE_MS);
	if (rc != 0) {
		cli_error("report",
		          "%s show event failed (%s): is slurmdbd running and "
		          "AccountingStorageType=accounting_storage/slurmdbd set? (--events FILE "
		          "reads saved events instead)",
		          sacctmgr, rc < 0 ? "no answer within 60 s" : "non-zero exit");
		free(out);
		return NULL;
	}
	if (strlen(out) >= EVENTS_MAX - 1) {
		cli_error("report", "more than %d MiB of events: narrow --since/--until",
		          EVENTS_MAX >> 20);
		free(out);
		return NULL;
	}
	return out;
}

/* Every node sinfo lists (one read-only query), those filter names. 0, or
 * -1 if the query failed. */
static int fleet_from_sinfo(const char *scontrol, const char *filter, struct golden_hostlist *ns)
{
	char sinfo[PATH_MAX], *out = malloc(4 << 20), *save = NULL;
	char *argv[] = {sinfo, "-h", "-N", "-o", "%N", NULL};
	int rc;

	if (!out)
		return -1;
	sibling(scontrol, "sinfo", sinfo, sizeof(sinfo));
	rc = golden_child_capture(argv, out, 4 << 20, 30000);
	if (rc != 0) {
		free(out);
		return -1;
	}
	for (char *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		golden_rtrim(l);
		if (!golden_is_safe_name(l, 63) || (filter && !golden_hostlist_match(filter, l)))
			continue;
		if (golden_hostlist_add(ns, l) < 0) {
			free(out);
			return -1;
		}
	}
	free(out);
	return 0;
}

/* The drills of every node of the fleet whose state directory this host
 * can read (all of them on a test host; none on a head node). */
static struct golden_drill *load_drills(const struct golden_conf *conf,
                                        const struct golden_hostlist *ns, size_t *n)
{
	struct golden_drills *ds = malloc(sizeof(*ds));
	struct golden_drill *all = NULL;
	size_t cap = 0;

	*n = 0;
	for (size_t i = 0; ds && i < ns->n; i++) {
		char dir[PATH_MAX];
		struct golden_err err = {{0}};

		if (golden_nodename_expand(conf->state_dir, ns->names[i], dir, sizeof(dir), &err) <
		        0 ||
		    golden_drills_load(dir, ds) < 0)
			continue;
		for (int k = 0; k < ds->n; k++) {
			if (*n == cap) {
				struct golden_drill *v;

				cap = cap ? cap * 2 : 16;
				v = realloc(all, cap * sizeof(*v));
				if (!v)
					break;
				all = v;
			}
			/* The record's node must be the directory's. */
			if (!strcmp(ds->d[k].node, ns->names[i]))
				all[(*n)++] = ds->d[k];
		}
	}
	free(ds);
	return all;
}

static int parse_opts(int argc, char **argv, struct report_opts *o)
{
	static const struct option longopts[] = {
	    {"config", required_argument, NULL, 'c'}, {"since", required_argument, NULL, 's'},
	    {"until", required_argument, NULL, 'u'},  {"nodes", required_argument, NULL, 'n'},
	    {"format", required_argument, NULL, 'f'}, {"plot", required_argument, NULL, 'p'},
	    {"events", required_argument, NULL, 'e'}, {"cluster", required_argument, NULL, 'C'},
	    {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0}};
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			o->config = optarg;
			break;
		case 's':
			o->since = optarg;
			break;
		case 'u':
			o->until = optarg;
			break;
		case 'n':
			o->nodes = optarg;
			break;
		case 'f':
			o->format = optarg;
			break;
		case 'p':
			o->plot = optarg;
			break;
		case 'e':
			o->events = optarg;
			break;
		case 'C':
			o->cluster = optarg;
			break;
		case 'h':
			usage();
			exit(0);
		default:
			cli_error("report", "unknown option '%s' (see --help)", argv[optind - 1]);
			return -1;
		}
	}
	if (optind < argc) {
		cli_error("report", "unexpected argument '%s'", argv[optind]);
		return -1;
	}
	if (strcmp(o->format, "text") && strcmp(o->format, "json") && strcmp(o->format, "csv")) {
		cli_error("report", "--format %s: expected text, json or csv", o->format);
		return -1;
	}
	if (o->cluster && !golden_is_safe_name(o->cluster, 63)) {
		cli_error("report", "--cluster %s: expected a Slurm cluster name", o->cluster);
		return -1;
	}
	return 0;
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o = {NULL, NULL, NULL, NULL, "text", NULL, NULL, NULL};
	struct golden_conf *conf = malloc(sizeof(*conf));
	struct golden_events evs = {0};
	struct golden_fleet_report rep;
	struct golden_err err = {{0}};
	struct golden_hostlist fleet = {0};
	struct golden_drill *drills = NULL;
	size_t ndrills = 0;
	long long now = (long long)time(NULL), since, until;
	char *text = NULL;
	int rc = 2;

	memset(&rep, 0, sizeof(rep));
	if (!conf || parse_opts(argc, argv, &o) < 0 ||
	    golden_node_load_conf("golden report", o.config, NULL, conf, NULL) < 0)
		goto out;
	if (o.until ? parse_date(o.until, now, &until) < 0 : (until = now, 0)) {
		cli_error("report",
		          "--until %s: expected YYYY-MM-DD[THH:MM[:SS]], @EPOCH, now, "
		          "or Nd/Nh ago",
		          o.until);
		goto out;
	}
	if (o.since ? parse_date(o.since, now, &since) < 0
	            : (since = until - DEFAULT_DAYS * 86400LL, 0)) {
		cli_error("report",
		          "--since %s: expected YYYY-MM-DD[THH:MM[:SS]], @EPOCH, now, "
		          "or Nd/Nh ago",
		          o.since);
		goto out;
	}
	if (since >= until) {
		cli_error("report", "--since must be before --until");
		goto out;
	}
	if (o.nodes && golden_hostlist_check(o.nodes, &err) < 0) {
		cli_error("report", "--nodes %s: %s", o.nodes, err.msg);
		goto out;
	}
	text = o.events ? read_file(o.events) : query_events(conf->scontrol, since, until);
	if (!text) {
		if (o.events)
			cli_error("report", "--events %s: %s", o.events, strerror(errno));
		goto out;
	}
	if (golden_events_parse(text, &evs, &err) < 0) {
		cli_error("report", "%s", err.msg);
		goto out;
	}
	/* The fleet: --nodes; else the nodes sinfo lists when asking slurmdbd;
	 * else the nodes the events name. */
	if (o.nodes) {
		if (golden_hostlist_expand(o.nodes, &fleet, &err) < 0) {
			cli_error("report", "--nodes: %s", err.msg);
			goto out;
		}
	} else if (!o.events && fleet_from_sinfo(conf->scontrol, NULL, &fleet) < 0) {
		golden_hostlist_free(&fleet);
		memset(&fleet, 0, sizeof(fleet));
	}
	if (!fleet.n) {
		golden_hostlist_free(&fleet);
		memset(&fleet, 0, sizeof(fleet));
		for (size_t i = 0; i < evs.n; i++)
			if ((!o.nodes || golden_hostlist_match(o.nodes, evs.ev[i].node)) &&
			    golden_hostlist_add(&fleet, evs.ev[i].node) < 0)
				goto out;
	}
	drills = load_drills(conf, &fleet, &ndrills);
	{
		struct golden_fleet_input in = {
		    since,   until, &conf->fleet, (const char *const *)fleet.names,
		    fleet.n, &evs,  drills,       ndrills};

		if (golden_fleet_compute(&in, &rep, &err) < 0) {
			cli_error("report", "%s", err.msg);
			goto out;
		}
	}
	if (!strcmp(o.format, "json")) {
		struct json_object *j = golden_fleet_json(&rep, o.cluster ? o.cluster : "");

		json_object_object_add(j, "events_malformed",
		                       json_object_new_int64((int64_t)evs.malformed));
		printf("%s\n", json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY));
		json_object_put(j);
	} else if (!strcmp(o.format, "csv")) {
		golden_fleet_print_csv(&rep, stdout);
	} else {
		golden_fleet_print_text(&rep, o.cluster ? o.cluster : "", stdout);
	}
	rc = 0;
	if (o.plot) {
		char title[160];

		snprintf(title, sizeof(title), "golden report%s%s: %zu nodes", o.cluster ? " " : "",
		         o.cluster ? o.cluster : "", rep.nnodes);
		if (golden_fleet_plot(&rep, o.plot, title, NULL, &err) < 0) {
			cli_error("report", "--plot: %s", err.msg);
			rc = 2;
		}
	}
out:
	golden_fleet_free(&rep);
	golden_events_free(&evs);
	golden_hostlist_free(&fleet);
	free(drills);
	free(text);
	free(conf);
	return rc;
}
