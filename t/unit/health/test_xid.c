/* XID/SXid line parser, PCI normalisation, catalogue and policy, over real
 * kernel lines (t/fixtures/xid/lines) and NVIDIA's catalog
 * (t/fixtures/xid/nvidia-catalogue.tsv). */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t/unit/tap.h"
#include "health/xid.h"
#include "util/kmsg.h"

static const char *srcdir;

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

	/* Records from /dev/kmsg carry no timestamp in their text: a prefix
	 * is someone else's text before the driver's. */
	ok(parse("[  412.123456] NVRM: Xid (PCI:0000:3b:00): 48, pid=9, name=x, An uncorrectable "
	         "double bit error (DBE) has been detected") == 0,
	   "text before the driver's prefix: not the driver");

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
	ok(parse("NVRM: GPU at 0000:01:00.0 has fallen off the bus.") == 1 && ev.offbus &&
	       ev.xid == 79 && !strcmp(ev.pci, "0000:01:00.0"),
	   "old drivers' 'GPU at BDF has fallen off the bus': xid 79, address");
	ok(parse("NVRM: The NVIDIA GPU 0000:b3:00.0\\x0aNVRM: (PCI ID: 10de:26b5) installed in "
	         "this system has\\x0aNVRM: fallen off the bus and is not responding to "
	         "commands.") == 1 &&
	       ev.offbus && ev.xid == 79 && !strcmp(ev.pci, "0000:b3:00.0"),
	   "probe-time record (newlines escaped by /dev/kmsg): xid 79, address");
	ok(parse("NVRM: The NVIDIA GPU 0000:b3:00.0\\x0aNVRM: (PCI ID: 10de:26b5) installed in "
	         "this system is not supported by the NVIDIA 550.54 driver release.") == 0,
	   "probe-time 'not supported' record is no fault");
	ok(parse("NVRM: GPU at PCI:0000:91:00: GPU-b6c3b2be-c55b-d076-fa0e-d464e4c7e08b") == 0,
	   "identity line is no fault");
	ok(parse("NVRM: GPU 0000:18:00.0: GPU serial number is 1653723052734.") == 0,
	   "other per-GPU line is no fault");
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
	ok(parse("SXid (PCI:0000:c5:00.0): 24007, Fatal, x") == 0,
	   "SXid without the driver's 'nvidia-nvswitchN: ' prefix: not the driver");
	ok(parse("nvidia-nvswitch: SXid (PCI:0000:c5:00.0): 24007, Fatal, x") == 0,
	   "SXid prefix without a switch number: not the driver");
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
	       0,
	   "binary junk before a valid line: not the driver's record");
	ok(parse("NVRM: Xid (PCI:0000:3b:00): 79, pid=1, name=\x01\x02x, bad \x7f bytes") == 1,
	   "binary junk inside a valid line");
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

/* Kernel records that quote a user's text: the driver's words inside them
 * are not the driver. The first four are real records (an unprivileged
 * mount in a user namespace, t/fixtures/kmsg/README.md). */
static void test_quoting(void)
{
	static const char *const quoting[] = {
	    "tmpfs: Unknown parameter 'NVRM: Xid (PCI:00ee:00:00): 79 GPU has fallen off the bus.'",
	    "tmpfs: Unknown parameter 'NVRM: GPU at PCI:00ee:00:00: "
	    "GPU-00000000-0000-0000-0000-000000000000'",
	    "tmpfs: Unknown parameter 'NVRM: GPU 00ee:00:00.0: GPU has fallen off the bus.'",
	    "tmpfs: Unknown parameter 'nvidia-nvswitch0: SXid (PCI:00ee:00:00.0): 24007 Fatal'",
	    "audit: type=1107 audit(1764770000.123:77): pid=4242 uid=1000 msg='NVRM: Xid "
	    "(PCI:0000:3b:00): 79, pid=1, name=x, GPU has fallen off the bus.'",
	    "python3[4242]: NVRM: Xid (PCI:0000:3b:00): 79, pid=1, name=x, GPU has fallen off "
	    "the bus.",
	    "NVRM: Xid (PCI:[4242]: segfault at 0 ip 00000000004005b1 sp 00007ffc5b1be400 error 4",
	};
	char busid[GOLDEN_BUSID_LEN];

	for (size_t i = 0; i < sizeof(quoting) / sizeof(quoting[0]); i++) {
		ok(parse(quoting[i]) == 0 && ev.xid == 0,
		   "quoting record %zu is no driver fault: %.40s...", i, quoting[i]);
		ok(golden_xid_parse_gpu_init(GOLDEN_KMSG_FAC_KERNEL, quoting[i], busid,
		                             sizeof(busid)) == 0 &&
		       busid[0] == '\0',
		   "... nor a GPU re-initialisation");
	}
}

