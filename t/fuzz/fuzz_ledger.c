/* The lifecycle ledger (lifecycle.json): the input as the file's text,
 * then what golden does with a loaded ledger: count episodes in the flap
 * window, record a new episode, a note and a drain, at the times found in
 * the file and at both ends of time. */
#include <config.h>

#include <limits.h>
#include <stdlib.h>

#include "node/ledger.h"
#include "node/lifecycle.h"
#include "t/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct golden_ledger *l = malloc(sizeof(*l));
	static const long long nows[] = {0, 1700000000, LLONG_MIN, LLONG_MAX};
	char *s;

	if (!l)
		abort();
	if (size > (1 << 20)) {
		free(l);
		return 0;
	}
	s = fuzz_string(data, size);
	if (golden_ledger_parse(s, l) == 0) {
		char key[64];

		golden_lifecycle_flap_key(l->hold.check, l->hold.code, key, sizeof(key));
		for (size_t i = 0; i < sizeof(nows) / sizeof(nows[0]); i++) {
			golden_ledger_episodes(l, key, nows[i], 24);
			golden_ledger_episodes(l, key, nows[i], INT_MAX);
		}
		if (l->nepisodes)
			golden_ledger_episodes(l, l->ep[0].key, l->ep[0].time, 1);
		golden_ledger_episode(l, key, l->hold.time, 24);
		golden_ledger_note(l, l->hold.applied_time, "fuzz", "%s", l->hold.reason);
		golden_ledger_count_drain(l, l->hold.check);
	}
	free(s);
	free(l);
	return 0;
}
