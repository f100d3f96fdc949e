/* The lifecycle ledger (what golden drained, owes and did) and the
 * Prometheus textfiles built from it. */
#include <config.h>

#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "health/check_run.h"
#include "health/golden_conf.h"
#include "node/ledger.h"
#include "node/lifecycle.h"
#include "node/metrics.h"
#include "t/unit/tap.h"

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	static char buf[65536];
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

static void test_classes(void)
{
	is(golden_hold_class_name(GOLDEN_HOLD_REBOOT), "reboot", "class name reboot");
	is_int(golden_hold_class_parse("reset"), GOLDEN_HOLD_RESET, "parse reset");
	is_int(golden_hold_class_parse("bogus"), -1, "unknown class name -> -1");
	is_int(golden_hold_class_of(GOLDEN_ACTION_DRAIN_REBOOT), GOLDEN_HOLD_REBOOT,
	       "drain-reboot needs a reboot");
	is_int(golden_hold_class_of(GOLDEN_ACTION_DRAIN_RESET), GOLDEN_HOLD_RESET,
	       "drain-reset needs a GPU reset");
	is_int(golden_hold_class_of(GOLDEN_ACTION_DRAIN), GOLDEN_HOLD_TRANSIENT,
	       "plain drain is transient");
}

static void test_roundtrip(const char *dir)
{
	struct golden_ledger *l = calloc(1, sizeof(*l)), *r = calloc(1, sizeof(*r));
	struct stat st;
	char path[512];

	is_int(golden_ledger_load(dir, l), 0, "missing ledger loads as empty");
	ok(!l->hold.active && l->nhistory == 0, "... with nothing in it");
	l->hold.active = true;
	l->hold.applied = false;
	l->hold.cls = GOLDEN_HOLD_RESET;
	strcpy(l->hold.reason, "gpu3 xid95 uncontained-ecc; gpu-reset [golden]");
	strcpy(l->hold.check, "xid");
	strcpy(l->hold.code, "gpu3 xid95 uncontained-ecc");
	strcpy(l->hold.detail, "gpu3 xid95 0000:3b:00.0: \"quoted\" detail");
	strcpy(l->hold.source, "watch");
	strcpy(l->hold.boot_id, "0e6c6c4a-1111-2222-3333-444455556666");
	strcpy(l->hold.gpu_busid, "0000:3b:00.0");
	l->hold.time = 1764750000;
	l->hold.attempts = 3;
	l->hold.kmsg_seq = 18446744073709551000ULL; /* beyond int64: kept as text */
	golden_ledger_episode(l, "xid gpu3", 1764750000, 24);
	golden_ledger_note(l, 1764750000, "pending", "%s: %s", l->hold.reason, "ctld down");
	golden_ledger_count_drain(l, "xid");
	golden_ledger_count_drain(l, "xid");
	golden_ledger_count_drain(l, "ib-ports");
	l->resumes[GOLDEN_HOLD_TRANSIENT] = 4;
	l->left_foreign = 2;
	is_int(golden_ledger_save(dir, l), 0, "save");
	snprintf(path, sizeof(path), "%s/%s", dir, GOLDEN_LEDGER_FILE);
	ok(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "ledger file is 0600");
	is_int(golden_ledger_load(dir, r), 0, "load again");
	ok(r->hold.active && !r->hold.applied, "pending hold survives");
	is_int(r->hold.cls, GOLDEN_HOLD_RESET, "class survives");
	is(r->hold.reason, l->hold.reason, "reason survives exactly");
	is(r->hold.detail, l->hold.detail, "detail with quotes survives");
	is(r->hold.gpu_busid, "0000:3b:00.0", "GPU survives");
	ok(r->hold.kmsg_seq == 18446744073709551000ULL, "64-bit kmsg seq survives");
	is_int(r->hold.attempts, 3, "attempts survive");
	is_int(r->nepisodes, 1, "episode survives");
	is_int(r->nhistory, 1, "history survives");
	is(r->hist[0].event, "pending", "history event");
	is_int(r->ndrains, 2, "two drain counters");
	ok(!strcmp(r->drains[0].name, "xid") && r->drains[0].n == 2, "xid drained twice");
	ok(r->resumes[GOLDEN_HOLD_TRANSIENT] == 4 && r->left_foreign == 2, "counters survive");

	/* A corrupt file: an error, and an empty ledger (never a half one). */
	{
		FILE *f = fopen(path, "w");

		fputs("{\"hold\": {\"reason\": \"x\"", f);
		fclose(f);
	}
	is_int(golden_ledger_load(dir, r), -1, "truncated ledger is an error");
	ok(!r->hold.active, "... and loads as empty");
	free(l);
	free(r);
}

