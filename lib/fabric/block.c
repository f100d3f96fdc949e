/* Blocks for topology/block: see block.h. */
#include <config.h>

#include "fabric/block.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strutil.h"

int golden_blocks_parse_sizes(const char *s, int *sizes, int max, struct golden_err *err)
{
	int n = 0;
	const char *p = s;

	while (p && *p) {
		char *end;
		long v = strtol(p, &end, 10);

		if (end == p || v <= 0 || v > 1000000)
			return golden_err_set(
			    err,
			    "block sizes '%s': expected positive node counts such "
			    "as 18,36,72",
			    s);
		if (n >= max)
			return golden_err_set(err, "block sizes '%s': at most %d sizes", s, max);
		sizes[n++] = (int)v;
		p = end;
		if (*p == ',')
			p++;
		else if (*p)
			return golden_err_set(err, "block sizes '%s': unexpected '%c'", s, *p);
	}
	if (!n)
		return golden_err_set(err, "block sizes: empty");
	for (int i = 1; i < n; i++) {
		int r;

		if (sizes[i] <= sizes[i - 1] || sizes[i] % sizes[0])
			return golden_err_set(
			    err,
			    "block sizes '%s': each size must be larger than the one "
			    "before and a multiple of the first (%d)",
			    s, sizes[0]);
		r = sizes[i] / sizes[0];
		if ((r & (r - 1)) || r > 1 << 15)
			return golden_err_set(err,
			                      "block sizes '%s': %d is %d x %d; Slurm needs a "
			                      "power-of-two multiple of the base, at most 2^15",
			                      s, sizes[i], r, sizes[0]);
	}
	return n;
}

static int add_unplaced(struct golden_blocks *bl, int node, const char *why)
{
	struct golden_block_unplaced *p =
	    realloc(bl->unplaced, (size_t)(bl->nunplaced + 1) * sizeof(*p));

	if (!p)
		return -1;
	bl->unplaced = p;
	p[bl->nunplaced].node = node;
	golden_strlcpy(p[bl->nunplaced].why, why, sizeof(p[bl->nunplaced].why));
	bl->nunplaced++;
	return 0;
}

/* Why a node is not in any NVLink block, or NULL when it is in one. */
static const char *not_attached(const struct golden_facts_node *n, char *buf, size_t len)
{
	if (n->nvl_attached && n->domain[0])
		return NULL;
	if (!n->nvl_read)
		snprintf(buf, len, "no NVLink facts: %s",
		         n->nvl_why[0] ? n->nvl_why : "NVML did not answer");
	else
		snprintf(buf, len, "%s", n->nvl_why[0] ? n->nvl_why : "not in an NVLink domain");
	return buf;
}

struct order {
	int block;
	int top, leaf; /* the tree position of most of its nodes; big when none */
	const char *first;
};

static int cmp_order(const void *a, const void *b)
{
	const struct order *x = a, *y = b;

	if (x->top != y->top)
		return x->top < y->top ? -1 : 1;
	if (x->leaf != y->leaf)
		return x->leaf < y->leaf ? -1 : 1;
	return golden_natcmp(x->first, y->first);
}

/* The most common value in v[0..n) (ties: the smallest). */
static int mode(const int *v, int n)
{
	int best = -1, bestc = 0;

	for (int i = 0; i < n; i++) {
		int c = 0;

		for (int k = 0; k < n; k++)
			c += v[k] == v[i];
		if (c > bestc || (c == bestc && v[i] < best)) {
			best = v[i];
			bestc = c;
		}
	}
	return best;
}

static int order_blocks(struct golden_blocks *bl, const struct golden_facts *f,
                        const struct golden_tree *tree)
{
	struct order *o = calloc((size_t)(bl->n ? bl->n : 1), sizeof(*o));
	struct golden_block *sorted = malloc((size_t)(bl->n ? bl->n : 1) * sizeof(*sorted));
	int *tmp = NULL;

	if (!o || !sorted) {
		free(o);
		free(sorted);
		return -1;
	}
	for (int i = 0; i < bl->n; i++) {
		const struct golden_block *b = &bl->b[i];
		int nl = 0;

		o[i] = (struct order){i, 1 << 30, 1 << 30, f->nodes[b->nodes[0]].name};
		if (!tree)
			continue;
		{
			int *grown = realloc(tmp, (size_t)b->nnodes * sizeof(int));

			if (!grown) {
				free(tmp);
				free(o);
				free(sorted);
				return -1;
			}
			tmp = grown;
		}
		for (int k = 0; k < b->nnodes; k++)
			if (tree->leaf_of[b->nodes[k]] >= 0)
				tmp[nl++] = tree->leaf_of[b->nodes[k]];
		if (nl) {
			o[i].leaf = mode(tmp, nl);
			o[i].top = tree->top_of[o[i].leaf];
		}
	}
	free(tmp);
	qsort(o, (size_t)bl->n, sizeof(*o), cmp_order);
	for (int i = 0; i < bl->n; i++)
		sorted[i] = bl->b[o[i].block];
	memcpy(bl->b, sorted, (size_t)bl->n * sizeof(*sorted));
	free(o);
	free(sorted);
	return 0;
}

/* A readable, stable block name: "nvl" + the first 8 hex digits of the
 * cluster UUID + the clique; longer when two domains would collide. */
