/* golden-epilog: Slurm Epilog= program. Faults raised during the job are
 * attributed to it; only hardware faults drain. */
#include <config.h>

#include "node/node_main.h"

int main(int argc, char **argv)
{
	return golden_node_main(GOLDEN_PHASE_EPILOG, argc, argv);
}
