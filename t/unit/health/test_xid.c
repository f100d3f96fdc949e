/* XID/SXid line parser, PCI normalisation, catalogue and policy. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "t/unit/tap.h"
#include "health/xid.h"

static struct golden_xid_event ev;
static struct golden_xid_verdict v;

static int parse(const char *line)
{
	return golden_xid_parse(line, &ev);
}

static void classify(const char *line)
{
	if (!golden_xid_parse(line, &ev))
		diag("did not parse: %s", line);
	golden_xid_classify(&ev, NULL, &v);
}

static void test_formats(void)
{
	ok(parse("NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python, GPU has fallen off the "
	         "bus.") == 1,
	   "standard line parses");
	is_int(ev.xid, 79, "standard: xid");
	is(ev.pci, "0000:3b:00.0", "standard: pci gets .0");
	is_int(ev.pid, 1234, "standard: pid");
	is(ev.name, "python", "standard: name");
	is(ev.text, "GPU has fallen off the bus.", "standard: text");
	ok(ev.gi == -1 && ev.ci == -1 && !ev.offbus && !ev.sxid, "standard: no MIG, not offbus");

	ok(parse("NVRM: Xid (0000:01:00): 13, pid=77, name=a.out, Graphics SM Warp Exception") == 1,
	   "no PCI: prefix parses");
	is_int(ev.xid, 13, "no PCI: xid");
	is(ev.pci, "0000:01:00.0", "no PCI: address");

	ok(parse("NVRM: Xid (PCI:0000:3b:00 GPU-I:01 GPU-CI:02): 31, pid=5678, name=python3, Ch "
	         "00000008, intr 00000000. MMU Fault") == 1,
	   "MIG line parses");
	is_int(ev.xid, 31, "MIG: xid");
	is(ev.pci, "0000:3b:00.0", "MIG: address");
	is_int(ev.gi, 1, "MIG: GPU instance");
	is_int(ev.ci, 2, "MIG: compute instance");
	is_int(ev.pid, 5678, "MIG: pid");
	is(ev.text, "Ch 00000008, intr 00000000. MMU Fault", "MIG: text");

	ok(parse("NVRM: Xid (PCI:0000:3b:00): 43, pid='<unknown>', name=<unknown>, Ch 00000010") ==
	       1,
	   "unknown pid parses");
	is_int(ev.pid, -1, "unknown pid: -1");
	is(ev.name, "<unknown>", "unknown name kept");
	is(ev.text, "Ch 00000010", "unknown pid: text");

	ok(parse("NVRM: Xid (PCI:0000:3b:00): 62, 323f0f30 00001ba4 00000000 0000c0de") == 1,
	   "no pid/name parses");
	is_int(ev.xid, 62, "no pid/name: xid");
	is_int(ev.pid, -1, "no pid/name: pid -1");
	is(ev.name, "", "no pid/name: name empty");
	is(ev.text, "323f0f30 00001ba4 00000000 0000c0de", "no pid/name: payload is the text");

	ok(parse("[  412.123456] NVRM: Xid (PCI:0000:3b:00): 48, pid=9, name=x, An uncorrectable "
	         "double bit error (DBE) has been detected") == 1,
	   "dmesg timestamp prefix tolerated");
	is_int(ev.xid, 48, "prefixed: xid");

	ok(parse("NVRM: Xid (PCI:0000:3b:00): 154, GPU recovery action changed from 0x0 (None) to "
	         "0x2 (Node Reboot Required)") == 1,
	   "154 parses");
	is_int(ev.recovery_action, 2, "154: new recovery action");
	is_int(ev.pid, -1, "154: no pid");

	ok(parse("NVRM: Xid (PCI:0008:01:00): 149, NETIR_LINK_EVT  Fatal   XC0 i0 Link 08 "
	         "(0x004505c6 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000)") == 1,
	   "NVLink5 149 parses");
	is(ev.pci, "0008:01:00.0", "149: address with domain 8");
	is_int(ev.subcode, 4, "149: subcode = bits 20-25 of 0x004505c6");
	is_int(ev.fatal, 1, "149: Fatal");
	ok(parse("NVRM: Xid (PCI:0000:3b:00): 145, RLW_REMAP  Non-fatal  XC0 i0 Link 02 "
	         "(0x03f00000 0x0)") == 1,
	   "NVLink5 145 parses");
	is_int(ev.subcode, 0x3f, "145: subcode 0x3f");
	is_int(ev.fatal, 0, "145: Non-fatal is not Fatal");

	ok(parse("NVRM: GPU 0000:18:00.0: GPU has fallen off the bus.") == 1,
	   "fallen-off-bus line parses");
	ok(ev.offbus && ev.xid == 79, "offbus: flag and xid 79");
	is(ev.pci, "0000:18:00.0", "offbus: address");
	ok(parse("NVRM: GPU 0000:18:00.0: RmInitAdapter failed! (0x22:0x38:884)") == 0,
	   "other NVRM: GPU lines are not faults");
	ok(parse("NVRM: GPU at PCI:0000:9b:00: GPU-8f6d2a4e-1c3b-4d5e-9f00-0123456789ab") == 0,
	   "BDF->UUID preamble is not a fault");

	ok(parse("nvidia-nvswitch3: SXid (PCI:0000:05:00.0): 12028, Non-fatal, Link 32 egress "
	         "non-posted PRIV error (First)") == 1,
	   "SXid parses");
	ok(ev.sxid, "SXid: flag");
	is_int(ev.xid, 12028, "SXid: number");
	is_int(ev.nvswitch, 3, "SXid: switch index");
	is_int(ev.fatal, 0, "SXid: Non-fatal");
	is(ev.pci, "0000:05:00.0", "SXid: address");
	ok(parse("nvidia-nvswitch0: SXid (PCI:0000:c5:00.0): 24007, Fatal, Link 44 sourcetrack") ==
	           1 &&
	       ev.fatal == 1,
	   "SXid Fatal");
	ok(parse("SXid (PCI:0000:c5:00.0): 24007, Fatal, x") == 1 && ev.nvswitch == -1,
	   "SXid without switch name: index -1");
}

static void test_garbage(void)
{
	static const char *const bad[] = {
	    "",
	    "NVRM:",
	    "NVRM: Xid",
	    "NVRM: Xid (",
	    "NVRM: Xid (PCI:0000:3b:00",
	    "NVRM: Xid (PCI:0000:3b:00)",
	    "NVRM: Xid (PCI:0000:3b:00): ",
	    "NVRM: Xid (PCI:0000:3b:00): abc, pid=1",
	    "NVRM: Xid (PCI:0000:3b:00): 79x, pid=1",
	    "NVRM: Xid (PCI:0000:3b:00): 99999999999999, pid=1",
	    "NVRM: Xid (PCI:0000:3b:00) 79, pid=1",
	    "SXid (",
	    "SXid (PCI:0000:05:00.0): Fatal",
	    "NVRM: GPU has fallen off the bus",
	    "NVRM: GPU zz:zz: GPU has fallen off the bus.",
	    "hello world",
	    "\x01\x02\x03\xff\xfe",
	};
	char *big;
	size_t n = 100000;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ok(parse(bad[i]) == 0 && ev.xid == 0 && ev.pid == -1, "garbage %zu rejected", i);
	ok(golden_xid_parse(NULL, &ev) == 0, "NULL rejected");

	ok(parse("NVRM: Xid (PCI:zz): 79, pid=1, name=x, y") == 1 && ev.pci[0] == '\0',
	   "bad address: still an Xid, address empty");
	ok(parse("NVRM: Xid (PCI:0000:3b:00): 79, pid=12ab, name=x, y") == 1 && ev.pid == -1,
	   "non-numeric pid ignored");
	ok(parse(
	       "\xff\xfe NVRM: Xid (PCI:0000:3b:00): 79, pid=1, name=\x01\x02x, bad \x7f bytes") ==
	       1,
	   "binary junk around a valid line");
	is(ev.name, "??x", "control characters in the name replaced");
	is(ev.text, "bad ? bytes", "DEL in the text replaced");

	/* Very long lines: text and name truncated, nothing read past the end. */
	big = malloc(n + 200);
	if (!big)
		abort();
	strcpy(big, "NVRM: Xid (PCI:0000:3b:00): 13, pid=1, name=");
	memset(big + strlen(big), 'n', 300);
	big[44 + 300] = '\0';
	strcat(big, ", ");
	memset(big + strlen(big), 'A', n - strlen(big));
	big[n] = '\0';
	ok(parse(big) == 1, "100 KB line parses");
	is_int((long)strlen(ev.text), GOLDEN_XID_TEXT_LEN - 1, "long text truncated");
	is_int((long)strlen(ev.name), GOLDEN_XID_NAME_LEN - 1, "long name truncated");

	big[0] = '\0';
	while (strlen(big) + 12 < n)
		strcat(big, "NVRM: Xid (");
	ok(parse(big) == 0, "100 KB of repeated prefixes rejected");
	memset(big, '(', n);
	big[n] = '\0';
	ok(parse(big) == 0, "100 KB of parentheses rejected");
	memcpy(big, "NVRM: Xid (", 11);
	ok(parse(big) == 0, "unterminated address rejected");
	free(big);
}

