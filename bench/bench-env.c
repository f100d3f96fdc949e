/* Environment computation cost on one fixture node: cold (no cache: hwloc
 * load, sysfs reads, recipe loading, selection, rendering) and warm (cache
 * hit, as every job step after the first on a node). Prints medians.
 *
 * Usage: bench-env TOPOLOGY.xml SYSROOT RECIPES_DIR [RUNS]
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "env/env.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median_ms(const struct golden_env_request *req, int runs)
{
	double *t = calloc((size_t)runs, sizeof(*t));
	double m;

	if (!t)
		exit(1);
	for (int i = 0; i < runs; i++) {
		struct golden_decision res;
		struct golden_err err = {{0}};
		double t0;

		golden_decision_init(&res);
		t0 = now_ms();
		if (golden_env_compute(req, &res, &err) < 0) {
			fprintf(stderr, "bench-env: %s\n", err.msg);
			exit(1);
		}
		t[i] = now_ms() - t0;
		golden_decision_free(&res);
	}
	qsort(t, (size_t)runs, sizeof(*t), cmp_double);
	m = t[runs / 2];
	free(t);
	return m;
}

int main(int argc, char **argv)
{
	char cache[] = "/tmp/golden-bench-XXXXXX";
	struct golden_env_request req;
	int runs = argc > 4 ? atoi(argv[4]) : 200;
	double cold, warm;

	if (argc < 4 || runs < 1) {
		fprintf(stderr, "usage: bench-env TOPOLOGY.xml SYSROOT RECIPES_DIR [RUNS]\n");
		return 2;
	}
	if (!mkdtemp(cache)) {
		perror("mkdtemp");
		return 1;
	}
	req = (struct golden_env_request){.topology = argv[1],
	                                  .sysroot = argv[2],
	                                  .recipes_dir = argv[3],
	                                  .node = "bench",
	                                  .check_owner = false};
	cold = median_ms(&req, runs);
	req.cache_dir = cache;
	median_ms(&req, 1); /* fill */
	warm = median_ms(&req, runs);
	printf(
	    "env computation, %d runs each: cold median %.3f ms, warm (cache hit) median %.4f ms "
	    "(%.1f us)\n",
	    runs, cold, warm, warm * 1e3);
	{
		char path[512];

		snprintf(path, sizeof(path), "%s/bench.auto.json", cache);
		unlink(path);
		rmdir(cache);
	}
	return 0;
}
