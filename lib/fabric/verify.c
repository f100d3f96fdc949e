/* `golden topology check`: see verify.h. */
#include <config.h>

#include "fabric/verify.h"

#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "util/statefile.h"
#include "util/strbuf.h"
#include "util/strutil.h"
#include "util/jsonschema.h"

const char *const golden_verify_kinds[] = {
    "no-tree",      "missing-switch",   "multi-leaf", "wrong-leaf",    "split-leaf",
    "cross-fabric", "no-common-parent", "no-block",   "missing-block", "mixed-block",
    "split-domain", "fabric-state",     NULL};

#define FIX_REGEN "regenerate with golden topology build --write and run scontrol reconfigure"

static __attribute__((format(printf, 5, 6))) int mismatch(struct golden_verify *v, const char *kind,
                                                          const char *subject, const char *fix,
                                                          const char *fmt, ...)
{
	struct golden_mismatch *m = realloc(v->m, (size_t)(v->n + 1) * sizeof(*m));
	va_list ap;

	if (!m)
		return -1;
	v->m = m;
	m = &v->m[v->n++];
	memset(m, 0, sizeof(*m));
	golden_strlcpy(m->kind, kind, sizeof(m->kind));
	golden_strlcpy(m->subject, subject, sizeof(m->subject));
	golden_strlcpy(m->fix, fix, sizeof(m->fix));
	va_start(ap, fmt);
	vsnprintf(m->detail, sizeof(m->detail), fmt, ap);
	va_end(ap);
	return 0;
}

static __attribute__((format(printf, 2, 3))) int warning(struct golden_verify *v, const char *fmt,
                                                         ...)
{
	char buf[600], **w;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	w = realloc(v->warnings, (size_t)(v->nwarnings + 1) * sizeof(char *));
	if (!w)
		return -1;
	v->warnings = w;
	if (!(w[v->nwarnings] = strdup(buf)))
		return -1;
	v->nwarnings++;
	return 0;
}

/* ------------------------------------------------------- node universe */

struct ivec {
	int *v;
	int n, cap;
};

static int push(struct ivec *a, int x)
{
	for (int i = 0; i < a->n; i++)
		if (a->v[i] == x)
			return 0;
	if (a->n == a->cap) {
		int cap = a->cap ? a->cap * 2 : 4;
		int *p = realloc(a->v, (size_t)cap * sizeof(int));

		if (!p)
			return -1;
		a->v = p;
		a->cap = cap;
	}
	a->v[a->n++] = x;
	return 0;
}

