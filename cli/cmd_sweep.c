/* golden sweep: prove the golden environment with NCCL sweeps.
 *
 *   golden sweep analyse FILE...   judge nccl-tests logs, draw the curve
 *   golden sweep run ...           run the sweep through Slurm (cmd_sweep_run.c)
 *   golden sweep locate ...        pairwise tests that name the slow node (cmd_sweep_locate.c)
 */
#include <config.h>

#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "env/recipe.h"
#include "sweep/parse.h"
#include "sweep/plot.h"
#include "sweep/report.h"
#include "sweep_cli.h"
#include "topo/topo.h"
#include "util/strutil.h"

#ifndef GOLDEN_RECIPEDIR
#define GOLDEN_RECIPEDIR "/usr/local/share/slurm-golden/recipes"
#endif

const char sweep_analysis_usage[] =
    "Analysis options (analyse, run, locate):\n"
    "  --format text|json      report for people (default) or one JSON object\n"
    "  --plot FILE.svg|.png    draw busbw against message size with gnuplot (repeatable)\n"
    "  --title TEXT            the plot's title (default: collective, platform, versions)\n"
    "  --expect RECIPE|FILE|auto  judge peak busbw against a recipe's expect section;\n"
    "                          auto: the recipe golden selects for this node's topology\n"
    "  --recipes DIR --topology FILE --sysroot DIR   where --expect looks\n"
    "  --collective NAME       when the log does not say (all_reduce, alltoall, ...)\n"
    "  --gpus-per-node N       nodes = ranks / N when the log does not list hosts\n"
    "  --nodes N               node count of every run whose log does not say\n"
    "  --dip-threshold PCT     a dip is this far below the best smaller size (10)\n"
    "  --noise-floor GBPS      sizes whose best busbw so far is below are not judged (1)\n"
    "  --scaling-tolerance PCT beyond what the collective's algorithm explains (10)\n"
    "  --ab-tolerance PCT      golden this far below NCCL's defaults is slower (10)\n"
    "  --large-size SIZE       large-message busbw is taken from here on (1G)\n";

static void sweep_usage(FILE *out)
{
	fprintf(out,
	        "Usage: golden sweep analyse FILE... [options]\n"
	        "       golden sweep run [--nodes N|all-idle] [--compare-default] --out DIR ...\n"
	        "       golden sweep locate --nodelist LIST | --from LOG [--drain] ...\n"
	        "\n"
	        "Judge nccl-tests sweeps: per-size dips, #wrong, missing sizes, peak busbw below\n"
	        "the platform's figure, node-count scaling, the golden environment against\n"
	        "NCCL's defaults; draw the curve; find the node that drags a run down.\n"
	        "Run 'golden sweep run --help' and 'golden sweep locate --help' for theirs.\n"
	        "\n%s"
	        "\nExit status: 0 no findings, 1 findings, 2 could not analyse (or usage error).\n",
	        sweep_analysis_usage);
}

void sweep_analysis_init(struct sweep_analysis *a)
{
	memset(a, 0, sizeof(*a));
	a->format = "text";
	a->recipes = getenv("GOLDEN_RECIPES");
	if (!a->recipes || !*a->recipes)
		a->recipes = GOLDEN_RECIPEDIR;
	a->topology = getenv("GOLDEN_TOPOLOGY");
	a->sysroot = getenv("GOLDEN_SYSROOT");
	golden_sweep_opts_init(&a->opts);
}

/* "10", "10%" or "0.1" -> 0.10 */
static int fraction(const char *v, double *out)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(v, &end);
	if (end == v || errno || d < 0)
		return -1;
	if (*end == '%')
		end++;
	if (*end)
		return -1;
	if (d >= 1 || end[-1] == '%')
		d /= 100;
	if (d >= 1)
		return -1;
	*out = d;
	return 0;
}

