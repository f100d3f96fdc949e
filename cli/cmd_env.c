/* golden env: exactly what the plugin would inject on this node. */
#include <config.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cli.h"
#include "env/env.h"
#include "env/imex.h"
#include "util/jsonschema.h"

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
	       "With --topology and no --sysroot, this host's /sys and /proc are used only\n"
	       "when the XML names this host (--sysroot / to use them anyway).\n"
	       "Exit status 1 with a message when golden would set nothing here (no GPU, no\n"
	       "recipe renders, or the winning recipe sets no variable, as single-node).\n");
}

static void print_explain(const struct golden_decision *res, const char *sysroot)
{
	char imex[768];

	printf("recipe: %s\nsource: %s\n", res->recipe, res->source ? res->source : "-");
	if (res->nnotes)
		printf("\nnotes:\n");
	for (int i = 0; i < res->nnotes; i++)
		printf("  %s%s\n", res->notes[i].warning ? "warning: " : "", res->notes[i].text);
	printf("\nvariables:\n");
	if (!res->nvars)
		printf("  (none: NCCL keeps all its defaults)\n");
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
	rc = golden_env_compute(&req, &res, &err);
	/* A warning may mean the answer is not the node's (or explains why
	 * there is none): say so wherever the output goes. */
	for (int i = 0; i < res.nnotes; i++)
		if (res.notes[i].warning)
			cli_error("env", "warning: %s", res.notes[i].text);
	if (rc < 0) {
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

		golden_json_stamp(j, "golden-env");
		printf("%s\n", json_object_to_json_string_ext(
		                   j, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(j);
	} else {
		print_explain(&res, o.sysroot);
	}
	if (!res.nvars) {
		cli_error("env",
		          "recipe %s sets no variable on this node: golden leaves NCCL's "
		          "defaults alone",
		          res.recipe ? res.recipe : "-");
		rc = 1;
	}
	golden_decision_free(&res);
	return rc;
}
