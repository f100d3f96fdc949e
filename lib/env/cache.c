#include <config.h>

#include "env/cache.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "util/jsonget.h"
#include "util/jsonschema.h"
#include "util/statefile.h"
#include "util/strutil.h"
#include "util/sysroot.h"

#define CACHE_MAX_BYTES (256 * 1024)

static int key_append(char *key, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int key_append(char *key, size_t len, const char *fmt, ...)
{
	size_t used = strlen(key);
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(key + used, len - used, fmt, ap);
	va_end(ap);
	return (n < 0 || (size_t)n >= len - used) ? -1 : 0;
}

static int key_stat(char *key, size_t len, const char *tag, const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return key_append(key, len, "%s=%s:missing;", tag, path);
	return key_append(key, len, "%s=%s:%lu:%lld:%lld.%09ld;", tag, path,
	                  (unsigned long)st.st_ino, (long long)st.st_size,
	                  (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int key_recipes(char *key, size_t len, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char *names[512];
	int n = 0, rc = 0;

	if (!d)
		return key_append(key, len, "recipes=%s:missing;", dir);
	while ((de = readdir(d)) && n < 512) {
		size_t l = strlen(de->d_name);

		if (l > 5 && !strcmp(de->d_name + l - 5, ".json") && de->d_name[0] != '.')
			names[n++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(names, (size_t)n, sizeof(names[0]), cmp_names);
	for (int i = 0; i < n; i++) {
		char path[PATH_MAX];

		if (!names[i] ||
		    snprintf(path, sizeof(path), "%s/%s", dir, names[i]) >= (int)sizeof(path))
			rc = -1;
		else if (key_stat(key, len, "r", path))
			rc = -1;
		free(names[i]);
	}
	return rc;
}

int golden_cache_key(const struct golden_cache_inputs *in, char *key, size_t len,
                     struct golden_err *err)
{
	char boot[64] = "";

	key[0] = '\0';
	/* A fixture sysroot may carry its own boot id; the real one otherwise. */
	if (golden_sys_read(in->sysroot, "/proc/sys/kernel/random/boot_id", boot, sizeof(boot)) < 0)
		golden_sys_read(NULL, "/proc/sys/kernel/random/boot_id", boot, sizeof(boot));
	if (key_append(key, len, "v=%s;boot=%s;req=%s;sysroot=%s;", PACKAGE_VERSION, boot,
	               in->request, in->sysroot ? in->sysroot : "/") ||
	    (in->topology ? key_stat(key, len, "topo", in->topology)
	                  : key_append(key, len, "topo=live;")) ||
	    key_recipes(key, len, in->recipes_dir))
		return golden_err_set(err, "cache key too long (too many recipes?)");
	return 0;
}

int golden_cache_path(const char *dir, const char *node, const char *request, char *path,
                      size_t len)
{
	int n = snprintf(path, len, "%s/%s.%s.json", dir, node && *node ? node : "local", request);

	return (n < 0 || (size_t)n >= len) ? -1 : 0;
}

/* Trust: in the plugin the cache is read and written only from
 * init_post_opt, as root, so only a directory golden's safe-directory walk
 * accepts (ours, not writable by group or others, no symlink in any
 * component; util/safedir) is used; anything else is a miss, never an
 * answer. Created 0700 when missing. */
bool golden_cache_dir_trusted(const char *dir)
{
	return golden_state_dir(dir, 0700, NULL) == 0;
}

int golden_cache_load(const char *path, const char *key, struct golden_decision *res, char *errmsg,
                      size_t errlen)
{
	/* The cache directory trusted, the file ours and not writable by group
	 * or others, no symlink, no FIFO (util/safedir): anything another user
	 * could have planted is a miss. */
	char *text = golden_read_trusted(path, CACHE_MAX_BYTES, NULL);
	int hit;

	if (!text)
		return 0;
	hit = golden_cache_parse(text, key, res, errmsg, errlen);
	free(text);
	return hit;
}

int golden_cache_parse(const char *text, const char *key, struct golden_decision *res, char *errmsg,
                       size_t errlen)
{
	struct json_object *root = golden_json_parse_object(text);
	const char *k;
	int hit = 0;

	if (!root)
		return 0;
	if (!golden_json_schema_ok(root, "golden-env-cache", NULL, 0)) {
		json_object_put(root);
		return 0; /* a miss: the decision is made again */
	}
	if ((k = golden_json_str(root, "key")) && !strcmp(k, key)) {
		struct json_object *r = golden_json_member(root, "result", json_type_object);
		const char *e;

		if (r) {
			hit = golden_decision_from_json(r, res, NULL) == 0;
			if (hit)
				res->from_cache = true;
		} else if ((e = golden_json_str(root, "outcome"))) {
			golden_strlcpy(errmsg, e, errlen);
			hit = 1;
		}
	}
	json_object_put(root);
	return hit;
}

int golden_cache_store(const char *dir, const char *path, const char *key,
                       const struct golden_decision *res, const char *errmsg)
{
	struct json_object *root = json_object_new_object();
	const char *text;
	int rc = -1;

	if (!root)
		return -1;
	golden_json_stamp(root, "golden-env-cache");
	if (golden_state_dir(dir, 0700, NULL) < 0)
		goto out;
	json_object_object_add(root, "key", json_object_new_string(key));
	if (res)
		json_object_object_add(root, "result", golden_decision_to_json(res));
	else
		json_object_object_add(root, "outcome", json_object_new_string(errmsg));
	text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN);
	rc = golden_write_atomic(path, text, strlen(text));
out:
	json_object_put(root);
	return rc;
}