int sweep_analysis_option(struct sweep_analysis *a, const char *cmd, const char *name,
                          const char *v)
{
	if (!strcmp(name, "format")) {
		if (strcmp(v, "text") && strcmp(v, "json")) {
			cli_error(cmd, "--format %s: expected text or json", v);
			return -1;
		}
		a->format = v;
	} else if (!strcmp(name, "plot")) {
		if (a->nplots == SWEEP_MAX_PLOTS) {
			cli_error(cmd, "--plot: at most %d plots", SWEEP_MAX_PLOTS);
			return -1;
		}
		if (golden_sweep_plot_format(v) == GOLDEN_PLOT_NONE) {
			cli_error(cmd, "--plot %s: expected a file name ending in .svg or .png", v);
			return -1;
		}
		a->plots[a->nplots++] = v;
	} else if (!strcmp(name, "title")) {
		a->title = v;
	} else if (!strcmp(name, "expect")) {
		a->expect = v;
	} else if (!strcmp(name, "recipes")) {
		a->recipes = v;
	} else if (!strcmp(name, "topology")) {
		a->topology = v;
	} else if (!strcmp(name, "sysroot")) {
		a->sysroot = v;
	} else if (!strcmp(name, "collective")) {
		a->infer.coll = golden_sweep_coll_parse(v);
		if (a->infer.coll == GOLDEN_COLL_UNKNOWN) {
			cli_error(
			    cmd,
			    "--collective %s: expected all_reduce, all_gather, reduce_scatter, "
			    "alltoall, broadcast, reduce, sendrecv, gather, scatter or hypercube",
			    v);
			return -1;
		}
	} else if (!strcmp(name, "gpus-per-node")) {
		if (golden_parse_int(v, 1, 1024, &a->infer.gpus_per_node) < 0) {
			cli_error(cmd, "--gpus-per-node %s: expected 1-1024", v);
			return -1;
		}
	} else if (!strcmp(name, "dip-threshold") || !strcmp(name, "scaling-tolerance") ||
	           !strcmp(name, "ab-tolerance")) {
		double *d = !strcmp(name, "dip-threshold")       ? &a->opts.dip_threshold
		            : !strcmp(name, "scaling-tolerance") ? &a->opts.scaling_tolerance
		                                                 : &a->opts.ab_tolerance;

		if (fraction(v, d) < 0 || *d <= 0) {
			cli_error(cmd, "--%s %s: expected a percentage such as 10 or 10%%", name,
			          v);
			return -1;
		}
	} else if (!strcmp(name, "noise-floor")) {
		char *end;

		errno = 0;
		a->opts.noise_floor = strtod(v, &end);
		if (end == v || *end || errno || a->opts.noise_floor < 0) {
			cli_error(cmd, "--noise-floor %s: expected GB/s, a number >= 0", v);
			return -1;
		}
	} else if (!strcmp(name, "large-size")) {
		if (golden_sweep_size_parse(v, &a->opts.large_size) < 0 || a->opts.large_size < 1) {
			cli_error(cmd, "--large-size %s: expected a message size such as 1G", v);
			return -1;
		}
	} else {
		return 0;
	}
	return 1;
}

/* ------------------------------------------------------------ expect */

static void copy_expect(struct sweep_analysis *a, const struct golden_recipe *r)
{
	struct golden_sweep_expect *x = &a->expectations;

	memset(x, 0, sizeof(*x));
	golden_strlcpy(x->recipe, r->name, sizeof(x->recipe));
	for (int i = 0; i < r->nexpect && x->n < GOLDEN_SWEEP_MAX_EXPECT; i++) {
		struct golden_sweep_expect_entry *e = &x->e[x->n];

		e->coll = golden_sweep_coll_parse(r->expect[i].collective);
		if (e->coll == GOLDEN_COLL_UNKNOWN)
			continue;
		e->nodes_min = r->expect[i].nodes.min;
		e->nodes_max = r->expect[i].nodes.max;
		e->min_busbw = r->expect[i].min_busbw;
		e->min_size = r->expect[i].size;
		golden_strlcpy(e->source, r->expect[i].source, sizeof(e->source));
		x->n++;
	}
}

