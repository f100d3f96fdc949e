/* The one path from a node to its environment: discovery, recipes, cache. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "env/env.h"
#include "t/unit/tap.h"

static char fx[1024], recipes[1024];

static const char *fixture(const char *name, const char *part)
{
	static char buf[4][1200];
	static int next;
	char *b = buf[next++ % 4];

	snprintf(b, sizeof(buf[0]), "%s/%s/%s", fx, name, part);
	return b;
}

static int compute(const char *node, const char *recipe, const char *cache,
                   struct golden_decision *res, struct golden_err *err)
{
	struct golden_env_request req = {
	    .topology = fixture(node, "topo.xml"),
	    .sysroot = fixture(node, "root"),
	    .recipes_dir = recipes,
	    .recipe = recipe,
	    .cache_dir = cache,
	    .node = node,
	};

	memset(err, 0, sizeof(*err));
	golden_decision_init(res);
	return golden_env_compute(&req, res, err);
}

static const char *var(const struct golden_decision *res, const char *name)
{
	const struct golden_decision_var *v = golden_decision_getvar(res, name);

	return v ? v->value : NULL;
}

int main(void)
{
	const char *env_fx = getenv("GOLDEN_FIXTURES");
	const char *src = getenv("GOLDEN_SRCDIR");
	char cache[] = "/tmp/golden-test-cache-XXXXXX";
	char path[2048];
	struct golden_decision res;
	struct golden_err err;

	snprintf(fx, sizeof(fx), "%s", env_fx ? env_fx : "t/fixtures/out");
	snprintf(recipes, sizeof(recipes), "%s/recipes", src ? src : ".");
	if (!mkdtemp(cache))
		return 1;

	ok(compute("hgx-h100-ib", NULL, NULL, &res, &err) == 0, "hgx-h100-ib computes: %s",
	   err.msg);
	is(res.recipe, "hgx-h100-h200-ib", "most specific recipe wins");
	is(var(&res, "NCCL_IB_HCA"), "=mlx5_0,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_9,mlx5_10,mlx5_11",
	   "compute rails only, exact-match form");
	is(var(&res, "NCCL_SOCKET_IFNAME"), "=eno1", "bootstrap interface, exact-match form");
	ok(!res.from_cache, "no cache asked for");
	golden_decision_free(&res);

	ok(compute("hgx-h100-ib", "generic-ib", NULL, &res, &err) == 0, "forced recipe");
	is(res.recipe, "generic-ib", "forced recipe used");
	golden_decision_free(&res);

	ok(compute("hgx-h100-ib", "no-such-recipe", NULL, &res, &err) < 0 &&
	       strstr(err.msg, "recipe 'no-such-recipe' not found"),
	   "unknown forced recipe: %s", err.msg);
	golden_decision_free(&res);

	ok(compute("cpu-only", NULL, NULL, &res, &err) < 0 && strstr(err.msg, "no NVIDIA GPU"),
	   "no GPU: golden sets nothing: %s", err.msg);
	golden_decision_free(&res);

	ok(compute("does-not-exist", NULL, NULL, &res, &err) < 0 &&
	       strstr(err.msg, "topology discovery failed"),
	   "missing topology: %s", err.msg);
	golden_decision_free(&res);

	/* Cache: a miss fills it, the next call hits and gives the same answer. */
	ok(compute("hgx-h100-roce", NULL, cache, &res, &err) == 0 && !res.from_cache,
	   "first call computes");
	golden_decision_free(&res);
	snprintf(path, sizeof(path), "%s/hgx-h100-roce.auto.json", cache);
	{
		struct stat st;

		ok(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "cache file is 0600");
	}
	ok(compute("hgx-h100-roce", NULL, cache, &res, &err) == 0 && res.from_cache,
	   "second call is a cache hit");
	is(res.recipe, "hgx-roce", "cached recipe");
	is(var(&res, "NCCL_IB_GID_INDEX"), "3", "cached values");
	golden_decision_free(&res);

	/* A cache entry for another topology file is never used. */
	{
		char other[2048];

		snprintf(other, sizeof(other), "%s/hgx-h100-ib.auto.json", cache);
		if (rename(path, other) == 0) {
			ok(compute("hgx-h100-ib", NULL, cache, &res, &err) == 0 && !res.from_cache,
			   "key mismatch is a miss");
			is(res.recipe, "hgx-h100-h200-ib", "and the right answer");
			golden_decision_free(&res);
		}
	}

	/* A cache file others can write is ignored (could have been planted). */
	ok(compute("hgx-h100-roce", NULL, cache, &res, &err) == 0, "refill");
	golden_decision_free(&res);
	chmod(path, 0666);
	ok(compute("hgx-h100-roce", NULL, cache, &res, &err) == 0 && !res.from_cache,
	   "world-writable cache file ignored");
	golden_decision_free(&res);

	/* "No GPU" is remembered too, so CPU nodes do not rediscover per step. */
	ok(compute("cpu-only", NULL, cache, &res, &err) < 0, "cpu-only first");
	golden_decision_free(&res);
	snprintf(path, sizeof(path), "%s/cpu-only.auto.json", cache);
	ok(access(path, F_OK) == 0, "outcome stored");
	ok(compute("cpu-only", NULL, cache, &res, &err) < 0 && strstr(err.msg, "no NVIDIA GPU"),
	   "remembered outcome returned: %s", err.msg);
	golden_decision_free(&res);

	{
		char cmd[2200];
		const char *argv_rm[] = {"hgx-h100-roce", "hgx-h100-ib", "cpu-only"};

		for (int i = 0; i < 3; i++) {
			snprintf(cmd, sizeof(cmd), "%s/%s.auto.json", cache, argv_rm[i]);
			unlink(cmd);
		}
		rmdir(cache);
	}
	return done_testing();
}
