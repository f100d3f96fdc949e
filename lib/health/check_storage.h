/* Storage health checks (check_storage.c): the `mounts` check. The table is
 * golden_storage_checks[] in check.h. */
#ifndef GOLDEN_HEALTH_CHECK_STORAGE_H
#define GOLDEN_HEALTH_CHECK_STORAGE_H

#include <stdbool.h>
#include <stddef.h>

#include "health/check.h"
#include "util/mounts.h"

/* Check one mount point: listed in <sysroot>/proc/self/mounts (or
 * /proc/mounts), then statfs() on the real path. statfs cannot be redirected
 * into a sysroot, and it may block forever on a dead NFS/Lustre server: call
 * this in a child process under a deadline (the runner does), one mount per
 * child if the caller needs to know which mount hung. Returns 0 if healthy,
 * -1 with a DRAIN (or, for an unreadable mount table, a warning) in res. */
int golden_storage_check_mount(const char *mnt, const char *sysroot,
                               struct golden_check_result *res);

/* Is mnt a mount point in the mount table under sysroot? 1 yes, 0 no, -1 the
 * table cannot be read. Trailing slashes in mnt are ignored. */
int golden_storage_mount_listed(const char *sysroot, const char *mnt);

#endif
