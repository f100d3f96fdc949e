/* The stall probe's checks: `wb-stall`, `wb-exposure` and `teardown`. */
#ifndef GOLDEN_STALL_CHECK_KERNEL_H
#define GOLDEN_STALL_CHECK_KERNEL_H

#include "health/check.h"

extern const struct golden_check golden_kernel_checks[]; /* terminated by { NULL } */

/* wb-stall's kernel-log cursor: GOLDEN_KMSG_CURSOR in this folder of the
 * state directory (the xid check keeps its own in the state directory). */
#define GOLDEN_STALL_CURSOR_DIR "stall"

#endif
