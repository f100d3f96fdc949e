/* Runs health checks, each in its own child process under a hard deadline,
 * all within an overall budget. A hung driver call, NFS statfs or sysfs read
 * costs at most its deadline: the child's process group is killed, and a
 * child stuck in D state (unkillable) is abandoned instead of waited for. */
#ifndef GOLDEN_HEALTH_CHECK_RUN_H
#define GOLDEN_HEALTH_CHECK_RUN_H

#include <stdbool.h>

#include "health/check.h"
#include "health/golden_conf.h"
#include "util/errbuf.h"

#define GOLDEN_MAX_CHECKS 48

struct golden_check_outcome {
	const struct golden_check *chk;
	struct golden_check_result res;
	int deadline_ms;
	int duration_ms;
	bool timed_out; /* killed at its deadline (or the budget) */
	bool abandoned; /* did not die after SIGKILL: stuck in the kernel */
};

struct golden_run_report {
	int n;
	struct golden_check_outcome out[GOLDEN_MAX_CHECKS];
	int total_ms;
	int worst; /* index of the worst outcome, -1 if all ok */
};

/* Run list[0..n) concurrently. Never fails: problems become outcomes. */
void golden_checks_run(const struct golden_check *const *list, int n,
                       const struct golden_check_ctx *ctx, int budget_ms,
                       struct golden_run_report *rep);

/* The run's results were acted on: save the kernel-log cursors its checks
 * read up to (struct golden_check_commit). Call it only after the node's
 * lifecycle recorded the run (node/lifecycle.h), never in a dry run. A
 * cursor only moves forward within a boot. Returns 0, or -1 if a cursor
 * could not be saved (the same records are then read again: reported
 * twice rather than lost); err says which. */
int golden_checks_commit(const struct golden_run_report *rep, struct golden_err *err);

#endif
