/* ibnetdiscover output: see ibnet.h. The grammar is restated in
 * t/fixtures/ibnetdiscover/SOURCES.md; every trap listed there has a test. */
#include <config.h>

#include "fabric/ibnet.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strutil.h"

struct golden_ibnet_slot {
	uint64_t key; /* 0: empty (no real GUID is 0) */
	int node;
	int port;
};

void golden_ibnet_init(struct golden_ibnet *net)
{
	memset(net, 0, sizeof(*net));
}

void golden_ibnet_free(struct golden_ibnet *net)
{
	for (int i = 0; i < net->n; i++) {
		free(net->nodes[i].desc);
		free(net->nodes[i].ports);
	}
	free(net->nodes);
	free(net->by_guid);
	free(net->by_port);
	memset(net, 0, sizeof(*net));
}

/* ------------------------------------------------------------ GUID maps */

static size_t slot_of(uint64_t key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	return (size_t)key & (cap - 1);
}

static struct golden_ibnet_slot *map_find(struct golden_ibnet_slot *map, size_t cap, uint64_t key)
{
	if (!cap || !key)
		return NULL;
	for (size_t i = slot_of(key, cap);; i = (i + 1) & (cap - 1)) {
		if (map[i].key == key)
			return &map[i];
		if (!map[i].key)
			return NULL;
	}
}

static int map_put(struct golden_ibnet_slot **map, size_t *cap, size_t count, uint64_t key,
                   int node, int port)
{
	size_t i;

	if ((count + 1) * 2 > *cap) {
		size_t ncap = *cap ? *cap * 2 : 1024;
		struct golden_ibnet_slot *n = calloc(ncap, sizeof(*n));

		if (!n)
			return -1;
		for (size_t k = 0; k < *cap; k++)
			if ((*map)[k].key) {
				size_t j = slot_of((*map)[k].key, ncap);

				while (n[j].key)
					j = (j + 1) & (ncap - 1);
				n[j] = (*map)[k];
			}
		free(*map);
		*map = n;
		*cap = ncap;
	}
	for (i = slot_of(key, *cap); (*map)[i].key && (*map)[i].key != key;
	     i = (i + 1) & (*cap - 1))
		;
	(*map)[i] = (struct golden_ibnet_slot){key, node, port};
	return 0;
}

int golden_ibnet_find(const struct golden_ibnet *net, uint64_t guid)
{
	struct golden_ibnet_slot *s = map_find(net->by_guid, net->hcap, guid);

	return s ? s->node : -1;
}

int golden_ibnet_find_port(const struct golden_ibnet *net, uint64_t port_guid, int *port)
{
	struct golden_ibnet_slot *s = map_find(net->by_port, net->pcap, port_guid);

	if (!s)
		return -1;
	if (port)
		*port = s->port;
	return s->node;
}

/* --------------------------------------------------------------- graph */

static int get_node(struct golden_ibnet *net, uint64_t guid, enum golden_ibnet_type type,
                    const char *desc, size_t dlen)
{
	int idx = golden_ibnet_find(net, guid);
	struct golden_ibnet_node *n;

	if (idx >= 0) {
		n = &net->nodes[idx];
		/* A node first seen only as a neighbour gets its own description. */
		if (desc && (!n->desc || !n->desc[0]) && dlen) {
			char *d = strndup(desc, dlen);

			if (d) {
				free(n->desc);
				n->desc = d;
			}
		}
		return idx;
	}
	if (net->n == net->cap) {
		int cap = net->cap ? net->cap * 2 : 256;
		struct golden_ibnet_node *p = realloc(net->nodes, (size_t)cap * sizeof(*p));

		if (!p)
			return -1;
		net->nodes = p;
		net->cap = cap;
	}
	n = &net->nodes[net->n];
	memset(n, 0, sizeof(*n));
	n->type = type;
	n->guid = guid;
	n->fabric = -1;
	n->desc = strndup(desc ? desc : "", desc ? dlen : 0);
	if (!n->desc || map_put(&net->by_guid, &net->hcap, (size_t)net->n, guid, net->n, 0) < 0) {
		free(n->desc);
		return -1;
	}
	return net->n++;
}

static struct golden_ibnet_port *get_port(struct golden_ibnet *net, int idx, int num)
{
	struct golden_ibnet_node *n = &net->nodes[idx];

	for (int i = 0; i < n->nports; i++)
		if (n->ports[i].num == num)
			return &n->ports[i];
	if (n->nports == n->cap) {
		int cap = n->cap ? n->cap * 2 : 4;
		struct golden_ibnet_port *p = realloc(n->ports, (size_t)cap * sizeof(*p));

		if (!p)
			return NULL;
		n->ports = p;
		n->cap = cap;
	}
	n->ports[n->nports] = (struct golden_ibnet_port){num, 0, -1, 0};
	return &n->ports[n->nports++];
}