static void test_pci(void)
{
	char out[GOLDEN_BUSID_LEN];
	static const struct {
		const char *in, *want;
	} cases[] = {
	    {"PCI:0000:3b:00", "0000:3b:00.0"},
	    {"0000:18:00.0", "0000:18:00.0"},
	    {"3b:00", "0000:3b:00.0"},
	    {"0000:3B:00.1", "0000:3b:00.1"},
	    {"00000000:3b:00.0", "0000:3b:00.0"},
	    {"0008:01:1f.7", "0008:01:1f.7"},
	    {"10000:e1:00.0", NULL},
	    {"0000:3b:20", NULL},
	    {"0000:3b", NULL},
	    {"3b:00.8", NULL},
	    {"", NULL},
	    {"PCI:", NULL},
	    {"0000:3b:00.0x", NULL},
	    {"0000:3b:00:00", NULL},
	    {"0000:3b:00.", NULL},
	    {"0000::00", NULL},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc =
		    golden_xid_pci_normalize(cases[i].in, strlen(cases[i].in), out, sizeof(out));
		if (cases[i].want)
			ok(rc == 0 && strcmp(out, cases[i].want) == 0, "pci '%s' -> %s (got %s)",
			   cases[i].in, cases[i].want, out);
		else
			ok(rc == -1 && out[0] == '\0', "pci '%s' rejected", cases[i].in);
	}
	ok(golden_xid_pci_normalize("0000:3b:00.0", 12, out, 8) == -1 && out[0] == '\0',
	   "pci: small output buffer rejected");
	ok(golden_xid_pci_normalize("0000:3b:00.0trailing", 12, out, sizeof(out)) == 0 &&
	       strcmp(out, "0000:3b:00.0") == 0,
	   "pci: length bounds the input");
}

