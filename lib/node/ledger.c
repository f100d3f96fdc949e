#include <config.h>

#include "node/ledger.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "util/jsonget.h"
#include "util/jsonschema.h"
#include "util/satmath.h"
#include "util/statefile.h"
#include "util/strutil.h"

#define LOCK_FILE     "lifecycle.lock"
#define MAX_FILE_SIZE (1 << 20)
#define MAX_TIME      (1LL << 40) /* year 36812: beyond any real time */
#define MAX_ATTEMPTS  1000000

static const char *const class_names[GOLDEN_HOLD_NCLASSES] = {"transient", "active", "reset",
                                                              "reboot", "flapping"};

const char *golden_hold_class_name(enum golden_hold_class c)
{
	return (unsigned)c < GOLDEN_HOLD_NCLASSES ? class_names[c] : "unknown";
}

int golden_hold_class_parse(const char *name)
{
	for (int i = 0; i < GOLDEN_HOLD_NCLASSES; i++)
		if (name && !strcmp(name, class_names[i]))
			return i;
	return -1;
}

enum golden_hold_class golden_hold_class_of(enum golden_action a)
{
	switch (a) {
	case GOLDEN_ACTION_DRAIN_REBOOT:
		return GOLDEN_HOLD_REBOOT;
	case GOLDEN_ACTION_DRAIN_RESET:
		return GOLDEN_HOLD_RESET;
	case GOLDEN_ACTION_DRAIN_ACTIVE:
		return GOLDEN_HOLD_ACTIVE;
	default:
		return GOLDEN_HOLD_TRANSIENT;
	}
}

int golden_ledger_lock(const char *state_dir)
{
	char path[PATH_MAX];

	if (golden_mkdir_p(state_dir) < 0 ||
	    golden_path_join(path, sizeof(path), state_dir, LOCK_FILE) < 0)
		return -1;
	return golden_lock_file(path);
}

void golden_ledger_unlock(int fd)
{
	if (fd >= 0)
		close(fd); /* releases the flock */
}

/* --- JSON in ---------------------------------------------------------- */

/* Golden's own file, but whatever it holds: a missing key, a null or a
 * value of another type reads as empty or 0 (util/jsonget), never as a
 * crash and never by converting text to a number. */
static const char *jstr(struct json_object *o, const char *k)
{
	return golden_json_str_or(o, k, "");
}

/* A time (epoch seconds): negative, absurd or unknown is 0 ("never"), so
 * that no reader's arithmetic on it can overflow. */
static long long jtime(struct json_object *o, const char *k)
{
	long long v = 0;

	return golden_json_int_range(o, k, 0, MAX_TIME, &v) ? v : 0;
}

/* A count: negative or unknown is 0. */
static unsigned long jcount(struct json_object *o, const char *k)
{
	long long v = 0;

	return golden_json_int_range(o, k, 0, LLONG_MAX, &v) ? (unsigned long)v : 0;
}

static bool jbool(struct json_object *o, const char *k)
{
	bool b = false;

	return golden_json_bool(o, k, &b) && b;
}

static void load_hold(struct json_object *o, struct golden_hold *h)
{
	int cls = golden_hold_class_parse(jstr(o, "class"));
	uint64_t seq = 0;
	long long attempts = 0;

	h->active = true;
	h->applied = jbool(o, "applied");
	/* An unknown class is held as the strictest one golden resumes. */
	h->cls = cls < 0 ? GOLDEN_HOLD_REBOOT : (enum golden_hold_class)cls;
	golden_strlcpy(h->reason, jstr(o, "reason"), sizeof(h->reason));
	golden_strlcpy(h->check, jstr(o, "check"), sizeof(h->check));
	golden_strlcpy(h->code, jstr(o, "code"), sizeof(h->code));
	golden_strlcpy(h->detail, jstr(o, "detail"), sizeof(h->detail));
	golden_strlcpy(h->source, jstr(o, "source"), sizeof(h->source));
	golden_strlcpy(h->boot_id, jstr(o, "boot_id"), sizeof(h->boot_id));
	golden_strlcpy(h->gpu_busid, jstr(o, "gpu_busid"), sizeof(h->gpu_busid));
	h->time = jtime(o, "time");
	h->applied_time = jtime(o, "applied_time");
	{
		long long ms = 0;

		if (golden_json_int_range(o, "decided_ms", 0, MAX_TIME * 1000, &ms))
			h->decided_ms = ms;
	}
	if (golden_json_int_range(o, "attempts", 0, MAX_ATTEMPTS, &attempts))
		h->attempts = (int)attempts;
	/* a uint64 kept as text */
	if (golden_json_u64_text(o, "kmsg_seq", &seq))
		h->kmsg_seq = seq;
}

