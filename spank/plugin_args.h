/* Parsing of `key=value` arguments (plugstack.conf lines) and the %n node
 * name template shared by the plugin and the golden command. */
#ifndef GOLDEN_SPANK_PLUGIN_ARGS_H
#define GOLDEN_SPANK_PLUGIN_ARGS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "env/marker.h"
#include "util/errbuf.h"
#include "stall/teardown.h"

struct golden_plugin_args {
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
	/* discovery_deadline_ms=100..600000: how long the step waits for
	 * hwloc before it leaves the environment alone (default 10000). */
	int discovery_deadline_ms;
};

/* Defaults: default=off, recipes=GOLDEN_RECIPEDIR, cache=GOLDEN_CACHEDIR. */
void golden_plugin_args_init(struct golden_plugin_args *conf);

/* Parse plugstack arguments (argv after the plugin path). An unknown key or a
 * bad value fails with one line naming the argument and what would be right. */
int golden_plugin_args_parse(struct golden_plugin_args *conf, int ac, char **av,
                             struct golden_err *err);

#endif
