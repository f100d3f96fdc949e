/* golden-healthcheck finds slurmd's slurm.conf from the parent's command
 * line or environment: the parsing, and the walk over a fixture /proc. */
#include <config.h>

#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "node/slurmd_conf.h"
#include "t/unit/tap.h"

/* sizeof of a literal with embedded NULs, as /proc gives it. */
#define CMD(s) (s), sizeof(s) - 1

static void cmdline_cases(void)
{
	char out[256];

	is_int(golden_slurmd_conf_from_cmdline(CMD("/usr/sbin/slurmd\0-f\0/etc/c1/slurm.conf\0"),
	                                       out, sizeof(out)),
	       1, "-f FILE is read");
	is(out, "/etc/c1/slurm.conf", "  the file");
	is_int(
	    golden_slurmd_conf_from_cmdline(CMD("slurmd\0-D\0-f/x/slurm.conf\0"), out, sizeof(out)),
	    1, "-fFILE is read");
	is(out, "/x/slurm.conf", "  the file");
	is_int(golden_slurmd_conf_from_cmdline(CMD("slurmd\0-N\0n1\0-Df\0/y/s.conf\0"), out,
	                                       sizeof(out)),
	       1, "-Df FILE (a cluster) after -N NAME is read");
	is(out, "/y/s.conf", "  the file");
	is_int(golden_slurmd_conf_from_cmdline(CMD("slurmd\0-N\0-f\0-D\0"), out, sizeof(out)), 0,
	       "-N's argument is not an option: '-f' there is a node name");
	is_int(golden_slurmd_conf_from_cmdline(CMD("slurmd\0-Nf\0-D\0"), out, sizeof(out)), 0,
	       "-Nf: f is -N's argument");
	is_int(golden_slurmd_conf_from_cmdline(CMD("slurmd\0--conf-server\0-fhost\0"), out,
	                                       sizeof(out)),
	       0, "--conf-server's argument is skipped");
	is_int(golden_slurmd_conf_from_cmdline(CMD("/usr/sbin/slurmd\0-D\0"), out, sizeof(out)), 0,
	       "slurmd without -f: 0 (its environment or the default)");
	is_int(golden_slurmd_conf_from_cmdline(CMD("slurmd\0-f\0slurm.conf\0"), out, sizeof(out)),
	       -1, "a relative -f is refused");
	is_int(golden_slurmd_conf_from_cmdline(CMD("slurmd\0-f\0"), out, sizeof(out)), -1,
	       "-f without a file: -1");
	is_int(golden_slurmd_conf_from_cmdline(CMD("/bin/sh\0-f\0/etc/slurm.conf\0"), out,
	                                       sizeof(out)),
	       -1, "not slurmd: -1");
	is_int(golden_slurmd_conf_from_cmdline(CMD("/opt/slurmd-wrapper\0-f\0/e/s.conf\0"), out,
	                                       sizeof(out)),
	       -1, "a name that only starts with slurmd: -1");
	is_int(golden_slurmd_conf_from_cmdline(CMD("slurmd\0-f\0/a/very/long/path/slurm.conf\0"),
	                                       out, 8),
	       -1, "a file that does not fit: -1");
	is_int(golden_slurmd_conf_from_environ(CMD("PATH=/bin\0SLURM_CONF=/e/slurm.conf\0"), out,
	                                       sizeof(out)),
	       1, "SLURM_CONF in the environment");
	is(out, "/e/slurm.conf", "  the file");
	is_int(golden_slurmd_conf_from_environ(CMD("SLURM_CONF=rel.conf\0"), out, sizeof(out)), 0,
	       "a relative SLURM_CONF is ignored");
	is_int(golden_slurmd_conf_from_environ(CMD("XSLURM_CONF=/e\0"), out, sizeof(out)), 0,
	       "only SLURM_CONF itself");
}

static char root[PATH_MAX];

static void put(const char *rel, const char *data, size_t len)
{
	char path[PATH_MAX], dir[PATH_MAX], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	*slash = '\0';
	for (char *p = dir + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(dir, 0755);
		*p = '/';
	}
	mkdir(dir, 0755);
	f = fopen(path, "w");
	if (!f || fwrite(data, 1, len, f) != len) {
		perror(path);
		exit(99);
	}
	fclose(f);
}

/* pid: its parent and its command line. */
static void proc(int pid, int ppid, const char *name, const char *cmd, size_t len)
{
	char rel[64], stat[256];

	snprintf(rel, sizeof(rel), "/proc/%d/stat", pid);
	/* A command name with ") " inside, as a process may call itself. */
	snprintf(stat, sizeof(stat), "%d (%s) S %d 1 1 0 -1\n", pid, name, ppid);
	put(rel, stat, strlen(stat));
	snprintf(rel, sizeof(rel), "/proc/%d/cmdline", pid);
	put(rel, cmd, len);
}

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static void walk_cases(void)
{
	char out[256];
	uid_t me = geteuid();

	snprintf(root, sizeof(root), "%s/slurmd_conf.XXXXXX",
	         getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		exit(99);
	}
	/* 300 (us) <- 200 (sh -c, run_command's) <- 100 (slurmd -f) <- 1 */
	proc(300, 200, "golden-healthch", CMD("/usr/sbin/golden-healthcheck\0"));
	proc(200, 100, "sh) S 7 (x", CMD("/bin/sh\0-c\0hc\0"));
	proc(100, 1, "slurmd", CMD("/usr/sbin/slurmd\0-N\0n1\0-f\0/c/etc/slurm.conf\0"));
	is_int(golden_slurmd_conf(root, 300, me, out, sizeof(out)), 1,
	       "walks up past a shell (its name with ') ' in it) to slurmd -f");
	is(out, "/c/etc/slurm.conf", "  slurmd's file");
	is_int(golden_slurmd_conf(root, 300, me + 1, out, sizeof(out)), 0,
	       "ancestors of another user are not believed");

	/* slurmd without -f: its SLURM_CONF (a systemd Environment=). */
	proc(101, 1, "slurmd", CMD("/usr/sbin/slurmd\0-D\0"));
	put("/proc/101/environ", CMD("LANG=C\0SLURM_CONF=/srv/slurm.conf\0"));
	proc(301, 101, "golden-healthch", CMD("golden-healthcheck\0"));
	is_int(golden_slurmd_conf(root, 301, me, out, sizeof(out)), 1,
	       "slurmd without -f: its SLURM_CONF");
	is(out, "/srv/slurm.conf", "  the file");

	/* No slurmd above (an admin runs it from a shell). */
	proc(302, 201, "golden-healthch", CMD("golden-healthcheck\0"));
	proc(201, 1, "bash", CMD("-bash\0"));
	is_int(golden_slurmd_conf(root, 302, me, out, sizeof(out)), 0, "no slurmd above: 0");
	is_int(golden_slurmd_conf(root, 999, me, out, sizeof(out)), 0, "no such process: 0");
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

int main(void)
{
	cmdline_cases();
	walk_cases();
	return done_testing();
}
