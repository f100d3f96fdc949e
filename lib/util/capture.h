/* Programs run for their output: many at once (one srun per node, one
 * scontrol, one ibnetdiscover), each an argv (no shell) in its own process
 * group under its own deadline, stdout collected whole (it may be
 * megabytes: an ibnetdiscover dump) and the tail of stderr kept for the
 * message a person reads when it failed. */
#ifndef GOLDEN_UTIL_CAPTURE_H
#define GOLDEN_UTIL_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define GOLDEN_CAPTURE_ERR_MAX 2048

struct golden_capture {
	/* in */
	char *const *argv; /* argv[0] an absolute path */
	int timeout_ms;
	/* out */
	char *out; /* stdout, malloc'd, NUL-terminated (NULL until it ran) */
	size_t outlen;
	char err[GOLDEN_CAPTURE_ERR_MAX]; /* the last bytes of stderr, NUL-terminated */
	int status;                       /* exit status; -1 timed out, killed or not started */
	bool timed_out;
	bool truncated; /* stdout passed max_out: the rest was dropped */
	/* private */
	pid_t pid;
	int outfd, errfd;
	long deadline;
	size_t outcap;
};

/* Run the n programs, at most `parallel` at a time, each under its
 * timeout_ms; stdout beyond max_out bytes is dropped (truncated set).
 * Returns 0 once every program finished or was killed at its deadline, -1
 * if out of memory. A child that cannot be killed (stuck in the kernel) is
 * abandoned, not waited for. */
int golden_capture_run(struct golden_capture *jobs, size_t n, int parallel, size_t max_out);

/* One program: golden_capture_run(job, 1, 1, max_out). */
int golden_capture_one(struct golden_capture *job, size_t max_out);

/* Free what a run allocated (out). */
void golden_capture_free(struct golden_capture *job);

/* The last non-empty line of job->err, trimmed, for a one-line message
 * (buf of len bytes); "exit status N" / "timed out after N ms" when stderr
 * said nothing. */
void golden_capture_reason(const struct golden_capture *job, char *buf, size_t len);

#endif
