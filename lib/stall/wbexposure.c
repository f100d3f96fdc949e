#include <config.h>

#include "stall/wbexposure.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "stall/cgmem.h"
#include "util/mounts.h"
#include "util/strutil.h"
#include "util/sysroot.h"

const char *golden_exposure_fix_name(enum golden_kernel_fix f)
{
	static const char *const names[] = {"unknown", "no-switching", "unfixed", "partial",
	                                    "fixed"};

	return names[f];
}

#define V(a, b, c) ((a)*1000000L + (b)*1000L + (c))

enum golden_kernel_fix golden_exposure_kernel_fix(int major, int minor, int patch, char *why,
                                                  size_t len)
{
	long v = V(major, minor, patch);

	if (major <= 0) {
		snprintf(why, len, "kernel version not recognised");
		return GOLDEN_KFIX_UNKNOWN;
	}
	if (v < V(5, 14, 0)) {
		snprintf(why, len, "before 5.14 dying writeback contexts do not switch inodes");
		return GOLDEN_KFIX_NO_SWITCHING;
	}
	if ((major == 6 && minor == 18 && patch >= 25) || v >= V(7, 0, 2) ||
	    (major == 6 && minor == 12 && patch >= 94) ||
	    (major == 6 && minor == 6 && patch >= 145) ||
	    (major == 6 && minor == 1 && patch >= 178)) {
		snprintf(why, len,
		         "carries the full fix (e1b849cfa6b6 + 66c14dccd810 + 9a6ebbdbd412 "
		         "+ use-after-free fix 6689f01d6740)");
		return GOLDEN_KFIX_FIXED;
	}
	if ((major == 6 && minor >= 18) || major == 7) {
		snprintf(why, len,
		         "has the v6.18 fix but the use-after-free CVE-2026-31703 "
		         "(fixed in 6.18.25 and 7.0.2)");
		return GOLDEN_KFIX_PARTIAL;
	}
	if ((major == 6 && minor == 12 && patch >= 54) ||
	    (major == 6 && minor == 17 && patch >= 4) ||
	    (major == 6 && minor == 1 && patch >= 157)) {
		snprintf(why, len,
		         "cond_resched and append-not-sort backported, not e1b849cfa6b6: "
		         "workqueue lockups still reported (6.12, Cloudflare 2026); full "
		         "fix in 6.1.178, 6.6.145, 6.12.94, 6.18.25");
		return GOLDEN_KFIX_PARTIAL;
	}
	snprintf(why, len,
	         "quadratic inode switching on cgroup removal unfixed (full fix in "
	         "6.1.178, 6.6.145, 6.12.94, 6.18.25)");
	return GOLDEN_KFIX_UNFIXED;
}

/* The Lustre client sets SB_I_CGROUPWB only since 2.16 (LU-16954). Its
 * version is in /sys/fs/lustre/version (older clients: /proc/fs/lustre).
 * Returns 1 (cgroup writeback), 0 (older client), -1 (unknown: assume yes). */
static int lustre_cgwb(const char *sysroot)
{
	char ver[64];
	const char *digits;
	int major = 0, minor = 0;

	if (golden_sys_read(sysroot, "/sys/fs/lustre/version", ver, sizeof(ver)) < 0 &&
	    golden_sys_read(sysroot, "/proc/fs/lustre/version", ver, sizeof(ver)) < 0)
		return -1;
	/* "2.15.4" or "lustre: 2.15.4" */
	digits = strpbrk(ver, "0123456789");
	if (!digits || sscanf(digits, "%d.%d", &major, &minor) != 2)
		return -1;
	return major > 2 || (major == 2 && minor >= 16);
}

struct fs_arg {
	struct golden_exposure *e;
	int lustre; /* lustre_cgwb(), read once */
};

static int add_fs(const struct golden_mount *m, void *arg)
{
	struct fs_arg *a = arg;
	struct golden_exposure *e = a->e;

	if (!golden_cg_fs_writeback(m))
		return 0;
	if (!strcmp(m->type, "lustre") && a->lustre == 0)
		return 0; /* a client before 2.16: no cgroup writeback */
	if (snprintf(e->fs[e->nfs++], sizeof(e->fs[0]), "%s %s %s%s", m->point, m->type,
	             golden_mount_has_opt(m, "noatime") ? "noatime"
	                                                : "atime updates on reads attach inodes",
	             golden_mount_has_opt(m, "lazytime")
	                 ? ", lazytime (dirty-time inodes take the slow path)"
	                 : "") >= (int)sizeof(e->fs[0]))
		e->fs[e->nfs - 1][sizeof(e->fs[0]) - 1] = '\0'; /* a long mount point: cut */
	return e->nfs == GOLDEN_EXPOSURE_MAX_FS;
}

void golden_exposure_read(const char *sysroot, struct golden_exposure *e)
{
	struct golden_cg_roots roots;
	struct fs_arg fa;

	memset(e, 0, sizeof(*e));
	fa = (struct fs_arg){e, lustre_cgwb(sysroot)};
	if (golden_sys_read(sysroot, "/proc/sys/kernel/osrelease", e->release, sizeof(e->release)) <
	    0)
		golden_strlcpy(e->release, "unknown", sizeof(e->release));
	if (sscanf(e->release, "%d.%d.%d", &e->major, &e->minor, &e->patch) < 2)
		e->major = e->minor = e->patch = 0;
	e->fix = golden_exposure_kernel_fix(e->major, e->minor, e->patch, e->kernel_why,
	                                    sizeof(e->kernel_why));
	if (golden_cg_roots_read(sysroot, &roots) < 0)
		roots.v1_memory[0] = roots.v2[0] = '\0';
	e->cgwb = golden_cg_writeback_on(sysroot, &roots, e->cgwb_why, sizeof(e->cgwb_why)) == 1;
	golden_mounts_each(sysroot, add_fs, &fa);
	e->exposed = e->cgwb && e->nfs > 0 &&
	             (e->fix == GOLDEN_KFIX_UNFIXED || e->fix == GOLDEN_KFIX_PARTIAL ||
	              e->fix == GOLDEN_KFIX_UNKNOWN);
}

void golden_exposure_format(const struct golden_exposure *e, char *buf, size_t len)
{
	size_t o = 0;

	o += (size_t)snprintf(
	    buf + o, len - o,
	    "teardown stall exposure: %s\n"
	    "  kernel:   %s: %s (%s; by upstream version, distribution "
	    "backports are not visible)\n"
	    "  cgroups:  %s (%s)\n",
	    e->exposed ? "EXPOSED" : "not exposed", e->release, golden_exposure_fix_name(e->fix),
	    e->kernel_why, e->cgwb ? "cgroup writeback on" : "cgroup writeback off", e->cgwb_why);
	if (e->nfs == 0 && o < len)
		o += (size_t)snprintf(buf + o, len - o,
		                      "  fs:       no filesystem with cgroup writeback\n");
	for (int i = 0; i < e->nfs && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "  fs:       %s\n", e->fs[i]);
	if (e->exposed && o < len)
		snprintf(
		    buf + o, len - o,
		    "  advice:   keep teardown_flush=auto in plugstack.conf; mount data "
		    "filesystems noatime; run 6.1.178, 6.6.145, 6.12.94 or 6.18.25 or later\n");
}
