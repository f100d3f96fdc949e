/* golden drill's pure parts: the driver line it writes, the verdict against
 * the targets, and the lifecycle's rule that only the running drill's own
 * record (by sequence number, boot, check and GPU) ends without a reboot. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

#include "health/golden_conf_fleet.h"
#include "health/xid.h"
#include "node/drill.h"
#include "node/drill_fault.h"
#include "node/drill_record.h"
#include "node/ledger.h"
#include "node/lifecycle.h"
#include "t/unit/tap.h"

static void test_line(void)
{
	char buf[256];
	struct golden_xid_event ev;
	int parsed;

	ok(golden_drill_line(79, "0000:3b:00.0", buf, sizeof(buf)) == 0, "XID 79 has a line");
	is(buf,
	   "NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off "
	   "the bus.",
	   "the driver's format: domain:bus:device, no function");
	/* What golden's own parser makes of it: the same XID, the same GPU. */
	parsed = golden_xid_parse_record(1, buf, &ev);
	ok(parsed == 1 && ev.xid == 79 && !strncmp(ev.pci, "0000:3b:00", 10),
	   "golden's XID parser reads the drill's line as XID 79 on 0000:3b:00 (%d %s)", ev.xid,
	   ev.pci);
	ok(golden_drill_line(48, "0411:00:00.0", buf, sizeof(buf)) == 0 && strstr(buf, "): 48, ") &&
	       strstr(buf, "Double Bit ECC Error."),
	   "XID 48: %s", buf);
	ok(golden_drill_line(100000, "0000:3b:00.0", buf, sizeof(buf)) < 0,
	   "an XID outside NVIDIA's catalogue has no line");
	ok(golden_drill_line(79, "3b", buf, sizeof(buf)) < 0, "a bus id too short is refused");
}

static void test_judge(void)
{
	struct golden_conf_fleet t;
	struct golden_drill d;

	golden_conf_fleet_init(&t);
	memset(&d, 0, sizeof(d));
	d.injected_ms = 1000000;
	d.detected_ms = d.injected_ms + 40;
	d.drained_ms = d.injected_ms + 60;
	d.job_kept = -1;
	d.probe = 1;
	golden_drill_judge(&d, &t);
	ok(d.passed && !strcmp(d.verdict, "pass"), "in time, probe refused: pass (%s)", d.verdict);
	d.detected_ms = d.injected_ms + 2500;
	d.drained_ms = d.injected_ms + 2600;
	golden_drill_judge(&d, &t);
	ok(!d.passed && !strcmp(d.verdict, "detect 2500 ms > 2000 ms"), "slow detect: %s",
	   d.verdict);
	/* A hung mount is seen only when the mounts check times out (3 s on a
	 * real H200 node, contrib/device/slurm-gpu-node): its deadline is added
	 * to the target, and the verdict says so. */
	d.detect_allow_ms = 3000;
	snprintf(d.check, sizeof(d.check), "mounts");
	d.detected_ms = d.injected_ms + 3054;
	d.drained_ms = d.injected_ms + 3068;
	golden_drill_judge(&d, &t);
	ok(d.passed, "mount-hang: detect 3054 ms within 2000 + the 3000 ms deadline (%s)",
	   d.verdict);
	d.detected_ms = d.injected_ms + 5100;
	d.drained_ms = d.injected_ms + 5110;
	golden_drill_judge(&d, &t);
	is(d.verdict, "detect 5100 ms > 5000 ms (2000 + the mounts check's 3000 ms deadline)",
	   "mount-hang too slow even with the deadline: said with it");
	d.detect_allow_ms = 0;
	d.detected_ms = d.drained_ms = 0;
	golden_drill_judge(&d, &t);
	is(d.verdict, "never detected; NEVER DRAINED", "never drained is said loudly");
	d.detected_ms = d.injected_ms + 40;
	d.drained_ms = d.injected_ms + 60;
	d.probe = 0;
	d.job_kept = 0;
	d.return_auto = true;
	golden_drill_judge(&d, &t);
	is(d.verdict,
	   "the running job did not survive the drain; a new job ran on the drained node; never "
	   "returned to service",
	   "every miss, in words");
	d.probe = 1;
	d.job_kept = 1;
	d.returned_ms = d.injected_ms + 601000;
	golden_drill_judge(&d, &t);
	is(d.verdict, "return 601 s > 600 s", "a slow return");
	/* The guard held the drain back: said as such, not as a silent miss. */
	memset(&d, 0, sizeof(d));
	d.injected_ms = 1000000;
	d.job_kept = d.probe = -1;
	d.return_auto = true;
	snprintf(d.guard, sizeof(d.guard), "mlx5_0 p1 down: 3 other nodes hold golden's drain");
	golden_drill_judge(&d, &t);
	ok(!d.passed, "a drill the guard suppressed did not pass");
	is(d.verdict, "suppressed by guard (mlx5_0 p1 down: 3 other nodes hold golden's drain)",
	   "the verdict says the guard held it back, not NEVER DRAINED");
}

