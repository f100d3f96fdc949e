/* Matching without expansion (see hostlist.h): walk the expression and the
 * name together; at a bracket group, try every run of digits at the current
 * position of the name that some range of the group admits, and match the rest. */
#include <config.h>

#include "util/hostlist.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DIGITS 18 /* a range bound fits a long long */

/* One range "lo-hi" or "n" inside brackets: [s, e). Returns 0 or -1. */
static int parse_range(const char *s, const char *e, long long *lo, long long *hi, int *width)
{
	const char *dash = memchr(s, '-', (size_t)(e - s));
	const char *ae = dash ? dash : e;
	char buf[MAX_DIGITS + 1];

	if (ae == s || ae - s > MAX_DIGITS)
		return -1;
	for (const char *p = s; p < ae; p++)
		if (!isdigit((unsigned char)*p))
			return -1;
	memcpy(buf, s, (size_t)(ae - s));
	buf[ae - s] = '\0';
	*lo = strtoll(buf, NULL, 10);
	/* "001-064": fixed width; "1-64": any width without leading zeros. */
	*width = (ae - s > 1 && s[0] == '0') ? (int)(ae - s) : 0;
	if (!dash) {
		*hi = *lo;
		return 0;
	}
	if (e - dash - 1 < 1 || e - dash - 1 > MAX_DIGITS)
		return -1;
	for (const char *p = dash + 1; p < e; p++)
		if (!isdigit((unsigned char)*p))
			return -1;
	memcpy(buf, dash + 1, (size_t)(e - dash - 1));
	buf[e - dash - 1] = '\0';
	*hi = strtoll(buf, NULL, 10);
	return *hi >= *lo ? 0 : -1;
}

/* Does the digit string d[0..n) fall in some range of the group [gs, ge)? */
static bool group_admits(const char *gs, const char *ge, const char *d, int n)
{
	char buf[MAX_DIGITS + 1];
	long long v;

	if (n < 1 || n > MAX_DIGITS)
		return false;
	memcpy(buf, d, (size_t)n);
	buf[n] = '\0';
	v = strtoll(buf, NULL, 10);
	for (const char *s = gs; s < ge;) {
		const char *comma = memchr(s, ',', (size_t)(ge - s));
		const char *e = comma ? comma : ge;
		long long lo, hi;
		int width;

		if (parse_range(s, e, &lo, &hi, &width) == 0 && v >= lo && v <= hi) {
			if (width ? n == width : (n == 1 || d[0] != '0'))
				return true;
		}
		s = comma ? comma + 1 : ge;
	}
	return false;
}

/* Match one item [p, pe) against the whole of name. */
static bool match_item(const char *p, const char *pe, const char *name)
{
	while (p < pe) {
		if (*p == '[') {
			const char *ge = memchr(p, ']', (size_t)(pe - p));
			int ndig = 0;

			if (!ge)
				return false;
			while (isdigit((unsigned char)name[ndig]))
				ndig++;
			/* Longest first: "n[1-20]" against "n12" tries 12, then 1. */
			for (int n = ndig; n >= 1; n--)
				if (group_admits(p + 1, ge, name, n) &&
				    match_item(ge + 1, pe, name + n))
					return true;
			return false;
		}
		if (*p != *name)
			return false;
		p++;
		name++;
	}
	return *name == '\0';
}

/* The end of the item starting at p: the next top-level comma or the end. */
static const char *item_end(const char *p)
{
	int depth = 0;

	for (; *p; p++) {
		if (*p == '[')
			depth++;
		else if (*p == ']')
			depth--;
		else if (*p == ',' && depth == 0)
			break;
	}
	return p;
}

int golden_hostlist_check(const char *expr, struct golden_err *err)
{
	if (!expr || !*expr)
		return golden_err_set(err, "empty hostlist");
	for (const char *p = expr; *p;) {
		const char *e = item_end(p);

		if (e == p)
			return golden_err_set(err, "'%s': empty name between commas", expr);
		for (const char *q = p; q < e; q++) {
			if (*q == '[') {
				const char *ge = memchr(q, ']', (size_t)(e - q));

				if (!ge)
					return golden_err_set(err, "'%s': '[' without ']'", expr);
				for (const char *s = q + 1; s <= ge;) {
					const char *c = memchr(s, ',', (size_t)(ge - s));
					const char *re = c ? c : ge;
					long long lo, hi;
					int w;

					if (parse_range(s, re, &lo, &hi, &w) < 0)
						return golden_err_set(
						    err,
						    "'%s': '%.*s' is not a range (expected N or "
						    "LO-HI, e.g. [001-064,100])",
						    expr, (int)(re - s), s);
					s = re + 1;
				}
				q = ge;
			} else if (*q == ']') {
				return golden_err_set(err, "'%s': ']' without '['", expr);
			} else if (!isalnum((unsigned char)*q) && !strchr("-_.", *q)) {
				return golden_err_set(
				    err, "'%s': '%c' cannot be part of a node name", expr, *q);
			}
		}
		p = *e ? e + 1 : e;
		if (*e && !*p)
			return golden_err_set(err, "'%s': trailing comma", expr);
	}
	return 0;
}

bool golden_hostlist_match(const char *expr, const char *node)
{
	struct golden_err err = {0};

	if (!node || golden_hostlist_check(expr, &err) < 0)
		return false;
	for (const char *p = expr; *p;) {
		const char *e = item_end(p);

		if (match_item(p, e, node))
			return true;
		p = *e ? e + 1 : e;
	}
	return false;
}