static void test_catalogue(void)
{
	static const int required[] = {13,  31,  43,  45,  48,  61,  62,  63,  64,  74,  79,
	                               92,  94,  95,  109, 119, 120, 121, 123, 136, 140, 143,
	                               144, 145, 146, 147, 148, 149, 150, 154, 155, 156, 158,
	                               8,   32,  38,  56,  57,  58,  68,  69,  73,  80,  81};
	int n = 0, prev = 0, bad = 0;

	for (const struct golden_xid_info *i = golden_xid_catalogue; i->xid; i++, n++) {
		int good = i->tag && i->tag[0] && i->meaning && i->meaning[0] && i->nvidia_action &&
		           i->nvidia_action[0] && i->xid > prev &&
		           (i->status == GOLDEN_ST_FAIL) == (i->action != GOLDEN_ACTION_NONE) &&
		           !(i->app_error && i->status == GOLDEN_ST_FAIL) && !strchr(i->tag, ' ');
		if (!good) {
			bad++;
			diag("bad catalogue entry %d", i->xid);
		}
		prev = i->xid;
	}
	ok(bad == 0, "all %d catalogue entries well-formed (texts, sorted, status/action agree)",
	   n);
	for (size_t k = 0; k < sizeof(required) / sizeof(required[0]); k++) {
		const struct golden_xid_info *i = golden_xid_lookup(required[k]);
		ok(i && i->xid == required[k] && i->meaning[0] && i->nvidia_action[0],
		   "xid %d catalogued: %s", required[k], i ? i->meaning : "MISSING");
	}
	ok(golden_xid_lookup(0) == NULL && golden_xid_lookup(999) == NULL && !golden_xid_lookup(-1),
	   "lookup of uncatalogued XIDs is NULL");
}

struct pol {
	int xid;
	enum golden_status st;
	enum golden_action act;
	bool app;
};