/* A staged fault's drain: no kernel record, so by boot, time, check and
 * the component the failure code names. */
static void test_owns_staged(void)
{
	struct golden_drill d;
	struct golden_hold h;

	memset(&d, 0, sizeof(d));
	d.kind = GOLDEN_DRILL_RAIL;
	snprintf(d.check, sizeof(d.check), "ib-ports");
	snprintf(d.target, sizeof(d.target), "mlx5_0 p1");
	snprintf(d.boot_id, sizeof(d.boot_id), "boot-a");
	d.injected_ms = 1000000000LL;
	memset(&h, 0, sizeof(h));
	h.active = true;
	snprintf(h.check, sizeof(h.check), "ib-ports");
	snprintf(h.code, sizeof(h.code), "mlx5_0 p1 down");
	snprintf(h.boot_id, sizeof(h.boot_id), "boot-a");
	h.decided_ms = d.injected_ms + 30;
	ok(golden_drill_owns_hold(&d, &h), "rail-down: its port's drain, decided after staging");
	snprintf(h.code, sizeof(h.code), "mlx5_0 p12 down");
	ok(!golden_drill_owns_hold(&d, &h), "another port of the HCA (p12) is not the drill's");
	snprintf(h.code, sizeof(h.code), "mlx5_1 p1 down");
	ok(!golden_drill_owns_hold(&d, &h), "another rail is not the drill's");
	snprintf(h.code, sizeof(h.code), "mlx5_0 p1 200G<400G");
	ok(golden_drill_owns_hold(&d, &h), "the same port, any failure of it");
	h.decided_ms = d.injected_ms - 1;
	ok(!golden_drill_owns_hold(&d, &h), "decided before the drill staged: a real fault");
	h.decided_ms = d.injected_ms + 30;
	snprintf(h.check, sizeof(h.check), "ib-counters");
	ok(!golden_drill_owns_hold(&d, &h), "another check is not the drill's");
	snprintf(h.check, sizeof(h.check), "ib-ports");
	snprintf(h.boot_id, sizeof(h.boot_id), "boot-b");
	ok(!golden_drill_owns_hold(&d, &h), "another boot is not the drill's");
	snprintf(h.boot_id, sizeof(h.boot_id), "boot-a");
	h.active = false;
	ok(!golden_drill_owns_hold(&d, &h), "no hold, nothing owned");

	d.kind = GOLDEN_DRILL_MOUNT;
	snprintf(d.check, sizeof(d.check), "mounts");
	snprintf(d.target, sizeof(d.target), "/var/lib/golden/drill");
	h.active = true;
	snprintf(h.check, sizeof(h.check), "mounts");
	snprintf(h.code, sizeof(h.code), "hc mounts timeout");
	ok(golden_drill_owns_hold(&d, &h),
	   "mount-hang: the mounts check's timeout (names no mount)");
	snprintf(h.code, sizeof(h.code), "/var/lib/golden/drill statfs ENOTCONN");
	ok(golden_drill_owns_hold(&d, &h), "mount-hang: a failure naming the drill's mount");
	snprintf(h.code, sizeof(h.code), "/lustre not-mounted");
	ok(!golden_drill_owns_hold(&d, &h), "another mount's failure is a real one");
	/* The guard's note ("CODE: why") is read by the same rule. */
	ok(golden_drill_names(&d, "hc mounts timeout: 4 other nodes hold golden's drain", ':'),
	   "guard note: the mounts check's timeout is the mount drill's");
	ok(golden_drill_names(&d, "/var/lib/golden/drill statfs EIO: 4 other nodes", ':'),
	   "guard note: a failure naming the drill's mount");
	ok(!golden_drill_names(&d, "/var/lib/golden/drill2 statfs EIO: 4 other nodes", ':'),
	   "guard note: a longer mount point is another mount");
	ok(!golden_drill_names(&d, "hc mounts timeout", ':'),
	   "guard note: a code without its note does not pass for one");
	snprintf(d.target, sizeof(d.target), "mlx5_0 p1");
	d.kind = GOLDEN_DRILL_RAIL;
	ok(golden_drill_names(&d, "mlx5_0 p1 down: 3 other nodes", ':'), "guard note: the rail's");
	ok(!golden_drill_names(&d, "mlx5_0 p10 down: 3 other nodes", ':'),
	   "guard note: another port is not the rail's");
	ok(!golden_drill_names(&d, "hc mounts timeout: 3 other nodes", ':'),
	   "guard note: a rail drill does not own the mounts timeout");
	d.kind = GOLDEN_DRILL_MOUNT;
	snprintf(d.target, sizeof(d.target), "/var/lib/golden/drill");
	/* An XID drill's rule is unchanged: no record, nothing owned. */
	d.kind = GOLDEN_DRILL_XID;
	snprintf(h.code, sizeof(h.code), "hc mounts timeout");
	ok(!golden_drill_owns_hold(&d, &h), "an XID drill without its record owns no mount drain");
}

