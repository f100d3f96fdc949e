#include "sweep/plot.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sweep/plan.h"
#include "util/gnuplot.h"
#include "util/strutil.h"

#define MAX_SERIES 64

/* Colours a reader tells apart (Tableau 10 without its red, which marks dips). */
static const char *const palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b",
                                      "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#000080"};
#define NPALETTE (sizeof(palette) / sizeof(palette[0]))

struct series {
	int run;
	int placement;
	int color;
};

enum golden_plot_format golden_sweep_plot_format(const char *path)
{
	size_t n = path ? strlen(path) : 0;

	if (n > 4 && !strcasecmp(path + n - 4, ".svg"))
		return GOLDEN_PLOT_SVG;
	if (n > 4 && !strcasecmp(path + n - 4, ".png"))
		return GOLDEN_PLOT_PNG;
	return GOLDEN_PLOT_NONE;
}

const char *golden_sweep_plot_label(long long size, char *buf, size_t len)
{
	static const char *const u[] = {"B", "K", "M", "G", "T"};
	int k = 0;

	while (k < 4 && size >= 1024 && size % 1024 == 0) {
		size /= 1024;
		k++;
	}
	snprintf(buf, len, "%lld%s", size, u[k]);
	return buf;
}

static bool has_half(const struct golden_sweep_run *r, int pl)
{
	for (int i = 0; i < r->nrows; i++)
		if (r->rows[i].half[pl].present && r->rows[i].size > 0)
			return true;
	return false;
}

/* Runs that share collective, node count and label share a colour, so a
 * golden run and its NCCL-defaults twin read as a pair (solid, dashed). */
static int list_series(const struct golden_sweep_set *set, struct series *s, int max)
{
	int n = 0, ncolors = 0;
	int key_run[MAX_SERIES];
	int key_color[MAX_SERIES];
	int nkeys = 0;

	for (int i = 0; i < set->nruns && n < max; i++) {
		const struct golden_sweep_run *r = &set->runs[i];
		int color = -1;

		if (!r->nrows)
			continue;
		/* An earlier run of the same kind in another environment, not yet
		 * paired: share its colour. */
		for (int k = 0; k < nkeys; k++) {
			const struct golden_sweep_run *o = &set->runs[key_run[k]];

			if (o->coll == r->coll && o->nodes == r->nodes &&
			    !strcmp(o->label, r->label) && strcmp(o->env, r->env) && r->env[0] &&
			    o->env[0] && key_color[k] >= 0) {
				color = key_color[k];
				key_color[k] = -1; /* paired */
				break;
			}
		}
		if (color < 0)
			color = ncolors++ % (int)NPALETTE;
		if (nkeys < MAX_SERIES) {
			key_run[nkeys] = i;
			key_color[nkeys++] = color;
		}
		for (int pl = 0; pl < 2 && n < max; pl++)
			if (has_half(r, pl))
				s[n++] = (struct series){i, pl, color};
	}
	return n;
}

static bool is_wrong(const struct golden_sweep_run *r, const struct golden_sweep_half *h)
{
	if (!h->present || h->wrong <= 0)
		return false;
	if (r->layout.errcol == GOLDEN_SWEEP_ERR_WRONG)
		return true;
	return h->wrong > 1e-5; /* the float error column: beyond float's tolerance */
}

/* The expectation lines to draw: entries some plotted run is judged by. */
static int used_expectations(const struct golden_sweep_set *set,
                             const struct golden_sweep_expect *x, int *idx, int max)
{
	int n = 0;

	if (!x)
		return 0;
	for (int i = 0; i < set->nruns; i++) {
		const struct golden_sweep_expect_entry *e =
		    golden_sweep_expect_find(x, set->runs[i].coll, set->runs[i].nodes);
		int k = e ? (int)(e - x->e) : -1;
		bool seen = false;

		if (k < 0 || !set->runs[i].nrows)
			continue;
		for (int j = 0; j < n; j++)
			seen |= idx[j] == k;
		if (!seen && n < max)
			idx[n++] = k;
	}
	return n;
}

