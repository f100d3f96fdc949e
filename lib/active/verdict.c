#include <config.h>

#include "active/verdict.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "active/expect.h"
#include "util/strutil.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double golden_active_median(const double *v, int n)
{
	double s[GOLDEN_ACTIVE_MAX_PAIRS];

	if (n <= 0)
		return 0;
	if (n > GOLDEN_ACTIVE_MAX_PAIRS)
		n = GOLDEN_ACTIVE_MAX_PAIRS;
	memcpy(s, v, sizeof(double) * (size_t)n);
	qsort(s, (size_t)n, sizeof(double), cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

double golden_active_busbw(double bytes, double seconds, int nranks)
{
	if (seconds <= 0 || nranks < 1)
		return 0;
	return bytes / seconds / 1e9 * 2.0 * (nranks - 1) / nranks;
}

/* Codes are cut at 20 characters on purpose: format wide, then copy. */
static void __attribute__((format(printf, 3, 4)))
set_code(char *code, size_t len, const char *fmt, ...)
{
	char wide[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(wide, sizeof(wide), fmt, ap);
	va_end(ap);
	golden_strlcpy(code, wide, len < GOLDEN_ACTIVE_CODE_LEN ? len : GOLDEN_ACTIVE_CODE_LEN);
}

static void fmt_num(char *buf, size_t len, double v)
{
	snprintf(buf, len, v < 10 ? "%.1f" : "%.0f", v);
}

void golden_active_code(char *buf, size_t len, const char *who, const char *what, double value,
                        double limit, const char *unit)
{
	char v[32], l[32], full[96];

	fmt_num(v, sizeof(v), value);
	fmt_num(l, sizeof(l), limit);
	if (!strcmp(v, l) && value < 10) { /* "2.7<2.7" says nothing */
		snprintf(v, sizeof(v), "%.2f", value);
		snprintf(l, sizeof(l), "%.2f", limit);
	}
	snprintf(full, sizeof(full), "%s %s %s<%s%s", who, what, v, l, unit);
	if (strlen(full) >= GOLDEN_ACTIVE_CODE_LEN)
		snprintf(full, sizeof(full), "%s %s %s<%s", who, what, v, l);
	golden_strlcpy(buf, full, len < GOLDEN_ACTIVE_CODE_LEN ? len : GOLDEN_ACTIVE_CODE_LEN);
}

/* Which tests a phase measures. */
static int phase_tests(enum golden_active_phase p, enum golden_active_test t[2])
{
	switch (p) {
	case GOLDEN_ACTIVE_PH_HBM:
		t[0] = GOLDEN_ACTIVE_HBM;
		return 1;
	case GOLDEN_ACTIVE_PH_GEMM:
		t[0] = GOLDEN_ACTIVE_BF16;
		t[1] = GOLDEN_ACTIVE_TF32;
		return 2;
	case GOLDEN_ACTIVE_PH_PCIE:
		t[0] = GOLDEN_ACTIVE_H2D;
		t[1] = GOLDEN_ACTIVE_D2H;
		return 2;
	case GOLDEN_ACTIVE_PH_P2P:
		t[0] = GOLDEN_ACTIVE_P2P;
		return 1;
	case GOLDEN_ACTIVE_PH_MEMTEST:
		t[0] = GOLDEN_ACTIVE_MEMTEST;
		return 1;
	default:
		return 0;
	}
}

/* Phases that work on every GPU at once: a hang there may be any GPU that
 * did not finish. The others go GPU by GPU: the first unfinished one hung. */
static bool concurrent(enum golden_active_phase p)
{
	return p == GOLDEN_ACTIVE_PH_HBM || p == GOLDEN_ACTIVE_PH_GEMM ||
	       p == GOLDEN_ACTIVE_PH_MEMTEST;
}

static void reset(struct golden_active_report *r)
{
	for (int g = 0; g < r->ngpus; g++)
		for (int t = 0; t < GOLDEN_ACTIVE_NTESTS; t++) {
			struct golden_active_figure *f = &r->gpu[g].fig[t];

			f->verdict = GOLDEN_ACTIVE_V_NONE;
			f->expect_min = 0;
			f->sibling_med = 0;
		}
	r->nccl.verdict = GOLDEN_ACTIVE_V_NONE;
	r->nccl.expect_min = 0;
	r->code[0] = '\0';
	r->detail[0] = '\0';
	r->nfailed = 0;
}

/* A GPU's peer figure: the median of the copies it took part in. */
static void p2p_figures(struct golden_active_report *r)
{
	for (int g = 0; g < r->ngpus; g++) {
		struct golden_active_figure *f = &r->gpu[g].fig[GOLDEN_ACTIVE_P2P];
		double v[GOLDEN_ACTIVE_MAX_GPUS * 2];
		int n = 0;

		for (int i = 0; i < r->npairs && n < (int)(sizeof(v) / sizeof(v[0])); i++) {
			const struct golden_active_pair *p = &r->pair[i];

			if (p->a != r->gpu[g].index && p->b != r->gpu[g].index)
				continue;
			if (p->error[0] && !f->error[0])
				snprintf(f->error, sizeof(f->error), "gpu%d->gpu%d: %s", p->a, p->b,
				         p->error);
			if (p->gbps > 0)
				v[n++] = p->gbps;
		}
		if (n) {
			f->measured = true;
			f->value = golden_active_median(v, n);
		}
	}
}

static void hung_phases(struct golden_active_report *r)
{
	for (int p = GOLDEN_ACTIVE_PH_HBM; p < GOLDEN_ACTIVE_NPHASES; p++) {
		enum golden_active_phase_end e = r->phase[p].end;
		enum golden_active_verdict v =
		    e == GOLDEN_ACTIVE_TIMEOUT ? GOLDEN_ACTIVE_V_TIMEOUT : GOLDEN_ACTIVE_V_ERROR;
		enum golden_active_test t[2];
		int nt = phase_tests((enum golden_active_phase)p, t);

		if (e != GOLDEN_ACTIVE_TIMEOUT && e != GOLDEN_ACTIVE_CRASHED)
			continue;
		if (p == GOLDEN_ACTIVE_PH_NCCL) {
			r->nccl.verdict = v;
			continue;
		}
		for (int g = 0; g < r->ngpus; g++) {
			if (r->gpu[g].done[p])
				continue;
			for (int k = 0; k < nt; k++) {
				struct golden_active_figure *f = &r->gpu[g].fig[t[k]];

				f->verdict = v;
				if (v == GOLDEN_ACTIVE_V_ERROR && !f->error[0])
					snprintf(
					    f->error, sizeof(f->error), "the %s phase crashed",
					    golden_active_phase_name((enum golden_active_phase)p));
			}
			if (!concurrent((enum golden_active_phase)p))
				break;
		}
	}
}

static void absolute(struct golden_active_report *r, bool *unknown_model)
{
	for (int g = 0; g < r->ngpus; g++) {
		struct golden_active_gpu *gpu = &r->gpu[g];
		const struct golden_active_model *m = golden_active_model_find(gpu->name);

		if (!m)
			*unknown_model = true;
		for (int t = 0; t < GOLDEN_ACTIVE_NTESTS; t++) {
			struct golden_active_figure *f = &gpu->fig[t];

			if (f->verdict != GOLDEN_ACTIVE_V_NONE)
				continue; /* hung */
			f->expect_min = golden_active_floor(m, (enum golden_active_test)t);
			if (f->error[0])
				f->verdict = GOLDEN_ACTIVE_V_ERROR;
			else if (!f->measured)
				continue;
			else if (t == GOLDEN_ACTIVE_MEMTEST)
				f->verdict =
				    f->value > 0 ? GOLDEN_ACTIVE_V_WRONG : GOLDEN_ACTIVE_V_OK;
			else if ((t == GOLDEN_ACTIVE_BF16 && gpu->gemm_max_err[0] > 1) ||
			         (t == GOLDEN_ACTIVE_TF32 && gpu->gemm_max_err[1] > 1))
				f->verdict = GOLDEN_ACTIVE_V_WRONG;
			else if (f->expect_min > 0 && f->value < f->expect_min)
				f->verdict = GOLDEN_ACTIVE_V_LOW_TABLE;
			else
				f->verdict = GOLDEN_ACTIVE_V_OK;
		}
	}
}

static double tolerance(const struct golden_active_judge_opts *o, enum golden_active_test t)
{
	return o && o->sibling_pct > 0 ? o->sibling_pct : golden_active_sibling_pct(t);
}

/* Each GPU against the median of the node's GPUs of the same model. */
static void siblings(struct golden_active_report *r, const struct golden_active_judge_opts *o)
{
	for (int t = 0; t < GOLDEN_ACTIVE_NTESTS; t++) {
		if (t == GOLDEN_ACTIVE_MEMTEST)
			continue;
		for (int g = 0; g < r->ngpus; g++) {
			struct golden_active_figure *f = &r->gpu[g].fig[t];
			double v[GOLDEN_ACTIVE_MAX_GPUS], med;
			int n = 0;

			if (!f->measured)
				continue;
			for (int h = 0; h < r->ngpus; h++)
				if (r->gpu[h].fig[t].measured &&
				    !strcmp(r->gpu[h].name, r->gpu[g].name))
					v[n++] = r->gpu[h].fig[t].value;
			if (n < 2)
				continue;
			med = golden_active_median(v, n);
			f->sibling_med = med;
			if (f->verdict == GOLDEN_ACTIVE_V_OK &&
			    f->value < med * (1 - tolerance(o, (enum golden_active_test)t) / 100))
				f->verdict = GOLDEN_ACTIVE_V_LOW_SIBLINGS;
		}
	}
}

static void nccl(struct golden_active_report *r)
{
	struct golden_active_nccl *c = &r->nccl;
	const struct golden_active_model *m =
	    r->ngpus ? golden_active_model_find(r->gpu[0].name) : NULL;

	if (c->verdict != GOLDEN_ACTIVE_V_NONE)
		return; /* hung or crashed */
	for (int g = 1; g < r->ngpus; g++)
		if (strcmp(r->gpu[g].name, r->gpu[0].name))
			m = NULL; /* a mixed node: no table */
	if (m && r->ngpus == 8)
		c->expect_min = m->nccl8_busbw;
	if (c->error[0])
		c->verdict = GOLDEN_ACTIVE_V_ERROR;
	else if (!c->measured)
		return;
	else if (c->wrong)
		c->verdict = GOLDEN_ACTIVE_V_WRONG;
	else if (c->expect_min > 0 && c->busbw_gbps < c->expect_min)
		c->verdict = GOLDEN_ACTIVE_V_LOW_TABLE;
	else
		c->verdict = GOLDEN_ACTIVE_V_OK;
}

static bool failing(enum golden_active_verdict v)
{
	return v >= GOLDEN_ACTIVE_V_LOW_SIBLINGS;
}

static const char *problem(enum golden_active_verdict v)
{
	switch (v) {
	case GOLDEN_ACTIVE_V_WRONG:
		return "wrong";
	case GOLDEN_ACTIVE_V_ERROR:
		return "error";
	case GOLDEN_ACTIVE_V_TIMEOUT:
		return "timeout";
	default:
		return "low";
	}
}

/* The code and a sentence for one failing GPU figure. */
static void explain_gpu(const struct golden_active_report *r, int g, enum golden_active_test t,
                        double tol, char *code, size_t clen, char *text, size_t tlen)
{
	const struct golden_active_gpu *gpu = &r->gpu[g];
	const struct golden_active_figure *f = &gpu->fig[t];
	const struct golden_active_model *m = golden_active_model_find(gpu->name);
	const char *tn = golden_active_test_name(t), *unit = golden_active_test_unit(t);
	char who[16], head[160];

	snprintf(who, sizeof(who), "gpu%d", gpu->index);
	snprintf(head, sizeof(head), "%s (%s, %s) %s", who, gpu->busid[0] ? gpu->busid : "?",
	         gpu->name[0] ? gpu->name : "?", tn);
	switch (f->verdict) {
	case GOLDEN_ACTIVE_V_LOW_TABLE:
		golden_active_code(code, clen, who, tn, f->value, f->expect_min, unit);
		snprintf(text, tlen,
		         "%s %.3g %s is below the floor %.3g %s (%.0f%% of the %s datasheet %.3g "
		         "%s)",
		         head, f->value, unit, f->expect_min, unit, 100 * golden_active_fraction(t),
		         m ? m->label : "?", golden_active_datasheet(m, t), unit);
		break;
	case GOLDEN_ACTIVE_V_LOW_SIBLINGS:
		golden_active_code(code, clen, who, tn, f->value, f->sibling_med * (1 - tol / 100),
		                   unit);
		snprintf(text, tlen,
		         "%s %.3g %s is more than %.0f%% below the median of this node's GPUs "
		         "(%.3g %s)",
		         head, f->value, unit, tol, f->sibling_med, unit);
		break;
	case GOLDEN_ACTIVE_V_WRONG:
		if (t == GOLDEN_ACTIVE_MEMTEST) {
			set_code(code, clen, "%s mem %.0f bad", who, f->value);
			snprintf(text, tlen,
			         "%s: %.0f wrong words in %.2f GiB of patterns (first at byte "
			         "offset %llu)",
			         head, f->value, gpu->memtest_gib, gpu->first_bad);
		} else {
			set_code(code, clen, "%s %s wrong", who, tn);
			snprintf(text, tlen,
			         "%s: results differ from the CPU reference on fresh random inputs "
			         "(worst error %.3g times the tolerance)",
			         head, gpu->gemm_max_err[t == GOLDEN_ACTIVE_TF32]);
		}
		break;
	case GOLDEN_ACTIVE_V_ERROR:
		set_code(code, clen, "%s %s error", who, tn);
		snprintf(text, tlen, "%s: %s", head, f->error[0] ? f->error : "failed");
		break;
	default:
		set_code(code, clen, "%s %s timeout", who, tn);
		snprintf(text, tlen, "%s: did not finish within the phase's deadline", head);
		break;
	}
}

static void explain_nccl(const struct golden_active_report *r, char *code, size_t clen, char *text,
                         size_t tlen)
{
	const struct golden_active_nccl *c = &r->nccl;

	switch (c->verdict) {
	case GOLDEN_ACTIVE_V_LOW_TABLE:
		golden_active_code(code, clen, "nccl", "ar", c->busbw_gbps, c->expect_min, "GB/s");
		snprintf(text, tlen,
		         "NCCL all-reduce over the node's %d GPUs: busbw %.0f GB/s at %.0f MiB per "
		         "rank, below the published acceptance floor %.0f GB/s",
		         r->ngpus, c->busbw_gbps, c->bytes / 1048576, c->expect_min);
		break;
	case GOLDEN_ACTIVE_V_WRONG:
		set_code(code, clen, "nccl ar wrong");
		snprintf(text, tlen, "NCCL all-reduce over %d GPUs returned wrong sums", r->ngpus);
		break;
	case GOLDEN_ACTIVE_V_ERROR:
		set_code(code, clen, "nccl ar error");
		snprintf(text, tlen, "NCCL all-reduce over %d GPUs: %s", r->ngpus,
		         c->error[0] ? c->error : "failed");
		break;
	default:
		set_code(code, clen, "nccl ar timeout");
		snprintf(text, tlen,
		         "NCCL all-reduce over %d GPUs did not finish within the phase's deadline",
		         r->ngpus);
		break;
	}
}

/* No GPU to judge: a driver that hangs or crashes fails the node; no GPU
 * where some are expected fails it; otherwise golden-active cannot judge. */
static void judge_empty(struct golden_active_report *r)
{
	enum golden_active_phase_end e = r->phase[GOLDEN_ACTIVE_PH_DISCOVER].end;

	if (e == GOLDEN_ACTIVE_TIMEOUT || e == GOLDEN_ACTIVE_CRASHED) {
		r->result = GOLDEN_ACTIVE_FAIL;
		r->nfailed = 1;
		set_code(r->code, sizeof(r->code), "cuda init %s",
		         e == GOLDEN_ACTIVE_TIMEOUT ? "timeout" : "crashed");
		snprintf(r->detail, sizeof(r->detail),
		         "CUDA initialisation %s: the driver is in trouble (see the kernel log)",
		         e == GOLDEN_ACTIVE_TIMEOUT ? "did not finish within its deadline"
		                                    : "crashed");
	} else if (r->expected_gpus > 0) {
		r->result = GOLDEN_ACTIVE_FAIL;
		r->nfailed = 1;
		set_code(r->code, sizeof(r->code), "gpu count 0<%d", r->expected_gpus);
		snprintf(r->detail, sizeof(r->detail), "CUDA sees no GPU, %d expected%s%s",
		         r->expected_gpus, r->env_error[0] ? ": " : "", r->env_error);
	} else {
		r->result = GOLDEN_ACTIVE_ERROR;
		snprintf(r->detail, sizeof(r->detail), "%s",
		         r->env_error[0] ? r->env_error : "no CUDA GPU found: nothing to test");
	}
}

void golden_active_judge(struct golden_active_report *r, const struct golden_active_judge_opts *o)
{
	enum golden_active_verdict worst = GOLDEN_ACTIVE_V_NONE;
	int wg = -1, wt = -1, shown = 0;
	bool unknown = false, short_gpus;
	char more[200] = "", item[32];
	size_t len;

	reset(r);
	if (r->ngpus == 0) {
		judge_empty(r);
		return;
	}
	if (r->env_error[0]) {
		r->result = GOLDEN_ACTIVE_ERROR;
		snprintf(r->detail, sizeof(r->detail), "%s", r->env_error);
		return;
	}
	p2p_figures(r);
	hung_phases(r);
	absolute(r, &unknown);
	siblings(r, o);
	nccl(r);
	for (int g = 0; g < r->ngpus; g++)
		for (int t = 0; t < GOLDEN_ACTIVE_NTESTS; t++) {
			enum golden_active_verdict v = r->gpu[g].fig[t].verdict;

			if (!failing(v))
				continue;
			r->nfailed++;
			if (v > worst) {
				worst = v;
				wg = g;
				wt = t;
			}
		}
	if (failing(r->nccl.verdict)) {
		r->nfailed++;
		if (r->nccl.verdict > worst)
			wg = -1; /* the all-reduce is the worst finding */
	}
	short_gpus = r->expected_gpus > 0 && r->ngpus < r->expected_gpus;
	if (short_gpus)
		r->nfailed++;
	if (r->nfailed == 0) {
		r->result = unknown ? GOLDEN_ACTIVE_WARN : GOLDEN_ACTIVE_PASS;
		snprintf(r->detail, sizeof(r->detail), "%s",
		         unknown ? "no expectation table entry for this GPU model: judged against "
		                   "this node's own GPUs only"
		                 : "every figure within expectations");
		return;
	}
	r->result = GOLDEN_ACTIVE_FAIL;
	if (short_gpus) {
		set_code(r->code, sizeof(r->code), "gpu count %d<%d", r->ngpus, r->expected_gpus);
		snprintf(r->detail, sizeof(r->detail), "CUDA sees %d GPUs, %d expected", r->ngpus,
		         r->expected_gpus);
	} else if (wg >= 0) {
		explain_gpu(r, wg, (enum golden_active_test)wt, tolerance(o, wt), r->code,
		            sizeof(r->code), r->detail, sizeof(r->detail));
	} else {
		explain_nccl(r, r->code, sizeof(r->code), r->detail, sizeof(r->detail));
	}
	/* Name the other failures too, briefly. */
	for (int g = 0; g < r->ngpus; g++)
		for (int t = 0; t < GOLDEN_ACTIVE_NTESTS; t++) {
			if (!failing(r->gpu[g].fig[t].verdict) ||
			    (g == wg && t == wt && !short_gpus))
				continue;
			snprintf(item, sizeof(item), "%sgpu%d %s %s", shown ? ", " : "",
			         r->gpu[g].index,
			         golden_active_test_name((enum golden_active_test)t),
			         problem(r->gpu[g].fig[t].verdict));
			if (shown++ < 6)
				golden_strlcat(more, item, sizeof(more));
		}
	if (failing(r->nccl.verdict) && (wg >= 0 || short_gpus)) {
		snprintf(item, sizeof(item), "%snccl %s", shown ? ", " : "",
		         problem(r->nccl.verdict));
		if (shown++ < 6)
			golden_strlcat(more, item, sizeof(more));
	}
	len = strlen(r->detail);
	if (shown && len < sizeof(r->detail))
		snprintf(r->detail + len, sizeof(r->detail) - len, "; also %s%s", more,
		         shown > 6 ? ", ..." : "");
}