static void load_json(struct json_object *root, struct golden_ledger *l)
{
	struct json_object *v;

	if (json_object_object_get_ex(root, "hold", &v) && json_object_is_type(v, json_type_object))
		load_hold(v, &l->hold);
	if (json_object_object_get_ex(root, "episodes", &v) &&
	    json_object_is_type(v, json_type_array)) {
		size_t n = json_object_array_length(v);

		for (size_t i = 0; i < n && l->nepisodes < GOLDEN_LEDGER_EPISODES; i++) {
			struct json_object *e = json_object_array_get_idx(v, i);
			struct golden_episode *ep = &l->ep[l->nepisodes++];

			ep->time = jtime(e, "time");
			golden_strlcpy(ep->key, jstr(e, "key"), sizeof(ep->key));
		}
	}
	if (json_object_object_get_ex(root, "history", &v) &&
	    json_object_is_type(v, json_type_array)) {
		size_t n = json_object_array_length(v);

		for (size_t i = n > GOLDEN_LEDGER_HISTORY ? n - GOLDEN_LEDGER_HISTORY : 0; i < n;
		     i++) {
			struct json_object *e = json_object_array_get_idx(v, i);
			struct golden_history *h = &l->hist[l->nhistory++];

			h->time = jtime(e, "time");
			golden_strlcpy(h->event, jstr(e, "event"), sizeof(h->event));
			golden_strlcpy(h->text, jstr(e, "text"), sizeof(h->text));
		}
	}
	if (json_object_object_get_ex(root, "drains", &v) &&
	    json_object_is_type(v, json_type_object)) {
		json_object_object_foreach(v, key, val)
		{
			if (l->ndrains >= GOLDEN_LEDGER_COUNTERS)
				break;
			golden_strlcpy(l->drains[l->ndrains].name, key, sizeof(l->drains[0].name));
			l->drains[l->ndrains++].n = jcount(v, key);
			(void)val;
		}
	}
	if (json_object_object_get_ex(root, "resumes", &v) &&
	    json_object_is_type(v, json_type_object))
		for (int c = 0; c < GOLDEN_HOLD_NCLASSES; c++)
			l->resumes[c] = jcount(v, class_names[c]);
	l->left_foreign = jcount(root, "left_foreign");
	l->guard_suppressed = jcount(root, "guard_suppressed");
}

int golden_ledger_load(const char *state_dir, struct golden_ledger *l)
{
	char path[PATH_MAX];
	char *buf;
	int rc;

	memset(l, 0, sizeof(*l));
	if (golden_path_join(path, sizeof(path), state_dir, GOLDEN_LEDGER_FILE) < 0)
		return -1;
	/* state_dir trusted, the file ours (util/safedir) */
	buf = golden_read_trusted(path, MAX_FILE_SIZE, NULL);
	if (!buf)
		return errno == ENOENT ? 0 : -1;
	rc = golden_ledger_parse(buf, l);
	free(buf);
	return rc;
}

int golden_ledger_parse(const char *text, struct golden_ledger *l)
{
	struct json_object *root = golden_json_parse_object(text);

	memset(l, 0, sizeof(*l));
	if (!root)
		return -1;
	/* A newer golden's ledger is not guessed at: unreadable, like a broken one. */
	if (!golden_json_schema_ok(root, "golden-ledger", NULL, 0)) {
		json_object_put(root);
		return -1;
	}
	load_json(root, l);
	json_object_put(root);
	return 0;
}

/* --- JSON out --------------------------------------------------------- */

static void put_str(struct json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, json_object_new_string(v));
}

static struct json_object *hold_json(const struct golden_hold *h)
{
	struct json_object *o = json_object_new_object();
	char seq[32];

	snprintf(seq, sizeof(seq), "%llu", (unsigned long long)h->kmsg_seq);
	json_object_object_add(o, "applied", json_object_new_boolean(h->applied));
	put_str(o, "class", golden_hold_class_name(h->cls));
	put_str(o, "reason", h->reason);
	put_str(o, "check", h->check);
	put_str(o, "code", h->code);
	put_str(o, "detail", h->detail);
	put_str(o, "source", h->source);
	json_object_object_add(o, "time", json_object_new_int64(h->time));
	json_object_object_add(o, "applied_time", json_object_new_int64(h->applied_time));
	if (h->decided_ms)
		json_object_object_add(o, "decided_ms", json_object_new_int64(h->decided_ms));
	json_object_object_add(o, "attempts", json_object_new_int(h->attempts));
	put_str(o, "boot_id", h->boot_id);
	put_str(o, "kmsg_seq", seq);
	put_str(o, "gpu_busid", h->gpu_busid);
	return o;
}

