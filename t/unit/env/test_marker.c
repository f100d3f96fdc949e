/* Which variables are golden's to recompute, and which the user's. */
#include <stdio.h>
#include <string.h>

#include "env/marker.h"
#include "t/unit/tap.h"

struct fake_env {
	const char *names[16];
	const char *values[16];
	int n;
};

static const char *fake_get(void *arg, const char *name)
{
	struct fake_env *e = arg;

	for (int i = 0; i < e->n; i++)
		if (!strcmp(e->names[i], name))
			return e->values[i];
	return NULL;
}

static void put(struct fake_env *e, const char *name, const char *value)
{
	e->names[e->n] = name;
	e->values[e->n++] = value;
}

static const struct golden_env_action *find(const struct golden_env_plan *p, const char *name)
{
	for (int i = 0; i < p->n; i++)
		if (!strcmp(p->acts[i].name, name))
			return &p->acts[i];
	return NULL;
}

/* What the loaded recipes can set (golden_env_compute records it): the
 * only names a marker may make golden touch. */
static const char *const managed[] = {"NCCL_IB_HCA", "NCCL_SOCKET_IFNAME", "NCCL_IB_GID_INDEX",
                                      "NCCL_IB_DISABLE"};

static void node_result(struct golden_decision *res, const char *hca, bool with_gid)
{
	golden_decision_init(res);
	for (size_t i = 0; i < sizeof(managed) / sizeof(managed[0]); i++)
		golden_decision_add_managed(res, managed[i]);
	golden_decision_setvar(res, "NCCL_IB_HCA", hca, "compute rails");
	golden_decision_setvar(res, "NCCL_SOCKET_IFNAME", "=eno1", "bootstrap");
	if (with_gid)
		golden_decision_setvar(res, "NCCL_IB_GID_INDEX", "3", "RoCE v2");
}

