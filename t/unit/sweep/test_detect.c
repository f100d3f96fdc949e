/* The findings: each kind at and around its threshold, on logs built from
 * a few numbers (and on published ones), the order, the report. */
#include "../tap.h"
#include "sweep_test.h"

#include <json-c/json.h>
#include <math.h>

#include "sweep/report.h"

static struct golden_sweep_set set;
static struct golden_sweep_result res;

static void judge(const char *text, const struct golden_sweep_opts *o)
{
	golden_sweep_result_free(&res);
	golden_sweep_set_free(&set);
	parse_text(&set, "t", text);
	if (golden_sweep_detect(&set, o, &res) < 0)
		diag("detect: out of memory");
}

static int count(enum golden_sweep_kind k, const char *what)
{
	int n = 0;

	for (int i = 0; i < res.n; i++)
		n += res.f[i].kind == k && (!what || !strcmp(res.f[i].what, what));
	return n;
}

static const struct golden_sweep_finding *find(enum golden_sweep_kind k, int run, int placement)
{
	for (int i = 0; i < res.n; i++)
		if (res.f[i].kind == k && res.f[i].run == run &&
		    (placement == -2 || res.f[i].placement == placement))
			return &res.f[i];
	return NULL;
}

static void show(void)
{
	for (int i = 0; i < res.n; i++)
		diag("  %s run %d pl %d: %s", golden_sweep_kind_name(res.f[i].kind),
		     res.f[i].run + 1, res.f[i].placement, res.f[i].text);
}

/* 16 ranks, 1 MiB .. 8 GiB: a smooth curve. */
static const double smooth[] = {20, 35, 60, 100, 150, 210, 270, 320, 360, 385, 395, 400, 402, 403};
#define NS ((int)(sizeof(smooth) / sizeof(smooth[0])))

static void test_dips(void)
{
	struct text t = {0};
	double v[NS];
	const struct golden_sweep_finding *f;
	struct golden_sweep_opts o;

	add_run(&t, NULL, 16, 1 << 20, smooth, NULL, NS);
	judge(t.s, NULL);
	is_int(res.n, 0, "a smooth rise to a plateau: no finding");
	show();

	memcpy(v, smooth, sizeof(v));
	v[3] = 60 * 0.89; /* 11% below the best so far (60 at 4 MiB) */
	t.len = 0;
	add_run(&t, NULL, 16, 1 << 20, v, smooth, NS);
	judge(t.s, NULL);
	f = find(GOLDEN_FIND_DIP, 0, GOLDEN_SWEEP_OOP);
	ok(f && f->size == 8 << 20 && f->nsizes == 1 && fabs(f->reference - 60) < 0.01 &&
	       fabs(f->value - 53.4) < 0.01,
	   "an 11%% drop at 8 MiB out-of-place: a dip with its size and numbers");
	ok(!find(GOLDEN_FIND_DIP, 0, GOLDEN_SWEEP_IP), "in-place judged apart: no dip there");
	ok(f && strstr(f->text, "at 8 MiB is 11% below 60.00 GB/s reached at 4 MiB"), "text: %s",
	   f ? f->text : "-");

	v[3] = 60 * 0.91; /* 9%: within the threshold */
	t.len = 0;
	add_run(&t, NULL, 16, 1 << 20, v, NULL, NS);
	judge(t.s, NULL);
	is_int(count(GOLDEN_FIND_DIP, NULL), 0, "a 9%% drop is below the 10%% threshold");
	golden_sweep_opts_init(&o);
	o.dip_threshold = 0.05;
	judge(t.s, &o);
	is_int(count(GOLDEN_FIND_DIP, NULL), 2,
	       "with --dip-threshold 5 it is one (both placements)");

	/* A plateau and a step that keeps rising never fall below their best. */
	memcpy(v, smooth, sizeof(v));
	v[5] = v[4];
	v[6] = v[4] * 0.99;
	v[7] = 330;
	t.len = 0;
	add_run(&t, NULL, 16, 1 << 20, v, NULL, NS);
	judge(t.s, NULL);
	is_int(count(GOLDEN_FIND_DIP, NULL), 0, "a plateau, a 1%% wobble, then a step up: no dip");

	/* Latency-bound sizes: a 50% drop below the 1 GB/s noise floor. */
	{
		double lat[NS];

		for (int i = 0; i < NS; i++)
			lat[i] = smooth[i];
		lat[0] = 0.5;
		lat[1] = 0.9;
		lat[2] = 0.45;
		t.len = 0;
		add_run(&t, NULL, 16, 1 << 20, lat, NULL, NS);
		judge(t.s, NULL);
		is_int(count(GOLDEN_FIND_DIP, NULL), 0,
		       "a drop while the best so far is below the noise floor is not judged");
		golden_sweep_opts_init(&o);
		o.noise_floor = 0.1;
		judge(t.s, &o);
		is_int(count(GOLDEN_FIND_DIP, NULL), 2, "with a lower noise floor it is");
	}

	/* Consecutive sizes below the best: one finding over the range. */
	memcpy(v, smooth, sizeof(v));
	v[6] = v[7] = v[8] = 100;
	t.len = 0;
	add_run(&t, NULL, 16, 1 << 20, v, NULL, NS);
	judge(t.s, NULL);
	f = find(GOLDEN_FIND_DIP, 0, GOLDEN_SWEEP_OOP);
	ok(count(GOLDEN_FIND_DIP, NULL) == 2 && f && f->size == 64 << 20 &&
	       f->size_to == 256 << 20 && f->nsizes == 3,
	   "three sizes in a row: one dip from 64 MiB to 256 MiB");
	ok(golden_sweep_is_dip(&res, 0, GOLDEN_SWEEP_OOP, 128 << 20) &&
	       !golden_sweep_is_dip(&res, 0, GOLDEN_SWEEP_OOP, 512 << 20),
	   "the plot marks the sizes of a dip");
	free(t.s);
}

