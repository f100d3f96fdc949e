/* golden sweep locate: pairwise 2-node tests over the nodes of a slow run
 * (paired, then re-paired) name the node that drags the rest down, and a
 * test per rail (NCCL_IB_HCA pinned to one HCA) against a good node names
 * its slow HCA where the data allows. --drain drains it through lib/node's
 * lifecycle, as every golden drain: golden's reason marker, the ledger,
 * flap damping, an owed drain when slurmctld is away, and never a node
 * someone else drained. */
#include <config.h>

#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "health/check_run.h"
#include "health/reason.h"
#include "node/lifecycle.h"
#include "node/node_main.h"
#include "sweep/locate.h"
#include "sweep/parse.h"
#include "sweep/report.h"
#include "sweep_cli.h"
#include "util/child.h"
#include "util/jsonschema.h"
#include "util/strutil.h"

#define PRINTENV_MS 60000

/* The check a sweep drain is recorded under (ledger, flap key, metrics). */
static const struct golden_check sweep_check = {"nccl-sweep", GOLDEN_CHK_FABRIC, NULL, 0,
                                                GOLDEN_PHASE_MANUAL};

struct locate {
	struct sweep_ctx c;
	struct sweep_analysis a;
	struct sweep_nodes nodes;
	const char *out;
	const char *config;
	const char *rails_opt; /* auto | none | LIST */
	double tolerance;
	double min_busbw;
	bool drain;
	int npairs;
	struct golden_locate_pair pairs[2 * GOLDEN_LOCATE_MAX_NODES];
	struct golden_locate_result res;
	/* per culprit */
	int nrails[GOLDEN_LOCATE_MAX_NODES];
	struct golden_locate_rail rails[GOLDEN_LOCATE_MAX_NODES][GOLDEN_LOCATE_MAX_RAILS];
	int worst_rail[GOLDEN_LOCATE_MAX_NODES];
	double rail_median[GOLDEN_LOCATE_MAX_NODES];
	int partner[GOLDEN_LOCATE_MAX_NODES];
	char reason[GOLDEN_LOCATE_MAX_NODES][GOLDEN_REASON_MAX];
	char drained[GOLDEN_LOCATE_MAX_NODES][160];
};

static void usage(void)
{
	printf("Usage: golden sweep locate --out DIR (--nodelist LIST | --from LOG) [options]\n\n"
	       "Pairwise 2-node tests over the nodes of a slow run (paired 1-2, 3-4, ...,\n"
	       "then re-paired 2-3, ..., last-1): a node slow with every partner while others\n"
	       "have a good pair is named; a test per rail (NCCL_IB_HCA==HCA) against a good\n"
	       "node names its slow HCA.\n\n"
	       "  --out DIR               where the pair logs go\n"
	       "  --nodelist LIST         the nodes (a Slurm host list)\n"
	       "  --from LOG              the nodes of the largest run golden sweep run logged\n"
	       "  --collective NAME       the test (default all_reduce)\n"
	       "  --min-bytes SIZE --max-bytes SIZE   (default 512M, 2G)\n"
	       "  --tolerance PCT         a pair is slow this far below the median pair (15)\n"
	       "  --min-busbw GBPS        ... or below this\n"
	       "  --rails auto|none|LIST  per-rail tests for a culprit (auto: the NCCL_IB_HCA the\n"
	       "                          golden environment sets on it)\n"
	       "  --drain                 drain the culprit with golden's reason (root only)\n"
	       "  --config FILE           golden.conf (state_dir, scontrol, nccl_tests_dir)\n"
	       "  --tests-dir DIR --launcher 'CMD' --gpus-per-node N --partition P\n"
	       "  --time-limit MIN --step-timeout SECS --test-args 'ARGS' --format text|json\n"
	       "\nExit status: 0 no slow node, 1 a slow node or pair found, 2 could not run.\n");
}

