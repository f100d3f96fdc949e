/* The switch tree for topology/tree: see tree.h. */
#include <config.h>

#include "fabric/tree.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strutil.h"

#define MAX_LEVELS 20 /* Slurm gives up on deeper trees */
#define MAX_NOTES  40 /* per kind of note, then "and N more" */

/* ------------------------------------------------------------- helpers */

struct ivec {
	int *v;
	int n, cap;
};

static int ivec_push(struct ivec *a, int x)
{
	if (a->n == a->cap) {
		int cap = a->cap ? a->cap * 2 : 8;
		int *p = realloc(a->v, (size_t)cap * sizeof(int));

		if (!p)
			return -1;
		a->v = p;
		a->cap = cap;
	}
	a->v[a->n++] = x;
	return 0;
}

static bool ivec_has(const struct ivec *a, int x)
{
	for (int i = 0; i < a->n; i++)
		if (a->v[i] == x)
			return true;
	return false;
}

static int uf_find(int *p, int x)
{
	while (p[x] != x) {
		p[x] = p[p[x]];
		x = p[x];
	}
	return x;
}

static void uf_union(int *p, int a, int b)
{
	a = uf_find(p, a);
	b = uf_find(p, b);
	if (a != b)
		p[a < b ? b : a] = a < b ? a : b;
}

static __attribute__((format(printf, 2, 3))) int note(struct golden_tree *t, const char *fmt, ...)
{
	char buf[512], **p;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	p = realloc(t->notes, (size_t)(t->nnotes + 1) * sizeof(char *));
	if (!p)
		return -1;
	t->notes = p;
	if (!(t->notes[t->nnotes] = strdup(buf)))
		return -1;
	t->nnotes++;
	return 0;
}

static __attribute__((format(printf, 3, 4))) int unplaced(struct golden_tree *t, int node,
                                                          const char *fmt, ...)
{
	struct golden_tree_unplaced *p;
	va_list ap;

	p = realloc(t->unplaced, (size_t)(t->nunplaced + 1) * sizeof(*p));
	if (!p)
		return -1;
	t->unplaced = p;
	p[t->nunplaced].node = node;
	va_start(ap, fmt);
	vsnprintf(p[t->nunplaced].why, sizeof(p[t->nunplaced].why), fmt, ap);
	va_end(ap);
	t->nunplaced++;
	return 0;
}

/* Pair counts of leaves sharing a host: open addressing on (a << 32 | b). */
struct pairmap {
	uint64_t *key;
	int *count;
	size_t cap, n;
};

