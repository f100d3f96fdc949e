/* The outcome of a recipe choice, and its JSON form for the cache. */
#include "env/decision.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env/nccl_vars.h"

/* Sanity bounds for JSON read back from a cache file. */
#define MAX_JSON_VARS       1024
#define MAX_JSON_CANDIDATES 4096
#define MAX_JSON_NOTES      16
#define MAX_JSON_MANAGED    1024

void golden_decision_init(struct golden_decision *res)
{
	memset(res, 0, sizeof(*res));
}

void golden_decision_free(struct golden_decision *res)
{
	if (!res)
		return;
	free(res->recipe);
	free(res->source);
	for (int i = 0; i < res->nvars; i++) {
		free(res->vars[i].name);
		free(res->vars[i].value);
		free(res->vars[i].why);
	}
	free(res->vars);
	for (int i = 0; i < res->ncandidates; i++) {
		free(res->candidates[i].recipe);
		free(res->candidates[i].note);
	}
	free(res->candidates);
	for (int i = 0; i < res->nnotes; i++)
		free(res->notes[i].text);
	free(res->notes);
	for (int i = 0; i < res->nmanaged; i++)
		free(res->managed[i]);
	free(res->managed);
	golden_decision_init(res);
}

/* strdup that keeps NULL as NULL; *fail set when memory runs out. */
static char *dup_or_null(const char *s, bool *fail)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		*fail = true;
	return d;
}

/* Index of NAME, or -(insertion point) - 1. */
static int var_index(const struct golden_decision *res, const char *name)
{
	int lo = 0, hi = res->nvars - 1;

	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		int c = strcmp(res->vars[mid].name, name);

		if (!c)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -lo - 1;
}

int golden_decision_setvar(struct golden_decision *res, const char *name, const char *value,
                           const char *why)
{
	bool fail = false;
	char *v, *w;
	int i;

	if (!name || !value)
		return -1;
	v = dup_or_null(value, &fail);
	w = dup_or_null(why, &fail);
	if (fail)
		goto nomem;
	i = var_index(res, name);
	if (i >= 0) {
		free(res->vars[i].value);
		free(res->vars[i].why);
		res->vars[i].value = v;
		res->vars[i].why = w;
		return 0;
	} else {
		struct golden_decision_var *nv =
		    realloc(res->vars, sizeof(*nv) * (size_t)(res->nvars + 1));
		char *n;

		if (!nv)
			goto nomem;
		res->vars = nv;
		n = strdup(name);
		if (!n)
			goto nomem;
		i = -i - 1;
		memmove(&nv[i + 1], &nv[i], sizeof(*nv) * (size_t)(res->nvars - i));
		nv[i] = (struct golden_decision_var){n, v, w};
		res->nvars++;
		return 0;
	}
nomem:
	free(v);
	free(w);
	return -1;
}

const struct golden_decision_var *golden_decision_getvar(const struct golden_decision *res,
                                                         const char *name)
{
	int i;

	if (!res || !name)
		return NULL;
	i = var_index(res, name);
	return i >= 0 ? &res->vars[i] : NULL;
}

int golden_decision_add_candidate(struct golden_decision *res, const char *recipe, int specificity,
                                  bool matched, const char *note)
{
	struct golden_decision_candidate *nc;
	bool fail = false;
	char *r, *n;

	if (!recipe)
		return -1;
	nc = realloc(res->candidates, sizeof(*nc) * (size_t)(res->ncandidates + 1));
	if (!nc)
		return -1;
	res->candidates = nc;
	r = dup_or_null(recipe, &fail);
	n = dup_or_null(note, &fail);
	if (fail) {
		free(r);
		free(n);
		return -1;
	}
	nc[res->ncandidates++] = (struct golden_decision_candidate){r, specificity, matched, n};
	return 0;
}

int golden_decision_add_note(struct golden_decision *res, bool warning, const char *text)
{
	struct golden_decision_note *nn;
	char *t;

	if (!text)
		return -1;
	nn = realloc(res->notes, sizeof(*nn) * (size_t)(res->nnotes + 1));
	if (!nn)
		return -1;
	res->notes = nn;
	t = strdup(text);
	if (!t)
		return -1;
	nn[res->nnotes].warning = warning;
	nn[res->nnotes].text = t;
	res->nnotes++;
	return 0;
}

