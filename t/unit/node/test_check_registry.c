/* The check registry: every family registered, selection by phase and by
 * golden.conf. */
#include <config.h>

#include <string.h>

#include "node/check_registry.h"
#include "t/unit/tap.h"

int main(void)
{
	const struct golden_check *sel[GOLDEN_MAX_CHECKS];
	struct golden_conf conf;
	int n;

	golden_conf_init(&conf);
	n = golden_checks_select(&conf, GOLDEN_PHASE_PROLOG, sel, GOLDEN_MAX_CHECKS);
	ok(n > 5, "built-in prolog checks selected (%d)", n);
	ok(golden_check_find("xid") && golden_check_find("gpu-count") &&
	       golden_check_find("ib-ports") && golden_check_find("mounts"),
	   "every module registered");
	ok(!golden_check_find("no-such-check"), "unknown name");
	{
		int with = 0, without = 0;

		for (int i = 0; i < n; i++)
			with += !strcmp(sel[i]->name, "gpu-procs");
		n = golden_checks_select(&conf, GOLDEN_PHASE_EPILOG, sel, GOLDEN_MAX_CHECKS);
		for (int i = 0; i < n; i++)
			without += !strcmp(sel[i]->name, "gpu-procs");
		ok(with == 1 && without == 0, "leftover-process check runs in the prolog only");
	}
	conf.nchecks = 1;
	strcpy(conf.checks[0].name, "xid");
	conf.checks[0].disabled = true;
	n = golden_checks_select(&conf, GOLDEN_PHASE_PROLOG, sel, GOLDEN_MAX_CHECKS);
	{
		int found = 0;

		for (int i = 0; i < n; i++)
			found += !strcmp(sel[i]->name, "xid");
		ok(!found, "check.xid = off removes it");
	}
	ok(golden_check_find("wb-stall") && golden_check_find("teardown"),
	   "the stall probe's kernel checks are registered too");
	return done_testing();
}
