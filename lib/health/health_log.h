/* The record of one health-check run: JSON (json-c) for the local log and
 * `golden check --json`, one syslog line. */
#ifndef GOLDEN_HEALTH_HEALTH_LOG_H
#define GOLDEN_HEALTH_HEALTH_LOG_H

#include "health/check_run.h"

struct golden_run_info {
	const char *node;
	const char *job_id;        /* "" when none */
	const char *phase;         /* "prolog", "epilog", "manual" */
	const char *reason;        /* drain reason, NULL if none */
	const char *drain;         /* what happened to the node: "drained", "already-ours", ... */
	const char *topology_note; /* why topology is missing, NULL if fine */
	const char *resume;        /* "resumed (transient cleared)", NULL */
	const char *waiting;       /* what golden's held drain waits for, NULL */
	const char *node_state;    /* health checks: idle or busy (passive only) */
	const char *config_error;  /* golden.conf is broken: FILE:LINE; no check ran */
};

struct json_object *golden_health_log_json(const struct golden_run_report *rep,
                                           const struct golden_run_info *info);

/* Append one line of JSON to path (creating it 0640 and its directory 0755
 * if needed). Returns 0 or -1. */
int golden_health_log_append(const char *path, const struct golden_run_report *rep,
                             const struct golden_run_info *info);

/* One line to syslog (LOG_DAEMON): the verdict and the worst check. */
void golden_health_log_syslog(const struct golden_run_report *rep,
                              const struct golden_run_info *info);

#endif
