/* Slurm host lists ("gpu[001-064,100],login1"): comma-separated items at the
 * top level, each a name with bracketed numeric ranges; a range written with
 * leading zeros ("001-064") matches only names with that many digits.
 * Two ways in: match one node name against an expression without expanding
 * it (hostlist_match.c: a range of a million names costs nothing), and
 * expand an expression into names / write names back in the ranged form
 * (hostlist.c), which is how topology.conf, topology.yaml and
 * `scontrol show topology` spell node and switch lists. */
#ifndef GOLDEN_UTIL_HOSTLIST_H
#define GOLDEN_UTIL_HOSTLIST_H

#include <stdbool.h>
#include <stddef.h>

#include "util/errbuf.h"

/* Is expr well formed? Returns 0, or -1 with what is wrong in err. */
int golden_hostlist_check(const char *expr, struct golden_err *err);

/* Does node match expr? A malformed expr matches nothing. */
bool golden_hostlist_match(const char *expr, const char *node);

/* The most names one expression may expand to: a typo such as n[1-9999999]
 * is an error, not an allocation of gigabytes. */
#define GOLDEN_HOSTLIST_MAX 1000000

struct golden_hostlist {
	char **names; /* each malloc'd */
	size_t n, cap;
};

/* Append the names of expr ("n[1-3,5]x,login[01-02]", brackets may repeat:
 * "r[1-2]n[1-2]") to hl. Returns 0, or -1 with what is wrong in err (hl
 * keeps what was added before). */
int golden_hostlist_expand(const char *expr, struct golden_hostlist *hl, struct golden_err *err);

/* Append one name (copied). Returns 0 or -1 (out of memory). */
int golden_hostlist_add(struct golden_hostlist *hl, const char *name);

/* Is name in hl (linear)? */
bool golden_hostlist_has(const struct golden_hostlist *hl, const char *name);

/* Sort naturally ("n2" before "n10") and drop duplicates. */
void golden_hostlist_uniq(struct golden_hostlist *hl);

void golden_hostlist_free(struct golden_hostlist *hl);

/* The ranged form of names (sorted naturally, duplicates dropped):
 * "n[1-3,5],gpu[01-02]". Zero-padded numbers keep their width. Returns a
 * malloc'd string ("" for no names), or NULL when out of memory. */
char *golden_hostlist_ranged(char *const *names, size_t n);

#endif
