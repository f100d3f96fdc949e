/* What every JSON document golden writes says about itself.
 *
 * Each one, on stdout, in a state file or as a log line, carries two
 * members: "document" (which of golden's documents it is, e.g.
 * "golden-status") and "schema" (the version of that document's shape, an
 * integer, 1 today). golden-json(7) lists every document and its members.
 *
 * A reader's rule: a file without them was written before golden stamped
 * its documents and is read as before; a file that names another document,
 * or a schema newer than this golden knows, is not read (an upgrade that is
 * rolled back must not have the old code misread the new shape).
 */
#ifndef GOLDEN_UTIL_JSONSCHEMA_H
#define GOLDEN_UTIL_JSONSCHEMA_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

/* The version of every document's shape this golden writes and reads. */
#define GOLDEN_JSON_SCHEMA 1

/* Put "document" and "schema" into doc (an object), first if it is new. */
void golden_json_stamp(struct json_object *doc, const char *document);

/* True when doc may be read as document (see the rule above); false with
 * why ("a golden-sweep document", "schema 2, newer than this golden's 1").
 * why may be NULL (len 0) for a reader that treats the file as unreadable. */
bool golden_json_schema_ok(struct json_object *doc, const char *document, char *why, size_t len);

#endif
