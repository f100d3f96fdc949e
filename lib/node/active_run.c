#include <config.h>

#include "node/active_run.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "active/report_json.h"
#include "health/health_log.h"
#include "health/reason.h"
#include "node/metrics.h"
#include "util/child.h"
#include "util/jsonschema.h"
#include "util/statefile.h"
#include "util/strutil.h"

#define LOCK_FILE     "active.lock"
#define MAX_FILE_SIZE (4 << 20)
#define OUT_MAX       (1 << 20) /* the program's JSON: ~30 KiB for 8 GPUs */
#define SLACK_S       15        /* process start, CUDA and NCCL set-up beyond the budget */

static const char *const outcome_names[] = {"pass", "fail", "error", "interrupted", "fresh"};

const char *golden_active_outcome_name(enum golden_active_outcome o)
{
	return (unsigned)o < sizeof(outcome_names) / sizeof(outcome_names[0]) ? outcome_names[o]
	                                                                      : "?";
}

/* --- the record ------------------------------------------------------------ */

static const char *jstr(struct json_object *o, const char *k)
{
	struct json_object *v;

	return json_object_object_get_ex(o, k, &v) && json_object_is_type(v, json_type_string)
	           ? json_object_get_string(v)
	           : "";
}

static long long jint(struct json_object *o, const char *k)
{
	struct json_object *v;

	return json_object_object_get_ex(o, k, &v) ? json_object_get_int64(v) : 0;
}

int golden_active_record_load(const char *state_dir, struct golden_active_record *rec)
{
	char path[PATH_MAX];
	struct json_object *root, *v;
	struct golden_err err = {{0}};
	struct stat st;
	char *buf;
	ssize_t n;
	int fd;

	memset(rec, 0, sizeof(*rec));
	if (golden_path_join(path, sizeof(path), state_dir, GOLDEN_ACTIVE_RECORD_FILE) < 0)
		return -1;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > MAX_FILE_SIZE ||
	    !(buf = malloc((size_t)st.st_size + 1))) {
		close(fd);
		return -1;
	}
	n = read(fd, buf, (size_t)st.st_size);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	root = json_tokener_parse(buf);
	free(buf);
	if (!root || !json_object_is_type(root, json_type_object) ||
	    !golden_json_schema_ok(root, "golden-active-record", NULL, 0)) {
		json_object_put(root);
		return -1;
	}
	rec->last_time = jint(root, "last_time");
	golden_strlcpy(rec->last_outcome, jstr(root, "last_outcome"), sizeof(rec->last_outcome));
	golden_strlcpy(rec->last_source, jstr(root, "last_source"), sizeof(rec->last_source));
	golden_strlcpy(rec->last_job, jstr(root, "last_job"), sizeof(rec->last_job));
	golden_strlcpy(rec->last_code, jstr(root, "last_code"), sizeof(rec->last_code));
	golden_strlcpy(rec->last_detail, jstr(root, "last_detail"), sizeof(rec->last_detail));
	rec->last_duration_ms = (int)jint(root, "last_duration_ms");
	rec->last_pass = jint(root, "last_pass");
	rec->last_fail = jint(root, "last_fail");
	rec->last_interrupted = jint(root, "last_interrupted");
	rec->runs = (unsigned long)jint(root, "runs");
	rec->passes = (unsigned long)jint(root, "passes");
	rec->fails = (unsigned long)jint(root, "fails");
	rec->errors = (unsigned long)jint(root, "errors");
	rec->interruptions = (unsigned long)jint(root, "interruptions");
	if (json_object_object_get_ex(root, "report", &v) &&
	    golden_active_report_from_json(v, &rec->report, &err) == 0)
		rec->have_report = true;
	json_object_put(root);
	return 0;
}

int golden_active_record_save(const char *state_dir, const struct golden_active_record *rec)
{
	struct json_object *o = json_object_new_object();
	char path[PATH_MAX];
	const char *text;
	int rc = -1;

	golden_json_stamp(o, "golden-active-record");
#define S(k, v) json_object_object_add(o, k, json_object_new_string(v))
#define I(k, v) json_object_object_add(o, k, json_object_new_int64((long long)(v)))
	I("last_time", rec->last_time);
	S("last_outcome", rec->last_outcome);
	S("last_source", rec->last_source);
	S("last_job", rec->last_job);
	S("last_code", rec->last_code);
	S("last_detail", rec->last_detail);
	I("last_duration_ms", rec->last_duration_ms);
	I("last_pass", rec->last_pass);
	I("last_fail", rec->last_fail);
	I("last_interrupted", rec->last_interrupted);
	I("runs", rec->runs);
	I("passes", rec->passes);
	I("fails", rec->fails);
	I("errors", rec->errors);
	I("interruptions", rec->interruptions);
#undef S
#undef I
	if (rec->have_report)
		json_object_object_add(o, "report", golden_active_report_to_json(&rec->report));
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY);
	if (golden_mkdir_p(state_dir) == 0 &&
	    golden_path_join(path, sizeof(path), state_dir, GOLDEN_ACTIVE_RECORD_FILE) == 0)
		rc = golden_write_atomic(path, text, strlen(text));
	json_object_put(o);
	return rc;
}

