#include <config.h>

#include "node/drill_record.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "util/statefile.h"
#include "util/strutil.h"
#include "util/jsonschema.h"

#define MAX_FILE_SIZE (1 << 20)

static const char *const kind_names[] = {"xid", "rail-down", "mount-hang"};
static const char *const state_names[] = {"running", "done", "abandoned"};

const char *golden_drill_kind_name(enum golden_drill_kind k)
{
	return (unsigned)k < 3 ? kind_names[k] : "unknown";
}

const char *golden_drill_state_name(enum golden_drill_state s)
{
	return (unsigned)s < 3 ? state_names[s] : "unknown";
}

static int name_index(const char *const *names, int n, const char *v)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], v))
			return i;
	return -1;
}

static const char *jstr(struct json_object *o, const char *k)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, k, &v) || !json_object_is_type(v, json_type_string))
		return "";
	return json_object_get_string(v);
}

static long long jint(struct json_object *o, const char *k, long long dflt)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, k, &v))
		return dflt;
	if (json_object_is_type(v, json_type_string)) /* uint64 kept as text */
		return strtoll(json_object_get_string(v), NULL, 10);
	return json_object_get_int64(v);
}

static void load_one(struct json_object *o, struct golden_drill *d)
{
	int k = name_index(kind_names, 3, jstr(o, "kind"));
	int s = name_index(state_names, 3, jstr(o, "state"));
	struct json_object *v;

	memset(d, 0, sizeof(*d));
	golden_strlcpy(d->id, jstr(o, "id"), sizeof(d->id));
	golden_strlcpy(d->node, jstr(o, "node"), sizeof(d->node));
	d->kind = k < 0 ? GOLDEN_DRILL_XID : (enum golden_drill_kind)k;
	/* An unknown state is over: never block a drill or mark a drain. */
	d->state = s < 0 ? GOLDEN_DRILL_ABANDONED : (enum golden_drill_state)s;
	golden_strlcpy(d->what, jstr(o, "what"), sizeof(d->what));
	golden_strlcpy(d->check, jstr(o, "check"), sizeof(d->check));
	golden_strlcpy(d->target, jstr(o, "target"), sizeof(d->target));
	golden_strlcpy(d->boot_id, jstr(o, "boot_id"), sizeof(d->boot_id));
	golden_strlcpy(d->reason, jstr(o, "reason"), sizeof(d->reason));
	golden_strlcpy(d->verdict, jstr(o, "verdict"), sizeof(d->verdict));
	golden_strlcpy(d->guard, jstr(o, "guard"), sizeof(d->guard));
	d->xid = (int)jint(o, "xid", 0);
	d->detect_allow_ms = (int)jint(o, "detect_allow_ms", 0);
	d->return_auto = !strcmp(jstr(o, "return"), "auto");
	d->pid = (long)jint(o, "pid", 0);
	d->seq_before = strtoull(jstr(o, "seq_before"), NULL, 10);
	d->seq = strtoull(jstr(o, "seq"), NULL, 10);
	d->injected_ms = jint(o, "injected_ms", 0);
	d->detected_ms = jint(o, "detected_ms", 0);
	d->drained_ms = jint(o, "drained_ms", 0);
	d->returned_ms = jint(o, "returned_ms", 0);
	d->ended_ms = jint(o, "ended_ms", 0);
	d->job_kept = (int)jint(o, "job_kept", -1);
	d->probe = (int)jint(o, "probe", -1);
	d->passed = json_object_object_get_ex(o, "passed", &v) && json_object_get_boolean(v);
}

int golden_drills_load(const char *state_dir, struct golden_drills *ds)
{
	char path[PATH_MAX];
	struct json_object *root, *arr;
	struct stat st;
	char *buf;
	ssize_t n;
	int fd;

	memset(ds, 0, sizeof(*ds));
	if (golden_path_join(path, sizeof(path), state_dir, GOLDEN_DRILLS) < 0)
		return -1;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > MAX_FILE_SIZE) {
		close(fd);
		return -1;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		return -1;
	}
	n = read(fd, buf, (size_t)st.st_size);
	close(fd);
	if (n < 0) {
		free(buf);
		return -1;
	}
	buf[n] = '\0';
	root = json_tokener_parse(buf);
	free(buf);
	if (!root || !golden_json_schema_ok(root, "golden-drills", NULL, 0) ||
	    !json_object_object_get_ex(root, "drills", &arr) ||
	    !json_object_is_type(arr, json_type_array)) {
		json_object_put(root);
		return -1;
	}
	for (size_t i = 0; i < json_object_array_length(arr) && ds->n < GOLDEN_DRILL_FILE; i++) {
		struct json_object *o = json_object_array_get_idx(arr, i);

		if (json_object_is_type(o, json_type_object))
			load_one(o, &ds->d[ds->n++]);
	}
	json_object_put(root);
	return 0;
}

static void put_str(struct json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, json_object_new_string(v));
}

static void put_u64(struct json_object *o, const char *k, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	put_str(o, k, buf);
}

static struct json_object *drill_json(const struct golden_drill *d)
{
	struct json_object *o = json_object_new_object();

