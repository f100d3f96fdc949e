/* golden recipe lint|list|explain */
#include <config.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "env/recipe.h"
#include "topo/topo.h"

static void recipe_usage(void)
{
	printf("Usage: golden recipe lint [PATH...]\n"
	       "       golden recipe list [--topology FILE] [--sysroot DIR] [--recipes DIR]\n"
	       "       golden recipe explain NAME [--topology FILE] [--sysroot DIR] [--recipes "
	       "DIR]\n"
	       "\n"
	       "lint     check recipe files or directories (default: the recipe directory):\n"
	       "         JSON shape, known variables and values, known topology facts, name =\n"
	       "         file name, and no two recipes that tie on the same node.\n"
	       "list     every recipe, whether it matches this node, and why not.\n"
	       "explain  a recipe's variables, their values on this node, why, and its source.\n");
}

struct lint_ctx {
	int problems;
};

static void lint_diag(void *arg, const char *msg)
{
	struct lint_ctx *ctx = arg;

	ctx->problems++;
	printf("%s\n", msg);
}

static int do_lint(int argc, char **argv, int first, const struct cli_opts *o)
{
	struct golden_recipe_set set = {0, NULL};
	struct lint_ctx ctx = {0};
	struct golden_load_opts lopts = {false, lint_diag, &ctx};
	/* Declared here, not in the if below: paths points into it after the if. */
	// cppcheck-suppress variableScope
	const char *dflt[] = {o->recipes};
	int npaths = argc - first;
	char **paths = argv + first;

	if (npaths == 0) {
		paths = (char **)dflt;
		npaths = 1;
	}
	for (int i = 0; i < npaths; i++) {
		struct golden_err err = {{0}};
		struct stat st;

		if (stat(paths[i], &st) < 0) {
			printf("%s: cannot read: no such file or directory\n", paths[i]);
			ctx.problems++;
		} else if (S_ISDIR(st.st_mode)) {
			if (golden_recipes_load_dir(paths[i], &lopts, &set, &err) < 0) {
				printf("%s\n", err.msg);
				ctx.problems++;
			}
		} else {
			struct golden_recipe *r = calloc(1, sizeof(*r));

			if (!r || golden_recipe_load_file(paths[i], &lopts, r, &err) < 0) {
				printf("%s\n", r ? err.msg : "out of memory");
				ctx.problems++;
				free(r);
			} else if (golden_recipe_set_add(&set, r, &err) < 0) {
				printf("%s\n", err.msg);
				ctx.problems++;
			}
		}
	}
	golden_recipes_lint(&set, lint_diag, &ctx);
	printf("golden recipe lint: %d recipe%s, %d problem%s\n", set.n, set.n == 1 ? "" : "s",
	       ctx.problems, ctx.problems == 1 ? "" : "s");
	golden_recipe_set_free(&set);
	return ctx.problems ? 1 : 0;
}

static int load_for_node(const struct cli_opts *o, struct golden_recipe_set *set,
                         struct golden_topo *topo)
{
	struct golden_topo_opts topts = {.topology_xml = o->topology, .sysroot = o->sysroot};
	struct golden_load_opts lopts = {geteuid() == 0, cli_diag, "recipe"};
	struct golden_err err = {{0}};

	if (golden_recipes_load_dir(o->recipes, &lopts, set, &err) < 0) {
		cli_error("recipe", "%s", err.msg);
		return -1;
	}
	if (golden_topo_discover(&topts, topo, &err) < 0) {
		cli_error("recipe", "topology discovery failed: %s", err.msg);
		return -1;
	}
	return 0;
}

