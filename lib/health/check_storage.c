/* Storage health check: every configured mount (golden.conf `mount =`) must
 * be mounted and answer statfs().
 *
 * "Mounted" comes from the mount table under ctx->sysroot, so tests can hand
 * in a fixture. statfs() itself can only look at the real path (there is no
 * way to redirect a syscall into a sysroot), and on a dead NFS/Lustre server
 * it blocks, often unkillably until the RPC times out. That is why every
 * check runs in its own child process under a deadline: the runner kills
 * this one and reports `mounts timeout`. Callers that need to know which
 * mount hung can run golden_storage_check_mount() once per mount, each in its
 * own child.
 */
#include <config.h>

#include "health/check_storage.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>

#include "health/golden_conf.h"
#include "util/strutil.h"
#include "util/sysroot.h"

#define PHASES                                                                                     \
	(GOLDEN_PHASE_PROLOG | GOLDEN_PHASE_EPILOG | GOLDEN_PHASE_MANUAL | GOLDEN_PHASE_HEALTH_ANY)

struct listed_arg {
	char want[PATH_MAX];
	char point[PATH_MAX];
	int found;
};

static int is_listed(const struct golden_mount *m, void *arg)
{
	struct listed_arg *a = arg;

	if (golden_strlcpy(a->point, m->point, sizeof(a->point)) < 0)
		return 0;
	golden_strip_slashes(a->point);
	a->found = !strcmp(a->point, a->want);
	return a->found;
}

int golden_storage_mount_listed(const char *sysroot, const char *mnt)
{
	struct listed_arg a = {.found = 0};

	if (golden_strlcpy(a.want, mnt, sizeof(a.want)) < 0)
		return 0;
	golden_strip_slashes(a.want);
	if (golden_mounts_each(sysroot, is_listed, &a) < 0)
		return -1;
	return a.found;
}

/* Short errno names for drain reasons ("statfs EIO" reads better than a
 * sentence, and fits the code). */
static const char *errno_name(int e, char *buf, size_t len)
{
	static const struct {
		int e;
		const char *name;
	} names[] = {
	    {EIO, "EIO"},
	    {ENOENT, "ENOENT"},
	    {ESTALE, "ESTALE"},
	    {EACCES, "EACCES"},
	    {EPERM, "EPERM"},
	    {ENOTCONN, "ENOTCONN"},
	    {ETIMEDOUT, "ETIMEDOUT"},
	    {EHOSTDOWN, "EHOSTDOWN"},
	    {EHOSTUNREACH, "EHOSTUNREACH"},
	    {ENOTDIR, "ENOTDIR"},
	    {ELOOP, "ELOOP"},
	    {ENAMETOOLONG, "ENAMETOOLONG"},
	    {EOVERFLOW, "EOVERFLOW"},
	    {EINTR, "EINTR"},
	    {ENOMEM, "ENOMEM"},
	    {ENOSYS, "ENOSYS"},
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].e == e)
			return names[i].name;
	snprintf(buf, len, "errno%d", e);
	return buf;
}

int golden_storage_check_mount(const char *mnt, const char *sysroot,
                               struct golden_check_result *res)
{
	char code[GOLDEN_CODE_LEN];
	struct statfs st;
	int listed = golden_storage_mount_listed(sysroot, mnt);

	if (listed == 0) {
		snprintf(code, sizeof(code), "%s not-mounted", mnt);
		golden_check_fail(res, GOLDEN_ACTION_DRAIN, code,
		                  "%s is not in the mount table (/proc/self/mounts)", mnt);
		return -1;
	}
	/* The real path, never the sysroot: see the comment at the top. This
	 * is the call that may hang. */
	if (statfs(mnt, &st) < 0) {
		int e = errno;
		char ebuf[16];

		snprintf(code, sizeof(code), "%s statfs %s", mnt,
		         errno_name(e, ebuf, sizeof(ebuf)));
		golden_check_fail(res, GOLDEN_ACTION_DRAIN, code, "statfs(%s): %s", mnt,
		                  strerror(e));
		return -1;
	}
	if (listed < 0) {
		/* Cannot tell whether it is mounted (no mount table under the
		 * sysroot): statfs answered, so warn rather than drain. */
		snprintf(code, sizeof(code), "%s unverified", mnt);
		golden_check_warn(res, code,
		                  "mount table unreadable (/proc/self/mounts, /proc/mounts); "
		                  "statfs(%s) answered",
		                  mnt);
		return -1;
	}
	return 0;
}

static bool configured(const struct golden_conf *conf, const char *mnt)
{
	char a[PATH_MAX], b[PATH_MAX];

	golden_strlcpy(a, mnt, sizeof(a));
	golden_strip_slashes(a);
	for (int i = 0; i < conf->nmounts && i < GOLDEN_MAX_MOUNTS; i++) {
		golden_strlcpy(b, conf->mounts[i], sizeof(b));
		golden_strip_slashes(b);
		if (!strcmp(a, b))
			return true;
	}
	return false;
}

static void check_mounts(const struct golden_check_ctx *ctx, struct golden_check_result *res)
{
	const struct golden_conf *conf = ctx->conf;
	int n = conf ? conf->nmounts : 0, bad = 0;

	if (n > GOLDEN_MAX_MOUNTS)
		n = GOLDEN_MAX_MOUNTS;
	/* All mounts, not just up to the first failure: the detail of the
	 * (first, worst) failure is kept by golden_result_*, and statfs on a
	 * later healthy mount costs nothing. */
	for (int i = 0; i < n; i++)
		if (conf->mounts[i][0] &&
		    golden_storage_check_mount(conf->mounts[i], ctx->sysroot, res) < 0)
			bad++;
	/* golden.conf drill_mount: an empty directory where `golden drill run
	 * --fault mount-hang` mounts a filesystem that hangs. Watched while
	 * something is mounted there (a drill, or whatever an admin put
	 * there), never required: listed as a `mount =` it would drain every
	 * node that is not drilling. */
	if (conf && conf->fleet.drill_mount[0] && !configured(conf, conf->fleet.drill_mount) &&
	    golden_storage_mount_listed(ctx->sysroot, conf->fleet.drill_mount) == 1) {
		if (golden_storage_check_mount(conf->fleet.drill_mount, ctx->sysroot, res) < 0)
			bad++;
		n++;
	}
	if (res->status == GOLDEN_ST_OK)
		snprintf(res->detail, sizeof(res->detail),
		         "%d mount(s) mounted and answering statfs", n);
	else if (bad > 1) {
		char more[64];

		snprintf(more, sizeof(more), " (%d of %d mounts bad)", bad, n);
		golden_strlcat(res->detail, more, sizeof(res->detail));
	}
}

const struct golden_check golden_storage_checks[] = {
    {"mounts", GOLDEN_CHK_STORAGE, check_mounts, 3000, PHASES},
    {NULL, GOLDEN_CHK_STORAGE, NULL, 0, 0},
};
