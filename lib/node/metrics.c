#include <config.h>

#include "node/metrics.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "active/report.h"
#include "node/active_run.h"
#include "util/statefile.h"
#include "util/strutil.h"

struct buf {
	char *p;
	size_t len, cap;
	bool full;
};

static void __attribute__((format(printf, 2, 3))) add(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->full)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= b->cap - b->len)
		b->full = true;
	else
		b->len += (size_t)n;
}

/* Label values: the exposition format escapes \, " and newline. */
static void label(const char *in, char *out, size_t len)
{
	size_t o = 0;

	for (; *in && o + 3 < len; in++) {
		if (*in == '\\' || *in == '"') {
			out[o++] = '\\';
			out[o++] = *in;
		} else if (*in == '\n') {
			out[o++] = '\\';
			out[o++] = 'n';
		} else {
			out[o++] = *in;
		}
	}
	out[o] = '\0';
}

static void family(struct buf *b, const char *name, const char *type, const char *help)
{
	add(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A family with one sample, labelled by node; counts stay exact in a
 * double up to 2^53. */
static void one(struct buf *b, const char *name, const char *type, const char *help,
                const char *node, double v, int decimals)
{
	family(b, name, type, help);
	add(b, "%s{node=\"%s\"} %.*f\n", name, node, decimals, v);
}

static int write_file(const char *dir, const char *name, struct buf *b)
{
	char path[PATH_MAX];

	if (b->full) {
		errno = ENOSPC;
		return -1;
	}
	if (golden_path_join(path, sizeof(path), dir, name) < 0)
		return -1;
	/* node_exporter runs unprivileged: the directory and files are
	 * readable. Created or trusted like every directory of golden's
	 * (util/safedir): no symlink, not writable by others. */
	if (golden_state_dir(dir, 0755, NULL) < 0)
		return -1;
	return golden_write_atomic_mode(path, b->p, b->len, 0644);
}

int golden_metrics_checks(const char *dir, const char *node, const char *phase,
                          const struct golden_run_report *rep)
{
	char name[96], n[128], ph[32];
	struct buf b = {malloc(65536), 0, 65536, false};
	int rc;

	if (!b.p)
		return -1;
	label(node, n, sizeof(n));
	label(phase, ph, sizeof(ph));
	/* A state is a label with one series per state (node_exporter's
	 * convention, as node_systemd_unit_state): alerts match
	 * {state="fail"} == 1 instead of knowing a code. */
	family(&b, "slurm_golden_check_status", "gauge",
	       "Last result of each health check: 1 for its state (ok, warn, fail), 0 for the "
	       "others.");
	for (int i = 0; i < rep->n; i++)
		for (int st = GOLDEN_ST_OK; st <= GOLDEN_ST_FAIL; st++)
			add(&b,
			    "slurm_golden_check_status{node=\"%s\",phase=\"%s\",check=\"%s\","
			    "state=\"%s\"} %d\n",
			    n, ph, rep->out[i].chk->name,
			    golden_check_status_name((enum golden_status)st),
			    rep->out[i].res.status == (enum golden_status)st);
	family(&b, "slurm_golden_check_duration_seconds", "gauge",
	       "How long each check took in its last run.");
	for (int i = 0; i < rep->n; i++)
		add(&b,
		    "slurm_golden_check_duration_seconds{node=\"%s\",phase=\"%s\",check=\"%s\"} "
		    "%.3f\n",
		    n, ph, rep->out[i].chk->name, rep->out[i].duration_ms / 1000.0);
	family(&b, "slurm_golden_check_timed_out", "gauge",
	       "1 if the check was killed at its deadline in its last run.");
	for (int i = 0; i < rep->n; i++)
		add(&b, "slurm_golden_check_timed_out{node=\"%s\",phase=\"%s\",check=\"%s\"} %d\n",
		    n, ph, rep->out[i].chk->name, rep->out[i].timed_out ? 1 : 0);
	family(&b, "slurm_golden_run_duration_seconds", "gauge", "The whole run.");
	add(&b, "slurm_golden_run_duration_seconds{node=\"%s\",phase=\"%s\"} %.3f\n", n, ph,
	    rep->total_ms / 1000.0);
	family(&b, "slurm_golden_run_timestamp_seconds", "gauge", "When the run ended.");
	add(&b, "slurm_golden_run_timestamp_seconds{node=\"%s\",phase=\"%s\"} %lld\n", n, ph,
	    (long long)time(NULL));
	snprintf(name, sizeof(name), "slurm_golden_checks_%s.prom", phase);
	rc = write_file(dir, name, &b);
	free(b.p);
	return rc;
}

int golden_metrics_lifecycle(const char *dir, const char *node, const struct golden_ledger *l)
{
	struct buf b = {malloc(32768), 0, 32768, false};
	const struct golden_hold *h = &l->hold;
	char n[128];
	int rc;

	if (!b.p)
		return -1;
	label(node, n, sizeof(n));
	family(&b, "slurm_golden_drains_total", "counter",
	       "Drains golden decided, by the check whose failure caused them.");
	for (int i = 0; i < l->ndrains; i++)
		add(&b, "slurm_golden_drains_total{node=\"%s\",check=\"%s\"} %lu\n", n,
		    l->drains[i].name, l->drains[i].n);
	family(&b, "slurm_golden_resumes_total", "counter",
	       "Nodes golden returned to service, by the class of the fault that cleared.");
	for (int c = 0; c < GOLDEN_HOLD_NCLASSES; c++)
		add(&b, "slurm_golden_resumes_total{node=\"%s\",class=\"%s\"} %lu\n", n,
		    golden_hold_class_name((enum golden_hold_class)c), l->resumes[c]);
	one(&b, "slurm_golden_left_alone_total", "counter",
	    "Failures on a node someone else had drained or downed: not touched.", n,
	    (double)l->left_foreign, 0);
	one(&b, "slurm_golden_guard_suppressed_total", "counter",
	    "Drains the blast-radius guard held back: a suspected shared cause (mounts, IB, "
	    "bootstrap) already drained enough of the partition.",
	    n, (double)l->guard_suppressed, 0);
	family(&b, "slurm_golden_drained", "gauge",
	       "1 while golden holds a drain of this node, by the class that decides its end.");
	for (int c = 0; c < GOLDEN_HOLD_NCLASSES; c++)
		add(&b, "slurm_golden_drained{node=\"%s\",class=\"%s\"} %d\n", n,
		    golden_hold_class_name((enum golden_hold_class)c),
		    h->active && h->applied && (int)h->cls == c ? 1 : 0);
	one(&b, "slurm_golden_drain_pending", "gauge",
	    "1 while a drain is owed because slurmctld did not take it.", n,
	    h->active && !h->applied ? 1 : 0, 0);
	one(&b, "slurm_golden_drain_since_timestamp_seconds", "gauge",
	    "When the held or owed drain was decided (0: none).", n,
	    h->active ? (double)h->time : 0, 0);
	rc = write_file(dir, "slurm_golden_lifecycle.prom", &b);
	free(b.p);
	return rc;
}

int golden_metrics_watch(const char *dir, const char *node, const struct golden_watch_stats *w)
{
	const struct {
		const char *name, *type, *help;
		double v;
		int decimals;
	} rows[] = {
	    {"slurm_golden_watch_up", "gauge", "golden-watch is running (since).", 1, 0},
	    {"slurm_golden_watch_start_timestamp_seconds", "gauge", "When it started.",
	     (double)w->started, 0},
	    {"slurm_golden_watch_lag_seconds", "gauge",
	     "Kernel timestamp of the last record to the moment golden-watch handled it.",
	     w->last_lag_s, 6},
	    {"slurm_golden_watch_lag_max_seconds", "gauge", "The worst lag since start.",
	     w->max_lag_s, 6},
	    {"slurm_golden_watch_records_total", "counter", "Kernel log records read.",
	     (double)w->records, 0},
	    {"slurm_golden_watch_missed_records_total", "counter",
	     "Records overwritten in the kernel ring buffer before golden-watch read them.",
	     (double)w->missed, 0},
	    {"slurm_golden_watch_overruns_total", "counter",
	     "Times /dev/kmsg said EPIPE (our position was overwritten).", (double)w->epipe, 0},
	    {"slurm_golden_watch_fault_lines_total", "counter",
	     "NVIDIA GPU/NVSwitch fault lines seen.", (double)w->faults, 0},
	    {"slurm_golden_watch_stall_lines_total", "counter",
	     "Kernel stall signature lines seen (teardown-stall probe).", (double)w->stalls, 0},
	    {"slurm_golden_watch_check_runs_total", "counter", "Check runs those lines triggered.",
	     (double)w->triggers, 0},
	    {"slurm_golden_watch_drain_pending", "gauge",
	     "1 while golden-watch retries a drain slurmctld did not take.", w->pending ? 1 : 0, 0},
	};
	struct buf b = {malloc(16384), 0, 16384, false};
	char n[128];
	int rc;

	if (!b.p)
		return -1;
	label(node, n, sizeof(n));
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		one(&b, rows[i].name, rows[i].type, rows[i].help, n, rows[i].v, rows[i].decimals);
	rc = write_file(dir, "slurm_golden_watch.prom", &b);
	free(b.p);
	return rc;
}

/* The outcomes of an active check, as slurm_golden_active_runs_total's
 * label; "never" until the first run. */
static const char *const active_outcomes[] = {"pass", "fail", "error", "interrupted", "never"};

int golden_metrics_active(const char *dir, const char *node, const struct golden_active_record *rec)
{
	const struct golden_active_report *r = &rec->report;
	struct buf b = {malloc(131072), 0, 131072, false};
	char n[128], name[96];
	int rc;

	if (!b.p)
		return -1;
	label(node, n, sizeof(n));
	family(&b, "slurm_golden_active_last_outcome", "gauge",
	       "The last active check: 1 for its outcome (pass; fail; error: could not judge; "
	       "interrupted: preempted; never: not run yet), 0 for the others.");
	for (size_t i = 0; i < sizeof(active_outcomes) / sizeof(active_outcomes[0]); i++) {
		const char *o = active_outcomes[i];
		bool is =
		    rec->last_outcome[0] ? !strcmp(rec->last_outcome, o) : !strcmp(o, "never");

		add(&b, "slurm_golden_active_last_outcome{node=\"%s\",outcome=\"%s\"} %d\n", n, o,
		    is);
	}
	one(&b, "slurm_golden_active_last_run_timestamp_seconds", "gauge",
	    "When the last active check ended (0: never).", n, (double)rec->last_time, 0);
	one(&b, "slurm_golden_active_last_pass_timestamp_seconds", "gauge",
	    "When an active check last passed (0: never).", n, (double)rec->last_pass, 0);
	one(&b, "slurm_golden_active_duration_seconds", "gauge", "How long the last run took.", n,
	    rec->last_duration_ms / 1000.0, 3);
	family(&b, "slurm_golden_active_runs_total", "counter", "Active checks by outcome.");
	add(&b, "slurm_golden_active_runs_total{node=\"%s\",outcome=\"pass\"} %lu\n", n,
	    rec->passes);
	add(&b, "slurm_golden_active_runs_total{node=\"%s\",outcome=\"fail\"} %lu\n", n,
	    rec->fails);
	add(&b, "slurm_golden_active_runs_total{node=\"%s\",outcome=\"error\"} %lu\n", n,
	    rec->errors);
	add(&b, "slurm_golden_active_runs_total{node=\"%s\",outcome=\"interrupted\"} %lu\n", n,
	    rec->interruptions);
	if (rec->have_report) {
		family(
		    &b, "slurm_golden_active_value", "gauge",
		    "The last judged run's figure per GPU and test, in the test's unit (hbm TB/s, "
		    "bf16/tf32 TFLOP/s, h2d/d2h/p2p GB/s, mem: wrong words); the same labels as "
		    "slurm_golden_active_floor, so value < floor compares directly.");
		for (int g = 0; g < r->ngpus; g++)
			for (int t = 0; t < GOLDEN_ACTIVE_NTESTS; t++) {
				const struct golden_active_figure *f = &r->gpu[g].fig[t];

				if (!f->measured)
					continue;
				add(&b,
				    "slurm_golden_active_value{node=\"%s\",gpu=\"%d\",test=\"%s\"} "
				    "%.4f\n",
				    n, r->gpu[g].index,
				    golden_active_test_name((enum golden_active_test)t), f->value);
			}
		family(&b, "slurm_golden_active_floor", "gauge",
		       "The expectation table's floor for that figure (absent: no entry).");
		for (int g = 0; g < r->ngpus; g++)
			for (int t = 0; t < GOLDEN_ACTIVE_NTESTS; t++)
				if (r->gpu[g].fig[t].expect_min > 0)
					add(&b,
					    "slurm_golden_active_floor{node=\"%s\",gpu=\"%d\",test="
					    "\"%s\"} "
					    "%.4f\n",
					    n, r->gpu[g].index,
					    golden_active_test_name((enum golden_active_test)t),
					    r->gpu[g].fig[t].expect_min);
		family(&b, "slurm_golden_active_figure_ok", "gauge",
		       "1 if the figure passed, 0 if it failed (low, wrong, error, hung).");
		for (int g = 0; g < r->ngpus; g++)
			for (int t = 0; t < GOLDEN_ACTIVE_NTESTS; t++) {
				enum golden_active_verdict v = r->gpu[g].fig[t].verdict;

				if (v == GOLDEN_ACTIVE_V_NONE)
					continue;
				add(&b,
				    "slurm_golden_active_figure_ok{node=\"%s\",gpu=\"%d\",test=\"%"
				    "s\"} "
				    "%d\n",
				    n, r->gpu[g].index,
				    golden_active_test_name((enum golden_active_test)t),
				    v == GOLDEN_ACTIVE_V_OK);
			}
		if (r->nccl.measured)
			one(&b, "slurm_golden_active_nccl_busbw_bytes_per_second", "gauge",
			    "All-reduce bus bandwidth inside the node in the last judged run.", n,
			    r->nccl.busbw_gbps * 1e9, 0);
	}
	snprintf(name, sizeof(name), "slurm_golden_active.prom");
	rc = write_file(dir, name, &b);
	free(b.p);
	return rc;
}
