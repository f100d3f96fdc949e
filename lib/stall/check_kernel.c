/* Kernel checks for the cgroup-writeback teardown stall: `wb-stall` (a storm
 * in progress, attributed to a NUMA node), `wb-exposure` (warns once per
 * boot on an exposed node) and `teardown` (what the plugin's task_exit probe
 * measured and did for this job). */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "stall/check_kernel.h"
#include "health/golden_conf.h"
#include "util/kmsg.h"
#include "util/statefile.h"
#include "util/strutil.h"
#include "util/sysroot.h"
#include "stall/wbexposure.h"
#include "stall/wbstall.h"

#define EXPOSURE_WARNED "wb-exposure.warned"

static void check_wb_stall(const struct golden_check_ctx *ctx, struct golden_check_result *res)
{
	struct golden_stall_evidence ev;
	char cursor[PATH_MAX];

	/* Its own kmsg cursor: the xid check reads the same log concurrently. */
	snprintf(cursor, sizeof(cursor), "%s/stall", ctx->state_dir ? ctx->state_dir : ".");
	golden_stall_detect(ctx->sysroot, ctx->kmsg_path, ctx->state_dir ? cursor : NULL,
	                    ctx->conf->stall_sample_ms, &ev);
	if (!ev.storm) {
		/* Not (or no longer) in progress: the node state forgets it. */
		golden_stall_unmark(ctx->state_dir);
		if (ev.past)
			golden_check_warn(
			    res, "kernel wb-switch stall past",
			    "the kernel log shows a writeback switch stall that has passed: %s",
			    ev.summary);
		else
			snprintf(res->detail, sizeof(res->detail), "no writeback switch storm: %s",
			         ev.summary);
		return;
	}
	golden_stall_mark(ctx->state_dir, ctx->sysroot, &ev);
	if (ev.node >= 0)
		snprintf(res->code, sizeof(res->code), "kernel wb-switch stall numa%d", ev.node);
	else
		golden_strlcpy(res->code, "kernel wb-switch stall", sizeof(res->code));
	res->status = GOLDEN_ST_FAIL;
	res->action = GOLDEN_ACTION_DRAIN;
	snprintf(res->detail, sizeof(res->detail),
	         "cgroup writeback inode switching after a cgroup teardown is pinning the "
	         "kernel%s; storage timeouts meanwhile are its victims; resume once it has "
	         "passed: %s",
	         ev.node >= 0 ? " on that NUMA node" : "", ev.summary);
}

static void check_wb_exposure(const struct golden_check_ctx *ctx, struct golden_check_result *res)
{
	struct golden_exposure e;
	char boot[GOLDEN_KMSG_BOOTID_LEN], path[PATH_MAX], warned[64] = "";

	golden_exposure_read(ctx->sysroot, &e);
	if (!e.exposed) {
		snprintf(res->detail, sizeof(res->detail), "not exposed: %s %s; %s", e.release,
		         golden_exposure_fix_name(e.fix), e.cgwb_why);
		return;
	}
	golden_kmsg_boot_id(ctx->sysroot, boot, sizeof(boot));
	snprintf(path, sizeof(path), "%s/" EXPOSURE_WARNED, ctx->state_dir ? ctx->state_dir : ".");
	if (ctx->state_dir && golden_sys_read(NULL, path, warned, sizeof(warned)) < 0)
		warned[0] = '\0';
	if (ctx->state_dir && !strcmp(warned, boot)) {
		snprintf(res->detail, sizeof(res->detail),
		         "exposed (%s %s), already warned this boot", e.release,
		         golden_exposure_fix_name(e.fix));
		return;
	}
	if (ctx->state_dir && golden_mkdir_p(ctx->state_dir) == 0)
		golden_write_atomic(path, boot, strlen(boot));
	golden_check_warn(res, "kernel wb-stall exposed",
	                  "%s: %s; %s; %d filesystem(s) with cgroup writeback (%s%s); see "
	                  "golden check --kernel",
	                  e.release, e.kernel_why, e.cgwb_why, e.nfs, e.nfs ? e.fs[0] : "",
	                  e.nfs > 1 ? ", ..." : "");
}

static void add_record(const char *path, const char *step, struct golden_check_result *res,
                       size_t *o)
{
	struct json_object *j = json_object_from_file(path), *v;
	const char *action = "?";
	long long dirty = -1, after = -1;
	int ms = 0;

	if (!j)
		return;
	if (json_object_object_get_ex(j, "action", &v))
		action = json_object_get_string(v);
	if (json_object_object_get_ex(j, "dirty_bytes", &v))
		dirty = json_object_get_int64(v);
	if (json_object_object_get_ex(j, "dirty_after_bytes", &v))
		after = json_object_get_int64(v);
	if (json_object_object_get_ex(j, "flush_ms", &v))
		ms = json_object_get_int(v);
	if (*o < sizeof(res->detail))
		*o += (size_t)snprintf(res->detail + *o, sizeof(res->detail) - *o,
		                       "%s%s: %lld MiB dirty, %s", *o ? "; " : "", step,
		                       dirty > 0 ? dirty >> 20 : 0, action);
	if (!strncmp(action, "flush", 5) && *o < sizeof(res->detail))
		*o += (size_t)snprintf(res->detail + *o, sizeof(res->detail) - *o,
		                       " in %d ms (after: %lld MiB)", ms,
		                       after > 0 ? after >> 20 : 0);
	if (!strcmp(action, "flush-timeout") || !strcmp(action, "flush-failed"))
		res->status = GOLDEN_ST_WARN;
	json_object_put(j);
}

static void check_teardown(const struct golden_check_ctx *ctx, struct golden_check_result *res)
{
	char dir[PATH_MAX], path[PATH_MAX + 300];
	struct dirent *e;
	size_t o = 0;
	DIR *d;

	if (!ctx->job_id[0] || !ctx->teardown_dir || !ctx->teardown_dir[0]) {
		snprintf(res->detail, sizeof(res->detail), "not at a job boundary");
		return;
	}
	snprintf(dir, sizeof(dir), "%s/job_%s", ctx->teardown_dir, ctx->job_id);
	if (!(d = opendir(dir))) {
		snprintf(res->detail, sizeof(res->detail), "no teardown record for job %s",
		         ctx->job_id);
		return;
	}
	while ((e = readdir(d))) {
		char step[64];
		size_t n = strlen(e->d_name);

		if (n < 6 || n - 5 >= sizeof(step) || strcmp(e->d_name + n - 5, ".json"))
			continue;
		memcpy(step, e->d_name, n - 5);
		step[n - 5] = '\0';
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		add_record(path, step, res, &o);
		unlink(path); /* consumed: the job is over */
	}
	closedir(d);
	rmdir(dir);
	if (res->status == GOLDEN_ST_WARN)
		golden_strlcpy(res->code, "kernel teardown flush", sizeof(res->code));
}

/* Health checks re-run wb-stall: that is how a passed stall clears its marker. */
#define EPI (GOLDEN_PHASE_EPILOG | GOLDEN_PHASE_MANUAL | GOLDEN_PHASE_HEALTH_ANY)

const struct golden_check golden_kernel_checks[] = {
    {"wb-stall", GOLDEN_CHK_KERNEL, check_wb_stall, 2000, EPI},
    {"wb-exposure", GOLDEN_CHK_KERNEL, check_wb_exposure, 1000, EPI},
    {"teardown", GOLDEN_CHK_KERNEL, check_teardown, 1000, GOLDEN_PHASE_EPILOG},
    {NULL, GOLDEN_CHK_KERNEL, NULL, 0, 0},
};
