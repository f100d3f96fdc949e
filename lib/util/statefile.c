#include <config.h>

#include "util/statefile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/strutil.h"

int golden_mkdir_p(const char *dir)
{
	char path[PATH_MAX];
	size_t len;

	if (golden_strlcpy(path, dir, sizeof(path)) < 0) {
		errno = ENAMETOOLONG;
		return -1;
	}
	len = strlen(path);
	for (size_t i = 1; i <= len; i++) {
		if (path[i] != '/' && path[i] != '\0')
			continue;
		path[i] = '\0';
		if (mkdir(path, 0700) < 0 && errno != EEXIST)
			return -1;
		if (i < len)
			path[i] = '/';
	}
	return 0;
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

int golden_lock_file(const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd < 0)
		return -1;
	while (flock(fd, LOCK_EX) < 0) {
		if (errno != EINTR) {
			close(fd);
			return -1;
		}
	}
	return fd;
}

int golden_write_atomic(const char *path, const void *data, size_t len)
{
	return golden_write_atomic_mode(path, data, len, 0600);
}

int golden_write_atomic_mode(const char *path, const void *data, size_t len, unsigned mode)
{
	char tmp[PATH_MAX];
	const char *p = data;
	size_t off = 0;
	int fd, saved;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	unlink(tmp); /* a leftover from a killed run with our pid is ours */
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, (mode_t)mode);
	if (fd < 0)
		return -1;
	while (off < len) {
		ssize_t w = write(fd, p + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			goto fail;
		off += (size_t)w;
	}
	/* The umask must not narrow what a reader (node_exporter) needs. */
	if (fchmod(fd, (mode_t)mode) < 0 || fsync(fd) < 0)
		goto fail;
	if (close(fd) < 0) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (rename(tmp, path) < 0)
		goto fail;
	return 0;
fail:
	saved = errno;
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	errno = saved;
	return -1;
}
