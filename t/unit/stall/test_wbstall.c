/* The teardown-stall probe on a fixture sysroot built here: a cgroup v2 node
 * (memory+io on the default hierarchy) whose step holds 1 GiB dirty and 120k
 * attached inodes (bdi wb_stats matched by the cgroup directory's inode),
 * /proc/stat samples with NUMA node 1 at ~100% system time, kworkers running
 * inode_switch_wbs, and the kernel-log lines from the reference note. */
#include <config.h>

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stall/cgmem.h"
#include "health/check.h"
#include "health/check_run.h"
#include "health/golden_conf.h"
#include "stall/teardown.h"
#include "stall/wbexposure.h"
#include "stall/wbstall.h"
#include "t/unit/tap.h"

static char root[] = "/tmp/golden-test-wbstall-XXXXXX";

static void put(const char *rel, const char *text)
{
	char path[4096], dir[4096], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	for (slash = strchr(dir + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(dir, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		printf("Bail out! cannot write %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

#define STEP "/sys/fs/cgroup/system.slice/slurmstepd.scope/job_42/step_0"

/* 8 CPUs, two NUMA nodes; between the samples CPUs 4-7 spend 98 of 100
 * ticks in system time, CPUs 0-3 5 of 100. */
static void make_stat(const char *rel, int t)
{
	char buf[4096];
	size_t o = (size_t)snprintf(buf, sizeof(buf), "cpu  1 2 3 4 5 6 7 8 0 0\n");

	for (int c = 0; c < 8; c++) {
		unsigned long user = 1000 + (unsigned long)t * (c < 4 ? 90 : 2);
		unsigned long sys = 500 + (unsigned long)t * (c < 4 ? 5 : 98);
		unsigned long idle = 9000 + (unsigned long)t * (c < 4 ? 5 : 0);

		o += (size_t)snprintf(buf + o, sizeof(buf) - o, "cpu%d %lu 0 %lu %lu 0 0 0 0 0 0\n",
		                      c, user, sys, idle);
	}
	snprintf(buf + o, sizeof(buf) - o, "intr 1\nctxt 2\nbtime 3\n");
	put(rel, buf);
}

static void make_tree(void)
{
	char wb[1024];
	struct stat st, task;
	char path[4096];

	put("/proc/self/mounts", "sysfs /sys sysfs rw 0 0\n"
	                         "cgroup2 /sys/fs/cgroup cgroup2 rw,nosuid,nodev,nsdelegate 0 0\n"
	                         "/dev/nvme0n1p2 / ext4 rw,relatime 0 0\n"
	                         "/dev/nvme0n1p2 /var/tmp ext4 rw,relatime 0 0\n"
	                         "/dev/md0 /scratch xfs rw,noatime,lazytime 0 0\n"
	                         "/dev/sdb1 /ro ext4 ro,relatime 0 0\n"
	                         "tmpfs /dev/shm tmpfs rw 0 0\n"
	                         "10.0.0.1@o2ib:/fs /lustre lustre rw,flock 0 0\n");
	put("/proc/self/cgroup", "0::/system.slice/slurmstepd.scope/job_42/step_0/slurm\n");
	put("/sys/fs/cgroup/cgroup.controllers", "cpuset cpu io memory hugetlb pids rdma misc\n");
	put("/sys/fs/cgroup/cgroup.stat", "nr_descendants 40\nnr_dying_descendants 17\n");
	put(STEP "/cgroup.controllers", "cpuset cpu io memory pids\n");
	put(STEP "/memory.stat", "anon 4096\nfile 2147483648\nfile_dirty 1073741824\n"
	                         "file_writeback 52428800\nshmem 0\n");
	put("/proc/sys/kernel/osrelease", "6.12.40-generic\n");
	put("/proc/sys/kernel/random/boot_id", "0f0e0d0c-0b0a-0908-0706-050403020100\n");
	/* Slurm's v2 layout: the tasks (and their dirty pages' memcg) below the step */
	put(STEP "/user/task_0/cgroup.procs", "4242\n");
	snprintf(path, sizeof(path), "%s" STEP, root);
	stat(path, &st);
	snprintf(path, sizeof(path), "%s" STEP "/user/task_0", root);
	stat(path, &task);
	snprintf(wb, sizeof(wb),
	         "WbCgIno:                    1\nWbWriteback:                0 kB\n"
	         "b_dirty:                  900\nb_io:                       0\n"
	         "b_more_io:                  0\nb_dirty_time:               0\nstate: 1\n\n"
	         "WbCgIno:        %lu\nWbWriteback:                0 kB\n"
	         "b_dirty:               100000\nb_io:                      10\n"
	         "b_more_io:                  5\nb_dirty_time:           19985\nstate: 1\n\n"
	         "WbCgIno:        %lu\nWbWriteback:                0 kB\n"
	         "b_dirty:                    3\nb_io:                     397\n"
	         "b_more_io:                  0\nb_dirty_time:               0\nstate: 1\n",
	         (unsigned long)st.st_ino, (unsigned long)task.st_ino);
	put("/sys/kernel/debug/bdi/259:0/wb_stats", wb);
	put("/sys/devices/system/node/node0/cpulist", "0-3\n");
	put("/sys/devices/system/node/node1/cpulist", "4-7\n");
	make_stat("/stat-0", 0);
	make_stat("/stat-1", 1);
	/* field 39 (processor) is the 37th after the ')' */
	put("/proc/101/comm", "kworker/5:2+inode_switch_wbs\n");
	put("/proc/101/stat", "101 (kworker/5:2+inode_switch_wbs) R 2 0 0 0 -1 69238880 0 0 0 0 "
	                      "0 900 0 0 20 0 1 0 5 0 0 18446744073709551615 0 0 0 0 0 0 0 "
	                      "2147483647 0 0 0 0 17 5 0 0 0 0 0\n");
	put("/proc/102/comm", "kworker/6:1+inode_switch_wbs\n");
	put("/proc/102/stat", "102 (kworker/6:1+inode_switch_wbs) R 2 0 0 0 -1 69238880 0 0 0 0 "
	                      "0 900 0 0 20 0 1 0 5 0 0 18446744073709551615 0 0 0 0 0 0 0 "
	                      "2147483647 0 0 0 0 17 6 0 0 0 0 0\n");
	put("/proc/103/comm", "kworker/1:0-events\n");
	put("/proc/103/stat", "103 (kworker/1:0-events) S 2 0 0 0 -1 69238880 0 0 0 0 "
	                      "0 1 0 0 20 0 1 0 5 0 0 18446744073709551615 0 0 0 0 0 0 0 "
	                      "2147483647 0 0 0 0 17 1 0 0 0 0 0\n");
	put("/proc/1/comm", "systemd\n");
	put("/proc/pressure/cpu", "some avg10=87.50 avg60=80.00 avg300=40.00 total=1\n");
	put("/kmsg.storm",
	    "4,100,1000,-;watchdog: BUG: soft lockup - CPU#6 stuck for 23s! [kworker/6:1:102]\n"
	    "6,101,1001,-;Workqueue: inode_switch_wbs inode_switch_wbs_work_fn\n"
	    "3,102,1002,-;BUG: workqueue lockup - pool cpus=5 node=1 flags=0x0 nice=0 stuck for "
	    "41s!\n"
	    "6,103,1003,-;    pending: 3*inode_switch_wbs_work_fn\n"
	    "4,104,1004,-;workqueue: inode_switch_wbs_work_fn hogged CPU for >10000us 4 times, "
	    "consider switching to WQ_UNBOUND\n"
	    "3,105,1005,-;INFO: task ll_ping:4242 blocked for more than 122 seconds.\n"
	    "3,106,1006,-;rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:\n"
	    "3,107,1007,-;LustreError: 11-0: fs-MDT0000-mdc: Connection to fs-MDT0000 (at "
	    "10.0.0.1@o2ib) was lost; in progress operations using this service will wait\n"
	    "3,108,1008,-;LustreError: 167-0: fs-OST0001-osc: This client was evicted by "
	    "fs-OST0001; in progress operations using this service will fail.\n");
	put("/kmsg.quiet", "6,1,1,-;EXT4-fs (nvme0n1p2): mounted filesystem\n");
}

static void test_cgroup(void)
{
	char dir[4096], want[4096], why[256];
	struct golden_cgmem m;
	int v = 0;

	struct golden_cg_roots roots;

	ok(golden_cg_roots_read(root, &roots) == 0 && !roots.v1_memory[0],
	   "one pass: no v1 memory");
	is(roots.v2, "/sys/fs/cgroup", "cgroup2 root");
	ok(golden_cg_step_dir(root, &roots, dir, sizeof(dir), &v) == 0,
	   "v2: step dir found from /proc/self/cgroup");
	snprintf(want, sizeof(want), "%s" STEP, root);
	is(dir, want, "v2: slurmstepd's .../step_0/slurm maps to its step");
	is_int(v, 2, "v2 hierarchy");
	ok(golden_cg_writeback_on(root, &roots, why, sizeof(why)) == 1,
	   "memory+io on v2: exposed (%s)", why);
	ok(golden_cg_measure(root, dir, 2, &m) == 0, "memory.stat read");
	is_int((long)m.dirty, 1073741824L, "file_dirty");
	is_int((long)m.writeback, 52428800L, "file_writeback");
	is_int((long)m.inodes, 120400L,
	       "wb_stats inodes of the step's cgroup and its task cgroups (not the root wb)");
}

static void test_probe_v2(void)
{
	struct golden_teardown_opts o = GOLDEN_TEARDOWN_DEFAULTS;
	static struct golden_teardown_result r;

	o.sysroot = root;
	o.mode = GOLDEN_FLUSH_OFF;
	golden_teardown_probe(NULL, &o, &r);
	is(r.action, "off", "flush off: measured only");
	ok(r.exposed, "exposed node");
	o.mode = GOLDEN_FLUSH_AUTO;
	o.threshold_bytes = 4LL << 30;
	o.threshold_inodes = 1000000;
	golden_teardown_probe(NULL, &o, &r);
	is(r.action, "below-threshold",
	   "1 GiB / 120k inodes under a 4 GiB / 1M threshold: nothing done");
	o.threshold_inodes = 100000;
	golden_teardown_probe(NULL, &o, &r);
	/* The fixture's mounts are the real / (ext4 here) etc.; syncfs works. */
	ok(!strcmp(r.action, "flushed") || !strcmp(r.action, "flush-failed"),
	   "inodes over threshold on an exposed node: flush attempted (%s)", r.action);
	is_int(r.nmounts, 3,
	       "targets: / (once for two bind mounts), /scratch, /lustre; not ro, not tmpfs");
}

static void test_numa(void)
{
	static struct golden_cpustat a, b;
	int cpu_node[GOLDEN_MAX_CPUS];
	double pct[GOLDEN_MAX_NUMA];
	char p0[4096], p1[4096];
	unsigned char set[16] = {0};

	ok(golden_stall_cpulist_parse("0-2,5,7-8", set, 16) == 0 && set[0] && set[2] && !set[3] &&
	       set[5] && set[8] && !set[9],
	   "cpulist 0-2,5,7-8");
	ok(golden_stall_cpulist_parse("3-1", set, 16) < 0, "cpulist 3-1 rejected");
	is_int(golden_stall_numa_map(root, cpu_node, GOLDEN_MAX_CPUS), 2, "two NUMA nodes");
	ok(cpu_node[3] == 0 && cpu_node[4] == 1 && cpu_node[9] == -1, "cpu -> node");
	snprintf(p0, sizeof(p0), "%s/stat-0", root);
	snprintf(p1, sizeof(p1), "%s/stat-1", root);
	ok(golden_stall_cpustat_read(p0, &a) == 0 && golden_stall_cpustat_read(p1, &b) == 0,
	   "samples read");
	is_int(golden_stall_numa_sys_pct(&a, &b, cpu_node, pct, 2), 2, "both nodes sampled");
	ok(pct[0] > 4 && pct[0] < 6, "numa0 5%% system (%.1f)", pct[0]);
	ok(pct[1] > 97 && pct[1] < 99, "numa1 98%% system (%.1f)", pct[1]);
	is_int(golden_stall_numa_sys_pct(&a, &a, cpu_node, pct, 2), 0,
	       "a static file gives no sample");
}

static void test_detect(void)
{
	static struct golden_stall_evidence ev;
	char kmsg[4096];
	int cpu_node[GOLDEN_MAX_CPUS];

	snprintf(kmsg, sizeof(kmsg), "%s/kmsg.storm", root);
	golden_stall_detect(root, kmsg, NULL, 10, &ev);
	is_int(ev.kworkers, 2, "two +inode_switch_wbs kworkers (not kworker/1:0-events)");
	is_int(ev.kworkers_node[1], 2, "both on numa1 (stat field 39: CPUs 5 and 6)");
	is_int(ev.soft_lockups, 1, "soft lockup line");
	is_int(ev.wq_lockups, 1, "workqueue lockup line");
	is_int(ev.wb_lines, 3, "inode_switch_wbs lines (Workqueue:, pending:, hogged)");
	is_int(ev.hogs, 1, "hogged CPU line");
	is_int(ev.hung_tasks, 1, "hung task line");
	is_int(ev.rcu_stalls, 1, "rcu stall line");
	is_int(ev.lustre_victims, 2, "Lustre connection lost + evicted: victims");
	is_int(ev.lockup_node, 1, "soft lockup CPU#6 is on numa1");
	ok(ev.psi_cpu_some10 > 87 && ev.psi_cpu_some10 < 88, "PSI cpu avg10");
	is_int(ev.dying_cgroups, 17, "dying cgroups");
	ok(ev.storm, "storm: %s", ev.summary);
	is_int(ev.node, 1, "attributed to numa1");

	snprintf(kmsg, sizeof(kmsg), "%s/kmsg.quiet", root);
	golden_stall_detect(root, kmsg, NULL, 10, &ev);
	ok(!ev.storm, "two switch kworkers without lockups or a pinned node: no storm");

	/* The log alone: a stall that happened, not one in progress. */
	memset(&ev, 0, sizeof(ev));
	ev.nnodes = 2;
	ev.wb_lines = 2;
	ev.soft_lockups = 1;
	ev.lockup_node = 1;
	golden_stall_classify(&ev);
	ok(!ev.storm && ev.past, "log lines without live evidence: a past stall, not in progress");

	/* The CPU sample alone decides when the log is quiet. */
	memset(&ev, 0, sizeof(ev));
	ev.nnodes = 2;
	ev.kworkers = 1;
	ev.kworkers_node[1] = 1;
	ev.cpu_sampled = true;
	ev.sys_pct[0] = 4;
	ev.sys_pct[1] = 99;
	ev.lockup_node = -1;
	golden_stall_classify(&ev);
	ok(ev.storm && ev.node == 1, "one switch kworker + numa1 at 99%% system: storm on numa1");
	memset(&ev, 0, sizeof(ev));
	ev.nnodes = 2;
	ev.lockup_node = -1;
	for (int i = 0; i < GOLDEN_MAX_CPUS; i++)
		cpu_node[i] = i < 4 ? 0 : 1;
	golden_stall_kmsg_line("watchdog: BUG: soft lockup - CPU#2 stuck for 22s! [python:99]",
	                       cpu_node, GOLDEN_MAX_CPUS, &ev);
	golden_stall_classify(&ev);
	ok(!ev.storm && !ev.past, "a soft lockup without writeback switching is not this stall");
	is_int(ev.lockup_node, 0, "CPU#2 -> numa0");
}

static const struct golden_check storage_chk = {"mounts", GOLDEN_CHK_STORAGE, NULL, 3000, 1};
static const struct golden_check stall_chk = {"wb-stall", GOLDEN_CHK_KERNEL, NULL, 2000, 2};
static const struct golden_check gpu_chk = {"gpu-count", GOLDEN_CHK_GPU, NULL, 2000, 1};

/* A report whose first outcome is a storage check killed at its deadline. */
static void storage_timed_out(struct golden_run_report *rep, const struct golden_check *second)
{
	memset(rep, 0, sizeof(*rep));
	rep->n = 2;
	rep->out[0].chk = &storage_chk;
	rep->out[0].timed_out = true;
	rep->out[0].res.status = GOLDEN_ST_FAIL;
	rep->out[0].res.action = GOLDEN_ACTION_DRAIN;
	rep->out[1].chk = second;
	rep->worst = 0;
}

static void test_attribute(void)
{
	static struct golden_run_report rep;
	static struct golden_stall_evidence ev;
	char state[4096], code[64];

	snprintf(state, sizeof(state), "%s/state", root);
	storage_timed_out(&rep, &gpu_chk);
	snprintf(rep.out[0].res.code, sizeof(rep.out[0].res.code), "mounts timeout");
	is_int(golden_stall_attribute(&rep, state, root), 0,
	       "no stall known: storage keeps the blame");
	is(rep.out[0].res.code, "mounts timeout", "code unchanged");

	ev.node = 1;
	snprintf(ev.summary, sizeof(ev.summary), "fixture");
	ok(golden_stall_mark(state, root, &ev) == 0, "stall marked in the node state");
	ok(golden_stall_marked(state, root, code, sizeof(code)), "marker read back");
	is(code, "kernel wb-switch stall numa1", "marker code");
	is_int(golden_stall_attribute(&rep, state, root), 1,
	       "a storage timeout while the stall is marked is re-attributed");
	is(rep.out[0].res.code, "kernel wb-switch stall numa1", "reason code blames the kernel");
	ok(strstr(rep.out[0].res.detail, "victim") && strstr(rep.out[0].res.detail, "timed out"),
	   "detail: %s", rep.out[0].res.detail);
	golden_stall_unmark(state);
	ok(!golden_stall_marked(state, root, code, sizeof(code)), "unmarked once the storm passed");

	/* In the same run: the wb-stall outcome decides, not the marker. */
	storage_timed_out(&rep, &stall_chk);
	rep.out[1].res.status = GOLDEN_ST_FAIL;
	rep.out[1].res.action = GOLDEN_ACTION_DRAIN;
	snprintf(rep.out[1].res.code, sizeof(rep.out[1].res.code), "kernel wb-switch stall numa0");
	is_int(golden_stall_attribute(&rep, state, root), 1, "same run: storage re-attributed");
	is_int(rep.worst, 1, "the kernel outcome is the worst (same severity, kernel first)");
	/* A marker from an earlier run is set, but this run's wb-stall passed:
	 * the stall is over and the timeout is storage's again. */
	storage_timed_out(&rep, &stall_chk);
	ok(golden_stall_mark(state, root, &ev) == 0, "an earlier run's marker is still set");
	is_int(golden_stall_attribute(&rep, state, root), 0,
	       "wb-stall ran and passed: a storage timeout stays storage's despite the marker");
	golden_stall_unmark(state);
}

static void test_exposure(void)
{
	static const struct {
		int a, b, c;
		enum golden_kernel_fix want;
	} cases[] = {
	    {5, 10, 200, GOLDEN_KFIX_NO_SWITCHING}, {5, 14, 0, GOLDEN_KFIX_UNFIXED},
	    {5, 15, 190, GOLDEN_KFIX_UNFIXED},      {6, 1, 156, GOLDEN_KFIX_UNFIXED},
	    {6, 1, 157, GOLDEN_KFIX_PARTIAL},       {6, 1, 177, GOLDEN_KFIX_PARTIAL},
	    {6, 1, 178, GOLDEN_KFIX_FIXED},         {6, 6, 144, GOLDEN_KFIX_UNFIXED},
	    {6, 6, 145, GOLDEN_KFIX_FIXED},         {6, 8, 0, GOLDEN_KFIX_UNFIXED},
	    {6, 12, 53, GOLDEN_KFIX_UNFIXED},       {6, 12, 54, GOLDEN_KFIX_PARTIAL},
	    {6, 12, 93, GOLDEN_KFIX_PARTIAL},       {6, 12, 94, GOLDEN_KFIX_FIXED},
	    {6, 17, 4, GOLDEN_KFIX_PARTIAL},        {6, 18, 0, GOLDEN_KFIX_PARTIAL},
	    {6, 18, 24, GOLDEN_KFIX_PARTIAL},       {6, 18, 25, GOLDEN_KFIX_FIXED},
	    {6, 19, 3, GOLDEN_KFIX_PARTIAL},        {7, 0, 1, GOLDEN_KFIX_PARTIAL},
	    {7, 0, 2, GOLDEN_KFIX_FIXED},           {7, 1, 0, GOLDEN_KFIX_FIXED},
	};
	static struct golden_exposure e;
	char why[256], text[4096];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		is(golden_exposure_fix_name(golden_exposure_kernel_fix(
		       cases[i].a, cases[i].b, cases[i].c, why, sizeof(why))),
		   golden_exposure_fix_name(cases[i].want), "%d.%d.%d", cases[i].a, cases[i].b,
		   cases[i].c);
	put("/sys/fs/lustre/version", "2.15.4\n");
	golden_exposure_read(root, &e);
	is_int(e.nfs, 4, "a 2.15 Lustre client has no cgroup writeback: not listed");
	put("/sys/fs/lustre/version", "2.16.1\n");
	golden_exposure_read(root, &e);
	ok(e.exposed, "fixture node (6.12.40, v2 memory+io, ext4/xfs/lustre 2.16) is exposed");
	is_int(e.nfs, 5,
	       "cgroup-writeback filesystems listed (/, /var/tmp, /scratch, /ro, /lustre)");
	golden_exposure_format(&e, text, sizeof(text));
	ok(strstr(text, "EXPOSED") && strstr(text, "6.12.94") &&
	       strstr(text, "/scratch xfs noatime, lazytime"),
	   "report:\n%s", text);
}

/* memory.stat and wb_stats values at the edge of long long: sums
 * saturate instead of overflowing (this runs under UBSan in CI). */
static void test_extremes(void)
{
	struct golden_teardown_opts o = GOLDEN_TEARDOWN_DEFAULTS;
	static struct golden_teardown_result r;
	char dir[4096], wb[1024], path[4096];
	struct golden_cgmem m;
	struct stat st;

	snprintf(path, sizeof(path), "%s" STEP, root);
	stat(path, &st);
	put(STEP "/memory.stat", "file_dirty 9223372036854775807\n"
	                         "file_writeback 9223372036854775807\n");
	snprintf(wb, sizeof(wb),
	         "WbCgIno: %lu\nb_dirty: 9223372036854775807\nb_io: 9223372036854775807\n"
	         "b_more_io: 99999999999999999999999\nb_dirty_time: -5\n",
	         (unsigned long)st.st_ino);
	put("/sys/kernel/debug/bdi/259:0/wb_stats", wb);
	put("/sys/kernel/debug/bdi/259:1/wb_stats", wb);
	snprintf(dir, sizeof(dir), "%s" STEP, root);
	ok(golden_cg_measure(root, dir, 2, &m) == 0, "extreme memory.stat read");
	ok(m.inodes == LLONG_MAX, "wb_stats inodes saturate at LLONG_MAX across files and lines");
	o.sysroot = root;
	o.mode = GOLDEN_FLUSH_OFF;
	golden_teardown_probe(NULL, &o, &r);
	is(r.action, "off", "dirty + writeback at LLONG_MAX each: over threshold, no overflow");
	{
		static char text[] = "WbCgIno: 7\nb_dirty: x\nb_io:\nnot a line\nb_more_io: 3\n";
		static const unsigned long seven[] = {7};
		FILE *f;

		f = fmemopen(text, strlen(text), "r");
		ok(f && golden_cg_wb_stats_parse(f, seven, 1) == 3,
		   "lines that are not key: number are skipped");
		if (f)
			fclose(f);
	}
	snprintf(path, sizeof(path), "%s/sys/kernel/debug/bdi/259:1/wb_stats", root);
	unlink(path);
	*strrchr(path, '/') = '\0';
	rmdir(path);
	make_tree();
}

int main(void)
{
	if (!mkdtemp(root)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	make_tree();
	test_cgroup();
	test_probe_v2();
	test_extremes();
	test_numa();
	test_detect();
	test_attribute();
	test_exposure();
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return done_testing();
}