/* Who wrote the record: the kernel, root itself, or someone else. */
static void test_origin(void)
{
	static const char line[] =
	    "NVRM: Xid (PCI:0000:3b:00): 79, pid=1, name=x, GPU has fallen off the bus.";
	static const char fwd[] = "NVRM: Xid (PCI:0000:3b:00): 79, pid=1, name=x, GPU has fallen "
	                          "off the bus.[4242]: hello";
	char busid[GOLDEN_BUSID_LEN];

	is_int(golden_kmsg_origin(0, line), GOLDEN_KMSG_FROM_KERNEL, "facility kern: the kernel");
	is_int(golden_kmsg_origin(1, line), GOLDEN_KMSG_FROM_ROOT,
	       "facility user, the driver's exact line: root's own write");
	is_int(golden_kmsg_origin(1, fwd), GOLDEN_KMSG_FROM_OTHER,
	       "facility user with an 'IDENT[PID]: ' header: a daemon's forward");
	is_int(golden_kmsg_origin(1, "systemd[1]: Started x."), GOLDEN_KMSG_FROM_OTHER,
	       "systemd's own kmsg lines are forwards too");
	is_int(golden_kmsg_origin(3, line), GOLDEN_KMSG_FROM_OTHER, "facility daemon: other");
	is_int(golden_kmsg_origin(0, "a.out[40342]: segfault at 0"), GOLDEN_KMSG_FROM_KERNEL,
	       "the header means nothing at facility kern");
	ok(golden_xid_parse_record(0, line, &ev) == 1 && ev.xid == 79, "record: kernel counts");
	ok(golden_xid_parse_record(1, line, &ev) == 1 && ev.xid == 79,
	   "record: root's echo > /dev/kmsg counts (how operators test)");
	ok(golden_xid_parse_record(1, fwd, &ev) == 0 && ev.xid == 0,
	   "record: a forwarded identifier that spells a driver line does not");
	ok(golden_xid_parse_record(0, "NVRM: Xid (PCI:0000:3b:00): 13, pid=1, name=a[1]: b, x",
	                           &ev) == 1,
	   "record: a kernel line whose process name looks like a header still counts");
	ok(golden_xid_parse_record(3, line, &ev) == 0, "record: daemon facility does not");

	ok(golden_xid_parse_gpu_init(0, "NVRM: GPU at PCI:0000:3b:00: GPU-8f6d2a4e", busid,
	                             sizeof(busid)) == 1 &&
	       !strcmp(busid, "0000:3b:00.0"),
	   "identity line: GPU re-initialised, address normalised");
	ok(golden_xid_parse_gpu_init(1, "NVRM: GPU at 0000:03:00: GPU-b850f46d", busid,
	                             sizeof(busid)) == 1 &&
	       !strcmp(busid, "0000:03:00.0"),
	   "old identity line without PCI:, written by root");
	ok(golden_xid_parse_gpu_init(1, "NVRM: GPU at PCI:0000:3b:00: GPU-8f6d2a4e[4242]: x", busid,
	                             sizeof(busid)) == 0,
	   "forwarded identity line: no re-initialisation");
	ok(golden_xid_parse_gpu_init(0, "NVRM: GPU at PCI:0000:3b:00: Board Serial 1", busid,
	                             sizeof(busid)) == 0,
	   "identity line needs the GPU-<uuid>");
	ok(golden_xid_parse_gpu_init(0, "NVRM: GPU Board Serial Number: 1653723052734", busid,
	                             sizeof(busid)) == 0,
	   "serial number line is no re-initialisation");
}

/* Every real line in a fixture file. want: 1 every line parses, 0 none. */
static void lines_file(const char *name, int want, int *nlines, int (*check)(const char *))
{
	char path[4096], line[8192];
	FILE *f;
	int n = 0, bad = 0;

	snprintf(path, sizeof(path), "%s/t/fixtures/xid/lines/%s", srcdir, name);
	f = fopen(path, "r");
	if (!f) {
		printf("Bail out! %s: %s\n", path, strerror(errno));
		exit(1);
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		n++;
		if ((parse(line) == 1) != want || (want && check && !check(line))) {
			bad++;
			diag("%s:%d: %s", name, n, line);
		}
	}
	fclose(f);
	*nlines = n;
	ok(bad == 0 && n > 0, "%s: %s of %d real line(s)", name,
	   want ? "parsed every one" : "none a fault", n);
}

static int has_pci(const char *line)
{
	(void)line;
	return ev.pci[0] && ev.xid > 0;
}

