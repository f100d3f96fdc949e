/* golden status: the operator's view of one node's lifecycle. What Slurm
 * says, whose drain it is, why golden drained it and what golden waits for
 * before it resumes it, the owed drain, flap counts, golden-watch's health,
 * and the recent history from the ledger and the JSON log. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "active/report.h"
#include "cli.h"
#include "node/scontrol.h"
#include "health/golden_conf.h"
#include "node/node_main.h"
#include "node/active_run.h"
#include "node/ledger.h"
#include "node/lifecycle.h"
#include "health/reason.h"
#include "util/jsonget.h"
#include "util/jsonschema.h"
#include "util/statefile.h"
#include "util/strutil.h"
#include "node/watch.h"
#include "stall/wbstall.h"
#include "util/nodename.h"

#define LOG_TAIL_BYTES  262144
#define WATCH_STATE_MAX 65536

struct status_opts {
	const char *config, *node;
	bool json;
	int history;
};

static void usage(void)
{
	printf("Usage: golden status [--config FILE] [--node NAME] [--json] [--history N]\n"
	       "\n"
	       "Show this node's health and lifecycle: its Slurm state and whose drain it is,\n"
	       "what golden drained, when and why, what golden waits for before it resumes\n"
	       "it, a drain owed while slurmctld was away, flap counts, golden-watch, and the\n"
	       "last N (default 10) events and health-check runs.\n"
	       "Exit status: 0 not drained by golden, 1 golden holds or owes a drain, 2 error.\n");
}

static void fmt_time(long long t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (t <= 0) {
		golden_strlcpy(buf, "-", len);
		return;
	}
	/* a time from a damaged ledger may be out of localtime's range */
	if (!localtime_r(&tt, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm))
		golden_strlcpy(buf, "?", len);
}

/* The last records of the JSON log that are about this node, newest last.
 * A line that is not a JSON object naming this node is skipped. */
static struct json_object *log_tail(const char *path, const char *node, int max)
{
	struct json_object *all = json_object_new_array(), *out = json_object_new_array();
	/* O_NONBLOCK: a FIFO in the log's place must not hang us (refused below). */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;
	char *buf = NULL;
	ssize_t n;
	size_t len;

	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		goto done;
	len = st.st_size > LOG_TAIL_BYTES ? LOG_TAIL_BYTES : (size_t)st.st_size;
	buf = malloc(len + 1);
	if (!buf || lseek(fd, st.st_size - (off_t)len, SEEK_SET) < 0)
		goto done;
	n = read(fd, buf, len);
	if (n < 0)
		goto done;
	buf[n] = '\0';
	/* The first line may be cut: it fails to parse and is skipped. */
	for (char *save = NULL, *line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		struct json_object *o = golden_json_parse_object(line);
		const char *who = golden_json_str(o, "node");

		if (who && !strcmp(who, node))
			json_object_array_add(all, o);
		else
			json_object_put(o);
	}
done:
	if (fd >= 0)
		close(fd);
	free(buf);
	len = json_object_array_length(all);
	for (size_t i = len > (size_t)max ? len - (size_t)max : 0; i < len; i++)
		json_object_array_add(out, json_object_get(json_object_array_get_idx(all, i)));
	json_object_put(all);
	return out;
}

/* golden-watch: its state file, and whether that pid is a golden-watch.
 * A file that is not an object is no state ("never ran here"). */
static struct json_object *watch_state(const char *state_dir)
{
	char path[PATH_MAX], comm[64] = "", *text;
	struct json_object *o;
	long long pid = 0;

	if (golden_path_join(path, sizeof(path), state_dir, GOLDEN_WATCH_STATE) < 0)
		return NULL;
	text = golden_read_trusted(path, WATCH_STATE_MAX, NULL);
	o = golden_json_parse_object(text);
	free(text);
	if (!o)
		return NULL;
	if (golden_json_int_range(o, "pid", 1, INT_MAX, &pid)) {
		char cpath[64];
		FILE *f;

		snprintf(cpath, sizeof(cpath), "/proc/%lld/comm", pid);
		if ((f = fopen(cpath, "re"))) {
			if (!fgets(comm, sizeof(comm), f))
				comm[0] = '\0';
			fclose(f);
		}
	}
	json_object_object_add(o, "running",
	                       json_object_new_boolean(strstr(comm, "golden-watch") != NULL));
	return o;
}

