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

int golden_gnuplot_find(const char *hint, char *buf, size_t len)
{
	const char *env = getenv("GOLDEN_GNUPLOT");

	if (hint && hint[0])
		return golden_child_which(hint, buf, len);
	if (env && env[0])
		return env[0] == '/' ? golden_child_which(env, buf, len) : -1;
	return golden_child_which("gnuplot", buf, len);
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
