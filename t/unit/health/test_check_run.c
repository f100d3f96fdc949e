/* The runner: every check in its own process, under its deadline and the
 * overall budget; crashes and hangs become named results. */
#include <config.h>

#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "health/check_run.h"
#include "health/health_log.h"
#include "t/unit/tap.h"

static void chk_ok(const struct golden_check_ctx *ctx, struct golden_check_result *r)
{
	(void)ctx;
	(void)r;
}

static void chk_fail(const struct golden_check_ctx *ctx, struct golden_check_result *r)
{
	golden_check_fail(r, GOLDEN_ACTION_DRAIN_RESET, "gpu1 ecc-dbe", "node %s", ctx->node);
}

static void chk_warn(const struct golden_check_ctx *ctx, struct golden_check_result *r)
{
	(void)ctx;
	golden_check_warn(r, "gpu0 xid13", "app error");
}

static void chk_hang(const struct golden_check_ctx *ctx, struct golden_check_result *r)
{
	(void)ctx;
	(void)r;
	/* A hung driver call: even its children are killed with the group. */
	if (fork() == 0)
		pause();
	pause();
}

static void chk_close_and_stay(const struct golden_check_ctx *ctx, struct golden_check_result *r)
{
	(void)ctx;
	golden_check_warn(r, "t-closer", "half-written");
	/* Its result pipe closed (as an exec'd helper or a stray close would do),
	 * the process itself still running: EOF is not an exit. */
	for (int fd = 3; fd < 1024; fd++)
		close(fd);
	sleep(60);
}

static void chk_crash(const struct golden_check_ctx *ctx, struct golden_check_result *r)
{
	(void)ctx;
	(void)r;
	abort();
}

static void chk_mem(const struct golden_check_ctx *ctx, struct golden_check_result *r)
{
	(void)ctx;
	/* Checks may write anywhere in their own memory: the caller's is safe. */
	golden_check_fail(r, GOLDEN_ACTION_DRAIN, "mlx5_4 p1 down", "state 1: DOWN");
}

static const struct golden_check c_ok = {"t-ok", GOLDEN_CHK_GPU, chk_ok, 2000, 7};
static const struct golden_check c_fail = {"t-fail", GOLDEN_CHK_GPU, chk_fail, 2000, 7};
static const struct golden_check c_warn = {"t-warn", GOLDEN_CHK_KERNEL, chk_warn, 2000, 7};
static const struct golden_check c_hang = {"t-hang", GOLDEN_CHK_STORAGE, chk_hang, 300, 7};
static const struct golden_check c_crash = {"t-crash", GOLDEN_CHK_FABRIC, chk_crash, 2000, 7};
static const struct golden_check c_mem = {"t-mem", GOLDEN_CHK_FABRIC, chk_mem, 2000, 7};