/* The nodes of the largest run in LOG that golden sweep run wrote. */
static int nodes_from_log(struct locate *l, const char *log)
{
	struct golden_sweep_set set = {0};
	struct golden_err err = {{0}};
	const struct golden_sweep_run *best = NULL;
	int rc = -1;

	if (golden_sweep_parse_file(log, &set, &err) < 0) {
		cli_error(l->c.cmd, "--from: %s", err.msg);
		return -1;
	}
	for (int i = 0; i < set.nruns; i++)
		if (set.runs[i].nodelist[0] && (!best || set.runs[i].nodes > best->nodes))
			best = &set.runs[i];
	if (!best)
		cli_error(l->c.cmd,
		          "--from %s: no run with golden's nodelist line; give --nodelist instead",
		          log);
	else
		rc = sweep_resolve_nodes(l->c.cmd, best->nodelist, NULL, &l->nodes);
	golden_sweep_set_free(&set);
	return rc;
}

/* Peak busbw of a finished 2-node log, -1 when it has no row. */
static double log_peak(const char *file)
{
	struct golden_sweep_set set = {0};
	struct golden_err err = {{0}};
	double best = -1;

	if (golden_sweep_parse_file(file, &set, &err) >= 0)
		for (int i = 0; i < set.nruns; i++)
			for (int pl = 0; pl < 2; pl++) {
				double p = golden_sweep_peak(&set.runs[i], pl, 0, 0, NULL);

				if (p > best)
					best = p;
			}
	golden_sweep_set_free(&set);
	return best;
}

static int run_pair(struct locate *l, int a, int b, const char *what_kind, const char *rail,
                    double *busbw)
{
	struct golden_sweep_step s = {0, l->a.infer.coll, 2, true};
	struct golden_sweep_outcome o;
	char *names[2] = {l->nodes.name[a], l->nodes.name[b]};
	char file[PATH_MAX], what[160], env[96];
	int rc;

	if (rail) {
		snprintf(file, sizeof(file), "%s/rail-%s-%s.log", l->out, names[0], rail);
		snprintf(what, sizeof(what), "%s=%s,%s rail=%s", what_kind, names[0], names[1],
		         rail);
		snprintf(env, sizeof(env), "NCCL_IB_HCA==%s", rail);
		l->c.launch.export_env = env;
	} else {
		snprintf(file, sizeof(file), "%s/pair-%s-%s.log", l->out, names[0], names[1]);
		snprintf(what, sizeof(what), "%s=%s,%s", what_kind, names[0], names[1]);
		l->c.launch.export_env = NULL;
	}
	rc = sweep_step(&l->c, &s, names, 2, file, what, &o);
	l->c.launch.export_env = NULL;
	*busbw = rc == 0 ? log_peak(file) : -1;
	return rc;
}

/* The HCAs golden's environment pins on NODE (NCCL_IB_HCA, "=mlx5_0,..."). */
static int auto_rails(struct locate *l, int node, struct golden_locate_rail *rails, int max)
{
	char srun[PATH_MAX], nl[96], out[4096], *w[32], wb[1024], *save = NULL;
	char *argv[] = {srun, "--nodes=1", "--ntasks=1",  nl,  "--golden-nccl",
	                "--", "printenv",  "NCCL_IB_HCA", NULL};
	int n = 0;

	if (golden_sweep_words(l->c.launch.launcher, w, 32, wb, sizeof(wb)) < 1 ||
	    golden_sweep_which(w[0], srun, sizeof(srun)) < 0)
		return 0;
	snprintf(nl, sizeof(nl), "--nodelist=%s", l->nodes.name[node]);
	if (golden_child_capture(argv, out, sizeof(out), PRINTENV_MS) != 0)
		return 0;
	golden_rtrim(out);
	{
		char *s = out;

		while (*s == '=' || *s == '^')
			s++;
		for (char *t = strtok_r(s, ",", &save); t && n < max;
		     t = strtok_r(NULL, ",", &save)) {
			char *colon = strchr(t, ':');

			if (colon)
				*colon = '\0';
			if (!golden_is_safe_name(t, 31))
				continue;
			golden_strlcpy(rails[n].name, t, sizeof(rails[n].name));
			rails[n++].busbw = -1;
		}
	}
	return n;
}

