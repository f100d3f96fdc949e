/* Slurm host lists: expansion and the ranged form, as Slurm spells them in
 * topology.conf and `scontrol show topology`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t/unit/tap.h"
#include "util/hostlist.h"

/* Expand expr and join the names with spaces. */
static const char *expand(const char *expr, int *rc)
{
	static char out[4096];
	struct golden_hostlist hl = {0};
	struct golden_err err = {{0}};

	out[0] = '\0';
	*rc = golden_hostlist_expand(expr, &hl, &err);
	if (*rc < 0)
		snprintf(out, sizeof(out), "error: %s", err.msg);
	for (size_t i = 0; *rc == 0 && i < hl.n; i++) {
		strncat(out, i ? " " : "", sizeof(out) - strlen(out) - 1);
		strncat(out, hl.names[i], sizeof(out) - strlen(out) - 1);
	}
	golden_hostlist_free(&hl);
	return out;
}

static char *ranged(const char *expr)
{
	struct golden_hostlist hl = {0};
	struct golden_err err = {{0}};
	char *r;

	if (golden_hostlist_expand(expr, &hl, &err) < 0)
		return strdup(err.msg);
	r = golden_hostlist_ranged(hl.names, hl.n);
	golden_hostlist_free(&hl);
	return r;
}

static void is_ranged(const char *expr, const char *want)
{
	char *got = ranged(expr);

	is(got, want, "ranged(%s) = %s", expr, want);
	free(got);
}

int main(void)
{
	int rc;
	struct golden_hostlist hl = {0};

	is(expand("n[1-3,5]", &rc), "n1 n2 n3 n5", "n[1-3,5]");
	is(expand("gpu[01-03],login1", &rc), "gpu01 gpu02 gpu03 login1", "zero padding kept");
	is(expand("r[1-2]n[1-2]", &rc), "r1n1 r1n2 r2n1 r2n2", "two bracket groups");
	is(expand("a08-p1-dgx-04-c[01-02]", &rc), "a08-p1-dgx-04-c01 a08-p1-dgx-04-c02",
	   "dashes and digits before the range");
	is(expand("n1,,n2", &rc), "n1 n2", "an empty item is skipped");
	is(expand("", &rc), "", "empty list");
	expand("n[1-", &rc);
	ok(rc < 0, "unbalanced bracket is an error");
	is(expand("n[3-1]", &rc), "error: bad range '3-1': 3 > 1", "reversed range: %s", "said");
	is(expand("n[a-b]", &rc), "error: bad range 'a-b': expected digits", "letters in a range");
	expand("n[1-99999999]", &rc);
	ok(rc < 0, "a range of 10^8 names is refused");
	expand("n1 n2", &rc);
	ok(rc < 0, "white space is refused");

	is_ranged("n1,n2,n3,n5", "n[1-3,5]");
	is_ranged("n10,n9,n1,n2", "n[1-2,9-10]");
	is_ranged("gpu01,gpu02,gpu03", "gpu[01-03]");
	is_ranged("gpu098,gpu099,gpu100,gpu101", "gpu[098-101]");
	is_ranged("gb09,gb10", "gb[09-10]");
	is_ranged("n9,n10,n11", "n[9-11]");
	is_ranged("n3", "n3");
	is_ranged("login,n[1-2]", "login,n[1-2]");
	is_ranged("n2,n1,n2", "n[1-2]");
	is_ranged("a08-p1-dgx-04-c[01-03],a08-p1-dgx-05-c01",
	          "a08-p1-dgx-04-c[01-03],a08-p1-dgx-05-c01");
	is_ranged("S-0008f10400411f56,S-0008f10400411f57", "S-0008f10400411f[56-57]");
	{
		/* round trip: ranged then expanded gives the same set */
		char *r = ranged("x[1-5,7,9-12],y01,y02,z");
		is(expand(r, &rc), "x1 x2 x3 x4 x5 x7 x9 x10 x11 x12 y01 y02 z", "round trip of %s",
		   r);
		free(r);
	}
	golden_hostlist_add(&hl, "n10");
	golden_hostlist_add(&hl, "n2");
	golden_hostlist_add(&hl, "n10");
	golden_hostlist_uniq(&hl);
	ok(hl.n == 2 && !strcmp(hl.names[0], "n2") && golden_hostlist_has(&hl, "n10"),
	   "uniq sorts naturally and drops duplicates");
	golden_hostlist_free(&hl);
	return done_testing();
}
