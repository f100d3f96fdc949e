/* The cost of building a cluster's topology for Slurm: parse the
 * ibnetdiscover dump(s), read the gathered facts, build the switch tree and
 * the NVLink blocks, write topology.yaml. Runs the whole build RUNS times
 * and prints the median of each phase, the ratio of the build to parsing
 * the dump alone (its floor: the same run's baseline), and the peak
 * resident memory of the process.
 *
 * Usage: bench-topology-build FACTS.json RUNS DUMP...
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "fabric/block.h"
#include "fabric/facts.h"
#include "fabric/ibnet.h"
#include "fabric/topoconf.h"
#include "fabric/tree.h"
#include "util/strbuf.h"

enum { PARSE, FACTS, TREE, BLOCKS, WRITE, TOTAL, NPHASES };
static const char *const names[NPHASES] = {"parse ibnetdiscover", "read facts", "tree", "blocks",
                                           "write topology.yaml", "total"};

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

int main(int argc, char **argv)
{
	int runs = argc > 2 ? atoi(argv[2]) : 0;
	double *t[NPHASES];
	struct golden_slurm_version v = {26, 5};
	struct golden_ibnet_counts c = {0};
	int nodes = 0, leaves = 0, blocks = 0, placed = 0;
	size_t bytes = 0;
	struct rusage ru;

	if (argc < 4 || runs < 1) {
		fprintf(stderr, "usage: bench-topology-build FACTS.json RUNS DUMP...\n");
		return 2;
	}
	memset(t, 0, sizeof(t));
	for (int p = 0; p < NPHASES; p++)
		if (!(t[p] = calloc((size_t)runs, sizeof(double))))
			goto fail;
	for (int r = 0; r < runs; r++) {
		struct golden_ibnet net;
		struct golden_facts f;
		struct golden_tree tree;
		struct golden_blocks bl;
		struct golden_strbuf out = {0};
		struct golden_err err = {{0}};
		double t0 = now_ms(), t1, t2, t3, t4, t5;

		golden_ibnet_init(&net);
		for (int i = 3; i < argc; i++)
			if (golden_ibnet_load(&net, argv[i], &err) < 0) {
				fprintf(stderr, "%s\n", err.msg);
				golden_ibnet_free(&net);
				goto fail;
			}
		golden_ibnet_finish(&net);
		t1 = now_ms();
		if (golden_facts_load(argv[1], &f, &err) < 0) {
			fprintf(stderr, "%s\n", err.msg);
			golden_ibnet_free(&net);
			goto fail;
		}
		t2 = now_ms();
		if (golden_tree_build(&net, &f, GOLDEN_TREE_TOP, &tree, &err) < 0) {
			golden_facts_free(&f);
			golden_ibnet_free(&net);
			goto fail;
		}
		t3 = now_ms();
		if (golden_blocks_build(&f, &tree, NULL, 0, v, &bl, &err) < 0) {
			golden_tree_free(&tree);
			golden_facts_free(&f);
			golden_ibnet_free(&net);
			goto fail;
		}
		t4 = now_ms();
		golden_topoconf_yaml(&out, &tree, &bl, &f, true);
		t5 = now_ms();
		t[PARSE][r] = t1 - t0;
		t[FACTS][r] = t2 - t1;
		t[TREE][r] = t3 - t2;
		t[BLOCKS][r] = t4 - t3;
		t[WRITE][r] = t5 - t4;
		t[TOTAL][r] = t5 - t0;
		golden_ibnet_count(&net, &c);
		nodes = f.n;
		leaves = tree.nleaves;
		blocks = bl.n;
		placed = f.n - tree.nunplaced;
		bytes = out.len;
		golden_strbuf_free(&out);
		golden_blocks_free(&bl);
		golden_tree_free(&tree);
		golden_facts_free(&f);
		golden_ibnet_free(&net);
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("fabric: %d switches, %d host adapters, %d SHARP nodes, %d links; %d nodes "
	       "gathered, %d placed under %d leaves, %d NVLink blocks; topology.yaml %zu bytes\n",
	       c.switches, c.cas, c.sharp, c.links, nodes, placed, leaves, blocks, bytes);
	for (int p = 0; p < NPHASES; p++) {
		qsort(t[p], (size_t)runs, sizeof(double), cmp_double);
		printf("  %-22s median %8.2f ms  (min %.2f, max %.2f)\n", names[p], t[p][runs / 2],
		       t[p][0], t[p][runs - 1]);
	}
	printf("build / parse-only ratio: %.2f (median total over median parse, same run)\n",
	       t[TOTAL][runs / 2] / t[PARSE][runs / 2]);
	printf("peak resident memory: %ld MiB\n", ru.ru_maxrss / 1024);
	for (int p = 0; p < NPHASES; p++)
		free(t[p]);
	return 0;
fail:
	for (int p = 0; p < NPHASES; p++)
		free(t[p]);
	return 1;
}
