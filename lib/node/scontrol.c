#include <config.h>

#include "node/scontrol.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "health/reason.h"
#include "util/child.h"
#include "util/strutil.h"

/* " Key=" starts the next field: a capitalised word directly before '='. */
static bool next_field_at(const char *sp)
{
	const char *q = sp + 1;

	if (*q < 'A' || *q > 'Z')
		return false;
	while ((*q >= 'A' && *q <= 'Z') || (*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9') ||
	       *q == '_')
		q++;
	return *q == '=';
}

/* Value of KEY=... in a one-line scontrol record. Reason (to_eol) may hold
 * spaces: it runs to the next " Key=" field or the end of the line. */
static void field(const char *line, const char *key, char *buf, size_t len, bool to_eol)
{
	char pat[32];
	const char *p, *end;

	buf[0] = '\0';
	snprintf(pat, sizeof(pat), " %s=", key);
	p = strstr(line, pat);
	if (!p)
		return;
	p += strlen(pat);
	if (to_eol) {
		for (end = p; *end && *end != '\n'; end++)
			if (*end == ' ' && next_field_at(end))
				break;
	} else {
		end = p + strcspn(p, " \n");
	}
	snprintf(buf, len, "%.*s", (int)(end - p), p);
}

void golden_node_state_parse(const char *line, struct golden_node_state *st)
{
	char padded[8192];
	char *at;

	memset(st, 0, sizeof(*st));
	snprintf(padded, sizeof(padded), " %s", line);
	field(padded, "State", st->state, sizeof(st->state), false);
	field(padded, "Reason", st->reason, sizeof(st->reason), true);
	field(padded, "AvailableFeatures", st->features, sizeof(st->features), false);
	if (!strcmp(st->features, "(null)"))
		st->features[0] = '\0';
	/* Slurm shows "REASON [user@2026-12-02T18:00:00]". */
	at = NULL;
	for (char *p = strstr(st->reason, " ["); p; p = strstr(p + 1, " ["))
		at = p;
	if (at && strchr(at, '@') && at[strlen(at) - 1] == ']')
		*at = '\0';
	if (!strcmp(st->reason, "(null)") || !strcmp(st->reason, "none"))
		st->reason[0] = '\0';
	st->drained_or_down = strstr(st->state, "DRAIN") || strstr(st->state, "DOWN") ||
	                      strstr(st->state, "FAIL") || strstr(st->state, "REBOOT");
}

int golden_scontrol_show_node(const char *scontrol, const char *node, int timeout_ms,
                              struct golden_node_state *st, struct golden_err *err)
{
	char out[8192];
	char *argv[] = {(char *)scontrol, "-o", "show", "node", (char *)node, NULL};
	int rc = golden_child_capture(argv, out, sizeof(out), timeout_ms);

	if (rc != 0)
		return golden_err_set(err, "%s -o show node %s failed (status %d)", scontrol, node,
		                      rc);
	golden_node_state_parse(out, st);
	if (!st->state[0])
		return golden_err_set(err, "%s -o show node %s: no State in output", scontrol,
		                      node);
	return 0;
}

enum golden_drain_outcome golden_scontrol_drain_seen(const char *scontrol, const char *node,
                                                     const char *reason,
                                                     struct golden_node_state *seen,
                                                     struct golden_err *err)
{
	struct golden_node_state st = {{0}, {0}, {0}, false};
	char nodearg[128], reasonarg[GOLDEN_REASON_MAX + 16];
	char *argv[] = {(char *)scontrol, "update", nodearg, "State=DRAIN", reasonarg, NULL};
	int qrc;

	/* If we cannot see the node's state we cannot know whose drain it
	 * is: do nothing rather than overwrite someone's reason. */
	qrc = golden_scontrol_show_node(scontrol, node, 5000, &st, err);
	if (seen)
		*seen = st;
	if (qrc < 0)
		return GOLDEN_DRAIN_FAILED;
	if (st.drained_or_down)
		return golden_reason_is_ours(st.reason) ? GOLDEN_ALREADY_OURS : GOLDEN_LEFT_FOREIGN;
	snprintf(nodearg, sizeof(nodearg), "NodeName=%s", node);
	snprintf(reasonarg, sizeof(reasonarg), "Reason=%s", reason);
	golden_reason_sanitize(reasonarg);
	if (golden_child_capture(argv, NULL, 0, 5000) != 0) {
		golden_err_set(err, "%s update NodeName=%s State=DRAIN failed", scontrol, node);
		return GOLDEN_DRAIN_FAILED;
	}
	return GOLDEN_DRAINED;
}

enum golden_drain_outcome golden_scontrol_drain(const char *scontrol, const char *node,
                                                const char *reason, struct golden_err *err)
{
	return golden_scontrol_drain_seen(scontrol, node, reason, NULL, err);
}

/* Is the node drained (or draining) with exactly reason? */
static bool drained_with(const struct golden_node_state *st, const char *reason)
{
	return strstr(st->state, "DRAIN") && !strcmp(st->reason, reason);
}

int golden_scontrol_reword(const char *scontrol, const char *node, const char *old_reason,
                           const char *new_reason, struct golden_err *err)
{
	struct golden_node_state st;
	char nodearg[128], reasonarg[GOLDEN_REASON_MAX + 16];
	char *argv[] = {(char *)scontrol, "update", nodearg, "State=DRAIN", reasonarg, NULL};

	if (golden_scontrol_show_node(scontrol, node, 5000, &st, err) < 0)
		return -1;
	if (!drained_with(&st, old_reason))
		return golden_err_set(err, "%s: the drain reason is no longer golden's", node);
	snprintf(nodearg, sizeof(nodearg), "NodeName=%s", node);
	snprintf(reasonarg, sizeof(reasonarg), "Reason=%s", new_reason);
	golden_reason_sanitize(reasonarg);
	if (golden_child_capture(argv, NULL, 0, 5000) != 0)
		return golden_err_set(err, "%s update NodeName=%s Reason=... failed", scontrol,
		                      node);
	return 0;
}

enum golden_resume_outcome golden_scontrol_resume(const char *scontrol, const char *node,
                                                  const char *our_reason, struct golden_err *err)
{
	struct golden_node_state st;
	char nodearg[128];
	char *argv[] = {(char *)scontrol, "update", nodearg, "State=RESUME", NULL};

	if (golden_scontrol_show_node(scontrol, node, 5000, &st, err) < 0)
		return GOLDEN_RESUME_FAILED;
	if (!strstr(st.state, "DRAIN"))
		return GOLDEN_RESUME_NOT_DRAINED;
	if (!drained_with(&st, our_reason) || !golden_reason_is_ours(st.reason))
		return GOLDEN_RESUME_NOT_OURS;
	snprintf(nodearg, sizeof(nodearg), "NodeName=%s", node);
	if (golden_child_capture(argv, NULL, 0, 5000) != 0) {
		golden_err_set(err, "%s update NodeName=%s State=RESUME failed", scontrol, node);
		return GOLDEN_RESUME_FAILED;
	}
	return GOLDEN_RESUMED;
}

bool golden_node_state_busy(const struct golden_node_state *st)
{
	return strstr(st->state, "ALLOC") || strstr(st->state, "MIXED") ||
	       strstr(st->state, "COMPLETING");
}