static int is_offbus(const char *line)
{
	(void)line;
	return ev.xid == 79 && ev.pci[0];
}

static int is_sxid(const char *line)
{
	(void)line;
	return ev.sxid && ev.nvswitch >= 0 && ev.pci[0] && ev.xid >= 10000;
}

static void test_fixture_lines(void)
{
	int n;
	char busid[GOLDEN_BUSID_LEN];

	lines_file("xid_with_pid_name.txt", 1, &n, has_pci);
	lines_file("xid_pid_unknown.txt", 1, &n, has_pci);
	lines_file("xid_no_pid.txt", 1, &n, has_pci);
	lines_file("sxid.txt", 1, &n, is_sxid);
	lines_file("fallen_off_bus_probe_as_devkmsg.txt", 1, &n, is_offbus);
	/* Kernel and daemon records quoting user text (lines 1-17), and gpud's
	 * injected "NVRM: Xid ..." (line 18), which dmesg shows at facility
	 * syslog: none is the driver. */
	{
		char path[4096], line[1024];
		FILE *f;
		int k = 0, bad = 0;

		snprintf(path, sizeof(path), "%s/t/fixtures/xid/lines/spoofable_user_text.txt",
		         srcdir);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\n")] = '\0';
			if (++k < 18 ? parse(line) != 0
			             : golden_xid_parse_record(5, line, &ev) != 0 ||
			                   golden_xid_parse_record(1, line, &ev) != 1) {
				bad++;
				diag("spoofable_user_text.txt:%d: %s", k, line);
			}
		}
		if (f)
			fclose(f);
		ok(k == 18 && bad == 0,
		   "spoofable_user_text.txt: no quoting record is a fault; gpud's injected line "
		   "counts only when root writes it itself (facility user), not at facility "
		   "syslog");
	}

	/* Line by line where a file mixes faults and other driver lines. */
	{
		static const char *const offbus[] = {
		    "NVRM: Xid (PCI:0000:91:00): 79, pid='<unknown>', name=<unknown>, GPU has "
		    "fallen "
		    "off the bus.",
		    "NVRM: GPU 0000:91:00.0: GPU has fallen off the bus.",
		    "NVRM: GPU at 0000:01:00.0 has fallen off the bus.",
		    "NVRM: GPU at 0000:02:00.0 has fallen off the bus.",
		    "NVRM: GPU 0000:01:00.0: GPU has fallen off the bus.",
		    "NVRM: Xid (PCI:0000:44:00): 79, GPU has fallen off the bus",
		};
		char path[4096], line[1024];
		FILE *f;
		int faults = 0, others = 0, wrong = 0;

		snprintf(path, sizeof(path), "%s/t/fixtures/xid/lines/fallen_off_bus.txt", srcdir);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f)) {
			bool listed = false;

			line[strcspn(line, "\n")] = '\0';
			for (size_t i = 0; i < sizeof(offbus) / sizeof(offbus[0]); i++)
				listed |= !strcmp(line, offbus[i]);
			if (listed && parse(line) == 1 && ev.xid == 79 && ev.pci[0])
				faults++;
			else if (!listed && parse(line) == 0)
				others++;
			else
				wrong++;
		}
		if (f)
			fclose(f);
		ok(faults == 6 && others == 2 && wrong == 0,
		   "fallen_off_bus.txt: all 6 forms are Xid 79 with an address, the serial "
		   "number and os_pci_init_handle lines are not (%d/%d/%d)",
		   faults, others, wrong);
	}
	ok(parse("NVRM: Xid (0000:03:00): 14, Channel 00000001") == 1 && ev.xid == 14 &&
	       !strcmp(ev.pci, "0000:03:00.0"),
	   "xid_no_pci_prefix.txt: NVIDIA's own old-format example");
	ok(golden_xid_parse_gpu_init(0,
	                             "NVRM: GPU at 0000:03:00: GPU-b850f46d-d5ea-c752-ddf3-"
	                             "c4453e44d3f7",
	                             busid, sizeof(busid)) == 1,
	   "xid_no_pci_prefix.txt: its old-format identity line");

	/* gpu_identity_and_recovery.txt: the identity lines re-initialise a
	 * GPU; of the rest, only the Xid 154 line is a fault. */
	{
		char path[4096], line[1024];
		FILE *f;
		int ids = 0, faults = 0, n2 = 0;

		snprintf(path, sizeof(path),
		         "%s/t/fixtures/xid/lines/gpu_identity_and_recovery.txt", srcdir);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\n")] = '\0';
			n2++;
			ids += golden_xid_parse_gpu_init(0, line, busid, sizeof(busid));
			faults += parse(line);
		}
		if (f)
			fclose(f);
		ok(n2 == 16 && ids == 5 && faults == 1,
		   "gpu_identity_and_recovery.txt: 5 identity lines, 1 fault (154) in 16 (%d, %d)",
		   ids, faults);
	}
	/* dmesg shows the probe record as three lines; none alone is a fault
	 * (the record is: fallen_off_bus_probe_as_devkmsg.txt). */
	lines_file("fallen_off_bus_probe_multiline.txt", 0, &n, NULL);
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

