#include "option.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strutil.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Append the recipe names found in dir to buf, sorted; returns how many, -1
 * if the directory cannot be read. Also reports whether name is among them. */
static int list_recipes(const char *dir, const char *name, bool *found, char *buf, size_t len)
{
	DIR *d = dir ? opendir(dir) : NULL;
	struct dirent *de;
	char *names[256];
	int n = 0;

	*found = false;
	if (!d)
		return -1;
	while ((de = readdir(d)) && n < 256) {
		size_t l = strlen(de->d_name);

		if (l <= 5 || l - 5 >= 64 || strcmp(de->d_name + l - 5, ".json") ||
		    de->d_name[0] == '.')
			continue;
		names[n] = strndup(de->d_name, l - 5);
		if (names[n])
			n++;
	}
	closedir(d);
	qsort(names, (size_t)n, sizeof(names[0]), cmp_str);
	for (int i = 0; i < n; i++) {
		if (name && !strcmp(names[i], name))
			*found = true;
		golden_strlcat(buf, ", ", len);
		golden_strlcat(buf, names[i], len);
		free(names[i]);
	}
	return n;
}

int golden_mode_parse(const char *value, const char *recipes_dir, struct golden_mode_opt *out,
                      char *msg, size_t msglen)
{
	char names[1024] = "";
	bool found;
	int n;

	memset(out, 0, sizeof(*out));
	/* Slurm hands a nested srun a value-less option from the batch
	 * environment as the string "(null)". */
	if (!value || !*value || !strcmp(value, "(null)") || !strcmp(value, "auto") ||
	    !strcmp(value, "on")) {
		out->mode = GOLDEN_MODE_AUTO;
		return 0;
	}
	if (!strcmp(value, "off")) {
		out->mode = GOLDEN_MODE_OFF;
		return 0;
	}
	if (!strcmp(value, "verbose")) {
		out->mode = GOLDEN_MODE_VERBOSE;
		return 0;
	}
	n = list_recipes(recipes_dir, value, &found, names, sizeof(names));
	if (golden_is_safe_name(value, sizeof(out->recipe) - 1) && value[0] != '.' &&
	    (found || n < 0)) {
		out->mode = GOLDEN_MODE_RECIPE;
		golden_strlcpy(out->recipe, value, sizeof(out->recipe));
		return 0;
	}
	snprintf(msg, msglen,
	         "--golden-nccl=%s: invalid value; valid values: auto, off, verbose, or a recipe "
	         "name%s%s%s",
	         value, n > 0 ? " (" : "", n > 0 ? names + 2 : "", n > 0 ? ")" : "");
	return -1;
}
