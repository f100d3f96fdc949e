/* lib/util/sysroot.h: every sysfs/procfs read goes through one root. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/sysroot.h"
#include "t/unit/tap.h"

static char root[] = "/tmp/golden-test-sysroot-XXXXXX";

static void bail(const char *what)
{
	printf("Bail out! %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Create root/rel (and its parents) holding content. */
static void put(const char *rel, const char *content)
{
	char path[4096];
	FILE *f;

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

static void link_at(const char *rel, const char *target)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s%s", root, rel);
	if (symlink(target, path) < 0)
		bail(path);
}

static void test_path(void)
{
	char buf[64];
	char tiny[8];

	ok(golden_sys_path(root, "/sys/class/net", buf, sizeof(buf)) == 0, "path joins");
	ok(strncmp(buf, root, strlen(root)) == 0 && !strcmp(buf + strlen(root), "/sys/class/net"),
	   "root prefixes the absolute path: %s", buf);
	ok(golden_sys_path(NULL, "/sys/class/net", buf, sizeof(buf)) == 0, "NULL root");
	is(buf, "/sys/class/net", "NULL root is the real root");
	ok(golden_sys_path("", "/proc/net/route", buf, sizeof(buf)) == 0, "empty root");
	is(buf, "/proc/net/route", "empty root is the real root");
	ok(golden_sys_path("/", "/proc/net/route", buf, sizeof(buf)) == 0, "\"/\" root");
	is(buf, "/proc/net/route", "\"/\" is the real root, not //proc");
	ok(golden_sys_path(root, "/sys/class/net", tiny, sizeof(tiny)) == -1,
	   "a path that does not fit is -1");
	ok(golden_sys_path("/", "/1234567", tiny, sizeof(tiny)) == -1,
	   "exactly one byte too long is -1");
	ok(golden_sys_path("/", "/123456", tiny, sizeof(tiny)) == 0, "exactly fitting is 0");
}

static void test_read(void)
{
	char buf[64];
	char small[4];

	put("/sys/class/net/eno1/operstate", "up\n");
	put("/sys/class/net/eno1/ifalias", "");
	put("/sys/class/infiniband/mlx5_0/ports/1/rate", "400 Gb/sec (4X NDR)\n");
	put("/sys/class/infiniband/mlx5_0/ports/1/state", "4: ACTIVE  \n");
	put("/proc/multi", "first line\nsecond line\n");
	put("/proc/nonl", "no newline");

	is_int(golden_sys_read(root, "/sys/class/net/eno1/operstate", buf, sizeof(buf)), 2,
	       "read returns the length without the newline");
	is(buf, "up", "trailing newline trimmed");
	is_int(golden_sys_read(root, "/sys/class/infiniband/mlx5_0/ports/1/rate", buf, sizeof(buf)),
	       19, "inner spaces kept");
	is(buf, "400 Gb/sec (4X NDR)", "rate read whole");
	golden_sys_read(root, "/sys/class/infiniband/mlx5_0/ports/1/state", buf, sizeof(buf));
	is(buf, "4: ACTIVE", "trailing whitespace trimmed");
	golden_sys_read(root, "/proc/multi", buf, sizeof(buf));
	is(buf, "first line", "first line only");
	is_int(golden_sys_read(root, "/proc/nonl", buf, sizeof(buf)), 10, "file without newline");
	is(buf, "no newline", "file without newline read whole");
	is_int(golden_sys_read(root, "/sys/class/net/eno1/ifalias", buf, sizeof(buf)), 0,
	       "empty file is length 0");
	is(buf, "", "empty file gives an empty string");
	is_int(golden_sys_read(root, "/proc/multi", small, sizeof(small)), 3,
	       "a short buffer truncates");
	is(small, "fir", "truncated and terminated");

	errno = 0;
	is_int(golden_sys_read(root, "/sys/class/net/eth9/operstate", buf, sizeof(buf)), -1,
	       "missing file is -1");
	is_int(errno, ENOENT, "missing file sets errno ENOENT");
	is_int(golden_sys_read(root, "/sys/class/net/eno1", buf, sizeof(buf)), -1,
	       "a directory is -1");
	is_int(golden_sys_read(root, "/sys/class/net/eno1/operstate", buf, 0), -1,
	       "a zero-length buffer is -1");
}

