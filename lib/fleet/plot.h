/* The report's picture: fleet availability over the window (top) and the
 * drains that started in each hour or day, stacked by owner (bottom), drawn
 * by gnuplot from PATH.dat and PATH.gp written next to PATH (util/gnuplot). */
#ifndef GOLDEN_FLEET_PLOT_H
#define GOLDEN_FLEET_PLOT_H

#include <stdbool.h>
#include <stdio.h>

#include "fleet/fleet.h"
#include "util/errbuf.h"
#include "util/gnuplot.h"

/* Write PATH.dat and PATH.gp and draw PATH (.svg or .png). gnuplot: NULL
 * for $GOLDEN_GNUPLOT or PATH. Returns 0, or -1 with err set. */
int golden_fleet_plot(const struct golden_fleet_report *rep, const char *path, const char *title,
                      const char *gnuplot, struct golden_err *err);

/* The pieces, for tests: one line per bin ("t availability golden admin
 * slurm other", drains stacked), and the script that draws out from data. */
void golden_fleet_plot_data(const struct golden_fleet_report *rep, FILE *f);
void golden_fleet_plot_script(const struct golden_fleet_report *rep, const char *data,
                              const char *out, enum golden_gnuplot_format fmt, bool cairo,
                              const char *title, FILE *f);

#endif
