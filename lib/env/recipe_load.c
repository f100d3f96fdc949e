/* Reading recipe files: safe opening, JSON parsing with positions, and the
 * shape check that turns a JSON object into a struct golden_recipe. */
#include "env/recipe.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/strutil.h"

#define RECIPE_MAX_BYTES (256 * 1024)
#define RECIPE_NAME_MAX  64
#define TEXT_MAX         4096
#define PATTERN_MAX      127

/* Where we are: the file and the error to fill. */
struct ctx {
	const char *path;
	struct golden_err *err;
};

static int fail(struct ctx *c, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct ctx *c, const char *key, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return golden_err_set(c->err, "%s: %s: %s", c->path, key, msg);
}

/* ------------------------------------------------------------- opening */

/* Why ST may not hold recipes, or "" when it may. */
static void owner_problem(const struct stat *st, char *buf, size_t len)
{
	unsigned mode = (unsigned)st->st_mode & 07777;
	const char *w = (mode & 022) == 022 ? "group- and world-writable"
	                : (mode & 002)      ? "world-writable"
	                : (mode & 020)      ? "group-writable"
	                                    : NULL;
	int o = 0;

	buf[0] = '\0';
	if (st->st_uid != 0)
		o = snprintf(buf, len, "owned by uid %u", (unsigned)st->st_uid);
	if (w && o >= 0 && (size_t)o < len)
		snprintf(buf + o, len - (size_t)o, "%smode %04o is %s", o ? " and " : "", mode, w);
}

static int check_owner(const struct stat *st, const char *path, const char *what,
                       struct golden_err *err)
{
	char why[128];

	owner_problem(st, why, sizeof(why));
	if (!why[0])
		return 0;
	return golden_err_set(err,
	                      "%s: refusing %s: %s; recipes must be root-owned and not "
	                      "group/world-writable",
	                      path, what, why);
}

/* Read NAME (relative to DIRFD) without following a symlink and without a
 * window between the checks and the read: everything is asked of the fd. */
