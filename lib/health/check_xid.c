/* The "xid" health check: NVIDIA GPU and NVSwitch faults that the driver
 * logged to the kernel log since the last run.
 *
 * Each run reads only the records after the cursor in the state directory
 * (kmsg.c), so a fault is reported once per boot, not until logrotate as
 * with a syslog grep (azurehpc#648). The check does not move the cursor: it
 * says how far it read (res->commit) and the caller saves that once the
 * node's lifecycle has acted on the result (drained, or recorded the drain
 * as owed). A dry run, or a ledger that cannot be written, leaves the fault
 * to be seen again. The drain then lasts until the reset/reboot the action
 * asks for, not because we keep re-reporting it.
 *
 * Application faults (13, 31, 43, 45, ...) are recorded as warnings and
 * never drain: a broken kernel must not take a node away from the next
 * job. The worst verdict decides the result and its short code.
 */
#include <config.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "health/check.h"
#include "health/golden_conf.h"
#include "util/kmsg.h"
#include "util/strutil.h"
#include "health/xid.h"

#define PHASES                                                                                     \
	(GOLDEN_PHASE_PROLOG | GOLDEN_PHASE_EPILOG | GOLDEN_PHASE_MANUAL | GOLDEN_PHASE_HEALTH_ANY)
#define MAX_GROUPS 32 /* distinct (fault, device) pairs listed; the rest are counted */

struct group {
	struct golden_xid_event ev; /* the latest one */
	struct golden_xid_verdict v;
	int gpu; /* index into ctx->topo->gpus, -1 unknown */
	unsigned long count;
};

struct scan {
	const struct golden_check_ctx *ctx;
	struct group g[MAX_GROUPS];
	int n;
	unsigned long events, ignored, overflow, other_node;
};

static int gpu_index(const struct golden_topo *topo, const char *pci)
{
	char norm[GOLDEN_BUSID_LEN];

	if (!topo || !pci[0])
		return -1;
	for (int i = 0; i < topo->ngpus && i < GOLDEN_MAX_GPUS; i++) {
		const char *b = topo->gpus[i].busid;

		/* Normalise theirs too: NVML-style 8-digit domains, upper case. */
		if (golden_xid_pci_normalize(b, strnlen(b, sizeof(topo->gpus[i].busid)), norm,
		                             sizeof(norm)) == 0 &&
		    strcmp(norm, pci) == 0)
			return i;
	}
	return -1;
}

static bool same_group(const struct group *g, const struct golden_xid_event *ev,
                       const struct golden_xid_verdict *v)
{
	return g->ev.sxid == ev->sxid && g->ev.xid == ev->xid && g->ev.nvswitch == ev->nvswitch &&
	       strcmp(g->ev.pci, ev->pci) == 0 && g->v.status == v->status &&
	       g->v.action == v->action && strcmp(g->v.tag, v->tag) == 0;
}

static int on_record(uint64_t seq, uint64_t ts_usec, int facility, int level, const char *msg,
                     void *arg)
{
	struct scan *s = arg;
	const struct golden_check_ctx *ctx = s->ctx;
	const struct golden_xid_override *ovr = NULL;
	struct golden_xid_event ev;
	struct golden_xid_verdict v;

	(void)seq;
	(void)ts_usec;
	(void)level;
	/* The driver's own lines only: from the start of a record the kernel
	 * (or root, testing) wrote; never a kernel message quoting a user's
	 * text, nor a daemon forwarding one (util/kmsg.h). */
	if (!golden_xid_parse_record(facility, msg, &ev))
		return 0;
	s->events++;
	if (!ev.sxid && ctx->conf)
		ovr = golden_conf_xid(ctx->conf, ev.xid);
	golden_xid_classify(&ev, ovr, &v);
	if (v.ignored) {
		s->ignored++;
		return 0;
	}
	/* xid_scope = node-gpus: several slurmd share one host (and one kernel
	 * log), each with its own fixture; only faults on this node's GPUs
	 * count. Real nodes keep the default: a GPU that fell off the bus can
	 * vanish from the PCI tree, and its fault must still drain. */
	if (ctx->conf && ctx->conf->xid_scope_node_gpus && !ev.sxid && ctx->topo &&
	    gpu_index(ctx->topo, ev.pci) < 0) {
		s->other_node++;
		return 0;
	}
	for (int i = 0; i < s->n; i++) {
		if (same_group(&s->g[i], &ev, &v)) {
			struct golden_xid_event *old = &s->g[i].ev;

			/* Keep the latest event, but not at the cost of who caused
			 * it: the off-bus line after an Xid 79 names no process. */
			if (ev.pid < 0 && !ev.name[0]) {
				ev.pid = old->pid;
				memcpy(ev.name, old->name, sizeof(ev.name));
			}
			s->g[i].count++;
			*old = ev;
			return 0;
		}
	}
	if (s->n == MAX_GROUPS) {
		s->overflow++;
		return 0;
	}
	s->g[s->n].ev = ev;
	s->g[s->n].v = v;
	s->g[s->n].gpu = ev.sxid ? -1 : gpu_index(ctx->topo, ev.pci);
	s->g[s->n].count = 1;
	s->n++;
	return 0;
}