struct ctx {
	const struct golden_facts *facts;
	const struct golden_tree *tree;
	const struct golden_blocks *blocks;
	const struct golden_showtopo *st;
	struct golden_verify *v;
	struct golden_hostlist uni; /* every node name, sorted (strcmp) */
	int *fidx;                  /* universe -> facts index, -1 */
	struct ivec *leaves;        /* universe -> Slurm leaf records */
	struct ivec *blks;          /* universe -> Slurm block records */
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int uidx(const struct ctx *c, const char *name)
{
	char *const *p =
	    c->uni.n ? bsearch(&name, c->uni.names, c->uni.n, sizeof(char *), cmp_str) : NULL;

	return p ? (int)(p - c->uni.names) : -1;
}

static int build_universe(struct ctx *c, const struct golden_hostlist *slurm_nodes)
{
	size_t o = 0;

	for (size_t i = 0; slurm_nodes && i < slurm_nodes->n; i++)
		if (golden_hostlist_add(&c->uni, slurm_nodes->names[i]) < 0)
			return -1;
	if (!slurm_nodes || !slurm_nodes->n) {
		for (int i = 0; i < c->facts->n; i++)
			if (golden_hostlist_add(&c->uni, c->facts->nodes[i].name) < 0)
				return -1;
		for (int r = 0; r < c->st->n; r++)
			for (size_t k = 0; k < c->st->r[r].nodes.n; k++)
				if (golden_hostlist_add(&c->uni, c->st->r[r].nodes.names[k]) < 0)
					return -1;
	}
	if (c->uni.n > 1)
		qsort(c->uni.names, c->uni.n, sizeof(char *), cmp_str);
	for (size_t i = 0; i < c->uni.n; i++) {
		if (o && !strcmp(c->uni.names[o - 1], c->uni.names[i])) {
			free(c->uni.names[i]);
			continue;
		}
		c->uni.names[o++] = c->uni.names[i];
	}
	c->uni.n = o;
	c->fidx = malloc((o ? o : 1) * sizeof(int));
	c->leaves = calloc(o ? o : 1, sizeof(*c->leaves));
	c->blks = calloc(o ? o : 1, sizeof(*c->blks));
	if (!c->fidx || !c->leaves || !c->blks)
		return -1;
	for (size_t i = 0; i < o; i++)
		c->fidx[i] = golden_facts_find(c->facts, c->uni.names[i]);
	for (int r = 0; r < c->st->n; r++) {
		const struct golden_showtopo_rec *rec = &c->st->r[r];

		if (rec->kind == GOLDEN_SHOWTOPO_SWITCH && rec->level != 0)
			continue;
		for (size_t k = 0; k < rec->nodes.n; k++) {
			int u = uidx(c, rec->nodes.names[k]);

			if (u < 0)
				continue; /* not a node of this cluster: Slurm ignores it too */
			if (push(rec->kind == GOLDEN_SHOWTOPO_SWITCH ? &c->leaves[u] : &c->blks[u],
			         r) < 0)
				return -1;
		}
	}
	return 0;
}

/* Up to max names of a list of universe nodes or facts nodes, for details. */
static void names_of(struct golden_strbuf *b, const struct golden_facts *f, const int *idx, int n,
                     int max)
{
	for (int i = 0; i < n && i < max; i++)
		golden_strbuf_printf(b, "%s%s", i ? "," : "", f->nodes[idx[i]].name);
	if (n > max)
		golden_strbuf_printf(b, ",... (%d)", n);
}

/* ---------------------------------------------------------------- tree */

static int slurm_root(const struct golden_showtopo *st, int r)
{
	for (int hops = 0; hops < 64; hops++) {
		int parent = -1;

		for (int p = 0; p < st->n && parent < 0; p++)
			if (st->r[p].kind == GOLDEN_SHOWTOPO_SWITCH &&
			    !strcmp(st->r[p].topology, st->r[r].topology) &&
			    golden_hostlist_has(&st->r[p].children, st->r[r].name))
				parent = p;
		if (parent < 0)
			return r;
		r = parent;
	}
	return r;
}

static int check_tree(struct ctx *c)
{
	const struct golden_tree *t = c->tree;
	const struct golden_showtopo *st = c->st;
	struct golden_verify *v = c->v;
	int *major = NULL, *root = NULL, rc = -1;
	bool *wrong = NULL;

	v->tree_checked = true;
	if (t && t->nleaves && !st->nswitches)
		return mismatch(v, "no-tree", "topology", FIX_REGEN,
		                "Slurm has no switches: TopologyPlugin is not topology/tree (or "
		                "topology.yaml has no tree), so no job is placed by the fabric; "
		                "golden found %d leaf switch(es)",
		                t->nleaves);
	wrong = calloc(c->uni.n ? c->uni.n : 1, sizeof(bool));
	major = malloc((size_t)(st->n ? st->n : 1) * sizeof(int));
	root = malloc((size_t)(st->n ? st->n : 1) * sizeof(int));
	if (!wrong || !major || !root)
		goto out;
	for (size_t u = 0; u < c->uni.n; u++) {
		const char *name = c->uni.names[u];
		int fi = c->fidx[u];

		if (c->leaves[u].n == 0 && st->nswitches) {
			char where[400] = "";

			if (t && fi >= 0 && t->leaf_of[fi] >= 0)
				snprintf(where, sizeof(where), "; golden places it under leaf %s",
				         t->units[t->leaf_of[fi]].name);
			if (mismatch(
			        v, "missing-switch", name, FIX_REGEN,
			        "%s is under no leaf switch: Slurm only warns (\"switches lack "
			        "access\") and then never schedules it well%s",
			        name, where) < 0)
				goto out;
		} else if (c->leaves[u].n > 1) {
			struct golden_strbuf b = {0};

			for (int k = 0; k < c->leaves[u].n; k++)
				golden_strbuf_printf(&b, "%s%s", k ? "," : "",
				                     st->r[c->leaves[u].v[k]].name);
			if (mismatch(
			        v, "multi-leaf", name, FIX_REGEN,
			        "%s is under %d leaf switches (%s): Slurm warns \"Multiple leaf "
			        "switches contain nodes\"; rails of one unit belong in one leaf",
			        name, c->leaves[u].n, golden_strbuf_str(&b)) < 0) {
				golden_strbuf_free(&b);
				goto out;
			}
			golden_strbuf_free(&b);
		}
	}
	if (!t) {
		rc = 0;
		goto out;
	}
	/* Each Slurm leaf is the discovered leaf most of its nodes are under. */
	for (int r = 0; r < st->n; r++) {
		const struct golden_showtopo_rec *rec = &st->r[r];
		int *cnt = calloc((size_t)(t->nunits ? t->nunits : 1), sizeof(int)), best = -1;

		major[r] = -1;
		root[r] = rec->kind == GOLDEN_SHOWTOPO_SWITCH ? slurm_root(st, r) : -1;
		if (!cnt)
			goto out;
		if (rec->kind == GOLDEN_SHOWTOPO_SWITCH && rec->level == 0)
			for (size_t k = 0; k < rec->nodes.n; k++) {
				int fi = golden_facts_find(c->facts, rec->nodes.names[k]);
				int l = fi >= 0 ? t->leaf_of[fi] : -1;

				if (l >= 0)
					cnt[l]++;
			}
		/* Most nodes win; on a tie the discovered leaf of the same name
		 * (a file golden wrote), else the first. */
		for (int l = 0; l < t->nleaves; l++)
			if (cnt[l] &&
			    (best < 0 || cnt[l] > cnt[best] ||
			     (cnt[l] == cnt[best] && !strcmp(t->units[l].name, rec->name))))
				best = l;
		major[r] = best;
		free(cnt);
	}
	for (size_t u = 0; u < c->uni.n; u++) {
		int fi = c->fidx[u], l = fi >= 0 ? t->leaf_of[fi] : -1;

		for (int k = 0; l >= 0 && k < c->leaves[u].n; k++) {
			int r = c->leaves[u].v[k], m = major[r];
			struct golden_strbuf with = {0};

			if (m < 0 || m == l || c->leaves[u].n > 1)
				continue;
			wrong[u] = true;
			names_of(&with, c->facts, t->units[l].nodes, t->units[l].nnodes, 8);
			if (mismatch(
			        v, "wrong-leaf", c->uni.names[u], FIX_REGEN,
			        "%s is under leaf %s in Slurm, whose other nodes are cabled to %s, "
			        "but it is cabled to %s (with %s): recabled since topology.conf "
			        "was written?",
			        c->uni.names[u], st->r[r].name, t->units[m].name, t->units[l].name,
			        golden_strbuf_str(&with)) < 0) {
				golden_strbuf_free(&with);
				goto out;
			}
			golden_strbuf_free(&with);
		}
	}
	/* One discovered leaf over several Slurm leaves. */
	for (int l = 0; l < t->nleaves; l++) {
		struct ivec in = {0};
		struct golden_strbuf b = {0};

		for (int k = 0; k < t->units[l].nnodes; k++) {
			int u = uidx(c, c->facts->nodes[t->units[l].nodes[k]].name);

			if (u < 0 || wrong[u])
				continue;
			for (int q = 0; q < c->leaves[u].n; q++)
				if (push(&in, c->leaves[u].v[q]) < 0) {
					free(in.v);
					goto out;
				}
		}
		if (in.n > 1) {
			for (int q = 0; q < in.n; q++)
				golden_strbuf_printf(&b, "%s%s", q ? "," : "", st->r[in.v[q]].name);
			if (mismatch(
			        v, "split-leaf", t->units[l].name, FIX_REGEN,
			        "the nodes of leaf %s are split over Slurm leaves %s: jobs with "
			        "--switches=1 cannot use all of them",
			        t->units[l].name, golden_strbuf_str(&b)) < 0) {
				free(in.v);
				golden_strbuf_free(&b);
				goto out;
			}
		}
		free(in.v);
		golden_strbuf_free(&b);
	}
	/* Slurm's roots against the fabric's connected regions. */
	for (int r = 0; r < st->n; r++) {
		struct ivec regions = {0};

		if (st->r[r].kind != GOLDEN_SHOWTOPO_SWITCH || root[r] != r)
			continue;
		for (size_t u = 0; u < c->uni.n; u++) {
			int fi = c->fidx[u];

			if (fi < 0 || t->leaf_of[fi] < 0 || !c->leaves[u].n ||
			    root[c->leaves[u].v[0]] != r)
				continue;
			if (push(&regions, t->top_of[t->leaf_of[fi]]) < 0) {
				free(regions.v);
				goto out;
			}
		}
		if (regions.n > 1 &&
		    mismatch(v, "cross-fabric", st->r[r].name, FIX_REGEN,
		             "Slurm switch %s is above nodes of %d parts of the fabric that cannot "
		             "reach each other (separate fabrics): jobs may be placed across them",
		             st->r[r].name, regions.n) < 0) {
			free(regions.v);
			goto out;
		}
		free(regions.v);
	}
	for (int top = 0; top < t->nunits; top++) {
		struct ivec roots = {0};
		struct golden_strbuf b = {0};

		if (t->top_of[top] != top)
			continue;
		for (size_t u = 0; u < c->uni.n; u++) {
			int fi = c->fidx[u];

			if (fi < 0 || t->leaf_of[fi] < 0 || t->top_of[t->leaf_of[fi]] != top ||
			    !c->leaves[u].n)
				continue;
			if (push(&roots, root[c->leaves[u].v[0]]) < 0) {
				free(roots.v);
				goto out;
			}
		}
		if (roots.n > 1) {
			for (int q = 0; q < roots.n; q++)
				golden_strbuf_printf(&b, "%s%s", q ? "," : "",
				                     st->r[roots.v[q]].name);
			if (mismatch(
			        v, "no-common-parent", t->units[top].name, FIX_REGEN,
			        "nodes connected through %s have no common switch in Slurm (tops "
			        "%s): jobs never span them unless TopologyParam=TopoOptional",
			        t->units[top].name, golden_strbuf_str(&b)) < 0) {
				free(roots.v);
				golden_strbuf_free(&b);
				goto out;
			}
		}
		free(roots.v);
		golden_strbuf_free(&b);
	}
	rc = 0;
out:
	free(wrong);
	free(major);
	free(root);
	return rc;
}

/* -------------------------------------------------------------- blocks */

static int check_blocks(struct ctx *c)
{
	const struct golden_blocks *bl = c->blocks;
	const struct golden_showtopo *st = c->st;
	struct golden_verify *v = c->v;
	int written = 0;

	v->block_checked = true;
	for (int i = 0; bl && i < bl->n; i++)
		written += !bl->b[i].left_out;
	if (written && !st->nblocks)
		return mismatch(v, "no-block", "topology", FIX_REGEN,
		                "Slurm has no blocks: TopologyPlugin is not topology/block (or "
		                "topology.yaml has no block topology), so jobs are not kept inside "
		                "an NVLink domain; golden found %d domain(s)",
		                written);
	for (size_t u = 0; u < c->uni.n; u++) {
		int fi = c->fidx[u];
		const struct golden_facts_node *n = fi >= 0 ? &c->facts->nodes[fi] : NULL;

		if (c->blks[u].n || !st->nblocks)
			continue;
		if (n && n->nvl_attached) {
			if (mismatch(
			        v, "missing-block", c->uni.names[u], FIX_REGEN,
			        "%s is in NVLink domain %s but in no block: Slurm warns (\"Blocks "
			        "lack access\") and never places it with its rack",
			        c->uni.names[u], n->domain) < 0)
				return -1;
		} else if (!n && warning(v, "%s is in no block and golden has no facts for it",
		                         c->uni.names[u]) < 0) {
			return -1;
		}
	}
	for (int r = 0; r < st->n; r++) {
		const struct golden_showtopo_rec *rec = &st->r[r];
		char first[64] = "";
		int ndom = 0;
		struct golden_strbuf b = {0};

		if (rec->kind != GOLDEN_SHOWTOPO_BLOCK)
			continue;
		for (size_t k = 0; k < rec->nodes.n; k++) {
			int fi = golden_facts_find(c->facts, rec->nodes.names[k]);
			const struct golden_facts_node *n = fi >= 0 ? &c->facts->nodes[fi] : NULL;

			if (!n || !n->nvl_attached)
				continue;
			if (!first[0]) {
				golden_strlcpy(first, n->domain, sizeof(first));
				ndom = 1;
			} else if (strcmp(first, n->domain)) {
				ndom++;
				golden_strbuf_printf(&b, "%s%s (%s)", b.len ? ", " : "", n->name,
				                     n->domain);
			}
		}
		if (ndom > 1 && mismatch(v, "mixed-block", rec->name, FIX_REGEN,
		                         "block %s mixes NVLink domains: most nodes are in %s, but "
		                         "%s: a segment there would leave its NVLink domain",
		                         rec->name, first, golden_strbuf_str(&b)) < 0) {
			golden_strbuf_free(&b);
			return -1;
		}
		golden_strbuf_free(&b);
	}
	/* One domain over several blocks. */
	for (int i = 0; bl && i < bl->n; i++) {
		struct ivec in = {0};
		struct golden_strbuf b = {0};

		for (int k = 0; k < bl->b[i].nnodes; k++) {
			int u = uidx(c, c->facts->nodes[bl->b[i].nodes[k]].name);

			for (int q = 0; u >= 0 && q < c->blks[u].n; q++)
				if (push(&in, c->blks[u].v[q]) < 0) {
					free(in.v);
					return -1;
				}
		}
		if (in.n > 1) {
			for (int q = 0; q < in.n; q++)
				golden_strbuf_printf(&b, "%s%s", q ? "," : "", st->r[in.v[q]].name);
			if (mismatch(v, "split-domain", bl->b[i].domain, FIX_REGEN,
			             "NVLink domain %s (%d nodes) is spread over blocks %s: a job "
			             "cannot have the whole rack as one segment",
			             bl->b[i].domain, bl->b[i].nnodes, golden_strbuf_str(&b)) < 0) {
				free(in.v);
				golden_strbuf_free(&b);
				return -1;
			}
		}
		free(in.v);
		golden_strbuf_free(&b);
	}
	return 0;
}

/* Registration states, whatever Slurm uses. */
static int check_fabric_states(struct ctx *c)
{
	for (int i = 0; i < c->facts->n; i++) {
		const struct golden_facts_node *n = &c->facts->nodes[i];
		bool zero_uuid_ok =
		    !strcmp(n->nvl_state, "completed") && !n->nvl_status && n->nvl_consistent;

		if (!n->nvl_read || n->nvl_gpus <= 0 || n->nvl_attached || zero_uuid_ok)
			continue;
		if (mismatch(c->v, "fabric-state", n->name,
		             "fix the NVLink fabric on the node (nvidia-fabricmanager, IMEX, "
		             "nvidia-smi -q Fabric); golden keeps it out of blocks until it is "
		             "COMPLETED",
		             "%s: %s", n->name, n->nvl_why[0] ? n->nvl_why : n->nvl_state) < 0)
			return -1;
	}
	return 0;
}

int golden_verify_run(const struct golden_facts *facts, const struct golden_tree *tree,
                      const struct golden_blocks *blocks, const struct golden_showtopo *actual,
                      const struct golden_hostlist *slurm_nodes, struct golden_verify *v,
                      struct golden_err *err)
{
	struct ctx c = {facts, tree, blocks, actual, v, {0}, NULL, NULL, NULL};
	int rc = -1;

