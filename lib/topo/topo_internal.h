/* Discovery steps shared by the topo_*.c files. */
#ifndef GOLDEN_TOPO_TOPO_INTERNAL_H
#define GOLDEN_TOPO_TOPO_INTERNAL_H

#include "util/errbuf.h"
#include "topo/topo.h"

/* hwloc: GPUs, NVSwitches, RDMA devices and PCI netdevs, NUMA nodes and the
 * GPU x NIC locality matrix. */
int golden_topo_load_hwloc(const struct golden_topo_opts *opts, struct golden_topo *topo,
                           struct golden_err *err);

/* sysfs/procfs: HCA ports, netdevs (adding those hwloc does not know, such
 * as virtual ones), addresses and routes, DMI product name. */
void golden_topo_read_sysfs(const char *sysroot, struct golden_topo *topo);

/* Index of the nic named name, or -1. */
int golden_topo_find_nic(const struct golden_topo *topo, const char *name);

#endif
