/* Topology facts: the named values recipe templates may reference, e.g.
 * "{compute_hcas}". Facts are pure functions of a struct golden_topo. */
#ifndef GOLDEN_ENV_FACTS_H
#define GOLDEN_ENV_FACTS_H

#include <stdbool.h>
#include <stddef.h>

#include "topo/topo.h"

struct golden_fact_info {
	const char *name;
	const char *help; /* one line for `golden recipe --help` and lint messages */
};

/* The table of known facts, terminated by { NULL, NULL }. */
extern const struct golden_fact_info golden_facts[];

bool golden_fact_known(const char *name);

/* Render fact NAME for TOPO into buf. Returns 0 (buf may be "" when the
 * fact has no value on this node, e.g. no RoCE GID) or -1 if NAME is
 * unknown or the value does not fit. */
int golden_fact_value(const struct golden_topo *topo, const char *name, char *buf, size_t len);

/* Facts that take an argument, written {name:arg} (only pci_netdevs). */
bool golden_fact_takes_arg(const char *name);

/* golden_fact_value, or for a fact that takes one, its value for ARG.
 * -1 when ARG is given to a fact without one or missing for one with. */
int golden_fact_value_arg(const struct golden_topo *topo, const char *name, const char *arg,
                          char *buf, size_t len);

/* Plain Ethernet netdevs PIX/PXB to a GPU (the gpu_eth_count fact). */
int golden_fact_gpu_eth_count(const struct golden_topo *topo);

/* The node's compute fabric kind: "ib", "roce", "efa" or "none". A node with
 * both IB and RoCE compute devices takes the majority (a tie counts as ib). */
const char *golden_fact_compute_kind(const struct golden_topo *topo);

/* A compute RDMA device: class COMPUTE and kind IB, RoCE or EFA. */
bool golden_fact_nic_is_compute_rdma(const struct golden_nic *nic);

/* Number of compute RDMA devices (the compute_nic_count fact). */
int golden_fact_compute_nic_count(const struct golden_topo *topo);

/* The link layer every port of every compute RDMA device has: "InfiniBand"
 * or "Ethernet"; "" when there are none, they differ, or it is unknown.
 * A port with no link layer recorded takes its device's kind (IB/RoCE). */
const char *golden_fact_compute_link_layer(const struct golden_topo *topo);

#endif
