#include <config.h>

#include "util/child.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/strutil.h"

long long golden_epoch_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

long golden_child_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Start fn in a child of its own process group. The pipe's write end is
 * held only by the child, so EOF on the read end means it exited. */
int golden_child_spawn(struct golden_child *ch, void (*fn)(void *, void *), void *shared, void *arg)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	ch->pid = fork();
	if (ch->pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (ch->pid == 0) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		setpgid(0, 0);
		close(p[0]);
		signal(SIGPIPE, SIG_DFL);
		/* A child abandoned in D state must not hold the caller's stdout or
		 * stderr open: slurmd (and any pipe reader) would wait for EOF until
		 * the hung mount or driver returns. Results travel in shared memory. */
		if (null >= 0) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
		}
		fn(shared, arg);
		_exit(0);
	}
	setpgid(ch->pid, ch->pid); /* also from the parent: no race with kill(-pid) */
	close(p[1]);
	ch->fd = p[0];
	ch->done = false;
	return 0;
}

/* Kill the group; give the kernel a moment to reap. A process in D state
 * does not die from SIGKILL until its I/O returns: leave it. */
bool golden_child_kill(pid_t pid)
{
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	for (int i = 0; i < 20; i++) {
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return true;
		usleep(5000);
	}
	return false;
}

/* Reap pid, waiting no later than deadline (golden_child_now_ms clock).
 * Returns 0 with *status filled, 1 if it has not exited by then, -1 on
 * error. EOF on a child's pipe does not mean it has exited: it may have
 * closed the pipe and kept running, or hang in the kernel on its way out. */
static int reap_until(pid_t pid, long deadline, int *status)
{
	long pause_us = 200;

	for (;;) {
		pid_t r = waitpid(pid, status, WNOHANG);
		long left;

		if (r == pid)
			return 0;
		if (r < 0 && errno != EINTR)
			return -1;
		left = deadline - golden_child_now_ms();
		if (left <= 0)
			return 1;
		if (pause_us > left * 1000)
			pause_us = left * 1000;
		usleep((useconds_t)pause_us);
		if (pause_us < 10000)
			pause_us *= 2;
	}
}

/* Time a child that said it is done (EOF) gets to become reapable, even at
 * its deadline: exiting takes microseconds unless the child is stuck. */
#define REAP_GRACE_MS 20

int golden_child_exit_status(pid_t pid, long deadline, int *sig)
{
	long grace = golden_child_now_ms() + REAP_GRACE_MS;
	int st, rc;

	*sig = 0;
	rc = reap_until(pid, deadline > grace ? deadline : grace, &st);
	if (rc == 1) {
		golden_child_kill(pid);
		return 1;
	}
	if (rc < 0)
		return -1;
	if (WIFSIGNALED(st)) {
		*sig = WTERMSIG(st);
		return -1;
	}
	return WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* Wait for all children until each is done or past its deadline. */
void golden_child_wait_all(struct golden_child *ch, int n)
{
	struct pollfd pfd[GOLDEN_CHILD_MAX];

	for (;;) {
		int np = 0, idx[GOLDEN_CHILD_MAX];
		long now = golden_child_now_ms(), next = -1;

		for (int i = 0; i < n; i++) {
			if (ch[i].done || ch[i].pid <= 0)
				continue;
			if (now >= ch[i].deadline)
				continue;
			pfd[np].fd = ch[i].fd;
			pfd[np].events = POLLIN;
			idx[np++] = i;
			if (next < 0 || ch[i].deadline < next)
				next = ch[i].deadline;
		}
		if (np == 0)
			return;
		if (poll(pfd, (nfds_t)np, (int)(next - now)) < 0 && errno != EINTR)
			return;
		for (int k = 0; k < np; k++)
			if (pfd[k].revents & (POLLIN | POLLHUP | POLLERR)) {
				ch[idx[k]].done = true;
				ch[idx[k]].finished = golden_child_now_ms();
			}
	}
}

int golden_child_run(void (*fn)(void *shared, void *arg), void *arg, void *shared_out, size_t size,
                     int deadline_ms)
{
	struct golden_child ch;
	void *shared = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int sig, rc;

	if (shared == MAP_FAILED)
		return -1;
	memset(shared, 0, size);
	if (golden_child_spawn(&ch, fn, shared, arg) < 0) {
		munmap(shared, size);
		return -1;
	}
	ch.deadline = golden_child_now_ms() + deadline_ms;
	golden_child_wait_all(&ch, 1);
	close(ch.fd);
	if (!ch.done) {
		golden_child_kill(ch.pid);
		rc = 1;
	} else {
		rc = golden_child_exit_status(ch.pid, ch.deadline, &sig);
		if (rc == 0)
			memcpy(shared_out, shared, size);
	}
	munmap(shared, size);
	return rc;
}

int golden_child_capture(char *const argv[], char *out, size_t outlen, int timeout_ms)
{
	int p[2], st;
	size_t used = 0;
	long end = golden_child_now_ms() + timeout_ms;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDWR);

		setpgid(0, 0);
		if (devnull >= 0)
			dup2(devnull, STDIN_FILENO);
		dup2(p[1], STDOUT_FILENO);
		execv(argv[0], argv);
		_exit(127);
	}
	setpgid(pid, pid); /* also from the parent: no race with kill(-pid) */
	close(p[1]);
	if (out && outlen)
		out[0] = '\0';
	for (;;) {
		struct pollfd pfd = {p[0], POLLIN, 0};
		long left = end - golden_child_now_ms();
		char buf[1024];
		ssize_t n;

		if (left <= 0 || poll(&pfd, 1, (int)left) <= 0) {
			golden_child_kill(pid);
			close(p[0]);
			return -1;
		}
		n = read(p[0], buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (out && used + 1 < outlen) {
			size_t take = (size_t)n < outlen - 1 - used ? (size_t)n : outlen - 1 - used;

			memcpy(out + used, buf, take);
			used += take;
			out[used] = '\0';
		}
	}
	close(p[0]);
	/* EOF: stdout is closed, but the program may well still run (a
	 * scontrol that closed stdout and waits on a dead controller). */
	if (reap_until(pid, end, &st) != 0) {
		golden_child_kill(pid);
		return -1;
	}
	if (!WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

int golden_child_which(const char *name, char *buf, size_t len)
{
	const char *path = getenv("PATH");

	if (!name || !*name || !len)
		return -1;
	if (strchr(name, '/'))
		return name[0] == '/' && golden_strlcpy(buf, name, len) == 0 &&
		               access(buf, X_OK) == 0
		           ? 0
		           : -1;
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");

		if (n && path[0] == '/' && n + strlen(name) + 2 <= len) {
			snprintf(buf, len, "%.*s/%s", (int)n, path, name);
			if (access(buf, X_OK) == 0)
				return 0;
		}
		path += n;
		if (*path == ':')
			path++;
	}
	buf[0] = '\0';
	return -1;
}