int main(void)
{
	struct golden_env_plan plan;
	struct golden_decision n1, n2;
	struct fake_env env = {{0}, {0}, 0};
	char marker[4096];
	const struct golden_env_action *a;

	node_result(&n1, "=mlx5_0,mlx5_3", true);
	node_result(&n2, "=ibp24s0,ibp64s0", false);

	/* Fresh environment: everything is set, the marker lists it. */
	ok(golden_marker_plan(&n1, GOLDEN_USER_ENV_RESPECT, fake_get, &env, &plan) == 0, "plan n1");
	is_int(plan.n, 3, "three actions");
	a = find(&plan, "NCCL_IB_HCA");
	ok(a && a->kind == GOLDEN_ACT_SET && !strcmp(a->value, "=mlx5_0,mlx5_3"), "HCA set");
	ok(strstr(plan.marker, "NCCL_IB_HCA:") && strstr(plan.marker, "NCCL_IB_GID_INDEX:"),
	   "marker lists what was set: %s", plan.marker);
	ok(golden_marker_owns(plan.marker, "NCCL_IB_HCA", "=mlx5_0,mlx5_3"), "marker owns value");
	ok(!golden_marker_owns(plan.marker, "NCCL_IB_HCA", "=mlx5_5"), "not another value");
	ok(!golden_marker_owns(plan.marker, "NCCL_IB", "=mlx5_0,mlx5_3"), "not a name prefix");
	strcpy(marker, plan.marker);

	/* srun from the batch script lands on n2: golden's n1 values arrive in
	 * the environment and are recomputed; the stale GID index goes away. */
	put(&env, GOLDEN_MARKER_VAR, marker);
	put(&env, "NCCL_IB_HCA", "=mlx5_0,mlx5_3");
	put(&env, "NCCL_SOCKET_IFNAME", "=eno1");
	put(&env, "NCCL_IB_GID_INDEX", "3");
	ok(golden_marker_plan(&n2, GOLDEN_USER_ENV_RESPECT, fake_get, &env, &plan) == 0, "plan n2");
	a = find(&plan, "NCCL_IB_HCA");
	ok(a && a->kind == GOLDEN_ACT_SET && !strcmp(a->value, "=ibp24s0,ibp64s0"),
	   "inherited golden value recomputed for this node");
	a = find(&plan, "NCCL_IB_GID_INDEX");
	ok(a && a->kind == GOLDEN_ACT_UNSET, "golden's variable this node does not use is unset");
	ok(!strstr(plan.marker, "GID_INDEX"), "and no longer in the marker");

	/* The user changed NCCL_IB_HCA after golden set it: the user's wins. */
	env.values[1] = "=mlx5_5";
	ok(golden_marker_plan(&n2, GOLDEN_USER_ENV_RESPECT, fake_get, &env, &plan) == 0, "plan");
	a = find(&plan, "NCCL_IB_HCA");
	ok(a && a->kind == GOLDEN_ACT_KEEP_USER && !strcmp(a->value, "=mlx5_5"),
	   "user-changed value kept");
	ok(!strstr(plan.marker, "NCCL_IB_HCA"), "kept value is not claimed in the marker");

	/* user_env=override sets it anyway, and says so. */
	ok(golden_marker_plan(&n2, GOLDEN_USER_ENV_OVERRIDE, fake_get, &env, &plan) == 0, "plan");
	a = find(&plan, "NCCL_IB_HCA");
	ok(a && a->kind == GOLDEN_ACT_OVERRIDE && !strcmp(a->value, "=ibp24s0,ibp64s0"),
	   "override replaces the user's value");

	/* A user variable golden never set, with no marker at all. */
	env.n = 0;
	put(&env, "NCCL_SOCKET_IFNAME", "=ib0");
	ok(golden_marker_plan(&n1, GOLDEN_USER_ENV_RESPECT, fake_get, &env, &plan) == 0, "plan");
	a = find(&plan, "NCCL_SOCKET_IFNAME");
	ok(a && a->kind == GOLDEN_ACT_KEEP_USER, "user-set variable respected");
	a = find(&plan, "NCCL_IB_HCA");
	ok(a && a->kind == GOLDEN_ACT_SET, "others still set");

	/* A forged marker claiming a value the user set does not match its
	 * fingerprint, so the user's value still wins. */
	env.n = 0;
	put(&env, GOLDEN_MARKER_VAR, "NCCL_SOCKET_IFNAME:00000000");
	put(&env, "NCCL_SOCKET_IFNAME", "=ib0");
	ok(golden_marker_plan(&n1, GOLDEN_USER_ENV_RESPECT, fake_get, &env, &plan) == 0, "plan");
	a = find(&plan, "NCCL_SOCKET_IFNAME");
	ok(a && a->kind == GOLDEN_ACT_KEEP_USER, "wrong fingerprint is not golden's");

	/* A forged marker (the job's environment is the user's to write)
	 * naming variables no recipe sets, with their right fingerprints:
	 * golden must not unset them. */
	{
		char forged[256], fp_home[9], fp_dbg[9], fp_hca[9];

		golden_marker_fingerprint("/home/alice", fp_home);
		golden_marker_fingerprint("INFO", fp_dbg);
		golden_marker_fingerprint("=mlx5_0,mlx5_3", fp_hca);
		snprintf(forged, sizeof(forged), "HOME:%s,NCCL_DEBUG:%s,NCCL_IB_HCA:%s", fp_home,
		         fp_dbg, fp_hca);
		env.n = 0;
		put(&env, GOLDEN_MARKER_VAR, forged);
		put(&env, "HOME", "/home/alice");
		put(&env, "NCCL_DEBUG", "INFO");
		put(&env, "NCCL_IB_HCA", "=mlx5_0,mlx5_3");
		ok(golden_marker_plan(&n2, GOLDEN_USER_ENV_RESPECT, fake_get, &env, &plan) == 0,
		   "plan with a forged marker");
		ok(!find(&plan, "HOME"), "forged marker: HOME is not golden's, never unset");
		ok(!find(&plan, "NCCL_DEBUG"),
		   "forged marker: the user's NCCL_DEBUG (no recipe sets it) is left alone");
		a = find(&plan, "NCCL_IB_HCA");
		ok(a && a->kind == GOLDEN_ACT_SET,
		   "a variable golden manages is still recomputed from the marker");
		for (int i = 0; i < plan.n; i++)
			ok(golden_decision_manages(&n2, plan.acts[i].name),
			   "every action is on a managed variable: %s", plan.acts[i].name);
	}

	golden_decision_free(&n1);
	golden_decision_free(&n2);
	return done_testing();
}