static int set_port_guid(struct golden_ibnet *net, int idx, int num, uint64_t guid)
{
	struct golden_ibnet_port *p = get_port(net, idx, num);

	if (!p)
		return -1;
	if (!guid || net->nodes[idx].type == GOLDEN_IBNET_SWITCH)
		return 0;
	p->guid = guid;
	if (map_find(net->by_port, net->pcap, guid))
		return 0;
	if (map_put(&net->by_port, &net->pcap, net->pcount, guid, idx, num) < 0)
		return -1;
	net->pcount++;
	return 0;
}

static int link_ports(struct golden_ibnet *net, int a, int pa, int b, int pb)
{
	struct golden_ibnet_port *x = get_port(net, a, pa), *y;

	if (!x)
		return -1;
	x->remote = b;
	x->remote_port = pb;
	y = get_port(net, b, pb);
	if (!y)
		return -1;
	y->remote = a;
	y->remote_port = pa;
	return 0;
}

/* ------------------------------------------------------ lexical helpers */

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static bool hex_guid(const char **pp, uint64_t *out)
{
	const char *p = *pp;
	char *end;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	if (!isxdigit((unsigned char)*p))
		return false;
	errno = 0;
	*out = strtoull(p, &end, 16);
	if (errno || end - p > 16)
		return false;
	*pp = end;
	return true;
}

static bool number(const char **pp, int *out)
{
	char *end;
	long v;

	if (!isdigit((unsigned char)**pp))
		return false;
	v = strtol(*pp, &end, 10);
	if (v < 0 || v > 1000000)
		return false;
	*out = (int)v;
	*pp = end;
	return true;
}

/* "S-0008f10400411f56" (quotes included) -> type and GUID. */
static bool node_id(const char **pp, enum golden_ibnet_type *type, uint64_t *guid)
{
	const char *p = *pp;

	if (*p++ != '"')
		return false;
	switch (*p) {
	case 'S':
		*type = GOLDEN_IBNET_SWITCH;
		break;
	case 'H':
		*type = GOLDEN_IBNET_CA;
		break;
	case 'R':
		*type = GOLDEN_IBNET_ROUTER;
		break;
	default:
		return false;
	}
	p++;
	if (*p++ != '-' || !hex_guid(&p, guid) || *p++ != '"')
		return false;
	*pp = p;
	return true;
}

/* "[ext 3]" after a port number (-g output): skipped. */
static void skip_ext(const char **pp)
{
	if (!strncmp(*pp, "[ext ", 5)) {
		const char *e = strchr(*pp, ']');

		if (e)
			*pp = e + 1;
	}
}

/* The description of a node line: from the first '"' after '#' to the
 * closing quote, found from the right (descriptions may hold '#' and '"'). */
static bool node_desc(const char *p, bool is_switch, const char **start, size_t *len)
{
	const char *hash = strchr(p, '#'), *q, *end = NULL;

	if (!hash || !(q = strchr(hash, '"')))
		return false;
	q++;
	if (is_switch) {
		const char *m;

		for (m = q; (m = strstr(m, "\" ")); m++)
			if (!strncmp(m, "\" base port", 11) || !strncmp(m, "\" enhanced port", 15))
				end = m;
	}
	if (!end)
		end = strrchr(q, '"');
	if (!end || end < q)
		return false;
	*start = q;
	*len = (size_t)(end - q);
	return true;
}

/* The remote description of a port line: first '"' after '#', to the last
 * '" lid '. */
static bool remote_desc(const char *p, const char **start, size_t *len)
{
	const char *hash = strchr(p, '#'), *q, *end = NULL, *m;

	if (!hash || !(q = strchr(hash, '"')))
		return false;
	q++;
	for (m = q; (m = strstr(m, "\" lid ")); m++)
		end = m;
	if (!end)
		return false;
	*start = q;
	*len = (size_t)(end - q);
	return true;
}

/* --------------------------------------------------------- default dump */

struct cursor {
	int node; /* index of the node whose block we are in, -1 none */
};

