/* The env cache file (CACHE/NODE.REQUEST.json): the input as its text,
 * looked up under the key "fuzz-key" (the seeds carry it, so the decision
 * inside is parsed), and the decision JSON on its own. */
#include <config.h>

#include <stdlib.h>

#include "env/cache.h"
#include "env/decision.h"
#include "t/fuzz/fuzz.h"
#include "util/jsonget.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct golden_decision res;
	struct json_object *o;
	char msg[1024], *s;

	if (size > 256 * 1024)
		return 0;
	s = fuzz_string(data, size);
	golden_decision_init(&res);
	golden_cache_parse(s, "fuzz-key", &res, msg, sizeof(msg));
	golden_decision_free(&res);
	o = golden_json_parse_object(s);
	if (o) {
		golden_decision_init(&res);
		golden_decision_from_json(o, &res, NULL);
		golden_decision_free(&res);
		json_object_put(o);
	}
	free(s);
	return 0;
}
