#include "util/errbuf.h"

#include <stdarg.h>
#include <stdio.h>

int golden_err_set(struct golden_err *err, const char *fmt, ...)
{
	va_list ap;

	if (!err || err->msg[0])
		return -1;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}
