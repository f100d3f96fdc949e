#include <config.h>

#include "node/guard.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "health/reason_parse.h"
#include "node/scontrol.h"
#include "util/child.h"
#include "util/strutil.h"

#define SHOW_ALL_MAX    (8 << 20) /* 8 MiB: some 20,000 nodes */
#define SHOW_TIMEOUT_MS 10000

int golden_guard_threshold(const struct golden_conf_fleet *f, int n)
{
	int t;

	if (f->guard_nodes <= 0)
		return 0;
	t = (int)ceil(f->guard_fraction * (double)n);
	return t > f->guard_nodes ? t : f->guard_nodes;
}

/* Value of " KEY=" up to the next space. */
static void token(const char *line, const char *key, char *buf, size_t len)
{
	char pat[32];
	const char *p;

	buf[0] = '\0';
	snprintf(pat, sizeof(pat), " %s=", key);
	p = strstr(line, pat);
	if (p) {
		p += strlen(pat);
		snprintf(buf, len, "%.*s", (int)strcspn(p, " \n"), p);
	}
}

/* The time in Slurm's "Reason=... [user@2026-12-03T19:36:56]" (local
 * time), or 0. */
static long long reason_time(const char *line)
{
	const char *r = strstr(line, " Reason="), *at = NULL;
	struct tm tm;
	char *end;

	if (!r)
		return 0;
	for (const char *p = strstr(r, " ["); p; p = strstr(p + 1, " ["))
		at = p;
	if (!at || !(at = strchr(at, '@')))
		return 0;
	memset(&tm, 0, sizeof(tm));
	end = strptime(at + 1, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!end || *end != ']')
		return 0;
	tm.tm_isdst = -1;
	return (long long)mktime(&tm);
}

struct holder {
	char node[64];
	long long t;
};

/* Is a ordered before b (earlier drain, then name)? */
static bool before(const struct holder *a, const struct holder *b)
{
	if (a->t != b->t)
		return a->t < b->t;
	return strcmp(a->node, b->node) < 0;
}

void golden_guard_count(const char *show_all, const char *self, const char *key, long long now,
                        int window_s, struct golden_guard_view *v)
{
	char part[128] = "", line[8192];
	struct holder me = {{0}, 0};
	struct holder *hs = NULL;
	size_t nh = 0, cap = 0;

	v->partition_nodes = v->holders = v->ahead = 0;
	v->self_holds = false;
	/* Pass 1: this node's first partition. */
	for (const char *p = show_all; *p;) {
		size_t n = strcspn(p, "\n");
		char name[64], parts[512];

		snprintf(line, sizeof(line), " %.*s", (int)n, p);
		p += n + (p[n] == '\n');
		token(line, "NodeName", name, sizeof(name));
		if (!strcmp(name, self)) {
			token(line, "Partitions", parts, sizeof(parts));
			snprintf(part, sizeof(part), "%.*s", (int)strcspn(parts, ","), parts);
		}
	}
	for (const char *p = show_all; *p;) {
		size_t n = strcspn(p, "\n");
		char name[64], parts[512], check[32];
		struct golden_node_state st;
		struct golden_reason_info ri;
		char k[64];

		snprintf(line, sizeof(line), " %.*s", (int)n, p);
		p += n + (p[n] == '\n');
		token(line, "NodeName", name, sizeof(name));
		if (!name[0])
			continue;
		token(line, "Partitions", parts, sizeof(parts));
		if (part[0] && strcmp(name, self) != 0) {
			bool in = false;

			for (char *s = parts, *e; *s; s = *e ? e + 1 : e) {
				e = s + strcspn(s, ",");
				if ((size_t)(e - s) == strlen(part) &&
				    !strncmp(s, part, strlen(part)))
					in = true;
			}
			if (!in)
				continue;
		}
		v->partition_nodes++;
		golden_node_state_parse(line + 1, &st);
		if (!strstr(st.state, "DRAIN") || !st.reason[0])
			continue;
		golden_reason_parse(st.reason, &ri);
		if (!ri.ours || ri.flapping)
			continue;
		golden_reason_check_of(ri.code, check, sizeof(check));
		if (!golden_reason_shared_class(check, ri.code, k, sizeof(k)) ||
		    !golden_reason_same_class(k, key))
			continue;
		{
			long long t = reason_time(line);

			if (t && window_s > 0 && t < now - window_s)
				continue;
			if (!strcmp(name, self)) {
				v->self_holds = true;
				golden_strlcpy(me.node, name, sizeof(me.node));
				me.t = t;
				continue;
			}
			if (nh == cap) {
				size_t nc = cap ? cap * 2 : 64;
				struct holder *x = realloc(hs, nc * sizeof(*x));

				if (!x)
					break;
				hs = x;
				cap = nc;
			}
			golden_strlcpy(hs[nh].node, name, sizeof(hs[nh].node));
			hs[nh].t = t;
			nh++;
		}
	}
	v->holders = (int)nh;
	for (size_t i = 0; i < nh; i++)
		if (!v->self_holds || before(&hs[i], &me))
			v->ahead++;
	free(hs);
}

int golden_guard_check(const char *scontrol, const char *self, const struct golden_conf_fleet *f,
                       const char *check, const char *code, bool after, long long now,
                       struct golden_guard_view *v, struct golden_err *err)
{
	char *out;
	char *argv[] = {(char *)scontrol, "-o", "show", "node", NULL};
	int rc;

	memset(v, 0, sizeof(*v));
	v->shared = golden_reason_shared_class(check, code, v->key, sizeof(v->key));
	if (!v->shared || f->guard_nodes <= 0)
		return 0;
	out = malloc(SHOW_ALL_MAX);
	if (!out)
		return golden_err_set(err, "guard: out of memory");
	rc = golden_child_capture(argv, out, SHOW_ALL_MAX, SHOW_TIMEOUT_MS);
	if (rc != 0) {
		free(out);
		return golden_err_set(err, "guard: %s -o show node %s", scontrol,
		                      rc < 0 ? "did not answer in time" : "failed");
	}
	golden_guard_count(out, self, v->key, now, f->guard_window_s, v);
	free(out);
	v->threshold = golden_guard_threshold(f, v->partition_nodes);
	if (v->threshold <= 0)
		return 0;
	if (after)
		return v->self_holds && v->ahead >= v->threshold ? 1 : 0;
	return v->holders >= v->threshold ? 1 : 0;
}
