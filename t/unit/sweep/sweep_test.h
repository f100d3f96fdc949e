/* Helpers the sweep unit tests share: parse text, build nccl-tests-like
 * logs from a few numbers, read a corpus file. */
#ifndef GOLDEN_T_SWEEP_TEST_H
#define GOLDEN_T_SWEEP_TEST_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweep/detect.h"
#include "sweep/infer.h"
#include "sweep/parse.h"

static const char *srcdir(void)
{
	const char *s = getenv("GOLDEN_SRCDIR");

	return s && *s ? s : "..";
}

/* Parse TEXT (named NAME) into SET and infer. Returns the number of runs. */
static inline int parse_text(struct golden_sweep_set *set, const char *name, const char *text)
{
	struct golden_err err = {{0}};
	struct golden_sweep_infer_opts io = {GOLDEN_COLL_UNKNOWN, 0, 0};
	int n = golden_sweep_parse_buffer(text, strlen(text), name, set, &err);

	if (n < 0)
		printf("# parse %s: %s\n", name, err.msg);
	golden_sweep_infer_all(set, &io);
	return n;
}

static inline int parse_corpus(struct golden_sweep_set *set, const char *file)
{
	struct golden_err err = {{0}};
	struct golden_sweep_infer_opts io = {GOLDEN_COLL_UNKNOWN, 0, 0};
	char path[1024];
	int n;

	snprintf(path, sizeof(path), "%s/t/fixtures/nccl-tests/%s", srcdir(), file);
	n = golden_sweep_parse_file(path, set, &err);
	if (n < 0)
		printf("# parse %s: %s\n", path, err.msg);
	golden_sweep_infer_all(set, &io);
	return n;
}

/* A growing text buffer. */
struct text {
	char *s;
	size_t len, cap;
};

static inline __attribute__((format(printf, 2, 3))) void tprintf(struct text *t, const char *fmt,
                                                                 ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (t->len + (size_t)n + 1 > t->cap) {
		t->cap = (t->len + (size_t)n + 1) * 2;
		t->s = realloc(t->s, t->cap);
	}
	va_start(ap, fmt);
	vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
	va_end(ap);
	t->len += (size_t)n;
}

/* An all_reduce run on RANKS ranks (factor 2(n-1)/n), sizes doubling from
 * FIRST, out-of-place busbw OOP[i], in-place IP[i] (NULL: as OOP), #wrong
 * 0, with golden's meta line when META is not NULL. */
static inline void add_run(struct text *t, const char *meta, int ranks, long long first,
                           const double *oop, const double *ip, int n)
{
	double f = 2.0 * (ranks - 1) / ranks;
	long long last = first << (n - 1);

	if (meta)
		tprintf(t, "# golden-sweep: run %s\n", meta);
	tprintf(t,
	        "# nThread 1 nGpus 1 minBytes %lld maxBytes %lld step: 2(factor) warmup iters: 5 "
	        "iters: 20 agg iters: 1 validation: 1 graph: 0\n#\n# Using devices\n",
	        first, last);
	for (int r = 0; r < ranks; r++)
		tprintf(t,
		        "#  Rank %2d Group  0 Pid %6d on %10s device %2d [0x19] NVIDIA H100 80GB "
		        "HBM3\n",
		        r, 1000 + r, r < ranks / 2 || ranks < 2 ? "host-a" : "host-b",
		        r % (ranks > 1 ? ranks / 2 : 1));
	tprintf(t,
	        "#\n#       size         count      type   redop    root     time   algbw   busbw "
	        "#wrong     time   algbw   busbw #wrong\n");
	for (int i = 0; i < n; i++) {
		long long s = first << i;
		double b[2] = {oop[i], ip ? ip[i] : oop[i]};

		tprintf(t, "%12lld  %12lld     float     sum      -1", s, s / 4);
		for (int h = 0; h < 2; h++) {
			/* one rank: busbw 0 whatever algbw is */
			double a = f > 0 ? b[h] / f : 10.0 * (i + 1);

			tprintf(t, "  %7.1f  %6.2f  %6.2f  %5d", a > 0 ? s / a / 1e3 : 0, a, b[h],
			        0);
		}
		tprintf(t, "\n");
	}
	tprintf(t, "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 1.0\n#\n");
}

#endif
