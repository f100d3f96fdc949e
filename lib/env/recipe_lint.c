/* Lint a recipe set: problems load cannot see in one file alone.
 *
 * Ties. Two recipes of equal specificity that can match the same node make
 * the choice depend on their names. We call two recipes disjoint only when a
 * rule present in both rules the other out:
 *   - different compute_nic_kind, link_layer, nvswitch, pcie_flat or
 *     bootstrap_if;
 *   - gpu_count, compute_nic_count or gpu_eth_count ranges that do not
 *     overlap;
 *   - gpu_model or dmi_product_name lists where no pattern of one matches a
 *     pattern of the other taken literally, in either direction.
 * plus three implications between rules: compute_nic_kind "none" means 0
 * compute NICs (any other kind at least 1); kind ib never has Ethernet
 * compute ports and kind roce never InfiniBand ones; gpu_model needs a GPU.
 *
 * The pattern test is an approximation: "H100*" vs "H1*" overlap (H1*
 * matches the text "H100*"), but "H100*" vs "*80GB" are taken as disjoint
 * although "H100 80GB" matches both. Write patterns that share a literal
 * prefix (the GPU family) so the test is exact for them.
 */
#include "env/recipe.h"

#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/strutil.h"

struct lint {
	golden_diag_fn diag;
	void *arg;
	int problems;
};

static void problem(struct lint *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void problem(struct lint *l, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	l->problems++;
	if (!l->diag)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	l->diag(l->arg, msg);
}

static bool ranges_overlap(const struct golden_range *a, const struct golden_range *b)
{
	return !a->set || !b->set || (a->min <= b->max && b->min <= a->max);
}

static bool patterns_overlap(char *const *pa, int na, char *const *pb, int nb)
{
	if (!na || !nb)
		return true;
	for (int i = 0; i < na; i++)
		for (int j = 0; j < nb; j++)
			if (fnmatch(pa[i], pb[j], 0) == 0 || fnmatch(pb[j], pa[i], 0) == 0)
				return true;
	return false;
}

static bool differ(const char *a, const char *b)
{
	return a && b && strcmp(a, b);
}

static bool tri_differ(int a, int b)
{
	return a >= 0 && b >= 0 && a != b;
}

/* Does a rule of A (with its implications) rule out every node B matches? */
static bool implied_apart(const struct golden_match *a, const struct golden_match *b)
{
	if (a->compute_nic_kind && b->compute_nic_count.set) {
		bool none = !strcmp(a->compute_nic_kind, "none");

		if ((none && b->compute_nic_count.min > 0) ||
		    (!none && b->compute_nic_count.max == 0))
			return true;
	}
	if (a->compute_nic_kind && b->link_layer &&
	    ((!strcmp(a->compute_nic_kind, "ib") && !strcmp(b->link_layer, "Ethernet")) ||
	     (!strcmp(a->compute_nic_kind, "roce") && !strcmp(b->link_layer, "InfiniBand"))))
		return true;
	return a->n_gpu_model && b->gpu_count.set && b->gpu_count.max == 0;
}

bool golden_recipes_may_overlap(const struct golden_recipe *ra, const struct golden_recipe *rb)
{
	const struct golden_match *a = &ra->match, *b = &rb->match;

	if (differ(a->compute_nic_kind, b->compute_nic_kind) ||
	    differ(a->link_layer, b->link_layer) || tri_differ(a->nvswitch, b->nvswitch) ||
	    tri_differ(a->pcie_flat, b->pcie_flat) || tri_differ(a->bootstrap_if, b->bootstrap_if))
		return false;
	if (!ranges_overlap(&a->gpu_count, &b->gpu_count) ||
	    !ranges_overlap(&a->compute_nic_count, &b->compute_nic_count) ||
	    !ranges_overlap(&a->gpu_eth_count, &b->gpu_eth_count))
		return false;
	if (!patterns_overlap(a->gpu_model, a->n_gpu_model, b->gpu_model, b->n_gpu_model) ||
	    !patterns_overlap(a->dmi_product, a->n_dmi_product, b->dmi_product, b->n_dmi_product))
		return false;
	return !implied_apart(a, b) && !implied_apart(b, a);
}

static const char *where(const struct golden_recipe *r)
{
	return r->path ? r->path : (r->name ? r->name : "(recipe)");
}

/* The file's name without directory and ".json"; false if it has none. */
static bool file_stem(const char *path, char *buf, size_t len)
{
	const char *base = strrchr(path, '/');
	size_t n;

	base = base ? base + 1 : path;
	n = strlen(base);
	if (n <= 5 || strcmp(base + n - 5, ".json") || n - 5 >= len)
		return false;
	memcpy(buf, base, n - 5);
	buf[n - 5] = '\0';
	return true;
}

static void lint_one(struct lint *l, const struct golden_recipe *r)
{
	char stem[256], why[1536];
	const char *field;

	if (!golden_is_safe_name(r->name, 64))
		problem(l, "%s: name: \"%s\" is not a safe name; expected [A-Za-z0-9._-]", where(r),
		        r->name ? r->name : "");
	if (r->path && !file_stem(r->path, stem, sizeof(stem)))
		problem(l, "%s: recipe files must be named NAME.json; expected %s.json", r->path,
		        r->name ? r->name : "NAME");
	else if (r->path && r->name && strcmp(stem, r->name))
		problem(l,
		        "%s: name: \"%s\" differs from the file name; expected \"%s\" (or rename "
		        "the file to %s.json)",
		        r->path, r->name, stem, r->name);
	for (int i = 0; i < r->nvars; i++) {
		if (golden_recipe_var_check(&r->vars[i], &field, why, sizeof(why)) < 0)
			problem(l, "%s: env[%d].%s: %s", where(r), i, field, why);
		for (int j = 0; j < i; j++)
			if (r->vars[i].name && r->vars[j].name &&
			    !strcmp(r->vars[i].name, r->vars[j].name))
				problem(l, "%s: env[%d].name: %s is already set by env[%d]",
				        where(r), i, r->vars[i].name, j);
	}
	/* Two figures for one collective and node count: which one judges? */
	for (int i = 0; i < r->nexpect; i++)
		for (int j = 0; j < i; j++) {
			const struct golden_recipe_expect *a = &r->expect[j], *b = &r->expect[i];

			if (a->collective && b->collective &&
			    !strcmp(a->collective, b->collective) &&
			    ranges_overlap(&a->nodes, &b->nodes))
				problem(
				    l,
				    "%s: expect[%d].nodes: %s on %d-%d nodes is already covered by "
				    "expect[%d]; expected node ranges that do not overlap",
				    where(r), i, b->collective, b->nodes.min, b->nodes.max, j);
		}
}

int golden_recipes_lint(const struct golden_recipe_set *set, golden_diag_fn diag, void *arg)
{
	struct lint l = {diag, arg, 0};

	if (!set)
		return 0;
	for (int i = 0; i < set->n; i++)
		lint_one(&l, &set->recipes[i]);
	for (int i = 0; i < set->n; i++)
		for (int j = i + 1; j < set->n; j++) {
			const struct golden_recipe *a = &set->recipes[i], *b = &set->recipes[j];

			if (a->specificity == b->specificity && golden_recipes_may_overlap(a, b))
				problem(&l,
				        "%s: tie: %s and %s both match at specificity %d; add a "
				        "rule that tells them apart",
				        where(b), a->name, b->name, a->specificity);
		}
	return l.problems;
}
