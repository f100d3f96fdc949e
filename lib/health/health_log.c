#include <config.h>

#include "health/health_log.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "util/safedir.h"
#include "util/strutil.h"
#include "util/jsonschema.h"

static void add_str(struct json_object *o, const char *k, const char *v)
{
	if (v)
		json_object_object_add(o, k, json_object_new_string(v));
}

struct json_object *golden_health_log_json(const struct golden_run_report *rep,
                                           const struct golden_run_info *info)
{
	struct json_object *o = json_object_new_object(), *checks = json_object_new_array();
	const char *verdict = "ok";
	char ts[64];
	time_t now = time(NULL);
	struct tm tm;

	golden_json_stamp(o, "golden-check");
	if (info->config_error)
		verdict = "config-error";
	else if (rep->worst >= 0)
		verdict = golden_check_status_name(rep->out[rep->worst].res.status);
	gmtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
	add_str(o, "time", ts);
	add_str(o, "node", info->node);
	add_str(o, "job", info->job_id && *info->job_id ? info->job_id : NULL);
	add_str(o, "phase", info->phase);
	add_str(o, "result", verdict);
	add_str(o, "reason", info->reason);
	add_str(o, "drain", info->drain);
	add_str(o, "topology", info->topology_note);
	add_str(o, "resume", info->resume);
	add_str(o, "waiting", info->waiting);
	add_str(o, "node_state", info->node_state);
	add_str(o, "config_error", info->config_error);
	json_object_object_add(o, "duration_ms", json_object_new_int(rep->total_ms));
	for (int i = 0; i < rep->n; i++) {
		const struct golden_check_outcome *c = &rep->out[i];
		struct json_object *j = json_object_new_object();

		add_str(j, "name", c->chk->name);
		add_str(j, "class", golden_check_class_name(c->chk->cls));
		add_str(j, "result", golden_check_status_name(c->res.status));
		if (c->res.status == GOLDEN_ST_FAIL)
			add_str(j, "action", golden_check_action_name(c->res.action));
		if (c->res.code[0])
			add_str(j, "code", c->res.code);
		if (c->res.detail[0])
			add_str(j, "detail", c->res.detail);
		json_object_object_add(j, "duration_ms", json_object_new_int(c->duration_ms));
		json_object_object_add(j, "deadline_ms", json_object_new_int(c->deadline_ms));
		if (c->timed_out)
			json_object_object_add(j, "timed_out", json_object_new_boolean(1));
		if (c->abandoned)
			json_object_object_add(j, "abandoned", json_object_new_boolean(1));
		json_object_array_add(checks, j);
	}
	json_object_object_add(o, "checks", checks);
	return o;
}

/* Open the log's directory (creating it 0755) the way every directory golden
 * writes into is opened (util/safedir.h): no symlink in any component, root's
 * or ours, not writable by others. Its parent may be root's and
 * group-writable: Ubuntu's /var/log is 0775 root:syslog. *base gets the
 * file's name. Returns the directory fd or -1. */
static int open_log_dir(const char *path, const char **base)
{
	char dir[PATH_MAX];
	char *slash;

	if (golden_strlcpy(dir, path, sizeof(dir)) < 0) {
		errno = ENAMETOOLONG;
		return -1;
	}
	slash = strrchr(dir, '/');
	if (!slash) {
		*base = path;
		return golden_safedir_open_logdir(".", 0, NULL);
	}
	*base = path + (slash - dir) + 1;
	if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	return golden_safedir_open_logdir(dir, 0755, NULL);
}

int golden_health_log_append(const char *path, const struct golden_run_report *rep,
                             const struct golden_run_info *info)
{
	struct json_object *o;
	struct stat st;
	const char *text, *base = NULL;
	int dirfd, fd, rc = 0;
	size_t len;
	char line[65536];

	if (!path || !*path)
		return 0;
	dirfd = open_log_dir(path, &base);
	if (dirfd < 0)
		return -1;
	if (!*base) {
		close(dirfd);
		errno = EISDIR;
		return -1;
	}
	/* O_NONBLOCK: a FIFO in the log's place must not hang the prolog. */
	fd = openat(dirfd, base,
	            O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
	            0640);
	close(dirfd);
	if (fd < 0)
		return -1;
	/* A regular file of root's or ours: not a FIFO, not someone else's. */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (st.st_uid != 0 && st.st_uid != geteuid())) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	o = golden_health_log_json(rep, info);
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	/* One write() per record keeps concurrent appends whole. */
	len = (size_t)snprintf(line, sizeof(line), "%s\n", text);
	if (len >= sizeof(line) || write(fd, line, len) != (ssize_t)len)
		rc = -1;
	json_object_put(o);
	close(fd);
	return rc;
}

void golden_health_log_syslog(const struct golden_run_report *rep,
                              const struct golden_run_info *info)
{
	openlog("slurm-golden", LOG_PID, LOG_DAEMON);
	if (info->config_error) {
		syslog(LOG_ERR, "%s %s job=%s: %s; golden.conf is broken: no checks ran",
		       info->phase, info->node, info->job_id && *info->job_id ? info->job_id : "-",
		       info->config_error);
	} else if (rep->worst < 0) {
		syslog(LOG_INFO, "%s %s job=%s: all %d checks ok (%d ms)", info->phase, info->node,
		       info->job_id && *info->job_id ? info->job_id : "-", rep->n, rep->total_ms);
	} else {
		const struct golden_check_outcome *w = &rep->out[rep->worst];

		syslog(w->res.status == GOLDEN_ST_FAIL ? LOG_ERR : LOG_WARNING,
		       "%s %s job=%s: %s %s: %s (%s)%s%s", info->phase, info->node,
		       info->job_id && *info->job_id ? info->job_id : "-", w->chk->name,
		       golden_check_status_name(w->res.status), w->res.code, w->res.detail,
		       info->drain ? "; node " : "", info->drain ? info->drain : "");
	}
	closelog();
}
