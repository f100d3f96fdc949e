/* The stall probe's checks: `wb-stall`, `wb-exposure` and `teardown`. */
#ifndef GOLDEN_STALL_CHECK_KERNEL_H
#define GOLDEN_STALL_CHECK_KERNEL_H

#include "health/check.h"

extern const struct golden_check golden_kernel_checks[]; /* terminated by { NULL } */

#endif
