/* The nccl-tests reader: every format generation (rows from the printf
 * formats of NVIDIA/nccl-tests' history, and the published corpus), -J
 * JSON, and the damage real logs carry; and what infer makes of them. */
#include "../tap.h"
#include "sweep_test.h"

#include <math.h>

/* The set's one run, when it has exactly one with at least one row. */
static const struct golden_sweep_run *only(const struct golden_sweep_set *s)
{
	return s->nruns == 1 && s->runs[0].nrows ? &s->runs[0] : NULL;
}

static bool near(double a, double b)
{
	return fabs(a - b) < 1e-9 * (fabs(a) + fabs(b) + 1);
}

/* 2017-2019: nThread without '#', `bytes N type op ... res`, time in ms. */
static void test_gen0(void)
{
	struct golden_sweep_set s = {0};
	const struct golden_sweep_run *r;

	parse_text(&s, "gen0",
	           "nThread 1 nGpus 1 minBytes 1048576 maxBytes 2097152 step: 2(factor) warmup "
	           "iters: 5 iters: 20 validation: 0\n"
	           "# NCCL Tests compiled with NCCL 2.4\n# Using devices\n"
	           "#   Rank  0 on managed-worker-3jq5 device  0 [0x00] Tesla V100-SXM2-16GB\n"
	           "#                                 out-of-place                    in-place\n"
	           "#      bytes             N    type      op     time  algbw  busbw      res"
	           "     time  algbw  busbw      res\n"
	           "#   Rank  1 on managed-worker-0khr device  0 [0x00] Tesla V100-SXM2-16GB\n"
	           "     1048576        262144   float     sum    2.059   0.51   0.51      N/A"
	           "    3.314   0.32   0.32      N/A\n"
	           "     2097152        524288   float     sum    3.047   0.69   0.69  1e-07"
	           "    6.873   0.31   0.31  1e-07\n");
	r = only(&s);
	ok(r && r->nrows == 2, "gen0: 2 rows");
	ok(r && r->layout.errcol == GOLDEN_SWEEP_ERR_RES && r->layout.time_ms,
	   "gen0: res column, ms");
	ok(r && near(r->rows[0].half[0].time_us, 2059) && near(r->rows[0].half[1].time_us, 3314),
	   "gen0: times converted from ms to us");
	ok(r && r->rows[0].half[0].wrong < 0 && near(r->rows[1].half[1].wrong, 1e-7),
	   "gen0: N/A and a float deviation");
	ok(r && r->ranks == 2 && r->nodes == 2 && r->coll == GOLDEN_COLL_ALL_REDUCE,
	   "gen0: the second rank's line after the header still counts: 2 ranks on 2 hosts");
	golden_sweep_set_free(&s);
}

