#include <config.h>

#include "fleet/fleet_out.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/strutil.h"
#include "util/jsonschema.h"

#define LEAST_SHOWN  5
#define REPEAT_SHOWN 8

static const char *when(long long t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!localtime_r(&tt, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M", &tm))
		snprintf(buf, len, "@%lld", t);
	return buf;
}

static const char *ms_text(long long ms, char *buf, size_t len)
{
	if (ms < 0)
		return golden_strlcpy(buf, "-", len), buf;
	if (ms < 10000)
		snprintf(buf, len, "%.2fs", (double)ms / 1000.0);
	else
		golden_fleet_duration((double)ms / 1000.0, buf, len);
	return buf;
}

void golden_fleet_drill_line(const struct golden_drill *d, char *buf, size_t len)
{
	char t[32], a[24], b[24], c[24];

	ms_text(golden_drill_detect_ms(d), a, sizeof(a));
	ms_text(golden_drill_drain_ms(d), b, sizeof(b));
	ms_text(golden_drill_return_ms(d), c, sizeof(c));
	snprintf(buf, len, "%s%s %s %s: detect %s, drain %s, return %s%s: %s",
	         d->state == GOLDEN_DRILL_DONE && !d->passed && !d->drained_ms ? "FAILED DRILL "
	                                                                       : "",
	         d->node, when(d->injected_ms / 1000, t, sizeof(t)), d->what, a, b, c,
	         d->return_auto ? "" : " (manual)",
	         d->state == GOLDEN_DRILL_RUNNING     ? "running"
	         : d->state == GOLDEN_DRILL_ABANDONED ? "abandoned"
	         : d->passed                          ? "pass"
	                                              : d->verdict);
}

static void put_owner_counts(FILE *out, const int *n)
{
	for (int o = 0; o < GOLDEN_OWNER_N; o++)
		fprintf(out, "%s%s %d", o ? ", " : "", golden_owner_name((enum golden_owner)o),
		        n[o]);
}

static void put_counts(FILE *out, const struct golden_fleet_count *c, int n)
{
	for (int i = 0; i < n; i++)
		fprintf(out, "%s%s %d", i ? ", " : "", c[i].name, c[i].n);
	if (!n)
		fprintf(out, "none");
}

static int cmp_avail(const void *a, const void *b)
{
	const struct golden_fleet_node *x = *(const struct golden_fleet_node *const *)a;
	const struct golden_fleet_node *y = *(const struct golden_fleet_node *const *)b;

	if (x->availability != y->availability)
		return x->availability < y->availability ? -1 : 1;
	return golden_natcmp(x->name, y->name);
}

static void put_least(const struct golden_fleet_report *rep, FILE *out)
{
	const struct golden_fleet_node **v = malloc((rep->nnodes ? rep->nnodes : 1) * sizeof(*v));
	size_t n = 0;

	if (!v)
		return;
	for (size_t i = 0; i < rep->nnodes; i++)
		if (rep->nodes[i].down_s > 0)
			v[n++] = &rep->nodes[i];
	qsort(v, n, sizeof(*v), cmp_avail);
	fprintf(out, "least available ");
	for (size_t i = 0; i < n && i < LEAST_SHOWN; i++)
		fprintf(out, "%s%s %.2f%%", i ? ", " : "", v[i]->name, v[i]->availability);
	fprintf(out, "%s\n", n ? (n > LEAST_SHOWN ? ", ..." : "") : "none: no downtime");
	free(v);
}

void golden_fleet_print_text(const struct golden_fleet_report *rep, const char *cluster, FILE *out)
{
	char a[32], b[32], d1[40], d2[40];
	int total = 0;
	bool any = false;

	for (int o = 0; o < GOLDEN_OWNER_N; o++)
		total += rep->drains[o];
	fprintf(out, "golden report%s%s: %s - %s (%s), %zu node%s\n",
	        cluster[0] ? ": cluster " : "", cluster, when(rep->since, d1, sizeof(d1)),
	        when(rep->until, d2, sizeof(d2)),
	        golden_fleet_duration((double)(rep->until - rep->since), a, sizeof(a)), rep->nnodes,
	        rep->nnodes == 1 ? "" : "s");
	fprintf(out,
	        "availability    %.3f%%  down %s of %s node-time (counted: ", rep->availability,
	        golden_fleet_duration((double)rep->down_s, a, sizeof(a)),
	        golden_fleet_duration((double)(rep->until - rep->since) * (double)rep->nnodes, b,
	                              sizeof(b)));
	for (int o = 0; o < GOLDEN_OWNER_N; o++)
		if (rep->downtime_owner[o]) {
			fprintf(out, "%s%s", any ? ", " : "",
			        golden_owner_name((enum golden_owner)o));
			any = true;
		}
	fprintf(out, "%s drains)\n", any ? "" : "no");
	fprintf(out, "drains          %d: ", total);
	put_owner_counts(out, rep->drains);
	fprintf(out, "; %d still out at the end\n", rep->open);
	fprintf(out, "time to return  mean %s, p90 %s (%d returned)",
	        golden_fleet_duration(rep->ret.mean_s, a, sizeof(a)),
	        golden_fleet_duration(rep->ret.p90_s, b, sizeof(b)), rep->ret.n);
	if (rep->ret_by[GOLDEN_OWNER_GOLDEN].n)
		fprintf(
		    out, "; golden's: mean %s, p90 %s",
		    golden_fleet_duration(rep->ret_by[GOLDEN_OWNER_GOLDEN].mean_s, a, sizeof(a)),
		    golden_fleet_duration(rep->ret_by[GOLDEN_OWNER_GOLDEN].p90_s, b, sizeof(b)));
	fprintf(out, "\ngolden by class ");
	put_counts(out, rep->by_class, rep->nclass);
	fprintf(out, "\ngolden by check ");
	put_counts(out, rep->by_check, rep->ncheck);
	fprintf(out, "\nrepeat          ");
	for (size_t i = 0; i < rep->nrepeat && i < REPEAT_SHOWN; i++) {
		const struct golden_fleet_node *n = &rep->nodes[rep->repeat[i]];

		fprintf(out, "%s%s (%d fault drains%s%s)", i ? ", " : "", n->name, n->faults,
		        n->top.n ? ", mostly " : "", n->top.n ? n->top.name : "");
	}
	fprintf(out, "%s [%d or more fault drains in the window]\n",
	        rep->nrepeat ? (rep->nrepeat > REPEAT_SHOWN ? ", ..." : "") : "none",
	        rep->repeat_min);
	put_least(rep, out);
	fprintf(out, "drills          %zu", rep->ndrills);
	if (rep->drills_failed)
		fprintf(out, ", %d FAILED", rep->drills_failed);
	fprintf(out, "%s\n", rep->drills_drains ? " (their drains are not counted above)" : "");
	for (size_t i = 0; i < rep->ndrills; i++) {
		char line[512];

		golden_fleet_drill_line(&rep->drills[i].d, line, sizeof(line));
		fprintf(out, "  %s\n", line);
	}
}

void golden_fleet_print_csv(const struct golden_fleet_report *rep, FILE *out)
{
	fprintf(out, "node,availability_pct,down_s,drains_golden,drains_admin,drains_slurm,"
	             "drains_other,fault_drains,drill_drains,still_out,returned,mean_return_s,"
	             "p90_return_s,repeat_offender,top_check\n");
	for (size_t i = 0; i < rep->nnodes; i++) {
		const struct golden_fleet_node *n = &rep->nodes[i];

		fprintf(out, "%s,%.4f,%lld,%d,%d,%d,%d,%d,%d,%d,%d,%.0f,%.0f,%d,%s\n", n->name,
		        n->availability, n->down_s, n->drains[0], n->drains[1], n->drains[2],
		        n->drains[3], n->faults, n->drills, n->open, n->ret.n, n->ret.mean_s,
		        n->ret.p90_s, n->faults >= rep->repeat_min, n->top.n ? n->top.name : "");
	}
	fprintf(out, "ALL,%.4f,%lld,%d,%d,%d,%d,%d,%d,%d,%d,%.0f,%.0f,%zu,\n", rep->availability,
	        rep->down_s, rep->drains[0], rep->drains[1], rep->drains[2], rep->drains[3],
	        rep->faults, rep->drills_drains, rep->open, rep->ret.n, rep->ret.mean_s,
	        rep->ret.p90_s, rep->nrepeat);
}

static struct json_object *returns_json(const struct golden_fleet_returns *r)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "returned", json_object_new_int(r->n));
	json_object_object_add(o, "mean_s", json_object_new_double(r->mean_s));
	json_object_object_add(o, "p90_s", json_object_new_double(r->p90_s));
	return o;
}

