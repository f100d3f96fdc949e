/* The switch tree Slurm's topology/tree plugin schedules on, built from an
 * ibnetdiscover graph and the gathered node facts.
 *
 * - Hosts are Slurm nodes matched by the port GUIDs they reported (only
 *   their compute rails when they have any): never by an adapter's
 *   NodeDescription, which is often "localhost", a model string or stale.
 *   SHARP aggregation nodes, UFM hosts and any adapter no node claims are
 *   not hosts.
 * - A leaf is a switch with hosts on it. Leaves that share most of their
 *   hosts (the rails of a rail-optimised scalable unit: one leaf per rail,
 *   the same hosts on each) become one Slurm leaf, so a node is under one
 *   leaf only; a host cabled to another group's leaf is reported.
 * - Above the leaves, levels grow outwards through the switch graph: units
 *   that reach a common switch, or touch each other, join. With
 *   GOLDEN_TREE_TOP (what Slurm's topology guide recommends: leaves plus one
 *   top switch) each connected region gets one top switch over its leaves;
 *   GOLDEN_TREE_ALL keeps every level (pods of a 3-tier fat tree).
 * - Separate fabrics stay separate: a top is only ever made over switches
 *   that are connected; nothing joins fabrics that cannot reach each other.
 */
#ifndef GOLDEN_FABRIC_TREE_H
#define GOLDEN_FABRIC_TREE_H

#include "fabric/facts.h"
#include "fabric/ibnet.h"
#include "util/errbuf.h"

enum golden_tree_levels { GOLDEN_TREE_TOP, GOLDEN_TREE_ALL };

struct golden_tree_unit {
	char name[72]; /* the SwitchName */
	int level;     /* 0: a leaf */
	int fabric;    /* ibnet fabric id of its first switch */
	int *nodes;    /* leaves: facts node indices, sorted by name */
	int nnodes;
	int *children; /* upper units: unit indices */
	int nchildren;
	int *members; /* the ibnet switches it stands for */
	int nmembers;
};

struct golden_tree_unplaced {
	int node; /* facts node index */
	char why[320];
};

struct golden_tree {
	struct golden_tree_unit *units; /* leaves first, by name; then upper units */
	int nunits, nleaves;
	int *leaf_of; /* facts node -> leaf unit, -1 not placed */
	int *top_of;  /* unit -> the top of its connected region (itself if alone) */
	struct golden_tree_unplaced *unplaced;
	int nunplaced;
	char **notes; /* lines for the file's header comment */
	int nnotes;
	int nfacts; /* facts nodes when built */
};

/* Build the tree. net must be finished (golden_ibnet_finish). Returns 0, or
 * -1 with err (out of memory). */
int golden_tree_build(const struct golden_ibnet *net, const struct golden_facts *facts,
                      enum golden_tree_levels levels, struct golden_tree *t,
                      struct golden_err *err);

void golden_tree_free(struct golden_tree *t);

#endif
