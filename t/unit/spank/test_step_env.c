/* The step's environment at full length: a long value the user set is the
 * user's, never "unset" (which golden would overwrite). */
#include <stdlib.h>
#include <string.h>

#include "env/marker.h"
#include "spank/step_env.h"
#include "t/unit/tap.h"

struct table {
	const char *names[8];
	const char *values[8];
	int n;
};

/* Behaves as spank_getenv does: copies what fits, says when it did not. */
static enum golden_step_env_read table_read(void *ctx, const char *name, char *buf, size_t len)
{
	struct table *t = ctx;

	for (int i = 0; i < t->n; i++)
		if (!strcmp(t->names[i], name)) {
			size_t l = strlen(t->values[i]);

			memcpy(buf, t->values[i], l < len ? l + 1 : len - 1);
			buf[len - 1] = '\0';
			return l < len ? GOLDEN_STEP_ENV_FOUND : GOLDEN_STEP_ENV_TOO_LONG;
		}
	return GOLDEN_STEP_ENV_ABSENT;
}

int main(void)
{
	struct table t = {{0}, {0}, 0};
	struct golden_step_env env;
	struct golden_decision res;
	struct golden_env_plan *plan = malloc(sizeof(*plan));
	char *longval = malloc(5001), *huge = malloc(GOLDEN_STEP_ENV_MAX + 2);
	const char *v;

	if (!plan || !longval || !huge)
		return 1;
	/* 5000 bytes: longer than the 4096-byte buffer the plugin used. */
	memset(longval, 'a', 5000);
	memcpy(longval, "=mlx5_", 6);
	longval[5000] = '\0';
	memset(huge, 'b', GOLDEN_STEP_ENV_MAX + 1);
	huge[GOLDEN_STEP_ENV_MAX + 1] = '\0';
	t.names[t.n] = "NCCL_IB_HCA";
	t.values[t.n++] = longval;
	t.names[t.n] = "NCCL_SOCKET_IFNAME";
	t.values[t.n++] = "=eno1";
	t.names[t.n] = "NCCL_IB_GID_INDEX";
	t.values[t.n++] = huge;

	golden_step_env_init(&env, table_read, &t);
	v = golden_step_env_get(&env, "NCCL_IB_HCA");
	ok(v && strlen(v) == 5000 && !strcmp(v, longval), "a 5000-byte value is read in full");
	is(golden_step_env_get(&env, "NCCL_SOCKET_IFNAME"), "=eno1", "a short value");
	ok(golden_step_env_get(&env, "NCCL_NOT_SET") == NULL, "an unset variable is NULL");
	v = golden_step_env_get(&env, "NCCL_IB_GID_INDEX");
	ok(v != NULL, "a value too long to read is still reported as set");

	/* What golden then does: keeps the user's long value. */
	golden_decision_init(&res);
	golden_decision_setvar(&res, "NCCL_IB_HCA", "=mlx5_0", "compute rails");
	golden_decision_setvar(&res, "NCCL_IB_GID_INDEX", "3", "RoCE v2");
	golden_decision_add_managed(&res, "NCCL_IB_HCA");
	golden_decision_add_managed(&res, "NCCL_IB_GID_INDEX");
	ok(golden_marker_plan(&res, GOLDEN_USER_ENV_RESPECT, golden_step_env_get, &env, plan) == 0,
	   "plan");
	for (int i = 0; i < plan->n; i++) {
		if (!strcmp(plan->acts[i].name, "NCCL_IB_HCA"))
			ok(plan->acts[i].kind == GOLDEN_ACT_KEEP_USER &&
			       strlen(plan->acts[i].value) == 5000,
			   "the user's 5000-byte NCCL_IB_HCA is kept, not overwritten");
		if (!strcmp(plan->acts[i].name, "NCCL_IB_GID_INDEX"))
			ok(plan->acts[i].kind == GOLDEN_ACT_KEEP_USER,
			   "an unreadably long NCCL_IB_GID_INDEX is kept, not overwritten");
	}
	golden_decision_free(&res);
	golden_step_env_free(&env);
	free(plan);
	free(longval);
	free(huge);
	return done_testing();
}
