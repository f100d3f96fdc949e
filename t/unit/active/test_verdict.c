/* golden-active's verdict without a GPU: expectations per model, the
 * comparison with the node's own GPUs, wrong results, failed and hung
 * phases, the 20-character code and the exit status. */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "active/expect.h"
#include "active/report.h"
#include "active/verdict.h"
#include "t/unit/tap.h"

static struct golden_active_report rep;

static void set(int g, enum golden_active_test t, double v)
{
	rep.gpu[g].fig[t].measured = true;
	rep.gpu[g].fig[t].value = v;
}

/* n healthy GPUs of a model with every phase done: 88% of the datasheet
 * (fixed figures for a model the table does not know), a little spread. */
static void healthy(const char *name, int n)
{
	const struct golden_active_model *m = golden_active_model_find(name);

	golden_active_report_init(&rep);
	strcpy(rep.node, "n1");
	rep.ngpus = n;
	for (int g = 0; g < n; g++) {
		struct golden_active_gpu *gpu = &rep.gpu[g];

		gpu->index = g;
		snprintf(gpu->name, sizeof(gpu->name), "%s", name);
		snprintf(gpu->busid, sizeof(gpu->busid), "0000:%02x:00.0", 0x19 + 0x10 * g);
		for (int t = 0; t < GOLDEN_ACTIVE_NTESTS; t++) {
			double d = golden_active_datasheet(m, (enum golden_active_test)t);

			if (t == GOLDEN_ACTIVE_P2P)
				continue;
			if (t == GOLDEN_ACTIVE_MEMTEST)
				d = 0;
			else if (!m)
				d = 800;
			set(g, (enum golden_active_test)t, d * (0.88 + 0.001 * g));
		}
		gpu->gemm_max_err[0] = 0.01;
		gpu->gemm_max_err[1] = 0.02;
		for (int p = 0; p < GOLDEN_ACTIVE_NPHASES; p++)
			gpu->done[p] = true;
	}
	rep.npairs = 0;
	for (int a = 0; a < n; a++)
		for (int b = a + 1; b < n; b++) {
			rep.pair[rep.npairs].a = a;
			rep.pair[rep.npairs].b = b;
			rep.pair[rep.npairs++].gbps = 370 + a + b;
		}
	rep.nccl.measured = true;
	rep.nccl.busbw_gbps = 470;
	rep.nccl.bytes = 256.0 * 1048576;
	for (int p = 0; p < GOLDEN_ACTIVE_NPHASES; p++)
		rep.phase[p].end = GOLDEN_ACTIVE_DONE;
}

static const struct golden_active_judge_opts dflt = {0};

static void test_table(void)
{
	const struct golden_active_model *m = golden_active_model_find("NVIDIA H100 80GB HBM3");

	ok(m && !strcmp(m->label, "H100 SXM5 80GB"), "H100 SXM found by its CUDA name");
	ok(golden_active_model_find("NVIDIA H20") == NULL, "H20 is not taken for an H200");
	ok(golden_active_model_find("NVIDIA H200") != NULL, "H200 SXM found");
	ok(golden_active_model_find("NVIDIA H200 NVL") != golden_active_model_find("NVIDIA H200"),
	   "H200 NVL is its own row");
	ok(m && golden_active_floor(m, GOLDEN_ACTIVE_HBM) > 2.67 &&
	       golden_active_floor(m, GOLDEN_ACTIVE_HBM) < 2.69,
	   "H100 HBM floor = 3.35 TB/s x 0.80");
	ok(golden_active_floor(NULL, GOLDEN_ACTIVE_HBM) == 0, "no model, no floor");
	for (int i = 0; i < golden_active_nmodels; i++) {
		const struct golden_active_model *r = &golden_active_models[i];

		ok(r->source && strstr(r->source, "nvidia.com") && !r->verified && r->note[0],
		   "%s: a datasheet source, marked unverified with a note", r->label);
	}
	for (int t = 0; t < GOLDEN_ACTIVE_NTESTS; t++)
		ok(golden_active_fraction_why((enum golden_active_test)t)[0] != '\0',
		   "test %s: the fraction has a rationale",
		   golden_active_test_name((enum golden_active_test)t));
}