static void size_range(const struct golden_sweep_set *set, long long *lo, long long *hi)
{
	*lo = 0;
	*hi = 0;
	for (int i = 0; i < set->nruns; i++)
		for (int j = 0; j < set->runs[i].nrows; j++) {
			long long s = set->runs[i].rows[j].size;

			if (s <= 0)
				continue;
			if (!*lo || s < *lo)
				*lo = s;
			if (s > *hi)
				*hi = s;
		}
}

int golden_sweep_plot_data(FILE *f, const struct golden_sweep_set *set,
                           const struct golden_sweep_result *res,
                           const struct golden_sweep_plot_opts *o)
{
	struct series s[MAX_SERIES];
	int n = list_series(set, s, MAX_SERIES), ex[GOLDEN_SWEEP_MAX_EXPECT];
	int nex = used_expectations(set, o ? o->expect : NULL, ex, GOLDEN_SWEEP_MAX_EXPECT);
	long long lo, hi;

	size_range(set, &lo, &hi);
	fprintf(f, "# golden sweep plot data: size (bytes) busbw (GB/s); one index per series,\n"
	           "# then the dips, the #wrong sizes and the expected figures\n");
	for (int k = 0; k < n; k++) {
		const struct golden_sweep_run *r = &set->runs[s[k].run];

		fprintf(f, "# index %d: run %d %s\n", k, r->id + 1,
		        golden_sweep_placement_name(s[k].placement));
		for (int i = 0; i < r->nrows; i++) {
			const struct golden_sweep_half *h = &r->rows[i].half[s[k].placement];

			if (h->present && r->rows[i].size > 0)
				fprintf(f, "%lld %.6g\n", r->rows[i].size, h->busbw);
		}
		fprintf(f, "\n\n");
	}
	/* An empty block would merge with the next separator and shift every
	 * later index: each block holds at least an invisible point. */
	fprintf(f, "# index %d: dips\n1 NaN\n", n);
	for (int k = 0; k < n; k++) {
		const struct golden_sweep_run *r = &set->runs[s[k].run];

		for (int i = 0; i < r->nrows; i++) {
			const struct golden_sweep_half *h = &r->rows[i].half[s[k].placement];

			if (h->present && r->rows[i].size > 0 &&
			    golden_sweep_is_dip(res, r->id, s[k].placement, r->rows[i].size))
				fprintf(f, "%lld %.6g\n", r->rows[i].size, h->busbw);
		}
	}
	fprintf(f, "\n\n# index %d: #wrong\n1 NaN\n", n + 1);
	for (int k = 0; k < n; k++) {
		const struct golden_sweep_run *r = &set->runs[s[k].run];

		for (int i = 0; i < r->nrows; i++) {
			const struct golden_sweep_half *h = &r->rows[i].half[s[k].placement];

			if (r->rows[i].size > 0 && is_wrong(r, h))
				fprintf(f, "%lld %.6g\n", r->rows[i].size, h->busbw);
		}
	}
	fprintf(f, "\n\n");
	for (int k = 0; k < nex; k++) {
		const struct golden_sweep_expect_entry *e = &o->expect->e[ex[k]];
		long long from = e->min_size > lo ? e->min_size : lo;

		fprintf(f, "# index %d: expected %s >= %g GB/s\n", n + 2 + k,
		        golden_sweep_coll_name(e->coll), e->min_busbw);
		fprintf(f, "%lld %g\n%lld %g\n\n\n", from, e->min_busbw, hi > from ? hi : from * 2,
		        e->min_busbw);
	}
	return n;
}

/* Text for a gnuplot single-quoted string: printable ASCII, quotes doubled. */
static int quote(char *dst, size_t len, const char *src)
{
	size_t o = 0;

	for (; *src; src++) {
		unsigned char c = (unsigned char)*src;

		if (c < 0x20 || c > 0x7e)
			return -1;
		if (o + 3 >= len)
			return -1;
		if (c == '\'')
			dst[o++] = '\'';
		dst[o++] = (char)c;
	}
	dst[o] = '\0';
	return 0;
}

/* Title text from log contents: printable ASCII, no double quotes,
 * backslashes or backquotes (single quotes are doubled when written). */
static void clean(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e || *s == '"' ||
		    *s == '\\' || *s == '`')
			*s = '_';
}

