/* Reading drain reasons back: owner, class, the check behind the code, and
 * which failures can have a cause shared by many nodes. */
#include <config.h>

#include <string.h>

#include "health/reason_parse.h"
#include "stall/check_kernel.h"
#include "t/unit/tap.h"

/* Codes as each check family formats them (their snprintf formats). */
static const struct {
	const char *code, *check;
} codes[] = {
    {"gpu3 xid79 offbus", "xid"},
    {"gpu? xid95 0000:3b:00.0", "xid"},
    {"nvsw2 sxid12028", "xid"},
    {"gpu 7/8 missing 0000:3b:00.0", "gpu-count"},
    {"gpu nvml-init", "gpu-count"},
    {"gpu1 lost", "gpu-count"},
    {"gpu0 ecc-dbe", "gpu-ecc"},
    {"gpu2 remap-failed", "gpu-remap"},
    {"gpu2 retire-pending", "gpu-remap"},
    {"gpu4 pcie x8/x16", "gpu-pcie"},
    {"gpu5 nvlink 3 down", "gpu-nvlink"},
    {"gpu6 hw-slowdown", "gpu-throttle"},
    {"gpu7 fabric not-ready", "gpu-fabric"},
    {"gpu0 leftover pid 4242", "gpu-procs"},
    {"gpu1 recovery bus-reset", "gpu-recovery"},
    {"mlx5_4 p1 down", "ib-ports"},
    {"mlx5_4 p1 200G<400G", "ib-ports"},
    {"mlx5_0 p1 linklayer Ethernet", "ib-ports"},
    {"mlx5_1 p1 link_downed+3", "ib-counters"},
    {"efa 3/4", "efa"},
    {"eth0 down", "bootstrap"},
    {"ens5 no-addr", "bootstrap"},
    {"bootstrap none", "bootstrap"},
    {"gdr unavailable", "gpudirect"},
    {"/lustre statfs EIO", "mounts"},
    {"/home not-mounted", "mounts"},
    {"hc mounts timeout", "mounts"},
    {"hc gpu-ecc crashed", "gpu-ecc"},
    {"kernel wb-switch stall numa1", "wb-stall"},
    {"kernel teardown flush", "teardown"},
    {"golden internal", ""},
    {"bios update", ""},
    {"hc ../../etc timeout", ""},
};

static const struct golden_check *const families[] = {golden_xid_checks, golden_gpu_checks,
                                                      golden_fabric_checks, golden_storage_checks,
                                                      golden_kernel_checks};

int main(void)
{
	struct golden_reason_info r;
	char key[64], buf[32];

	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		golden_reason_check_of(codes[i].code, buf, sizeof(buf));
		is(buf, codes[i].check, "'%s' comes from %s", codes[i].code,
		   codes[i].check[0] ? codes[i].check : "no check");
	}
	/* Every check, when it times out, is named by the runner's code. */
	for (size_t m = 0; m < sizeof(families) / sizeof(families[0]); m++)
		for (const struct golden_check *c = families[m]; c->name; c++) {
			char code[64];

			snprintf(code, sizeof(code), "hc %s timeout", c->name);
			golden_reason_check_of(code, buf, sizeof(buf));
			is(buf, c->name, "%s", code);
		}

	golden_reason_parse("gpu3 xid79 offbus; reboot [golden]", &r);
	ok(r.ours && !r.flapping && r.more == 0, "golden's XID drain is ours");
	is(r.code, "gpu3 xid79 offbus", "its code");
	is(r.cls, "reboot", "class from the action word");
	is(r.check, "xid", "check");
	is(r.component, "gpu3", "component");

	golden_reason_parse(
	    "mlx5_4 p1 200G<400G +2 more; check [golden] [root@2026-12-03T18:00:01]", &r);
	ok(r.ours, "Slurm's [user@time] suffix does not hide the marker");
	is_int(r.more, 2, "+2 more");
	is(r.code, "mlx5_4 p1 200G<400G", "code without the count");
	is(r.cls, "transient", "check -> transient");

	golden_reason_parse("gpu1 ecc-dbe; gpu-reset [golden]", &r);
	is(r.cls, "reset", "gpu-reset -> reset");

	golden_reason_parse("flap 3x24h mlx5_1 p1 down; admin [golden]", &r);
	ok(r.ours && r.flapping, "flapping");
	is(r.cls, "flapping", "flapping class");
	is(r.code, "mlx5_1 p1 down", "the code behind the flap");
	is(r.check, "ib-ports", "its check");

	golden_reason_parse("maintenance: bios update", &r);
	ok(!r.ours && !r.code[0] && !r.cls[0], "an admin's reason is not ours and not parsed");
	golden_reason_parse("gpu0 xid79 offbus; reboot [golden] (was golden's)", &r);
	ok(!r.ours, "a re-worded reason with text after the marker is not ours");
	golden_reason_parse("NHC: check_fs_mount: /lustre not mounted", &r);
	ok(!r.ours, "another tool's reason is not ours");
	golden_reason_parse(NULL, &r);
	ok(!r.ours, "no reason");

	ok(golden_reason_shared_class("mounts", "/lustre statfs EIO", key, sizeof(key)),
	   "a mount can share its cause");
	is(key, "mounts /lustre", "by mount point");
	ok(golden_reason_shared_class("mounts", "hc mounts timeout", key, sizeof(key)),
	   "a hung mounts check too");
	is(key, "mounts *", "mount unknown");
	ok(golden_reason_shared_class("ib-ports", "mlx5_4 p1 down", key, sizeof(key)), "ib ports");
	is(key, "ib-ports ib", "any HCA: the fabric is the class");
	ok(golden_reason_shared_class("ib-counters", "mlx5_1 p1 link_downed+3", key, sizeof(key)),
	   "ib counters");
	ok(golden_reason_shared_class("efa", "efa 3/4", key, sizeof(key)), "efa");
	ok(golden_reason_shared_class("bootstrap", "eth0 down", key, sizeof(key)), "bootstrap");
	ok(!golden_reason_shared_class("xid", "gpu3 xid79 offbus", key, sizeof(key)) && !key[0],
	   "a GPU fault is the node's own");
	ok(!golden_reason_shared_class("gpu-count", "gpu 7/8 missing", key, sizeof(key)),
	   "a missing GPU is the node's own");
	ok(!golden_reason_shared_class("gpu-ecc", "gpu0 ecc-dbe", key, sizeof(key)), "ECC too");
	ok(!golden_reason_shared_class("wb-stall", "kernel wb-switch stall numa1", key,
	                               sizeof(key)),
	   "the kernel stall (and the storage it starves) is the node's own");

	ok(golden_reason_same_class("mounts /lustre", "mounts /lustre"), "same mount");
	ok(!golden_reason_same_class("mounts /lustre", "mounts /home"), "another mount");
	ok(golden_reason_same_class("mounts *", "mounts /lustre"), "unknown mount matches");
	ok(golden_reason_same_class("mounts /home", "mounts *"), "either way");
	ok(!golden_reason_same_class("ib-ports ib", "ib-counters ib"), "another check");
	ok(!golden_reason_same_class("mounts *", ""), "nothing matches nothing");
	printf("1..%d\n", tap_n);
	return tap_failed != 0;
}
