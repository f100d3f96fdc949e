/* Kernel log records, the persisted cursor, and the xid check end to end. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "health/check.h"
#include "health/golden_conf.h"
#include "util/kmsg.h"
#include "t/unit/tap.h"
#include "health/xid.h"

static const char *srcdir;
static char tmproot[] = "/tmp/golden-kmsg-XXXXXX";
static int ndirs;

static void fixture(const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/t/fixtures/kmsg/%s", srcdir, name);
}

/* A fresh directory under tmproot (not created: tests want mkdir -p). */
static void fresh_dir(char *buf, size_t len)
{
	snprintf(buf, len, "%s/d%d/state", tmproot, ndirs++);
}

static void write_file(const char *path, const char *text, const char *mode)
{
	FILE *f = fopen(path, mode);

	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		printf("Bail out! cannot write %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

static void copy_file(const char *from, const char *to)
{
	char buf[4096];
	FILE *in = fopen(from, "r"), *out = fopen(to, "w");
	size_t n;

	if (!in || !out) {
		printf("Bail out! cannot copy %s: %s\n", from, strerror(errno));
		exit(1);
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, n, out);
	fclose(in);
	fclose(out);
}

/* A sysroot whose boot id we control. */
static void set_boot_id(const char *sysroot, const char *id)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/proc", sysroot);
	mkdir(sysroot, 0700);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/proc/sys", sysroot);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/proc/sys/kernel", sysroot);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/proc/sys/kernel/random", sysroot);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/proc/sys/kernel/random/boot_id", sysroot);
	write_file(path, id, "w");
}

struct seen {
	int n;
	uint64_t seq[64];
	int fac[64];
	char msg[64][96];
	int stop_after; /* 0: never */
	const char *marker;
	int marker_found, marker_fac;
	char marker_msg[256];
};

static int collect(uint64_t seq, uint64_t ts, int fac, int lvl, const char *msg, void *arg)
{
	struct seen *s = arg;

	(void)ts;
	(void)lvl;
	if (s->marker) {
		if (strstr(msg, s->marker)) {
			s->marker_found++;
			s->marker_fac = fac;
			snprintf(s->marker_msg, sizeof(s->marker_msg), "%s", msg);
		}
		return 0;
	}
	if (s->n < 64) {
		s->seq[s->n] = seq;
		s->fac[s->n] = fac;
		snprintf(s->msg[s->n], sizeof(s->msg[0]), "%s", msg);
	}
	s->n++;
	return s->stop_after && s->n >= s->stop_after;
}

static void test_parse(void)
{
	struct golden_kmsg_record r;
	char buf[256];
	static const char *const bad[] = {
	    "abc",        "6,1;x",
	    "6,1,2",      "6,,2,-;x",
	    "-1,2,3,-;x", ";x",
	    "",           "6,99999999999999999999999,1,-;x",
	    "6,1,2x,-;x", "99999999999,1,2,-;x",
	};

	strcpy(buf, "6,42,123456,-;hello world\n SUBSYSTEM=pci\n DEVICE=+pci:0000:3b:00.0\n");
	ok(golden_kmsg_parse(buf, &r) == 0, "record parses");
	ok(r.seq == 42 && r.ts_usec == 123456 && r.facility == 0 && r.level == 6,
	   "seq, ts, facility 0, level 6");
	is(r.msg, "hello world", "message cut at the continuation lines");

	strcpy(buf, "12,5,0,-,caller=T1;NVRM: x;y\n");
	ok(golden_kmsg_parse(buf, &r) == 0 && r.facility == 1 && r.level == 4,
	   "PRI 12: facility user, level warning; extra fields ignored");
	is(r.msg, "NVRM: x;y", "message keeps later semicolons");

	strcpy(buf, "6,1,2,-;");
	ok(golden_kmsg_parse(buf, &r) == 0 && r.msg[0] == '\0', "empty message");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(buf, sizeof(buf), "%s", bad[i]);
		ok(golden_kmsg_parse(buf, &r) == -1, "bad record '%s' rejected", bad[i]);
	}
}

