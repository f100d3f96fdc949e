/* Parsing of `key=value` arguments (plugstack.conf lines) and the %n node
 * name template shared by the plugin and the golden command. */
#ifndef GOLDEN_CONF_H
#define GOLDEN_CONF_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/errbuf.h"
#include "stall/teardown.h"

enum golden_user_env {
	GOLDEN_USER_ENV_RESPECT, /* a variable the user set wins */
	GOLDEN_USER_ENV_OVERRIDE
};

struct golden_plugin_conf {
	bool default_on;
	char recipes[PATH_MAX];
	char topology[PATH_MAX]; /* may hold %n; "" = live topology */
	char sysroot[PATH_MAX];  /* may hold %n; "" = real root */
	char cache_dir[PATH_MAX];
	enum golden_user_env user_env;
	/* The task_exit teardown probe: teardown_flush=auto|always|off,
	 * teardown_threshold=256M, teardown_inodes=10000,
	 * teardown_deadline_ms=5000, teardown_dir=DIR (%n). */
	struct golden_teardown_opts teardown;
	char teardown_dir[PATH_MAX];
};

/* Defaults: default=off, recipes=GOLDEN_RECIPEDIR, cache=GOLDEN_CACHEDIR. */
void golden_plugin_conf_init(struct golden_plugin_conf *conf);

/* Parse plugstack arguments (argv after the plugin path). An unknown key or a
 * bad value fails with one line naming the argument and what would be right. */
int golden_plugin_conf_parse(struct golden_plugin_conf *conf, int ac, char **av,
                             struct golden_err *err);

/* Expand %n (node name) and %% in tmpl. The node name must be a plain Slurm
 * node name; anything that could climb out of a directory is refused. */
int golden_expand_node(const char *tmpl, const char *node, char *out, size_t len,
                       struct golden_err *err);

#endif
