#include <config.h>

#include "env/env.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "env/cache.h"
#include "topo/topo.h"

/* Outcomes that depend only on the inputs (and so are worth remembering)
 * versus transient ones (an unreadable file) that must be retried. */
enum outcome { OUT_OK, OUT_STABLE_ERR, OUT_TRANSIENT_ERR };

static enum outcome compute_fresh(const struct golden_env_request *req, struct golden_decision *res,
                                  struct golden_err *err)
{
	struct golden_topo_opts topts = {.topology_xml = req->topology,
	                                 .sysroot = req->sysroot,
	                                 .deadline_ms = req->discovery_deadline_ms};
	struct golden_load_opts lopts = {req->check_owner, req->diag, req->diag_arg};
	struct golden_recipe_set set = {0, NULL};
	const struct golden_recipe *r;
	struct golden_topo *topo = malloc(sizeof(*topo));
	struct golden_err sub = {{0}};
	enum outcome out = OUT_STABLE_ERR;

	if (!topo) {
		golden_err_set(err, "out of memory");
		return OUT_TRANSIENT_ERR;
	}
	if (golden_topo_discover(&topts, topo, &sub) < 0) {
		golden_err_set(err, "topology discovery failed: %s", sub.msg);
		out = OUT_TRANSIENT_ERR;
		goto done;
	}
	/* Notes travel with the decision (and its cache entry): explain mode and
	 * the plugin's verbose lines say where facts came from and why a
	 * fallback was taken, on every step, not only on the one that looked. */
	for (int i = 0; i < topo->nnotes && i < GOLDEN_TOPO_MAX_NOTES; i++)
		if (golden_decision_add_note(res, topo->notes[i].warning, topo->notes[i].text) <
		    0) {
			golden_err_set(err, "out of memory");
			out = OUT_TRANSIENT_ERR;
			goto done;
		}
	if (topo->ngpus == 0) {
		golden_err_set(err, "no NVIDIA GPU on this node (%s)", topo->source);
		goto done;
	}
	if (golden_recipes_load_dir(req->recipes_dir, &lopts, &set, &sub) < 0) {
		golden_err_set(err, "cannot load recipes: %s", sub.msg);
		out = OUT_TRANSIENT_ERR;
		goto done;
	}
	for (int i = 0; i < set.n; i++)
		for (int v = 0; v < set.recipes[i].nvars; v++)
			if (golden_decision_add_managed(res, set.recipes[i].vars[v].name) < 0) {
				golden_err_set(err, "out of memory");
				out = OUT_TRANSIENT_ERR;
				goto done;
			}
	if (req->recipe) {
		r = golden_recipe_find(&set, req->recipe);
		if (!r) {
			golden_err_set(err, "recipe '%s' not found in %s", req->recipe,
			               req->recipes_dir);
			goto done;
		}
		golden_decision_add_candidate(res, r->name, r->specificity, true,
		                              "forced with --golden-nccl=NAME");
	} else {
		r = golden_recipe_select(&set, topo, res, &sub);
		if (!r) {
			golden_err_set(err, "%s", sub.msg);
			goto done;
		}
	}
	if (golden_recipe_render(r, topo, res, &sub) < 0) {
		golden_err_set(err, "%s", sub.msg);
		goto done;
	}
	out = OUT_OK;
done:
	golden_recipe_set_free(&set);
	free(topo);
	return out;
}

int golden_env_compute(const struct golden_env_request *req, struct golden_decision *res,
                       struct golden_err *err)
{
	const char *request = req->recipe ? req->recipe : "auto";
	struct golden_cache_inputs in = {req->topology, req->sysroot, req->recipes_dir, request};
	char key[8192], path[PATH_MAX];
	bool cached = false;
	enum outcome out;

	if (req->cache_dir && golden_cache_dir_trusted(req->cache_dir) &&
	    golden_cache_key(&in, key, sizeof(key), NULL) == 0 &&
	    golden_cache_path(req->cache_dir, req->node, request, path, sizeof(path)) == 0) {
		char remembered[sizeof(err->msg)] = "";

		cached = true;
		if (golden_cache_load(path, key, res, remembered, sizeof(remembered))) {
			if (!remembered[0])
				return 0;
			return golden_err_set(err, "%s", remembered);
		}
	}
	out = compute_fresh(req, res, err);
	/* Best effort: a cache that cannot be written only costs time. */
	if (cached && out == OUT_OK)
		golden_cache_store(req->cache_dir, path, key, res, NULL);
	else if (cached && out == OUT_STABLE_ERR)
		golden_cache_store(req->cache_dir, path, key, NULL, err->msg);
	return out == OUT_OK ? 0 : -1;
}
