/* NVIDIA GPU fault lines in the kernel log: a parser for every known
 * variant of the NVRM Xid line (open-gpu-kernel-modules kernel_rc.c
 * krcReportXid), the "fallen off the bus" line without an Xid number and
 * NVSwitch SXid lines, plus a catalogue of what each XID means, what NVIDIA
 * says to do, and what this project does about it (ok/warn/fail + action).
 *
 * Everything here is pure: no I/O, no allocation.
 */
#ifndef GOLDEN_HEALTH_XID_H
#define GOLDEN_HEALTH_XID_H

#include <stdbool.h>
#include <stddef.h>

#include "health/check.h"
#include "health/golden_conf.h"
#include "topo/topo.h"

#define GOLDEN_XID_NAME_LEN 32  /* process name (comm is 16; room for "<unknown>") */
#define GOLDEN_XID_TEXT_LEN 192 /* the rest of the message, truncated */

struct golden_xid_event {
	int xid;                        /* XID, or the SXid number when sxid */
	char pci[GOLDEN_BUSID_LEN];     /* "0000:3b:00.0" (lower case), "" if unparsable */
	long pid;                       /* -1 when absent or '<unknown>' */
	char name[GOLDEN_XID_NAME_LEN]; /* process name, "" when absent */
	int gi, ci;                     /* MIG GPU instance / compute instance, -1 none */
	int nvswitch;                   /* N of "nvidia-nvswitchN" (SXid), -1 none */
	bool offbus;                    /* "GPU has fallen off the bus" without an Xid: 79 */
	bool sxid;                      /* NVSwitch SXid: xid is the SXid number */
	int fatal;                      /* 1 "Fatal", 0 "Non-fatal", -1 not stated */
	int recovery_action;            /* XID 154: the new action (NVML numbering), -1 */
	int subcode;                    /* XID 144-150: bits 20-25 of the first hex word, -1 */
	char text[GOLDEN_XID_TEXT_LEN]; /* message after pid/name, printable ASCII */
};

/* XID 154 recovery actions (NVML nvmlDeviceGpuRecoveryAction_t). */
enum golden_xid_recovery {
	GOLDEN_XID_RECOVERY_NONE = 0,
	GOLDEN_XID_RECOVERY_GPU_RESET = 1,
	GOLDEN_XID_RECOVERY_NODE_REBOOT = 2,
	GOLDEN_XID_RECOVERY_DRAIN_P2P = 3,
	GOLDEN_XID_RECOVERY_DRAIN_AND_RESET = 4,
	GOLDEN_XID_RECOVERY_IMEX = 5,
	GOLDEN_XID_RECOVERY_BUS_RESET = 6,
	GOLDEN_XID_RECOVERY_SYSTEM_REBOOT = 7
};

/* Parse the message text of one kernel log record. Returns 1 and fills ev
 * if it is an NVIDIA GPU/NVSwitch fault line, 0 otherwise (ev is then
 * cleared). msg must be NUL-terminated; any content is safe. */
int golden_xid_parse(const char *msg, struct golden_xid_event *ev);

/* Normalise a PCI address ("PCI:0000:3b:00", "0000:18:00.0", "3b:00") of
 * len bytes to "dddd:bb:dd.f" in out. Returns 0, or -1 if it is not one. */
int golden_xid_pci_normalize(const char *in, size_t len, char *out, size_t outlen);

struct golden_xid_info {
	int xid;                   /* 0 terminates the catalogue */
	const char *tag;           /* short fault word for reason codes: "dbe" */
	const char *meaning;       /* NVIDIA's name for it */
	const char *nvidia_action; /* NVIDIA's immediate -> investigatory action */
	enum golden_status status; /* our policy */
	enum golden_action action;
	bool app_error; /* caused by the application: never drains */
};

/* Sorted by xid, terminated by { 0 }. */
extern const struct golden_xid_info golden_xid_catalogue[];

/* The catalogue entry, or NULL if the XID is not in it. */
const struct golden_xid_info *golden_xid_lookup(int xid);

struct golden_xid_verdict {
	enum golden_status status;
	enum golden_action action;
	bool app_error;      /* recorded as the application's fault, not drained */
	bool ignored;        /* golden.conf xid.N = ignore: do not even record */
	bool known;          /* in the catalogue (or an SXid / the off-bus line) */
	bool overridden;     /* golden.conf decided */
	const char *tag;     /* short word for the reason code, never NULL */
	const char *meaning; /* never NULL */
};

/* Decide what an event means for the node. ovr (golden.conf `xid.N = ...`,
 * see golden_conf_xid()) wins over the catalogue when non-NULL and for
 * the same XID; it never applies to SXids, whose numbers are another
 * namespace. */
void golden_xid_classify(const struct golden_xid_event *ev, const struct golden_xid_override *ovr,
                         struct golden_xid_verdict *v);

/* "reset", "reboot", ... for an XID 154 recovery action; "unknown" else. */
const char *golden_xid_recovery_name(int action);

#endif
