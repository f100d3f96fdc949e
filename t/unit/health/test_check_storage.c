/* lib/health/check_storage.c: the mounts check. "Mounted" comes from a fixture
 * mount table under a sysroot; statfs runs on real paths ("/" and
 * directories made here). A hanging statfs (dead NFS server) cannot be made
 * without root; the runner's tests cover deadlines with a sleeping check. */
#include <config.h>

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "health/check.h"
#include "health/check_storage.h"
#include "health/golden_conf.h"
#include "util/strutil.h"
#include "t/unit/tap.h"

static char root[] = "/tmp/golden-test-storage-XXXXXX";
static struct golden_conf conf;
static struct golden_check_ctx ctx;
static struct golden_check_result r;

static void bail(const char *what)
{
	printf("Bail out! %s: %s\n", what, strerror(errno));
	exit(1);
}

static void put(const char *rel, const char *content)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	if (!content) {
		if (unlink(path) < 0 && errno != ENOENT)
			bail(path);
		return;
	}
	for (const char *p = strchr(rel + 1, '/'); p; p = strchr(p + 1, '/')) {
		snprintf(path, sizeof(path), "%s%.*s", root, (int)(p - rel), rel);
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			bail(path);
	}
	snprintf(path, sizeof(path), "%s%s", root, rel);
	f = fopen(path, "w");
	if (!f)
		bail(path);
	fputs(content, f);
	fclose(f);
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static const struct golden_check *find(const char *name)
{
	for (const struct golden_check *c = golden_storage_checks; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

static void run_mounts(void)
{
	memset(&r, 0, sizeof(r));
	find("mounts")->fn(&ctx, &r);
}

static void set_mounts(int n, const char *const *m)
{
	conf.nmounts = n;
	for (int i = 0; i < n; i++)
		golden_strlcpy(conf.mounts[i], m[i], sizeof(conf.mounts[i]));
}

#define expect(st, act, want_code, what)                                                           \
	do {                                                                                       \
		is(golden_check_status_name(r.status), golden_check_status_name(st), "%s: status", \
		   what);                                                                          \
		is(golden_check_action_name(r.action), golden_check_action_name(act),              \
		   "%s: action", what);                                                            \
		is(r.code, want_code, "%s: code", what);                                           \
		if (r.status != (st))                                                              \
			diag("detail: %s", r.detail);                                              \
	} while (0)

static void test_table(void)
{
	const struct golden_check *c = find("mounts");
	int n = 0;

	ok(c != NULL, "mounts check exists");
	ok(c && c->cls == GOLDEN_CHK_STORAGE && c->deadline_ms == 3000 &&
	       c->phases == (GOLDEN_PHASE_PROLOG | GOLDEN_PHASE_EPILOG | GOLDEN_PHASE_MANUAL |
	                     GOLDEN_PHASE_HEALTH_ANY),
	   "mounts: storage class, 3000 ms, every phase incl. health checks");
	for (c = golden_storage_checks; c->name; c++)
		n++;
	is_int(n, 1, "one storage check");
}

static void test_unescape(void)
{
	char s[64];

	strcpy(s, "/mnt/my\\040data");
	golden_mount_unescape(s);
	is(s, "/mnt/my data", "\\040 is a space");
	strcpy(s, "/a\\011b\\134c\\012d");
	golden_mount_unescape(s);
	is(s, "/a\tb\\c\nd", "tab, backslash, newline");
	strcpy(s, "/odd\\09x\\");
	golden_mount_unescape(s);
	is(s, "/odd\\09x\\", "non-octal escapes stay literal");
}

static void test_mounts(const char *spacedir, const char *spacedir_escaped)
{
	char table[8192];
	static const char *const one_root[] = {"/"};
	static const char *const lustre[] = {"/", "/lustre"};
	static const char *const lustre_slash[] = {"/lustre/"};

	snprintf(table, sizeof(table),
	         "/dev/nvme0n1p2 / ext4 rw,relatime 0 0\n"
	         "proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0\n"
	         "10.0.0.5@o2ib:/fs /lustre lustre rw,flock,lazystatfs 0 0\n"
	         "server:/export/data %s nfs4 rw,vers=4.2 0 0\n"
	         "nfs:/gone /golden-no-such-mount-point nfs rw 0 0\n",
	         spacedir_escaped);
	put("/proc/self/mounts", table);

	golden_conf_init(&conf);
	memset(&ctx, 0, sizeof(ctx));
	ctx.conf = &conf;
	ctx.sysroot = root;
	ctx.node = "node1";
	ctx.job_id = "";

	run_mounts();
	expect(GOLDEN_ST_OK, GOLDEN_ACTION_NONE, "", "no mounts configured");

	set_mounts(1, one_root);
	run_mounts();
	expect(GOLDEN_ST_OK, GOLDEN_ACTION_NONE, "", "/ listed, real statfs(/)");
	ok(strstr(r.detail, "1 mount") != NULL, "ok detail: %s", r.detail);

	/* Listed but not a real path here: statfs reports it. */
	memset(&r, 0, sizeof(r));
	ok(golden_storage_check_mount("/golden-no-such-mount-point", root, &r) < 0,
	   "mount_one fails when statfs fails");
	expect(GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN, "/golden-no-such-mount-point statfs ENOENT",
	       "statfs error");

	/* The /lustre line is in the fixture table but the path does not exist
	 * on this machine: statfs fails, proving the statfs part runs. */
	set_mounts(2, lustre);
	run_mounts();
	ok(r.status == GOLDEN_ST_FAIL && r.action == GOLDEN_ACTION_DRAIN &&
	       golden_str_startswith(r.code, "/lustre statfs "),
	   "/lustre listed, no real path: %s", r.code);

	/* Not in the table at all. */
	put("/proc/self/mounts", "/dev/nvme0n1p2 / ext4 rw,relatime 0 0\n");
	run_mounts();
	expect(GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN, "/lustre not-mounted", "/lustre absent");
	set_mounts(1, lustre_slash);
	run_mounts();
	expect(GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN, "/lustre/ not-mounted",
	       "trailing slash, absent");
	ok(golden_storage_mount_listed(root, "/lustre/") == 0, "listed: /lustre/ not listed");
	ok(golden_storage_mount_listed(root, "//") == 1, "listed: // is /");

	/* Octal-escaped mount point with a space, on a real directory. */
	snprintf(table, sizeof(table),
	         "/dev/nvme0n1p2 / ext4 rw,relatime 0 0\n"
	         "server:/export/data %s nfs4 rw,vers=4.2 0 0\n",
	         spacedir_escaped);
	put("/proc/self/mounts", table);
	ok(golden_storage_mount_listed(root, spacedir) == 1, "escaped mount point found: %s",
	   spacedir);
	memset(&r, 0, sizeof(r));
	ok(golden_storage_check_mount(spacedir, root, &r) == 0, "mount_one on the spaced path");
	expect(GOLDEN_ST_OK, GOLDEN_ACTION_NONE, "", "escaped mount point with a space");
	ok(golden_storage_mount_listed(root, spacedir_escaped) == 0,
	   "the escaped spelling itself is not a mount point");

	/* Several bad mounts: the first is the code, the count in the detail. */
	{
		static const char *const three[] = {"/a", "/", "/b"};

		set_mounts(3, three);
		run_mounts();
		expect(GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN, "/a not-mounted", "two of three bad");
		ok(strstr(r.detail, "2 of 3") != NULL, "detail counts bad mounts: %s", r.detail);
	}

	/* /proc/mounts when /proc/self/mounts is missing. */
	put("/proc/self/mounts", NULL);
	put("/proc/mounts", "rootfs / rootfs rw 0 0\nfs@tcp:/x /scratch lustre rw 0 0\n");
	ok(golden_storage_mount_listed(root, "/scratch") == 1, "falls back to /proc/mounts");
	set_mounts(1, one_root);
	run_mounts();
	expect(GOLDEN_ST_OK, GOLDEN_ACTION_NONE, "", "/ via /proc/mounts");

	/* No mount table at all: cannot tell, so warn (statfs still answered). */
	put("/proc/mounts", NULL);
	ok(golden_storage_mount_listed(root, "/") == -1, "no table: -1");
	run_mounts();
	expect(GOLDEN_ST_WARN, GOLDEN_ACTION_NONE, "/ unverified", "no mount table");

	/* The real root's table (NULL sysroot) always lists /. */
	ok(golden_storage_mount_listed(NULL, "/") == 1, "real /proc/self/mounts lists /");
	memset(&r, 0, sizeof(r));
	ok(golden_storage_check_mount("/", NULL, &r) == 0 && r.status == GOLDEN_ST_OK,
	   "mount_one(/) on the real root");
}

/* golden.conf drill_mount: watched while mounted, never required. */
static void test_drill_mount(const char *dir)
{
	char table[4400];

	set_mounts(0, NULL);
	golden_strlcpy(conf.fleet.drill_mount, "/golden-no-such-drill-dir", PATH_MAX);
	put("/proc/self/mounts", "rootfs / rootfs rw 0 0\n");
	run_mounts();
	expect(GOLDEN_ST_OK, GOLDEN_ACTION_NONE, "", "drill_mount not mounted: not required");
	ok(strstr(r.detail, "0 mount(s)") != NULL, "and not counted: %s", r.detail);
	/* Mounted (in the table) but its statfs fails: the mounts check
	 * fails for it, naming it, as for any configured mount. */
	put("/proc/self/mounts",
	    "rootfs / rootfs rw 0 0\ngolden-drill /golden-no-such-drill-dir fuse.golden-drill rw 0 "
	    "0\n");
	run_mounts();
	expect(GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN, "/golden-no-such-drill-dir statfs ENOENT",
	       "drill_mount mounted and failing: drained for it");
	/* Mounted and answering: watched and fine. */
	golden_strlcpy(conf.fleet.drill_mount, dir, PATH_MAX);
	snprintf(table, sizeof(table), "rootfs / rootfs rw 0 0\ngolden-drill %s fuse rw 0 0\n",
	         dir);
	put("/proc/self/mounts", table);
	run_mounts();
	expect(GOLDEN_ST_OK, GOLDEN_ACTION_NONE, "", "drill_mount mounted and answering");
	ok(strstr(r.detail, "1 mount(s)") != NULL, "counted while mounted: %s", r.detail);
	conf.fleet.drill_mount[0] = '\0';
}

int main(void)
{
	char spacedir[4200], escaped[4300];
	int rc;

	if (!mkdtemp(root))
		bail("mkdtemp");
	/* A real directory with a space, so statfs succeeds on it. */
	snprintf(spacedir, sizeof(spacedir), "%s/my data", root);
	if (mkdir(spacedir, 0700) < 0)
		bail(spacedir);
	snprintf(escaped, sizeof(escaped), "%s/my\\040data", root);
	test_table();
	test_unescape();
	test_mounts(spacedir, escaped);
	test_drill_mount(root);
	rc = done_testing();
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return rc;
}