int sweep_load_expect(struct sweep_analysis *a, const char *cmd)
{
	struct golden_load_opts lopts = {geteuid() == 0, cli_diag, (void *)"sweep"};
	struct golden_recipe_set set = {0, NULL};
	struct golden_err err = {{0}};
	const struct golden_recipe *r = NULL;
	struct golden_recipe one;
	int rc = -1;

	if (!a->expect)
		return 0;
	if (strchr(a->expect, '/') || strstr(a->expect, ".json")) {
		if (golden_recipe_load_file(a->expect, &lopts, &one, &err) < 0) {
			cli_error(cmd, "--expect: %s", err.msg);
			return -1;
		}
		copy_expect(a, &one);
		golden_recipe_free(&one);
		rc = 0;
		goto check;
	}
	if (golden_recipes_load_dir(a->recipes, &lopts, &set, &err) < 0) {
		cli_error(cmd, "--expect: %s", err.msg);
		return -1;
	}
	if (!strcmp(a->expect, "auto")) {
		struct golden_topo *topo = malloc(sizeof(*topo));
		struct golden_topo_opts topts = {.topology_xml = a->topology,
		                                 .sysroot = a->sysroot};
		struct golden_decision dec;

		golden_decision_init(&dec);
		if (!topo || golden_topo_discover(&topts, topo, &err) < 0) {
			cli_error(cmd, "--expect auto: topology discovery failed: %s",
			          topo ? err.msg : "out of memory");
		} else if (!(r = golden_recipe_select(&set, topo, &dec, &err))) {
			cli_error(cmd, "--expect auto: no recipe matches this node: %s", err.msg);
		}
		golden_decision_free(&dec);
		free(topo);
	} else if (!(r = golden_recipe_find(&set, a->expect))) {
		cli_error(cmd, "--expect %s: no recipe of that name in %s (golden recipe list)",
		          a->expect, a->recipes);
	}
	if (r) {
		copy_expect(a, r);
		rc = 0;
	}
	golden_recipe_set_free(&set);
check:
	if (rc == 0 && !a->expectations.n)
		fprintf(
		    stderr,
		    "golden %s: note: recipe %s has no expect section: peak busbw is not judged "
		    "(figures ship only where a public source exists)\n",
		    cmd, a->expectations.recipe);
	return rc;
}

/* ------------------------------------------------------------ report */

