/* Reading a drain reason back: whose it is, what golden drained for (the
 * check and the component the code names), and which class of fault it is.
 *
 * golden writes "CODE[ +N more]; ACTION [golden]" (reason.h) and flapping
 * nodes "flap NxMh CODE; admin [golden]". The code starts with the
 * component and then the fault, in a form each check family owns
 * ("gpu3 xid79 offbus", "mlx5_4 p1 200G<400G", "/lustre statfs EIO",
 * "hc mounts timeout"); golden_reason_check_of() maps it back to the check
 * that wrote it, so a fleet report or another node's guard can tell a
 * storage drain from a GPU drain with nothing but what Slurm shows.
 * Everything here is pure string work on text that may come from anyone
 * (an admin's reason): nothing is ever executed or used as a path. */
#ifndef GOLDEN_HEALTH_REASON_PARSE_H
#define GOLDEN_HEALTH_REASON_PARSE_H

#include <stdbool.h>
#include <stddef.h>

#include "health/check.h"

struct golden_reason_info {
	bool ours;                  /* ends with golden's marker */
	bool flapping;              /* "flap NxMh ...; admin [golden]" */
	int more;                   /* "+N more" failures behind the code */
	char code[GOLDEN_CODE_LEN]; /* the first failure's code */
	char action[16];            /* reboot, gpu-reset, check, admin, ... ("" not ours) */
	char cls[16];               /* hold class: reboot, reset, transient, flapping, or the
	                               action word golden does not know */
	char check[32];             /* the check that wrote the code, "" unknown */
	char component[48];         /* the code's first word: gpu3, mlx5_4, /lustre, ... */
};

/* Parse a reason as Slurm shows it (a trailing " [user@time]" is ignored).
 * Fields golden did not write stay empty. */
void golden_reason_parse(const char *reason, struct golden_reason_info *info);

/* The check a failure code comes from ("xid", "ib-ports", "mounts", ...)
 * into buf, or "" when no check writes codes of that form. */
void golden_reason_check_of(const char *code, char *buf, size_t len);

/* Can a failure of this check have a cause outside the node, shared by many
 * nodes at once (a storage outage, a fabric manager or core switch)? Then
 * key gets "CHECK CLASS": mounts by mount point ("mounts /lustre"; "mounts
 * *" when the check timed out as a whole and the code names none), IB/RoCE
 * ports and counters as "ib", EFA, the bootstrap interface. Node-local
 * faults (GPUs, XIDs, ECC, a GPU missing, the kernel stall) return false. */
bool golden_reason_shared_class(const char *check, const char *code, char *key, size_t len);

/* Do two shared-class keys name the same cause? Equal, or the same check
 * where one side does not know its component ("mounts *"). */
bool golden_reason_same_class(const char *a, const char *b);

#endif
