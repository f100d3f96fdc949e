/* The blast-radius guard: a storage outage, a fabric-manager failure or a
 * core switch reboot makes every node's mount, bootstrap or IB check fail at
 * once; draining them all would empty the cluster for a fault no node owns.
 * Before golden drains for a check whose failure can have a shared cause
 * (health/reason_parse.h: golden_reason_shared_class), it asks the
 * controller once, read-only (`scontrol -o show node`), how many nodes of
 * this node's partition already hold golden's drain for the same check and
 * component class, set within guard_window seconds. At or above the
 * threshold (the larger of guard_nodes and guard_fraction of the
 * partition) it does not drain: a suspected shared cause, recorded and
 * re-checked on the next run. Node-local faults (GPUs, XIDs, ECC, the
 * kernel stall) are never held back.
 *
 * Nodes that fail together also check together: after a drain, the node
 * looks again and keeps its drain only if it is among the first
 * `threshold` holders (by the time Slurm recorded, then by name, an order
 * every node sees alike); a later one ends its own drain at once. */
#ifndef GOLDEN_NODE_GUARD_H
#define GOLDEN_NODE_GUARD_H

#include <stdbool.h>

#include "health/golden_conf_fleet.h"
#include "util/errbuf.h"

struct golden_guard_view {
	bool shared;         /* the failure's check can have a shared cause */
	char key[64];        /* its class: "mounts /lustre", "ib-ports ib", ... */
	int partition_nodes; /* nodes sharing this node's first partition */
	int holders;         /* others holding golden's drain of the same class */
	int ahead;           /* of those, the ones ordered before this node */
	bool self_holds;     /* this node holds such a drain */
	int threshold;
};

/* The threshold for a partition of n nodes (0: the guard is off). */
int golden_guard_threshold(const struct golden_conf_fleet *f, int n);

/* Count from the text of `scontrol -o show node` (every node, one a line)
 * for node self and failure class key, with drains set at or after
 * now - window_s (a reason without a readable time counts). Pure; exposed
 * for tests. */
void golden_guard_count(const char *show_all, const char *self, const char *key, long long now,
                        int window_s, struct golden_guard_view *v);

/* Would draining self for check/code exceed the guard? Queries the
 * controller (one scontrol call, bounded) when the class is shared and the
 * guard is on. Returns 1 hold back, 0 go ahead (not shared, guard off, under
 * the threshold), -1 the query failed (err set; the caller drains: a guard
 * that cannot see the fleet never keeps a node in service). After a drain,
 * or on a later run while holding one, call with after = true: 1 then means
 * this node holds such a drain but is past the first `threshold` holders,
 * and should end its own drain. */
int golden_guard_check(const char *scontrol, const char *self, const struct golden_conf_fleet *f,
                       const char *check, const char *code, bool after, long long now,
                       struct golden_guard_view *v, struct golden_err *err);

#endif
