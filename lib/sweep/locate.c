#include "sweep/locate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int golden_locate_pairs(int n, int round, struct golden_locate_pair *out, int max)
{
	int k = 0;

	if (n < 2)
		return 0;
	if (n == 2)
		return round == 0 && max > 0
		           ? (out[0] = (struct golden_locate_pair){0, 1, -1, false}, 1)
		           : 0;
	/* The ring (i, i+1 mod n): every node meets two partners; even i in
	 * round 0, odd i in round 1. */
	for (int i = round; i < n && k < max; i += 2)
		out[k++] = (struct golden_locate_pair){i, (i + 1) % n, -1, false};
	return k;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	if (n <= 0)
		return 0;
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void golden_locate_judge(struct golden_locate_pair *pairs, int npairs, int nnodes, double tolerance,
                         double min_busbw, struct golden_locate_result *res)
{
	double *v = malloc(sizeof(double) * (size_t)(npairs + 1));
	int nv = 0, good_nodes = 0;

	memset(res, 0, sizeof(*res));
	res->nnodes = nnodes > GOLDEN_LOCATE_MAX_NODES ? GOLDEN_LOCATE_MAX_NODES : nnodes;
	for (int i = 0; v && i < npairs; i++)
		if (pairs[i].busbw >= 0)
			v[nv++] = pairs[i].busbw;
	res->reference = v ? median(v, nv) : 0;
	free(v);
	res->threshold = res->reference * (1 - tolerance);
	if (min_busbw > 0 && min_busbw > res->threshold)
		res->threshold = min_busbw;
	for (int i = 0; i < res->nnodes; i++)
		res->node[i].worst = -1;
	for (int i = 0; i < npairs; i++) {
		struct golden_locate_pair *p = &pairs[i];
		int ends[2] = {p->a, p->b};

		p->slow = p->busbw < res->threshold;
		res->nslow_pairs += p->slow;
		for (int e = 0; e < 2; e++) {
			struct golden_locate_node *nd;

			if (ends[e] < 0 || ends[e] >= res->nnodes)
				continue;
			nd = &res->node[ends[e]];
			nd->pairs++;
			nd->slow += p->slow;
			if (nd->worst < 0 || p->busbw < nd->worst)
				nd->worst = p->busbw;
		}
	}
	for (int i = 0; i < res->nnodes; i++)
		if (res->node[i].pairs && res->node[i].slow < res->node[i].pairs)
			good_nodes++;
	res->all_slow = npairs > 0 && res->nslow_pairs == npairs;
	/* A culprit is slow with every partner, met at least two of them, and
	 * some other node is fine: one bad partner cannot explain it. */
	for (int i = 0; i < res->nnodes; i++) {
		struct golden_locate_node *nd = &res->node[i];

		nd->culprit = nd->pairs >= 2 && nd->slow == nd->pairs && good_nodes > 0;
		res->nculprits += nd->culprit;
	}
}

int golden_locate_rails(struct golden_locate_rail *rails, int n, double tolerance, double *med)
{
	double v[GOLDEN_LOCATE_MAX_RAILS];
	int nv = 0, worst = -1;

	for (int i = 0; i < n && i < GOLDEN_LOCATE_MAX_RAILS; i++)
		if (rails[i].busbw >= 0)
			v[nv++] = rails[i].busbw;
	*med = median(v, nv);
	for (int i = 0; i < n; i++) {
		rails[i].slow = rails[i].busbw < *med * (1 - tolerance);
		if (rails[i].slow && (worst < 0 || rails[i].busbw < rails[worst].busbw))
			worst = i;
	}
	return worst;
}

void golden_locate_code(const char *rail, double ratio, char *buf, size_t len)
{
	int pct = (int)lround(100 * (ratio < 0 ? 0 : ratio > 9.99 ? 9.99 : ratio));

	if (rail && *rail && strlen(rail) <= 10)
		snprintf(buf, len, "%s busbw %d%%", rail, pct);
	else
		snprintf(buf, len, "nccl busbw %d%%", pct);
}
