/* golden-prolog: Slurm Prolog= program. A failed check drains the node with
 * golden's reason and exits 1, so Slurm requeues the job elsewhere. */
#include <config.h>

#include "node/node_main.h"

int main(int argc, char **argv)
{
	return golden_node_main(GOLDEN_PHASE_PROLOG, argc, argv);
}
