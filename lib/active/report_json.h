/* golden-active's report as JSON (what `golden-active --json` prints and
 * what `golden active run` and the validation read back) and as the table
 * a person reads. */
#ifndef GOLDEN_ACTIVE_REPORT_JSON_H
#define GOLDEN_ACTIVE_REPORT_JSON_H

#include <stdio.h>

#include "active/report.h"
#include "util/errbuf.h"

struct json_object;

/* A new object the caller puts (json_object_put). */
struct json_object *golden_active_report_to_json(const struct golden_active_report *r);

/* Read a report back. Only "result" is required (a stand-in may print
 * little more); every other field is optional. The code is cut to 20
 * characters and anything outside [A-Za-z0-9 .<>/:_+-] becomes '_': it
 * becomes part of a drain reason. Returns 0, or -1 with err set. */
int golden_active_report_from_json(struct json_object *o, struct golden_active_report *r,
                                   struct golden_err *err);
/* The same from text (a program's stdout). */
int golden_active_report_parse(const char *text, struct golden_active_report *r,
                               struct golden_err *err);

/* The human table. */
void golden_active_report_print(FILE *out, const struct golden_active_report *r);

/* Keep only [A-Za-z0-9 .<>/:_+-] (others become '_') and at most 20 characters. */
void golden_active_code_sanitize(char *code);

#endif