/* 2019-2022: the float error column, each collective its own columns. */
static void test_gen1(void)
{
	static const struct {
		const char *name, *header, *row;
		enum golden_sweep_coll coll;
	} cases[] = {
	    {"all_reduce (6-wide type)",
	     "size count type redop time algbw busbw error time algbw busbw error",
	     "    33554432       8388608   float     sum   1965.1   17.08   32.02  5e-07   1962.7  "
	     " 17.10   32.06  5e-07",
	     GOLDEN_COLL_ALL_REDUCE},
	    {"all_gather (no redop)",
	     "size count type time algbw busbw error time algbw busbw error",
	     "  8589934592     268435456   float    42321  202.97  177.60    N/A    41805  205.48  "
	     "179.79    N/A",
	     GOLDEN_COLL_ALL_GATHER},
	    {"alltoall (redop printed blank)",
	     "size count type redop time algbw busbw error time algbw busbw error",
	     "  8589934592     268435456   float            33508  256.36  224.31    N/A    33234  "
	     "258.47  226.16    N/A",
	     GOLDEN_COLL_ALLTOALL},
	    {"broadcast (root)",
	     "size count type root time algbw busbw error time algbw busbw error",
	     "  8589934592    2147483648   float       0    36602  234.68  234.68    N/A    36581  "
	     "234.82  234.82    N/A",
	     GOLDEN_COLL_BROADCAST},
	    {"reduce (redop and root)",
	     "size count type redop root time algbw busbw error time algbw busbw error",
	     "  8589934592    2147483648   float     sum       0    37139  231.29  231.29    N/A   "
	     " 37212  230.84  230.84    N/A",
	     GOLDEN_COLL_REDUCE},
	    {"reduce_scatter (busbw < algbw)",
	     "size count type redop time algbw busbw error time algbw busbw error",
	     "  8589934592     268435456   float     sum    32454  264.68  231.60    N/A    32463  "
	     "264.61  231.53    N/A",
	     GOLDEN_COLL_REDUCE_SCATTER},
	    {"sendrecv (no redop, busbw = algbw)",
	     "size count type time algbw busbw error time algbw busbw error",
	     "    37748744      37748744     uint8    11732    3.22    3.22  0e+00    11698    "
	     "3.23    3.23  3e+02",
	     GOLDEN_COLL_SENDRECV},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct golden_sweep_set s = {0};
		char text[1024];
		const struct golden_sweep_run *r;

		snprintf(text, sizeof(text), "#%s\n%s\n", cases[i].header, cases[i].row);
		parse_text(&s, cases[i].name, text);
		r = only(&s);
		ok(r && r->nrows == 1 && r->layout.errcol == GOLDEN_SWEEP_ERR_FLOAT &&
		       r->coll == cases[i].coll,
		   "gen1 %s: one row, float error, collective %s", cases[i].name,
		   r ? golden_sweep_coll_name(r->coll) : "-");
		golden_sweep_set_free(&s);
	}
}

static void test_gen2_to_4(void)
{
	struct golden_sweep_set s = {0};
	const struct golden_sweep_run *r;

	/* 2022-2025: #wrong printed %g (exponent form from 1e6). */
	parse_text(&s, "gen2",
	           "#       size         count      type   redop    root     time   algbw   busbw "
	           "#wrong     time   algbw   busbw #wrong\n"
	           "     4194304       1048576     float     sum      -1    551.8    7.60    7.60 "
	           "1.04858e+06    552.0    7.60    7.60 1.04858e+06\n");
	r = only(&s);
	ok(r && r->nrows == 1 && near(r->rows[0].half[0].wrong, 1.04858e+06),
	   "gen2: #wrong in exponent form read as a number");
	golden_sweep_set_free(&s);

	/* 2025-10: version line, Collective starting/concluded, wide #wrong,
	 * 2026: unalign and the git hash. */
	memset(&s, 0, sizeof(s));
	parse_text(&s, "gen4",
	           "# nccl-tests version 2.20.0 (b4d5bee) nccl-headers=23102 nccl-library=23102\n"
	           "# Collective test starting: alltoall_perf\n"
	           "# nThread 1 nGpus 1 minBytes 8192 maxBytes 16384 step: 2(factor) warmup iters: "
	           "10 iters: 100 agg iters: 1 validation: 1 graph: 0 unalign: 0\n"
	           "#       size         count      type   redop    root     time   algbw   busbw  "
	           "#wrong     time   algbw   busbw  #wrong \n"
	           "        8192          1024     float    none      -1    35.15    0.23    0.12  "
	           "     0    30.33    0.27    0.14     N/A\n"
	           "       16384          2048     float    none      -1    31.67    0.52    0.26  "
	           "     0    30.75    0.53    0.27     N/A\n"
	           "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 0.2 \n#\n"
	           "# Collective test concluded: alltoall_perf\n\n");
	r = only(&s);
	ok(r && !strcmp(r->version, "2.20.0") && !strcmp(r->githash, "b4d5bee") &&
	       r->nccl_headers == 23102 && r->nccl_library == 23102,
	   "gen4: version line with the git hash");
	ok(r && r->coll == GOLDEN_COLL_ALLTOALL && r->coll_src == GOLDEN_SWEEP_SRC_LOG &&
	       r->concluded && r->footer && r->min_bytes == 8192,
	   "gen4: collective from 'Collective test starting', concluded, footer, config");
	ok(r && r->nrows == 2 && r->rows[0].half[1].wrong < 0 && r->ranks == 2,
	   "gen4: in-place #wrong N/A (alltoall), 2 ranks from busbw/algbw");
	golden_sweep_set_free(&s);

	/* -I per-iteration columns and the -S timestamp (2025-10, 2026-06). */
	memset(&s, 0, sizeof(s));
	parse_text(&s, "per-iteration",
	           "#       size         count      type   redop    root     time   algbw   busbw  "
	           "#wrong    i_min    i_max    i_p99   i_cv%     time   algbw   busbw  #wrong    "
	           "i_min    i_max    i_p99   i_cv%           timestamp\n"
	           "  1073741824     268435456     float     sum      -1  4497.40  238.75  447.65 "
	           "      0  4490.10  4510.30  4509.90     0.1  4503.50  238.42  447.04       0  "
	           "4499.00  4520.70  4519.20     0.2 2026-06-10 12:00:01\n");
	r = only(&s);
	ok(r && r->nrows == 1 && r->layout.per_half == 8 && r->layout.trailing == 2 &&
	       near(r->rows[0].half[1].busbw, 447.04) && near(r->rows[0].half[0].time_us, 4497.40),
	   "-I and -S: per-iteration columns and the timestamp skipped, halves read");
	golden_sweep_set_free(&s);
}