static int pair_add(struct pairmap *m, int a, int b)
{
	uint64_t k = (uint64_t)(unsigned)a << 32 | (unsigned)b;
	size_t i;

	k++; /* never 0 */
	if ((m->n + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 256;
		uint64_t *nk = calloc(cap, sizeof(*nk));
		int *nc = calloc(cap, sizeof(*nc));

		if (!nk || !nc) {
			free(nk);
			free(nc);
			return -1;
		}
		for (size_t j = 0; j < m->cap; j++)
			if (m->key[j]) {
				size_t h =
				    (size_t)(m->key[j] * 0x9e3779b97f4a7c15ULL >> 20) & (cap - 1);

				while (nk[h])
					h = (h + 1) & (cap - 1);
				nk[h] = m->key[j];
				nc[h] = m->count[j];
			}
		free(m->key);
		free(m->count);
		m->key = nk;
		m->count = nc;
		m->cap = cap;
	}
	for (i = (size_t)(k * 0x9e3779b97f4a7c15ULL >> 20) & (m->cap - 1);
	     m->key[i] && m->key[i] != k; i = (i + 1) & (m->cap - 1))
		;
	if (!m->key[i]) {
		m->key[i] = k;
		m->n++;
	}
	m->count[i]++;
	return 0;
}

/* ---------------------------------------------------------- switch names */

struct namesort {
	const char *name;
	int idx;
};

static int cmp_namesort(const void *a, const void *b)
{
	return strcmp(((const struct namesort *)a)->name, ((const struct namesort *)b)->name);
}

/* name[i] for every switch: the managed switch's own name when it is a safe
 * Slurm name and unique, else "S-<GUID>" as ibnetdiscover writes it. */
static char (*switch_names(const struct golden_ibnet *net))[72]
{
	char(*names)[72] = calloc((size_t)(net->n ? net->n : 1), sizeof(*names));
	struct namesort *ns = calloc((size_t)(net->n ? net->n : 1), sizeof(*ns));
	int k = 0;

	if (!names || !ns) {
		free(names);
		free(ns);
		return NULL;
	}
	for (int i = 0; i < net->n; i++) {
		if (net->nodes[i].type != GOLDEN_IBNET_SWITCH)
			continue;
		golden_ibnet_switch_name(&net->nodes[i], names[i], sizeof(names[i]));
		if (names[i][0])
			ns[k++] = (struct namesort){names[i], i};
	}
	qsort(ns, (size_t)k, sizeof(*ns), cmp_namesort);
	for (int j = 0; j < k; j++) {
		bool dup = (j > 0 && !strcmp(ns[j].name, ns[j - 1].name)) ||
		           (j + 1 < k && !strcmp(ns[j].name, ns[j + 1].name));

		if (dup)
			ns[j].idx = -ns[j].idx - 1; /* mark */
	}
	for (int j = 0; j < k; j++)
		if (ns[j].idx < 0)
			names[-ns[j].idx - 1][0] = '\0';
	for (int i = 0; i < net->n; i++)
		if (net->nodes[i].type == GOLDEN_IBNET_SWITCH && !names[i][0])
			snprintf(names[i], sizeof(names[i]), "S-%016llx",
			         (unsigned long long)net->nodes[i].guid);
	free(ns);
	return names;
}

/* ------------------------------------------------------------- the build */

struct build {
	const struct golden_ibnet *net;
	const struct golden_facts *facts;
	struct golden_tree *t;
	char (*swname)[72];
	struct ivec *host_sw;   /* facts node -> switches its ports are cabled to */
	int *leaf_idx;          /* ibnet switch -> leaf number, -1 */
	struct ivec leaves;     /* leaf number -> ibnet switch */
	struct ivec *leaf_host; /* leaf number -> distinct hosts */
	int *group;             /* leaf number -> group root */
	bool *claimed;          /* ibnet CA claimed by a node */
};

static int add_unit(struct golden_tree *t, const char *name, int level, int fabric)
{
	struct golden_tree_unit *u = realloc(t->units, (size_t)(t->nunits + 1) * sizeof(*u));

	if (!u)
		return -1;
	t->units = u;
	u = &t->units[t->nunits];
	memset(u, 0, sizeof(*u));
	golden_strlcpy(u->name, name, sizeof(u->name));
	u->level = level;
	u->fabric = fabric;
	return t->nunits++;
}

static int push_int(int **v, int *n, int x)
{
	int *p = realloc(*v, (size_t)(*n + 1) * sizeof(int));

	if (!p)
		return -1;
	*v = p;
	p[(*n)++] = x;
	return 0;
}

static void describe_ports(const struct golden_facts_node *fn, bool compute_only, char *buf,
                           size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int k = 0; k < fn->nports && o + 40 < len; k++) {
		const struct golden_facts_port *p = &fn->ports[k];
		int w;

		if (!p->ib || !p->guid || (compute_only && !p->compute))
			continue;
		w = snprintf(buf + o, len - o, "%s%s/%d 0x%016llx", o ? ", " : "", p->dev, p->num,
		             (unsigned long long)p->guid);
		if (w > 0)
			o += (size_t)w;
	}
}

