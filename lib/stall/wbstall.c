#include <config.h>

#include "stall/wbstall.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "stall/cgmem.h"
#include "util/kmsg.h"
#include "util/statefile.h"
#include "util/strutil.h"
#include "util/sysroot.h"

#define SATURATED_PCT 90.0 /* a whole node's CPUs busy in the kernel */
#define MANY_KWORKERS 4    /* more than the odd cgroup removal on a healthy node */

int golden_stall_cpulist_parse(const char *s, unsigned char *set, int ncpu)
{
	while (*s && *s != '\n') {
		char *end;
		long a = strtol(s, &end, 10), b;

		if (end == s || a < 0)
			return -1;
		b = a;
		if (*end == '-') {
			s = end + 1;
			b = strtol(s, &end, 10);
			if (end == s || b < a)
				return -1;
		}
		for (long c = a; c <= b && c < ncpu; c++)
			set[c] = 1;
		s = end;
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -1;
	}
	return 0;
}

int golden_stall_numa_map(const char *sysroot, int *cpu_node, int ncpu)
{
	DIR *d = golden_sys_opendir(sysroot, "/sys/devices/system/node");
	struct dirent *e;
	int nodes = 0;

	for (int i = 0; i < ncpu; i++)
		cpu_node[i] = -1;
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char rel[300], list[4096];
		unsigned char *set;
		int n;

		if (strncmp(e->d_name, "node", 4) || !isdigit((unsigned char)e->d_name[4]))
			continue;
		n = atoi(e->d_name + 4);
		if (n >= GOLDEN_MAX_NUMA)
			continue;
		snprintf(rel, sizeof(rel), "/sys/devices/system/node/%s/cpulist", e->d_name);
		if (golden_sys_read(sysroot, rel, list, sizeof(list)) < 0 ||
		    !(set = calloc((size_t)ncpu, 1)))
			continue;
		if (golden_stall_cpulist_parse(list, set, ncpu) == 0)
			for (int c = 0; c < ncpu; c++)
				if (set[c])
					cpu_node[c] = n;
		free(set);
		if (n + 1 > nodes)
			nodes = n + 1;
	}
	closedir(d);
	return nodes;
}

int golden_stall_cpustat_read(const char *path, struct golden_cpustat *s)
{
	FILE *f = fopen(path, "re");
	int rc;

	memset(s, 0, sizeof(*s));
	if (!f)
		return -1;
	rc = golden_stall_cpustat_parse(f, s);
	fclose(f);
	return rc;
}

int golden_stall_cpustat_parse(FILE *f, struct golden_cpustat *s)
{
	char line[512];

	memset(s, 0, sizeof(*s));
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v[8] = {0};
		int cpu;

		if (strncmp(line, "cpu", 3) || !isdigit((unsigned char)line[3]))
			continue;
		if (sscanf(line + 3, "%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0],
		           &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) < 5 ||
		    cpu < 0 || cpu >= GOLDEN_MAX_CPUS)
			continue;
		s->present[cpu] = 1;
		/* user nice system idle iowait irq softirq steal */
		s->sys[cpu] = v[2] + v[5] + v[6];
		for (int i = 0; i < 8; i++)
			s->total[cpu] += v[i];
		if (cpu + 1 > s->ncpu)
			s->ncpu = cpu + 1;
	}
	return s->ncpu > 0 ? 0 : -1;
}

int golden_stall_numa_sys_pct(const struct golden_cpustat *a, const struct golden_cpustat *b,
                              const int *cpu_node, double *pct, int nnodes)
{
	unsigned long long sys[GOLDEN_MAX_NUMA] = {0}, tot[GOLDEN_MAX_NUMA] = {0};
	int have = 0;

	for (int c = 0; c < a->ncpu && c < b->ncpu; c++) {
		int n = cpu_node[c] < 0 ? 0 : cpu_node[c];

		if (!a->present[c] || !b->present[c] || n >= nnodes || b->total[c] < a->total[c])
			continue;
		sys[n] += b->sys[c] - a->sys[c];
		tot[n] += b->total[c] - a->total[c];
	}
	for (int n = 0; n < nnodes; n++) {
		pct[n] = tot[n] ? 100.0 * (double)sys[n] / (double)tot[n] : -1;
		have += tot[n] > 0;
	}
	return have;
}

/* kworkers executing inode_switch_wbs work show it in their comm
 * ("kworker/3:1+inode_switch_wbs"); field 39 of stat is their CPU. */
