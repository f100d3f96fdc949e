/* golden_decision: sorted variables, candidates, JSON round trip. */
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "env/decision.h"
#include "t/unit/tap.h"

static void test_setvar(void)
{
	struct golden_decision res;

	golden_decision_init(&res);
	ok(golden_decision_setvar(&res, "NCCL_SOCKET_IFNAME", "=eno1", "bootstrap") == 0 &&
	       golden_decision_setvar(&res, "NCCL_IB_HCA", "=mlx5_0", "hcas") == 0 &&
	       golden_decision_setvar(&res, "NCCL_IB_DISABLE", "1", NULL) == 0 &&
	       golden_decision_setvar(&res, "UCX_TLS", "tcp", "ucx") == 0,
	   "setvar x4");
	is_int(res.nvars, 4, "4 variables");
	is(res.vars[0].name, "NCCL_IB_DISABLE", "sorted: 0");
	is(res.vars[1].name, "NCCL_IB_HCA", "sorted: 1");
	is(res.vars[2].name, "NCCL_SOCKET_IFNAME", "sorted: 2");
	is(res.vars[3].name, "UCX_TLS", "sorted: 3");
	ok(res.vars[0].why == NULL, "why may be NULL");
	ok(golden_decision_setvar(&res, "NCCL_IB_HCA", "=mlx5_3", "replaced") == 0, "replace");
	is_int(res.nvars, 4, "replace keeps the count");
	is(golden_decision_getvar(&res, "NCCL_IB_HCA")->value, "=mlx5_3", "replaced value");
	is(golden_decision_getvar(&res, "NCCL_IB_HCA")->why, "replaced", "replaced why");
	ok(golden_decision_getvar(&res, "NCCL_NOPE") == NULL, "getvar miss: NULL");
	ok(golden_decision_setvar(&res, NULL, "x", NULL) == -1, "setvar NULL name: -1");
	ok(golden_decision_setvar(&res, "NCCL_X", NULL, NULL) == -1, "setvar NULL value: -1");
	golden_decision_free(&res);
	ok(res.nvars == 0 && res.vars == NULL && res.recipe == NULL, "free resets");
}

static void fill(struct golden_decision *res)
{
	golden_decision_init(res);
	res->recipe = strdup("hgx-h100-h200-ib");
	res->source = strdup("env.rst");
	golden_decision_setvar(res, "NCCL_SOCKET_IFNAME", "=eno1", "bootstrap");
	golden_decision_setvar(res, "NCCL_IB_HCA", "=mlx5_0,mlx5_3", "the rails");
	golden_decision_setvar(res, "NCCL_IB_DISABLE", "0", NULL);
	golden_decision_add_candidate(res, "generic-ib", 1, true, "lost to hgx-h100-h200-ib");
	golden_decision_add_candidate(res, "generic-roce", 1, false, NULL);
	golden_decision_add_candidate(res, "hgx-h100-h200-ib", 5, true, "won");
}

static void test_round_trip(void)
{
	struct golden_decision a, b;
	struct golden_err err = {{0}};
	struct json_object *j, *k;
	const char *txt;

	fill(&a);
	is_int(a.ncandidates, 3, "3 candidates");
	j = golden_decision_to_json(&a);
	ok(j != NULL, "to_json");
	txt = json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN);
	ok(strstr(txt, "\"recipe\":\"hgx-h100-h200-ib\"") != NULL, "JSON has the recipe");
	k = json_tokener_parse(txt);
	ok(golden_decision_from_json(k, &b, &err) == 0, "from_json: %s", err.msg);
	is(b.recipe, "hgx-h100-h200-ib", "recipe survives");
	is(b.source, "env.rst", "source survives");
	is_int(b.nvars, 3, "nvars survives");
	for (int i = 0; i < 3 && b.nvars == 3; i++) {
		is(b.vars[i].name, a.vars[i].name, "var %d name", i);
		is(b.vars[i].value, a.vars[i].value, "var %d value", i);
		is(b.vars[i].why, a.vars[i].why, "var %d why", i);
	}
	is_int(b.ncandidates, 3, "candidates survive");
	if (b.ncandidates == 3) {
		is(b.candidates[1].recipe, "generic-roce", "candidate recipe");
		ok(!b.candidates[1].matched && b.candidates[1].note == NULL,
		   "matched false, no note");
		ok(b.candidates[2].matched && b.candidates[2].specificity == 5, "specificity 5");
		is(b.candidates[0].note, "lost to hgx-h100-h200-ib", "note");
	}
	ok(!b.from_cache, "from_cache is the reader's to set");
	golden_decision_free(&b);
	json_object_put(k);
	json_object_put(j);

	/* No winner: recipe null. */
	free(a.recipe);
	a.recipe = NULL;
	j = golden_decision_to_json(&a);
	ok(golden_decision_from_json(j, &b, &err) == 0 && b.recipe == NULL,
	   "null recipe round trip");
	golden_decision_free(&b);
	json_object_put(j);
	golden_decision_free(&a);
}

