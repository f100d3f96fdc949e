/* Programs run for their output: see capture.h. */
#include <config.h>

#include "util/capture.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/child.h"

static int start(struct golden_capture *j)
{
	int out[2], err[2];

	j->pid = -1;
	j->outfd = j->errfd = -1;
	if (pipe2(out, O_CLOEXEC) < 0)
		return -1;
	if (pipe2(err, O_CLOEXEC) < 0) {
		close(out[0]);
		close(out[1]);
		return -1;
	}
	j->pid = fork();
	if (j->pid < 0) {
		close(out[0]);
		close(out[1]);
		close(err[0]);
		close(err[1]);
		return -1;
	}
	if (j->pid == 0) {
		int devnull = open("/dev/null", O_RDONLY);

		setpgid(0, 0);
		if (devnull >= 0)
			dup2(devnull, STDIN_FILENO);
		dup2(out[1], STDOUT_FILENO);
		dup2(err[1], STDERR_FILENO);
		execv(j->argv[0], j->argv);
		dprintf(STDERR_FILENO, "cannot run %s: %s\n", j->argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(j->pid, j->pid); /* also from here: no race with the kill below */
	close(out[1]);
	close(err[1]);
	j->outfd = out[0];
	j->errfd = err[0];
	j->deadline = golden_child_now_ms() + j->timeout_ms;
	return 0;
}

static void add_out(struct golden_capture *j, const char *buf, size_t n, size_t max_out)
{
	if (j->outlen + n > max_out) {
		j->truncated = true;
		n = max_out > j->outlen ? max_out - j->outlen : 0;
	}
	if (!n)
		return;
	if (j->outlen + n + 1 > j->outcap) {
		size_t cap = j->outcap ? j->outcap : 4096;
		char *p;

		while (cap < j->outlen + n + 1)
			cap *= 2;
		p = realloc(j->out, cap);
		if (!p) {
			j->truncated = true;
			return;
		}
		j->out = p;
		j->outcap = cap;
	}
	memcpy(j->out + j->outlen, buf, n);
	j->outlen += n;
	j->out[j->outlen] = '\0';
}

static void add_err(struct golden_capture *j, const char *buf, size_t n)
{
	size_t have = strlen(j->err), room = sizeof(j->err) - 1;

	if (n >= room) {
		memcpy(j->err, buf + n - room, room);
		j->err[room] = '\0';
		return;
	}
	if (have + n > room) {
		size_t drop = have + n - room;

		memmove(j->err, j->err + drop, have - drop + 1);
		have -= drop;
	}
	memcpy(j->err + have, buf, n);
	j->err[have + n] = '\0';
}

static void finish(struct golden_capture *j)
{
	int st;

	if (j->outfd >= 0)
		close(j->outfd);
	if (j->errfd >= 0)
		close(j->errfd);
	j->outfd = j->errfd = -1;
	if (j->timed_out) {
		if (!golden_child_kill(j->pid)) {
			/* Stuck in the kernel: abandoned; it is reaped when it dies. */
			j->status = -1;
			j->pid = -1;
			return;
		}
		waitpid(j->pid, NULL, 0);
		j->status = -1;
	} else if (waitpid(j->pid, &st, 0) == j->pid && WIFEXITED(st)) {
		j->status = WEXITSTATUS(st);
	} else {
		j->status = -1;
	}
	j->pid = -1;
}

/* Both pipes closed: has it exited? (It may have closed them and gone on.) */
static bool exited(struct golden_capture *j)
{
	int st;
	pid_t r = waitpid(j->pid, &st, WNOHANG);

	if (r == 0)
		return false;
	j->status = r == j->pid && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	j->pid = -1;
	return true;
}

int golden_capture_run(struct golden_capture *jobs, size_t n, int parallel, size_t max_out)
{
	size_t next = 0, running = 0;
	struct pollfd *pfd = calloc(2 * (size_t)(parallel > 0 ? parallel : 1), sizeof(*pfd));
	size_t *who = calloc(2 * (size_t)(parallel > 0 ? parallel : 1), sizeof(*who));

	if (!pfd || !who) {
		free(pfd);
		free(who);
		return -1;
	}
	if (parallel < 1)
		parallel = 1;
	for (size_t i = 0; i < n; i++) {
		jobs[i].out = NULL;
		jobs[i].outlen = jobs[i].outcap = 0;
		jobs[i].err[0] = '\0';
		jobs[i].status = -1;
		jobs[i].timed_out = jobs[i].truncated = false;
		jobs[i].pid = -1;
		jobs[i].outfd = jobs[i].errfd = -1;
	}
	while (next < n || running) {
		nfds_t np = 0;
		long now, wait = -1;

		while (next < n && running < (size_t)parallel) {
			struct golden_capture *j = &jobs[next++];

			if (start(j) < 0) {
				snprintf(j->err, sizeof(j->err), "cannot start %s: %s", j->argv[0],
				         strerror(errno));
				continue;
			}
			running++;
		}
		now = golden_child_now_ms();
		for (size_t i = 0; i < next; i++) {
			struct golden_capture *j = &jobs[i];

			if (j->pid < 0)
				continue;
			if (now >= j->deadline) {
				j->timed_out = true;
				finish(j);
				running--;
				continue;
			}
			if (wait < 0 || j->deadline - now < wait)
				wait = j->deadline - now;
			if (j->outfd >= 0) {
				pfd[np] = (struct pollfd){j->outfd, POLLIN, 0};
				who[np++] = i;
			}
			if (j->errfd >= 0) {
				pfd[np] = (struct pollfd){j->errfd, POLLIN, 0};
				who[np++] = i;
			}
			if (j->outfd < 0 && j->errfd < 0) {
				if (exited(j))
					running--;
				else if (wait < 0 || wait > 10)
					wait = 10; /* look again soon */
			}
		}
		if (!np) {
			if (running && wait > 0)
				poll(NULL, 0, (int)wait);
			continue;
		}
		if (poll(pfd, np, (int)wait) < 0 && errno != EINTR)
			break;
		for (nfds_t k = 0; k < np; k++) {
			struct golden_capture *j = &jobs[who[k]];
			char buf[65536];
			ssize_t got;

			if (!(pfd[k].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			got = read(pfd[k].fd, buf, sizeof(buf));
			if (got < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (got <= 0) {
				close(pfd[k].fd);
				if (pfd[k].fd == j->outfd)
					j->outfd = -1;
				else
					j->errfd = -1;
				continue;
			}
			if (pfd[k].fd == j->outfd)
				add_out(j, buf, (size_t)got, max_out);
			else
				add_err(j, buf, (size_t)got);
		}
	}
	free(pfd);
	free(who);
	return 0;
}

int golden_capture_one(struct golden_capture *job, size_t max_out)
{
	return golden_capture_run(job, 1, 1, max_out);
}

void golden_capture_free(struct golden_capture *job)
{
	free(job->out);
	job->out = NULL;
	job->outlen = job->outcap = 0;
}

void golden_capture_reason(const struct golden_capture *job, char *buf, size_t len)
{
	const char *e = job->err + strlen(job->err);

	while (e > job->err && (e[-1] == '\n' || e[-1] == ' ' || e[-1] == '\r'))
		e--;
	if (e > job->err) {
		const char *s = e;

		while (s > job->err && s[-1] != '\n')
			s--;
		snprintf(buf, len, "%.*s", (int)(e - s), s);
		return;
	}
	if (job->timed_out)
		snprintf(buf, len, "timed out after %d ms", job->timeout_ms);
	else
		snprintf(buf, len, "exit status %d", job->status);
}