static int read_file(int dirfd, const char *name, const char *path, bool owner, char **out,
                     size_t *outlen, struct golden_err *err)
{
	struct stat st;
	char *buf = NULL;
	size_t n = 0;
	int fd;

	/* O_NONBLOCK: opening a FIFO must not hang; it is refused below. */
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		if (errno == ELOOP)
			return golden_err_set(err,
			                      "%s: refusing recipe: it is a symbolic link; install "
			                      "the file itself",
			                      path);
		return golden_err_set(err, "%s: cannot open: %s", path, strerror(errno));
	}
	if (fstat(fd, &st) < 0) {
		golden_err_set(err, "%s: cannot stat: %s", path, strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		golden_err_set(err, "%s: refusing recipe: not a regular file", path);
		goto fail;
	}
	if (owner && check_owner(&st, path, "recipe", err) < 0)
		goto fail;
	if (st.st_size > RECIPE_MAX_BYTES) {
		golden_err_set(err, "%s: recipe is %lld bytes; expected at most %d", path,
		               (long long)st.st_size, RECIPE_MAX_BYTES);
		goto fail;
	}
	buf = malloc(RECIPE_MAX_BYTES + 1);
	if (!buf) {
		golden_err_set(err, "%s: out of memory", path);
		goto fail;
	}
	/* Read to EOF, but never past the cap even if the file grows. */
	while (n <= RECIPE_MAX_BYTES) {
		ssize_t r = read(fd, buf + n, RECIPE_MAX_BYTES + 1 - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			golden_err_set(err, "%s: cannot read: %s", path, strerror(errno));
			goto fail;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (n > RECIPE_MAX_BYTES) {
		golden_err_set(err, "%s: recipe is over %d bytes; expected at most that", path,
		               RECIPE_MAX_BYTES);
		goto fail;
	}
	close(fd);
	buf[n] = '\0';
	*out = buf;
	*outlen = n;
	return 0;
fail:
	free(buf);
	close(fd);
	return -1;
}

/* ------------------------------------------------------------- parsing */

static void line_col(const char *buf, size_t off, int *line, int *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off; i++) {
		if (buf[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

/* json-c < 0.15 has no accessor for where parsing stopped. */
static size_t parse_end(struct json_tokener *tok)
{
#if JSON_C_VERSION_NUM >= ((0 << 16) | (15 << 8))
	return json_tokener_get_parse_end(tok);
#else
	return tok->char_offset < 0 ? 0 : (size_t)tok->char_offset;
#endif
}

static struct json_object *parse_json(struct ctx *c, const char *buf, size_t len)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *obj;
	enum json_tokener_error jerr;
	size_t end;
	int line, col;

	if (!tok) {
		golden_err_set(c->err, "%s: out of memory", c->path);
		return NULL;
	}
	if (len && memchr(buf, '\0', len)) {
		line_col(buf, (size_t)((const char *)memchr(buf, '\0', len) - buf), &line, &col);
		golden_err_set(c->err, "%s:%d:%d: invalid JSON: NUL byte", c->path, line, col);
		json_tokener_free(tok);
		return NULL;
	}
	obj = json_tokener_parse_ex(tok, buf, (int)len);
	jerr = json_tokener_get_error(tok);
	end = parse_end(tok);
	json_tokener_free(tok);
	if (!obj || jerr != json_tokener_success) {
		line_col(buf, end > len ? len : end, &line, &col);
		golden_err_set(c->err, "%s:%d:%d: invalid JSON: %s", c->path, line, col,
		               jerr == json_tokener_continue ? "unexpected end of file"
		                                             : json_tokener_error_desc(jerr));
		json_object_put(obj);
		return NULL;
	}
	for (size_t i = end; i < len; i++) {
		if (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r')
			continue;
		line_col(buf, i, &line, &col);
		golden_err_set(c->err,
		               "%s:%d:%d: invalid JSON: text after the recipe object; expected "
		               "one object per file",
		               c->path, line, col);
		json_object_put(obj);
		return NULL;
	}
	return obj;
}

static int check_keys(struct ctx *c, struct json_object *obj, const char *where,
                      const char *const *allowed, const char *expect)
{
	json_object_object_foreach(obj, key, val)
	{
		bool known = false;
		char k[256];

		(void)val;
		for (const char *const *a = allowed; *a; a++)
			known = known || !strcmp(*a, key);
		if (known)
			continue;
		snprintf(k, sizeof(k), "%s%s%s", where, where[0] ? "." : "", key);
		return fail(c, k, "unknown key; expected one of: %s", expect);
	}
	return 0;
}

static char *dup_text(struct ctx *c, struct json_object *v, const char *key, bool empty_ok)
{
	const char *s;
	char *d;

	if (!v) {
		fail(c, key, "missing; expected a string");
		return NULL;
	}
	if (!json_object_is_type(v, json_type_string)) {
		fail(c, key, "expected a string");
		return NULL;
	}
	s = json_object_get_string(v);
	if ((!empty_ok && !s[0]) || strlen(s) > TEXT_MAX) {
		fail(c, key, "expected a non-empty string of at most %d bytes", TEXT_MAX);
		return NULL;
	}
	d = strdup(s);
	if (!d)
		fail(c, key, "out of memory");
	return d;
}

static int parse_int(struct ctx *c, struct json_object *v, const char *key, int max, int *out)
{
	int64_t n;

	if (!json_object_is_type(v, json_type_int))
		return fail(c, key, "expected an integer 0-%d", max);
	n = json_object_get_int64(v);
	if (n < 0 || n > max)
		return fail(c, key, "%lld is out of range; expected an integer 0-%d", (long long)n,
		            max);
	*out = (int)n;
	return 0;
}

/* An integer (exact count) or {"min": N, "max": M}. */
static int parse_range(struct ctx *c, struct json_object *v, const char *key, int max,
                       struct golden_range *r)
{
	static const char *const keys[] = {"min", "max", NULL};
	struct json_object *lo = NULL, *hi = NULL;
	char k[64];

	r->set = true;
	if (json_object_is_type(v, json_type_int)) {
		if (parse_int(c, v, key, max, &r->min) < 0)
			return -1;
		r->max = r->min;
		return 0;
	}
	if (!json_object_is_type(v, json_type_object))
		return fail(c, key, "expected an integer 0-%d or {\"min\": N, \"max\": M}", max);
	if (check_keys(c, v, key, keys, "min, max") < 0)
		return -1;
	json_object_object_get_ex(v, "min", &lo);
	json_object_object_get_ex(v, "max", &hi);
	if (!lo && !hi)
		return fail(c, key, "empty range; expected {\"min\": N}, {\"max\": M} or both");
	r->min = 0;
	r->max = INT_MAX;
	snprintf(k, sizeof(k), "%s.min", key);
	if (lo && parse_int(c, lo, k, max, &r->min) < 0)
		return -1;
	snprintf(k, sizeof(k), "%s.max", key);
	if (hi && parse_int(c, hi, k, max, &r->max) < 0)
		return -1;
	if (r->min > r->max)
		return fail(c, key, "min %d is above max %d; expected min <= max", r->min, r->max);
	return 0;
}

static int parse_patterns(struct ctx *c, struct json_object *v, const char *key, char **pats,
                          int *n)
{
	size_t len;

	if (!json_object_is_type(v, json_type_array) || (len = json_object_array_length(v)) == 0 ||
	    len > GOLDEN_MAX_PATTERNS)
		return fail(c, key, "expected an array of 1-%d fnmatch patterns (strings)",
		            GOLDEN_MAX_PATTERNS);
	for (size_t i = 0; i < len; i++) {
		struct json_object *p = json_object_array_get_idx(v, i);
		const char *s = json_object_get_string(p);
		char k[64];

		snprintf(k, sizeof(k), "%s[%zu]", key, i);
		if (!json_object_is_type(p, json_type_string) || !s[0] || strlen(s) > PATTERN_MAX)
			return fail(c, k,
			            "expected a non-empty fnmatch pattern of at most %d bytes",
			            PATTERN_MAX);
		pats[i] = strdup(s);
		if (!pats[i])
			return fail(c, k, "out of memory");
		*n = (int)i + 1;
	}
	return 0;
}

static int parse_enum(struct ctx *c, struct json_object *v, const char *key,
                      const char *const *values, const char *expect, char **out)
{
	const char *s = json_object_get_string(v);

	if (json_object_is_type(v, json_type_string))
		for (const char *const *e = values; *e; e++)
			if (!strcmp(*e, s)) {
				*out = strdup(s);
				return *out ? 0 : fail(c, key, "out of memory");
			}
	return fail(c, key, "expected one of: %s", expect);
}

static int parse_bool(struct ctx *c, struct json_object *v, const char *key, int *out)
{
	if (!json_object_is_type(v, json_type_boolean))
		return fail(c, key, "expected true or false");
	*out = json_object_get_boolean(v) ? 1 : 0;
	return 0;
}

#define MATCH_KEYS                                                                                 \
	"gpu_model, gpu_count, compute_nic_kind, compute_nic_count, link_layer, nvswitch, "        \
	"pcie_flat, dmi_product_name, gpu_eth_count, bootstrap_if"

static int parse_match(struct ctx *c, struct json_object *m, struct golden_recipe *r)
{
	static const char *const keys[] = {
	    "gpu_model", "gpu_count", "compute_nic_kind", "compute_nic_count", "link_layer",
	    "nvswitch",  "pcie_flat", "dmi_product_name", "gpu_eth_count",     "bootstrap_if",
	    NULL};
	static const char *const kinds[] = {"ib", "roce", "efa", "none", NULL};
	static const char *const layers[] = {"InfiniBand", "Ethernet", NULL};
	struct golden_match *mt = &r->match;
	struct json_object *v;

	mt->nvswitch = mt->pcie_flat = mt->bootstrap_if = -1;
	if (!json_object_is_type(m, json_type_object))
		return fail(c, "match", "expected an object of rules ({} matches every node)");
	if (check_keys(c, m, "match", keys, MATCH_KEYS) < 0)
		return -1;
	if (json_object_object_get_ex(m, "gpu_model", &v) &&
	    parse_patterns(c, v, "match.gpu_model", mt->gpu_model, &mt->n_gpu_model) < 0)
		return -1;
	if (json_object_object_get_ex(m, "gpu_count", &v) &&
	    parse_range(c, v, "match.gpu_count", GOLDEN_MAX_GPUS, &mt->gpu_count) < 0)
		return -1;
	if (json_object_object_get_ex(m, "compute_nic_kind", &v) &&
	    parse_enum(c, v, "match.compute_nic_kind", kinds, "ib, roce, efa, none",
	               &mt->compute_nic_kind) < 0)
		return -1;
	if (json_object_object_get_ex(m, "compute_nic_count", &v) &&
	    parse_range(c, v, "match.compute_nic_count", GOLDEN_MAX_NICS, &mt->compute_nic_count) <
	        0)
		return -1;
	if (json_object_object_get_ex(m, "link_layer", &v) &&
	    parse_enum(c, v, "match.link_layer", layers, "InfiniBand, Ethernet", &mt->link_layer) <
	        0)
		return -1;
	if (json_object_object_get_ex(m, "nvswitch", &v) &&
	    parse_bool(c, v, "match.nvswitch", &mt->nvswitch) < 0)
		return -1;
	if (json_object_object_get_ex(m, "pcie_flat", &v) &&
	    parse_bool(c, v, "match.pcie_flat", &mt->pcie_flat) < 0)
		return -1;
	if (json_object_object_get_ex(m, "dmi_product_name", &v) &&
	    parse_patterns(c, v, "match.dmi_product_name", mt->dmi_product, &mt->n_dmi_product) < 0)
		return -1;
	if (json_object_object_get_ex(m, "gpu_eth_count", &v) &&
	    parse_range(c, v, "match.gpu_eth_count", GOLDEN_MAX_NICS, &mt->gpu_eth_count) < 0)
		return -1;
	if (json_object_object_get_ex(m, "bootstrap_if", &v) &&
	    parse_bool(c, v, "match.bootstrap_if", &mt->bootstrap_if) < 0)
		return -1;
	r->specificity = json_object_object_length(m);
	return 0;
}

static int parse_var(struct ctx *c, struct json_object *e, int i, struct golden_recipe *r)
{
	static const char *const keys[] = {"name", "value", "why", "optional", NULL};
	struct golden_recipe_var *v = &r->vars[i];
	struct json_object *name = NULL, *value = NULL, *why = NULL, *opt = NULL;
	const char *field;
	char where[32], k[64], msg[1536];

	snprintf(where, sizeof(where), "env[%d]", i);
	if (!json_object_is_type(e, json_type_object))
		return fail(c, where,
		            "expected an object {\"name\", \"value\", \"why\"[, \"optional\"]}");
	if (check_keys(c, e, where, keys, "name, value, why, optional") < 0)
		return -1;
	json_object_object_get_ex(e, "name", &name);
	json_object_object_get_ex(e, "value", &value);
	json_object_object_get_ex(e, "why", &why);
	snprintf(k, sizeof(k), "%s.name", where);
	if (!(v->name = dup_text(c, name, k, false)))
		return -1;
	snprintf(k, sizeof(k), "%s.value", where);
	if (!(v->value = dup_text(c, value, k, true)))
		return -1;
	snprintf(k, sizeof(k), "%s.why", where);
	if (!(v->why = dup_text(c, why, k, false)))
		return -1;
	if (json_object_object_get_ex(e, "optional", &opt)) {
		int b = 0;

		snprintf(k, sizeof(k), "%s.optional", where);
		if (parse_bool(c, opt, k, &b) < 0)
			return -1;
		v->optional = b;
	}
	if (golden_recipe_var_check(v, &field, msg, sizeof(msg)) < 0) {
		snprintf(k, sizeof(k), "%s.%s", where, field);
		return fail(c, k, "%s", msg);
	}
	for (int j = 0; j < i; j++)
		if (!strcmp(r->vars[j].name, v->name)) {
			snprintf(k, sizeof(k), "%s.name", where);
			return fail(c, k,
			            "%s is already set by env[%d]; expected each variable once",
			            v->name, j);
		}
	return 0;
}

static int parse_env(struct ctx *c, struct json_object *env, struct golden_recipe *r)
{
	size_t n;

	if (!json_object_is_type(env, json_type_array) ||
	    (n = json_object_array_length(env)) > GOLDEN_MAX_RECIPE_VARS)
		return fail(c, "env", "expected an array of at most %d variables",
		            GOLDEN_MAX_RECIPE_VARS);
	for (size_t i = 0; i < n; i++) {
		r->nvars = (int)i + 1; /* so golden_recipe_free sees a partial entry */
		if (parse_var(c, json_object_array_get_idx(env, i), (int)i, r) < 0)
			return -1;
	}
	return 0;
}

/* ---------------------------------------------------------- expectations */

const char *const golden_recipe_collectives[] = {
    "all_reduce", "all_gather", "reduce_scatter", "alltoall",  "broadcast", "reduce",
    "sendrecv",   "gather",     "scatter",        "hypercube", NULL};

#define COLLECTIVES                                                                                \
	"all_reduce, all_gather, reduce_scatter, alltoall, broadcast, reduce, sendrecv, gather, "  \
	"scatter, hypercube"

/* "16G", "512M", "1073741824" or an integer: bytes (binary units). */
static int parse_size(struct ctx *c, struct json_object *v, const char *key, long long *out)
{
	const char *s;
	char *end;
	long long n;
	int shift = 0;

	if (json_object_is_type(v, json_type_int)) {
		n = json_object_get_int64(v);
		if (n < 1)
			return fail(c, key, "%lld: expected a message size of at least 1 byte", n);
		*out = n;
		return 0;
	}
	if (!json_object_is_type(v, json_type_string))
		return fail(c, key, "expected a message size such as \"16G\" or a byte count");
	s = json_object_get_string(v);
	n = strtoll(s, &end, 10);
	if (end == s || n < 1)
		return fail(c, key, "\"%s\": expected a message size such as \"16G\"", s);
	if (*end == 'K' || *end == 'M' || *end == 'G') {
		shift = *end == 'K' ? 10 : *end == 'M' ? 20 : 30;
		end++;
		if (!strcmp(end, "iB") || !strcmp(end, "B"))
			end += strlen(end);
	} else if (*end == 'B') {
		end++;
	}
	if (*end || n > (1LL << (50 - shift)))
		return fail(c, key, "\"%s\": expected a message size such as \"16G\"", s);
	*out = n << shift;
	return 0;
}

static int parse_expect_entry(struct ctx *c, struct json_object *e, int i, struct golden_recipe *r)
{
	static const char *const keys[] = {"collective", "nodes", "min_busbw", "size",
	                                   "source",     "why",   NULL};
	struct golden_recipe_expect *x = &r->expect[i];
	struct json_object *v = NULL;
	char where[32], k[64];
	const char *name;
	bool known = false;

	snprintf(where, sizeof(where), "expect[%d]", i);
	x->size = 1LL << 30;
	if (!json_object_is_type(e, json_type_object))
		return fail(c, where,
		            "expected an object {\"collective\", \"nodes\", \"min_busbw\", "
		            "\"source\", \"why\"[, \"size\"]}");
	if (check_keys(c, e, where, keys, "collective, nodes, min_busbw, size, source, why") < 0)
		return -1;
	snprintf(k, sizeof(k), "%s.collective", where);
	json_object_object_get_ex(e, "collective", &v);
	if (!(x->collective = dup_text(c, v, k, false)))
		return -1;
	name = x->collective;
	for (const char *const *n = golden_recipe_collectives; *n; n++)
		known = known || !strcmp(*n, name);
	if (!known)
		return fail(c, k, "\"%s\" is not an nccl-tests collective; expected one of: %s",
		            name, COLLECTIVES);
	snprintf(k, sizeof(k), "%s.nodes", where);
	v = NULL;
	if (!json_object_object_get_ex(e, "nodes", &v))
		return fail(c, k, "missing; expected a node count or {\"min\": N, \"max\": M}");
	if (parse_range(c, v, k, 100000, &x->nodes) < 0)
		return -1;
	if (x->nodes.min < 1)
		return fail(c, k, "0 nodes; expected at least 1");
	snprintf(k, sizeof(k), "%s.min_busbw", where);
	v = NULL;
	if (!json_object_object_get_ex(e, "min_busbw", &v) ||
	    !(json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)) ||
	    json_object_get_double(v) <= 0 || json_object_get_double(v) > 100000)
		return fail(c, k, "expected the minimum bus bandwidth in GB/s, a number above 0");
	x->min_busbw = json_object_get_double(v);
	snprintf(k, sizeof(k), "%s.size", where);
	if (json_object_object_get_ex(e, "size", &v) && parse_size(c, v, k, &x->size) < 0)
		return -1;
	snprintf(k, sizeof(k), "%s.source", where);
	v = NULL;
	json_object_object_get_ex(e, "source", &v);
	if (!(x->source = dup_text(c, v, k, false)))
		return -1;
	snprintf(k, sizeof(k), "%s.why", where);
	v = NULL;
	json_object_object_get_ex(e, "why", &v);
	if (!(x->why = dup_text(c, v, k, false)))
		return -1;
	return 0;
}

static int parse_expect(struct ctx *c, struct json_object *a, struct golden_recipe *r)
{
	size_t n;

	if (!json_object_is_type(a, json_type_array) ||
	    (n = json_object_array_length(a)) > GOLDEN_MAX_RECIPE_EXPECT)
		return fail(c, "expect", "expected an array of at most %d expectations",
		            GOLDEN_MAX_RECIPE_EXPECT);
	for (size_t i = 0; i < n; i++) {
		r->nexpect = (int)i + 1; /* so golden_recipe_free sees a partial entry */
		if (parse_expect_entry(c, json_object_array_get_idx(a, i), (int)i, r) < 0)
			return -1;
	}
	return 0;
}

static int parse_recipe(struct ctx *c, struct json_object *obj, struct golden_recipe *r)
{
	static const char *const keys[] = {"name", "description", "source", "match",
	                                   "env",  "expect",      NULL};
	static const char *const required[] = {"name", "description", "source", "match", "env"};
	struct json_object *v[5] = {NULL};

	if (!json_object_is_type(obj, json_type_object))
		return golden_err_set(c->err, "%s: expected a JSON object with keys %s", c->path,
		                      "name, description, source, match, env");
	if (check_keys(c, obj, "", keys, "name, description, source, match, env, expect") < 0)
		return -1;
	for (int i = 0; i < 5; i++)
		if (!json_object_object_get_ex(obj, required[i], &v[i]))
			return fail(c, required[i], "missing; every recipe needs %s",
			            "name, description, source, match and env");
	if (!(r->name = dup_text(c, v[0], "name", false)))
		return -1;
	if (!golden_is_safe_name(r->name, RECIPE_NAME_MAX))
		return fail(c, "name",
		            "\"%s\" is not a safe name; expected 1-%d characters from "
		            "[A-Za-z0-9._-]",
		            r->name, RECIPE_NAME_MAX);
	if (!(r->description = dup_text(c, v[1], "description", false)) ||
	    !(r->source = dup_text(c, v[2], "source", false)))
		return -1;
	if (parse_match(c, v[3], r) < 0 || parse_env(c, v[4], r) < 0)
		return -1;
	if (json_object_object_get_ex(obj, "expect", &v[0]) && parse_expect(c, v[0], r) < 0)
		return -1;
	return 0;
}

static int load_at(int dirfd, const char *name, const char *path,
                   const struct golden_load_opts *opts, struct golden_recipe *out,
                   struct golden_err *err)
{
	struct ctx c = {path, err};
	struct json_object *obj;
	char *buf = NULL;
	size_t len = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	out->match.nvswitch = out->match.pcie_flat = out->match.bootstrap_if = -1;
	if (read_file(dirfd, name, path, opts && opts->check_owner, &buf, &len, err) < 0)
		return -1;
	obj = parse_json(&c, buf, len);
	free(buf);
	if (!obj)
		return -1;
	rc = parse_recipe(&c, obj, out);
	json_object_put(obj);
	if (rc == 0 && !(out->path = strdup(path)))
		rc = golden_err_set(err, "%s: out of memory", path);
	if (rc < 0)
		golden_recipe_free(out);
	return rc;
}

int golden_recipe_load_file(const char *path, const struct golden_load_opts *opts,
                            struct golden_recipe *out, struct golden_err *err)
{
	return load_at(AT_FDCWD, path, path, opts, out, err);
}

/* ---------------------------------------------------------- directories */

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_recipe_name(const char *n)
{
	size_t l = strlen(n);

	/* Dot files are editor droppings (.#x.json locks, .x.json.swp). */
	return n[0] != '.' && l > 5 && !strcmp(n + l - 5, ".json");
}

/* The *.json names in D, sorted. Returns how many, or -1. */
static int list_dir(DIR *d, char ***out)
{
	struct dirent *de;
	char **names = NULL;
	int n = 0;

	while ((de = readdir(d))) {
		char **nn;

		if (!is_recipe_name(de->d_name))
			continue;
		nn = realloc(names, sizeof(*names) * (size_t)(n + 1));
		if (!nn || !(nn[n] = strdup(de->d_name))) {
			names = nn ? nn : names;
			for (int i = 0; i < n; i++)
				free(names[i]);
			free(names);
			return -1;
		}
		names = nn;
		n++;
	}
	if (n > 1)
		qsort(names, (size_t)n, sizeof(*names), cmp_names);
	*out = names;
	return n;
}

static void diag(const struct golden_load_opts *opts, const char *msg)
{
	if (opts && opts->diag)
		opts->diag(opts->diag_arg, msg);
}

/* Load NAME from the directory; report and count it when it is bad. */
static int load_one(int dfd, const char *dir, const char *name, const struct golden_load_opts *opts,
                    struct golden_recipe_set *set)
{
	struct golden_err e = {{0}};
	struct golden_recipe *r = calloc(1, sizeof(*r));
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s%s%s", dir,
	         dir[0] && dir[strlen(dir) - 1] == '/' ? "" : "/", name);
	if (!r) {
		golden_err_set(&e, "%s: out of memory", path);
	} else if (load_at(dfd, name, path, opts, r, &e) < 0) {
		free(r);
	} else if (golden_recipe_set_add(set, r, &e) == 0) {
		return 0; /* set_add consumed r either way */
	}
	diag(opts, e.msg);
	return 1;
}

int golden_recipes_load_dir(const char *dir, const struct golden_load_opts *opts,
                            struct golden_recipe_set *set, struct golden_err *err)
{
	struct stat st;
	char **names = NULL;
	int n, bad = 0, dfd;
	DIR *d;

	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return golden_err_set(err, "%s: cannot open recipe directory: %s", dir,
		                      strerror(errno));
	if (fstat(dfd, &st) < 0) {
		golden_err_set(err, "%s: cannot stat: %s", dir, strerror(errno));
		close(dfd);
		return -1;
	}
	if (opts && opts->check_owner && check_owner(&st, dir, "recipe directory", err) < 0) {
		close(dfd);
		return -1;
	}
	d = fdopendir(dfd);
	if (!d) {
		golden_err_set(err, "%s: cannot read: %s", dir, strerror(errno));
		close(dfd);
		return -1;
	}
	n = list_dir(d, &names);
	if (n < 0) {
		closedir(d);
		return golden_err_set(err, "%s: out of memory", dir);
	}
	for (int i = 0; i < n; i++) {
		bad += load_one(dirfd(d), dir, names[i], opts, set);
		free(names[i]);
	}
	free(names);
	closedir(d);
	return bad;
}

/* ------------------------------------------------------------------ sets */

int golden_recipe_set_add(struct golden_recipe_set *set, struct golden_recipe *r,
                          struct golden_err *err)
{
	const struct golden_recipe *prev;
	struct golden_recipe *nr;
	int i;

	if (!r)
		return golden_err_set(err, "no recipe");
	prev = golden_recipe_find(set, r->name);
	if (!r->name || prev) {
		golden_err_set(err,
		               "%s: name: recipe \"%s\" is already defined in %s; skipped "
		               "(expected each name once)",
		               r->path ? r->path : "(recipe)", r->name ? r->name : "(null)",
		               prev && prev->path ? prev->path : "the set");
		goto fail;
	}
	nr = realloc(set->recipes, sizeof(*nr) * (size_t)(set->n + 1));
	if (!nr) {
		golden_err_set(err, "%s: out of memory", r->name);
		goto fail;
	}
	set->recipes = nr;
	for (i = set->n; i > 0 && strcmp(nr[i - 1].name, r->name) > 0; i--)
		;
	memmove(&nr[i + 1], &nr[i], sizeof(*nr) * (size_t)(set->n - i));
	nr[i] = *r;
	set->n++;
	free(r);
	return 0;
fail:
	golden_recipe_free(r);
	free(r);
	return -1;
}

const struct golden_recipe *golden_recipe_find(const struct golden_recipe_set *set,
                                               const char *name)
{
	if (!set || !name)
		return NULL;
	for (int i = 0; i < set->n; i++)
		if (!strcmp(set->recipes[i].name, name))
			return &set->recipes[i];
	return NULL;
}

void golden_recipe_free(struct golden_recipe *r)
{
	if (!r)
		return;
	free(r->name);
	free(r->description);
	free(r->source);
	free(r->path);
	for (int i = 0; i < r->match.n_gpu_model; i++)
		free(r->match.gpu_model[i]);
	for (int i = 0; i < r->match.n_dmi_product; i++)
		free(r->match.dmi_product[i]);
	free(r->match.compute_nic_kind);
	free(r->match.link_layer);
	for (int i = 0; i < r->nvars; i++) {
		free(r->vars[i].name);
		free(r->vars[i].value);
		free(r->vars[i].why);
	}
	for (int i = 0; i < r->nexpect; i++) {
		free(r->expect[i].collective);
		free(r->expect[i].source);
		free(r->expect[i].why);
	}
	memset(r, 0, sizeof(*r));
	r->match.nvswitch = r->match.pcie_flat = r->match.bootstrap_if = -1;
}

void golden_recipe_set_free(struct golden_recipe_set *set)
{
	if (!set)
		return;
	for (int i = 0; i < set->n; i++)
		golden_recipe_free(&set->recipes[i]);
	free(set->recipes);
	set->recipes = NULL;
	set->n = 0;
}
