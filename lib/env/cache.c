#include <config.h>

#include "env/cache.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

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
 * init_post_opt, as root, so only root-owned files in a root-owned 0700
 * directory are believed; a file or directory the job user could write is a
 * miss, never an answer. (The directory check is the call site util's
 * shared safe-directory helper will replace.) */
bool golden_cache_dir_trusted(const char *dir, bool create)
{
	struct stat st;
	bool ok;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	/* Every step looks here: mkdir only when it is not there yet. */
	if (fd < 0 && errno == ENOENT && create && (mkdir(dir, 0700) == 0 || errno == EEXIST))
		fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return false;
	ok = fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
	     !(st.st_mode & 022);
	close(fd);
	return ok;
}

/* Read the whole cache file, refusing anything another user could have
 * planted: it must be ours and not writable by group or others. */
static char *read_trusted(const char *path)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	char *buf = NULL;
	ssize_t got = 0;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022) || st.st_size > CACHE_MAX_BYTES)
		goto out;
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		goto out;
	while (got < st.st_size) {
		ssize_t r = read(fd, buf + got, (size_t)(st.st_size - got));

		if (r <= 0) {
			free(buf);
			buf = NULL;
			goto out;
		}
		got += r;
	}
	buf[got] = '\0';
out:
	close(fd);
	return buf;
}

int golden_cache_load(const char *path, const char *key, struct golden_decision *res, char *errmsg,
                      size_t errlen)
{
	char *text = read_trusted(path);
	struct json_object *root, *k, *r, *e;
	int hit = 0;

	if (!text)
		return 0;
	root = json_tokener_parse(text);
	free(text);
	if (!root)
		return 0;
	if (json_object_object_get_ex(root, "key", &k) &&
	    json_object_is_type(k, json_type_string) && !strcmp(json_object_get_string(k), key)) {
		if (json_object_object_get_ex(root, "result", &r) &&
		    json_object_is_type(r, json_type_object)) {
			hit = golden_decision_from_json(r, res, NULL) == 0;
			if (hit)
				res->from_cache = true;
		} else if (json_object_object_get_ex(root, "outcome", &e) &&
		           json_object_is_type(e, json_type_string)) {
			golden_strlcpy(errmsg, json_object_get_string(e), errlen);
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
	if (!golden_cache_dir_trusted(dir, true))
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
