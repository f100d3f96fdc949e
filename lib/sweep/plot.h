/* The sweep's picture: bus bandwidth against message size (log2 axis with
 * human size labels), one line per run (a colour per node count, dashed
 * for NCCL's defaults in A/B runs), out-of-place with filled circles and
 * in-place with open triangles, dips marked with a red cross, #wrong sizes
 * with a square, the expected figure as a dotted line from the size it
 * holds for, and a title with the collective, GPU, NCCL version and recipe.
 *
 * Drawn by gnuplot (gnuplot-nox: svg and pngcairo need no display), driven
 * through argv and two files written next to the picture: PATH.dat (the
 * data, one gnuplot index per line) and PATH.gp (the script). No shell: the
 * script is a file, gnuplot runs as a child under a deadline. Without
 * gnuplot the data and script are still written and the error says how to
 * get it. */
#ifndef GOLDEN_SWEEP_PLOT_H
#define GOLDEN_SWEEP_PLOT_H

#include <stddef.h>
#include <stdio.h>

#include "sweep/detect.h"
#include "util/errbuf.h"

enum golden_plot_format { GOLDEN_PLOT_NONE, GOLDEN_PLOT_SVG, GOLDEN_PLOT_PNG };

/* From the file name: .svg or .png (any case), else NONE. */
enum golden_plot_format golden_sweep_plot_format(const char *path);

struct golden_sweep_plot_opts {
	const char *title;                        /* NULL: from the runs */
	const struct golden_sweep_expect *expect; /* NULL: no expected line */
	const char *gnuplot;                      /* NULL: $GOLDEN_GNUPLOT, else PATH */
};

/* Write PATH.dat and PATH.gp, then run gnuplot to draw PATH. Returns 0, or
 * -1 with err set (nothing to draw, a path gnuplot cannot be given, gnuplot
 * missing, failing or past its deadline). */
int golden_sweep_plot(const struct golden_sweep_set *set, const struct golden_sweep_result *res,
                      const char *path, const struct golden_sweep_plot_opts *o,
                      struct golden_err *err);

/* The pieces, for tests: the data file (returns the number of series) and
 * the script that draws OUT from DATA. */
int golden_sweep_plot_data(FILE *f, const struct golden_sweep_set *set,
                           const struct golden_sweep_result *res,
                           const struct golden_sweep_plot_opts *o);
int golden_sweep_plot_script(FILE *f, const struct golden_sweep_set *set,
                             const struct golden_sweep_result *res, const char *data,
                             const char *out, enum golden_plot_format fmt, bool cairo,
                             const struct golden_sweep_plot_opts *o, struct golden_err *err);

/* Where gnuplot is: o->gnuplot, $GOLDEN_GNUPLOT, or the first `gnuplot` on
 * PATH. Returns 0, or -1 when there is none. */
int golden_sweep_plot_find_gnuplot(const char *hint, char *buf, size_t len);

/* "8B", "64K", "1M", "16G": axis labels. */
const char *golden_sweep_plot_label(long long size, char *buf, size_t len);

#endif
