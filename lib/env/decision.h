/* What golden decided for a node: the winning recipe, the environment it
 * renders to, and the verdict on every other recipe (for `explain`). */
#ifndef GOLDEN_ENV_DECISION_H
#define GOLDEN_ENV_DECISION_H

#include <stdbool.h>
#include <stddef.h>

#include "util/errbuf.h"

struct golden_decision_var {
	char *name;
	char *value;
	char *why;
};

struct golden_decision_candidate {
	char *recipe;
	int specificity;
	bool matched;
	char *note; /* why it did not match, or why it lost / won */
};

struct golden_decision_note {
	bool warning; /* the answer may be wrong for the node (facts from another host) */
	char *text;   /* a fallback taken, where facts came from */
};

struct golden_decision {
	char *recipe; /* winner, NULL if none */
	char *source; /* the winner's public source */
	int nvars;
	struct golden_decision_var *vars; /* sorted by name */
	int ncandidates;
	struct golden_decision_candidate *candidates;
	int nnotes;
	struct golden_decision_note *notes;
	/* Every variable any loaded recipe can set, sorted: the only names a
	 * GOLDEN_NCCL_SET marker (user-controlled text) may make golden
	 * recompute or unset. */
	int nmanaged;
	char **managed;
	bool from_cache;
};

void golden_decision_init(struct golden_decision *res);
void golden_decision_free(struct golden_decision *res);

/* Append or replace NAME (keeps vars sorted). Returns 0 or -1 on ENOMEM. */
int golden_decision_setvar(struct golden_decision *res, const char *name, const char *value,
                           const char *why);
const struct golden_decision_var *golden_decision_getvar(const struct golden_decision *res,
                                                         const char *name);

int golden_decision_add_candidate(struct golden_decision *res, const char *recipe, int specificity,
                                  bool matched, const char *note);

int golden_decision_add_note(struct golden_decision *res, bool warning, const char *text);

/* Record NAME as one golden manages (kept sorted, no duplicates). Returns 0,
 * or -1 on ENOMEM. */
int golden_decision_add_managed(struct golden_decision *res, const char *name);
bool golden_decision_manages(const struct golden_decision *res, const char *name);

/* JSON round trip (the cache and `--format json` use it). */
struct json_object;
struct json_object *golden_decision_to_json(const struct golden_decision *res);
int golden_decision_from_json(struct json_object *obj, struct golden_decision *res,
                              struct golden_err *err);

#endif
