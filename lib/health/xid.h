/* NVIDIA GPU fault lines in the kernel log: a parser for every known
 * variant of the NVRM Xid line (open-gpu-kernel-modules kernel_rc.c
 * krcReportXid), the "fallen off the bus" lines without an Xid number and
 * NVSwitch SXid lines, plus a catalogue of every XID NVIDIA lists: its
 * name, what NVIDIA says to do, and what this project does about it
 * (ok/warn/fail + action, and why where we deviate).
 *
 * A driver line counts only where the driver's prefix ("NVRM: ",
 * "nvidia-nvswitchN: ") BEGINS the record's text, and only in a record the
 * kernel or root wrote (util/kmsg.h golden_kmsg_origin): kernel records
 * quote user text, and no text a user chose may drain or resume a node.
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
 * if it is an NVIDIA GPU/NVSwitch fault line from its first byte, 0
 * otherwise (ev is then cleared). msg must be NUL-terminated; any content is
 * safe. Says nothing about who wrote the record: see below. */
int golden_xid_parse(const char *msg, struct golden_xid_event *ev);

/* The same for a record of the given facility: 0 unless the kernel or root
 * itself wrote it (golden_kmsg_origin), so a daemon forwarding a user's
 * "NVRM: Xid ..." as "IDENT[PID]: ..." never counts. What every consumer
 * of the kernel log (the xid check, golden-watch) calls. */
int golden_xid_parse_record(int facility, const char *msg, struct golden_xid_event *ev);

/* The driver's per-GPU identity line, printed when it (re)initialises a GPU
 * before that GPU's first Xid: "NVRM: GPU at PCI:0000:3b:00: GPU-<uuid>"
 * (older drivers: no "PCI:"), from the record's start and by the kernel or
 * root only. Returns 1 with the normalised address ("0000:3b:00.0": the
 * line has no function) in busid, else 0. This line resumes reset-class
 * drains (node/lifecycle.h), so the same rules as for faults apply. */
int golden_xid_parse_gpu_init(int facility, const char *msg, char *busid, size_t len);

/* Normalise a PCI address ("PCI:0000:3b:00", "0000:18:00.0", "3b:00") of
 * len bytes to "dddd:bb:dd.f" in out. Returns 0, or -1 if it is not one. */
int golden_xid_pci_normalize(const char *in, size_t len, char *out, size_t outlen);

struct golden_xid_info {
	int xid;                   /* 0 terminates the catalogue */
	const char *tag;           /* short fault word for reason codes: "dbe" */
	const char *mnemonic;      /* NVIDIA's: "ROBUST_CHANNEL_GPU_ECC_DBE" */
	const char *meaning;       /* NVIDIA's description: "Double Bit ECC Error", "Unused" */
	const char *immediate;     /* NVIDIA's immediate action: "RESET_GPU", "" none given */
	const char *investigatory; /* NVIDIA's investigatory action, "" none given */
	enum golden_status status; /* our policy */
	enum golden_action action;
	bool app_error;  /* NVIDIA points at the application: recorded for the job */
	const char *why; /* how our policy reads NVIDIA's action where that is not
	                  * plain (workflows, no action given, deviations); or NULL */
};

/* Sorted by xid, terminated by { 0 }. */
extern const struct golden_xid_info golden_xid_catalogue[];

/* The catalogue entry, or NULL if the XID is not in it. */
const struct golden_xid_info *golden_xid_lookup(int xid);

struct golden_xid_verdict {
	enum golden_status status;
	enum golden_action action;
	bool app_error;       /* recorded as the application's fault, not drained */
	bool ignored;         /* golden.conf xid.N = ignore: do not even record */
	bool known;           /* in the catalogue (or an SXid / the off-bus line) */
	bool overridden;      /* golden.conf decided */
	const char *tag;      /* short word for the reason code, never NULL */
	const char *meaning;  /* never NULL */
	const char *mnemonic; /* NVIDIA's, NULL when not catalogued */
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
