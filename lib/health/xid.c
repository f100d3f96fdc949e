/* NVRM Xid / SXid line parser and the XID catalogue (see xid.h).
 *
 * Formats handled (open-gpu-kernel-modules kernel_rc.c krcReportXid and
 * nvswitch):
 *   NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python, GPU has fallen off the bus.
 *   NVRM: Xid (0000:01:00): 13, ...                           (old drivers: no "PCI:")
 *   NVRM: Xid (PCI:0000:3b:00 GPU-I:01 GPU-CI:02): 31, pid=... (MIG)
 *   NVRM: Xid (PCI:0000:3b:00): 43, pid='<unknown>', name=<unknown>, ...
 *   NVRM: Xid (PCI:0000:3b:00): 62, 323f0f30 ...             (no pid/name)
 *   NVRM: Xid (...): 154, GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)
 *   NVRM: Xid (...): 149, NETIR_LINK_EVT  Fatal   XC0 i0 Link 08 (0x004505c6 ...)
 *   NVRM: GPU 0000:18:00.0: GPU has fallen off the bus.       (no Xid number)
 *   nvidia-nvswitch3: SXid (PCI:0000:05:00.0): 12028, Non-fatal, ...
 *
 * Lines can be anything (the kernel log is shared with every driver and
 * with root's `echo > /dev/kmsg`), so every scan is bounded by the NUL of
 * msg and every copy by its destination.
 */
#include <config.h>

#include "health/xid.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

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

/* "nvidia-nvswitch3: SXid (PCI:0000:05:00.0): 12028, Non-fatal, ..." */
static int parse_sxid_line(const char *msg, const char *sx, struct golden_xid_event *ev)
{
	static const char prefix[] = "nvidia-nvswitch";
	const char *rest, *q = strstr(msg, prefix);

	if (q && q < sx) {
		long n;
		size_t nd = parse_dec(q + sizeof(prefix) - 1, &n);

		if (nd && q[sizeof(prefix) - 1 + nd] == ':')
			ev->nvswitch = (int)n;
	}
	if (!parse_paren_number(sx + 5, ev, &rest))
		return 0;
	ev->sxid = true;
	copy_clean(ev->text, sizeof(ev->text), skip_spaces(rest), strlen(rest));
	ev->fatal = parse_fatal(ev->text);
	return 1;
}

/* "NVRM: GPU 0000:18:00.0: GPU has fallen off the bus." */
static int parse_offbus_line(const char *p, struct golden_xid_event *ev)
{
	const char *e = p, *colon;

	if (!strstr(p, "fallen off the bus"))
		return 0;
	while (*e && *e != ' ')
		e++;
	colon = e;
	if (colon > p && colon[-1] == ':')
		colon--;
	if (golden_xid_pci_normalize(p, (size_t)(colon - p), ev->pci, sizeof(ev->pci)) < 0)
		return 0;
	ev->xid = 79;
	ev->offbus = true;
	copy_clean(ev->text, sizeof(ev->text), skip_spaces(e), strlen(e));
	return 1;
}

int golden_xid_parse(const char *msg, struct golden_xid_event *ev)
{
	const char *p;
	int ok = 0;

	event_init(ev);
	if (!msg)
		return 0;
	/* Xid first: an Xid 79 line also says "fallen off the bus". */
	if ((p = strstr(msg, "NVRM: Xid ")) != NULL)
		ok = parse_xid_line(p + 10, ev);
	else if ((p = strstr(msg, "SXid (")) != NULL)
		ok = parse_sxid_line(msg, p, ev);
	else if ((p = strstr(msg, "NVRM: GPU ")) != NULL)
		ok = parse_offbus_line(p + 10, ev);
	if (!ok)
		event_init(ev);
	return ok;
}

/* The catalogue. Meanings and NVIDIA's actions follow NVIDIA's XID catalog
 * (docs.nvidia.com/deploy/xid-errors, "Immediate -> Investigatory" action);
 * the policy columns are ours:
 *  - application faults (13, 31, 43, 45) are recorded, never drained: a bad
 *    kernel must not take a node out of service (k8s-device-plugin#268);
 *  - NVIDIA IGNORE-class events (63, 92) and contained ECC (94) warn;
 *  - anything NVIDIA answers with RESET_GPU drains for a reset, anything
 *    needing a bare-metal restart (79) or a DBE (48) drains for a reboot;
 *  - other hardware/firmware faults drain.
 */
