/* Recipes: JSON files that say which nodes they fit (match rules) and
 * which environment they produce (templates over topology facts). */
#ifndef GOLDEN_ENV_RECIPE_H
#define GOLDEN_ENV_RECIPE_H

#include <stdbool.h>
#include <stddef.h>

#include "util/errbuf.h"
#include "env/decision.h"
#include "topo/topo.h"

#define GOLDEN_MAX_PATTERNS      16
#define GOLDEN_MAX_RECIPE_VARS   64
#define GOLDEN_MAX_RECIPE_EXPECT 32

struct golden_range {
	bool set;
	int min, max; /* inclusive; max = INT_MAX when open */
};

struct golden_match {
	int n_gpu_model;
	char *gpu_model[GOLDEN_MAX_PATTERNS]; /* fnmatch patterns, every GPU must match one */
	struct golden_range gpu_count;
	char *compute_nic_kind; /* "ib" | "roce" | "efa" | "none", NULL unset */
	struct golden_range compute_nic_count;
	char *link_layer; /* "InfiniBand" | "Ethernet", NULL unset */
	int nvswitch;     /* -1 unset, 0 absent, 1 present */
	int pcie_flat;    /* -1 unset, 0, 1 */
	int n_dmi_product;
	char *dmi_product[GOLDEN_MAX_PATTERNS]; /* fnmatch patterns */
	struct golden_range gpu_eth_count;      /* plain Ethernet NICs PIX/PXB to a GPU */
	int bootstrap_if;                       /* -1 unset, 0 none found, 1 one found */
};

struct golden_recipe_var {
	char *name;
	char *value; /* template: literal text with {fact} references */
	char *why;
	bool optional; /* skip the variable (not the recipe) when a fact is empty */
};

/* What a platform should reach in an NCCL sweep (`golden sweep analyse
 * --expect`): the minimum large-message busbw of a collective on a range of
 * node counts, with the public source of the figure. */
struct golden_recipe_expect {
	char *collective; /* "all_reduce", "all_gather", ... */
	struct golden_range nodes;
	double min_busbw; /* GB/s */
	long long size;   /* bytes: the figure holds from this message size on */
	char *source;     /* where the figure comes from (public) */
	char *why;        /* how the minimum follows from it */
};

struct golden_recipe {
	char *name;
	char *description;
	char *source;
	char *path; /* file it came from */
	struct golden_match match;
	int specificity; /* number of match rules set */
	int nvars;
	struct golden_recipe_var vars[GOLDEN_MAX_RECIPE_VARS];
	int nexpect; /* the optional "expect" section */
	struct golden_recipe_expect expect[GOLDEN_MAX_RECIPE_EXPECT];
};

struct golden_recipe_set {
	int n;
	struct golden_recipe *recipes; /* sorted by name */
};

/* Called once per problem found while loading or linting:
 * "FILE: KEY: what is wrong; expected ...". */
typedef void (*golden_diag_fn)(void *arg, const char *msg);

struct golden_load_opts {
	bool check_owner; /* refuse files not root-owned or group/world-writable */
	golden_diag_fn diag;
	void *diag_arg;
};

/* Load one recipe file. Returns 0, or -1 with err set ("FILE: KEY: ..."). */
int golden_recipe_load_file(const char *path, const struct golden_load_opts *opts,
                            struct golden_recipe *out, struct golden_err *err);

/* Load every *.json in dir, skipping (and reporting through opts->diag) bad
 * files. Returns the number of bad files skipped, or -1 with err set if the
 * directory cannot be read at all. Two recipes with the same name: the second
 * is reported and skipped. */
int golden_recipes_load_dir(const char *dir, const struct golden_load_opts *opts,
                            struct golden_recipe_set *set, struct golden_err *err);

/* Add an already loaded recipe (takes ownership). R must come from malloc
 * and is consumed either way: on success its contents move into the set and
 * the shell is freed; on failure (duplicate name, ENOMEM) it is freed. */
int golden_recipe_set_add(struct golden_recipe_set *set, struct golden_recipe *r,
                          struct golden_err *err);

const struct golden_recipe *golden_recipe_find(const struct golden_recipe_set *set,
                                               const char *name);

void golden_recipe_free(struct golden_recipe *r);
void golden_recipe_set_free(struct golden_recipe_set *set);

/* Does R fit TOPO? When not, why (one line) says the first rule that failed. */
bool golden_recipe_matches(const struct golden_recipe *r, const struct golden_topo *topo, char *why,
                           size_t whylen);

/* Render R's variables over TOPO into res->vars (sorted by name), and set
 * res->recipe/res->source. A required variable whose facts are empty makes
 * it fail: returns -1 with err naming the variable and fact. */
int golden_recipe_render(const struct golden_recipe *r, const struct golden_topo *topo,
                         struct golden_decision *res, struct golden_err *err);

/* Choose the most specific matching recipe. Fills res->candidates with every
 * recipe and its verdict. Returns the winner, or NULL (err set) if none
 * matches. A tie at the top specificity is broken by name, and reported in
 * the candidates' notes (lint rejects such sets). */
const struct golden_recipe *golden_recipe_select(const struct golden_recipe_set *set,
                                                 const struct golden_topo *topo,
                                                 struct golden_decision *res,
                                                 struct golden_err *err);

/* Lint a set: ties between recipes that can match the same node at the same
 * specificity, templates that reference unknown facts, unknown/invalid
 * variables. Returns the number of problems (each reported via diag). */
int golden_recipes_lint(const struct golden_recipe_set *set, golden_diag_fn diag, void *arg);

/* Templates: literal text with {fact} references; "{{" and "}}" stand for
 * literal braces. Shared by load, lint and render (recipe_render.c). */

/* Check TMPL's syntax and that every fact it names is known. Returns the
 * number of fact references, or -1 with why set. */
int golden_recipe_template_check(const char *tmpl, char *why, size_t whylen);

/* Expand TMPL over TOPO into out. Returns 0; 1 when a referenced fact is
 * empty on this node (its name copied to fact); -1 with why set on a syntax
 * error, an unknown fact or overflow. TOPO may be NULL when TMPL names no
 * fact. */
int golden_recipe_template_expand(const char *tmpl, const struct golden_topo *topo, char *out,
                                  size_t outlen, char *fact, size_t factlen, char *why,
                                  size_t whylen);

/* Check one recipe variable as load does: a known name, a non-empty why,
 * template syntax and facts, and for a fact-free template the value itself.
 * Returns 0, or -1 with *field ("name", "value" or "why") and why set. */
int golden_recipe_var_check(const struct golden_recipe_var *v, const char **field, char *why,
                            size_t whylen);

/* The collectives an "expect" entry may name (nccl-tests' binaries without
 * _perf), NULL-terminated. */
extern const char *const golden_recipe_collectives[];

/* Can A and B both match one node? False only when a rule present in both
 * rules the other out (see recipe_lint.c for the approximation). */
bool golden_recipes_may_overlap(const struct golden_recipe *a, const struct golden_recipe *b);

#endif
