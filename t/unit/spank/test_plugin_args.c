/* plugstack.conf arguments and %n expansion. */
#include <string.h>

#include "spank/plugin_args.h"
#include "t/unit/tap.h"
#include "util/nodename.h"

static int parse(struct golden_plugin_args *c, struct golden_err *e, int ac, char **av)
{
	memset(e, 0, sizeof(*e));
	golden_plugin_args_init(c);
	return golden_plugin_args_parse(c, ac, av, e);
}

int main(void)
{
	struct golden_plugin_args c;
	struct golden_err e;
	char out[256];

	{
		char *av[] = {"default=on",          "recipes=/etc/golden/recipes",
		              "topology=/fx/%n.xml", "sysroot=/fx/%n",
		              "cache=/tmp/gc",       "user_env=override"};
		ok(parse(&c, &e, 6, av) == 0, "all keys accepted");
		ok(c.default_on, "default=on");
		is(c.recipes, "/etc/golden/recipes", "recipes=");
		is(c.topology, "/fx/%n.xml", "topology= kept as a template");
		is(c.sysroot, "/fx/%n", "sysroot=");
		is(c.cache_dir, "/tmp/gc", "cache=");
		ok(c.discovery_deadline_ms == 10000, "discovery_deadline_ms defaults to 10000");
		ok(c.user_env == GOLDEN_USER_ENV_OVERRIDE, "user_env=override");
	}
	{
		ok(parse(&c, &e, 0, NULL) == 0, "no arguments");
		ok(!c.default_on, "default is off");
		ok(c.user_env == GOLDEN_USER_ENV_RESPECT, "user_env defaults to respect");
		ok(c.recipes[0] == '/', "recipes default is an absolute path (%s)", c.recipes);
		is(c.topology, "", "no topology file: live");
	}
	{
		char *av[] = {"cache=off"};
		ok(parse(&c, &e, 1, av) == 0 && c.cache_dir[0] == '\0', "cache=off disables it");
	}
	{
		char *av[] = {"defualt=on"};
		ok(parse(&c, &e, 1, av) < 0, "misspelt key rejected");
		ok(strstr(e.msg, "unknown key 'defualt'") && strstr(e.msg, "default, recipes"),
		   "message names the key and the valid ones: %s", e.msg);
	}
	{
		char *av[] = {"default=yes"};
		ok(parse(&c, &e, 1, av) < 0 && strstr(e.msg, "expected on or off"),
		   "bad value says what is right: %s", e.msg);
	}
	{
		char *av[] = {"user_env=ignore"};
		ok(parse(&c, &e, 1, av) < 0 && strstr(e.msg, "respect or override"),
		   "bad user_env: %s", e.msg);
	}
	{
		char *av[] = {"recipes=relative/dir"};
		ok(parse(&c, &e, 1, av) < 0 && strstr(e.msg, "absolute path"),
		   "relative path rejected: %s", e.msg);
	}
	{
		char *av[] = {"teardown_flush=always", "teardown_threshold=1G",
		              "teardown_inodes=500", "teardown_deadline_ms=2000",
		              "teardown_dir=/run/g/%n"};
		ok(parse(&c, &e, 5, av) == 0, "teardown arguments parse");
		ok(c.teardown.mode == GOLDEN_FLUSH_ALWAYS, "teardown_flush=always");
		ok(c.teardown.threshold_bytes == 1LL << 30, "teardown_threshold=1G is 2^30 bytes");
		ok(c.teardown.threshold_inodes == 500, "teardown_inodes");
		ok(c.teardown.deadline_ms == 2000, "teardown_deadline_ms");
		is(c.teardown_dir, "/run/g/%n", "teardown_dir keeps %%n for the node");
	}
	{
		char *av[] = {"teardown_flush=sometimes"};
		ok(parse(&c, &e, 1, av) < 0 && strstr(e.msg, "auto, always or off"),
		   "bad teardown_flush: %s", e.msg);
	}
	{
		char *av[] = {"teardown_threshold=12X"};
		ok(parse(&c, &e, 1, av) < 0 && strstr(e.msg, "e.g. 256M"),
		   "bad teardown_threshold: %s", e.msg);
	}
	{
		/* fuzz_plugin_args found this one: strtoll skipped the newline and
		 * took -2, a negative size shifted left (UBSan). */
		char *av[] = {"teardown_threshold=\n-2", "teardown_threshold= 5M",
		              "teardown_threshold=+5", "teardown_inodes= 5"};
		for (int i = 0; i < 4; i++)
			ok(parse(&c, &e, 1, av + i) < 0 && strstr(e.msg, "e.g."),
			   "white space or a sign before the number refused: %s", e.msg);
	}
	{
		char *av[] = {"teardown_deadline_ms=0"};
		ok(parse(&c, &e, 1, av) < 0 && strstr(e.msg, "10-600000"),
		   "teardown_deadline_ms out of range: %s", e.msg);
	}
	{
		char *av[] = {"discovery_deadline_ms=60000"};
		ok(parse(&c, &e, 1, av) == 0 && c.discovery_deadline_ms == 60000,
		   "discovery_deadline_ms=60000");
	}
	{
		char *av[] = {"discovery_deadline_ms=50"};
		ok(parse(&c, &e, 1, av) < 0 && strstr(e.msg, "100-600000 (default 10000)"),
		   "discovery_deadline_ms below 100: %s", e.msg);
	}
	{
		char *av[] = {"discovery_deadline_ms=10s"};
		ok(parse(&c, &e, 1, av) < 0 && strstr(e.msg, "'discovery_deadline_ms=10s'"),
		   "discovery_deadline_ms with a unit names the argument: %s", e.msg);
	}
	{
		char *av[] = {"verbose"};
		ok(parse(&c, &e, 1, av) < 0 && strstr(e.msg, "expected key=value"),
		   "bare word rejected: %s", e.msg);
	}

	memset(&e, 0, sizeof(e));
	ok(golden_nodename_expand("/fx/%n/root", "n2", out, sizeof(out), &e) == 0, "expand %%n");
	is(out, "/fx/n2/root", "node name substituted");
	ok(golden_nodename_expand("/a/100%%/%n%n", "x", out, sizeof(out), &e) == 0,
	   "expand %%%% and twice");
	is(out, "/a/100%/xx", "%% is a literal percent");
	ok(golden_nodename_expand("/plain", NULL, out, sizeof(out), &e) == 0,
	   "no %%n needs no node");
	is(out, "/plain", "unchanged");
	memset(&e, 0, sizeof(e));
	ok(golden_nodename_expand("/fx/%n", "../etc", out, sizeof(out), &e) < 0,
	   "a node name with a slash cannot climb out: %s", e.msg);
	memset(&e, 0, sizeof(e));
	ok(golden_nodename_expand("/fx/%n", "..", out, sizeof(out), &e) < 0, "'..' refused");
	memset(&e, 0, sizeof(e));
	ok(golden_nodename_expand("/fx/%n", NULL, out, sizeof(out), &e) < 0,
	   "missing node refused");
	ok(golden_nodename_expand("/fx/%n/very/long", "n1", out, 8, &e) < 0, "overflow refused");
	return done_testing();
}
