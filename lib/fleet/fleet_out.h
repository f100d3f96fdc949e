/* The report in words (one screen an operator pastes into a ticket), as
 * JSON for scripts, and as CSV (one row per node, then the fleet). */
#ifndef GOLDEN_FLEET_FLEET_OUT_H
#define GOLDEN_FLEET_FLEET_OUT_H

#include <stdio.h>

#include <json-c/json.h>

#include "fleet/fleet.h"

/* cluster: a name for the title ("" none); nodes_shown: how many of the
 * least available nodes the text lists. */
void golden_fleet_print_text(const struct golden_fleet_report *rep, const char *cluster, FILE *out);
void golden_fleet_print_csv(const struct golden_fleet_report *rep, FILE *out);
/* A new object the caller puts. */
struct json_object *golden_fleet_json(const struct golden_fleet_report *rep, const char *cluster);

/* One drill in a line: "n2 xid79 gpu0 ...: detect 0.04 s, drain 0.05 s,
 * return 61 s: pass" (also for `golden drill report`). */
void golden_fleet_drill_line(const struct golden_drill *d, char *buf, size_t len);
struct json_object *golden_fleet_drill_json(const struct golden_drill *d);

#endif
