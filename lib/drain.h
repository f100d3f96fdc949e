/* Draining the node through scontrol (an argv, no shell), so that Slurm
 * keeps golden's reason instead of a generic "Prolog error". */
#ifndef GOLDEN_DRAIN_H
#define GOLDEN_DRAIN_H

#include <stdbool.h>
#include <stddef.h>

#include "errbuf.h"

struct golden_node_state {
	char state[128];  /* "IDLE+DRAIN", "MIXED", "DOWN*+DRAIN" ... */
	char reason[512]; /* without Slurm's " [user@time]" suffix; "" none */
	bool drained_or_down;
};

/* Run `scontrol -o show node NODE` (bounded by timeout_ms) and parse it. */
int golden_node_query(const char *scontrol, const char *node, int timeout_ms,
                      struct golden_node_state *st, struct golden_err *err);

enum golden_drain_outcome {
	GOLDEN_DRAINED,      /* we set DRAIN with our reason */
	GOLDEN_ALREADY_OURS, /* already drained by golden: left as it is */
	GOLDEN_LEFT_FOREIGN, /* drained/down for another reason: never touched */
	GOLDEN_DRAIN_FAILED
};

/* Drain NODE with REASON unless it is already drained or down; never
 * overwrite a reason golden did not write. */
enum golden_drain_outcome golden_drain(const char *scontrol, const char *node, const char *reason,
                                       struct golden_err *err);

/* Parse one line of `scontrol -o show node` (exposed for tests). */
void golden_node_parse(const char *line, struct golden_node_state *st);

/* Run argv (no shell) with stdout captured into out (may be NULL), bounded
 * by timeout_ms. Returns the exit status, or -1 on error/timeout. */
int golden_exec_capture(char *const argv[], char *out, size_t outlen, int timeout_ms);

#endif
