/* Slurm's record of node state changes: the rows of
 *   SLURM_TIME_FORMAT=%s sacctmgr -n -P show event event=node \
 *     format=nodename,start,end,state,user,reason
 * that slurmdbd keeps (one row per DOWN/DRAIN period: its start, its end or
 * "Unknown" while it lasts, the state, who set it, and the reason text).
 * The reason comes last because it is free text: it may hold '|'.
 *
 * Who owns a reason: golden (its marker ends the text), Slurm itself (its
 * own reasons: "Not responding", "Prolog error", ...), another health tool
 * (NHC:, k8s:, ... prefixes) or an admin (anything else), each list
 * extendable in golden.conf (report_slurm_reason, report_other_reason). */
#ifndef GOLDEN_FLEET_EVENT_H
#define GOLDEN_FLEET_EVENT_H

#include <stdbool.h>
#include <stddef.h>

#include "health/golden_conf_fleet.h"
#include "util/errbuf.h"

struct golden_event {
	char node[64];
	long long start; /* epoch seconds */
	long long end;   /* epoch seconds; 0 while the node is still down/drained */
	char state[32];  /* DRAIN, DOWN, ... as Slurm formats it */
	char user[48];   /* "root(0)" */
	char reason[256];
};

struct golden_events {
	size_t n, cap;
	struct golden_event *ev;
	unsigned long malformed; /* lines that were not events */
};

/* Parse sacctmgr's parsable output (one event a line; times as epoch
 * seconds or Slurm's standard YYYY-MM-DDTHH:MM:SS local time) and append
 * the events. Returns 0, or -1 (out of memory). */
int golden_events_parse(const char *text, struct golden_events *evs, struct golden_err *err);
void golden_events_free(struct golden_events *evs);

/* One line: 0, or -1 if it is not an event (exposed for tests). */
int golden_event_parse_line(const char *line, struct golden_event *ev);

/* A Slurm time field: epoch seconds, YYYY-MM-DDTHH:MM[:SS] (local time) or
 * YYYY-MM-DD; "Unknown"/"None" give 0. Returns 0, or -1. */
int golden_event_time(const char *s, long long *out);

/* Who set this reason. */
enum golden_owner golden_event_owner(const char *reason, const struct golden_conf_fleet *conf);

/* Does the reason match one of the globs? */
bool golden_event_reason_matches(const char *reason, const struct golden_conf_globs *g);

#endif