/* What launchers, NCCL and copies add. */
static void test_damage(void)
{
	struct golden_sweep_set s = {0};
	const struct golden_sweep_run *r;
	const char *hdr = "#       size         count      type   redop    root     time   algbw   "
	                  "busbw #wrong     time   algbw   busbw #wrong\n";
	char text[4096];

	snprintf(
	    text, sizeof(text),
	    "0: %s"
	    "0:      1048576        262144     float     sum      -1    309.4    3.39    6.35  "
	    "    0    307.3    3.41    6.40      0\n"
	    "   [1,0]<stdout>:      2097152        524288     float     sum      -1    432.6  "
	    "  4.85    9.09      0    397.4    5.28    9.90      0\n"
	    "\n"
	    "[0]      4194304       1048576     float     sum      -1[0] host-1:497888:497888 "
	    "[0] NCCL INFO 4194304 Bytes -> Algo 1 proto 2 time 37.798233\n"
	    "[0] host-1:497888:497888 [0] NCCL INFO 4194304 Bytes -> Algo 1 proto 2\n"
	    "[0]    533.9    7.86   14.73      0    530.3    7.91   14.83      0\n"
	    "host-1:1:2 [1] enqueue.cc:1500 NCCL WARN Cuda failure 1 'invalid argument'\n"
	    "        ...\n"
	    "   16777216       4194304     float     sum      -1   1191.8   14.08   26.39      0 "
	    "  1190.4   14.09   26.42      0 | |\n"
	    "    33554432       8388\n",
	    hdr);
	parse_text(&s, "damage", text);
	r = only(&s);
	ok(r && r->nrows == 4,
	   "srun, Open MPI and [0] prefixes, a blank line, a crawler suffix: 4 rows");
	ok(r && r->rows[2].size == 4194304 && near(r->rows[2].half[1].busbw, 14.83),
	   "a row split by NCCL INFO lines is joined");
	ok(r && r->nwarn == 1 && strstr(r->warn, "Cuda failure 1"), "NCCL WARN counted and kept");
	ok(r && r->elided, "'...' marks the rows as elided");
	ok(r && r->ntruncated == 1 && r->truncated_line == 11 &&
	       !strcmp(r->truncated_text, "33554432 8388"),
	   "the last row cut short is reported with its line, never dropped");
	golden_sweep_set_free(&s);

	/* Rows without any header, several runs, a failure, golden's lines. */
	memset(&s, 0, sizeof(s));
	parse_text(
	    &s, "runs",
	    "# golden-sweep: run collective=all_reduce_perf nodes=4 env=golden "
	    "nodelist=n1,n2,n3,n4 step=1/2\n"
	    "     1048576        262144     float     sum      -1    309.4    3.39    6.35    "
	    "  0    307.3    3.41    6.40      0\n"
	    "# golden-sweep: end exit=0 elapsed=3.1\n"
	    "# golden-sweep: run collective=all_reduce_perf nodes=4 env=default "
	    "nodelist=n1,n2,n3,n4 step=2/2\n"
	    "# nThread 1 nGpus 1 minBytes 8 maxBytes 128 step: 2(factor) warmup iters: 5 iters: "
	    "20 agg iters: 1 validation: 1 graph: 0\n"
	    "n1: Test NCCL failure common.cu:392 'unhandled cuda error'\n"
	    " .. n1 pid 5068: Test failure common.cu:590\n"
	    "srun: error: n1: task 0: Exited with exit code 3\n"
	    "# golden-sweep: end exit=3 elapsed=1.0\n");
	ok(s.nruns == 2, "two runs (golden's run lines split them)");
	if (s.nruns == 2) {
		r = &s.runs[0];
		ok(r->nrows == 1 && !r->header && r->layout.errcol == GOLDEN_SWEEP_ERR_WRONG &&
		       r->nodes == 4 && r->nodes_src == GOLDEN_SWEEP_SRC_META &&
		       !strcmp(r->env, "golden") && !strcmp(r->nodelist, "n1,n2,n3,n4") &&
		       r->meta_exit == 0,
		   "rows without a header; nodes, environment and nodelist from golden's lines");
		r = &s.runs[1];
		ok(r->nrows == 0 && r->nfailures == 3 && strstr(r->failure, "Test NCCL failure") &&
		       r->failure_line == 6 && r->meta_exit == 3 && !strcmp(r->env, "default"),
		   "a run that failed: the first failure line, the launcher's status");
	}
	golden_sweep_set_free(&s);

	/* A hand-made table whose first column is a label, not the size. */
	memset(&s, 0, sizeof(s));
	parse_text(
	    &s, "label",
	    " p4dn        size         count      type   redop     time   algbw   busbw  error "
	    "    time   algbw   busbw  error\n\n"
	    "   1   1073741824     268435456     float     sum   8142.6  131.87  230.77  2e-07 "
	    "  8141.2  131.89  230.81  2e-07\n"
	    "   2   1073741824     268435456     float     sum    35215   30.49   57.17  4e-07 "
	    "   35198   30.51   57.20  4e-07\n");
	ok(s.nruns == 2 && s.runs[0].rows[0].size == 1073741824 &&
	       !strcmp(s.runs[0].label, "p4dn=1") && !strcmp(s.runs[1].label, "p4dn=2"),
	   "a label column before `size` is never read as a size; one run per label");
	golden_sweep_set_free(&s);

	/* A timeout: nccl-tests -T, Slurm's time limit, golden's deadline. */
	memset(&s, 0, sizeof(s));
	parse_text(
	    &s, "timeouts",
	    "# nThread 1 nGpus 1 minBytes 8 maxBytes 128 step: 2(factor) warmup iters: 5 iters: "
	    "20 agg iters: 1 validation: 1 graph: 0\n"
	    "slurmstepd: error: *** STEP 12.0 ON n1 CANCELLED AT 2026-01-01T00:00:00 DUE TO TIME "
	    "LIMIT ***\n"
	    "# nThread 1 nGpus 1 minBytes 8 maxBytes 128 step: 2(factor) warmup iters: 5 iters: "
	    "20 agg iters: 1 validation: 1 graph: 0\n"
	    "# golden-sweep: end timeout=600 elapsed=610.0\n");
	ok(s.nruns == 2 && s.runs[0].timeout && s.runs[1].timeout &&
	       strstr(s.runs[1].failure, "stopped it after 600 s"),
	   "Slurm's time limit and golden's deadline are hangs");
	golden_sweep_set_free(&s);
}