static int list_rails(const char *v, struct golden_locate_rail *rails, int max)
{
	char buf[1024], *save = NULL;
	int n = 0;

	golden_strlcpy(buf, v, sizeof(buf));
	for (char *t = strtok_r(buf, ",", &save); t && n < max; t = strtok_r(NULL, ",", &save)) {
		if (!golden_is_safe_name(t, 31))
			return -1;
		golden_strlcpy(rails[n].name, t, sizeof(rails[n].name));
		rails[n++].busbw = -1;
	}
	return n;
}

static int drain(struct locate *l, int i)
{
	struct golden_conf *conf = malloc(sizeof(*conf));
	struct golden_run_report *rep = calloc(1, sizeof(*rep));
	struct golden_lifecycle_result res;
	const char *node = l->nodes.name[i];
	char state[PATH_MAX], sysroot[PATH_MAX], metrics[PATH_MAX], code[GOLDEN_CODE_LEN];
	int w = l->worst_rail[i], rc = -1;
	double ratio = l->res.reference > 0 ? l->res.node[i].worst / l->res.reference : 0;

	if (!conf || !rep ||
	    golden_node_load_conf("golden sweep locate", l->config, node, conf, NULL) < 0 ||
	    golden_node_expand("golden sweep locate", "state_dir", conf->state_dir, node, state,
	                       sizeof(state)) ||
	    golden_node_expand("golden sweep locate", "sysroot", conf->sysroot, node, sysroot,
	                       sizeof(sysroot)) ||
	    golden_node_expand("golden sweep locate", "metrics_dir", conf->metrics_dir, node,
	                       metrics, sizeof(metrics)))
		goto out;
	if (w >= 0 && l->rail_median[i] > 0)
		ratio = l->rails[i][w].busbw / l->rail_median[i];
	golden_locate_code(w >= 0 ? l->rails[i][w].name : NULL, ratio, code, sizeof(code));
	rep->n = 1;
	rep->worst = 0;
	rep->out[0].chk = &sweep_check;
	golden_check_fail(&rep->out[0].res, GOLDEN_ACTION_DRAIN, code,
	                  "golden sweep locate: %s is slow in %d of %d pairs (worst %.1f GB/s, "
	                  "median pair %.1f GB/s)%s%s%s; logs in %s",
	                  node, l->res.node[i].slow, l->res.node[i].pairs, l->res.node[i].worst,
	                  l->res.reference, w >= 0 ? "; rail " : "",
	                  w >= 0 ? l->rails[i][w].name : "", w >= 0 ? " is the slow one" : "",
	                  l->out);
	{
		struct golden_lifecycle lc = {conf, node,    state,   sysroot[0] ? sysroot : NULL,
		                              NULL, "sweep", metrics, NULL,
		                              0};

		if (golden_lifecycle_after_run(&lc, rep, false, &res) < 0)
			fprintf(stderr, "golden sweep locate: cannot update the ledger in %s\n",
			        state);
	}
	golden_strlcpy(l->reason[i], res.reason, sizeof(l->reason[i]));
	snprintf(l->drained[i], sizeof(l->drained[i]), "%s",
	         res.drain[0] ? res.drain : "nothing done");
	rc = 0;
out:
	free(conf);
	free(rep);
	return rc;
}

