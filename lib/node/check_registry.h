/* The registry of built-in checks: find one by name, select those enabled
 * for a phase after golden.conf's overrides. */
#ifndef GOLDEN_NODE_CHECK_REGISTRY_H
#define GOLDEN_NODE_CHECK_REGISTRY_H

#include "health/check.h"
#include "health/check_run.h"
#include "health/golden_conf.h"

/* Every built-in check enabled for ctx->phase (after conf overrides), in
 * registry order. Returns the count. */
int golden_checks_select(const struct golden_conf *conf, enum golden_phase phase,
                         const struct golden_check **list, int max);

/* Find a built-in check by name. */
const struct golden_check *golden_check_find(const char *name);

#endif
