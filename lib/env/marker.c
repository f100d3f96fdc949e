#include "env/marker.h"

#include <stdio.h>
#include <string.h>

#include "util/strutil.h"

void golden_marker_fingerprint(const char *value, char out[9])
{
	snprintf(out, 9, "%08x", golden_fnv1a(value));
}

bool golden_marker_owns(const char *marker, const char *name, const char *value)
{
	char fp[9];
	size_t nlen = strlen(name);

	if (!marker || !value)
		return false;
	golden_marker_fingerprint(value, fp);
	for (const char *p = marker; *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len == nlen + 9 && !strncmp(p, name, nlen) && p[nlen] == ':' &&
		    !strncmp(p + nlen + 1, fp, 8))
			return true;
		if (!end)
			break;
		p = end + 1;
	}
	return false;
}

static int add_action(struct golden_env_plan *plan, enum golden_env_action_kind kind,
                      const char *name, const char *value, const char *why)
{
	if (plan->n >= (int)(sizeof(plan->acts) / sizeof(plan->acts[0])))
		return -1;
	plan->acts[plan->n++] = (struct golden_env_action){kind, name, value, why};
	return 0;
}

static int marker_append(struct golden_env_plan *plan, const char *name, const char *value)
{
	char fp[9], item[256];

	golden_marker_fingerprint(value, fp);
	if (snprintf(item, sizeof(item), "%s%s:%s", plan->marker[0] ? "," : "", name, fp) >=
	    (int)sizeof(item))
		return -1;
	return golden_strlcat(plan->marker, item, sizeof(plan->marker));
}

/* Golden's variables from an earlier node that this node's result lacks.
 * The marker is text in the job's environment: whoever controls that can
 * write anything into it. So it is only believed about variables golden
 * itself manages (some loaded recipe sets them); a forged entry for HOME,
 * PATH or a NCCL_* no recipe sets is ignored, never unset. */
static int plan_stale(const struct golden_decision *res, const char *old, golden_getenv_fn get,
                      void *arg, struct golden_env_plan *plan)
{
	char *p;

	golden_strlcpy(plan->old_names, old, sizeof(plan->old_names));
	for (p = plan->old_names; p && *p;) {
		char *end = strchr(p, ',');
		char *colon;
		const char *cur;

		if (end)
			*end = '\0';
		colon = strchr(p, ':');
		if (colon) {
			*colon = '\0'; /* p is now the bare name */
			cur = golden_decision_manages(res, p) ? get(arg, p) : NULL;
			if (cur && !golden_decision_getvar(res, p) &&
			    golden_marker_owns(old, p, cur) &&
			    add_action(plan, GOLDEN_ACT_UNSET, p, NULL, NULL))
				return -1;
		}
		p = end ? end + 1 : NULL;
	}
	return 0;
}

int golden_marker_plan(const struct golden_decision *res, enum golden_user_env policy,
                       golden_getenv_fn get, void *arg, struct golden_env_plan *plan)
{
	const char *old;

	memset(plan, 0, sizeof(*plan));
	old = get(arg, GOLDEN_MARKER_VAR);
	/* An oversized marker is not ours: then nothing counts as golden's. */
	if (old && golden_strlcpy(plan->old_marker, old, sizeof(plan->old_marker)) == 0)
		old = plan->old_marker;
	else
		old = NULL;
	for (int i = 0; i < res->nvars; i++) {
		const struct golden_decision_var *v = &res->vars[i];
		const char *cur = get(arg, v->name);
		enum golden_env_action_kind kind = GOLDEN_ACT_SET;

		if (cur && !golden_marker_owns(old, v->name, cur))
			kind = policy == GOLDEN_USER_ENV_OVERRIDE ? GOLDEN_ACT_OVERRIDE
			                                          : GOLDEN_ACT_KEEP_USER;
		if (add_action(plan, kind, v->name, kind == GOLDEN_ACT_KEEP_USER ? cur : v->value,
		               v->why))
			return -1;
		if (kind != GOLDEN_ACT_KEEP_USER && marker_append(plan, v->name, v->value))
			return -1;
	}
	if (old && plan_stale(res, old, get, arg, plan))
		return -1;
	return 0;
}