static void test_gap(void)
{
	/* /dev/kmsg answers EPIPE when records were overwritten under us and
	 * then continues at the oldest one left: the seq gap counts the loss. */
	is_int((long)golden_kmsg_gap(false, 0, 5), 0, "gap: no previous record");
	is_int((long)golden_kmsg_gap(true, 5, 6), 0, "gap: consecutive");
	is_int((long)golden_kmsg_gap(true, 5, 9), 3, "gap: 6,7,8 lost");
	is_int((long)golden_kmsg_gap(true, 9, 5), 0, "gap: going backwards is not a loss");
	is_int((long)golden_kmsg_gap(true, 0, UINT64_MAX), (long)(UINT64_MAX - 1),
	       "gap: no overflow at the top");
}

static void test_scan_file(void)
{
	char path[PATH_MAX];
	struct golden_kmsg_stats st;
	struct seen s;

	memset(&s, 0, sizeof(s));
	fixture("xid79.kmsg", path, sizeof(path));
	ok(golden_kmsg_scan(path, NULL, NULL, false, collect, &s, &st) == 0, "scan fixture file");
	is_int((long)st.records, 7, "7 records");
	is_int(s.n, 7, "callback saw 7");
	is_int((long)st.malformed, 1, "1 malformed line");
	is_int((long)st.missed, 0, "nothing missed");
	ok(s.seq[0] == 0 && s.seq[6] == 6, "seqs 0..6");
	is(s.msg[4],
	   "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python, GPU has fallen off "
	   "the bus.",
	   "record 4 message");
	ok(!st.cursor_found && st.last_seq == 6, "no cursor; last seq 6");

	memset(&s, 0, sizeof(s));
	fixture("facility.kmsg", path, sizeof(path));
	golden_kmsg_scan(path, NULL, NULL, false, collect, &s, &st);
	ok(s.n == 2 && s.fac[0] == 3 && s.fac[1] == GOLDEN_KMSG_FAC_USER,
	   "facilities passed through (3, user)");

	memset(&s, 0, sizeof(s));
	fixture("gap.kmsg", path, sizeof(path));
	golden_kmsg_scan(path, NULL, NULL, false, collect, &s, &st);
	is_int((long)st.records, 5, "gap fixture: 5 records");
	is_int((long)st.missed, 6, "gap fixture: 6 lost to overwrite");

	errno = 0;
	ok(golden_kmsg_scan("/nonexistent/kmsg", NULL, NULL, false, collect, &s, &st) == -1 &&
	       errno == ENOENT,
	   "missing file: -1 ENOENT");
}

