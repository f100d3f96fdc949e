/* `scontrol show topology` output: see showtopo.h. */
#include <config.h>

#include "fabric/showtopo.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strutil.h"

/* Value of key= in a record line (up to the next space), into buf. */
static bool field(const char *line, const char *key, char *buf, size_t len)
{
	size_t kl = strlen(key);
	const char *p = line;

	while ((p = strstr(p, key))) {
		if ((p == line || p[-1] == ' ') && p[kl] == '=') {
			const char *v = p + kl + 1;
			size_t n = strcspn(v, " \t\r\n");

			if (n >= len)
				n = len - 1;
			memcpy(buf, v, n);
			buf[n] = '\0';
			return true;
		}
		p += kl;
	}
	return false;
}

int golden_showtopo_parse(struct golden_showtopo *st, const char *text, const char *topology,
                          struct golden_err *err)
{
	const char *line = text;
	int added = 0;

	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char *buf = strndup(line, len);
		char val[128], *list = NULL;
		struct golden_showtopo_rec *r, *nr;
		bool sw;

		line = nl ? nl + 1 : NULL;
		if (!buf)
			return golden_err_set(err, "out of memory");
		sw = !strncmp(buf, "SwitchName=", 11);
		if (!sw && strncmp(buf, "BlockName=", 10)) {
			free(buf); /* AggregatedBlock=, messages */
			continue;
		}
		nr = realloc(st->r, (size_t)(st->n + 1) * sizeof(*nr));
		if (!nr) {
			free(buf);
			return golden_err_set(err, "out of memory");
		}
		st->r = nr;
		r = &st->r[st->n++];
		memset(r, 0, sizeof(*r));
		r->kind = sw ? GOLDEN_SHOWTOPO_SWITCH : GOLDEN_SHOWTOPO_BLOCK;
		golden_strlcpy(r->topology, topology ? topology : "", sizeof(r->topology));
		field(buf, sw ? "SwitchName" : "BlockName", r->name, sizeof(r->name));
		if (field(buf, "Level", val, sizeof(val)))
			r->level = atoi(val);
		if (field(buf, "BlockSize", val, sizeof(val)))
			r->block_size = atoi(val);
		list = malloc(len + 1);
		if (!list) {
			free(buf);
			return golden_err_set(err, "out of memory");
		}
		if (field(buf, "Nodes", list, len + 1) &&
		    golden_hostlist_expand(list, &r->nodes, err) < 0) {
			free(list);
			free(buf);
			return -1;
		}
		if (sw && field(buf, "Switches", list, len + 1) &&
		    golden_hostlist_expand(list, &r->children, err) < 0) {
			free(list);
			free(buf);
			return -1;
		}
		free(list);
		free(buf);
		if (sw)
			st->nswitches++;
		else
			st->nblocks++;
		added++;
	}
	return added;
}

int golden_showtopo_names(const char *topoconf, char (*names)[64], int max)
{
	const char *p = topoconf;
	int n = 0;

	while (p && *p && n < max) {
		const char *nl = strchr(p, '\n'), *s = p;
		size_t k;

		while (*s == ' ' || *s == '\t' || *s == '-')
			s++;
		if (!strncmp(s, "topology:", 9)) {
			s += 9;
			while (*s == ' ' || *s == '"' || *s == '\'')
				s++;
			k = strcspn(s, "\"' \t\r\n");
			if (k && k < 64) {
				memcpy(names[n], s, k);
				names[n][k] = '\0';
				n++;
			}
		}
		p = nl ? nl + 1 : NULL;
	}
	return n;
}

void golden_showtopo_free(struct golden_showtopo *st)
{
	for (int i = 0; i < st->n; i++) {
		golden_hostlist_free(&st->r[i].nodes);
		golden_hostlist_free(&st->r[i].children);
	}
	free(st->r);
	memset(st, 0, sizeof(*st));
}
