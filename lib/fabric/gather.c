/* Collecting node facts: see gather.h. */
#include <config.h>

#include "fabric/gather.h"

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

#include "fabric/facts.h"
#include "util/capture.h"
#include "util/jsonschema.h"
#include "util/nodename.h"
#include "util/strutil.h"

#define MAX_FACTS_BYTES (4 << 20)

static void iso_now(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

struct json_object *golden_gather_document(const char *method)
{
	struct json_object *o = json_object_new_object();
	char when[32];

	golden_json_stamp(o, "golden-topology-facts");
	iso_now(when, sizeof(when));
	json_object_object_add(o, "format", json_object_new_string(GOLDEN_FACTS_FORMAT));
	json_object_object_add(o, "version", json_object_new_int(1));
	json_object_object_add(o, "generated", json_object_new_string(when));
	json_object_object_add(o, "method", json_object_new_string(method));
	json_object_object_add(o, "nodes", json_object_new_object());
	json_object_object_add(o, "unanswered", json_object_new_object());
	return o;
}

static void answered(struct json_object *doc, const char *node, struct json_object *topo)
{
	struct json_object *nodes;

	json_object_object_get_ex(doc, "nodes", &nodes);
	json_object_object_add(nodes, node, topo);
}

static void unanswered(struct json_object *doc, const char *node, const char *why)
{
	struct json_object *un;

	json_object_object_get_ex(doc, "unanswered", &un);
	json_object_object_add(un, node, json_object_new_string(why));
}

/* golden topo's JSON: an object with a "nics" array. */
static struct json_object *parse_topo(const char *text, char *why, size_t len)
{
	struct json_object *o = text ? json_tokener_parse(text) : NULL, *nics;
	char buf[128];

	if (!o) {
		snprintf(why, len, "its answer is not JSON");
		return NULL;
	}
	if (!json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "nics", &nics)) {
		snprintf(why, len, "its answer is not golden topo --format json");
		json_object_put(o);
		return NULL;
	}
	if (!golden_json_schema_ok(o, "golden-topo", buf, sizeof(buf))) {
		snprintf(why, len, "its golden topo answer: %s", buf);
		json_object_put(o);
		return NULL;
	}
	return o;
}

struct step {
	char *argv[24];
	char wopt[160], popt[160], imm[32];
};

int golden_gather_by_srun(const struct golden_hostlist *nodes, const struct golden_gather_srun *o,
                          struct json_object *doc, struct golden_err *err)
{
	struct golden_capture *jobs = calloc(nodes->n ? nodes->n : 1, sizeof(*jobs));
	struct step *steps = calloc(nodes->n ? nodes->n : 1, sizeof(*steps));
	int wait_s = o->timeout_ms / 2000 > 0 ? o->timeout_ms / 2000 : 1;

	if (!jobs || !steps) {
		free(jobs);
		free(steps);
		return golden_err_set(err, "out of memory");
	}
	for (size_t i = 0; i < nodes->n; i++) {
		struct step *s = &steps[i];
		int a = 0;

		snprintf(s->wopt, sizeof(s->wopt), "--nodelist=%s", nodes->names[i]);
		/* Give up on a node that cannot be allocated within half the
		 * deadline: busy, drained or down nodes are listed, not waited for. */
		snprintf(s->imm, sizeof(s->imm), "--immediate=%d", wait_s);
		s->argv[a++] = (char *)o->srun;
		s->argv[a++] = "--nodes=1";
		s->argv[a++] = "--ntasks=1";
		s->argv[a++] = s->wopt;
		s->argv[a++] = s->imm;
		s->argv[a++] = "--time=1";
		s->argv[a++] = "--job-name=golden-topology";
		s->argv[a++] = "--quiet";
		if (o->partition) {
			snprintf(s->popt, sizeof(s->popt), "--partition=%s", o->partition);
			s->argv[a++] = s->popt;
		}
		s->argv[a++] = (char *)o->golden;
		s->argv[a++] = "topo";
		s->argv[a++] = "--format";
		s->argv[a++] = "json";
		if (o->topology) {
			s->argv[a++] = "--topology";
			s->argv[a++] = (char *)o->topology;
		}
		if (o->sysroot) {
			s->argv[a++] = "--sysroot";
			s->argv[a++] = (char *)o->sysroot;
		}
		s->argv[a] = NULL;
		jobs[i].argv = s->argv;
		jobs[i].timeout_ms = o->timeout_ms;
	}
	if (golden_capture_run(jobs, nodes->n, o->parallel, MAX_FACTS_BYTES) < 0) {
		free(jobs);
		free(steps);
		return golden_err_set(err, "out of memory");
	}
	for (size_t i = 0; i < nodes->n; i++) {
		char why[512], reason[400];
		struct json_object *topo = NULL;

		if (jobs[i].status == 0)
			topo = parse_topo(jobs[i].out, why, sizeof(why));
		if (topo) {
			answered(doc, nodes->names[i], topo);
		} else {
			if (jobs[i].status != 0) {
				golden_capture_reason(&jobs[i], reason, sizeof(reason));
				snprintf(why, sizeof(why), "srun: %s", reason);
			}
			unanswered(doc, nodes->names[i], why);
		}
		golden_capture_free(&jobs[i]);
	}
	free(jobs);
	free(steps);
	return 0;
}