static void default_title(const struct golden_sweep_set *set,
                          const struct golden_sweep_plot_opts *o, char *buf, size_t len)
{
	char colls[128] = "", dev[64] = "", ver[48] = "";

	for (int i = 0; i < set->nruns; i++) {
		const struct golden_sweep_run *r = &set->runs[i];
		const char *c = golden_sweep_coll_name(r->coll);

		if (!r->nrows)
			continue;
		if (!golden_list_has(colls, ',', c) &&
		    strlen(colls) + strlen(c) + 2 < sizeof(colls)) {
			golden_strlcat(colls, colls[0] ? "," : "", sizeof(colls));
			golden_strlcat(colls, c, sizeof(colls));
		}
		if (!dev[0] && r->device[0])
			golden_strlcpy(dev, r->device, sizeof(dev));
		if (!ver[0] && r->nccl_version[0])
			snprintf(ver, sizeof(ver), "NCCL %s", r->nccl_version);
		else if (!ver[0] && r->nccl_library > 0)
			snprintf(ver, sizeof(ver), "NCCL %d.%d.%d", r->nccl_library / 10000,
			         r->nccl_library / 100 % 100, r->nccl_library % 100);
	}
	snprintf(buf, len, "%s bus bandwidth%s%s%s%s%s%s", colls[0] ? colls : "nccl-tests",
	         dev[0] ? " - " : "", dev, ver[0] ? " - " : "", ver,
	         o && o->expect && o->expect->recipe[0] ? " - recipe " : "",
	         o && o->expect ? o->expect->recipe : "");
	for (char *c = buf; *c; c++)
		if (*c == ',')
			*c = '/';
	clean(buf);
}

/* Would another run be drawn under the same name? */
static bool ambiguous(const struct golden_sweep_set *set, const struct golden_sweep_run *r)
{
	for (int i = 0; i < set->nruns; i++) {
		const struct golden_sweep_run *o = &set->runs[i];

		if (o != r && o->nrows && o->coll == r->coll && o->nodes == r->nodes &&
		    !strcmp(o->env, r->env) && !strcmp(o->label, r->label))
			return true;
	}
	return false;
}

static void series_title(const struct golden_sweep_set *set, const struct golden_sweep_run *r,
                         int pl, bool many_colls, char *buf, size_t len)
{
	int o = 0;

	if (r->nodes > 0 && ambiguous(set, r))
		o = snprintf(buf, len, "run %d: ", r->id + 1);
	if (many_colls && o >= 0 && (size_t)o < len)
		o += snprintf(buf + o, len - (size_t)o, "%s ", golden_sweep_coll_name(r->coll));
	if (o < 0 || (size_t)o >= len)
		return;
	if (r->nodes > 0)
		o += snprintf(buf + o, len - (size_t)o, "%d node%s", r->nodes,
		              r->nodes == 1 ? "" : "s");
	else
		o += snprintf(buf + o, len - (size_t)o, "run %d", r->id + 1);
	if (o < 0 || (size_t)o >= len)
		return;
	snprintf(buf + o, len - (size_t)o, "%s%s%s%s, %s", r->env[0] ? ", " : "",
	         !strcmp(r->env, "default") ? "NCCL defaults" : r->env, r->label[0] ? ", " : "",
	         r->label, pl == GOLDEN_SWEEP_OOP ? "out-of-place" : "in-place");
	clean(buf);
}

static void xtics(FILE *f, long long lo, long long hi)
{
	int klo = 0, khi = 0, step;
	char lab[32];
	bool first = true;

	while (klo < 62 && (1LL << (klo + 1)) <= lo)
		klo++;
	while (khi < 62 && (1LL << khi) < hi)
		khi++;
	step = (khi - klo + 1 + 13) / 14;
	if (step < 1)
		step = 1;
	fprintf(f, "set xtics (");
	for (int k = klo; k <= khi; k++) {
		if (k % step)
			continue;
		fprintf(f, "%s\"%s\" %lld", first ? "" : ", ",
		        golden_sweep_plot_label(1LL << k, lab, sizeof(lab)), 1LL << k);
		first = false;
	}
	fprintf(f, ")\nset mxtics default\n");
	/* A little room on both sides, so the end labels are drawn. */
	fprintf(f, "set xrange [%lld:%lld]\n", (1LL << klo) * 7 / 8, (1LL << khi) / 7 * 8);
}

