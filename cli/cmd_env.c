/* golden env: exactly what the plugin would inject on this node. */
#include <config.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cli.h"
#include "env/env.h"
#include "env/imex.h"

static void env_usage(void)
{
	printf("Usage: golden env [--topology FILE] [--sysroot DIR] [--recipes DIR]\n"
	       "                  [--recipe NAME] [--format env|json|explain] [--cache DIR --node "
	       "NAME]\n"
	       "\n"
	       "Print the environment the golden_nccl SPANK plugin would inject on this node:\n"
	       "  env      NAME=VALUE per line, sorted (default)\n"
	       "  json     the recipe, variables with their reasons, and every candidate recipe\n"
	       "  explain  which recipe won over which others and why, each variable's why\n"
	       "--recipe NAME forces a recipe, like --golden-nccl=NAME. --cache DIR uses (and\n"
	       "fills) the plugin's cache, as the plugin does on a compute node.\n"
	       "Exit status 1 with a message when golden would set nothing here.\n");
}

static void print_explain(const struct golden_decision *res, const char *sysroot)
{
	char imex[768];

	printf("recipe: %s\nsource: %s\n\nvariables:\n", res->recipe,
	       res->source ? res->source : "-");
	for (int i = 0; i < res->nvars; i++)
		printf("  %s=%s\n      why: %s\n", res->vars[i].name, res->vars[i].value,
		       res->vars[i].why ? res->vars[i].why : "-");
	if (golden_imex_wanted(res)) {
		golden_imex_check(sysroot, imex, sizeof(imex));
		printf("\nimex: %s\n", imex);
	}
	printf("\ncandidates (most specific matching recipe wins):\n");
	for (int i = 0; i < res->ncandidates; i++) {
		const struct golden_decision_candidate *c = &res->candidates[i];
		bool won = res->recipe && !strcmp(c->recipe, res->recipe);

		printf("  %s %-28s specificity %d  %-9s %s\n", won ? "*" : " ", c->recipe,
		       c->specificity, c->matched ? "matches" : "no match", c->note ? c->note : "");
	}
}

int cmd_env(int argc, char **argv)
{
	struct cli_opts o;
	struct golden_decision res;
	struct golden_err err = {{0}};
	struct golden_env_request req;
	const char *fmt;
	int rc;

	if (cli_parse(argc, argv, "env", "topology sysroot recipes recipe format node cache", &o,
	              env_usage) < 0)
		return 2;
	fmt = o.format ? o.format : "env";
	if (strcmp(fmt, "env") && strcmp(fmt, "json") && strcmp(fmt, "explain")) {
		cli_error("env", "--format %s: expected env, json or explain", fmt);
		return 2;
	}
	golden_decision_init(&res);
	req = (struct golden_env_request){
	    .topology = o.topology,
	    .sysroot = o.sysroot,
	    .recipes_dir = o.recipes,
	    .recipe = o.recipe,
	    .cache_dir = o.cache,
	    .node = o.node,
	    /* As root, hold recipes to the plugin's rules; a user running it
	     * for a look cannot inject anything. */
	    .check_owner = geteuid() == 0,
	    .diag = cli_diag,
	    .diag_arg = "env",
	};
	if (golden_env_compute(&req, &res, &err) < 0) {
		cli_error("env", "%s", err.msg);
		golden_decision_free(&res);
		return 1;
	}
	rc = 0;
	if (!strcmp(fmt, "env")) {
		for (int i = 0; i < res.nvars; i++)
			printf("%s=%s\n", res.vars[i].name, res.vars[i].value);
	} else if (!strcmp(fmt, "json")) {
		struct json_object *j = golden_decision_to_json(&res);

		printf("%s\n", json_object_to_json_string_ext(
		                   j, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(j);
	} else {
		print_explain(&res, o.sysroot);
	}
	golden_decision_free(&res);
	return rc;
}
