/* The reliability report over a window whose every figure is known:
 * downtime by definition, availability, drains by owner, return times,
 * golden's classes and checks, repeat offenders, drills left out, bins,
 * and the text/JSON/CSV forms and the plot's files. */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/fleet.h"
#include "fleet/fleet_out.h"
#include "fleet/plot.h"
#include "health/golden_conf.h"
#include "util/strutil.h"
#include "t/unit/tap.h"

#define S   1000000LL /* since */
#define DAY 86400LL

static struct golden_event ev(const char *node, long long start, long long end, const char *reason)
{
	struct golden_event e;

	memset(&e, 0, sizeof(e));
	golden_strlcpy(e.node, node, sizeof(e.node));
	e.start = start;
	e.end = end;
	golden_strlcpy(e.state, "DRAIN", sizeof(e.state));
	golden_strlcpy(e.user, "root(0)", sizeof(e.user));
	golden_strlcpy(e.reason, reason, sizeof(e.reason));
	return e;
}

static const struct golden_fleet_node *node(const struct golden_fleet_report *r, const char *n)
{
	for (size_t i = 0; i < r->nnodes; i++)
		if (!strcmp(r->nodes[i].name, n))
			return &r->nodes[i];
	return NULL;
}

static int near(double a, double b)
{
	return fabs(a - b) < 1e-6;
}

static char *render(void (*fn)(const struct golden_fleet_report *, FILE *),
                    const struct golden_fleet_report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fn(r, f);
	fclose(f);
	return buf;
}

static void text_of(const struct golden_fleet_report *r, FILE *f)
{
	golden_fleet_print_text(r, "golden", f);
}

