/* A growing string: generated files (topology.conf, reports) are built in
 * memory, compared with what is on disk and written in one go. */
#ifndef GOLDEN_UTIL_STRBUF_H
#define GOLDEN_UTIL_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

struct golden_strbuf {
	char *p; /* NUL-terminated once anything was added; NULL before */
	size_t len, cap;
	bool oom; /* an append failed: the content is incomplete */
};

/* Append printf-style. On out of memory, sets oom and keeps what it had. */
void golden_strbuf_printf(struct golden_strbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Append n bytes of s. */
void golden_strbuf_add(struct golden_strbuf *b, const char *s, size_t n);

/* The text, "" when empty (never NULL). */
const char *golden_strbuf_str(const struct golden_strbuf *b);

void golden_strbuf_free(struct golden_strbuf *b);

#endif