static void test_episodes_history(void)
{
	struct golden_ledger *l = calloc(1, sizeof(*l));
	long long now = 1764750000;

	golden_ledger_episode(l, "ib-ports mlx5_4", now - 30 * 3600, 48);
	golden_ledger_episode(l, "ib-ports mlx5_4", now - 2 * 3600, 48);
	golden_ledger_episode(l, "ib-ports mlx5_5", now - 3600, 48);
	is_int(golden_ledger_episodes(l, "ib-ports mlx5_4", now, 24), 1,
	       "only episodes inside the window count");
	is_int(golden_ledger_episodes(l, "ib-ports mlx5_4", now, 48), 2, "a wider window: both");
	is_int(golden_ledger_episodes(l, "xid gpu0", now, 48), 0, "another key: none");
	golden_ledger_episode(l, "xid gpu0", now, 24);
	is_int(l->nepisodes, 3, "recording prunes episodes older than keep_hours");
	for (int i = 0; i < GOLDEN_LEDGER_EPISODES + 5; i++)
		golden_ledger_episode(l, "xid gpu1", now, 24);
	is_int(l->nepisodes, GOLDEN_LEDGER_EPISODES, "episodes are bounded");

	for (int i = 0; i < GOLDEN_LEDGER_HISTORY + 3; i++)
		golden_ledger_note(l, now + i, "drained", "event %d", i);
	is_int(l->nhistory, GOLDEN_LEDGER_HISTORY, "history is bounded");
	is(l->hist[0].text, "event 3", "the oldest events fall off first");
	is(l->hist[GOLDEN_LEDGER_HISTORY - 1].text, "event 34", "the newest is last");
	free(l);
}

static void test_flap_key(void)
{
	char key[64];

	golden_lifecycle_flap_key("xid", "gpu3 xid79 offbus", key, sizeof(key));
	is(key, "xid gpu3", "flap key: check and component");
	golden_lifecycle_flap_key("ib-ports", "mlx5_4 rate 200<400", key, sizeof(key));
	is(key, "ib-ports mlx5_4", "flap key ignores the varying part");
	golden_lifecycle_flap_key("mounts", "", key, sizeof(key));
	is(key, "mounts", "no code: the check alone");
}

static void test_waiting(void)
{
	struct golden_hold h;
	struct golden_lifecycle lc = {NULL,   "n2", "/nonexistent", NULL, NULL,
	                              "test", NULL, NULL,           0};
	char buf[320];

	memset(&h, 0, sizeof(h));
	golden_lifecycle_waiting_for(&lc, &h, buf, sizeof(buf));
	is(buf, "", "no hold: waits for nothing");
	h.active = true;
	h.applied = false;
	h.attempts = 2;
	golden_lifecycle_waiting_for(&lc, &h, buf, sizeof(buf));
	ok(strstr(buf, "slurmctld to take the drain (2 failed attempts") != NULL,
	   "pending: waits for slurmctld (%s)", buf);
	h.applied = true;
	h.cls = GOLDEN_HOLD_REBOOT;
	strcpy(h.boot_id, "0e6c6c4a-1111");
	golden_lifecycle_waiting_for(&lc, &h, buf, sizeof(buf));
	ok(strstr(buf, "a reboot (boot id still 0e6c6c4a...)") != NULL, "reboot: %s", buf);
	h.cls = GOLDEN_HOLD_RESET;
	strcpy(h.gpu_busid, "0000:3b:00.0");
	golden_lifecycle_waiting_for(&lc, &h, buf, sizeof(buf));
	ok(strstr(buf, "GPU reset of 0000:3b:00.0") != NULL, "reset: %s", buf);
	h.cls = GOLDEN_HOLD_TRANSIENT;
	strcpy(h.check, "ib-ports");
	golden_lifecycle_waiting_for(&lc, &h, buf, sizeof(buf));
	ok(strstr(buf, "ib-ports passes") != NULL, "transient: %s", buf);
	h.cls = GOLDEN_HOLD_FLAPPING;
	golden_lifecycle_waiting_for(&lc, &h, buf, sizeof(buf));
	ok(strstr(buf, "never resumes a flapping node") && strstr(buf, "NodeName=n2"),
	   "flapping: an operator (%s)", buf);
}