static void scan_kworkers(const char *sysroot, const int *cpu_node,
                          struct golden_stall_evidence *ev)
{
	DIR *d = golden_sys_opendir(sysroot, "/proc");
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char rel[300], comm[128], stat[1024], *p;
		int cpu = -1, node;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		snprintf(rel, sizeof(rel), "/proc/%s/comm", e->d_name);
		if (golden_sys_read(sysroot, rel, comm, sizeof(comm)) < 0 ||
		    !golden_str_startswith(comm, "kworker") || !strstr(comm, "+inode_switch_wbs"))
			continue;
		ev->kworkers++;
		snprintf(rel, sizeof(rel), "/proc/%s/stat", e->d_name);
		if (golden_sys_read(sysroot, rel, stat, sizeof(stat)) >= 0 &&
		    (p = strrchr(stat, ')'))) {
			int field = 2;

			for (p++; *p && field < 39; p++)
				if (*p == ' ')
					field++;
			if (field == 39)
				cpu = atoi(p);
		}
		node = cpu >= 0 && cpu < GOLDEN_MAX_CPUS && cpu_node[cpu] >= 0 ? cpu_node[cpu] : 0;
		if (node < GOLDEN_MAX_NUMA)
			ev->kworkers_node[node]++;
	}
	closedir(d);
}

static int node_of(const int *cpu_node, int ncpu, long cpu)
{
	return cpu >= 0 && cpu < ncpu && cpu_node[cpu] >= 0 ? cpu_node[cpu] : -1;
}

void golden_stall_kmsg_line(const char *msg, const int *cpu_node, int ncpu,
                            struct golden_stall_evidence *ev)
{
	const char *p;

	if ((p = strstr(msg, "soft lockup - CPU#"))) {
		ev->soft_lockups++;
		if (ev->lockup_node < 0)
			ev->lockup_node = node_of(cpu_node, ncpu, strtol(p + 18, NULL, 10));
	}
	if ((p = strstr(msg, "BUG: workqueue lockup - pool cpus="))) {
		ev->wq_lockups++;
		if (ev->lockup_node < 0)
			ev->lockup_node = node_of(cpu_node, ncpu, strtol(p + 34, NULL, 10));
	}
	if (strstr(msg, "inode_switch_wbs"))
		ev->wb_lines++;
	if (strstr(msg, "hogged CPU for >") && strstr(msg, "consider switching to WQ_UNBOUND"))
		ev->hogs++;
	if (strstr(msg, "INFO: task ") && strstr(msg, " blocked for more than "))
		ev->hung_tasks++;
	if (strstr(msg, "rcu: INFO: rcu_") && strstr(msg, "detected stalls"))
		ev->rcu_stalls++;
	else if (strstr(msg, "rcu:") && strstr(msg, "self-detected stall"))
		ev->rcu_stalls++;
	if ((strstr(msg, "Lustre") || strstr(msg, "LustreError")) &&
	    ((strstr(msg, "Connection to ") && strstr(msg, " was lost")) ||
	     strstr(msg, "This client was evicted by")))
		ev->lustre_victims++;
}

struct kmsg_arg {
	const int *cpu_node;
	struct golden_stall_evidence *ev;
};

