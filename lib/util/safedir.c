#include <config.h>

#include "util/safedir.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/strutil.h"

#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)

static bool trusted_owner(const struct stat *st)
{
	return st->st_uid == 0 || st->st_uid == geteuid();
}

/* Set errno and, if err, the line that says what is wrong with where. */
static int refuse(struct golden_err *err, int errnum, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int refuse(struct golden_err *err, int errnum, const char *where, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	golden_err_set(err, "%s: %s", where, why);
	errno = errnum;
	return -1;
}

/* The rule for one directory component (see safedir.h). group_above: a
 * root-owned directory above the last one may be group-writable
 * (golden_safedir_open_logdir). */
static int check_dir(int fd, const char *where, bool last, bool group_above, struct golden_err *err)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return refuse(err, errno, where, "cannot stat: %s", strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return refuse(err, ENOTDIR, where, "not a directory");
	if (!trusted_owner(&st))
		return refuse(err, EPERM, where,
		              "refusing directory owned by uid %u: it must belong to root%s",
		              (unsigned)st.st_uid, geteuid() ? " or to golden's own user" : "");
	if (!last && group_above && st.st_uid == 0 && !(st.st_mode & 002))
		return 0;
	if ((st.st_mode & 022) && (last || !(st.st_mode & S_ISVTX)))
		return refuse(err, EPERM, where,
		              "refusing directory writable by %s (mode %04o): only its owner may "
		              "write to it%s",
		              (st.st_mode & 002) ? "others" : "its group",
		              (unsigned)(st.st_mode & 07777),
		              last ? "" : " (or make it sticky, like /tmp)");
	return 0;
}

/* Why openat() refused name: a symlink or something else. */
static int open_failed(int dirfd, const char *name, const char *where, struct golden_err *err)
{
	int saved = errno;
	struct stat st;

	if ((saved == ELOOP || saved == ENOTDIR) &&
	    fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISLNK(st.st_mode))
			return refuse(err, ELOOP, where,
			              "refusing a symbolic link: golden never follows one here");
		if (!S_ISDIR(st.st_mode))
			return refuse(err, ENOTDIR, where, "not a directory");
	}
	return refuse(err, saved, where, "%s", strerror(saved));
}

