/* The --golden-nccl option value (and GOLDEN_NCCL for slurmrestd jobs),
 * against the shipped recipes when GOLDEN_FUZZ_RECIPES names them (as on a
 * compute node) and without them (a submit host). */
#include <config.h>

#include <stdlib.h>

#include "spank/option.h"
#include "t/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct golden_mode_opt m;
	char msg[1024], *s;

	if (size > 4096)
		return 0;
	s = fuzz_string(data, size);
	golden_mode_parse(s, NULL, &m, msg, sizeof(msg));
	golden_mode_parse(s, getenv("GOLDEN_FUZZ_RECIPES"), &m, msg, sizeof(msg));
	free(s);
	return 0;
}