static void read_long_is(const char *path, long want, const char *what)
{
	long v = 12345;

	is_int(golden_sys_read_long(root, path, &v), 0, "%s: read_long returns 0", what);
	is_int(v, want, "%s: value", what);
}

static void test_read_long(void)
{
	long v = 12345;

	put("/sys/bus/pci/devices/0000:18:00.0/vendor", "0x15b3\n");
	put("/sys/bus/pci/devices/0000:18:00.0/class", "0x020700\n");
	put("/sys/bus/pci/devices/0000:18:00.0/numa_node", "1\n");
	put("/sys/bus/pci/devices/0000:05:00.0/numa_node", "-1\n");
	put("/sys/class/net/eno1/speed", "400000\n");
	put("/sys/class/net/eno1/duplex", "full\n");
	put("/sys/class/net/eno1/empty", "\n");

	read_long_is("/sys/bus/pci/devices/0000:18:00.0/vendor", 0x15b3, "0x hex vendor");
	read_long_is("/sys/bus/pci/devices/0000:18:00.0/class", 0x020700, "0x hex class");
	read_long_is("/sys/bus/pci/devices/0000:18:00.0/numa_node", 1, "decimal");
	read_long_is("/sys/bus/pci/devices/0000:05:00.0/numa_node", -1, "negative decimal");
	read_long_is("/sys/class/net/eno1/speed", 400000, "large decimal");
	v = 7;
	is_int(golden_sys_read_long(root, "/sys/class/net/eno1/duplex", &v), -1, "not a number");
	is_int(v, 7, "value untouched on error");
	is_int(golden_sys_read_long(root, "/sys/class/net/eno1/empty", &v), -1, "empty is -1");
	is_int(golden_sys_read_long(root, "/sys/class/net/eno1/nope", &v), -1, "missing is -1");
	is_int(v, 7, "value untouched when missing");
}

static void test_link_base(void)
{
	char buf[64];
	char tiny[4];

	put("/sys/bus/pci/devices/0000:18:00.0/device", "0x1021\n");
	put("/sys/class/net/ibp24s0/type", "32\n");
	put("/sys/class/infiniband/mlx5_0/node_type", "1: CA\n");
	link_at("/sys/class/net/ibp24s0/device", "../../../bus/pci/devices/0000:18:00.0");
	link_at("/sys/class/infiniband/mlx5_0/device", "../../../bus/pci/devices/0000:18:00.0/");
	put("/sys/class/net/eth0/type", "1\n");
	link_at("/sys/class/net/eth0/device",
	        "../../../devices/LNXSYSTM:00/LNXSYBUS:00/ACPI0004:00/VMBUS:00/"
	        "00224840-0000-0000-0000-000000000000");
	put("/sys/class/net/plain/type", "1\n");
	link_at("/sys/class/net/plain/device", "0000:3b:00.0");

	ok(golden_sys_link_base(root, "/sys/class/net/ibp24s0/device", buf, sizeof(buf)) == 0,
	   "link_base reads a relative link");
	is(buf, "0000:18:00.0", "basename of the target is the PCI address");
	ok(golden_sys_link_base(root, "/sys/class/infiniband/mlx5_0/device", buf, sizeof(buf)) == 0,
	   "trailing slash in the target");
	is(buf, "0000:18:00.0", "trailing slash ignored");
	ok(golden_sys_link_base(root, "/sys/class/net/eth0/device", buf, sizeof(buf)) == 0,
	   "VMBus device link");
	is(buf, "00224840-0000-0000-0000-000000000000", "a non-PCI basename comes back as is");
	ok(golden_sys_link_base(root, "/sys/class/net/plain/device", buf, sizeof(buf)) == 0,
	   "target without a slash");
	is(buf, "0000:3b:00.0", "target without a slash is its own basename");
	is_int(golden_sys_link_base(root, "/sys/class/net/lo/device", buf, sizeof(buf)), -1,
	       "missing link is -1");
	is_int(golden_sys_link_base(root, "/sys/class/net/ibp24s0/type", buf, sizeof(buf)), -1,
	       "a regular file is not a link: -1");
	is_int(golden_sys_link_base(root, "/sys/class/net/ibp24s0/device", tiny, sizeof(tiny)), -1,
	       "a basename that does not fit is -1");
	/* The link is read, not followed: a dangling one still has a name. */
	link_at("/sys/class/net/plain/dangling", "../../../bus/pci/devices/0000:99:00.0");
	ok(golden_sys_link_base(root, "/sys/class/net/plain/dangling", buf, sizeof(buf)) == 0,
	   "dangling link is read");
	is(buf, "0000:99:00.0", "dangling link still gives its basename");
}