/* Step 1: each node's ports -> the switches they are cabled to. */
static int match_hosts(struct build *b)
{
	const struct golden_facts *f = b->facts;
	const struct golden_ibnet *net = b->net;

	for (int i = 0; i < f->n; i++) {
		const struct golden_facts_node *fn = &f->nodes[i];
		bool compute = false, any = false;
		int missing = 0, uncabled = 0, b2b = 0, used = 0;
		char ports[200];

		for (int k = 0; k < fn->nports; k++)
			if (fn->ports[k].ib && fn->ports[k].guid) {
				any = true;
				compute |= fn->ports[k].compute;
			}
		if (!any) {
			if (unplaced(b->t, i,
			             fn->nports ? "no InfiniBand port GUID in its facts (RoCE or "
			                          "Ethernet only: tree placement needs InfiniBand)"
			                        : "no RDMA port in its facts") < 0)
				return -1;
			continue;
		}
		for (int k = 0; k < fn->nports; k++) {
			const struct golden_facts_port *p = &fn->ports[k];
			int pn = 0, c, r = -1;

			if (!p->ib || !p->guid || (compute && !p->compute))
				continue;
			used++;
			c = golden_ibnet_find_port(net, p->guid, &pn);
			if (c < 0) {
				missing++;
				continue;
			}
			b->claimed[c] = true;
			for (int q = 0; q < net->nodes[c].nports; q++)
				if (net->nodes[c].ports[q].num == pn)
					r = net->nodes[c].ports[q].remote;
			if (r < 0)
				uncabled++;
			else if (net->nodes[r].type != GOLDEN_IBNET_SWITCH)
				b2b++;
			else if (ivec_push(&b->host_sw[i], r) < 0)
				return -1;
		}
		if (b->host_sw[i].n)
			continue;
		describe_ports(fn, compute, ports, sizeof(ports));
		if (missing == used) {
			if (unplaced(b->t, i,
			             "none of its %s InfiniBand ports (%s) is in the ibnetdiscover "
			             "input: a fabric not discovered, or the ports are down",
			             compute ? "compute" : "", ports) < 0)
				return -1;
		} else if (unplaced(b->t, i,
		                    "its ports (%s) are in the fabric but not cabled to a switch "
		                    "(%d uncabled, %d back-to-back)",
		                    ports, uncabled, b2b) < 0) {
			return -1;
		}
	}
	return 0;
}

/* Step 2: leaves and their distinct hosts. */
static int find_leaves(struct build *b)
{
	for (int i = 0; i < b->facts->n; i++)
		for (int k = 0; k < b->host_sw[i].n; k++) {
			int sw = b->host_sw[i].v[k], l = b->leaf_idx[sw];

			struct ivec *hosts;

			if (l < 0) {
				struct ivec *grown;

				if (ivec_push(&b->leaves, sw) < 0)
					return -1;
				grown = realloc(b->leaf_host, (size_t)b->leaves.n * sizeof(*grown));
				if (!grown)
					return -1;
				b->leaf_host = grown;
				l = b->leaf_idx[sw] = b->leaves.n - 1;
				memset(&b->leaf_host[l], 0, sizeof(b->leaf_host[l]));
			}
			if (!b->leaf_host)
				return -1;
			hosts = &b->leaf_host[l];
			if (!ivec_has(hosts, i) && ivec_push(hosts, i) < 0)
				return -1;
		}
	return 0;
}

/* Step 3: leaves sharing more than half of the smaller one's hosts are the
 * rails of one unit. */