static void test_wrong(void)
{
	const char *hdr_wrong =
	    "#       size         count      type   redop    root     time   algbw "
	    "  busbw #wrong     time   algbw   busbw #wrong\n";
	const char *hdr_err =
	    "#       size         count      type   redop     time   algbw   busbw "
	    " error     time   algbw   busbw  error\n";
	char text[2048];
	const struct golden_sweep_finding *f;

	snprintf(text, sizeof(text),
	         "%s     2097152        524288     float     sum      -1   6249.2    0.34    0.63  "
	         " 18134   6142.3    0.34    0.64      0\n"
	         "     4194304       1048576     float     sum      -1   6249.2    0.67    1.26  "
	         "1.04858e+06   6142.3    0.68    1.27      0\n",
	         hdr_wrong);
	judge(text, NULL);
	f = find(GOLDEN_FIND_WRONG, 0, GOLDEN_SWEEP_OOP);
	ok(f && f->size == 2 << 20 && f->size_to == 4 << 20 && f->nsizes == 2 &&
	       f->wrong == 1.04858e+06 && !find(GOLDEN_FIND_WRONG, 0, GOLDEN_SWEEP_IP),
	   "#wrong > 0 at two sizes out-of-place: one finding, the worst count");

	/* The old float column against nccl-tests' DeltaMaxValue per type. */
	snprintf(
	    text, sizeof(text),
	    "%s    33554432       8388608     float     sum    593.7   56.52  105.97  5e-07    "
	    "590.2   56.86  106.60  2e-05\n"
	    "    67108864      33554432      half     sum    904.7   74.18  139.09  5e-03    "
	    "918.0   73.11  137.07  2e-02\n"
	    "   134217728     134217728     uint8     sum   1629.6   82.36  154.43  0e+00   "
	    "1654.3   81.13  152.12  1e+00\n",
	    hdr_err);
	judge(text, NULL);
	ok(count(GOLDEN_FIND_WRONG, NULL) == 1 &&
	       (f = find(GOLDEN_FIND_WRONG, 0, GOLDEN_SWEEP_IP)) && f->size == 32 << 20 &&
	       f->size_to == 128 << 20 && f->nsizes == 3,
	   "float 5e-07 and half 5e-03 pass; float 2e-05, half 2e-02 and uint8 1 fail");
	show();

	/* The footer alone: FAILED without a per-row count. */
	snprintf(
	    text, sizeof(text),
	    "%s    33554432       8388608     float     sum    593.7   56.52  105.97    N/A    "
	    "590.2   56.86  106.60    N/A\n# Out of bounds values : 12 FAILED\n",
	    hdr_err);
	judge(text, NULL);
	ok(count(GOLDEN_FIND_WRONG, "oob-failed") == 1, "Out of bounds values : 12 FAILED");
}

