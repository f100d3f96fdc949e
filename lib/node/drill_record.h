/* Fire drills on this node: what was injected when, and what golden's
 * production path did about it (detect, drain, return). One JSON file in
 * the node's state directory (drills.json, next to the lifecycle ledger and
 * changed under the ledger's lock), read by `golden drill report`, `golden
 * status`, `golden report` and by the lifecycle, which marks a drain caused
 * by the running drill's own fault so that validation can end it.
 *
 * A drill is identified by its id and, for an injected kernel-log line, by
 * the sequence number the kernel gave that record: never by text in the
 * record (anything a message quotes may be chosen by someone else). */
#ifndef GOLDEN_NODE_DRILL_RECORD_H
#define GOLDEN_NODE_DRILL_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include "health/check.h"
#include "node/ledger.h"
#include "topo/topo.h"
#include "util/kmsg.h"

#define GOLDEN_DRILL_FILE 64 /* drills remembered */
#define GOLDEN_DRILLS     "drills.json"
#define GOLDEN_DRILL_ID   32

enum golden_drill_kind { GOLDEN_DRILL_XID, GOLDEN_DRILL_RAIL, GOLDEN_DRILL_MOUNT };
enum golden_drill_state {
	GOLDEN_DRILL_RUNNING,  /* injected, being observed */
	GOLDEN_DRILL_DONE,     /* observed to the end: result says how it went */
	GOLDEN_DRILL_ABANDONED /* the drill program went away before the end */
};

struct golden_drill {
	char id[GOLDEN_DRILL_ID]; /* "20261203T181955-n2" */
	char node[64];
	enum golden_drill_kind kind;
	char what[96];   /* "xid79 gpu0 0000:3b:00.0", "rail-down mlx5_0 p1", ... */
	char check[32];  /* the check that must catch it: xid, ib-ports, mounts */
	char target[64]; /* the component: GPU PCI address, HCA, mount point */
	int xid;
	/* Added to the detect and drain targets: a fault that only the deadline of the
	 * check catching it can reveal (a hung mount: statfs never answers,
	 * the mounts check is killed at its deadline) cannot be detected
	 * sooner. That deadline, 0 for the rest. */
	int detect_allow_ms;
	bool return_auto;
	enum golden_drill_state state;
	long pid; /* the drill program while running */
	char boot_id[GOLDEN_KMSG_BOOTID_LEN];
	uint64_t seq_before; /* last kernel-log record before the injection */
	uint64_t seq;        /* the injected record; 0 when none or unknown */
	/* epoch milliseconds; 0 = did not happen (yet) */
	long long injected_ms, detected_ms, drained_ms, returned_ms, ended_ms;
	/* the drain golden decided for it, as Slurm shows it */
	char reason[160];
	int job_kept; /* a job running at injection still ran after the drain:
	                 1 yes, 0 no, -1 no job was running */
	int probe;    /* a job asking for the node after the drain: 1 refused,
	                 0 it ran there, -1 not tried */
	/* The blast-radius guard held golden's drain back (a fault of a class
	 * that can have a shared cause): its note from the ledger, "" none. */
	char guard[224];
	bool passed;
	char verdict[256]; /* "pass", or what failed, in words */
};

struct golden_drills {
	int n; /* oldest first */
	struct golden_drill d[GOLDEN_DRILL_FILE];
};

const char *golden_drill_kind_name(enum golden_drill_kind k);
const char *golden_drill_state_name(enum golden_drill_state s);

/* Load state_dir/drills.json; a missing file is no drills. 0 or -1. */
int golden_drills_load(const char *state_dir, struct golden_drills *ds);
/* Save atomically (0600). 0 or -1. */
int golden_drills_save(const char *state_dir, const struct golden_drills *ds);
/* Append (the oldest falls off); returns the stored drill. */
struct golden_drill *golden_drills_add(struct golden_drills *ds, const struct golden_drill *d);
/* The drill with this id, or NULL. */
struct golden_drill *golden_drills_find(struct golden_drills *ds, const char *id);
/* The running drill, if any (a running drill whose program is gone is
 * marked abandoned first, and then is not running). */
struct golden_drill *golden_drills_running(struct golden_drills *ds);

/* Does text begin with a failure's code that names this staged drill's
 * fault: its component ("mlx5_0 p1 down" for "mlx5_0 p1"), or for a hung
 * mount the mounts check's own timeout ("hc mounts timeout"), which names
 * no mount? end is what follows the code in text: '\0' for a hold's code,
 * ':' for the guard's note ("CODE: why"). */
bool golden_drill_names(const struct golden_drill *d, const char *text, char end);

/* Is h the drain golden decided for d's fault? An XID drill: same boot,
 * decided after the injected record existed (its sequence number, never its
 * text), by the check d targets, for d's GPU. A staged fault (rail-down,
 * mount-hang; no kernel record): same boot, decided at or after the
 * injection, by d's check, for d's component ("mlx5_0 p1 ..." for the rail
 * "mlx5_0 p1"; for the mount, a code naming it or the mounts check's own
 * timeout, which names no mount). The drill program and the lifecycle ask
 * the same question: this is their one answer. */
bool golden_drill_owns_hold(const struct golden_drill *d, const struct golden_hold *h);

/* Durations in ms, -1 when one end is missing. */
long long golden_drill_detect_ms(const struct golden_drill *d);
long long golden_drill_drain_ms(const struct golden_drill *d);
long long golden_drill_return_ms(const struct golden_drill *d);

#endif
