#include "sweep/plan.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sweep/sweep.h"
#include "util/child.h"
#include "util/strutil.h"

int golden_sweep_node_counts(int from, int total, int *out, int max)
{
	int n = 0;

	if (from < 1)
		from = 1;
	if (total < from)
		return 0;
	for (long c = from; c < total && n < max; c *= 2)
		out[n++] = (int)c;
	if (n < max)
		out[n++] = total;
	return n;
}

int golden_sweep_plan(const int *counts, int ncounts, const enum golden_sweep_coll *colls,
                      int ncolls, bool compare_default, struct golden_sweep_step *out, int max)
{
	int n = 0, pair = 0;

	for (int c = 0; c < ncounts; c++)
		for (int k = 0; k < ncolls; k++) {
			int runs = compare_default ? 2 : 1;

			for (int r = 0; r < runs; r++) {
				if (n >= max)
					return -1;
				out[n] = (struct golden_sweep_step){n, colls[k], counts[c], true};
				/* ABBA: odd pairs run the defaults first. */
				if (compare_default)
					out[n].golden = (r == 0) == (pair % 2 == 0);
				n++;
			}
			pair++;
		}
	return n;
}

int golden_sweep_words(const char *s, char **words, int max, char *buf, size_t len)
{
	int n = 0;
	size_t o = 0;

	if (!s)
		return 0;
	while (*s) {
		size_t w;

		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		w = strcspn(s, " \t");
		if (n >= max || o + w + 1 > len)
			return -1;
		for (size_t i = 0; i < w; i++)
			if ((unsigned char)s[i] < 0x21 || (unsigned char)s[i] > 0x7e)
				return -1;
		memcpy(buf + o, s, w);
		buf[o + w] = '\0';
		words[n++] = buf + o;
		o += w + 1;
		s += w;
	}
	return n;
}

/* Append a printf'd word to argv/buf. */
static int push(char **argv, int *argc, int max, char *buf, size_t len, size_t *used,
                const char *fmt, ...) __attribute__((format(printf, 7, 8)));

static int push(char **argv, int *argc, int max, char *buf, size_t len, size_t *used,
                const char *fmt, ...)
{
	va_list ap;
	int w;

	if (*argc >= max - 1 || *used >= len)
		return -1;
	va_start(ap, fmt);
	w = vsnprintf(buf + *used, len - *used, fmt, ap);
	va_end(ap);
	if (w < 0 || (size_t)w >= len - *used)
		return -1;
	argv[(*argc)++] = buf + *used;
	*used += (size_t)w + 1;
	return 0;
}

int golden_sweep_step_argv(const struct golden_sweep_launch *l, const struct golden_sweep_step *s,
                           const char *nodelist, char **argv, int max, char *buf, size_t len)
{
	char *words[32], wbuf[1024], *targs[32], tbuf[1024];
	int nw = golden_sweep_words(l->launcher, words, 32, wbuf, sizeof(wbuf));
	int nt = golden_sweep_words(l->test_args, targs, 32, tbuf, sizeof(tbuf));
	int argc = 0;
	size_t used = 0;
	char exe[PATH_MAX];

	if (nw < 1 || nt < 0 || s->coll == GOLDEN_COLL_UNKNOWN)
		return -1;
	if (golden_sweep_which(words[0], exe, sizeof(exe)) < 0)
		return -1;
#define PUSH(...)                                                                                  \
	do {                                                                                       \
		if (push(argv, &argc, max, buf, len, &used, __VA_ARGS__) < 0)                      \
			return -1;                                                                 \
	} while (0)
	PUSH("%s", exe);
	for (int i = 1; i < nw; i++)
		PUSH("%s", words[i]);
	PUSH("--nodes=%d", s->nodes);
	PUSH("--ntasks-per-node=%d", l->tasks_per_node > 0 ? l->tasks_per_node : 1);
	PUSH("--nodelist=%s", nodelist);
	PUSH("--time=%d", l->time_limit_min > 0 ? l->time_limit_min : 10);
	PUSH("--job-name=%s", l->job_name ? l->job_name : "golden-sweep");
	PUSH("--kill-on-bad-exit=1");
	PUSH("%s", s->golden ? "--golden-nccl" : "--golden-nccl=off");
	if (l->partition && *l->partition)
		PUSH("--partition=%s", l->partition);
	if (l->export_env && *l->export_env)
		PUSH("--export=ALL,%s", l->export_env);
	PUSH("--");
	PUSH("%s/%s", l->tests_dir, golden_sweep_coll_binary(s->coll));
	PUSH("-b");
	PUSH("%lld", l->min_bytes > 0 ? l->min_bytes : 8);
	PUSH("-e");
	PUSH("%lld", l->max_bytes > 0 ? l->max_bytes : 16LL << 30);
	PUSH("-f");
	PUSH("%d", l->step_factor > 1 ? l->step_factor : 2);
	PUSH("-g");
	PUSH("1");
	for (int i = 0; i < nt; i++)
		PUSH("%s", targs[i]);
#undef PUSH
	for (int i = 0; i < argc; i++)
		for (const char *c = argv[i]; *c; c++)
			if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e)
				return -1;
	argv[argc] = NULL;
	return argc;
}

int golden_sweep_which(const char *name, char *buf, size_t len)
{
	return golden_child_which(name, buf, len);
}

const char *golden_sweep_duration(long ms, char *buf, size_t len)
{
	long s = (ms + 500) / 1000;

	if (s >= 3600)
		snprintf(buf, len, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
	else
		snprintf(buf, len, "%ld:%02ld", s / 60, s % 60);
	return buf;
}