int main(void)
{
	struct golden_run_report *rep = malloc(sizeof(*rep));
	struct golden_check_ctx ctx = {0};
	const struct golden_check *list[6];

	ctx.node = "n7";
	list[0] = &c_ok;
	list[1] = &c_warn;
	golden_checks_run(list, 2, &ctx, 5000, rep);
	is_int(rep->n, 2, "two outcomes");
	ok(rep->out[0].res.status == GOLDEN_ST_OK, "ok check is ok");
	ok(rep->out[1].res.status == GOLDEN_ST_WARN, "warn check warns");
	is_int(rep->worst, 1, "worst is the warning");

	list[0] = &c_ok;
	list[1] = &c_fail;
	list[2] = &c_hang;
	list[3] = &c_crash;
	list[4] = &c_mem;
	golden_checks_run(list, 5, &ctx, 5000, rep);
	ok(rep->out[1].res.status == GOLDEN_ST_FAIL &&
	       rep->out[1].res.action == GOLDEN_ACTION_DRAIN_RESET,
	   "failing check: fail, drain-reset");
	is(rep->out[1].res.code, "gpu1 ecc-dbe", "its code comes back from the child");
	is(rep->out[1].res.detail, "node n7", "and its detail, with the context it saw");
	ok(rep->out[2].timed_out, "hanging check timed out");
	is(rep->out[2].res.code, "hc t-hang timeout", "reported with its name");
	ok(strstr(rep->out[2].res.detail, "within 300 ms") != NULL, "detail gives the deadline: %s",
	   rep->out[2].res.detail);
	ok(!rep->out[2].abandoned, "a sleeping process dies from SIGKILL (not abandoned)");
	ok(rep->out[2].res.action == GOLDEN_ACTION_DRAIN, "a hung check drains");
	is(rep->out[3].res.code, "hc t-crash crashed", "crashing check reported by name");
	ok(strstr(rep->out[3].res.detail, "Aborted") != NULL, "with its signal: %s",
	   rep->out[3].res.detail);
	is(rep->out[4].res.code, "mlx5_4 p1 down", "checks after a crash still report");
	is_int(rep->worst, 1, "worst: the drain-reset failure");
	ok(rep->total_ms < 4000, "a 300 ms deadline bounds a hang forever (run took %d ms)",
	   rep->total_ms);

	/* The overall budget cuts a check's own deadline. */
	{
		const struct golden_check slow = {"t-slow", GOLDEN_CHK_GPU, chk_hang, 60000, 7};

		list[0] = &slow;
		golden_checks_run(list, 1, &ctx, 200, rep);
		ok(rep->out[0].timed_out && strstr(rep->out[0].res.detail, "overall budget"),
		   "budget exceeded is said so: %s", rep->out[0].res.detail);
	}

	/* The run log: a FIFO planted where it belongs is refused, never blocked
	 * on (alarm: a guard so that a regression fails instead of hanging). */
	{
		char dir[] = "/tmp/golden-test-log-XXXXXX", path[64];
		struct golden_run_info info = {.node = "n7", .job_id = "", .phase = "prolog"};

		list[0] = &c_ok;
		golden_checks_run(list, 1, &ctx, 5000, rep);
		if (mkdtemp(dir)) {
			snprintf(path, sizeof(path), "%s/health.jsonl", dir);
			mkfifo(path, 0600);
			alarm(20);
			is_int(golden_health_log_append(path, rep, &info), -1,
			       "a FIFO in the run log's place is refused without blocking");
			alarm(0);
			unlink(path);
			is_int(golden_health_log_append(path, rep, &info), 0,
			       "a log file is created");
			unlink(path);
			/* Its directory is checked like every directory golden
			 * writes into: a symlink planted for it is refused and
			 * nothing is written behind it. */
			{
				char target[80], link[80], via[96];

				snprintf(target, sizeof(target), "%s/elsewhere", dir);
				snprintf(link, sizeof(link), "%s/logdir", dir);
				snprintf(via, sizeof(via), "%s/health.jsonl", link);
				mkdir(target, 0755);
				symlink(target, link);
				is_int(golden_health_log_append(via, rep, &info), -1,
				       "a log directory that is a symlink is refused");
				snprintf(via, sizeof(via), "%s/health.jsonl", target);
				ok(access(via, F_OK) < 0, "... and nothing is written behind it");
				unlink(link);
				rmdir(target);
				/* A directory others may write to is refused too. */
				mkdir(target, 0755);
				chmod(target, 0777);
				is_int(golden_health_log_append(via, rep, &info), -1,
				       "a world-writable log directory is refused");
				rmdir(target);
			}
			rmdir(dir);
		}
	}

	/* EOF on the result pipe is not the end of the child: the wait for its
	 * exit is under the deadline too. alarm: a hang fails this test. */
	{
		const struct golden_check closer = {"t-closer", GOLDEN_CHK_KERNEL,
		                                    chk_close_and_stay, 300, 7};

		alarm(30);
		list[0] = &closer;
		golden_checks_run(list, 1, &ctx, 5000, rep);
		alarm(0);
		ok(rep->out[0].timed_out && rep->out[0].res.status == GOLDEN_ST_FAIL,
		   "a check that closes its pipe and keeps running times out (no endless wait)");
		is(rep->out[0].res.code, "hc t-closer timeout", "reported with its name: %s",
		   rep->out[0].res.detail);
	}

	free(rep);
	return done_testing();
}
