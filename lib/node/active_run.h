/* The node side of an active check: run golden-active (the program golden.conf
 * names with `active =`) under a deadline, read its JSON, and remember the
 * result in the node's active record (state_dir/active.json), one line of the
 * JSON log and the metrics. The same run serves a preemptible job that
 * `golden active submit` placed on an idle node and the validation that
 * HealthCheckProgram runs on a drained node before golden resumes it.
 *
 * An interrupted run (the job was preempted: SIGTERM) is recorded as such and
 * changes nothing else: the node is not penalised, and its last pass stays.
 */
#ifndef GOLDEN_NODE_ACTIVE_RUN_H
#define GOLDEN_NODE_ACTIVE_RUN_H

#include <signal.h>
#include <stdbool.h>

#include "active/report.h"
#include "health/check_run.h"
#include "health/golden_conf.h"

#define GOLDEN_ACTIVE_RECORD_FILE "active.json"
/* The names of the active check in run reports, the ledger and the log: a
 * run on an idle node, and the validation of a drained one. */
#define GOLDEN_ACTIVE_CHECK          "active"
#define GOLDEN_ACTIVE_VALIDATE_CHECK "active-validate"

enum golden_active_outcome {
	GOLDEN_ACTIVE_RUN_PASS,        /* passed (warnings included) */
	GOLDEN_ACTIVE_RUN_FAIL,        /* a GPU failed: report.code says which and how */
	GOLDEN_ACTIVE_RUN_ERROR,       /* could not judge: program missing, unsafe, crashed,
	                                  timed out, unreadable output, no GPU */
	GOLDEN_ACTIVE_RUN_INTERRUPTED, /* SIGTERM (preempted) or SIGINT */
	GOLDEN_ACTIVE_RUN_FRESH        /* skipped: passed within max_age */
};

/* What a node remembers of its active checks. */
struct golden_active_record {
	long long last_time; /* the last run that ended (any outcome), epoch s */
	char last_outcome[16];
	char last_source[16]; /* job, validation, manual */
	char last_job[32];
	char last_code[GOLDEN_ACTIVE_CODE_LEN];
	char last_detail[GOLDEN_ACTIVE_DETAIL];
	int last_duration_ms;
	long long last_pass, last_fail, last_interrupted; /* epoch s, 0 never */
	unsigned long runs, passes, fails, errors, interruptions;
	bool have_report;
	struct golden_active_report report; /* the last judged run with figures */
};

const char *golden_active_outcome_name(enum golden_active_outcome o);

/* Load (a missing file is an empty record) / save atomically (0600). */
int golden_active_record_load(const char *state_dir, struct golden_active_record *rec);
int golden_active_record_save(const char *state_dir, const struct golden_active_record *rec);

struct golden_active_run_opts {
	const struct golden_conf *conf;
	const char *node, *state_dir, *log_path, *metrics_dir; /* expanded; "" none */
	const char *topology, *sysroot; /* passed to the program for the golden env; "" none */
	const char *source;             /* "job", "validation", "manual" */
	const char *job_id;             /* "" none */
	int budget_s;                   /* the program's budget */
	long long max_age_s;            /* > 0: skip if it passed within this */
	volatile sig_atomic_t *stop;    /* set by the caller's SIGTERM/SIGINT handler */
};

/* Run the program and record the result. rep gets the program's report
 * (on an error: why, in rep->detail). Returns the outcome. */
enum golden_active_outcome golden_active_run(const struct golden_active_run_opts *o,
                                             struct golden_active_report *rep);

/* The result as a check outcome (name GOLDEN_ACTIVE_CHECK or ..._VALIDATE_CHECK),
 * so the lifecycle and the JSON log treat it like any health check: a failure
 * asks for the active class of drain. */
void golden_active_outcome_fill(enum golden_active_outcome oc,
                                const struct golden_active_report *rep, bool validation,
                                int duration_ms, struct golden_check_outcome *out);

#endif
