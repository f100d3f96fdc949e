/* golden.conf: the input as the file, loaded as golden-prolog loads it for
 * a node (its [nodes HOSTLIST|GLOB] and [feature NAME] sections matched
 * against "gpu007" with features "h100,ib"), and with no node; then every
 * lookup the checks make on the result. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "health/golden_conf.h"
#include "node/check_registry.h"
#include "t/fuzz/fuzz.h"
#include "util/strutil.h"

static int features(void *arg, char *buf, size_t len)
{
	(void)arg;
	return golden_strlcpy(buf, "h100,ib", len);
}

static void explain(void *arg, const char *where, const char *key, const char *value,
                    const char *why)
{
	(void)arg;
	(void)where;
	(void)key;
	(void)value;
	(void)why;
}

static void warn(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

static void lookups(const struct golden_conf *conf)
{
	for (int x = 0; x < 200; x++)
		golden_conf_xid(conf, x);
	for (int i = 0; i < conf->nchecks; i++) {
		const struct golden_check *c = golden_check_find(conf->checks[i].name);
		int deadline;
		unsigned phases;

		if (c)
			golden_conf_check(conf, c, &deadline, &phases);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct golden_conf_node node = {"gpu007", features, explain, warn, NULL};
	struct golden_conf *conf = malloc(sizeof(*conf));
	struct golden_err err = {{0}};
	const char *path;

	if (!conf)
		abort();
	if (size > 65536) {
		free(conf);
		return 0;
	}
	path = fuzz_file("golden.conf", data, size);
	golden_conf_init(conf); /* as golden_node_load_conf does */
	if (golden_conf_load_node(path, false, &node, conf, &err) == 0)
		lookups(conf);
	golden_conf_init(conf);
	memset(&err, 0, sizeof(err));
	if (golden_conf_load(path, false, conf, &err) == 0)
		lookups(conf);
	free(conf);
	return 0;
}
