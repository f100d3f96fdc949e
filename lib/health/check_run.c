#include <config.h>

#include "health/check_run.h"

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

static const struct golden_check *const modules[] = {golden_xid_checks, golden_gpu_checks,
                                                     golden_fabric_checks, golden_storage_checks,
                                                     golden_kernel_checks};

const struct golden_check *golden_check_find(const char *name)
{
	for (size_t m = 0; m < sizeof(modules) / sizeof(modules[0]); m++)
		for (const struct golden_check *c = modules[m]; c->name; c++)
			if (!strcmp(c->name, name))
				return c;
	return NULL;
}

int golden_checks_select(const struct golden_hc_conf *conf, enum golden_phase phase,
                         const struct golden_check **list, int max)
{
	int n = 0;

	for (size_t m = 0; m < sizeof(modules) / sizeof(modules[0]); m++)
		for (const struct golden_check *c = modules[m]; c->name && n < max; c++) {
			int deadline;
			unsigned phases;

			if (golden_hc_conf_check(conf, c, &deadline, &phases) &&
			    (phases & (unsigned)phase))
				list[n++] = c;
		}
	return n;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct child {
	pid_t pid;
	int fd; /* read end: EOF when the child is gone */
	long deadline;
	long finished; /* when EOF arrived: the check's own duration */
	bool done;
};

/* Start fn in a child of its own process group. The pipe's write end is
 * held only by the child, so EOF on the read end means it exited. */
static int spawn(struct child *ch, void (*fn)(void *, void *), void *shared, void *arg)
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
static bool kill_and_reap(pid_t pid)
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

static int exit_status(pid_t pid, int *sig)
{
	int st;

	*sig = 0;
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	if (WIFSIGNALED(st)) {
		*sig = WTERMSIG(st);
		return -1;
	}
	return WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* Wait for all children until each is done or past its deadline. */
static void wait_all(struct child *ch, int n)
{
	struct pollfd pfd[GOLDEN_MAX_CHECKS];

	for (;;) {
		int np = 0, idx[GOLDEN_MAX_CHECKS];
		long now = now_ms(), next = -1;

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
				ch[idx[k]].finished = now_ms();
			}
	}
}

static void run_one(void *shared, void *arg)
{
	const struct golden_check_ctx *ctx = ((void **)arg)[0];
	const struct golden_check *chk = ((void **)arg)[1];

	chk->fn(ctx, shared);
}

void golden_checks_run(const struct golden_check *const *list, int n,
                       const struct golden_check_ctx *ctx, int budget_ms,
                       struct golden_run_report *rep)
{
	struct child ch[GOLDEN_MAX_CHECKS];
	struct golden_check_result *shared;
	void *args[GOLDEN_MAX_CHECKS][2];
	long start = now_ms(), budget_end = start + budget_ms;

	memset(rep, 0, sizeof(*rep));
	rep->worst = -1;
	if (n > GOLDEN_MAX_CHECKS)
		n = GOLDEN_MAX_CHECKS;
	rep->n = n;
	shared = mmap(NULL, sizeof(*shared) * (size_t)(n ? n : 1), PROT_READ | PROT_WRITE,
	              MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	for (int i = 0; i < n; i++) {
		struct golden_check_outcome *o = &rep->out[i];
		unsigned phases;

		o->chk = list[i];
		golden_hc_conf_check(ctx->conf, list[i], &o->deadline_ms, &phases);
		ch[i].pid = -1;
		ch[i].deadline = start + o->deadline_ms;
		if (ch[i].deadline > budget_end)
			ch[i].deadline = budget_end;
		if (shared == MAP_FAILED)
			continue;
		memset(&shared[i], 0, sizeof(shared[i]));
		args[i][0] = (void *)ctx;
		args[i][1] = (void *)list[i];
		if (spawn(&ch[i], run_one, &shared[i], args[i]) < 0)
			ch[i].pid = -1;
	}
	wait_all(ch, n);
	for (int i = 0; i < n; i++) {
		struct golden_check_outcome *o = &rep->out[i];
		int sig;

		if (ch[i].pid <= 0) {
			golden_result_fail(&o->res, GOLDEN_ACTION_DRAIN, "golden internal",
			                   "check %s could not be started: %s", o->chk->name,
			                   strerror(errno));
			continue;
		}
		close(ch[i].fd);
		if (!ch[i].done) {
			o->timed_out = true;
			o->abandoned = !kill_and_reap(ch[i].pid);
			o->duration_ms = (int)(ch[i].deadline - start);
			golden_result_fail(&o->res, GOLDEN_ACTION_DRAIN, "", "%s", "");
			snprintf(o->res.code, sizeof(o->res.code), "hc %s timeout", o->chk->name);
			snprintf(o->res.detail, sizeof(o->res.detail),
			         "check %s did not finish within %d ms%s%s", o->chk->name,
			         (int)(ch[i].deadline - start),
			         ch[i].deadline == budget_end ? " (overall budget)" : "",
			         o->abandoned ? "; process stuck in the kernel (D state), abandoned"
			                      : "; killed");
			continue;
		}
		o->duration_ms = (int)(ch[i].finished - start);
		if (exit_status(ch[i].pid, &sig) < 0) {
			golden_result_fail(&o->res, GOLDEN_ACTION_DRAIN, "", "%s", "");
			snprintf(o->res.code, sizeof(o->res.code), "hc %s crashed", o->chk->name);
			snprintf(o->res.detail, sizeof(o->res.detail),
			         "check %s died%s%s before reporting", o->chk->name,
			         sig ? " of signal " : "", sig ? strsignal(sig) : "");
			continue;
		}
		o->res = shared[i];
		o->res.code[sizeof(o->res.code) - 1] = '\0';
		o->res.detail[sizeof(o->res.detail) - 1] = '\0';
	}
	for (int i = 0; i < n; i++) {
		const struct golden_check_result *r = &rep->out[i].res;

		if (r->status == GOLDEN_ST_OK)
			continue;
		if (rep->worst < 0 || r->status > rep->out[rep->worst].res.status ||
		    (r->status == rep->out[rep->worst].res.status &&
		     r->action > rep->out[rep->worst].res.action))
			rep->worst = i;
	}
	rep->total_ms = (int)(now_ms() - start);
	if (shared != MAP_FAILED)
		munmap(shared, sizeof(*shared) * (size_t)(n ? n : 1));
}

int golden_run_guarded(void (*fn)(void *shared, void *arg), void *arg, void *shared_out,
                       size_t size, int deadline_ms)
{
	struct child ch;
	void *shared = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int sig, rc;

	if (shared == MAP_FAILED)
		return -1;
	memset(shared, 0, size);
	if (spawn(&ch, fn, shared, arg) < 0) {
		munmap(shared, size);
		return -1;
	}
	ch.deadline = now_ms() + deadline_ms;
	wait_all(&ch, 1);
	close(ch.fd);
	if (!ch.done) {
		kill_and_reap(ch.pid);
		rc = 1;
	} else {
		rc = exit_status(ch.pid, &sig) == 0 ? 0 : -1;
		if (rc == 0)
			memcpy(shared_out, shared, size);
	}
	munmap(shared, size);
	return rc;
}