int main(void)
{
	static struct golden_event list[16];
	struct golden_events evs = {0, 16, list, 0};
	const char *fleet[] = {"n4", "n3", "n2", "n1"};
	struct golden_drill drill;
	struct golden_conf conf;
	struct golden_fleet_report r;
	struct golden_err err = {{0}};
	const struct golden_fleet_node *n1, *n2, *n3, *n4;
	char *out;
	size_t k = 0;

	golden_conf_init(&conf);
	list[k++] = ev("n1", S + 3600, S + 5400, "gpu0 xid79 offbus; reboot [golden]");
	list[k++] = ev("n1", S + 7200, S + 7800, "/lustre statfs EIO; check [golden]");
	list[k++] = ev("n1", S + 10000, 0, "gpu0 xid79 offbus; reboot [golden]");
	list[k++] = ev("n2", S + 100, S + 3700, "maintenance: bios update");
	list[k++] = ev("n2", S - 500, S + 50, "Not responding");
	list[k++] = ev("n3", S + 20000, S + 20060, "gpu0 xid79 offbus; reboot [golden]");
	list[k++] = ev("n3", S + 30000, S + 30100, "NHC: check_fs_mount: /lustre");
	/* golden's drain, then an admin re-words it: one drain, golden's */
	list[k++] = ev("n3", S + 40000, S + 40100, "mlx5_0 p1 down; check [golden]");
	list[k++] = ev("n3", S + 40100, S + 40300, "cable swap");
	list[k++] = ev("n9", S + 100, S + 200, "gpu1 ecc-dbe; gpu-reset [golden]");
	evs.n = k;

	memset(&drill, 0, sizeof(drill));
	golden_strlcpy(drill.id, "d1", sizeof(drill.id));
	golden_strlcpy(drill.node, "n3", sizeof(drill.node));
	golden_strlcpy(drill.what, "xid79 gpu0 0001:00:00.0", sizeof(drill.what));
	drill.state = GOLDEN_DRILL_DONE;
	drill.return_auto = true;
	drill.injected_ms = (S + 20000) * 1000 - 40;
	drill.detected_ms = drill.injected_ms + 35;
	drill.drained_ms = drill.injected_ms + 52;
	drill.returned_ms = drill.injected_ms + 60000;
	drill.ended_ms = drill.returned_ms;
	drill.passed = true;
	golden_strlcpy(drill.verdict, "pass", sizeof(drill.verdict));

	{
		struct golden_fleet_input in = {S, S + DAY, &conf.fleet, fleet, 4, &evs, &drill, 1};

		ok(golden_fleet_compute(&in, &r, &err) == 0, "computed: %s", err.msg);
	}
	n1 = node(&r, "n1");
	n2 = node(&r, "n2");
	n3 = node(&r, "n3");
	n4 = node(&r, "n4");
	ok(n1 && n2 && n3 && n4 && r.nnodes == 4, "the fleet is --nodes, sorted");
	if (!(n1 && n2 && n3 && n4))
		return 1;
	is(r.nodes[0].name, "n1", "first n1");
	is_int((long)r.events_outside, 1, "n9 is outside the fleet");

	is_int((long)n1->down_s, 1800 + 600 + (DAY - 10000),
	       "n1: two returned drains and one open");
	is_int(n1->drains[GOLDEN_OWNER_GOLDEN], 3, "n1: three golden drains");
	is_int(n1->faults, 3, "all faults");
	is_int(n1->open, 1, "one still out");
	is_int(n1->ret.n, 2, "two returned");
	ok(near(n1->ret.mean_s, 1200) && near(n1->ret.p90_s, 1800), "n1 return mean 1200 p90 1800");
	is(n1->top.name, "xid", "n1 drained mostly for xid");

	is_int((long)n2->down_s, 50, "n2: Slurm's not-responding counts from the window's start");
	is_int(n2->drains[GOLDEN_OWNER_ADMIN], 1, "n2: one admin drain");
	is_int(n2->drains[GOLDEN_OWNER_SLURM], 0, "the Slurm one began before the window");
	is_int(n2->faults, 0, "maintenance is no fault");

	is_int((long)n3->down_s, 100 + 100,
	       "n3: NHC's and golden's part; not the drill, not the "
	       "admin's part");
	is_int(n3->drills, 1, "n3: one drill drain");
	is_int(n3->drains[GOLDEN_OWNER_GOLDEN], 1, "the re-worded drain is golden's");
	is_int(n3->drains[GOLDEN_OWNER_OTHER], 1, "NHC is another tool");
	is_int(n3->faults, 2, "two faults");
	ok(near(n3->ret.mean_s, 200) && near(n3->ret.p90_s, 300), "n3 returns 100 and 300");

	is_int((long)n4->down_s, 0, "n4: never down");
	ok(near(n4->availability, 100.0), "n4 100%%");

	is_int((long)r.down_s, 78800 + 50 + 200, "fleet downtime");
	ok(near(r.availability, 100.0 * (1.0 - 79050.0 / (4.0 * DAY))), "availability %.4f",
	   r.availability);
	is_int(r.drains[GOLDEN_OWNER_GOLDEN], 4, "golden 4");
	is_int(r.drains[GOLDEN_OWNER_ADMIN], 1, "admin 1");
	is_int(r.drains[GOLDEN_OWNER_SLURM], 0, "slurm 0");
	is_int(r.drains[GOLDEN_OWNER_OTHER], 1, "other 1");
	is_int(r.faults, 5, "5 faults");
	is_int(r.ret.n, 5, "5 returned");
	ok(near(r.ret.mean_s, 1280) && near(r.ret.p90_s, 3600),
	   "mean 1280, p90 3600 (nearest rank)");
	is_int(r.ret_by[GOLDEN_OWNER_GOLDEN].n, 3, "golden's returned drains");
	is_int(r.nclass, 2, "two golden classes");
	ok(!strcmp(r.by_class[0].name, "reboot") && r.by_class[0].n == 2, "reboot 2");
	ok(!strcmp(r.by_class[1].name, "transient") && r.by_class[1].n == 2, "transient 2");
	ok(!strcmp(r.by_check[0].name, "xid") && r.by_check[0].n == 2, "xid 2 first");
	is_int(r.ncheck, 3, "xid, ib-ports, mounts");
	is_int((long)r.nrepeat, 1, "one repeat offender");
	is(r.nodes[r.repeat[0]].name, "n1", "n1");
	is_int((long)r.ndrills, 1, "one drill");
	is_int(r.drills_failed, 0, "it passed");
	is_int((long)r.nbins, 24, "hourly bins over a day");
	is_int(r.bins[0].drains[GOLDEN_OWNER_ADMIN], 1, "the admin drain in the first hour");
	ok(near(r.bins[0].availability, 100.0 * (1.0 - 50.0 / (4.0 * 3600))),
	   "first hour availability %.4f", r.bins[0].availability);
	is_int(r.bins[1].drains[GOLDEN_OWNER_GOLDEN], 1, "golden's xid in the second hour");

	out = render(text_of, &r);
	ok(out && strstr(out, "drains          6: golden 4, admin 1, slurm 0, other 1"),
	   "text: drains by owner");
	ok(out && strstr(out, "golden by check xid 2"), "text: by check");
	ok(out && strstr(out, "repeat          n1 (3 fault drains, mostly xid)"), "text: repeat");
	ok(out && strstr(out, "n3 ") &&
	       strstr(out, "xid79 gpu0 0001:00:00.0: detect 0.04s, drain "
	                   "0.05s, return 1m00s: pass"),
	   "text: the drill with its times");
	free(out);
	out = render(golden_fleet_print_csv, &r);
	ok(out && strstr(out, "\nn1,8.7963,"), "csv: n1's availability");
	ok(out && strstr(out, "\nALL,"), "csv: the fleet row");
	free(out);
	{
		struct json_object *j = golden_fleet_json(&r, "golden"), *v;

		ok(json_object_object_get_ex(j, "drains", &v) &&
		       json_object_get_int(json_object_object_get(v, "golden")) == 4,
		   "json: drains.golden");
		ok(json_object_object_get_ex(j, "drills", &v) && json_object_array_length(v) == 1,
		   "json: drills");
		json_object_put(j);
	}
	out = render(golden_fleet_plot_data, &r);
	if (out && strlen(out) > 80)
		diag("%.80s", out + strcspn(out, "\n") + 1);
	ok(out && strstr(out, "\n1001800 99.6528 0 1 1 1\n"),
	   "plot data: first bin's middle, availability, stacked drains");
	free(out);
	{
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		golden_fleet_plot_script(&r, "/tmp/x.svg.dat", "/tmp/x.svg", GOLDEN_GNUPLOT_SVG,
		                         true, "it's a title", f);
		fclose(f);
		ok(buf && strstr(buf, "set output '/tmp/x.svg'"), "script: output");
		ok(buf && strstr(buf, "title 'it''s a title'"), "script: quotes doubled");
		ok(buf && strstr(buf, "set terminal svg"), "script: svg terminal");
		free(buf);
	}
	golden_fleet_free(&r);

	/* The downtime definition is the operator's. */
	golden_strlcpy(conf.fleet.ignore.glob[0], "Not responding", GOLDEN_CONF_GLOB_LEN);
	conf.fleet.ignore.n = 1;
	golden_strlcpy(conf.fleet.count.glob[0], "maintenance*", GOLDEN_CONF_GLOB_LEN);
	conf.fleet.count.n = 1;
	{
		struct golden_fleet_input in = {S, S + DAY, &conf.fleet, fleet, 4, &evs, &drill, 1};

		golden_fleet_compute(&in, &r, &err);
	}
	n2 = node(&r, "n2");
	is_int(n2 ? (long)n2->down_s : -1, 3600,
	       "report_ignore_reason drops Not responding, "
	       "report_count_reason counts the maintenance");
	golden_fleet_free(&r);
	memset(conf.fleet.report_down, 0, sizeof(conf.fleet.report_down));
	conf.fleet.count.n = 0;
	{
		struct golden_fleet_input in = {S, S + DAY, &conf.fleet, fleet, 4, &evs, NULL, 0};

		golden_fleet_compute(&in, &r, &err);
	}
	is_int((long)r.down_s, 0, "report_downtime = none: nothing is down");
	n3 = node(&r, "n3");
	is_int(n3 ? n3->drills : -1, 0, "without its record the drill is a drain like any other");
	golden_fleet_free(&r);

	{
		struct golden_fleet_input in = {S, S, &conf.fleet, fleet, 4, &evs, NULL, 0};

		ok(golden_fleet_compute(&in, &r, &err) < 0 && strstr(err.msg, "window"),
		   "an empty window is refused: %s", err.msg);
	}
	printf("1..%d\n", tap_n);
	return tap_failed != 0;
}
