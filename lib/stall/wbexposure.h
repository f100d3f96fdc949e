/* Is this node exposed to the cgroup-writeback teardown stall? The kernel
 * version against the upstream fixes (v6.18 series e1b849cfa6b6, 66c14dccd810,
 * 9a6ebbdbd412 plus the use-after-free fix 6689f01d6740; stable 6.6.145 and
 * 6.12.94), memory+io on cgroup v2, and filesystems that attach inodes to
 * cgroup writeback contexts, with their atime options. */
#ifndef GOLDEN_STALL_WBEXPOSURE_H
#define GOLDEN_STALL_WBEXPOSURE_H

#include <stdbool.h>
#include <stddef.h>

enum golden_kernel_fix {
	GOLDEN_KFIX_UNKNOWN,
	GOLDEN_KFIX_NO_SWITCHING, /* before 5.14: dying cgwbs never switch inodes */
	GOLDEN_KFIX_UNFIXED,      /* quadratic switching, no fix */
	GOLDEN_KFIX_PARTIAL,      /* some of the fix: lockups still seen */
	GOLDEN_KFIX_FIXED
};

#define GOLDEN_EXPOSURE_MAX_FS 16

struct golden_exposure {
	char release[128];
	int major, minor, patch;
	enum golden_kernel_fix fix;
	char kernel_why[256];
	bool cgwb; /* memory and io on cgroup v2 */
	char cgwb_why[256];
	int nfs;
	char fs[GOLDEN_EXPOSURE_MAX_FS][704]; /* "/scratch ext4 relatime (reads attach inodes)" */
	bool exposed;
};

/* Classify a kernel version. Returns the verdict and a reason in why. */
enum golden_kernel_fix golden_exposure_kernel_fix(int major, int minor, int patch, char *why,
                                                  size_t len);

/* Gather the report from <sysroot>/proc/sys/kernel/osrelease, the mount
 * table and the cgroup hierarchy. */
void golden_exposure_read(const char *sysroot, struct golden_exposure *e);

/* The report as text lines (for golden check --kernel). */
void golden_exposure_format(const struct golden_exposure *e, char *buf, size_t len);

const char *golden_exposure_fix_name(enum golden_kernel_fix f);

#endif
