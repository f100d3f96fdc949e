#include <config.h>

#include "stall/teardown.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "util/child.h"
#include "util/jsonschema.h"
#include "util/mounts.h"
#include "util/safedir.h"
#include "util/satmath.h"
#include "util/strutil.h"
#include "util/sysroot.h"

#define MAX_FLUSH_MOUNTS 32

static int flush_mode_parse(const char *s, enum golden_flush_mode *mode)
{
	if (!strcmp(s, "auto"))
		*mode = GOLDEN_FLUSH_AUTO;
	else if (!strcmp(s, "always"))
		*mode = GOLDEN_FLUSH_ALWAYS;
	else if (!strcmp(s, "off"))
		*mode = GOLDEN_FLUSH_OFF;
	else
		return -1;
	return 0;
}

static int size_parse(const char *s, long long *bytes)
{
	char digits[32];
	size_t len = strlen(s), ndigits;
	int shift = 0;
	long long v;

	if (len == 0 || len >= sizeof(digits))
		return -1;
	switch (s[len - 1]) {
	case 'K':
	case 'k':
		shift = 10;
		break;
	case 'M':
	case 'm':
		shift = 20;
		break;
	case 'G':
	case 'g':
		shift = 30;
		break;
	default:
		break;
	}
	ndigits = shift ? len - 1 : len;
	memcpy(digits, s, ndigits);
	digits[ndigits] = '\0';
	/* Bounded so the shift below cannot overflow. */
	if (golden_parse_ll(digits, 0, 1LL << (62 - shift), &v) < 0)
		return -1;
	*bytes = v << shift;
	return 0;
}

int golden_teardown_opt_set(struct golden_teardown_opts *o, const char *key, const char *val,
                            struct golden_err *err)
{
	long long n;

	if (!strcmp(key, "flush")) {
		if (flush_mode_parse(val, &o->mode) < 0)
			return golden_err_set(err, "expected auto, always or off");
	} else if (!strcmp(key, "threshold")) {
		if (size_parse(val, &o->threshold_bytes) < 0)
			return golden_err_set(
			    err, "expected bytes, optionally with K, M or G (e.g. 256M)");
	} else if (!strcmp(key, "inodes")) {
		if (golden_parse_ll(val, 0, LLONG_MAX, &o->threshold_inodes) < 0)
			return golden_err_set(err, "expected a number of inodes (e.g. 10000)");
	} else if (!strcmp(key, "deadline_ms")) {
		if (golden_parse_ll(val, 10, 600000, &n) < 0)
			return golden_err_set(err, "expected 10-600000");
		o->deadline_ms = (int)n;
	} else {
		return golden_err_set(err, "unknown teardown setting '%s'", key);
	}
	return 0;
}

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

struct flush_list {
	int n;
	char mnt[MAX_FLUSH_MOUNTS][512];
	char src[MAX_FLUSH_MOUNTS][256];
};

/* Writable filesystems with cgroup writeback, one mount per filesystem:
 * bind mounts of the same device are synced once. */
static int add_target(const struct golden_mount *m, void *arg)
{
	struct flush_list *fl = arg;

	if (!golden_cg_fs_writeback(m) || golden_mount_has_opt(m, "ro"))
		return 0;
	for (int i = 0; i < fl->n; i++)
		if (!strcmp(fl->src[i], m->src))
			return 0;
	golden_strlcpy(fl->src[fl->n], m->src, sizeof(fl->src[0]));
	golden_strlcpy(fl->mnt[fl->n++], m->point, sizeof(fl->mnt[0]));
	return fl->n == MAX_FLUSH_MOUNTS;
}

