/* golden sweep run's plan (node counts, step order, launcher argv) and
 * golden sweep locate's pairs and verdicts, without a cluster. */
#include "../tap.h"

#include <math.h>
#include <string.h>

#include <stdio.h>
#include <unistd.h>

#include "sweep/launch.h"
#include "sweep/locate.h"
#include "sweep/plan.h"

static const char *counts_str(int from, int total)
{
	static char buf[128];
	int c[GOLDEN_SWEEP_MAX_COUNTS], n = golden_sweep_node_counts(from, total, c, 24);

	buf[0] = '\0';
	for (int i = 0; i < n; i++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%d", i ? "," : "", c[i]);
	return buf;
}

static void test_counts(void)
{
	is(counts_str(1, 4), "1,2,4", "1..4: doubling");
	is(counts_str(1, 6), "1,2,4,6", "1..6: doubling, then all of them");
	is(counts_str(2, 16), "2,4,8,16", "from 2");
	is(counts_str(1, 1), "1", "one node");
	is(counts_str(2, 1), "", "from 2 with one node: nothing");
}

static void test_steps(void)
{
	int c[] = {2, 4};
	enum golden_sweep_coll colls[] = {GOLDEN_COLL_ALL_REDUCE, GOLDEN_COLL_ALLTOALL};
	struct golden_sweep_step s[16];
	char order[64] = "";
	int n = golden_sweep_plan(c, 2, colls, 2, true, s, 16);

	for (int i = 0; i < n; i++)
		snprintf(order + strlen(order), sizeof(order) - strlen(order), "%d%c%c ",
		         s[i].nodes, s[i].coll == GOLDEN_COLL_ALL_REDUCE ? 'r' : 'a',
		         s[i].golden ? 'G' : 'D');
	is_int(n, 8, "2 counts x 2 collectives x A/B");
	is(order, "2rG 2rD 2aD 2aG 4rG 4rD 4aD 4aG ",
	   "A/B twins back to back, the pair's order alternating (ABBA)");
	n = golden_sweep_plan(c, 2, colls, 1, false, s, 16);
	ok(n == 2 && s[0].golden && s[1].golden && s[1].nodes == 4, "without A/B: golden only");
	is_int(golden_sweep_plan(c, 2, colls, 2, true, s, 5), -1, "more steps than room: -1");
}

static void test_argv(void)
{
	struct golden_sweep_launch l = {"/bin/echo --mpi=pmix",
	                                "/opt/nccl-tests/build",
	                                "gpu",
	                                8,
	                                5,
	                                8,
	                                17179869184LL,
	                                2,
	                                "-c 0 -n 50",
	                                NULL,
	                                "golden-sweep"};
	struct golden_sweep_step s = {0, GOLDEN_COLL_ALL_REDUCE, 2, false};
	char *argv[GOLDEN_SWEEP_MAX_ARGV], buf[4096], joined[2048] = "";
	int n =
	    golden_sweep_step_argv(&l, &s, "n1,n2", argv, GOLDEN_SWEEP_MAX_ARGV, buf, sizeof(buf));

	for (int i = 0; i < n; i++)
		snprintf(joined + strlen(joined), sizeof(joined) - strlen(joined), "%s%s",
		         i ? " " : "", argv[i]);
	is(joined,
	   "/bin/echo --mpi=pmix --nodes=2 --ntasks-per-node=8 --nodelist=n1,n2 --time=5 "
	   "--job-name=golden-sweep --kill-on-bad-exit=1 --golden-nccl=off --partition=gpu -- "
	   "/opt/nccl-tests/build/all_reduce_perf -b 8 -e 17179869184 -f 2 -g 1 -c 0 -n 50",
	   "the step's argv: launcher words, Slurm options, the test and its sizes");
	ok(n > 0 && argv[n] == NULL, "NULL-terminated");
	s.golden = true;
	l.export_env = "NCCL_IB_HCA==mlx5_4";
	l.partition = NULL;
	l.test_args = NULL;
	n = golden_sweep_step_argv(&l, &s, "n3,n1", argv, GOLDEN_SWEEP_MAX_ARGV, buf, sizeof(buf));
	ok(n > 0 && !strcmp(argv[8], "--golden-nccl") &&
	       !strcmp(argv[9], "--export=ALL,NCCL_IB_HCA==mlx5_4") && !strcmp(argv[10], "--"),
	   "golden on; a rail test pins NCCL_IB_HCA through --export");
	l.launcher = "no-such-launcher-here";
	ok(golden_sweep_step_argv(&l, &s, "n1", argv, GOLDEN_SWEEP_MAX_ARGV, buf, sizeof(buf)) < 0,
	   "a launcher that is not on PATH: -1");
	l.launcher = "/bin/echo";
	ok(golden_sweep_step_argv(&l, &s, "n1\n", argv, GOLDEN_SWEEP_MAX_ARGV, buf, sizeof(buf)) <
	       0,
	   "a control character in a word: -1");
	ok(golden_sweep_step_argv(&l, &s, "n1", argv, 8, buf, sizeof(buf)) < 0, "no room: -1");
	{
		char *w[4], b[64];

		ok(golden_sweep_words("  srun\t--mpi=pmix  ", w, 4, b, sizeof(b)) == 2 &&
		       !strcmp(w[1], "--mpi=pmix"),
		   "words split on blanks");
		ok(golden_sweep_words("a b c d e", w, 4, b, sizeof(b)) < 0, "too many words: -1");
	}
	{
		char d[32];

		is(golden_sweep_duration(187000, d, sizeof(d)), "3:07", "3:07");
		is(golden_sweep_duration(3723000, d, sizeof(d)), "1:02:03", "1:02:03");
	}
}

static const char *pairs_str(int n, int round)
{
	static char buf[256];
	struct golden_locate_pair p[64];
	int k = golden_locate_pairs(n, round, p, 64);

	buf[0] = '\0';
	for (int i = 0; i < k; i++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%d-%d", i ? " " : "",
		         p[i].a, p[i].b);
	return buf;
}

static void test_pairs(void)
{
	is(pairs_str(4, 0), "0-1 2-3", "4 nodes, round 0: paired");
	is(pairs_str(4, 1), "1-2 3-0", "round 1: re-paired, the ring closed");
	is(pairs_str(5, 0), "0-1 2-3 4-0", "5 nodes, round 0");
	is(pairs_str(5, 1), "1-2 3-4", "5 nodes, round 1");
	is(pairs_str(3, 0), "0-1 2-0", "3 nodes");
	is(pairs_str(2, 0), "0-1", "2 nodes: one pair");
	is(pairs_str(2, 1), "", "2 nodes: no re-pairing");
}

static void test_judge(void)
{
	struct golden_locate_pair p[8];
	struct golden_locate_result r;
	int n = 0;
	double busbw[5] = {390, 380, 385, 120, 388};

	/* 5 nodes, node 3 slow: its pairs run at its speed. */
	n = golden_locate_pairs(5, 0, p, 8);
	n += golden_locate_pairs(5, 1, p + n, 8 - n);
	for (int i = 0; i < n; i++)
		p[i].busbw = fmin(busbw[p[i].a], busbw[p[i].b]);
	golden_locate_judge(p, n, 5, 0.15, 0, &r);
	ok(r.nculprits == 1 && r.node[3].culprit && r.node[3].slow == 2 && r.node[3].pairs == 2 &&
	       fabs(r.node[3].worst - 120) < 1e-9,
	   "5 nodes: the one slow with both partners is named");
	ok(!r.node[2].culprit && !r.node[4].culprit && r.node[2].slow == 1,
	   "its partners are slow once each, fine with their other partner");
	ok(fabs(r.reference - 380) < 1e-9 && fabs(r.threshold - 380 * 0.85) < 1e-9,
	   "reference: the median pair");

	/* A slow link between two nodes: one slow pair, nobody named. */
	for (int i = 0; i < n; i++)
		p[i].busbw = (p[i].a == 1 && p[i].b == 2) ? 100 : 390;
	golden_locate_judge(p, n, 5, 0.15, 0, &r);
	ok(r.nculprits == 0 && r.nslow_pairs == 1, "one slow pair: a link, not a node");

	/* Everything slow: the fabric. */
	for (int i = 0; i < n; i++)
		p[i].busbw = 100;
	golden_locate_judge(p, n, 5, 0.15, 200, &r);
	ok(r.all_slow && r.nculprits == 0, "every pair below --min-busbw: the fabric, no culprit");

	/* A pair that failed counts as slow. */
	for (int i = 0; i < n; i++)
		p[i].busbw = p[i].a == 0 || p[i].b == 0 ? -1 : 390;
	golden_locate_judge(p, n, 5, 0.15, 0, &r);
	ok(r.nculprits == 1 && r.node[0].culprit, "node 0's tests failed: named");

	/* Two nodes: nobody can be told apart. */
	n = golden_locate_pairs(2, 0, p, 8);
	p[0].busbw = 50;
	golden_locate_judge(p, n, 2, 0.15, 400, &r);
	ok(r.nculprits == 0, "2 nodes: a slow pair, but no culprit");
}

static void test_rails_and_code(void)
{
	struct golden_locate_rail rails[8] = {{"", 0, false}};
	double med;
	int w;
	char code[64];

	for (int i = 0; i < 8; i++) {
		snprintf(rails[i].name, sizeof(rails[i].name), "mlx5_%d", i);
		rails[i].busbw = 48 + i * 0.1;
	}
	rails[4].busbw = 14.4;
	w = golden_locate_rails(rails, 8, 0.15, &med);
	ok(w == 4 && rails[4].slow && !rails[3].slow && fabs(med - 48.25) < 1e-9,
	   "the slow rail among eight");
	rails[4].busbw = 48;
	ok(golden_locate_rails(rails, 8, 0.15, &med) == -1, "no rail stands out");
	golden_locate_code("mlx5_4", 0.27, code, sizeof(code));
	is(code, "mlx5_4 busbw 27%", "the reason's code names the rail");
	ok(strlen(code) <= 20, "at most 20 characters: sinfo -R shows all of it");
	golden_locate_code(NULL, 0.414, code, sizeof(code));
	is(code, "nccl busbw 41%", "without a rail");
	golden_locate_code("ibp220s0", 0.5, code, sizeof(code));
	ok(strlen(code) <= 20 && !strcmp(code, "ibp220s0 busbw 50%"), "a long HCA name fits");
	golden_locate_code("a-very-long-hca-name", 0.5, code, sizeof(code));
	ok(strlen(code) <= 20, "a name too long is left out: '%s'", code);
}

/* One step under its deadline: output to the log, status, a hang stopped. */
static void test_launch(void)
{
	struct golden_sweep_outcome o;
	FILE *log = tmpfile();
	char buf[64] = "";
	char *echo[] = {"/bin/echo", "hello from the step", NULL};
	char *fail[] = {"/bin/false", NULL};
	char *hang[] = {"/bin/sleep", "60", NULL};
	char *none[] = {"/nonexistent/srun", NULL};

	ok(golden_sweep_launch(echo, fileno(log), 10000, &o) == 0 && o.exit_code == 0 &&
	       !o.timed_out,
	   "a step that ends: exit 0");
	rewind(log);
	ok(fgets(buf, sizeof(buf), log) && !strcmp(buf, "hello from the step\n"),
	   "its output is in the log");
	ok(golden_sweep_launch(fail, fileno(log), 10000, &o) == 0 && o.exit_code == 1,
	   "a failing step: its exit status");
	ok(golden_sweep_launch(hang, fileno(log), 300, &o) == 0 && o.timed_out &&
	       o.exit_code == -1 && o.signal == 15,
	   "a hang (sleep 60): stopped at its deadline with SIGTERM");
	ok(golden_sweep_launch(none, fileno(log), 10000, &o) == 0 && o.exit_code == 127,
	   "a launcher that cannot be executed: 127");
	fclose(log);
}

int main(void)
{
	test_launch();
	test_counts();
	test_steps();
	test_argv();
	test_pairs();
	test_judge();
	test_rails_and_code();
	return done_testing();
}
