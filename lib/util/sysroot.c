#include "util/sysroot.h"

#include <errno.h>
#include <stdbool.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/strutil.h"

static bool is_real_root(const char *root)
{
	return !root || !*root || !strcmp(root, "/");
}

int golden_sys_path(const char *root, const char *abspath, char *buf, size_t len)
{
	int n;

	if (is_real_root(root))
		n = snprintf(buf, len, "%s", abspath);
	else
		n = snprintf(buf, len, "%s%s", root, abspath);
	return (n < 0 || (size_t)n >= len) ? -1 : 0;
}

ssize_t golden_sys_read_all(const char *root, const char *abspath, char *buf, size_t len)
{
	char path[PATH_MAX];
	FILE *f;
	size_t n;

	if (len == 0 || golden_sys_path(root, abspath, path, sizeof(path)) < 0) {
		errno = ENAMETOOLONG;
		return -1;
	}
	f = fopen(path, "re");
	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	/* sysfs reports a failing attribute (speed of a down link, EISDIR)
	 * as a read error, not as an empty value. */
	if (ferror(f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	buf[n] = '\0';
	return (ssize_t)n;
}

ssize_t golden_sys_read(const char *root, const char *abspath, char *buf, size_t len)
{
	if (golden_sys_read_all(root, abspath, buf, len) < 0)
		return -1;
	/* First line only: sysfs attributes are one value per file. */
	buf[strcspn(buf, "\n")] = '\0';
	golden_rtrim(buf);
	return (ssize_t)strlen(buf);
}

int golden_sys_read_long(const char *root, const char *abspath, long *value)
{
	char buf[64], *end;
	long v;

	if (golden_sys_read(root, abspath, buf, sizeof(buf)) <= 0)
		return -1;
	errno = 0;
	v = strncmp(buf, "0x", 2) ? strtol(buf, &end, 10) : strtol(buf + 2, &end, 16);
	if (errno || end == buf || (*end && *end != '\n'))
		return -1;
	*value = v;
	return 0;
}

int golden_sys_link_base(const char *root, const char *abspath, char *buf, size_t len)
{
	char path[PATH_MAX], target[PATH_MAX];
	ssize_t n;
	const char *base;

	if (golden_sys_path(root, abspath, path, sizeof(path)) < 0)
		return -1;
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return -1;
	target[n] = '\0';
	while (n > 1 && target[n - 1] == '/')
		target[--n] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	return golden_strlcpy(buf, base, len);
}

int golden_sys_exists(const char *root, const char *abspath)
{
	char path[PATH_MAX];

	if (golden_sys_path(root, abspath, path, sizeof(path)) < 0)
		return 0;
	return access(path, F_OK) == 0;
}

DIR *golden_sys_opendir(const char *root, const char *abspath)
{
	char path[PATH_MAX];

	if (golden_sys_path(root, abspath, path, sizeof(path)) < 0)
		return NULL;
	return opendir(path);
}
