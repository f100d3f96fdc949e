/* Drain reason format, marker and node-state parsing. */
#include <config.h>

#include <string.h>

#include "node/scontrol.h"
#include "health/reason.h"
#include "t/unit/tap.h"

static const struct golden_check chk_xid = {"xid", GOLDEN_CHK_KERNEL, NULL, 1000, 7};
static const struct golden_check chk_ib = {"ib-ports", GOLDEN_CHK_FABRIC, NULL, 1000, 7};

int main(void)
{
	struct golden_run_report rep;
	struct golden_node_state st;
	char buf[GOLDEN_REASON_MAX];

	memset(&rep, 0, sizeof(rep));
	rep.n = 2;
	rep.worst = -1;
	rep.out[0].chk = &chk_xid;
	rep.out[1].chk = &chk_ib;
	ok(golden_reason_format(&rep, buf, sizeof(buf)) < 0, "all ok: no reason");

	golden_check_warn(&rep.out[0].res, "gpu0 xid13", "app error");
	rep.worst = 0;
	ok(golden_reason_format(&rep, buf, sizeof(buf)) < 0, "warnings never drain");

	golden_check_fail(&rep.out[0].res, GOLDEN_ACTION_DRAIN_REBOOT, "gpu3 xid79 offbus",
	                  "GPU 0000:3b:00.0 fell off the bus");
	ok(golden_reason_format(&rep, buf, sizeof(buf)) == 0, "a failure gives a reason");
	is(buf, "gpu3 xid79 offbus; reboot [golden]", "component and fault first, action, marker");
	ok(!strncmp(buf, "gpu3 xid79 offbus", 17),
	   "the 20 characters sinfo -R shows name it: '%.20s'", buf);

	golden_check_fail(&rep.out[1].res, GOLDEN_ACTION_DRAIN, "mlx5_4 p1 down", "port down");
	ok(golden_reason_format(&rep, buf, sizeof(buf)) == 0, "two failures");
	is(buf, "gpu3 xid79 offbus +1 more; reboot [golden]", "the worst leads, the rest counted");

	golden_check_fail(&rep.out[0].res, GOLDEN_ACTION_DRAIN_REBOOT, "x", "y");
	is(rep.out[0].res.code, "gpu3 xid79 offbus",
	   "a result keeps its first problem of equal rank");

	{
		char s[] = "gpu\"3\n xid\x01\\79'";

		golden_reason_sanitize(s);
		is(s, "gpu_3_ xid__79_", "quotes, backslashes and control characters replaced");
	}
	{
		char lng[400];
		struct golden_run_report r2 = rep;

		memset(lng, 'a', sizeof(lng) - 1);
		lng[sizeof(lng) - 1] = '\0';
		golden_check_fail(&r2.out[1].res, GOLDEN_ACTION_DRAIN_REBOOT, lng, "long");
		r2.out[0].res.action = GOLDEN_ACTION_DRAIN;
		r2.worst = 1;
		ok(golden_reason_format(&r2, buf, sizeof(buf)) == 0 && strlen(buf) < sizeof(buf),
		   "an over-long code is cut to the reason size");
	}

	ok(golden_reason_is_ours("gpu3 xid79 offbus; reboot [golden]"), "ours");
	ok(golden_reason_is_ours("gpu3 xid79 offbus; reboot [golden] [root@2026-12-02T18:00:00]"),
	   "ours with Slurm's suffix");
	ok(!golden_reason_is_ours("admin: bios update"), "admin's reason is not ours");
	ok(!golden_reason_is_ours("Prolog error"), "Slurm's own is not ours");
	ok(!golden_reason_is_ours("[golden]x forged prefix"), "marker must end our text");
	/* Slurm 24.11 keeps a resumed node's reason and appends its own to it. */
	ok(!golden_reason_is_ours("gpu0 xid79 offbus; reboot [golden] : Not responding"),
	   "Slurm's text after the marker: not ours");
	ok(!golden_reason_is_ours(
	       "gpu0 xid79 offbus; reboot [golden] : Not responding [root@2026-12-03T15:44:27]"),
	   "Slurm's text after the marker, with [user@time]: not ours");
	ok(!golden_reason_is_ours("admin: [golden] was wrong here"), "marker mid-text: not ours");
	ok(!golden_reason_is_ours(NULL), "no reason");

	golden_node_state_parse(
	    "NodeName=n2 Arch=x86_64 State=IDLE+DRAIN ThreadsPerCore=1 "
	    "Reason=gpu0 xid79 offbus; reboot [golden] [root@2026-12-02T18:37:29]\n",
	    &st);
	is(st.state, "IDLE+DRAIN", "state parsed");
	is(st.reason, "gpu0 xid79 offbus; reboot [golden]", "reason without Slurm's suffix");
	ok(st.drained_or_down, "drained");
	golden_node_state_parse("NodeName=n1 State=MIXED Reason=(null) Comment=x", &st);
	ok(!st.drained_or_down && st.reason[0] == '\0', "mixed, no reason");
	golden_node_state_parse(
	    "NodeName=n1 State=DOWN* Reason=Not responding [slurm@2026-12-02T18:00:00] "
	    "Comment=(null)",
	    &st);
	ok(st.drained_or_down, "down counts as taken");
	is(st.reason, "Not responding", "reason ends at the next field");
	return done_testing();
}