/* Each generation and wrapper, as published. */
static void test_corpus(void)
{
	static const struct {
		const char *file;
		int runs, rows0;
		enum golden_sweep_coll coll;
		int ranks, nodes;
	} cases[] = {
	    {"excerpt-gist-cswinter-2019-v100-socket-2n-gen0-ms-crawled.log", 1, 5,
	     GOLDEN_COLL_ALL_REDUCE, 2, 2},
	    {"superbench-dgxa100-1n-alltoall-v2019fmt.log", 1, 34, GOLDEN_COLL_ALLTOALL, 8, 1},
	    {"azure-ndv4-a100-2n-oldfmt-info-line.log", 1, 9, GOLDEN_COLL_ALL_REDUCE, 16, 0},
	    {"aws-p4de-2n-efa-srun-prefix.log", 1, 29, GOLDEN_COLL_ALL_REDUCE, 16, 0},
	    {"aws-batch-p5-ompi-prefix-trailing-ws.log", 1, 32, GOLDEN_COLL_ALL_REDUCE, 8, 0},
	    {"oci-gb300-alltoall-1-2-16-32n-rack-collapse.log", 4, 2, GOLDEN_COLL_ALLTOALL, 4, 1},
	    {"olivia-gh200-slingshot-4n-corrupt-wrong.log", 1, 28, GOLDEN_COLL_ALL_REDUCE, 16, 4},
	    {"olivia-gh200-slingshot-2n-apptainer-v2183.log", 1, 28, GOLDEN_COLL_ALL_REDUCE, 8, 2},
	    {"oci-a100-roce-2n-stepbytes.log", 1, 2, GOLDEN_COLL_ALL_REDUCE, 16, 2},
	    {"nccltests309-h100-ndr-gjaion-8n-2n-4n-8n-ring-dip-8m.log", 5, 14,
	     GOLDEN_COLL_ALL_REDUCE, 64, 8},
	    {"dstack-gcp-a4-b200-2n-hashstripped.log", 1, 11, GOLDEN_COLL_ALL_REDUCE, 16, 0},
	    {"unknownrepo-rtx3090-2n-inc-wrong-expnotation.log", 1, 27, GOLDEN_COLL_ALL_REDUCE, 2,
	     2},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct golden_sweep_set s = {0};
		int n = parse_corpus(&s, cases[i].file);

		ok(n == cases[i].runs && s.runs[0].nrows == cases[i].rows0 &&
		       s.runs[0].coll == cases[i].coll && s.runs[0].ranks == cases[i].ranks &&
		       s.runs[0].nodes == cases[i].nodes,
		   "%s: %d runs, %d rows, %s, %d ranks, %d nodes", cases[i].file, cases[i].runs,
		   cases[i].rows0, golden_sweep_coll_name(cases[i].coll), cases[i].ranks,
		   cases[i].nodes);
		if (n > 0 &&
		    !(s.runs[0].nrows == cases[i].rows0 && s.runs[0].ranks == cases[i].ranks &&
		      s.runs[0].nodes == cases[i].nodes))
			diag("  got %d runs, %d rows, %s, %d ranks, %d nodes", n, s.runs[0].nrows,
			     golden_sweep_coll_name(s.runs[0].coll), s.runs[0].ranks,
			     s.runs[0].nodes);
		golden_sweep_set_free(&s);
	}
	{
		struct golden_sweep_set s = {0};

		parse_corpus(&s, "oci-a100-roce-2n-stepbytes.log");
		ok(s.nruns == 1 && s.runs[0].step_bytes == 9663676416LL &&
		       s.runs[0].step_factor == 0,
		   "step-by-bytes sweep: step in bytes");
		golden_sweep_set_free(&s);
	}
}

