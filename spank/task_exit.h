/* The teardown probe in slurmstepd's task_exit path. */
#ifndef GOLDEN_SPANK_TASK_EXIT_H
#define GOLDEN_SPANK_TASK_EXIT_H

#include <slurm/spank.h>

#include "plugin_args.h"

/* Called for every task exit; probes once, after the step's last local task.
 * Never fails the step: errors are logged in one line. */
void golden_task_exit(spank_t sp, const struct golden_plugin_args *conf, const char *node);

#endif
