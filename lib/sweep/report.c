#include "sweep/report.h"

#include <string.h>

#include "util/jsonschema.h"

int golden_sweep_verdict(const struct golden_sweep_result *res)
{
	return res->n ? 1 : 0;
}

static const char *base(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

const char *golden_sweep_run_name(const struct golden_sweep_set *set,
                                  const struct golden_sweep_run *r, char *buf, size_t len)
{
	char nodes[16] = "?n";

	if (r->nodes > 0)
		snprintf(nodes, sizeof(nodes), "%dn", r->nodes);
	snprintf(buf, len, "%s:%d %s %s%s%s%s%s", base(set->files[r->file]), r->first_line,
	         golden_sweep_coll_name(r->coll), nodes, r->env[0] ? " " : "", r->env,
	         r->label[0] ? " " : "", r->label);
	return buf;
}

static void versions(const struct golden_sweep_run *r, char *buf, size_t len)
{
	int o = 0;

	buf[0] = '\0';
	if (r->nccl_version[0])
		o = snprintf(buf, len, "NCCL %s", r->nccl_version);
	else if (r->nccl_library > 0)
		o = snprintf(buf, len, "NCCL %d.%d.%d", r->nccl_library / 10000,
		             r->nccl_library / 100 % 100, r->nccl_library % 100);
	if (r->version[0] && o >= 0 && (size_t)o < len)
		snprintf(buf + o, len - (size_t)o, "%snccl-tests %s%s%s%s", o ? ", " : "",
		         r->version, r->githash[0] ? " (" : "", r->githash,
		         r->githash[0] ? ")" : "");
}

static void describe(FILE *out, const struct golden_sweep_set *set,
                     const struct golden_sweep_run *r)
{
	char name[256], ver[96], lo[32], hi[32];
	long long mn = 0;

	for (int i = 0; i < r->nrows; i++)
		if (r->rows[i].size > 0 && (!mn || r->rows[i].size < mn))
			mn = r->rows[i].size;
	versions(r, ver, sizeof(ver));
	fprintf(out, "run %d  %s: %s, ", r->id + 1,
	        golden_sweep_run_name(set, r, name, sizeof(name)), golden_sweep_coll_name(r->coll));
	if (r->nodes > 0)
		fprintf(out, "%d node%s", r->nodes, r->nodes == 1 ? "" : "s");
	else
		fprintf(out, "nodes unknown");
	if (r->ranks > 0)
		fprintf(out, ", %d rank%s", r->ranks, r->ranks == 1 ? "" : "s");
	if (r->ranks_src == GOLDEN_SWEEP_SRC_INFERRED || r->coll_src == GOLDEN_SWEEP_SRC_INFERRED)
		fprintf(out, " (%s%s%s inferred from the columns)",
		        r->coll_src == GOLDEN_SWEEP_SRC_INFERRED ? "collective" : "",
		        r->coll_src == GOLDEN_SWEEP_SRC_INFERRED &&
		                r->ranks_src == GOLDEN_SWEEP_SRC_INFERRED
		            ? " and "
		            : "",
		        r->ranks_src == GOLDEN_SWEEP_SRC_INFERRED ? "ranks" : "");
	if (r->device[0])
		fprintf(out, ", %s", r->device);
	if (ver[0])
		fprintf(out, ", %s", ver);
	fputc('\n', out);
	if (!r->nrows) {
		fprintf(out, "        no rows\n");
		return;
	}
	fprintf(out, "        %d size%s, %s to %s; judged on busbw = algbw x %s", r->nrows,
	        r->nrows == 1 ? "" : "s", golden_sweep_size_str(mn, lo, sizeof(lo)),
	        golden_sweep_size_str(golden_sweep_run_max_size(r), hi, sizeof(hi)),
	        golden_sweep_factor_formula(r->coll));
	if (r->ranks > 0)
		fprintf(out, " = %.3g", golden_sweep_busbw_factor(r->coll, r->ranks));
	fputc('\n', out);
}

static const char *where(int placement)
{
	return placement == GOLDEN_SWEEP_OOP  ? " out-of-place"
	       : placement == GOLDEN_SWEEP_IP ? " in-place"
	                                      : "";
}

void golden_sweep_report_text(FILE *out, const struct golden_sweep_set *set,
                              const struct golden_sweep_result *res,
                              const struct golden_sweep_expect *expect)
{
	int kinds[GOLDEN_FIND_NKINDS] = {0}, runs_hit = 0;
	char name[256];

	fprintf(out, "golden sweep: %d file%s, %d run%s\n", set->nfiles,
	        set->nfiles == 1 ? "" : "s", set->nruns, set->nruns == 1 ? "" : "s");
	if (expect && expect->recipe[0])
		fprintf(out, "expectations: recipe %s (%d figure%s)\n", expect->recipe, expect->n,
		        expect->n == 1 ? "" : "s");
	for (int i = 0; i < set->nruns; i++)
		describe(out, set, &set->runs[i]);
	if (res->n)
		fprintf(out, "\nfindings, worst first:\n");
	for (int i = 0; i < res->n; i++) {
		const struct golden_sweep_finding *f = &res->f[i];

		kinds[f->kind]++;
		fprintf(out, "  %-20s run %d %s%s: %s\n", golden_sweep_kind_name(f->kind),
		        f->run + 1,
		        golden_sweep_run_name(set, &set->runs[f->run], name, sizeof(name)),
		        where(f->placement), f->text);
	}
	if (res->nnotes)
		fprintf(out, "\nnotes:\n");
	for (int i = 0; i < res->nnotes; i++) {
		if (res->notes[i].run >= 0)
			fprintf(out, "  run %d: %s\n", res->notes[i].run + 1, res->notes[i].text);
		else
			fprintf(out, "  %s\n", res->notes[i].text);
	}
	for (int r = 0; r < set->nruns; r++)
		for (int i = 0; i < res->n; i++)
			if (res->f[i].run == r) {
				runs_hit++;
				break;
			}
	if (!res->n) {
		fprintf(out, "\nverdict: ok: no findings in %d run%s\n", set->nruns,
		        set->nruns == 1 ? "" : "s");
		return;
	}
	fprintf(out, "\nverdict: %d finding%s (", res->n, res->n == 1 ? "" : "s");
	for (int k = 0, first = 1; k < GOLDEN_FIND_NKINDS; k++)
		if (kinds[k]) {
			fprintf(out, "%s%d %s", first ? "" : ", ", kinds[k],
			        golden_sweep_kind_name(k));
			first = 0;
		}
	fprintf(out, ") in %d of %d run%s\n", runs_hit, set->nruns, set->nruns == 1 ? "" : "s");
}

/* ----------------------------------------------------------------- JSON */

static struct json_object *finding_json(const struct golden_sweep_finding *f)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "kind", json_object_new_string(golden_sweep_kind_name(f->kind)));
	json_object_object_add(o, "what", json_object_new_string(f->what));
	json_object_object_add(o, "run", json_object_new_int(f->run + 1));
	json_object_object_add(
	    o, "placement",
	    f->placement < 0 ? json_object_new_string("both")
	                     : json_object_new_string(golden_sweep_placement_name(f->placement)));
	if (f->size > 0) {
		json_object_object_add(o, "size", json_object_new_int64(f->size));
		json_object_object_add(o, "size_to", json_object_new_int64(f->size_to));
	}
	if (f->nsizes)
		json_object_object_add(o, "sizes", json_object_new_int(f->nsizes));
	if (f->kind != GOLDEN_FIND_MISSING && f->kind != GOLDEN_FIND_NOTBW &&
	    f->kind != GOLDEN_FIND_WRONG) {
		json_object_object_add(o, "busbw", json_object_new_double(f->value));
		json_object_object_add(o, "reference", json_object_new_double(f->reference));
		json_object_object_add(o, "ratio", json_object_new_double(f->ratio));
	}
	if (f->kind == GOLDEN_FIND_WRONG)
		json_object_object_add(o, "wrong", json_object_new_double(f->wrong));
	if (f->kind == GOLDEN_FIND_SCALING)
		json_object_object_add(o, "expected_ratio",
		                       json_object_new_double(f->expected_ratio));
	if (f->other >= 0)
		json_object_object_add(o, "compared_with_run", json_object_new_int(f->other + 1));
	json_object_object_add(o, "text", json_object_new_string(f->text));
	return o;
}

