/* The mount table (<sysroot>/proc/self/mounts, else /proc/mounts), read in
 * one place for the storage check, the cgroup roots, the teardown flush and
 * the exposure report. */
#ifndef GOLDEN_UTIL_MOUNTS_H
#define GOLDEN_UTIL_MOUNTS_H

#include <stdbool.h>

/* One line: "source point type options dump pass". Fields point into the
 * reader's buffer and live for one callback; point is unescaped; type and
 * opts are "" on a short line. */
struct golden_mount {
	const char *src, *point, *type, *opts;
};

/* Call fn for every mount until it returns non-zero. Returns 0, or -1 if no
 * table can be read. */
int golden_mounts_each(const char *sysroot, int (*fn)(const struct golden_mount *m, void *arg),
                       void *arg);

/* Does the mount carry option opt ("ro", "noatime", "memory")? */
bool golden_mount_has_opt(const struct golden_mount *m, const char *opt);

/* Decode the octal escapes of a /proc/mounts field (\040 space, \011 tab,
 * \012 newline, \134 backslash) in place. */
void golden_mount_unescape(char *s);

#endif