static int group_leaves(struct build *b)
{
	struct pairmap pm = {0};
	int nl = b->leaves.n;

	b->group = malloc((size_t)(nl ? nl : 1) * sizeof(int));
	if (!b->group)
		return -1;
	for (int l = 0; l < nl; l++)
		b->group[l] = l;
	for (int i = 0; i < b->facts->n; i++) {
		struct ivec ls = {0};

		for (int k = 0; k < b->host_sw[i].n; k++) {
			int l = b->leaf_idx[b->host_sw[i].v[k]];

			if (!ivec_has(&ls, l) && ivec_push(&ls, l) < 0) {
				free(ls.v);
				goto oom;
			}
		}
		for (int x = 0; x < ls.n; x++)
			for (int y = 0; y < ls.n; y++)
				if (ls.v[x] < ls.v[y] && pair_add(&pm, ls.v[x], ls.v[y]) < 0) {
					free(ls.v);
					goto oom;
				}
		free(ls.v);
	}
	for (size_t j = 0; j < pm.cap; j++) {
		uint64_t k;
		int a, c, small;

		if (!pm.key[j])
			continue;
		k = pm.key[j] - 1;
		a = (int)(k >> 32);
		c = (int)(k & 0xffffffffu);
		small =
		    b->leaf_host[a].n < b->leaf_host[c].n ? b->leaf_host[a].n : b->leaf_host[c].n;
		if (2 * pm.count[j] > small)
			uf_union(b->group, a, c);
	}
	free(pm.key);
	free(pm.count);
	return 0;
oom:
	free(pm.key);
	free(pm.count);
	return -1;
}

struct leafsort {
	const char *name;
	int root;
};

static int cmp_leafsort(const void *a, const void *b)
{
	return golden_natcmp(((const struct leafsort *)a)->name,
	                     ((const struct leafsort *)b)->name);
}

/* Step 4: one unit per group (named after its first leaf), each host under
 * the group holding most of its ports. */
static int make_leaf_units(struct build *b)
{
	struct golden_tree *t = b->t;
	int nl = b->leaves.n, *unit_of_root, ng = 0, nmis = 0;
	struct leafsort *ls = calloc((size_t)(nl ? nl : 1), sizeof(*ls));

	unit_of_root = malloc((size_t)(nl ? nl : 1) * sizeof(int));
	if (!ls || !unit_of_root) {
		free(ls);
		free(unit_of_root);
		return -1;
	}
	/* The group's name: its naturally first leaf. */
	for (int l = 0; l < nl; l++) {
		int r = uf_find(b->group, l);
		const char *nm = b->swname[b->leaves.v[l]];

		unit_of_root[l] = -1;
		if (!ls[r].name || golden_natcmp(nm, ls[r].name) < 0)
			ls[r].name = nm;
		ls[r].root = r;
	}
	for (int l = 0; l < nl; l++)
		if (uf_find(b->group, l) == l)
			ls[ng++] = ls[l];
	qsort(ls, (size_t)ng, sizeof(*ls), cmp_leafsort);
	for (int g = 0; g < ng; g++) {
		int root = ls[g].root, u;

		u = add_unit(t, ls[g].name, 0, b->net->nodes[b->leaves.v[root]].fabric);
		if (u < 0)
			goto oom;
		unit_of_root[root] = u;
		for (int l = 0; l < nl; l++)
			if (uf_find(b->group, l) == root &&
			    push_int(&t->units[u].members, &t->units[u].nmembers, b->leaves.v[l]) <
			        0)
				goto oom;
	}
	t->nleaves = t->nunits;
	for (int u = 0; u < t->nleaves; u++) {
		struct golden_tree_unit *un = &t->units[u];
		char list[400];
		size_t o = 0;

		if (un->nmembers < 2)
			continue;
		/* members in name order, for a person reading the header */
		for (int x = 1; x < un->nmembers; x++)
			for (int y = x; y > 0 && golden_natcmp(b->swname[un->members[y]],
			                                       b->swname[un->members[y - 1]]) < 0;
			     y--) {
				int tmp = un->members[y];

				un->members[y] = un->members[y - 1];
				un->members[y - 1] = tmp;
			}
		list[0] = '\0';
		for (int m = 0; m < un->nmembers && o + 80 < sizeof(list); m++) {
			int w = snprintf(list + o, sizeof(list) - o, "%s%s", m ? ", " : "",
			                 b->swname[un->members[m]]);

			if (w > 0)
				o += (size_t)w;
		}
		if (note(t, "leaf %s stands for %d switches sharing their hosts (rails): %s",
		         un->name, un->nmembers, list) < 0)
			goto oom;
	}
	/* Each host under one leaf. */
	for (int i = 0; i < b->facts->n; i++) {
		int best = -1, bestn = 0, total = b->host_sw[i].n;

		for (int k = 0; k < total; k++) {
			int u = unit_of_root[uf_find(b->group, b->leaf_idx[b->host_sw[i].v[k]])],
			    n = 0;

			for (int q = 0; q < total; q++)
				n += unit_of_root[uf_find(b->group,
				                          b->leaf_idx[b->host_sw[i].v[q]])] == u;
			if (n > bestn ||
			    (n == bestn && best >= 0 &&
			     golden_natcmp(t->units[u].name, t->units[best].name) < 0)) {
				best = u;
				bestn = n;
			}
		}
		t->leaf_of[i] = best;
		if (best < 0)
			continue;
		if (push_int(&t->units[best].nodes, &t->units[best].nnodes, i) < 0)
			goto oom;
		if (bestn < total && nmis++ < MAX_NOTES &&
		    note(t,
		         "%s: %d of its %d cabled ports reach switches outside its leaf %s "
		         "(miscabled rail?)",
		         b->facts->nodes[i].name, total - bestn, total, t->units[best].name) < 0)
			goto oom;
	}
	if (nmis > MAX_NOTES &&
	    note(t, "... and %d more nodes with ports outside their leaf", nmis - MAX_NOTES) < 0)
		goto oom;
	free(ls);
	free(unit_of_root);
	return 0;
oom:
	free(ls);
	free(unit_of_root);
	return -1;
}