static void test_metrics(const char *dir)
{
	struct golden_ledger *l = calloc(1, sizeof(*l));
	struct golden_watch_stats w;
	char path[1100], mdir[512];
	const char *text;
	struct stat st;

	snprintf(mdir, sizeof(mdir), "%s/textfile", dir);
	golden_ledger_count_drain(l, "xid");
	l->resumes[GOLDEN_HOLD_TRANSIENT] = 3;
	l->hold.active = true;
	l->hold.applied = true;
	l->hold.cls = GOLDEN_HOLD_REBOOT;
	l->hold.time = 1764750000;
	is_int(golden_metrics_lifecycle(mdir, "n\"2", l), 0, "lifecycle textfile written");
	snprintf(path, sizeof(path), "%s/slurm_golden_lifecycle.prom", mdir);
	ok(stat(path, &st) == 0 && (st.st_mode & 0777) == 0644,
	   "textfile readable by node_exporter (0644)");
	text = slurp(path);
	ok(text && strstr(text, "# TYPE slurm_golden_drains_total counter\n"), "TYPE line");
	ok(text && strstr(text, "slurm_golden_drains_total{node=\"n\\\"2\",check=\"xid\"} 1\n"),
	   "drains by check, label value escaped");
	ok(text &&
	       strstr(text, "slurm_golden_resumes_total{node=\"n\\\"2\",class=\"transient\"} 3"),
	   "resumes by class");
	ok(text && strstr(text, "slurm_golden_drained{node=\"n\\\"2\",class=\"reboot\"} 1") &&
	       strstr(text, "slurm_golden_drained{node=\"n\\\"2\",class=\"transient\"} 0"),
	   "the held drain's class is 1, the others 0");
	ok(text && strstr(text, "slurm_golden_drain_pending{node=\"n\\\"2\"} 0"), "not pending");

	memset(&w, 0, sizeof(w));
	w.records = 1234;
	w.missed = 56;
	w.epipe = 2;
	w.last_lag_s = 0.0125;
	is_int(golden_metrics_watch(mdir, "n2", &w), 0, "watch textfile written");
	snprintf(path, sizeof(path), "%s/slurm_golden_watch.prom", mdir);
	text = slurp(path);
	ok(text && strstr(text, "slurm_golden_watch_records_total{node=\"n2\"} 1234\n") &&
	       strstr(text, "slurm_golden_watch_missed_records_total{node=\"n2\"} 56\n") &&
	       strstr(text, "slurm_golden_watch_overruns_total{node=\"n2\"} 2\n") &&
	       strstr(text, "slurm_golden_watch_lag_seconds{node=\"n2\"} 0.012500\n"),
	   "watch counters and lag");
	free(l);
}

/* Whatever the ledger file holds: values of the wrong type, nulls and
 * extreme times are unknown (empty, 0), never a crash and never a signed
 * overflow (this runs under UBSan in CI). */
