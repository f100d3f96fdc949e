/* The -J reader: nccl-tests' JSON file (src/util.cu since 00f5281,
 * 2025-10-17), one object per run, read with json-c. Keys, as written:
 * version, args, nccl_version, config{..., devices[{rank, hostname,
 * device, device_info}]}, results[{size, count, type, redop, root,
 * out_of_place{time|cpu_time, alg_bw, bus_bw, nwrong}, in_place{...}}],
 * out_of_bounds{count, okay}, average_bus_bandwidth{bandwidth, okay}
 * (spelled average_bus_bandwidith / bandwidith in JSON version 1), errors. */
#include "sweep/parse.h"

#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strutil.h"

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	if (!o || !json_object_is_type(o, json_type_object))
		return NULL;
	return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/* A number, or a number printed as a string ("nan", "    -1"). */
static bool num(struct json_object *v, double *out)
{
	char *end;

	if (!v)
		return false;
	if (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)) {
		*out = json_object_get_double(v);
		return isfinite(*out);
	}
	if (json_object_is_type(v, json_type_string)) {
		*out = strtod(json_object_get_string(v), &end);
		return end != json_object_get_string(v) && isfinite(*out);
	}
	return false;
}

static void text(char *dst, size_t len, struct json_object *v)
{
	if (!v || !json_object_is_type(v, json_type_string))
		return;
	golden_strlcpy(dst, json_object_get_string(v), len);
	for (char *s = dst; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			*s = '?';
}

static bool half(struct json_object *h, struct golden_sweep_half *out)
{
	struct json_object *t = get(h, "time");
	double w;

	if (!h || json_object_is_type(h, json_type_null))
		return false;
	if (!t)
		t = get(h, "cpu_time");
	if (!num(t, &out->time_us) || !num(get(h, "alg_bw"), &out->algbw) ||
	    !num(get(h, "bus_bw"), &out->busbw))
		return false;
	out->wrong = num(get(h, "nwrong"), &w) && w >= 0 ? w : -1;
	out->present = true;
	return true;
}

static void devices(struct golden_sweep_run *r, struct json_object *devs)
{
	size_t n =
	    devs && json_object_is_type(devs, json_type_array) ? json_object_array_length(devs) : 0;
	const char *prev[8192];
	size_t nprev = 0;

	for (size_t i = 0; i < n; i++) {
		struct json_object *d = json_object_array_get_idx(devs, i);
		struct json_object *h = get(d, "hostname");
		double rank, dev;
		bool seen = false;

		r->ndev_lines++;
		if (num(get(d, "rank"), &rank) && rank > r->max_rank)
			r->max_rank = (int)rank;
		if (num(get(d, "device"), &dev) && dev > r->max_device)
			r->max_device = (int)dev;
		if (!r->device[0])
			text(r->device, sizeof(r->device), get(d, "device_info"));
		if (!h || !json_object_is_type(h, json_type_string))
			continue;
		for (size_t k = 0; k < nprev && !seen; k++)
			seen = !strcmp(prev[k], json_object_get_string(h));
		if (!seen && nprev < sizeof(prev) / sizeof(prev[0])) {
			prev[nprev++] = json_object_get_string(h);
			r->nhosts++;
		}
	}
}

static void config(struct golden_sweep_run *r, struct json_object *c)
{
	double v;

	if (!c)
		return;
	r->have_config = true;
	if (num(get(c, "nthreads"), &v))
		r->nthread = (int)v;
	if (num(get(c, "ngpus"), &v))
		r->ngpus = (int)v;
	if (num(get(c, "minimum_bytes"), &v))
		r->min_bytes = (long long)v;
	if (num(get(c, "maximum_bytes"), &v))
		r->max_bytes = (long long)v;
	if (num(get(c, "step_factor"), &v))
		r->step_factor = (int)v;
	if (num(get(c, "step_bytes"), &v))
		r->step_bytes = (long long)v;
	if (num(get(c, "validation"), &v))
		r->validation = (int)v;
	devices(r, get(c, "devices"));
}

int golden_sweep_parse_json(const char *buf, size_t len, int file, struct golden_sweep_set *set,
                            struct golden_err *err)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *o, *results, *args, *v, *avg, *oob, *errs;
	struct golden_sweep_run *r;
	int rc = 1;

	if (!tok)
		return golden_err_set(err, "%s: out of memory", set->files[file]);
	o = json_tokener_parse_ex(tok, buf, (int)len);
	if (!o || json_tokener_get_error(tok) != json_tokener_success ||
	    !json_object_is_type(o, json_type_object)) {
		golden_err_set(err,
		               "%s: starts with '{' but is not a JSON object; expected nccl-tests "
		               "text output or its -J file",
		               set->files[file]);
		json_object_put(o);
		json_tokener_free(tok);
		return -1;
	}
	json_tokener_free(tok);
	results = get(o, "results");
	if (!results || !json_object_is_type(results, json_type_array)) {
		json_object_put(o);
		return 0; /* JSON, but not nccl-tests' */
	}
	r = golden_sweep_run_add(set, file);
	if (!r) {
		json_object_put(o);
		return golden_err_set(err, "%s: out of memory", set->files[file]);
	}
	r->first_line = 1;
	r->header = true;
	r->layout = (struct golden_sweep_layout){true, 0,    "",   2,     4,
	                                         0,    true, true, false, GOLDEN_SWEEP_ERR_WRONG};
	args = get(o, "args");
	if (args && json_object_is_type(args, json_type_array) &&
	    json_object_array_length(args) > 0) {
		v = json_object_array_get_idx(args, 0);
		if (v && json_object_is_type(v, json_type_string)) {
			r->coll = golden_sweep_coll_parse(json_object_get_string(v));
			if (r->coll != GOLDEN_COLL_UNKNOWN)
				r->coll_src = GOLDEN_SWEEP_SRC_LOG;
		}
	}
	{
		double nv;

		if (num(get(o, "nccl_version"), &nv) && nv > 0)
			r->nccl_library = (int)nv;
	}
	config(r, get(o, "config"));
	for (size_t i = 0; i < json_object_array_length(results); i++) {
		struct json_object *e = json_object_array_get_idx(results, i);
		struct golden_sweep_row row;
		double d;

		memset(&row, 0, sizeof(row));
		row.root = -1;
		if (!num(get(e, "size"), &d) || d < 0)
			continue;
		row.size = (long long)d;
		if (num(get(e, "count"), &d))
			row.count = (long long)d;
		text(row.type, sizeof(row.type), get(e, "type"));
		text(row.redop, sizeof(row.redop), get(e, "redop"));
		if (num(get(e, "root"), &d))
			row.root = (int)d;
		half(get(e, "out_of_place"), &row.half[GOLDEN_SWEEP_OOP]);
		half(get(e, "in_place"), &row.half[GOLDEN_SWEEP_IP]);
		if (!row.half[0].present && !row.half[1].present)
			continue;
		if (golden_sweep_run_add_row(r, &row) < 0) {
			rc = golden_err_set(err, "%s: out of memory", set->files[file]);
			break;
		}
	}
	oob = get(o, "out_of_bounds");
	if (oob) {
		double c;
		struct json_object *ok = get(oob, "okay");

		r->footer = true;
		if (num(get(oob, "count"), &c))
			r->oob = (long long)c;
		r->oob_failed = ok && json_object_is_type(ok, json_type_boolean) &&
		                !json_object_get_boolean(ok);
	}
	avg = get(o, "average_bus_bandwidth");
	if (!avg)
		avg = get(o, "average_bus_bandwidith"); /* JSON version 1 */
	if (avg) {
		double b;

		r->footer = true;
		if (num(get(avg, "bandwidth"), &b) || num(get(avg, "bandwidith"), &b))
			r->avg_busbw = b;
	}
	errs = get(o, "errors");
	if (errs && json_object_is_type(errs, json_type_array))
		for (size_t i = 0; i < json_object_array_length(errs); i++) {
			struct json_object *e = json_object_array_get_idx(errs, i);

			if (!e || !json_object_is_type(e, json_type_string) ||
			    !json_object_get_string(e)[0])
				continue;
			if (r->nfailures++ == 0)
				text(r->failure, sizeof(r->failure), e);
		}
	json_object_put(o);
	return rc < 0 ? -1 : 1;
}
