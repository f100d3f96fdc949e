#include <config.h>

#include "node/watch.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "health/check_run.h"
#include "health/golden_conf.h"
#include "health/health_log.h"
#include "node/node_main.h"
#include "util/kmsg.h"
#include "node/lifecycle.h"
#include "node/metrics.h"
#include "util/statefile.h"
#include "util/strutil.h"
#include "stall/wbstall.h"
#include "health/xid.h"
#include "node/check_registry.h"
#include "util/nodename.h"
#include "util/jsonschema.h"

#define BATCH_MAX      20000 /* records before acting even if more are waiting */
#define BACKOFF_MIN_MS 1000
#define BACKOFF_MAX_MS 30000

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

struct watch {
	const char *prog;
	struct golden_conf *conf;
	struct golden_topo *topo; /* NULL if discovery failed */
	char node[64], state[PATH_MAX], sysroot[PATH_MAX], logp[PATH_MAX], metrics[PATH_MAX];
	char tdir[PATH_MAX];
	const char *kmsg; /* NULL = /dev/kmsg */
	char boot[GOLDEN_KMSG_BOOTID_LEN];
	bool have_cursor;
	uint64_t cursor;
	struct golden_watch_stats st;
	/* this batch */
	bool want_xid, want_stall;
	bool pending;
	/* the last check run's faults were not recorded (ledger unusable):
	 * which checks to run again, and the cursor not to save meanwhile */
	bool unrecorded, retry_xid, retry_stall;
	int backoff_ms;
	double retry_at;  /* monotonic seconds: next retry while pending */
	double last_save; /* monotonic seconds */
};