/* The record keeps which fault and the guard's note across a save. */
static void test_record_roundtrip(void)
{
	char dir[] = "/tmp/golden-test-drillrec-XXXXXX", cmd[128];
	struct golden_drills *ds = calloc(1, sizeof(*ds)), *back = calloc(1, sizeof(*back));
	struct golden_drill d;

	ok(mkdtemp(dir) != NULL, "temp dir");
	memset(&d, 0, sizeof(d));
	snprintf(d.id, sizeof(d.id), "r1");
	d.kind = GOLDEN_DRILL_MOUNT;
	d.state = GOLDEN_DRILL_DONE;
	snprintf(d.what, sizeof(d.what), "mount-hang /var/lib/golden/drill");
	snprintf(d.target, sizeof(d.target), "/var/lib/golden/drill");
	snprintf(d.guard, sizeof(d.guard), "hc mounts timeout: 4 other nodes");
	golden_drills_add(ds, &d);
	ok(golden_drills_save(dir, ds) == 0 && golden_drills_load(dir, back) == 0 && back->n == 1,
	   "saved and loaded");
	ok(back->d[0].kind == GOLDEN_DRILL_MOUNT && !strcmp(back->d[0].target, d.target) &&
	       !strcmp(back->d[0].what, d.what),
	   "the fault survives: %s %s", golden_drill_kind_name(back->d[0].kind), back->d[0].target);
	is(back->d[0].guard, "hc mounts timeout: 4 other nodes", "the guard's note survives");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ok(system(cmd) == 0, "cleanup");
	free(ds);
	free(back);
}