int golden_sweep_plot_script(FILE *f, const struct golden_sweep_set *set,
                             const struct golden_sweep_result *res, const char *data,
                             const char *out, enum golden_plot_format fmt, bool cairo,
                             const struct golden_sweep_plot_opts *o, struct golden_err *err)
{
	struct series s[MAX_SERIES];
	int n = list_series(set, s, MAX_SERIES), ex[GOLDEN_SWEEP_MAX_EXPECT], nex;
	char qdata[PATH_MAX * 2], qout[PATH_MAX * 2], title[512], t[1100], qt[256];
	bool many_colls = false, dips = false, wrong = false;
	long long lo, hi;

	if (!n)
		return golden_err_set(err, "no rows to draw");
	if (quote(qdata, sizeof(qdata), data) < 0 || quote(qout, sizeof(qout), out) < 0)
		return golden_err_set(
		    err,
		    "%s: the path has characters gnuplot cannot be given; expected "
		    "printable ASCII",
		    out);
	for (int i = 1; i < n; i++)
		many_colls |= set->runs[s[i].run].coll != set->runs[s[0].run].coll;
	for (int i = 0; i < res->n; i++)
		dips |= res->f[i].kind == GOLDEN_FIND_DIP;
	for (int i = 0; i < set->nruns && !wrong; i++)
		for (int j = 0; j < set->runs[i].nrows && !wrong; j++)
			for (int pl = 0; pl < 2; pl++)
				wrong |= is_wrong(&set->runs[i], &set->runs[i].rows[j].half[pl]);
	nex = used_expectations(set, o ? o->expect : NULL, ex, GOLDEN_SWEEP_MAX_EXPECT);
	size_range(set, &lo, &hi);
	if (o && o->title) {
		golden_strlcpy(title, o->title, sizeof(title));
		clean(title);
	} else {
		default_title(set, o, title, sizeof(title));
	}
	fprintf(f, "# golden sweep: drawn with gnuplot (%s)\n",
	        fmt == GOLDEN_PLOT_SVG ? "svg" : "png");
	if (fmt == GOLDEN_PLOT_SVG)
		fprintf(f, "set terminal svg size 1200,700 dynamic font 'Sans,13' background "
		           "'#ffffff'\n");
	else if (cairo)
		fprintf(
		    f, "set terminal pngcairo size 1400,800 font 'Sans,12' background '#ffffff'\n");
	else
		fprintf(f, "set terminal png size 1400,800\n");
	fprintf(f, "set output '%s'\n", qout);
	quote(t, sizeof(t), title);
	fprintf(f, "set title '%s' noenhanced\n", t);
	fprintf(f, "set xlabel 'message size (bytes, log2 scale)'\n"
	           "set ylabel 'bus bandwidth (GB/s)'\n"
	           "set logscale x 2\n"
	           "set yrange [0:*]\n"
	           "set grid xtics ytics lc rgb '#dddddd'\n"
	           "set key outside right top noenhanced spacing 1.2\n"
	           "set border 3\nset tics nomirror\n");
	xtics(f, lo, hi);
	fprintf(f, "plot \\\n");
	for (int k = 0; k < n; k++) {
		const struct golden_sweep_run *r = &set->runs[s[k].run];
		bool dflt = !strcmp(r->env, "default");
		bool ip = s[k].placement == GOLDEN_SWEEP_IP;

		series_title(set, r, s[k].placement, many_colls, qt, sizeof(qt));
		quote(t, sizeof(t), qt);
		fprintf(
		    f,
		    "  '%s' index %d using 1:2 with linespoints lc rgb '%s' lw %s dt %d pt %d ps "
		    "%s title '%s', \\\n",
		    qdata, k, palette[s[k].color], ip ? "1.5" : "2.5", dflt ? 2 : 1, ip ? 8 : 7,
		    ip ? "1.1" : "0.9", t);
	}
	if (dips)
		fprintf(
		    f,
		    "  '%s' index %d using 1:2 with points pt 2 ps 3 lw 3 lc rgb '#d62728' title "
		    "'dip', \\\n",
		    qdata, n);
	if (wrong)
		fprintf(f,
		        "  '%s' index %d using 1:2 with points pt 4 ps 2.5 lw 2.5 lc rgb '#d62728' "
		        "title '#wrong > 0', \\\n",
		        qdata, n + 1);
	for (int k = 0; k < nex; k++) {
		const struct golden_sweep_expect_entry *e = &o->expect->e[ex[k]];
		char range[48];

		if (e->nodes_min == e->nodes_max)
			snprintf(range, sizeof(range), "%d node%s", e->nodes_min,
			         e->nodes_min == 1 ? "" : "s");
		else if (e->nodes_max >= 100000 || e->nodes_max == INT_MAX)
			snprintf(range, sizeof(range), "%d+ nodes", e->nodes_min);
		else
			snprintf(range, sizeof(range), "%d-%d nodes", e->nodes_min, e->nodes_max);
		snprintf(qt, sizeof(qt), "expected >= %g GB/s (%s%s%s)", e->min_busbw,
		         many_colls ? golden_sweep_coll_name(e->coll) : "", many_colls ? ", " : "",
		         range);
		clean(qt);
		quote(t, sizeof(t), qt);
		fprintf(f,
		        "  '%s' index %d using 1:2 with lines dt 3 lw 2 lc rgb '#333333' title "
		        "'%s', \\\n",
		        qdata, n + 2 + k, t);
	}
	/* gnuplot accepts no trailing comma: end with an invisible series. */
	fprintf(f, "  NaN notitle\n");
	return 0;
}