static void print_text(struct locate *l)
{
	printf("golden sweep locate: %d node%s, %d pair%s; median pair busbw %.1f GB/s, slow "
	       "below %.1f GB/s\n",
	       l->nodes.n, l->nodes.n == 1 ? "" : "s", l->npairs, l->npairs == 1 ? "" : "s",
	       l->res.reference, l->res.threshold);
	for (int i = 0; i < l->npairs; i++) {
		const struct golden_locate_pair *p = &l->pairs[i];

		if (p->busbw < 0)
			printf("  pair %-12s %-12s  failed (no row in its log)\n",
			       l->nodes.name[p->a], l->nodes.name[p->b]);
		else
			printf("  pair %-12s %-12s  %8.1f GB/s%s\n", l->nodes.name[p->a],
			       l->nodes.name[p->b], p->busbw, p->slow ? "  SLOW" : "");
	}
	for (int i = 0; i < l->res.nnodes; i++) {
		const struct golden_locate_node *n = &l->res.node[i];
		int w = l->worst_rail[i];

		if (!n->culprit)
			continue;
		printf("culprit: %s: slow with every partner (%d of %d pairs, worst %.1f GB/s = "
		       "%.0f%% of the median pair)\n",
		       l->nodes.name[i], n->slow, n->pairs, n->worst,
		       l->res.reference > 0 ? 100 * n->worst / l->res.reference : 0);
		for (int r = 0; r < l->nrails[i]; r++)
			printf("  rail %-10s %8.1f GB/s%s (against %s)\n", l->rails[i][r].name,
			       l->rails[i][r].busbw, l->rails[i][r].slow ? "  SLOW" : "",
			       l->nodes.name[l->partner[i]]);
		if (w >= 0)
			printf("  the slow rail: %s (%.1f GB/s, median of the rails %.1f GB/s)\n",
			       l->rails[i][w].name, l->rails[i][w].busbw, l->rail_median[i]);
		else if (l->nrails[i])
			printf("  no rail stands out: the node as a whole is slow\n");
		if (l->drained[i][0])
			printf("  drain: %s: %s\n", l->reason[i], l->drained[i]);
	}
	if (l->res.all_slow)
		printf("verdict: every pair is slow: the fabric or every node, not one node\n");
	else if (l->res.nculprits)
		printf("verdict: %d slow node%s\n", l->res.nculprits,
		       l->res.nculprits == 1 ? "" : "s");
	else if (l->res.nslow_pairs)
		printf(
		    "verdict: %d slow pair%s but no node slow with every partner (a link between "
		    "them, or too few nodes to tell)\n",
		    l->res.nslow_pairs, l->res.nslow_pairs == 1 ? "" : "s");
	else
		printf("verdict: ok: no slow pair\n");
}

