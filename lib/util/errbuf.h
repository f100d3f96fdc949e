/* One actionable error line, filled by whoever failed first. */
#ifndef GOLDEN_UTIL_ERRBUF_H
#define GOLDEN_UTIL_ERRBUF_H

#include <stddef.h>

struct golden_err {
	char msg[1024];
};

/* Set err->msg (printf-style) unless err is NULL or already set; returns -1
 * so callers can write `return golden_err_set(err, ...)`. */
int golden_err_set(struct golden_err *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
