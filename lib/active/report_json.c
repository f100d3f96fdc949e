#include <config.h>

#include "active/report_json.h"

#include <ctype.h>
#include <string.h>

#include <json-c/json.h>

#include "active/expect.h"
#include "util/strutil.h"
#include "util/jsonschema.h"

static void put_str(struct json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, json_object_new_string(v ? v : ""));
}

static void put_num(struct json_object *o, const char *k, double v)
{
	json_object_object_add(o, k, json_object_new_double(v));
}

static void put_int(struct json_object *o, const char *k, long long v)
{
	json_object_object_add(o, k, json_object_new_int64(v));
}

static struct json_object *figure_json(const struct golden_active_figure *f,
                                       enum golden_active_test t)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "measured", json_object_new_boolean(f->measured));
	if (f->measured)
		put_num(o, "value", f->value);
	put_str(o, "unit", golden_active_test_unit(t));
	if (f->expect_min > 0)
		put_num(o, "floor", f->expect_min);
	if (f->sibling_med > 0)
		put_num(o, "median", f->sibling_med);
	put_str(o, "verdict", golden_active_verdict_name(f->verdict));
	if (f->error[0])
		put_str(o, "error", f->error);
	return o;
}

static struct json_object *gpu_json(const struct golden_active_gpu *g)
{
	struct json_object *o = json_object_new_object(), *tests = json_object_new_object(), *e;
	char cc[16];

	put_int(o, "index", g->index);
	put_str(o, "name", g->name);
	put_str(o, "busid", g->busid);
	put_num(o, "memory_gib", g->mem_total_gib);
	put_int(o, "sms", g->sms);
	snprintf(cc, sizeof(cc), "%d.%d", g->cc_major, g->cc_minor);
	put_str(o, "compute_capability", cc);
	for (int t = 0; t < GOLDEN_ACTIVE_NTESTS; t++) {
		const struct golden_active_figure *f = &g->fig[t];

		if (f->measured || f->error[0] || f->verdict != GOLDEN_ACTIVE_V_NONE)
			json_object_object_add(tests,
			                       golden_active_test_name((enum golden_active_test)t),
			                       figure_json(f, (enum golden_active_test)t));
	}
	json_object_object_add(o, "tests", tests);
	e = json_object_new_object();
	put_num(e, "bf16", g->gemm_max_err[0]);
	put_num(e, "tf32", g->gemm_max_err[1]);
	json_object_object_add(o, "gemm_error_vs_tolerance", e);
	put_num(o, "memtest_gib", g->memtest_gib);
	if (g->first_bad)
		put_int(o, "memtest_first_bad_offset", (long long)g->first_bad);
	return o;
}

struct json_object *golden_active_report_to_json(const struct golden_active_report *r)
{
	struct json_object *o = json_object_new_object(), *a, *n, *ph;

