/* Slurm host lists: see hostlist.h. */
#include <config.h>

#include "util/hostlist.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strutil.h"

int golden_hostlist_add(struct golden_hostlist *hl, const char *name)
{
	char *copy;

	if (hl->n == hl->cap) {
		size_t cap = hl->cap ? hl->cap * 2 : 16;
		char **p = realloc(hl->names, cap * sizeof(*p));

		if (!p)
			return -1;
		hl->names = p;
		hl->cap = cap;
	}
	copy = strdup(name);
	if (!copy)
		return -1;
	hl->names[hl->n++] = copy;
	return 0;
}

bool golden_hostlist_has(const struct golden_hostlist *hl, const char *name)
{
	for (size_t i = 0; i < hl->n; i++)
		if (!strcmp(hl->names[i], name))
			return true;
	return false;
}

void golden_hostlist_free(struct golden_hostlist *hl)
{
	for (size_t i = 0; i < hl->n; i++)
		free(hl->names[i]);
	free(hl->names);
	hl->names = NULL;
	hl->n = hl->cap = 0;
}

static int cmp_names(const void *a, const void *b)
{
	return golden_natcmp(*(char *const *)a, *(char *const *)b);
}

void golden_hostlist_uniq(struct golden_hostlist *hl)
{
	size_t o = 0;

	if (hl->n > 1)
		qsort(hl->names, hl->n, sizeof(char *), cmp_names);
	for (size_t i = 0; i < hl->n; i++) {
		if (o && !strcmp(hl->names[o - 1], hl->names[i])) {
			free(hl->names[i]);
			continue;
		}
		hl->names[o++] = hl->names[i];
	}
	hl->n = o;
}

/* One bracket's ranges ("01-04,7") -> each value with its width, into
 * prefix + value + the expansion of rest. */
static int expand_item(const char *prefix, const char *item, struct golden_hostlist *hl,
                       struct golden_err *err);

static int expand_ranges(const char *prefix, const char *ranges, size_t rlen, const char *rest,
                         struct golden_hostlist *hl, struct golden_err *err)
{
	const char *p = ranges, *end = ranges + rlen;

	while (p < end) {
		char *e;
		unsigned long lo, hi;
		int width;
		const char *start = p;

		if (!isdigit((unsigned char)*p))
			return golden_err_set(err, "bad range '%.*s': expected digits", (int)rlen,
			                      ranges);
		lo = strtoul(p, &e, 10);
		width = (int)(e - start);
		hi = lo;
		p = e;
		if (p < end && *p == '-') {
			p++;
			if (p >= end || !isdigit((unsigned char)*p))
				return golden_err_set(err,
				                      "bad range '%.*s': expected digits after '-'",
				                      (int)rlen, ranges);
			hi = strtoul(p, &e, 10);
			p = e;
		}
		if (p < end && *p != ',')
			return golden_err_set(err, "bad range '%.*s'", (int)rlen, ranges);
		if (p < end)
			p++;
		if (hi < lo)
			return golden_err_set(err, "bad range '%.*s': %lu > %lu", (int)rlen, ranges,
			                      lo, hi);
		if (hi - lo >= GOLDEN_HOSTLIST_MAX || hl->n + (hi - lo) >= GOLDEN_HOSTLIST_MAX)
			return golden_err_set(err, "range '%.*s' expands to too many names",
			                      (int)rlen, ranges);
		for (unsigned long v = lo; v <= hi; v++) {
			char buf[1024];

			/* Zero-padded ranges ("01-12") keep their width. */
			if (snprintf(buf, sizeof(buf), "%s%0*lu", prefix,
			             start[0] == '0' ? width : 0, v) >= (int)sizeof(buf))
				return golden_err_set(err, "host name too long in '%s'", prefix);
			if (expand_item(buf, rest, hl, err) < 0)
				return -1;
		}
	}
	return 0;
}

static int expand_item(const char *prefix, const char *item, struct golden_hostlist *hl,
                       struct golden_err *err)
{
	const char *open = strchr(item, '['), *close;
	char buf[1024];

	if (!open) {
		if (snprintf(buf, sizeof(buf), "%s%s", prefix, item) >= (int)sizeof(buf))
			return golden_err_set(err, "host name too long: %s%s", prefix, item);
		if (strchr(buf, ']'))
			return golden_err_set(err, "unbalanced ']' in '%s'", buf);
		if (!buf[0])
			return 0;
		if (golden_hostlist_add(hl, buf) < 0)
			return golden_err_set(err, "out of memory");
		return 0;
	}
	close = strchr(open, ']');
	if (!close)
		return golden_err_set(err, "unbalanced '[' in '%s%s'", prefix, item);
	if (snprintf(buf, sizeof(buf), "%s%.*s", prefix, (int)(open - item), item) >=
	    (int)sizeof(buf))
		return golden_err_set(err, "host name too long in '%s'", item);
	return expand_ranges(buf, open + 1, (size_t)(close - open - 1), close + 1, hl, err);
}