static void test_pass(void)
{
	healthy("NVIDIA H100 80GB HBM3", 8);
	golden_active_judge(&rep, &dflt);
	is(golden_active_result_name(rep.result), "pass", "a healthy 8-GPU H100 node passes");
	is(rep.code, "", "no code on a pass");
	is_int(golden_active_exit_status(rep.result), 0, "exit 0");
	ok(rep.gpu[3].fig[GOLDEN_ACTIVE_P2P].measured &&
	       rep.gpu[3].fig[GOLDEN_ACTIVE_P2P].value > 370,
	   "each GPU's peer figure is the median of its pairs");
	ok(rep.nccl.expect_min == 440, "8 H100: the published all-reduce floor applies");
	ok(rep.gpu[0].fig[GOLDEN_ACTIVE_HBM].sibling_med > 2.9, "the siblings' median is kept");
}

static void test_low_table(void)
{
	healthy("NVIDIA H100 80GB HBM3", 8);
	set(3, GOLDEN_ACTIVE_HBM, 2.1);
	golden_active_judge(&rep, &dflt);
	is(golden_active_result_name(rep.result), "fail", "HBM below the table fails");
	is(rep.code, "gpu3 hbm 2.1<2.7TB/s", "the code names the GPU, the test and the floor");
	ok(strlen(rep.code) <= 20, "it fits sinfo -R");
	ok(strstr(rep.detail, "0000:49:00.0") && strstr(rep.detail, "80% of the H100 SXM5 80GB"),
	   "the detail has the PCI address and the datasheet fraction: %s", rep.detail);
	is_int(golden_active_exit_status(rep.result), 1, "exit 1");
	is_int(rep.nfailed, 1, "one figure failed");
}

static void test_low_siblings(void)
{
	healthy("NVIDIA H100 80GB HBM3", 8);
	for (int g = 0; g < 8; g++)
		set(g, GOLDEN_ACTIVE_HBM, 3.2);
	/* Above the table's floor (2.68), more than 10% below its siblings' 3.2. */
	set(5, GOLDEN_ACTIVE_HBM, 2.80);
	golden_active_judge(&rep, &dflt);
	is(golden_active_result_name(rep.result), "fail", "12%% below the siblings fails");
	is(golden_active_verdict_name(rep.gpu[5].fig[GOLDEN_ACTIVE_HBM].verdict), "low-siblings",
	   "as low against its siblings");
	is(rep.code, "gpu5 hbm 2.8<2.9TB/s", "the limit is 90%% of the median");
	ok(strstr(rep.detail, "median of this node's GPUs") != NULL, "the detail says why");
	set(5, GOLDEN_ACTIVE_HBM, 2.86);
	golden_active_judge(&rep, &dflt);
	is(rep.code, "gpu5 hbm 2.86<2.88", "when one decimal would show 2.9<2.9, two are used");

	set(5, GOLDEN_ACTIVE_HBM, 2.95); /* 8% below: within the 10% tolerance */
	golden_active_judge(&rep, &dflt);
	is(golden_active_result_name(rep.result), "pass", "8%% below the siblings passes");
	{
		struct golden_active_judge_opts strict = {5};

		golden_active_judge(&rep, &strict);
		is(golden_active_result_name(rep.result), "fail",
		   "... and fails with --sibling-pct 5");
	}
}

static void test_unknown_model(void)
{
	healthy("NVIDIA Future GPU", 4);
	rep.npairs = 0;
	golden_active_judge(&rep, &dflt);
	is(golden_active_result_name(rep.result), "warn", "an unknown model passes with a warning");
	ok(strstr(rep.detail, "no expectation table entry") != NULL, "saying why");
	is_int(golden_active_exit_status(rep.result), 0, "exit 0");
	set(2, GOLDEN_ACTIVE_BF16, 500); /* siblings at ~704.4: limit 634 */
	golden_active_judge(&rep, &dflt);
	is(golden_active_result_name(rep.result), "fail",
	   "a GPU far below its siblings fails even without a table entry");
	is(rep.code, "gpu2 bf16 500<634", "code (the unit dropped to fit)");
	ok(rep.nccl.expect_min == 0, "no all-reduce floor for 4 unknown GPUs");
}

