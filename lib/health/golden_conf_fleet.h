/* golden.conf settings of the fleet-level features: the blast-radius guard
 * (guard_*), fire drills (drill_*) and the reliability report (report_*).
 * Kept apart from golden_conf.c's node checks; golden_conf.c hands every
 * guard_/drill_/report_ key here. */
#ifndef GOLDEN_HEALTH_GOLDEN_CONF_FLEET_H
#define GOLDEN_HEALTH_GOLDEN_CONF_FLEET_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

#include "util/errbuf.h"

#define GOLDEN_CONF_REASON_GLOBS 8
#define GOLDEN_CONF_GLOB_LEN     96

/* Owners of a drain, as the report and the downtime definition name them. */
enum golden_owner {
	GOLDEN_OWNER_GOLDEN,
	GOLDEN_OWNER_ADMIN,
	GOLDEN_OWNER_SLURM,
	GOLDEN_OWNER_OTHER,
	GOLDEN_OWNER_N
};

struct golden_conf_globs {
	int n;
	char glob[GOLDEN_CONF_REASON_GLOBS][GOLDEN_CONF_GLOB_LEN];
};

struct golden_conf_fleet {
	/* guard: do not drain for a possibly shared cause once this many
	 * nodes of the partition already hold golden's drain for it */
	int guard_nodes;       /* guard_nodes = 3 (0: guard off) */
	double guard_fraction; /* guard_fraction = 0.05 of the partition */
	int guard_window_s;    /* guard_window = 900: drains newer than this count */
	/* drills: targets a drill passes, how long it waits */
	int drill_detect_ms;        /* drill_detect_ms = 2000 */
	int drill_drain_ms;         /* drill_drain_ms = 5000 */
	int drill_return_s;         /* drill_return_s = 600 */
	int drill_timeout_s;        /* drill_timeout = 600 */
	char drill_mount[PATH_MAX]; /* drill_mount = DIR: where mount-hang mounts */
	/* report: which drains count as downtime, and who owns a reason */
	bool report_down[GOLDEN_OWNER_N]; /* report_downtime = golden,slurm,other */
	struct golden_conf_globs count;   /* report_count_reason = GLOB */
	struct golden_conf_globs ignore;  /* report_ignore_reason = GLOB */
	struct golden_conf_globs slurm;   /* report_slurm_reason = GLOB */
	struct golden_conf_globs other;   /* report_other_reason = GLOB */
	int report_repeat;                /* report_repeat = 3 */
};

void golden_conf_fleet_init(struct golden_conf_fleet *f);

/* Is key one of these settings (guard_*, drill_*, report_*)? */
bool golden_conf_fleet_key(const char *key);
/* A key more than one line may give. */
bool golden_conf_fleet_repeatable(const char *key);
/* Forget the repeatable lists (limits count per node). */
void golden_conf_fleet_reset_lists(struct golden_conf_fleet *f);

/* Apply `key = value` (where: "FILE:LINE"). Returns 0, or -1 with err set
 * to what is wrong and what would be right. */
int golden_conf_fleet_apply(struct golden_conf_fleet *f, const char *where, const char *key,
                            const char *v, struct golden_err *err);

void golden_conf_fleet_print(const struct golden_conf_fleet *f, FILE *out);

const char *golden_owner_name(enum golden_owner o);
/* Returns the owner, or -1. */
int golden_owner_parse(const char *name);

#endif
