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

#include "util/child.h"
#include "util/kmsg.h"

_Static_assert(GOLDEN_MAX_CHECKS <= GOLDEN_CHILD_MAX, "the runner waits for all checks at once");

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
	struct golden_child ch[GOLDEN_MAX_CHECKS];
	struct golden_check_result *shared;
	void *args[GOLDEN_MAX_CHECKS][2];
	long start = golden_child_now_ms(), budget_end = start + budget_ms;

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
		golden_conf_check(ctx->conf, list[i], &o->deadline_ms, &phases);
		ch[i].pid = -1;
		ch[i].deadline = start + o->deadline_ms;
		if (ch[i].deadline > budget_end)
			ch[i].deadline = budget_end;
		if (shared == MAP_FAILED)
			continue;
		memset(&shared[i], 0, sizeof(shared[i]));
		args[i][0] = (void *)ctx;
		args[i][1] = (void *)list[i];
		if (golden_child_spawn(&ch[i], run_one, &shared[i], args[i]) < 0)
			ch[i].pid = -1;
	}
	golden_child_wait_all(ch, n);
	for (int i = 0; i < n; i++) {
		struct golden_check_outcome *o = &rep->out[i];
		int sig, rc;

		if (ch[i].pid <= 0) {
			golden_check_fail(&o->res, GOLDEN_ACTION_DRAIN, "golden internal",
			                  "check %s could not be started: %s", o->chk->name,
			                  strerror(errno));
			continue;
		}
		close(ch[i].fd);
		if (!ch[i].done) {
			o->timed_out = true;
			o->abandoned = !golden_child_kill(ch[i].pid);
			o->duration_ms = (int)(ch[i].deadline - start);
			golden_check_fail(&o->res, GOLDEN_ACTION_DRAIN, "", "%s", "");
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
		rc = golden_child_exit_status(ch[i].pid, ch[i].deadline, &sig);
		if (rc == 1) {
			/* It closed its end of the pipe but did not exit: its
			 * result may still change under us. */
			o->timed_out = true;
			golden_check_fail(&o->res, GOLDEN_ACTION_DRAIN, "", "%s", "");
			snprintf(o->res.code, sizeof(o->res.code), "hc %s timeout", o->chk->name);
			snprintf(
			    o->res.detail, sizeof(o->res.detail),
			    "check %s did not exit within %d ms (it closed its result pipe and "
			    "kept running); killed",
			    o->chk->name, (int)(ch[i].deadline - start));
			continue;
		}
		if (rc < 0) {
			golden_check_fail(&o->res, GOLDEN_ACTION_DRAIN, "", "%s", "");
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
	rep->total_ms = (int)(golden_child_now_ms() - start);
	if (shared != MAP_FAILED)
		munmap(shared, sizeof(*shared) * (size_t)(n ? n : 1));
}

int golden_checks_commit(const struct golden_run_report *rep, struct golden_err *err)
{
	int rc = 0;

	for (int i = 0; i < rep->n; i++) {
		const struct golden_check_commit *c = &rep->out[i].res.commit;

		if (!c->set || rep->out[i].timed_out)
			continue;
		if (golden_kmsg_cursor_advance(c->dir, c->name, c->boot_id, c->seq) < 0) {
			golden_err_set(err, "cannot save %s/%s (check %s): %s", c->dir, c->name,
			               rep->out[i].chk->name, strerror(errno));
			rc = -1;
		}
	}
	return rc;
}
