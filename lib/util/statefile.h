/* Small state files (kmsg cursor, ledger, IB counters, watch state, the
 * env cache, teardown records, metrics) by path: conveniences over
 * util/safedir, so every one of them gets its rules. Each call walks its
 * directory again from "/" (no component a symlink, each owned by root or
 * us, none writable by others), then reaches the file only through that
 * directory: a reader, or a run killed at its deadline, sees the old file or
 * the new one, never half, and never a file somewhere else. */
#ifndef GOLDEN_UTIL_STATEFILE_H
#define GOLDEN_UTIL_STATEFILE_H

#include <stddef.h>

#include "util/errbuf.h"

/* Create-or-trust dir (util/safedir): missing components are made 0700.
 * Returns 0 or -1 (errno; err, if not NULL, says which component and why). */
int golden_mkdir_p(const char *dir);
int golden_state_dir(const char *dir, unsigned create_mode, struct golden_err *err);

/* Write data to path through a temporary file in the same (trusted,
 * existing) directory (O_EXCL|O_NOFOLLOW, mode 0600), fsync, rename.
 * Returns 0 or -1 (errno). */
int golden_write_atomic(const char *path, const void *data, size_t len);
/* The same with another file mode (metrics that node_exporter reads: 0644). */
int golden_write_atomic_mode(const char *path, const void *data, size_t len, unsigned mode);

/* Read a whole file of a trusted directory (a regular file, ours, not
 * writable by others, at most max bytes) into a malloc'd NUL-terminated
 * buffer; *len (if not NULL) gets its size. NULL with errno: ENOENT when
 * it (or its directory) does not exist, EPERM/ELOOP when refused. */
char *golden_read_trusted(const char *path, size_t max, size_t *len);

/* Remove a file of a trusted directory (never a directory, never through
 * a symlink). Returns 0 or -1 (errno; ENOENT if absent). */
int golden_unlink_trusted(const char *path);

/* dir/name into buf. Returns 0, or -1 (ENAMETOOLONG). */
int golden_path_join(char *buf, size_t len, const char *dir, const char *name);

/* Open (creating 0600, no symlinks) and flock LOCK_EX a lock file in a
 * trusted directory. Returns the fd (close it to unlock), or -1. */
int golden_lock_file(const char *path);

#endif