static void test_garbage(const char *dir)
{
	struct golden_ledger *l = calloc(1, sizeof(*l));
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, GOLDEN_LEDGER_FILE);
	f = fopen(path, "w");
	if (f) {
		fputs("{\"hold\":{\"applied\":\"yes\",\"class\":null,\"reason\":7,\"check\":null,"
		      "\"time\":-9223372036854775808,\"applied_time\":\"123\","
		      "\"attempts\":9223372036854775807,\"kmsg_seq\":\"12abc\"},"
		      "\"episodes\":[{\"time\":-9223372036854775808,\"key\":\"xid gpu3\"},"
		      "{\"time\":9223372036854775807,\"key\":\"xid gpu3\"},null,5,"
		      "{\"time\":\"now\",\"key\":null}],"
		      "\"history\":[{\"time\":1.5e300,\"event\":[],\"text\":{}}],"
		      "\"drains\":{\"xid\":\"many\",\"gpu-ecc\":-3,\"ib-ports\":2},"
		      "\"resumes\":{\"transient\":null},\"left_foreign\":\"1\"}",
		      f);
		fclose(f);
	}
	is_int(golden_ledger_load(dir, l), 0, "a ledger with values of the wrong type loads");
	ok(l->hold.active && !l->hold.applied, "hold: \"yes\" is not true");
	is_int(l->hold.cls, GOLDEN_HOLD_REBOOT, "hold: an unknown class is the strictest");
	is(l->hold.reason, "", "hold: a number is not a reason");
	ok(l->hold.time == 0 && l->hold.applied_time == 0, "hold: absurd or textual times are 0");
	is_int(l->hold.attempts, 0, "hold: an absurd attempt count is 0");
	ok(l->hold.kmsg_seq == 0, "hold: a kmsg_seq with garbage is 0");
	is_int(l->nepisodes, 5, "every episode slot is read");
	is_int(l->ep[0].time, 0, "an episode time below 0 is 0");
	is_int(l->ep[1].time, 0, "an absurd episode time is 0");
	is_int(golden_ledger_episodes(l, "xid gpu3", 1700000000, 24), 0,
	       "... neither counts as a recent episode");
	is(l->hist[0].event, "", "history: an array is not an event");
	is_int(l->hist[0].time, 0, "history: a fraction is not a time");
	is_int((long)l->drains[0].n, 0, "drains: text is not a count");
	is_int((long)l->drains[1].n, 0, "drains: a negative count is 0");
	is_int((long)l->drains[2].n, 2, "drains: a count is a count");
	is_int((long)l->left_foreign, 0, "left_foreign: text is not a count");

	/* Extreme times from a caller: saturating, not overflowing. */
	l->nepisodes = 2;
	l->ep[0].time = LLONG_MIN;
	l->ep[1].time = LLONG_MAX;
	strcpy(l->ep[0].key, "k");
	strcpy(l->ep[1].key, "k");
	is_int(golden_ledger_episodes(l, "k", LLONG_MIN, INT_MAX), 2,
	       "episodes at both ends of time, a window of INT_MAX hours: no overflow");
	is_int(golden_ledger_episodes(l, "k", LLONG_MAX, 24), 1,
	       "... from the far end, only the one there is recent");
	golden_ledger_episode(l, "k", LLONG_MAX, INT_MAX);
	is_int(l->nepisodes, 2, "recording one at the far end forgets the other end");
	is_int(golden_ledger_parse("[]", l), -1, "a ledger that is not an object is unreadable");
	is_int(golden_ledger_parse("{\"hold\":[],\"episodes\":{},\"drains\":[]}", l), 0,
	       "members of the wrong type are skipped");
	ok(!l->hold.active && l->nepisodes == 0 && l->ndrains == 0, "... and leave it empty");
	unlink(path);
	free(l);
}

static void dummy_check(const struct golden_check_ctx *ctx, struct golden_check_result *res)
{
	(void)ctx;
	(void)res;
}

/* How many "update" calls the fake scontrol logged. */
static int updates(const char *log)
{
	const char *text = slurp(log);
	int n = 0;

	for (const char *p = text ? strstr(text, "update") : NULL; p; p = strstr(p + 1, "update"))
		n++;
	return n;
}

/* A ledger that cannot be locked or written: the run's fault is neither
 * drained nor consumed (res.recorded false), and once the ledger works the
 * same run drains and is recorded. A fake scontrol logs what it was asked. */