static const char *ownership(const struct golden_node_state *st, bool queried,
                             const struct golden_hold *h)
{
	if (!queried)
		return "unknown (scontrol failed)";
	if (!strstr(st->state, "DRAIN") && !strstr(st->state, "DOWN"))
		return h->active && !h->applied ? "not drained: golden owes a drain" : "in service";
	if (h->active && h->applied && !strcmp(st->reason, h->reason))
		return "drained by golden";
	if (golden_reason_is_ours(st->reason))
		return "drained with a golden reason golden does not hold (left for an operator)";
	return "drained or down for another reason: golden never touches it";
}

/* The last active check: what, when (and how long ago), and its figures. */
static struct json_object *active_json(const struct golden_active_record *a, long long now)
{
	struct json_object *o = json_object_new_object(), *gpus = json_object_new_array();
	const struct golden_active_report *r = &a->report;

	json_object_object_add(o, "last_outcome", json_object_new_string(a->last_outcome));
	json_object_object_add(o, "last_time", json_object_new_int64(a->last_time));
	json_object_object_add(o, "age_s", json_object_new_int64(now - a->last_time));
	json_object_object_add(o, "source", json_object_new_string(a->last_source));
	json_object_object_add(o, "job", json_object_new_string(a->last_job));
	json_object_object_add(o, "code", json_object_new_string(a->last_code));
	json_object_object_add(o, "detail", json_object_new_string(a->last_detail));
	json_object_object_add(o, "duration_ms", json_object_new_int(a->last_duration_ms));
	json_object_object_add(o, "last_pass", json_object_new_int64(a->last_pass));
	if (a->last_pass)
		json_object_object_add(o, "last_pass_age_s",
		                       json_object_new_int64(now - a->last_pass));
	json_object_object_add(o, "runs", json_object_new_int64((int64_t)a->runs));
	json_object_object_add(o, "passes", json_object_new_int64((int64_t)a->passes));
	json_object_object_add(o, "fails", json_object_new_int64((int64_t)a->fails));
	json_object_object_add(o, "errors", json_object_new_int64((int64_t)a->errors));
	json_object_object_add(o, "interruptions",
	                       json_object_new_int64((int64_t)a->interruptions));
	for (int g = 0; a->have_report && g < r->ngpus; g++) {
		struct json_object *e = json_object_new_object(), *f = json_object_new_object();

		json_object_object_add(e, "gpu", json_object_new_int(r->gpu[g].index));
		json_object_object_add(e, "busid", json_object_new_string(r->gpu[g].busid));
		for (int t = 0; t < GOLDEN_ACTIVE_NTESTS; t++)
			if (r->gpu[g].fig[t].measured)
				json_object_object_add(
				    f, golden_active_test_name((enum golden_active_test)t),
				    json_object_new_double(r->gpu[g].fig[t].value));
		json_object_object_add(e, "figures", f);
		json_object_array_add(gpus, e);
	}
	json_object_object_add(o, "gpus", gpus);
	return o;
}

static void active_text(const struct golden_active_record *a, long long now)
{
	const struct golden_active_report *r = &a->report;
	char age[32], pass[32];

	if (!a->runs) {
		printf("  active check: never ran here\n");
		return;
	}
	cli_age(now - a->last_time, age, sizeof(age));
	cli_age(now - a->last_pass, pass, sizeof(pass));
	printf("  active check: %s%s%s %s ago (%s%s%s, %.1f s); last pass %s%s\n", a->last_outcome,
	       a->last_code[0] ? " " : "", a->last_code, age, a->last_source,
	       a->last_job[0] ? " job " : "", a->last_job, a->last_duration_ms / 1000.0,
	       a->last_pass ? pass : "never", a->last_pass ? " ago" : "");
	printf("    %lu runs: %lu passed, %lu failed, %lu interrupted, %lu could not judge\n",
	       a->runs, a->passes, a->fails, a->interruptions, a->errors);
	for (int g = 0; a->have_report && g < r->ngpus; g++) {
		printf("    gpu%-2d %-13s", r->gpu[g].index, r->gpu[g].busid);
		for (int t = 0; t < GOLDEN_ACTIVE_NTESTS; t++) {
			const struct golden_active_figure *f = &r->gpu[g].fig[t];

			if (!f->measured)
				continue;
			printf(" %s %.*f%s", golden_active_test_name((enum golden_active_test)t),
			       f->value < 10 && t != GOLDEN_ACTIVE_MEMTEST ? 2 : 0, f->value,
			       f->verdict >= GOLDEN_ACTIVE_V_LOW_SIBLINGS ? "!" : "");
		}
		printf("\n");
	}
}

