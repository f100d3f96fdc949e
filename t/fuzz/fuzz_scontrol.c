/* `scontrol -o show node NODE` output, as golden reads a node's state and
 * drain reason from it. */
#include <config.h>

#include <stdlib.h>

#include "node/scontrol.h"
#include "t/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct golden_node_state st;
	char *s;

	if (size > 65536)
		return 0;
	s = fuzz_string(data, size);
	golden_node_state_parse(s, &st);
	golden_node_state_busy(&st);
	free(s);
	return 0;
}
