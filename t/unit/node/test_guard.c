/* The blast-radius guard's count over `scontrol -o show node` lines. */
#include <config.h>

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "node/guard.h"
#include "t/unit/tap.h"

/* One node as Slurm 22.05 prints it with -o (fields trimmed to those read). */
static void node(char *buf, size_t len, const char *name, const char *state, const char *parts,
                 const char *reason, const char *when)
{
	size_t n = strlen(buf);

	snprintf(buf + n, len - n,
	         "NodeName=%s Arch=x86_64 CoresPerSocket=1 State=%s Partitions=%s "
	         "BootTime=None Reason=%s%s%s%s\n",
	         name, state, parts, reason ? reason : "", reason ? " [root@" : "",
	         reason ? when : "", reason ? "]" : "");
}

int main(void)
{
	static char all[65536];
	struct golden_conf_fleet f;
	struct golden_guard_view v;
	struct tm tm;
	time_t now = time(NULL);
	char t_now[32], t_old[32];
	const char *lustre = "/lustre statfs EIO; check [golden]";

	localtime_r(&now, &tm);
	strftime(t_now, sizeof(t_now), "%Y-%m-%dT%H:%M:%S", &tm);
	now -= 7200;
	localtime_r(&now, &tm);
	strftime(t_old, sizeof(t_old), "%Y-%m-%dT%H:%M:%S", &tm);
	now += 7200;

	golden_conf_fleet_init(&f);
	ok(golden_guard_threshold(&f, 32) == 3, "defaults: 3 nodes on a small partition");
	ok(golden_guard_threshold(&f, 2000) == 100, "defaults: 5%% of a big one");
	f.guard_nodes = 0;
	ok(golden_guard_threshold(&f, 32) == 0, "guard_nodes = 0: off");

	all[0] = '\0';
	node(all, sizeof(all), "n1", "IDLE+DRAIN", "debug", lustre, t_now);
	node(all, sizeof(all), "n2", "IDLE+DRAIN", "debug", "/lustre not-mounted; check [golden]",
	     t_now);
	node(all, sizeof(all), "n3", "IDLE+DRAIN", "debug", "/scratch statfs EIO; check [golden]",
	     t_now);
	node(all, sizeof(all), "n4", "IDLE+DRAIN", "debug", "gpu0 xid79 offbus; reboot [golden]",
	     t_now);
	node(all, sizeof(all), "n5", "IDLE+DRAIN", "debug", "/lustre statfs EIO (admin)", t_now);
	node(all, sizeof(all), "n6", "IDLE+DRAIN", "debug", lustre, t_old);
	node(all, sizeof(all), "n7", "IDLE", "debug", NULL, NULL);
	node(all, sizeof(all), "n8", "IDLE+DRAIN", "other", lustre, t_now);
	node(all, sizeof(all), "n9", "MIXED", "debug", NULL, NULL);

	golden_guard_count(all, "n9", "mounts /lustre", (long long)now, 900, &v);
	ok(v.partition_nodes == 8, "the partition: 8 nodes of debug, not n8 (%d)",
	   v.partition_nodes);
	ok(v.holders == 2, "holders: n1 and n2 (same mount, golden's, recent) (%d)", v.holders);
	ok(!v.self_holds && v.ahead == 2, "n9 holds nothing: everyone is ahead");

	golden_guard_count(all, "n9", "mounts /lustre", (long long)now, 0, &v);
	ok(v.holders == 3, "no window: n6's old drain counts too (%d)", v.holders);

	golden_guard_count(all, "n9", "mounts *", (long long)now, 900, &v);
	ok(v.holders == 3, "a whole-check timeout matches every mount (%d)", v.holders);

	golden_guard_count(all, "n2", "mounts /lustre", (long long)now, 900, &v);
	ok(v.self_holds && v.holders == 1 && v.ahead == 1,
	   "n2 holds one: n1 (same second, smaller name) is ahead of it");
	golden_guard_count(all, "n1", "mounts /lustre", (long long)now, 900, &v);
	ok(v.self_holds && v.ahead == 0, "n1 is first");

	golden_guard_count(all, "n9", "ib-ports ib", (long long)now, 900, &v);
	ok(v.holders == 0, "another class: none");

	f.guard_nodes = 1;
	ok(golden_guard_check("/nonexistent/scontrol", "n9", &f, "xid", "gpu0 xid79 offbus", false,
	                      (long long)now, &v, NULL) == 0 &&
	       !v.shared,
	   "a GPU fault never asks: node-local, always drains");
	{
		struct golden_err err = {{0}};

		ok(golden_guard_check("/nonexistent/scontrol", "n9", &f, "mounts",
		                      "/lustre statfs EIO", false, (long long)now, &v, &err) < 0 &&
		       v.shared && err.msg[0],
		   "the controller cannot be asked: an error, so the caller drains: %s", err.msg);
	}
	return done_testing();
}
