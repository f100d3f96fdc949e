/* The fleet's reliability over a window, from Slurm's node events and the
 * drills golden recorded: what `golden report` prints.
 *
 *  - A drain is a period a node spent DOWN or DRAINED: consecutive events
 *    of one node that touch (a reason re-worded, DRAIN then DOWN) are one
 *    drain, owned by whoever took the node out (event.h).
 *  - Downtime: the time inside the window covered by events that count
 *    (golden.conf: report_downtime owners, report_count_reason globs count
 *    whoever set them, report_ignore_reason globs never count). An admin's
 *    maintenance never counts unless said so; a drill never counts.
 *  - Availability: 1 - downtime / (nodes x window).
 *  - Time to return: end - start of each drain that ended; mean and p90.
 *  - Golden's drains by class (reboot, reset, transient, flapping) and by
 *    the check behind the reason's code; repeat offenders: nodes with at
 *    least report_repeat fault drains in the window.
 *  - Drills: each drill with its detect, drain and return times; the drain
 *    a drill caused is found by node and time and left out of the above.
 */
#ifndef GOLDEN_FLEET_FLEET_H
#define GOLDEN_FLEET_FLEET_H

#include <stdbool.h>
#include <stddef.h>

#include "fleet/event.h"
#include "health/golden_conf_fleet.h"
#include "node/drill_record.h"
#include "util/errbuf.h"

#define GOLDEN_FLEET_COUNTS 32

struct golden_fleet_input {
	long long since, until; /* the window, epoch seconds */
	const struct golden_conf_fleet *conf;
	const char *const *nodes; /* the fleet; NULL: the nodes events name */
	size_t nnodes;
	const struct golden_events *events;
	const struct golden_drill *drills;
	size_t ndrills;
};

struct golden_fleet_count {
	char name[32];
	int n;
};

struct golden_fleet_returns {
	int n;         /* drains that ended */
	double mean_s; /* 0 when n == 0 */
	double p90_s;
};

struct golden_fleet_node {
	char name[64];
	int drains[GOLDEN_OWNER_N]; /* drains that started in the window, by owner */
	int faults;                 /* of those, the ones that count as downtime */
	int drills;                 /* drains drills caused */
	int open;                   /* still down/drained at the end of the window */
	long long down_s;           /* downtime inside the window */
	double availability;        /* percent */
	struct golden_fleet_returns ret;
	struct golden_fleet_count top; /* the check it was drained for most */
};

struct golden_fleet_bin {
	long long t;                /* start of the bin */
	double availability;        /* percent within the bin */
	int drains[GOLDEN_OWNER_N]; /* drains that started in it (drills left out) */
};

struct golden_fleet_drill {
	struct golden_drill d;
	long long detect_ms, drain_ms, return_ms; /* -1: did not happen */
};

struct golden_fleet_report {
	long long since, until;
	size_t nnodes;
	struct golden_fleet_node *nodes; /* sorted by name */
	int drains[GOLDEN_OWNER_N];
	int faults, drills_drains, open;
	long long down_s;
	double availability;
	struct golden_fleet_returns ret; /* every drain that ended */
	struct golden_fleet_returns ret_by[GOLDEN_OWNER_N];
	int nclass, ncheck;
	struct golden_fleet_count by_class[GOLDEN_FLEET_COUNTS]; /* golden's, most first */
	struct golden_fleet_count by_check[GOLDEN_FLEET_COUNTS];
	size_t nrepeat;
	size_t *repeat; /* indexes into nodes, most fault drains first */
	int repeat_min;
	size_t ndrills;
	struct golden_fleet_drill *drills; /* in the window, oldest first */
	int drills_failed;
	size_t nbins;
	long long bin_s;
	struct golden_fleet_bin *bins;
	unsigned long events_used;    /* events that touched the window */
	unsigned long events_outside; /* for nodes outside the fleet */
	bool downtime_owner[GOLDEN_OWNER_N];
};

/* Compute the report. Returns 0, or -1 with err set (a bad window, out of
 * memory). */
int golden_fleet_compute(const struct golden_fleet_input *in, struct golden_fleet_report *rep,
                         struct golden_err *err);
void golden_fleet_free(struct golden_fleet_report *rep);

/* Does this event count as downtime (not a drill)? */
bool golden_fleet_counts_down(const struct golden_event *ev, const struct golden_conf_fleet *c);

/* "3d4h", "1h05m", "42m", "7s" */
const char *golden_fleet_duration(double s, char *buf, size_t len);

#endif
