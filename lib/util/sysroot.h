/* Every sysfs/procfs read goes through one configurable root, so tests can
 * hand the code a fixture tree laid out exactly like the real /sys and /proc.
 * The root is an explicit argument: NULL or "" or "/" means the real one.
 */
#ifndef GOLDEN_UTIL_SYSROOT_H
#define GOLDEN_UTIL_SYSROOT_H

#include <dirent.h>
#include <stddef.h>
#include <sys/types.h>

/* Join root and an absolute path ("/sys/class/net"). Returns 0, or -1 if
 * the result does not fit. */
int golden_sys_path(const char *root, const char *abspath, char *buf, size_t len);

/* Read a small file (first line, trailing whitespace stripped).
 * Returns the length, or -1 (errno set) if it cannot be read. */
ssize_t golden_sys_read(const char *root, const char *abspath, char *buf, size_t len);

/* Read a whole small file (procfs/cgroupfs tables such as memory.stat),
 * NUL-terminated, cut at len - 1. Returns the length, or -1 (errno set). */
ssize_t golden_sys_read_all(const char *root, const char *abspath, char *buf, size_t len);

/* Read the file as an integer (decimal, or hex with 0x). Returns 0 or -1. */
int golden_sys_read_long(const char *root, const char *abspath, long *value);

/* Basename of a symlink's target (e.g. device -> ../../0000:18:00.0).
 * Returns 0 or -1. */
int golden_sys_link_base(const char *root, const char *abspath, char *buf, size_t len);

/* Does the path exist under root? */
int golden_sys_exists(const char *root, const char *abspath);

DIR *golden_sys_opendir(const char *root, const char *abspath);

#endif
