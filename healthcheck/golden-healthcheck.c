/* golden-healthcheck: Slurm's HealthCheckProgram. slurmd runs it with only
 * SLURMD_NODENAME set, so it first finds slurmd's slurm.conf (the parent's
 * -f or SLURM_CONF) and golden.conf beside it, then runs the checks as
 * `golden check --healthcheck` does. */
#include <config.h>

#include "node/node_main.h"
#include "node/slurmd_conf.h"

int main(int argc, char **argv)
{
	golden_slurmd_env_setup(NULL);
	return golden_node_main(GOLDEN_PHASE_HEALTH, argc, argv);
}