/* "gpu3", "gpu?", "nvsw3", "nvsw?" */
static void device_label(const struct group *g, char *buf, size_t len)
{
	int idx = g->ev.sxid ? g->ev.nvswitch : g->gpu;
	const char *kind = g->ev.sxid ? "nvsw" : "gpu";

	if (idx >= 0)
		snprintf(buf, len, "%s%d", kind, idx);
	else
		snprintf(buf, len, "%s?", kind);
}

/* Component first, then the fault: "gpu3 xid79 offbus", "nvsw3 sxid12028",
 * "gpu? xid95 0000:3b:00.0" (unknown device: the address says which). */
static void make_code(const struct group *g, char *buf, size_t len)
{
	char dev[16];
	bool unknown_dev = g->ev.sxid ? g->ev.nvswitch < 0 : g->gpu < 0;

	device_label(g, dev, sizeof(dev));
	if (unknown_dev && g->ev.pci[0])
		snprintf(buf, len, "%s %sxid%d %s", dev, g->ev.sxid ? "s" : "", g->ev.xid,
		         g->ev.pci);
	else if (g->ev.sxid)
		snprintf(buf, len, "%s sxid%d", dev, g->ev.xid);
	else
		snprintf(buf, len, "%s xid%d %s", dev, g->ev.xid, g->v.tag);
}

struct out {
	char *buf;
	size_t len;
	bool truncated;
};

static void __attribute__((format(printf, 2, 3))) put(struct out *o, const char *fmt, ...)
{
	size_t used = strlen(o->buf);
	va_list ap;
	int n;

	if (o->truncated)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + used, o->len - used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= o->len - used)
		o->truncated = true;
}

static void describe(struct out *o, const struct golden_check_ctx *ctx, const struct group *g)
{
	const struct golden_xid_event *ev = &g->ev;
	const char *job = ctx->job_id && ctx->job_id[0] ? ctx->job_id : NULL;
	char dev[16];

	device_label(g, dev, sizeof(dev));
	if (o->buf[0])
		put(o, "; ");
	if (g->v.app_error) {
		put(o, "app xid%d", ev->xid);
		if (g->count > 1)
			put(o, " x%lu", g->count);
		put(o, " %s", dev);
		if (ev->gi >= 0)
			put(o, " gi%d", ev->gi);
		if (ev->ci >= 0)
			put(o, " ci%d", ev->ci);
		if (ev->pid >= 0)
			put(o, " pid=%ld", ev->pid);
		if (ev->name[0] && strcmp(ev->name, "<unknown>") != 0)
			put(o, " name=%s", ev->name);
		if (job)
			put(o, " (job %s)", job);
		put(o, " - not drained");
		return;
	}
	put(o, "%s %sxid%d", dev, ev->sxid ? "s" : "", ev->xid);
	if (g->count > 1)
		put(o, " x%lu", g->count);
	if (ev->pci[0])
		put(o, " %s", ev->pci);
	if (ev->gi >= 0)
		put(o, " gi%d", ev->gi);
	if (ev->ci >= 0)
		put(o, " ci%d", ev->ci);
	if (ev->pid >= 0)
		put(o, " pid=%ld", ev->pid);
	if (ev->name[0] && strcmp(ev->name, "<unknown>") != 0)
		put(o, " name=%s", ev->name);
	if (job)
		put(o, " %s job %s", ctx->phase == GOLDEN_PHASE_PROLOG ? "before" : "during", job);
	put(o, ": %s", g->v.meaning);
	if (g->v.mnemonic && !strcmp(g->v.meaning, "Unused"))
		put(o, " (%s)", g->v.mnemonic);
	if (ev->xid == 154 && !ev->sxid)
		put(o, " (now: %s)", golden_xid_recovery_name(ev->recovery_action));
	if (ev->subcode >= 0)
		put(o, " (subcode %d)", ev->subcode);
	if (ev->fatal >= 0 && (ev->sxid || ev->subcode >= 0))
		put(o, " %s", ev->fatal ? "fatal" : "non-fatal");
	if (!g->v.known && ev->text[0])
		put(o, " \"%.60s\"", ev->text);
	put(o, " -> %s",
	    g->v.status == GOLDEN_ST_FAIL ? golden_check_action_name(g->v.action)
	                                  : golden_check_status_name(g->v.status));
	if (g->v.overridden)
		put(o, " (golden.conf)");
}