static void test_mixed_models(void)
{
	healthy("NVIDIA H100 80GB HBM3", 4);
	strcpy(rep.gpu[3].name, "NVIDIA A100-SXM4-80GB");
	set(3, GOLDEN_ACTIVE_HBM, 1.8); /* an A100 is slower, but above its own floor */
	set(3, GOLDEN_ACTIVE_BF16, 250);
	set(3, GOLDEN_ACTIVE_TF32, 125);
	set(3, GOLDEN_ACTIVE_H2D, 25);
	set(3, GOLDEN_ACTIVE_D2H, 25);
	rep.npairs = 0;
	golden_active_judge(&rep, &dflt);
	is(golden_active_result_name(rep.result), "pass",
	   "GPUs are compared with siblings of their own model only");
}

static void test_wrong(void)
{
	healthy("NVIDIA H200", 8);
	rep.gpu[6].gemm_max_err[1] = 37;
	golden_active_judge(&rep, &dflt);
	is(rep.code, "gpu6 tf32 wrong", "a wrong GEMM result fails");
	ok(strstr(rep.detail, "CPU reference") != NULL, "detail: %s", rep.detail);

	healthy("NVIDIA H200", 8);
	set(1, GOLDEN_ACTIVE_MEMTEST, 12);
	rep.gpu[1].memtest_gib = 14.1;
	set(4, GOLDEN_ACTIVE_HBM, 3.0); /* lower severity than a wrong word */
	golden_active_judge(&rep, &dflt);
	is(rep.code, "gpu1 mem 12 bad", "wrong memory words beat a slow GPU");
	is_int(rep.nfailed, 2, "both failures counted");
	ok(strstr(rep.detail, "also gpu4 hbm low") != NULL, "the other is named: %s", rep.detail);

	healthy("NVIDIA H200", 8);
	rep.nccl.wrong = true;
	golden_active_judge(&rep, &dflt);
	is(rep.code, "nccl ar wrong", "a wrong all-reduce sum fails");
}

static void test_nccl_low(void)
{
	healthy("NVIDIA H200", 8);
	rep.nccl.busbw_gbps = 210;
	golden_active_judge(&rep, &dflt);
	is(rep.code, "nccl ar 210<431GB/s", "all-reduce below the published floor");
	healthy("NVIDIA H200", 4);
	rep.nccl.busbw_gbps = 210;
	golden_active_judge(&rep, &dflt);
	is(golden_active_result_name(rep.result), "pass", "no floor for 4 GPUs");
}

static void test_errors_and_hangs(void)
{
	healthy("NVIDIA H100 80GB HBM3", 8);
	snprintf(rep.gpu[2].fig[GOLDEN_ACTIVE_H2D].error, GOLDEN_ACTIVE_ERR_LEN,
	         "cudaErrorECCUncorrectable at cudaMemcpyAsync");
	golden_active_judge(&rep, &dflt);
	is(rep.code, "gpu2 h2d error", "a failed CUDA call fails the GPU");
	ok(strstr(rep.detail, "cudaErrorECCUncorrectable") != NULL, "with the call's error");

	/* GPU by GPU (PCIe): the first GPU that did not finish hung. */
	healthy("NVIDIA H100 80GB HBM3", 8);
	rep.phase[GOLDEN_ACTIVE_PH_PCIE].end = GOLDEN_ACTIVE_TIMEOUT;
	for (int g = 4; g < 8; g++) {
		rep.gpu[g].done[GOLDEN_ACTIVE_PH_PCIE] = false;
		rep.gpu[g].fig[GOLDEN_ACTIVE_H2D].measured = false;
		rep.gpu[g].fig[GOLDEN_ACTIVE_D2H].measured = false;
	}
	golden_active_judge(&rep, &dflt);
	is(rep.code, "gpu4 h2d timeout", "a sequential phase blames the GPU it hung on");
	is(golden_active_verdict_name(rep.gpu[5].fig[GOLDEN_ACTIVE_H2D].verdict), "none",
	   "the GPUs after it were not reached");

	/* All at once (HBM): every GPU that did not finish. */
	healthy("NVIDIA H100 80GB HBM3", 8);
	rep.phase[GOLDEN_ACTIVE_PH_HBM].end = GOLDEN_ACTIVE_TIMEOUT;
	rep.gpu[6].done[GOLDEN_ACTIVE_PH_HBM] = false;
	rep.gpu[6].fig[GOLDEN_ACTIVE_HBM].measured = false;
	golden_active_judge(&rep, &dflt);
	is(rep.code, "gpu6 hbm timeout", "a concurrent phase blames the GPU that did not finish");

	healthy("NVIDIA H100 80GB HBM3", 8);
	rep.phase[GOLDEN_ACTIVE_PH_NCCL].end = GOLDEN_ACTIVE_CRASHED;
	rep.nccl.measured = false;
	golden_active_judge(&rep, &dflt);
	is(rep.code, "nccl ar error", "a crashed NCCL phase fails");
}

