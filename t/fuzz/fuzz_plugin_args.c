/* The plugstack.conf line: the input split at spaces into the arguments
 * slurmstepd, srun and sbatch hand the plugin. */
#include <config.h>

#include <stdlib.h>

#include "spank/plugin_args.h"
#include "t/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct golden_plugin_args *conf = malloc(sizeof(*conf));
	struct golden_err err = {{0}};
	char *s, *av[64];
	int ac;

	if (!conf)
		abort();
	if (size > 16384) {
		free(conf);
		return 0;
	}
	s = fuzz_string(data, size);
	ac = fuzz_split(s, ' ', av, 64);
	golden_plugin_args_init(conf);
	golden_plugin_args_parse(conf, ac, av, &err);
	free(s);
	free(conf);
	return 0;
}
