#include <config.h>

#include "node/slurmd_conf.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/strutil.h"
#include "util/sysroot.h"

/* Next NUL-separated field at *pos, or NULL at the end. */
static const char *next_field(const char *buf, size_t len, size_t *pos)
{
	const char *f;

	if (*pos >= len)
		return NULL;
	f = buf + *pos;
	*pos += strnlen(f, len - *pos) + 1;
	return f;
}

static int copy_abs(const char *path, char *out, size_t outlen)
{
	if (path[0] != '/' || golden_strlcpy(out, path, outlen) < 0)
		return -1;
	return 1;
}

/* slurmd's options that take an argument (slurmd.c's getopt string and
 * long options, 22.05 to 25.x): their argument is never an -f. */
static const char slurmd_short_args[] = "dLnN";
static const char *const slurmd_long_args[] = {"--conf",        "--conf-server",   "--extra",
                                               "--instance-id", "--instance-type", NULL};

static int long_takes_arg(const char *a)
{
	for (int i = 0; slurmd_long_args[i]; i++)
		if (!strcmp(a, slurmd_long_args[i]))
			return 1;
	return 0;
}

int golden_slurmd_conf_from_cmdline(const char *cmdline, size_t len, char *out, size_t outlen)
{
	size_t pos = 0;
	const char *arg0 = next_field(cmdline, len, &pos), *a, *base;

	if (!arg0)
		return -1;
	base = strrchr(arg0, '/');
	base = base ? base + 1 : arg0;
	if (strcmp(base, "slurmd") != 0)
		return -1;
	while ((a = next_field(cmdline, len, &pos))) {
		if (a[0] != '-' || a[1] == '\0')
			continue;
		if (a[1] == '-') {
			if (long_takes_arg(a))
				next_field(cmdline, len, &pos);
			continue;
		}
		/* A cluster of short options: -f FILE, -fFILE, -Df FILE. */
		for (const char *c = a + 1; *c; c++) {
			if (*c == 'f') {
				if (c[1])
					return copy_abs(c + 1, out, outlen);
				a = next_field(cmdline, len, &pos);
				return a ? copy_abs(a, out, outlen) : -1;
			}
			if (strchr(slurmd_short_args, *c)) {
				if (!c[1])
					next_field(cmdline, len, &pos);
				break;
			}
		}
	}
	return 0;
}

int golden_slurmd_conf_from_environ(const char *environ, size_t len, char *out, size_t outlen)
{
	size_t pos = 0;
	const char *e;

	while ((e = next_field(environ, len, &pos)))
		if (!strncmp(e, "SLURM_CONF=", 11))
			return copy_abs(e + 11, out, outlen) == 1 ? 1 : 0;
	return 0;
}

/* The parent pid from /proc/PID/stat: the field after the ")" that ends
 * the command name (which may itself contain ") "). */
static pid_t parent_of(const char *sysroot, pid_t pid)
{
	char path[64], buf[1024], *p;
	int ppid;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (golden_sys_read_all(sysroot, path, buf, sizeof(buf)) < 0)
		return -1;
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %d", &ppid) != 1)
		return -1;
	return (pid_t)ppid;
}

static int owned_by(const char *sysroot, pid_t pid, uid_t uid)
{
	char rel[64], path[PATH_MAX];
	struct stat st;

	snprintf(rel, sizeof(rel), "/proc/%d", (int)pid);
	if (golden_sys_path(sysroot, rel, path, sizeof(path)) < 0 || stat(path, &st) < 0)
		return 0;
	return st.st_uid == uid;
}

int golden_slurmd_conf(const char *sysroot, pid_t pid, uid_t uid, char *out, size_t outlen)
{
	char path[64], buf[8192];

	for (int depth = 0; depth < 4 && pid > 1; depth++) {
		ssize_t n;

		pid = parent_of(sysroot, pid);
		/* A process of another user could call itself slurmd: only
		 * ours (root's, for slurmd's programs) are believed. */
		if (pid <= 1 || !owned_by(sysroot, pid, uid))
			return 0;
		snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
		n = golden_sys_read_all(sysroot, path, buf, sizeof(buf));
		if (n <= 0)
			continue;
		switch (golden_slurmd_conf_from_cmdline(buf, (size_t)n, out, outlen)) {
		case 1:
			return 1;
		case 0:
			snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
			n = golden_sys_read_all(sysroot, path, buf, sizeof(buf));
			return n > 0 ? golden_slurmd_conf_from_environ(buf, (size_t)n, out, outlen)
			             : 0;
		default:
			break; /* not slurmd: a shell or run_command's child; go up */
		}
	}
	return 0;
}

void golden_slurmd_env_setup(const char *sysroot)
{
	char conf[PATH_MAX], golden[PATH_MAX], *slash;
	const char *slurm_conf = getenv("SLURM_CONF"), *golden_conf = getenv("GOLDEN_CONF");
	struct stat st;

	if (!slurm_conf || !*slurm_conf) {
		if (golden_slurmd_conf(sysroot, getpid(), geteuid(), conf, sizeof(conf)) != 1)
			return;
		setenv("SLURM_CONF", conf, 1);
	} else if (golden_strlcpy(conf, slurm_conf, sizeof(conf)) < 0) {
		return;
	}
	if (golden_conf && *golden_conf)
		return;
	slash = strrchr(conf, '/');
	if (!slash)
		return;
	slash[1] = '\0';
	if (golden_strlcpy(golden, conf, sizeof(golden)) < 0 ||
	    golden_strlcat(golden, "golden.conf", sizeof(golden)) < 0)
		return;
	/* Beside slurm.conf, or the built-in default (/etc/slurm/golden.conf)
	 * when there is none: the loader checks ownership and mode. */
	if (stat(golden, &st) == 0)
		setenv("GOLDEN_CONF", golden, 1);
}
