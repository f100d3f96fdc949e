/* Environment computation cost on one fixture node: cold (no cache: hwloc
 * load, sysfs reads, recipe loading, selection, rendering) and warm (cache
 * hit, as every job step after the first on a node). Prints medians of the
 * wall time and of the CPU time spent (this process and the discovery
 * child): discovery runs in a child process, and on a loaded machine the
 * wall time of fork + wait is mostly waiting to be scheduled.
 *
 * Usage: bench-env TOPOLOGY.xml SYSROOT RECIPES_DIR [RUNS]
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "env/env.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* CPU time (user + system) of this process and its reaped children, ms. */
static double cpu_ms(void)
{
	struct rusage self, kids;
	double ms = 0;

	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	for (int i = 0; i < 2; i++) {
		const struct rusage *r = i ? &kids : &self;

		ms += (double)(r->ru_utime.tv_sec + r->ru_stime.tv_sec) * 1e3 +
		      (double)(r->ru_utime.tv_usec + r->ru_stime.tv_usec) / 1e3;
	}
	return ms;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *t, int runs)
{
	qsort(t, (size_t)runs, sizeof(*t), cmp_double);
	return t[runs / 2];
}

/* Median wall ms; *cpu: median CPU ms. */
static double median_ms(const struct golden_env_request *req, int runs, double *cpu)
{
	double *t = calloc((size_t)runs, sizeof(*t));
	double *c = calloc((size_t)runs, sizeof(*c));
	double m;

	if (!t || !c)
		exit(1);
	for (int i = 0; i < runs; i++) {
		struct golden_decision res;
		struct golden_err err = {{0}};
		double t0;

		double c0;

		golden_decision_init(&res);
		c0 = cpu_ms();
		t0 = now_ms();
		if (golden_env_compute(req, &res, &err) < 0) {
			fprintf(stderr, "bench-env: %s\n", err.msg);
			exit(1);
		}
		t[i] = now_ms() - t0;
		c[i] = cpu_ms() - c0;
		golden_decision_free(&res);
	}
	m = median(t, runs);
	if (cpu)
		*cpu = median(c, runs);
	free(t);
	free(c);
	return m;
}

int main(int argc, char **argv)
{
	char cache[] = "/tmp/golden-bench-XXXXXX";
	struct golden_env_request req;
	int runs = argc > 4 ? atoi(argv[4]) : 200;
	double cold, warm, cold_cpu, warm_cpu;

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
	cold = median_ms(&req, runs, &cold_cpu);
	req.cache_dir = cache;
	median_ms(&req, 1, NULL); /* fill */
	warm = median_ms(&req, runs, &warm_cpu);
	printf("env computation, %d runs each: cold median %.3f ms (CPU %.3f ms), warm (cache "
	       "hit) median %.4f ms (%.1f us; CPU %.3f ms)\n",
	       runs, cold, cold_cpu, warm, warm * 1e3, warm_cpu);
	{
		char path[512];

		snprintf(path, sizeof(path), "%s/bench.auto.json", cache);
		unlink(path);
		rmdir(cache);
	}
	return 0;
}
