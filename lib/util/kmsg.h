/* Reading the kernel log record by record, with a persisted cursor so each
 * record is looked at once per boot (deduplicated by boot id + sequence
 * number), not re-reported until logrotate (azurehpc#648).
 *
 * Source: /dev/kmsg (one record per read(): "PRI,SEQ,TS_USEC,FLAGS;MSG\n"
 * plus " KEY=VALUE" continuation lines, which we ignore), or a file of such
 * records, one per line (tests, `--kmsg FILE`).
 *
 * Trust: the scanner passes every record with its facility; callers ask
 * golden_kmsg_origin() who wrote it. Only a record the kernel wrote, or one
 * root wrote itself, may stand for a driver fault:
 *  - facility kernel (0) is printk. User space cannot write it: the kernel's
 *    devkmsg_write() turns facility 0 into user, and journald's ForwardToKMsg
 *    does the same. Kernel records may quote user text (a mount option, an
 *    audit msg='...', a process name), but never at their start except a
 *    15-byte comm, too short for a driver line: hence the driver parsers
 *    match only where the driver's prefix BEGINS the text (health/xid.h).
 *  - facility user (1) is a write to /dev/kmsg (mode 0644 root): root's
 *    `echo 'NVRM: Xid ...' > /dev/kmsg`, how operators and fault-injection
 *    tools test health checks, must keep working. But logging daemons that
 *    run as root also write there on others' behalf, always as
 *    "IDENT[PID]: MESSAGE" with an IDENT the sender chose (journald's
 *    ForwardToKMsg, StandardOutput=kmsg, systemd itself). A user record
 *    carrying that "[PID]: " header is such a forward, not root's own line.
 *  - any other facility is a daemon's message: never a driver fault.
 */
#ifndef GOLDEN_UTIL_KMSG_H
#define GOLDEN_UTIL_KMSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GOLDEN_KMSG_MAX_RECORDS 100000 /* delivered per scan; the rest next time */
#define GOLDEN_KMSG_RECORD_MAX  8192   /* the kernel's CONSOLE_EXT_LOG_MAX */
#define GOLDEN_KMSG_BOOTID_LEN  40     /* uuid 36 + NUL, rounded */
#define GOLDEN_KMSG_CURSOR      "kmsg.cursor"

enum golden_kmsg_facility { GOLDEN_KMSG_FAC_KERNEL = 0, GOLDEN_KMSG_FAC_USER = 1 };

struct golden_kmsg_record {
	uint64_t seq;
	uint64_t ts_usec;
	int facility; /* PRI >> 3 */
	int level;    /* PRI & 7 */
	const char *msg;
};

/* Who wrote a record (see the top of this file). */
enum golden_kmsg_origin {
	GOLDEN_KMSG_FROM_KERNEL, /* facility 0: printk */
	GOLDEN_KMSG_FROM_ROOT,   /* facility user, written to /dev/kmsg directly */
	GOLDEN_KMSG_FROM_OTHER   /* forwarded for someone ("IDENT[PID]: "), other facility */
};
enum golden_kmsg_origin golden_kmsg_origin(int facility, const char *msg);

/* Parse one record in place (the message is cut at its first '\n').
 * Returns 0, or -1 if buf is not a record. */
int golden_kmsg_parse(char *buf, struct golden_kmsg_record *rec);

/* Records lost between two consecutive sequence numbers (ring buffer
 * overwritten before we read them): 0 when seq follows prev or !have_prev. */
uint64_t golden_kmsg_gap(bool have_prev, uint64_t prev, uint64_t seq);

/* Called for every new record; return non-zero to stop (that record counts
 * as consumed). */
typedef int (*golden_kmsg_fn)(uint64_t seq, uint64_t ts_usec, int facility, int level,
                              const char *msg, void *arg);

struct golden_kmsg_stats {
	unsigned long records;   /* new records passed to cb */
	unsigned long skipped;   /* at or before the cursor (already consumed) */
	unsigned long missed;    /* lost: overwritten before we read them (seq gaps) */
	unsigned long epipe;     /* EPIPE returns from /dev/kmsg */
	unsigned long malformed; /* lines/records that did not parse */
	bool cursor_found;       /* a cursor of this boot was used */
	bool cursor_other_boot;  /* a cursor existed but was from another boot */
	bool limited;            /* stopped at GOLDEN_KMSG_MAX_RECORDS */
	int cursor_errno;        /* saving the cursor failed (0 if fine or not asked) */
	uint64_t last_seq;       /* last consumed seq (what the cursor holds) */
	char boot_id[GOLDEN_KMSG_BOOTID_LEN];
};

/* Read the boot id from <sysroot>/proc/sys/kernel/random/boot_id, falling
 * back to the real one. Returns 0, or -1 ("unknown" in buf). */
int golden_kmsg_boot_id(const char *sysroot, char *buf, size_t len);

/* Is path (NULL: /dev/kmsg) the live kernel log, a character device? */
bool golden_kmsg_is_live(const char *path);

/* Scan the records after the cursor in state_dir (none: from the start of
 * this boot's buffer). path NULL = /dev/kmsg; a character device is read as
 * /dev/kmsg, anything else as a file of records. state_dir NULL = no cursor.
 * advance: save the last consumed seq (state_dir created 0700 if missing,
 * cursor written atomically 0600). Checks pass advance=false and leave the
 * saving to whoever acts on what they found (health/check.h
 * golden_check_commit): st->boot_id and st->last_seq say where to. Returns
 * 0, or -1 with errno if the log cannot be read; st is always filled. */
int golden_kmsg_scan(const char *path, const char *state_dir, const char *sysroot, bool advance,
                     golden_kmsg_fn cb, void *arg, struct golden_kmsg_stats *st);

/* The cursor in state_dir: returns 0 and fills boot_id/seq, or -1. */
int golden_kmsg_cursor_load(const char *state_dir, char *boot_id, size_t len, uint64_t *seq);

/* Save the cursor atomically (tmp + rename, 0600; state_dir 0700). 0 or -1. */
int golden_kmsg_cursor_save(const char *state_dir, const char *boot_id, uint64_t seq);

/* Move the cursor name in state_dir forward to seq (atomically): kept as
 * it is when it already holds seq or later of the same boot, so that runs
 * finishing out of order never move it back. Returns 0 or -1. */
int golden_kmsg_cursor_advance(const char *state_dir, const char *name, const char *boot_id,
                               uint64_t seq);

/* The same for another reader's cursor file (golden-watch keeps its own). */
int golden_kmsg_cursor_load_as(const char *state_dir, const char *name, char *boot_id, size_t len,
                               uint64_t *seq);
int golden_kmsg_cursor_save_as(const char *state_dir, const char *name, const char *boot_id,
                               uint64_t seq);

#endif
