/* What the running controller uses: the output of `scontrol show topology`
 * (one record per line), every version from 22.05 on:
 *
 *   SwitchName=s0 Level=0 LinkSpeed=1 Nodes=n[1-2]
 *   SwitchName=top Level=1 LinkSpeed=1 Nodes=n[1-4] Switches=s[0-1]
 *   BlockName=b1 BlockIndex=0 Nodes=n[1-18] BlockSize=18          (24.11+)
 *   AggregatedBlock=b[1-2] BlockIndex=0 Nodes=n[1-36] BlockSize=36 (24.11+)
 *
 * From 25.05 a bare `scontrol show topology` shows the cluster-default
 * topology only; `scontrol show topoconf` lists them all (topology.yaml
 * form) and `scontrol show topology NAME` shows one. */
#ifndef GOLDEN_FABRIC_SHOWTOPO_H
#define GOLDEN_FABRIC_SHOWTOPO_H

#include <stdbool.h>

#include "util/errbuf.h"
#include "util/hostlist.h"

enum golden_showtopo_kind { GOLDEN_SHOWTOPO_SWITCH, GOLDEN_SHOWTOPO_BLOCK };

struct golden_showtopo_rec {
	enum golden_showtopo_kind kind;
	char topology[64]; /* the topology it came from ("" before 25.05) */
	char name[128];
	int level;                       /* switches */
	struct golden_hostlist nodes;    /* expanded */
	struct golden_hostlist children; /* switches: Switches= expanded */
	int block_size;                  /* blocks: BlockSize= (24.11+), 0 unknown */
};

struct golden_showtopo {
	struct golden_showtopo_rec *r;
	int n;
	int nswitches, nblocks;
};

/* Parse one `scontrol show topology` output (topology names its records).
 * Aggregated blocks are skipped (they follow from the base blocks). Lines
 * that are not records (a "no topology" message) are ignored. Returns the
 * number of records added, or -1 with err (a bad host list). */
int golden_showtopo_parse(struct golden_showtopo *st, const char *text, const char *topology,
                          struct golden_err *err);

/* The topology names in `scontrol show topoconf` output ("- topology: x").
 * Writes up to max names of 64 bytes; returns how many. */
int golden_showtopo_names(const char *topoconf, char (*names)[64], int max);

void golden_showtopo_free(struct golden_showtopo *st);

#endif