static void test_json(void)
{
	const char *files[] = {"olivia-2n-jsonv1-misspelled.json", "olivia-2n-jsonv3.json"};

	for (int i = 0; i < 2; i++) {
		struct golden_sweep_set s = {0};
		struct golden_err err = {{0}};
		struct golden_sweep_infer_opts io = {GOLDEN_COLL_UNKNOWN, 0, 0};
		char path[1024];
		const struct golden_sweep_run *r;

		snprintf(path, sizeof(path), "%s/t/fixtures/sweep/json/%s", srcdir(), files[i]);
		golden_sweep_parse_file(path, &s, &err);
		golden_sweep_infer_all(&s, &io);
		r = only(&s);
		ok(r && r->nrows == 28 && r->coll == GOLDEN_COLL_ALL_REDUCE && r->ranks == 8 &&
		       r->nodes == 2 && near(r->avg_busbw, 17.8617) && r->nccl_library == 23004 &&
		       near(r->rows[27].half[0].busbw, 101.70) &&
		       near(r->rows[27].half[1].busbw, 107.63) && r->rows[0].root == -1,
		   "-J %s: 28 rows, all_reduce from args, 8 ranks on 2 hosts, average bandwidth",
		   files[i]);
		golden_sweep_set_free(&s);
	}
}

