#include <config.h>

#include "util/mounts.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strutil.h"
#include "util/sysroot.h"

static int octal(char c)
{
	return c >= '0' && c <= '7' ? c - '0' : -1;
}

void golden_mount_unescape(char *s)
{
	char *w = s;

	/* The kernel writes space, tab, newline and backslash as \ooo
	 * (fs/proc_namespace.c mangle()); anything else is literal. */
	while (*s) {
		if (s[0] == '\\' && octal(s[1]) >= 0 && octal(s[2]) >= 0 && octal(s[3]) >= 0) {
			*w++ = (char)(octal(s[1]) * 64 + octal(s[2]) * 8 + octal(s[3]));
			s += 4;
		} else {
			*w++ = *s++;
		}
	}
	*w = '\0';
}

bool golden_mount_has_opt(const struct golden_mount *m, const char *opt)
{
	return golden_list_has(m->opts, ',', opt);
}

int golden_mounts_each(const char *sysroot, int (*fn)(const struct golden_mount *m, void *arg),
                       void *arg)
{
	static const char *const tables[] = {"/proc/self/mounts", "/proc/mounts"};
	char path[PATH_MAX];
	FILE *f = NULL;
	char *line = NULL;
	size_t cap = 0;
	int stop = 0;

	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]) && !f; i++)
		if (golden_sys_path(sysroot, tables[i], path, sizeof(path)) == 0)
			f = fopen(path, "re");
	if (!f)
		return -1;
	/* getline: an overlay mount's options can be longer than any fixed line. */
	while (!stop && getline(&line, &cap, f) >= 0) {
		struct golden_mount m;
		char *save = NULL, *point, *type, *opts;

		m.src = strtok_r(line, " \t\n", &save);
		point = m.src ? strtok_r(NULL, " \t\n", &save) : NULL;
		if (!point)
			continue;
		type = strtok_r(NULL, " \t\n", &save);
		opts = type ? strtok_r(NULL, " \t\n", &save) : NULL;
		golden_mount_unescape(point);
		m.point = point;
		m.type = type ? type : "";
		m.opts = opts ? opts : "";
		stop = fn(&m, arg);
	}
	free(line);
	fclose(f);
	return 0;
}