	memset(v, 0, sizeof(*v));
	v->slurm_switches = actual->nswitches;
	v->slurm_blocks = actual->nblocks;
	if (build_universe(&c, slurm_nodes) < 0)
		goto out;
	v->nodes = (int)c.uni.n;
	if ((tree || actual->nswitches) && check_tree(&c) < 0)
		goto out;
	if ((blocks || actual->nblocks) && check_blocks(&c) < 0)
		goto out;
	if (check_fabric_states(&c) < 0)
		goto out;
	for (int i = 0; i < facts->nmissing; i++)
		if (warning(v, "%s did not answer the gather (%s): its placement is not checked",
		            facts->missing[i].name, facts->missing[i].why) < 0)
			goto out;
	for (int i = 0; tree && i < tree->nunplaced; i++)
		if (warning(v, "%s: golden cannot place it in the tree: %s",
		            facts->nodes[tree->unplaced[i].node].name, tree->unplaced[i].why) < 0)
			goto out;
	for (int i = 0; blocks && i < blocks->n; i++)
		if (blocks->b[i].left_out &&
		    warning(v, "block %s left out: %s", blocks->b[i].name, blocks->b[i].why) < 0)
			goto out;
	rc = 0;
out:
	for (size_t u = 0; u < c.uni.n; u++) {
		if (c.leaves)
			free(c.leaves[u].v);
		if (c.blks)
			free(c.blks[u].v);
	}
	free(c.leaves);
	free(c.blks);
	free(c.fidx);
	golden_hostlist_free(&c.uni);
	if (rc < 0)
		return golden_err_set(err, "out of memory comparing topologies");
	return 0;
}

void golden_verify_print(const struct golden_verify *v, FILE *out)
{
	fprintf(out,
	        "%d mismatch%s between Slurm's topology (%d switches, %d blocks) and the "
	        "discovered fabric (%d nodes)\n",
	        v->n, v->n == 1 ? "" : "es", v->slurm_switches, v->slurm_blocks, v->nodes);
	for (int i = 0; i < v->n; i++)
		fprintf(out, "  %-16s %s\n  %-16s fix: %s\n", v->m[i].kind, v->m[i].detail, "",
		        v->m[i].fix);
	if (v->nwarnings)
		fprintf(out, "warnings:\n");
	for (int i = 0; i < v->nwarnings; i++)
		fprintf(out, "  %s\n", v->warnings[i]);
}

struct json_object *golden_verify_json(const struct golden_verify *v)
{
	struct json_object *o = json_object_new_object(), *a = json_object_new_array();
	struct json_object *w = json_object_new_array(), *counts = json_object_new_object();