/* Index of NAME in managed, or -(insertion point) - 1. */
static int managed_index(const struct golden_decision *res, const char *name)
{
	int lo = 0, hi = res->nmanaged - 1;

	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		int c = strcmp(res->managed[mid], name);

		if (!c)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -lo - 1;
}

int golden_decision_add_managed(struct golden_decision *res, const char *name)
{
	char **nm, *n;
	int i;

	if (!name)
		return -1;
	i = managed_index(res, name);
	if (i >= 0)
		return 0;
	i = -i - 1;
	nm = realloc(res->managed, sizeof(*nm) * (size_t)(res->nmanaged + 1));
	if (!nm)
		return -1;
	res->managed = nm;
	n = strdup(name);
	if (!n)
		return -1;
	memmove(&nm[i + 1], &nm[i], sizeof(*nm) * (size_t)(res->nmanaged - i));
	nm[i] = n;
	res->nmanaged++;
	return 0;
}

bool golden_decision_manages(const struct golden_decision *res, const char *name)
{
	return res && name && managed_index(res, name) >= 0;
}

/* ---------------------------------------------------------------- to JSON */

/* Add KEY: string or null. Returns -1 on ENOMEM. */
static int add_str(struct json_object *o, const char *key, const char *s)
{
	struct json_object *v = NULL;

	if (s && !(v = json_object_new_string(s)))
		return -1;
	if (json_object_object_add(o, key, v) < 0) {
		json_object_put(v);
		return -1;
	}
	return 0;
}

static int add_obj(struct json_object *o, const char *key, struct json_object *v)
{
	if (!v || json_object_object_add(o, key, v) < 0) {
		json_object_put(v);
		return -1;
	}
	return 0;
}

static int append(struct json_object *arr, struct json_object *v)
{
	if (!v || json_object_array_add(arr, v) < 0) {
		json_object_put(v);
		return -1;
	}
	return 0;
}

static struct json_object *var_to_json(const struct golden_decision_var *v)
{
	struct json_object *o = json_object_new_object();

