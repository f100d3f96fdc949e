/* Small string helpers the C library lacks. */
#ifndef GOLDEN_UTIL_STRUTIL_H
#define GOLDEN_UTIL_STRUTIL_H

#include <stdbool.h>
#include <stddef.h>

/* Copy with truncation, always NUL-terminated. Returns 0, or -1 if truncated. */
int golden_strlcpy(char *dst, const char *src, size_t len);

/* Append src to dst (of size len). Returns 0, or -1 if truncated. */
int golden_strlcat(char *dst, const char *src, size_t len);

/* Compare so that "mlx5_2" sorts before "mlx5_10". */
int golden_natcmp(const char *a, const char *b);

/* Trim trailing whitespace in place; returns s. */
char *golden_rtrim(char *s);

/* Drop a path's trailing slashes in place: "/lustre/" and "/lustre" are
 * the same mount point; "/" stays "/". Returns s. */
char *golden_strip_slashes(char *s);

/* True if s is a safe identifier: [A-Za-z0-9._-]+, at most maxlen chars. */
bool golden_is_safe_name(const char *s, size_t maxlen);

bool golden_str_startswith(const char *s, const char *prefix);

/* Is item one of the sep-separated words of list? ("rw,noatime", ',',
 * "noatime"; "cpu io memory", ' ', "io" -- but not "iommu".) */
bool golden_list_has(const char *list, char sep, const char *item);

/* A setting's number: decimal digits only (strtoll alone would also take
 * leading white space and a sign, so "\n-2" read as -2), within [min, max].
 * Returns 0 with *out set, or -1 (nothing written). Every bounded number in
 * golden.conf, plugstack.conf and the teardown options goes through here. */
int golden_parse_ll(const char *s, long long min, long long max, long long *out);
int golden_parse_int(const char *s, int min, int max, int *out);

/* 32-bit FNV-1a, for short fingerprints. */
unsigned golden_fnv1a(const char *s);

#endif