/* golden_lifecycle_waiting_for says whether the hold is the drill's. */
static void test_drill_fault(void)
{
	char dir[] = "/tmp/golden-test-drill-XXXXXX", buf[400];
	struct golden_drills *ds = calloc(1, sizeof(*ds));
	struct golden_conf *conf = calloc(1, sizeof(*conf));
	struct golden_drill d;
	struct golden_hold h;
	struct golden_lifecycle lc;

	ok(mkdtemp(dir) != NULL, "temp dir");
	memset(&lc, 0, sizeof(lc));
	lc.conf = conf;
	lc.node = "n1";
	lc.state_dir = dir;
	memset(&d, 0, sizeof(d));
	snprintf(d.id, sizeof(d.id), "t1");
	d.state = GOLDEN_DRILL_RUNNING;
	d.pid = (long)getpid();
	d.return_auto = true;
	snprintf(d.check, sizeof(d.check), "xid");
	snprintf(d.target, sizeof(d.target), "0000:3b:00.0");
	snprintf(d.boot_id, sizeof(d.boot_id), "boot-a");
	d.seq = 500;
	d.injected_ms = 1000000000LL;
	golden_drills_add(ds, &d);
	ok(golden_drills_save(dir, ds) == 0, "drills saved");

	memset(&h, 0, sizeof(h));
	h.active = h.applied = true;
	h.cls = GOLDEN_HOLD_REBOOT;
	snprintf(h.check, sizeof(h.check), "xid");
	snprintf(h.boot_id, sizeof(h.boot_id), "boot-a");
	snprintf(h.gpu_busid, sizeof(h.gpu_busid), "0000:3b:00.0");
	h.kmsg_seq = 501;
	h.time = 1000001;
	golden_lifecycle_waiting_for(&lc, &h, buf, sizeof(buf));
	ok(strstr(buf, "a running drill's") != NULL, "the drill's own drain: %s", buf);

	h.kmsg_seq = 499;
	golden_lifecycle_waiting_for(&lc, &h, buf, sizeof(buf));
	ok(strstr(buf, "a reboot") != NULL, "decided before the drill's record: a real one");
	h.kmsg_seq = 501;
	snprintf(h.gpu_busid, sizeof(h.gpu_busid), "0000:3c:00.0");
	golden_lifecycle_waiting_for(&lc, &h, buf, sizeof(buf));
	ok(strstr(buf, "a reboot") != NULL, "another GPU: a real fault");
	snprintf(h.gpu_busid, sizeof(h.gpu_busid), "0000:3b:00.0");
	snprintf(h.boot_id, sizeof(h.boot_id), "boot-b");
	golden_lifecycle_waiting_for(&lc, &h, buf, sizeof(buf));
	ok(strstr(buf, "a reboot") != NULL, "another boot: a real fault");
	snprintf(h.boot_id, sizeof(h.boot_id), "boot-a");
	snprintf(h.check, sizeof(h.check), "gpu-ecc");
	golden_lifecycle_waiting_for(&lc, &h, buf, sizeof(buf));
	ok(strstr(buf, "a reboot") != NULL, "another check: a real fault");
	snprintf(h.check, sizeof(h.check), "xid");
	ds->d[0].return_auto = false;
	golden_drills_save(dir, ds);
	golden_lifecycle_waiting_for(&lc, &h, buf, sizeof(buf));
	ok(strstr(buf, "a reboot") != NULL, "--return manual: the drain keeps its class");
	ds->d[0].return_auto = true;
	ds->d[0].state = GOLDEN_DRILL_DONE;
	golden_drills_save(dir, ds);
	golden_lifecycle_waiting_for(&lc, &h, buf, sizeof(buf));
	ok(strstr(buf, "a reboot") != NULL, "a drill that ended marks nothing");
	ds->d[0].state = GOLDEN_DRILL_RUNNING;
	ds->d[0].pid = 0x7ffffff0; /* no such process */
	golden_drills_save(dir, ds);
	golden_lifecycle_waiting_for(&lc, &h, buf, sizeof(buf));
	ok(strstr(buf, "a reboot") != NULL, "a drill whose program died marks nothing");
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		ok(system(cmd) == 0, "cleanup");
	}
	free(ds);
	free(conf);
}

/* golden_err keeps its first message: a fresh one for each call. */
static struct golden_err *fresh(struct golden_err *e)
{
	e->msg[0] = '\0';
	return e;
}

static void put(const char *dir, const char *rel, const char *text)
{
	char path[512], cmd[600];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	if (system(cmd) != 0)
		return;
	fp = fopen(path, "w");
	if (fp) {
		fputs(text, fp);
		fclose(fp);
	}
}

static void get(const char *dir, const char *rel, char *buf, size_t len)
{
	char path[512];
	FILE *fp;
	size_t n = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	fp = fopen(path, "r");
	if (fp) {
		n = fread(buf, 1, len - 1, fp);
		fclose(fp);
	}
	buf[n] = '\0';
}

