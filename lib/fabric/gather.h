/* Collect every node's facts (`golden topo --format json`) for the
 * cluster's topology, in one of two ways a site chooses:
 *
 * - through Slurm: one short step per node (`srun -N1 -w NODE --immediate
 *   GOLDEN topo --format json`), many at once, each under a deadline, run by
 *   an admin;
 * - from the files the health check leaves (`topology-facts.json` in each
 *   node's state_dir, reachable here through a %n template such as
 *   /shared/golden/%n), refused unless owned by root or the caller and not
 *   writable by others, and only when fresh.
 *
 * Either way every node asked is in the result: its facts, or in
 * "unanswered" with why (no allocation within the deadline, not JSON, a
 * stale or missing file). */
#ifndef GOLDEN_FABRIC_GATHER_H
#define GOLDEN_FABRIC_GATHER_H

#include <stdbool.h>

#include "topo/topo.h"
#include "util/errbuf.h"
#include "util/hostlist.h"

struct json_object;

struct golden_gather_srun {
	const char *srun;      /* absolute path */
	const char *golden;    /* absolute path of golden, the same on every node */
	const char *partition; /* srun -p, or NULL */
	const char *topology;  /* --topology for golden topo (%n allowed), or NULL */
	const char *sysroot;   /* --sysroot (%n allowed), or NULL */
	int timeout_ms;        /* per node, the allocation wait included */
	int parallel;          /* steps at once */
};

/* A new facts document: {"format", "version", "generated", "method",
 * "nodes": {}, "unanswered": {}}. */
struct json_object *golden_gather_document(const char *method);

/* Ask each node through srun; fills doc's nodes/unanswered. Returns 0, or
 * -1 with err (out of memory). */
int golden_gather_by_srun(const struct golden_hostlist *nodes, const struct golden_gather_srun *o,
                          struct json_object *doc, struct golden_err *err);

/* Read each node's state-dir file: tmpl with %n is the directory. max_age_s:
 * older facts are stale (unanswered). */
int golden_gather_from_files(const struct golden_hostlist *nodes, const char *tmpl, long max_age_s,
                             struct json_object *doc, struct golden_err *err);

/* The node list of a partition (or of the cluster when partition is NULL),
 * from `sinfo -h -N -o %N`. Returns 0, or -1 with err. */
int golden_gather_slurm_nodes(const char *sinfo, const char *partition, struct golden_hostlist *out,
                              struct golden_err *err);

#endif