static int do_list(const struct cli_opts *o)
{
	struct golden_recipe_set set = {0, NULL};
	struct golden_topo *topo = malloc(sizeof(*topo));
	int rc = 1;

	if (topo && load_for_node(o, &set, topo) == 0) {
		printf("%-28s %-4s %-8s %s\n", "RECIPE", "SPEC", "MATCHES",
		       "WHY NOT / DESCRIPTION");
		for (int i = 0; i < set.n; i++) {
			const struct golden_recipe *r = &set.recipes[i];
			char why[512] = "";
			bool m = golden_recipe_matches(r, topo, why, sizeof(why));

			printf("%-28s %-4d %-8s %s\n", r->name, r->specificity, m ? "yes" : "no",
			       m ? r->description : why);
		}
		rc = 0;
	}
	golden_recipe_set_free(&set);
	free(topo);
	return rc;
}

static int do_explain(const struct cli_opts *o, const char *name)
{
	struct golden_recipe_set set = {0, NULL};
	struct golden_topo *topo = malloc(sizeof(*topo));
	const struct golden_recipe *r;
	int rc = 1;

	if (!topo || load_for_node(o, &set, topo) < 0)
		goto out;
	r = golden_recipe_find(&set, name);
	if (!r) {
		cli_error("recipe", "no recipe named '%s' in %s", name, o->recipes);
		goto out;
	} else {
		struct golden_decision res;
		struct golden_err err = {{0}};
		char why[512] = "";
		bool m = golden_recipe_matches(r, topo, why, sizeof(why));

		printf("recipe: %s\ndescription: %s\nsource: %s\nfile: %s\nspecificity: %d\n"
		       "matches this node: %s%s%s\n\n",
		       r->name, r->description, r->source, r->path, r->specificity,
		       m ? "yes" : "no", m ? "" : " - ", m ? "" : why);
		golden_decision_init(&res);
		if (golden_recipe_render(r, topo, &res, &err) < 0)
			printf("cannot render on this node: %s\n\n", err.msg);
		printf("variables:\n");
		for (int i = 0; i < r->nvars; i++) {
			const struct golden_decision_var *v =
			    golden_decision_getvar(&res, r->vars[i].name);

			printf(
			    "  %s\n      template: %s%s\n      here:     %s\n      why:      %s\n",
			    r->vars[i].name, r->vars[i].value,
			    r->vars[i].optional ? " (optional)" : "",
			    v ? v->value : "(not set on this node)", r->vars[i].why);
		}
		if (r->nexpect)
			printf("\nexpect (golden sweep analyse --expect):\n");
		for (int i = 0; i < r->nexpect; i++) {
			const struct golden_recipe_expect *x = &r->expect[i];
			char nodes[32];

			if (x->nodes.max == x->nodes.min)
				snprintf(nodes, sizeof(nodes), "%d", x->nodes.min);
			else if (x->nodes.max == INT_MAX)
				snprintf(nodes, sizeof(nodes), "%d+", x->nodes.min);
			else
				snprintf(nodes, sizeof(nodes), "%d-%d", x->nodes.min, x->nodes.max);
			printf("  %s on %s node(s): busbw >= %g GB/s from %lld MiB on\n"
			       "      source:   %s\n      why:      %s\n",
			       x->collective, nodes, x->min_busbw, x->size >> 20, x->source,
			       x->why);
		}
		golden_decision_free(&res);
		rc = 0;
	}
out:
	golden_recipe_set_free(&set);
	free(topo);
	return rc;
}

int cmd_recipe(int argc, char **argv)
{
	struct cli_opts o;
	const char *sub;
	int first;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		recipe_usage();
		return argc < 2 ? 2 : 0;
	}
	sub = argv[1];
	first =
	    cli_parse(argc - 1, argv + 1, "recipe", "topology sysroot recipes", &o, recipe_usage);
	if (first < 0)
		return 2;
	first += 1; /* index into argv */
	if (!strcmp(sub, "lint"))
		return do_lint(argc, argv, first, &o);
	if (!strcmp(sub, "list"))
		return do_list(&o);
	if (!strcmp(sub, "explain")) {
		if (first >= argc) {
			cli_error("recipe", "explain needs a recipe name");
			return 2;
		}
		return do_explain(&o, argv[first]);
	}
	cli_error("recipe", "unknown subcommand '%s'; expected lint, list or explain", sub);
	return 2;
}