#define P0 "sys/class/infiniband/mlx5_0/ports/1/"
#define P1 "sys/class/infiniband/mlx5_1/ports/1/"

/* rail-down in a fixture sysroot: the rail it picks, what it writes, and
 * that taking it away leaves the files byte for byte as they were. */
static void test_rail(void)
{
	char dir[] = "/tmp/golden-test-rail-XXXXXX", buf[64], cmd[128];
	struct golden_topo *t = calloc(1, sizeof(*t));
	struct golden_drill_fault f;
	struct golden_err e = {{0}};

	ok(mkdtemp(dir) != NULL, "temp dir");
	t->nnics = 3;
	snprintf(t->nics[0].name, sizeof(t->nics[0].name), "mlx5_s");
	t->nics[0].kind = GOLDEN_NIC_IB;
	t->nics[0].cls = GOLDEN_CLASS_STORAGE;
	for (int i = 1; i < 3; i++) {
		snprintf(t->nics[i].name, sizeof(t->nics[i].name), "mlx5_%d", i - 1);
		t->nics[i].kind = GOLDEN_NIC_IB;
		t->nics[i].cls = GOLDEN_CLASS_COMPUTE;
	}
	for (int i = 0; i < 3; i++) {
		t->nics[i].nports = 1;
		t->nics[i].ports[0].num = 1;
	}
	put(dir, P0 "state", "1: DOWN\n");
	put(dir, P0 "phys_state", "3: Disabled\n");
	put(dir, P1 "state", "4: ACTIVE\n");
	put(dir, P1 "phys_state", "5: LinkUp\n");

	ok(golden_drill_fault_rail(&f, t, "", NULL, fresh(&e)) < 0 && strstr(e.msg, "real /sys") &&
	       strstr(e.msg, "ibportstate"),
	   "no sysroot: refused, pointing at ibportstate: %s", e.msg);
	ok(golden_drill_fault_rail(&f, t, "/", NULL, fresh(&e)) < 0 && strstr(e.msg, "real /sys"),
	   "sysroot / is the real /sys: refused");
	ok(golden_drill_fault_rail(&f, t, dir, NULL, fresh(&e)) == 0 &&
	       !strcmp(f.target, "mlx5_1 p1") && !strcmp(f.what, "rail-down mlx5_1 port 1") &&
	       !strcmp(f.check, "ib-ports"),
	   "the first compute rail that is up (mlx5_0 is down): %s", f.target);
	ok(golden_drill_fault_rail(&f, t, dir, "mlx5_0", fresh(&e)) < 0 &&
	       strstr(e.msg, "mlx5_0 p1 is already down"),
	   "--rail of a port already down: refused: %s", e.msg);
	ok(golden_drill_fault_rail(&f, t, dir, "mlx5_s", fresh(&e)) < 0 &&
	       strstr(e.msg, "--rail mlx5_s: not a compute rail of this node (mlx5_0, mlx5_1)"),
	   "a storage rail is not a compute rail: %s", e.msg);
	ok(golden_drill_fault_rail(&f, t, dir, "mlx5_7", fresh(&e)) < 0 &&
	       strstr(e.msg, "--rail mlx5_7: not a compute rail"),
	   "a rail the node lacks: refused");
	ok(golden_drill_fault_rail(&f, t, dir, "mlx5_1", fresh(&e)) == 0, "--rail mlx5_1");
	ok(golden_drill_fault_stage(&f, fresh(&e)) == 0, "staged");
	get(dir, P1 "state", buf, sizeof(buf));
	is(buf, "1: DOWN\n", "the port's state reads DOWN");
	get(dir, P1 "phys_state", buf, sizeof(buf));
	is(buf, "3: Disabled\n", "its phys_state Disabled");
	ok(golden_drill_fault_withdraw(&f, fresh(&e)) == 0, "taken away");
	get(dir, P1 "state", buf, sizeof(buf));
	is(buf, "4: ACTIVE\n", "state as before");
	get(dir, P1 "phys_state", buf, sizeof(buf));
	is(buf, "5: LinkUp\n", "phys_state as before");
	put(dir, P1 "state", "4: ACTIVE\n");
	ok(golden_drill_fault_withdraw(&f, fresh(&e)) == 0, "a second withdraw does nothing");
	t->nics[2].cls = GOLDEN_CLASS_STORAGE;
	t->nics[1].cls = GOLDEN_CLASS_STORAGE;
	ok(golden_drill_fault_rail(&f, t, dir, NULL, fresh(&e)) < 0 &&
	       strstr(e.msg, "no compute rail"),
	   "a node without compute rails: refused: %s", e.msg);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ok(system(cmd) == 0, "cleanup");
	free(t);
}