static void test_unusable_ledger(const char *dir)
{
	static const struct golden_check xid = {"xid", GOLDEN_CHK_KERNEL, dummy_check, 1000, 1};
	struct golden_conf *conf = calloc(1, sizeof(*conf));
	struct golden_run_report *rep = calloc(1, sizeof(*rep));
	struct golden_lifecycle_result res;
	char state[600], lockp[700], log[600], fake[600], ledger[700];
	struct golden_lifecycle lc;
	FILE *f;

	golden_conf_init(conf);
	snprintf(log, sizeof(log), "%s/scontrol.log", dir);
	snprintf(fake, sizeof(fake), "%s/scontrol", dir);
	f = fopen(fake, "w");
	fprintf(f,
	        "#!/bin/sh\necho \"$*\" >>'%s'\n"
	        "[ \"$1\" = -o ] && echo 'NodeName=n2 Arch=x86_64 State=IDLE Reason=(null)'\n"
	        "exit 0\n",
	        log);
	fclose(f);
	chmod(fake, 0755);
	snprintf(conf->scontrol, sizeof(conf->scontrol), "%s", fake);
	rep->n = 1;
	rep->worst = 0;
	rep->out[0].chk = &xid;
	golden_check_fail(&rep->out[0].res, GOLDEN_ACTION_DRAIN_REBOOT, "gpu3 xid79 offbus",
	                  "gpu3 xid79 0000:3b:00.0: GPU has fallen off the bus");

	/* A directory where the lock file should be. */
	snprintf(state, sizeof(state), "%s/state-lockdir", dir);
	snprintf(lockp, sizeof(lockp), "%s/lifecycle.lock", state);
	mkdir(state, 0700);
	mkdir(lockp, 0700);
	lc = (struct golden_lifecycle){conf,     "n2", state, NULL,      "/dev/null",
	                               "prolog", "",   NULL,  1764750000};
	is_int(golden_lifecycle_after_run(&lc, rep, false, &res), -1,
	       "lock file is a directory: the ledger cannot be locked");
	ok(!res.recorded && updates(log) == 0,
	   "... nothing drained, nothing recorded: the fault stays pending");
	ok(strstr(res.drain, "not drained") && strstr(res.drain, "stays pending"),
	   "... and the run says so: %s", res.drain);
	rmdir(lockp);
	is_int(golden_lifecycle_after_run(&lc, rep, false, &res), 0, "the ledger works again");
	ok(res.recorded && updates(log) == 1 && !strcmp(res.drain, "drained"),
	   "... the same fault drains once, and is recorded");

	/* A regular file where state_dir should be. */
	snprintf(state, sizeof(state), "%s/state-file", dir);
	f = fopen(state, "w");
	fclose(f);
	lc.state_dir = state;
	is_int(golden_lifecycle_after_run(&lc, rep, false, &res), -1,
	       "state_dir is a file: no ledger");
	ok(!res.recorded && updates(log) == 1, "... nothing drained, nothing recorded");

	/* Lockable, but the ledger cannot be saved: drained, yet not recorded
	 * (the next run sees the fault again and adopts the drain). */
	snprintf(state, sizeof(state), "%s/state-ledgerdir", dir);
	snprintf(ledger, sizeof(ledger), "%s/lifecycle.json", state);
	mkdir(state, 0700);
	mkdir(ledger, 0700);
	lc.state_dir = state;
	is_int(golden_lifecycle_after_run(&lc, rep, false, &res), -1,
	       "ledger file is a directory: cannot be saved");
	ok(!res.recorded, "... not recorded, so the fault is not consumed");

	/* Healthy run: nothing to record, nothing to lose. */
	snprintf(state, sizeof(state), "%s/state-ok", dir);
	lc.state_dir = state;
	memset(&rep->out[0].res, 0, sizeof(rep->out[0].res));
	rep->worst = -1;
	is_int(golden_lifecycle_after_run(&lc, rep, false, &res), 0, "healthy run");
	ok(res.recorded, "... recorded (warnings and app errors are consumed)");
	free(conf);
	free(rep);
}

int main(void)
{
	char dir[] = "/tmp/golden-ledger-XXXXXX";
	int lock;

	if (!mkdtemp(dir))
		return 1;
	test_classes();
	lock = golden_ledger_lock(dir);
	ok(lock >= 0, "ledger lock taken");
	test_roundtrip(dir);
	golden_ledger_unlock(lock);
	test_episodes_history();
	test_flap_key();
	test_waiting();
	test_metrics(dir);
	test_garbage(dir);
	test_unusable_ledger(dir);
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return done_testing();
}
