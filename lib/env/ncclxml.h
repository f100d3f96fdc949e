/* NCCL topology XML (NCCL_TOPO_FILE) generated from a pairing description:
 * which GPU shares a (fake) PCIe switch with which NIC on which NUMA node.
 * For VMs whose hypervisor flattens PCIe, so that NCCL sees each GPU and
 * its NIC at PIX again and uses GPUDirect RDMA. */
#ifndef GOLDEN_ENV_NCCLXML_H
#define GOLDEN_ENV_NCCLXML_H

#include <stdio.h>

#include "util/errbuf.h"

/* Read the pairing description PATH (JSON, see nccl-topo/README.md) and
 * write the XML to OUT. Returns 0, or -1 with err "PATH: KEY: ...". */
int golden_ncclxml_generate(const char *path, FILE *out, struct golden_err *err);

#endif