	if (!o || add_str(o, "name", v->name) || add_str(o, "value", v->value) ||
	    add_str(o, "why", v->why)) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static struct json_object *cand_to_json(const struct golden_decision_candidate *c)
{
	struct json_object *o = json_object_new_object();

	if (!o || add_str(o, "recipe", c->recipe) ||
	    add_obj(o, "specificity", json_object_new_int(c->specificity)) ||
	    add_obj(o, "matched", json_object_new_boolean(c->matched)) ||
	    add_str(o, "note", c->note)) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static struct json_object *note_to_json(const struct golden_decision_note *n)
{
	struct json_object *o = json_object_new_object();

	if (!o || add_obj(o, "warning", json_object_new_boolean(n->warning)) ||
	    add_str(o, "text", n->text)) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* notes and managed, added to O. Returns -1 on ENOMEM. */
static int extras_to_json(struct json_object *o, const struct golden_decision *res)
{
	struct json_object *notes = json_object_new_array();
	struct json_object *managed = json_object_new_array();

	if (!notes || !managed)
		goto fail;
	for (int i = 0; i < res->nnotes; i++)
		if (append(notes, note_to_json(&res->notes[i])) < 0)
			goto fail;
	for (int i = 0; i < res->nmanaged; i++)
		if (append(managed, json_object_new_string(res->managed[i])) < 0)
			goto fail;
	if (add_obj(o, "notes", notes) < 0) {
		json_object_put(managed);
		return -1;
	}
	return add_obj(o, "managed", managed);
fail:
	json_object_put(notes);
	json_object_put(managed);
	return -1;
}

struct json_object *golden_decision_to_json(const struct golden_decision *res)
{
	struct json_object *o = json_object_new_object();
	struct json_object *vars = json_object_new_array();
	struct json_object *cands = json_object_new_array();

	if (!o || !vars || !cands)
		goto fail;
	for (int i = 0; i < res->nvars; i++)
		if (append(vars, var_to_json(&res->vars[i])) < 0)
			goto fail;
	for (int i = 0; i < res->ncandidates; i++)
		if (append(cands, cand_to_json(&res->candidates[i])) < 0)
			goto fail;
	if (add_str(o, "recipe", res->recipe) || add_str(o, "source", res->source))
		goto fail;
	if (add_obj(o, "vars", vars) < 0) {
		vars = NULL; /* add_obj dropped it */
		goto fail;
	}
	vars = NULL;
	if (add_obj(o, "candidates", cands) < 0) {
		cands = NULL;
		goto fail;
	}
	cands = NULL;
	if (extras_to_json(o, res) < 0)
		goto fail;
	return o;
fail:
	json_object_put(vars);
	json_object_put(cands);
	json_object_put(o);
	return NULL;
}

/* -------------------------------------------------------------- from JSON */

/* KEY of O as a string. absent/null allowed when nullable; *out NULL then. */
static int get_str(struct json_object *o, const char *key, bool nullable, const char **out,
                   const char *where, struct golden_err *err)
{
	struct json_object *v = NULL;

	*out = NULL;
	if (!json_object_object_get_ex(o, key, &v) || !v) {
		if (nullable)
			return 0;
		return golden_err_set(err, "result JSON: %s%s: missing; expected a string", where,
		                      key);
	}
	if (!json_object_is_type(v, json_type_string))
		return golden_err_set(err, "result JSON: %s%s: expected a string%s", where, key,
		                      nullable ? " or null" : "");
	*out = json_object_get_string(v);
	return 0;
}

static int var_from_json(struct json_object *o, int i, struct golden_decision *res,
                         struct golden_err *err)
{
	const char *name, *value, *why;
	char where[32], msg[256];

	snprintf(where, sizeof(where), "vars[%d].", i);
	if (!json_object_is_type(o, json_type_object))
		return golden_err_set(err, "result JSON: vars[%d]: expected an object", i);
	if (get_str(o, "name", false, &name, where, err) < 0 ||
	    get_str(o, "value", false, &value, where, err) < 0 ||
	    get_str(o, "why", true, &why, where, err) < 0)
		return -1;
	/* A cache is input like any other: only variables golden may set, with
	 * values golden would produce. */
	if (golden_nccl_var_check(name, value, msg, sizeof(msg)) < 0)
		return golden_err_set(err, "result JSON: vars[%d]: %s=%s: %s", i, name, value, msg);
	if (golden_decision_getvar(res, name))
		return golden_err_set(err, "result JSON: vars[%d].name: %s appears twice", i, name);
	if (golden_decision_setvar(res, name, value, why) < 0)
		return golden_err_set(err, "result JSON: out of memory");
	return 0;
}

static int cand_from_json(struct json_object *o, int i, struct golden_decision *res,
                          struct golden_err *err)
{
	struct json_object *spec = NULL, *matched = NULL;
	const char *recipe, *note;
	char where[32];
	int64_t s;

	snprintf(where, sizeof(where), "candidates[%d].", i);
	if (!json_object_is_type(o, json_type_object))
		return golden_err_set(err, "result JSON: candidates[%d]: expected an object", i);
	if (get_str(o, "recipe", false, &recipe, where, err) < 0 ||
	    get_str(o, "note", true, &note, where, err) < 0)
		return -1;
	if (!json_object_object_get_ex(o, "specificity", &spec) ||
	    !json_object_is_type(spec, json_type_int) || (s = json_object_get_int64(spec)) < 0 ||
	    s > 1000)
		return golden_err_set(err, "result JSON: %sspecificity: expected an integer 0-1000",
		                      where);
	if (!json_object_object_get_ex(o, "matched", &matched) ||
	    !json_object_is_type(matched, json_type_boolean))
		return golden_err_set(err, "result JSON: %smatched: expected true or false", where);
	if (golden_decision_add_candidate(res, recipe, (int)s, json_object_get_boolean(matched),
	                                  note) < 0)
		return golden_err_set(err, "result JSON: out of memory");
	return 0;
}

static int get_array(struct json_object *obj, const char *key, bool required, size_t max,
                     struct json_object **out, struct golden_err *err)
{
	*out = NULL;
	if (!json_object_object_get_ex(obj, key, out) || !*out) {
		*out = NULL;
		if (!required)
			return 0;
		return golden_err_set(err, "result JSON: %s: missing; expected an array", key);
	}
	if (!json_object_is_type(*out, json_type_array) || json_object_array_length(*out) > max)
		return golden_err_set(err, "result JSON: %s: expected an array of at most %zu", key,
		                      max);
	return 0;
}

static int note_from_json(struct json_object *o, int i, struct golden_decision *res,
                          struct golden_err *err)
{
	struct json_object *w = NULL;
	const char *text;
	char where[32];

	snprintf(where, sizeof(where), "notes[%d].", i);
	if (!json_object_is_type(o, json_type_object))
		return golden_err_set(err, "result JSON: notes[%d]: expected an object", i);
	if (get_str(o, "text", false, &text, where, err) < 0)
		return -1;
	if (!json_object_object_get_ex(o, "warning", &w) ||
	    !json_object_is_type(w, json_type_boolean))
		return golden_err_set(err, "result JSON: %swarning: expected true or false", where);
	if (golden_decision_add_note(res, json_object_get_boolean(w), text) < 0)
		return golden_err_set(err, "result JSON: out of memory");
	return 0;
}

/* A managed name widens what a marker may touch: only variables golden
 * knows (nccl_vars) are accepted, whatever a cache file says. */
static int managed_from_json(struct json_object *o, int i, struct golden_decision *res,
                             struct golden_err *err)
{
	const char *name;

	if (!json_object_is_type(o, json_type_string))
		return golden_err_set(err, "result JSON: managed[%d]: expected a string", i);
	name = json_object_get_string(o);
	if (!golden_nccl_var_find(name))
		return golden_err_set(
		    err, "result JSON: managed[%d]: %s is not a variable golden sets", i, name);
	if (golden_decision_add_managed(res, name) < 0)
		return golden_err_set(err, "result JSON: out of memory");
	return 0;
}

int golden_decision_from_json(struct json_object *obj, struct golden_decision *res,
                              struct golden_err *err)
{
	struct json_object *vars, *cands, *notes, *managed;
	const char *recipe, *source;
	bool fail = false;

	golden_decision_init(res);
	if (!obj || !json_object_is_type(obj, json_type_object))
		return golden_err_set(err, "result JSON: expected an object");
	if (get_str(obj, "recipe", true, &recipe, "", err) < 0 ||
	    get_str(obj, "source", true, &source, "", err) < 0 ||
	    get_array(obj, "vars", true, MAX_JSON_VARS, &vars, err) < 0 ||
	    get_array(obj, "candidates", false, MAX_JSON_CANDIDATES, &cands, err) < 0 ||
	    get_array(obj, "notes", false, MAX_JSON_NOTES, &notes, err) < 0 ||
	    get_array(obj, "managed", false, MAX_JSON_MANAGED, &managed, err) < 0)
		return -1;
	res->recipe = dup_or_null(recipe, &fail);
	res->source = dup_or_null(source, &fail);
	if (fail) {
		golden_decision_free(res);
		return golden_err_set(err, "result JSON: out of memory");
	}
	for (size_t i = 0; i < json_object_array_length(vars); i++)
		if (var_from_json(json_object_array_get_idx(vars, i), (int)i, res, err) < 0)
			goto fail;
	for (size_t i = 0; cands && i < json_object_array_length(cands); i++)
		if (cand_from_json(json_object_array_get_idx(cands, i), (int)i, res, err) < 0)
			goto fail;
	for (size_t i = 0; notes && i < json_object_array_length(notes); i++)
		if (note_from_json(json_object_array_get_idx(notes, i), (int)i, res, err) < 0)
			goto fail;
	for (size_t i = 0; managed && i < json_object_array_length(managed); i++)
		if (managed_from_json(json_object_array_get_idx(managed, i), (int)i, res, err) < 0)
			goto fail;
	return 0;
fail:
	golden_decision_free(res);
	return -1;
}