static void test_policy(void)
{
	static const struct pol pols[] = {
	    {13, GOLDEN_ST_WARN, GOLDEN_ACTION_NONE, true},
	    {31, GOLDEN_ST_WARN, GOLDEN_ACTION_NONE, true},
	    {43, GOLDEN_ST_WARN, GOLDEN_ACTION_NONE, true},
	    {45, GOLDEN_ST_WARN, GOLDEN_ACTION_NONE, true},
	    {63, GOLDEN_ST_WARN, GOLDEN_ACTION_NONE, false},
	    {92, GOLDEN_ST_WARN, GOLDEN_ACTION_NONE, false},
	    {94, GOLDEN_ST_WARN, GOLDEN_ACTION_NONE, false},
	    {48, GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_REBOOT, false},
	    {79, GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_REBOOT, false},
	    {95, GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_RESET, false},
	    {62, GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_RESET, false},
	    {64, GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_RESET, false},
	    {119, GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_RESET, false},
	    {120, GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_RESET, false},
	    {136, GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_RESET, false},
	    {140, GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_RESET, false},
	    {143, GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_RESET, false},
	    {74, GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN, false},
	};
	char line[128];

	for (size_t i = 0; i < sizeof(pols) / sizeof(pols[0]); i++) {
		snprintf(line, sizeof(line), "NVRM: Xid (PCI:0000:3b:00): %d, pid=1, name=x, y",
		         pols[i].xid);
		classify(line);
		ok(v.status == pols[i].st && v.action == pols[i].act &&
		       v.app_error == pols[i].app && v.known && !v.overridden,
		   "policy xid %d: %s/%s%s", pols[i].xid, golden_check_status_name(v.status),
		   golden_check_action_name(v.action), v.app_error ? " app" : "");
	}
	classify("NVRM: Xid (PCI:0000:3b:00): 79, pid=1, name=x, GPU has fallen off the bus.");
	is(v.tag, "offbus", "79 tag");
	classify("NVRM: Xid (PCI:0000:3b:00): 48, pid=1, name=x, DBE");
	is(v.tag, "dbe", "48 tag");

	classify("NVRM: GPU 0000:18:00.0: GPU has fallen off the bus.");
	ok(v.status == GOLDEN_ST_FAIL && v.action == GOLDEN_ACTION_DRAIN_REBOOT, "offbus: reboot");
	is(v.tag, "offbus", "offbus tag");

	static const struct {
		int act;
		enum golden_status st;
		enum golden_action a;
		const char *tag;
	} rec[] = {
	    {0, GOLDEN_ST_OK, GOLDEN_ACTION_NONE, "none"},
	    {1, GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_RESET, "reset"},
	    {2, GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_REBOOT, "reboot"},
	    {3, GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN, "drain-p2p"},
	    {4, GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_RESET, "drain-reset"},
	    {5, GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN, "imex"},
	    {6, GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_RESET, "bus-reset"},
	    {7, GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_REBOOT, "sys-reboot"},
	    {9, GOLDEN_ST_WARN, GOLDEN_ACTION_NONE, "recovery"},
	};
	for (size_t i = 0; i < sizeof(rec) / sizeof(rec[0]); i++) {
		snprintf(line, sizeof(line),
		         "NVRM: Xid (PCI:0000:3b:00): 154, GPU recovery action changed from 0x0 "
		         "(None) to 0x%x (X)",
		         rec[i].act);
		classify(line);
		ok(ev.recovery_action == rec[i].act && v.status == rec[i].st &&
		       v.action == rec[i].a && strcmp(v.tag, rec[i].tag) == 0,
		   "154 to %d: %s/%s %s", rec[i].act, golden_check_status_name(v.status),
		   golden_check_action_name(v.action), v.tag);
	}
	classify("NVRM: Xid (PCI:0000:3b:00): 154, GPU recovery action changed");
	ok(ev.recovery_action == -1 && v.status == GOLDEN_ST_WARN, "154 unparsed: warn");

	classify("NVRM: Xid (PCI:0000:3b:00): 149, NETIR_LINK_EVT  Fatal   XC0 i0 Link 08 "
	         "(0x004505c6)");
	ok(v.status == GOLDEN_ST_FAIL && v.action == GOLDEN_ACTION_DRAIN_RESET,
	   "NVLink5 fatal: drain");
	classify("NVRM: Xid (PCI:0000:3b:00): 149, NETIR_LINK_EVT  Non-fatal XC0 (0x004505c6)");
	ok(v.status == GOLDEN_ST_WARN && v.action == GOLDEN_ACTION_NONE, "NVLink5 non-fatal: warn");

	classify("nvidia-nvswitch3: SXid (PCI:0000:05:00.0): 24007, Fatal, x");
	ok(v.status == GOLDEN_ST_FAIL && v.action == GOLDEN_ACTION_DRAIN, "SXid fatal: drain");
	classify("nvidia-nvswitch3: SXid (PCI:0000:05:00.0): 12028, Non-fatal, x");
	ok(v.status == GOLDEN_ST_WARN && v.action == GOLDEN_ACTION_NONE, "SXid non-fatal: warn");
	classify("nvidia-nvswitch3: SXid (PCI:0000:05:00.0): 12028, x");
	ok(v.status == GOLDEN_ST_WARN, "SXid without fatality: warn");

	classify("NVRM: Xid (PCI:0000:3b:00): 999, pid=1, name=x, new");
	ok(v.status == GOLDEN_ST_WARN && v.action == GOLDEN_ACTION_NONE && !v.known && !v.app_error,
	   "unknown XID: warn, recorded");
	ok(v.tag && v.meaning && v.tag[0], "unknown XID: tag and meaning set");
}