/* Step 5: levels above the leaves, by growing each unit outwards through the
 * switch graph; units that claim the same switch, or touch, join. */
static int grow_levels(struct build *b, enum golden_tree_levels levels)
{
	const struct golden_ibnet *net = b->net;
	struct golden_tree *t = b->t;
	int *owner = malloc((size_t)(net->n ? net->n : 1) * sizeof(int));
	int *stamp = calloc((size_t)(net->n ? net->n : 1), sizeof(int));
	int *claimer = malloc((size_t)(net->n ? net->n : 1) * sizeof(int));
	int *parent = NULL, cap = 0, rc = -1;
	struct ivec active = {0}, *front = NULL;

	if (!owner || !stamp || !claimer)
		goto out;
	for (int i = 0; i < net->n; i++)
		owner[i] = -1;
	/* parent[] and front[] are indexed by unit and grow with them. */
	cap = t->nunits * 2 + 16;
	parent = malloc((size_t)cap * sizeof(int));
	front = calloc((size_t)cap, sizeof(*front));
	if (!parent || !front)
		goto out;
	for (int u = 0; u < cap; u++)
		parent[u] = -1;
	for (int u = 0; u < t->nleaves; u++) {
		parent[u] = -1;
		for (int m = 0; m < t->units[u].nmembers; m++) {
			owner[t->units[u].members[m]] = u;
			if (ivec_push(&front[u], t->units[u].members[m]) < 0)
				goto out;
		}
		if (ivec_push(&active, u) < 0)
			goto out;
	}
	for (int level = 1; level <= MAX_LEVELS; level++) {
		int na = active.n, *uf = malloc((size_t)(na ? na : 1) * sizeof(int));
		struct ivec *claims = calloc((size_t)(na ? na : 1), sizeof(*claims));
		bool changed = false;
		struct ivec next = {0};

		if (!uf || !claims) {
			free(uf);
			free(claims);
			goto out;
		}
		for (int a = 0; a < na; a++)
			uf[a] = a;
		for (int a = 0; a < na; a++) {
			const struct ivec *fr = &front[active.v[a]];

			for (int x = 0; x < fr->n; x++) {
				const struct golden_ibnet_node *sw = &net->nodes[fr->v[x]];

				for (int p = 0; p < sw->nports; p++) {
					int s = sw->ports[p].remote;

					if (s < 0 || net->nodes[s].type != GOLDEN_IBNET_SWITCH)
						continue;
					if (owner[s] >= 0) {
						int top = owner[s];

						while (parent[top] >= 0)
							top = parent[top];
						for (int c = 0; c < na; c++)
							if (active.v[c] == top &&
							    uf_find(uf, c) != uf_find(uf, a)) {
								uf_union(uf, c, a);
								changed = true;
							}
					} else if (stamp[s] != level) {
						stamp[s] = level;
						claimer[s] = a;
						changed = true;
						if (ivec_push(&claims[a], s) < 0)
							goto level_oom;
					} else if (uf_find(uf, claimer[s]) != uf_find(uf, a)) {
						uf_union(uf, claimer[s], a);
					}
				}
			}
		}
		if (!changed) {
			free(uf);
			for (int a = 0; a < na; a++)
				free(claims[a].v);
			free(claims);
			free(next.v);
			break;
		}
		for (int a = 0; a < na; a++) {
			struct ivec kids = {0}, sw = {0};
			int u;

			if (uf_find(uf, a) != a)
				continue;
			for (int c = 0; c < na; c++)
				if (uf_find(uf, c) == a) {
					if (ivec_push(&kids, active.v[c]) < 0)
						goto group_oom;
					for (int x = 0; x < claims[c].n; x++)
						if (ivec_push(&sw, claims[c].v[x]) < 0)
							goto group_oom;
				}
			if (!kids.n) {
				free(sw.v);
				continue;
			}
			if (kids.n == 1) {
				u = kids.v[0];
				free(kids.v);
				kids = (struct ivec){0};
				free(front[u].v);
				front[u] = sw;
				sw = (struct ivec){0};
			} else {
				const char *nm = NULL;
				char name[72];

				for (int x = 0; x < sw.n; x++)
					if (!nm || golden_natcmp(b->swname[sw.v[x]], nm) < 0)
						nm = b->swname[sw.v[x]];
				if (nm)
					golden_strlcpy(name, nm, sizeof(name));
				else
					snprintf(name, sizeof(name), "%.60s-group",
					         t->units[kids.v[0]].name);
				u = add_unit(t, name, level, t->units[kids.v[0]].fabric);
				if (u < 0)
					goto group_oom;
				if (u >= cap) {
					int ncap = cap * 2;
					int *np = realloc(parent, (size_t)ncap * sizeof(int));
					struct ivec *nf =
					    np ? realloc(front, (size_t)ncap * sizeof(*nf)) : NULL;

					if (np)
						parent = np;
					if (!np || !nf)
						goto group_oom;
					front = nf;
					memset(front + cap, 0, (size_t)(ncap - cap) * sizeof(*nf));
					for (int x = cap; x < ncap; x++)
						parent[x] = -1;
					cap = ncap;
				}
				parent[u] = -1;
				t->units[u].children = kids.v;
				t->units[u].nchildren = kids.n;
				kids = (struct ivec){0};
				for (int c = 0; c < t->units[u].nchildren; c++)
					parent[t->units[u].children[c]] = u;
				t->units[u].members = sw.v;
				t->units[u].nmembers = sw.n;
				front[u] = (struct ivec){0};
				for (int x = 0; x < sw.n; x++)
					if (ivec_push(&front[u], sw.v[x]) < 0) {
						sw = (struct ivec){0};
						goto group_oom;
					}
				sw = (struct ivec){0};
			}
			for (int x = 0; x < front[u].n; x++)
				owner[front[u].v[x]] = u;
			if (ivec_push(&next, u) < 0)
				goto group_oom;
			continue;
		group_oom:
			free(kids.v);
			free(sw.v);
			goto level_oom;
		}
		free(uf);
		for (int a = 0; a < na; a++)
			free(claims[a].v);
		free(claims);
		free(active.v);
		active = next;
		continue;
	level_oom:
		free(uf);
		for (int a = 0; a < na; a++)
			free(claims[a].v);
		free(claims);
		free(next.v);
		goto out;
	}
	/* Every unit's region top. */
	free(t->top_of);
	t->top_of = malloc((size_t)(t->nunits ? t->nunits : 1) * sizeof(int));
	if (!t->top_of)
		goto out;
	for (int u = 0; u < t->nunits; u++) {
		int top = u;

		while (top < cap && parent[top] >= 0)
			top = parent[top];
		t->top_of[u] = top;
	}
	(void)levels;
	rc = 0;
out:
	if (front)
		for (int u = 0; u < cap; u++)
			free(front[u].v);
	free(front);
	free(parent);
	free(active.v);
	free(owner);
	free(stamp);
	free(claimer);
	return rc;
}

