#include "step_env.h"

#include <stdlib.h>
#include <string.h>

void golden_step_env_init(struct golden_step_env *env, golden_step_env_reader read, void *ctx)
{
	memset(env, 0, sizeof(*env));
	env->read = read;
	env->ctx = ctx;
}

/* Keep value alive until free; returns it, or NULL on ENOMEM. */
static char *keep(struct golden_step_env *env, char *value)
{
	if (env->n == env->cap) {
		int cap = env->cap ? env->cap * 2 : 32;
		char **v = realloc(env->values, sizeof(*v) * (size_t)cap);

		if (!v)
			return NULL;
		env->values = v;
		env->cap = cap;
	}
	env->values[env->n++] = value;
	return value;
}

const char *golden_step_env_get(void *arg, const char *name)
{
	struct golden_step_env *env = arg;
	static const char unreadable[] = "";

	for (size_t len = 4096; len <= GOLDEN_STEP_ENV_MAX; len *= 2) {
		char *buf = malloc(len);
		enum golden_step_env_read r;

		if (!buf)
			return unreadable;
		r = env->read(env->ctx, name, buf, len);
		if (r == GOLDEN_STEP_ENV_ABSENT) {
			free(buf);
			return NULL;
		}
		if (r == GOLDEN_STEP_ENV_FOUND) {
			if (keep(env, buf))
				return buf;
			free(buf);
			return unreadable;
		}
		free(buf);
	}
	return unreadable;
}

void golden_step_env_free(struct golden_step_env *env)
{
	for (int i = 0; i < env->n; i++)
		free(env->values[i]);
	free(env->values);
	memset(env, 0, sizeof(*env));
}
