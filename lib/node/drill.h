/* `golden drill run`: the reviewers' test of a health-check provider, built
 * in. Write into the kernel log exactly the line NVIDIA's driver prints for
 * a GPU fault on one of this node's GPUs, then only observe what golden's
 * production path (golden-watch, prolog, HealthCheckProgram, lifecycle)
 * does: how long until golden decided (detect), until Slurm shows DRAIN
 * (drain), whether a running job was left alone and a new one kept off the
 * node, and with --return auto how long until golden resumed it (return).
 *
 * The drill changes nothing in that path. It does not read or move any
 * kernel-log cursor: the injected record is consumed by whichever check
 * sees it first, like any fault, and a later real fault is seen as before.
 * Its only hook is the lifecycle's (lifecycle.c drill_fault): while the
 * drill program runs with --return auto, the drain of the very record it
 * injected (by sequence number) may end at the next passing health check
 * instead of waiting for a reboot or GPU reset.
 *
 * With fault rail-down or mount-hang the drill stages that fault instead
 * (drill_fault.h) and takes it away again as soon as it has seen the drain
 * (or gave up, or got SIGINT/SIGTERM/SIGHUP): the node's next passing
 * health check then returns it, as it would a port or mount that recovers;
 * with --return auto the drill waits for that and times it.
 * Nothing but a health check sees ports and mounts, so detection waits for
 * HealthCheckInterval or a prolog, unless validate_now runs the node's
 * health check as soon as the fault is staged. Both are classes the
 * blast-radius guard may hold back (guard.h): a drill whose drain the guard
 * held back says so (d->guard) instead of failing silently.
 *
 * Refused (nothing injected): not root; the node drained, down or, without
 * allow_busy, running a job; golden holding or owing a drain; another drill
 * running; a GPU index the node does not have; an XID golden never drains
 * for (an application error: the drill would fail by design); for a staged
 * fault what drill_fault.h refuses. */
#ifndef GOLDEN_NODE_DRILL_H
#define GOLDEN_NODE_DRILL_H

#include <stdbool.h>
#include <stdio.h>

#include "health/golden_conf.h"
#include "node/drill_record.h"
#include "util/errbuf.h"

struct golden_drill_opts {
	const struct golden_conf *conf;
	const char *node;
	const char *state_dir;        /* the node's, %n expanded */
	const char *topology;         /* the node's topology XML, "" live */
	const char *sysroot;          /* "" the real root */
	const char *golden;           /* this program, for --validate-now ("" none) */
	const char *config;           /* golden.conf given to golden (NULL: default) */
	enum golden_drill_kind fault; /* GOLDEN_DRILL_XID: the kernel line */
	int xid;                      /* default 79 */
	int gpu;                      /* index in the node's topology, default 0 */
	const char *rail;             /* rail-down: the RDMA device, NULL the first up */
	bool return_auto;
	bool allow_busy;
	bool validate_now; /* run the node's health check once it is drained (and,
	                      for a staged fault, once it is staged) */
	bool probe;        /* try a job on the drained node (srun --immediate) */
	int timeout_s;     /* the whole drill; 0: golden.conf drill_timeout */
	FILE *progress;    /* a line per observation, NULL: quiet */
};

/* Run a drill. Returns 0 when it ran to its end (d->passed says how it
 * went), 1 when it was refused before injecting anything (err says why),
 * -1 on an error after the injection (d and the drill file say how far it
 * got). */
int golden_drill_run(const struct golden_drill_opts *o, struct golden_drill *d,
                     struct golden_err *err);

/* The exact line the driver prints for xid on the GPU at busid
 * ("0000:3b:00.0"): "NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>',
 * name=<unknown>, GPU has fallen off the bus." Returns 0, or -1 if xid is
 * not in NVIDIA's catalogue. */
int golden_drill_line(int xid, const char *busid, char *buf, size_t len);

/* Judge a finished drill against golden.conf's targets: fills d->passed
 * and d->verdict ("pass", or what failed, in words). */
void golden_drill_judge(struct golden_drill *d, const struct golden_conf_fleet *targets);

#endif