static void test_overrides(void)
{
	struct golden_xid_override o;

	memset(&o, 0, sizeof(o));
	o.xid = 31;
	o.status = GOLDEN_ST_FAIL;
	o.action = GOLDEN_ACTION_DRAIN;
	golden_xid_parse("NVRM: Xid (PCI:0000:3b:00): 31, pid=1, name=x, MMU Fault", &ev);
	golden_xid_classify(&ev, &o, &v);
	ok(v.status == GOLDEN_ST_FAIL && v.action == GOLDEN_ACTION_DRAIN && v.overridden &&
	       !v.app_error,
	   "xid.31 = drain: drains, no longer an app error");

	memset(&o, 0, sizeof(o));
	o.xid = 79;
	o.ignore = true;
	golden_xid_parse("NVRM: Xid (PCI:0000:3b:00): 79, pid=1, name=x, off", &ev);
	golden_xid_classify(&ev, &o, &v);
	ok(v.ignored && v.status == GOLDEN_ST_OK && v.action == GOLDEN_ACTION_NONE,
	   "xid.79 = ignore");

	memset(&o, 0, sizeof(o));
	o.xid = 48;
	o.status = GOLDEN_ST_WARN;
	o.action = GOLDEN_ACTION_DRAIN_REBOOT; /* nonsense combination: warn has no action */
	golden_xid_parse("NVRM: Xid (PCI:0000:3b:00): 48, pid=1, name=x, DBE", &ev);
	golden_xid_classify(&ev, &o, &v);
	ok(v.status == GOLDEN_ST_WARN && v.action == GOLDEN_ACTION_NONE && !v.ignored,
	   "xid.48 = warn");

	o.status = GOLDEN_ST_FAIL;
	o.action = GOLDEN_ACTION_NONE;
	golden_xid_classify(&ev, &o, &v);
	ok(v.status == GOLDEN_ST_FAIL && v.action == GOLDEN_ACTION_DRAIN,
	   "override fail without an action drains");

	o.xid = 13; /* another XID's override is not ours */
	golden_xid_classify(&ev, &o, &v);
	ok(v.action == GOLDEN_ACTION_DRAIN_REBOOT && !v.overridden, "mismatched override unused");

	memset(&o, 0, sizeof(o));
	o.xid = 999;
	o.status = GOLDEN_ST_FAIL;
	o.action = GOLDEN_ACTION_DRAIN_RESET;
	golden_xid_parse("NVRM: Xid (PCI:0000:3b:00): 999, pid=1, name=x, new", &ev);
	golden_xid_classify(&ev, &o, &v);
	ok(v.status == GOLDEN_ST_FAIL && v.action == GOLDEN_ACTION_DRAIN_RESET,
	   "override for an uncatalogued XID");

	o.xid = 12028;
	o.ignore = true;
	golden_xid_parse("nvidia-nvswitch3: SXid (PCI:0000:05:00.0): 12028, Fatal, x", &ev);
	golden_xid_classify(&ev, &o, &v);
	ok(!v.ignored && v.status == GOLDEN_ST_FAIL, "XID overrides never apply to SXids");
}

int main(void)
{
	test_formats();
	test_garbage();
	test_pci();
	test_catalogue();
	test_policy();
	test_overrides();
	is(golden_xid_recovery_name(-1), "unknown", "recovery name out of range");
	is(golden_xid_recovery_name(2), "reboot", "recovery name 2");
	return done_testing();
}
