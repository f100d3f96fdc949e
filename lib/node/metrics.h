/* Prometheus textfile-collector files (node_exporter's convention: *.prom
 * in its --collector.textfile.directory, replaced atomically). One file per
 * writer, so writers never merge each other's samples:
 *   slurm_golden_checks_<phase>.prom  each check's last result and duration
 *   slurm_golden_lifecycle.prom       drains/resumes by reason, the held drain
 *   slurm_golden_watch.prom           golden-watch's lag and kmsg counters
 *   slurm_golden_active.prom          the last active check and its figures per GPU
 */
#ifndef GOLDEN_NODE_METRICS_H
#define GOLDEN_NODE_METRICS_H

#include <stdbool.h>
#include <stdint.h>

#include "health/check_run.h"
#include "node/ledger.h"

struct golden_watch_stats {
	long long started;      /* epoch seconds */
	unsigned long records;  /* kernel log records read */
	unsigned long missed;   /* lost to overwrite before we read them */
	unsigned long epipe;    /* overruns (EPIPE) */
	unsigned long triggers; /* check runs a record triggered */
	unsigned long faults;   /* NVIDIA fault lines seen */
	unsigned long stalls;   /* writeback-stall signature lines seen */
	double last_lag_s;      /* record timestamp -> handled, last record */
	double max_lag_s;       /* the worst since start */
	uint64_t last_seq;      /* the cursor */
	bool pending;           /* a drain is owed */
};

/* Each returns 0, or -1 if the file could not be written. */
int golden_metrics_checks(const char *dir, const char *node, const char *phase,
                          const struct golden_run_report *rep);
int golden_metrics_lifecycle(const char *dir, const char *node, const struct golden_ledger *l);
int golden_metrics_watch(const char *dir, const char *node, const struct golden_watch_stats *w);
struct golden_active_record; /* node/active_run.h */
int golden_metrics_active(const char *dir, const char *node,
                          const struct golden_active_record *rec);

#endif