/* Severity order for listing: fail (worst action first), warn, app, ok. */
static int rank(const struct group *g)
{
	if (g->v.status == GOLDEN_ST_FAIL)
		return 10 + (int)g->v.action;
	if (g->v.status == GOLDEN_ST_WARN)
		return g->v.app_error ? 4 : 5;
	return 0;
}

static void check_xid(const struct golden_check_ctx *ctx, struct golden_check_result *res)
{
	struct scan s;
	struct golden_kmsg_stats st;
	const char *state_dir = ctx->state_dir;
	const char *path = ctx->kmsg_path ? ctx->kmsg_path : "/dev/kmsg";
	char detail[GOLDEN_DETAIL_LEN] = "";
	struct out o = {detail, sizeof(detail), false};
	int rc, err = 0;

	memset(&s, 0, sizeof(s));
	s.ctx = ctx;
	if ((!state_dir || !state_dir[0]) && ctx->conf && ctx->conf->state_dir[0])
		state_dir = ctx->conf->state_dir;
	if (state_dir && !state_dir[0])
		state_dir = NULL;
	rc = golden_kmsg_scan(ctx->kmsg_path, state_dir, ctx->sysroot, false, on_record, &s, &st);
	if (rc < 0)
		err = errno;
	if (state_dir && st.records) {
		struct golden_check_commit *c = &res->commit;

		c->set = true;
		golden_strlcpy(c->dir, state_dir, sizeof(c->dir));
		golden_strlcpy(c->name, GOLDEN_KMSG_CURSOR, sizeof(c->name));
		golden_strlcpy(c->boot_id, st.boot_id, sizeof(c->boot_id));
		c->seq = st.last_seq;
	}

	for (int r = 20; r >= 0; r--) {
		for (int i = 0; i < s.n; i++) {
			const struct group *g = &s.g[i];
			char code[GOLDEN_CODE_LEN];

			if (rank(g) != r)
				continue;
			make_code(g, code, sizeof(code));
			if (g->v.status == GOLDEN_ST_FAIL)
				golden_check_fail(res, g->v.action, code, "%s", code);
			else if (g->v.status == GOLDEN_ST_WARN)
				golden_check_warn(res, code, "%s", code);
			describe(&o, ctx, g);
		}
	}
	if (s.overflow)
		put(&o, "; %lu more", s.overflow);
	if (rc < 0) {
		golden_check_warn(res, "kmsg unreadable", "%s", path);
		put(&o, "%scannot read %s: %s", detail[0] ? "; " : "", path, strerror(err));
	}
	if (!detail[0])
		put(&o, "no new GPU faults");
	put(&o, " [%lu new kmsg records", st.records);
	if (st.missed)
		put(&o, ", %lu lost to overwrite", st.missed);
	if (s.ignored)
		put(&o, ", %lu ignored by golden.conf", s.ignored);
	if (s.other_node)
		put(&o, ", %lu for GPUs of other nodes (xid_scope = node-gpus)", s.other_node);
	if (st.limited)
		put(&o, ", more next run");
	put(&o, "]");
	if (o.truncated && sizeof(detail) > 4)
		memcpy(detail + sizeof(detail) - 4, "...", 4);
	golden_strlcpy(res->detail, detail, sizeof(res->detail));
}

const struct golden_check golden_xid_checks[] = {
    {"xid", GOLDEN_CHK_KERNEL, check_xid, 1000, PHASES},
    {NULL, GOLDEN_CHK_KERNEL, NULL, 0, 0},
};
