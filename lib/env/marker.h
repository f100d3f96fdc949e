/* Which environment variables are golden's to (re)compute.
 *
 * srun inside a batch script inherits the batch node's environment, so the
 * values golden set there reach other nodes. golden records what it set in
 * GOLDEN_NCCL_SET as NAME:fingerprint pairs; a variable whose current value
 * still has golden's fingerprint is golden's and is recomputed for the node
 * the task runs on, anything else was set by the user and is kept.
 */
#ifndef GOLDEN_ENV_MARKER_H
#define GOLDEN_ENV_MARKER_H

#include <stdbool.h>
#include <stddef.h>

#include "env/decision.h"

/* Who wins when the user set a variable golden also sets. */
enum golden_user_env {
	GOLDEN_USER_ENV_RESPECT, /* a variable the user set wins */
	GOLDEN_USER_ENV_OVERRIDE
};

#define GOLDEN_MARKER_VAR "GOLDEN_NCCL_SET"
#define GOLDEN_RECIPE_VAR "GOLDEN_NCCL_RECIPE"

enum golden_env_action_kind {
	GOLDEN_ACT_SET,       /* set name=value */
	GOLDEN_ACT_UNSET,     /* golden's value from another node, not wanted here */
	GOLDEN_ACT_KEEP_USER, /* the user's own value wins */
	GOLDEN_ACT_OVERRIDE   /* user_env=override: set over the user's value */
};

struct golden_env_action {
	enum golden_env_action_kind kind;
	const char *name;  /* points into the result or the marker copy */
	const char *value; /* new value (SET/OVERRIDE), or the user's value (KEEP_USER) */
	const char *why;
};

struct golden_env_plan {
	int n;
	struct golden_env_action acts[160];
	char marker[4096];     /* new GOLDEN_NCCL_SET value */
	char old_marker[4096]; /* copy of the GOLDEN_NCCL_SET found in the environment */
	char old_names[4096];  /* storage for names parsed from the old marker */
};

/* Returns the current value of name in the target environment, or NULL. The
 * pointer must stay valid until golden_marker_plan returns. */
typedef const char *(*golden_getenv_fn)(void *arg, const char *name);

/* Decide what to do with every variable of res given the current environment.
 * Returns 0, or -1 if the plan does not fit (more than 160 variables). */
int golden_marker_plan(const struct golden_decision *res, enum golden_user_env policy,
                       golden_getenv_fn get, void *arg, struct golden_env_plan *plan);

/* Fingerprint of a value as 8 hex digits. */
void golden_marker_fingerprint(const char *value, char out[9]);

/* Does marker say name=value was set by golden? */
bool golden_marker_owns(const char *marker, const char *name, const char *value);

#endif
