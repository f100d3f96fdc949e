/* See jsonschema.h. */
#include <config.h>

#include "util/jsonschema.h"

#include <stdio.h>
#include <string.h>

#include "util/jsonget.h"

void golden_json_stamp(struct json_object *doc, const char *document)
{
	struct json_object *rest;

	if (!json_object_is_type(doc, json_type_object))
		return;
	/* First in the text, where a person and `head` look: members already
	 * there are moved behind the stamp (json-c keeps insertion order). */
	rest = json_object_new_object();
	if (rest) {
		json_object_object_foreach(doc, k, v)
		{
			json_object_object_add(rest, k, json_object_get(v));
		}
		json_object_object_foreach(rest, k2, v2)
		{
			(void)v2;
			json_object_object_del(doc, k2);
		}
	}
	json_object_object_add(doc, "document", json_object_new_string(document));
	json_object_object_add(doc, "schema", json_object_new_int(GOLDEN_JSON_SCHEMA));
	if (rest) {
		json_object_object_foreach(rest, k3, v3)
		{
			json_object_object_add(doc, k3, json_object_get(v3));
		}
		json_object_put(rest);
	}
}

bool golden_json_schema_ok(struct json_object *doc, const char *document, char *why, size_t len)
{
	const char *name = golden_json_str(doc, "document");
	struct json_object *m = NULL;
	long long v;

	if (why && len)
		why[0] = '\0';
	if (name && strcmp(name, document)) {
		snprintf(why, len, "it is a %.64s document, not %s", name, document);
		return false;
	}
	if (!json_object_object_get_ex(doc, "schema", &m))
		return true; /* written before golden stamped its documents */
	if (!json_object_is_type(m, json_type_int)) {
		snprintf(why, len, "its \"schema\" is not an integer");
		return false;
	}
	v = json_object_get_int64(m);
	if (v < 1 || v > GOLDEN_JSON_SCHEMA) {
		snprintf(why, len, "schema %lld, this golden reads schema %d", v,
		         GOLDEN_JSON_SCHEMA);
		return false;
	}
	return true;
}
