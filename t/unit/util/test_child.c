/* Children under deadlines: every wait in util/child.c is bounded, also
 * after the child closed its pipe (EOF) but kept running. Each case runs
 * under alarm(): an unbounded wait fails the test instead of hanging it. */
#include <config.h>

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "t/unit/tap.h"
#include "util/child.h"

struct result {
	int value;
};

static void fn_ok(void *shared, void *arg)
{
	(void)arg;
	((struct result *)shared)->value = 42;
}

static void fn_close_and_stay(void *shared, void *arg)
{
	(void)arg;
	((struct result *)shared)->value = 7;
	for (int fd = 3; fd < 1024; fd++)
		close(fd);
	sleep(60);
}

static void fn_exit_1(void *shared, void *arg)
{
	(void)shared;
	(void)arg;
	_exit(1);
}

static void test_run(void)
{
	struct result r = {0};

	alarm(30);
	is_int(golden_child_run(fn_ok, NULL, &r, sizeof(r), 2000), 0, "child_run: finished");
	is_int(r.value, 42, "child_run: result copied back");
	r.value = 0;
	is_int(golden_child_run(fn_close_and_stay, NULL, &r, sizeof(r), 300), 1,
	       "child_run: a child that closes its pipe and stays is a timeout");
	is_int(r.value, 0, "... and its half-finished result is not used");
	is_int(golden_child_run(fn_exit_1, NULL, &r, sizeof(r), 2000), -1,
	       "child_run: a failing child is a failure");
	alarm(0);
}

static void test_capture(void)
{
	char out[64];
	char *echo[] = {"/bin/sh", "-c", "echo hello; exit 3", NULL};
	char *closer[] = {"/bin/sh", "-c", "echo partial; exec >&-; exec sleep 60", NULL};
	char *silent[] = {"/bin/sh", "-c", "exec sleep 60", NULL};
	char *missing[] = {"/nonexistent/scontrol", NULL};

	alarm(30);
	is_int(golden_child_capture(echo, out, sizeof(out), 2000), 3, "capture: exit status");
	is(out, "hello\n", "capture: stdout");
	/* A scontrol that closes stdout and waits on a dead controller. */
	is_int(golden_child_capture(closer, out, sizeof(out), 300), -1,
	       "capture: closed stdout, still running: killed at the deadline");
	is_int(golden_child_capture(silent, out, sizeof(out), 300), -1,
	       "capture: silent and running: killed at the deadline");
	is_int(golden_child_capture(missing, NULL, 0, 2000), 127, "capture: exec failure is 127");
	alarm(0);
}

int main(void)
{
	test_run();
	test_capture();
	return done_testing();
}