	golden_json_stamp(o, "golden-topology-check");
	for (int k = 0; golden_verify_kinds[k]; k++) {
		int n = 0;

		for (int i = 0; i < v->n; i++)
			n += !strcmp(v->m[i].kind, golden_verify_kinds[k]);
		json_object_object_add(counts, golden_verify_kinds[k], json_object_new_int(n));
	}
	for (int i = 0; i < v->n; i++) {
		struct json_object *m = json_object_new_object();

		json_object_object_add(m, "kind", json_object_new_string(v->m[i].kind));
		json_object_object_add(m, "subject", json_object_new_string(v->m[i].subject));
		json_object_object_add(m, "detail", json_object_new_string(v->m[i].detail));
		json_object_object_add(m, "fix", json_object_new_string(v->m[i].fix));
		json_object_array_add(a, m);
	}
	for (int i = 0; i < v->nwarnings; i++)
		json_object_array_add(w, json_object_new_string(v->warnings[i]));
	json_object_object_add(o, "mismatches", json_object_new_int(v->n));
	json_object_object_add(o, "by_kind", counts);
	json_object_object_add(o, "nodes", json_object_new_int(v->nodes));
	json_object_object_add(o, "slurm_switches", json_object_new_int(v->slurm_switches));
	json_object_object_add(o, "slurm_blocks", json_object_new_int(v->slurm_blocks));
	json_object_object_add(o, "tree_checked", json_object_new_boolean(v->tree_checked));
	json_object_object_add(o, "block_checked", json_object_new_boolean(v->block_checked));
	json_object_object_add(o, "details", a);
	json_object_object_add(o, "warnings", w);
	return o;
}

int golden_verify_metrics(const char *dir, const struct golden_verify *v, bool ok,
                          struct golden_err *err)
{
	struct golden_strbuf b = {0};
	char path[PATH_MAX];
	int rc;

