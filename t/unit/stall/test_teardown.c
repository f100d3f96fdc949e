/* The teardown records: what the plugin's task_exit probe writes and the
 * epilog's `teardown` check reads and consumes, in a teardown_dir where a
 * user may have planted things. Planted symlinks and FIFOs are refused and
 * nothing outside is touched; a record with values of the wrong type is
 * unknown, never a crash (a crashed check drains the node). */
#include <config.h>

#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "health/check.h"
#include "health/golden_conf.h"
#include "stall/check_kernel.h"
#include "stall/teardown.h"
#include "t/unit/tap.h"

static char top[] = "/tmp/golden-test-teardown-XXXXXX";
static char tdir[256], victim[256];
static struct golden_conf conf;
static struct golden_check_ctx ctx;
static struct golden_check_result res;

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static const char *at(const char *dir, const char *rel)
{
	static char buf[4][512];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, rel);
	return buf[i];
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		printf("Bail out! cannot write %s: %s\n", path, strerror(errno));
		exit(1);
	}
	chmod(path, 0600);
}

static void run(const char *job)
{
	const struct golden_check *c = golden_kernel_checks;

	while (c->name && strcmp(c->name, "teardown"))
		c++;
	memset(&res, 0, sizeof(res));
	ctx.job_id = job;
	if (c->fn)
		c->fn(&ctx, &res);
}