/* mount-hang's refusals, before anything is mounted (no root needed). */
static void test_mount_refusals(void)
{
	char dir[] = "/tmp/golden-test-mnt-XXXXXX", p[256], q[256], cmd[128];
	struct golden_drill_fault f;
	struct golden_err e = {{0}};

	ok(mkdtemp(dir) != NULL, "temp dir");
	ok(golden_drill_fault_mount(&f, "", "", fresh(&e)) < 0 &&
	       strstr(e.msg, "drill_mount is not set"),
	   "unset: %s", e.msg);
	snprintf(p, sizeof(p), "%s/none", dir);
	ok(golden_drill_fault_mount(&f, p, "", fresh(&e)) < 0 && strstr(e.msg, "No such file"),
	   "missing: %s", e.msg);
	snprintf(p, sizeof(p), "%s/file", dir);
	put(dir, "file", "x");
	ok(golden_drill_fault_mount(&f, p, "", fresh(&e)) < 0 &&
	       strstr(e.msg, "is not a directory"),
	   "a file: %s", e.msg);
	snprintf(p, sizeof(p), "%s/real", dir);
	mkdir(p, 0700);
	snprintf(q, sizeof(q), "%s/link", dir);
	ok(symlink(p, q) == 0, "symlink made");
	ok(golden_drill_fault_mount(&f, q, "", fresh(&e)) < 0 && strstr(e.msg, "is a symlink"),
	   "a symlink: %s", e.msg);
	snprintf(q, sizeof(q), "%s/link/", dir);
	ok(golden_drill_fault_mount(&f, q, "", fresh(&e)) < 0 && strstr(e.msg, "is a symlink"),
	   "a symlink with a trailing slash: %s", e.msg);
	snprintf(q, sizeof(q), "%s/my dir", dir);
	ok(golden_drill_fault_mount(&f, q, "", fresh(&e)) < 0 &&
	       strstr(e.msg, "a blank or backslash"),
	   "a blank in the name: %s", e.msg);
	ok(golden_drill_fault_mount(&f, "/", "", fresh(&e)) < 0 &&
	       strstr(e.msg, "a mount point already"),
	   "/ is a mount point: %s", e.msg);
	/* Under a sysroot, its mount table is where the checks look. */
	ok(golden_drill_fault_mount(&f, p, dir, fresh(&e)) < 0 &&
	       strstr(e.msg, "no mount table under"),
	   "a sysroot without a mount table: %s", e.msg);
	put(dir, "proc/self/mounts", "rootfs / rootfs rw 0 0\n");
	if (access("/dev/fuse", F_OK) == 0) {
		ok(golden_drill_fault_mount(&f, p, dir, fresh(&e)) == 0 && !strcmp(f.target, p) &&
		       !strcmp(f.check, "mounts") && strstr(f.table, "proc/self/mounts"),
		   "a plain empty directory under a sysroot with a table: %s", e.msg);
	} else {
		ok(golden_drill_fault_mount(&f, p, dir, fresh(&e)) < 0 &&
		       strstr(e.msg, "/dev/fuse"),
		   "no /dev/fuse: %s", e.msg);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ok(system(cmd) == 0, "cleanup");
}

int main(void)
{
	test_line();
	test_judge();
	test_owns_staged();
	test_record_roundtrip();
	test_rail();
	test_mount_refusals();
	test_drill_fault();
	return done_testing();
}
