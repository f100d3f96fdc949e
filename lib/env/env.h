/* The one path from a node to its golden environment, shared by the SPANK
 * plugin, `golden env` and the benchmarks: cache lookup, topology discovery,
 * recipe loading, selection and rendering. */
#ifndef GOLDEN_ENV_ENV_H
#define GOLDEN_ENV_ENV_H

#include <stdbool.h>

#include "util/errbuf.h"
#include "env/recipe.h"
#include "env/decision.h"

struct golden_env_request {
	const char *topology;      /* hwloc XML, NULL = live */
	const char *sysroot;       /* NULL = real root */
	int discovery_deadline_ms; /* 0 = GOLDEN_TOPO_DEADLINE_MS */
	const char *recipes_dir;
	const char *recipe;    /* forced recipe name, NULL = most specific match */
	const char *cache_dir; /* NULL = no cache */
	const char *node;      /* names the cache file */
	bool check_owner;      /* recipe files must be root-owned, not g/o-writable */
	golden_diag_fn diag;   /* problems with individual recipe files */
	void *diag_arg;
};

/* Fill res with the environment for this node. Returns 0, or -1 with one
 * line in err when golden sets nothing here (no GPU, discovery failed, no
 * recipe matches, forced recipe unknown or not renderable). */
int golden_env_compute(const struct golden_env_request *req, struct golden_decision *res,
                       struct golden_err *err);

#endif