/* `Switch 65 "S-..." # "desc" enhanced port 0 lid 73 lmc 0` and Ca/Hca/Rt. */
static int parse_node_line(struct golden_ibnet *net, const char *p, struct cursor *c)
{
	enum golden_ibnet_type want, type;
	uint64_t guid;
	int nports;
	const char *ds = NULL;
	size_t dl = 0;

	if (!strncmp(p, "Switch", 6)) {
		want = GOLDEN_IBNET_SWITCH;
		p += 6;
	} else if (!strncmp(p, "Hca", 3)) {
		want = GOLDEN_IBNET_CA;
		p += 3;
	} else if (!strncmp(p, "Ca", 2)) {
		want = GOLDEN_IBNET_CA;
		p += 2;
	} else if (!strncmp(p, "Rt", 2)) {
		want = GOLDEN_IBNET_ROUTER;
		p += 2;
	} else {
		return 0;
	}
	if (*p != ' ' && *p != '\t')
		return 0;
	p = skip_ws(p);
	if (!number(&p, &nports))
		return 0;
	p = skip_ws(p);
	if (!node_id(&p, &type, &guid) || type != want)
		return 0;
	node_desc(p, type == GOLDEN_IBNET_SWITCH, &ds, &dl);
	c->node = get_node(net, guid, type, ds, dl);
	if (c->node < 0)
		return -1;
	/* Its own line wins over what a neighbour's line said (a node-name
	 * map rewrites only the neighbours' lines). */
	if (ds && !net->nodes[c->node].seen) {
		char *d = strndup(ds, dl);

		if (!d)
			return -1;
		free(net->nodes[c->node].desc);
		net->nodes[c->node].desc = d;
	}
	net->nodes[c->node].seen = true;
	return 1;
}

/* `[1]	"H-e09d7303007a4bd8"[1](e09d7303007a4bd8) 		# "host mlx5_5" lid 647 4xNDR`
 * `[1](e09d7303007a4bd8) 	"S-2c5eab0300b87b40"[1]		# lid 647 lmc 0 "sw" lid 73 4xNDR`
 */
static int parse_port_line(struct golden_ibnet *net, const char *p, struct cursor *c)
{
	int lport, rport, remote;
	uint64_t lguid = 0, rguid = 0, rnode;
	enum golden_ibnet_type rtype;
	const char *ds = NULL;
	size_t dl = 0;

	if (c->node < 0 || *p++ != '[' || !number(&p, &lport) || *p++ != ']')
		return 0;
	skip_ext(&p);
	if (*p == '(') {
		p++;
		if (!hex_guid(&p, &lguid) || *p++ != ')')
			return 0;
	}
	p = skip_ws(p);
	if (!node_id(&p, &rtype, &rnode) || *p++ != '[' || !number(&p, &rport) || *p++ != ']')
		return 0;
	skip_ext(&p);
	p = skip_ws(p);
	if (*p == '(') {
		p++;
		if (!hex_guid(&p, &rguid) || *p++ != ')')
			return 0;
	}
	remote_desc(p, &ds, &dl);
	remote = get_node(net, rnode, rtype, ds, dl);
	if (remote < 0)
		return -1;
	if (set_port_guid(net, c->node, lport, lguid) < 0 ||
	    set_port_guid(net, remote, rport, rguid) < 0 ||
	    link_ports(net, c->node, lport, remote, rport) < 0)
		return -1;
	return 1;
}

/* ------------------------------------------------------------ -p report */

static bool ptype(const char *p, enum golden_ibnet_type *t)
{
	if (!strncmp(p, "SW", 2))
		*t = GOLDEN_IBNET_SWITCH;
	else if (!strncmp(p, "CA", 2))
		*t = GOLDEN_IBNET_CA;
	else if (!strncmp(p, "RT", 2))
		*t = GOLDEN_IBNET_ROUTER;
	else
		return false;
	return p[2] == ' ';
}

/* `<T> <lid> <port> 0x<guid> <width> <speed>`: the type, port and GUID. */
static bool pfields(const char **pp, enum golden_ibnet_type *t, int *port, uint64_t *guid)
{
	const char *p = skip_ws(*pp);
	int lid;

	if (!ptype(p, t))
		return false;
	p = skip_ws(p + 2);
	if (!number(&p, &lid))
		return false;
	p = skip_ws(p);
	if (!number(&p, port))
		return false;
	p = skip_ws(p);
	if (!hex_guid(&p, guid))
		return false;
	*pp = p;
	return true;
}

static const char *skip_token(const char *p)
{
	p = skip_ws(p);
	while (*p && *p != ' ' && *p != '\t')
		p++;
	return p;
}

