/* golden-watch: faults that happen while jobs run, drained within seconds.
 *
 * It blocks on /dev/kmsg (poll(2) with no timeout unless a drain is owed)
 * and, when a record is an NVIDIA GPU/NVSwitch fault line or a kernel
 * stall signature of the teardown-stall probe, runs the very checks the
 * prolog runs ("xid", "wb-stall") and hands the result to the same
 * lifecycle code. The checks keep their own cursor, so a fault is reported
 * once, by whichever of golden-watch and the prolog/epilog sees it first,
 * with the same reason; golden-watch's own cursor (watch.cursor) only says
 * how far it has looked, so after a restart it looks again from there:
 * nothing is missed and nothing is drained twice.
 *
 * Overrun (EPIPE: our position in the ring buffer was overwritten): it
 * continues from the oldest record left and reports how many were lost.
 * slurmctld away: the drain decision is kept in the ledger and retried with
 * backoff (1 s doubling to 30 s) until it is applied.
 */
#ifndef GOLDEN_NODE_WATCH_H
#define GOLDEN_NODE_WATCH_H

#define GOLDEN_WATCH_CURSOR "watch.cursor"
#define GOLDEN_WATCH_STATE  "watch.json"

/* argv[0] is the program name. Returns the exit status: 0 stopped by
 * SIGTERM/SIGINT (or --once done), 1 the kernel log cannot be read, 2
 * usage or configuration error. */
int golden_watch_main(int argc, char **argv);

#endif
