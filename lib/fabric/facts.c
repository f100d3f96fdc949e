/* Gathered node facts: see facts.h. */
#include <config.h>

#include "fabric/facts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "util/strutil.h"
#include "util/jsonschema.h"

int golden_facts_parse_guid(const char *s, uint64_t *out)
{
	char *end;

	if (!s || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || !s[2] || strlen(s) > 18)
		return -1;
	*out = strtoull(s + 2, &end, 16);
	return *end ? -1 : 0;
}

static const char *str(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static bool boolean(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_get_boolean(v);
}

static int integer(struct json_object *o, const char *key, int def)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !v)
		return def;
	return json_object_get_int(v);
}

static int add_port(struct golden_facts_node *n, const struct golden_facts_port *p)
{
	struct golden_facts_port *np = realloc(n->ports, (size_t)(n->nports + 1) * sizeof(*np));

	if (!np)
		return -1;
	n->ports = np;
	n->ports[n->nports++] = *p;
	return 0;
}

static int read_nics(struct golden_facts_node *n, struct json_object *topo, const char *name,
                     struct golden_err *err)
{
	struct json_object *nics, *nic, *ports, *port;

	if (!json_object_object_get_ex(topo, "nics", &nics) ||
	    !json_object_is_type(nics, json_type_array))
		return golden_err_set(err, "node %s: no \"nics\" array (not golden topo JSON?)",
		                      name);
	for (size_t i = 0; i < json_object_array_length(nics); i++) {
		const char *dev, *cls, *kind;

		nic = json_object_array_get_idx(nics, i);
		dev = str(nic, "name");
		cls = str(nic, "class");
		kind = str(nic, "kind");
		if (!dev || !kind || !strcmp(kind, "eth"))
			continue;
		if (!json_object_object_get_ex(nic, "ports", &ports) ||
		    !json_object_is_type(ports, json_type_array))
			continue;
		for (size_t k = 0; k < json_object_array_length(ports); k++) {
			struct golden_facts_port p;
			const char *ll, *g;
			struct json_object *rate;

			memset(&p, 0, sizeof(p));
			port = json_object_array_get_idx(ports, k);
			golden_strlcpy(p.dev, dev, sizeof(p.dev));
			p.num = integer(port, "port", 0);
			ll = str(port, "link_layer");
			p.ib = ll && !strcmp(ll, "InfiniBand");
			p.compute = cls && !strcmp(cls, "compute");
			p.active = integer(port, "state", -1) == 4;
			if (json_object_object_get_ex(port, "rate_gbps", &rate))
				p.rate_gbps = json_object_get_double(rate);
			g = str(port, "port_guid");
			if (g && golden_facts_parse_guid(g, &p.guid) < 0)
				return golden_err_set(err,
				                      "node %s: %s port %d: bad port_guid '%s'",
				                      name, dev, p.num, g);
			g = str(port, "subnet_prefix");
			if (g && golden_facts_parse_guid(g, &p.prefix) < 0)
				return golden_err_set(err,
				                      "node %s: %s port %d: bad subnet_prefix '%s'",
				                      name, dev, p.num, g);
			if (add_port(n, &p) < 0)
				return golden_err_set(err, "out of memory");
		}
	}
	return 0;
}

static void read_nvlink(struct golden_facts_node *n, struct json_object *topo)
{
	struct json_object *nv;
	const char *s;

	if (!json_object_object_get_ex(topo, "nvlink", &nv) ||
	    !json_object_is_type(nv, json_type_object)) {
		golden_strlcpy(n->nvl_why, "no NVLink facts (golden topo too old?)",
		               sizeof(n->nvl_why));
		return;
	}
	n->nvl_read = boolean(nv, "read");
	n->nvl_gpus = integer(nv, "gpus", 0);
	n->nvl_status = integer(nv, "status", 0);
	n->nvl_consistent = boolean(nv, "consistent");
	n->nvl_attached = boolean(nv, "attached");
	if ((s = str(nv, "state")))
		golden_strlcpy(n->nvl_state, s, sizeof(n->nvl_state));
	if ((s = str(nv, "domain")) && n->nvl_attached)
		golden_strlcpy(n->domain, s, sizeof(n->domain));
	if ((s = str(nv, "why")))
		golden_strlcpy(n->nvl_why, s, sizeof(n->nvl_why));
}

int golden_facts_add_node(struct golden_facts *f, const char *name, struct json_object *topo,
                          struct golden_err *err)
{
	struct golden_facts_node *nodes, *n;

	if (!golden_is_safe_name(name, GOLDEN_FACTS_NAME - 1))
		return golden_err_set(err, "node name '%s' is not a plain Slurm node name", name);
	if (!json_object_is_type(topo, json_type_object))
		return golden_err_set(err, "node %s: expected an object", name);
	if (f->n == f->cap) {
		int cap = f->cap ? f->cap * 2 : 64;

		nodes = realloc(f->nodes, (size_t)cap * sizeof(*nodes));
		if (!nodes)
			return golden_err_set(err, "out of memory");
		f->nodes = nodes;
		f->cap = cap;
	}
	n = &f->nodes[f->n];
	memset(n, 0, sizeof(*n));
	golden_strlcpy(n->name, name, sizeof(n->name));
	f->n++;
	if (read_nics(n, topo, name, err) < 0)
		return -1;
	read_nvlink(n, topo);
	return 0;
}

