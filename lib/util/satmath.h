/* Saturating arithmetic on values read from files and the kernel: a time
 * or a counter from a damaged file must not overflow a signed type
 * (undefined behaviour) and turn into a wrong verdict. */
#ifndef GOLDEN_UTIL_SATMATH_H
#define GOLDEN_UTIL_SATMATH_H

#include <limits.h>

static inline long long golden_sat_add(long long a, long long b)
{
	long long r;

	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? LLONG_MAX : LLONG_MIN;
	return r;
}

static inline long long golden_sat_sub(long long a, long long b)
{
	long long r;

	if (__builtin_sub_overflow(a, b, &r))
		return b < 0 ? LLONG_MAX : LLONG_MIN;
	return r;
}

static inline long long golden_sat_mul(long long a, long long b)
{
	long long r;

	if (__builtin_mul_overflow(a, b, &r))
		return (a < 0) != (b < 0) ? LLONG_MIN : LLONG_MAX;
	return r;
}

#endif