/* Read a facts file the health check wrote, as carefully as any file a
 * root program trusts: no symlink, a regular file, owned by root or us, not
 * writable by others. */
static struct json_object *read_node_file(const char *path, char *why, size_t len)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	char *buf;
	ssize_t got;
	struct json_object *o;
	char bad[128];

	if (fd < 0) {
		snprintf(why, len,
		         "no facts file %.300s: %s (is golden check --healthcheck its "
		         "HealthCheckProgram?)",
		         path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (st.st_uid != 0 && st.st_uid != geteuid()) || (st.st_mode & 022) ||
	    st.st_size > MAX_FACTS_BYTES) {
		snprintf(
		    why, len,
		    "%.300s is not a regular file owned by root (or you) and writable only by its "
		    "owner: ignored",
		    path);
		close(fd);
		return NULL;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		snprintf(why, len, "out of memory");
		return NULL;
	}
	got = read(fd, buf, (size_t)st.st_size);
	close(fd);
	if (got < 0) {
		snprintf(why, len, "%.300s: %s", path, strerror(errno));
		free(buf);
		return NULL;
	}
	buf[got] = '\0';
	o = json_tokener_parse(buf);
	free(buf);
	if (!o) {
		snprintf(why, len, "%.300s is not JSON", path);
	} else if (!golden_json_schema_ok(o, "golden-node-facts", bad, sizeof(bad))) {
		snprintf(why, len, "%.300s: %s", path, bad);
		json_object_put(o);
		o = NULL;
	}
	return o;
}

int golden_gather_from_files(const struct golden_hostlist *nodes, const char *tmpl, long max_age_s,
                             struct json_object *doc, struct golden_err *err)
{
	time_t now = time(NULL);

	for (size_t i = 0; i < nodes->n; i++) {
		const char *node = nodes->names[i];
		char dir[PATH_MAX], path[PATH_MAX], why[600];
		struct golden_err e = {{0}};
		struct json_object *o, *v, *topo;
		const char *fmt = NULL, *who = NULL;
		long t = 0;

		if (golden_nodename_expand(tmpl, node, dir, sizeof(dir), &e) < 0)
			return golden_err_set(err, "facts directory %s: %s", tmpl, e.msg);
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, GOLDEN_NODE_FACTS_FILE) >=
		    sizeof(path)) {
			unanswered(doc, node, "facts path too long");
			continue;
		}
		o = read_node_file(path, why, sizeof(why));
		if (!o) {
			unanswered(doc, node, why);
			continue;
		}
		if (json_object_object_get_ex(o, "format", &v))
			fmt = json_object_get_string(v);
		if (json_object_object_get_ex(o, "node", &v))
			who = json_object_get_string(v);
		if (json_object_object_get_ex(o, "time", &v))
			t = (long)json_object_get_int64(v);
		if (!fmt || strcmp(fmt, GOLDEN_NODE_FACTS_FORMAT) ||
		    !json_object_object_get_ex(o, "topo", &topo) ||
		    !json_object_is_type(topo, json_type_object)) {
			snprintf(why, sizeof(why), "%.300s is not a golden node facts file", path);
			unanswered(doc, node, why);
		} else if (!who || strcmp(who, node)) {
			snprintf(why, sizeof(why), "%.300s was written by node '%.64s', not %s",
			         path, who ? who : "?", node);
			unanswered(doc, node, why);
		} else if (max_age_s > 0 && now - t > max_age_s) {
			snprintf(
			    why, sizeof(why),
			    "facts in %.300s are %ld s old (more than %ld): is the health check "
			    "running?",
			    path, (long)(now - t), max_age_s);
			unanswered(doc, node, why);
		} else {
			answered(doc, node, json_object_get(topo));
		}
		json_object_put(o);
	}
	return 0;
}

int golden_gather_slurm_nodes(const char *sinfo, const char *partition, struct golden_hostlist *out,
                              struct golden_err *err)
{
	char popt[160];
	char *argv[] = {(char *)sinfo, "--noheader", "--Node", "--format=%N", NULL, NULL};
	struct golden_capture job = {.argv = argv, .timeout_ms = 30000};
	char reason[400];
	const char *p;

	if (partition) {
		snprintf(popt, sizeof(popt), "--partition=%s", partition);
		argv[4] = popt;
	}
	if (golden_capture_one(&job, 16 << 20) < 0)
		return golden_err_set(err, "out of memory");
	if (job.status != 0) {
		golden_capture_reason(&job, reason, sizeof(reason));
		golden_capture_free(&job);
		return golden_err_set(err, "%s failed: %s", sinfo, reason);
	}
	for (p = job.out; p && *p;) {
		size_t n = strcspn(p, "\n");
		char name[256];

		if (n && n < sizeof(name)) {
			memcpy(name, p, n);
			name[n] = '\0';
			golden_rtrim(name);
			if (name[0] && golden_hostlist_add(out, name) < 0) {
				golden_capture_free(&job);
				return golden_err_set(err, "out of memory");
			}
		}
		p += n;
		if (*p)
			p++;
	}
	golden_capture_free(&job);
	golden_hostlist_uniq(out);
	if (!out->n)
		return golden_err_set(err, "%s lists no node%s%s", sinfo,
		                      partition ? " in partition " : "",
		                      partition ? partition : "");
	return 0;
}
