/* Multi-node NVLink (MNNVL) needs an IMEX channel device the job can open;
 * without one CUDA fails with "Cuda failure 800" at the first fabric
 * allocation, far from the cause. */
#ifndef GOLDEN_ENV_IMEX_H
#define GOLDEN_ENV_IMEX_H

#include <stdbool.h>
#include <stddef.h>

#include "env/decision.h"

#define GOLDEN_IMEX_DIR "/dev/nvidia-caps-imex-channels"

/* Does RES turn MNNVL on (NCCL_MNNVL_ENABLE set and not 0)? */
bool golden_imex_wanted(const struct golden_decision *res);

/* Look for GOLDEN_IMEX_DIR/channel* below SYSROOT (NULL: the real root) that
 * the caller can open read-write. Returns 1 when one is there (msg names it),
 * 0 when none is (msg says what is missing and how it shows up). */
int golden_imex_check(const char *sysroot, char *msg, size_t len);

#endif