static void name_blocks(struct golden_blocks *bl)
{
	for (int digits = 8; digits <= 32; digits += 8) {
		bool clash = false;

		for (int i = 0; i < bl->n; i++) {
			const char *d = bl->b[i].domain, *dot = strchr(d, '.');
			char hex[40];
			int k = 0;

			for (const char *p = d; *p && p != dot && k < digits; p++)
				if (isxdigit((unsigned char)*p))
					hex[k++] = *p;
			hex[k] = '\0';
			snprintf(bl->b[i].name, sizeof(bl->b[i].name), "nvl-%s-%s", hex,
			         dot ? dot + 1 : "0");
		}
		for (int i = 0; i < bl->n && !clash; i++)
			for (int j = i + 1; j < bl->n && !clash; j++)
				clash = !strcmp(bl->b[i].name, bl->b[j].name);
		if (!clash)
			return;
	}
}

static void infer_sizes(struct golden_blocks *bl)
{
	int *counts = malloc((size_t)(bl->n ? bl->n : 1) * sizeof(int)), base = 0, best = 0;

	if (!counts || !bl->n) {
		free(counts);
		return;
	}
	/* The most common rack size, the larger on a tie: a rack that lost
	 * trays should not shrink everyone's base block. */
	for (int i = 0; i < bl->n; i++)
		counts[i] = bl->b[i].nnodes;
	for (int i = 0; i < bl->n; i++) {
		int c = 0;

		for (int k = 0; k < bl->n; k++)
			c += counts[k] == counts[i];
		if (c > best || (c == best && counts[i] > base)) {
			best = c;
			base = counts[i];
		}
	}
	free(counts);
	bl->nsizes = 0;
	for (int k = 1; k <= bl->n && bl->nsizes < GOLDEN_BLOCK_MAX_SIZES; k *= 2)
		bl->sizes[bl->nsizes++] = base * k;
}

int golden_blocks_build(const struct golden_facts *facts, const struct golden_tree *tree,
                        const int *sizes, int nsizes, struct golden_slurm_version ver,
                        struct golden_blocks *bl, struct golden_err *err)
{
	char why[240];

	memset(bl, 0, sizeof(*bl));
	if (!golden_slurm_has_block(ver))
		return golden_err_set(
		    err,
		    "Slurm %d.%02d has no topology/block (added in 23.11): use the "
		    "tree",
		    ver.major, ver.minor);
	bl->block_of = malloc((size_t)(facts->n ? facts->n : 1) * sizeof(int));
	if (!bl->block_of)
		goto oom;
	for (int i = 0; i < facts->n; i++) {
		const struct golden_facts_node *n = &facts->nodes[i];
		const char *w = not_attached(n, why, sizeof(why));
		int b = -1;

		bl->block_of[i] = -1;
		if (w) {
			if (add_unplaced(bl, i, w) < 0)
				goto oom;
			continue;
		}
		for (int k = 0; k < bl->n && b < 0; k++)
			if (!strcmp(bl->b[k].domain, n->domain))
				b = k;
		if (b < 0) {
			struct golden_block *nb = realloc(bl->b, (size_t)(bl->n + 1) * sizeof(*nb));

			if (!nb)
				goto oom;
			bl->b = nb;
			b = bl->n++;
			memset(&bl->b[b], 0, sizeof(bl->b[b]));
			golden_strlcpy(bl->b[b].domain, n->domain, sizeof(bl->b[b].domain));
		}
		{
			int *p =
			    realloc(bl->b[b].nodes, (size_t)(bl->b[b].nnodes + 1) * sizeof(int));

			if (!p)
				goto oom;
			bl->b[b].nodes = p;
			p[bl->b[b].nnodes++] = i; /* facts are sorted: so are the nodes */
		}
	}
	if (order_blocks(bl, facts, tree) < 0)
		goto oom;
	for (int k = 0; k < bl->n; k++)
		for (int j = 0; j < bl->b[k].nnodes; j++)
			bl->block_of[bl->b[k].nodes[j]] = k;
	name_blocks(bl);
	if (nsizes > 0) {
		memcpy(bl->sizes, sizes, (size_t)nsizes * sizeof(int));
		bl->nsizes = nsizes;
		bl->sizes_given = true;
	} else {
		infer_sizes(bl);
	}
	if (golden_slurm_short_block_fatal(ver) && bl->nsizes)
		for (int k = 0; k < bl->n; k++) {
			struct golden_block *b = &bl->b[k];

			if (b->nnodes >= bl->sizes[0])
				continue;
			b->left_out = true;
			snprintf(
			    b->why, sizeof(b->why),
			    "%d nodes < base block size %d: Slurm %d.%02d refuses such a block "
			    "(25.05+ accepts it)",
			    b->nnodes, bl->sizes[0], ver.major, ver.minor);
			for (int j = 0; j < b->nnodes; j++) {
				bl->block_of[b->nodes[j]] = -1;
				if (add_unplaced(bl, b->nodes[j], b->why) < 0)
					goto oom;
			}
		}
	return 0;
oom:
	golden_blocks_free(bl);
	return golden_err_set(err, "out of memory building blocks");
}

void golden_blocks_free(struct golden_blocks *bl)
{
	for (int i = 0; i < bl->n; i++)
		free(bl->b[i].nodes);
	free(bl->b);
	free(bl->unplaced);
	free(bl->block_of);
	memset(bl, 0, sizeof(*bl));
}
