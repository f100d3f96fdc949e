#include "plugin_args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/topo.h"
#include "util/strutil.h"

#ifndef GOLDEN_RECIPEDIR
#define GOLDEN_RECIPEDIR "/usr/local/share/slurm-golden/recipes"
#endif
#ifndef GOLDEN_CACHEDIR
#define GOLDEN_CACHEDIR "/run/slurm-golden"
#endif

#define CONF_KEYS                                                                                  \
	"default, recipes, topology, sysroot, cache, user_env, teardown_flush, "                   \
	"teardown_threshold, teardown_inodes, teardown_deadline_ms, teardown_dir, "                \
	"discovery_deadline_ms"

void golden_plugin_args_init(struct golden_plugin_args *conf)
{
	memset(conf, 0, sizeof(*conf));
	golden_strlcpy(conf->recipes, GOLDEN_RECIPEDIR, sizeof(conf->recipes));
	golden_strlcpy(conf->cache_dir, GOLDEN_CACHEDIR, sizeof(conf->cache_dir));
	conf->user_env = GOLDEN_USER_ENV_RESPECT;
	conf->teardown = (struct golden_teardown_opts)GOLDEN_TEARDOWN_DEFAULTS;
	golden_strlcpy(conf->teardown_dir, GOLDEN_CACHEDIR "/teardown", sizeof(conf->teardown_dir));
	conf->discovery_deadline_ms = GOLDEN_TOPO_DEADLINE_MS;
}

static int parse_deadline(const char *arg, const char *val, int *dst, struct golden_err *err)
{
	if (golden_parse_int(val, 100, 600000, dst) < 0)
		return golden_err_set(err,
		                      "plugstack argument '%s': expected milliseconds, 100-600000 "
		                      "(default %d)",
		                      arg, GOLDEN_TOPO_DEADLINE_MS);
	return 0;
}

static int parse_path(const char *key, const char *val, char *dst, size_t len, bool allow_empty,
                      struct golden_err *err)
{
	if (!*val && allow_empty) {
		dst[0] = '\0';
		return 0;
	}
	if (val[0] != '/')
		return golden_err_set(err, "plugstack argument %s=%s: expected an absolute path",
		                      key, val);
	if (golden_strlcpy(dst, val, len) < 0)
		return golden_err_set(err, "plugstack argument %s=: path longer than %zu bytes",
		                      key, len - 1);
	return 0;
}

int golden_plugin_args_parse(struct golden_plugin_args *conf, int ac, char **av,
                             struct golden_err *err)
{
	for (int i = 0; i < ac; i++) {
		const char *arg = av[i];
		const char *eq = strchr(arg, '=');
		char key[32];
		const char *val;
		size_t klen;

		if (!eq || eq == arg)
			return golden_err_set(
			    err,
			    "plugstack argument '%s': expected key=value with key "
			    "one of: " CONF_KEYS,
			    arg);
		klen = (size_t)(eq - arg);
		if (klen >= sizeof(key))
			return golden_err_set(err,
			                      "plugstack argument '%s': unknown key; expected "
			                      "one of: " CONF_KEYS,
			                      arg);
		memcpy(key, arg, klen);
		key[klen] = '\0';
		val = eq + 1;

		if (!strcmp(key, "default")) {
			if (!strcmp(val, "on"))
				conf->default_on = true;
			else if (!strcmp(val, "off"))
				conf->default_on = false;
			else
				return golden_err_set(
				    err, "plugstack argument default=%s: expected on or off", val);
		} else if (!strcmp(key, "recipes")) {
			if (parse_path(key, val, conf->recipes, sizeof(conf->recipes), false, err))
				return -1;
		} else if (!strcmp(key, "topology")) {
			if (parse_path(key, val, conf->topology, sizeof(conf->topology), true, err))
				return -1;
		} else if (!strcmp(key, "sysroot")) {
			if (parse_path(key, val, conf->sysroot, sizeof(conf->sysroot), true, err))
				return -1;
		} else if (!strcmp(key, "cache")) {
			if (!strcmp(val, "off"))
				conf->cache_dir[0] = '\0';
			else if (parse_path(key, val, conf->cache_dir, sizeof(conf->cache_dir),
			                    false, err))
				return -1;
		} else if (!strcmp(key, "user_env")) {
			if (!strcmp(val, "respect"))
				conf->user_env = GOLDEN_USER_ENV_RESPECT;
			else if (!strcmp(val, "override"))
				conf->user_env = GOLDEN_USER_ENV_OVERRIDE;
			else
				return golden_err_set(
				    err,
				    "plugstack argument user_env=%s: expected respect or override",
				    val);
		} else if (!strcmp(key, "teardown_flush") || !strcmp(key, "teardown_threshold") ||
		           !strcmp(key, "teardown_inodes") ||
		           !strcmp(key, "teardown_deadline_ms")) {
			struct golden_err why = {{0}};

			if (golden_teardown_opt_set(&conf->teardown, key + 9, val, &why) < 0)
				return golden_err_set(err, "plugstack argument '%s': %s", arg,
				                      why.msg);
		} else if (!strcmp(key, "discovery_deadline_ms")) {
			if (parse_deadline(arg, val, &conf->discovery_deadline_ms, err) < 0)
				return -1;
		} else if (!strcmp(key, "teardown_dir")) {
			if (parse_path(key, val, conf->teardown_dir, sizeof(conf->teardown_dir),
			               false, err))
				return -1;
		} else {
			return golden_err_set(
			    err,
			    "plugstack argument '%s': unknown key '%s'; expected one "
			    "of: " CONF_KEYS,
			    arg, key);
		}
	}
	return 0;
}
