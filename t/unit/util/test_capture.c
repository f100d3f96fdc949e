/* Programs run for their output: several at once, each under its deadline,
 * big outputs whole, stderr's last line for the message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t/unit/tap.h"
#include "util/capture.h"

int main(void)
{
	char *const echo[] = {"/bin/sh", "-c", "echo hello; echo oops >&2; exit 3", NULL};
	char *const big[] = {"/bin/sh", "-c", "head -c 3000000 /dev/zero | tr '\\0' x", NULL};
	char *const hang[] = {"/bin/sh", "-c", "echo started; exec sleep 30", NULL};
	char *const closes[] = {"/bin/sh", "-c", "exec >&- 2>&-; sleep 30", NULL};
	char *const missing[] = {"/nonexistent/prog", NULL};
	struct golden_capture jobs[5];
	char why[256];

	memset(jobs, 0, sizeof(jobs));
	jobs[0] = (struct golden_capture){.argv = echo, .timeout_ms = 5000};
	jobs[1] = (struct golden_capture){.argv = big, .timeout_ms = 10000};
	jobs[2] = (struct golden_capture){.argv = hang, .timeout_ms = 300};
	jobs[3] = (struct golden_capture){.argv = closes, .timeout_ms = 300};
	jobs[4] = (struct golden_capture){.argv = missing, .timeout_ms = 5000};
	ok(golden_capture_run(jobs, 5, 2, 2500000) == 0, "five programs, two at a time");
	is(jobs[0].out, "hello\n", "stdout captured");
	ok(jobs[0].status == 3, "exit status 3 (%d)", jobs[0].status);
	golden_capture_reason(&jobs[0], why, sizeof(why));
	is(why, "oops", "reason: stderr's last line");
	ok(jobs[1].outlen == 2500000 && jobs[1].truncated, "3 MB output cut at max_out (%zu)",
	   jobs[1].outlen);
	ok(jobs[2].timed_out && jobs[2].status == -1, "a hung program is killed at its deadline");
	is(jobs[2].out, "started\n", "what it printed before is kept");
	golden_capture_reason(&jobs[2], why, sizeof(why));
	is(why, "timed out after 300 ms", "reason: %s", why);
	ok(jobs[3].timed_out, "closing stdout does not end the wait: the deadline does");
	ok(jobs[4].status == 127, "a missing program: status 127 (%d)", jobs[4].status);
	golden_capture_reason(&jobs[4], why, sizeof(why));
	ok(strstr(why, "cannot run /nonexistent/prog") != NULL, "reason names it: %s", why);
	for (int i = 0; i < 5; i++)
		golden_capture_free(&jobs[i]);
	return done_testing();
}