	golden_json_stamp(o, "golden-active-report");
	put_str(o, "program", r->program);
	put_str(o, "node", r->node);
	put_int(o, "started", r->started);
	put_int(o, "duration_ms", r->duration_ms);
	put_int(o, "budget_s", r->budget_s);
	put_str(o, "driver", r->driver);
	put_str(o, "cuda_runtime", r->runtime);
	put_int(o, "expected_gpus", r->expected_gpus);
	put_str(o, "result", golden_active_result_name(r->result));
	put_str(o, "code", r->code);
	put_str(o, "detail", r->detail);
	put_int(o, "failed", r->nfailed);
	if (r->env_error[0])
		put_str(o, "error", r->env_error);
	a = json_object_new_array();
	for (int g = 0; g < r->ngpus; g++)
		json_object_array_add(a, gpu_json(&r->gpu[g]));
	json_object_object_add(o, "gpus", a);
	a = json_object_new_array();
	for (int i = 0; i < r->npairs; i++) {
		struct json_object *p = json_object_new_object();

		put_int(p, "a", r->pair[i].a);
		put_int(p, "b", r->pair[i].b);
		put_num(p, "gbps", r->pair[i].gbps);
		if (r->pair[i].error[0])
			put_str(p, "error", r->pair[i].error);
		json_object_array_add(a, p);
	}
	json_object_object_add(o, "p2p_pairs", a);
	n = json_object_new_object();
	json_object_object_add(n, "measured", json_object_new_boolean(r->nccl.measured));
	if (r->nccl.measured) {
		put_num(n, "busbw_gbps", r->nccl.busbw_gbps);
		put_num(n, "bytes", r->nccl.bytes);
	}
	if (r->nccl.expect_min > 0)
		put_num(n, "floor", r->nccl.expect_min);
	json_object_object_add(n, "wrong", json_object_new_boolean(r->nccl.wrong));
	put_str(n, "verdict", golden_active_verdict_name(r->nccl.verdict));
	if (r->nccl.error[0])
		put_str(n, "error", r->nccl.error);
	put_str(n, "golden_recipe", r->nccl.recipe);
	put_int(n, "golden_vars_set", r->nccl.nvars_set);
	json_object_object_add(o, "nccl", n);
	ph = json_object_new_object();
	for (int p = 0; p < GOLDEN_ACTIVE_NPHASES; p++) {
		struct json_object *e = json_object_new_object();

		put_str(e, "end", golden_active_phase_end_name(r->phase[p].end));
		put_int(e, "deadline_ms", r->phase[p].deadline_ms);
		put_int(e, "duration_ms", r->phase[p].duration_ms);
		if (r->phase[p].note[0])
			put_str(e, "note", r->phase[p].note);
		json_object_object_add(ph, golden_active_phase_name((enum golden_active_phase)p),
		                       e);
	}
	json_object_object_add(o, "phases", ph);
	return o;
}

/* --- reading back ------------------------------------------------------ */

static struct json_object *get(struct json_object *o, const char *k)
{
	struct json_object *v;

	return o && json_object_object_get_ex(o, k, &v) ? v : NULL;
}

static void get_str(struct json_object *o, const char *k, char *dst, size_t len)
{
	struct json_object *v = get(o, k);

	if (v && json_object_is_type(v, json_type_string))
		golden_strlcpy(dst, json_object_get_string(v), len);
}

