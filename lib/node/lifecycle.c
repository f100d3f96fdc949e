#include <config.h>

#include "node/lifecycle.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "node/active_run.h"
#include "node/drill_record.h"
#include "node/guard.h"
#include "node/scontrol.h"
#include "util/child.h"
#include "util/kmsg.h"
#include "node/metrics.h"
#include "health/reason.h"
#include "util/strutil.h"
#include "health/xid.h"

static long long lc_now(const struct golden_lifecycle *lc)
{
	return lc->now ? lc->now : (long long)time(NULL);
}

void golden_lifecycle_flap_key(const char *check, const char *code, char *buf, size_t len)
{
	size_t n = strcspn(code, " ");

	if (n)
		snprintf(buf, len, "%s %.*s", check, (int)n, code);
	else
		snprintf(buf, len, "%s", check);
}

static void short_boot(const char *boot, char *buf, size_t len)
{
	snprintf(buf, len, "%.8s", boot);
}

/* Is the held drain the running drill's own fault, with --return auto?
 * Only the drain of the very record the drill injected qualifies
 * (golden_drill_owns_hold), while the drill program still runs, and only
 * for a class that would otherwise wait for a reboot, a reset or an active
 * check: a transient drain ends at a passing check anyway, a flapping one
 * never by golden. A real fault found at the same time is not the drill's
 * (another check, another GPU) and keeps its class. */
static bool drill_fault(const struct golden_lifecycle *lc, const struct golden_hold *h)
{
	struct golden_drills *ds;
	const struct golden_drill *d;
	bool yes = false;

	if (h->cls == GOLDEN_HOLD_TRANSIENT || h->cls == GOLDEN_HOLD_FLAPPING)
		return false;
	ds = malloc(sizeof(*ds));
	if (!ds)
		return false;
	if (golden_drills_load(lc->state_dir, ds) == 0 && (d = golden_drills_running(ds)) &&
	    d->return_auto && golden_drill_owns_hold(d, h))
		yes = true;
	free(ds);
	return yes;
}

void golden_lifecycle_waiting_for(const struct golden_lifecycle *lc, const struct golden_hold *h,
                                  char *buf, size_t len)
{
	char b[16];

	if (!h->active) {
		buf[0] = '\0';
		return;
	}
	if (!h->applied) {
		snprintf(buf, len,
		         "slurmctld to take the drain (%d failed attempts so far); it is applied "
		         "as soon as scontrol answers",
		         h->attempts);
		return;
	}
	short_boot(h->boot_id, b, sizeof(b));
	if (drill_fault(lc, h)) {
		snprintf(buf, len,
		         "a health check in which %s passes: the fault is a running drill's "
		         "(golden drill run --return auto), no %s needed",
		         h->check, golden_hold_class_name(h->cls));
		return;
	}
	switch (h->cls) {
	case GOLDEN_HOLD_TRANSIENT:
		snprintf(buf, len, "a health check in which %s passes and nothing fails", h->check);
		break;
	case GOLDEN_HOLD_RESET:
		snprintf(buf, len,
		         "a GPU reset of %s (the driver re-initialising it after the drain) or a "
		         "reboot, then a health check that passes",
		         h->gpu_busid[0] ? h->gpu_busid : "the GPU");
		break;
	case GOLDEN_HOLD_REBOOT:
		snprintf(buf, len,
		         "a reboot (boot id still %s...), then a health check that passes", b);
		break;
	case GOLDEN_HOLD_ACTIVE:
		snprintf(buf, len,
		         "a passing active check: HealthCheckProgram runs golden-active on the "
		         "drained node (golden.conf active =, active_validate = on)");
		break;
	default:
		snprintf(buf, len,
		         "an operator: golden never resumes a flapping node (scontrol update "
		         "NodeName=%s State=RESUME once it is fixed)",
		         lc->node);
		break;
	}
}

/* The GPU a reset must touch: "gpu3 ..." -> topology; a PCI address in the
 * code ("gpu? xid95 0000:3b:00.0") as it is. */
