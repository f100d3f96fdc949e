/* Slurm hostlist expressions ("gpu[001-064,100],login1") matched against one
 * node name without expanding them, so a range of a million names costs
 * nothing. The syntax is Slurm's: comma-separated items at the top level,
 * each a name with bracketed numeric ranges; a range written with leading
 * zeros ("001-064") matches only names with that many digits. */
#ifndef GOLDEN_UTIL_HOSTLIST_H
#define GOLDEN_UTIL_HOSTLIST_H

#include <stdbool.h>

#include "util/errbuf.h"

/* Is expr well formed? Returns 0, or -1 with what is wrong in err. */
int golden_hostlist_check(const char *expr, struct golden_err *err);

/* Does node match expr? A malformed expr matches nothing. */
bool golden_hostlist_match(const char *expr, const char *node);

#endif
