/* golden drill's pure parts: the driver line it writes, the verdict against
 * the targets, and the lifecycle's rule that only the running drill's own
 * record (by sequence number, boot, check and GPU) ends without a reboot. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "health/golden_conf_fleet.h"
#include "health/xid.h"
#include "node/drill.h"
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

int main(void)
{
	test_line();
	test_judge();
	test_drill_fault();
	return done_testing();
}
