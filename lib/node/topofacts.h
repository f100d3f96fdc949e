/* The node's topology facts for `golden topology gather --facts-dir`:
 * written by the health check (HealthCheckProgram) into state_dir as
 * topology-facts.json, so a site can build its topology without running a
 * step on every node. */
#ifndef GOLDEN_NODE_TOPOFACTS_H
#define GOLDEN_NODE_TOPOFACTS_H

#include "topo/topo.h"
#include "util/errbuf.h"

/* Read the NVLink domain (NVML, in a child under a deadline), then replace
 * state_dir/topology-facts.json (mode 0644) with golden topo's JSON of this
 * node. Returns 0, or -1 with err. */
int golden_topofacts_write(const char *state_dir, const char *node, const struct golden_topo *topo,
                           struct golden_err *err);

#endif
