/* Directories golden creates or trusts (state_dir, teardown_dir, the env
 * cache, metrics_dir) and the files in them.
 *
 * golden runs as root. A path an ordinary user can redirect (a symlink in
 * any component, a directory the user owns or may write into) would let that
 * user make root read, write or unlink files elsewhere; a FIFO where a file
 * belongs would hang it. So a directory is walked one component at a time
 * from "/" with openat(O_DIRECTORY | O_NOFOLLOW), and every component must be
 *   - a real directory, never a symlink;
 *   - owned by root or by the effective uid;
 *   - not writable by group or others. A directory above the last one may
 *     be, if it is sticky (/tmp: others cannot rename or remove what root
 *     made in it). The last one never may.
 * A relative path is taken from the current directory, checked from "/"
 * as well; ".." is refused.
 *
 * Files are then reached only through the directory's fd: opened with
 * openat(O_NOFOLLOW | O_NONBLOCK) and fstat()ed (a regular file with the
 * same owner rule, not writable by group or others), replaced atomically
 * through a temporary file in the same directory and renameat(), removed
 * with unlinkat().
 *
 * Errors: -1 with errno (EPERM: refused as unsafe; ELOOP: a symlink;
 * ENOTDIR; ENOENT: missing; others from the system), and, where err is not
 * NULL, one line saying which path and why.
 */
#ifndef GOLDEN_UTIL_SAFEDIR_H
#define GOLDEN_UTIL_SAFEDIR_H

#include <stddef.h>

#include "util/errbuf.h"

/* Open the directory path (see above). create_mode 0: every component
 * must exist; otherwise missing ones are created with exactly that mode
 * (the umask does not narrow it: node_exporter needs 0755 metrics). Returns
 * an O_RDONLY|O_DIRECTORY fd (close it), or -1. */
int golden_safedir_open(const char *path, unsigned create_mode, struct golden_err *err);

/* The same for the directory of a log golden appends to (the health log,
 * default /var/log/slurm-golden): a directory above the last one may also
 * be group-writable when root owns it and others cannot write to it.
 * Ubuntu ships /var/log as 0775 root:syslog; its group is the logging
 * daemon's, which may write every log there anyway. Symlinks are refused in
 * every component and the last one, golden's own, keeps the full rule. */
int golden_safedir_open_logdir(const char *path, unsigned create_mode, struct golden_err *err);

/* The same for one more component inside a trusted directory fd (name:
 * no '/', not "." or ".."); it is held to the rule of a last component. */
int golden_safedir_sub(int dirfd, const char *name, unsigned create_mode, struct golden_err *err);

/* Open name in dirfd read-only, refusing symlinks, FIFOs, devices and
 * files owned by another user or writable by group/others (EPERM). The fd
 * is blocking again for a regular file. Returns the fd or -1. */
int golden_safefile_open(int dirfd, const char *name);

/* Read the whole file (as golden_safefile_open) into a malloc'd
 * NUL-terminated buffer; *len (if not NULL) gets its size. A file larger
 * than max is refused (EFBIG). Returns the buffer (free it) or NULL. */
char *golden_safefile_read(int dirfd, const char *name, size_t max, size_t *len);

/* Replace name in dirfd with data: a temporary file (O_EXCL|O_NOFOLLOW,
 * mode) in the same directory, fsync, renameat. Returns 0 or -1. */
int golden_safefile_write(int dirfd, const char *name, const void *data, size_t len, unsigned mode);

/* Open (creating 0600, no symlinks, regular files only) and flock LOCK_EX
 * a lock file in dirfd. Returns the fd (close it to unlock) or -1. */
int golden_safefile_lock(int dirfd, const char *name);

#endif
