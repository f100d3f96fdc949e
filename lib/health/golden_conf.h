/* golden.conf: what the health checks expect of this node. One `key = value`
 * per line, '#' comments. Lines before the first section apply to every
 * node; a section applies the lines after it to the nodes it names, so one
 * file serves a heterogeneous cluster:
 *   [nodes gpu[001-064]]   a Slurm hostlist expression
 *   [nodes cpu*]           a glob (it has * or ?)
 *   [feature h100]         nodes with that Slurm feature
 * A section's value beats the value for every node; two sections that both
 * apply to a node and disagree on a key are an error. Unknown keys, bad
 * values and conflicts are rejected with FILE:LINE and what would be right,
 * in every section, whichever node reads the file. */
#ifndef GOLDEN_HEALTH_GOLDEN_CONF_H
#define GOLDEN_HEALTH_GOLDEN_CONF_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

#include "health/check.h"
#include "health/golden_conf_fleet.h"
#include "util/errbuf.h"

#define GOLDEN_MAX_MOUNTS          16
#define GOLDEN_MAX_CHECK_OVERRIDES 32
#define GOLDEN_MAX_XID_OVERRIDES   64
#define GOLDEN_CONF_MAX_SECTIONS   64

struct golden_check_override {
	char name[32];
	int deadline_ms; /* 0 = keep default */
	unsigned phases; /* 0 = keep default; bits of enum golden_phase */
	bool disabled;
};

struct golden_xid_override {
	int xid;
	bool ignore; /* never drain, not even record as warn */
	enum golden_status status;
	enum golden_action action;
};

struct golden_conf {
	int expected_gpus;            /* gpus = N; -1: the NVIDIA GPUs hwloc sees on PCI */
	double expected_rate_gbps;    /* ib_rate = 400; 0: the best rate among compute ports */
	char expected_link_layer[16]; /* link_layer = InfiniBand|Ethernet; "" any */
	int expected_efa;             /* efa_count = N; -1 unchecked */
	bool require_gdr;             /* gpudirect = required|optional */
	int nmounts;
	char mounts[GOLDEN_MAX_MOUNTS][PATH_MAX]; /* mount = /lustre (repeatable) */
	int budget_ms;                            /* budget_ms = 5000: the whole run */
	int discovery_deadline_ms; /* discovery_deadline_ms = 3000: reading the topology */
	int nchecks;
	struct golden_check_override checks[GOLDEN_MAX_CHECK_OVERRIDES];
	/* check.NAME.deadline_ms = 2000, check.NAME.phases = prolog,epilog,
	 * check.NAME = off */
	int nxid;
	struct golden_xid_override xids[GOLDEN_MAX_XID_OVERRIDES];
	/* xid.31 = drain | drain-reset | drain-reboot | warn | ignore */
	bool xid_scope_node_gpus;    /* xid_scope = all (default) | node-gpus */
	char topology[PATH_MAX];     /* topology = FILE (%n) */
	char sysroot[PATH_MAX];      /* sysroot = DIR (%n) */
	char state_dir[PATH_MAX];    /* state_dir = /var/lib/slurm-golden (%n) */
	char log_path[PATH_MAX];     /* log = /var/log/slurm-golden/health.jsonl (%n) */
	char scontrol[PATH_MAX];     /* scontrol = /usr/bin/scontrol */
	char teardown_dir[PATH_MAX]; /* teardown_dir = /run/slurm-golden/teardown (%n):
	                                what the plugin's task_exit probe recorded */
	int stall_sample_ms;         /* stall_sample_ms = 100: /proc/stat window */
	int flap_count;              /* flap_count = 3: drains of one kind that mean flapping */
	int flap_hours;              /* flap_hours = 24: ... within this many hours */
	char metrics_dir[PATH_MAX];  /* metrics_dir = DIR (%n): node_exporter textfiles; "" off */
	/* Active checks (golden-active): */
	char active_program[PATH_MAX]; /* active = PATH: golden-active or a stand-in; "" none */
	int active_budget_s;           /* active_budget_s = 60: one run's time budget */
	bool active_validate;          /* active_validate = on|off: validate before return */
	int active_validate_s;         /* active_validate_s = 35: its budget inside
	                                  HealthCheckProgram (slurmd kills that at 60 s) */
	int active_sibling_pct;        /* active_sibling_pct = N: tolerance; 0 = per test */
	/* nccl_tests_dir = DIR: the nccl-tests binaries golden sweep run/locate
	 * start on every node; "" unset */
	char nccl_tests_dir[PATH_MAX];
	struct golden_conf_fleet fleet; /* guard_*, drill_*, report_* (golden_conf_fleet.h) */
};

void golden_conf_init(struct golden_conf *conf);

/* Parse FILE with no node: sections are checked, none applies.
 * check_owner: root-owned and not group/world-writable. On -1, err names
 * the first bad line (FILE:LINE) and conf holds only the lines for every
 * node that are valid on their own: fit for reporting the error (where the
 * log is), never for running checks. The same for golden_conf_load_node. */
int golden_conf_load(const char *path, bool check_owner, struct golden_conf *conf,
                     struct golden_err *err);

/* The node a config is read for. */
struct golden_conf_node {
	const char *name; /* Slurm node name; NULL: no section applies */
	/* Its Slurm features, comma-separated, into buf: 0, or -1 if unknown
	 * ([feature] sections then do not apply, and warn says so). Asked at
	 * most once, only if the file has a [feature] section. May be NULL. */
	int (*features)(void *arg, char *buf, size_t len);
	/* Optional: every setting line, whether it applies to this node and why
	 * ("applies to every node", "overridden by FILE:LINE", "not for n5: [nodes
	 * gpu*] does not match"). */
	void (*explain)(void *arg, const char *where, const char *key, const char *value,
	                const char *why);
	void (*warn)(void *arg, const char *msg); /* optional */
	void *arg;
};

/* Parse FILE for one node. */
int golden_conf_load_node(const char *path, bool check_owner, const struct golden_conf_node *node,
                          struct golden_conf *conf, struct golden_err *err);

/* Effective deadline and phases of a check after overrides; false if off. */
bool golden_conf_check(const struct golden_conf *conf, const struct golden_check *chk,
                       int *deadline_ms, unsigned *phases);

/* The override for an XID, or NULL. */
const struct golden_xid_override *golden_conf_xid(const struct golden_conf *conf, int xid);

/* The settings in effect, one `key = value` per line (defaults said so). */
void golden_conf_print(const struct golden_conf *conf, FILE *out);

#endif
