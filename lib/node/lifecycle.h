/* The node's lifecycle after a health-check run: drain (or owe the drain
 * while slurmctld is away), call repeated drains of one kind flapping, and
 * return to service, each only as the fault's class allows. One code path
 * for golden-watch, golden-prolog/-epilog and HealthCheckProgram runs.
 *
 * Return to service: a node golden drained is resumed only by golden, only
 * while Slurm shows the very reason golden set (ledger.h), and only when
 *   transient  the check that failed ran again and passed, and nothing failed;
 *   reset      the GPU was re-initialised after the drain (the driver's
 *              "NVRM: GPU at PCI:..." line in this boot's log) or the node
 *              rebooted, and nothing failed;
 *   reboot     the boot id changed since the drain, and nothing failed;
 *   flapping   never: flap_count drains of one kind within flap_hours;
 *   active     a failing golden-active: a passing one.
 * With golden.conf `active =` and `active_validate = on`, reset, reboot and
 * active drains end only after golden-active passed on the drained node in
 * the same HealthCheckProgram run ("active-validate"); a failing validation
 * keeps the node drained as class active, its reason saying so.
 */
#ifndef GOLDEN_NODE_LIFECYCLE_H
#define GOLDEN_NODE_LIFECYCLE_H

#include <stdbool.h>

#include "health/check_run.h"
#include "health/golden_conf.h"
#include "node/ledger.h"
#include "topo/topo.h"

struct golden_lifecycle {
	const struct golden_conf *conf;
	const char *node;
	const char *state_dir;
	const char *sysroot;            /* NULL = real root (boot id) */
	const char *kmsg_path;          /* NULL = /dev/kmsg */
	const char *source;             /* "watch", "prolog", "epilog", "healthcheck", "manual" */
	const char *metrics_dir;        /* "" or NULL: no textfile */
	const struct golden_topo *topo; /* for gpuN -> PCI address; may be NULL */
	long long now;                  /* 0: time(NULL) */
};

struct golden_lifecycle_result {
	char reason[GOLDEN_REASON_MAX]; /* drain reason decided in this run, "" none */
	char drain[160];                /* what happened to the node, "" nothing */
	char resume[160];               /* "resumed: ...", "" nothing */
	char waiting[320];              /* what a held drain waits for, "" none held */
	bool pending;                   /* a drain is owed (slurmctld did not take it) */
	bool applied_owed;              /* a pending drain was applied in this run */
	bool guarded;                   /* the blast-radius guard held the drain back */
	bool recorded;                  /* the ledger holds what this run decided (saved,
	                                 * or nothing to save): its faults may be consumed */
};

/* After a run: drain on a failure (flap damping, pending when slurmctld
 * cannot be reached), apply an owed drain, and with review (health checks)
 * decide whether a drain golden holds may end. Returns 0, or -1 if the
 * ledger could not be locked, read or saved (res says what happened
 * anyway). Without its lock nothing is drained; res->recorded says whether
 * the run's faults were acted on, i.e. whether the caller may save the
 * checks' kernel-log cursors (golden_checks_commit): a fault stays pending
 * until its drain is applied or recorded as owed. */
int golden_lifecycle_after_run(const struct golden_lifecycle *lc,
                               const struct golden_run_report *rep, bool review,
                               struct golden_lifecycle_result *res);

/* Apply an owed drain if there is one (golden-watch's retry). Returns 1 if
 * one is still owed afterwards, 0 if none, -1 on a ledger error. */
int golden_lifecycle_apply_pending(const struct golden_lifecycle *lc,
                                   struct golden_lifecycle_result *res);

/* What the held drain waits for, in words (for `golden status`). */
void golden_lifecycle_waiting_for(const struct golden_lifecycle *lc, const struct golden_hold *h,
                                  char *buf, size_t len);

/* Validation before return: does the drain golden holds need golden-active
 * to pass on this node now (its class is active, or reset/reboot and the
 * reset or reboot happened), with validation configured? */
bool golden_lifecycle_wants_validation(const struct golden_lifecycle *lc);

/* The flap key of a failure: the check and the component ("xid gpu3"). */
void golden_lifecycle_flap_key(const char *check, const char *code, char *buf, size_t len);

#endif
