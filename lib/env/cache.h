/* Per-node cache of golden's decision, so topology discovery runs once per
 * boot and input change instead of once per job step.
 *
 * The key names everything the decision depends on: golden's version, the
 * boot id, the topology file (path, inode, size, mtime) or "live", the
 * sysroot, every recipe file (name, size, mtime) and the requested recipe.
 * A stale key is a miss, never a wrong answer.
 */
#ifndef GOLDEN_ENV_CACHE_H
#define GOLDEN_ENV_CACHE_H

#include <stdbool.h>
#include <stddef.h>

#include "util/errbuf.h"
#include "env/decision.h"

struct golden_cache_inputs {
	const char *topology; /* NULL = live */
	const char *sysroot;
	const char *recipes_dir;
	const char *request; /* "auto" or a recipe name */
};

int golden_cache_key(const struct golden_cache_inputs *in, char *key, size_t len,
                     struct golden_err *err);

/* Path of the cache file for node and request inside dir. */
int golden_cache_path(const char *dir, const char *node, const char *request, char *path,
                      size_t len);

/* Is dir fit to hold the cache (util/safedir's walk: no symlink in any
 * component, ours, not writable by group or others)? Made 0700 when it does
 * not exist. Only then are files in it looked up or written: a directory
 * another user can write lets them swap files in. */
bool golden_cache_dir_trusted(const char *dir);

/* Look up key in the file at path. Returns 1 on a hit (res filled, or
 * *errmsg set for a remembered "golden sets nothing here" outcome), 0 on a
 * miss (absent, stale, unreadable, or not safely owned: the directory and
 * the file are checked as util/safedir says). */
int golden_cache_load(const char *path, const char *key, struct golden_decision *res, char *errmsg,
                      size_t errlen);

/* The same on the file's text: a key, result or outcome of the wrong type
 * is a miss, never a crash. */
int golden_cache_parse(const char *text, const char *key, struct golden_decision *res, char *errmsg,
                       size_t errlen);

/* Store res (or, when res is NULL, the outcome message errmsg) under key.
 * Creates or trusts dir (util/safedir: missing components 0700, none a
 * symlink, none writable by others); writes atomically. Returns 0 or -1. */
int golden_cache_store(const char *dir, const char *path, const char *key,
                       const struct golden_decision *res, const char *errmsg);

#endif