/* --- running the program ----------------------------------------------------- */

/* It runs as root: like golden.conf and the recipes, it must be root's and
 * writable by nobody else. */
static int program_ok(const char *path, struct golden_active_report *rep)
{
	struct stat st;

	if (!path || !path[0]) {
		snprintf(rep->detail, sizeof(rep->detail),
		         "no active program: set active = /usr/local/sbin/golden-active in "
		         "golden.conf");
		return -1;
	}
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) || !(st.st_mode & S_IXUSR)) {
		snprintf(rep->detail, sizeof(rep->detail),
		         "active = %.300s: not an executable file", path);
		return -1;
	}
	if (geteuid() == 0 && (st.st_uid != 0 || (st.st_mode & 022))) {
		snprintf(rep->detail, sizeof(rep->detail),
		         "active = %.300s: refusing to run it as root: owned by uid %u, mode %04o; "
		         "it must be root-owned and not group/world-writable",
		         path, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
		return -1;
	}
	return 0;
}

static int exec_program(const struct golden_active_run_opts *o, int budget_s,
                        struct golden_active_report *rep)
{
	const struct golden_conf *c = o->conf;
	char budget[16], gpus[16], pct[16];
	char *argv[20];
	char *out = malloc(OUT_MAX);
	struct golden_err err = {{0}};
	int n = 0, st;

	if (!out)
		return -1;
	snprintf(budget, sizeof(budget), "%d", budget_s);
	snprintf(gpus, sizeof(gpus), "%d", c->expected_gpus);
	snprintf(pct, sizeof(pct), "%d", c->active_sibling_pct);
	argv[n++] = (char *)c->active_program;
	argv[n++] = "--json";
	argv[n++] = "--budget";
	argv[n++] = budget;
	argv[n++] = "--node";
	argv[n++] = (char *)o->node;
	if (c->expected_gpus >= 0) {
		argv[n++] = "--gpus";
		argv[n++] = gpus;
	}
	if (c->active_sibling_pct > 0) {
		argv[n++] = "--sibling-pct";
		argv[n++] = pct;
	}
	if (o->topology && o->topology[0]) {
		argv[n++] = "--topology";
		argv[n++] = (char *)o->topology;
	}
	if (o->sysroot && o->sysroot[0]) {
		argv[n++] = "--sysroot";
		argv[n++] = (char *)o->sysroot;
	}
	argv[n] = NULL;
	st = golden_child_capture(argv, out, OUT_MAX, (budget_s + SLACK_S) * 1000);
	if (o->stop && *o->stop) {
		free(out);
		return 1;
	}
	if (st < 0) {
		golden_active_report_init(rep);
		snprintf(rep->detail, sizeof(rep->detail),
		         "%.300s did not finish within %d s (its budget + %d s): killed",
		         c->active_program, budget_s + SLACK_S, SLACK_S);
		free(out);
		return -1;
	}
	if (golden_active_report_parse(out, rep, &err) < 0) {
		snprintf(rep->detail, sizeof(rep->detail), "%.300s (exit %d): %.160s",
		         c->active_program, st, err.msg);
		rep->result = GOLDEN_ACTIVE_ERROR;
		free(out);
		return -1;
	}
	free(out);
	return 0;
}

static void remember(const struct golden_active_run_opts *o, enum golden_active_outcome oc,
                     const struct golden_active_report *rep, int duration_ms)
{
	struct golden_active_record *rec = malloc(sizeof(*rec));
	char lock[PATH_MAX];
	long long now = (long long)time(NULL);
	int fd = -1;

	if (!rec)
		return;
	if (golden_mkdir_p(o->state_dir) == 0 &&
	    golden_path_join(lock, sizeof(lock), o->state_dir, LOCK_FILE) == 0)
		fd = golden_lock_file(lock);
	if (golden_active_record_load(o->state_dir, rec) < 0)
		memset(rec, 0, sizeof(*rec)); /* unreadable: start over */
	rec->last_time = now;
	golden_strlcpy(rec->last_outcome, golden_active_outcome_name(oc),
	               sizeof(rec->last_outcome));
	golden_strlcpy(rec->last_source, o->source ? o->source : "manual",
	               sizeof(rec->last_source));
	golden_strlcpy(rec->last_job, o->job_id ? o->job_id : "", sizeof(rec->last_job));
	golden_strlcpy(rec->last_code, rep->code, sizeof(rec->last_code));
	golden_strlcpy(rec->last_detail, rep->detail, sizeof(rec->last_detail));
	rec->last_duration_ms = duration_ms;
	rec->runs++;
	switch (oc) {
	case GOLDEN_ACTIVE_RUN_PASS:
		rec->passes++;
		rec->last_pass = now;
		break;
	case GOLDEN_ACTIVE_RUN_FAIL:
		rec->fails++;
		rec->last_fail = now;
		break;
	case GOLDEN_ACTIVE_RUN_INTERRUPTED:
		rec->interruptions++;
		rec->last_interrupted = now;
		break;
	default:
		rec->errors++;
		break;
	}
	/* The figures of the last run that produced some. */
	if (oc == GOLDEN_ACTIVE_RUN_PASS || oc == GOLDEN_ACTIVE_RUN_FAIL) {
		rec->report = *rep;
		rec->have_report = true;
	}
	golden_active_record_save(o->state_dir, rec);
	if (fd >= 0)
		close(fd);
	if (o->metrics_dir && o->metrics_dir[0])
		golden_metrics_active(o->metrics_dir, o->node, rec);
	free(rec);
}

