/* Recipes and their templates: the input as a recipe file (loaded as the
 * plugin loads it, then matched and rendered over a real topology
 * fixture), and the input as one template (checked and expanded). The
 * topology comes from GOLDEN_FUZZ_TOPO / GOLDEN_FUZZ_SYSROOT (the run
 * script points them at the HGX H100 fixture); without them, an empty
 * topology. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "env/decision.h"
#include "env/recipe.h"
#include "t/fuzz/fuzz.h"
#include "topo/topo.h"

static struct golden_topo *topo;

static void quiet(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

static void load_topo(void)
{
	struct golden_topo_opts o = {.topology_xml = getenv("GOLDEN_FUZZ_TOPO"),
	                             .sysroot = getenv("GOLDEN_FUZZ_SYSROOT")};
	struct golden_err err = {{0}};

	topo = calloc(1, sizeof(*topo));
	if (!topo)
		abort();
	if (o.topology_xml && golden_topo_discover(&o, topo, &err) < 0)
		memset(topo, 0, sizeof(*topo));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct golden_load_opts opts = {false, quiet, NULL};
	struct golden_err err = {{0}};
	struct golden_recipe *r;
	char why[256], *s;

	if (!topo)
		load_topo();
	if (size > 65536)
		return 0;
	r = calloc(1, sizeof(*r));
	if (!r)
		abort();
	if (golden_recipe_load_file(fuzz_file("fuzz.json", data, size), &opts, r, &err) == 0) {
		struct golden_recipe_set set = {0};
		struct golden_decision res;

		golden_recipe_matches(r, topo, why, sizeof(why));
		golden_decision_init(&res);
		golden_recipe_render(r, topo, &res, &err);
		golden_decision_free(&res);
		if (golden_recipe_set_add(&set, r, &err) == 0) {
			golden_recipes_lint(&set, quiet, NULL);
			golden_decision_init(&res);
			golden_recipe_select(&set, topo, &res, &err);
			golden_decision_free(&res);
		}
		golden_recipe_set_free(&set);
	} else {
		golden_recipe_free(r);
		free(r);
	}
	s = fuzz_string(data, size);
	if (golden_recipe_template_check(s, why, sizeof(why)) >= 0) {
		char out[4096], fact[64];

		golden_recipe_template_expand(s, topo, out, sizeof(out), fact, sizeof(fact), why,
		                              sizeof(why));
	}
	free(s);
	return 0;
}