static void test_cursor(void)
{
	char state[PATH_MAX], sysroot[PATH_MAX], log[PATH_MAX], path[PATH_MAX + 64], boot[64];
	struct golden_kmsg_stats st;
	struct seen s;
	struct stat sb;
	uint64_t seq;

	fresh_dir(state, sizeof(state));
	snprintf(sysroot, sizeof(sysroot), "%s/sysroot", tmproot);
	set_boot_id(sysroot, "11111111-2222-3333-4444-555555555555\n");
	snprintf(log, sizeof(log), "%s/log.kmsg", tmproot);
	fixture("xid79.kmsg", path, sizeof(path));
	copy_file(path, log);

	memset(&s, 0, sizeof(s));
	ok(golden_kmsg_scan(log, state, sysroot, false, collect, &s, &st) == 0 && st.records == 7,
	   "advance=false: 7 records");
	is(st.boot_id, "11111111-2222-3333-4444-555555555555", "boot id from the sysroot");
	ok(stat(state, &sb) < 0, "advance=false: nothing written");

	memset(&s, 0, sizeof(s));
	ok(golden_kmsg_scan(log, state, sysroot, true, collect, &s, &st) == 0 && st.records == 7,
	   "first scan: 7 records");
	ok(stat(state, &sb) == 0 && S_ISDIR(sb.st_mode) && (sb.st_mode & 0777) == 0700,
	   "state dir created 0700 (with its parent)");
	snprintf(path, sizeof(path), "%s/kmsg.cursor", state);
	ok(stat(path, &sb) == 0 && (sb.st_mode & 0777) == 0600, "cursor file 0600");
	ok(golden_kmsg_cursor_load(state, boot, sizeof(boot), &seq) == 0 && seq == 6 &&
	       strcmp(boot, "11111111-2222-3333-4444-555555555555") == 0,
	   "cursor holds boot id and seq 6");

	memset(&s, 0, sizeof(s));
	golden_kmsg_scan(log, state, sysroot, true, collect, &s, &st);
	ok(st.records == 0 && s.n == 0 && st.skipped == 7 && st.cursor_found,
	   "second scan: nothing new, 7 skipped");

	write_file(log,
	           "4,7,9900000,-;NVRM: Xid (PCI:0000:18:00): 13, pid=1, name=x, y\n"
	           "6,8,9900100,-;later\n",
	           "a");
	memset(&s, 0, sizeof(s));
	golden_kmsg_scan(log, state, sysroot, true, collect, &s, &st);
	ok(st.records == 2 && s.seq[0] == 7 && s.seq[1] == 8 && st.missed == 0,
	   "appended records seen (7, 8)");
	golden_kmsg_cursor_load(state, boot, sizeof(boot), &seq);
	is_int((long)seq, 8, "cursor advanced to 8");

	write_file(log, "6,12,9900300,-;after a lost stretch\n", "a");
	golden_kmsg_scan(log, state, sysroot, true, NULL, NULL, &st);
	ok(st.records == 1 && st.missed == 3, "gap after the cursor counted as missed (9-11)");

	set_boot_id(sysroot, "99999999-2222-3333-4444-555555555555\n");
	memset(&s, 0, sizeof(s));
	golden_kmsg_scan(log, state, sysroot, true, collect, &s, &st);
	ok(st.cursor_other_boot && !st.cursor_found && st.records == 10 && st.missed == 3,
	   "boot id changed: cursor ignored, whole buffer read again");
	golden_kmsg_cursor_load(state, boot, sizeof(boot), &seq);
	is(boot, "99999999-2222-3333-4444-555555555555", "cursor now holds the new boot");

	/* A callback can stop early; the cursor covers exactly what it saw. */
	fresh_dir(state, sizeof(state));
	memset(&s, 0, sizeof(s));
	s.stop_after = 3;
	golden_kmsg_scan(log, state, sysroot, true, collect, &s, &st);
	ok(st.records == 3 && golden_kmsg_cursor_load(state, boot, sizeof(boot), &seq) == 0 &&
	       seq == 2,
	   "stopped after 3: cursor at seq 2");
	memset(&s, 0, sizeof(s));
	golden_kmsg_scan(log, state, sysroot, true, collect, &s, &st);
	ok(st.records == 7 && s.seq[0] == 3, "next scan resumes at seq 3");

	/* Broken cursors are ignored, not trusted. */
	fresh_dir(state, sizeof(state));
	golden_kmsg_cursor_save(state, "x", 1);
	snprintf(path, sizeof(path), "%s/kmsg.cursor", state);
	write_file(path, "../../etc 5\n", "w");
	ok(golden_kmsg_cursor_load(state, boot, sizeof(boot), &seq) == -1, "bad boot id rejected");
	write_file(path, "abc 5x\n", "w");
	ok(golden_kmsg_cursor_load(state, boot, sizeof(boot), &seq) == -1, "bad seq rejected");
	write_file(path, "", "w");
	ok(golden_kmsg_cursor_load(state, boot, sizeof(boot), &seq) == -1, "empty cursor rejected");

	/* Unwritable state dir: scanned, but the error is reported. */
	snprintf(path, sizeof(path), "%s/file", tmproot);
	write_file(path, "x", "w");
	snprintf(state, sizeof(state), "%s/file/state", tmproot);
	golden_kmsg_scan(log, state, sysroot, true, NULL, NULL, &st);
	ok(st.records == 10 && st.cursor_errno != 0, "cursor save failure reported (%s)",
	   strerror(st.cursor_errno));
}

static void test_long_records(void)
{
	char log[PATH_MAX];
	char *big = malloc(20000);
	struct golden_kmsg_stats st;
	struct seen s;
	FILE *f;

	if (!big)
		abort();
	memset(big, 'A', 19999);
	big[19999] = '\0';
	snprintf(log, sizeof(log), "%s/long.kmsg", tmproot);
	f = fopen(log, "w");
	fprintf(f, "6,1,1,-;%s\n6,2,2,-;NVRM: Xid (PCI:0000:3b:00): 13, x\n6,3,3,-;%s", big, big);
	fclose(f);
	free(big);
	memset(&s, 0, sizeof(s));
	golden_kmsg_scan(log, NULL, NULL, false, collect, &s, &st);
	ok(st.records == 3 && s.seq[1] == 2 && strncmp(s.msg[1], "NVRM", 4) == 0,
	   "20 KB lines truncated; the record after one is intact; no final newline ok");
}

