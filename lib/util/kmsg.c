/* Kernel log records with a persisted cursor (see kmsg.h). */
#include <config.h>

#include "util/kmsg.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/statefile.h"
#include "util/strutil.h"
#include "util/sysroot.h"

#define BOOT_ID_PATH "/proc/sys/kernel/random/boot_id"
/* Reads per scan, skipped and broken records included: the scan ends even
 * if the log is flooded faster than we read it. */
#define MAX_READS (4UL * GOLDEN_KMSG_MAX_RECORDS)
#define MAX_EPIPE 64 /* consecutive EPIPEs before giving up */

/* Unsigned decimal at *p, advancing it. Returns 0, or -1 if none/overflow. */
static int parse_u64(const char **p, uint64_t *val)
{
	const char *s = *p;
	uint64_t v = 0;

	if (!isdigit((unsigned char)*s))
		return -1;
	for (; isdigit((unsigned char)*s); s++) {
		unsigned d = (unsigned)(*s - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*p = s;
	*val = v;
	return 0;
}

int golden_kmsg_parse(char *buf, struct golden_kmsg_record *rec)
{
	const char *p = buf;
	uint64_t pri;
	char *semi, *nl;

	memset(rec, 0, sizeof(*rec));
	/* The message ends at the first newline; continuation lines follow. */
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	semi = strchr(buf, ';');
	if (!semi)
		return -1;
	if (parse_u64(&p, &pri) < 0 || pri > INT_MAX || *p++ != ',')
		return -1;
	if (parse_u64(&p, &rec->seq) < 0 || *p++ != ',')
		return -1;
	if (parse_u64(&p, &rec->ts_usec) < 0)
		return -1;
	/* FLAGS and any further fields (caller id, ...) up to ';' are ignored. */
	if (p > semi || (*p != ',' && *p != ';'))
		return -1;
	rec->facility = (int)(pri >> 3);
	rec->level = (int)(pri & 7);
	rec->msg = semi + 1;
	return 0;
}

/* "[1234]: " anywhere: the header a forwarding logger puts after IDENT. */
static bool has_forward_header(const char *msg)
{
	for (const char *p = strchr(msg, '['); p; p = strchr(p + 1, '[')) {
		const char *d = p + 1;

		while (isdigit((unsigned char)*d))
			d++;
		if (d > p + 1 && d[0] == ']' && d[1] == ':' && d[2] == ' ')
			return true;
	}
	return false;
}

enum golden_kmsg_origin golden_kmsg_origin(int facility, const char *msg)
{
	if (facility == GOLDEN_KMSG_FAC_KERNEL)
		return GOLDEN_KMSG_FROM_KERNEL;
	if (facility == GOLDEN_KMSG_FAC_USER && msg && !has_forward_header(msg))
		return GOLDEN_KMSG_FROM_ROOT;
	return GOLDEN_KMSG_FROM_OTHER;
}

uint64_t golden_kmsg_gap(bool have_prev, uint64_t prev, uint64_t seq)
{
	if (!have_prev || seq <= prev || seq - prev == 1)
		return 0;
	return seq - prev - 1;
}

int golden_kmsg_boot_id(const char *sysroot, char *buf, size_t len)
{
	ssize_t n = golden_sys_read(sysroot, BOOT_ID_PATH, buf, len);

	/* A fixture sysroot without the file: the real boot is the truth. */
	if (n <= 0 && sysroot && *sysroot && strcmp(sysroot, "/") != 0)
		n = golden_sys_read(NULL, BOOT_ID_PATH, buf, len);
	if (n <= 0 || !golden_is_safe_name(buf, len - 1)) {
		golden_strlcpy(buf, "unknown", len);
		return -1;
	}
	return 0;
}

int golden_kmsg_cursor_load(const char *state_dir, char *boot_id, size_t len, uint64_t *seq)
{
	return golden_kmsg_cursor_load_as(state_dir, GOLDEN_KMSG_CURSOR, boot_id, len, seq);
}

int golden_kmsg_cursor_load_as(const char *state_dir, const char *name, char *boot_id, size_t len,
                               uint64_t *seq)
{
	char path[PATH_MAX], buf[128], *sp, *text;
	const char *p;

	if (golden_path_join(path, sizeof(path), state_dir, name) < 0)
		return -1;
	/* state_dir trusted, the file ours, no FIFO (util/safedir) */
	text = golden_read_trusted(path, sizeof(buf) - 1, NULL);
	if (!text)
		return -1;
	golden_strlcpy(buf, text, sizeof(buf));
	free(text);
	/* "BOOT_ID SEQ\n" */
	sp = strchr(buf, ' ');
	if (!sp)
		return -1;
	*sp = '\0';
	p = sp + 1;
	if (!golden_is_safe_name(buf, GOLDEN_KMSG_BOOTID_LEN - 1) || parse_u64(&p, seq) < 0 ||
	    (*p && *p != '\n'))
		return -1;
	return golden_strlcpy(boot_id, buf, len);
}

int golden_kmsg_cursor_save(const char *state_dir, const char *boot_id, uint64_t seq)
{
	return golden_kmsg_cursor_save_as(state_dir, GOLDEN_KMSG_CURSOR, boot_id, seq);
}

int golden_kmsg_cursor_save_as(const char *state_dir, const char *name, const char *boot_id,
                               uint64_t seq)
{
	char path[PATH_MAX], line[96];
	int n;

	n = snprintf(line, sizeof(line), "%s %llu\n", boot_id, (unsigned long long)seq);
	if (n < 0 || (size_t)n >= sizeof(line)) {
		errno = EINVAL;
		return -1;
	}
	if (golden_mkdir_p(state_dir) < 0 ||
	    golden_path_join(path, sizeof(path), state_dir, name) < 0)
		return -1;
	return golden_write_atomic(path, line, (size_t)n);
}

int golden_kmsg_cursor_advance(const char *state_dir, const char *name, const char *boot_id,
                               uint64_t seq)
{
	char cboot[GOLDEN_KMSG_BOOTID_LEN];
	uint64_t cseq;

	if (golden_kmsg_cursor_load_as(state_dir, name, cboot, sizeof(cboot), &cseq) == 0 &&
	    strcmp(cboot, boot_id) == 0 && cseq >= seq)
		return 0;
	return golden_kmsg_cursor_save_as(state_dir, name, boot_id, seq);
}

struct reader {
	bool dev;
	int fd;
	FILE *f;
	char buf[GOLDEN_KMSG_RECORD_MAX + 2];
};

/* Next record into r->buf. Returns 1, 0 at the end, -1 on a read error. */
static int next_record(struct reader *r, struct golden_kmsg_stats *st)
{
	if (r->dev) {
		int epipes = 0;

		for (;;) {
			ssize_t n = read(r->fd, r->buf, sizeof(r->buf) - 1);

			if (n > 0) {
				r->buf[n] = '\0';
				return 1;
			}
			if (n == 0 || errno == EAGAIN)
				return 0;
			if (errno == EINTR)
				continue;
			/* Our position was overwritten; the kernel moved us to the
			 * oldest record left. The seq gap counts what was lost. */
			if (errno == EPIPE && ++epipes <= MAX_EPIPE) {
				st->epipe++;
				continue;
			}
			return -1;
		}
	}
	for (;;) {
		size_t len;

		if (!fgets(r->buf, (int)sizeof(r->buf), r->f))
			return ferror(r->f) ? -1 : 0;
		len = strlen(r->buf);
		if (len && r->buf[len - 1] != '\n' && !feof(r->f)) {
			int c;

			/* Over-long line: keep its start, drop the rest. */
			while ((c = getc(r->f)) != EOF && c != '\n')
				;
		}
		/* Continuation lines (" SUBSYSTEM=...") and blank lines. */
		if (r->buf[0] == ' ' || r->buf[0] == '\n' || r->buf[0] == '\0')
			continue;
		return 1;
	}
}

bool golden_kmsg_is_live(const char *path)
{
	struct stat sb;

	return !path || (stat(path, &sb) == 0 && S_ISCHR(sb.st_mode));
}

static int reader_open(struct reader *r, const char *path)
{
	r->fd = -1;
	r->f = NULL;
	r->dev = golden_kmsg_is_live(path);
	if (r->dev) {
		r->fd = open(path ? path : "/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		return r->fd < 0 ? -1 : 0;
	}
	r->f = fopen(path, "re");
	return r->f ? 0 : -1;
}

static void reader_close(struct reader *r)
{
	if (r->fd >= 0)
		close(r->fd);
	if (r->f)
		fclose(r->f);
}

int golden_kmsg_scan(const char *path, const char *state_dir, const char *sysroot, bool advance,
                     golden_kmsg_fn cb, void *arg, struct golden_kmsg_stats *st)
{
	char cboot[GOLDEN_KMSG_BOOTID_LEN];
	struct reader *r;
	uint64_t last = 0, cseq;
	bool have_last = false;
	int rc = 0, saved = 0;

	memset(st, 0, sizeof(*st));
	/* The boot id must belong to the log it keys: the live kernel log is
	 * the running kernel's, whatever boot a fixture sysroot pretends. */
	golden_kmsg_boot_id(golden_kmsg_is_live(path) ? NULL : sysroot, st->boot_id,
	                    sizeof(st->boot_id));
	if (state_dir && golden_kmsg_cursor_load(state_dir, cboot, sizeof(cboot), &cseq) == 0) {
		/* Sequence numbers restart at every boot: another boot's cursor
		 * says nothing about this buffer. */
		if (strcmp(cboot, st->boot_id) == 0) {
			st->cursor_found = true;
			last = cseq;
			have_last = true;
		} else {
			st->cursor_other_boot = true;
		}
	}
	st->last_seq = last;

	r = malloc(sizeof(*r));
	if (!r)
		return -1;
	if (reader_open(r, path) < 0) {
		saved = errno;
		free(r);
		errno = saved;
		return -1;
	}
	for (unsigned long reads = 0; reads < MAX_READS; reads++) {
		struct golden_kmsg_record rec;
		int got = next_record(r, st);

		if (got <= 0) {
			if (got < 0) {
				rc = -1;
				saved = errno;
			}
			break;
		}
		if (golden_kmsg_parse(r->buf, &rec) < 0) {
			st->malformed++;
			continue;
		}
		/* At or before the cursor (or a duplicate): already consumed. */
		if (have_last && rec.seq <= last) {
			st->skipped++;
			continue;
		}
		if (st->records >= GOLDEN_KMSG_MAX_RECORDS) {
			st->limited = true;
			break;
		}
		st->missed += golden_kmsg_gap(have_last, last, rec.seq);
		last = rec.seq;
		have_last = true;
		st->records++;
		if (cb && cb(rec.seq, rec.ts_usec, rec.facility, rec.level, rec.msg, arg))
			break;
	}
	reader_close(r);
	free(r);
	st->last_seq = last;
	/* Save only when something new was consumed. */
	if (advance && state_dir && st->records &&
	    golden_kmsg_cursor_save(state_dir, st->boot_id, last) < 0)
		st->cursor_errno = errno ? errno : EIO;
	if (rc < 0)
		errno = saved;
	return rc;
}
