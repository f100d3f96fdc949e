/* Typed reads of golden's own JSON files (the ledger, watch.json, the
 * IB-counters state, teardown records, the env cache, the health log).
 *
 * Those files can hold anything: a crash half-way through a write by an
 * older version, an operator's edit, a disk error. What is not there, a
 * null, or a value of another type is "unknown" to every reader; it never
 * crashes one and never becomes a fault of the node. json-c alone does not
 * give that: json_object_get_string(NULL), what a JSON null reads as, is
 * NULL; json_object_get_int() parses a string ("12abc" is 12) and reads a
 * null as 0; json_object_object_add() on a non-object aborts. These never
 * convert between types.
 */
#ifndef GOLDEN_UTIL_JSONGET_H
#define GOLDEN_UTIL_JSONGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

/* o's member key when o is an object and the member has type t, else NULL
 * (t json_type_null is not useful: a null member reads as NULL). */
struct json_object *golden_json_member(struct json_object *o, const char *key, enum json_type t);

/* A string member, or NULL. */
const char *golden_json_str(struct json_object *o, const char *key);
/* The same with a fallback for unknown. */
const char *golden_json_str_or(struct json_object *o, const char *key, const char *unknown);

/* An integer member (JSON integers only, not text, not fractions):
 * true and *out, or false (unknown) and *out untouched. */
bool golden_json_int(struct json_object *o, const char *key, long long *out);
/* The same, refusing values below lo or above hi as unknown. */
bool golden_json_int_range(struct json_object *o, const char *key, long long lo, long long hi,
                           long long *out);
/* A JSON boolean member. */
bool golden_json_bool(struct json_object *o, const char *key, bool *out);
/* A number member, integer or not. */
bool golden_json_number(struct json_object *o, const char *key, double *out);
/* A uint64 kept as decimal text ("18446744073709551615"): digits only. */
bool golden_json_u64_text(struct json_object *o, const char *key, uint64_t *out);

/* A scalar member as text for a person (strings as they are; integers,
 * numbers and booleans printed into buf), or unknown. */
const char *golden_json_text(struct json_object *o, const char *key, char *buf, size_t len,
                             const char *unknown);

/* Parse text as a JSON object; anything else (an array, a number, broken
 * text) is NULL. json_object_put() the result. */
struct json_object *golden_json_parse_object(const char *text);

#endif
