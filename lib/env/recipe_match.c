/* Does a recipe fit a node, and which recipe fits best. */
#include "env/recipe.h"

#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env/facts.h"
#include "util/strutil.h"

static bool no(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static bool no(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (why && len) {
		va_start(ap, fmt);
		vsnprintf(why, len, fmt, ap);
		va_end(ap);
	}
	return false;
}

static bool in_range(const struct golden_range *r, int v)
{
	return v >= r->min && v <= r->max;
}

/* "8", ">= 8", "<= 4" or "2-4", for messages. */
static const char *range_text(const struct golden_range *r, char *buf, size_t len)
{
	if (r->min == r->max)
		snprintf(buf, len, "%d", r->min);
	else if (r->max == INT_MAX)
		snprintf(buf, len, ">= %d", r->min);
	else if (r->min == 0)
		snprintf(buf, len, "<= %d", r->max);
	else
		snprintf(buf, len, "%d-%d", r->min, r->max);
	return buf;
}

static bool any_match(char *const *pats, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (fnmatch(pats[i], s, 0) == 0)
			return true;
	return false;
}

static const char *pattern_text(char *const *pats, int n, char *buf, size_t len)
{
	buf[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (i)
			golden_strlcat(buf, " | ", len);
		golden_strlcat(buf, pats[i], len);
	}
	return buf;
}

static bool match_gpus(const struct golden_match *m, const struct golden_topo *t, char *why,
                       size_t len)
{
	int ngpus = t->ngpus < 0 ? 0 : (t->ngpus > GOLDEN_MAX_GPUS ? GOLDEN_MAX_GPUS : t->ngpus);
	char buf[512];

	if (m->n_gpu_model) {
		if (!ngpus)
			return no(why, len, "gpu_model: no GPUs on this node; recipe wants %s",
			          pattern_text(m->gpu_model, m->n_gpu_model, buf, sizeof(buf)));
		for (int i = 0; i < ngpus; i++)
			if (!any_match(m->gpu_model, m->n_gpu_model, t->gpus[i].model))
				return no(
				    why, len, "gpu_model: GPU %s is \"%s\"; recipe wants %s",
				    t->gpus[i].busid, t->gpus[i].model,
				    pattern_text(m->gpu_model, m->n_gpu_model, buf, sizeof(buf)));
	}
	if (m->gpu_count.set && !in_range(&m->gpu_count, ngpus))
		return no(why, len, "gpu_count: %d GPUs; recipe wants %s", ngpus,
		          range_text(&m->gpu_count, buf, sizeof(buf)));
	return true;
}

static bool match_nics(const struct golden_match *m, const struct golden_topo *t, char *why,
                       size_t len)
{
	const char *kind = golden_fact_compute_kind(t);
	int count = golden_fact_compute_nic_count(t);
	char buf[64];

	if (m->compute_nic_kind && strcmp(m->compute_nic_kind, kind))
		return no(why, len,
		          "compute_nic_kind: this node's compute fabric is %s; recipe "
		          "wants %s",
		          kind, m->compute_nic_kind);
	if (m->compute_nic_count.set && !in_range(&m->compute_nic_count, count))
		return no(why, len, "compute_nic_count: %d compute RDMA devices; recipe wants %s",
		          count, range_text(&m->compute_nic_count, buf, sizeof(buf)));
	if (m->link_layer) {
		const char *ll = golden_fact_compute_link_layer(t);

		if (strcmp(ll, m->link_layer))
			return no(why, len, "link_layer: compute ports are %s; recipe wants %s",
			          ll[0] ? ll : "none, mixed or unknown", m->link_layer);
	}
	return true;
}

bool golden_recipe_matches(const struct golden_recipe *r, const struct golden_topo *topo, char *why,
                           size_t whylen)
{
	const struct golden_match *m = &r->match;
	char buf[512];

	if (why && whylen)
		why[0] = '\0';
	if (!match_gpus(m, topo, why, whylen) || !match_nics(m, topo, why, whylen))
		return false;
	if (m->nvswitch >= 0 && (topo->nvswitches > 0) != (m->nvswitch == 1))
		return no(why, whylen, "nvswitch: %d NVSwitches on this node; recipe wants %s",
		          topo->nvswitches, m->nvswitch ? "some" : "none");
	if (m->pcie_flat >= 0 && topo->pcie_flat != (m->pcie_flat == 1))
		return no(why, whylen, "pcie_flat: PCIe is %sflat here; recipe wants %s",
		          topo->pcie_flat ? "" : "not ", m->pcie_flat ? "flat" : "not flat");
	if (m->n_dmi_product && !any_match(m->dmi_product, m->n_dmi_product, topo->dmi_product))
		return no(why, whylen, "dmi_product_name: \"%s\"; recipe wants %s",
		          topo->dmi_product,
		          pattern_text(m->dmi_product, m->n_dmi_product, buf, sizeof(buf)));
	if (m->gpu_eth_count.set && !in_range(&m->gpu_eth_count, golden_fact_gpu_eth_count(topo)))
		return no(why, whylen,
		          "gpu_eth_count: %d plain Ethernet NICs next to a GPU; recipe wants %s",
		          golden_fact_gpu_eth_count(topo),
		          range_text(&m->gpu_eth_count, buf, sizeof(buf)));
	if (m->bootstrap_if >= 0 && (topo->bootstrap_if[0] != '\0') != (m->bootstrap_if == 1))
		return no(why, whylen, "bootstrap_if: %s%s; recipe wants %s",
		          topo->bootstrap_if[0] ? "this node bootstraps on "
		                                : "no usable interface",
		          topo->bootstrap_if, m->bootstrap_if ? "one" : "none");
	return true;
}

/* Record every recipe's verdict once the winner is known. */
static int note_all(const struct golden_recipe_set *set, const struct golden_topo *topo,
                    const struct golden_recipe *win, int nties, struct golden_decision *res)
{
	for (int i = 0; i < set->n; i++) {
		const struct golden_recipe *r = &set->recipes[i];
		char why[512], note[768];
		bool m = golden_recipe_matches(r, topo, why, sizeof(why));

		if (!m || !win) /* a match always has a winner */
			snprintf(note, sizeof(note), "no match: %s", why);
		else if (r == win && nties)
			snprintf(note, sizeof(note),
			         "won: most specific match (specificity %d), tied with %d other "
			         "recipe%s and chosen by name; lint reports this tie",
			         r->specificity, nties, nties == 1 ? "" : "s");
		else if (r == win)
			snprintf(note, sizeof(note), "won: most specific match (specificity %d)",
			         r->specificity);
		else if (r->specificity == win->specificity)
			snprintf(note, sizeof(note),
			         "lost to %s: tie at specificity %d, %s sorts first by name",
			         win->name, r->specificity, win->name);
		else
			snprintf(note, sizeof(note), "lost to %s: specificity %d < %d", win->name,
			         r->specificity, win->specificity);
		if (golden_decision_add_candidate(res, r->name, r->specificity, m, note) < 0)
			return -1;
	}
	return 0;
}

const struct golden_recipe *golden_recipe_select(const struct golden_recipe_set *set,
                                                 const struct golden_topo *topo,
                                                 struct golden_decision *res,
                                                 struct golden_err *err)
{
	const struct golden_recipe *win = NULL;
	int nties = 0;

	/* The set is sorted by name, so the first of equals wins a tie. */
	for (int i = 0; i < set->n; i++) {
		const struct golden_recipe *r = &set->recipes[i];

		if (!golden_recipe_matches(r, topo, NULL, 0))
			continue;
		if (!win || r->specificity > win->specificity) {
			win = r;
			nties = 0;
		} else if (r->specificity == win->specificity) {
			nties++;
		}
	}
	if (!win) {
		note_all(set, topo, NULL, 0, res);
		golden_err_set(err,
		               "no recipe matches this node (%d recipe%s checked); `golden recipe "
		               "list` shows why each does not",
		               set->n, set->n == 1 ? "" : "s");
		return NULL;
	}
	if (note_all(set, topo, win, nties, res) < 0) {
		golden_err_set(err, "out of memory");
		return NULL;
	}
	return win;
}
