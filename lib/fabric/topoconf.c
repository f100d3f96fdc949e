/* Slurm's topology files: see topoconf.h. Syntax per version from Slurm's
 * topology.conf.5 / topology.yaml.5 and src/plugins/topology/{tree,block}
 * at the release tags (notes in /work/shared/reference/slurm-topology.md
 * and t/fixtures/slurm-topology/README.md). */
#include <config.h>

#include "fabric/topoconf.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/block.h"
#include "fabric/facts.h"
#include "fabric/tree.h"
#include "util/hostlist.h"

int golden_slurm_version_parse(const char *s, struct golden_slurm_version *v)
{
	const char *p = s;

	if (!s)
		return -1;
	while (*p && !isdigit((unsigned char)*p))
		p++;
	if (sscanf(p, "%d.%d", &v->major, &v->minor) != 2 || v->major < 1 || v->minor < 0)
		return -1;
	return 0;
}

bool golden_slurm_version_at_least(struct golden_slurm_version v, int major, int minor)
{
	return v.major > major || (v.major == major && v.minor >= minor);
}

bool golden_slurm_has_block(struct golden_slurm_version v)
{
	return golden_slurm_version_at_least(v, 23, 11);
}

bool golden_slurm_has_block_sizes(struct golden_slurm_version v)
{
	return golden_slurm_version_at_least(v, 24, 5);
}

bool golden_slurm_has_yaml(struct golden_slurm_version v)
{
	return golden_slurm_version_at_least(v, 25, 5);
}

bool golden_slurm_short_block_fatal(struct golden_slurm_version v)
{
	return golden_slurm_version_at_least(v, 24, 5) && !golden_slurm_version_at_least(v, 25, 5);
}

void golden_topoconf_comment(struct golden_strbuf *out, const char *const *lines)
{
	for (; lines && *lines; lines++)
		golden_strbuf_printf(out, "#%s%s\n", **lines ? " " : "", *lines);
}

/* The ranged node list of a unit or block. */
static char *node_list(const int *idx, int n, const struct golden_facts *f)
{
	char **names = malloc((size_t)(n ? n : 1) * sizeof(char *));
	char *r;

	if (!names)
		return NULL;
	for (int i = 0; i < n; i++)
		names[i] = f->nodes[idx[i]].name;
	r = golden_hostlist_ranged(names, (size_t)n);
	free(names);
	return r;
}

/* A leaf whose hosts all went to other leaves, or a switch above only such
 * leaves: not written (a Switches= naming it would be fatal). */
static bool unit_empty(const struct golden_tree *t, int u)
{
	if (u < t->nleaves)
		return t->units[u].nnodes == 0;
	for (int c = 0; c < t->units[u].nchildren; c++)
		if (!unit_empty(t, t->units[u].children[c]))
			return false;
	return true;
}

static char *child_list(const struct golden_tree *t, const struct golden_tree_unit *u)
{
	char **names = malloc((size_t)(u->nchildren ? u->nchildren : 1) * sizeof(char *));
	char *r;
	int n = 0;

	if (!names)
		return NULL;
	for (int i = 0; i < u->nchildren; i++)
		if (!unit_empty(t, u->children[i]))
			names[n++] = (char *)t->units[u->children[i]].name;
	r = golden_hostlist_ranged(names, (size_t)n);
	free(names);
	return r;
}

/* Regions in fabric order, then by their first leaf. */
static int *region_order(const struct golden_tree *t, int *n)
{
	int *tops = malloc((size_t)(t->nunits ? t->nunits : 1) * sizeof(int));

	*n = 0;
	if (!tops)
		return NULL;
	for (int u = 0; u < t->nunits; u++)
		if (t->top_of[u] == u)
			tops[(*n)++] = u;
	for (int i = 1; i < *n; i++)
		for (int j = i; j > 0 && t->units[tops[j]].fabric < t->units[tops[j - 1]].fabric;
		     j--) {
			int x = tops[j];

			tops[j] = tops[j - 1];
			tops[j - 1] = x;
		}
	return tops;
}

void golden_topoconf_tree(struct golden_strbuf *out, const struct golden_tree *t,
                          const struct golden_facts *f)
{
	int fabric = -2, ntops = 0, *tops = region_order(t, &ntops);

	/* Leaves grouped by region, each region's top after its leaves. */
	for (int i = 0; tops && i < ntops; i++) {
		int top = tops[i];
		const struct golden_tree_unit *tu = &t->units[top];
		char *list;

		if (unit_empty(t, top))
			continue;
		if (tu->fabric != fabric) {
			golden_strbuf_printf(out, "%s# fabric %d\n", fabric != -2 ? "\n" : "",
			                     tu->fabric);
			fabric = tu->fabric;
		}
		for (int l = 0; l < t->nleaves; l++) {
			if (t->top_of[l] != top || !t->units[l].nnodes)
				continue;
			list = node_list(t->units[l].nodes, t->units[l].nnodes, f);
			golden_strbuf_printf(out, "SwitchName=%s Nodes=%s\n", t->units[l].name,
			                     list ? list : "");
			free(list);
		}
		for (int u = t->nleaves; u < t->nunits; u++) {
			if (t->top_of[u] != top || unit_empty(t, u))
				continue;
			list = child_list(t, &t->units[u]);
			golden_strbuf_printf(out, "SwitchName=%s Switches=%s\n", t->units[u].name,
			                     list ? list : "");
			free(list);
		}
	}
	free(tops);
}