/* GOLDEN_TREE_TOP: keep the leaves and, per region, one top switch whose
 * children are all the region's leaves. */
static int flatten_to_top(struct golden_tree *t)
{
	/* Fixed here (only notes are added meanwhile). */
	const int nunits = t->nunits, nleaves = t->nleaves;
	const size_t cnt = nunits > 0 ? (size_t)nunits : 1;
	bool *keep;

	if (nunits <= 0 || nleaves < 0 || nleaves > nunits)
		return 0;
	keep = malloc(cnt * sizeof(bool));
	if (!keep)
		return -1;
	for (int u = 0; u < nunits; u++)
		keep[u] = u < nleaves || t->top_of[u] == u;
	for (int u = nleaves; u < nunits; u++) {
		struct golden_tree_unit *un = &t->units[u];
		int *kids = NULL, nk = 0, above = 0;

		if (!keep[u])
			continue;
		for (int v = nleaves; v < nunits; v++)
			if (t->top_of[v] == u)
				above += t->units[v].nmembers;
		if (above > 1 &&
		    note(t, "top switch %s stands for the %d switches above its leaves", un->name,
		         above) < 0) {
			free(keep);
			return -1;
		}
		for (int l = 0; l < nleaves; l++)
			if (t->top_of[l] == u && push_int(&kids, &nk, l) < 0) {
				free(kids);
				free(keep);
				return -1;
			}
		free(un->children);
		un->children = kids;
		un->nchildren = nk;
		un->level = 1;
	}
	/* Drop the intermediate units: compact, remapping top_of. */
	{
		int *map = malloc(cnt * sizeof(int)), *top = malloc(cnt * sizeof(int)), o = 0;
		struct golden_tree_unit *units = malloc(cnt * sizeof(*units));

		if (!map || !top || !units) {
			free(map);
			free(top);
			free(units);
			free(keep);
			return -1;
		}
		for (int u = 0; u < nunits; u++) {
			map[u] = keep[u] ? o : -1;
			if (!keep[u])
				continue;
			top[o] = t->top_of[u]; /* still an old index */
			units[o++] = t->units[u];
		}
		for (int u = 0; u < o; u++) {
			t->top_of[u] = map[top[u]];
			for (int c = 0; c < units[u].nchildren; c++)
				units[u].children[c] = map[units[u].children[c]];
		}
		for (int u = 0; u < nunits; u++)
			if (!keep[u]) {
				free(t->units[u].children);
				free(t->units[u].members);
				free(t->units[u].nodes);
			}
		free(t->units);
		t->units = units;
		t->nunits = o;
		free(map);
		free(top);
	}
	free(keep);
	return 0;
}

