/* golden.conf: the input as the file, loaded as golden-prolog loads it,
 * then every lookup the checks make on the result. */
#include <config.h>

#include <stdlib.h>

#include "health/golden_conf.h"
#include "node/check_registry.h"
#include "t/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct golden_conf *conf = malloc(sizeof(*conf));
	struct golden_err err = {{0}};

	if (!conf)
		abort();
	golden_conf_init(conf); /* as golden_node_load_conf does */
	if (size <= 65536 &&
	    golden_conf_load(fuzz_file("golden.conf", data, size), false, conf, &err) == 0) {
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
	free(conf);
	return 0;
}
