/* NVRM Xid / SXid line parser and the XID catalogue (see xid.h).
 *
 * Formats handled, each only where the driver's prefix begins the record's
 * text (open-gpu-kernel-modules kernel_rc.c krcReportXid, osinit.c, osapi.c,
 * nvswitch common_nvswitch.h; real examples in t/fixtures/xid/lines/):
 *   NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python, GPU has fallen off the bus.
 *   NVRM: Xid (0000:01:00): 13, ...                           (old drivers: no "PCI:")
 *   NVRM: Xid (PCI:0000:3b:00 GPU-I:01 GPU-CI:02): 31, pid=... (MIG)
 *   NVRM: Xid (PCI:0000:3b:00): 43, pid='<unknown>', name=<unknown>, ...
 *   NVRM: Xid (PCI:0000:3b:00): 62, 323f0f30 ...             (no pid/name)
 *   NVRM: Xid (...): 154, GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)
 *   NVRM: Xid (...): 149, NETIR_LINK_EVT  Fatal   XC0 i0 Link 08 (0x004505c6 ...)
 *   NVRM: GPU 0000:18:00.0: GPU has fallen off the bus.       (no Xid number: 79)
 *   NVRM: GPU at 0000:01:00.0 has fallen off the bus.         (old drivers: 79)
 *   NVRM: The NVIDIA GPU 0000:b3:00.0\x0aNVRM: (PCI ID: 10de:26b5) installed in this
 *     system has\x0aNVRM: fallen off the bus and is not responding to commands.
 *                                    (probe time, one record; /dev/kmsg escapes \n: 79)
 *   nvidia-nvswitch3: SXid (PCI:0000:05:00.0): 12028, Non-fatal, ...
 *
 * Kernel records quote user text (tmpfs: Unknown parameter 'NVRM: Xid ...',
 * audit msg='...'), so a match anywhere in a record is not the driver; a
 * match at its start is (util/kmsg.h says why, and who may write a record).
 * Lines can be anything, so every scan is bounded by the NUL of msg and
 * every copy by its destination.
 */
#include <config.h>

#include "health/xid.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "util/kmsg.h"
#include "util/strutil.h"

/* Longest decimal we accept for XIDs and pids: keeps the int/long safe. */
#define MAX_DIGITS 9

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Parse up to maxd hex digits at s (bounded by end). Returns the number of
 * digits consumed, 0 if none. */
static size_t parse_hex(const char *s, const char *end, size_t maxd, unsigned long *val)
{
	size_t n = 0;
	unsigned long v = 0;

	while (s + n < end && n < maxd && hexval(s[n]) >= 0) {
		v = v * 16 + (unsigned long)hexval(s[n]);
		n++;
	}
	*val = v;
	return n;
}

/* Decimal at s: returns the digits consumed (0 if none or too many). */
static size_t parse_dec(const char *s, long *val)
{
	size_t n = 0;
	long v = 0;

	while (isdigit((unsigned char)s[n])) {
		if (n == MAX_DIGITS)
			return 0;
		v = v * 10 + (s[n] - '0');
		n++;
	}
	*val = v;
	return n;
}

int golden_xid_pci_normalize(const char *in, size_t len, char *out, size_t outlen)
{
	const char *p = in, *end = in + len;
	unsigned long part[3], fn = 0;
	int nparts = 0;
	size_t n;

	if (outlen)
		out[0] = '\0';
	if (len >= 4 && strncmp(p, "PCI:", 4) == 0)
		p += 4;
	/* Up to three colon-separated groups: [domain:]bus:device. */
	for (;;) {
		n = parse_hex(p, end, 8, &part[nparts]);
		if (n == 0)
			return -1;
		p += n;
		nparts++;
		if (p < end && *p == ':' && nparts < 3) {
			p++;
			continue;
		}
		break;
	}
	if (nparts < 2)
		return -1;
	if (p < end && *p == '.') {
		p++;
		n = parse_hex(p, end, 1, &fn);
		if (n == 0)
			return -1;
		p += n;
	}
	if (p != end)
		return -1;
	if (nparts == 2) {
		part[2] = part[1];
		part[1] = part[0];
		part[0] = 0;
	}
	/* Domains above 0xffff (VMD) would not fit "dddd:" nor match topo. */
	if (part[0] > 0xffff || part[1] > 0xff || part[2] > 0x1f || fn > 7)
		return -1;
	if ((size_t)snprintf(out, outlen, "%04lx:%02lx:%02lx.%lx", part[0], part[1], part[2], fn) >=
	    outlen) {
		if (outlen)
			out[0] = '\0';
		return -1;
	}
	return 0;
}

/* Copy printable ASCII of s (at most n bytes, stops at NUL) into dst,
 * replacing anything else with '?' so it is safe in a drain reason or log. */