static struct json_object *owners_json(const int *n)
{
	struct json_object *o = json_object_new_object();

	for (int i = 0; i < GOLDEN_OWNER_N; i++)
		json_object_object_add(o, golden_owner_name((enum golden_owner)i),
		                       json_object_new_int(n[i]));
	return o;
}

static struct json_object *counts_json(const struct golden_fleet_count *c, int n)
{
	struct json_object *o = json_object_new_object();

	for (int i = 0; i < n; i++)
		json_object_object_add(o, c[i].name, json_object_new_int(c[i].n));
	return o;
}

static void put_ms(struct json_object *o, const char *k, long long ms)
{
	json_object_object_add(o, k, ms < 0 ? NULL : json_object_new_int64(ms));
}

struct json_object *golden_fleet_drill_json(const struct golden_drill *d)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "id", json_object_new_string(d->id));
	json_object_object_add(o, "node", json_object_new_string(d->node));
	json_object_object_add(o, "fault", json_object_new_string(golden_drill_kind_name(d->kind)));
	json_object_object_add(o, "what", json_object_new_string(d->what));
	json_object_object_add(o, "check", json_object_new_string(d->check));
	json_object_object_add(o, "return",
	                       json_object_new_string(d->return_auto ? "auto" : "manual"));
	json_object_object_add(o, "state",
	                       json_object_new_string(golden_drill_state_name(d->state)));
	json_object_object_add(o, "injected_ms", json_object_new_int64(d->injected_ms));
	put_ms(o, "detect_ms", golden_drill_detect_ms(d));
	put_ms(o, "drain_ms", golden_drill_drain_ms(d));
	put_ms(o, "return_ms", golden_drill_return_ms(d));
	json_object_object_add(o, "detect_allow_ms", json_object_new_int(d->detect_allow_ms));
	json_object_object_add(o, "drained", json_object_new_boolean(d->drained_ms > 0));
	json_object_object_add(o, "reason", json_object_new_string(d->reason));
	json_object_object_add(o, "job_kept",
	                       d->job_kept < 0 ? NULL : json_object_new_boolean(d->job_kept));
	json_object_object_add(o, "probe_refused",
	                       d->probe < 0 ? NULL : json_object_new_boolean(d->probe));
	json_object_object_add(o, "target", json_object_new_string(d->target));
	json_object_object_add(o, "suppressed_by_guard", json_object_new_boolean(d->guard[0]));
	json_object_object_add(o, "guard", json_object_new_string(d->guard));
	json_object_object_add(o, "passed", json_object_new_boolean(d->passed));
	json_object_object_add(o, "verdict", json_object_new_string(d->verdict));
	return o;
}