static void test_missing(void)
{
	struct text t = {0};
	const struct golden_sweep_finding *f;
	char *p;

	add_run(&t, NULL, 16, 1 << 20, smooth, NULL, NS);
	/* drop the 16 MiB row */
	p = strstr(t.s, "    16777216 ");
	memset(p, '#', 1);
	judge(t.s, NULL);
	f = find(GOLDEN_FIND_MISSING, 0, -1);
	ok(f && !strcmp(f->what, "sizes-absent") && f->size == 16 << 20 && f->size_to == 16 << 20,
	   "a size absent between the rows");

	/* The sweep ends at 1 GiB of 8 GiB, with a failure line. */
	t.len = 0;
	add_run(&t, NULL, 16, 1 << 20, smooth, NULL, NS);
	p = strstr(t.s, "  2147483648 ");
	snprintf(p, t.cap - (size_t)(p - t.s),
	         "n1: Test NCCL failure common.cu:392 'remote error'\n");
	judge(t.s, NULL);
	f = find(GOLDEN_FIND_MISSING, 0, -1);
	ok(f && !strcmp(f->what, "stopped-early") && f->size == 2LL << 30 &&
	       f->size_to == 8LL << 30 && f->nsizes == 3 && strstr(f->text, "Test NCCL failure"),
	   "stopped early: the sizes absent and the failure line");
	is_int(count(GOLDEN_FIND_MISSING, NULL), 1, "one finding for it, not two");

	/* A step-bytes sweep and a maxBytes that is not a power of two. */
	judge(
	    "# nThread 1 nGpus 1 minBytes 1073741824 maxBytes 10737418240 step: 9663676416(bytes) "
	    "warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n"
	    "#       size         count      type   redop    root     time   algbw   busbw #wrong  "
	    "   time   algbw   busbw #wrong\n"
	    "  1073741824     268435456     float     sum      -1    11785   91.11  170.83      0  "
	    "  11801   90.99  170.60      0\n"
	    " 10737418240    2684354560     float     sum      -1   111774   96.06  180.11      0  "
	    " 111838   96.01  180.01      0\n",
	    NULL);
	is_int(count(GOLDEN_FIND_MISSING, NULL), 0, "step by bytes: nothing missing");
	free(t.s);
}

static void test_below_and_notbw(void)
{
	struct golden_sweep_expect x = {"site",
	                                2,
	                                {{GOLDEN_COLL_ALL_REDUCE, 2, 8, 400, 1LL << 30, "s"},
	                                 {GOLDEN_COLL_ALLTOALL, 2, 8, 10, 1, "s"}}};
	struct golden_sweep_opts o;
	struct text t = {0};
	const struct golden_sweep_finding *f;

	golden_sweep_opts_init(&o);
	o.expect = &x;
	add_run(&t, "collective=all_reduce_perf nodes=2 env=golden", 16, 1 << 20, smooth, NULL, NS);
	judge(t.s, &o);
	f = find(GOLDEN_FIND_BELOW, 0, -2);
	ok(!f, "peak 403 >= 400: not below");
	x.e[0].min_busbw = 410;
	judge(t.s, &o);
	f = find(GOLDEN_FIND_BELOW, 0, -1);
	ok(f && fabs(f->value - 403) < 0.01 && f->reference == 410 && f->size == 8LL << 30,
	   "peak 403 < 410: below-expected, both placements in one finding");
	x.e[0].min_size = 16LL << 30;
	judge(t.s, &o);
	ok(!find(GOLDEN_FIND_BELOW, 0, -2) && res.nnotes == 1 &&
	       strstr(res.notes[0].text, "the sweep stops at 8 GiB, the figure holds from 16 GiB"),
	   "a sweep shorter than the figure's size: a note, not a finding");
	x.e[0].min_size = 1LL << 30;
	t.len = 0;
	add_run(&t, "collective=all_reduce_perf nodes=2 env=default", 16, 1 << 20, smooth, NULL,
	        NS);
	judge(t.s, &o);
	ok(!find(GOLDEN_FIND_BELOW, 0, -2), "NCCL's defaults (A/B) are not judged against it");

	/* One rank; only latency-bound sizes. */
	t.len = 0;
	add_run(&t, NULL, 1, 1 << 20, (const double[]){0, 0, 0}, NULL, 3);
	judge(t.s, &o);
	ok(count(GOLDEN_FIND_NOTBW, "one-rank") == 1 && res.n == 1,
	   "one rank: not a bandwidth test, and nothing else judged");
	t.len = 0;
	add_run(&t, NULL, 16, 8, (const double[]){0.01, 0.02, 0.04, 0.08}, NULL, 4);
	judge(t.s, NULL);
	ok(count(GOLDEN_FIND_NOTBW, "latency-only") == 1, "8 B to 64 B only: latency-bound");
	free(t.s);
}