static int parse_p_line(struct golden_ibnet *net, const char *line)
{
	enum golden_ibnet_type lt, rt;
	int lport, rport, a, b;
	uint64_t lguid, rguid;
	const char *p = line, *open, *close, *sep;
	const char *ld = "", *rd = "";
	size_t ll = 0, rl = 0;

	if (!pfields(&p, &lt, &lport, &lguid))
		return 0;
	p = skip_token(p); /* width */
	p = skip_token(p); /* speed */
	p = skip_ws(p);
	if (*p != '-') {
		/* An unconnected port: `... 4x SDR      'desc'`. */
		const char *q = strchr(p, '\''), *e = strrchr(p, '\'');

		if (!q || e <= q)
			return 0; /* the description is always quoted */
		ld = q + 1;
		ll = (size_t)(e - q - 1);
		a = get_node(net, lguid, lt, ld, ll);
		if (a < 0)
			return -1;
		net->nodes[a].seen = true;
		return get_port(net, a, lport) ? 1 : -1;
	}
	p++;
	if (!pfields(&p, &rt, &rport, &rguid))
		return 0;
	open = strstr(p, "( '");
	close = strrchr(p, '\'');
	if (open && close > open + 3) {
		sep = strstr(open + 3, "' - '");
		if (sep && sep < close) {
			ld = open + 3;
			ll = (size_t)(sep - ld);
			rd = sep + 5;
			rl = (size_t)(close - rd);
		}
	}
	/* -p shows port GUIDs only: a CA port stands for its node. */
	a = get_node(net, lguid, lt, ld, ll);
	b = a < 0 ? -1 : get_node(net, rguid, rt, rd, rl);
	if (a < 0 || b < 0)
		return -1;
	net->nodes[a].seen = true;
	if (set_port_guid(net, a, lport, lguid) < 0 || set_port_guid(net, b, rport, rguid) < 0 ||
	    link_ports(net, a, lport, b, rport) < 0)
		return -1;
	return 1;
}

/* --------------------------------------------------------------- input */

int golden_ibnet_parse(struct golden_ibnet *net, const char *text, const char *name,
                       struct golden_err *err)
{
	struct cursor c = {-1};
	const char *line = text;
	int before = net->n, lineno = 0, recognised = 0;

	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char buf[4096];
		const char *p;
		int r = 0;

		lineno++;
		if (len >= sizeof(buf))
			len = sizeof(buf) - 1; /* no real line is this long */
		memcpy(buf, line, len);
		buf[len] = '\0';
		if (len && buf[len - 1] == '\r')
			buf[len - 1] = '\0';
		line = nl ? nl + 1 : NULL;
		p = skip_ws(buf);
		if (*p == '[')
			r = parse_port_line(net, p, &c);
		else if (*p == 'S' || *p == 'C' || *p == 'H' || *p == 'R') {
			r = parse_node_line(net, p, &c);
			if (r == 0)
				r = parse_p_line(net, p);
		} else if (*p == '?') {
			r = parse_p_line(net, p);
		}
		if (r < 0)
			return golden_err_set(err, "%s:%d: out of memory", name, lineno);
		recognised += r;
		/* Anything else (comments, vendid=..., Chassis lines, stderr
		 * noise) is not topology: skipped. */
	}
	if (!recognised)
		return golden_err_set(err,
		                      "%s: no ibnetdiscover node or port line found (expected the "
		                      "output of `ibnetdiscover` or `ibnetdiscover -p`)",
		                      name);
	net->ninputs++;
	return net->n - before;
}

int golden_ibnet_load(struct golden_ibnet *net, const char *path, struct golden_err *err)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int rc;

	if (!f)
		return golden_err_set(err, "%s: %s", path, strerror(errno));
	for (;;) {
		size_t got;

		if (len + 65536 + 1 > cap) {
			char *p;

			cap = cap ? cap * 2 : 1 << 20;
			p = realloc(buf, cap);
			if (!p) {
				free(buf);
				fclose(f);
				return golden_err_set(err, "%s: out of memory", path);
			}
			buf = p;
		}
		got = fread(buf + len, 1, 65536, f);
		len += got;
		if (got < 65536)
			break;
	}
	if (ferror(f)) {
		free(buf);
		fclose(f);
		return golden_err_set(err, "%s: read error", path);
	}
	fclose(f);
	buf[len] = '\0';
	rc = golden_ibnet_parse(net, buf, path, err);
	free(buf);
	return rc;
}

/* ------------------------------------------------------------- fabrics */

static int uf_find(int *parent, int x)
{
	while (parent[x] != x) {
		parent[x] = parent[parent[x]];
		x = parent[x];
	}
	return x;
}