struct json_object *golden_fleet_json(const struct golden_fleet_report *rep, const char *cluster)
{
	struct json_object *o = json_object_new_object(), *a, *down;

	golden_json_stamp(o, "golden-report");
	json_object_object_add(o, "cluster", json_object_new_string(cluster));
	json_object_object_add(o, "since", json_object_new_int64(rep->since));
	json_object_object_add(o, "until", json_object_new_int64(rep->until));
	json_object_object_add(o, "nodes_total", json_object_new_int64((int64_t)rep->nnodes));
	json_object_object_add(o, "availability_pct", json_object_new_double(rep->availability));
	json_object_object_add(o, "down_s", json_object_new_int64(rep->down_s));
	down = json_object_new_array();
	for (int i = 0; i < GOLDEN_OWNER_N; i++)
		if (rep->downtime_owner[i])
			json_object_array_add(
			    down, json_object_new_string(golden_owner_name((enum golden_owner)i)));
	json_object_object_add(o, "downtime_owners", down);
	json_object_object_add(o, "drains", owners_json(rep->drains));
	json_object_object_add(o, "fault_drains", json_object_new_int(rep->faults));
	json_object_object_add(o, "still_out", json_object_new_int(rep->open));
	json_object_object_add(o, "time_to_return", returns_json(&rep->ret));
	a = json_object_new_object();
	for (int i = 0; i < GOLDEN_OWNER_N; i++)
		json_object_object_add(a, golden_owner_name((enum golden_owner)i),
		                       returns_json(&rep->ret_by[i]));
	json_object_object_add(o, "time_to_return_by_owner", a);
	json_object_object_add(o, "golden_by_class", counts_json(rep->by_class, rep->nclass));
	json_object_object_add(o, "golden_by_check", counts_json(rep->by_check, rep->ncheck));
	a = json_object_new_array();
	for (size_t i = 0; i < rep->nrepeat; i++)
		json_object_array_add(a, json_object_new_string(rep->nodes[rep->repeat[i]].name));
	json_object_object_add(o, "repeat_offenders", a);
	json_object_object_add(o, "repeat_min", json_object_new_int(rep->repeat_min));
	a = json_object_new_array();
	for (size_t i = 0; i < rep->nnodes; i++) {
		const struct golden_fleet_node *n = &rep->nodes[i];
		struct json_object *j = json_object_new_object();

		json_object_object_add(j, "node", json_object_new_string(n->name));
		json_object_object_add(j, "availability_pct",
		                       json_object_new_double(n->availability));
		json_object_object_add(j, "down_s", json_object_new_int64(n->down_s));
		json_object_object_add(j, "drains", owners_json(n->drains));
		json_object_object_add(j, "fault_drains", json_object_new_int(n->faults));
		json_object_object_add(j, "drill_drains", json_object_new_int(n->drills));
		json_object_object_add(j, "still_out", json_object_new_int(n->open));
		json_object_object_add(j, "time_to_return", returns_json(&n->ret));
		json_object_object_add(j, "top_check",
		                       n->top.n ? json_object_new_string(n->top.name) : NULL);
		json_object_array_add(a, j);
	}
	json_object_object_add(o, "nodes", a);
	a = json_object_new_array();
	for (size_t i = 0; i < rep->ndrills; i++)
		json_object_array_add(a, golden_fleet_drill_json(&rep->drills[i].d));
	json_object_object_add(o, "drills", a);
	json_object_object_add(o, "drills_failed", json_object_new_int(rep->drills_failed));
	a = json_object_new_array();
	for (size_t i = 0; i < rep->nbins; i++) {
		struct json_object *j = json_object_new_object();

		json_object_object_add(j, "t", json_object_new_int64(rep->bins[i].t));
		json_object_object_add(j, "availability_pct",
		                       json_object_new_double(rep->bins[i].availability));
		json_object_object_add(j, "drains", owners_json(rep->bins[i].drains));
		json_object_array_add(a, j);
	}
	json_object_object_add(o, "bins", a);
	json_object_object_add(o, "bin_s", json_object_new_int64(rep->bin_s));
	json_object_object_add(o, "events_used", json_object_new_int64((int64_t)rep->events_used));
	return o;
}
