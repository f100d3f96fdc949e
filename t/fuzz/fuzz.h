/* Shared by the libFuzzer harnesses in t/fuzz (see README.md): the input as
 * a NUL-terminated string, split into parts, and a scratch directory for
 * parsers that only take a path. */
#ifndef GOLDEN_FUZZ_H
#define GOLDEN_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A malloc'd NUL-terminated copy (embedded NULs end it early). */
char *fuzz_string(const uint8_t *data, size_t size);

/* Split s in place at each sep into at most max parts; returns how many. */
int fuzz_split(char *s, char sep, char **parts, int max);

/* Write data to NAME in a scratch directory made once per process (removed
 * at exit) and return its path. */
const char *fuzz_file(const char *name, const uint8_t *data, size_t size);

#endif