static void block_sizes_line(struct golden_strbuf *out, const struct golden_blocks *bl,
                             struct golden_slurm_version v)
{
	if (!bl->nsizes)
		return;
	if (golden_slurm_has_block_sizes(v)) {
		golden_strbuf_printf(out, "BlockSizes=");
		for (int i = 0; i < bl->nsizes; i++)
			golden_strbuf_printf(out, "%s%d", i ? "," : "", bl->sizes[i]);
		golden_strbuf_printf(out, "\n");
		return;
	}
	/* 23.11: levels are powers of two of the base block. */
	golden_strbuf_printf(out, "BlockLevels=");
	for (int i = 0; i < bl->nsizes; i++) {
		int lvl = 0;

		while ((bl->sizes[0] << lvl) < bl->sizes[i])
			lvl++;
		golden_strbuf_printf(out, "%s%d", i ? "," : "", lvl);
	}
	golden_strbuf_printf(out, "\n");
}

void golden_topoconf_block(struct golden_strbuf *out, const struct golden_blocks *bl,
                           const struct golden_facts *f, struct golden_slurm_version v)
{
	block_sizes_line(out, bl, v);
	for (int i = 0; i < bl->n; i++) {
		const struct golden_block *b = &bl->b[i];
		char *list = node_list(b->nodes, b->nnodes, f);

		if (b->left_out)
			golden_strbuf_printf(out, "# left out: BlockName=%s Nodes=%s (%s)\n",
			                     b->name, list ? list : "", b->why);
		else
			golden_strbuf_printf(out, "BlockName=%s Nodes=%s\n", b->name,
			                     list ? list : "");
		free(list);
	}
}

void golden_topoconf_yaml(struct golden_strbuf *out, const struct golden_tree *t,
                          const struct golden_blocks *bl, const struct golden_facts *f,
                          bool default_block)
{
	if (t) {
		int ntops = 0, *tops = region_order(t, &ntops);

		golden_strbuf_printf(out,
		                     "- topology: " GOLDEN_TOPO_YAML_TREE
		                     "\n  cluster_default: %s\n  tree:\n    switches:\n",
		                     !bl || !default_block ? "true" : "false");
		for (int i = 0; tops && i < ntops; i++) {
			int top = tops[i];

			for (int l = 0; l < t->nleaves; l++) {
				char *list;

				if (t->top_of[l] != top || !t->units[l].nnodes)
					continue;
				list = node_list(t->units[l].nodes, t->units[l].nnodes, f);
				golden_strbuf_printf(
				    out, "      - switch: \"%s\"\n        nodes: \"%s\"\n",
				    t->units[l].name, list ? list : "");
				free(list);
			}
			for (int u = t->nleaves; u < t->nunits; u++) {
				char *list;

				if (t->top_of[u] != top || unit_empty(t, u))
					continue;
				list = child_list(t, &t->units[u]);
				golden_strbuf_printf(
				    out, "      - switch: \"%s\"\n        children: \"%s\"\n",
				    t->units[u].name, list ? list : "");
				free(list);
			}
		}
		free(tops);
	}
	if (bl) {
		golden_strbuf_printf(out,
		                     "- topology: " GOLDEN_TOPO_YAML_BLOCK
		                     "\n  cluster_default: %s\n  block:\n",
		                     !t || default_block ? "true" : "false");
		if (bl->nsizes) {
			golden_strbuf_printf(out, "    block_sizes: [");
			for (int i = 0; i < bl->nsizes; i++)
				golden_strbuf_printf(out, "%s%d", i ? ", " : "", bl->sizes[i]);
			golden_strbuf_printf(out, "]\n");
		}
		golden_strbuf_printf(out, "    blocks:\n");
		for (int i = 0; i < bl->n; i++) {
			char *list;

			if (bl->b[i].left_out)
				continue;
			list = node_list(bl->b[i].nodes, bl->b[i].nnodes, f);
			golden_strbuf_printf(out, "      - block: \"%s\"\n        nodes: \"%s\"\n",
			                     bl->b[i].name, list ? list : "");
			free(list);
		}
	}
}

/* The next line that is neither blank nor a comment, trailing space cut. */
static const char *next_line(const char *p, size_t *len)
{
	while (p && *p) {
		const char *nl = strchr(p, '\n'), *s = p;
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		while (n && isspace((unsigned char)p[n - 1]))
			n--;
		while (*s == ' ' || *s == '\t')
			s++;
		if (n && *s != '#' && s < p + n) {
			*len = n;
			return p;
		}
		p = nl ? nl + 1 : NULL;
	}
	return NULL;
}

bool golden_topoconf_same(const char *a, const char *b)
{
	size_t la = 0, lb = 0;

	for (;;) {
		a = next_line(a, &la);
		b = next_line(b, &lb);
		if (!a || !b)
			return !a && !b;
		if (la != lb || memcmp(a, b, la))
			return false;
		a += la;
		b += lb;
	}
}
