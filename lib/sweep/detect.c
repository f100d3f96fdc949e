#include "sweep/detect.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strutil.h"

#define MAX_EXPECTED 4096 /* configured sizes we reconstruct; more: not judged */

static const char *const kind_names[GOLDEN_FIND_NKINDS] = {
    "wrong",          "missing", "slower-than-default", "scaling",
    "below-expected", "dip",     "not-a-bandwidth-test"};

/* Worst first: data corruption, then lost sizes, then slowness. */
static const double kind_weight[GOLDEN_FIND_NKINDS] = {7, 6, 5, 4, 3, 2, 1};

const char *golden_sweep_kind_name(enum golden_sweep_kind k)
{
	return k >= 0 && k < GOLDEN_FIND_NKINDS ? kind_names[k] : "?";
}

void golden_sweep_opts_init(struct golden_sweep_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->dip_threshold = 0.10;
	o->noise_floor = 1.0;
	o->scaling_tolerance = 0.10;
	o->ab_tolerance = 0.10;
	o->large_size = 1LL << 30;
	o->min_bw_size = 1LL << 20;
}

void golden_sweep_result_free(struct golden_sweep_result *res)
{
	if (!res)
		return;
	free(res->f);
	free(res->notes);
	memset(res, 0, sizeof(*res));
}

struct ctx {
	const struct golden_sweep_set *set;
	const struct golden_sweep_opts *o;
	struct golden_sweep_result *res;
	bool oom;
};

static struct golden_sweep_finding *add(struct ctx *c, enum golden_sweep_kind kind, int run,
                                        int placement, const char *what)
{
	struct golden_sweep_result *r = c->res;
	struct golden_sweep_finding *f;

	if (r->n == r->cap) {
		int cap = r->cap ? r->cap * 2 : 16;
		struct golden_sweep_finding *n = realloc(r->f, sizeof(*n) * (size_t)cap);

		if (!n) {
			c->oom = true;
			return NULL;
		}
		r->f = n;
		r->cap = cap;
	}
	f = &r->f[r->n++];
	memset(f, 0, sizeof(*f));
	f->kind = kind;
	f->run = run;
	f->placement = placement;
	f->other = -1;
	golden_strlcpy(f->what, what, sizeof(f->what));
	return f;
}

