/* Draining the node through scontrol (an argv, no shell), so that Slurm
 * keeps golden's reason instead of a generic "Prolog error". */
#ifndef GOLDEN_NODE_SCONTROL_H
#define GOLDEN_NODE_SCONTROL_H

#include <stdbool.h>
#include <stddef.h>

#include "util/errbuf.h"

struct golden_node_state {
	char state[128];    /* "IDLE+DRAIN", "MIXED", "DOWN*+DRAIN" ... */
	char reason[512];   /* without Slurm's " [user@time]" suffix; "" none */
	char features[512]; /* AvailableFeatures, comma-separated; "" none */
	bool drained_or_down;
};

/* Run `scontrol -o show node NODE` (bounded by timeout_ms) and parse it. */
int golden_scontrol_show_node(const char *scontrol, const char *node, int timeout_ms,
                              struct golden_node_state *st, struct golden_err *err);

enum golden_drain_outcome {
	GOLDEN_DRAINED,      /* we set DRAIN with our reason */
	GOLDEN_ALREADY_OURS, /* already drained by golden: left as it is */
	GOLDEN_LEFT_FOREIGN, /* drained/down for another reason: never touched */
	GOLDEN_DRAIN_FAILED
};

/* Drain NODE with REASON unless it is already drained or down; never
 * overwrite a reason golden did not write. */
enum golden_drain_outcome golden_scontrol_drain(const char *scontrol, const char *node,
                                                const char *reason, struct golden_err *err);

/* golden_scontrol_drain, also returning the node's state as seen before (seen may
 * be NULL; its state is "" when the query failed). */
enum golden_drain_outcome golden_scontrol_drain_seen(const char *scontrol, const char *node,
                                                     const char *reason,
                                                     struct golden_node_state *seen,
                                                     struct golden_err *err);

/* Re-word a drain golden holds: only while Slurm still shows old_reason.
 * Returns 0, or -1 (not ours any more, or scontrol failed). */
int golden_scontrol_reword(const char *scontrol, const char *node, const char *old_reason,
                           const char *new_reason, struct golden_err *err);

enum golden_resume_outcome {
	GOLDEN_RESUMED,
	GOLDEN_RESUME_NOT_DRAINED, /* someone resumed it already */
	GOLDEN_RESUME_NOT_OURS,    /* the reason is not (any more) the one we set */
	GOLDEN_RESUME_FAILED
};

/* Resume NODE only if it is drained with exactly our_reason (checked just
 * before the update, from a fresh query). */
enum golden_resume_outcome golden_scontrol_resume(const char *scontrol, const char *node,
                                                  const char *our_reason, struct golden_err *err);

/* Is a job running or completing on the node? */
bool golden_node_state_busy(const struct golden_node_state *st);

/* Parse one line of `scontrol -o show node` (exposed for tests). */
void golden_node_state_parse(const char *line, struct golden_node_state *st);

#endif