static void print_json(struct locate *l)
{
	struct json_object *o = json_object_new_object(), *ps = json_object_new_array(),
	                   *ns = json_object_new_array();

	golden_json_stamp(o, "golden-sweep-locate");
	for (int i = 0; i < l->npairs; i++) {
		struct json_object *p = json_object_new_object();

		json_object_object_add(p, "a",
		                       json_object_new_string(l->nodes.name[l->pairs[i].a]));
		json_object_object_add(p, "b",
		                       json_object_new_string(l->nodes.name[l->pairs[i].b]));
		json_object_object_add(
		    p, "busbw",
		    l->pairs[i].busbw < 0 ? NULL : json_object_new_double(l->pairs[i].busbw));
		json_object_object_add(p, "slow", json_object_new_boolean(l->pairs[i].slow));
		json_object_array_add(ps, p);
	}
	for (int i = 0; i < l->res.nnodes; i++) {
		struct json_object *n = json_object_new_object(), *rs = json_object_new_array();
		int w = l->worst_rail[i];

		json_object_object_add(n, "node", json_object_new_string(l->nodes.name[i]));
		json_object_object_add(n, "pairs", json_object_new_int(l->res.node[i].pairs));
		json_object_object_add(n, "slow_pairs", json_object_new_int(l->res.node[i].slow));
		json_object_object_add(n, "worst_busbw",
		                       json_object_new_double(l->res.node[i].worst));
		json_object_object_add(n, "culprit",
		                       json_object_new_boolean(l->res.node[i].culprit));
		for (int r = 0; r < l->nrails[i]; r++) {
			struct json_object *j = json_object_new_object();

			json_object_object_add(j, "rail",
			                       json_object_new_string(l->rails[i][r].name));
			json_object_object_add(j, "busbw",
			                       json_object_new_double(l->rails[i][r].busbw));
			json_object_object_add(j, "slow",
			                       json_object_new_boolean(l->rails[i][r].slow));
			json_object_array_add(rs, j);
		}
		json_object_object_add(n, "rails", rs);
		if (w >= 0)
			json_object_object_add(n, "slow_rail",
			                       json_object_new_string(l->rails[i][w].name));
		if (l->reason[i][0])
			json_object_object_add(n, "drain_reason",
			                       json_object_new_string(l->reason[i]));
		if (l->drained[i][0])
			json_object_object_add(n, "drain", json_object_new_string(l->drained[i]));
		json_object_array_add(ns, n);
	}
	json_object_object_add(o, "pairs", ps);
	json_object_object_add(o, "nodes", ns);
	json_object_object_add(o, "median_busbw", json_object_new_double(l->res.reference));
	json_object_object_add(o, "slow_below", json_object_new_double(l->res.threshold));
	json_object_object_add(o, "culprits", json_object_new_int(l->res.nculprits));
	json_object_object_add(o, "all_slow", json_object_new_boolean(l->res.all_slow));
	printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY));
	json_object_put(o);
}