static void test_scaling(void)
{
	struct text t = {0};
	const double a2[] = {10, 100, 400};
	const double a4[] = {10, 90, 330}; /* 82.5% of 2 nodes: inside 0.9 x 1/1.2 = 75% */
	const double a8[] = {10, 90, 280}; /* 85% of 4 nodes: beyond 90% */
	const struct golden_sweep_finding *f;

	add_run(&t, "collective=all_reduce_perf nodes=2", 16, 1 << 28, a2, NULL, 3);
	add_run(&t, "collective=all_reduce_perf nodes=4", 32, 1 << 28, a4, NULL, 3);
	add_run(&t, "collective=all_reduce_perf nodes=8", 64, 1 << 28, a8, NULL, 3);
	judge(t.s, NULL);
	f = find(GOLDEN_FIND_SCALING, 2, -1);
	ok(count(GOLDEN_FIND_SCALING, NULL) == 1 && f && f->other == 1 &&
	       fabs(f->ratio - 280.0 / 330) < 1e-3 && f->expected_ratio == 1,
	   "2 -> 4 nodes within the 2-node tree allowance; 4 -> 8 loses 15%%: scaling on 8");
	show();

	/* alltoall: busbw ~ N/(N-1) x NIC, 2 -> 4 nodes explains 2/3. */
	t.len = 0;
	add_run(&t, "collective=alltoall_perf nodes=2", 2, 1 << 28, a2, NULL, 3);
	add_run(&t, "collective=alltoall_perf nodes=4", 4, 1 << 28, (const double[]){10, 80, 270},
	        NULL, 3);
	judge(t.s, NULL);
	is_int(count(GOLDEN_FIND_SCALING, NULL), 0,
	       "alltoall 400 -> 270 (67%%): what N/(N-1) explains");
	ok(fabs(golden_sweep_scaling_expected(GOLDEN_COLL_ALLTOALL, 2, 4) - 2.0 / 3) < 1e-9 &&
	       fabs(golden_sweep_scaling_expected(GOLDEN_COLL_ALL_REDUCE, 2, 4) - 1 / 1.2) < 1e-9 &&
	       golden_sweep_scaling_expected(GOLDEN_COLL_ALL_GATHER, 4, 8) == 1,
	   "the scaling model");

	/* A single node is NVLink-bound: never compared. */
	t.len = 0;
	add_run(&t, "collective=all_reduce_perf nodes=1", 8, 1 << 28,
	        (const double[]){10, 300, 480}, NULL, 3);
	add_run(&t, "collective=all_reduce_perf nodes=2", 16, 1 << 28, (const double[]){10, 80, 90},
	        NULL, 3);
	judge(t.s, NULL);
	is_int(count(GOLDEN_FIND_SCALING, NULL), 0, "1 -> 2 nodes (NVLink to network): not judged");
	free(t.s);
}

