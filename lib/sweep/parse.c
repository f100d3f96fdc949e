/* The text reader: one pass over the lines, each classified after the
 * launcher's prefix is stripped; rows are read from the right as the
 * header lays them out. See parse.h for what is tolerated. */
#include "sweep/parse.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/strutil.h"

#define LINE_MAX_LEN 4096
#define MAX_TOK      64
#define MAX_HOSTS    4096

struct parser {
	struct golden_sweep_set *set;
	int file;
	int cur; /* index of the current run, -1 before the first */
	int lineno;
	bool oom;
	/* A row split by NCCL INFO lines: its tokens so far. */
	char pend[LINE_MAX_LEN];
	int pend_line;
	int pend_ntok;
	/* Distinct hosts of the current run's device list (name hashes). */
	int host_run;
	int nhost;
	unsigned host[MAX_HOSTS];
	/* A command line named the test binary: for the run it starts. */
	enum golden_sweep_coll hint;
};

/* ------------------------------------------------------------ helpers */

static struct golden_sweep_run *cur(struct parser *p)
{
	return p->cur >= 0 ? &p->set->runs[p->cur] : NULL;
}

static void copy_text(char *dst, size_t len, const char *src)
{
	golden_strlcpy(dst, src, len);
	for (char *s = dst; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			*s = '?';
}

static int split(char *s, char **tok, int max)
{
	int n = 0;

	for (char *save = NULL, *t = strtok_r(s, " \t", &save); t && n < max;
	     t = strtok_r(NULL, " \t", &save))
		tok[n++] = t;
	return n;
}

static bool is_uint(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static bool parse_num(const char *s, double *out)
{
	char *end;
	double v;

	if (!*s)
		return false;
	errno = 0;
	v = strtod(s, &end);
	if (*end || errno || !isfinite(v))
		return false;
	*out = v;
	return true;
}

static bool is_na(const char *s)
{
	return !strcmp(s, "N/A") || !strcmp(s, "n/a") || !strcmp(s, "nan");
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* Strip what launchers and copies add in front of nccl-tests' own text:
 * indentation, srun -l ("0: "), Open MPI --tag-output ("[1,0]<stdout>:"),
 * "[0] ", and a crawler's trailing " | |". */
static char *strip_prefix(char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	while (n >= 2 && s[n - 1] == '|' && isspace((unsigned char)s[n - 2])) {
		s[n -= 2] = '\0';
		while (n && isspace((unsigned char)s[n - 1]))
			s[--n] = '\0';
	}
	for (int round = 0; round < 3; round++) {
		char *p = s;

		while (isspace((unsigned char)*p))
			p++;
		s = p;
		if (isdigit((unsigned char)*p)) {
			while (isdigit((unsigned char)*p))
				p++;
			if (p[0] == ':' && (p[1] == ' ' || p[1] == '\0')) {
				s = p + 1;
				continue;
			}
			break;
		}
		if (*p == '[') {
			char *q = p + 1;

			while (isdigit((unsigned char)*q))
				q++;
			if (q == p + 1)
				break;
			if (*q == ']') {
				s = q + 1;
				continue;
			}
			if (*q == ',') {
				q++;
				while (isdigit((unsigned char)*q))
					q++;
				if (*q == ']' &&
				    (starts(q + 1, "<stdout>:") || starts(q + 1, "<stderr>:"))) {
					s = q + 10;
					continue;
				}
			}
		}
		break;
	}
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

/* -------------------------------------------------------------- runs */

static struct golden_sweep_run *new_run(struct parser *p);

static void report_truncated(struct golden_sweep_run *r, int line, const char *text)
{
	if (!r)
		return;
	if (r->ntruncated++ == 0) {
		r->truncated_line = line;
		copy_text(r->truncated_text, sizeof(r->truncated_text), text);
	}
}

static void flush_pending(struct parser *p)
{
	if (p->pend_ntok)
		report_truncated(cur(p), p->pend_line, p->pend);
	p->pend[0] = '\0';
	p->pend_ntok = 0;
}

static struct golden_sweep_run *new_run(struct parser *p)
{
	struct golden_sweep_run *prev = cur(p), *r;
	struct golden_sweep_layout lay;
	bool have = false;

	flush_pending(p);
	if (prev) {
		lay = prev->layout;
		have = prev->layout.known;
	}
	r = golden_sweep_run_add(p->set, p->file);
	if (!r) {
		p->oom = true;
		return NULL;
	}
	p->cur = r->id;
	r->first_line = p->lineno;
	/* A run whose header was not repeated (a hand-made table split by
	 * label, a second block of rows) keeps the columns it is made of. */
	if (have) {
		r->layout = lay;
		r->layout.known = true;
	}
	if (p->hint != GOLDEN_COLL_UNKNOWN) {
		r->coll = p->hint;
		r->coll_src = GOLDEN_SWEEP_SRC_LOG;
		p->hint = GOLDEN_COLL_UNKNOWN;
	}
	return r;
}

static bool run_started(const struct golden_sweep_run *r)
{
	return r->nrows || r->header || r->footer || r->concluded;
}

/* A line that opens a run (meta, version, starting, nThread): a new run
 * unless the current one is still in its preamble and lacks this item. */
static struct golden_sweep_run *run_for_preamble(struct parser *p, bool already_has)
{
	struct golden_sweep_run *r = cur(p);

	if (!r || run_started(r) || already_has || r->nfailures)
		return new_run(p);
	return r;
}

static struct golden_sweep_run *run_for_attach(struct parser *p)
{
	return cur(p) ? cur(p) : new_run(p);
}

/* ----------------------------------------------------------- headers */

static void parse_header(struct parser *p, char **tok, int n)
{
	struct golden_sweep_run *r = cur(p);
	struct golden_sweep_layout lay = {0};
	int i = 0, first_time = -1, second_time = -1, after = 0;

	while (i < n - 1 && !((!strcmp(tok[i], "size") && !strcmp(tok[i + 1], "count")) ||
	                      (!strcmp(tok[i], "bytes") && !strcmp(tok[i + 1], "N"))))
		i++;
	if (i >= n - 1)
		return;
	lay.lead = i;
	if (i)
		golden_strlcpy(lay.lead_name, tok[0], sizeof(lay.lead_name));
	lay.time_ms = !strcmp(tok[i], "bytes");
	for (int j = i + 2; j < n; j++) {
		bool t = !strcmp(tok[j], "time") || !strcmp(tok[j], "cputime");

		if (t && first_time < 0)
			first_time = j;
		else if (t && second_time < 0)
			second_time = j;
		if (first_time < 0) {
			lay.has_redop |= !strcmp(tok[j], "redop") || !strcmp(tok[j], "op");
			lay.has_root |= !strcmp(tok[j], "root");
		}
		if (!strcmp(tok[j], "#wrong") || !strcmp(tok[j], "wrong"))
			lay.errcol = GOLDEN_SWEEP_ERR_WRONG;
		else if (!strcmp(tok[j], "error") && lay.errcol == GOLDEN_SWEEP_ERR_UNKNOWN)
			lay.errcol = GOLDEN_SWEEP_ERR_FLOAT;
		else if (!strcmp(tok[j], "res"))
			lay.errcol = GOLDEN_SWEEP_ERR_RES;
		if (!strcmp(tok[j], "timestamp"))
			after += 2; /* -S: "%Y-%m-%d %H:%M:%S" is two tokens */
	}
	if (first_time < 0)
		return;
	if (second_time > 0) {
		lay.halves = 2;
		lay.per_half = second_time - first_time;
	} else {
		lay.halves = 1;
		lay.per_half = n - first_time - after / 2;
	}
	if (lay.per_half < 4)
		return;
	lay.trailing = after;
	lay.known = true;
	if (!r || r->nrows || r->footer || r->concluded)
		r = new_run(p);
	if (!r)
		return;
	r->layout = lay;
	r->header = true;
}

static int numeric_tokens(const struct golden_sweep_layout *l)
{
	return l->halves * l->per_half + l->trailing;
}

static struct golden_sweep_layout default_layout(void)
{
	struct golden_sweep_layout l = {0};

	l.halves = 2;
	l.per_half = 4;
	return l;
}

/* -------------------------------------------------------------- rows */

/* Tokens (after the label columns) that start a row: size and count. */
static bool row_start(char **tok, int n, int lead)
{
	return n >= lead + 2 && is_uint(tok[lead]) && is_uint(tok[lead + 1]);
}

/* Read a complete row from TOK. Returns 0, or -1 if it is not one. */
static int read_row(const struct golden_sweep_layout *l, char **tok, int n, int line,
                    struct golden_sweep_row *row, char *label, size_t labellen)
{
	int num = numeric_tokens(l), mid = n - l->lead - 2 - num;

	memset(row, 0, sizeof(*row));
	row->root = -1;
	row->line = line;
	if (!row_start(tok, n, l->lead) || mid < 1 || mid > 3)
		return -1;
	row->size = strtoll(tok[l->lead], NULL, 10);
	row->count = strtoll(tok[l->lead + 1], NULL, 10);
	/* The descriptors: type, then redop and/or root as the header says
	 * (an alltoall's blank redop is simply not there). */
	{
		char **d = tok + l->lead + 2;

		if (isdigit((unsigned char)d[0][0]) || d[0][0] == '-')
			return -1;
		golden_strlcpy(row->type, d[0], sizeof(row->type));
		if (mid == 3) {
			golden_strlcpy(row->redop, d[1], sizeof(row->redop));
			row->root = atoi(d[2]);
		} else if (mid == 2) {
			if (is_uint(d[1]) || (d[1][0] == '-' && is_uint(d[1] + 1)))
				row->root = atoi(d[1]);
			else
				golden_strlcpy(row->redop, d[1], sizeof(row->redop));
		}
	}
	for (int h = 0; h < l->halves; h++) {
		char **t = tok + n - l->trailing - (l->halves - h) * l->per_half;
		struct golden_sweep_half *hf = &row->half[h];

		if (!parse_num(t[0], &hf->time_us) || !parse_num(t[1], &hf->algbw) ||
		    !parse_num(t[2], &hf->busbw) || hf->time_us < 0 || hf->algbw < 0 ||
		    hf->busbw < 0)
			return -1;
		if (is_na(t[3]))
			hf->wrong = -1;
		else if (!parse_num(t[3], &hf->wrong) || hf->wrong < 0)
			return -1;
		if (l->time_ms)
			hf->time_us *= 1000;
		hf->present = true;
	}
	if (l->lead && label)
		snprintf(label, labellen, "%s=%s", l->lead_name[0] ? l->lead_name : "label",
		         tok[0]);
	return 0;
}

static long long last_size(const struct golden_sweep_run *r)
{
	for (int i = r->nrows - 1; i >= 0; i--)
		if (r->rows[i].size > 0)
			return r->rows[i].size;
	return 0;
}

static void add_row(struct parser *p, const struct golden_sweep_row *row, const char *label)
{
	struct golden_sweep_run *r = cur(p);

	/* Rows after a footer, a size that does not grow, or another label:
	 * the next run of a file that does not repeat its header. */
	if (!r || r->footer || r->concluded || (row->size > 0 && row->size <= last_size(r)) ||
	    (label[0] && r->nrows && strcmp(label, r->label)))
		r = new_run(p);
	if (!r)
		return;
	if (label[0])
		golden_strlcpy(r->label, label, sizeof(r->label));
	if (golden_sweep_run_add_row(r, row) < 0)
		p->oom = true;
}

static bool all_numeric(char **tok, int n)
{
	double v;

	for (int i = 0; i < n; i++)
		if (!parse_num(tok[i], &v) && !is_na(tok[i]))
			return false;
	return true;
}

/* "mpirun ... ./build/all_reduce_perf -b 8 ...", "EXEC_CMD=.../alltoall_perf":
 * the run that follows is that collective. */
static void command_line(struct parser *p, char **tok, int n)
{
	struct golden_sweep_run *r = cur(p);

	for (int i = 0; i < n; i++) {
		const char *t = strrchr(tok[i], '/'), *u;
		enum golden_sweep_coll c;

		t = t ? t + 1 : tok[i];
		u = strchr(t, '=');
		t = u ? u + 1 : t;
		if (!strstr(t, "_perf"))
			continue;
		c = golden_sweep_coll_parse(t);
		if (c == GOLDEN_COLL_UNKNOWN)
			continue;
		if (r && !r->nrows && !r->header && !r->nfailures &&
		    r->coll == GOLDEN_COLL_UNKNOWN) {
			r->coll = c;
			r->coll_src = GOLDEN_SWEEP_SRC_LOG;
		} else {
			p->hint = c;
		}
		return;
	}
}

static bool in_table(const struct golden_sweep_run *r)
{
	return r && (r->header || r->nrows);
}

/* TEXT holds row tokens; GLUED: an NCCL line followed on the same line, so
 * the row goes on. */
static void row_text(struct parser *p, const char *text, bool glued)
{
	struct golden_sweep_run *r = cur(p);
	struct golden_sweep_layout l = r && r->layout.known ? r->layout : default_layout();
	char buf[LINE_MAX_LEN], *tok[MAX_TOK], label[48] = "";
	struct golden_sweep_row row;
	int n;

	golden_strlcpy(buf, text, sizeof(buf));
	n = split(buf, tok, MAX_TOK);
	if (!n)
		return;
	/* A complete row on its own line. */
	if (!p->pend_ntok && !glued &&
	    read_row(&l, tok, n, p->lineno, &row, label, sizeof(label)) == 0) {
		add_row(p, &row, label);
		return;
	}
	if (p->pend_ntok && row_start(tok, n, l.lead)) {
		/* A new row while one is pending: the pending one was cut. */
		if (!glued && read_row(&l, tok, n, p->lineno, &row, label, sizeof(label)) == 0) {
			flush_pending(p);
			add_row(p, &row, label);
			return;
		}
		flush_pending(p);
	}
	if (!p->pend_ntok) {
		if (!row_start(tok, n, l.lead)) {
			if (!all_numeric(tok, n)) {
				command_line(p, tok, n);
				return;
			}
			/* A size alone: a row cut short. Numbers without their
			 * row's start: a log that begins mid-row. Both counted,
			 * so the report can say so. */
			if (n == l.lead + 1 && is_uint(tok[l.lead]) && in_table(r)) {
				report_truncated(r, p->lineno, text);
				return;
			}
			r = run_for_attach(p);
			if (r && r->nfragments++ == 0)
				r->fragment_line = p->lineno;
			return;
		}
		if (!in_table(r) && !glued)
			return; /* two numbers outside any table: not ours */
		p->pend_line = p->lineno;
		p->pend[0] = '\0';
	}
	for (int i = 0; i < n; i++) {
		golden_strlcat(p->pend, p->pend[0] ? " " : "", sizeof(p->pend));
		golden_strlcat(p->pend, tok[i], sizeof(p->pend));
	}
	p->pend_ntok += n;
	if (glued)
		return;
	/* The line ended: the row is complete now or it never will be. */
	golden_strlcpy(buf, p->pend, sizeof(buf));
	n = split(buf, tok, MAX_TOK);
	if (read_row(&l, tok, n, p->pend_line, &row, label, sizeof(label)) == 0) {
		p->pend_ntok = 0;
		p->pend[0] = '\0';
		add_row(p, &row, label);
		return;
	}
	flush_pending(p);
}

/* ------------------------------------------------------ other lines */

static void parse_config(struct parser *p, char **tok, int n)
{
	struct golden_sweep_run *r = run_for_preamble(p, cur(p) && cur(p)->have_config);

	if (!r)
		return;
	r->have_config = true;
	for (int i = 0; i + 1 < n; i++) {
		const char *k = tok[i], *v = tok[i + 1];

		if (!strcmp(k, "nThread"))
			r->nthread = atoi(v);
		else if (!strcmp(k, "nGpus"))
			r->ngpus = atoi(v);
		else if (!strcmp(k, "minBytes"))
			r->min_bytes = strtoll(v, NULL, 10);
		else if (!strcmp(k, "maxBytes"))
			r->max_bytes = strtoll(v, NULL, 10);
		else if (!strcmp(k, "step:")) {
			long long s = strtoll(v, NULL, 10);

			if (strstr(v, "(bytes)"))
				r->step_bytes = s;
			else
				r->step_factor = (int)s;
		} else if (!strcmp(k, "validation:"))
			r->validation = atoi(v);
	}
}

static void parse_device(struct parser *p, char **tok, int n, const char *line)
{
	struct golden_sweep_run *r = cur(p);
	int rank = -1, dev = -1;
	const char *host = NULL;

	for (int i = 0; i + 1 < n; i++) {
		if (!strcmp(tok[i], "Rank") && is_uint(tok[i + 1]))
			rank = atoi(tok[i + 1]);
		else if (!strcmp(tok[i], "on") && !host)
			host = tok[i + 1];
		else if (!strcmp(tok[i], "device") && is_uint(tok[i + 1]))
			dev = atoi(tok[i + 1]);
	}
	if (rank < 0 || !host)
		return;
	if (!r || r->nrows || r->footer)
		r = new_run(p);
	if (!r)
		return;
	r->ndev_lines++;
	if (rank > r->max_rank)
		r->max_rank = rank;
	if (dev > r->max_device)
		r->max_device = dev;
	if (p->host_run != r->id) {
		p->host_run = r->id;
		p->nhost = 0;
	}
	{
		unsigned hh = golden_fnv1a(host);
		int i = 0;

		while (i < p->nhost && p->host[i] != hh)
			i++;
		if (i == p->nhost && p->nhost < MAX_HOSTS) {
			p->host[p->nhost++] = hh;
			r->nhosts++;
		}
	}
	if (!r->device[0]) {
		const char *b = strchr(line, ']');

		if (b) {
			while (*++b == ' ')
				;
			copy_text(r->device, sizeof(r->device), b);
		}
	}
}

static void parse_meta(struct parser *p, const char *text)
{
	char buf[LINE_MAX_LEN], *tok[MAX_TOK];
	struct golden_sweep_run *r;
	int n;

	golden_strlcpy(buf, text, sizeof(buf));
	n = split(buf, tok, MAX_TOK);
	if (!n)
		return;
	if (!strcmp(tok[0], "run"))
		r = run_for_preamble(p, cur(p) && (cur(p)->env[0] || cur(p)->nodelist[0]));
	else
		r = run_for_attach(p);
	if (!r)
		return;
	for (int i = 1; i < n; i++) {
		char *eq = strchr(tok[i], '=');
		const char *k = tok[i], *v;

		if (!eq)
			continue;
		*eq = '\0';
		v = eq + 1;
		if (!strcmp(k, "collective")) {
			enum golden_sweep_coll c = golden_sweep_coll_parse(v);

			if (c != GOLDEN_COLL_UNKNOWN) {
				r->coll = c;
				r->coll_src = GOLDEN_SWEEP_SRC_META;
			}
		} else if (!strcmp(k, "nodes") && is_uint(v)) {
			r->nodes = atoi(v);
			r->nodes_src = GOLDEN_SWEEP_SRC_META;
		} else if (!strcmp(k, "ranks") && is_uint(v)) {
			r->ranks = atoi(v);
			r->ranks_src = GOLDEN_SWEEP_SRC_META;
		} else if (!strcmp(k, "env")) {
			copy_text(r->env, sizeof(r->env), v);
		} else if (!strcmp(k, "nodelist")) {
			copy_text(r->nodelist, sizeof(r->nodelist), v);
		} else if (!strcmp(k, "label")) {
			copy_text(r->label, sizeof(r->label), v);
		} else if (!strcmp(k, "exit") && (is_uint(v) || (v[0] == '-' && is_uint(v + 1)))) {
			r->meta_exit = atoi(v);
		} else if (!strcmp(k, "timeout")) {
			r->timeout = true;
			if (!r->nfailures++) {
				r->failure_line = p->lineno;
				snprintf(r->failure, sizeof(r->failure),
				         "golden sweep run stopped it after %.16s s", v);
			}
		}
	}
}

static void note_failure(struct parser *p, const char *text, bool timeout)
{
	struct golden_sweep_run *r = run_for_attach(p);

	if (!r)
		return;
	r->timeout |= timeout;
	if (r->nfailures++ == 0) {
		r->failure_line = p->lineno;
		copy_text(r->failure, sizeof(r->failure), text);
	}
}

static bool failure_line(const char *t, bool *timeout)
{
	static const char *const fatal[] = {
	    "Test NCCL failure",  "Test CUDA failure", "Test failure",       "srun: error:",
	    "slurmstepd: error:", "CANCELLED AT",      "Segmentation fault", NULL};

	*timeout = strstr(t, "Test timeout") || strstr(t, "DUE TO TIME LIMIT");
	if (*timeout)
		return true;
	for (const char *const *f = fatal; *f; f++)
		if (strstr(t, *f))
			return true;
	return false;
}

/* "NCCL version 2.28.7+cuda13.0" (libnccl itself, or inside an INFO line). */
static void nccl_version(struct golden_sweep_run *r, const char *t)
{
	const char *v = strstr(t, "NCCL version ");
	char buf[32];
	size_t n;

	if (!r || !v || r->nccl_version[0])
		return;
	v += strlen("NCCL version ");
	n = strcspn(v, " \t");
	if (!n || n >= sizeof(buf))
		return;
	memcpy(buf, v, n);
	buf[n] = '\0';
	copy_text(r->nccl_version, sizeof(r->nccl_version), buf);
}

/* "nccl-tests version 2.20.0 (b4d5bee) nccl-headers=23102 nccl-library=23102" */
static void parse_version(struct parser *p, char **tok, int n)
{
	struct golden_sweep_run *r = run_for_preamble(p, cur(p) && cur(p)->version[0]);

	if (!r || n < 3)
		return;
	copy_text(r->version, sizeof(r->version), tok[2]);
	for (int i = 3; i < n; i++) {
		size_t l = strlen(tok[i]);

		if (tok[i][0] == '(' && l > 2 && tok[i][l - 1] == ')') {
			tok[i][l - 1] = '\0';
			copy_text(r->githash, sizeof(r->githash), tok[i] + 1);
		} else if (starts(tok[i], "nccl-headers=")) {
			r->nccl_headers = atoi(tok[i] + strlen("nccl-headers="));
		} else if (starts(tok[i], "nccl-library=")) {
			r->nccl_library = atoi(tok[i] + strlen("nccl-library="));
		}
	}
}

static bool is_elision(const char *h)
{
	size_t n = strlen(h);

	if (!strcmp(h, "\xe2\x80\xa6")) /* U+2026 */
		return true;
	if (n < 3)
		return false;
	for (size_t i = 0; i < n; i++)
		if (h[i] != '.')
			return false;
	return true;
}

/* An NCCL debug line ("host:pid:tid [dev] NCCL INFO ...") in T: where it
 * starts, or NULL. Text before it is what nccl-tests printed before NCCL
 * interrupted (the start of a row). */
static char *nccl_line_start(char *t)
{
	char *m = strstr(t, " NCCL INFO");
	char *w = strstr(t, " NCCL WARN");

	if (!m || (w && w < m))
		m = w;
	if (!m)
		m = strstr(t, " NCCL TRACE");
	if (!m)
		return NULL;
	/* Back over "[dev] file:line" to the host:pid:tid token. */
	for (char *q = m; q > t;) {
		char *s = q;
		int colons = 0;

		while (s > t && s[-1] == ' ')
			s--;
		q = s;
		while (q > t && q[-1] != ' ')
			q--;
		for (char *c = q; c < s; c++)
			colons += *c == ':';
		if (colons >= 2 && isdigit((unsigned char)s[-1])) {
			/* A launcher prefix glued in front: "-1[0] host:..." */
			char *g = q;

			if (g > t && g[-1] == ' ')
				g--;
			while (g > t && g[-1] == ']') {
				char *b = g - 1;

				while (b > t && b[-1] != '[')
					b--;
				if (b == t)
					break;
				g = b - 1;
			}
			return g;
		}
		if (s - q > 64)
			break;
	}
	return m;
}

static void info_line(struct parser *p, const char *msg)
{
	struct golden_sweep_run *r = cur(p);

	if (strstr(msg, "NCCL version "))
		nccl_version(r, msg);
	if (strstr(msg, "NCCL WARN") && r) {
		if (r->nwarn++ == 0)
			copy_text(r->warn, sizeof(r->warn), msg);
	}
}

static void handle_text(struct parser *p, char *t, bool glued)
{
	char hbuf[LINE_MAX_LEN], *tok[MAX_TOK], *h = t;
	bool hash = false, timeout;
	int n;

	if (*h == '#') {
		hash = true;
		while (*h == '#' || *h == ' ' || *h == '\t')
			h++;
	}
	if (!*h)
		return;
	if (hash && starts(h, "golden-sweep:")) {
		parse_meta(p, h + strlen("golden-sweep:"));
		return;
	}
	if (failure_line(t, &timeout)) {
		note_failure(p, t, timeout);
		return;
	}
	if (starts(h, "Collective test starting:") || starts(h, "Collective test concluded:")) {
		bool start = h[16] == 's';
		const char *name = strchr(h, ':') + 1;
		struct golden_sweep_run *r;
		enum golden_sweep_coll c;

		while (*name == ' ')
			name++;
		c = golden_sweep_coll_parse(name);
		r = start ? run_for_preamble(p, cur(p) && cur(p)->coll_src == GOLDEN_SWEEP_SRC_LOG)
		          : run_for_attach(p);
		if (!r)
			return;
		if (!start)
			r->concluded = true;
		if (c != GOLDEN_COLL_UNKNOWN && r->coll_src != GOLDEN_SWEEP_SRC_META) {
			r->coll = c;
			r->coll_src = GOLDEN_SWEEP_SRC_LOG;
		}
		return;
	}
	golden_strlcpy(hbuf, h, sizeof(hbuf));
	n = split(hbuf, tok, MAX_TOK);
	if (!strcmp(tok[0], "nccl-tests") && n > 2 && !strcmp(tok[1], "version")) {
		parse_version(p, tok, n);
		return;
	}
	if (!strcmp(tok[0], "nThread")) {
		parse_config(p, tok, n);
		return;
	}
	if (!strcmp(tok[0], "Rank") && n > 3) {
		parse_device(p, tok, n, h);
		return;
	}
	if (strstr(h, "smaller message sizes")) {
		struct golden_sweep_run *r = run_for_attach(p);

		if (r)
			r->truncated_small = true;
		return;
	}
	if (starts(h, "Reducing maxBytes to ")) {
		struct golden_sweep_run *r = run_for_attach(p);

		if (r)
			r->reduced_max = strtoll(h + strlen("Reducing maxBytes to "), NULL, 10);
		return;
	}
	if (starts(h, "Out of bounds values")) {
		struct golden_sweep_run *r = run_for_attach(p);
		const char *c = strchr(h, ':');

		if (r && c) {
			r->footer = true;
			r->oob = strtoll(c + 1, NULL, 10);
			r->oob_failed = strstr(c, "FAILED") != NULL;
		}
		return;
	}
	if (starts(h, "Avg bus bandwidth")) {
		struct golden_sweep_run *r = run_for_attach(p);
		const char *c = strchr(h, ':');

		if (r && c) {
			r->footer = true;
			r->avg_busbw = strtod(c + 1, NULL);
		}
		return;
	}
	if (hash && starts(h, "error:")) {
		const char *e = h + strlen("error:");

		while (*e == ' ')
			e++;
		if (*e)
			note_failure(p, t, false);
		return;
	}
	if (starts(h, "NCCL version ")) {
		struct golden_sweep_run *r = cur(p);

		if (!r || r->nrows || r->footer || r->concluded)
			r = new_run(p);
		nccl_version(r, h);
		return;
	}
	if (is_elision(h)) {
		struct golden_sweep_run *r = run_for_attach(p);

		if (r && !r->header && r->ndev_lines)
			r->dev_elided = true;
		else if (r)
			r->elided = true;
		return;
	}
	/* Header lines: the column names (with or without '#'). */
	for (int i = 0; i + 1 < n; i++)
		if ((!strcmp(tok[i], "size") && !strcmp(tok[i + 1], "count")) ||
		    (!strcmp(tok[i], "bytes") && !strcmp(tok[i + 1], "N"))) {
			parse_header(p, tok, n);
			return;
		}
	if (strstr(h, "out-of-place") || (strstr(h, "(B)") && strstr(h, "(elements)")))
		return;
	if (hash)
		return;
	row_text(p, t, glued);
}

static void handle_line(struct parser *p, char *line)
{
	char *t = strip_prefix(line), *m;

	if (!*t)
		return;
	m = nccl_line_start(t);
	if (m) {
		char msg[LINE_MAX_LEN];

		golden_strlcpy(msg, m, sizeof(msg));
		*m = '\0';
		t = strip_prefix(t);
		if (*t)
			handle_text(p, t, true);
		info_line(p, msg);
		return;
	}
	handle_text(p, t, false);
}

/* ------------------------------------------------------------ entry */

static int add_file(struct golden_sweep_set *set, const char *name, struct golden_err *err)
{
	char **n = realloc(set->files, sizeof(*n) * (size_t)(set->nfiles + 1));

	if (!n)
		return golden_err_set(err, "%s: out of memory", name);
	set->files = n;
	if (!(n[set->nfiles] = strdup(name)))
		return golden_err_set(err, "%s: out of memory", name);
	return set->nfiles++;
}

/* Drop runs that hold nothing a reader could use (a stray device line). */
static void prune(struct golden_sweep_set *set, int from)
{
	int w = from;

	for (int i = from; i < set->nruns; i++) {
		struct golden_sweep_run *r = &set->runs[i];

		if (!r->nrows && !r->header && !r->have_config && !r->nfailures && !r->ntruncated &&
		    !r->nfragments && !r->env[0] && !r->footer) {
			free(r->rows);
			continue;
		}
		if (w != i)
			set->runs[w] = *r;
		set->runs[w].id = w;
		w++;
	}
	set->nruns = w;
}

int golden_sweep_parse_buffer(const char *buf, size_t len, const char *name,
                              struct golden_sweep_set *set, struct golden_err *err)
{
	struct parser p = {0};
	size_t i = 0;
	int first = set->nruns, file;

	file = add_file(set, name, err);
	if (file < 0)
		return -1;
	while (i < len && isspace((unsigned char)buf[i]))
		i++;
	if (i < len && buf[i] == '{')
		return golden_sweep_parse_json(buf, len, file, set, err);
	p.set = set;
	p.file = file;
	p.cur = -1;
	p.host_run = -1;
	for (i = 0; i < len && !p.oom;) {
		const char *nl = memchr(buf + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - buf - i) : len - i;
		char line[LINE_MAX_LEN];

		if (n >= sizeof(line))
			n = sizeof(line) - 1;
		memcpy(line, buf + i, n);
		line[n] = '\0';
		for (size_t k = 0; k < n; k++)
			if (line[k] == '\0' || line[k] == '\r')
				line[k] = ' ';
		p.lineno++;
		handle_line(&p, line);
		i = nl ? (size_t)(nl - buf) + 1 : len;
	}
	flush_pending(&p);
	if (p.oom)
		return golden_err_set(err, "%s: out of memory", name);
	prune(set, first);
	return set->nruns - first;
}

int golden_sweep_parse_file(const char *path, struct golden_sweep_set *set, struct golden_err *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat st;
	char *buf;
	size_t n = 0;
	int rc;

	if (fd < 0)
		return golden_err_set(err, "%s: cannot open: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return golden_err_set(err, "%s: not a regular file; expected an nccl-tests log",
		                      path);
	}
	if (st.st_size > GOLDEN_SWEEP_MAX_FILE) {
		close(fd);
		return golden_err_set(err, "%s: %lld bytes; expected a log of at most %ld", path,
		                      (long long)st.st_size, GOLDEN_SWEEP_MAX_FILE);
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		return golden_err_set(err, "%s: out of memory", path);
	}
	while (n < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + n, (size_t)st.st_size - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	rc = golden_sweep_parse_buffer(buf, n, path, set, err);
	free(buf);
	return rc;
}