/* Header notes: what was not a host, and adapters nobody claimed. */
static int fabric_notes(struct build *b)
{
	const struct golden_ibnet *net = b->net;
	int sharp = 0, routers = 0, unclaimed = 0, deflt = 0, listed = 0;
	char list[600];
	size_t o = 0;

	list[0] = '\0';
	for (int i = 0; i < net->n; i++) {
		const struct golden_ibnet_node *n = &net->nodes[i];

		if (n->type == GOLDEN_IBNET_ROUTER) {
			routers++;
			continue;
		}
		if (n->type != GOLDEN_IBNET_CA)
			continue;
		if (golden_ibnet_is_sharp(n)) {
			sharp++;
			continue;
		}
		if (b->claimed[i])
			continue;
		unclaimed++;
		if (golden_ibnet_desc_is_default(n->desc)) {
			deflt++;
			continue;
		}
		if (listed < 8 && o + 80 < sizeof(list)) {
			int w = snprintf(list + o, sizeof(list) - o, "%s\"%s\"", listed ? ", " : "",
			                 n->desc);

			if (w > 0)
				o += (size_t)w;
			listed++;
		}
	}
	if (sharp && note(b->t, "ignored %d SHARP aggregation node(s) (not hosts)", sharp) < 0)
		return -1;
	if (routers && note(b->t, "ignored %d router(s)", routers) < 0)
		return -1;
	if (unclaimed &&
	    note(b->t,
	         "%d host adapter(s) in the fabric belong to no gathered node (%d with a default "
	         "or placeholder description%s%s%s): nodes that did not answer, or hosts "
	         "outside Slurm (UFM, login)",
	         unclaimed, deflt, listed ? "; others: " : "", list,
	         unclaimed - deflt > listed ? ", ..." : "") < 0)
		return -1;
	return 0;
}

