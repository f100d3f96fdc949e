/* After teardown: detect a cgroup-writeback inode-switch storm in progress
 * without making it worse (no sync, nothing that takes wb->list_lock, every
 * read in a check child under a deadline), attribute it to a NUMA node, and
 * keep storage checks that time out meanwhile from blaming storage. */
#ifndef GOLDEN_STALL_WBSTALL_H
#define GOLDEN_STALL_WBSTALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "health/check_run.h"

#define GOLDEN_MAX_CPUS   1024
#define GOLDEN_MAX_NUMA   64
#define GOLDEN_STALL_MARK "wb-stall.state"

/* CPU -> NUMA node from <sysroot>/sys/devices/system/node/node* /cpulist.
 * Unknown CPUs are -1. Returns the number of nodes found (0: assume one). */
int golden_stall_numa_map(const char *sysroot, int *cpu_node, int ncpu);

/* Parse "0-3,8,10-11" into set[] (1 = member). Returns 0 or -1. */
int golden_stall_cpulist_parse(const char *s, unsigned char *set, int ncpu);

/* /proc/stat per-CPU counters (jiffies). */
struct golden_cpustat {
	int ncpu; /* highest cpuN + 1 */
	unsigned long long sys[GOLDEN_MAX_CPUS], total[GOLDEN_MAX_CPUS];
	unsigned char present[GOLDEN_MAX_CPUS];
};
int golden_stall_cpustat_read(const char *path, struct golden_cpustat *s);
/* The same from an open /proc/stat text. Returns 0, or -1 without cpuN lines. */
int golden_stall_cpustat_parse(FILE *f, struct golden_cpustat *s);

/* Per-node system-time share (percent) between two samples; -1 where a node
 * had no ticks in the window. Returns the number of nodes with a value. */
int golden_stall_numa_sys_pct(const struct golden_cpustat *a, const struct golden_cpustat *b,
                              const int *cpu_node, double *pct, int nnodes);

struct golden_stall_evidence {
	int nnodes;
	int kworkers; /* comm has "+inode_switch_wbs" */
	int kworkers_node[GOLDEN_MAX_NUMA];
	bool cpu_sampled;
	double sys_pct[GOLDEN_MAX_NUMA]; /* -1 unknown */
	double psi_cpu_some10;           /* -1 unknown */
	long dying_cgroups;              /* -1 unknown */
	/* kernel log since the last look */
	int soft_lockups, wq_lockups, wb_lines, hogs, hung_tasks, rcu_stalls, lustre_victims;
	int lockup_node; /* from CPU#N / pool cpus=N; -1 */
	/* how far the log was read: the caller saves the cursor once it acted */
	unsigned long kmsg_records;
	uint64_t kmsg_seq;
	char kmsg_boot[GOLDEN_KMSG_BOOTID_LEN];
	/* verdict */
	bool storm; /* in progress now */
	bool past;  /* the log shows one that is no longer visible */
	int node;   /* -1 unknown */
	char summary[512];
};

/* Collect the evidence: proc/ * /comm, proc/stat over window_ms, PSI,
 * cgroup.stat, and the kernel log (kmsg NULL = /dev/kmsg) after the stall
 * cursor in cursor_dir (NULL: whole buffer). The cursor is not moved: ev
 * says how far the log was read (kmsg_seq), for the caller to save once it
 * has acted on the evidence (health/check.h golden_check_commit). */
void golden_stall_detect(const char *sysroot, const char *kmsg, const char *cursor_dir,
                         int window_ms, struct golden_stall_evidence *ev);

/* Classify one kernel log message into ev (the counters above). */
void golden_stall_kmsg_line(const char *msg, const int *cpu_node, int ncpu,
                            struct golden_stall_evidence *ev);

/* Decide storm/node/summary from the counters. */
void golden_stall_classify(struct golden_stall_evidence *ev);

/* The node-state marker in state_dir, for checks and runs that follow:
 * written while a storm lasts, removed when one has passed. */
int golden_stall_mark(const char *state_dir, const char *sysroot,
                      const struct golden_stall_evidence *ev);
void golden_stall_unmark(const char *state_dir);
/* Is a stall marked for this boot? Fills code ("kernel wb-switch stall numa1"). */
bool golden_stall_marked(const char *state_dir, const char *sysroot, char *code, size_t len);

/* Storage checks that failed or timed out while a stall holds the node
 * (the wb-stall outcome in rep failed, or, if it did not run, the marker is
 * set) are re-attributed to the kernel. Returns how many were changed. */
int golden_stall_attribute(struct golden_run_report *rep, const char *state_dir,
                           const char *sysroot);

#endif