static int on_kmsg(uint64_t seq, uint64_t ts, int facility, int level, const char *msg, void *arg)
{
	struct kmsg_arg *a = arg;

	(void)seq;
	(void)ts;
	(void)level;
	/* Only root writes /dev/kmsg: kernel and user facility are both trusted. */
	if (facility == GOLDEN_KMSG_FAC_KERNEL || facility == GOLDEN_KMSG_FAC_USER)
		golden_stall_kmsg_line(msg, a->cpu_node, GOLDEN_MAX_CPUS, a->ev);
	return 0;
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void read_context(const char *sysroot, struct golden_stall_evidence *ev)
{
	char buf[4096], *p;
	struct golden_cg_roots roots;

	ev->psi_cpu_some10 = -1;
	ev->dying_cgroups = -1;
	if (golden_sys_read(sysroot, "/proc/pressure/cpu", buf, sizeof(buf)) >= 0 &&
	    (p = strstr(buf, "avg10=")))
		ev->psi_cpu_some10 = strtod(p + 6, NULL);
	if (golden_cg_roots_read(sysroot, &roots) == 0 && roots.v2[0]) {
		char rel[PATH_MAX + 16];

		snprintf(rel, sizeof(rel), "%s/cgroup.stat", roots.v2);
		if (golden_sys_read_all(sysroot, rel, buf, sizeof(buf)) >= 0)
			ev->dying_cgroups = (long)golden_cg_keyed(buf, "nr_dying_descendants");
	}
}

void golden_stall_classify(struct golden_stall_evidence *ev)
{
	bool lockups = ev->soft_lockups || ev->wq_lockups || ev->hogs || ev->rcu_stalls;
	int sat = -1, kw = -1, best = 0;
	size_t o = 0;

	for (int n = 0; n < ev->nnodes && n < GOLDEN_MAX_NUMA; n++) {
		if (ev->cpu_sampled && ev->sys_pct[n] >= SATURATED_PCT && sat < 0)
			sat = n;
		if (ev->kworkers_node[n] > best) {
			best = ev->kworkers_node[n];
			kw = n;
		}
	}
	/* The switch work alone is normal whenever a cgroup goes away; a storm
	 * is that work together with a node pinned in the kernel or lockups. */
	/* In progress needs live evidence (switch kworkers now, or the switch
	 * lines with a node pinned now); log lines alone tell of a past one. */
	ev->storm = (ev->kworkers > 0 && (sat >= 0 || lockups || ev->kworkers >= MANY_KWORKERS)) ||
	            (ev->wb_lines > 0 && sat >= 0);
	ev->past = !ev->storm && ev->wb_lines > 0 && lockups;
	ev->node = kw >= 0 ? kw : ev->lockup_node >= 0 ? ev->lockup_node : sat;
	o += (size_t)snprintf(ev->summary + o, sizeof(ev->summary) - o,
	                      "%d inode_switch_wbs kworkers", ev->kworkers);
	if (kw >= 0)
		o += (size_t)snprintf(ev->summary + o, sizeof(ev->summary) - o, " (%d on numa%d)",
		                      best, kw);
	for (int n = 0; ev->cpu_sampled && n < ev->nnodes && o < sizeof(ev->summary); n++)
		if (ev->sys_pct[n] >= 0)
			o += (size_t)snprintf(ev->summary + o, sizeof(ev->summary) - o,
			                      ", numa%d sys %.0f%%", n, ev->sys_pct[n]);
	if (o < sizeof(ev->summary))
		o += (size_t)snprintf(
		    ev->summary + o, sizeof(ev->summary) - o,
		    "; log: %d soft lockup, %d workqueue lockup, %d inode_switch_wbs, %d hog, "
		    "%d hung task, %d rcu stall, %d lustre victim",
		    ev->soft_lockups, ev->wq_lockups, ev->wb_lines, ev->hogs, ev->hung_tasks,
		    ev->rcu_stalls, ev->lustre_victims);
	if (o < sizeof(ev->summary) && ev->psi_cpu_some10 >= 0)
		o += (size_t)snprintf(ev->summary + o, sizeof(ev->summary) - o,
		                      "; psi cpu avg10 %.1f", ev->psi_cpu_some10);
	if (o < sizeof(ev->summary) && ev->dying_cgroups >= 0)
		snprintf(ev->summary + o, sizeof(ev->summary) - o, "; %ld dying cgroups",
		         ev->dying_cgroups);
}

void golden_stall_detect(const char *sysroot, const char *kmsg, const char *cursor_dir,
                         int window_ms, struct golden_stall_evidence *ev)
{
	static int cpu_node[GOLDEN_MAX_CPUS];
	struct golden_cpustat *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
	struct golden_kmsg_stats st;
	struct kmsg_arg karg;
	char statp[PATH_MAX];

	memset(ev, 0, sizeof(*ev));
	karg = (struct kmsg_arg){cpu_node, ev};
	ev->lockup_node = -1;
	ev->nnodes = golden_stall_numa_map(sysroot, cpu_node, GOLDEN_MAX_CPUS);
	if (ev->nnodes < 1)
		ev->nnodes = 1;
	scan_kworkers(sysroot, cpu_node, ev);
	if (a && b && golden_sys_path(sysroot, "/proc/stat", statp, sizeof(statp)) == 0 &&
	    golden_stall_cpustat_read(statp, a) == 0) {
		sleep_ms(window_ms);
		if (golden_stall_cpustat_read(statp, b) == 0)
			ev->cpu_sampled =
			    golden_stall_numa_sys_pct(a, b, cpu_node, ev->sys_pct, ev->nnodes) > 0;
	}
	free(a);
	free(b);
	read_context(sysroot, ev);
	golden_kmsg_scan(kmsg, cursor_dir, sysroot, false, on_kmsg, &karg, &st);
	ev->kmsg_records = st.records;
	ev->kmsg_seq = st.last_seq;
	golden_strlcpy(ev->kmsg_boot, st.boot_id, sizeof(ev->kmsg_boot));
	golden_stall_classify(ev);
}

static void mark_path(const char *state_dir, char *buf, size_t len)
{
	snprintf(buf, len, "%s/" GOLDEN_STALL_MARK, state_dir);
}

int golden_stall_mark(const char *state_dir, const char *sysroot,
                      const struct golden_stall_evidence *ev)
{
	char path[PATH_MAX], boot[GOLDEN_KMSG_BOOTID_LEN], text[1024];
	int n;

	if (!state_dir || golden_mkdir_p(state_dir) < 0)
		return -1;
	golden_kmsg_boot_id(sysroot, boot, sizeof(boot));
	n = snprintf(text, sizeof(text), "boot %s\nsince %lld\nnode %d\nevidence %s\n", boot,
	             (long long)time(NULL), ev->node, ev->summary);
	mark_path(state_dir, path, sizeof(path));
	return golden_write_atomic(path, text,
	                           (size_t)(n < (int)sizeof(text) ? n : (int)sizeof(text) - 1));
}

void golden_stall_unmark(const char *state_dir)
{
	char path[PATH_MAX];

	if (!state_dir)
		return;
	mark_path(state_dir, path, sizeof(path));
	golden_unlink_trusted(path);
}

bool golden_stall_marked(const char *state_dir, const char *sysroot, char *code, size_t len)
{
	char path[PATH_MAX], boot[GOLDEN_KMSG_BOOTID_LEN], mboot[64] = "", *text, *save = NULL;
	int node = -1;

	if (!state_dir)
		return false;
	mark_path(state_dir, path, sizeof(path));
	if (!(text = golden_read_trusted(path, 4096, NULL)))
		return false;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "boot %63s", mboot) == 1)
			continue;
		if (sscanf(line, "node %d", &node) == 1 && (node < 0 || node >= GOLDEN_MAX_NUMA))
			node = -1;
	}
	free(text);
	golden_kmsg_boot_id(sysroot, boot, sizeof(boot));
	/* A stall does not survive a reboot. */
	if (strcmp(mboot, boot))
		return false;
	if (node >= 0)
		snprintf(code, len, "kernel wb-switch stall numa%d", node);
	else
		snprintf(code, len, "kernel wb-switch stall");
	return true;
}

