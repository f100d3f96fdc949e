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

	/* The marker must end our text: either the end of the string or the
	 * " [user@time]" Slurm appends in scontrol output. */
	return m && (m[sizeof(GOLDEN_REASON_MARKER) - 1] == '\0' ||
	             m[sizeof(GOLDEN_REASON_MARKER) - 1] == ' ');
}