static double get_num(struct json_object *o, const char *k, double dflt)
{
	struct json_object *v = get(o, k);

	if (v &&
	    (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
		return json_object_get_double(v);
	return dflt;
}

static bool get_bool(struct json_object *o, const char *k)
{
	struct json_object *v = get(o, k);

	return v && json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v);
}

static int verdict_of(struct json_object *o)
{
	char s[32] = "";
	int v;

	get_str(o, "verdict", s, sizeof(s));
	v = golden_active_verdict_parse(s);
	return v < 0 ? GOLDEN_ACTIVE_V_NONE : v;
}

static void gpu_from(struct json_object *o, struct golden_active_gpu *g)
{
	struct json_object *tests = get(o, "tests"), *e = get(o, "gemm_error_vs_tolerance");
	char cc[16] = "";

	g->index = (int)get_num(o, "index", 0);
	get_str(o, "name", g->name, sizeof(g->name));
	get_str(o, "busid", g->busid, sizeof(g->busid));
	g->mem_total_gib = get_num(o, "memory_gib", 0);
	g->sms = (int)get_num(o, "sms", 0);
	get_str(o, "compute_capability", cc, sizeof(cc));
	if (sscanf(cc, "%d.%d", &g->cc_major, &g->cc_minor) != 2)
		g->cc_major = g->cc_minor = 0;
	for (int t = 0; tests && t < GOLDEN_ACTIVE_NTESTS; t++) {
		struct json_object *f =
		    get(tests, golden_active_test_name((enum golden_active_test)t));
		struct golden_active_figure *fig = &g->fig[t];

		if (!f || !json_object_is_type(f, json_type_object))
			continue;
		fig->measured = get_bool(f, "measured");
		fig->value = get_num(f, "value", 0);
		fig->expect_min = get_num(f, "floor", 0);
		fig->sibling_med = get_num(f, "median", 0);
		fig->verdict = (enum golden_active_verdict)verdict_of(f);
		get_str(f, "error", fig->error, sizeof(fig->error));
	}
	g->gemm_max_err[0] = get_num(e, "bf16", 0);
	g->gemm_max_err[1] = get_num(e, "tf32", 0);
	g->memtest_gib = get_num(o, "memtest_gib", 0);
	g->first_bad = (unsigned long long)get_num(o, "memtest_first_bad_offset", 0);
}

void golden_active_code_sanitize(char *code)
{
	static const char ok[] = " .<>/:_+-";

	code[GOLDEN_ACTIVE_CODE_LEN - 1] = '\0';
	for (char *p = code; *p; p++)
		if (!isalnum((unsigned char)*p) || (unsigned char)*p > 0x7e)
			if (!strchr(ok, *p))
				*p = '_';
}

int golden_active_report_from_json(struct json_object *o, struct golden_active_report *r,
                                   struct golden_err *err)
{
	struct json_object *a, *n, *ph;
	char res[32] = "", code[64] = "", why[128];
	int v;

	golden_active_report_init(r);
	if (!o || !json_object_is_type(o, json_type_object))
		return golden_err_set(err, "not a JSON object");
	if (!golden_json_schema_ok(o, "golden-active-report", why, sizeof(why)))
		return golden_err_set(err, "not a report this golden reads: %s", why);
	get_str(o, "result", res, sizeof(res));
	v = golden_active_result_parse(res);
	if (v < 0)
		return golden_err_set(err, "\"result\" is '%s': expected pass, warn, fail or error",
		                      res);
	r->result = (enum golden_active_result)v;
	get_str(o, "code", code, sizeof(code));
	golden_active_code_sanitize(code);
	golden_strlcpy(r->code, code, sizeof(r->code));
	if (r->result == GOLDEN_ACTIVE_FAIL && !r->code[0])
		golden_strlcpy(r->code, "active fail", sizeof(r->code));
	get_str(o, "detail", r->detail, sizeof(r->detail));
	get_str(o, "error", r->env_error, sizeof(r->env_error));
	get_str(o, "program", r->program, sizeof(r->program));
	get_str(o, "node", r->node, sizeof(r->node));
	get_str(o, "driver", r->driver, sizeof(r->driver));
	get_str(o, "cuda_runtime", r->runtime, sizeof(r->runtime));
	r->started = (long long)get_num(o, "started", 0);
	r->duration_ms = (int)get_num(o, "duration_ms", 0);
	r->budget_s = (int)get_num(o, "budget_s", 0);
	r->expected_gpus = (int)get_num(o, "expected_gpus", -1);
	r->nfailed = (int)get_num(o, "failed", r->result == GOLDEN_ACTIVE_FAIL);
	a = get(o, "gpus");
	if (a && json_object_is_type(a, json_type_array))
		for (size_t i = 0;
		     i < json_object_array_length(a) && r->ngpus < GOLDEN_ACTIVE_MAX_GPUS; i++)
			gpu_from(json_object_array_get_idx(a, i), &r->gpu[r->ngpus++]);
	a = get(o, "p2p_pairs");
	if (a && json_object_is_type(a, json_type_array))
		for (size_t i = 0;
		     i < json_object_array_length(a) && r->npairs < GOLDEN_ACTIVE_MAX_PAIRS; i++) {
			struct json_object *p = json_object_array_get_idx(a, i);
			struct golden_active_pair *q = &r->pair[r->npairs++];

			q->a = (int)get_num(p, "a", 0);
			q->b = (int)get_num(p, "b", 0);
			q->gbps = get_num(p, "gbps", 0);
			get_str(p, "error", q->error, sizeof(q->error));
		}
	n = get(o, "nccl");
	if (n) {
		r->nccl.measured = get_bool(n, "measured");
		r->nccl.busbw_gbps = get_num(n, "busbw_gbps", 0);
		r->nccl.bytes = get_num(n, "bytes", 0);
		r->nccl.expect_min = get_num(n, "floor", 0);
		r->nccl.wrong = get_bool(n, "wrong");
		r->nccl.verdict = (enum golden_active_verdict)verdict_of(n);
		get_str(n, "error", r->nccl.error, sizeof(r->nccl.error));
		get_str(n, "golden_recipe", r->nccl.recipe, sizeof(r->nccl.recipe));
		r->nccl.nvars_set = (int)get_num(n, "golden_vars_set", 0);
	}
	ph = get(o, "phases");
	for (int p = 0; ph && p < GOLDEN_ACTIVE_NPHASES; p++) {
		struct json_object *e =
		    get(ph, golden_active_phase_name((enum golden_active_phase)p));
		char end[32] = "";

		if (!e)
			continue;
		get_str(e, "end", end, sizeof(end));
		v = golden_active_phase_end_parse(end);
		r->phase[p].end = v < 0 ? GOLDEN_ACTIVE_NOT_RUN : (enum golden_active_phase_end)v;
		r->phase[p].deadline_ms = (int)get_num(e, "deadline_ms", 0);
		r->phase[p].duration_ms = (int)get_num(e, "duration_ms", 0);
		get_str(e, "note", r->phase[p].note, sizeof(r->phase[p].note));
	}
	return 0;
}

int golden_active_report_parse(const char *text, struct golden_active_report *r,
                               struct golden_err *err)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *o;
	int rc;

	if (!tok)
		return golden_err_set(err, "out of memory");
	o = json_tokener_parse_ex(tok, text, (int)strlen(text));
	if (!o) {
		rc = golden_err_set(err, "output is not JSON (%s)",
		                    json_tokener_error_desc(json_tokener_get_error(tok)));
		json_tokener_free(tok);
		golden_active_report_init(r);
		return rc;
	}
	json_tokener_free(tok);
	rc = golden_active_report_from_json(o, r, err);
	json_object_put(o);
	return rc;
}