/* In the child: syncfs every target; a hung one costs the deadline. */
static void flush_child(void *shared, void *arg)
{
	const struct flush_list *fl = arg;
	int *failed = shared;

	for (int i = 0; i < fl->n; i++) {
		int fd = open(fl->mnt[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (fd < 0 || syncfs(fd) < 0)
			(*failed)++;
		if (fd >= 0)
			close(fd);
	}
}

int golden_teardown_probe(const char *cgdir, const struct golden_teardown_opts *o,
                          struct golden_teardown_result *r)
{
	long long t0 = now_us(), bytes;
	int version = 0;
	struct golden_cg_roots roots;
	struct flush_list *fl;

	memset(r, 0, sizeof(*r));
	r->action = "no-cgroup";
	/* One pass over the mount table serves the step lookup and the exposure. */
	if (golden_cg_roots_read(o->sysroot, &roots) < 0)
		return 0;
	if (cgdir) {
		char probe[PATH_MAX + 32];

		golden_strlcpy(r->cgroup, cgdir, sizeof(r->cgroup));
		/* A v2 directory has cgroup.controllers, a v1 one does not. */
		snprintf(probe, sizeof(probe), "%s/cgroup.controllers", cgdir);
		version = access(probe, F_OK) == 0 ? 2 : 1;
	} else if (golden_cg_step_dir(o->sysroot, &roots, r->cgroup, sizeof(r->cgroup), &version) <
	           0) {
		return 0;
	}
	if (golden_cg_measure(o->sysroot, r->cgroup, version, &r->before) < 0) {
		r->measure_us = (int)(now_us() - t0);
		return 0;
	}
	r->exposed =
	    golden_cg_writeback_on(o->sysroot, &roots, r->exposure, sizeof(r->exposure)) == 1;
	r->measure_us = (int)(now_us() - t0);
	r->after = r->before;
	/* Saturating: memory.stat values are whatever the file said. */
	bytes = golden_sat_add(r->before.dirty > 0 ? r->before.dirty : 0,
	                       r->before.writeback > 0 ? r->before.writeback : 0);
	if (bytes < o->threshold_bytes && r->before.inodes < o->threshold_inodes) {
		r->action = "below-threshold";
		return 0;
	}
	if (o->mode == GOLDEN_FLUSH_OFF) {
		r->action = "off";
		return 0;
	}
	if (o->mode == GOLDEN_FLUSH_AUTO && !r->exposed) {
		r->action = "not-exposed";
		return 0;
	}
	fl = malloc(sizeof(*fl));
	if (!fl) {
		r->action = "flush-failed";
		return 0;
	}
	fl->n = 0;
	golden_mounts_each(o->sysroot, add_target, fl);
	r->nmounts = fl->n;
	{
		long long f0 = now_us();
		int failed = 0;
		int rc = golden_child_run(flush_child, fl, &failed, sizeof(failed), o->deadline_ms);

		r->flush_ms = (int)((now_us() - f0) / 1000);
		r->action = rc == 1            ? "flush-timeout"
		            : rc < 0 || failed ? "flush-failed"
		                               : "flushed";
	}
	free(fl);
	golden_cg_measure(o->sysroot, r->cgroup, version, &r->after);
	return 0;
}

struct json_object *golden_teardown_to_json(const struct golden_teardown_result *r)
{
	struct json_object *j = json_object_new_object();

	golden_json_stamp(j, "golden-teardown");
	json_object_object_add(j, "cgroup", json_object_new_string(r->cgroup));
	json_object_object_add(j, "cgroup_version", json_object_new_int(r->before.version));
	json_object_object_add(j, "exposed", json_object_new_boolean(r->exposed));
	json_object_object_add(j, "exposure", json_object_new_string(r->exposure));
	json_object_object_add(j, "dirty_bytes", json_object_new_int64(r->before.dirty));
	json_object_object_add(j, "writeback_bytes", json_object_new_int64(r->before.writeback));
	json_object_object_add(j, "wb_inodes", json_object_new_int64(r->before.inodes));
	json_object_object_add(j, "action", json_object_new_string(r->action));
	json_object_object_add(j, "mounts_synced", json_object_new_int(r->nmounts));
	json_object_object_add(j, "flush_ms", json_object_new_int(r->flush_ms));
	json_object_object_add(j, "dirty_after_bytes", json_object_new_int64(r->after.dirty));
	json_object_object_add(j, "writeback_after_bytes",
	                       json_object_new_int64(r->after.writeback));
	json_object_object_add(j, "measure_us", json_object_new_int(r->measure_us));
	json_object_object_add(j, "time", json_object_new_int64((int64_t)time(NULL)));
	return j;
}

int golden_teardown_record(const char *dir, const char *job, const char *step,
                           const struct golden_teardown_result *r, struct golden_err *err)
{
	char jobname[48], name[48];
	struct golden_err why = {{0}};
	struct json_object *j;
	const char *text;
	int dfd, jfd, rc;

	if (!golden_is_safe_name(job, 32) || !golden_is_safe_name(step, 32))
		return golden_err_set(err, "teardown record: unsafe job or step name");
	snprintf(jobname, sizeof(jobname), "job_%s", job);
	snprintf(name, sizeof(name), "%s.json", step);
	/* teardown_dir and job_N: created or trusted, never through a symlink
	 * (util/safedir); the epilog that reads them runs as root. */
	dfd = golden_safedir_open(dir, 0700, &why);
	if (dfd < 0)
		return golden_err_set(err, "teardown record: teardown_dir %s", why.msg);
	jfd = golden_safedir_sub(dfd, jobname, 0700, &why);
	close(dfd);
	if (jfd < 0)
		return golden_err_set(err, "teardown record: %s/%s", dir, why.msg);
	j = golden_teardown_to_json(r);
	text = json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN);
	rc = golden_safefile_write(jfd, name, text, strlen(text), 0600);
	if (rc < 0)
		golden_err_set(err, "teardown record: cannot write %s/%s/%s: %s", dir, jobname,
		               name, strerror(errno));
	json_object_put(j);
	close(jfd);
	return rc;
}
