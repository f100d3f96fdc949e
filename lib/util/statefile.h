/* Small state files (kmsg cursor, IB counters, the env cache): created in
 * root-only directories and replaced atomically, so a reader, or a run
 * killed at its deadline, sees the old file or the new one, never half. */
#ifndef GOLDEN_UTIL_STATEFILE_H
#define GOLDEN_UTIL_STATEFILE_H

#include <stddef.h>

/* mkdir -p; directories we create get mode 0700, existing ones are kept.
 * Returns 0 or -1 (errno set). */
int golden_mkdir_p(const char *dir);

/* Write data to path through a temporary file in the same directory
 * (O_EXCL|O_NOFOLLOW, mode 0600), fsync, rename. Returns 0 or -1 (errno). */
int golden_write_atomic(const char *path, const void *data, size_t len);
/* dir/name into buf. Returns 0, or -1 (ENAMETOOLONG). */
int golden_path_join(char *buf, size_t len, const char *dir, const char *name);

/* Open (creating 0600, no symlinks) and flock LOCK_EX a lock file. Returns
 * the fd (close it to unlock), or -1. */
int golden_lock_file(const char *path);

/* The same with another file mode (metrics that node_exporter reads: 0644). */
int golden_write_atomic_mode(const char *path, const void *data, size_t len, unsigned mode);

#endif