void golden_ibnet_finish(struct golden_ibnet *net)
{
	int *parent = malloc((size_t)(net->n ? net->n : 1) * sizeof(int));
	int *id = malloc((size_t)(net->n ? net->n : 1) * sizeof(int));
	uint64_t *low = malloc((size_t)(net->n ? net->n : 1) * sizeof(uint64_t));
	int nf = 0;

	if (!parent || !id || !low) {
		free(parent);
		free(id);
		free(low);
		return;
	}
	for (int i = 0; i < net->n; i++)
		parent[i] = i;
	for (int i = 0; i < net->n; i++) {
		const struct golden_ibnet_node *n = &net->nodes[i];

		if (n->type != GOLDEN_IBNET_SWITCH)
			continue;
		for (int k = 0; k < n->nports; k++) {
			int r = n->ports[k].remote;

			if (r >= 0 && net->nodes[r].type == GOLDEN_IBNET_SWITCH)
				parent[uf_find(parent, r)] = uf_find(parent, i);
		}
	}
	/* Number the components by their lowest switch GUID: stable across
	 * runs and input order. */
	for (int i = 0; i < net->n; i++) {
		id[i] = -1;
		low[i] = UINT64_MAX;
	}
	for (int i = 0; i < net->n; i++)
		if (net->nodes[i].type == GOLDEN_IBNET_SWITCH) {
			int r = uf_find(parent, i);

			if (net->nodes[i].guid < low[r])
				low[r] = net->nodes[i].guid;
		}
	for (;;) {
		int best = -1;

		for (int i = 0; i < net->n; i++)
			if (low[i] != UINT64_MAX && id[i] < 0 && (best < 0 || low[i] < low[best]))
				best = i;
		if (best < 0)
			break;
		id[best] = nf++;
	}
	for (int i = 0; i < net->n; i++) {
		struct golden_ibnet_node *n = &net->nodes[i];

		n->fabric = -1;
		if (n->type == GOLDEN_IBNET_SWITCH) {
			n->fabric = id[uf_find(parent, i)];
			continue;
		}
		for (int k = 0; k < n->nports && n->fabric < 0; k++) {
			int r = n->ports[k].remote;

			if (r >= 0 && net->nodes[r].type == GOLDEN_IBNET_SWITCH)
				n->fabric = id[uf_find(parent, r)];
		}
	}
	net->nfabrics = nf;
	free(parent);
	free(id);
	free(low);
}

/* --------------------------------------------------------- what a CA is */

bool golden_ibnet_is_sharp(const struct golden_ibnet_node *node)
{
	return node->type == GOLDEN_IBNET_CA && node->desc &&
	       strstr(node->desc, "Aggregation Node") != NULL;
}

bool golden_ibnet_desc_is_default(const char *desc)
{
	const char *p = desc;
	size_t w;

	while (*p == ' ')
		p++;
	if (!*p)
		return true;
	/* The unset NodeDescription: "MT4129 ConnectX7   Mellanox Technologies". */
	if (p[0] == 'M' && p[1] == 'T' && isdigit((unsigned char)p[2]))
		return true;
	if (strstr(p, "Mellanox Technologies") && !strchr(p, ';'))
		return true;
	/* A host name that names no host. */
	w = strcspn(p, " \t");
	return (w == 9 && !strncmp(p, "localhost", 9)) || !strncmp(p, "localhost.", 10) ||
	       (w == 6 && !strncmp(p, "ubuntu", 6));
}

void golden_ibnet_switch_name(const struct golden_ibnet_node *node, char *buf, size_t len)
{
	const char *d = node->desc ? node->desc : "", *s, *e;
	char name[72];

	buf[0] = '\0';
	while (*d == ' ')
		d++;
	if (strncmp(d, "MF0;", 4))
		return;
	s = d + 4;
	e = strchr(s, ':');
	if (!e)
		e = s + strlen(s);
	if (e == s || (size_t)(e - s) >= sizeof(name))
		return;
	memcpy(name, s, (size_t)(e - s));
	name[e - s] = '\0';
	if (golden_is_safe_name(name, 64))
		golden_strlcpy(buf, name, len);
}

void golden_ibnet_count(const struct golden_ibnet *net, struct golden_ibnet_counts *c)
{
	memset(c, 0, sizeof(*c));
	for (int i = 0; i < net->n; i++) {
		const struct golden_ibnet_node *n = &net->nodes[i];

		if (n->type == GOLDEN_IBNET_SWITCH)
			c->switches++;
		else if (n->type == GOLDEN_IBNET_ROUTER)
			c->routers++;
		else if (golden_ibnet_is_sharp(n))
			c->sharp++;
		else
			c->cas++;
		for (int k = 0; k < n->nports; k++) {
			int r = n->ports[k].remote;

			/* Each link once: from its lower end (a self-link once too). */
			if (r > i || (r == i && n->ports[k].remote_port >= n->ports[k].num))
				c->links++;
		}
	}
	c->fabrics = net->nfabrics;
}