static struct json_object *rows_json(const struct golden_sweep_run *r, int pl)
{
	struct json_object *a = json_object_new_array();

	for (int i = 0; i < r->nrows; i++) {
		const struct golden_sweep_row *w = &r->rows[i];
		const struct golden_sweep_half *h = &w->half[pl];
		struct json_object *o;

		if (!h->present)
			continue;
		o = json_object_new_object();
		json_object_object_add(o, "size", json_object_new_int64(w->size));
		json_object_object_add(o, "count", json_object_new_int64(w->count));
		json_object_object_add(o, "time_us", json_object_new_double(h->time_us));
		json_object_object_add(o, "algbw", json_object_new_double(h->algbw));
		json_object_object_add(o, "busbw", json_object_new_double(h->busbw));
		json_object_object_add(o, "wrong",
		                       h->wrong < 0 ? NULL : json_object_new_double(h->wrong));
		json_object_array_add(a, o);
	}
	return a;
}

static bool has_half(const struct golden_sweep_run *r, int pl)
{
	for (int i = 0; i < r->nrows; i++)
		if (r->rows[i].half[pl].present)
			return true;
	return pl == GOLDEN_SWEEP_OOP; /* a run without rows still shows once */
}

static struct json_object *run_json(const struct golden_sweep_set *set,
                                    const struct golden_sweep_run *r, int pl,
                                    const struct golden_sweep_result *res)
{
	struct json_object *o = json_object_new_object(), *fs = json_object_new_array();
	char ver[96];

	json_object_object_add(o, "run", json_object_new_int(r->id + 1));
	json_object_object_add(o, "file", json_object_new_string(set->files[r->file]));
	json_object_object_add(o, "line", json_object_new_int(r->first_line));
	json_object_object_add(o, "collective",
	                       json_object_new_string(golden_sweep_coll_name(r->coll)));
	json_object_object_add(o, "collective_source",
	                       json_object_new_string(golden_sweep_source_name(r->coll_src)));
	json_object_object_add(o, "nodes", r->nodes > 0 ? json_object_new_int(r->nodes) : NULL);
	json_object_object_add(o, "nodes_source",
	                       json_object_new_string(golden_sweep_source_name(r->nodes_src)));
	json_object_object_add(o, "ranks", r->ranks > 0 ? json_object_new_int(r->ranks) : NULL);
	json_object_object_add(o, "ranks_source",
	                       json_object_new_string(golden_sweep_source_name(r->ranks_src)));
	json_object_object_add(o, "placement",
	                       json_object_new_string(golden_sweep_placement_name(pl)));
	if (r->env[0])
		json_object_object_add(o, "env", json_object_new_string(r->env));
	if (r->label[0])
		json_object_object_add(o, "label", json_object_new_string(r->label));
	if (r->nodelist[0])
		json_object_object_add(o, "nodelist", json_object_new_string(r->nodelist));
	if (r->device[0])
		json_object_object_add(o, "device", json_object_new_string(r->device));
	versions(r, ver, sizeof(ver));
	if (ver[0])
		json_object_object_add(o, "versions", json_object_new_string(ver));
	json_object_object_add(o, "judged", json_object_new_string("busbw"));
	json_object_object_add(o, "busbw_factor",
	                       json_object_new_string(golden_sweep_factor_formula(r->coll)));
	if (r->ranks > 0)
		json_object_object_add(
		    o, "busbw_factor_value",
		    json_object_new_double(golden_sweep_busbw_factor(r->coll, r->ranks)));
	json_object_object_add(o, "rows", rows_json(r, pl));
	for (int i = 0; i < res->n; i++)
		if (res->f[i].run == r->id &&
		    (res->f[i].placement == pl || res->f[i].placement < 0))
			json_object_array_add(fs, finding_json(&res->f[i]));
	json_object_object_add(o, "findings", fs);
	return o;
}