static void test_slower(void)
{
	struct text t = {0};
	double g[NS];
	const struct golden_sweep_finding *f;

	memcpy(g, smooth, sizeof(g));
	g[10] = smooth[10] * 0.85;
	g[11] = smooth[11] * 0.8;
	g[0] = smooth[0] * 0.5; /* but 20 GB/s is above the noise floor: counts */
	add_run(&t, "collective=all_reduce_perf nodes=2 env=default nodelist=n1,n2", 16, 1 << 20,
	        smooth, NULL, NS);
	add_run(&t, "collective=all_reduce_perf nodes=2 env=golden nodelist=n1,n2", 16, 1 << 20, g,
	        NULL, NS);
	add_run(&t, "collective=all_reduce_perf nodes=2 env=golden nodelist=n3,n4", 16, 1 << 20, g,
	        NULL, NS);
	judge(t.s, NULL);
	ok(count(GOLDEN_FIND_SLOWER, NULL) == 2, "two ranges where golden is slower");
	f = find(GOLDEN_FIND_SLOWER, 1, -1);
	ok(f && f->other == 0, "against the default run on the same nodes, both placements");
	for (int i = 0; i < res.n; i++)
		if (res.f[i].kind == GOLDEN_FIND_SLOWER && res.f[i].size == 1LL << 30)
			f = &res.f[i];
	ok(f && f->size == 1LL << 30 && f->size_to == 2LL << 30 && f->nsizes == 2 &&
	       fabs(f->ratio - 0.8) < 0.01,
	   "1 GiB to 2 GiB, worst 80%% of the default");
	ok(!find(GOLDEN_FIND_SLOWER, 2, -2),
	   "a golden run on other nodes has no twin: not compared");
	show();
	free(t.s);
}

static void test_order_and_report(void)
{
	struct golden_sweep_set s = {0};
	struct golden_sweep_result r = {0};
	struct json_object *j;
	char *buf = NULL;
	size_t len = 0;
	FILE *out;

	parse_corpus(&s, "olivia-gh200-slingshot-4n-corrupt-wrong.log");
	golden_sweep_detect(&s, NULL, &r);
	ok(r.n == 6 && r.f[0].kind == GOLDEN_FIND_WRONG && r.f[1].kind == GOLDEN_FIND_WRONG &&
	       r.f[5].kind == GOLDEN_FIND_DIP,
	   "worst first: wrong before dips");
	ok(r.f[2].severity >= r.f[3].severity && r.f[3].severity >= r.f[4].severity,
	   "dips by depth");
	out = open_memstream(&buf, &len);
	golden_sweep_report_text(out, &s, &r, NULL);
	fclose(out);
	ok(buf && strstr(buf, "verdict: 6 findings (2 wrong, 4 dip) in 1 of 1 run\n"),
	   "text: the verdict line");
	ok(buf && strstr(buf, "judged on busbw = algbw x 2(n-1)/n = 1.88"), "text: what is judged");
	free(buf);
	j = golden_sweep_report_json(&s, &r, NULL);
	{
		struct json_object *runs, *run0, *fs, *rows;

		ok(json_object_object_get_ex(j, "runs", &runs) &&
		       json_object_array_length(runs) == 2,
		   "json: one run per placement");
		run0 = json_object_array_get_idx(runs, 0);
		ok(json_object_object_get_ex(run0, "rows", &rows) &&
		       json_object_array_length(rows) == 28 &&
		       json_object_object_get_ex(run0, "findings", &fs) &&
		       json_object_array_length(fs) == 3,
		   "json: out-of-place has 28 rows and its 3 findings");
		ok(golden_sweep_verdict(&r) == 1, "exit status 1 with findings");
	}
	json_object_put(j);
	golden_sweep_result_free(&r);
	golden_sweep_set_free(&s);
}

int main(void)
{
	test_dips();
	test_wrong();
	test_missing();
	test_below_and_notbw();
	test_scaling();
	test_slower();
	test_order_and_report();
	golden_sweep_result_free(&res);
	golden_sweep_set_free(&set);
	return done_testing();
}
