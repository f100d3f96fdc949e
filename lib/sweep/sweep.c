#include "sweep/sweep.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void golden_sweep_set_free(struct golden_sweep_set *set)
{
	if (!set)
		return;
	for (int i = 0; i < set->nruns; i++)
		free(set->runs[i].rows);
	for (int i = 0; i < set->nfiles; i++)
		free(set->files[i]);
	free(set->runs);
	free(set->files);
	memset(set, 0, sizeof(*set));
}

struct golden_sweep_run *golden_sweep_run_add(struct golden_sweep_set *set, int file)
{
	struct golden_sweep_run *r;

	if (set->nruns == set->cap) {
		int cap = set->cap ? set->cap * 2 : 8;
		struct golden_sweep_run *n = realloc(set->runs, sizeof(*n) * (size_t)cap);

		if (!n)
			return NULL;
		set->runs = n;
		set->cap = cap;
	}
	r = &set->runs[set->nruns];
	memset(r, 0, sizeof(*r));
	r->file = file;
	r->id = set->nruns++;
	r->max_rank = -1;
	r->max_device = -1;
	r->validation = -1;
	r->oob = -1;
	r->avg_busbw = -1;
	r->meta_exit = -1;
	return r;
}

int golden_sweep_run_add_row(struct golden_sweep_run *run, const struct golden_sweep_row *row)
{
	if (run->nrows == run->cap) {
		int cap = run->cap ? run->cap * 2 : 32;
		struct golden_sweep_row *n = realloc(run->rows, sizeof(*n) * (size_t)cap);

		if (!n)
			return -1;
		run->rows = n;
		run->cap = cap;
	}
	run->rows[run->nrows++] = *row;
	return 0;
}

long long golden_sweep_run_max_size(const struct golden_sweep_run *run)
{
	long long m = 0;

	for (int i = 0; i < run->nrows; i++)
		if (run->rows[i].size > m)
			m = run->rows[i].size;
	return m;
}

static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};

const char *golden_sweep_size_str(long long size, char *buf, size_t len)
{
	int u = 0;
	long long v = size;

	if (size < 1024) {
		snprintf(buf, len, "%lld B", size);
		return buf;
	}
	while (u < 4 && v >= 1024 && v % 1024 == 0) {
		v /= 1024;
		u++;
	}
	if (v < 1024 || u == 4) {
		snprintf(buf, len, "%lld %s", v, units[u]);
		return buf;
	}
	/* Not a multiple of a larger unit: one decimal in the largest that fits. */
	{
		double d = (double)size;

		u = 0;
		while (u < 4 && d >= 1024) {
			d /= 1024;
			u++;
		}
		snprintf(buf, len, "%.1f %s", d, units[u]);
	}
	return buf;
}

int golden_sweep_size_parse(const char *s, long long *out)
{
	char *end;
	long long v;
	int shift = 0;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	v = strtoll(s, &end, 10);
	if (v < 0)
		return -1;
	switch (toupper((unsigned char)*end)) {
	case '\0':
		break;
	case 'B':
		end++;
		break;
	case 'K':
		shift = 10;
		break;
	case 'M':
		shift = 20;
		break;
	case 'G':
		shift = 30;
		break;
	case 'T':
		shift = 40;
		break;
	default:
		return -1;
	}
	if (shift) {
		end++;
		if (!strcmp(end, "iB") || !strcmp(end, "ib") || !strcmp(end, "B") ||
		    !strcmp(end, "b"))
			end += strlen(end);
	}
	if (*end || (shift && v > (1LL << (62 - shift))))
		return -1;
	*out = v << shift;
	return 0;
}

const char *golden_sweep_placement_name(int placement)
{
	return placement == GOLDEN_SWEEP_IP ? "in" : "out";
}

const char *golden_sweep_source_name(enum golden_sweep_source s)
{
	switch (s) {
	case GOLDEN_SWEEP_SRC_LOG:
		return "log";
	case GOLDEN_SWEEP_SRC_META:
		return "golden";
	case GOLDEN_SWEEP_SRC_INFERRED:
		return "inferred";
	case GOLDEN_SWEEP_SRC_OPTION:
		return "option";
	default:
		return "unknown";
	}
}
