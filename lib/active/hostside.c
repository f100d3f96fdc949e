#include <config.h>

#include "active/hostside.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Shares of the budget in percent. GEMM gets the most (two data types and
 * a reference check); discovery only needs the driver to answer. */
static const int share[GOLDEN_ACTIVE_NPHASES] = {
    [GOLDEN_ACTIVE_PH_DISCOVER] = 5, [GOLDEN_ACTIVE_PH_HBM] = 10, [GOLDEN_ACTIVE_PH_GEMM] = 25,
    [GOLDEN_ACTIVE_PH_PCIE] = 12,    [GOLDEN_ACTIVE_PH_P2P] = 13, [GOLDEN_ACTIVE_PH_NCCL] = 20,
    [GOLDEN_ACTIVE_PH_MEMTEST] = 15,
};

int golden_active_phase_deadline_ms(int budget_s, enum golden_active_phase p)
{
	long ms;

	if ((unsigned)p >= GOLDEN_ACTIVE_NPHASES || budget_s <= 0)
		return 0;
	ms = (long)budget_s * 10L * share[p];
	if (p == GOLDEN_ACTIVE_PH_DISCOVER && ms < 3000)
		ms = 3000;
	return (int)ms;
}

uint16_t golden_active_bf16(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	if ((u & 0x7fffffffu) > 0x7f800000u) /* NaN: keep it quiet and a NaN */
		return (uint16_t)((u >> 16) | 0x40);
	u += 0x7fffu + ((u >> 16) & 1u);
	return (uint16_t)(u >> 16);
}

float golden_active_bf16_float(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

static uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

void golden_active_fill_bf16(uint16_t *dst, size_t n, uint64_t seed)
{
	uint64_t s = seed ? seed : 0x9e3779b97f4a7c15ULL;

	for (size_t i = 0; i < n; i++) {
		/* 24 random bits -> [-1, 1) */
		double u = (double)(xorshift(&s) >> 40) / (double)(1 << 24);

		dst[i] = golden_active_bf16((float)(2 * u - 1));
	}
}

void golden_active_gemm_samples(int m, int n, int ns, uint64_t seed, int *is, int *js)
{
	uint64_t s = seed ^ 0x5851F42D4C957F2DULL;

	for (int t = 0; t < ns; t++) {
		/* The corners always (where a tiling bug shows first), then random. */
		if (t < 4) {
			is[t] = (t & 1) ? m - 1 : 0;
			js[t] = (t & 2) ? n - 1 : 0;
			continue;
		}
		is[t] = (int)(xorshift(&s) % (uint64_t)m);
		js[t] = (int)(xorshift(&s) % (uint64_t)n);
	}
}

double golden_active_gemm_ref(const uint16_t *a, const uint16_t *b, int m, int k, int i, int j,
                              double *absum)
{
	double sum = 0, abs_sum = 0;

	for (int l = 0; l < k; l++) {
		double p = (double)golden_active_bf16_float(a[i + (size_t)l * (size_t)m]) *
		           (double)golden_active_bf16_float(b[l + (size_t)j * (size_t)k]);

		sum += p;
		abs_sum += fabs(p);
	}
	if (absum)
		*absum = abs_sum;
	return sum;
}

double golden_active_gemm_check(const float *got, const double *ref, const double *absum, int ns)
{
	double worst = 0;

	for (int t = 0; t < ns; t++) {
		double tol = ldexp(absum[t], -10) + 1e-6, err = fabs((double)got[t] - ref[t]);

		if (isnan((double)got[t]) || isinf((double)got[t]))
			return INFINITY;
		if (err / tol > worst)
			worst = err / tol;
	}
	return worst;
}

int golden_active_cpulist(const char *list, uint64_t *mask, int ncpus)
{
	const char *p = list;
	int count = 0;

	memset(mask, 0, sizeof(uint64_t) * (size_t)((ncpus + 63) / 64));
	while (*p && *p != '\n') {
		char *end;
		long lo = strtol(p, &end, 10), hi;

		if (end == p || lo < 0)
			return -1;
		hi = lo;
		p = end;
		if (*p == '-') {
			hi = strtol(p + 1, &end, 10);
			if (end == p + 1 || hi < lo)
				return -1;
			p = end;
		}
		for (long c = lo; c <= hi && c < ncpus; c++) {
			if (!(mask[c / 64] & (1ULL << (c % 64))))
				count++;
			mask[c / 64] |= 1ULL << (c % 64);
		}
		if (*p == ',')
			p++;
		else if (*p && *p != '\n' && !isspace((unsigned char)*p))
			return -1;
		else
			break;
	}
	return count;
}

/* A dotted number: digits, then at least one ".digits". */
static size_t dotted_number(const char *p)
{
	size_t n = 0, dots = 0;
	while (isdigit((unsigned char)p[n]) ||
	       (p[n] == '.' && n > 0 && isdigit((unsigned char)p[n + 1]))) {
		dots += p[n] == '.';
		n++;
	}
	return dots > 0 && (p[n] == '\0' || isspace((unsigned char)p[n])) ? n : 0;
}

int golden_active_driver_version(const char *line, char *out, size_t outlen)
{
	const char *p = line ? strstr(line, "Kernel Module") : NULL;

	if (outlen > 0)
		out[0] = '\0';
	if (!p || outlen == 0)
		return -1;
	for (p += strlen("Kernel Module"); *p && *p != '\n';) {
		while (*p == ' ' || *p == '\t')
			p++;
		size_t n = dotted_number(p);
		if (n > 0 && (p == line || isspace((unsigned char)p[-1]))) {
			if (n >= outlen)
				return -1;
			memcpy(out, p, n);
			out[n] = '\0';
			return 0;
		}
		p += strcspn(p, " \t\n");
	}
	return -1;
}
