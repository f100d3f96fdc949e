#include <config.h>

#include "util/nodename.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/strutil.h"

void golden_nodename_get(const char *opt, char *buf, size_t len)
{
	if (opt)
		golden_strlcpy(buf, opt, len);
	else if (getenv("SLURMD_NODENAME"))
		golden_strlcpy(buf, getenv("SLURMD_NODENAME"), len);
	else if (gethostname(buf, len) < 0)
		golden_strlcpy(buf, "localhost", len);
	buf[len - 1] = '\0';
}

int golden_nodename_expand(const char *tmpl, const char *node, char *out, size_t len,
                           struct golden_err *err)
{
	size_t o = 0;

	for (const char *p = tmpl; *p; p++) {
		const char *piece;
		size_t plen;
		char one[2] = {0, 0};

		if (p[0] == '%' && p[1] == 'n') {
			if (!node || !golden_is_safe_name(node, 64) || node[0] == '.')
				return golden_err_set(err,
				                      "%s: %%n needs the Slurm node name, got '%s'",
				                      tmpl, node ? node : "(none)");
			piece = node;
			p++;
		} else if (p[0] == '%' && p[1] == '%') {
			piece = "%";
			p++;
		} else {
			one[0] = *p;
			piece = one;
		}
		plen = strlen(piece);
		if (o + plen >= len)
			return golden_err_set(err, "%s: expanded path too long", tmpl);
		memcpy(out + o, piece, plen);
		o += plen;
	}
	out[o] = '\0';
	return 0;
}
