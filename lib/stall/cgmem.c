#include <config.h>

#include "stall/cgmem.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/mounts.h"
#include "util/satmath.h"
#include "util/strutil.h"
#include "util/sysroot.h"

static int find_roots(const struct golden_mount *m, void *arg)
{
	struct golden_cg_roots *r = arg;

	if (!r->v1_memory[0] && !strcmp(m->type, "cgroup") && golden_mount_has_opt(m, "memory"))
		golden_strlcpy(r->v1_memory, m->point, sizeof(r->v1_memory));
	else if (!r->v2[0] && !strcmp(m->type, "cgroup2"))
		golden_strlcpy(r->v2, m->point, sizeof(r->v2));
	return r->v1_memory[0] && r->v2[0];
}

int golden_cg_roots_read(const char *sysroot, struct golden_cg_roots *roots)
{
	roots->v1_memory[0] = roots->v2[0] = '\0';
	return golden_mounts_each(sysroot, find_roots, roots);
}

bool golden_cg_fs_writeback(const struct golden_mount *m)
{
	static const char *const block[] = {"ext4", "ext3", "ext2", "xfs", "btrfs", "f2fs", NULL};

	if (!strcmp(m->type, "lustre"))
		return true;
	for (int i = 0; block[i]; i++)
		if (!strcmp(m->type, block[i]))
			return golden_str_startswith(m->src, "/dev/");
	return false;
}

/* The path of this process in the hierarchy of one controller (v1: "memory"
 * in the controller list; v2: the "0::" line). */
static int self_cgroup(const char *sysroot, int version, char *out, size_t len)
{
	char path[PATH_MAX], line[4096];
	FILE *f;
	int rc = -1;

	if (golden_sys_path(sysroot, "/proc/self/cgroup", path, sizeof(path)) < 0 ||
	    !(f = fopen(path, "re")))
		return -1;
	while (rc < 0 && fgets(line, sizeof(line), f)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

		if (!c2)
			continue;
		*c1 = *c2 = '\0';
		golden_rtrim(c2 + 1);
		if (version == 2 ? (!strcmp(line, "0") && c1[1] == '\0')
		                 : golden_list_has(c1 + 1, ',', "memory"))
			rc = golden_strlcpy(out, c2 + 1, len) < 0 ? -1 : 0;
	}
	fclose(f);
	return rc;
}

static bool is_step_dir(const char *cg)
{
	const char *base = strrchr(cg, '/');

	return base && golden_str_startswith(base + 1, "step_") && strstr(cg, "/job_");
}

int golden_cg_step_dir(const char *sysroot, const struct golden_cg_roots *roots, char *out,
                       size_t len, int *version)
{
	const char *mnt;
	char cg[PATH_MAX], full[2 * PATH_MAX];

	/* v1 memory hierarchy first: where it is mounted, memory is not on v2. */
	if (roots->v1_memory[0]) {
		*version = 1;
		mnt = roots->v1_memory;
	} else if (roots->v2[0]) {
		*version = 2;
		mnt = roots->v2;
	} else {
		return -1;
	}
	if (self_cgroup(sysroot, *version, cg, sizeof(cg)) < 0)
		return -1;
	if (*version == 2) {
		char *slash = strrchr(cg, '/');

		/* slurmstepd lives in step_M/slurm, the tasks in step_M/user. */
		if (slash && !strcmp(slash, "/slurm"))
			*slash = '\0';
	}
	if (!is_step_dir(cg))
		return -1;
	snprintf(full, sizeof(full), "%s%s", mnt, cg);
	return golden_sys_path(sysroot, full, out, len);
}

long long golden_cg_keyed(const char *text, const char *key)
{
	size_t n = strlen(key);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, n) && p[n] == ' ')
			return strtoll(p + n + 1, NULL, 10);
	return -1;
}

/* The inode numbers of dir and of every cgroup below it: the keys of their
 * writeback contexts (WbCgIno). A dirty page belongs to the memcg of the
 * task that dirtied it, and Slurm's v2 layout puts tasks in
 * step_N/user/task_M and slurmstepd in step_N/slurm, never in step_N. */
static void cg_inos(const char *dir, unsigned long *inos, size_t *n, int depth)
{
	struct stat st;
	struct dirent *e;
	DIR *d;

	/* lstat: a symlink below a cgroup is not a cgroup, never followed */
	if (*n >= GOLDEN_CG_MAX_INOS || lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
		return;
	inos[(*n)++] = (unsigned long)st.st_ino;
	if (depth >= 8 || !(d = opendir(dir)))
		return;
	while ((e = readdir(d))) {
		char sub[PATH_MAX];

		if (e->d_name[0] == '.' || (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN))
			continue;
		if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name) < sizeof(sub))
			cg_inos(sub, inos, n, depth + 1);
	}
	closedir(d);
}

