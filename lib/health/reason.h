/* Drain reasons golden writes and recognises. The component and fault come
 * first, because `sinfo -R` shows only the first 20 characters; a fixed
 * marker at the end says the drain is golden's, so golden only ever resumes
 * or rewrites reasons it wrote (the NHC "NHC:" convention, at the end so it
 * does not eat the 20 characters). */
#ifndef GOLDEN_HEALTH_REASON_H
#define GOLDEN_HEALTH_REASON_H

#include <stdbool.h>
#include <stddef.h>

#include "health/check_run.h"

#define GOLDEN_REASON_MARKER "[golden]"
#define GOLDEN_REASON_MAX    160

/* Replace anything but printable ASCII with '_' (reasons reach scontrol,
 * logs and terminals). */
void golden_reason_sanitize(char *s);

/* "gpu3 xid79 offbus +1 more; reboot [golden]" from the worst outcome.
 * Returns 0, or -1 if nothing failed. */
int golden_reason_format(const struct golden_run_report *rep, char *buf, size_t len);

/* Did golden write this reason? (Slurm may append " [user@time]".) */
bool golden_reason_is_ours(const char *reason);

#endif