static bool worse(const struct golden_check_outcome *a, const struct golden_check_outcome *b)
{
	if (a->res.status != b->res.status)
		return a->res.status > b->res.status;
	if (a->res.action != b->res.action)
		return a->res.action > b->res.action;
	/* Same severity: the kernel explains the rest. */
	return a->chk->cls == GOLDEN_CHK_KERNEL && b->chk->cls != GOLDEN_CHK_KERNEL;
}

int golden_stall_attribute(struct golden_run_report *rep, const char *state_dir,
                           const char *sysroot)
{
	char code[GOLDEN_CODE_LEN] = "";
	bool ran = false, stall = false, storage_failed = false;
	int changed = 0;

	for (int i = 0; i < rep->n; i++)
		storage_failed |=
		    rep->out[i].chk->cls == GOLDEN_CHK_STORAGE &&
		    (rep->out[i].res.status == GOLDEN_ST_FAIL || rep->out[i].timed_out);
	/* Nothing to re-attribute: do not even read the marker (prolog budget). */
	if (!storage_failed)
		return 0;
	for (int i = 0; i < rep->n; i++)
		if (!strcmp(rep->out[i].chk->name, "wb-stall")) {
			ran = true;
			if (rep->out[i].res.status == GOLDEN_ST_FAIL && !rep->out[i].timed_out) {
				stall = true;
				golden_strlcpy(code, rep->out[i].res.code, sizeof(code));
			}
		}
	if (!ran)
		stall = golden_stall_marked(state_dir, sysroot, code, sizeof(code));
	if (!stall)
		return 0;
	for (int i = 0; i < rep->n; i++) {
		struct golden_check_outcome *o = &rep->out[i];
		char was[GOLDEN_DETAIL_LEN];

		if (o->chk->cls != GOLDEN_CHK_STORAGE ||
		    (o->res.status != GOLDEN_ST_FAIL && !o->timed_out))
			continue;
		snprintf(was, sizeof(was), "%s%s%s", o->res.code, o->res.code[0] ? ": " : "",
		         o->res.detail);
		o->res.status = GOLDEN_ST_FAIL;
		o->res.action = GOLDEN_ACTION_DRAIN;
		golden_strlcpy(o->res.code, code, sizeof(o->res.code));
		if (snprintf(o->res.detail, sizeof(o->res.detail),
		             "storage is the victim, not the cause: %s check %s while a cgroup "
		             "writeback inode-switch stall holds the node (%s)",
		             o->chk->name, o->timed_out ? "timed out" : "failed",
		             was) >= (int)sizeof(o->res.detail))
			o->res.detail[sizeof(o->res.detail) - 2] = '.'; /* cut: mark it */
		changed++;
	}
	if (changed) {
		rep->worst = -1;
		for (int i = 0; i < rep->n; i++)
			if (rep->out[i].res.status != GOLDEN_ST_OK &&
			    (rep->worst < 0 || worse(&rep->out[i], &rep->out[rep->worst])))
				rep->worst = i;
	}
	return changed;
}