#define W   GOLDEN_ST_WARN, GOLDEN_ACTION_NONE
#define D   GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN
#define DRS GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_RESET
#define DRB GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_REBOOT
const struct golden_xid_info golden_xid_catalogue[] = {
    {8, "stopped", "GPU stopped processing (timeout)", "RESTART_APP; reset the GPU if it repeats",
     W, false},
    {13, "gr-exc", "Graphics engine exception", "RESTART_APP -> WORKFLOW (check the application)",
     W, true},
    {31, "mmu-fault", "GPU memory page fault", "RESTART_APP -> WORKFLOW (check the application)", W,
     true},
    {32, "pushbuf", "Invalid or corrupted push buffer stream (bus or memory corruption)",
     "RESET_GPU -> CONTACT_SUPPORT if it repeats", D, false},
    {38, "fw-err", "Driver firmware error", "RESET_GPU -> CONTACT_SUPPORT", DRS, false},
    {43, "stopped", "GPU stopped processing", "IGNORE -> CONTACT_SUPPORT if it repeats", W, true},
    {45, "preempt", "Preemptive cleanup, due to previous errors",
     "WORKFLOW: alone RESTART_FM/app; otherwise follow the other XID", W, true},
    {48, "dbe", "Double-bit ECC error (DBE)", "WORKFLOW_XID_48: reset/reboot, check remapping", DRB,
     false},
    {56, "display", "Display engine error", "RESET_GPU -> CONTACT_SUPPORT", D, false},
    {57, "vidmem-prog", "Error programming video memory interface", "RESET_GPU -> CONTACT_SUPPORT",
     DRS, false},
    {58, "vidmem-edc", "Unstable video memory interface detected (EDC error)",
     "RESET_GPU -> CONTACT_SUPPORT", DRS, false},
    {61, "pmu-bp", "Internal micro-controller breakpoint/warning (PMU)", "CONTACT_SUPPORT", D,
     false},
    {62, "uc-halt", "Internal micro-controller halt", "RESET_GPU -> CONTACT_SUPPORT", DRS, false},
    {63, "remap", "ECC page retirement or row remapping recording event",
     "IGNORE -> IGNORE (reset at the next idle to apply)", W, false},
    {64, "remap-fail", "ECC page retirement or row remapper recording failure",
     "RESET_GPU -> CONTACT_SUPPORT", DRS, false},
    {68, "nvdec", "NVDEC0 exception (video decoder)", "RESTART_APP -> CONTACT_SUPPORT", W, false},
    {69, "gr-class", "Graphics engine class error", "RESET_GPU -> CONTACT_SUPPORT", DRS, false},
    {73, "nvenc", "NVENC2 error (video encoder)", "RESET_GPU -> CONTACT_SUPPORT", D, false},
    {74, "nvlink", "NVLink error", "WORKFLOW_NVLINK -> CONTACT_SUPPORT", D, false},
    {79, "offbus", "GPU has fallen off the bus", "RESTART_BM -> CONTACT_SUPPORT", DRB, false},
    {80, "corrupt-data", "Corrupted data sent to GPU", "RESET_GPU -> CONTACT_SUPPORT", D, false},
    {81, "vga", "VGA subsystem error", "RESET_GPU -> CONTACT_SUPPORT", D, false},
    {92, "sbe-rate", "High single-bit ECC error rate", "IGNORE -> CONTACT_SUPPORT", W, false},
    {94, "ecc-contained", "Contained ECC error", "RESTART_APP -> IGNORE (reset at job end)", W,
     false},
    {95, "ecc-uncontained", "Uncontained ECC error", "RESET_GPU", DRS, false},
    {109, "ctxsw-timeout", "Context switch timeout error", "RESET_GPU -> CONTACT_SUPPORT", W,
     false},
    {119, "gsp-timeout", "GSP RPC timeout", "RESET_GPU -> INVESTIGATE_SW (driver)", DRS, false},
    {120, "gsp-error", "GSP error", "RESET_GPU -> INVESTIGATE_SW (driver)", DRS, false},
    {121, "c2c", "C2C (chip-to-chip) link error", "IGNORE -> CONTACT_SUPPORT", D, false},
    {123, "spi-pmu", "SPI PMU RPC write failure", "CONTACT_SUPPORT", D, false},
    {136, "link-train", "Link training failed", "RESET_GPU", DRS, false},
    {140, "ecc-escape", "Unrecovered ECC error escape", "RESET_GPU -> CONTACT_SUPPORT", DRS, false},
    {143, "init-fail", "GPU initialization failure", "RESET_GPU -> CONTACT_SUPPORT", DRS, false},
    /* NVLink5: NVIDIA's WORKFLOW_NVLINK5 depends on the subcode; we drain
     * Fatal ones for a reset and only warn on Non-fatal (classify()). */
    {144, "nvl5-saw", "NVLink5 SAW error", "WORKFLOW_NVLINK5 (by subcode)", DRS, false},
    {145, "nvl5-rlw", "NVLink5 RLW error", "WORKFLOW_NVLINK5 (by subcode)", DRS, false},
    {146, "nvl5-tlw", "NVLink5 TLW error", "WORKFLOW_NVLINK5 (by subcode)", DRS, false},
    {147, "nvl5-trex", "NVLink5 TREX error", "WORKFLOW_NVLINK5 (by subcode)", DRS, false},
    {148, "nvl5-nvlpw", "NVLink5 NVLPW error", "WORKFLOW_NVLINK5 (by subcode)", DRS, false},
    {149, "nvl5-netir", "NVLink5 NETIR error", "WORKFLOW_NVLINK5 (by subcode)", DRS, false},
    {150, "nvl5-mse", "NVLink5 MSE error", "WORKFLOW_NVLINK5 (by subcode)", DRS, false},
    /* 154 is informational; classify() uses the parsed recovery action. */
    {154, "recovery", "GPU recovery action changed",
     "Informational: perform the recovery action it names", W, false},
    {155, "nvl-sw", "NVLink software-defined error", "RESET_GPU", DRS, false},
    {156, "retire", "Resource retirement event", "RESET_GPU", DRS, false},
    {158, "nvl-timeout", "NVLink fatal timeout", "RESET_GPU", DRS, false},
    {0, NULL, NULL, NULL, GOLDEN_ST_OK, GOLDEN_ACTION_NONE, false},
};
#undef W
#undef D
#undef DRS
#undef DRB

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
