/* Slurm's topology files, per Slurm version: topology.conf for
 * topology/tree (SwitchName= Nodes=|Switches=, every version) and
 * topology/block (BlockName= Nodes=, with BlockLevels= in 23.11 and
 * BlockSizes= from 24.05), and topology.yaml (25.05+) holding a tree and a
 * block topology together. Every file opens with a comment saying what was
 * discovered, when and from which inputs; comparing two files ignores
 * comments, so a regeneration that changes only the header is "unchanged"
 * and never triggers a reconfigure. */
#ifndef GOLDEN_FABRIC_TOPOCONF_H
#define GOLDEN_FABRIC_TOPOCONF_H

#include <stdbool.h>

#include "util/errbuf.h"
#include "util/strbuf.h"

struct golden_tree;
struct golden_blocks;
struct golden_facts;

struct golden_slurm_version {
	int major, minor; /* 24, 11 */
};

/* "24.11", "24.11.5", "slurm 24.11.5", "slurm-wlm 24.11.5-1". Returns 0 or -1. */
int golden_slurm_version_parse(const char *s, struct golden_slurm_version *v);

/* v >= major.minor */
bool golden_slurm_version_at_least(struct golden_slurm_version v, int major, int minor);

/* What the version offers. */
bool golden_slurm_has_block(struct golden_slurm_version v);       /* 23.11+ */
bool golden_slurm_has_block_sizes(struct golden_slurm_version v); /* 24.05+ */
bool golden_slurm_has_yaml(struct golden_slurm_version v);        /* 25.05+ */
/* 24.05 and 24.11: a block with fewer known nodes than the base is fatal. */
bool golden_slurm_short_block_fatal(struct golden_slurm_version v);

/* Writers: append the body (no header) to out. facts names the nodes. */
void golden_topoconf_tree(struct golden_strbuf *out, const struct golden_tree *t,
                          const struct golden_facts *f);
void golden_topoconf_block(struct golden_strbuf *out, const struct golden_blocks *bl,
                           const struct golden_facts *f, struct golden_slurm_version v);
/* tree and blocks may each be NULL (not both); default_block: the block
 * topology is cluster_default (else the tree). */
void golden_topoconf_yaml(struct golden_strbuf *out, const struct golden_tree *t,
                          const struct golden_blocks *bl, const struct golden_facts *f,
                          bool default_block);

/* The names golden gives its topologies in topology.yaml. */
#define GOLDEN_TOPO_YAML_TREE  "fabric"
#define GOLDEN_TOPO_YAML_BLOCK "nvlink"

/* Append each line prefixed with "# " (a NULL-terminated array). */
void golden_topoconf_comment(struct golden_strbuf *out, const char *const *lines);

/* Do a and b say the same to Slurm? Compares lines that are not comments
 * or blank, with trailing white space ignored. */
bool golden_topoconf_same(const char *a, const char *b);

#endif