	put_str(o, "id", d->id);
	put_str(o, "node", d->node);
	put_str(o, "kind", golden_drill_kind_name(d->kind));
	put_str(o, "what", d->what);
	put_str(o, "check", d->check);
	put_str(o, "target", d->target);
	json_object_object_add(o, "xid", json_object_new_int(d->xid));
	put_str(o, "return", d->return_auto ? "auto" : "manual");
	put_str(o, "state", golden_drill_state_name(d->state));
	json_object_object_add(o, "pid", json_object_new_int64(d->pid));
	put_str(o, "boot_id", d->boot_id);
	put_u64(o, "seq_before", d->seq_before);
	put_u64(o, "seq", d->seq);
	json_object_object_add(o, "injected_ms", json_object_new_int64(d->injected_ms));
	json_object_object_add(o, "detected_ms", json_object_new_int64(d->detected_ms));
	json_object_object_add(o, "drained_ms", json_object_new_int64(d->drained_ms));
	json_object_object_add(o, "returned_ms", json_object_new_int64(d->returned_ms));
	json_object_object_add(o, "ended_ms", json_object_new_int64(d->ended_ms));
	put_str(o, "reason", d->reason);
	json_object_object_add(o, "detect_allow_ms", json_object_new_int(d->detect_allow_ms));
	json_object_object_add(o, "job_kept", json_object_new_int(d->job_kept));
	json_object_object_add(o, "probe", json_object_new_int(d->probe));
	json_object_object_add(o, "passed", json_object_new_boolean(d->passed));
	put_str(o, "guard", d->guard);
	put_str(o, "verdict", d->verdict);
	return o;
}

int golden_drills_save(const char *state_dir, const struct golden_drills *ds)
{
	struct json_object *root = json_object_new_object(), *arr = json_object_new_array();
	char path[PATH_MAX];
	const char *text;
	int rc = -1;

	golden_json_stamp(root, "golden-drills");
	for (int i = 0; i < ds->n; i++)
		json_object_array_add(arr, drill_json(&ds->d[i]));
	json_object_object_add(root, "drills", arr);
	text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY);
	if (golden_mkdir_p(state_dir) == 0 &&
	    golden_path_join(path, sizeof(path), state_dir, GOLDEN_DRILLS) == 0)
		rc = golden_write_atomic(path, text, strlen(text));
	json_object_put(root);
	return rc;
}

struct golden_drill *golden_drills_add(struct golden_drills *ds, const struct golden_drill *d)
{
	if (ds->n == GOLDEN_DRILL_FILE) {
		memmove(&ds->d[0], &ds->d[1], sizeof(ds->d[0]) * (GOLDEN_DRILL_FILE - 1));
		ds->n--;
	}
	ds->d[ds->n] = *d;
	return &ds->d[ds->n++];
}

struct golden_drill *golden_drills_find(struct golden_drills *ds, const char *id)
{
	for (int i = ds->n - 1; i >= 0; i--)
		if (!strcmp(ds->d[i].id, id))
			return &ds->d[i];
	return NULL;
}

struct golden_drill *golden_drills_running(struct golden_drills *ds)
{
	for (int i = ds->n - 1; i >= 0; i--) {
		struct golden_drill *d = &ds->d[i];

		if (d->state != GOLDEN_DRILL_RUNNING)
			continue;
		/* Its program died (killed, node rebooted): over, unfinished. */
		if (d->pid <= 0 || (kill((pid_t)d->pid, 0) < 0 && errno == ESRCH)) {
			d->state = GOLDEN_DRILL_ABANDONED;
			golden_strlcpy(d->verdict,
			               "abandoned: the drill program ended before the drill",
			               sizeof(d->verdict));
			continue;
		}
		return d;
	}
	return NULL;
}

#define MOUNTS_TIMEOUT "hc mounts timeout" /* the runner's code: names no mount */

bool golden_drill_names(const struct golden_drill *d, const char *text, char end)
{
	size_t n = strlen(d->target), t = strlen(MOUNTS_TIMEOUT);

	if (n && !strncmp(text, d->target, n) && (text[n] == ' ' || text[n] == end))
		return true;
	return d->kind == GOLDEN_DRILL_MOUNT && !strncmp(text, MOUNTS_TIMEOUT, t) && text[t] == end;
}

static bool owns_staged(const struct golden_drill *d, const struct golden_hold *h)
{
	long long decided = h->decided_ms ? h->decided_ms : h->time * 1000 + 999;

	if (!h->active || !d->injected_ms || decided < d->injected_ms ||
	    strcmp(d->boot_id, h->boot_id) || strcmp(d->check, h->check))
		return false;
	return golden_drill_names(d, h->code, '\0');
}

bool golden_drill_owns_hold(const struct golden_drill *d, const struct golden_hold *h)
{
	if (d->kind != GOLDEN_DRILL_XID)
		return owns_staged(d, h);
	return h->active && d->seq && h->kmsg_seq >= d->seq && !strcmp(d->boot_id, h->boot_id) &&
	       !strcmp(d->check, h->check) && h->time * 1000 >= d->injected_ms - 1000 &&
	       (!h->gpu_busid[0] || !strncmp(h->gpu_busid, d->target, 10));
}

static long long span(long long a, long long b)
{
	return a > 0 && b > 0 ? b - a : -1;
}

long long golden_drill_detect_ms(const struct golden_drill *d)
{
	return span(d->injected_ms, d->detected_ms);
}

long long golden_drill_drain_ms(const struct golden_drill *d)
{
	return span(d->injected_ms, d->drained_ms);
}

long long golden_drill_return_ms(const struct golden_drill *d)
{
	return span(d->injected_ms, d->returned_ms);
}
