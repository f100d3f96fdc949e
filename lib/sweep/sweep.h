/* NCCL sweeps: what nccl-tests printed, as plain data. A set holds every run
 * read from one or more logs (text output of every nccl-tests generation,
 * or its -J JSON); each run holds its rows, one per message size, with the
 * out-of-place and in-place halves side by side, and what the log says
 * about the run (collective, ranks, hosts, versions, footer, failures).
 *
 * The parser (parse.h) fills a set; the detector (detect.h) judges it; the
 * report (report.h) and the plot (plot.h) print it. The set owns all its
 * memory: golden_sweep_set_free releases it. */
#ifndef GOLDEN_SWEEP_SWEEP_H
#define GOLDEN_SWEEP_SWEEP_H

#include <stdbool.h>
#include <stddef.h>

#include "sweep/collective.h"

#define GOLDEN_SWEEP_OOP 0 /* out-of-place half of a row */
#define GOLDEN_SWEEP_IP  1 /* in-place half */

#define GOLDEN_SWEEP_TEXT 192 /* quoted log text kept with a run */

/* One half of a row: what nccl-tests measured for one placement. */
struct golden_sweep_half {
	bool present;
	double time_us; /* Gen0 logs print ms: converted */
	double algbw;   /* GB/s (1e9 B/s) */
	double busbw;
	double wrong; /* #wrong (an element count, may be printed %g) or the old
	                 float error; < 0 when not checked (N/A) */
};

struct golden_sweep_row {
	long long size; /* bytes */
	long long count;
	char type[12];
	char redop[8];
	int root; /* -1: not a rooted collective or not printed */
	int line; /* 1-based line of the log (0 for JSON) */
	struct golden_sweep_half half[2];
};

/* What the columns of the table are, from its header line. */
enum golden_sweep_errcol {
	GOLDEN_SWEEP_ERR_UNKNOWN, /* no header seen */
	GOLDEN_SWEEP_ERR_WRONG,   /* `#wrong`: wrong elements (2022-08 on) */
	GOLDEN_SWEEP_ERR_FLOAT,   /* `error`: max deviation (2019-03 to 2022-08) */
	GOLDEN_SWEEP_ERR_RES      /* `res`: max deviation, times in ms (2017-2019) */
};

struct golden_sweep_layout {
	bool known; /* from a header line */
	int lead;   /* label columns before `size` (hand-made tables) */
	char lead_name[16];
	int halves;     /* 2, or 1 (a table with only out-of-place) */
	int per_half;   /* 4 (time algbw busbw wrong), 8 with -I per-iteration columns */
	int trailing;   /* tokens after the halves (-S timestamp: 2) */
	bool has_redop; /* the header names redop / root */
	bool has_root;
	bool time_ms; /* Gen0: time column in ms */
	enum golden_sweep_errcol errcol;
};

/* Where a fact about a run came from. */
enum golden_sweep_source {
	GOLDEN_SWEEP_SRC_NONE,     /* unknown */
	GOLDEN_SWEEP_SRC_LOG,      /* printed by nccl-tests */
	GOLDEN_SWEEP_SRC_META,     /* golden sweep run's own line in the log */
	GOLDEN_SWEEP_SRC_INFERRED, /* from the columns and busbw/algbw */
	GOLDEN_SWEEP_SRC_OPTION    /* given on the command line */
};

struct golden_sweep_run {
	int file;       /* index into set->files */
	int first_line; /* where the run starts */
	int id;         /* position in the set */

	/* What was run. */
	enum golden_sweep_coll coll;
	enum golden_sweep_source coll_src;
	int ranks; /* 0 unknown */
	enum golden_sweep_source ranks_src;
	int nodes; /* 0 unknown */
	enum golden_sweep_source nodes_src;
	char env[12];        /* "golden", "default" (golden sweep run's A/B), "" unknown */
	char label[48];      /* a hand-made table's label column ("p4dn=2"), or golden's */
	char nodelist[1024]; /* golden sweep run: the nodes it ran on (a Slurm host list) */
	char device[64];     /* GPU model from the device list */
	char version[24];    /* nccl-tests version (2025-10 on) */
	char githash[16];
	int nccl_headers, nccl_library; /* NCCL_VERSION_CODE, 22809 = 2.28.9 */
	char nccl_version[32];          /* "2.28.7+cuda13.0" (libnccl's own line) */

	/* The sweep as configured (the nThread line). */
	bool have_config;
	int nthread, ngpus;
	long long min_bytes, max_bytes;
	int step_factor;       /* 0 when stepping by bytes */
	long long step_bytes;  /* 0 when stepping by factor */
	int validation;        /* -1 not printed */
	long long reduced_max; /* "Reducing maxBytes to N", 0 none */

	/* The device list. */
	int ndev_lines;
	int max_rank;    /* highest rank printed, -1 none */
	int max_device;  /* highest local device index printed */
	int nhosts;      /* distinct host names */
	bool dev_elided; /* an elision inside the device list */

	/* The table. */
	struct golden_sweep_layout layout;
	bool header;
	int nrows, cap;
	struct golden_sweep_row *rows;
	bool truncated_small; /* "# Truncated smaller message sizes" */
	bool elided;          /* "..." among the rows */

	/* The end. */
	bool footer;      /* Out of bounds / Avg bus bandwidth printed */
	long long oob;    /* out-of-bounds count, -1 not printed */
	bool oob_failed;  /* "... FAILED" */
	double avg_busbw; /* -1 not printed */
	bool concluded;   /* "Collective test concluded" */

	/* Damage and failures, reported (never silently dropped). */
	int ntruncated; /* rows cut short */
	int truncated_line;
	char truncated_text[GOLDEN_SWEEP_TEXT];
	int nfragments; /* row pieces without their start (a log that begins mid-row) */
	int fragment_line;
	int nfailures; /* "Test NCCL failure", "srun: error", "# error: ..." */
	int failure_line;
	char failure[GOLDEN_SWEEP_TEXT];
	bool timeout; /* a hang: nccl-tests -T, Slurm's time limit, golden's deadline */
	int nwarn;    /* NCCL WARN lines */
	char warn[GOLDEN_SWEEP_TEXT];
	int meta_exit; /* golden sweep run: the launcher's exit status, -1 unknown */
};

struct golden_sweep_set {
	int nfiles;
	char **files; /* as given */
	int nruns, cap;
	struct golden_sweep_run *runs;
};

void golden_sweep_set_free(struct golden_sweep_set *set);

/* Add a run (zeroed, with its defaults) for FILE; returns it, or NULL when
 * out of memory. Pointers into set->runs stay valid only until the next add. */
struct golden_sweep_run *golden_sweep_run_add(struct golden_sweep_set *set, int file);

/* Append a row; returns 0 or -1 (out of memory). */
int golden_sweep_run_add_row(struct golden_sweep_run *run, const struct golden_sweep_row *row);

/* Largest non-zero size in the run, 0 if none. */
long long golden_sweep_run_max_size(const struct golden_sweep_run *run);

/* "8 B", "512 KiB", "16 GiB"; exact binary units when the size is a
 * multiple, else one decimal ("37.5 MiB"). Returns buf. */
const char *golden_sweep_size_str(long long size, char *buf, size_t len);

/* Parse "8", "8B", "16K", "16M", "1G", "16GiB" (binary units). Returns 0, or
 * -1 when it is not a size. */
int golden_sweep_size_parse(const char *s, long long *out);

const char *golden_sweep_placement_name(int placement); /* "out", "in" */
const char *golden_sweep_source_name(enum golden_sweep_source s);

#endif
