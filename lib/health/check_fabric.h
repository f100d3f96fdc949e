/* Fabric health checks (check_fabric.c): ib-ports, ib-counters, efa,
 * bootstrap, gpudirect. The check table itself is golden_fabric_checks[] in
 * check.h; this header holds what other modules may reuse. */
#ifndef GOLDEN_HEALTH_CHECK_FABRIC_H
#define GOLDEN_HEALTH_CHECK_FABRIC_H

#include <stddef.h>

/* File under ctx->state_dir where ib-counters keeps the last run's values. */
#define GOLDEN_IB_COUNTERS_STATE "ib-counters.json"

/* Is GPUDirect RDMA possible on this node, as far as sysfs/procfs under root
 * tell? Returns 1 and a short description of the mechanism in how
 * ("nvidia_peermem 550.54.15", "dma-buf (open kernel module, kernel 6.5)"),
 * or 0 with what was missing in how. */
int golden_fabric_gdr_available(const char *root, char *how, size_t len);

#endif
