#include "util/strutil.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

int golden_parse_ll(const char *s, long long min, long long max, long long *out)
{
	char *end;
	long long n;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	n = strtoll(s, &end, 10);
	if (errno || *end || n < min || n > max)
		return -1;
	*out = n;
	return 0;
}

int golden_parse_int(const char *s, int min, int max, int *out)
{
	long long n;

	if (golden_parse_ll(s, min, max, &n) < 0)
		return -1;
	*out = (int)n;
	return 0;
}

int golden_strlcpy(char *dst, const char *src, size_t len)
{
	size_t n = strlen(src);

	if (len == 0)
		return -1;
	if (n >= len) {
		memcpy(dst, src, len - 1);
		dst[len - 1] = '\0';
		return -1;
	}
	memcpy(dst, src, n + 1);
	return 0;
}

int golden_strlcat(char *dst, const char *src, size_t len)
{
	size_t used = strnlen(dst, len);

	if (used == len)
		return -1;
	return golden_strlcpy(dst + used, src, len - used);
}

int golden_natcmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			const char *sa = a, *sb = b;
			size_t la, lb;
			int c;

			while (*sa == '0' && isdigit((unsigned char)sa[1]))
				sa++;
			while (*sb == '0' && isdigit((unsigned char)sb[1]))
				sb++;
			for (a = sa; isdigit((unsigned char)*a); a++)
				;
			for (b = sb; isdigit((unsigned char)*b); b++)
				;
			la = (size_t)(a - sa);
			lb = (size_t)(b - sb);
			if (la != lb)
				return la < lb ? -1 : 1;
			c = strncmp(sa, sb, la);
			if (c)
				return c;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	return *a ? 1 : (*b ? -1 : 0);
}

char *golden_rtrim(char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

char *golden_strip_slashes(char *s)
{
	size_t n = strlen(s);

	while (n > 1 && s[n - 1] == '/')
		s[--n] = '\0';
	return s;
}

bool golden_is_safe_name(const char *s, size_t maxlen)
{
	size_t n = 0;

	if (!s || !*s)
		return false;
	for (; *s; s++, n++) {
		if (n >= maxlen)
			return false;
		if (!isalnum((unsigned char)*s) && *s != '.' && *s != '_' && *s != '-')
			return false;
	}
	return true;
}

bool golden_str_startswith(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

unsigned golden_fnv1a(const char *s)
{
	unsigned h = 2166136261u;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 16777619u;
	}
	return h;
}

bool golden_list_has(const char *list, char sep, const char *item)
{
	size_t n = strlen(item);

	if (!n)
		return false;
	for (const char *p = list; (p = strstr(p, item)); p += n)
		if ((p == list || p[-1] == sep) && (p[n] == sep || p[n] == '\0' || p[n] == '\n'))
			return true;
	return false;
}