static void alarm_fail(int sig)
{
	static const char msg[] = "not ok - the teardown check blocked\n";

	(void)sig;
	if (write(STDOUT_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(2);
	_exit(1);
}

static void test_record_and_check(void)
{
	struct golden_teardown_result r;
	struct golden_err err = {{0}};
	struct stat st;

	memset(&r, 0, sizeof(r));
	r.action = "flushed";
	r.before.dirty = 96LL << 20;
	r.flush_ms = 12;
	is_int(golden_teardown_record(tdir, "5", "batch", &r, &err), 0, "a record is written (%s)",
	       err.msg);
	ok(stat(at(tdir, "job_5/batch.json"), &st) == 0 && (st.st_mode & 07777) == 0600,
	   "... root-only");
	run("5");
	is(golden_check_status_name(res.status), "ok", "the epilog reads it");
	ok(strstr(res.detail, "batch: 96 MiB dirty, flushed in 12 ms") != NULL, "... %s",
	   res.detail);
	ok(stat(at(tdir, "job_5"), &st) < 0, "... and consumes it, job directory and all");
	run("5");
	ok(strstr(res.detail, "no teardown record for job 5") != NULL, "then there is none");
}

static void test_garbage(void)
{
	mkdir(at(tdir, "job_6"), 0700);
	put(at(tdir, "job_6/batch.json"),
	    "{\"action\":null,\"dirty_bytes\":\"12\",\"flush_ms\":null,\"dirty_after_bytes\":[]}");
	put(at(tdir, "job_6/0.json"), "{\"action\":7,\"dirty_bytes\":-1}");
	put(at(tdir, "job_6/1.json"), "[\"flush-failed\"]");
	put(at(tdir, "job_6/2.json"), "{\"action\":\"flush-timeout\",\"flush_ms\":\"x\"}");
	if (mkfifo(at(tdir, "job_6/3.json"), 0600) < 0)
		diag("mkfifo: %s", strerror(errno));
	/* A guard so that a regression fails instead of hanging, not a timing test. */
	signal(SIGALRM, alarm_fail);
	alarm(20);
	run("6");
	alarm(0);
	ok(res.status != GOLDEN_ST_FAIL && res.action == GOLDEN_ACTION_NONE,
	   "records with values of the wrong type never fail the check (no drain)");
	ok(strstr(res.detail, "batch: ? MiB dirty, unknown") != NULL,
	   "null action and text bytes are unknown: %s", res.detail);
	ok(strstr(res.detail, "0: ? MiB dirty, unknown") != NULL, "a number is not an action");
	ok(strstr(res.detail, "1: ? MiB dirty, unreadable record") != NULL,
	   "a record that is not an object is unreadable");
	ok(strstr(res.detail, "3: ? MiB dirty, unreadable record") != NULL,
	   "a FIFO is not read, and does not block");
	ok(strstr(res.detail, "2: ? MiB dirty, flush-timeout in ? ms") != NULL,
	   "a real flush-timeout with an unknown duration is still reported");
	is(golden_check_status_name(res.status), "warn", "... as the warning it is");
	ok(access(at(tdir, "job_6"), F_OK) < 0, "all of them consumed");
}

static void test_planted_symlink(void)
{
	struct golden_teardown_result r;
	struct golden_err err = {{0}};

	/* What a user could plant in a teardown_dir they may write to: a
	 * job_N symlink to a directory of someone else's files. */
	put(at(victim, "batch.json"), "{\"action\":\"flushed\"}");
	put(at(victim, "precious.json"), "keep");
	if (symlink(victim, at(tdir, "job_7")) < 0)
		diag("symlink: %s", strerror(errno));
	run("7");
	is(golden_check_status_name(res.status), "warn",
	   "a job_N symlink is refused with a warning");
	is(res.code, "kernel teardown dir", "... its own code");
	ok(res.action == GOLDEN_ACTION_NONE, "... never a drain");
	ok(strstr(res.detail, "symbolic link") != NULL, "... saying why: %s", res.detail);
	ok(access(at(victim, "batch.json"), F_OK) == 0 &&
	       access(at(victim, "precious.json"), F_OK) == 0,
	   "nothing behind the symlink is read or removed");
	memset(&r, 0, sizeof(r));
	r.action = "off";
	ok(golden_teardown_record(tdir, "7", "batch", &r, &err) < 0,
	   "the probe refuses to write through it: %s", err.msg);
	is(err.msg[0] ? "set" : "", "set", "... with one line saying why");
	ok(access(at(victim, "batch.json"), F_OK) == 0, "... and writes nothing there");
	unlink(at(tdir, "job_7"));

	/* A record that is a symlink to a file elsewhere: not read, and
	 * consuming it removes the link, never its target. */
	mkdir(at(tdir, "job_8"), 0700);
	if (symlink(at(victim, "precious.json"), at(tdir, "job_8/batch.json")) < 0)
		diag("symlink: %s", strerror(errno));
	run("8");
	ok(strstr(res.detail, "batch: ? MiB dirty, unreadable record") != NULL,
	   "a symlinked record is not read: %s", res.detail);
	ok(access(at(victim, "precious.json"), F_OK) == 0, "... and its target is kept");
}

static void test_shared_dir(void)
{
	struct golden_teardown_result r;
	struct golden_err err = {{0}};

	mkdir(at(tdir, "job_9"), 0700);
	put(at(tdir, "job_9/batch.json"), "{\"action\":\"flushed\"}");
	chmod(tdir, 01777);
	run("9");
	is(golden_check_status_name(res.status), "warn",
	   "a teardown_dir others may write to is refused, sticky or not");
	ok(strstr(res.detail, "mode 1777") != NULL, "... saying why: %s", res.detail);
	ok(access(at(tdir, "job_9/batch.json"), F_OK) == 0, "... and nothing in it is consumed");
	memset(&r, 0, sizeof(r));
	r.action = "off";
	ok(golden_teardown_record(tdir, "10", "batch", &r, &err) < 0,
	   "the probe does not write there either: %s", err.msg);
	chmod(tdir, 0700);
	is_int(golden_teardown_record(tdir, "10", "../x", &r, &err), -1,
	       "a step name with a slash is refused");
}

int main(void)
{
	if (!mkdtemp(top)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	snprintf(tdir, sizeof(tdir), "%s/teardown", top);
	snprintf(victim, sizeof(victim), "%s/victim", top);
	mkdir(victim, 0700);
	golden_conf_init(&conf);
	ctx.conf = &conf;
	ctx.node = "n1";
	ctx.phase = GOLDEN_PHASE_EPILOG;
	ctx.teardown_dir = tdir;
	test_record_and_check();
	test_garbage();
	test_planted_symlink();
	test_shared_dir();
	nftw(top, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return done_testing();
}