int golden_cg_measure(const char *sysroot, const char *dir, int version, struct golden_cgmem *m)
{
	char path[PATH_MAX + 16], text[16384];
	struct stat st;

	memset(m, 0, sizeof(*m));
	m->version = version;
	m->inodes = -1;
	snprintf(path, sizeof(path), "%s/memory.stat", dir);
	/* dir is already below the sysroot */
	if (golden_sys_read_all(NULL, path, text, sizeof(text)) < 0)
		return -1;
	if (version == 2) {
		m->dirty = golden_cg_keyed(text, "file_dirty");
		m->writeback = golden_cg_keyed(text, "file_writeback");
	} else {
		m->dirty = golden_cg_keyed(text, "total_dirty");
		m->writeback = golden_cg_keyed(text, "total_writeback");
		if (m->dirty < 0)
			m->dirty = golden_cg_keyed(text, "dirty");
		if (m->writeback < 0)
			m->writeback = golden_cg_keyed(text, "writeback");
	}
	if (stat(dir, &st) == 0)
		m->cg_ino = (unsigned long)st.st_ino;
	/* v1 memcgs have no writeback context of their own: nothing to count. */
	if (version == 2 && m->cg_ino) {
		unsigned long inos[GOLDEN_CG_MAX_INOS];
		size_t n = 0;

		cg_inos(dir, inos, &n, 0);
		m->inodes = golden_cg_wb_inodes(sysroot, inos, n);
	}
	return 0;
}

long long golden_cg_wb_stats_parse(FILE *f, const unsigned long *inos, size_t n)
{
	char line[256];
	bool mine = false;
	long long sum = 0;

	while (fgets(line, sizeof(line), f)) {
		char key[64], *end;
		const char *p;
		long long v;

		/* "  b_dirty:            3": a key, a colon, a decimal value */
		if (sscanf(line, " %63[^:]", key) != 1 || !(p = strchr(line, ':')))
			continue;
		errno = 0;
		v = strtoll(p + 1, &end, 10);
		if (end == p + 1 || errno)
			continue; /* not a number, or out of range: unknown */
		if (!strcmp(key, "WbCgIno")) {
			mine = false;
			for (size_t i = 0; v >= 0 && i < n && !mine; i++)
				mine = (unsigned long long)v == inos[i];
		} else if (mine && v > 0 &&
		           (!strcmp(key, "b_dirty") || !strcmp(key, "b_io") ||
		            !strcmp(key, "b_more_io") || !strcmp(key, "b_dirty_time")))
			sum = golden_sat_add(sum, v);
	}
	return sum;
}

/* One wb_stats file: blocks of "Key: value" lines, each starting with
 * WbCgIno; b_dirty, b_io, b_more_io and b_dirty_time count inodes. */
static long long wb_stats_inodes(const char *path, const unsigned long *inos, size_t n)
{
	FILE *f = fopen(path, "re");
	long long sum;

	if (!f)
		return 0;
	sum = golden_cg_wb_stats_parse(f, inos, n);
	fclose(f);
	return sum;
}

long long golden_cg_wb_inodes(const char *sysroot, const unsigned long *inos, size_t n)
{
	DIR *d = golden_sys_opendir(sysroot, "/sys/kernel/debug/bdi");
	struct dirent *e;
	long long sum = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char rel[512], path[PATH_MAX];

		if (e->d_name[0] == '.')
			continue;
		snprintf(rel, sizeof(rel), "/sys/kernel/debug/bdi/%s/wb_stats", e->d_name);
		if (golden_sys_path(sysroot, rel, path, sizeof(path)) == 0)
			sum = golden_sat_add(sum, wb_stats_inodes(path, inos, n));
	}
	closedir(d);
	return sum;
}

int golden_cg_writeback_on(const char *sysroot, const struct golden_cg_roots *roots, char *why,
                           size_t len)
{
	char rel[PATH_MAX + 32], ctl[512];
	bool on;

	if (roots->v1_memory[0]) {
		if (why)
			snprintf(why, len,
			         "memory controller on cgroup v1 (%s): no cgroup writeback",
			         roots->v1_memory);
		return 0;
	}
	if (!roots->v2[0]) {
		if (why)
			snprintf(why, len, "no cgroup2 mount");
		return 0;
	}
	snprintf(rel, sizeof(rel), "%s/cgroup.controllers", roots->v2);
	if (golden_sys_read(sysroot, rel, ctl, sizeof(ctl)) < 0) {
		if (why)
			snprintf(why, len, "cannot read %s", rel);
		return 0;
	}
	on = golden_list_has(ctl, ' ', "memory") && golden_list_has(ctl, ' ', "io");
	if (why)
		snprintf(why, len, "cgroup v2 at %s, controllers: %s", roots->v2, ctl);
	return on;
}