	golden_strbuf_printf(&b,
	                     "# HELP slurm_golden_topology_check_success 1 if golden topology "
	                     "check could compare Slurm's topology with the fabric\n"
	                     "# TYPE slurm_golden_topology_check_success gauge\n"
	                     "slurm_golden_topology_check_success %d\n"
	                     "# HELP slurm_golden_topology_check_timestamp_seconds When the "
	                     "check last ran\n"
	                     "# TYPE slurm_golden_topology_check_timestamp_seconds gauge\n"
	                     "slurm_golden_topology_check_timestamp_seconds %lld\n",
	                     ok ? 1 : 0, (long long)time(NULL));
	if (ok) {
		/* One family by kind, no separate total: the total is
		 * sum(slurm_golden_topology_mismatches), and a second family
		 * holding the same count would be summed twice. */
		golden_strbuf_printf(&b, "# HELP slurm_golden_topology_mismatches Differences "
		                         "between Slurm's topology and the discovered fabric and "
		                         "NVLink domains, by kind\n"
		                         "# TYPE slurm_golden_topology_mismatches gauge\n");
		for (int k = 0; golden_verify_kinds[k]; k++) {
			int n = 0;

			for (int i = 0; i < v->n; i++)
				n += !strcmp(v->m[i].kind, golden_verify_kinds[k]);
			golden_strbuf_printf(&b,
			                     "slurm_golden_topology_mismatches{kind=\"%s\"} %d\n",
			                     golden_verify_kinds[k], n);
		}
		golden_strbuf_printf(&b,
		                     "# HELP slurm_golden_topology_warnings Nodes whose placement "
		                     "could not be checked\n"
		                     "# TYPE slurm_golden_topology_warnings gauge\n"
		                     "slurm_golden_topology_warnings %d\n",
		                     v->nwarnings);
	}
	if (b.oom || golden_path_join(path, sizeof(path), dir, "slurm_golden_topology.prom") < 0) {
		golden_strbuf_free(&b);
		return golden_err_set(err, "metrics: path or memory");
	}
	rc = golden_write_atomic_mode(path, b.p, b.len, 0644);
	golden_strbuf_free(&b);
	if (rc < 0)
		return golden_err_set(err, "cannot write %s", path);
	return 0;
}

void golden_verify_free(struct golden_verify *v)
{
	for (int i = 0; i < v->nwarnings; i++)
		free(v->warnings[i]);
	free(v->warnings);
	free(v->m);
	memset(v, 0, sizeof(*v));
}