static void copy_clean(char *dst, size_t dstlen, const char *s, size_t n)
{
	size_t i, w = 0;

	if (dstlen == 0)
		return;
	for (i = 0; i < n && s[i] && w + 1 < dstlen; i++) {
		unsigned char c = (unsigned char)s[i];
		dst[w++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	/* Trim trailing blanks: records often end with a space before \n. */
	while (w > 0 && dst[w - 1] == ' ')
		w--;
	dst[w] = '\0';
}

static const char *skip_spaces(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* Case-insensitive search for a word in s; a "word" has no letter or
 * '-' immediately before it, so "Fatal" does not match "Non-fatal". */
static const char *find_word(const char *s, const char *word)
{
	size_t wl = strlen(word);

	for (const char *p = s; *p; p++) {
		if (strncasecmp(p, word, wl) != 0)
			continue;
		if (p > s && (isalpha((unsigned char)p[-1]) || p[-1] == '-'))
			continue;
		if (isalpha((unsigned char)p[wl]))
			continue;
		return p;
	}
	return NULL;
}

static int parse_fatal(const char *s)
{
	if (find_word(s, "Non-fatal") || find_word(s, "Nonfatal") || find_word(s, "Non fatal"))
		return 0;
	if (find_word(s, "Fatal"))
		return 1;
	return -1;
}

/* Decimal in [s, end) exactly; -1 if not. */
static int dec_exact(const char *s, const char *end)
{
	long v = 0;

	if (s >= end || end - s > 4)
		return -1;
	for (const char *p = s; p < end; p++) {
		if (!isdigit((unsigned char)*p))
			return -1;
		v = v * 10 + (*p - '0');
	}
	return (int)v;
}

/* The address part inside "Xid (...)": "PCI:0000:3b:00 GPU-I:01 GPU-CI:02"
 * (GI/CI are printed with %02u: decimal). */
static void parse_xid_location(const char *s, size_t len, struct golden_xid_event *ev)
{
	const char *end = s + len, *tok = s;

	while (tok < end) {
		const char *te = tok;

		while (te < end && *te != ' ')
			te++;
		if (te - tok > 6 && strncmp(tok, "GPU-I:", 6) == 0)
			ev->gi = dec_exact(tok + 6, te);
		else if (te - tok > 7 && strncmp(tok, "GPU-CI:", 7) == 0)
			ev->ci = dec_exact(tok + 7, te);
		else if (!ev->pci[0])
			golden_xid_pci_normalize(tok, (size_t)(te - tok), ev->pci, sizeof(ev->pci));
		tok = te;
		while (tok < end && *tok == ' ')
			tok++;
	}
}

/* pid=1234 | pid='<unknown>' | pid=<unknown>, then name=..., then the text.
 * All optional: some XIDs (62, ...) print their payload right after the
 * number. */
static void parse_xid_tail(const char *p, struct golden_xid_event *ev)
{
	p = skip_spaces(p);
	if (strncmp(p, "pid=", 4) == 0) {
		const char *v = p + 4, *e = strchr(v, ',');
		long pid;
		size_t n;

		if (!e)
			e = v + strlen(v);
		n = parse_dec(v, &pid);
		if (n && v + n == e)
			ev->pid = pid;
		p = *e ? skip_spaces(e + 1) : e;
	}
	if (strncmp(p, "name=", 5) == 0) {
		const char *v = p + 5, *e = strchr(v, ',');

		if (!e)
			e = v + strlen(v);
		copy_clean(ev->name, sizeof(ev->name), v, (size_t)(e - v));
		p = *e ? skip_spaces(e + 1) : e;
	}
	copy_clean(ev->text, sizeof(ev->text), p, strlen(p));
}

/* XID 154: "... changed from 0x0 (None) to 0x2 (Node Reboot Required)". */
static int parse_recovery(const char *text)
{
	const char *p = strstr(text, " to 0x");
	unsigned long v;
	size_t n;

	if (!p)
		return -1;
	p += 6;
	n = parse_hex(p, p + strlen(p), 8, &v);
	return n && v < 256 ? (int)v : -1;
}

/* XID 144-150: subcode is bits 20-25 of the first hex word in parentheses. */
static int parse_nvlink5_subcode(const char *text)
{
	const char *p = strchr(text, '(');
	unsigned long v;
	size_t n;

	if (!p)
		return -1;
	p = skip_spaces(p + 1);
	if (p[0] != '0' || (p[1] != 'x' && p[1] != 'X'))
		return -1;
	p += 2;
	n = parse_hex(p, p + strlen(p), 8, &v);
	return n ? (int)((v >> 20) & 0x3f) : -1;
}

static void event_init(struct golden_xid_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->pid = -1;
	ev->gi = ev->ci = -1;
	ev->nvswitch = -1;
	ev->fatal = -1;
	ev->recovery_action = -1;
	ev->subcode = -1;
}

/* "(ADDR ...): N, rest" starting at the '('. Returns 1 on success. */
static int parse_paren_number(const char *p, struct golden_xid_event *ev, const char **rest)
{
	const char *close;
	long num;
	size_t n;

	if (*p != '(')
		return 0;
	close = strchr(p, ')');
	/* An address plus MIG tags is short; a far-away ')' is garbage. */
	if (!close || close - p > 64)
		return 0;
	parse_xid_location(p + 1, (size_t)(close - p - 1), ev);
	p = close + 1;
	if (*p != ':')
		return 0;
	p = skip_spaces(p + 1);
	n = parse_dec(p, &num);
	if (n == 0)
		return 0;
	ev->xid = (int)num;
	p += n;
	if (*p == ',')
		p++;
	else if (*p && *p != ' ')
		return 0; /* "79x": not a number */
	*rest = p;
	return 1;
}

static int parse_xid_line(const char *p, struct golden_xid_event *ev)
{
	const char *rest;

	if (!parse_paren_number(p, ev, &rest))
		return 0;
	parse_xid_tail(rest, ev);
	ev->fatal = parse_fatal(ev->text);
	if (ev->xid == 154)
		ev->recovery_action = parse_recovery(ev->text);
	if (ev->xid >= 144 && ev->xid <= 150)
		ev->subcode = parse_nvlink5_subcode(ev->text);
	return 1;
}

/* "nvidia-nvswitch3: SXid (PCI:0000:05:00.0): 12028, Non-fatal, ..." from
 * its start (NVSWITCH_PRINT_SXID: "nvidia-%s: SXid (PCI:...): %05d, "). */
static int parse_sxid_line(const char *msg, struct golden_xid_event *ev)
{
	static const char prefix[] = "nvidia-nvswitch";
	const char *p = msg + sizeof(prefix) - 1, *rest;
	long n;
	size_t nd = parse_dec(p, &n);

	if (nd == 0 || strncmp(p + nd, ": SXid ", 7) != 0)
		return 0;
	ev->nvswitch = (int)n;
	if (!parse_paren_number(p + nd + 7, ev, &rest))
		return 0;
	ev->sxid = true;
	copy_clean(ev->text, sizeof(ev->text), skip_spaces(rest), strlen(rest));
	ev->fatal = parse_fatal(ev->text);
	return 1;
}

/* The PCI address that starts p, up to a blank, a backslash (the escaped
 * newline of a multi-line record) or a newline, without a trailing ':'.
 * Returns the bytes it spans (colon included), 0 if it is not an address. */
static size_t leading_bdf(const char *p, char *out, size_t outlen)
{
	size_t n = strcspn(p, " \\\n"), len = n;

	if (len && p[len - 1] == ':')
		len--;
	if (!len || golden_xid_pci_normalize(p, len, out, outlen) < 0)
		return 0;
	return n;
}

/* The "fallen off the bus" lines without an Xid number, after "NVRM: ":
 *   GPU 0000:18:00.0: GPU has fallen off the bus.      (NV_DEV_PRINTF, osinit.c)
 *   GPU at 0000:01:00.0 has fallen off the bus.        (drivers before ~2015)
 *   The NVIDIA GPU 0000:b3:00.0\x0aNVRM: (PCI ID: 10de:26b5) installed in this
 *   system has\x0aNVRM: fallen off the bus and is not responding to commands.
 *                                                      (probe time, osapi.c)
 * NVIDIA's tools (and NVSentinel, gpud) read each as Xid 79. */
static int parse_offbus_line(const char *p, struct golden_xid_event *ev)
{
	const char *rest;
	size_t n;

	if (strncmp(p, "GPU at ", 7) == 0) {
		n = leading_bdf(p + 7, ev->pci, sizeof(ev->pci));
		rest = p + 7 + n;
		if (!n || strncmp(rest, " has fallen off the bus", 23) != 0)
			return 0;
	} else if (strncmp(p, "GPU ", 4) == 0) {
		n = leading_bdf(p + 4, ev->pci, sizeof(ev->pci));
		rest = p + 4 + n;
		if (!n || rest[-1] != ':' || strncmp(rest, " GPU has fallen off the bus", 27) != 0)
			return 0;
	} else if (strncmp(p, "The NVIDIA GPU ", 15) == 0) {
		n = leading_bdf(p + 15, ev->pci, sizeof(ev->pci));
		rest = p + 15 + n;
		if (!n || !strstr(rest, "fallen off the bus and is not responding"))
			return 0;
	} else {
		return 0;
	}
	ev->xid = 79;
	ev->offbus = true;
	copy_clean(ev->text, sizeof(ev->text), skip_spaces(rest), strlen(rest));
	return 1;
}

int golden_xid_parse(const char *msg, struct golden_xid_event *ev)
{
	int ok = 0;

	event_init(ev);
	if (!msg)
		return 0;
	/* Only where the driver's text begins the message. */
	if (strncmp(msg, "NVRM: Xid ", 10) == 0)
		ok = parse_xid_line(msg + 10, ev);
	else if (strncmp(msg, "NVRM: ", 6) == 0)
		ok = parse_offbus_line(msg + 6, ev);
	else if (strncmp(msg, "nvidia-nvswitch", 15) == 0)
		ok = parse_sxid_line(msg, ev);
	if (!ok)
		event_init(ev);
	return ok;
}

int golden_xid_parse_record(int facility, const char *msg, struct golden_xid_event *ev)
{
	if (golden_kmsg_origin(facility, msg) == GOLDEN_KMSG_FROM_OTHER) {
		event_init(ev);
		return 0;
	}
	return golden_xid_parse(msg, ev);
}

int golden_xid_parse_gpu_init(int facility, const char *msg, char *busid, size_t len)
{
	const char *p;
	size_t n;

	if (len)
		busid[0] = '\0';
	if (!msg || golden_kmsg_origin(facility, msg) == GOLDEN_KMSG_FROM_OTHER ||
	    strncmp(msg, "NVRM: GPU at ", 13) != 0)
		return 0;
	/* "NVRM: GPU at PCI:0000:3b:00: GPU-<uuid>" (_krcLogUuidOnce), older
	 * drivers without "PCI:". */
	p = msg + 13;
	n = leading_bdf(p, busid, len);
	if (!n || p[n - 1] != ':' || strncmp(p + n, " GPU-", 5) != 0) {
		if (len)
			busid[0] = '\0';
		return 0;
	}
	return 1;
}

/* The catalogue: every code in NVIDIA's Xid catalog.
 *
 * Source: NVIDIA, "Analyzing Xid Errors with the Xid Catalog",
 * https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html and its
 * spreadsheet https://docs.nvidia.com/Xid-Catalog.xlsx (sheet "Catalog"),
 * read through the copy leptonai/gpud generates from it
 * (components/accelerator/nvidia/xid/catalog_generated.go, "Generated at
 * 2025-10-29T00:35:32Z", gpud commit b9842de2b111, 2025-11-12) and checked
 * row by row against the HTML page. The page prints no revision; its newest
 * rows cite driver R575 (catalog of late 2025). Columns 1-6 below are
 * NVIDIA's: code, our short tag, Mnemonic, Description, Immediate Action,
 * Investigatory Action ("" where the catalog gives none).
 * t/fixtures/xid/nvidia-catalogue.tsv holds the same rows; the unit test
 * compares both, so an update is: replace the TSV with the new catalog,
 * regenerate these rows, apply the policy rules, fix what the test names.
 *
 * Our policy follows NVIDIA's Immediate Action, the one NVIDIA calls "an
 * automatable action that administrators can perform to recover":
 *   RESET_GPU                          -> drain until the GPU is reset (DRS)
 *   RESTART_BM                         -> drain until a reboot (DRB)
 *   RESTART_APP, IGNORE, CONTACT_SUPPORT -> recorded, not drained (W): the
 *      node needs nothing (CONTACT_SUPPORT: a person should look; not
 *      automatable); the application's fault (app) where the Investigatory
 *      Action points at it (CHECK_APP/CUDA, WORKFLOW_XID_13/_31, XID_137_FLOW)
 *   Description "Unused" (deprecated, or V100 and older) -> recorded, never
 *      drained, whatever the action
 * Workflows, actions with conditions and codes without an action are read
 * one by one; the entry's last column says how (and so does every entry
 * that departs from the rules). golden.conf `xid.N = ...` overrides any row.
 */
#define W          GOLDEN_ST_WARN, GOLDEN_ACTION_NONE
#define D          GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN
#define DRS        GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_RESET
#define DRB        GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_REBOOT
#define UNUSED_WHY "NVIDIA marks it Unused (deprecated, or V100 and older): recorded, never drained"
#define NVL5_WHY                                                                                   \
	"WORKFLOW_NVLINK5_ERR: NVIDIA's decode resets the GPU for the Fatal rows and ignores or "  \
	"reports most Nonfatal ones: Fatal drains for a reset, Nonfatal is recorded"
#define NO_ACTION_WHY "NVIDIA gives no action: recorded, not drained"
const struct golden_xid_info golden_xid_catalogue[] = {
    {1, "fifo-method", "ROBUST_CHANNEL_FIFO_ERROR_FIFO_METHOD", "Unused", "CONTACT_SUPPORT", "", W,
     false, UNUSED_WHY},
    {2, "fifo-sw-method", "ROBUST_CHANNEL_FIFO_ERROR_SW_METHOD", "Unused", "CONTACT_SUPPORT", "", W,
     false, UNUSED_WHY},
    {3, "fifo-unk-method", "ROBUST_CHANNEL_FIFO_ERROR_UNK_METHOD", "Unused", "CONTACT_SUPPORT", "",
     W, false, UNUSED_WHY},
    {4, "fifo-busy", "ROBUST_CHANNEL_FIFO_ERROR_CHANNEL_BUSY", "Unused", "CONTACT_SUPPORT", "", W,
     false, UNUSED_WHY},
    {5, "fifo-runout", "ROBUST_CHANNEL_FIFO_ERROR_RUNOUT_OVERFLOW", "Unused", "CONTACT_SUPPORT", "",
     W, false, UNUSED_WHY},
    {6, "fifo-parse", "ROBUST_CHANNEL_FIFO_ERROR_PARSE_ERR", "Unused", "CONTACT_SUPPORT", "", W,
     false, UNUSED_WHY},
    {7, "fifo-pte", "ROBUST_CHANNEL_FIFO_ERROR_PTE_ERR", "Unused", "CONTACT_SUPPORT", "", W, false,
     UNUSED_WHY},
    {8, "stopped", "ROBUST_CHANNEL_FIFO_ERROR_IDLE_TIMEOUT", "GPU stopped processing",
     "RESTART_APP", "CONTACT_SUPPORT", W, false, NULL},
    {9, "gr-instance", "ROBUST_CHANNEL_GR_ERROR_INSTANCE", "Unused", "CONTACT_SUPPORT", "", W,
     false, UNUSED_WHY},
    {10, "gr-single-step", "ROBUST_CHANNEL_GR_ERROR_SINGLE_STEP", "Unused", "CONTACT_SUPPORT", "",
     W, false, UNUSED_WHY},
    {11, "gr-missing-hw", "ROBUST_CHANNEL_GR_ERROR_MISSING_HW",
     "Invalid or corrupted push buffer stream", "RESTART_APP", "CHECK_APP/CUDA", W, true, NULL},
    {12, "gr-sw-method", "ROBUST_CHANNEL_GR_ERROR_SW_METHOD", "Unused", "CONTACT_SUPPORT", "", W,
     false, UNUSED_WHY},
    {13, "gr-exc", "ROBUST_CHANNEL_GR_EXCEPTION / ROBUST_CHANNEL_GR_ERROR_SW_NOTIFY",
     "Graphics Engine Exception", "RESTART_APP", "WORKFLOW_XID_13", W, true, NULL},
    {14, "fake-error", "ROBUST_CHANNEL_FAKE_ERROR", "Unused", "IGNORE", "CONTACT_SUPPORT", W, false,
     UNUSED_WHY},
    {15, "scanline", "ROBUST_CHANNEL_SCANLINE_TIMEOUT", "Unused", "CONTACT_SUPPORT", "", W, false,
     UNUSED_WHY},
    {16, "vblank", "ROBUST_CHANNEL_VBLANK_CALLBACK_TIMEOUT", "Unused", "CONTACT_SUPPORT",
     "CONTACT_SUPPORT", W, false, UNUSED_WHY},
    {17, "param", "ROBUST_CHANNEL_PARAMETER_ERROR", "Unused", "CONTACT_SUPPORT", "", W, false,
     UNUSED_WHY},
    {18, "bus-master", "ROBUST_CHANNEL_BUS_MASTER_TIMEOUT_ERROR", "Unused", "CONTACT_SUPPORT", "",
     W, false, UNUSED_WHY},
    {19, "disp-notifier", "ROBUST_CHANNEL_DISP_MISSED_NOTIFIER", "Unused", "CONTACT_SUPPORT", "", W,
     false, UNUSED_WHY},
    {20, "mpeg", "ROBUST_CHANNEL_MPEG_ERROR_SW_METHOD", "Unused", "CONTACT_SUPPORT", "", W, false,
     UNUSED_WHY},
    {21, "me", "ROBUST_CHANNEL_ME_ERROR_SW_METHOD", "Unused", "CONTACT_SUPPORT", "", W, false,
     UNUSED_WHY},
    {22, "vp-sw", "ROBUST_CHANNEL_VP_ERROR_SW_METHOD", "Unused", "CONTACT_SUPPORT", "", W, false,
     UNUSED_WHY},
    {23, "rc-logging", "ROBUST_CHANNEL_RC_LOGGING_ENABLED", "Unused", "CONTACT_SUPPORT", "", W,
     false, UNUSED_WHY},
    {24, "gr-sem-timeout", "ROBUST_CHANNEL_GR_SEMAPHORE_TIMEOUT", "Unused", "CONTACT_SUPPORT", "",
     W, false, UNUSED_WHY},
    {25, "gr-illegal-notify", "ROBUST_CHANNEL_GR_ILLEGAL_NOTIFY",
     "Invalid or illegal push buffer stream", "RESTART_APP", "CHECK_APP/CUDA", W, true, NULL},
    {26, "fbi-timeout", "ROBUST_CHANNEL_FIFO_ERROR_FBISTATE_TIMEOUT", "Unused", "CONTACT_SUPPORT",
     "", W, false, UNUSED_WHY},
    {27, "vp", "ROBUST_CHANNEL_VP_ERROR", "Unused", "CONTACT_SUPPORT", "", W, false, UNUSED_WHY},
    {28, "vp2", "ROBUST_CHANNEL_VP2_ERROR", "Unused", "CONTACT_SUPPORT", "", W, false, UNUSED_WHY},
    {29, "bsp", "ROBUST_CHANNEL_BSP_ERROR", "Unused", "CONTACT_SUPPORT", "", W, false, UNUSED_WHY},
    {30, "bad-addr", "ROBUST_CHANNEL_BAD_ADDR_ACCESS", "Unused", "CONTACT_SUPPORT", "", W, false,
     UNUSED_WHY},
    {31, "mmu-fault", "ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT", "GPU memory page fault",
     "RESTART_APP", "WORKFLOW_XID_31", W, true, NULL},
    {32, "pushbuf", "ROBUST_CHANNEL_PBDMA_ERROR", "Invalid or corrupted push buffer stream",
     "RESTART_APP", "CHECK_APP/CUDA", W, false,
     "NVIDIA: mostly PCI signal quality, not the application; RESTART_APP asks nothing of the "
     "node: recorded as a node warning, not the job's fault"},
    {33, "sec", "ROBUST_CHANNEL_SEC_ERROR", "Unused", "CONTACT_SUPPORT", "", W, false, UNUSED_WHY},
    {34, "msvld", "ROBUST_CHANNEL_MSVLD_ERROR", "Unused", "CONTACT_SUPPORT", "", W, false,
     UNUSED_WHY},
    {35, "mspdec", "ROBUST_CHANNEL_MSPDEC_ERROR", "Unused", "CONTACT_SUPPORT", "", W, false,
     UNUSED_WHY},
    {36, "msppp", "ROBUST_CHANNEL_MSPPP_ERROR", "Unused", "CONTACT_SUPPORT", "", W, false,
     UNUSED_WHY},
    {37, "fw-unimpl", "ROBUST_CHANNEL_FECS_ERR_UNIMP_FIRMWARE_METHOD", "Driver firmware error",
     "IGNORE", "CHECK_APP/CUDA", W, true, NULL},
    {38, "fw-err", "ROBUST_CHANNEL_FECS_ERR_WATCHDOG_TIMEOUT", "Driver firmware error", "IGNORE",
     "CONTACT_SUPPORT", W, false, NULL},
    {39, "ce0", "ROBUST_CHANNEL_CE0_ERROR", "Copy Engine Exception", "RESTART_APP",
     "CONTACT_SUPPORT", W, false, NULL},
    {40, "ce1", "ROBUST_CHANNEL_CE1_ERROR", "Copy Engine Exception", "RESTART_APP",
     "CONTACT_SUPPORT", W, false, NULL},
    {41, "ce2", "ROBUST_CHANNEL_CE2_ERROR", "Copy Engine Exception", "RESTART_APP",
     "CONTACT_SUPPORT", W, false, NULL},
    {42, "vic", "ROBUST_CHANNEL_VIC_ERROR", "Unused", "CONTACT_SUPPORT", "", W, false, UNUSED_WHY},
    {43, "stopped", "ROBUST_CHANNEL_RESETCHANNEL_VERIF_ERROR", "GPU stopped processing", "IGNORE",
     "CONTACT_SUPPORT", W, true,
     "NVIDIA: the application hit a software-induced fault and the GPU stays healthy: recorded for "
     "the job"},
    {44, "gr-ctxsw-fault", "ROBUST_CHANNEL_GR_FAULT_DURING_CTXSW",
     "Graphics Engine fault during context switch", "IGNORE", "CONTACT_SUPPORT", W, false, NULL},
    {45, "preempt", "ROBUST_CHANNEL_PREEMPTIVE_REMOVAL",
     "Preemptive cleanup, due to previous errors -- Most likely to see when running multiple cuda "
     "applications and hitting a DBE",
     "WORKFLOW_XID_45", "Solo: RESTART_FM Not Solo: IGNORE (follow other Xid)", W, true,
     "WORKFLOW_XID_45: alone, restart the fabric manager; with another Xid, follow that one "
     "(catalogued here): recorded for the job"},
    {46, "gpu-timeout", "ROBUST_CHANNEL_GPU_TIMEOUT_ERROR", "GPU stopped processing", "RESET_GPU",
     "CONTACT_SUPPORT", DRS, false, NULL},
    {47, "nvenc0", "ROBUST_CHANNEL_NVENC0_ERROR", "Unused", "CONTACT_SUPPORT", "", W, false,
     UNUSED_WHY},
    {48, "dbe", "ROBUST_CHANNEL_GPU_ECC_DBE", "Double Bit ECC Error", "WORKFLOW_XID_48",
     "WORKFLOW_XID_48", DRS, false,
     "WORKFLOW_XID_48: alone RESET_GPU, with 63 or 64 DRAIN_AND_RESET: both a drain until the GPU "
     "is reset"},
    {49, "sr-registry", "SILENT_RUNNING_CONSTANT_LEVEL_SET_BY_REGISTRY", "Unused",
     "CONTACT_SUPPORT", "", W, false, UNUSED_WHY},
    {50, "sr-rc", "SILENT_RUNNING_LEVEL_TRANSITION_DUE_TO_RC_ERROR", "Unused", "CONTACT_SUPPORT",
     "", W, false, UNUSED_WHY},
    {51, "sr-stress", "SILENT_RUNNING_STRESS_TEST_FAILURE", "Unused", "CONTACT_SUPPORT", "", W,
     false, UNUSED_WHY},
    {52, "sr-temp-rise", "SILENT_RUNNING_LEVEL_TRANS_DUE_TO_TEMP_RISE", "Unused", "CONTACT_SUPPORT",
     "", W, false, UNUSED_WHY},
    {53, "sr-temp-clock", "SILENT_RUNNING_TEMP_REDUCED_CLOCKING", "Unused", "CONTACT_SUPPORT", "",
     W, false, UNUSED_WHY},
    {54, "aux-power", "SILENT_RUNNING_PWR_REDUCED_CLOCKING",
     "Auxiliary power is not connected to the GPU board", "CHECK_MECHANICALS", "CONTACT_SUPPORT",
     DRB, false,
     "CHECK_MECHANICALS: reseating or recabling powers the node off; the new boot id is the sign "
     "we can see"},
    {55, "sr-temp-read", "SILENT_RUNNING_TEMPERATURE_READ_ERROR", "Unused", "CONTACT_SUPPORT", "",
     W, false, UNUSED_WHY},
    {56, "display", "DISPLAY_CHANNEL_EXCEPTION", "Unused", "CONTACT_SUPPORT", "", W, false,
     UNUSED_WHY},
    {57, "vidmem-prog", "FB_LINK_TRAINING_FAILURE_ERROR", "Unused", "CONTACT_SUPPORT", "", W, false,
     UNUSED_WHY},
    {58, "vidmem-edc", "FB_MEMORY_ERROR", "Unused", "CONTACT_SUPPORT", "", W, false, UNUSED_WHY},
    {59, "pmu", "PMU_ERROR", "Unused", "CONTACT_SUPPORT", "", W, false, UNUSED_WHY},
    {60, "sec2", "ROBUST_CHANNEL_SEC2_ERROR", "Video processor exception", "RESTART_APP",
     "INVESTIGATE_SW", W, false, NULL},
    {61, "pmu-bp", "PMU_BREAKPOINT", "Unused", "CONTACT_SUPPORT", "", W, false, UNUSED_WHY},
    {62, "uc-halt", "PMU_HALT_ERROR", "Internal micro-controller halt (newer drivers)", "RESET_GPU",
     "CONTACT_SUPPORT", DRS, false, NULL},
    {63, "remap", "INFOROM_DRAM_RETIREMENT_EVENT", "GPU memory remapping event", "IGNORE", "IGNORE",
     W, false, NULL},
    {64, "remap-fail", "INFOROM_DRAM_RETIREMENT_FAILURE", "GPU memory remapping failure",
     "RESET_GPU", "CONTACT_SUPPORT", DRS, false, NULL},
    {65, "nvenc1", "ROBUST_CHANNEL_NVENC1_ERROR", "Unused", "CONTACT_SUPPORT", "", W, false,
     UNUSED_WHY},
    {66, "fecs-reg-access", "ROBUST_CHANNEL_FECS_ERR_REG_ACCESS_VIOLATION",
     "Illegal access by driver", "IGNORE", "INVESTIGATE_SW", W, false, NULL},
    {67, "fecs-verif", "ROBUST_CHANNEL_FECS_ERR_VERIF_VIOLATION", "Illegal access by driver",
     "IGNORE", "CONTACT_SUPPORT", W, false, NULL},
    {68, "nvdec", "ROBUST_CHANNEL_NVDEC0_ERROR", "NVDEC0 Exception", "RESTART_APP",
     "CONTACT_SUPPORT", W, false, NULL},
    {69, "gr-class", "ROBUST_CHANNEL_GR_CLASS_ERROR", "Graphics Engine class error", "RESTART_APP",
     "CHECK_APP/CUDA", W, true, NULL},
    {70, "ce3", "ROBUST_CHANNEL_CE3_ERROR", "CE3: Unknown Error", "RESTART_APP", "CONTACT_SUPPORT",
     W, false, NULL},
    {71, "ce4", "ROBUST_CHANNEL_CE4_ERROR", "CE4: Unknown Error", "RESTART_APP", "CONTACT_SUPPORT",
     W, false, NULL},
    {72, "ce5", "ROBUST_CHANNEL_CE5_ERROR", "CE5: Unknown Error", "RESTART_APP", "CONTACT_SUPPORT",
     W, false, NULL},
    {73, "nvenc", "ROBUST_CHANNEL_NVENC2_ERROR", "Unused", "CONTACT_SUPPORT", "", W, false,
     UNUSED_WHY},
    {74, "nvlink", "NVLINK_ERROR", "NVLINK Error", "WORKFLOW_NVLINK_ERR", "CONTACT_SUPPORT", D,
     false,
     "WORKFLOW_NVLINK_ERR: decoding the seven registers is a person's job; drained until a health "
     "check (gpu-nvlink) passes"},
    {75, "ce6", "ROBUST_CHANNEL_CE6_ERROR", "CE6: Unknown Error", "RESTART_APP", "CONTACT_SUPPORT",
     W, false, NULL},
    {76, "ce7", "ROBUST_CHANNEL_CE7_ERROR", "CE7: Unknown Error", "RESTART_APP", "CONTACT_SUPPORT",
     W, false, NULL},
    {77, "ce8", "ROBUST_CHANNEL_CE8_ERROR", "CE8: Unknown Error", "RESTART_APP", "CONTACT_SUPPORT",
     W, false, NULL},
    {78, "vgpu-start", "VGPU_START_ERROR", "vGPU Start Error", "UPDATE_SWFW", "UPDATE_SWFW", DRB,
     false, "UPDATE_SWFW: updated driver/firmware is in use after a reboot, the sign we can see"},
    {79, "offbus", "ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS", "GPU has fallen off the bus",
     "RESTART_BM", "CONTACT_SUPPORT", DRB, false, NULL},
    {80, "corrupt-data", "PBDMA_PUSHBUFFER_CRC_MISMATCH", "Corrupted data sent to GPU",
     "RESTART_APP", "CHECK_APP/CUDA", W, true, NULL},
    {81, "vga", "ROBUST_CHANNEL_VGA_SUBSYSTEM_ERROR", "Unused", "CONTACT_SUPPORT", "", W, false,
     UNUSED_WHY},
    {82, "nvjpg0", "ROBUST_CHANNEL_NVJPG0_ERROR", "NVJPG0 Error", "RESTART_APP", "CONTACT_SUPPORT",
     W, false, NULL},
    {83, "nvdec1", "ROBUST_CHANNEL_NVDEC1_ERROR", "NVDEC1 Error", "RESTART_APP", "CONTACT_SUPPORT",
     W, false, NULL},
    {84, "nvdec2", "ROBUST_CHANNEL_NVDEC2_ERROR", "NVDEC2 Error", "RESTART_APP", "CONTACT_SUPPORT",
     W, false, NULL},
    {85, "ce9", "ROBUST_CHANNEL_CE9_ERROR", "CE9: Unknown Error", "RESTART_APP", "CONTACT_SUPPORT",
     W, false, NULL},
    {86, "ofa0", "ROBUST_CHANNEL_OFA0_ERROR", "OFA Exception", "RESTART_APP", "CONTACT_SUPPORT", W,
     false, NULL},
    {87, "nvtelemetry", "NVTELEMETRY_DRIVER_REPORT", "Unused", "CONTACT_SUPPORT", "", W, false,
     UNUSED_WHY},
    {88, "nvdec3", "ROBUST_CHANNEL_NVDEC3_ERROR", "NVDEC3 Error", "RESTART_APP", "CONTACT_SUPPORT",
     W, false, NULL},
    {89, "nvdec4", "ROBUST_CHANNEL_NVDEC4_ERROR", "NVDEC4 Error", "RESTART_APP", "CONTACT_SUPPORT",
     W, false, NULL},
    {90, "ltc", "LTC_ERROR", "Unused", "CONTACT_SUPPORT", "", W, false, UNUSED_WHY},
    {91, "reserved", "RESERVED_XID", "Unused", "CONTACT_SUPPORT", "", W, false, UNUSED_WHY},
    {92, "sbe-rate", "EXCESSIVE_SBE_INTERRUPTS", "High single-bit ECC error rate", "IGNORE",
     "CONTACT_SUPPORT", W, false, NULL},
    {93, "inforom-wear", "INFOROM_ERASE_LIMIT_EXCEEDED",
     "Non-fatal violation of provisioned InfoROM wear limit", "IGNORE", "CONTACT_SUPPORT", W, false,
     NULL},
    {94, "ecc-contained", "ROBUST_CHANNEL_CONTAINED_ERROR", "Contained memory error", "RESTART_APP",
     "IGNORE (sympathetic)", W, false, NULL},
    {95, "ecc-uncontained", "ROBUST_CHANNEL_UNCONTAINED_ERROR", "Uncontained memory error",
     "RESET_GPU", "IGNORE (sympathetic)", DRS, false, NULL},
    {96, "nvdec5", "ROBUST_CHANNEL_NVDEC5_ERROR", "NVDEC5 Error", "RESTART_APP", "CONTACT_SUPPORT",
     W, false, NULL},
    {97, "nvdec6", "ROBUST_CHANNEL_NVDEC6_ERROR", "NVDEC6 Error", "RESTART_APP", "CONTACT_SUPPORT",
     W, false, NULL},
    {98, "nvdec7", "ROBUST_CHANNEL_NVDEC7_ERROR", "NVDEC7 Error", "RESTART_APP", "CONTACT_SUPPORT",
     W, false, NULL},
    {99, "nvjpg1", "ROBUST_CHANNEL_NVJPG1_ERROR", "NVJPG1 Error", "RESTART_APP", "CONTACT_SUPPORT",
     W, false, NULL},
    {100, "nvjpg2", "ROBUST_CHANNEL_NVJPG2_ERROR", "NVJPG2 Error", "RESTART_APP", "CONTACT_SUPPORT",
     W, false, NULL},
    {101, "nvjpg3", "ROBUST_CHANNEL_NVJPG3_ERROR", "NVJPG3 Error", "RESTART_APP", "CONTACT_SUPPORT",
     W, false, NULL},
    {102, "nvjpg4", "ROBUST_CHANNEL_NVJPG4_ERROR", "NVJPG4 Error", "RESTART_APP", "CONTACT_SUPPORT",
     W, false, NULL},
    {103, "nvjpg5", "ROBUST_CHANNEL_NVJPG5_ERROR", "NVJPG5 Error", "RESTART_APP", "CONTACT_SUPPORT",
     W, false, NULL},
    {104, "nvjpg6", "ROBUST_CHANNEL_NVJPG6_ERROR", "NVJPG6 Error", "RESTART_APP", "CONTACT_SUPPORT",
     W, false, NULL},
    {105, "nvjpg7", "ROBUST_CHANNEL_NVJPG7_ERROR", "NVJPG7 Error", "RESTART_APP", "CONTACT_SUPPORT",
     W, false, NULL},
    {106, "smbpbi-test", "SMBPBI_TEST_MESSAGE", "SMBPBI Test Message", "IGNORE", "IGNORE", W, false,
     NULL},
    {107, "smbpbi-silent", "SMBPBI_TEST_MESSAGE_SILENT", "SMBPBI Test Message Silent", "IGNORE",
     "IGNORE", W, false, NULL},
    {108, "nvl-remote-xlate", "NVLINK_REMOTE_TRANSLATION_ERROR", "Unused", "IGNORE", "XID_137_FLOW",
     W, false, UNUSED_WHY},
    {109, "ctxsw-timeout", "ROBUST_CHANNEL_CTXSW_TIMEOUT_ERROR", "Context Switch Timeout Error",
     "RESET_GPU", "CONTACT_SUPPORT", DRS, false, NULL},
    {110, "sec-fault", "SEC_FAULT_ERROR", "Security Fault Error", "RESET_GPU", "INVESTIGATE_SW",
     DRS, false, NULL},
    {111, "disp-bundle", "BUNDLE_ERROR_EVENT", "Unused", "CONTACT_SUPPORT", "", W, false,
     UNUSED_WHY},
    {112, "disp-supervisor", "DISP_SUPERVISOR_ERROR", "Unused", "CONTACT_SUPPORT", "", W, false,
     UNUSED_WHY},
    {113, "dp-link-train", "DP_LT_FAILURE", "Unused", "CONTACT_SUPPORT", "", W, false, UNUSED_WHY},
    {114, "head-underflow", "HEAD_RG_UNDERFLOW", "Unused", "CONTACT_SUPPORT", "", W, false,
     UNUSED_WHY},
    {115, "core-chan", "CORE_CHANNEL_REGS", "Unused", "CONTACT_SUPPORT", "", W, false, UNUSED_WHY},
    {116, "window-chan", "WINDOW_CHANNEL_REGS", "Unused", "CONTACT_SUPPORT", "", W, false,
     UNUSED_WHY},
    {117, "cursor-chan", "CURSOR_CHANNEL_REGS", "Unused", "CONTACT_SUPPORT", "", W, false,
     UNUSED_WHY},
    {118, "head-regs", "HEAD_REGS", "Unused", "CONTACT_SUPPORT", "", W, false, UNUSED_WHY},
    {119, "gsp-timeout", "GSP_RPC_TIMEOUT", "GSP RPC Timeout", "RESET_GPU", "INVESTIGATE_SW", DRS,
     false, NULL},
    {120, "gsp-error", "GSP_ERROR", "GSP Error", "RESET_GPU", "INVESTIGATE_SW", DRS, false, NULL},
    {121, "c2c", "C2C_ERROR", "C2C Error", "IGNORE", "CONTACT_SUPPORT", W, false, NULL},
    {122, "spi-pmu-read", "SPI_PMU_RPC_READ_FAIL", "Unused", "CONTACT_SUPPORT", "", W, false,
     UNUSED_WHY},
    {123, "spi-pmu", "SPI_PMU_RPC_WRITE_FAIL", "Unused", "CONTACT_SUPPORT", "", W, false,
     UNUSED_WHY},
    {124, "spi-pmu-erase", "SPI_PMU_RPC_ERASE_FAIL", "Unused", "CONTACT_SUPPORT", "", W, false,
     UNUSED_WHY},
    {125, "inforom-fs", "INFOROM_FS_ERROR", "Unused", "CONTACT_SUPPORT", "", W, false, UNUSED_WHY},
    {126, "ce10", "ROBUST_CHANNEL_CE10_ERROR", "CE10: Unknown Error", "RESTART_APP",
     "CONTACT_SUPPORT", W, false, NULL},
    {127, "ce11", "ROBUST_CHANNEL_CE11_ERROR", "CE11: Unknown Error", "RESTART_APP",
     "CONTACT_SUPPORT", W, false, NULL},
    {128, "ce12", "ROBUST_CHANNEL_CE12_ERROR", "CE12: Unknown Error", "RESTART_APP",
     "CONTACT_SUPPORT", W, false, NULL},
    {129, "ce13", "ROBUST_CHANNEL_CE13_ERROR", "CE13: Unknown Error", "RESTART_APP",
     "CONTACT_SUPPORT", W, false, NULL},
    {130, "ce14", "ROBUST_CHANNEL_CE14_ERROR", "CE14: Unknown Error", "RESTART_APP",
     "CONTACT_SUPPORT", W, false, NULL},
    {131, "ce15", "ROBUST_CHANNEL_CE15_ERROR", "CE15: Unknown Error", "RESTART_APP",
     "CONTACT_SUPPORT", W, false, NULL},
    {132, "ce16", "ROBUST_CHANNEL_CE16_ERROR", "CE16: Unknown Error", "RESTART_APP",
     "CONTACT_SUPPORT", W, false, NULL},
    {133, "ce17", "ROBUST_CHANNEL_CE17_ERROR", "CE17: Unknown Error", "RESTART_APP",
     "CONTACT_SUPPORT", W, false, NULL},
    {134, "ce18", "ROBUST_CHANNEL_CE18_ERROR", "CE18: Unknown Error", "RESTART_APP",
     "CONTACT_SUPPORT", W, false, NULL},
    {135, "ce19", "ROBUST_CHANNEL_CE19_ERROR", "CE19: Unknown Error", "RESTART_APP",
     "CONTACT_SUPPORT", W, false, NULL},
    {136, "link-train", "ALI_TRAINING_FAIL", "Link Training Failed", "RESET_GPU",
     "INVESTIGATE_LINK_SI", DRS, false, NULL},
    {137, "nvl-priv", "NVLINK_PRIV_ERR", "NVLink Privilege Error", "IGNORE", "XID_137_FLOW", W,
     true, NULL},
    {138, "dla", "ROBUST_CHANNEL_DLA_ERROR", "Unused", "CONTACT_SUPPORT", "", W, false, UNUSED_WHY},
    {139, "ofa1", "ROBUST_CHANNEL_OFA1_ERROR", "OFA1 Error", "RESTART_APP", "CONTACT_SUPPORT", W,
     false, NULL},
    {140, "ecc-escape", "UNRECOVERABLE_ECC_ERROR_ESCAPE", "ECC Unrecovered Error", "RESET_GPU",
     "CONTACT_SUPPORT", DRS, false, NULL},
    {141, "fast-path", "ROBUST_CHANNEL_FAST_PATH_ERROR", "CUDA Fast Path Error", "IGNORE",
     "CONTACT_SUPPORT", W, false, NULL},
    {142, "nvenc3", "ROBUST_CHANNEL_NVENC3_ERROR", "NVENC3 Error", "CONTACT_SUPPORT", "", W, false,
     NULL},
    {143, "init-fail", "GPU_INIT_ERROR", "GPU Initialization Error", "RESET_GPU", "CONTACT_SUPPORT",
     DRS, false, NULL},
    {144, "nvl5-saw", "NVLINK_SAW_ERROR", "NVLINK: SAW Error", "WORKFLOW_NVLINK5_ERR",
     "WORKFLOW_NVLINK5_ERR", DRS, false, NVL5_WHY},
    {145, "nvl5-rlw", "NVLINK_RLW_ERROR", "NVLINK: RLW Error", "WORKFLOW_NVLINK5_ERR",
     "WORKFLOW_NVLINK5_ERR", DRS, false, NVL5_WHY},
    {146, "nvl5-tlw", "NVLINK_TLW_ERROR", "NVLINK: TLW Error", "WORKFLOW_NVLINK5_ERR",
     "WORKFLOW_NVLINK5_ERR", DRS, false, NVL5_WHY},
    {147, "nvl5-trex", "NVLINK_TREX_ERROR", "NVLINK: TREX Error", "WORKFLOW_NVLINK5_ERR",
     "WORKFLOW_NVLINK5_ERR", DRS, false, NVL5_WHY},
    {148, "nvl5-nvlpw", "NVLINK_NVLPW_CTRL_ERROR", "NVLINK: NVLPW_CTRL Error",
     "WORKFLOW_NVLINK5_ERR", "WORKFLOW_NVLINK5_ERR", DRS, false, NVL5_WHY},
    {149, "nvl5-netir", "NVLINK_NETIR_ERROR", "NVLINK: NETIR Error", "WORKFLOW_NVLINK5_ERR",
     "WORKFLOW_NVLINK5_ERR", DRS, false, NVL5_WHY},
    {150, "nvl5-mse", "NVLINK_MSE_ERROR", "NVLINK: MSE Error", "WORKFLOW_NVLINK5_ERR",
     "WORKFLOW_NVLINK5_ERR", DRS, false, NVL5_WHY},
    {151, "key-rotation", "ROBUST_CHANNEL_KEY_ROTATION_ERROR", "Key rotation Error", "RESTART_VM",
     "CONTACT_SUPPORT", DRB, false,
     "RESTART_VM: the Slurm node is the VM that owns the GPU; restarting it is a reboot of this "
     "node"},
    {152, "dla-smmu", "ROBUST_CHANNEL_DLA_SMMU_ERROR", "DLA SMMU Error", "IGNORE",
     "CONTACT_SUPPORT", W, false, NULL},
    {153, "dla-timeout", "ROBUST_CHANNEL_DLA_TIMEOUT", "DLA timeout Error", "IGNORE",
     "CONTACT_SUPPORT", W, false, NULL},
    {154, "recovery", "GPU_RECOVERY_ACTION_CHANGED", "GPU Recovery Action Changed", "XID_154",
     "N/A Informational only regarding another Xid", W, false,
     "XID_154: the action the line names (parsed: classify_recovery())"},
    {155, "nvl-sw", "NVLINK_SW_DEFINED_ERROR", "NVLINK: SW Defined Error", "RESET_GPU",
     "INVESTIGATE_SW_USER", DRS, false, NULL},
    {156, "retire", "RESOURCE_RETIREMENT_EVENT", "Resource Retirement Event", "RESET_GPU", "IGNORE",
     DRS, false, NULL},
    {157, "retire-fail", "RESOURCE_RETIREMENT_FAILURE", "Resource Retirement Failure", "IGNORE",
     "CONTACT_SUPPORT", W, false, NULL},
    {158, "fatal-timeout", "GPU_FATAL_TIMEOUT", "GPU Fatal Timeout", "RESET_GPU", "CONTACT_SUPPORT",
     DRS, false, NULL},
    {159, "chi-non-data", "ROBUST_CHANNEL_CHI_NON_DATA_ERROR", "CHI Non-Data Error", "CHECK_UVM",
     "SYMPATHETIC_REPORT_SOLO", DRS, false,
     "CHECK_UVM: RESET_GPU when UVM is in use, and every CUDA job uses it (nvidia-uvm)"},
    {160, "chan-retire", "CHANNEL_RETIREMENT_EVENT", "Channel Retirement Event", "IGNORE",
     "INVESTIGATE_SW", W, false, NULL},
    {161, "chan-retire-fail", "CHANNEL_RETIREMENT_FAILURE", "Channel Retirement Failure", "IGNORE",
     "INVESTIGATE_SW", W, false, NULL},
    {162, "pshc-reengaged", "PSHC_REENGAGED", "Power Smoothing HW Circuitry capability reengaged",
     "", "", W, false, NO_ACTION_WHY},
    {163, "pshc-disengaged", "PSHC_DISENGAGED",
     "Power Smoothing HW Circuitry capability disengaged", "", "", W, false, NO_ACTION_WHY},
    {164, "pshc-low-life", "PSHC_LOW_LIFETIME", "Power Smoothing HW Circuitry low lifetime reached",
     "", "", W, false, NO_ACTION_WHY},
    {165, "pshc-no-life", "PSHC_ZERO_LIFETIME", "Power Smoothing HW Circuitry lifetime exhausted",
     "", "", W, false, NO_ACTION_WHY},
    {166, "nvl-cc-crypto", "NVLINK_SECURE_CRYPTO_ERR",
     "CC traffic seen prior to link properly being configured for encrypted traffic", "", "", W,
     false, NO_ACTION_WHY},
    {167, "pcie-timeout", "PCIE_FATAL_TIMEOUT", "PCIE_FATAL_TIMEOUT", "", "", DRS, false,
     "NVIDIA gives no action; a fatal PCIe timeout leaves the GPU as unusable as a GPU fatal "
     "timeout (158, RESET_GPU): drained for a reset"},
    {168, "wpr-errors", "REDUCED_GPU_MEMORY_CAPACITY",
     "Errors found in WPR (write protected region)", "", "", W, false, NO_ACTION_WHY},
    {169, "sec2-halt", "SEC2_HALT_ERROR", "Internal micro-controller halt", "", "", DRS, false,
     "NVIDIA gives no action; the same halt on the PMU (62) is RESET_GPU: drained for a reset"},
    {170, "nvl-cc-other", "NVLINK_SECURE_OTHER", "Interrupt seen in CC mode", "", "", W, false,
     NO_ACTION_WHY},
    {171, "dram-ue", "UNCORRECTABLE_DRAM_ERROR",
     "Additional to Xid 48 providing more details on particulars of fault to differentiate "
     "DRAM/SRAM",
     "", "", W, false, "NVIDIA gives no action; it details an Xid 48, which drains"},
    {172, "sram-ue", "UNCORRECTABLE_SRAM_ERROR",
     "Additional to Xid 48 providing more details on particulars of fault to differentiate "
     "DRAM/SRAM",
     "", "", W, false, "NVIDIA gives no action; it details an Xid 48, which drains"},

    {0, NULL, NULL, NULL, NULL, NULL, GOLDEN_ST_OK, GOLDEN_ACTION_NONE, false, NULL},
};
#undef W
#undef D
#undef DRS
#undef DRB
#undef UNUSED_WHY
#undef NVL5_WHY
#undef NO_ACTION_WHY

const struct golden_xid_info *golden_xid_lookup(int xid)
{
	for (const struct golden_xid_info *i = golden_xid_catalogue; i->xid; i++)
		if (i->xid == xid)
			return i;
	return NULL;
}

const char *golden_xid_recovery_name(int action)
{
	static const char *const names[] = {"none",        "reset", "reboot",    "drain-p2p",
	                                    "drain-reset", "imex",  "bus-reset", "sys-reboot"};

	if (action >= 0 && action < (int)(sizeof(names) / sizeof(names[0])))
		return names[action];
	return "unknown";
}

/* XID 154: what the driver says must happen before the GPU is usable. */
static void classify_recovery(int action, struct golden_xid_verdict *v)
{
	v->tag = golden_xid_recovery_name(action);
	switch (action) {
	case GOLDEN_XID_RECOVERY_NONE:
		/* Back to "none": the earlier action is no longer needed. */
		v->status = GOLDEN_ST_OK;
		v->action = GOLDEN_ACTION_NONE;
		break;
	case GOLDEN_XID_RECOVERY_GPU_RESET:
	case GOLDEN_XID_RECOVERY_DRAIN_AND_RESET:
	case GOLDEN_XID_RECOVERY_BUS_RESET:
		v->status = GOLDEN_ST_FAIL;
		v->action = GOLDEN_ACTION_DRAIN_RESET;
		break;
	case GOLDEN_XID_RECOVERY_NODE_REBOOT:
	case GOLDEN_XID_RECOVERY_SYSTEM_REBOOT:
		v->status = GOLDEN_ST_FAIL;
		v->action = GOLDEN_ACTION_DRAIN_REBOOT;
		break;
	case GOLDEN_XID_RECOVERY_DRAIN_P2P:
	case GOLDEN_XID_RECOVERY_IMEX:
		v->status = GOLDEN_ST_FAIL;
		v->action = GOLDEN_ACTION_DRAIN;
		break;
	default:
		/* Unparsed or newer than we know: record it, like unknown XIDs. */
		v->tag = "recovery";
		v->status = GOLDEN_ST_WARN;
		v->action = GOLDEN_ACTION_NONE;
		break;
	}
}

void golden_xid_classify(const struct golden_xid_event *ev, const struct golden_xid_override *ovr,
                         struct golden_xid_verdict *v)
{
	const struct golden_xid_info *info;

	memset(v, 0, sizeof(*v));
	v->tag = "unknown";
	v->meaning = "unknown XID";
	if (ev->sxid) {
		/* NVSwitch: the driver tells us whether the fabric is still sound. */
		v->known = true;
		v->meaning = "NVSwitch error";
		v->tag = ev->fatal == 1 ? "fatal" : "nonfatal";
		v->status = ev->fatal == 1 ? GOLDEN_ST_FAIL : GOLDEN_ST_WARN;
		v->action = ev->fatal == 1 ? GOLDEN_ACTION_DRAIN : GOLDEN_ACTION_NONE;
		return;
	}
	info = golden_xid_lookup(ev->xid);
	if (info) {
		v->known = true;
		v->tag = info->tag;
		v->meaning = info->meaning;
		v->mnemonic = info->mnemonic;
		v->status = info->status;
		v->action = info->action;
		v->app_error = info->app_error;
		if (ev->xid == 154)
			classify_recovery(ev->recovery_action, v);
		else if (ev->xid >= 144 && ev->xid <= 150 && ev->fatal == 0) {
			v->status = GOLDEN_ST_WARN;
			v->action = GOLDEN_ACTION_NONE;
		}
	} else {
		/* Unknown XIDs warn (recorded, not drained): every driver release
		 * adds numbers, and draining on a number nobody has looked at
		 * would turn a driver upgrade into a fleet-wide drain. Operators
		 * who know better say `xid.N = drain` in golden.conf. */
		v->status = GOLDEN_ST_WARN;
		v->action = GOLDEN_ACTION_NONE;
	}
	if (ev->offbus) {
		v->tag = "offbus";
		v->meaning = "GPU has fallen off the bus";
	}
	if (ovr && ovr->xid == ev->xid) {
		v->overridden = true;
		if (ovr->ignore) {
			v->ignored = true;
			v->status = GOLDEN_ST_OK;
			v->action = GOLDEN_ACTION_NONE;
		} else {
			v->status = ovr->status;
			v->action =
			    ovr->status == GOLDEN_ST_FAIL ? ovr->action : GOLDEN_ACTION_NONE;
			if (v->status == GOLDEN_ST_FAIL && v->action == GOLDEN_ACTION_NONE)
				v->action = GOLDEN_ACTION_DRAIN;
		}
	}
	/* An application error that policy drains is no longer "not drained". */
	if (v->status == GOLDEN_ST_FAIL)
		v->app_error = false;
}