/* One component: open (creating it if asked) and check it. */
static int step(int dirfd, const char *name, const char *where, bool last, bool group_above,
                unsigned create_mode, struct golden_err *err)
{
	bool created = false;
	int fd = openat(dirfd, name, DIR_FLAGS);

	if (fd < 0 && errno == ENOENT && create_mode) {
		if (mkdirat(dirfd, name, (mode_t)create_mode) == 0)
			created = true;
		else if (errno != EEXIST)
			return refuse(err, errno, where, "cannot create: %s", strerror(errno));
		fd = openat(dirfd, name, DIR_FLAGS);
	}
	if (fd < 0)
		return open_failed(dirfd, name, where, err);
	/* Exactly the mode asked for: the umask must not narrow it. */
	if (created && fchmod(fd, (mode_t)create_mode) < 0) {
		refuse(err, errno, where, "cannot set mode: %s", strerror(errno));
		close(fd);
		return -1;
	}
	if (check_dir(fd, where, last, group_above, err) < 0) {
		int saved = errno;

		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

static bool is_one_name(const char *name)
{
	return *name && !strchr(name, '/') && strcmp(name, ".") && strcmp(name, "..");
}

static int open_path(const char *path, unsigned create_mode, bool group_above,
                     struct golden_err *err)
{
	char full[PATH_MAX], where[PATH_MAX];
	size_t wl = 0;
	char *save = NULL, *name, *next;
	int fd;

	if (!path || !*path)
		return refuse(err, EINVAL, "(empty)", "no directory given");
	if (path[0] == '/') {
		if (golden_strlcpy(full, path, sizeof(full)) < 0)
			return refuse(err, ENAMETOOLONG, path, "path too long");
	} else {
		char cwd[PATH_MAX];
		int n;

		if (!getcwd(cwd, sizeof(cwd)))
			return refuse(err, errno, path, "cannot resolve the current directory: %s",
			              strerror(errno));
		n = snprintf(full, sizeof(full), "%s/%s", cwd, path);
		if (n < 0 || (size_t)n >= sizeof(full))
			return refuse(err, ENAMETOOLONG, path, "path too long");
	}
	fd = open("/", DIR_FLAGS);
	if (fd < 0)
		return refuse(err, errno, "/", "%s", strerror(errno));
	where[0] = '\0';
	name = strtok_r(full, "/", &save);
	/* skip "." and empty components up front, so "last" is known */
	while (name && !strcmp(name, "."))
		name = strtok_r(NULL, "/", &save);
	if (check_dir(fd, "/", name == NULL, group_above, err) < 0)
		goto fail;
	while (name) {
		int sub;

		next = strtok_r(NULL, "/", &save);
		while (next && !strcmp(next, "."))
			next = strtok_r(NULL, "/", &save);
		if (!strcmp(name, "..")) {
			refuse(err, EINVAL, path, "refusing '..' in a directory golden trusts");
			goto fail;
		}
		wl += (size_t)snprintf(where + wl, sizeof(where) - wl, "/%s", name);
		if (wl >= sizeof(where))
			wl = sizeof(where) - 1;
		sub = step(fd, name, where, next == NULL, group_above, create_mode, err);
		if (sub < 0)
			goto fail;
		close(fd);
		fd = sub;
		name = next;
	}
	return fd;
fail : {
	int saved = errno;

	close(fd);
	errno = saved;
	return -1;
}
}

int golden_safedir_open(const char *path, unsigned create_mode, struct golden_err *err)
{
	return open_path(path, create_mode, false, err);
}

int golden_safedir_open_logdir(const char *path, unsigned create_mode, struct golden_err *err)
{
	return open_path(path, create_mode, true, err);
}

int golden_safedir_sub(int dirfd, const char *name, unsigned create_mode, struct golden_err *err)
{
	if (!is_one_name(name))
		return refuse(err, EINVAL, name, "not a single directory name");
	return step(dirfd, name, name, true, false, create_mode, err);
}

static int check_file(int fd)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -1;
	if (!S_ISREG(st.st_mode) || !trusted_owner(&st) || (st.st_mode & 022)) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

int golden_safefile_open(int dirfd, const char *name)
{
	int fd, fl;

	if (!is_one_name(name)) {
		errno = EINVAL;
		return -1;
	}
	/* O_NONBLOCK: a FIFO planted here must not hang us; it is refused below. */
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (check_file(fd) < 0 || (fl = fcntl(fd, F_GETFL)) < 0 ||
	    fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		int saved = errno;

		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

char *golden_safefile_read(int dirfd, const char *name, size_t max, size_t *len)
{
	int fd = golden_safefile_open(dirfd, name);
	size_t got = 0;
	char *buf;

	if (fd < 0)
		return NULL;
	buf = malloc(max + 1);
	if (!buf) {
		close(fd);
		return NULL;
	}
	/* Read to the end rather than trust st_size: the file may be replaced. */
	for (;;) {
		ssize_t r = read(fd, buf + got, max + 1 - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int saved = errno;

			free(buf);
			close(fd);
			errno = saved;
			return NULL;
		}
		if (r == 0)
			break;
		got += (size_t)r;
		if (got > max) {
			free(buf);
			close(fd);
			errno = EFBIG;
			return NULL;
		}
	}
	close(fd);
	buf[got] = '\0';
	if (len)
		*len = got;
	return buf;
}

int golden_safefile_write(int dirfd, const char *name, const void *data, size_t len, unsigned mode)
{
	char tmp[NAME_MAX + 1];
	const char *p = data;
	size_t off = 0;
	int fd, saved, n;

	if (!is_one_name(name)) {
		errno = EINVAL;
		return -1;
	}
	n = snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", name, (long)getpid());
	if (n < 0 || (size_t)n >= sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	unlinkat(dirfd, tmp, 0); /* a leftover from a killed run with our pid is ours */
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, (mode_t)mode);
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
	if (renameat(dirfd, tmp, dirfd, name) < 0)
		goto fail;
	return 0;
fail:
	saved = errno;
	if (fd >= 0)
		close(fd);
	unlinkat(dirfd, tmp, 0);
	errno = saved;
	return -1;
}

int golden_safefile_lock(int dirfd, const char *name)
{
	int fd;

	if (!is_one_name(name)) {
		errno = EINVAL;
		return -1;
	}
	fd = openat(dirfd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	if (check_file(fd) < 0)
		goto fail;
	while (flock(fd, LOCK_EX) < 0)
		if (errno != EINTR)
			goto fail;
	return fd;
fail : {
	int saved = errno;

	close(fd);
	errno = saved;
	return -1;
}
}
