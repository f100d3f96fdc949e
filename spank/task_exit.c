/* slurm_spank_task_exit runs as root in slurmstepd after each task exits and
 * before task/cgroup removes the step's cgroups (Slurm's Epilog runs only
 * after that). That is the last moment to measure what the step left dirty
 * and to write it back while its inodes can still switch writeback contexts
 * in constant time. */
#include <config.h>

#include "task_exit.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <slurm/slurm.h>

#include "util/errbuf.h"
#include "stall/teardown.h"
#include "util/nodename.h"

static int exited; /* tasks of this step that have exited (one stepd per step) */

static void step_name(uint32_t stepid, char *buf, size_t len)
{
	if (stepid == SLURM_BATCH_SCRIPT)
		snprintf(buf, len, "batch");
	else if (stepid == SLURM_EXTERN_CONT)
		snprintf(buf, len, "extern");
	else if (stepid == SLURM_INTERACTIVE_STEP)
		snprintf(buf, len, "interactive");
	else
		snprintf(buf, len, "%u", stepid);
}

void golden_task_exit(spank_t sp, const struct golden_plugin_args *conf, const char *node)
{
	static struct golden_teardown_result r;
	struct golden_teardown_opts o = conf->teardown;
	struct golden_err err = {{0}};
	uint32_t ntasks = 0, jobid = 0, stepid = 0;
	char job[16], step[16], dir[PATH_MAX];

	if (spank_get_item(sp, S_JOB_LOCAL_TASK_COUNT, &ntasks) != ESPANK_SUCCESS ||
	    ++exited < (int)ntasks)
		return;
	if (spank_get_item(sp, S_JOB_ID, &jobid) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_STEPID, &stepid) != ESPANK_SUCCESS) {
		slurm_error("golden_nccl: teardown probe: cannot get the job and step id");
		return;
	}
	snprintf(job, sizeof(job), "%u", jobid);
	step_name(stepid, step, sizeof(step));
	/* The real cgroup tree: sysroot= stands in for hardware, not for cgroups. */
	o.sysroot = NULL;
	golden_teardown_probe(NULL, &o, &r);
	if (!strcmp(r.action, "no-cgroup"))
		return; /* proctrack/linuxproc or no memory controller: nothing to measure */
	if (strcmp(r.action, "below-threshold"))
		slurm_info("golden_nccl: teardown probe job %s step %s: %lld MiB dirty, %lld MiB "
		           "writeback, %lld wb inodes: %s (%d filesystems, %d ms, %lld MiB dirty "
		           "after)",
		           job, step, r.before.dirty >> 20, r.before.writeback >> 20,
		           r.before.inodes, r.action, r.nmounts, r.flush_ms, r.after.dirty >> 20);
	if (golden_nodename_expand(conf->teardown_dir, node, dir, sizeof(dir), &err) < 0 ||
	    golden_teardown_record(dir, job, step, &r, &err) < 0)
		slurm_error("golden_nccl: teardown probe: %s", err.msg);
}