static void gpu_of_code(const struct golden_lifecycle *lc, const char *code, char *busid,
                        size_t len)
{
	char tok[GOLDEN_CODE_LEN], *save = NULL, norm[GOLDEN_BUSID_LEN];

	busid[0] = '\0';
	golden_strlcpy(tok, code, sizeof(tok));
	for (char *t = strtok_r(tok, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		if (!strncmp(t, "gpu", 3) && isdigit((unsigned char)t[3]) && lc->topo) {
			int i = atoi(t + 3);

			if (i < lc->topo->ngpus && i < GOLDEN_MAX_GPUS &&
			    golden_xid_pci_normalize(
			        lc->topo->gpus[i].busid,
			        strnlen(lc->topo->gpus[i].busid, GOLDEN_BUSID_LEN), norm,
			        sizeof(norm)) == 0) {
				golden_strlcpy(busid, norm, len);
				return;
			}
		}
		if (strchr(t, ':') &&
		    golden_xid_pci_normalize(t, strlen(t), norm, sizeof(norm)) == 0) {
			golden_strlcpy(busid, norm, len);
			return;
		}
	}
}

static void boot_id(const struct golden_lifecycle *lc, char *buf, size_t len)
{
	golden_kmsg_boot_id(lc->sysroot, buf, len);
}

/* Last sequence number of the kernel log now: a reset must come after it. */
static uint64_t log_last_seq(const struct golden_lifecycle *lc)
{
	struct golden_kmsg_stats st;

	golden_kmsg_scan(lc->kmsg_path, NULL, lc->sysroot, false, NULL, NULL, &st);
	return st.last_seq;
}

struct reset_scan {
	uint64_t after;
	const char *busid;
	bool found;
};

/* "NVRM: GPU at PCI:0000:3b:00: GPU-<uuid>": the driver (re)initialised it.
 * The driver's own line only (health/xid.h): a kernel message quoting a
 * user's text must not end a reset-class drain. */
static int on_reset_line(uint64_t seq, uint64_t ts, int facility, int level, const char *msg,
                         void *arg)
{
	struct reset_scan *r = arg;
	char norm[GOLDEN_BUSID_LEN];

	(void)ts;
	(void)level;
	if (seq <= r->after || !golden_xid_parse_gpu_init(facility, msg, norm, sizeof(norm)))
		return 0;
	/* dddd:bb:dd: the line has no function */
	if (!r->busid[0] || !strncmp(norm, r->busid, 10)) {
		r->found = true;
		return 1;
	}
	return 0;
}

static bool gpu_was_reset(const struct golden_lifecycle *lc, const struct golden_hold *h)
{
	struct reset_scan r = {h->kmsg_seq, h->gpu_busid, false};
	struct golden_kmsg_stats st;

	golden_kmsg_scan(lc->kmsg_path, NULL, lc->sysroot, false, on_reset_line, &r, &st);
	return r.found;
}

/* The outcome of the hold's check in this run, or NULL if it did not run. */
static const struct golden_check_outcome *outcome_of(const struct golden_run_report *rep,
                                                     const char *check)
{
	for (int i = 0; rep && i < rep->n; i++)
		if (!strcmp(rep->out[i].chk->name, check))
			return &rep->out[i];
	return NULL;
}

static bool any_failed(const struct golden_run_report *rep)
{
	return rep && rep->worst >= 0 && rep->out[rep->worst].res.status == GOLDEN_ST_FAIL;
}

static bool validation_on(const struct golden_lifecycle *lc)
{
	return lc->conf && lc->conf->active_program[0] && lc->conf->active_validate;
}

/* The validation before return: golden-active passed on this node in this run. */
static bool validated(const struct golden_run_report *rep, char *why, size_t len)
{
	const struct golden_check_outcome *o = outcome_of(rep, GOLDEN_ACTIVE_VALIDATE_CHECK);

	if (!o) {
		snprintf(why, len, "validation by golden-active on the idle drained node");
		return false;
	}
	if (o->res.status != GOLDEN_ST_OK) {
		snprintf(why, len, "a validation that can judge (the last could not: %.200s)",
		         o->res.detail);
		return false;
	}
	return true;
}

/* May the held (applied) drain end? why says what is still missing. */
static bool cleared(const struct golden_lifecycle *lc, const struct golden_hold *h,
                    const struct golden_run_report *rep, char *why, size_t len)
{
	char now_boot[GOLDEN_KMSG_BOOTID_LEN];
	bool rebooted;
	const struct golden_check_outcome *o;
	enum golden_hold_class cls;

	if (any_failed(rep)) {
		snprintf(why, len, "a check still fails");
		return false;
	}
	boot_id(lc, now_boot, sizeof(now_boot));
	rebooted = strcmp(now_boot, h->boot_id) != 0;
	/* A drill's own fault ends like a transient one: the node's normal
	 * validation clears it, without the reboot or reset a real one needs. */
	cls = drill_fault(lc, h) ? GOLDEN_HOLD_TRANSIENT : h->cls;
	switch (cls) {
	case GOLDEN_HOLD_TRANSIENT:
		o = outcome_of(rep, h->check);
		if (!o) {
			snprintf(why, len, "%s did not run in this health check", h->check);
			return false;
		}
		return true; /* it ran and nothing failed */
	case GOLDEN_HOLD_RESET:
		if (rebooted || gpu_was_reset(lc, h))
			return !validation_on(lc) || validated(rep, why, len);
		break;
	case GOLDEN_HOLD_REBOOT:
		if (rebooted)
			return !validation_on(lc) || validated(rep, why, len);
		break;
	case GOLDEN_HOLD_ACTIVE:
		if (validation_on(lc))
			return validated(rep, why, len);
		break;
	default:
		break;
	}
	golden_lifecycle_waiting_for(lc, h, why, len);
	return false;
}

bool golden_lifecycle_wants_validation(const struct golden_lifecycle *lc)
{
	struct golden_ledger *l = malloc(sizeof(*l));
	char now_boot[GOLDEN_KMSG_BOOTID_LEN];
	bool want = false;

	if (!l || !validation_on(lc) || golden_ledger_load(lc->state_dir, l) < 0 ||
	    !l->hold.active || !l->hold.applied) {
		free(l);
		return false;
	}
	boot_id(lc, now_boot, sizeof(now_boot));
	switch (l->hold.cls) {
	case GOLDEN_HOLD_ACTIVE:
		want = true;
		break;
	case GOLDEN_HOLD_RESET:
		want = strcmp(now_boot, l->hold.boot_id) != 0 || gpu_was_reset(lc, &l->hold);
		break;
	case GOLDEN_HOLD_REBOOT:
		want = strcmp(now_boot, l->hold.boot_id) != 0;
		break;
	default:
		break;
	}
	free(l);
	return want;
}

/* Remember a note unless it repeats the last one (health checks run every
 * few minutes: a node left alone must not flood the history). */
static void note_once(struct golden_ledger *l, long long now, const char *event, const char *text)
{
	if (l->nhistory > 0) {
		struct golden_history *last = &l->hist[l->nhistory - 1];

		if (!strcmp(last->event, event) && !strcmp(last->text, text)) {
			last->time = now;
			return;
		}
	}
	golden_ledger_note(l, now, event, "%s", text);
}

static void hold_from(const struct golden_lifecycle *lc, struct golden_hold *h,
                      const struct golden_check_outcome *w, enum golden_hold_class cls,
                      const char *reason, long long now)
{
	memset(h, 0, sizeof(*h));
	h->active = true;
	h->cls = cls;
	golden_strlcpy(h->reason, reason, sizeof(h->reason));
	golden_reason_sanitize(h->reason);
	golden_strlcpy(h->check, w->chk->name, sizeof(h->check));
	golden_strlcpy(h->code, w->res.code[0] ? w->res.code : w->chk->name, sizeof(h->code));
	golden_strlcpy(h->detail, w->res.detail, sizeof(h->detail));
	golden_strlcpy(h->source, lc->source ? lc->source : "manual", sizeof(h->source));
	h->time = now;
	h->decided_ms = lc->now ? now * 1000 : golden_epoch_ms();
	boot_id(lc, h->boot_id, sizeof(h->boot_id));
	h->kmsg_seq = log_last_seq(lc);
	gpu_of_code(lc, h->code, h->gpu_busid, sizeof(h->gpu_busid));
}

/* Our reason in Slurm but nothing in the ledger (an older version drained
 * it, or the state was lost): take it over, conservatively. */
static void adopt(const struct golden_lifecycle *lc, struct golden_ledger *l, const char *reason,
                  const struct golden_check_outcome *w, long long now)
{
	enum golden_hold_class cls = GOLDEN_HOLD_TRANSIENT;

	if (strstr(reason, "; reboot "))
		cls = GOLDEN_HOLD_REBOOT;
	else if (strstr(reason, "; gpu-reset "))
		cls = GOLDEN_HOLD_RESET;
	else if (strstr(reason, "; active "))
		cls = GOLDEN_HOLD_ACTIVE;
	else if (strstr(reason, "; admin ") || !strncmp(reason, "flap ", 5))
		cls = GOLDEN_HOLD_FLAPPING;
	hold_from(lc, &l->hold, w, cls, reason, now);
	l->hold.applied = true;
	l->hold.applied_time = now;
	golden_ledger_note(l, now, "adopted", "%s (drained by golden before this ledger)", reason);
}

/* The validation of a node golden holds failed: it stays drained, now until
 * an active check passes, with a reason that says so. */
static void validation_failed(const struct golden_lifecycle *lc, struct golden_ledger *l,
                              const struct golden_check_outcome *w, long long now,
                              struct golden_lifecycle_result *res)
{
	struct golden_err err = {{0}};
	char reason[GOLDEN_REASON_MAX];

	snprintf(reason, sizeof(reason), "%s; failed validation; active " GOLDEN_REASON_MARKER,
	         w->res.code[0] ? w->res.code : w->chk->name);
	golden_reason_sanitize(reason);
	if (strcmp(reason, l->hold.reason) != 0 &&
	    golden_scontrol_reword(lc->conf->scontrol, lc->node, l->hold.reason, reason, &err) ==
	        0) {
		golden_ledger_note(l, now, "not-valid", "%s -> %s", l->hold.reason, reason);
		hold_from(lc, &l->hold, w, GOLDEN_HOLD_ACTIVE, reason, now);
		l->hold.applied = true;
		l->hold.applied_time = now;
	}
	golden_strlcpy(res->reason, l->hold.reason, sizeof(res->reason));
	snprintf(res->drain, sizeof(res->drain), "kept drained: validation failed");
}

/* The blast-radius guard (guard.h): true when this failure's drain is held
 * back (before) or, after a drain, when this node is past the first
 * holders and must end its own drain. Recorded in the ledger either way. */
static bool guard_holds_back(const struct golden_lifecycle *lc, struct golden_ledger *l,
                             const struct golden_check_outcome *w, bool after, long long now,
                             struct golden_lifecycle_result *res)
{
	struct golden_guard_view v;
	struct golden_err err = {{0}};
	char text[224];

	if (golden_guard_check(lc->conf->scontrol, lc->node, &lc->conf->fleet, w->chk->name,
	                       w->res.code, after, now, &v, &err) != 1)
		return false;
	snprintf(text, sizeof(text),
	         "%.48s: %d other nodes hold golden's drain for %.40s (guard %d of %d nodes): "
	         "suspected shared cause, %s",
	         w->res.code, v.holders, v.key, v.threshold, v.partition_nodes,
	         after ? "drain ended" : "not drained");
	l->guard_suppressed++;
	golden_ledger_note(l, now, "guard", "%s", text);
	snprintf(res->drain, sizeof(res->drain),
	         "not drained: suspected shared cause (%.40s on %d nodes, guard %d); re-checked "
	         "next run",
	         v.key, v.holders, v.threshold);
	res->guarded = true;
	return true;
}

static void on_failure(const struct golden_lifecycle *lc, struct golden_ledger *l,
                       const struct golden_run_report *rep, long long now,
                       struct golden_lifecycle_result *res)
{
	const struct golden_check_outcome *w = &rep->out[rep->worst];
	const struct golden_conf *conf = lc->conf;
	enum golden_hold_class cls = golden_hold_class_of(w->res.action);
	struct golden_node_state seen;
	struct golden_err err = {{0}};
	char key[64], reason[GOLDEN_REASON_MAX], plain[GOLDEN_REASON_MAX];
	enum golden_drain_outcome d;
	int flaps;

	if (golden_reason_format(rep, plain, sizeof(plain)) < 0)
		return;
	if (!strcmp(w->chk->name, GOLDEN_ACTIVE_VALIDATE_CHECK) && l->hold.active &&
	    l->hold.applied) {
		validation_failed(lc, l, w, now, res);
		return;
	}
	/* Held for a possibly shared cause while more nodes than the guard
	 * allows hold the same: a later holder steps back (re-checked each
	 * run, so nodes that drained at the same moment settle on the first). */
	if (l->hold.active && l->hold.applied && guard_holds_back(lc, l, w, true, now, res)) {
		if (golden_scontrol_resume(conf->scontrol, lc->node, l->hold.reason, &err) ==
		    GOLDEN_RESUMED) {
			golden_ledger_note(l, now, "released", "%s: guard: a shared cause",
			                   l->hold.reason);
			memset(&l->hold, 0, sizeof(l->hold));
			res->reason[0] = '\0';
			return;
		}
		res->guarded = false;
		res->drain[0] = '\0';
	}
	golden_lifecycle_flap_key(w->chk->name, w->res.code, key, sizeof(key));
	golden_strlcpy(reason, plain, sizeof(reason));
	/* Already holding a drain: stay, but a stricter fault raises the bar
	 * (a link that recovers must not end a drain an XID 79 now needs). */
	if (l->hold.active && l->hold.applied) {
		if (cls > l->hold.cls && l->hold.cls != GOLDEN_HOLD_FLAPPING &&
		    golden_scontrol_reword(conf->scontrol, lc->node, l->hold.reason, plain, &err) ==
		        0) {
			golden_ledger_note(l, now, "escalated", "%s -> %s", l->hold.reason, plain);
			hold_from(lc, &l->hold, w, cls, plain, now);
			l->hold.applied = true;
			l->hold.applied_time = now;
		}
	}
	if (l->hold.active && !l->hold.applied && cls > l->hold.cls) {
		hold_from(lc, &l->hold, w, cls, plain, now);
		golden_ledger_note(l, now, "pending", "%s (replaces the owed drain)", plain);
	}
	if (l->hold.active && !l->hold.applied)
		golden_strlcpy(reason, l->hold.reason, sizeof(reason));

	/* Counted only if this turns out to be a new drain (none owed, and the
	 * held one, if any, was ended by someone else). */
	flaps = golden_ledger_episodes(l, key, now, conf->flap_hours) + 1;
	if (!(l->hold.active && !l->hold.applied) && conf->flap_count > 0 &&
	    flaps >= conf->flap_count) {
		snprintf(reason, sizeof(reason), "flap %dx%dh %s; admin " GOLDEN_REASON_MARKER,
		         flaps, conf->flap_hours, w->res.code[0] ? w->res.code : w->chk->name);
		golden_reason_sanitize(reason);
		cls = GOLDEN_HOLD_FLAPPING;
	}
	/* A failure that may share its cause with many nodes: no new drain
	 * once enough of the partition holds one for it. */
	if (!l->hold.active && guard_holds_back(lc, l, w, false, now, res))
		return;
	golden_strlcpy(res->reason, reason, sizeof(res->reason));
	d = golden_scontrol_drain_seen(conf->scontrol, lc->node, reason, &seen, &err);
	switch (d) {
	case GOLDEN_DRAINED:
		/* Nodes that failed together drained together: only the first
		 * holders keep theirs. */
		if (!l->hold.active && guard_holds_back(lc, l, w, true, now, res)) {
			struct golden_err rerr = {{0}};

			if (golden_scontrol_resume(conf->scontrol, lc->node, reason, &rerr) ==
			    GOLDEN_RESUMED) {
				res->reason[0] = '\0';
				return;
			}
			res->guarded = false; /* could not end it: hold it as any drain */
			res->drain[0] = '\0';
		}
		if (!l->hold.active || l->hold.applied) {
			if (l->hold.active)
				golden_ledger_note(l, now, "released",
				                   "%s: resumed by someone else before this drain",
				                   l->hold.reason);
			hold_from(lc, &l->hold, w, cls, reason, now);
			golden_ledger_episode(l, key, now, conf->flap_hours);
			golden_ledger_count_drain(l, w->chk->name);
		}
		l->hold.applied = true;
		l->hold.applied_time = now;
		golden_ledger_note(l, now, "drained", "%s (%s)", l->hold.reason, l->hold.source);
		snprintf(res->drain, sizeof(res->drain), "drained");
		break;
	case GOLDEN_ALREADY_OURS:
		if (!l->hold.active || strcmp(l->hold.reason, seen.reason) != 0) {
			if (l->hold.active)
				golden_ledger_note(l, now, "released", "%s: Slurm now shows '%s'",
				                   l->hold.reason, seen.reason);
			adopt(lc, l, seen.reason, w, now);
		}
		golden_strlcpy(res->reason, seen.reason, sizeof(res->reason));
		snprintf(res->drain, sizeof(res->drain), "already drained by golden");
		break;
	case GOLDEN_LEFT_FOREIGN: {
		char text[224];

		/* Someone else's drain: never touched, and not ours to resume. */
		if (l->hold.active) {
			golden_ledger_note(
			    l, now, "released",
			    "%s: the node is now drained/down for another reason ('%s')",
			    l->hold.reason, seen.reason);
			memset(&l->hold, 0, sizeof(l->hold));
		}
		snprintf(text, sizeof(text), "%.60s: node already %.32s ('%.96s'): left alone",
		         plain, seen.state, seen.reason);
		if (!l->nhistory || strcmp(l->hist[l->nhistory - 1].text, text) != 0)
			l->left_foreign++;
		note_once(l, now, "left-alone", text);
		snprintf(res->drain, sizeof(res->drain),
		         "already drained or down for another reason: left alone");
		break;
	}
	case GOLDEN_DRAIN_FAILED:
		if (!l->hold.active) {
			hold_from(lc, &l->hold, w, cls, reason, now);
			golden_ledger_episode(l, key, now, conf->flap_hours);
			golden_ledger_count_drain(l, w->chk->name);
			golden_ledger_note(l, now, "pending", "%s: %s", reason,
			                   err.msg[0] ? err.msg : "scontrol failed");
		}
		l->hold.attempts++;
		res->pending = true;
		snprintf(res->drain, sizeof(res->drain),
		         "drain owed: slurmctld did not take it; it is kept and retried");
		break;
	}
}

/* An owed drain: apply it unless, on review, its condition has cleared. */
static void settle_pending(const struct golden_lifecycle *lc, struct golden_ledger *l,
                           const struct golden_run_report *rep, bool review, long long now,
                           struct golden_lifecycle_result *res)
{
	struct golden_hold *h = &l->hold;
	struct golden_node_state seen;
	struct golden_err err = {{0}};
	char why[320];

	if (review && h->cls == GOLDEN_HOLD_TRANSIENT && cleared(lc, h, rep, why, sizeof(why))) {
		golden_ledger_note(l, now, "cleared", "%s: cleared before slurmctld took it",
		                   h->reason);
		memset(h, 0, sizeof(*h));
		return;
	}
	switch (golden_scontrol_drain_seen(lc->conf->scontrol, lc->node, h->reason, &seen, &err)) {
	case GOLDEN_DRAINED:
		h->applied = true;
		h->applied_time = now;
		res->applied_owed = true;
		golden_strlcpy(res->reason, h->reason, sizeof(res->reason));
		golden_ledger_note(l, now, "applied", "%s (owed since %lld s, %d attempts)",
		                   h->reason, now - h->time, h->attempts);
		snprintf(res->drain, sizeof(res->drain), "drained (owed drain applied)");
		break;
	case GOLDEN_ALREADY_OURS:
	case GOLDEN_LEFT_FOREIGN:
		if (!strcmp(seen.reason, h->reason)) { /* it did reach slurmctld */
			h->applied = true;
			h->applied_time = now;
			break;
		}
		/* Drained since by someone (another golden reason included): theirs. */
		golden_ledger_note(l, now, "released",
		                   "%s: owed, but the node is already drained/down ('%s')",
		                   h->reason, seen.reason);
		memset(h, 0, sizeof(*h));
		break;
	case GOLDEN_DRAIN_FAILED:
		h->attempts++;
		res->pending = true;
		break;
	}
}

static void review_hold(const struct golden_lifecycle *lc, struct golden_ledger *l,
                        const struct golden_run_report *rep, long long now,
                        struct golden_lifecycle_result *res)
{
	struct golden_hold *h = &l->hold;
	struct golden_node_state st;
	struct golden_err err = {{0}};
	char why[320];

	if (golden_scontrol_show_node(lc->conf->scontrol, lc->node, 5000, &st, &err) < 0)
		return; /* cannot see whose drain it is: do nothing */
	if (!strstr(st.state, "DRAIN")) {
		golden_ledger_note(l, now, "released", "%s: resumed by someone else (now %s)",
		                   h->reason, st.state);
		memset(h, 0, sizeof(*h));
		return;
	}
	if (strcmp(st.reason, h->reason) != 0) {
		/* An admin re-worded it: theirs now, never ours to resume. */
		golden_ledger_note(l, now, "released",
		                   "%s: reason changed to '%s': golden will not resume it",
		                   h->reason, st.reason);
		memset(h, 0, sizeof(*h));
		return;
	}
	if (!cleared(lc, h, rep, why, sizeof(why))) {
		golden_strlcpy(res->waiting, why, sizeof(res->waiting));
		return;
	}
	switch (golden_scontrol_resume(lc->conf->scontrol, lc->node, h->reason, &err)) {
	case GOLDEN_RESUMED:
		l->resumes[h->cls]++;
		golden_ledger_note(l, now, "resumed", "%s (%s; held %lld s)", h->reason,
		                   golden_hold_class_name(h->cls), now - h->applied_time);
		snprintf(res->resume, sizeof(res->resume), "resumed (%s cleared)",
		         golden_hold_class_name(h->cls));
		memset(h, 0, sizeof(*h));
		break;
	case GOLDEN_RESUME_NOT_DRAINED:
	case GOLDEN_RESUME_NOT_OURS:
		golden_ledger_note(l, now, "released", "%s: changed by someone else just now",
		                   h->reason);
		memset(h, 0, sizeof(*h));
		break;
	case GOLDEN_RESUME_FAILED:
		snprintf(res->waiting, sizeof(res->waiting), "resume failed: %.280s", err.msg);
		break;
	}
}

static int finish(const struct golden_lifecycle *lc, struct golden_ledger *l, int lock, int rc,
                  struct golden_lifecycle_result *res)
{
	if (golden_ledger_save(lc->state_dir, l) < 0)
		rc = -1;
	else
		res->recorded = true;
	if (lc->metrics_dir && lc->metrics_dir[0])
		golden_metrics_lifecycle(lc->metrics_dir, lc->node, l);
	golden_ledger_unlock(lock);
	return rc;
}

int golden_lifecycle_after_run(const struct golden_lifecycle *lc,
                               const struct golden_run_report *rep, bool review,
                               struct golden_lifecycle_result *res)
{
	struct golden_ledger *l = malloc(sizeof(*l));
	long long now = lc_now(lc);
	int lock, rc = 0;

	memset(res, 0, sizeof(*res));
	if (!l)
		return -1;
	lock = golden_ledger_lock(lc->state_dir);
	if (lock < 0) {
		/* No ledger, no decision: what would be drained is not lost,
		 * because the caller does not consume it (res->recorded). */
		if (any_failed(rep))
			snprintf(res->drain, sizeof(res->drain),
			         "not drained: cannot lock the ledger (%.60s); the fault stays "
			         "pending",
			         strerror(errno));
		free(l);
		return -1;
	}
	if (golden_ledger_load(lc->state_dir, l) < 0)
		rc = -1; /* unreadable: start over rather than never drain */
	/* The common case, a healthy node golden holds nothing on: no write
	 * (and no fsync) on every prolog. */
	if (rc == 0 && !l->hold.active && !any_failed(rep)) {
		if (lc->metrics_dir && lc->metrics_dir[0])
			golden_metrics_lifecycle(lc->metrics_dir, lc->node, l);
		golden_ledger_unlock(lock);
		free(l);
		res->recorded = true;
		return 0;
	}
	if (l->hold.active && !l->hold.applied)
		settle_pending(lc, l, rep, review, now, res);
	if (any_failed(rep))
		on_failure(lc, l, rep, now, res);
	else if (review && l->hold.active && l->hold.applied && !res->applied_owed)
		review_hold(lc, l, rep, now, res);
	if (l->hold.active && !res->waiting[0])
		golden_lifecycle_waiting_for(lc, &l->hold, res->waiting, sizeof(res->waiting));
	rc = finish(lc, l, lock, rc, res);
	free(l);
	return rc;
}

int golden_lifecycle_apply_pending(const struct golden_lifecycle *lc,
                                   struct golden_lifecycle_result *res)
{
	struct golden_ledger *l = malloc(sizeof(*l));
	int lock, rc;

	memset(res, 0, sizeof(*res));
	if (!l)
		return -1;
	lock = golden_ledger_lock(lc->state_dir);
	if (lock < 0 || golden_ledger_load(lc->state_dir, l) < 0) {
		golden_ledger_unlock(lock);
		free(l);
		return -1;
	}
	if (!l->hold.active || l->hold.applied) {
		golden_ledger_unlock(lock);
		free(l);
		return 0;
	}
	settle_pending(lc, l, NULL, false, lc_now(lc), res);
	rc = finish(lc, l, lock, 0, res);
	if (rc == 0)
		rc = l->hold.active && !l->hold.applied ? 1 : 0;
	free(l);
	return rc;
}