/* What the policy rules at the top of the catalogue (lib/health/xid.c) give
 * for NVIDIA's actions; NULL status when a row must say how it reads them. */
static bool rule(const char *meaning, const char *imm, const char *inv, enum golden_status *st,
                 enum golden_action *act, bool *app)
{
	*app = false;
	*act = GOLDEN_ACTION_NONE;
	*st = GOLDEN_ST_WARN;
	if (!strcmp(meaning, "Unused"))
		return true;
	if (!strcmp(imm, "RESET_GPU")) {
		*st = GOLDEN_ST_FAIL;
		*act = GOLDEN_ACTION_DRAIN_RESET;
		return true;
	}
	if (!strcmp(imm, "RESTART_BM")) {
		*st = GOLDEN_ST_FAIL;
		*act = GOLDEN_ACTION_DRAIN_REBOOT;
		return true;
	}
	if (!strcmp(imm, "RESTART_APP") || !strcmp(imm, "IGNORE") ||
	    !strcmp(imm, "CONTACT_SUPPORT")) {
		*app = !strcmp(inv, "CHECK_APP/CUDA") || !strcmp(inv, "WORKFLOW_XID_13") ||
		       !strcmp(inv, "WORKFLOW_XID_31") || !strcmp(inv, "XID_137_FLOW");
		return true;
	}
	return false;
}

/* The TSV's cell as the catalogue stores it ("" where NVIDIA gives none). */
static const char *cell(const char *c)
{
	return !strncmp(c, "(blank", 6) || !strcmp(c, "(none given)") ? "" : c;
}

