/* Helpers for the harnesses (fuzz.h). */
#include <config.h>

#include "t/fuzz/fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *fuzz_string(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

int fuzz_split(char *s, char sep, char **parts, int max)
{
	int n = 0;

	while (n < max) {
		char *e = strchr(s, sep);

		parts[n++] = s;
		if (!e)
			break;
		*e = '\0';
		s = e + 1;
	}
	return n;
}

static char scratch[64], path[128];

static void cleanup(void)
{
	unlink(path);
	rmdir(scratch);
}

const char *fuzz_file(const char *name, const uint8_t *data, size_t size)
{
	FILE *f;

	if (!scratch[0]) {
		const char *tmp = getenv("TMPDIR");

		snprintf(scratch, sizeof(scratch), "%s/golden-fuzz-XXXXXX",
		         tmp && strlen(tmp) < 32 ? tmp : "/tmp");
		if (!mkdtemp(scratch))
			abort();
		atexit(cleanup);
	}
	snprintf(path, sizeof(path), "%s/%s", scratch, name);
	f = fopen(path, "w");
	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
		abort();
	return path;
}
