/* Typed reads of golden's own JSON: wrong types, nulls and missing keys
 * are unknown, never converted and never a crash. */
#include <config.h>

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "util/jsonget.h"
#include "util/jsonschema.h"
#include "util/satmath.h"
#include "t/unit/tap.h"

static void test_types(void)
{
	struct json_object *o = golden_json_parse_object(
	    "{\"s\":\"12abc\",\"n\":null,\"i\":42,\"neg\":-5,\"d\":1.5,\"b\":true,"
	    "\"o\":{},\"a\":[1],\"big\":18446744073709551615,\"seq\":\"18446744073709551615\","
	    "\"seqbad\":\"12 \",\"seqneg\":\"-1\"}");
	long long i = 7;
	double d = 0;
	bool b = false;
	uint64_t u = 0;
	char buf[32];

	ok(o != NULL, "an object parses");
	is(golden_json_str(o, "s"), "12abc", "a string reads as a string");
	ok(golden_json_str(o, "n") == NULL, "null is not a string (json-c would hand back NULL)");
	ok(golden_json_str(o, "i") == NULL, "a number is not a string");
	ok(golden_json_str(o, "missing") == NULL, "a missing key is unknown");
	is(golden_json_str_or(o, "n", "unknown"), "unknown", "... with the caller's fallback");
	ok(!golden_json_int(o, "s", &i) && i == 7,
	   "a string is not a number (json-c would parse 12) and *out is untouched");
	ok(!golden_json_int(o, "n", &i) && i == 7, "null is not 0");
	ok(!golden_json_int(o, "d", &i), "a fraction is not an integer");
	ok(golden_json_int(o, "i", &i) && i == 42, "an integer reads");
	ok(golden_json_int(o, "big", &i) && i == LLONG_MAX,
	   "an integer above INT64_MAX reads as INT64_MAX, not negative");
	ok(!golden_json_int_range(o, "neg", 0, 100, &i), "out of range is unknown");
	ok(golden_json_number(o, "d", &d) && d == 1.5, "a fraction is a number");
	ok(golden_json_number(o, "i", &d) && d == 42, "an integer is a number");
	ok(!golden_json_number(o, "s", &d), "text is not a number");
	ok(golden_json_bool(o, "b", &b) && b, "a boolean reads");
	ok(!golden_json_bool(o, "i", &b), "a number is not a boolean");
	ok(golden_json_member(o, "o", json_type_object) != NULL, "an object member");
	ok(golden_json_member(o, "a", json_type_object) == NULL, "an array is not an object");
	ok(golden_json_u64_text(o, "seq", &u) && u == UINT64_MAX, "a uint64 kept as text reads");
	ok(!golden_json_u64_text(o, "seqbad", &u), "... not with trailing garbage");
	ok(!golden_json_u64_text(o, "seqneg", &u), "... not negative");
	ok(!golden_json_u64_text(o, "i", &u), "... not from a number");
	is(golden_json_text(o, "i", buf, sizeof(buf), "?"), "42", "text of an integer");
	is(golden_json_text(o, "n", buf, sizeof(buf), "?"), "?", "text of null is unknown");
	is(golden_json_text(o, "o", buf, sizeof(buf), "?"), "?", "text of an object is unknown");
	ok(golden_json_str(NULL, "s") == NULL, "a NULL object is unknown");
	ok(golden_json_str(golden_json_member(o, "a", json_type_array), "s") == NULL,
	   "an array has no members");
	json_object_put(o);
	ok(golden_json_parse_object("[1,2]") == NULL, "an array is not an object");
	ok(golden_json_parse_object("null") == NULL, "null is not an object");
	ok(golden_json_parse_object("{\"a\":") == NULL, "broken text is not an object");
	ok(golden_json_parse_object(NULL) == NULL, "no text is not an object");
}

static void test_satmath(void)
{
	is_int(golden_sat_sub(LLONG_MAX, LLONG_MIN) == LLONG_MAX, 1, "sub saturates up");
	is_int(golden_sat_sub(LLONG_MIN, 1) == LLONG_MIN, 1, "sub saturates down");
	is_int(golden_sat_add(LLONG_MAX, 1) == LLONG_MAX, 1, "add saturates up");
	is_int(golden_sat_add(LLONG_MIN, -1) == LLONG_MIN, 1, "add saturates down");
	is_int(golden_sat_mul(LLONG_MAX / 2, 3) == LLONG_MAX, 1, "mul saturates up");
	is_int(golden_sat_mul(LLONG_MIN, 2) == LLONG_MIN, 1, "mul saturates down");
	is_int(golden_sat_sub(10, 3), 7, "in range: exact");
}

/* The stamp every document carries, and the reader's rule (jsonschema.h). */
static void test_schema(void)
{
	struct json_object *o = json_object_new_object();
	char why[128];
	struct {
		const char *text;
		bool ok;
		const char *why;
	} cases[] = {
	    {"{\"held\":1}", true, "a file from before the stamp reads as before"},
	    {"{\"document\":\"golden-ledger\",\"schema\":1}", true, "its own document"},
	    {"{\"document\":\"golden-sweep\",\"schema\":1}", false, "another document"},
	    {"{\"document\":\"golden-ledger\",\"schema\":2}", false, "a newer schema"},
	    {"{\"document\":\"golden-ledger\",\"schema\":0}", false, "schema 0"},
	    {"{\"document\":\"golden-ledger\",\"schema\":\"1\"}", false, "schema as text"},
	    {"{\"document\":\"golden-ledger\",\"schema\":null}", false, "schema null"},
	    {"{\"schema\":1}", true, "a schema without a document name"},
	};

	golden_json_stamp(o, "golden-ledger");
	is(golden_json_str(o, "document"), "golden-ledger", "stamp: document");
	is_int(json_object_get_int(json_object_object_get(o, "schema")), GOLDEN_JSON_SCHEMA,
	       "stamp: schema");
	ok(golden_json_schema_ok(o, "golden-ledger", why, sizeof(why)), "a stamped document reads");
	json_object_put(o);
	o = golden_json_parse_object("{\"hold\":{\"class\":\"reboot\"},\"history\":[1]}");
	golden_json_stamp(o, "golden-ledger");
	is(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
	   "{\"document\":\"golden-ledger\",\"schema\":1,\"hold\":{\"class\":\"reboot\"},"
	   "\"history\":[1]}",
	   "stamping a built document puts the stamp first and keeps every member");
	json_object_put(o);
	o = golden_json_parse_object("{\"document\":\"golden-ledger\",\"schema\":2}");
	ok(!golden_json_schema_ok(o, "golden-ledger", NULL, 0),
	   "a reader that needs no reason passes none, and still refuses a newer schema");
	json_object_put(o);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		o = golden_json_parse_object(cases[i].text);
		ok(golden_json_schema_ok(o, "golden-ledger", why, sizeof(why)) == cases[i].ok &&
		       (cases[i].ok ? why[0] == '\0' : why[0] != '\0'),
		   "%s: %s%s%s", cases[i].why, cases[i].ok ? "read" : "refused", why[0] ? ", " : "",
		   why);
		json_object_put(o);
	}
}

int main(void)
{
	test_types();
	test_schema();
	test_satmath();
	return done_testing();
}
