/* Where slurmd's configuration is, for a program slurmd starts with an
 * almost empty environment (HealthCheckProgram gets only SLURMD_NODENAME):
 * a slurmd started as `slurmd -f FILE`, or with SLURM_CONF in its
 * environment, does not pass FILE on, and scontrol would then read the
 * default slurm.conf of another (or no) cluster. */
#ifndef GOLDEN_NODE_SLURMD_CONF_H
#define GOLDEN_NODE_SLURMD_CONF_H

#include <stddef.h>
#include <sys/types.h>

/* From one process's NUL-separated command line (/proc/PID/cmdline, len
 * bytes): 1 and the FILE of `-f FILE` or `-fFILE` in out when argv[0] is
 * slurmd, 0 when it is slurmd without -f, -1 when it is not slurmd (or FILE
 * is not absolute or does not fit). */
int golden_slurmd_conf_from_cmdline(const char *cmdline, size_t len, char *out, size_t outlen);

/* From one process's NUL-separated environment (/proc/PID/environ): 1 and
 * the value of SLURM_CONF (absolute paths only), else 0. */
int golden_slurmd_conf_from_environ(const char *environ, size_t len, char *out, size_t outlen);

/* Walk up from pid (at most 4 ancestors, each owned by uid) to the first
 * slurmd and return 1 with its configuration file (-f, else its SLURM_CONF),
 * 0 when there is no slurmd above or it uses the default. /proc is read
 * below sysroot (NULL: the real one). */
int golden_slurmd_conf(const char *sysroot, pid_t pid, uid_t uid, char *out, size_t outlen);

/* For a program slurmd started: set SLURM_CONF (when unset) to slurmd's
 * configuration, and GOLDEN_CONF (when unset) to golden.conf beside it if
 * that file exists. Never fails: without a slurmd above, nothing changes. */
void golden_slurmd_env_setup(const char *sysroot);

#endif
