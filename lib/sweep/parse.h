/* Reading nccl-tests output into a golden_sweep_set.
 *
 * Text, every generation (FORMATS.md in the research notes; formats from
 * NVIDIA/nccl-tests history): the 2017 layout (times in ms, `res`), the
 * float `error` column (2019-03 to 2022-08, with or without redop/root),
 * the integer `#wrong` column (2022-08 on, printed %g), the 2025 layout
 * (version line, `Collective test starting/concluded`, wider `#wrong`),
 * the 2026 `unalign:` field and git hash, -I per-iteration and -S timestamp
 * columns, step-by-bytes sweeps. Columns are read from the right, as the
 * header names them, so a blank redop or a hand-made label column is never
 * taken for a size.
 *
 * What real logs contain is tolerated and reported: srun `-l` (`0: `),
 * Open MPI `[1,0]<stdout>:` and `[0] ` prefixes, indentation and a lost
 * leading '#', NCCL INFO/WARN lines between rows and even inside a row (the
 * pieces are joined), blank lines, a missing header, `...` elisions,
 * several runs per file, a last row cut short (counted in the run, never
 * dropped silently), failure lines, and golden sweep run's own
 * `# golden-sweep:` lines that say what each run was.
 *
 * JSON (-J FILE, 2025-10 on) is recognised by its first character and read
 * with json-c, accepting the first version's `bandwidith` misspelling. */
#ifndef GOLDEN_SWEEP_PARSE_H
#define GOLDEN_SWEEP_PARSE_H

#include <stddef.h>

#include "sweep/sweep.h"
#include "util/errbuf.h"

#define GOLDEN_SWEEP_MAX_FILE (64L * 1024 * 1024)

/* Parse LEN bytes of NAME (text or JSON) into SET. Returns the number of
 * runs found (0: nothing nccl-tests printed), or -1 with err set (out of
 * memory, JSON that does not parse). */
int golden_sweep_parse_buffer(const char *buf, size_t len, const char *name,
                              struct golden_sweep_set *set, struct golden_err *err);

/* Read PATH (at most GOLDEN_SWEEP_MAX_FILE bytes) and parse it. Returns as
 * golden_sweep_parse_buffer, or -1 with err naming the file when it cannot
 * be read. */
int golden_sweep_parse_file(const char *path, struct golden_sweep_set *set, struct golden_err *err);

/* The JSON reader (parse_json.c); FILE is the index in set->files. */
int golden_sweep_parse_json(const char *buf, size_t len, int file, struct golden_sweep_set *set,
                            struct golden_err *err);

#endif