int sweep_report(struct sweep_analysis *a, struct golden_sweep_set *set, const char *cmd,
                 const char *report_dir)
{
	struct golden_sweep_result res = {0};
	const struct golden_sweep_expect *x = a->expect ? &a->expectations : NULL;
	int rc;

	golden_sweep_infer_all(set, &a->infer);
	a->opts.expect = x;
	if (golden_sweep_detect(set, &a->opts, &res) < 0) {
		cli_error(cmd, "out of memory");
		return 2;
	}
	rc = golden_sweep_verdict(&res);
	if (!strcmp(a->format, "json")) {
		struct json_object *j = golden_sweep_report_json(set, &res, x);

		if (!j) {
			cli_error(cmd, "out of memory");
			rc = 2;
		} else {
			printf("%s\n",
			       json_object_to_json_string_ext(
			           j, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
			json_object_put(j);
		}
	} else {
		golden_sweep_report_text(stdout, set, &res, x);
	}
	fflush(stdout);
	if (report_dir) {
		char path[PATH_MAX];
		FILE *f;

		snprintf(path, sizeof(path), "%s/report.txt", report_dir);
		if ((f = fopen(path, "w"))) {
			golden_sweep_report_text(f, set, &res, x);
			fclose(f);
		}
		snprintf(path, sizeof(path), "%s/report.json", report_dir);
		if ((f = fopen(path, "w"))) {
			struct json_object *j = golden_sweep_report_json(set, &res, x);

			if (j)
				fprintf(f, "%s\n",
				        json_object_to_json_string_ext(
				            j, JSON_C_TO_STRING_PRETTY |
				                   JSON_C_TO_STRING_NOSLASHESCAPE));
			json_object_put(j);
			fclose(f);
		}
	}
	for (int i = 0; i < a->nplots; i++) {
		struct golden_sweep_plot_opts po = {a->title, x, NULL};
		struct golden_err err = {{0}};

		if (golden_sweep_plot(set, &res, a->plots[i], &po, &err) < 0)
			fprintf(stderr, "golden %s: cannot draw %s: %s\n", cmd, a->plots[i],
			        err.msg);
		else
			fprintf(stderr, "golden %s: drew %s\n", cmd, a->plots[i]);
	}
	golden_sweep_result_free(&res);
	return rc;
}

/* ----------------------------------------------------------- analyse */

/* The files that hold nothing a run could be judged on: no row, no
 * failure line. Each is named; returns how many. */
static int unreadable_files(const struct golden_sweep_set *set)
{
	int bad = 0;

	for (int f = 0; f < set->nfiles; f++) {
		int rows = 0, failed = 0, cut = 0, frag = 0;

		for (int i = 0; i < set->nruns; i++) {
			const struct golden_sweep_run *r = &set->runs[i];

			if (r->file != f)
				continue;
			rows += r->nrows;
			failed += r->nfailures + r->timeout;
			cut += r->ntruncated;
			frag += r->nfragments;
		}
		if (rows || failed)
			continue;
		bad++;
		fprintf(stderr,
		        "golden sweep: %s: no nccl-tests row could be read (%d row%s cut short, %d "
		        "fragment%s); expected the output of an nccl-tests binary such as "
		        "all_reduce_perf\n",
		        set->files[f], cut, cut == 1 ? "" : "s", frag, frag == 1 ? "" : "s");
	}
	return bad;
}

static void analyse_usage(void)
{
	printf("Usage: golden sweep analyse FILE... [options]\n\n"
	       "Judge nccl-tests output (every format generation, -J JSON, logs from\n"
	       "srun -l / Open MPI / NCCL_DEBUG=INFO) and print the findings, worst first.\n\n%s"
	       "\nExit status: 0 no findings, 1 findings, 2 could not analyse.\n",
	       sweep_analysis_usage);
}

int cmd_sweep_analyse(int argc, char **argv)
{
	struct sweep_analysis a;
	struct golden_sweep_set set = {0};
	const char **files = calloc((size_t)argc, sizeof(*files));
	int nfiles = 0, rc = 2;

	sweep_analysis_init(&a);
	if (!files)
		return 2;
	for (int i = 1; i < argc; i++) {
		char name[64];
		const char *v;
		int r;

		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			analyse_usage();
			free(files);
			return 0;
		}
		if (strncmp(argv[i], "--", 2) || !argv[i][2]) {
			if (!strcmp(argv[i], "--"))
				continue;
			files[nfiles++] = argv[i];
			continue;
		}
		v = sweep_opt_value(argc, argv, &i, name, sizeof(name));
		if (!v) {
			cli_error("sweep", "--%s needs a value (see 'golden sweep analyse --help')",
			          name);
			goto out;
		}
		if (!strcmp(name, "nodes")) {
			if (golden_parse_int(v, 1, 100000, &a.infer.nodes) < 0) {
				cli_error("sweep", "--nodes %s: expected a node count", v);
				goto out;
			}
			continue;
		}
		r = sweep_analysis_option(&a, "sweep", name, v);
		if (r < 0)
			goto out;
		if (r == 0) {
			cli_error("sweep",
			          "unknown option '--%s' (see 'golden sweep analyse --help')",
			          name);
			goto out;
		}
	}
	if (!nfiles) {
		cli_error("sweep", "analyse needs at least one nccl-tests log");
		goto out;
	}
	if (sweep_load_expect(&a, "sweep") < 0)
		goto out;
	for (int i = 0; i < nfiles; i++) {
		struct golden_err err = {{0}};

		if (golden_sweep_parse_file(files[i], &set, &err) < 0) {
			fprintf(stderr, "golden sweep: %s\n", err.msg);
			goto out;
		}
	}
	if (unreadable_files(&set)) {
		rc = 2;
		goto out;
	}
	rc = sweep_report(&a, &set, "sweep", NULL);
out:
	golden_sweep_set_free(&set);
	free(files);
	return rc;
}

int cmd_sweep(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		sweep_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "analyse") || !strcmp(argv[1], "analyze"))
		return cmd_sweep_analyse(argc - 1, argv + 1);
	if (!strcmp(argv[1], "run"))
		return cmd_sweep_run(argc - 1, argv + 1);
	if (!strcmp(argv[1], "locate"))
		return cmd_sweep_locate(argc - 1, argv + 1);
	cli_error("sweep", "unknown subcommand '%s'; expected analyse, run or locate", argv[1]);
	return 2;
}
