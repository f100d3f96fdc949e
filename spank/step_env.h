/* The job step's environment as golden_marker_plan reads it: every value at
 * its full length. A fixed buffer would make a long value the user set look
 * unset, and golden would then overwrite it.
 *
 * The reader is a callback (spank_getenv in the plugin, a table in tests):
 * it copies NAME's value into buf and says whether it fit. */
#ifndef GOLDEN_SPANK_STEP_ENV_H
#define GOLDEN_SPANK_STEP_ENV_H

#include <stddef.h>

enum golden_step_env_read {
	GOLDEN_STEP_ENV_FOUND,   /* buf holds the value */
	GOLDEN_STEP_ENV_ABSENT,  /* not set */
	GOLDEN_STEP_ENV_TOO_LONG /* set, longer than len - 1 */
};

typedef enum golden_step_env_read (*golden_step_env_reader)(void *ctx, const char *name, char *buf,
                                                            size_t len);

/* Values read so far; they live until golden_step_env_free. */
struct golden_step_env {
	golden_step_env_reader read;
	void *ctx;
	int n, cap;
	char **values;
};

/* The longest value read in full. Linux caps one environment string at
 * MAX_ARG_STRLEN (128 KiB); anything longer is still reported as set. */
#define GOLDEN_STEP_ENV_MAX (1024 * 1024)

void golden_step_env_init(struct golden_step_env *env, golden_step_env_reader read, void *ctx);

/* A golden_getenv_fn (env/marker.h): NAME's value, or NULL when it is not
 * set. A value that cannot be read in full (over GOLDEN_STEP_ENV_MAX, out
 * of memory) comes back as "": set, so it is never taken for unset. */
const char *golden_step_env_get(void *env, const char *name);

void golden_step_env_free(struct golden_step_env *env);

#endif
