#include <config.h>

#include "util/gnuplot.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "util/child.h"
#include "util/strutil.h"

enum golden_gnuplot_format golden_gnuplot_format(const char *path)
{
	size_t n = path ? strlen(path) : 0;

	if (n > 4 && !strcasecmp(path + n - 4, ".svg"))
		return GOLDEN_GNUPLOT_SVG;
	if (n > 4 && !strcasecmp(path + n - 4, ".png"))
		return GOLDEN_GNUPLOT_PNG;
	return GOLDEN_GNUPLOT_NONE;
}

/* name on PATH (absolute entries only: a relative one would depend on the
 * cwd), or name itself when it holds a '/' (then it must be absolute). */
static int which(const char *name, char *buf, size_t len)
{
	const char *path = getenv("PATH");

	if (strchr(name, '/'))
		return name[0] == '/' && golden_strlcpy(buf, name, len) == 0 &&
		               access(buf, X_OK) == 0
		           ? 0
		           : -1;
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");

		if (n && path[0] == '/' && n + strlen(name) + 2 <= len) {
			snprintf(buf, len, "%.*s/%s", (int)n, path, name);
			if (access(buf, X_OK) == 0)
				return 0;
		}
		path += n;
		if (*path == ':')
			path++;
	}
	return -1;
}

int golden_gnuplot_find(const char *hint, char *buf, size_t len)
{
	const char *env = getenv("GOLDEN_GNUPLOT");

	if (hint && hint[0])
		return which(hint, buf, len);
	if (env && env[0])
		return env[0] == '/' ? which(env, buf, len) : -1;
	return which("gnuplot", buf, len);
}

bool golden_gnuplot_path_ok(const char *path)
{
	for (const char *p = path; *p; p++)
		if (*p < 0x20 || *p > 0x7e || *p == '\'' || *p == '"' || *p == '\\')
			return false;
	return path[0] != '\0';
}

void golden_gnuplot_quote(const char *s, char *buf, size_t len)
{
	size_t w = 0;

	for (; *s && w + 3 < len; s++) {
		char c = (*s < 0x20 || *s > 0x7e) ? '_' : *s;

		if (c == '\'')
			buf[w++] = '\'';
		buf[w++] = c;
	}
	buf[w] = '\0';
}

int golden_gnuplot_run(const char *hint, const char *script, struct golden_err *err)
{
	char gp[PATH_MAX];
	char *argv[3];
	int rc;

	if (golden_gnuplot_find(hint, gp, sizeof(gp)) < 0)
		return golden_err_set(
		    err,
		    "gnuplot not found (install it: apt-get install "
		    "--no-install-recommends gnuplot-nox, or set GOLDEN_GNUPLOT); "
		    "the data and script are written: gnuplot %s draws them",
		    script);
	argv[0] = gp;
	argv[1] = (char *)script;
	argv[2] = NULL;
	rc = golden_child_capture(argv, NULL, 0, GOLDEN_GNUPLOT_DEADLINE_MS);
	if (rc != 0)
		return golden_err_set(
		    err, "%s %s %s", gp, script,
		    rc < 0 ? "did not finish within its deadline or could not start" : "failed");
	return 0;
}