static void garbage(const char *json, const char *want, const char *what)
{
	struct json_object *j = json_tokener_parse(json);
	struct golden_decision res;
	struct golden_err err = {{0}};
	int rc = golden_decision_from_json(j, &res, &err);

	ok(rc == -1 && strstr(err.msg, want) && res.nvars == 0 && res.recipe == NULL &&
	       res.ncandidates == 0,
	   "garbage (%s): -1 with '%s'", what, want);
	if (rc != -1 || !strstr(err.msg, want))
		diag("got rc %d, '%s'", rc, err.msg);
	golden_decision_free(&res);
	json_object_put(j);
}

static void test_garbage(void)
{
	struct golden_decision res;
	struct golden_err err = {{0}};
	const char *good = "{\"recipe\":\"r\",\"source\":null,\"vars\":[{\"name\":\"NCCL_IB_HCA\","
	                   "\"value\":\"=mlx5_0\",\"why\":\"w\"}],\"candidates\":[{\"recipe\":"
	                   "\"r\",\"specificity\":1,\"matched\":true,\"note\":\"won\"}]}";
	char buf[512];

	ok(golden_decision_from_json(NULL, &res, &err) == -1, "NULL object: -1");
	garbage("[1,2]", "expected an object", "array");
	garbage("\"str\"", "expected an object", "string");
	garbage("{}", "vars: missing", "no vars");
	garbage("{\"vars\":{}}", "vars: expected an array", "vars object");
	garbage("{\"recipe\":5,\"vars\":[]}", "recipe: expected a string", "recipe int");
	garbage("{\"vars\":[1]}", "vars[0]: expected an object", "var int");
	garbage("{\"vars\":[{\"name\":1,\"value\":\"x\"}]}", "vars[0].name: expected a string",
	        "name int");
	garbage("{\"vars\":[{\"name\":\"NCCL_IB_HCA\"}]}", "vars[0].value: missing", "no value");
	garbage("{\"vars\":[{\"name\":\"LD_PRELOAD\",\"value\":\"/tmp/x.so\"}]}",
	        "not a variable golden knows", "unknown variable");
	garbage("{\"vars\":[{\"name\":\"NCCL_IB_TC\",\"value\":\"999\"}]}",
	        "expected an integer 0-255", "invalid value");
	garbage("{\"vars\":[{\"name\":\"NCCL_IB_TC\",\"value\":\"1\"},{\"name\":\"NCCL_IB_TC\","
	        "\"value\":\"2\"}]}",
	        "appears twice", "duplicate");
	garbage("{\"vars\":[],\"candidates\":[{\"recipe\":\"r\",\"specificity\":\"1\","
	        "\"matched\":true}]}",
	        "specificity: expected an integer", "specificity string");
	garbage("{\"vars\":[],\"candidates\":[{\"recipe\":\"r\",\"specificity\":1,"
	        "\"matched\":1}]}",
	        "matched: expected true or false", "matched int");
	garbage("{\"vars\":[],\"candidates\":[{\"specificity\":1,\"matched\":true}]}",
	        "recipe: missing", "candidate without recipe");
	garbage("{\"vars\":[],\"candidates\":5}", "candidates: expected an array",
	        "candidates int");

	/* Every truncation of a valid document: never a crash, never success
	 * with a partial result. */
	{
		size_t n = strlen(good);
		int crashes_or_partial = 0;

		for (size_t i = 0; i < n; i++) {
			struct json_object *j;

			memcpy(buf, good, i);
			buf[i] = '\0';
			j = json_tokener_parse(buf);
			memset(&err, 0, sizeof(err));
			if (golden_decision_from_json(j, &res, &err) == 0)
				crashes_or_partial++;
			golden_decision_free(&res);
			json_object_put(j);
		}
		is_int(crashes_or_partial, 0, "no truncation of a valid document is accepted");
		{
			struct json_object *j = json_tokener_parse(good);

			memset(&err, 0, sizeof(err));
			ok(golden_decision_from_json(j, &res, &err) == 0 && res.nvars == 1 &&
			       res.ncandidates == 1,
			   "the whole document is accepted: %s", err.msg);
			golden_decision_free(&res);
			json_object_put(j);
		}
	}
}

int main(void)
{
	test_setvar();
	test_round_trip();
	test_garbage();
	return done_testing();
}
