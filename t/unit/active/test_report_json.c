/* golden-active's JSON: a full report survives the round trip, a stand-in's
 * minimal output is accepted, anything else is refused with a reason, and
 * the code that becomes part of a drain reason is cleaned. The table shows
 * each figure and marks the failing ones. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "active/report.h"
#include "active/report_json.h"
#include "active/verdict.h"
#include "t/unit/tap.h"

static struct golden_active_report a, b;

static void build(void)
{
	golden_active_report_init(&a);
	strcpy(a.node, "n7");
	strcpy(a.program, "golden-active 0.1.0");
	strcpy(a.driver, "580.159.04");
	strcpy(a.runtime, "13.0");
	a.budget_s = 60;
	a.duration_ms = 41234;
	a.started = 1767225600;
	a.expected_gpus = 2;
	a.ngpus = 2;
	for (int g = 0; g < 2; g++) {
		a.gpu[g].index = g;
		strcpy(a.gpu[g].name, "NVIDIA H200");
		snprintf(a.gpu[g].busid, sizeof(a.gpu[g].busid), "0000:%02x:00.0", 0x19 + g);
		a.gpu[g].mem_total_gib = 139.8;
		a.gpu[g].sms = 132;
		a.gpu[g].cc_major = 9;
		for (int t = 0; t < GOLDEN_ACTIVE_NTESTS; t++) {
			a.gpu[g].fig[t].measured = t != GOLDEN_ACTIVE_P2P;
		}
		a.gpu[g].fig[GOLDEN_ACTIVE_BF16].value = 790;
		a.gpu[g].fig[GOLDEN_ACTIVE_TF32].value = 400;
		a.gpu[g].fig[GOLDEN_ACTIVE_H2D].value = 53.2;
		a.gpu[g].fig[GOLDEN_ACTIVE_D2H].value = 52.9;
		a.gpu[g].fig[GOLDEN_ACTIVE_HBM].value = g ? 2.2 : 4.3;
		a.gpu[g].memtest_gib = 34.5;
	}
	a.npairs = 1;
	a.pair[0].a = 0;
	a.pair[0].b = 1;
	a.pair[0].gbps = 380.5;
	a.nccl.measured = true;
	a.nccl.busbw_gbps = 361.5;
	a.nccl.bytes = 268435456;
	strcpy(a.nccl.recipe, "hgx-h100-h200-ib");
	a.nccl.nvars_set = 2;
	for (int p = 0; p < GOLDEN_ACTIVE_NPHASES; p++) {
		a.phase[p].end = GOLDEN_ACTIVE_DONE;
		a.phase[p].deadline_ms = 1000 * (p + 1);
		a.phase[p].duration_ms = 10 * p;
	}
	snprintf(a.phase[GOLDEN_ACTIVE_PH_NCCL].note, GOLDEN_ACTIVE_ERR_LEN, "2 GPUs");
	golden_active_judge(&a, NULL);
}

static void test_roundtrip(void)
{
	struct json_object *j;
	struct golden_err err = {{0}};
	const char *text;

	build();
	is(golden_active_result_name(a.result), "fail", "the sample fails (gpu1 HBM)");
	j = golden_active_report_to_json(&a);
	text = json_object_to_json_string(j);
	ok(golden_active_report_parse(text, &b, &err) == 0, "its JSON parses back: %s", err.msg);
	json_object_put(j);
	is(golden_active_result_name(b.result), "fail", "result");
	is(b.code, a.code, "code");
	is(b.detail, a.detail, "detail");
	is(b.node, "n7", "node");
	is(b.driver, "580.159.04", "driver");
	is_int(b.ngpus, 2, "GPUs");
	is(b.gpu[1].busid, "0000:1a:00.0", "a GPU's PCI address");
	ok(b.gpu[1].fig[GOLDEN_ACTIVE_HBM].value == 2.2 &&
	       b.gpu[1].fig[GOLDEN_ACTIVE_HBM].verdict == a.gpu[1].fig[GOLDEN_ACTIVE_HBM].verdict &&
	       b.gpu[1].fig[GOLDEN_ACTIVE_HBM].expect_min ==
	           a.gpu[1].fig[GOLDEN_ACTIVE_HBM].expect_min,
	   "a figure with its floor and verdict");
	ok(b.gpu[0].fig[GOLDEN_ACTIVE_P2P].measured &&
	       b.gpu[0].fig[GOLDEN_ACTIVE_P2P].value == 380.5,
	   "the per-GPU peer figure");
	is_int(b.gpu[0].cc_major, 9, "compute capability");
	ok(b.npairs == 1 && b.pair[0].gbps == 380.5, "the pairs");
	ok(b.nccl.measured && b.nccl.busbw_gbps == 361.5 &&
	       !strcmp(b.nccl.recipe, "hgx-h100-h200-ib"),
	   "the all-reduce and the golden recipe it ran with");
	ok(b.phase[GOLDEN_ACTIVE_PH_GEMM].end == GOLDEN_ACTIVE_DONE &&
	       b.phase[GOLDEN_ACTIVE_PH_GEMM].deadline_ms == 3000 &&
	       !strcmp(b.phase[GOLDEN_ACTIVE_PH_NCCL].note, "2 GPUs"),
	   "the phases");
	golden_active_judge(&b, NULL);
	is(b.code, a.code, "judging the read-back report gives the same code");
}

static void test_standin(void)
{
	struct golden_err err = {{0}};

	ok(golden_active_report_parse(
	       "{\"result\":\"fail\",\"code\":\"gpu3 hbm 2.1<3.2TB/s\",\"detail\":\"stand-in\"}",
	       &b, &err) == 0,
	   "a stand-in's minimal output is accepted");
	is(b.code, "gpu3 hbm 2.1<3.2TB/s", "with its code");
	ok(golden_active_report_parse("{\"result\":\"pass\"}", &b, &err) == 0 &&
	       b.result == GOLDEN_ACTIVE_PASS,
	   "a bare pass");
	ok(golden_active_report_parse("{\"result\":\"fail\"}", &b, &err) == 0 &&
	       !strcmp(b.code, "active fail"),
	   "a failure without a code still gets one");
	ok(golden_active_report_parse("{\"result\":\"fail\",\"code\":\"gpu1; x'\\\"$(id)`\\u00e9 "
	                              "and much more text\"}",
	                              &b, &err) == 0,
	   "a hostile code parses");
	is(b.code, "gpu1_ x____id____ an", "and is cut to 20 safe characters (UTF-8 too)");
	err.msg[0] = '\0';
	ok(golden_active_report_parse("{\"result\":\"maybe\"}", &b, &err) < 0 &&
	       strstr(err.msg, "expected pass, warn, fail or error"),
	   "an unknown result is refused: %s", err.msg);
	err.msg[0] = '\0';
	ok(golden_active_report_parse("Segmentation fault", &b, &err) < 0 &&
	       strstr(err.msg, "not JSON"),
	   "garbage is refused: %s", err.msg);
	ok(golden_active_report_parse("[1,2]", &b, &err) < 0, "a non-object is refused");
}

static void test_table(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	build();
	golden_active_report_print(f, &a);
	fclose(f);
	ok(strstr(buf, "golden-active 0.1.0 on n7: 2 GPUs NVIDIA H200, driver 580.159.04") != NULL,
	   "header");
	ok(strstr(buf, "0000:1a:00.0") && strstr(buf, "2.20!"), "the slow GPU is marked");
	ok(strstr(buf, "4.30") != NULL, "the healthy one is shown");
	ok(strstr(buf, "floor") && strstr(buf, "unverified on real hardware"),
	   "the floor row says the table is unverified");
	ok(strstr(buf, "result: fail gpu1 hbm 2.2<3.8TB/s") != NULL, "the result line: %s", buf);
	free(buf);
}

int main(void)
{
	test_roundtrip();
	test_standin();
	test_table();
	return done_testing();
}
