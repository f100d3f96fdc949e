/* The one entry point behind golden-prolog, golden-epilog and `golden check`. */
#ifndef GOLDEN_NODE_NODE_MAIN_H
#define GOLDEN_NODE_NODE_MAIN_H

#include <stddef.h>
#include <stdio.h>

#include "health/check.h"
#include "health/golden_conf.h"
#include "topo/topo.h"

/* argv[0] is the program/command name. Returns the exit status: 0 healthy
 * (or warnings only), 1 a check failed (the node was drained unless
 * --no-drain), 2 usage or configuration error. */
int golden_node_main(enum golden_phase default_phase, int argc, char **argv);

/* What golden-watch shares with the checks' entry point. */
/* golden.conf from config, $GOLDEN_CONF or /etc/slurm/golden.conf (optional),
 * for node (its sections; [feature] sections ask scontrol for the node's
 * features); errors go to stderr as "prog: FILE:LINE: ...". explain: print
 * every line and whether it applies (NULL: silent). Returns 0 or -1. */
int golden_node_load_conf(const char *prog, const char *config, const char *node,
                          struct golden_conf *conf, FILE *explain);
/* %n in a config path -> node. Returns 0, or -1 with a message on stderr. */
int golden_node_expand(const char *prog, const char *key, const char *tmpl, const char *node,
                       char *out, size_t len);
/* Topology discovery in a child under a 3 s deadline: 0 ok, 1 timeout, -1 failed. */
int golden_node_discover(const char *topology, const char *sysroot, int deadline_ms,
                         struct golden_topo *topo);

#endif