static void note(struct ctx *c, int run, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void note(struct ctx *c, int run, const char *fmt, ...)
{
	struct golden_sweep_result *r = c->res;
	va_list ap;

	if (r->nnotes == r->notecap) {
		int cap = r->notecap ? r->notecap * 2 : 16;
		struct golden_sweep_note *n = realloc(r->notes, sizeof(*n) * (size_t)cap);

		if (!n) {
			c->oom = true;
			return;
		}
		r->notes = n;
		r->notecap = cap;
	}
	r->notes[r->nnotes].run = run;
	va_start(ap, fmt);
	vsnprintf(r->notes[r->nnotes].text, sizeof(r->notes[0].text), fmt, ap);
	va_end(ap);
	r->nnotes++;
}

static void text(struct golden_sweep_finding *f, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void text(struct golden_sweep_finding *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f->text, sizeof(f->text), fmt, ap);
	va_end(ap);
}

#define SZ(v, b) golden_sweep_size_str((v), (b), sizeof(b))

/* "2 MiB" or "2 MiB to 64 MiB (6 sizes)" */
static const char *range(long long a, long long b, int n, char *buf, size_t len)
{
	char x[32], y[32];

	if (n <= 1 || a == b)
		snprintf(buf, len, "%s", golden_sweep_size_str(a, x, sizeof(x)));
	else
		snprintf(buf, len, "%s to %s (%d sizes)", golden_sweep_size_str(a, x, sizeof(x)),
		         golden_sweep_size_str(b, y, sizeof(y)), n);
	return buf;
}

double golden_sweep_peak(const struct golden_sweep_run *r, int placement, long long lo,
                         long long hi, long long *at)
{
	double best = -1;

	for (int i = 0; i < r->nrows; i++) {
		const struct golden_sweep_row *w = &r->rows[i];
		const struct golden_sweep_half *h = &w->half[placement];

		if (!h->present || w->size <= 0 || w->size < lo || (hi > 0 && w->size > hi))
			continue;
		if (h->busbw > best) {
			best = h->busbw;
			if (at)
				*at = w->size;
		}
	}
	return best;
}

static bool one_rank(const struct golden_sweep_run *r)
{
	return r->ranks == 1;
}

/* ----------------------------------------------------------------- dip */

static void dips(struct ctx *c, const struct golden_sweep_run *r, int pl)
{
	const struct golden_sweep_opts *o = c->o;
	double best = -1;
	long long best_at = 0;
	struct golden_sweep_finding *f = NULL;
	int last = -1;

	for (int i = 0; i < r->nrows; i++) {
		const struct golden_sweep_row *w = &r->rows[i];
		const struct golden_sweep_half *h = &w->half[pl];

		if (!h->present || w->size <= 0)
			continue;
		if (best >= o->noise_floor && h->busbw < best * (1 - o->dip_threshold)) {
			if (!f || last != i - 1 || f->reference != best) {
				f = add(c, GOLDEN_FIND_DIP, r->id, pl, "dip");
				if (!f)
					return;
				f->size = w->size;
				f->reference = best;
				f->value = h->busbw;
				f->other = -1;
				/* the size the best was reached at */
				f->expected_ratio = (double)best_at;
			}
			f->size_to = w->size;
			f->nsizes++;
			if (h->busbw < f->value)
				f->value = h->busbw;
			last = i;
			continue;
		}
		if (h->busbw > best) {
			best = h->busbw;
			best_at = w->size;
		}
	}
	for (int i = 0; i < c->res->n; i++) {
		struct golden_sweep_finding *d = &c->res->f[i];
		char a[64], b[32];

		if (d->kind != GOLDEN_FIND_DIP || d->run != r->id || d->placement != pl ||
		    d->text[0])
			continue;
		d->ratio = d->value / d->reference;
		if (d->nsizes == 1)
			text(d, "busbw %.2f GB/s at %s is %.0f%% below %.2f GB/s reached at %s",
			     d->value, range(d->size, d->size, 1, a, sizeof(a)),
			     100 * (1 - d->ratio), d->reference,
			     SZ((long long)d->expected_ratio, b));
		else
			text(d,
			     "busbw falls to %.2f GB/s at %s, %.0f%% below %.2f GB/s reached at %s",
			     d->value, range(d->size, d->size_to, d->nsizes, a, sizeof(a)),
			     100 * (1 - d->ratio), d->reference,
			     SZ((long long)d->expected_ratio, b));
		d->expected_ratio = 0;
		d->severity = kind_weight[GOLDEN_FIND_DIP] * 10 + 9.9 * (1 - d->ratio);
	}
}

/* --------------------------------------------------------------- wrong */

/* nccl-tests' DeltaMaxValue: the largest deviation it accepts per type. */
static double tolerance(const char *type)
{
	if (!strcmp(type, "half") || !strcmp(type, "bfloat16") || !strncmp(type, "fp8", 3) ||
	    !strcmp(type, "float16"))
		return 1e-2;
	if (!strcmp(type, "float") || !strcmp(type, "float32"))
		return 1e-5;
	if (!strcmp(type, "double") || !strcmp(type, "float64"))
		return 1e-12;
	return 0; /* integer types: exact */
}

static bool bad(const struct golden_sweep_run *r, const struct golden_sweep_row *w,
                const struct golden_sweep_half *h)
{
	if (!h->present || h->wrong < 0)
		return false;
	if (r->layout.errcol == GOLDEN_SWEEP_ERR_WRONG)
		return h->wrong > 0;
	return h->wrong > tolerance(w->type);
}

static int wrongs(struct ctx *c, const struct golden_sweep_run *r, int pl)
{
	struct golden_sweep_finding *f = NULL;
	bool counts = r->layout.errcol == GOLDEN_SWEEP_ERR_WRONG;
	int last = -1, found = 0;

	for (int i = 0; i < r->nrows; i++) {
		const struct golden_sweep_row *w = &r->rows[i];
		const struct golden_sweep_half *h = &w->half[pl];

		if (!bad(r, w, h))
			continue;
		found++;
		if (!f || last != i - 1) {
			f = add(c, GOLDEN_FIND_WRONG, r->id, pl, counts ? "wrong" : "error");
			if (!f)
				return found;
			f->size = w->size;
			f->value = h->busbw;
		}
		f->size_to = w->size;
		f->nsizes++;
		if (h->wrong > f->wrong)
			f->wrong = h->wrong;
		last = i;
	}
	for (int i = 0; i < c->res->n; i++) {
		struct golden_sweep_finding *d = &c->res->f[i];
		char a[64];

		if (d->kind != GOLDEN_FIND_WRONG || d->run != r->id || d->placement != pl ||
		    d->text[0])
			continue;
		range(d->size, d->size_to, d->nsizes, a, sizeof(a));
		if (counts)
			text(d, "%s at %s: up to %.0f wrong elements",
			     d->nsizes > 1 ? "#wrong > 0" : "#wrong", a, d->wrong);
		else if (tolerance(r->rows[0].type) > 0)
			text(d, "error %.0e at %s, above nccl-tests' tolerance %.0e for %s",
			     d->wrong, a, tolerance(r->rows[0].type), r->rows[0].type);
		else
			text(d, "error %.0e at %s: %s results must match exactly", d->wrong, a,
			     r->rows[0].type);
		d->severity = kind_weight[GOLDEN_FIND_WRONG] * 10 + fmin(9.9, log10(1 + d->wrong));
	}
	return found;
}

/* ------------------------------------------------------------- missing */

static int expected_sizes(const struct golden_sweep_run *r, long long *e, int max)
{
	long long hi = r->max_bytes, s;
	int n = 0;

	if (!r->have_config || r->min_bytes <= 0 || r->max_bytes < r->min_bytes)
		return -1;
	if (r->reduced_max > 0 && r->reduced_max < hi)
		hi = r->reduced_max;
	for (s = r->min_bytes; s <= hi; n++) {
		if (n >= max)
			return -1;
		e[n] = s;
		if (r->step_factor > 1)
			s *= r->step_factor;
		else if (r->step_bytes > 0)
			s += r->step_bytes;
		else
			break;
	}
	return r->step_factor > 1 || r->step_bytes > 0 || n ? n : -1;
}

/* " (line 12)", or "" for JSON (no lines). */
static const char *at_line(int line, char *buf, size_t len)
{
	if (line > 0)
		snprintf(buf, len, " (line %d)", line);
	else
		buf[0] = '\0';
	return buf;
}

static const char *why_stopped(const struct golden_sweep_run *r, char *buf, size_t len)
{
	char l[32];

	if (r->timeout)
		snprintf(buf, len, "; it hung: %s%s", r->failure,
		         at_line(r->failure_line, l, sizeof(l)));
	else if (r->nfailures)
		snprintf(buf, len, "; the log says: %s%s", r->failure,
		         at_line(r->failure_line, l, sizeof(l)));
	else if (r->ntruncated)
		snprintf(buf, len, "; the next row is cut short at line %d ('%s')",
		         r->truncated_line, r->truncated_text);
	else if (r->meta_exit > 0)
		snprintf(buf, len, "; the launcher exited with status %d", r->meta_exit);
	else
		buf[0] = '\0';
	return buf;
}

static void missing(struct ctx *c, const struct golden_sweep_run *r)
{
	long long *e = malloc(sizeof(*e) * MAX_EXPECTED);
	int ne = e ? expected_sizes(r, e, MAX_EXPECTED) : -1, j = 0;
	bool failure_told = false, truncated_told = false;
	struct golden_sweep_finding *f;
	char a[64], b[32], why[320], lb[32];

	if (!r->nrows) {
		f = add(c, GOLDEN_FIND_MISSING, r->id, -1,
		        r->timeout     ? "timeout"
		        : r->nfailures ? "failed"
		                       : "no-rows");
		if (f) {
			if (r->timeout || r->nfailures)
				text(f, "%s before its first size: %s%s",
				     r->timeout ? "hung" : "failed", r->failure,
				     at_line(r->failure_line, lb, sizeof(lb)));
			else if (r->ntruncated)
				text(f,
				     "no complete row: the only row is cut short at line %d ('%s')",
				     r->truncated_line, r->truncated_text);
			else if (r->meta_exit > 0)
				text(f, "no rows: the launcher exited with status %d",
				     r->meta_exit);
			else
				text(f, "no rows: the log ends after the %s",
				     r->header ? "table header" : "run's preamble");
			f->severity = kind_weight[GOLDEN_FIND_MISSING] * 10 + 9;
		}
		free(e);
		return;
	}
	if (ne > 0) {
		int absent = 0, lead_absent = 0;

		for (int i = 0; i < r->nrows; i++) {
			long long s = r->rows[i].size;
			int from = j;

			while (j < ne && e[j] < s)
				j++;
			if (j > from) {
				bool leading = from == 0 && i == 0;

				absent += j - from;
				if (leading)
					lead_absent = j;
				if ((leading && r->truncated_small) || r->elided) {
					/* The author cut them: said in a note. */
				} else if ((f = add(c, GOLDEN_FIND_MISSING, r->id, -1,
				                    "sizes-absent"))) {
					f->size = e[from];
					f->size_to = e[j - 1];
					f->nsizes = j - from;
					text(f, "%s absent between the rows (%d configured sizes)",
					     range(e[from], e[j - 1], j - from, a, sizeof(a)), ne);
					f->severity = kind_weight[GOLDEN_FIND_MISSING] * 10 + 5;
				}
			}
			if (j < ne)
				j++;
		}
		if (absent && (r->elided || (r->truncated_small && absent == lead_absent)))
			note(c, r->id, "%d of %d configured sizes are not shown (%s in the log)",
			     absent, ne,
			     r->elided ? "elided with '...'" : "truncated smaller sizes");
		if (j < ne) {
			f = add(c, GOLDEN_FIND_MISSING, r->id, -1,
			        r->timeout ? "timeout" : "stopped-early");
			if (f) {
				f->size = e[j];
				f->size_to = e[ne - 1];
				f->nsizes = ne - j;
				text(f, "stopped after %s: %s of the configured sweep absent%s",
				     SZ(r->rows[r->nrows - 1].size, b),
				     range(e[j], e[ne - 1], ne - j, a, sizeof(a)),
				     why_stopped(r, why, sizeof(why)));
				f->severity = kind_weight[GOLDEN_FIND_MISSING] * 10 + 8;
				failure_told = r->nfailures || r->timeout;
				truncated_told = !failure_told && r->ntruncated;
			}
		}
	}
	if (r->ntruncated && !truncated_told &&
	    (f = add(c, GOLDEN_FIND_MISSING, r->id, -1, "truncated-row"))) {
		text(f, "%d row%s cut short, the first at line %d: '%s'", r->ntruncated,
		     r->ntruncated == 1 ? "" : "s", r->truncated_line, r->truncated_text);
		f->nsizes = r->ntruncated;
		f->severity = kind_weight[GOLDEN_FIND_MISSING] * 10 + 3;
	}
	if ((r->nfailures || r->timeout) && !failure_told &&
	    (f = add(c, GOLDEN_FIND_MISSING, r->id, -1, r->timeout ? "timeout" : "failed"))) {
		text(f, "%s: %s%s", r->timeout ? "hang or time limit" : "failure in the log",
		     r->failure, at_line(r->failure_line, lb, sizeof(lb)));
		f->severity = kind_weight[GOLDEN_FIND_MISSING] * 10 + 7;
	} else if (!r->nfailures && !r->timeout && r->meta_exit > 0 &&
	           (f = add(c, GOLDEN_FIND_MISSING, r->id, -1, "failed"))) {
		text(f, "the launcher exited with status %d", r->meta_exit);
		f->severity = kind_weight[GOLDEN_FIND_MISSING] * 10 + 6;
	}
	if (ne < 0 && r->have_config)
		note(c, r->id,
		     "configured sizes could not be reconstructed: missing sizes not judged");
	if (r->nfragments)
		note(c, r->id, "%d piece%s of rows without their start (line %d): not read",
		     r->nfragments, r->nfragments == 1 ? "" : "s", r->fragment_line);
	free(e);
}

/* ---------------------------------------------------- not a bw test */

static bool not_bw(struct ctx *c, const struct golden_sweep_run *r)
{
	struct golden_sweep_finding *f;
	long long m = golden_sweep_run_max_size(r);
	char b[32];

	if (!r->nrows)
		return true;
	if (one_rank(r)) {
		f = add(c, GOLDEN_FIND_NOTBW, r->id, -1, "one-rank");
		if (f) {
			text(f,
			     "one rank: busbw = algbw x %s = %s; nothing crossed a bus or network",
			     golden_sweep_factor_formula(r->coll),
			     golden_sweep_busbw_factor(r->coll, 1) == 0 ? "0" : "algbw");
			f->severity = kind_weight[GOLDEN_FIND_NOTBW] * 10 + 5;
		}
		return true;
	}
	if (m < c->o->min_bw_size) {
		f = add(c, GOLDEN_FIND_NOTBW, r->id, -1, "latency-only");
		if (f) {
			char x[32];

			f->size = m;
			text(f, "largest size %s: only latency-bound sizes (below %s)", SZ(m, b),
			     SZ(c->o->min_bw_size, x));
			f->severity = kind_weight[GOLDEN_FIND_NOTBW] * 10 + 2;
		}
		return true;
	}
	return false;
}

/* ------------------------------------------------------ below-expected */

static void below(struct ctx *c, const struct golden_sweep_run *r)
{
	const struct golden_sweep_expect *x = c->o->expect;
	const struct golden_sweep_expect_entry *e;
	long long m = golden_sweep_run_max_size(r);
	char b[32], d[32];

	if (!x || !strcmp(r->env, "default"))
		return;
	if (r->nodes < 1) {
		note(c, r->id,
		     "not judged against %s's expectations: the node count is not in the log "
		     "(--gpus-per-node or --nodes tells it)",
		     x->recipe[0] ? x->recipe : "the");
		return;
	}
	e = golden_sweep_expect_find(x, r->coll, r->nodes);
	if (!e) {
		note(c, r->id, "%s has no expectation for %s on %d node%s", x->recipe,
		     golden_sweep_coll_name(r->coll), r->nodes, r->nodes == 1 ? "" : "s");
		return;
	}
	if (m < e->min_size) {
		note(c, r->id,
		     "not judged against %s's %.0f GB/s: the sweep stops at %s, the figure holds "
		     "from %s",
		     x->recipe, e->min_busbw, SZ(m, b), SZ(e->min_size, d));
		return;
	}
	for (int pl = 0; pl < 2; pl++) {
		long long at = 0;
		double peak = golden_sweep_peak(r, pl, e->min_size, 0, &at);
		struct golden_sweep_finding *f;

		if (peak < 0 || peak >= e->min_busbw)
			continue;
		f = add(c, GOLDEN_FIND_BELOW, r->id, pl, "below-expected");
		if (!f)
			return;
		f->size = at;
		f->value = peak;
		f->reference = e->min_busbw;
		f->ratio = peak / e->min_busbw;
		text(f,
		     "peak busbw %.1f GB/s (at %s) is %.0f%% of the %.0f GB/s %s expects for %s on "
		     "%d node%s",
		     peak, SZ(at, b), 100 * f->ratio, e->min_busbw, x->recipe,
		     golden_sweep_coll_name(r->coll), r->nodes, r->nodes == 1 ? "" : "s");
		f->severity = kind_weight[GOLDEN_FIND_BELOW] * 10 + 9.9 * (1 - f->ratio);
	}
}

/* -------------------------------------------------------------- scaling */

static bool judged(const struct golden_sweep_run *r, const bool *skip)
{
	return r->nrows && !skip[r->id] && r->nodes > 0;
}

static bool same_group(const struct golden_sweep_run *a, const struct golden_sweep_run *b)
{
	return a->coll == b->coll && !strcmp(a->env, b->env);
}

static void scaling(struct ctx *c, const bool *skip)
{
	const struct golden_sweep_set *s = c->set;
	int *best = malloc(sizeof(int) * (size_t)(s->nruns + 1));
	bool *done = calloc((size_t)s->nruns + 1, 1);
	bool told_one = false;

	if (!best || !done) {
		c->oom = true;
		free(best);
		free(done);
		return;
	}
	for (int g = 0; g < s->nruns; g++) {
		const struct golden_sweep_run *lead = &s->runs[g];
		int n = 0;

		if (done[g] || !judged(lead, skip))
			continue;
		/* The group: same collective and environment; per node count
		 * the run with the highest busbw (tuned reruns judged at their
		 * best). */
		for (int i = g; i < s->nruns; i++) {
			const struct golden_sweep_run *r = &s->runs[i];
			int k;

			if (done[i] || !judged(r, skip) || !same_group(lead, r))
				continue;
			done[i] = true;
			for (k = 0; k < n && s->runs[best[k]].nodes != r->nodes; k++)
				;
			if (k == n) {
				best[n++] = i;
			} else {
				double pa =
				    fmax(golden_sweep_peak(&s->runs[best[k]], 0, 0, 0, NULL),
				         golden_sweep_peak(&s->runs[best[k]], 1, 0, 0, NULL));
				double pb = fmax(golden_sweep_peak(r, 0, 0, 0, NULL),
				                 golden_sweep_peak(r, 1, 0, 0, NULL));

				if (pb > pa)
					best[k] = i;
			}
		}
		/* by node count */
		for (int a = 1; a < n; a++)
			for (int b = a;
			     b > 0 && s->runs[best[b]].nodes < s->runs[best[b - 1]].nodes; b--) {
				int t = best[b];

				best[b] = best[b - 1];
				best[b - 1] = t;
			}
		if (n > 1 && s->runs[best[0]].nodes == 1 && !told_one) {
			note(c, -1,
			     "single-node runs are NVLink/PCIe-bound: scaling is judged from 2 "
			     "nodes "
			     "on");
			told_one = true;
		}
		for (int k = 1; k < n; k++) {
			const struct golden_sweep_run *ra = &s->runs[best[k - 1]],
			                              *rb = &s->runs[best[k]];
			long long hi = golden_sweep_run_max_size(ra), lo;
			double want = golden_sweep_scaling_expected(ra->coll, ra->nodes, rb->nodes);

			if (ra->nodes < 2)
				continue;
			if (golden_sweep_run_max_size(rb) < hi)
				hi = golden_sweep_run_max_size(rb);
			lo = c->o->large_size < hi ? c->o->large_size : hi;
			for (int pl = 0; pl < 2; pl++) {
				long long at = 0;
				double pa = golden_sweep_peak(ra, pl, lo, hi, NULL);
				double pb = golden_sweep_peak(rb, pl, lo, hi, &at);
				struct golden_sweep_finding *f;
				char x[32], y[32];

				if (pa < c->o->noise_floor || pb < 0 ||
				    pb >= pa * want * (1 - c->o->scaling_tolerance))
					continue;
				f = add(c, GOLDEN_FIND_SCALING, rb->id, pl, "scaling");
				if (!f)
					goto out;
				f->other = ra->id;
				f->size = lo;
				f->size_to = hi;
				f->value = pb;
				f->reference = pa;
				f->ratio = pb / pa;
				f->expected_ratio = want;
				text(f,
				     "large-message busbw %.1f GB/s on %d nodes is %.0f%% of %.1f "
				     "GB/s "
				     "on %d nodes (sizes %s to %s); %s explains %.0f%%",
				     pb, rb->nodes, 100 * f->ratio, pa, ra->nodes, SZ(lo, x),
				     SZ(hi, y), golden_sweep_coll_name(rb->coll), 100 * want);
				f->severity = kind_weight[GOLDEN_FIND_SCALING] * 10 +
				              9.9 * fmax(0, 1 - f->ratio / want);
			}
		}
	}
out:
	free(best);
	free(done);
}

/* ------------------------------------------------- slower than default */

static const struct golden_sweep_row *row_at(const struct golden_sweep_run *r, long long size)
{
	for (int i = 0; i < r->nrows; i++)
		if (r->rows[i].size == size)
			return &r->rows[i];
	return NULL;
}

static void compare_ab(struct ctx *c, const struct golden_sweep_run *g,
                       const struct golden_sweep_run *d)
{
	for (int pl = 0; pl < 2; pl++) {
		struct golden_sweep_finding *f = NULL;
		int last = -1;

		for (int i = 0; i < g->nrows; i++) {
			const struct golden_sweep_row *wg = &g->rows[i], *wd;
			double ratio;

			if (wg->size <= 0 || !wg->half[pl].present || !(wd = row_at(d, wg->size)) ||
			    !wd->half[pl].present || wd->half[pl].busbw < c->o->noise_floor)
				continue;
			ratio = wg->half[pl].busbw / wd->half[pl].busbw;
			if (ratio >= 1 - c->o->ab_tolerance)
				continue;
			if (!f || last != i - 1) {
				f = add(c, GOLDEN_FIND_SLOWER, g->id, pl, "slower-than-default");
				if (!f)
					return;
				f->other = d->id;
				f->size = wg->size;
				f->ratio = 2;
			}
			f->size_to = wg->size;
			f->nsizes++;
			if (ratio < f->ratio) {
				f->ratio = ratio;
				f->value = wg->half[pl].busbw;
				f->reference = wd->half[pl].busbw;
				f->wrong = (double)wg->size; /* where it is worst, for the text */
			}
			last = i;
		}
	}
	for (int i = 0; i < c->res->n; i++) {
		struct golden_sweep_finding *f = &c->res->f[i];
		char a[64], b[32];

		if (f->kind != GOLDEN_FIND_SLOWER || f->run != g->id || f->text[0])
			continue;
		text(f,
		     "golden busbw %.1f GB/s at %s is %.0f%% below NCCL's defaults (%.1f GB/s); "
		     "slower at %s",
		     f->value, SZ((long long)f->wrong, b), 100 * (1 - f->ratio), f->reference,
		     range(f->size, f->size_to, f->nsizes, a, sizeof(a)));
		f->wrong = 0;
		f->severity = kind_weight[GOLDEN_FIND_SLOWER] * 10 + 9.9 * (1 - f->ratio);
	}
}

static void slower(struct ctx *c)
{
	const struct golden_sweep_set *s = c->set;
	bool *used = calloc((size_t)s->nruns + 1, 1);

	if (!used) {
		c->oom = true;
		return;
	}
	for (int i = 0; i < s->nruns; i++) {
		const struct golden_sweep_run *g = &s->runs[i];

		if (strcmp(g->env, "golden") || !g->nrows)
			continue;
		for (int j = 0; j < s->nruns; j++) {
			const struct golden_sweep_run *d = &s->runs[j];

			if (used[j] || strcmp(d->env, "default") || d->coll != g->coll ||
			    d->nodes != g->nodes || strcmp(d->nodelist, g->nodelist) ||
			    strcmp(d->label, g->label))
				continue;
			used[j] = true;
			compare_ab(c, g, d);
			break;
		}
	}
	free(used);
}

/* ----------------------------------------------------------------- all */

/* One finding for both placements where they agree (same kind, run and
 * comparison): the worse numbers, placement -1. */
static void merge_placements(struct golden_sweep_result *res)
{
	for (int i = 0; i < res->n; i++) {
		struct golden_sweep_finding *a = &res->f[i];

		if (a->placement != GOLDEN_SWEEP_OOP ||
		    (a->kind != GOLDEN_FIND_BELOW && a->kind != GOLDEN_FIND_SCALING &&
		     a->kind != GOLDEN_FIND_SLOWER))
			continue;
		for (int j = 0; j < res->n; j++) {
			struct golden_sweep_finding *b = &res->f[j];

			if (j == i || b->placement != GOLDEN_SWEEP_IP || b->kind != a->kind ||
			    b->run != a->run || b->other != a->other)
				continue;
			/* Slower-than-default comes in size ranges: only the same one. */
			if (a->kind == GOLDEN_FIND_SLOWER &&
			    (b->size > a->size_to || a->size > b->size_to))
				continue;
			if (b->severity > a->severity) {
				*a = *b;
			}
			a->placement = -1;
			golden_strlcat(a->text, " (out-of-place and in-place)", sizeof(a->text));
			res->f[j] = res->f[--res->n];
			if (i == res->n)
				i = j;
			break;
		}
	}
}

static int cmp_findings(const void *pa, const void *pb)
{
	const struct golden_sweep_finding *a = pa, *b = pb;

	if (a->severity != b->severity)
		return a->severity < b->severity ? 1 : -1;
	if (a->run != b->run)
		return a->run - b->run;
	if (a->placement != b->placement)
		return a->placement - b->placement;
	return a->size < b->size ? -1 : a->size > b->size;
}

int golden_sweep_detect(const struct golden_sweep_set *set, const struct golden_sweep_opts *o,
                        struct golden_sweep_result *res)
{
	struct golden_sweep_opts def;
	struct ctx c = {set, o, res, false};
	bool *skip = calloc((size_t)set->nruns + 1, 1);

	memset(res, 0, sizeof(*res));
	if (!o) {
		golden_sweep_opts_init(&def);
		c.o = &def;
	}
	if (!skip)
		return -1;
	for (int i = 0; i < set->nruns && !c.oom; i++) {
		const struct golden_sweep_run *r = &set->runs[i];
		int nwrong = 0;

		missing(&c, r);
		if (r->ranks_src == GOLDEN_SWEEP_SRC_INFERRED && r->max_rank >= 0 &&
		    r->ranks != r->max_rank + 1)
			note(
			    &c, r->id,
			    "the device list shows %d ranks but busbw/algbw = %s says %d: the list "
			    "is incomplete or edited; %d is used",
			    r->max_rank + 1, golden_sweep_factor_formula(r->coll), r->ranks,
			    r->ranks);
		for (int pl = 0; pl < 2; pl++)
			nwrong += wrongs(&c, r, pl);
		if (r->oob_failed && !nwrong) {
			struct golden_sweep_finding *f =
			    add(&c, GOLDEN_FIND_WRONG, r->id, -1, "oob-failed");

			if (f) {
				f->wrong = (double)r->oob;
				text(f, "nccl-tests reports %lld out-of-bounds values (FAILED)",
				     r->oob);
				f->severity = kind_weight[GOLDEN_FIND_WRONG] * 10 + 5;
			}
		}
		skip[i] = not_bw(&c, r);
		if (skip[i])
			continue;
		for (int pl = 0; pl < 2; pl++)
			dips(&c, r, pl);
		below(&c, r);
	}
	if (!c.oom)
		scaling(&c, skip);
	if (!c.oom)
		slower(&c);
	free(skip);
	if (c.oom)
		return -1;
	merge_placements(res);
	if (res->n > 1)
		qsort(res->f, (size_t)res->n, sizeof(res->f[0]), cmp_findings);
	return 0;
}

bool golden_sweep_is_dip(const struct golden_sweep_result *res, int run, int placement,
                         long long size)
{
	for (int i = 0; i < res->n; i++) {
		const struct golden_sweep_finding *f = &res->f[i];

		if (f->kind == GOLDEN_FIND_DIP && f->run == run && f->placement == placement &&
		    size >= f->size && size <= f->size_to)
			return true;
	}
	return false;
}