struct json_object *golden_sweep_report_json(const struct golden_sweep_set *set,
                                             const struct golden_sweep_result *res,
                                             const struct golden_sweep_expect *expect)
{
	struct json_object *o = json_object_new_object(), *runs = json_object_new_array();
	struct json_object *fs = json_object_new_array(), *notes = json_object_new_array();

	golden_json_stamp(o, "golden-sweep");
	if (!o || !runs || !fs || !notes) {
		json_object_put(o);
		json_object_put(runs);
		json_object_put(fs);
		json_object_put(notes);
		return NULL;
	}
	for (int i = 0; i < set->nruns; i++)
		for (int pl = 0; pl < 2; pl++)
			if (has_half(&set->runs[i], pl))
				json_object_array_add(runs, run_json(set, &set->runs[i], pl, res));
	for (int i = 0; i < res->n; i++)
		json_object_array_add(fs, finding_json(&res->f[i]));
	for (int i = 0; i < res->nnotes; i++) {
		struct json_object *n = json_object_new_object();

		if (res->notes[i].run >= 0)
			json_object_object_add(n, "run",
			                       json_object_new_int(res->notes[i].run + 1));
		json_object_object_add(n, "text", json_object_new_string(res->notes[i].text));
		json_object_array_add(notes, n);
	}
	if (expect && expect->recipe[0]) {
		struct json_object *x = json_object_new_object(), *es = json_object_new_array();

		json_object_object_add(x, "recipe", json_object_new_string(expect->recipe));
		for (int i = 0; i < expect->n; i++) {
			const struct golden_sweep_expect_entry *e = &expect->e[i];
			struct json_object *j = json_object_new_object();

			json_object_object_add(
			    j, "collective",
			    json_object_new_string(golden_sweep_coll_name(e->coll)));
			json_object_object_add(j, "nodes_min", json_object_new_int(e->nodes_min));
			json_object_object_add(j, "nodes_max", json_object_new_int(e->nodes_max));
			json_object_object_add(j, "min_busbw",
			                       json_object_new_double(e->min_busbw));
			json_object_object_add(j, "size", json_object_new_int64(e->min_size));
			json_object_object_add(j, "source", json_object_new_string(e->source));
			json_object_array_add(es, j);
		}
		json_object_object_add(x, "figures", es);
		json_object_object_add(o, "expect", x);
	}
	json_object_object_add(o, "runs", runs);
	json_object_object_add(o, "findings", fs);
	json_object_object_add(o, "notes", notes);
	json_object_object_add(o, "verdict", json_object_new_string(res->n ? "findings" : "ok"));
	json_object_object_add(o, "exit", json_object_new_int(golden_sweep_verdict(res)));
	return o;
}