int golden_hostlist_expand(const char *expr, struct golden_hostlist *hl, struct golden_err *err)
{
	const char *p = expr;

	while (p && *p) {
		const char *q = p;
		int depth = 0;
		char item[1024];

		while (*q && (depth || *q != ',')) {
			if (*q == '[')
				depth++;
			else if (*q == ']' && depth)
				depth--;
			q++;
		}
		if ((size_t)(q - p) >= sizeof(item))
			return golden_err_set(err, "host list item too long in '%.40s...'", p);
		memcpy(item, p, (size_t)(q - p));
		item[q - p] = '\0';
		if (strpbrk(item, " \t\n"))
			return golden_err_set(err, "white space in host list item '%s'", item);
		if (expand_item("", item, hl, err) < 0)
			return -1;
		p = *q ? q + 1 : q;
	}
	return 0;
}

struct split {
	const char *name;
	size_t plen; /* length of the prefix before the trailing digits */
	unsigned long num;
	int digits;  /* how many digits */
	bool padded; /* "07": a leading zero */
	bool has_num;
};

/* Can b follow a in one range? Unpadded numbers always; a zero-padded
 * range continues with numbers of the same width ("099" then "100"). */
static bool same_kind(const struct split *a, const struct split *b)
{
	if (!a->padded && !b->padded)
		return true;
	return a->digits == b->digits;
}

static void split_name(const char *name, struct split *s)
{
	size_t len = strlen(name), d = len;

	while (d > 0 && isdigit((unsigned char)name[d - 1]))
		d--;
	s->name = name;
	s->has_num = d < len && len - d <= 18;
	s->plen = s->has_num ? d : len;
	s->num = s->has_num ? strtoul(name + d, NULL, 10) : 0;
	s->digits = (int)(len - d);
	s->padded = s->has_num && name[d] == '0' && len - d > 1;
}

struct sbuf {
	char *p;
	size_t len, cap;
	bool oom;
};

static void put(struct sbuf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = (b->cap ? b->cap : 64);
		char *p;

		while (cap < b->len + n + 1)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->oom = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void put_num(struct sbuf *b, unsigned long v, int width)
{
	char num[32];
	int n = snprintf(num, sizeof(num), "%0*lu", width, v);

	put(b, num, (size_t)n);
}

char *golden_hostlist_ranged(char *const *names, size_t n)
{
	char **sorted = malloc((n ? n : 1) * sizeof(char *));
	struct split *sp = malloc((n ? n : 1) * sizeof(*sp));
	struct sbuf b = {NULL, 0, 0, false};
	size_t m = 0;

	if (!sorted || !sp) {
		free(sorted);
		free(sp);
		return NULL;
	}
	memcpy(sorted, names, n * sizeof(char *));
	qsort(sorted, n, sizeof(char *), cmp_names);
	for (size_t i = 0; i < n; i++)
		if (!m || strcmp(sorted[m - 1], sorted[i]))
			sorted[m++] = sorted[i];
	for (size_t i = 0; i < m; i++)
		split_name(sorted[i], &sp[i]);
	put(&b, "", 0);
	for (size_t i = 0; i < m;) {
		size_t j = i + 1;

		if (b.len)
			put(&b, ",", 1);
		if (sp[i].has_num)
			while (j < m && sp[j].has_num && sp[j].plen == sp[i].plen &&
			       !strncmp(sp[j].name, sp[i].name, sp[i].plen))
				j++;
		if (j == i + 1) {
			put(&b, sp[i].name, strlen(sp[i].name));
			i = j;
			continue;
		}
		/* prefix[a-b,c,...] over items i..j-1 */
		put(&b, sp[i].name, sp[i].plen);
		put(&b, "[", 1);
		for (size_t k = i; k < j;) {
			size_t r = k + 1;
			bool pad = sp[k].padded;

			while (r < j && same_kind(&sp[r - 1], &sp[r]) &&
			       sp[r].num == sp[r - 1].num + 1) {
				pad |= sp[r].padded;
				r++;
			}
			if (k > i)
				put(&b, ",", 1);
			put_num(&b, sp[k].num, pad ? sp[k].digits : 0);
			if (r - k > 1) {
				put(&b, "-", 1);
				put_num(&b, sp[r - 1].num, pad ? sp[r - 1].digits : 0);
			}
			k = r;
		}
		put(&b, "]", 1);
		i = j;
	}
	free(sorted);
	free(sp);
	if (b.oom) {
		free(b.p);
		return NULL;
	}
	return b.p;
}