int golden_sweep_plot_find_gnuplot(const char *hint, char *buf, size_t len)
{
	return golden_gnuplot_find(hint, buf, len);
}

static int write_file(const char *path, const struct golden_sweep_set *set,
                      const struct golden_sweep_result *res, const struct golden_sweep_plot_opts *o,
                      const char *data, const char *out, enum golden_plot_format fmt, bool cairo,
                      bool script, struct golden_err *err)
{
	FILE *f = fopen(path, "w");
	int rc;

	if (!f)
		return golden_err_set(err, "%s: cannot write: %s", path, strerror(errno));
	if (script)
		rc = golden_sweep_plot_script(f, set, res, data, out, fmt, cairo, o, err);
	else
		rc = golden_sweep_plot_data(f, set, res, o) > 0
		         ? 0
		         : golden_err_set(err, "no rows to draw");
	if (fclose(f) != 0 && rc == 0)
		rc = golden_err_set(err, "%s: cannot write: %s", path, strerror(errno));
	return rc;
}

int golden_sweep_plot(const struct golden_sweep_set *set, const struct golden_sweep_result *res,
                      const char *path, const struct golden_sweep_plot_opts *o,
                      struct golden_err *err)
{
	enum golden_plot_format fmt = golden_sweep_plot_format(path);
	char data[PATH_MAX], script[PATH_MAX], gp[PATH_MAX];
	int rc;

	if (fmt == GOLDEN_PLOT_NONE)
		return golden_err_set(err, "%s: expected a file name ending in .svg or .png", path);
	if (snprintf(data, sizeof(data), "%s.dat", path) >= (int)sizeof(data) ||
	    snprintf(script, sizeof(script), "%s.gp", path) >= (int)sizeof(script))
		return golden_err_set(err, "%s: path too long", path);
	if (write_file(data, set, res, o, NULL, NULL, fmt, true, false, err) < 0 ||
	    write_file(script, set, res, o, data, path, fmt, true, true, err) < 0)
		return -1;
	rc = golden_gnuplot_run(o ? o->gnuplot : NULL, script, err);
	if (rc != 0 && fmt == GOLDEN_PLOT_PNG &&
	    golden_gnuplot_find(o ? o->gnuplot : NULL, gp, sizeof(gp)) == 0) {
		/* A gnuplot built without cairo: its own png terminal. */
		if (write_file(script, set, res, o, data, path, fmt, false, true, err) < 0)
			return -1;
		if (err)
			memset(err, 0, sizeof(*err));
		rc = golden_gnuplot_run(o ? o->gnuplot : NULL, script, err);
	}
	return rc;
}
