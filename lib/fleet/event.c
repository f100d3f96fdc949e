#include <config.h>

#include "fleet/event.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "health/reason_parse.h"
#include "util/strutil.h"

/* Reasons slurmctld writes itself (src/slurmctld: node_mgr.c, job_mgr.c,
 * agent.c, ping_nodes.c, read_config.c). A reboot an admin asked for
 * ("reboot requested", "Reboot ASAP") is maintenance: not listed. */
static const char *const slurm_reasons[] = {
    "Not responding",
    "Prolog error",
    "Epilog error",
    "Prolog/Epilog failure",
    "Kill task failed",
    "Node unexpectedly rebooted*",
    "batch job complete failure",
    "Low RealMemory*",
    "Low socket*core*thread count*",
    "Low CPUs*",
    "Low TmpDisk*",
    "NO NETWORK ADDRESS FOUND",
    "Duplicate jobid",
    "reboot timed out",
    "Reboot timed out",
    "gres/* count*",
    "slurmd health check failed*",
};

/* Other health tools' own markers (reference: health-check anchors);
 * brackets escaped: these are fnmatch patterns. */
static const char *const other_reasons[] = {
    "NHC:*",
    "NHC *",
    "k8s:*",
    "\\[node_problem\\]*",
    "\\[hardware_problem\\]*",
    "\\[user_problem\\]*",
    "Healthcheck failures*",
    "gpud*",
};

static bool match_list(const char *reason, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fnmatch(list[i], reason, 0) == 0)
			return true;
	return false;
}

bool golden_event_reason_matches(const char *reason, const struct golden_conf_globs *g)
{
	for (int i = 0; g && i < g->n; i++)
		if (fnmatch(g->glob[i], reason, 0) == 0)
			return true;
	return false;
}

enum golden_owner golden_event_owner(const char *reason, const struct golden_conf_fleet *conf)
{
	struct golden_reason_info r;

	golden_reason_parse(reason, &r);
	if (r.ours)
		return GOLDEN_OWNER_GOLDEN;
	/* No reason at all: Slurm set the state (an admin must give one). */
	if (!reason[0] ||
	    match_list(reason, slurm_reasons, sizeof(slurm_reasons) / sizeof(slurm_reasons[0])) ||
	    (conf && golden_event_reason_matches(reason, &conf->slurm)))
		return GOLDEN_OWNER_SLURM;
	if (match_list(reason, other_reasons, sizeof(other_reasons) / sizeof(other_reasons[0])) ||
	    (conf && golden_event_reason_matches(reason, &conf->other)))
		return GOLDEN_OWNER_OTHER;
	return GOLDEN_OWNER_ADMIN;
}

int golden_event_time(const char *s, long long *out)
{
	struct tm tm;
	const char *end;
	char *e;

	*out = 0;
	if (!s[0] || !strcmp(s, "Unknown") || !strcmp(s, "None") || !strcmp(s, "N/A"))
		return 0;
	if (isdigit((unsigned char)s[0]) && !strchr(s, '-')) {
		long long v;

		errno = 0;
		v = strtoll(s, &e, 10);
		if (errno || *e || v < 0)
			return -1;
		*out = v;
		return 0;
	}
	memset(&tm, 0, sizeof(tm));
	end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!end) {
		memset(&tm, 0, sizeof(tm));
		end = strptime(s, "%Y-%m-%dT%H:%M", &tm);
	}
	if (!end) {
		memset(&tm, 0, sizeof(tm));
		end = strptime(s, "%Y-%m-%d", &tm);
	}
	if (!end || *end)
		return -1;
	tm.tm_isdst = -1;
	*out = (long long)mktime(&tm);
	return *out < 0 ? -1 : 0;
}

/* Field i (0-based) of a '|'-separated line into buf; the last field takes
 * the rest of the line. Returns the start of the next field, or NULL. */
static const char *field(const char *p, char *buf, size_t len, bool rest)
{
	size_t n = rest ? strlen(p) : strcspn(p, "|");

	snprintf(buf, len, "%.*s", (int)n, p);
	if (rest)
		return p + n;
	return p[n] == '|' ? p + n + 1 : NULL;
}

int golden_event_parse_line(const char *line, struct golden_event *ev)
{
	char start[40], end[40];
	const char *p = line;

	memset(ev, 0, sizeof(*ev));
	if (!(p = field(p, ev->node, sizeof(ev->node), false)) ||
	    !(p = field(p, start, sizeof(start), false)) ||
	    !(p = field(p, end, sizeof(end), false)) ||
	    !(p = field(p, ev->state, sizeof(ev->state), false)) ||
	    !(p = field(p, ev->user, sizeof(ev->user), false)))
		return -1;
	field(p, ev->reason, sizeof(ev->reason), true);
	/* A cluster event has no node name. */
	if (!ev->node[0] || !golden_is_safe_name(ev->node, sizeof(ev->node) - 1))
		return -1;
	if (golden_event_time(start, &ev->start) < 0 || ev->start <= 0 ||
	    golden_event_time(end, &ev->end) < 0)
		return -1;
	if (ev->end && ev->end < ev->start)
		return -1;
	golden_rtrim(ev->reason);
	return 0;
}

int golden_events_parse(const char *text, struct golden_events *evs, struct golden_err *err)
{
	const char *p = text;

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char line[512];

		if (n && n < sizeof(line)) {
			memcpy(line, p, n);
			line[n] = '\0';
			if (evs->n == evs->cap) {
				size_t cap = evs->cap ? evs->cap * 2 : 256;
				struct golden_event *ev = realloc(evs->ev, cap * sizeof(*ev));

				if (!ev)
					return golden_err_set(err, "out of memory for %zu events",
					                      cap);
				evs->ev = ev;
				evs->cap = cap;
			}
			if (golden_event_parse_line(line, &evs->ev[evs->n]) == 0)
				evs->n++;
			else
				evs->malformed++;
		} else if (n) {
			evs->malformed++;
		}
		p = nl ? nl + 1 : NULL;
	}
	return 0;
}

void golden_events_free(struct golden_events *evs)
{
	free(evs->ev);
	memset(evs, 0, sizeof(*evs));
}