static void test_sizes(void)
{
	char b[32];
	long long v = 0;

	is(golden_sweep_size_str(8, b, sizeof(b)), "8 B", "8 B");
	is(golden_sweep_size_str(512 << 10, b, sizeof(b)), "512 KiB", "512 KiB");
	is(golden_sweep_size_str(17179869184LL, b, sizeof(b)), "16 GiB", "16 GiB");
	is(golden_sweep_size_str(37748744, b, sizeof(b)), "36.0 MiB",
	   "not a multiple: one decimal");
	ok(golden_sweep_size_parse("16G", &v) == 0 && v == 16LL << 30, "16G");
	ok(golden_sweep_size_parse("512MiB", &v) == 0 && v == 512LL << 20, "512MiB");
	ok(golden_sweep_size_parse("8", &v) == 0 && v == 8, "8");
	ok(golden_sweep_size_parse("lots", &v) < 0 && golden_sweep_size_parse("16X", &v) < 0 &&
	       golden_sweep_size_parse("-1", &v) < 0,
	   "not sizes are refused");
	ok(golden_sweep_coll_parse("/opt/nccl-tests/build/all_reduce_perf_mpi") ==
	           GOLDEN_COLL_ALL_REDUCE &&
	       golden_sweep_coll_parse("reducescatter") == GOLDEN_COLL_REDUCE_SCATTER &&
	       golden_sweep_coll_parse("allgatherv") == GOLDEN_COLL_UNKNOWN,
	   "collective names: binaries, paths, superbench's spelling");
	ok(near(golden_sweep_busbw_factor(GOLDEN_COLL_ALL_REDUCE, 16), 1.875) &&
	       near(golden_sweep_busbw_factor(GOLDEN_COLL_ALLTOALL, 2), 0.5) &&
	       golden_sweep_busbw_factor(GOLDEN_COLL_ALL_GATHER, 1) == 0 &&
	       golden_sweep_busbw_factor(GOLDEN_COLL_BROADCAST, 1) == 1,
	   "busbw factors (PERFORMANCE.md)");
}

int main(void)
{
	test_gen0();
	test_gen1();
	test_gen2_to_4();
	test_damage();
	test_corpus();
	test_json();
	test_sizes();
	return done_testing();
}
