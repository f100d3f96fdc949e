/* Child processes under hard deadlines: the one mechanism every check, every
 * scontrol call and every guarded library call goes through, so that a hung
 * driver call, NFS statfs or controller costs at most its deadline. A child
 * runs in its own process group and is killed as a group; a child stuck in
 * D state (unkillable until its I/O returns) is abandoned, not waited for. */
#ifndef GOLDEN_UTIL_CHILD_H
#define GOLDEN_UTIL_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The most children golden_child_wait_all watches at once. */
#define GOLDEN_CHILD_MAX 64

struct golden_child {
	pid_t pid;
	int fd; /* read end of a pipe only the child holds: EOF when it is gone */
	long deadline;
	long finished; /* when EOF arrived: the child's own duration */
	bool done;
};

/* CLOCK_MONOTONIC in milliseconds. */
long golden_child_now_ms(void);
/* CLOCK_REALTIME in milliseconds since the epoch: for records (a drill's
 * times, a drain's decision) compared across processes, not for deadlines. */
long long golden_epoch_ms(void);

/* Start fn(shared, arg) in a child of its own process group, with stdin,
 * stdout and stderr on /dev/null. Returns 0, or -1 if it could not start.
 * The caller sets ch->deadline. */
int golden_child_spawn(struct golden_child *ch, void (*fn)(void *shared, void *arg), void *shared,
                       void *arg);

/* Wait until each child is done or past its deadline (n <= GOLDEN_CHILD_MAX). */
void golden_child_wait_all(struct golden_child *ch, int n);

/* Kill the child's group. Returns false if it did not die: stuck in the kernel. */
bool golden_child_kill(pid_t pid);

/* Reap a child that is done (EOF on its pipe), waiting no later than its
 * deadline (golden_child_now_ms clock; at least a few ms past the EOF): 0 if
 * it exited 0, -1 if it failed (*sig: the signal that killed it, or 0), 1 if
 * it had not exited by then (it closed the pipe and kept running, or hangs
 * on its way out): it is then killed, or abandoned if it does not die. */
int golden_child_exit_status(pid_t pid, long deadline, int *sig);

/* Run fn(arg) in a child under deadline_ms, sharing `size` bytes of result
 * memory with it (the child writes, the parent reads after it exited).
 * Returns 0 if the child finished, 1 on timeout, -1 if it could not start
 * or crashed. */
int golden_child_run(void (*fn)(void *shared, void *arg), void *arg, void *shared, size_t size,
                     int deadline_ms);

/* exec argv (argv[0] an absolute path, no shell) with stdout captured into
 * out (NUL-terminated, truncated to outlen; out may be NULL), under
 * timeout_ms, all of it: a program that closes stdout and keeps running is
 * killed at the deadline like one that never writes. Returns the exit
 * status, or -1 on timeout or failure. */
int golden_child_capture(char *const argv[], char *out, size_t outlen, int timeout_ms);

/* name on PATH (absolute entries only: a relative one would depend on the
 * cwd), or name itself when it holds a '/' (then it must be absolute), into
 * buf. Returns 0, or -1 (buf "" when nothing was found). */
int golden_child_which(const char *name, char *buf, size_t len);

#endif
