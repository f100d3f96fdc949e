/* What golden has drained on this node, what it still owes, and what it
 * did: the node's lifecycle ledger, one JSON file in the state directory.
 *
 * A drain is golden's only while the ledger holds it AND Slurm still shows
 * the very reason the ledger recorded; that pair is what lets golden resume
 * a node without ever touching a drain an admin, Slurm or another tool set,
 * or one an admin has since re-worded. A drain decided while slurmctld was
 * unreachable is held as pending and applied when it answers again.
 *
 * Every writer (golden-watch, the prolog/epilog, HealthCheckProgram runs,
 * `golden check`) changes it under an exclusive flock, read-modify-write.
 */
#ifndef GOLDEN_NODE_LEDGER_H
#define GOLDEN_NODE_LEDGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "health/check.h"
#include "util/kmsg.h"
#include "health/reason.h"
#include "topo/topo.h"

#define GOLDEN_LEDGER_FILE     "lifecycle.json"
#define GOLDEN_LEDGER_EPISODES 64 /* drains remembered for flap damping */
#define GOLDEN_LEDGER_HISTORY  32 /* events shown by `golden status` */
#define GOLDEN_LEDGER_COUNTERS 24

/* What has to happen before golden may resume the node. */
enum golden_hold_class {
	GOLDEN_HOLD_TRANSIENT, /* the failing check passes again */
	GOLDEN_HOLD_ACTIVE,    /* an active check (golden-active) passes on the node */
	GOLDEN_HOLD_RESET,     /* a GPU reset (or a reboot), then a pass */
	GOLDEN_HOLD_REBOOT,    /* the boot id changed, then a pass */
	GOLDEN_HOLD_FLAPPING,  /* never by golden: an operator decides */
	GOLDEN_HOLD_NCLASSES
};

struct golden_hold {
	bool active;
	bool applied; /* false: decided, but slurmctld did not take it yet */
	enum golden_hold_class cls;
	char reason[GOLDEN_REASON_MAX]; /* exactly what we gave scontrol */
	char check[32];                 /* the check that failed */
	char code[GOLDEN_CODE_LEN];
	char detail[GOLDEN_DETAIL_LEN];
	char source[16];        /* watch, prolog, epilog, healthcheck, manual */
	long long time;         /* decided (epoch seconds) */
	long long decided_ms;   /* the same in epoch milliseconds (a drill's detect time) */
	long long applied_time; /* 0 while pending */
	int attempts;           /* failed attempts to apply it */
	char boot_id[GOLDEN_KMSG_BOOTID_LEN];
	uint64_t kmsg_seq;                /* last record of the kernel log when decided */
	char gpu_busid[GOLDEN_BUSID_LEN]; /* the GPU a reset must re-initialise; "" any */
};

struct golden_episode {
	long long time;
	char key[48]; /* "xid gpu3": the check and the component */
};

struct golden_history {
	long long time;
	char event[16]; /* drained, pending, applied, resumed, released, ... */
	char text[224];
};

struct golden_counter {
	char name[32];
	unsigned long n;
};

struct golden_ledger {
	struct golden_hold hold;
	int nepisodes;
	struct golden_episode ep[GOLDEN_LEDGER_EPISODES];
	int nhistory; /* oldest first */
	struct golden_history hist[GOLDEN_LEDGER_HISTORY];
	int ndrains; /* drains by check name */
	struct golden_counter drains[GOLDEN_LEDGER_COUNTERS];
	unsigned long resumes[GOLDEN_HOLD_NCLASSES]; /* resumes by class */
	unsigned long left_foreign;                  /* failures on nodes someone else drained */
	unsigned long guard_suppressed; /* drains held back by the blast-radius guard (guard.h) */
};

const char *golden_hold_class_name(enum golden_hold_class c);
/* Returns the class, or -1 for an unknown name. */
int golden_hold_class_parse(const char *name);
/* The class a check failure asks for. */
enum golden_hold_class golden_hold_class_of(enum golden_action a);

/* Take the ledger's lock (state_dir created 0700). Returns an fd to pass to
 * golden_ledger_unlock, or -1. */
int golden_ledger_lock(const char *state_dir);
void golden_ledger_unlock(int fd);

/* Load; a missing file is an empty ledger. Returns 0, or -1 if the file
 * exists but cannot be read or parsed (l is then empty). */
int golden_ledger_load(const char *state_dir, struct golden_ledger *l);
/* The same from the file's text: a value of the wrong type, a null or a
 * missing key is empty or 0, never a crash. Returns 0, or -1 if text is not
 * a JSON object (l is then empty). */
int golden_ledger_parse(const char *text, struct golden_ledger *l);
/* Save atomically (0600). Returns 0 or -1. */
int golden_ledger_save(const char *state_dir, const struct golden_ledger *l);

/* Append an event to the history (the oldest falls off). */
void golden_ledger_note(struct golden_ledger *l, long long now, const char *event, const char *fmt,
                        ...) __attribute__((format(printf, 4, 5)));

/* Record a drain episode, forgetting those older than keep_hours. */
void golden_ledger_episode(struct golden_ledger *l, const char *key, long long now, int keep_hours);
/* Episodes of key within the last hours. */
int golden_ledger_episodes(const struct golden_ledger *l, const char *key, long long now,
                           int hours);

void golden_ledger_count_drain(struct golden_ledger *l, const char *check);

#endif