static void test_no_gpu(void)
{
	golden_active_report_init(&rep);
	snprintf(rep.env_error, sizeof(rep.env_error), "cudaErrorNoDevice at cudaGetDeviceCount");
	golden_active_judge(&rep, &dflt);
	is(golden_active_result_name(rep.result), "error", "no GPU and none expected: error");
	is_int(golden_active_exit_status(rep.result), 2, "exit 2");
	rep.expected_gpus = 8;
	golden_active_judge(&rep, &dflt);
	is(rep.code, "gpu count 0<8", "no GPU where 8 are expected fails");

	golden_active_report_init(&rep);
	rep.phase[GOLDEN_ACTIVE_PH_DISCOVER].end = GOLDEN_ACTIVE_TIMEOUT;
	golden_active_judge(&rep, &dflt);
	is(rep.code, "cuda init timeout", "a driver that hangs at init fails");

	healthy("NVIDIA H100 80GB HBM3", 7);
	rep.expected_gpus = 8;
	golden_active_judge(&rep, &dflt);
	is(rep.code, "gpu count 7<8", "a missing GPU fails first");

	healthy("NVIDIA H100 80GB HBM3", 8);
	snprintf(rep.env_error, sizeof(rep.env_error), "interrupted (SIGTERM)");
	golden_active_judge(&rep, &dflt);
	is(golden_active_result_name(rep.result), "error", "an interrupted run is not judged");
}

static void test_code_format(void)
{
	char code[64];
	int bad = 0;

	golden_active_code(code, sizeof(code), "gpu12", "bf16", 412.4, 593.6, "TF/s");
	is(code, "gpu12 bf16 412<594", "the unit goes first when it does not fit");
	for (int g = 0; g < 16; g++)
		for (int t = 0; t < GOLDEN_ACTIVE_NTESTS; t++)
			for (double v = 0.001; v < 1e7; v *= 7.3) {
				char who[16];

				snprintf(who, sizeof(who), "gpu%d", g);
				golden_active_code(
				    code, sizeof(code), who,
				    golden_active_test_name((enum golden_active_test)t), v, v * 1.7,
				    golden_active_test_unit((enum golden_active_test)t));
				bad += strlen(code) > 20;
			}
	is_int(bad, 0, "every code fits in 20 characters");
	{
		double v[] = {5, 1, 3}, w[] = {4, 1, 3, 2};

		ok(golden_active_median(v, 3) == 3 && golden_active_median(w, 4) == 2.5, "median");
	}
	ok(golden_active_busbw(1e9, 0.01, 8) > 174.9 && golden_active_busbw(1e9, 0.01, 8) < 175.1,
	   "busbw = algbw x 2(n-1)/n");
	ok(golden_active_busbw(1e9, 0, 8) == 0, "no time, no bandwidth");
}

int main(void)
{
	test_table();
	test_pass();
	test_low_table();
	test_low_siblings();
	test_unknown_model();
	test_mixed_models();
	test_wrong();
	test_nccl_low();
	test_errors_and_hangs();
	test_no_gpu();
	test_code_format();
	return done_testing();
}
