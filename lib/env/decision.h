/* What golden decided for a node: the winning recipe, the environment it
 * renders to, and the verdict on every other recipe (for `explain`). */
#ifndef GOLDEN_RESULT_H
#define GOLDEN_RESULT_H

#include <stdbool.h>
#include <stddef.h>

#include "util/errbuf.h"

struct golden_var {
	char *name;
	char *value;
	char *why;
};

struct golden_candidate {
	char *recipe;
	int specificity;
	bool matched;
	char *note; /* why it did not match, or why it lost / won */
};

struct golden_result {
	char *recipe; /* winner, NULL if none */
	char *source; /* the winner's public source */
	int nvars;
	struct golden_var *vars; /* sorted by name */
	int ncandidates;
	struct golden_candidate *candidates;
	bool from_cache;
};

void golden_result_init(struct golden_result *res);
void golden_result_free(struct golden_result *res);

/* Append or replace NAME (keeps vars sorted). Returns 0 or -1 on ENOMEM. */
int golden_result_setvar(struct golden_result *res, const char *name, const char *value,
                         const char *why);
const struct golden_var *golden_result_getvar(const struct golden_result *res, const char *name);

int golden_result_add_candidate(struct golden_result *res, const char *recipe, int specificity,
                                bool matched, const char *note);

/* JSON round trip (the cache and `--format json` use it). */
struct json_object;
struct json_object *golden_result_to_json(const struct golden_result *res);
int golden_result_from_json(struct json_object *obj, struct golden_result *res,
                            struct golden_err *err);

#endif
