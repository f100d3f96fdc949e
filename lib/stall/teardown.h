/* The teardown probe: run in the SPANK plugin's task_exit path (as root,
 * before Slurm removes the step's cgroups). It measures what the step leaves
 * dirty and, above a threshold on an exposed node, syncfs()es the writable
 * local block filesystems and Lustre mounts in a child under a deadline, so
 * the inodes are clean when the cgroup dies and switch in constant time.
 * It never fails the step: every problem becomes a field of the result. */
#ifndef GOLDEN_STALL_TEARDOWN_H
#define GOLDEN_STALL_TEARDOWN_H

#include <limits.h>
#include <stdbool.h>

#include "stall/cgmem.h"
#include "util/errbuf.h"

enum golden_flush_mode {
	GOLDEN_FLUSH_AUTO,   /* flush above threshold, only on exposed nodes */
	GOLDEN_FLUSH_ALWAYS, /* flush above threshold on any node */
	GOLDEN_FLUSH_OFF     /* measure and record only */
};

struct golden_teardown_opts {
	enum golden_flush_mode mode;
	long long threshold_bytes;  /* dirty + writeback */
	long long threshold_inodes; /* attached inodes (v2 + debugfs) */
	int deadline_ms;            /* for the whole flush */
	const char *sysroot;
};

#define GOLDEN_TEARDOWN_DEFAULTS                                                                   \
	{                                                                                          \
		GOLDEN_FLUSH_AUTO, 256LL << 20, 10000, 5000, NULL                                  \
	}

struct golden_teardown_result {
	char cgroup[PATH_MAX];
	bool exposed;
	char exposure[256];
	struct golden_cgmem before, after;
	const char *action; /* none | below-threshold | not-exposed | off | flushed |
	                       flush-timeout | flush-failed | no-cgroup */
	int nmounts;        /* filesystems synced (or attempted) */
	int flush_ms;
	int measure_us; /* cost of measuring */
};

/* Set one option from text, for plugstack.conf (teardown_KEY=VALUE) and
 * golden teardown (--KEY VALUE) alike. key: flush (auto|always|off),
 * threshold (bytes, K/M/G), inodes, deadline_ms (10-600000); key names not
 * in that list fail as unknown. On a bad value err says what would be
 * right. Returns 0 or -1. */
int golden_teardown_opt_set(struct golden_teardown_opts *o, const char *key, const char *val,
                            struct golden_err *err);

/* Probe cgdir (NULL: the caller's own step cgroup). Returns 0; r->action
 * says what happened. */
int golden_teardown_probe(const char *cgdir, const struct golden_teardown_opts *o,
                          struct golden_teardown_result *r);

/* Record r for the epilog as DIR/job_<job>/<step>.json (0600 files in 0700
 * directories, written atomically). job and step must be safe names. */
int golden_teardown_record(const char *dir, const char *job, const char *step,
                           const struct golden_teardown_result *r, struct golden_err *err);

struct json_object;
struct json_object *golden_teardown_to_json(const struct golden_teardown_result *r);

#endif
