/* Minimal TAP producer for the C unit tests (automake's tap-driver reads it). */
#ifndef GOLDEN_TAP_H
#define GOLDEN_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_n, tap_failed;

static inline void tap_vok(int cond, const char *fmt, va_list ap)
{
	tap_n++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - ", cond ? "" : "not ", tap_n);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
}

static inline __attribute__((format(printf, 2, 3))) int ok(int cond, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	tap_vok(cond, fmt, ap);
	va_end(ap);
	return cond;
}

/* String equality with a diagnostic showing both sides. */
static inline __attribute__((format(printf, 3, 4))) int is(const char *got, const char *want,
                                                           const char *fmt, ...)
{
	int cond = (got && want) ? strcmp(got, want) == 0 : got == want;
	va_list ap;
	va_start(ap, fmt);
	tap_vok(cond, fmt, ap);
	va_end(ap);
	if (!cond)
		printf("#   got:  '%s'\n#   want: '%s'\n", got ? got : "(null)",
		       want ? want : "(null)");
	return cond;
}

static inline __attribute__((format(printf, 3, 4))) int is_int(long got, long want, const char *fmt,
                                                               ...)
{
	va_list ap;
	va_start(ap, fmt);
	tap_vok(got == want, fmt, ap);
	va_end(ap);
	if (got != want)
		printf("#   got:  %ld\n#   want: %ld\n", got, want);
	return got == want;
}

static inline __attribute__((format(printf, 1, 2))) void diag(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("# ");
	vprintf(fmt, ap);
	putchar('\n');
	va_end(ap);
}

/* Print the plan and return the exit status. */
static inline int done_testing(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
