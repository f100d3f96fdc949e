/* sacctmgr's node events: parsing real output, times, and who owns a reason. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/event.h"
#include "health/golden_conf.h"
#include "util/strutil.h"
#include "t/unit/tap.h"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = calloc(1, 1 << 16);
	size_t n;

	if (!f || !buf) {
		if (f)
			fclose(f);
		free(buf);
		return NULL;
	}
	n = fread(buf, 1, (1 << 16) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

int main(void)
{
	const char *src = getenv("GOLDEN_SRCDIR");
	char path[4096], *text;
	struct golden_events evs = {0};
	struct golden_event ev;
	struct golden_err err = {{0}};
	struct golden_conf conf;
	long long t;

	golden_conf_init(&conf);
	snprintf(path, sizeof(path), "%s/t/fixtures/sacctmgr/events-22.05.txt", src ? src : ".");
	text = slurp(path);
	ok(text != NULL, "real sacctmgr output: %s", path);
	ok(golden_events_parse(text ? text : "", &evs, &err) == 0, "parsed");
	is_int((long)evs.n, 4, "four node events");
	is_int((long)evs.malformed, 0, "nothing malformed");
	if (evs.n == 4) {
		is(evs.ev[0].node, "n1", "node");
		is_int((long)evs.ev[0].start, 1796321990L, "start");
		is_int((long)evs.ev[0].end, 1796321993L, "end");
		is(evs.ev[0].state, "DRAIN", "state");
		is(evs.ev[0].user, "root(0)", "user");
		is(evs.ev[0].reason, "gpu0 xid79 offbus; reboot [golden]", "reason");
		is_int((long)evs.ev[1].end, 0, "Unknown end: still drained");
		is(evs.ev[3].state, "DOWN", "DOWN");
		is_int(golden_event_owner(evs.ev[0].reason, &conf.fleet), GOLDEN_OWNER_GOLDEN,
		       "golden's marker: golden");
		is_int(golden_event_owner(evs.ev[2].reason, &conf.fleet), GOLDEN_OWNER_ADMIN,
		       "maintenance: admin");
		is_int(golden_event_owner(evs.ev[3].reason, &conf.fleet), GOLDEN_OWNER_SLURM,
		       "Not responding: Slurm");
	}
	free(text);
	golden_events_free(&evs);

	ok(golden_event_parse_line("n7|1796321990|1796322990|DRAIN|alice(1001)|rma | ticket 42",
	                           &ev) == 0,
	   "a reason with '|' in it");
	is(ev.reason, "rma | ticket 42", "the reason keeps everything after the fifth '|'");
	ok(golden_event_parse_line("|1796321987|Unknown|||Cluster Registered TRES", &ev) < 0,
	   "a cluster event is not a node event");
	ok(golden_event_parse_line("n1|soon|Unknown|DRAIN|root(0)|x", &ev) < 0, "a bad time");
	ok(golden_event_parse_line("n1|1796322019|1796322000|DRAIN|root(0)|x", &ev) < 0,
	   "an end before the start");
	ok(golden_event_parse_line("../etc|1796322019|Unknown|DRAIN|root(0)|x", &ev) < 0,
	   "a node name that is not a node name");
	ok(golden_event_parse_line("n1|1796322019", &ev) < 0, "too few fields");

	setenv("TZ", "UTC", 1);
	ok(golden_event_time("2026-12-03T18:19:50", &t) == 0 && t == 1796321990,
	   "Slurm's standard time format (local time)");
	ok(golden_event_time("2026-12-03T18:19", &t) == 0 && t == 1796321940, "without seconds");
	ok(golden_event_time("2026-12-03", &t) == 0 && t == 1796256000, "a date");
	ok(golden_event_time("Unknown", &t) == 0 && t == 0, "Unknown: open");
	ok(golden_event_time("2026-12-03T18:19:50Z", &t) < 0, "trailing text is refused");

	is_int(golden_event_owner("Prolog error", &conf.fleet), GOLDEN_OWNER_SLURM, "Prolog error");
	is_int(golden_event_owner("Kill task failed", &conf.fleet), GOLDEN_OWNER_SLURM,
	       "Kill task failed");
	is_int(golden_event_owner("Node unexpectedly rebooted boot_time=1", &conf.fleet),
	       GOLDEN_OWNER_SLURM, "unexpected reboot");
	is_int(golden_event_owner("", &conf.fleet), GOLDEN_OWNER_SLURM, "no reason: Slurm");
	is_int(golden_event_owner("reboot requested", &conf.fleet), GOLDEN_OWNER_ADMIN,
	       "a reboot an admin asked for is maintenance");
	is_int(golden_event_owner("NHC: check_fs_mount: /lustre not mounted", &conf.fleet),
	       GOLDEN_OWNER_OTHER, "NHC");
	is_int(golden_event_owner("k8s: cordon: node-problem", &conf.fleet), GOLDEN_OWNER_OTHER,
	       "CoreWeave's k8s: prefix");
	is_int(
	    golden_event_owner("gpu0 xid79 offbus; reboot [golden] - checked by bob", &conf.fleet),
	    GOLDEN_OWNER_ADMIN, "golden's text an admin added to is the admin's");
	is_int(golden_event_owner("flap 3x24h mlx5_1 p1 down; admin [golden]", &conf.fleet),
	       GOLDEN_OWNER_GOLDEN, "golden's flapping drain");
	golden_strlcpy(conf.fleet.other.glob[0], "DCGM*", sizeof(conf.fleet.other.glob[0]));
	conf.fleet.other.n = 1;
	is_int(golden_event_owner("DCGM diag failed", &conf.fleet), GOLDEN_OWNER_OTHER,
	       "report_other_reason adds a tool");
	golden_strlcpy(conf.fleet.slurm.glob[0], "Job not completed*",
	               sizeof(conf.fleet.slurm.glob[0]));
	conf.fleet.slurm.n = 1;
	is_int(golden_event_owner("Job not completed", &conf.fleet), GOLDEN_OWNER_SLURM,
	       "report_slurm_reason adds a Slurm reason");
	printf("1..%d\n", tap_n);
	return tap_failed != 0;
}