int cmd_sweep_locate(int argc, char **argv)
{
	struct locate *l = calloc(1, sizeof(*l));
	const char *nodelist = NULL, *from = NULL, *tests = NULL;
	int rc = 2;

	if (!l)
		return 2;
	sweep_analysis_init(&l->a);
	sweep_ctx_init(&l->c, "sweep locate");
	l->a.infer.coll = GOLDEN_COLL_ALL_REDUCE;
	l->c.launch.min_bytes = 512LL << 20;
	l->c.launch.max_bytes = 2LL << 30;
	l->c.launch.job_name = "golden-locate";
	l->tolerance = 0.15;
	l->rails_opt = "auto";
	for (int i = 1; i < argc; i++) {
		char name[64];
		const char *v;
		int r;

		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage();
			free(l);
			return 0;
		}
		if (!strcmp(argv[i], "--drain")) {
			l->drain = true;
			continue;
		}
		if (strncmp(argv[i], "--", 2)) {
			cli_error(l->c.cmd, "unexpected argument '%s'", argv[i]);
			goto out;
		}
		v = sweep_opt_value(argc, argv, &i, name, sizeof(name));
		if (!v) {
			cli_error(l->c.cmd, "--%s needs a value", name);
			goto out;
		}
		if (!strcmp(name, "out"))
			l->out = v;
		else if (!strcmp(name, "nodelist"))
			nodelist = v;
		else if (!strcmp(name, "from"))
			from = v;
		else if (!strcmp(name, "tests-dir"))
			tests = v;
		else if (!strcmp(name, "config"))
			l->config = v;
		else if (!strcmp(name, "rails"))
			l->rails_opt = v;
		else if (!strcmp(name, "tolerance")) {
			int pct;

			if (cli_int(l->c.cmd, name, v, 1, 90, NULL, &pct) < 0)
				goto out;
			l->tolerance = pct / 100.0;
		} else if (!strcmp(name, "min-busbw")) {
			char *end;

			l->min_busbw = strtod(v, &end);
			if (end == v || *end || l->min_busbw < 0) {
				cli_error(l->c.cmd, "--min-busbw %s: expected GB/s", v);
				goto out;
			}
		} else if (!strcmp(name, "collective") || !strcmp(name, "format")) {
			if (sweep_analysis_option(&l->a, l->c.cmd, name, v) < 0)
				goto out;
		} else if ((r = sweep_launch_option(&l->c, &l->a, name, v)) != 0) {
			if (r < 0)
				goto out;
		} else {
			cli_error(l->c.cmd,
			          "unknown option '--%s' (see 'golden sweep locate --help')", name);
			goto out;
		}
	}
	if (l->drain && geteuid() != 0) {
		cli_error(l->c.cmd, "--drain needs root (it drains through scontrol and writes the "
		                    "lifecycle ledger); run without it to only name the node");
		goto out;
	}
	if (!l->out || (!nodelist == !from)) {
		cli_error(l->c.cmd, "give --out DIR and one of --nodelist LIST or --from LOG");
		goto out;
	}
	if (sweep_tests_dir(&l->c, tests, l->config) < 0 || sweep_prepare_out(l->c.cmd, l->out) < 0)
		goto out;
	if (from ? nodes_from_log(l, from) < 0
	         : sweep_resolve_nodes(l->c.cmd, nodelist, l->c.launch.partition, &l->nodes) < 0)
		goto out;
	if (l->nodes.n < 2 || l->nodes.n > GOLDEN_LOCATE_MAX_NODES) {
		cli_error(l->c.cmd, "%d nodes: expected 2-%d (3 or more to tell which one is slow)",
		          l->nodes.n, GOLDEN_LOCATE_MAX_NODES);
		goto out;
	}
	for (int round = 0; round < 2; round++)
		l->npairs += golden_locate_pairs(l->nodes.n, round, l->pairs + l->npairs,
		                                 2 * GOLDEN_LOCATE_MAX_NODES - l->npairs);
	l->c.total = l->npairs;
	sweep_ctx_ready(&l->c);
	for (int i = 0; i < l->npairs; i++)
		run_pair(l, l->pairs[i].a, l->pairs[i].b, "pair", NULL, &l->pairs[i].busbw);
	golden_locate_judge(l->pairs, l->npairs, l->nodes.n, l->tolerance, l->min_busbw, &l->res);
	for (int i = 0; i < l->res.nnodes; i++) {
		l->worst_rail[i] = -1;
		if (!l->res.node[i].culprit || !strcmp(l->rails_opt, "none"))
			continue;
		for (int k = 0; k < l->res.nnodes; k++)
			if (!l->res.node[k].culprit && l->res.node[k].slow < l->res.node[k].pairs) {
				l->partner[i] = k;
				break;
			}
		l->nrails[i] = !strcmp(l->rails_opt, "auto")
		                   ? auto_rails(l, i, l->rails[i], GOLDEN_LOCATE_MAX_RAILS)
		                   : list_rails(l->rails_opt, l->rails[i], GOLDEN_LOCATE_MAX_RAILS);
		if (l->nrails[i] < 0) {
			cli_error(l->c.cmd, "--rails %s: expected auto, none or HCA names",
			          l->rails_opt);
			goto out;
		}
		l->c.total += l->nrails[i];
		for (int r = 0; r < l->nrails[i]; r++)
			run_pair(l, i, l->partner[i], "rail-of", l->rails[i][r].name,
			         &l->rails[i][r].busbw);
		if (l->nrails[i] > 1)
			l->worst_rail[i] = golden_locate_rails(l->rails[i], l->nrails[i],
			                                       l->tolerance, &l->rail_median[i]);
	}
	for (int i = 0; l->drain && i < l->res.nnodes; i++)
		if (l->res.node[i].culprit && drain(l, i) < 0)
			fprintf(stderr, "golden %s: %s not drained (see above)\n", l->c.cmd,
			        l->nodes.name[i]);
	if (!strcmp(l->a.format, "json"))
		print_json(l);
	else
		print_text(l);
	rc = l->res.nculprits || l->res.nslow_pairs ? 1 : 0;
out:
	sweep_nodes_free(&l->nodes);
	free(l);
	return rc;
}