/* --- the table ---------------------------------------------------------- */

static void cell(FILE *out, const struct golden_active_figure *f, enum golden_active_test t)
{
	char buf[32];

	switch (f->verdict) {
	case GOLDEN_ACTIVE_V_TIMEOUT:
		fprintf(out, " %9s", "HUNG");
		return;
	case GOLDEN_ACTIVE_V_ERROR:
		fprintf(out, " %9s", "ERROR");
		return;
	default:
		break;
	}
	if (!f->measured) {
		fprintf(out, " %9s", "-");
		return;
	}
	snprintf(buf, sizeof(buf),
	         t == GOLDEN_ACTIVE_MEMTEST ? "%.0f"
	         : f->value < 10            ? "%.2f"
	                                    : "%.0f",
	         f->value);
	if (f->verdict == GOLDEN_ACTIVE_V_WRONG)
		golden_strlcat(buf, t == GOLDEN_ACTIVE_MEMTEST ? "!" : " WRONG", sizeof(buf));
	else if (f->verdict == GOLDEN_ACTIVE_V_LOW_TABLE)
		golden_strlcat(buf, "!", sizeof(buf));
	else if (f->verdict == GOLDEN_ACTIVE_V_LOW_SIBLINGS)
		golden_strlcat(buf, "~", sizeof(buf));
	fprintf(out, " %9s", buf);
}

