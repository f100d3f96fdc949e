#include <config.h>

#include "health/reason.h"

#include <stdio.h>
#include <string.h>

void golden_reason_sanitize(char *s)
{
	for (; *s; s++)
		if (*s < 0x20 || *s > 0x7e || *s == '"' || *s == '\'' || *s == '\\')
			*s = '_';
}

static const char *action_word(enum golden_action a)
{
	switch (a) {
	case GOLDEN_ACTION_DRAIN_ACTIVE:
		return "active";
	case GOLDEN_ACTION_DRAIN_RESET:
		return "gpu-reset";
	case GOLDEN_ACTION_DRAIN_REBOOT:
		return "reboot";
	default:
		return "check";
	}
}

int golden_reason_format(const struct golden_run_report *rep, char *buf, size_t len)
{
	const struct golden_check_outcome *w;
	int more = 0;
	char code[GOLDEN_CODE_LEN];

	if (rep->worst < 0 || rep->out[rep->worst].res.status != GOLDEN_ST_FAIL)
		return -1;
	w = &rep->out[rep->worst];
	for (int i = 0; i < rep->n; i++)
		if (i != rep->worst && rep->out[i].res.status == GOLDEN_ST_FAIL)
			more++;
	snprintf(code, sizeof(code), "%s", w->res.code[0] ? w->res.code : w->chk->name);
	if (more)
		snprintf(buf, len, "%s +%d more; %s " GOLDEN_REASON_MARKER, code, more,
		         action_word(w->res.action));
	else
		snprintf(buf, len, "%s; %s " GOLDEN_REASON_MARKER, code,
		         action_word(w->res.action));
	golden_reason_sanitize(buf);
	return 0;
}

bool golden_reason_is_ours(const char *reason)
{
	const char *m = reason ? strstr(reason, GOLDEN_REASON_MARKER) : NULL;
	const char *rest;
	size_t n;

	if (!m)
		return false;
	/* The marker must end our text: either the end of the string or only
	 * the " [user@time]" Slurm appends in scontrol output. Anything else
	 * after it is not ours: Slurm 24.11 keeps the reason of a node that was
	 * resumed and, when that node later stops responding, shows
	 * "... [golden] : Not responding" on a node Slurm itself set DOWN. */
	rest = m + sizeof(GOLDEN_REASON_MARKER) - 1;
	if (*rest == '\0')
		return true;
	n = strlen(rest);
	return rest[0] == ' ' && rest[1] == '[' && rest[n - 1] == ']' &&
	       strcspn(rest + 1, " ") == n - 1 && strchr(rest, '@') != NULL;
}
