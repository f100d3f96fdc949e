#include "sweep/launch.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/child.h"

#define KILL_GRACE_MS 10000
#define POLL_MS       50

static void nap(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Wait for pid until end (ms on the child clock). 1: it ended (*st set). */
static int wait_until(pid_t pid, long end, int *st)
{
	for (;;) {
		pid_t r = waitpid(pid, st, WNOHANG);

		if (r == pid)
			return 1;
		if (r < 0 && errno != EINTR)
			return 1;
		if (golden_child_now_ms() >= end)
			return 0;
		nap(POLL_MS);
	}
}

int golden_sweep_launch(char *const argv[], int log_fd, long deadline_ms,
                        struct golden_sweep_outcome *out)
{
	long start = golden_child_now_ms();
	pid_t pid;
	int st = 0;

	memset(out, 0, sizeof(*out));
	out->exit_code = -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

		setpgid(0, 0);
		signal(SIGPIPE, SIG_DFL);
		if (null >= 0)
			dup2(null, STDIN_FILENO);
		dup2(log_fd, STDOUT_FILENO);
		dup2(log_fd, STDERR_FILENO);
		execv(argv[0], argv);
		_exit(127);
	}
	setpgid(pid, pid);
	if (!wait_until(pid, start + deadline_ms, &st)) {
		/* srun cancels its step on SIGTERM; a stuck one is killed. */
		out->timed_out = 1;
		kill(-pid, SIGTERM);
		if (!wait_until(pid, golden_child_now_ms() + KILL_GRACE_MS, &st)) {
			golden_child_kill(pid);
			st = 0;
		}
	}
	out->elapsed_ms = golden_child_now_ms() - start;
	if (WIFEXITED(st) && !out->timed_out)
		out->exit_code = WEXITSTATUS(st);
	else if (WIFSIGNALED(st))
		out->signal = WTERMSIG(st);
	return 0;
}
