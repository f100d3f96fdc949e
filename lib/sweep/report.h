/* The verdict on a sweep, for people (text) and for scripts (JSON).
 *
 * Text: one line per run saying what it was and which bandwidth is judged
 * (busbw, with the collective's factor), then one line per finding, worst
 * first, the notes, and a verdict line.
 *
 * JSON: {"runs": [...], "findings": [...], "notes": [...], "verdict": ...,
 * "exit": 0|1}; each run is one placement of a parsed run ("placement":
 * "out" or "in") with collective, nodes, ranks, rows (size, count, time_us,
 * algbw, busbw, wrong: null when not checked) and its findings (kind, size
 * where it applies, and the numbers). A finding about the run as a whole
 * appears under both placements. */
#ifndef GOLDEN_SWEEP_REPORT_H
#define GOLDEN_SWEEP_REPORT_H

#include <json-c/json.h>
#include <stdio.h>

#include "sweep/detect.h"

/* 0 no findings, 1 findings. */
int golden_sweep_verdict(const struct golden_sweep_result *res);

void golden_sweep_report_text(FILE *out, const struct golden_sweep_set *set,
                              const struct golden_sweep_result *res,
                              const struct golden_sweep_expect *expect);

/* The caller puts the returned object (NULL when out of memory). */
struct json_object *golden_sweep_report_json(const struct golden_sweep_set *set,
                                             const struct golden_sweep_result *res,
                                             const struct golden_sweep_expect *expect);

/* "olivia.log:3 all_reduce 4n" (file base name, line, collective, nodes,
 * environment). */
const char *golden_sweep_run_name(const struct golden_sweep_set *set,
                                  const struct golden_sweep_run *r, char *buf, size_t len);

#endif
