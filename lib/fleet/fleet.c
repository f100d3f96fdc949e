#include <config.h>

#include "fleet/fleet.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "health/reason_parse.h"
#include "util/strutil.h"

#define MAX_BINS 2000

bool golden_fleet_counts_down(const struct golden_event *ev, const struct golden_conf_fleet *c)
{
	if (golden_event_reason_matches(ev->reason, &c->ignore))
		return false;
	if (golden_event_reason_matches(ev->reason, &c->count))
		return true;
	return c->report_down[golden_event_owner(ev->reason, c)];
}

const char *golden_fleet_duration(double s, char *buf, size_t len)
{
	long long t = llround(s);

	if (t >= 86400)
		snprintf(buf, len, "%lldd%lldh", t / 86400, t % 86400 / 3600);
	else if (t >= 3600)
		snprintf(buf, len, "%lldh%02lldm", t / 3600, t % 3600 / 60);
	else if (t >= 60)
		snprintf(buf, len, "%lldm%02llds", t / 60, t % 60);
	else if (s >= 10 || s == 0)
		snprintf(buf, len, "%llds", t);
	else
		snprintf(buf, len, "%.1fs", s);
	return buf;
}

/* Durations of returned drains, gathered then summarised. */
struct durations {
	size_t n, cap;
	double *v;
};

static int dur_add(struct durations *d, double v)
{
	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 16;
		double *nv = realloc(d->v, cap * sizeof(*nv));

		if (!nv)
			return -1;
		d->v = nv;
		d->cap = cap;
	}
	d->v[d->n++] = v;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void summarise(struct durations *d, struct golden_fleet_returns *r)
{
	double sum = 0;

	memset(r, 0, sizeof(*r));
	if (!d->n)
		return;
	qsort(d->v, d->n, sizeof(d->v[0]), cmp_double);
	for (size_t i = 0; i < d->n; i++)
		sum += d->v[i];
	r->n = (int)d->n;
	r->mean_s = sum / (double)d->n;
	r->p90_s = d->v[(size_t)ceil(0.9 * (double)d->n) - 1]; /* nearest rank */
}

static void count_add(struct golden_fleet_count *c, int *n, const char *name)
{
	if (!name[0])
		name = "unknown";
	for (int i = 0; i < *n; i++)
		if (!strcmp(c[i].name, name)) {
			c[i].n++;
			return;
		}
	if (*n < GOLDEN_FLEET_COUNTS) {
		golden_strlcpy(c[*n].name, name, sizeof(c[0].name));
		c[(*n)++].n = 1;
	}
}

static int cmp_count(const void *a, const void *b)
{
	const struct golden_fleet_count *x = a, *y = b;

	return x->n != y->n ? y->n - x->n : strcmp(x->name, y->name);
}

static int cmp_name(const void *a, const void *b)
{
	return golden_natcmp(*(const char *const *)a, *(const char *const *)b);
}

static const struct golden_event *sort_events_base;

static int cmp_event_idx(const void *a, const void *b)
{
	const struct golden_event *x = &sort_events_base[*(const size_t *)a];
	const struct golden_event *y = &sort_events_base[*(const size_t *)b];
	int c = strcmp(x->node, y->node);

	if (c)
		return c;
	return (x->start > y->start) - (x->start < y->start);
}

