/* See drill.h. */
#include <config.h>

#include "node/drill.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "health/reason.h"
#include "health/xid.h"
#include "node/check_registry.h"
#include "node/drill_fault.h"
#include "node/ledger.h"
#include "node/node_main.h"
#include "node/scontrol.h"
#include "util/capture.h"
#include "util/child.h"
#include "util/kmsg.h"
#include "util/strutil.h"

#define POLL_MS      20    /* how often the drill looks: its time resolution */
#define QUERY_MS     5000  /* one scontrol/squeue/srun call at most */
#define PROBE_WAIT_S 5     /* srun --immediate: how long the probe may wait */
#define VALIDATE_MS  60000 /* the health check --validate-now runs */

int golden_drill_line(int xid, const char *busid, char *buf, size_t len)
{
	const struct golden_xid_info *x = golden_xid_lookup(xid);

	if (!x || strlen(busid) < 10)
		return -1;
	/* The driver prints domain:bus:device without the function. */
	snprintf(buf, len, "NVRM: Xid (PCI:%.10s): %d, pid='<unknown>', name=<unknown>, %s.", busid,
	         xid, x->meaning);
	return 0;
}

static void say(const struct golden_drill_opts *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void say(const struct golden_drill_opts *o, const char *fmt, ...)
{
	va_list ap;

	if (!o->progress)
		return;
	va_start(ap, fmt);
	vfprintf(o->progress, fmt, ap);
	va_end(ap);
	fputc('\n', o->progress);
	fflush(o->progress);
}

/* --- before: may this node be drilled? ------------------------------- */

/* Would golden drain for this XID at all (golden.conf's overrides first)? */
static bool xid_drains(const struct golden_conf *conf, int xid)
{
	const struct golden_xid_override *ov = golden_conf_xid(conf, xid);
	const struct golden_xid_info *x = golden_xid_lookup(xid);

	if (ov)
		return !ov->ignore && ov->status == GOLDEN_ST_FAIL &&
		       ov->action != GOLDEN_ACTION_NONE;
	return x && !x->app_error && x->status == GOLDEN_ST_FAIL && x->action != GOLDEN_ACTION_NONE;
}

static int refuse(const struct golden_drill_opts *o, struct golden_err *err)
{
	struct golden_node_state st;

	if (geteuid() != 0)
		return golden_err_set(err, "must run as root: a drill %s",
		                      o->fault == GOLDEN_DRILL_XID
		                          ? "writes to /dev/kmsg"
		                          : "stages its fault in the node's port files or mounts");
	if (o->fault == GOLDEN_DRILL_XID && !xid_drains(o->conf, o->xid))
		return golden_err_set(err,
		                      "XID %d: golden does not drain for it (an application "
		                      "error, a warning, or golden.conf xid.%d): a drill of it "
		                      "would fail by design; 79, 48, 95 or 119 drain",
		                      o->xid, o->xid);
	if (golden_scontrol_show_node(o->conf->scontrol, o->node, QUERY_MS, &st, err) < 0)
		return -1;
	if (st.drained_or_down)
		return golden_err_set(err,
		                      "%s is %s (%s): a drill needs a node in service, whose "
		                      "drain it can measure",
		                      o->node, st.state, st.reason[0] ? st.reason : "no reason");
	if (golden_node_state_busy(&st) && !o->allow_busy)
		return golden_err_set(err,
		                      "%s is running a job (%s): the drill would drain it under "
		                      "the job; --allow-busy to drill it anyway",
		                      o->node, st.state);
	return 0;
}

/* Under the ledger's lock, so that no drain and no other drill can begin
 * between this check and the injection. */
static int refuse_locked(const struct golden_drill_opts *o, struct golden_drills *ds,
                         unsigned long *guarded, struct golden_err *err)
{
	struct golden_ledger *l = malloc(sizeof(*l));
	const struct golden_drill *r;
	int rc = 0;

	if (!l)
		return golden_err_set(err, "out of memory");
	if (golden_ledger_load(o->state_dir, l) < 0)
		rc = golden_err_set(err, "%s/%s: unreadable: golden status says more", o->state_dir,
		                    GOLDEN_LEDGER_FILE);
	else if ((*guarded = l->guard_suppressed), l->hold.active)
		rc = golden_err_set(err, "golden %s a drain of %s (%s): no drill until it ends",
		                    l->hold.applied ? "holds" : "owes", o->node, l->hold.reason);
	else if (golden_drills_load(o->state_dir, ds) < 0)
		rc = golden_err_set(err, "%s/%s: unreadable", o->state_dir, GOLDEN_DRILLS);
	else if ((r = golden_drills_running(ds)))
		rc = golden_err_set(err, "drill %s is running (pid %ld): one at a time", r->id,
		                    r->pid);
	free(l);
	return rc;
}

/* --- the injection ---------------------------------------------------- */

struct find_line {
	const char *line;
	uint64_t after, seq;
};

static int on_record(uint64_t seq, uint64_t ts, int facility, int level, const char *msg, void *arg)
{
	struct find_line *f = arg;

	(void)ts;
	(void)level;
	if (seq > f->after && golden_kmsg_origin(facility, msg) == GOLDEN_KMSG_FROM_ROOT &&
	    !strcmp(msg, f->line)) {
		f->seq = seq;
		return 1;
	}
	return 0;
}

/* Write the line; find the sequence number the kernel gave it (the first
 * record of ours with that text after seq_before: we just wrote it). */
static int inject(const struct golden_drill_opts *o, const char *line, struct golden_drill *d,
                  struct golden_err *err)
{
	struct find_line f = {line, d->seq_before, 0};
	struct golden_kmsg_stats st;
	int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	char rec[GOLDEN_KMSG_RECORD_MAX];
	ssize_t n;
	int len;

	if (fd < 0)
		return golden_err_set(err, "cannot open /dev/kmsg: %s", strerror(errno));
	/* The newline ends the record: without it the kernel keeps the record
	 * open for a continuation and no reader sees it until the next line. */
	len = snprintf(rec, sizeof(rec), "%s\n", line);
	d->injected_ms = golden_epoch_ms();
	n = write(fd, rec, (size_t)len);
	close(fd);
	if (n != len)
		return golden_err_set(err, "cannot write /dev/kmsg: %s",
		                      n < 0 ? strerror(errno) : "short write");
	golden_kmsg_scan(NULL, NULL, NULL, false, on_record, &f, &st);
	d->seq = f.seq;
	return 0;
}

/* --- observing -------------------------------------------------------- */

/* The drain golden decided for the drill's record, if the ledger has it;
 * else, with guard, whether the blast-radius guard held a drain back since
 * the drill began (guard_before: its count then): its note into guard. */
static bool decided(const struct golden_drill_opts *o, const struct golden_drill *d,
                    struct golden_hold *out, unsigned long guard_before, char *guard,
                    size_t guard_len)
{
	struct golden_ledger *l = malloc(sizeof(*l));
	bool yes = false;

	if (!l)
		return false;
	if (golden_ledger_load(o->state_dir, l) == 0) {
		if (golden_drill_owns_hold(d, &l->hold)) {
			*out = l->hold;
			yes = true;
		} else if (d->kind != GOLDEN_DRILL_XID && l->guard_suppressed > guard_before) {
			/* The guard's note begins with the failure's code. */
			for (int i = l->nhistory - 1; i >= 0; i--) {
				const char *t = l->hist[i].text;

				if (strcmp(l->hist[i].event, "guard") ||
				    l->hist[i].time * 1000 + 999 < d->injected_ms)
					continue;
				if (golden_drill_names(d, t, ':')) {
					golden_strlcpy(guard, t, guard_len);
					break;
				}
			}
		}
	}
	free(l);
	return yes;
}

static int slurm_tool(const struct golden_drill_opts *o, const char *name, char *buf, size_t len)
{
	/* Beside the scontrol golden.conf names, else on PATH. */
	const char *slash = strrchr(o->conf->scontrol, '/');

	if (slash) {
		snprintf(buf, len, "%.*s/%s", (int)(slash - o->conf->scontrol), o->conf->scontrol,
		         name);
		if (access(buf, X_OK) == 0)
			return 0;
	}
	return golden_child_which(name, buf, len);
}

/* The jobs running on the node now, as "12,13" ("" none). */
static void running_jobs(const struct golden_drill_opts *o, char *buf, size_t len)
{
	char squeue[PATH_MAX];
	char *argv[] = {squeue, "-h", "-t", "R", "-w", (char *)o->node, "-o", "%i", NULL};
	struct golden_capture c = {.argv = argv, .timeout_ms = QUERY_MS};

	buf[0] = '\0';
	if (slurm_tool(o, "squeue", squeue, sizeof(squeue)) < 0 || golden_capture_one(&c, 4096) < 0)
		return;
	if (c.status == 0 && c.out) {
		for (char *p = c.out; *p; p++)
			if (*p == '\n')
				*p = ',';
		golden_strlcpy(buf, golden_rtrim(c.out), len);
		if (len && buf[0] && buf[strlen(buf) - 1] == ',')
			buf[strlen(buf) - 1] = '\0';
	}
	golden_capture_free(&c);
}

/* 1 when every job of ids still runs, 0 when one ended. */
static int jobs_still_running(const struct golden_drill_opts *o, const char *ids)
{
	char now[256];

	running_jobs(o, now, sizeof(now));
	return !strcmp(now, ids) ? 1 : 0;
}

/* A job asking for the drained node: 1 refused (right), 0 it ran there. */
static int probe_node(const struct golden_drill_opts *o)
{
	char srun[PATH_MAX], imm[32];
	char *argv[] = {srun,   "-Q", "-N1", "-w", (char *)o->node,
	                imm,    "-t", "1",   "-J", "golden-drill-probe",
	                "true", NULL};
	struct golden_capture c = {.argv = argv, .timeout_ms = (PROBE_WAIT_S + 10) * 1000};
	int ran;

	if (slurm_tool(o, "srun", srun, sizeof(srun)) < 0)
		return -1;
	snprintf(imm, sizeof(imm), "--immediate=%d", PROBE_WAIT_S);
	if (golden_capture_one(&c, 4096) < 0)
		return -1;
	ran = c.status == 0;
	golden_capture_free(&c);
	return ran ? 0 : 1;
}

/* The node's own health check, as HealthCheckProgram runs it. */
static void check_argv(const struct golden_drill_opts *o, char **argv)
{
	int n = 0;

	argv[n++] = (char *)o->golden;
	argv[n++] = "check";
	argv[n++] = "--healthcheck";
	argv[n++] = "--node";
	argv[n++] = (char *)o->node;
	if (o->config) {
		argv[n++] = "--config";
		argv[n++] = (char *)o->config;
	}
	argv[n] = NULL;
}

/* --validate-now: run it and wait for it. */
static void validate_now(const struct golden_drill_opts *o)
{
	char *argv[8];
	struct golden_capture c = {.argv = argv, .timeout_ms = VALIDATE_MS};

	check_argv(o, argv);
	if (golden_capture_one(&c, 1 << 16) == 0)
		golden_capture_free(&c);
}

/* The same started in the background, so that the drill keeps observing
 * (a staged fault's detection is this check: its drain happens inside it). */
struct bg_check {
	struct golden_child ch;
	char *argv[8];
	bool on;
};

static void exec_check(void *shared, void *arg)
{
	char **argv = arg;

	(void)shared;
	execv(argv[0], argv);
}

static void bg_start(const struct golden_drill_opts *o, struct bg_check *b)
{
	check_argv(o, b->argv);
	b->on = golden_child_spawn(&b->ch, exec_check, NULL, b->argv) == 0;
	b->ch.deadline = golden_child_now_ms() + VALIDATE_MS;
}

/* Reap it when it is done, kill it past its deadline; wait: until then. */
static void bg_poll(struct bg_check *b, bool wait)
{
	while (b->on) {
		if (waitpid(b->ch.pid, NULL, WNOHANG) == b->ch.pid) {
			b->on = false;
		} else if (golden_child_now_ms() >= b->ch.deadline) {
			golden_child_kill(b->ch.pid);
			b->on = false;
		} else if (wait) {
			struct timespec ts = {0, 20 * 1000000L};

			nanosleep(&ts, NULL);
			continue;
		}
		if (!b->on)
			close(b->ch.fd);
		break;
	}
}

/* SIGINT, SIGTERM and SIGHUP wait while a staged fault is in place: the
 * drill takes its fault away before it ends. */
static bool interrupted(void)
{
	sigset_t p;

	return sigpending(&p) == 0 &&
	       (sigismember(&p, SIGINT) || sigismember(&p, SIGTERM) || sigismember(&p, SIGHUP));
}

static void save(const struct golden_drill_opts *o, const struct golden_drill *d)
{
	struct golden_drills *ds = malloc(sizeof(*ds));
	int lock = golden_ledger_lock(o->state_dir);

	if (ds && lock >= 0 && golden_drills_load(o->state_dir, ds) == 0) {
		struct golden_drill *cur = golden_drills_find(ds, d->id);

		if (cur)
			*cur = *d;
		else
			golden_drills_add(ds, d);
		golden_drills_save(o->state_dir, ds);
	}
	golden_ledger_unlock(lock);
	free(ds);
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

/* Detect and drain (or the guard holding the drain back); then the probe
 * and the running jobs. bg: the health check the drill started, or NULL. */
static void observe_drain(const struct golden_drill_opts *o, struct golden_drill *d,
                          const char *jobs, long long deadline, struct bg_check *bg,
                          unsigned long guard_before)
{
	struct golden_hold h;
	struct golden_node_state st;
	struct golden_err e = {{0}};

	while (golden_epoch_ms() < deadline && !d->drained_ms && !interrupted()) {
		if (bg)
			bg_poll(bg, false);
		if (!d->detected_ms &&
		    decided(o, d, &h, guard_before, d->guard, sizeof(d->guard))) {
			d->detected_ms = h.decided_ms ? h.decided_ms : golden_epoch_ms();
			golden_strlcpy(d->reason, h.reason, sizeof(d->reason));
			say(o, "detected: golden decided '%s' after %lld ms (%s)", h.reason,
			    golden_drill_detect_ms(d), h.source);
		}
		if (!d->detected_ms && d->guard[0]) {
			say(o, "suppressed by guard: %s", d->guard);
			break;
		}
		if (d->detected_ms &&
		    golden_scontrol_show_node(o->conf->scontrol, o->node, QUERY_MS, &st, &e) == 0 &&
		    strstr(st.state, "DRAIN") && !strcmp(st.reason, d->reason)) {
			d->drained_ms = golden_epoch_ms();
			say(o, "drained: Slurm shows %s '%s' after %lld ms", st.state, st.reason,
			    golden_drill_drain_ms(d));
			break;
		}
		sleep_ms(POLL_MS);
	}
	if (!d->drained_ms)
		return;
	if (jobs[0]) {
		d->job_kept = jobs_still_running(o, jobs);
		say(o, "running job(s) %s: %s", jobs,
		    d->job_kept ? "still running after the drain" : "NOT running any more");
	}
	if (o->probe) {
		d->probe = probe_node(o);
		say(o, "a new job asking for %s: %s", o->node,
		    d->probe == 1   ? "refused (the node takes no new work)"
		    : d->probe == 0 ? "RAN THERE"
		                    : "could not be tried (no srun)");
	}
}

static void observe_return(const struct golden_drill_opts *o, struct golden_drill *d,
                           long long deadline)
{
	struct golden_node_state st;
	struct golden_err e = {{0}};

	if (o->validate_now && o->golden && o->golden[0]) {
		say(o, "validating: %s check --healthcheck --node %s", o->golden, o->node);
		validate_now(o);
	}
	while (golden_epoch_ms() < deadline && !interrupted()) {
		if (golden_scontrol_show_node(o->conf->scontrol, o->node, QUERY_MS, &st, &e) == 0 &&
		    !st.drained_or_down) {
			d->returned_ms = golden_epoch_ms();
			say(o, "returned: Slurm shows %s after %lld ms", st.state,
			    golden_drill_return_ms(d));
			return;
		}
		sleep_ms(POLL_MS * 5);
	}
}

void golden_drill_judge(struct golden_drill *d, const struct golden_conf_fleet *t)
{
	char *v = d->verdict;
	size_t len = sizeof(d->verdict), n = 0;
	long long ms;

#define MISS(...)                                                                                  \
	do {                                                                                       \
		if (n < len)                                                                       \
			n += (size_t)snprintf(v + n, len - n, "%s", n ? "; " : "");                \
		if (n < len)                                                                       \
			n += (size_t)snprintf(v + n, len - n, __VA_ARGS__);                        \
	} while (0)
	v[0] = '\0';
	if (!d->detected_ms && !d->guard[0])
		MISS("never detected");
	else if ((ms = golden_drill_detect_ms(d)) >
	         (long long)t->drill_detect_ms + d->detect_allow_ms) {
		if (d->detect_allow_ms > 0)
			MISS("detect %lld ms > %d ms (%d + the %s check's %d ms deadline)", ms,
			     t->drill_detect_ms + d->detect_allow_ms, t->drill_detect_ms, d->check,
			     d->detect_allow_ms);
		else
			MISS("detect %lld ms > %d ms", ms, t->drill_detect_ms);
	}
	if (!d->drained_ms && d->guard[0])
		MISS("suppressed by guard (%.180s)", d->guard);
	else if (!d->drained_ms)
		MISS("NEVER DRAINED");
	else if ((ms = golden_drill_drain_ms(d)) >
	         (long long)t->drill_drain_ms + d->detect_allow_ms)
		MISS("drain %lld ms > %d ms", ms, t->drill_drain_ms + d->detect_allow_ms);
	if (d->job_kept == 0)
		MISS("the running job did not survive the drain");
	if (d->probe == 0)
		MISS("a new job ran on the drained node");
	if (d->return_auto && d->drained_ms) {
		if (!d->returned_ms)
			MISS("never returned to service");
		else if ((ms = golden_drill_return_ms(d)) > (long long)t->drill_return_s * 1000)
			MISS("return %lld s > %d s", ms / 1000, t->drill_return_s);
	}
#undef MISS
	d->passed = v[0] == '\0';
	if (d->passed)
		golden_strlcpy(v, "pass", len);
}

/* Does the node's health check run the check that must catch the fault?
 * Off in golden.conf (check.NAME = off, or its phases without the health
 * check), the drill would fail by design. *deadline: the check's deadline. */
static int check_runs(const struct golden_drill_opts *o, const char *name, int *deadline,
                      struct golden_err *err)
{
	const struct golden_check *c = golden_check_find(name);
	unsigned phases = 0;

	*deadline = 0;
	if (!c || !golden_conf_check(o->conf, c, deadline, &phases) ||
	    !(phases & GOLDEN_PHASE_HEALTH_ANY))
		return golden_err_set(err,
		                      "golden.conf turns the %s check off for the health check: "
		                      "nothing would catch the fault, the drill would fail by "
		                      "design",
		                      name);
	return 0;
}

/* What the drill targets: the GPU's line, or the staged fault checked.
 * *allow_ms: what the detect and drain targets allow beyond themselves (a
 * hung mount shows only as the mounts check's timeout: its deadline). */
static int prepare(const struct golden_drill_opts *o, struct golden_topo *topo,
                   struct golden_drill_fault *f, char *line, size_t len, int *allow_ms,
                   struct golden_err *err)
{
	int deadline;

	*allow_ms = 0;
	if (o->fault == GOLDEN_DRILL_MOUNT) {
		if (check_runs(o, "mounts", &deadline, err) < 0)
			return -1;
		*allow_ms = deadline;
		return golden_drill_fault_mount(f, o->conf->fleet.drill_mount, o->sysroot, err);
	}
	if (o->fault == GOLDEN_DRILL_RAIL && check_runs(o, "ib-ports", &deadline, err) < 0)
		return -1;
	if (golden_node_discover(o->topology, o->sysroot, o->conf->discovery_deadline_ms, topo) !=
	    0)
		return golden_err_set(err, "cannot read %s's topology (golden topo says why)",
		                      o->node);
	if (o->fault == GOLDEN_DRILL_RAIL)
		return golden_drill_fault_rail(f, topo, o->sysroot, o->rail, err);
	if (o->gpu < 0 || o->gpu >= topo->ngpus)
		return golden_err_set(err, "--gpu %d: %s has %d GPU(s) (0-%d)", o->gpu, o->node,
		                      topo->ngpus, topo->ngpus - 1);
	if (golden_drill_line(o->xid, topo->gpus[o->gpu].busid, line, len) < 0)
		return golden_err_set(err, "XID %d is not in NVIDIA's catalogue", o->xid);
	return 0;
}

/* Take the staged fault away (nothing for an XID), saying so. */
static void withdraw(const struct golden_drill_opts *o, struct golden_drill_fault *f)
{
	struct golden_err e = {{0}};

	if (!f->staged)
		return;
	if (golden_drill_fault_withdraw(f, &e) < 0)
		say(o, "COULD NOT TAKE THE FAULT AWAY: %s", e.msg);
	else
		say(o, "fault taken away: %s is as before the drill", f->target);
}

int golden_drill_run(const struct golden_drill_opts *o, struct golden_drill *d,
                     struct golden_err *err)
{
	struct golden_topo *topo = malloc(sizeof(*topo));
	struct golden_drills *ds = malloc(sizeof(*ds));
	struct golden_drill_fault *f = calloc(1, sizeof(*f));
	struct bg_check bg = {.on = false};
	struct golden_kmsg_stats st;
	char line[256] = "", jobs[256] = "";
	long long deadline;
	time_t now = time(NULL);
	struct tm tm;
	unsigned long guarded = 0;
	int allow_ms = 0;
	bool staged = o->fault != GOLDEN_DRILL_XID;
	sigset_t sigs, old;
	int lock = -1, rc = 1;

	memset(d, 0, sizeof(*d));
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	if (staged)
		sigprocmask(SIG_BLOCK, &sigs, &old);
	if (!topo || !ds || !f) {
		golden_err_set(err, "out of memory");
		goto out;
	}
	if (refuse(o, err) < 0 || prepare(o, topo, f, line, sizeof(line), &allow_ms, err) < 0)
		goto out;
	/* One drill at a time, checked and recorded under the ledger's lock. */
	lock = golden_ledger_lock(o->state_dir);
	if (lock < 0) {
		golden_err_set(err, "%s: cannot lock the ledger", o->state_dir);
		goto out;
	}
	if (refuse_locked(o, ds, &guarded, err) < 0)
		goto out;
	gmtime_r(&now, &tm);
	strftime(d->id, sizeof(d->id), "%Y%m%dT%H%M%S", &tm);
	snprintf(d->id + strlen(d->id), sizeof(d->id) - strlen(d->id), "-%.14s", o->node);
	golden_strlcpy(d->node, o->node, sizeof(d->node));
	d->kind = o->fault;
	if (staged) {
		golden_strlcpy(d->what, f->what, sizeof(d->what));
		golden_strlcpy(d->check, f->check, sizeof(d->check));
		golden_strlcpy(d->target, f->target, sizeof(d->target));
		snprintf(line, sizeof(line), "%s", f->what);
	} else {
		d->xid = o->xid;
		snprintf(d->what, sizeof(d->what), "xid%d gpu%d %s", o->xid, o->gpu,
		         topo->gpus[o->gpu].busid);
		golden_strlcpy(d->check, "xid", sizeof(d->check));
		golden_strlcpy(d->target, topo->gpus[o->gpu].busid, sizeof(d->target));
	}
	d->detect_allow_ms = allow_ms;
	d->return_auto = o->return_auto;
	d->state = GOLDEN_DRILL_RUNNING;
	d->pid = (long)getpid();
	d->job_kept = -1;
	d->probe = -1;
	golden_kmsg_scan(NULL, NULL, NULL, false, NULL, NULL, &st);
	/* The boot as the lifecycle names it in a drain it decides (the
	 * node's sysroot's boot id, as for its reboot class). */
	golden_kmsg_boot_id(o->sysroot[0] ? o->sysroot : NULL, d->boot_id, sizeof(d->boot_id));
	d->seq_before = st.last_seq;
	if (o->allow_busy)
		running_jobs(o, jobs, sizeof(jobs));
	golden_drills_add(ds, d);
	if (golden_drills_save(o->state_dir, ds) < 0) {
		golden_err_set(err, "%s/%s: cannot write", o->state_dir, GOLDEN_DRILLS);
		goto out;
	}
	golden_ledger_unlock(lock);
	lock = -1;

	rc = -1;
	say(o, "drill %s on %s: %s", d->id, o->node, line);
	if (staged) {
		d->injected_ms = golden_epoch_ms();
		if (golden_drill_fault_stage(f, err) < 0) {
			d->state = GOLDEN_DRILL_ABANDONED;
			golden_strlcpy(d->verdict, err->msg, sizeof(d->verdict));
			save(o, d);
			goto out;
		}
		say(o, "staged: %s (the %s check must catch it)", f->what, f->check);
	} else {
		if (inject(o, line, d, err) < 0) {
			d->state = GOLDEN_DRILL_ABANDONED;
			golden_strlcpy(d->verdict, err->msg, sizeof(d->verdict));
			save(o, d);
			goto out;
		}
		say(o, "injected: kernel log record %llu", (unsigned long long)d->seq);
	}
	save(o, d);
	deadline = d->injected_ms +
	           (long long)(o->timeout_s ? o->timeout_s : o->conf->fleet.drill_timeout_s) * 1000;
	/* Nothing watches ports and mounts between health checks: the check
	 * the drill runs is detection's production path, not its schedule. */
	if (staged && o->validate_now && o->golden && o->golden[0]) {
		say(o, "checking: %s check --healthcheck --node %s", o->golden, o->node);
		bg_start(o, &bg);
	} else if (staged) {
		say(o,
		    "waiting for %s's next health check (HealthCheckInterval) or prolog; "
		    "--validate-now runs it now",
		    o->node);
	}
	observe_drain(o, d, jobs, deadline, bg.on ? &bg : NULL, guarded);
	bg_poll(&bg, true);
	if (interrupted())
		goto interrupted;
	/* A staged fault ends once the drain is seen: as a port or a mount
	 * that recovers, the node's next passing health check returns it. */
	withdraw(o, f);
	if (d->drained_ms && d->return_auto) {
		observe_return(o, d, deadline);
		if (interrupted())
			goto interrupted;
	} else if (d->drained_ms && staged)
		say(o,
		    "--return manual: %s stays drained until its next passing health check "
		    "(HealthCheckInterval), as after a real %s that recovers",
		    o->node, d->kind == GOLDEN_DRILL_RAIL ? "port" : "mount");
	else if (d->drained_ms)
		say(o,
		    "--return manual: %s stays drained for a person "
		    "(scontrol update NodeName=%s State=RESUME)",
		    o->node, o->node);
	d->ended_ms = golden_epoch_ms();
	d->state = GOLDEN_DRILL_DONE;
	golden_drill_judge(d, &o->conf->fleet);
	save(o, d);
	rc = 0;
	goto out;
interrupted:
	/* SIGINT, SIGTERM or SIGHUP (held while a fault is staged): the drill
	 * ends here, its fault taken away, and says so rather than judging a
	 * drill it did not finish. */
	withdraw(o, f);
	d->ended_ms = golden_epoch_ms();
	d->state = GOLDEN_DRILL_ABANDONED;
	golden_strlcpy(d->verdict, "interrupted by a signal; the staged fault was taken away",
	               sizeof(d->verdict));
	golden_err_set(err, "interrupted: the staged fault was taken away");
	save(o, d);
out:
	if (f)
		withdraw(o, f);
	bg_poll(&bg, true);
	golden_ledger_unlock(lock);
	if (staged) {
		/* Drop the signals that arrived, now that nothing is staged: the
		 * drill is over and says how it ended. */
		struct timespec zero = {0, 0};

		while (sigtimedwait(&sigs, NULL, &zero) > 0)
			;
		sigprocmask(SIG_SETMASK, &old, NULL);
	}
	free(f);
	free(topo);
	free(ds);
	return rc;
}