void golden_active_report_print(FILE *out, const struct golden_active_report *r)
{
	const struct golden_active_model *m =
	    r->ngpus ? golden_active_model_find(r->gpu[0].name) : NULL;

	fprintf(out, "%s on %s: %d GPU%s%s%s, driver %s, CUDA %s, %.1f s (budget %d s)\n",
	        r->program[0] ? r->program : "golden-active", r->node[0] ? r->node : "?", r->ngpus,
	        r->ngpus == 1 ? "" : "s", r->ngpus ? " " : "", r->ngpus ? r->gpu[0].name : "",
	        r->driver[0] ? r->driver : "?", r->runtime[0] ? r->runtime : "?",
	        r->duration_ms / 1000.0, r->budget_s);
	if (r->ngpus) {
		fprintf(out, "%3s %-13s", "gpu", "bus");
		for (int t = 0; t < GOLDEN_ACTIVE_NTESTS; t++) {
			char h[32];

			snprintf(h, sizeof(h), "%s",
			         golden_active_test_name((enum golden_active_test)t));
			fprintf(out, " %9s", h);
		}
		fprintf(out, "\n%3s %-13s", "", "");
		for (int t = 0; t < GOLDEN_ACTIVE_NTESTS; t++)
			fprintf(out, " %9s", golden_active_test_unit((enum golden_active_test)t));
		fputc('\n', out);
	}
	for (int g = 0; g < r->ngpus; g++) {
		fprintf(out, "%3d %-13s", r->gpu[g].index, r->gpu[g].busid);
		for (int t = 0; t < GOLDEN_ACTIVE_NTESTS; t++)
			cell(out, &r->gpu[g].fig[t], (enum golden_active_test)t);
		fputc('\n', out);
	}
	if (m) {
		fprintf(out, "%3s %-13s", "", "floor");
		for (int t = 0; t < GOLDEN_ACTIVE_NTESTS; t++) {
			double f = golden_active_floor(m, (enum golden_active_test)t);

			if (t == GOLDEN_ACTIVE_MEMTEST)
				fprintf(out, " %9s", "0");
			else if (f > 0)
				fprintf(out, f < 10 ? " %9.2f" : " %9.0f", f);
			else
				fprintf(out, " %9s", "-");
		}
		fprintf(out, "\n    (%s, datasheet x fraction; %s)\n", m->label,
		        m->verified ? "verified" : "unverified on real hardware");
	} else if (r->ngpus) {
		fprintf(out,
		        "    no expectation table entry for '%s': judged against this node's GPUs "
		        "only\n",
		        r->gpu[0].name);
	}
	if (r->ngpus)
		fprintf(out, "    ! below the floor   ~ more than the tolerance below this node's "
		             "median   HUNG/ERROR: the phase hung or a call failed\n");
	if (r->nccl.measured || r->nccl.verdict != GOLDEN_ACTIVE_V_NONE) {
		char floor[48] = "";

		if (r->nccl.expect_min > 0)
			snprintf(floor, sizeof(floor), " (floor %.0f)", r->nccl.expect_min);
		fprintf(
		    out,
		    "nccl all-reduce: busbw %.0f GB/s over %d GPUs at %.0f MiB per rank%s: %s\n",
		    r->nccl.busbw_gbps, r->ngpus, r->nccl.bytes / 1048576, floor,
		    golden_active_verdict_name(r->nccl.verdict));
	}
	for (int p = 0; p < GOLDEN_ACTIVE_NPHASES; p++)
		if (r->phase[p].end == GOLDEN_ACTIVE_TIMEOUT ||
		    r->phase[p].end == GOLDEN_ACTIVE_CRASHED || r->phase[p].note[0])
			fprintf(out, "phase %s: %s%s%s\n",
			        golden_active_phase_name((enum golden_active_phase)p),
			        golden_active_phase_end_name(r->phase[p].end),
			        r->phase[p].note[0] ? ": " : "", r->phase[p].note);
	fprintf(out, "result: %s%s%s\n", golden_active_result_name(r->result),
	        r->code[0] ? " " : "", r->code);
	if (r->detail[0])
		fprintf(out, "  %s\n", r->detail);
}
