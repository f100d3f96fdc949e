#include <config.h>

#include "util/jsonget.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

struct json_object *golden_json_member(struct json_object *o, const char *key, enum json_type t)
{
	struct json_object *v;

	if (!o || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, key, &v) || !v || !json_object_is_type(v, t))
		return NULL;
	return v;
}

const char *golden_json_str(struct json_object *o, const char *key)
{
	struct json_object *v = golden_json_member(o, key, json_type_string);

	return v ? json_object_get_string(v) : NULL;
}

const char *golden_json_str_or(struct json_object *o, const char *key, const char *unknown)
{
	const char *s = golden_json_str(o, key);

	return s ? s : unknown;
}

bool golden_json_int(struct json_object *o, const char *key, long long *out)
{
	struct json_object *v = golden_json_member(o, key, json_type_int);

	if (!v)
		return false;
	/* json-c keeps integers above INT64_MAX as uint64; they read as
	 * INT64_MAX, which no caller takes for a real value. */
	*out = (long long)json_object_get_int64(v);
	return true;
}

bool golden_json_int_range(struct json_object *o, const char *key, long long lo, long long hi,
                           long long *out)
{
	long long v;

	if (!golden_json_int(o, key, &v) || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

bool golden_json_bool(struct json_object *o, const char *key, bool *out)
{
	struct json_object *v = golden_json_member(o, key, json_type_boolean);

	if (!v)
		return false;
	*out = json_object_get_boolean(v);
	return true;
}

bool golden_json_number(struct json_object *o, const char *key, double *out)
{
	struct json_object *v = golden_json_member(o, key, json_type_double);

	if (!v)
		v = golden_json_member(o, key, json_type_int);
	if (!v)
		return false;
	*out = json_object_get_double(v);
	return true;
}

bool golden_json_u64_text(struct json_object *o, const char *key, uint64_t *out)
{
	const char *s = golden_json_str(o, key);
	unsigned long long v;
	char *end;

	if (!s || !isdigit((unsigned char)s[0]))
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return false;
	*out = (uint64_t)v;
	return true;
}

const char *golden_json_text(struct json_object *o, const char *key, char *buf, size_t len,
                             const char *unknown)
{
	const char *s = golden_json_str(o, key);
	long long i;
	double d;
	bool b;

	if (s)
		return s;
	if (golden_json_int(o, key, &i))
		snprintf(buf, len, "%lld", i);
	else if (golden_json_number(o, key, &d))
		snprintf(buf, len, "%g", d);
	else if (golden_json_bool(o, key, &b))
		snprintf(buf, len, "%s", b ? "true" : "false");
	else
		return unknown;
	return buf;
}

struct json_object *golden_json_parse_object(const char *text)
{
	struct json_object *o = text ? json_tokener_parse(text) : NULL;

	if (o && !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		return NULL;
	}
	return o;
}