int golden_tree_build(const struct golden_ibnet *net, const struct golden_facts *facts,
                      enum golden_tree_levels levels, struct golden_tree *t, struct golden_err *err)
{
	struct build b = {net, facts, t, NULL, NULL, NULL, {0}, NULL, NULL, NULL};
	int rc = -1;

	memset(t, 0, sizeof(*t));
	t->nfacts = facts->n;
	t->leaf_of = malloc((size_t)(facts->n ? facts->n : 1) * sizeof(int));
	b.host_sw = calloc((size_t)(facts->n ? facts->n : 1), sizeof(*b.host_sw));
	b.leaf_idx = malloc((size_t)(net->n ? net->n : 1) * sizeof(int));
	b.claimed = calloc((size_t)(net->n ? net->n : 1), sizeof(bool));
	b.swname = switch_names(net);
	if (!t->leaf_of || !b.host_sw || !b.leaf_idx || !b.claimed || !b.swname)
		goto out;
	for (int i = 0; i < facts->n; i++)
		t->leaf_of[i] = -1;
	for (int i = 0; i < net->n; i++)
		b.leaf_idx[i] = -1;
	if (match_hosts(&b) < 0 || find_leaves(&b) < 0 || group_leaves(&b) < 0 ||
	    make_leaf_units(&b) < 0)
		goto out;
	if (grow_levels(&b, levels) < 0)
		goto out;
	if (levels == GOLDEN_TREE_TOP && flatten_to_top(t) < 0)
		goto out;
	if (fabric_notes(&b) < 0)
		goto out;
	rc = 0;
out:
	if (b.host_sw)
		for (int i = 0; i < facts->n; i++)
			free(b.host_sw[i].v);
	free(b.host_sw);
	if (b.leaf_host)
		for (int l = 0; l < b.leaves.n; l++)
			free(b.leaf_host[l].v);
	free(b.leaf_host);
	free(b.leaves.v);
	free(b.leaf_idx);
	free(b.group);
	free(b.claimed);
	free(b.swname);
	if (rc < 0) {
		golden_tree_free(t);
		return golden_err_set(err, "out of memory building the switch tree");
	}
	return 0;
}

void golden_tree_free(struct golden_tree *t)
{
	for (int u = 0; u < t->nunits; u++) {
		free(t->units[u].nodes);
		free(t->units[u].children);
		free(t->units[u].members);
	}
	free(t->units);
	free(t->leaf_of);
	free(t->top_of);
	free(t->unplaced);
	for (int i = 0; i < t->nnotes; i++)
		free(t->notes[i]);
	free(t->notes);
	memset(t, 0, sizeof(*t));
}
