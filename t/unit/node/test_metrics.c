/* The node's Prometheus textfiles (node/metrics): states as labels, one
 * series per state; the same label set for a figure and its floor; base
 * units. With GOLDEN_METRICS_KEEP=DIR the files are written there and left
 * for t/metrics.bats, which lints them with promtool. */
#include <config.h>

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "health/check.h"
#include "health/check_run.h"
#include "node/active_run.h"
#include "node/ledger.h"
#include "node/metrics.h"
#include "t/unit/tap.h"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	static char buf[131072];
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static bool has(const char *text, const char *line)
{
	return text && strstr(text, line);
}

/* The check_status series of check in state, with value v. */
static const char *status_line(char *buf, size_t len, const char *check, const char *state, int v)
{
	snprintf(buf, len,
	         "slurm_golden_check_status{node=\"n1\",phase=\"healthcheck\",check=\"%s\","
	         "state=\"%s\"} %d\n",
	         check, state, v);
	return buf;
}

static void test_checks(const char *dir)
{
	struct golden_run_report *rep = calloc(1, sizeof(*rep));
	char path[1100], a[256], b[256];
	const char *t;

	rep->n = 3;
	rep->out[0].chk = &golden_xid_checks[0];
	rep->out[0].res.status = GOLDEN_ST_OK;
	rep->out[1].chk = &golden_fabric_checks[0];
	rep->out[1].res.status = GOLDEN_ST_FAIL;
	rep->out[1].duration_ms = 1250;
	rep->out[1].timed_out = true;
	rep->out[2].chk = &golden_storage_checks[0];
	rep->out[2].res.status = GOLDEN_ST_WARN;
	rep->total_ms = 1300;
	is_int(golden_metrics_checks(dir, "n1", "healthcheck", rep), 0, "checks textfile written");
	snprintf(path, sizeof(path), "%s/slurm_golden_checks_healthcheck.prom", dir);
	t = slurp(path);
	ok(has(t, status_line(a, sizeof(a), golden_xid_checks[0].name, "ok", 1)) &&
	       has(t, status_line(b, sizeof(b), golden_xid_checks[0].name, "fail", 0)),
	   "an ok check: 1 for ok, 0 for fail");
	ok(has(t, status_line(a, sizeof(a), golden_fabric_checks[0].name, "fail", 1)),
	   "a failed check: 1 for fail");
	ok(has(t, status_line(a, sizeof(a), golden_storage_checks[0].name, "warn", 1)),
	   "a warning: 1 for warn");
	ok(has(t, "# TYPE slurm_golden_check_status gauge\n"), "TYPE line");
	ok(has(t, "slurm_golden_check_duration_seconds{node=\"n1\",phase=\"healthcheck\",check=") &&
	       has(t, "} 1.250\n"),
	   "duration in seconds");
	free(rep);
}

static void test_active(const char *dir)
{
	struct golden_active_record *rec = calloc(1, sizeof(*rec));
	struct golden_active_report *r = &rec->report;
	char path[1100];
	const char *t;

	is_int(golden_metrics_active(dir, "n2", rec), 0, "active textfile written (never ran)");
	snprintf(path, sizeof(path), "%s/slurm_golden_active.prom", dir);
	t = slurp(path);
	ok(has(t, "slurm_golden_active_last_outcome{node=\"n2\",outcome=\"never\"} 1\n") &&
	       has(t, "slurm_golden_active_last_outcome{node=\"n2\",outcome=\"pass\"} 0\n"),
	   "never ran: outcome never");

	strcpy(rec->last_outcome, "fail");
	rec->last_time = 1764750000;
	rec->runs = 2;
	rec->passes = 1;
	rec->fails = 1;
	rec->have_report = true;
	r->ngpus = 1;
	r->gpu[0].index = 3;
	strcpy(r->gpu[0].busid, "0000:13:00.0");
	r->gpu[0].fig[GOLDEN_ACTIVE_HBM].measured = true;
	r->gpu[0].fig[GOLDEN_ACTIVE_HBM].value = 2.1;
	r->gpu[0].fig[GOLDEN_ACTIVE_HBM].expect_min = 2.7;
	r->gpu[0].fig[GOLDEN_ACTIVE_HBM].verdict = GOLDEN_ACTIVE_V_LOW_TABLE;
	r->nccl.measured = true;
	r->nccl.busbw_gbps = 480.5;
	is_int(golden_metrics_active(dir, "n2", rec), 0, "active textfile written (a failure)");
	t = slurp(path);
	ok(has(t, "slurm_golden_active_last_outcome{node=\"n2\",outcome=\"fail\"} 1\n") &&
	       has(t, "slurm_golden_active_last_outcome{node=\"n2\",outcome=\"never\"} 0\n"),
	   "the last outcome is the 1");
	ok(has(t, "slurm_golden_active_value{node=\"n2\",gpu=\"3\",test=\"hbm\"} 2.1000\n") &&
	       has(t, "slurm_golden_active_floor{node=\"n2\",gpu=\"3\",test=\"hbm\"} 2.7000\n"),
	   "a figure and its floor carry the same labels");
	ok(has(t, "slurm_golden_active_figure_ok{node=\"n2\",gpu=\"3\",test=\"hbm\"} 0\n"),
	   "the low figure is not ok");
	ok(has(t, "slurm_golden_active_nccl_busbw_bytes_per_second{node=\"n2\"} 480500000000\n"),
	   "bus bandwidth in bytes per second");
	ok(t && !strstr(t, "unit=") && !strstr(t, "busid="), "no label another one implies");
	free(rec);
}

static void test_lifecycle_watch(const char *dir)
{
	struct golden_ledger *l = calloc(1, sizeof(*l));
	struct golden_watch_stats w;
	char path[1100];
	const char *t;

	golden_ledger_count_drain(l, "xid");
	l->hold.active = true;
	l->hold.applied = true;
	l->hold.cls = GOLDEN_HOLD_RESET;
	is_int(golden_metrics_lifecycle(dir, "n3", l), 0, "lifecycle textfile written");
	snprintf(path, sizeof(path), "%s/slurm_golden_lifecycle.prom", dir);
	t = slurp(path);
	/* The class label names what `golden status` and the ledger call it. */
	ok(has(t, "slurm_golden_drained{node=\"n3\",class=\"reset\"} 1\n") &&
	       has(t, "slurm_golden_drained{node=\"n3\",class=\"reboot\"} 0\n"),
	   "the held drain's class is a label: reset (the reason's gpu-reset)");
	memset(&w, 0, sizeof(w));
	w.records = 10;
	w.last_lag_s = 0.002;
	is_int(golden_metrics_watch(dir, "n3", &w), 0, "watch textfile written");
	free(l);
}

int main(void)
{
	const char *keep = getenv("GOLDEN_METRICS_KEEP");
	char tmpl[] = "/tmp/golden-metrics.XXXXXX";
	const char *dir = keep && *keep ? keep : mkdtemp(tmpl);

	if (!dir) {
		perror("mkdtemp");
		return 1;
	}
	test_checks(dir);
	test_active(dir);
	test_lifecycle_watch(dir);
	if (!(keep && *keep))
		nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	return done_testing();
}