static void usage(const char *prog, FILE *out)
{
	fprintf(out,
	        "Usage: %s [--config FILE] [--node NAME] [--sysroot DIR] [--topology FILE]\n"
	        "       %*s [--kmsg PATH] [--once] [--version]\n"
	        "\n"
	        "Block on the kernel log and drain this node within seconds of a GPU fault\n"
	        "(the prolog's XID catalogue and policy, golden.conf's xid.N overrides) or a\n"
	        "writeback-stall storm, with the same reason format as the prolog. Application\n"
	        "XIDs are recorded only. A drain slurmctld cannot take is kept and retried.\n"
	        "--once: handle the records there are now, then exit (tests, cron).\n"
	        "Stops on SIGTERM/SIGINT. Config as for golden check (golden.conf), read at\n"
	        "start: a broken one is refused with FILE:LINE and exit status 2, and nothing\n"
	        "is drained (golden-watch.service does not restart on 2; fix, then restart).\n",
	        prog, (int)strlen(prog), "");
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void __attribute__((format(printf, 2, 3))) say(const struct watch *w, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: %s: ", w->prog, w->node);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void save_state(struct watch *w)
{
	struct json_object *o = json_object_new_object();
	char path[PATH_MAX], seq[32];
	const char *text;

	golden_json_stamp(o, "golden-watch-state");
	snprintf(seq, sizeof(seq), "%llu", (unsigned long long)w->st.last_seq);
	json_object_object_add(o, "pid", json_object_new_int((int)getpid()));
	json_object_object_add(o, "started", json_object_new_int64(w->st.started));
	json_object_object_add(o, "updated", json_object_new_int64((int64_t)time(NULL)));
	json_object_object_add(o, "records", json_object_new_int64((int64_t)w->st.records));
	json_object_object_add(o, "missed", json_object_new_int64((int64_t)w->st.missed));
	json_object_object_add(o, "overruns", json_object_new_int64((int64_t)w->st.epipe));
	json_object_object_add(o, "faults", json_object_new_int64((int64_t)w->st.faults));
	json_object_object_add(o, "check_runs", json_object_new_int64((int64_t)w->st.triggers));
	json_object_object_add(o, "lag_s", json_object_new_double(w->st.last_lag_s));
	json_object_object_add(o, "lag_max_s", json_object_new_double(w->st.max_lag_s));
	json_object_object_add(o, "cursor", json_object_new_string(seq));
	json_object_object_add(o, "pending", json_object_new_boolean(w->pending));
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	if (golden_path_join(path, sizeof(path), w->state, GOLDEN_WATCH_STATE) == 0)
		golden_write_atomic(path, text, strlen(text));
	json_object_put(o);
	w->st.pending = w->pending;
	if (w->metrics[0])
		golden_metrics_watch(w->metrics, w->node, &w->st);
}

/* Does this record ask for a check run? */
static void classify(struct watch *w, int facility, const char *msg)
{
	struct golden_xid_event ev;
	struct golden_stall_evidence se;

	if (golden_xid_parse_record(facility, msg, &ev)) {
		w->st.faults++;
		w->want_xid = true;
		return;
	}
	if (facility != GOLDEN_KMSG_FAC_KERNEL && facility != GOLDEN_KMSG_FAC_USER)
		return;
	memset(&se, 0, sizeof(se));
	se.lockup_node = -1;
	golden_stall_kmsg_line(msg, NULL, 0, &se);
	if (se.soft_lockups || se.wq_lockups || se.wb_lines || se.hogs) {
		w->st.stalls++;
		w->want_stall = true;
	}
}

static void handle_record(struct watch *w, char *buf)
{
	struct golden_kmsg_record rec;
	double lag;

	if (golden_kmsg_parse(buf, &rec) < 0)
		return;
	if (w->have_cursor && rec.seq <= w->cursor)
		return; /* looked at before a restart */
	w->st.missed += golden_kmsg_gap(w->have_cursor, w->cursor, rec.seq);
	w->cursor = rec.seq;
	w->have_cursor = true;
	w->st.last_seq = rec.seq;
	w->st.records++;
	lag = mono_s() - (double)rec.ts_usec / 1e6;
	if (lag < 0)
		lag = 0;
	w->st.last_lag_s = lag;
	if (lag > w->st.max_lag_s)
		w->st.max_lag_s = lag;
	classify(w, rec.facility, rec.msg);
}

static int add_check(const struct watch *w, const char *name, const struct golden_check **list,
                     int n)
{
	const struct golden_check *c = golden_check_find(name);
	int deadline;
	unsigned phases;

	/* check.NAME = off in golden.conf turns it off here too. */
	if (c && golden_conf_check(w->conf, c, &deadline, &phases))
		list[n++] = c;
	return n;
}

static void save_cursor(struct watch *w)
{
	if (w->have_cursor &&
	    golden_kmsg_cursor_save_as(w->state, GOLDEN_WATCH_CURSOR, w->boot, w->cursor) < 0)
		say(w, "cannot save %s in %s", GOLDEN_WATCH_CURSOR, w->state);
}

static void run_checks(struct watch *w)
{
	const struct golden_check *list[2];
	struct golden_run_report *rep = malloc(sizeof(*rep));
	struct golden_lifecycle_result *res = malloc(sizeof(*res));
	struct golden_run_info info = {0};
	struct golden_check_ctx ctx = {w->conf, w->topo,  w->sysroot[0] ? w->sysroot : NULL,
	                               w->node, "",       GOLDEN_PHASE_BUSY,
	                               w->kmsg, w->state, w->tdir,
	                               false};
	struct golden_err err = {{0}};
	struct golden_lifecycle lc = {w->conf,    w->node, w->state, ctx.sysroot, w->kmsg, "watch",
	                              w->metrics, w->topo, 0};
	int n = 0;

	if (!rep || !res)
		goto out;
	if (w->want_xid)
		n = add_check(w, "xid", list, n);
	if (w->want_stall)
		n = add_check(w, "wb-stall", list, n);
	if (!n)
		goto out;
	w->st.triggers++;
	golden_checks_run(list, n, &ctx, w->conf->budget_ms, rep);
	if (golden_lifecycle_after_run(&lc, rep, false, res) < 0)
		say(w, "cannot update the lifecycle ledger in %s", w->state);
	/* Consumed only once acted on; otherwise run the checks again later
	 * (they re-read from their cursors, so the fault is still there). */
	w->unrecorded = !res->recorded;
	if (res->recorded && golden_checks_commit(rep, &err) < 0)
		say(w, "%s; the same kernel records are read again next time", err.msg);
	if (w->unrecorded) {
		w->retry_xid |= w->want_xid;
		w->retry_stall |= w->want_stall;
	}
	info.node = w->node;
	info.job_id = "";
	info.phase = "watch";
	info.reason = res->reason[0] ? res->reason : NULL;
	info.drain = res->drain[0] ? res->drain : NULL;
	info.waiting = res->waiting[0] ? res->waiting : NULL;
	if (golden_health_log_append(w->logp, rep, &info) < 0)
		say(w, "cannot append to %s", w->logp);
	golden_health_log_syslog(rep, &info);
	if (info.reason)
		say(w, "%s: %s%s", info.reason, info.drain ? info.drain : "",
		    w->unrecorded ? " (not in the ledger: looked at again)" : "");
	else if (w->unrecorded && rep->worst >= 0)
		say(w, "%s: %s; retrying", rep->out[rep->worst].res.code,
		    info.drain ? info.drain
		               : "the ledger cannot be written: the fault stays pending");
	else if (rep->worst >= 0)
		say(w, "recorded: %s", rep->out[rep->worst].res.detail);
	w->pending = res->pending || w->unrecorded;
	if (!w->pending) {
		w->backoff_ms = 0;
	} else if (w->backoff_ms == 0) {
		w->backoff_ms = BACKOFF_MIN_MS;
		w->retry_at = mono_s() + BACKOFF_MIN_MS / 1000.0;
	}
out:
	free(rep);
	free(res);
}

/* The batch is over: act once for all its lines, then remember how far. */
static void end_batch(struct watch *w)
{
	bool acted = w->want_xid || w->want_stall;
	double now = mono_s();

	if (acted)
		run_checks(w);
	w->want_xid = w->want_stall = false;
	/* Other kernel chatter need not cost an fsync each: re-reading it after
	 * a restart is harmless. After a check run, or every 30 s, save. */
	if (!acted && now - w->last_save < 30)
		return;
	w->last_save = now;
	/* A fault not yet acted on keeps watch.cursor before it: after a
	 * restart it is looked at again. */
	if (!w->unrecorded)
		save_cursor(w);
	save_state(w);
}

static void retry_pending(struct watch *w)
{
	struct golden_lifecycle lc = {
	    w->conf,    w->node, w->state, w->sysroot[0] ? w->sysroot : NULL, w->kmsg, "watch",
	    w->metrics, w->topo, 0};
	struct golden_lifecycle_result res;

	if (w->unrecorded) {
		/* The ledger could not record what the last run found: run those
		 * checks again (they re-read from their cursors: still there). */
		w->want_xid = w->retry_xid;
		w->want_stall = w->retry_stall;
		w->retry_xid = w->retry_stall = false;
		run_checks(w);
		w->want_xid = w->want_stall = false;
		if (!w->unrecorded)
			save_cursor(w);
	} else if (golden_lifecycle_apply_pending(&lc, &res) == 0) {
		if (res.drain[0])
			say(w, "%s: %s", res.reason, res.drain);
		w->pending = false;
	}
	if (w->pending)
		w->backoff_ms =
		    w->backoff_ms * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : w->backoff_ms * 2;
	else
		w->backoff_ms = 0;
	w->retry_at = mono_s() + w->backoff_ms / 1000.0;
	save_state(w);
}

static int read_live(struct watch *w, bool once)
{
	char *buf = malloc(GOLDEN_KMSG_RECORD_MAX + 2);
	int fd = open(w->kmsg ? w->kmsg : "/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	unsigned long in_batch = 0;
	unsigned long last_epipe_report = 0;

	if (fd < 0 || !buf) {
		say(w, "cannot open the kernel log %s: %s", w->kmsg ? w->kmsg : "/dev/kmsg",
		    strerror(errno));
		free(buf);
		if (fd >= 0)
			close(fd);
		return 1;
	}
	while (!stop_requested) {
		ssize_t n = read(fd, buf, GOLDEN_KMSG_RECORD_MAX + 1);

		if (n > 0) {
			buf[n] = '\0';
			handle_record(w, buf);
			if (++in_batch < BATCH_MAX)
				continue;
		} else if (n < 0 && errno == EPIPE) {
			/* Overwritten under us; the next read returns the oldest
			 * record left, and the sequence gap counts the loss. */
			w->st.epipe++;
			continue;
		} else if (n < 0 && errno == EINTR) {
			continue;
		} else if (n < 0 && errno != EAGAIN) {
			say(w, "reading the kernel log: %s", strerror(errno));
			close(fd);
			free(buf);
			return 1;
		}
		if (w->st.epipe != last_epipe_report) {
			say(w, "kernel log overrun: resynchronised, %lu records lost so far",
			    w->st.missed);
			last_epipe_report = w->st.epipe;
		}
		end_batch(w);
		in_batch = 0;
		if (once)
			break;
		{
			struct pollfd p = {fd, POLLIN, 0};
			int left = -1, r = 0;

			/* Counted from the last try, so that kernel chatter cannot
			 * postpone a retry forever. */
			if (w->pending) {
				double ms = (w->retry_at - mono_s()) * 1000;

				left = ms <= 0 ? 0 : (int)ms + 1;
			}
			if (left != 0)
				r = poll(&p, 1, left);
			if (r == 0 && w->pending)
				retry_pending(w);
		}
	}
	close(fd);
	free(buf);
	return 0;
}

/* A file of records (tests, replays): read it once. */
static int read_file(struct watch *w)
{
	FILE *f = fopen(w->kmsg, "re");
	char line[GOLDEN_KMSG_RECORD_MAX + 2];

	if (!f) {
		say(w, "cannot open %s: %s", w->kmsg, strerror(errno));
		return 1;
	}
	while (fgets(line, sizeof(line), f))
		if (line[0] != ' ' && line[0] != '\n')
			handle_record(w, line);
	fclose(f);
	end_batch(w);
	return 0;
}

static int setup(struct watch *w, int argc, char **argv, bool *once)
{
	static const struct option longopts[] = {{"config", required_argument, NULL, 'c'},
	                                         {"node", required_argument, NULL, 'n'},
	                                         {"sysroot", required_argument, NULL, 's'},
	                                         {"topology", required_argument, NULL, 't'},
	                                         {"kmsg", required_argument, NULL, 'k'},
	                                         {"once", no_argument, NULL, 'o'},
	                                         {"help", no_argument, NULL, 'h'},
	                                         {"version", no_argument, NULL, 'V'},
	                                         {NULL, 0, NULL, 0}};
	const char *config = NULL, *node = NULL, *sysroot = NULL, *topology = NULL;
	char topopath[PATH_MAX], cboot[GOLDEN_KMSG_BOOTID_LEN];
	struct golden_err err = {{0}};
	uint64_t cseq;
	int c, drc;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			config = optarg;
			break;
		case 'n':
			node = optarg;
			break;
		case 's':
			sysroot = optarg;
			break;
		case 't':
			topology = optarg;
			break;
		case 'k':
			w->kmsg = optarg;
			break;
		case 'o':
			*once = true;
			break;
		case 'h':
			usage(w->prog, stdout);
			exit(0);
		case 'V': {
			const char *base = strrchr(w->prog, '/');

			printf("%s (slurm-golden) %s\n", base ? base + 1 : w->prog,
			       PACKAGE_VERSION);
			exit(0);
		}
		default:
			fprintf(stderr, "%s: unknown option '%s' (see --help)\n", w->prog,
			        argv[optind - 1]);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", w->prog, argv[optind]);
		return -1;
	}
	golden_nodename_get(node, w->node, sizeof(w->node));
	if (golden_node_load_conf(w->prog, config, w->node, w->conf, NULL) < 0)
		return -1;
	if (golden_node_expand(w->prog, "topology", topology ? topology : w->conf->topology,
	                       w->node, topopath, sizeof(topopath)) ||
	    golden_node_expand(w->prog, "sysroot", sysroot ? sysroot : w->conf->sysroot, w->node,
	                       w->sysroot, sizeof(w->sysroot)) ||
	    golden_node_expand(w->prog, "state_dir", w->conf->state_dir, w->node, w->state,
	                       sizeof(w->state)) ||
	    golden_node_expand(w->prog, "log", w->conf->log_path, w->node, w->logp,
	                       sizeof(w->logp)) ||
	    golden_node_expand(w->prog, "teardown_dir", w->conf->teardown_dir, w->node, w->tdir,
	                       sizeof(w->tdir)) ||
	    golden_node_expand(w->prog, "metrics_dir", w->conf->metrics_dir, w->node, w->metrics,
	                       sizeof(w->metrics)))
		return -1;
	if (!golden_kmsg_is_live(w->kmsg) && !*once) {
		fprintf(stderr,
		        "%s: --kmsg %s is not a character device: use --once to read a "
		        "file of records\n",
		        w->prog, w->kmsg);
		return -1;
	}
	if (golden_state_dir(w->state, 0700, &err) < 0) {
		fprintf(stderr, "%s: state_dir %s\n", w->prog, err.msg);
		return -1;
	}
	/* Topology once: fault lines name GPUs by PCI address; the reason names
	 * gpuN as the prolog does. A GPU that falls off the bus is still named. */
	drc = golden_node_discover(topopath, w->sysroot, w->conf->discovery_deadline_ms, w->topo);
	if (drc != 0) {
		say(w, "topology discovery %s: GPUs are named by PCI address only",
		    drc == 1 ? "timed out" : "failed");
		w->topo = NULL;
	}
	golden_kmsg_boot_id(golden_kmsg_is_live(w->kmsg) ? NULL : w->sysroot, w->boot,
	                    sizeof(w->boot));
	if (golden_kmsg_cursor_load_as(w->state, GOLDEN_WATCH_CURSOR, cboot, sizeof(cboot),
	                               &cseq) == 0 &&
	    !strcmp(cboot, w->boot)) {
		w->have_cursor = true;
		w->cursor = cseq;
		w->st.last_seq = cseq;
	}
	return 0;
}

int golden_watch_main(int argc, char **argv)
{
	struct watch *w = calloc(1, sizeof(*w));
	struct sigaction sa;
	bool once = false;
	int rc = 2;

	if (!w)
		return 2;
	w->prog = argv[0];
	w->conf = malloc(sizeof(*w->conf));
	w->topo = malloc(sizeof(*w->topo));
	struct golden_topo *topo_mem = w->topo;

	if (!w->conf || !w->topo || setup(w, argc, argv, &once) < 0)
		goto out;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop; /* no SA_RESTART: poll() returns EINTR */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	w->st.started = (long long)time(NULL);
	{
		/* A drain owed from before (slurmctld was away when we stopped). */
		struct golden_ledger *l = malloc(sizeof(*l));

		if (l && golden_ledger_load(w->state, l) == 0 && l->hold.active &&
		    !l->hold.applied) {
			w->pending = true;
			w->backoff_ms = BACKOFF_MIN_MS;
			w->retry_at = mono_s();
		}
		free(l);
	}
	if (w->pending)
		retry_pending(w);
	say(w, "watching %s%s", w->kmsg ? w->kmsg : "/dev/kmsg",
	    w->have_cursor ? " from its cursor" : " from the start of this boot's buffer");
	rc = golden_kmsg_is_live(w->kmsg) ? read_live(w, once) : read_file(w);
	if (!w->unrecorded)
		save_cursor(w);
	save_state(w);
out:
	free(w->conf);
	free(topo_mem);
	free(w);
	return rc;
}