static const struct golden_check active_chk = {GOLDEN_ACTIVE_CHECK, GOLDEN_CHK_GPU, NULL, 0, 0};
static const struct golden_check validate_chk = {GOLDEN_ACTIVE_VALIDATE_CHECK, GOLDEN_CHK_GPU, NULL,
                                                 0, 0};

void golden_active_outcome_fill(enum golden_active_outcome oc,
                                const struct golden_active_report *rep, bool validation,
                                int duration_ms, struct golden_check_outcome *out)
{
	memset(out, 0, sizeof(*out));
	out->chk = validation ? &validate_chk : &active_chk;
	out->duration_ms = duration_ms;
	switch (oc) {
	case GOLDEN_ACTIVE_RUN_FAIL:
		golden_check_fail(&out->res, GOLDEN_ACTION_DRAIN_ACTIVE, rep->code, "%s",
		                  rep->detail);
		break;
	case GOLDEN_ACTIVE_RUN_PASS:
		out->res.status = rep->result == GOLDEN_ACTIVE_WARN ? GOLDEN_ST_WARN : GOLDEN_ST_OK;
		golden_strlcpy(out->res.detail, rep->detail, sizeof(out->res.detail));
		break;
	default:
		/* golden never drains for its own inability to judge */
		golden_check_warn(&out->res, validation ? "validation error" : "active error",
		                  "%s: %s", golden_active_outcome_name(oc), rep->detail);
		break;
	}
}

static void log_run(const struct golden_active_run_opts *o, enum golden_active_outcome oc,
                    const struct golden_active_report *rep, int duration_ms)
{
	struct golden_run_report *r = calloc(1, sizeof(*r));
	struct golden_run_info info = {0};
	char reason[GOLDEN_REASON_MAX];

	if (!r)
		return;
	golden_active_outcome_fill(oc, rep, false, duration_ms, &r->out[0]);
	r->n = 1;
	r->total_ms = duration_ms;
	r->worst = r->out[0].res.status == GOLDEN_ST_OK ? -1 : 0;
	if (golden_reason_format(r, reason, sizeof(reason)) == 0)
		info.reason = reason;
	info.node = o->node;
	info.job_id = o->job_id ? o->job_id : "";
	info.phase = "active";
	info.node_state = golden_active_outcome_name(oc);
	if (o->log_path && o->log_path[0])
		golden_health_log_append(o->log_path, r, &info);
	golden_health_log_syslog(r, &info);
	free(r);
}

enum golden_active_outcome golden_active_run(const struct golden_active_run_opts *o,
                                             struct golden_active_report *rep)
{
	bool validation = o->source && !strcmp(o->source, "validation");
	enum golden_active_outcome oc;
	long t0 = golden_child_now_ms();
	int rc, ms;

	golden_active_report_init(rep);
	if (o->max_age_s > 0) {
		struct golden_active_record *rec = malloc(sizeof(*rec));
		long long now = (long long)time(NULL);

		if (rec && golden_active_record_load(o->state_dir, rec) == 0 && rec->last_pass &&
		    now - rec->last_pass < o->max_age_s) {
			snprintf(rep->detail, sizeof(rep->detail),
			         "passed %lld s ago, within max-age %lld s: nothing to do",
			         now - rec->last_pass, o->max_age_s);
			free(rec);
			return GOLDEN_ACTIVE_RUN_FRESH;
		}
		free(rec);
	}
	if (program_ok(o->conf->active_program, rep) < 0) {
		oc = GOLDEN_ACTIVE_RUN_ERROR;
	} else {
		rc = exec_program(o, o->budget_s > 0 ? o->budget_s : o->conf->active_budget_s, rep);
		if (rc == 1)
			oc = GOLDEN_ACTIVE_RUN_INTERRUPTED;
		else if (rc < 0)
			oc = GOLDEN_ACTIVE_RUN_ERROR;
		else if (rep->result == GOLDEN_ACTIVE_FAIL)
			oc = GOLDEN_ACTIVE_RUN_FAIL;
		else if (rep->result == GOLDEN_ACTIVE_ERROR)
			oc = GOLDEN_ACTIVE_RUN_ERROR;
		else
			oc = GOLDEN_ACTIVE_RUN_PASS;
	}
	if (oc == GOLDEN_ACTIVE_RUN_INTERRUPTED) {
		golden_active_report_init(rep);
		snprintf(rep->detail, sizeof(rep->detail),
		         "interrupted (preempted or cancelled): not counted against the node");
	}
	ms = (int)(golden_child_now_ms() - t0);
	remember(o, oc, rep, ms);
	if (!validation)
		log_run(o, oc, rep, ms);
	return oc;
}