static long node_index(const struct golden_fleet_report *rep, const char *name)
{
	size_t lo = 0, hi = rep->nnodes;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = golden_natcmp(rep->nodes[mid].name, name);

		if (!c)
			return (long)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static int build_nodes(const struct golden_fleet_input *in, struct golden_fleet_report *rep)
{
	const char **names;
	size_t n = 0, cap = in->nodes ? in->nnodes : in->events->n;

	names = malloc((cap ? cap : 1) * sizeof(*names));
	if (!names)
		return -1;
	if (in->nodes)
		for (size_t i = 0; i < in->nnodes; i++)
			names[n++] = in->nodes[i];
	else
		for (size_t i = 0; i < in->events->n; i++)
			names[n++] = in->events->ev[i].node;
	qsort(names, n, sizeof(*names), cmp_name);
	rep->nodes = calloc(n ? n : 1, sizeof(*rep->nodes));
	if (!rep->nodes) {
		free(names);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (!rep->nnodes || strcmp(rep->nodes[rep->nnodes - 1].name, names[i]) != 0)
			golden_strlcpy(rep->nodes[rep->nnodes++].name, names[i],
			               sizeof(rep->nodes[0].name));
	free(names);
	return 0;
}

/* The drill (if any) whose drain this event is: same node, golden's
 * reason, started between the injection and the drill's end. */
static const struct golden_drill *drill_of(const struct golden_fleet_input *in,
                                           const struct golden_event *ev)
{
	struct golden_reason_info r;

	golden_reason_parse(ev->reason, &r);
	if (!r.ours)
		return NULL;
	for (size_t i = 0; i < in->ndrills; i++) {
		const struct golden_drill *d = &in->drills[i];
		long long from = d->injected_ms / 1000 - 2, to;

		if (strcmp(d->node, ev->node) || !d->injected_ms)
			continue;
		to = d->injected_ms + (long long)in->conf->drill_timeout_s * 1000;
		if (d->ended_ms > to)
			to = d->ended_ms;
		if (d->returned_ms > to)
			to = d->returned_ms;
		if (ev->start >= from && ev->start <= to / 1000 + 2)
			return d;
	}
	return NULL;
}

static long long overlap(long long a0, long long a1, long long b0, long long b1)
{
	long long lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;

	return hi > lo ? hi - lo : 0;
}

static int make_bins(struct golden_fleet_report *rep)
{
	long long w = rep->until - rep->since;

	rep->bin_s = w <= 3 * 86400 ? 3600 : w <= 120 * 86400 ? 86400 : 7 * 86400;
	rep->nbins = (size_t)((w + rep->bin_s - 1) / rep->bin_s);
	if (rep->nbins > MAX_BINS) {
		rep->bin_s = (w + MAX_BINS - 1) / MAX_BINS;
		rep->nbins = (size_t)((w + rep->bin_s - 1) / rep->bin_s);
	}
	rep->bins = calloc(rep->nbins ? rep->nbins : 1, sizeof(*rep->bins));
	if (!rep->bins)
		return -1;
	for (size_t i = 0; i < rep->nbins; i++)
		rep->bins[i].t = rep->since + (long long)i * rep->bin_s;
	return 0;
}

/* Downtime of one event into its node and the bins it covers. */
static void add_down(struct golden_fleet_report *rep, struct golden_fleet_node *node, long long s,
                     long long e, double *bin_down)
{
	long long d = overlap(s, e, rep->since, rep->until);
	size_t b0, b1;

	if (!d)
		return;
	node->down_s += d;
	if (s < rep->since)
		s = rep->since;
	if (e > rep->until)
		e = rep->until;
	b0 = (size_t)((s - rep->since) / rep->bin_s);
	b1 = (size_t)((e - 1 - rep->since) / rep->bin_s);
	for (size_t b = b0; b <= b1 && b < rep->nbins; b++)
		bin_down[b] += (double)overlap(s, e, rep->bins[b].t, rep->bins[b].t + rep->bin_s);
}

struct episode {
	const struct golden_event *first;
	long long start, end; /* end 0: open */
	bool drill;
};

static int close_episode(const struct golden_fleet_input *in, struct golden_fleet_report *rep,
                         struct golden_fleet_node *node, const struct episode *ep,
                         struct durations *node_ret, struct durations *all,
                         struct durations *by_owner, struct golden_fleet_count *checks,
                         int *nchecks)
{
	enum golden_owner o = golden_event_owner(ep->first->reason, in->conf);
	struct golden_reason_info r;

	if (ep->start < rep->since || ep->start >= rep->until)
		return 0; /* began before the window: its downtime counts, not its drain */
	if (ep->end == 0 || ep->end > rep->until)
		node->open++;
	if (ep->drill) {
		node->drills++;
		return 0;
	}
	node->drains[o]++;
	if (golden_fleet_counts_down(ep->first, in->conf))
		node->faults++;
	{
		size_t b = (size_t)((ep->start - rep->since) / rep->bin_s);

		if (b < rep->nbins)
			rep->bins[b].drains[o]++;
	}
	if (o == GOLDEN_OWNER_GOLDEN) {
		golden_reason_parse(ep->first->reason, &r);
		count_add(rep->by_class, &rep->nclass, r.cls);
		count_add(rep->by_check, &rep->ncheck, r.check);
		count_add(checks, nchecks, r.check);
	}
	if (ep->end > 0 && ep->end <= rep->until) {
		double d = (double)(ep->end - ep->start);

		if (dur_add(node_ret, d) < 0 || dur_add(all, d) < 0 || dur_add(&by_owner[o], d) < 0)
			return -1;
	}
	return 0;
}

static void fold_node(struct golden_fleet_report *rep, struct golden_fleet_node *node,
                      struct durations *node_ret, struct golden_fleet_count *checks, int nchecks)
{
	summarise(node_ret, &node->ret);
	node_ret->n = 0;
	if (nchecks) {
		qsort(checks, (size_t)nchecks, sizeof(*checks), cmp_count);
		node->top = checks[0];
	}
	for (int o = 0; o < GOLDEN_OWNER_N; o++)
		rep->drains[o] += node->drains[o];
	rep->faults += node->faults;
	rep->drills_drains += node->drills;
	rep->open += node->open;
	rep->down_s += node->down_s;
}

static int walk_events(const struct golden_fleet_input *in, struct golden_fleet_report *rep,
                       const size_t *order, double *bin_down)
{
	struct durations node_ret = {0}, all = {0}, by_owner[GOLDEN_OWNER_N];
	struct golden_fleet_count checks[GOLDEN_FLEET_COUNTS];
	int nchecks = 0, rc = 0;
	long cur = -2;
	struct golden_fleet_node *node = NULL;
	struct episode ep = {NULL, 0, 0, false};
	long long covered = 0;

	memset(by_owner, 0, sizeof(by_owner));
	for (size_t k = 0; k <= in->events->n && rc == 0; k++) {
		const struct golden_event *ev =
		    k < in->events->n ? &in->events->ev[order[k]] : NULL;
		long idx = ev ? node_index(rep, ev->node) : -1;
		long long end;

		if (ev && idx < 0) {
			rep->events_outside++;
			continue;
		}
		/* Another node (or the end): close the previous one. */
		if (!ev || idx != cur) {
			if (ep.first)
				rc = close_episode(in, rep, node, &ep, &node_ret, &all, by_owner,
				                   checks, &nchecks);
			if (node)
				fold_node(rep, node, &node_ret, checks, nchecks);
			if (!ev)
				break;
			cur = idx;
			node = &rep->nodes[idx];
			ep.first = NULL;
			nchecks = 0;
			covered = 0;
		}
		end = ev->end ? ev->end : rep->until;
		if (overlap(ev->start, end > ev->start ? end : ev->start + 1, rep->since,
		            rep->until))
			rep->events_used++;
		/* Consecutive events that touch are one drain. */
		if (ep.first && ep.end != 0 && ev->start <= ep.end + 1) {
			ep.end = ev->end;
		} else if (ep.first && ep.end == 0) {
			ep.end = ev->end; /* sacctmgr closed nothing: keep the first */
		} else {
			if (ep.first)
				rc = close_episode(in, rep, node, &ep, &node_ret, &all, by_owner,
				                   checks, &nchecks);
			ep.first = ev;
			ep.start = ev->start;
			ep.end = ev->end;
			ep.drill = drill_of(in, ev) != NULL;
		}
		/* Downtime: events that count and are not a drill's, each second
		 * once even if events overlap. */
		if (!ep.drill && !drill_of(in, ev) && golden_fleet_counts_down(ev, in->conf)) {
			long long s = ev->start > covered ? ev->start : covered;

			if (end > s)
				add_down(rep, node, s, end, bin_down);
			if (end > covered)
				covered = end;
		}
	}
	summarise(&all, &rep->ret);
	for (int o = 0; o < GOLDEN_OWNER_N; o++) {
		summarise(&by_owner[o], &rep->ret_by[o]);
		free(by_owner[o].v);
	}
	free(node_ret.v);
	free(all.v);
	return rc;
}

static int cmp_repeat_base_faults(const struct golden_fleet_report *rep, size_t a, size_t b)
{
	int fa = rep->nodes[a].faults, fb = rep->nodes[b].faults;

	return fa != fb ? fb - fa : golden_natcmp(rep->nodes[a].name, rep->nodes[b].name);
}

static void sort_repeat(struct golden_fleet_report *rep)
{
	for (size_t i = 1; i < rep->nrepeat; i++)
		for (size_t j = i;
		     j > 0 && cmp_repeat_base_faults(rep, rep->repeat[j - 1], rep->repeat[j]) > 0;
		     j--) {
			size_t t = rep->repeat[j];

			rep->repeat[j] = rep->repeat[j - 1];
			rep->repeat[j - 1] = t;
		}
}

static int cmp_drill(const void *a, const void *b)
{
	const struct golden_fleet_drill *x = a, *y = b;

	return (x->d.injected_ms > y->d.injected_ms) - (x->d.injected_ms < y->d.injected_ms);
}

static int collect_drills(const struct golden_fleet_input *in, struct golden_fleet_report *rep)
{
	rep->drills = calloc(in->ndrills ? in->ndrills : 1, sizeof(*rep->drills));
	if (!rep->drills)
		return -1;
	for (size_t i = 0; i < in->ndrills; i++) {
		const struct golden_drill *d = &in->drills[i];
		struct golden_fleet_drill *f;

		if (d->injected_ms / 1000 < rep->since || d->injected_ms / 1000 >= rep->until)
			continue;
		if (in->nodes && node_index(rep, d->node) < 0)
			continue;
		f = &rep->drills[rep->ndrills++];
		f->d = *d;
		f->detect_ms = golden_drill_detect_ms(d);
		f->drain_ms = golden_drill_drain_ms(d);
		f->return_ms = golden_drill_return_ms(d);
		if (d->state == GOLDEN_DRILL_DONE && !d->passed)
			rep->drills_failed++;
	}
	qsort(rep->drills, rep->ndrills, sizeof(*rep->drills), cmp_drill);
	return 0;
}

int golden_fleet_compute(const struct golden_fleet_input *in, struct golden_fleet_report *rep,
                         struct golden_err *err)
{
	size_t *order = NULL;
	double *bin_down = NULL;
	long long w = in->until - in->since;

	memset(rep, 0, sizeof(*rep));
	rep->since = in->since;
	rep->until = in->until;
	rep->repeat_min = in->conf->report_repeat;
	memcpy(rep->downtime_owner, in->conf->report_down, sizeof(rep->downtime_owner));
	if (w <= 0)
		return golden_err_set(err, "the window is empty: --since must be before --until");
	if (build_nodes(in, rep) < 0 || make_bins(rep) < 0)
		goto nomem;
	order = malloc((in->events->n ? in->events->n : 1) * sizeof(*order));
	bin_down = calloc(rep->nbins ? rep->nbins : 1, sizeof(*bin_down));
	if (!order || !bin_down)
		goto nomem;
	for (size_t i = 0; i < in->events->n; i++)
		order[i] = i;
	sort_events_base = in->events->ev;
	qsort(order, in->events->n, sizeof(*order), cmp_event_idx);
	if (walk_events(in, rep, order, bin_down) < 0)
		goto nomem;
	for (size_t i = 0; i < rep->nnodes; i++)
		rep->nodes[i].availability =
		    100.0 * (1.0 - (double)rep->nodes[i].down_s / (double)w);
	if (rep->nnodes)
		rep->availability =
		    100.0 * (1.0 - (double)rep->down_s / ((double)w * (double)rep->nnodes));
	for (size_t b = 0; b < rep->nbins; b++) {
		long long len = rep->bins[b].t + rep->bin_s > rep->until
		                    ? rep->until - rep->bins[b].t
		                    : rep->bin_s;

		rep->bins[b].availability =
		    rep->nnodes && len > 0
		        ? 100.0 * (1.0 - bin_down[b] / ((double)len * (double)rep->nnodes))
		        : 100.0;
	}
	qsort(rep->by_class, (size_t)rep->nclass, sizeof(rep->by_class[0]), cmp_count);
	qsort(rep->by_check, (size_t)rep->ncheck, sizeof(rep->by_check[0]), cmp_count);
	rep->repeat = calloc(rep->nnodes ? rep->nnodes : 1, sizeof(*rep->repeat));
	if (!rep->repeat || collect_drills(in, rep) < 0)
		goto nomem;
	for (size_t i = 0; i < rep->nnodes; i++)
		if (rep->nodes[i].faults >= rep->repeat_min)
			rep->repeat[rep->nrepeat++] = i;
	sort_repeat(rep);
	free(order);
	free(bin_down);
	return 0;
nomem:
	free(order);
	free(bin_down);
	golden_fleet_free(rep);
	return golden_err_set(err, "out of memory for the report");
}

void golden_fleet_free(struct golden_fleet_report *rep)
{
	free(rep->nodes);
	free(rep->bins);
	free(rep->repeat);
	free(rep->drills);
	rep->nodes = NULL;
	rep->bins = NULL;
	rep->repeat = NULL;
	rep->drills = NULL;
}