static void test_real_kmsg(void)
{
	char state[PATH_MAX], marker[64], line[160];
	struct golden_kmsg_stats st;
	struct golden_xid_event ev;
	struct seen s;
	int fd;

	if (geteuid() != 0) {
		printf("ok %d # skip not root\n", ++tap_n);
		return;
	}
	fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		printf("ok %d # skip cannot open /dev/kmsg for writing: %s\n", ++tap_n,
		       strerror(errno));
		return;
	}
	srand((unsigned)time(NULL) ^ (unsigned)getpid());
	snprintf(marker, sizeof(marker), "golden-test-%08x%04x", (unsigned)rand(),
	         (unsigned)getpid() & 0xffff);
	snprintf(line, sizeof(line), "NVRM: Xid (PCI:0000:ff:00): 13, pid=1, name=%s\n", marker);
	ok(write(fd, line, strlen(line)) == (ssize_t)strlen(line), "marker written to /dev/kmsg");
	close(fd);

	fresh_dir(state, sizeof(state));
	memset(&s, 0, sizeof(s));
	s.marker = marker;
	ok(golden_kmsg_scan(NULL, state, NULL, true, collect, &s, &st) == 0, "scan /dev/kmsg");
	is_int(s.marker_found, 1, "marker record found once");
	is_int(s.marker_fac, GOLDEN_KMSG_FAC_USER, "written by root: facility user");
	ok(golden_xid_parse(s.marker_msg, &ev) == 1 && ev.xid == 13 &&
	       strcmp(ev.name, marker) == 0 && strcmp(ev.pci, "0000:ff:00.0") == 0,
	   "marker parsed as xid 13");
	memset(&s, 0, sizeof(s));
	s.marker = marker;
	golden_kmsg_scan(NULL, state, NULL, true, collect, &s, &st);
	ok(s.marker_found == 0 && st.cursor_found, "rescan from the cursor: marker not seen again");
}

/* ---- check_xid end to end ---- */

static struct golden_topo *make_topo(void)
{
	static const char *const busids[] = {"0000:18:00.0", "0000:2a:00.0", "0000:3a:00.0",
	                                     "0000:3b:00.0"};
	struct golden_topo *t = malloc(sizeof(*t));

	if (!t)
		abort();
	memset(t, 0, sizeof(*t));
	t->ngpus = 4;
	for (int i = 0; i < 4; i++)
		snprintf(t->gpus[i].busid, sizeof(t->gpus[i].busid), "%s", busids[i]);
	return t;
}

/* The caller's side: save the cursor the check reported, as after acting. */
static int commit(const struct golden_check_result *res)
{
	if (!res->commit.set)
		return -1;
	return golden_kmsg_cursor_advance(res->commit.dir, res->commit.name, res->commit.boot_id,
	                                  res->commit.seq);
}

/* GPUs at the addresses the quoting records name, so that a spoof would
 * count if it were parsed. */
static struct golden_topo *make_quoting_topo(void)
{
	static struct golden_topo t;

	memset(&t, 0, sizeof(t));
	t.ngpus = 2;
	snprintf(t.gpus[0].busid, sizeof(t.gpus[0].busid), "0000:3b:00.0");
	snprintf(t.gpus[1].busid, sizeof(t.gpus[1].busid), "00ee:00:00.0");
	return &t;
}

static void run_check(const char *fixname, const struct golden_topo *topo,
                      const struct golden_conf *conf, const char *state, const char *job,
                      enum golden_phase phase, struct golden_check_result *res)
{
	char path[PATH_MAX];
	struct golden_check_ctx ctx;

	if (fixname[0] == '/')
		snprintf(path, sizeof(path), "%s", fixname);
	else
		fixture(fixname, path, sizeof(path));
	memset(&ctx, 0, sizeof(ctx));
	ctx.conf = conf;
	ctx.topo = topo;
	ctx.node = "node1";
	ctx.job_id = job;
	ctx.phase = phase;
	ctx.kmsg_path = path;
	ctx.state_dir = state;
	memset(res, 0, sizeof(*res));
	golden_xid_checks[0].fn(&ctx, res);
	diag("%s: %s %s '%s' | %s", fixname, golden_check_status_name(res->status),
	     golden_check_action_name(res->action), res->code, res->detail);
}