static void test_catalogue(void)
{
	char path[4096], line[2048];
	int n = 0, prev = 0, bad = 0, rows = 0, same = 0, deviations = 0, unused = 0;
	FILE *f;

	for (const struct golden_xid_info *i = golden_xid_catalogue; i->xid; i++, n++) {
		enum golden_status st;
		enum golden_action act;
		bool app, ruled = rule(i->meaning, i->immediate, i->investigatory, &st, &act, &app);
		int good = i->tag && i->tag[0] && i->mnemonic && i->mnemonic[0] && i->meaning &&
		           i->meaning[0] && i->immediate && i->investigatory && i->xid > prev &&
		           (i->status == GOLDEN_ST_FAIL) == (i->action != GOLDEN_ACTION_NONE) &&
		           !(i->app_error && i->status == GOLDEN_ST_FAIL) && !strchr(i->tag, ' ') &&
		           strlen(i->tag) <= 20;

		/* Consistent with NVIDIA's action, or saying why not. */
		if (!i->why &&
		    (!ruled || st != i->status || act != i->action || app != i->app_error))
			good = 0;
		if (i->why &&
		    (!ruled || st != i->status || act != i->action || app != i->app_error))
			deviations++;
		if (!strcmp(i->meaning, "Unused")) {
			unused++;
			if (i->status != GOLDEN_ST_WARN || i->app_error)
				good = 0;
		}
		if (!good) {
			bad++;
			diag("bad catalogue entry %d", i->xid);
		}
		prev = i->xid;
	}
	ok(bad == 0,
	   "all %d entries well-formed, sorted, and their action follows NVIDIA's by the rules or "
	   "says why (%d do)",
	   n, deviations);
	ok(unused == 63, "the 63 codes NVIDIA marks Unused never drain (%d)", unused);

	/* Row by row against NVIDIA's catalog. */
	snprintf(path, sizeof(path), "%s/t/fixtures/xid/nvidia-catalogue.tsv", srcdir);
	f = fopen(path, "r");
	if (!f) {
		printf("Bail out! %s: %s\n", path, strerror(errno));
		exit(1);
	}
	while (fgets(line, sizeof(line), f)) {
		char *col[6], *save = NULL, *p = line;
		const struct golden_xid_info *i;
		int k = 0;

		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "xid\t", 4))
			continue;
		for (char *t = strtok_r(p, "\t", &save); t && k < 6;
		     t = strtok_r(NULL, "\t", &save))
			col[k++] = t;
		rows++;
		i = k == 6 ? golden_xid_lookup(atoi(col[0])) : NULL;
		if (i && !strcmp(i->mnemonic, col[1]) && !strcmp(i->meaning, col[2]) &&
		    !strcmp(i->immediate, cell(col[3])) && !strcmp(i->investigatory, cell(col[4])))
			same++;
		else
			diag("catalogue differs from NVIDIA's row: %s", line);
	}
	fclose(f);
	ok(rows == 172 && same == rows && n == rows,
	   "every one of NVIDIA's %d codes catalogued with its mnemonic, description and both "
	   "actions as NVIDIA gives them (%d match, %d entries)",
	   rows, same, n);
	ok(golden_xid_lookup(0) == NULL && golden_xid_lookup(999) == NULL && !golden_xid_lookup(-1),
	   "lookup of uncatalogued XIDs is NULL");
	is(golden_xid_lookup(158)->meaning, "GPU Fatal Timeout",
	   "158 is NVIDIA's GPU Fatal Timeout");
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
	    {69, GOLDEN_ST_WARN, GOLDEN_ACTION_NONE, true}, /* RESTART_APP -> CHECK_APP/CUDA */
	    {80, GOLDEN_ST_WARN, GOLDEN_ACTION_NONE, true},
	    {137, GOLDEN_ST_WARN, GOLDEN_ACTION_NONE, true},
	    {32, GOLDEN_ST_WARN, GOLDEN_ACTION_NONE, false}, /* RESTART_APP, PCI quality */
	    {38, GOLDEN_ST_WARN, GOLDEN_ACTION_NONE, false}, /* IGNORE, was RESET_GPU */
	    {63, GOLDEN_ST_WARN, GOLDEN_ACTION_NONE, false},
	    {92, GOLDEN_ST_WARN, GOLDEN_ACTION_NONE, false},
	    {94, GOLDEN_ST_WARN, GOLDEN_ACTION_NONE, false},
	    {121, GOLDEN_ST_WARN, GOLDEN_ACTION_NONE, false}, /* IGNORE: corrected C2C errors */
	    {56, GOLDEN_ST_WARN, GOLDEN_ACTION_NONE, false},  /* Unused */
	    {57, GOLDEN_ST_WARN, GOLDEN_ACTION_NONE, false},
	    {58, GOLDEN_ST_WARN, GOLDEN_ACTION_NONE, false},
	    {61, GOLDEN_ST_WARN, GOLDEN_ACTION_NONE, false},
	    {73, GOLDEN_ST_WARN, GOLDEN_ACTION_NONE, false},
	    {81, GOLDEN_ST_WARN, GOLDEN_ACTION_NONE, false},
	    {123, GOLDEN_ST_WARN, GOLDEN_ACTION_NONE, false},
	    {79, GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_REBOOT, false},
	    {54, GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_REBOOT, false},  /* CHECK_MECHANICALS */
	    {78, GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_REBOOT, false},  /* UPDATE_SWFW */
	    {151, GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_REBOOT, false}, /* RESTART_VM */
	    {48, GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_RESET, false},   /* WORKFLOW_XID_48 */
	    {46, GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_RESET, false},
	    {95, GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_RESET, false},
	    {62, GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_RESET, false},
	    {64, GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_RESET, false},
	    {109, GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_RESET, false},
	    {110, GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_RESET, false},
	    {119, GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_RESET, false},
	    {120, GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_RESET, false},
	    {136, GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_RESET, false},
	    {140, GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_RESET, false},
	    {143, GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_RESET, false},
	    {155, GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_RESET, false},
	    {156, GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_RESET, false},
	    {158, GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_RESET, false},
	    {159, GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_RESET, false}, /* CHECK_UVM */
	    {74, GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN, false},
	    {162, GOLDEN_ST_WARN, GOLDEN_ACTION_NONE, false}, /* no action given */
	    {171, GOLDEN_ST_WARN, GOLDEN_ACTION_NONE, false},
	    {167, GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_RESET, false},
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
	ok(v.action == GOLDEN_ACTION_DRAIN_RESET && !v.overridden, "mismatched override unused");

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
	srcdir = getenv("GOLDEN_SRCDIR");
	if (!srcdir || !*srcdir)
		srcdir = ".";
	test_formats();
	test_garbage();
	test_quoting();
	test_origin();
	test_fixture_lines();
	test_pci();
	test_catalogue();
	test_policy();
	test_overrides();
	is(golden_xid_recovery_name(-1), "unknown", "recovery name out of range");
	is(golden_xid_recovery_name(2), "reboot", "recovery name 2");
	return done_testing();
}
