/* The Slurm node name a program runs for, and the %n template that turns it
 * into per-node paths (several slurmd on one host, fixtures per node). */
#ifndef GOLDEN_UTIL_NODENAME_H
#define GOLDEN_UTIL_NODENAME_H

#include <stddef.h>

#include "util/errbuf.h"

/* opt, else $SLURMD_NODENAME, else the host name. */
void golden_nodename_get(const char *opt, char *buf, size_t len);

/* Expand %n (node name) and %% in tmpl. The node name must be a plain Slurm
 * node name; anything that could climb out of a directory is refused. */
int golden_nodename_expand(const char *tmpl, const char *node, char *out, size_t len,
                           struct golden_err *err);

#endif
