/* Health checks: each has a name, a class, a deadline, and produces a result
 * (ok, warn, or fail with an action) with a short code for the drain reason
 * and a longer detail. The runner (check_run.c) executes every check in its
 * own child process under a hard deadline. */
#ifndef GOLDEN_HEALTH_CHECK_H
#define GOLDEN_HEALTH_CHECK_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "topo/topo.h"
#include "util/kmsg.h"

enum golden_check_class {
	GOLDEN_CHK_GPU,
	GOLDEN_CHK_FABRIC,
	GOLDEN_CHK_STORAGE,
	GOLDEN_CHK_KERNEL
};

enum golden_status { GOLDEN_ST_OK, GOLDEN_ST_WARN, GOLDEN_ST_FAIL };

/* What a failure asks of the operator, mildest first. */
enum golden_action {
	GOLDEN_ACTION_NONE,
	GOLDEN_ACTION_DRAIN,        /* drain; resume once the check passes */
	GOLDEN_ACTION_DRAIN_ACTIVE, /* drain; resume once an active check (golden-active) passes */
	GOLDEN_ACTION_DRAIN_RESET,  /* drain; needs a GPU reset */
	GOLDEN_ACTION_DRAIN_REBOOT  /* drain; needs a node reboot */
};

/* When a check runs. */
enum golden_phase {
	GOLDEN_PHASE_PROLOG = 1 << 0,
	GOLDEN_PHASE_EPILOG = 1 << 1,
	GOLDEN_PHASE_MANUAL = 1 << 2, /* golden check without --prolog/--epilog */
	GOLDEN_PHASE_HEALTH = 1 << 3, /* HealthCheckProgram on an idle or drained node */
	GOLDEN_PHASE_BUSY = 1 << 4    /* HealthCheckProgram while jobs run: passive only */
};

/* The health-check phases together: a check fit for both is passive (reads
 * state, never disturbs or misreads a running job). */
#define GOLDEN_PHASE_HEALTH_ANY (GOLDEN_PHASE_HEALTH | GOLDEN_PHASE_BUSY)

#define GOLDEN_CODE_LEN   64  /* "gpu3 xid79 offbus": the start of the drain reason */
#define GOLDEN_DETAIL_LEN 768 /* everything an operator needs to act */

/* How far a check read the kernel log past its cursor. A check never saves
 * its cursor itself: whoever acts on the result saves it once the faults it
 * reported were acted on (drained, or the drain recorded as owed, in the
 * node's ledger: golden_checks_commit), and a dry run never does. Until
 * then the same faults are seen again: none is consumed unacted on. */
struct golden_check_commit {
	bool set;
	char dir[PATH_MAX];                   /* the cursor's directory */
	char name[32];                        /* its file: "kmsg.cursor" */
	char boot_id[GOLDEN_KMSG_BOOTID_LEN]; /* the log it keys */
	uint64_t seq;                         /* last record read */
};

struct golden_check_result {
	enum golden_status status;
	enum golden_action action;
	char code[GOLDEN_CODE_LEN];
	char detail[GOLDEN_DETAIL_LEN];
	struct golden_check_commit commit;
};

/* Set a result (printf-style detail). The code must be short and start with
 * the component ("gpu3", "mlx5_4", "/lustre"), then the fault. */
void golden_check_fail(struct golden_check_result *r, enum golden_action action, const char *code,
                       const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void golden_check_warn(struct golden_check_result *r, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

struct golden_conf; /* health/golden_conf.h */

/* What every check may look at. Checks run in a child process: they may
 * block, crash or hang without harming the caller. */
struct golden_check_ctx {
	const struct golden_conf *conf;
	const struct golden_topo *topo; /* NULL if discovery failed */
	const char *sysroot;            /* NULL = real root */
	const char *node;               /* Slurm node name */
	const char *job_id;             /* "" when not at a job boundary */
	enum golden_phase phase;
	const char *kmsg_path;    /* NULL = /dev/kmsg */
	const char *state_dir;    /* persistent state: kmsg cursor, counters */
	const char *teardown_dir; /* the plugin's teardown records (expanded) */
	bool dry_run;             /* change no persistent state (golden check --no-drain) */
};

typedef void (*golden_check_fn)(const struct golden_check_ctx *ctx,
                                struct golden_check_result *res);

struct golden_check {
	const char *name; /* "gpu-count", "xid", "ib-ports", "mounts", ... */
	enum golden_check_class cls;
	golden_check_fn fn;
	int deadline_ms; /* default; golden.conf may override per check */
	unsigned phases; /* enum golden_phase bits: where it runs by default */
};

/* health's built-in checks by module, each array terminated by { NULL }
 * (the stall probe adds its own: stall/check_kernel.h). */
extern const struct golden_check golden_gpu_checks[];     /* check_gpu.c (NVML) */
extern const struct golden_check golden_xid_checks[];     /* check_xid.c */
extern const struct golden_check golden_fabric_checks[];  /* check_fabric.c */
extern const struct golden_check golden_storage_checks[]; /* check_storage.c */

const char *golden_check_status_name(enum golden_status s);
const char *golden_check_action_name(enum golden_action a);
const char *golden_check_class_name(enum golden_check_class c);

#endif
