/* Slurm hostlist expressions matched against one name, as slurm.conf and
 * scontrol write them. */
#include <config.h>

#include <string.h>

#include "t/unit/tap.h"
#include "util/hostlist.h"

int main(void)
{
	static const struct {
		const char *expr, *node;
		bool want;
	} cases[] = {
	    {"gpu[001-064]", "gpu001", true},
	    {"gpu[001-064]", "gpu064", true},
	    {"gpu[001-064]", "gpu065", false},
	    {"gpu[001-064]", "gpu1", false},    /* fixed width: three digits */
	    {"gpu[001-064]", "gpu0001", false}, /* ... exactly */
	    {"gpu[1-64]", "gpu7", true},
	    {"gpu[1-64]", "gpu07", false}, /* no leading zeros without them in the range */
	    {"gpu[1-64]", "gpu64", true},
	    {"gpu[001-064,100]", "gpu100", true},
	    {"gpu[001-004,010-012],login1", "login1", true},
	    {"gpu[001-004,010-012],login1", "gpu011", true},
	    {"gpu[001-004,010-012],login1", "gpu005", false},
	    {"login1", "login10", false},
	    {"n[1-2]-ib[0-1]", "n2-ib1", true},
	    {"n[1-2]-ib[0-1]", "n2-ib2", false},
	    {"n[1-20]", "n12", true}, /* two digits, not 1 then "2" */
	    {"n[1-9]x", "n12x", false},
	    {"rack[1-2]n[01-18]", "rack2n18", true},
	    {"rack[1-2]n[01-18]", "rack2n8", false},
	    {"n1,n2", "n2", true},
	    {"n1", "", false},
	};
	static const char *bad[] = {"",    "gpu[1-", "gpu[a-b]", "gpu[5-1]", "gpu]1",
	                            "n1,", "n1,,n2", "gpu[1-2",  "n 1",      "n[]"};
	struct golden_err err;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ok(golden_hostlist_match(cases[i].expr, cases[i].node) == cases[i].want, "%s %s %s",
		   cases[i].expr, cases[i].want ? "matches" : "does not match", cases[i].node);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&err, 0, sizeof(err));
		ok(golden_hostlist_check(bad[i], &err) < 0 && err.msg[0], "'%s' is refused: %s",
		   bad[i], err.msg);
		ok(!golden_hostlist_match(bad[i], "n1"), "'%s' matches nothing", bad[i]);
	}
	ok(golden_hostlist_check("gpu[001-064,100],login[1-2]", &err) == 0, "a real list is fine");
	ok(!golden_hostlist_match("gpu[001-064]", NULL), "no node, no match");
	return done_testing();
}
