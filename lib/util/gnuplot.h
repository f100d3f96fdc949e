/* Drawing with gnuplot, the project's plotting approach: the data and the
 * script are files written next to the picture (PATH.dat, PATH.gp), and
 * gnuplot runs as a child with argv {gnuplot, PATH.gp} under a deadline. No
 * shell, nothing a user typed inside the script but quoted text. Without
 * gnuplot the files are still there and the error says how to get it.
 * Shared by the sweep plot (sweep/plot.c) and the fleet report's (fleet/plot.c). */
#ifndef GOLDEN_UTIL_GNUPLOT_H
#define GOLDEN_UTIL_GNUPLOT_H

#include <stdbool.h>
#include <stddef.h>

#include "util/errbuf.h"

#define GOLDEN_GNUPLOT_DEADLINE_MS 30000

enum golden_gnuplot_format { GOLDEN_GNUPLOT_NONE, GOLDEN_GNUPLOT_SVG, GOLDEN_GNUPLOT_PNG };

/* From the picture's file name: .svg or .png (any case), else NONE. */
enum golden_gnuplot_format golden_gnuplot_format(const char *path);

/* gnuplot: hint (a name looked up on PATH, or an absolute path), else
 * $GOLDEN_GNUPLOT (absolute only), else the first `gnuplot` on PATH; it must
 * be executable. Returns 0, or -1 when there is none. */
int golden_gnuplot_find(const char *hint, char *buf, size_t len);

/* Can this path be written into a gnuplot string ('...')? Printable ASCII
 * without quotes or backslashes. */
bool golden_gnuplot_path_ok(const char *path);

/* Text for a single-quoted gnuplot string: printable ASCII, quotes doubled. */
void golden_gnuplot_quote(const char *s, char *buf, size_t len);

/* Run gnuplot on script (an existing file) under its deadline. Returns 0,
 * or -1 with err set. */
int golden_gnuplot_run(const char *hint, const char *script, struct golden_err *err);

#endif
