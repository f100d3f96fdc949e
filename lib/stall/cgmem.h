/* What a step leaves behind in its memory cgroup, read before Slurm removes
 * it: dirty and writeback bytes (memory.stat) and, where debugfs is mounted,
 * the inodes attached to the cgroup's writeback context (bdi wb_stats). And
 * whether this node is exposed to the teardown stall at all: only with
 * memory and io on the cgroup v2 hierarchy does a memcg get its own
 * writeback context whose inodes must be switched when it dies. */
#ifndef GOLDEN_STALL_CGMEM_H
#define GOLDEN_STALL_CGMEM_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct golden_cgmem {
	int version;          /* 1 or 2 */
	long long dirty;      /* bytes; -1 unknown */
	long long writeback;  /* bytes; -1 unknown */
	long long inodes;     /* inodes on the cgroup's wb lists; -1 unknown (no debugfs, v1) */
	unsigned long cg_ino; /* inode number of the cgroup directory (WbCgIno) */
};

/* Where the memory controller's hierarchies are mounted, from one pass over
 * the mount table: the v1 memory hierarchy and the cgroup2 one ("" if
 * absent). Returns 0, or -1 if the mount table cannot be read. */
struct golden_cg_roots {
	char v1_memory[PATH_MAX];
	char v2[PATH_MAX];
};
int golden_cg_roots_read(const char *sysroot, struct golden_cg_roots *roots);

/* The memory cgroup directory of the calling process's step, from
 * <sysroot>/proc/self/cgroup: the v1 memory hierarchy (slurmstepd sits in
 * .../job_N/step_M) or the v2 one (slurmstepd sits in .../job_N/step_M/slurm,
 * the step is its parent). Returns 0 with the path under sysroot and the
 * version, or -1 if this process is not in a step cgroup
 * (proctrack/linuxproc, no memory controller). */
int golden_cg_step_dir(const char *sysroot, const struct golden_cg_roots *roots, char *out,
                       size_t len, int *version);

/* Read dirty/writeback of dir (hierarchical: v1 total_dirty, v2 file_dirty),
 * and the wb_stats inode count when version 2 and debugfs is there.
 * Returns 0 or -1 (errno) if memory.stat cannot be read. */
int golden_cg_measure(const char *sysroot, const char *dir, int version, struct golden_cgmem *m);

/* Inodes attached to the writeback contexts of the n cgroup inodes inos
 * (a step's cgroup and those below it: a dirty page belongs to the memcg of
 * the task that dirtied it), summed over
 * <sysroot>/sys/kernel/debug/bdi/ * /wb_stats; -1 without debugfs. */
#define GOLDEN_CG_MAX_INOS 512
long long golden_cg_wb_inodes(const char *sysroot, const unsigned long *inos, size_t n);

/* The same for one wb_stats text (blocks of "Key: value" lines starting
 * with WbCgIno): the inodes of the blocks of any of inos, saturating;
 * lines that are not "key: number" are skipped. */
long long golden_cg_wb_stats_parse(FILE *f, const unsigned long *inos, size_t n);

/* Are memory and io controllers on the v2 hierarchy (cgroup writeback on)?
 * 1 yes, 0 no; why (if not NULL) says what was found. */
int golden_cg_writeback_on(const char *sysroot, const struct golden_cg_roots *roots, char *why,
                           size_t len);

/* The value of key in a flat-keyed cgroup file ("key value" per line:
 * memory.stat, cgroup.stat); -1 if absent. */
long long golden_cg_keyed(const char *text, const char *key);

struct golden_mount;
/* Does this filesystem attach inodes to cgroup writeback contexts
 * (SB_I_CGROUPWB on a real block device: ext2/3/4, xfs, btrfs, f2fs; or a
 * Lustre client, which has it since 2.16)? The one list the teardown flush
 * and the exposure report share. */
bool golden_cg_fs_writeback(const struct golden_mount *m);

#endif