int golden_ledger_save(const char *state_dir, const struct golden_ledger *l)
{
	struct json_object *root = json_object_new_object(), *a, *o;
	char path[PATH_MAX];
	const char *text;
	int rc;

	golden_json_stamp(root, "golden-ledger");
	if (l->hold.active)
		json_object_object_add(root, "hold", hold_json(&l->hold));
	a = json_object_new_array();
	for (int i = 0; i < l->nepisodes; i++) {
		o = json_object_new_object();
		json_object_object_add(o, "time", json_object_new_int64(l->ep[i].time));
		put_str(o, "key", l->ep[i].key);
		json_object_array_add(a, o);
	}
	json_object_object_add(root, "episodes", a);
	a = json_object_new_array();
	for (int i = 0; i < l->nhistory; i++) {
		o = json_object_new_object();
		json_object_object_add(o, "time", json_object_new_int64(l->hist[i].time));
		put_str(o, "event", l->hist[i].event);
		put_str(o, "text", l->hist[i].text);
		json_object_array_add(a, o);
	}
	json_object_object_add(root, "history", a);
	o = json_object_new_object();
	for (int i = 0; i < l->ndrains; i++)
		json_object_object_add(o, l->drains[i].name,
		                       json_object_new_int64((int64_t)l->drains[i].n));
	json_object_object_add(root, "drains", o);
	o = json_object_new_object();
	for (int c = 0; c < GOLDEN_HOLD_NCLASSES; c++)
		json_object_object_add(o, class_names[c],
		                       json_object_new_int64((int64_t)l->resumes[c]));
	json_object_object_add(root, "resumes", o);
	json_object_object_add(root, "left_foreign",
	                       json_object_new_int64((int64_t)l->left_foreign));
	json_object_object_add(root, "guard_suppressed",
	                       json_object_new_int64((int64_t)l->guard_suppressed));
	text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY);
	rc = -1;
	if (golden_mkdir_p(state_dir) == 0 &&
	    golden_path_join(path, sizeof(path), state_dir, GOLDEN_LEDGER_FILE) == 0)
		rc = golden_write_atomic(path, text, strlen(text));
	json_object_put(root);
	return rc;
}

/* --- helpers ---------------------------------------------------------- */

void golden_ledger_note(struct golden_ledger *l, long long now, const char *event, const char *fmt,
                        ...)
{
	struct golden_history *h;
	va_list ap;

	if (l->nhistory == GOLDEN_LEDGER_HISTORY) {
		memmove(&l->hist[0], &l->hist[1], sizeof(l->hist[0]) * (GOLDEN_LEDGER_HISTORY - 1));
		l->nhistory--;
	}
	h = &l->hist[l->nhistory++];
	h->time = now;
	golden_strlcpy(h->event, event, sizeof(h->event));
	va_start(ap, fmt);
	vsnprintf(h->text, sizeof(h->text), fmt, ap);
	va_end(ap);
}

void golden_ledger_episode(struct golden_ledger *l, const char *key, long long now, int keep_hours)
{
	int w = 0;

	/* Saturating: an episode time from a damaged file must not overflow. */
	for (int i = 0; i < l->nepisodes; i++)
		if (golden_sat_sub(now, l->ep[i].time) < golden_sat_mul(keep_hours, 3600))
			l->ep[w++] = l->ep[i];
	l->nepisodes = w;
	if (l->nepisodes == GOLDEN_LEDGER_EPISODES) {
		memmove(&l->ep[0], &l->ep[1], sizeof(l->ep[0]) * (GOLDEN_LEDGER_EPISODES - 1));
		l->nepisodes--;
	}
	l->ep[l->nepisodes].time = now;
	golden_strlcpy(l->ep[l->nepisodes].key, key, sizeof(l->ep[0].key));
	l->nepisodes++;
}

int golden_ledger_episodes(const struct golden_ledger *l, const char *key, long long now, int hours)
{
	int n = 0;

	for (int i = 0; i < l->nepisodes; i++)
		if (!strcmp(l->ep[i].key, key) &&
		    golden_sat_sub(now, l->ep[i].time) < golden_sat_mul(hours, 3600))
			n++;
	return n;
}

void golden_ledger_count_drain(struct golden_ledger *l, const char *check)
{
	for (int i = 0; i < l->ndrains; i++)
		if (!strcmp(l->drains[i].name, check)) {
			l->drains[i].n++;
			return;
		}
	if (l->ndrains < GOLDEN_LEDGER_COUNTERS) {
		golden_strlcpy(l->drains[l->ndrains].name, check, sizeof(l->drains[0].name));
		l->drains[l->ndrains++].n = 1;
	}
}