static void test_exists_opendir(void)
{
	DIR *d;
	struct dirent *e;
	int n = 0, saw_a = 0, saw_b = 0;

	put("/sys/class/net/docker0/bridge/bridge_id", "8000.0242ac110001\n");
	put("/sys/class/net/bond0/bonding/mode", "active-backup 1\n");
	put("/sys/class/dir/a", "1\n");
	put("/sys/class/dir/b", "2\n");

	ok(golden_sys_exists(root, "/sys/class/net/docker0/bridge"), "directory exists");
	ok(golden_sys_exists(root, "/sys/class/net/bond0/bonding/mode"), "file exists");
	ok(golden_sys_exists(root, "/sys/class/net/ibp24s0/device"), "symlink to a dir exists");
	ok(!golden_sys_exists(root, "/sys/class/net/eno1/bridge"), "missing is 0");
	ok(!golden_sys_exists(root, "/sys/class/net/plain/dangling"),
	   "dangling symlink does not exist (access follows links)");

	d = golden_sys_opendir(root, "/sys/class/dir");
	ok(d != NULL, "opendir under root");
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		n++;
		saw_a |= !strcmp(e->d_name, "a");
		saw_b |= !strcmp(e->d_name, "b");
	}
	if (d)
		closedir(d);
	ok(n == 2 && saw_a && saw_b, "opendir lists the entries (%d)", n);
	ok(golden_sys_opendir(root, "/sys/class/nope") == NULL, "opendir of a missing dir is NULL");
	ok(golden_sys_opendir(root, "/sys/class/dir/a") == NULL, "opendir of a file is NULL");
	d = golden_sys_opendir(root, "/sys/class/net/ibp24s0/device");
	ok(d != NULL, "opendir follows a symlink to a directory");
	if (d)
		closedir(d);
}

static void test_real_root(void)
{
	char buf[256];
	long v = 0;
	int rc;
	DIR *d;

	ok(golden_sys_exists(NULL, "/proc/self/stat"), "NULL root: /proc/self/stat exists");
	ok(golden_sys_exists("/", "/proc/self/stat"), "\"/\" root: /proc/self/stat exists");
	ok(golden_sys_exists("", "/proc/self/stat"), "\"\" root: /proc/self/stat exists");
	ok(!golden_sys_exists(root, "/proc/self/stat"),
	   "a fixture root does not see the real /proc");
	ok(golden_sys_read(NULL, "/proc/self/stat", buf, sizeof(buf)) > 0 &&
	       strtol(buf, NULL, 10) == (long)getpid(),
	   "real /proc/self/stat starts with our pid");
	rc = golden_sys_read_long("/", "/proc/sys/kernel/pid_max", &v);
	ok(rc == 0 && v > 0, "read_long of the real /proc/sys/kernel/pid_max: %ld", v);
	d = golden_sys_opendir("/", "/proc/self");
	ok(d != NULL, "real /proc/self opens");
	if (d)
		closedir(d);
}

static int rm_tree(const char *path)
{
	char sub[4096];
	struct stat st;
	DIR *d;
	struct dirent *e;

	if (lstat(path, &st) < 0)
		return -1;
	if (!S_ISDIR(st.st_mode))
		return unlink(path);
	d = opendir(path);
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
		rm_tree(sub);
	}
	closedir(d);
	return rmdir(path);
}

int main(void)
{
	if (!mkdtemp(root))
		bail("mkdtemp");
	test_path();
	test_read();
	test_read_long();
	test_link_base();
	test_exists_opendir();
	test_real_root();
	ok(rm_tree(root) == 0, "temporary root removed");
	return done_testing();
}
