/* Kernel checks for the cgroup-writeback teardown stall: `wb-stall` (a storm
 * in progress, attributed to a NUMA node), `wb-exposure` (warns once per
 * boot on an exposed node) and `teardown` (what the plugin's task_exit probe
 * measured and did for this job). */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "stall/check_kernel.h"
#include "health/golden_conf.h"
#include "util/jsonget.h"
#include "util/kmsg.h"
#include "util/safedir.h"
#include "util/statefile.h"
#include "util/strutil.h"
#include "stall/wbexposure.h"
#include "stall/wbstall.h"

#define EXPOSURE_WARNED "wb-exposure.warned"
#define RECORD_MAX      65536 /* a record is about 400 bytes */

static void check_wb_stall(const struct golden_check_ctx *ctx, struct golden_check_result *res)
{
	struct golden_stall_evidence ev;
	char cursor[PATH_MAX];

	/* Its own kmsg cursor: the xid check reads the same log concurrently.
	 * Saved by the caller once it acted on this result (check.h). */
	snprintf(cursor, sizeof(cursor), "%s/" GOLDEN_STALL_CURSOR_DIR,
	         ctx->state_dir ? ctx->state_dir : ".");
	golden_stall_detect(ctx->sysroot, ctx->kmsg_path, ctx->state_dir ? cursor : NULL,
	                    ctx->conf->stall_sample_ms, &ev);
	if (ctx->state_dir && ev.kmsg_records) {
		res->commit.set = true;
		golden_strlcpy(res->commit.dir, cursor, sizeof(res->commit.dir));
		golden_strlcpy(res->commit.name, GOLDEN_KMSG_CURSOR, sizeof(res->commit.name));
		golden_strlcpy(res->commit.boot_id, ev.kmsg_boot, sizeof(res->commit.boot_id));
		res->commit.seq = ev.kmsg_seq;
	}
	if (!ev.storm) {
		/* Not (or no longer) in progress: the node state forgets it (a
		 * dry run too: the marker is what is live now, not a fault
		 * consumed; later runs must see the truth). */
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
	if (ctx->state_dir) {
		char *text = golden_read_trusted(path, sizeof(warned) - 1, NULL);

		golden_strlcpy(warned, text ? text : "", sizeof(warned));
		free(text);
	}
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

/* One record of the task_exit probe. Whatever it holds is the probe's
 * account, not a fault: a record that does not parse, or a field of the
 * wrong type, is unknown and never fails (or crashes) this check. */
static void add_record(const char *text, const char *step, struct golden_check_result *res,
                       size_t *o)
{
	struct json_object *j = golden_json_parse_object(text);
	const char *action = golden_json_str_or(j, "action", "unknown");
	long long dirty = -1, after = -1, ms = -1;
	char dirty_s[32] = "?", after_s[32] = "?", ms_s[32] = "?";

	if (golden_json_int(j, "dirty_bytes", &dirty) && dirty >= 0)
		snprintf(dirty_s, sizeof(dirty_s), "%lld", dirty >> 20);
	if (golden_json_int(j, "dirty_after_bytes", &after) && after >= 0)
		snprintf(after_s, sizeof(after_s), "%lld", after >> 20);
	if (golden_json_int_range(j, "flush_ms", 0, INT_MAX, &ms))
		snprintf(ms_s, sizeof(ms_s), "%lld", ms);
	if (!j)
		action = "unreadable record";
	if (*o < sizeof(res->detail))
		*o += (size_t)snprintf(res->detail + *o, sizeof(res->detail) - *o,
		                       "%s%s: %s MiB dirty, %s", *o ? "; " : "", step, dirty_s,
		                       action);
	if (!strncmp(action, "flush", 5) && *o < sizeof(res->detail))
		*o += (size_t)snprintf(res->detail + *o, sizeof(res->detail) - *o,
		                       " in %s ms (after: %s MiB)", ms_s, after_s);
	if (!strcmp(action, "flush-timeout") || !strcmp(action, "flush-failed"))
		res->status = GOLDEN_ST_WARN;
	json_object_put(j);
}

/* The records of this job, consumed: teardown_dir and job_N are opened as
 * directories golden trusts (util/safedir: no symlink, root's, not
 * writable by others) and everything below is reached through their fds,
 * so a job_N (or a record) planted by a user in a shared directory is
 * refused and nothing outside is read or removed. */
static void check_teardown(const struct golden_check_ctx *ctx, struct golden_check_result *res)
{
	struct golden_err why = {{0}};
	char job[48];
	struct dirent *e;
	size_t o = 0;
	int dfd, jfd;
	DIR *d;

	if (!ctx->job_id[0] || !ctx->teardown_dir || !ctx->teardown_dir[0]) {
		snprintf(res->detail, sizeof(res->detail), "not at a job boundary");
		return;
	}
	if (!golden_is_safe_name(ctx->job_id, 32)) {
		snprintf(res->detail, sizeof(res->detail), "job id is not a plain name: not read");
		return;
	}
	snprintf(job, sizeof(job), "job_%s", ctx->job_id);
	dfd = golden_safedir_open(ctx->teardown_dir, 0, &why);
	jfd = dfd < 0 ? -1 : golden_safedir_sub(dfd, job, 0, &why);
	if (jfd < 0 && errno == ENOENT) {
		snprintf(res->detail, sizeof(res->detail), "no teardown record for job %s",
		         ctx->job_id);
		goto out;
	}
	if (jfd < 0) {
		golden_check_warn(res, "kernel teardown dir",
		                  "teardown_dir %s refused, records of job %s not read: %s",
		                  ctx->teardown_dir, ctx->job_id, why.msg);
		goto out;
	}
	if (!(d = fdopendir(jfd))) {
		close(jfd);
		snprintf(res->detail, sizeof(res->detail), "teardown records of job %s: %s",
		         ctx->job_id, strerror(errno));
		goto out;
	}
	while ((e = readdir(d))) {
		char step[64], *text;
		size_t n = strlen(e->d_name);

		if (n < 6 || n - 5 >= sizeof(step) || strcmp(e->d_name + n - 5, ".json"))
			continue;
		memcpy(step, e->d_name, n - 5);
		step[n - 5] = '\0';
		text = golden_safefile_read(dirfd(d), e->d_name, RECORD_MAX, NULL);
		add_record(text, step, res, &o);
		free(text);
		if (!ctx->dry_run)
			unlinkat(dirfd(d), e->d_name, 0); /* consumed: the job is over */
	}
	closedir(d);
	if (!ctx->dry_run)
		unlinkat(dfd, job, AT_REMOVEDIR);
	if (res->status == GOLDEN_ST_WARN)
		golden_strlcpy(res->code, "kernel teardown flush", sizeof(res->code));
out:
	if (dfd >= 0)
		close(dfd);
}

/* Health checks re-run wb-stall: that is how a passed stall clears its marker. */
#define EPI (GOLDEN_PHASE_EPILOG | GOLDEN_PHASE_MANUAL | GOLDEN_PHASE_HEALTH_ANY)

const struct golden_check golden_kernel_checks[] = {
    {"wb-stall", GOLDEN_CHK_KERNEL, check_wb_stall, 2000, EPI},
    {"wb-exposure", GOLDEN_CHK_KERNEL, check_wb_exposure, 1000, EPI},
    {"teardown", GOLDEN_CHK_KERNEL, check_teardown, 1000, GOLDEN_PHASE_EPILOG},
    {NULL, GOLDEN_CHK_KERNEL, NULL, 0, 0},
};