int cmd_status(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"config", required_argument, NULL, 'c'}, {"node", required_argument, NULL, 'n'},
	    {"json", no_argument, NULL, 'j'},         {"history", required_argument, NULL, 'H'},
	    {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0}};
	struct status_opts o = {NULL, NULL, false, 10};
	struct golden_conf *conf = malloc(sizeof(*conf));
	struct golden_ledger *l = malloc(sizeof(*l));
	struct golden_active_record *act = malloc(sizeof(*act));
	struct golden_node_state st;
	struct golden_err err = {{0}};
	char node[64], state[PATH_MAX], logp[PATH_MAX], sysroot[PATH_MAX], stall[128] = "";
	char waiting[320] = "", t1[32], t2[32], key[64];
	struct json_object *out = NULL, *runs = NULL, *watch = NULL, *hist;
	bool queried;
	int c, rc = 2, ledger_rc, flaps = 0;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			o.config = optarg;
			break;
		case 'n':
			o.node = optarg;
			break;
		case 'j':
			o.json = true;
			break;
		case 'H':
			o.history = atoi(optarg);
			if (o.history < 0 || o.history > 1000) {
				cli_error("status", "--history %s: expected 0-1000", optarg);
				goto out;
			}
			break;
		case 'h':
			usage();
			rc = 0;
			goto out;
		default:
			cli_error("status", "unknown option '%s' (see --help)", argv[optind - 1]);
			goto out;
		}
	}
	golden_nodename_get(o.node, node, sizeof(node));
	if (!conf || !l || !act ||
	    golden_node_load_conf("golden status", o.config, node, conf, NULL) < 0)
		goto out;
	if (golden_node_expand("golden status", "state_dir", conf->state_dir, node, state,
	                       sizeof(state)) ||
	    golden_node_expand("golden status", "log", conf->log_path, node, logp, sizeof(logp)) ||
	    golden_node_expand("golden status", "sysroot", conf->sysroot, node, sysroot,
	                       sizeof(sysroot)))
		goto out;
	ledger_rc = golden_ledger_load(state, l);
	queried = golden_scontrol_show_node(conf->scontrol, node, 5000, &st, &err) == 0;
	if (!queried)
		memset(&st, 0, sizeof(st));
	{
		struct golden_lifecycle lc = {
		    conf, node, state, sysroot[0] ? sysroot : NULL, NULL, "status", NULL, NULL, 0};

		golden_lifecycle_waiting_for(&lc, &l->hold, waiting, sizeof(waiting));
	}
	if (l->hold.active) {
		golden_lifecycle_flap_key(l->hold.check, l->hold.code, key, sizeof(key));
		flaps = golden_ledger_episodes(l, key, (long long)time(NULL), conf->flap_hours);
	}
	golden_stall_marked(state, sysroot[0] ? sysroot : NULL, stall, sizeof(stall));
	if (golden_active_record_load(state, act) < 0)
		memset(act, 0, sizeof(*act));
	runs = log_tail(logp, node, o.history);
	watch = watch_state(state);

	out = json_object_new_object();
	golden_json_stamp(out, "golden-status");
	json_object_object_add(out, "node", json_object_new_string(node));
	json_object_object_add(out, "slurm_state",
	                       json_object_new_string(queried ? st.state : "unknown"));
	json_object_object_add(out, "slurm_reason", json_object_new_string(st.reason));
	json_object_object_add(out, "ownership",
	                       json_object_new_string(ownership(&st, queried, &l->hold)));
	if (l->hold.active) {
		struct json_object *h = json_object_new_object();

		json_object_object_add(h, "applied", json_object_new_boolean(l->hold.applied));
		json_object_object_add(h, "class",
		                       json_object_new_string(golden_hold_class_name(l->hold.cls)));
		json_object_object_add(h, "reason", json_object_new_string(l->hold.reason));
		json_object_object_add(h, "check", json_object_new_string(l->hold.check));
		json_object_object_add(h, "detail", json_object_new_string(l->hold.detail));
		json_object_object_add(h, "source", json_object_new_string(l->hold.source));
		json_object_object_add(h, "time", json_object_new_int64(l->hold.time));
		json_object_object_add(h, "waiting_for", json_object_new_string(waiting));
		json_object_object_add(h, "flaps_in_window", json_object_new_int(flaps));
		json_object_object_add(out, "golden_scontrol_drain", h);
	}
	if (stall[0])
		json_object_object_add(out, "wb_stall_marker", json_object_new_string(stall));
	hist = json_object_new_array();
	for (int i = l->nhistory > o.history ? l->nhistory - o.history : 0; i < l->nhistory; i++) {
		struct json_object *e = json_object_new_object();

		json_object_object_add(e, "time", json_object_new_int64(l->hist[i].time));
		json_object_object_add(e, "event", json_object_new_string(l->hist[i].event));
		json_object_object_add(e, "text", json_object_new_string(l->hist[i].text));
		json_object_array_add(hist, e);
	}
	json_object_object_add(out, "history", hist);
	json_object_object_add(out, "runs", json_object_get(runs));
	if (watch)
		json_object_object_add(out, "watch", json_object_get(watch));
	if (act->runs)
		json_object_object_add(out, "active", active_json(act, (long long)time(NULL)));

	if (o.json) {
		printf("%s\n", json_object_to_json_string_ext(out, JSON_C_TO_STRING_PRETTY));
	} else {
		printf("node %s: %s%s%s%s\n", node, queried ? st.state : "state unknown",
		       st.reason[0] ? " (" : "", st.reason, st.reason[0] ? ")" : "");
		printf("  %s\n", ownership(&st, queried, &l->hold));
		if (ledger_rc < 0)
			printf("  ledger: %s/%s unreadable: golden starts over from Slurm's view\n",
			       state, GOLDEN_LEDGER_FILE);
		if (l->hold.active) {
			fmt_time(l->hold.time, t1, sizeof(t1));
			fmt_time(l->hold.applied_time, t2, sizeof(t2));
			printf("  golden %s: %s\n", l->hold.applied ? "drained it" : "owes a drain",
			       l->hold.reason);
			printf("    decided %s by %s, applied %s\n", t1, l->hold.source, t2);
			printf("    why: %s: %s\n", l->hold.check, l->hold.detail);
			printf("    class: %s; golden resumes it after %s\n",
			       golden_hold_class_name(l->hold.cls), waiting);
			printf("    the same fault %d time(s) in %d h (flapping at %d)\n", flaps,
			       conf->flap_hours, conf->flap_count);
		}
		if (stall[0])
			printf("  writeback stall marked: %s\n", stall);
		if (watch) {
			char b[4][32];
			bool running = false;

			golden_json_bool(watch, "running", &running);
			printf("  golden-watch: %s, %s records, %s lost to overrun, lag %s s (max "
			       "%s)\n",
			       running ? "running" : "NOT running",
			       golden_json_text(watch, "records", b[0], sizeof(b[0]), "?"),
			       golden_json_text(watch, "missed", b[1], sizeof(b[1]), "?"),
			       golden_json_text(watch, "lag_s", b[2], sizeof(b[2]), "?"),
			       golden_json_text(watch, "lag_max_s", b[3], sizeof(b[3]), "?"));
		} else {
			printf("  golden-watch: never ran here\n");
		}
		active_text(act, (long long)time(NULL));
		if (l->nhistory)
			printf("  events:\n");
		for (int i = l->nhistory > o.history ? l->nhistory - o.history : 0; i < l->nhistory;
		     i++) {
			fmt_time(l->hist[i].time, t1, sizeof(t1));
			printf("    %s %-10s %s\n", t1, l->hist[i].event, l->hist[i].text);
		}
		if (json_object_array_length(runs))
			printf("  health-check runs:\n");
		for (size_t i = 0; i < json_object_array_length(runs); i++) {
			struct json_object *r = json_object_array_get_idx(runs, i);
			const char *reason = golden_json_str(r, "reason"),
			           *resume = golden_json_str(r, "resume");
			char b[3][32];

			printf("    %s %-11s %-4s%s%s%s%s\n",
			       golden_json_text(r, "time", b[0], sizeof(b[0]), "?"),
			       golden_json_text(r, "phase", b[1], sizeof(b[1]), "?"),
			       golden_json_text(r, "result", b[2], sizeof(b[2]), "?"),
			       reason ? " " : "", reason ? reason : "", resume ? " " : "",
			       resume ? resume : "");
		}
	}
	rc = l->hold.active ? 1 : 0;
out:
	json_object_put(out);
	json_object_put(runs);
	json_object_put(watch);
	free(conf);
	free(l);
	free(act);
	return rc;
}