int golden_facts_add_missing(struct golden_facts *f, const char *name, const char *why)
{
	struct golden_facts_missing *m =
	    realloc(f->missing, (size_t)(f->nmissing + 1) * sizeof(*m));

	if (!m)
		return -1;
	f->missing = m;
	golden_strlcpy(m[f->nmissing].name, name, sizeof(m[f->nmissing].name));
	golden_strlcpy(m[f->nmissing].why, why, sizeof(m[f->nmissing].why));
	f->nmissing++;
	return 0;
}

static int cmp_node(const void *a, const void *b)
{
	return golden_natcmp(((const struct golden_facts_node *)a)->name,
	                     ((const struct golden_facts_node *)b)->name);
}

static int cmp_missing(const void *a, const void *b)
{
	return golden_natcmp(((const struct golden_facts_missing *)a)->name,
	                     ((const struct golden_facts_missing *)b)->name);
}

void golden_facts_sort(struct golden_facts *f)
{
	if (f->n > 1)
		qsort(f->nodes, (size_t)f->n, sizeof(*f->nodes), cmp_node);
	if (f->nmissing > 1)
		qsort(f->missing, (size_t)f->nmissing, sizeof(*f->missing), cmp_missing);
}

int golden_facts_find(const struct golden_facts *f, const char *name)
{
	int lo = 0, hi = f->n - 1;

	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2, c = golden_natcmp(f->nodes[mid].name, name);

		if (!c && strcmp(f->nodes[mid].name, name))
			c = strcmp(f->nodes[mid].name, name);
		if (!c)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	/* natcmp may call two names equal ("n01", "n1"): look linearly. */
	for (int i = 0; i < f->n; i++)
		if (!strcmp(f->nodes[i].name, name))
			return i;
	return -1;
}

const char *golden_facts_missing_why(const struct golden_facts *f, const char *name)
{
	for (int i = 0; i < f->nmissing; i++)
		if (!strcmp(f->missing[i].name, name))
			return f->missing[i].why;
	return NULL;
}

int golden_facts_from_json(struct json_object *root, const char *what, struct golden_facts *f,
                           struct golden_err *err)
{
	struct json_object *nodes, *un;
	const char *fmt = str(root, "format"), *s;
	char bad[128];

	memset(f, 0, sizeof(*f));
	if (!json_object_is_type(root, json_type_object) || !fmt ||
	    strcmp(fmt, GOLDEN_FACTS_FORMAT))
		return golden_err_set(err,
		                      "%s: not a facts file (expected \"format\": \"%s\", as "
		                      "golden topology gather writes)",
		                      what, GOLDEN_FACTS_FORMAT);
	if (integer(root, "version", 0) != 1)
		return golden_err_set(err, "%s: facts version %d, this golden reads version 1",
		                      what, integer(root, "version", 0));
	if (!golden_json_schema_ok(root, "golden-topology-facts", bad, sizeof(bad)))
		return golden_err_set(err, "%s: %s", what, bad);
	if ((s = str(root, "generated")))
		golden_strlcpy(f->generated, s, sizeof(f->generated));
	if ((s = str(root, "method")))
		golden_strlcpy(f->method, s, sizeof(f->method));
	if (!json_object_object_get_ex(root, "nodes", &nodes) ||
	    !json_object_is_type(nodes, json_type_object))
		return golden_err_set(err, "%s: no \"nodes\" object", what);
	json_object_object_foreach(nodes, name, topo)
	{
		struct golden_err e = {{0}};

		if (golden_facts_add_node(f, name, topo, &e) < 0) {
			golden_facts_free(f);
			return golden_err_set(err, "%s: %s", what, e.msg);
		}
	}
	if (json_object_object_get_ex(root, "unanswered", &un) &&
	    json_object_is_type(un, json_type_object)) {
		json_object_object_foreach(un, who, why)
		{
			if (golden_facts_add_missing(f, who,
			                             json_object_get_string(why)
			                                 ? json_object_get_string(why)
			                                 : "") < 0) {
				golden_facts_free(f);
				return golden_err_set(err, "out of memory");
			}
		}
	}
	golden_facts_sort(f);
	return 0;
}

int golden_facts_load(const char *path, struct golden_facts *f, struct golden_err *err)
{
	struct json_object *root = json_object_from_file(path);
	int rc;

	memset(f, 0, sizeof(*f));
	if (!root)
		return golden_err_set(err, "%s: cannot read facts: %s", path,
		                      json_util_get_last_err() ? json_util_get_last_err()
		                                               : "not JSON");
	rc = golden_facts_from_json(root, path, f, err);
	json_object_put(root);
	return rc;
}

void golden_facts_free(struct golden_facts *f)
{
	for (int i = 0; i < f->n; i++)
		free(f->nodes[i].ports);
	free(f->nodes);
	free(f->missing);
	memset(f, 0, sizeof(*f));
}
