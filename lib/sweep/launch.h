/* Running one sweep step: the launcher (srun) as a child in its own process
 * group, its stdout and stderr appended to the step's log, under a hard
 * deadline. At the deadline the group gets SIGTERM (srun then cancels the
 * job step in Slurm) and, 10 s later, SIGKILL. No shell: an argv. */
#ifndef GOLDEN_SWEEP_LAUNCH_H
#define GOLDEN_SWEEP_LAUNCH_H

struct golden_sweep_outcome {
	int exit_code; /* the launcher's exit status; -1 when killed or not started */
	int signal;    /* the signal that ended it, 0 none */
	int timed_out; /* 1: stopped at the deadline */
	long elapsed_ms;
};

/* Run argv[0] (an absolute path) with stdout and stderr on LOG_FD (stdin
 * /dev/null) for at most deadline_ms. Returns 0 when it ran (whatever its
 * status), -1 when it could not start. */
int golden_sweep_launch(char *const argv[], int log_fd, long deadline_ms,
                        struct golden_sweep_outcome *out);

#endif