static void test_check(void)
{
	struct golden_topo *topo = make_topo();
	struct golden_conf *conf;
	struct golden_check_result res;
	char state[PATH_MAX];

	ok(strcmp(golden_xid_checks[0].name, "xid") == 0 &&
	       golden_xid_checks[0].cls == GOLDEN_CHK_KERNEL &&
	       golden_xid_checks[0].deadline_ms == 1000 &&
	       golden_xid_checks[0].phases == (GOLDEN_PHASE_PROLOG | GOLDEN_PHASE_EPILOG |
	                                       GOLDEN_PHASE_MANUAL | GOLDEN_PHASE_HEALTH_ANY) &&
	       golden_xid_checks[1].name == NULL,
	   "check table: xid, kernel, 1000 ms, all phases, terminated");

	fresh_dir(state, sizeof(state));
	run_check("xid79.kmsg", topo, NULL, state, "123", GOLDEN_PHASE_EPILOG, &res);
	ok(res.status == GOLDEN_ST_FAIL && res.action == GOLDEN_ACTION_DRAIN_REBOOT,
	   "xid79: fail drain-reboot");
	is(res.code, "gpu3 xid79 offbus", "xid79: code names the GPU index first");
	ok(strstr(res.detail, "during job 123") != NULL, "xid79: job id in detail");
	ok(strstr(res.detail, "gpu3 xid79 x2 0000:3b:00.0 pid=1234 name=python") != NULL,
	   "xid79: Xid line and off-bus line counted together with pid/name");
	ok(strstr(res.detail, "[7 new kmsg records]") != NULL, "xid79: records counted");

	ok(res.commit.set && res.commit.seq == 6 && !strcmp(res.commit.name, "kmsg.cursor") &&
	       !strcmp(res.commit.dir, state),
	   "xid79: says how far it read (seq 6), for the caller to save");

	/* Not acted on (a dry run, a ledger that cannot be written): the
	 * check itself consumed nothing, the next run sees the fault again. */
	run_check("xid79.kmsg", topo, NULL, state, "124", GOLDEN_PHASE_PROLOG, &res);
	ok(res.status == GOLDEN_ST_FAIL && strcmp(res.code, "gpu3 xid79 offbus") == 0,
	   "a check alone consumes nothing: the fault is still there");
	/* Acted on: the caller commits, the fault is consumed. */
	ok(commit(&res) == 0, "cursor committed after acting");
	run_check("xid79.kmsg", topo, NULL, state, "124", GOLDEN_PHASE_PROLOG, &res);
	ok(res.status == GOLDEN_ST_OK && res.code[0] == '\0', "same records again: ok");
	ok(strstr(res.detail, "no new GPU faults") != NULL, "ok detail says so");
	ok(!res.commit.set, "nothing new read: nothing to commit");

	fresh_dir(state, sizeof(state));
	run_check("xid13.kmsg", topo, NULL, state, "77", GOLDEN_PHASE_EPILOG, &res);
	ok(res.status == GOLDEN_ST_WARN && res.action == GOLDEN_ACTION_NONE,
	   "xid13 alone: warn, not fail");
	is(res.code, "gpu0 xid13 gr-exc", "xid13 code");
	ok(strstr(res.detail, "app xid13 x2 gpu0 pid=4242 name=train.py (job 77) - not drained") !=
	       NULL,
	   "xid13: recorded as an app error with job id");

	fresh_dir(state, sizeof(state));
	run_check("mixed.kmsg", topo, NULL, state, "", GOLDEN_PHASE_MANUAL, &res);
	ok(res.status == GOLDEN_ST_FAIL && res.action == GOLDEN_ACTION_DRAIN_RESET,
	   "mixed: worst (48, NVIDIA: reset the GPU) wins");
	is(res.code, "gpu0 xid48 dbe", "mixed: code");
	ok(strstr(res.detail, "nvsw3 sxid24007") && strstr(res.detail, "nvsw1 sxid12028") &&
	       strstr(res.detail, "gpu0 xid63") && strstr(res.detail, "gpu1 xid999") &&
	       strstr(res.detail, "app xid13 gpu0") && strstr(res.detail, "app xid31 gpu1"),
	   "mixed: every fault listed");
	ok(strstr(res.detail, "gi1") && strstr(res.detail, "future driver") &&
	       !strstr(res.detail, "job"),
	   "mixed: MIG ids, text of unknown XIDs, no job when job_id is empty");
	ok(strstr(res.detail, "gpu0 xid48") < strstr(res.detail, "nvsw3 sxid24007") &&
	       strstr(res.detail, "nvsw3 sxid24007") < strstr(res.detail, "app xid13"),
	   "mixed: listed worst first");

	fresh_dir(state, sizeof(state));
	run_check("facility.kmsg", topo, NULL, state, "", GOLDEN_PHASE_MANUAL, &res);
	ok(res.status == GOLDEN_ST_FAIL && strcmp(res.code, "gpu3 xid48 dbe") == 0 &&
	       !strstr(res.detail, "xid79"),
	   "facility user trusted, facility daemon ignored");

	fresh_dir(state, sizeof(state));
	run_check("xid95-nomatch.kmsg", NULL, NULL, state, "", GOLDEN_PHASE_MANUAL, &res);
	ok(res.status == GOLDEN_ST_FAIL && res.action == GOLDEN_ACTION_DRAIN_RESET,
	   "xid95 without topo: drain-reset");
	is(res.code, "gpu? xid95 0000:3b:00.0", "unknown GPU: address in the code");

	fresh_dir(state, sizeof(state));
	run_check("recovery.kmsg", topo, NULL, state, "", GOLDEN_PHASE_MANUAL, &res);
	ok(res.status == GOLDEN_ST_FAIL && res.action == GOLDEN_ACTION_DRAIN_RESET &&
	       strcmp(res.code, "gpu3 xid154 reset") == 0,
	   "154 to GPU reset: drain-reset, beats 94's warn");

	conf = calloc(1, sizeof(*conf));
	if (!conf)
		abort();
	conf->nxid = 2;
	conf->xids[0].xid = 79;
	conf->xids[0].ignore = true;
	conf->xids[1].xid = 13;
	conf->xids[1].status = GOLDEN_ST_FAIL;
	conf->xids[1].action = GOLDEN_ACTION_DRAIN;
	fresh_dir(state, sizeof(state));
	run_check("xid79.kmsg", topo, conf, state, "", GOLDEN_PHASE_MANUAL, &res);
	ok(res.status == GOLDEN_ST_OK && strstr(res.detail, "2 ignored by golden.conf"),
	   "xid.79 = ignore: ok, counted as ignored");
	fresh_dir(state, sizeof(state));
	run_check("xid13.kmsg", topo, conf, state, "", GOLDEN_PHASE_MANUAL, &res);
	ok(res.status == GOLDEN_ST_FAIL && res.action == GOLDEN_ACTION_DRAIN &&
	       strstr(res.detail, "(golden.conf)"),
	   "xid.13 = drain: drains, says why");

	/* state_dir from golden.conf when the context has none. */
	fresh_dir(state, sizeof(state));
	memset(conf, 0, sizeof(*conf));
	snprintf(conf->state_dir, sizeof(conf->state_dir), "%s", state);
	run_check("xid13.kmsg", topo, conf, NULL, "", GOLDEN_PHASE_MANUAL, &res);
	commit(&res);
	run_check("xid13.kmsg", topo, conf, NULL, "", GOLDEN_PHASE_MANUAL, &res);
	ok(res.status == GOLDEN_ST_OK, "conf state_dir used for the cursor");

	/* A real driver's boot records (driver 580, H200, t/fixtures/kmsg/
	 * README.md): load lines and warnings, no fault; then its XID 79 line
	 * for that GPU names gpu0. */
	{
		static struct golden_topo h200;
		char log[PATH_MAX], boot[PATH_MAX];

		memset(&h200, 0, sizeof(h200));
		h200.ngpus = 1;
		snprintf(h200.gpus[0].busid, sizeof(h200.gpus[0].busid), "0000:00:06.0");
		fresh_dir(state, sizeof(state));
		run_check("h200-580-boot.kmsg", &h200, NULL, state, "", GOLDEN_PHASE_MANUAL, &res);
		ok(res.status == GOLDEN_ST_OK && strstr(res.detail, "no new GPU faults") &&
		       strstr(res.detail, "[6 new kmsg records]"),
		   "a real driver 580 boot (H200): 6 records, no fault");
		fixture("h200-580-boot.kmsg", boot, sizeof(boot));
		snprintf(log, sizeof(log), "%s/h200.kmsg", tmproot);
		copy_file(boot, log);
		write_file(log,
		           "3,357,27235500,-;NVRM: Xid (PCI:0000:00:06): 79, pid='<unknown>', "
		           "name=<unknown>, GPU has fallen off the bus.\n",
		           "a");
		fresh_dir(state, sizeof(state));
		run_check(log, &h200, NULL, state, "", GOLDEN_PHASE_MANUAL, &res);
		ok(res.status == GOLDEN_ST_FAIL && strcmp(res.code, "gpu0 xid79 offbus") == 0,
		   "after it, XID 79 for 0000:00:06 drains gpu0 (as on the real node)");
	}

	/* Kernel records quoting a user's text (real ones: an unprivileged
	 * mount's option keys), audit, journald forwards of a user-chosen
	 * identifier, a daemon's facility: no fault, nothing drains. */
	fresh_dir(state, sizeof(state));
	run_check("quoting.kmsg", make_quoting_topo(), NULL, state, "", GOLDEN_PHASE_MANUAL, &res);
	ok(res.status == GOLDEN_ST_OK && strstr(res.detail, "no new GPU faults") &&
	       strstr(res.detail, "[9 new kmsg records]"),
	   "quoting records: no fault from 9 records that quote driver lines");
	/* Root's exact driver line (facility user) still counts: that is how
	 * operators and reviewers test the checks. */
	{
		char log[PATH_MAX];

		snprintf(log, sizeof(log), "%s/root.kmsg", tmproot);
		write_file(log,
		           "12,1,1,-;NVRM: Xid (PCI:0000:3b:00): 79, pid=1, name=x, GPU has fallen "
		           "off the bus.\n",
		           "w");
		fresh_dir(state, sizeof(state));
		run_check(log, topo, NULL, state, "", GOLDEN_PHASE_MANUAL, &res);
		ok(res.status == GOLDEN_ST_FAIL && strcmp(res.code, "gpu3 xid79 offbus") == 0,
		   "root's echo of the exact driver line (facility user) drains");
		/* The probe-time record, as /dev/kmsg gives it: one record. */
		write_file(
		    log,
		    "4,2,2,-;NVRM: The NVIDIA GPU 0000:18:00.0\\x0aNVRM: (PCI ID: 10de:2901) "
		    "installed in this system has\\x0aNVRM: fallen off the bus and is not "
		    "responding to commands.\n",
		    "w");
		fresh_dir(state, sizeof(state));
		run_check(log, topo, NULL, state, "", GOLDEN_PHASE_MANUAL, &res);
		ok(res.status == GOLDEN_ST_FAIL && res.action == GOLDEN_ACTION_DRAIN_REBOOT &&
		       strcmp(res.code, "gpu0 xid79 offbus") == 0,
		   "probe-time 'fallen off the bus' record: xid 79 on its GPU, drain-reboot");
	}

	run_check("/nonexistent/kmsg", topo, NULL, NULL, "", GOLDEN_PHASE_MANUAL, &res);
	ok(res.status == GOLDEN_ST_WARN && strcmp(res.code, "kmsg unreadable") == 0 &&
	       strstr(res.detail, "No such file"),
	   "unreadable log: warn, never drain");

	/* Many distinct faults: listed up to the limit, detail cut with "...". */
	{
		char log[PATH_MAX];
		FILE *f;

		snprintf(log, sizeof(log), "%s/many.kmsg", tmproot);
		f = fopen(log, "w");
		for (int i = 0; i < 40; i++)
			fprintf(f,
			        "4,%d,%d,-;NVRM: Xid (PCI:0000:%02x:00): %d, pid=%d, name=p, x\n",
			        i, i, i, 1000 + i, i);
		fclose(f);
		fresh_dir(state, sizeof(state));
		run_check(log, topo, NULL, state, "", GOLDEN_PHASE_MANUAL, &res);
		ok(res.status == GOLDEN_ST_WARN &&
		       strcmp(res.code, "gpu? xid1000 0000:00:00.0") == 0,
		   "40 unknown XIDs: warn, first one in the code");
		ok(strlen(res.detail) == GOLDEN_DETAIL_LEN - 1 &&
		       strcmp(res.detail + GOLDEN_DETAIL_LEN - 4, "...") == 0,
		   "long detail truncated with ...");
	}

	free(conf);
	free(topo);
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Remove our own mkdtemp tree (depth first, never following links). */
static void rm_rf(const char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

int main(void)
{
	srcdir = getenv("GOLDEN_SRCDIR");
	if (!srcdir || !*srcdir)
		srcdir = ".";
	if (!mkdtemp(tmproot)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	test_parse();
	test_gap();
	test_scan_file();
	test_cursor();
	test_long_records();
	test_real_kmsg();
	test_check();
	rm_rf(tmproot);
	return done_testing();
}
