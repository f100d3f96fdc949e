#include <config.h>

#include "util/statefile.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/safedir.h"
#include "util/strutil.h"

int golden_state_dir(const char *dir, unsigned create_mode, struct golden_err *err)
{
	int fd = golden_safedir_open(dir, create_mode, err);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

int golden_mkdir_p(const char *dir)
{
	return golden_state_dir(dir, 0700, NULL);
}

int golden_path_join(char *buf, size_t len, const char *dir, const char *name)
{
	int n = snprintf(buf, len, "%s/%s", dir, name);

	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* Open the trusted directory of path; *base points at the file name in it. */
static int open_parent(const char *path, const char **base)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');

	if (!slash) {
		*base = path;
		return golden_safedir_open(".", 0, NULL);
	}
	*base = slash + 1;
	if ((size_t)(slash - path) >= sizeof(dir)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (slash == path) {
		dir[0] = '/';
		dir[1] = '\0';
	} else {
		memcpy(dir, path, (size_t)(slash - path));
		dir[slash - path] = '\0';
	}
	return golden_safedir_open(dir, 0, NULL);
}

/* Close dfd keeping the errno of what failed before. */
static void close_keep_errno(int dfd)
{
	int saved = errno;

	close(dfd);
	errno = saved;
}

int golden_lock_file(const char *path)
{
	const char *base;
	int dfd = open_parent(path, &base), fd;

	if (dfd < 0)
		return -1;
	fd = golden_safefile_lock(dfd, base);
	close_keep_errno(dfd);
	return fd;
}

int golden_write_atomic(const char *path, const void *data, size_t len)
{
	return golden_write_atomic_mode(path, data, len, 0600);
}

int golden_write_atomic_mode(const char *path, const void *data, size_t len, unsigned mode)
{
	const char *base;
	int dfd = open_parent(path, &base), rc;

	if (dfd < 0)
		return -1;
	rc = golden_safefile_write(dfd, base, data, len, mode);
	close_keep_errno(dfd);
	return rc;
}

char *golden_read_trusted(const char *path, size_t max, size_t *len)
{
	const char *base;
	int dfd = open_parent(path, &base);
	char *buf;

	if (dfd < 0)
		return NULL;
	buf = golden_safefile_read(dfd, base, max, len);
	close_keep_errno(dfd);
	return buf;
}

int golden_unlink_trusted(const char *path)
{
	const char *base;
	int dfd = open_parent(path, &base), rc;

	if (dfd < 0)
		return -1;
	rc = unlinkat(dfd, base, 0);
	close_keep_errno(dfd);
	return rc;
}
