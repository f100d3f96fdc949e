#include <config.h>

#include "health/golden_conf.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <fnmatch.h>

#include "util/hostlist.h"
#include "util/strutil.h"

void golden_conf_init(struct golden_conf *conf)
{
	memset(conf, 0, sizeof(*conf));
	conf->expected_gpus = -1;
	conf->expected_efa = -1;
	conf->budget_ms = 10000;
	conf->discovery_deadline_ms = 3000;
	golden_strlcpy(conf->state_dir, "/var/lib/slurm-golden/%n", sizeof(conf->state_dir));
	golden_strlcpy(conf->log_path, "/var/log/slurm-golden/health.jsonl",
	               sizeof(conf->log_path));
	golden_strlcpy(conf->scontrol, "/usr/bin/scontrol", sizeof(conf->scontrol));
	golden_strlcpy(conf->teardown_dir, GOLDEN_CACHEDIR "/teardown", sizeof(conf->teardown_dir));
	conf->stall_sample_ms = 100;
	conf->flap_count = 3;
	conf->flap_hours = 24;
	conf->active_budget_s = 60;
	conf->active_validate = true;
	conf->active_validate_s = 35;
	golden_conf_fleet_init(&conf->fleet);
}

static int parse_phases(const char *v, unsigned *out)
{
	char buf[128], *save = NULL;

	*out = 0;
	if (golden_strlcpy(buf, v, sizeof(buf)) < 0)
		return -1;
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "prolog"))
			*out |= GOLDEN_PHASE_PROLOG;
		else if (!strcmp(tok, "epilog"))
			*out |= GOLDEN_PHASE_EPILOG;
		else if (!strcmp(tok, "manual"))
			*out |= GOLDEN_PHASE_MANUAL;
		else if (!strcmp(tok, "healthcheck"))
			*out |= GOLDEN_PHASE_HEALTH;
		else if (!strcmp(tok, "healthcheck-busy"))
			*out |= GOLDEN_PHASE_BUSY;
		else
			return -1;
	}
	return *out ? 0 : -1;
}

static struct golden_check_override *override_for(struct golden_conf *c, const char *name)
{
	for (int i = 0; i < c->nchecks; i++)
		if (!strcmp(c->checks[i].name, name))
			return &c->checks[i];
	if (c->nchecks >= GOLDEN_MAX_CHECK_OVERRIDES)
		return NULL;
	golden_strlcpy(c->checks[c->nchecks].name, name, sizeof(c->checks[0].name));
	return &c->checks[c->nchecks++];
}

static int parse_xid_policy(const char *v, struct golden_xid_override *o)
{
	o->ignore = false;
	o->status = GOLDEN_ST_FAIL;
	if (!strcmp(v, "drain"))
		o->action = GOLDEN_ACTION_DRAIN;
	else if (!strcmp(v, "drain-reset"))
		o->action = GOLDEN_ACTION_DRAIN_RESET;
	else if (!strcmp(v, "drain-reboot"))
		o->action = GOLDEN_ACTION_DRAIN_REBOOT;
	else if (!strcmp(v, "warn")) {
		o->status = GOLDEN_ST_WARN;
		o->action = GOLDEN_ACTION_NONE;
	} else if (!strcmp(v, "ignore")) {
		o->ignore = true;
		o->status = GOLDEN_ST_OK;
		o->action = GOLDEN_ACTION_NONE;
	} else
		return -1;
	return 0;
}

#define BAD(...) golden_err_set(err, __VA_ARGS__)

static int set_path(char *dst, size_t len, const char *v)
{
	return (v[0] != '/' || golden_strlcpy(dst, v, len) < 0) ? -1 : 0;
}

static int apply(struct golden_conf *c, const char *where, const char *key, const char *v,
                 struct golden_err *err)
{
	if (!strcmp(key, "gpus"))
		return golden_parse_int(v, 0, GOLDEN_MAX_GPUS, &c->expected_gpus)
		           ? BAD("%s: gpus = %s: expected a GPU count 0-%d", where, v,
		                 GOLDEN_MAX_GPUS)
		           : 0;
	if (!strcmp(key, "ib_rate")) {
		int r;

		if (golden_parse_int(v, 1, 3200, &r))
			return BAD("%s: ib_rate = %s: expected the port rate in Gb/s, e.g. 400",
			           where, v);
		c->expected_rate_gbps = r;
		return 0;
	}
	if (!strcmp(key, "link_layer")) {
		if (strcmp(v, "InfiniBand") && strcmp(v, "Ethernet"))
			return BAD("%s: link_layer = %s: expected InfiniBand or Ethernet", where,
			           v);
		golden_strlcpy(c->expected_link_layer, v, sizeof(c->expected_link_layer));
		return 0;
	}
	if (!strcmp(key, "efa_count"))
		return golden_parse_int(v, 0, 64, &c->expected_efa)
		           ? BAD("%s: efa_count = %s: expected 0-64", where, v)
		           : 0;
	if (!strcmp(key, "gpudirect")) {
		if (strcmp(v, "required") && strcmp(v, "optional"))
			return BAD("%s: gpudirect = %s: expected required or optional", where, v);
		c->require_gdr = !strcmp(v, "required");
		return 0;
	}
	if (!strcmp(key, "mount")) {
		if (c->nmounts >= GOLDEN_MAX_MOUNTS || set_path(c->mounts[c->nmounts], PATH_MAX, v))
			return BAD("%s: mount = %s: expected an absolute path (at most %d mounts)",
			           where, v, GOLDEN_MAX_MOUNTS);
		c->nmounts++;
		return 0;
	}
	if (!strcmp(key, "xid_scope")) {
		if (strcmp(v, "all") && strcmp(v, "node-gpus"))
			return BAD("%s: xid_scope = %s: expected all or node-gpus", where, v);
		c->xid_scope_node_gpus = !strcmp(v, "node-gpus");
		return 0;
	}
	if (!strcmp(key, "budget_ms"))
		return golden_parse_int(v, 100, 600000, &c->budget_ms)
		           ? BAD("%s: budget_ms = %s: expected 100-600000", where, v)
		           : 0;
	if (!strcmp(key, "discovery_deadline_ms"))
		return golden_parse_int(v, 100, 600000, &c->discovery_deadline_ms)
		           ? BAD("%s: discovery_deadline_ms = %s: expected 100-600000", where, v)
		           : 0;
	if (!strcmp(key, "stall_sample_ms"))
		return golden_parse_int(v, 10, 2000, &c->stall_sample_ms)
		           ? BAD("%s: stall_sample_ms = %s: expected 10-2000", where, v)
		           : 0;
	if (!strcmp(key, "flap_count"))
		return golden_parse_int(v, 0, 100, &c->flap_count)
		           ? BAD("%s: flap_count = %s: expected 0-100 (0: never call a node "
		                 "flapping)",
		                 where, v)
		           : 0;
	if (!strcmp(key, "flap_hours"))
		return golden_parse_int(v, 1, 24 * 90, &c->flap_hours)
		           ? BAD("%s: flap_hours = %s: expected 1-2160", where, v)
		           : 0;
	if (!strcmp(key, "nccl_tests_dir"))
		return set_path(c->nccl_tests_dir, PATH_MAX, v)
		           ? BAD("%s: %s = %s: expected an absolute path", where, key, v)
		           : 0;
	if (!strcmp(key, "topology") || !strcmp(key, "sysroot") || !strcmp(key, "state_dir") ||
	    !strcmp(key, "log") || !strcmp(key, "scontrol") || !strcmp(key, "teardown_dir") ||
	    !strcmp(key, "metrics_dir")) {
		char *dst = !strcmp(key, "topology")       ? c->topology
		            : !strcmp(key, "metrics_dir")  ? c->metrics_dir
		            : !strcmp(key, "sysroot")      ? c->sysroot
		            : !strcmp(key, "state_dir")    ? c->state_dir
		            : !strcmp(key, "log")          ? c->log_path
		            : !strcmp(key, "teardown_dir") ? c->teardown_dir
		                                           : c->scontrol;

		if (set_path(dst, PATH_MAX, v))
			return BAD("%s: %s = %s: expected an absolute path", where, key, v);
		return 0;
	}
	if (!strcmp(key, "active"))
		return set_path(c->active_program, PATH_MAX, v)
		           ? BAD("%s: active = %s: expected the absolute path of golden-active",
		                 where, v)
		           : 0;
	if (!strcmp(key, "active_budget_s"))
		return golden_parse_int(v, 10, 3600, &c->active_budget_s)
		           ? BAD("%s: active_budget_s = %s: expected 10-3600 seconds", where, v)
		           : 0;
	if (!strcmp(key, "active_validate_s"))
		return golden_parse_int(v, 10, 40, &c->active_validate_s)
		           ? BAD("%s: active_validate_s = %s: expected 10-40 seconds (slurmd kills "
		                 "HealthCheckProgram after 60 s)",
		                 where, v)
		           : 0;
	if (!strcmp(key, "active_sibling_pct"))
		return golden_parse_int(v, 0, 90, &c->active_sibling_pct)
		           ? BAD("%s: active_sibling_pct = %s: expected 0-90 (0: each test's own)",
		                 where, v)
		           : 0;
	if (!strcmp(key, "active_validate")) {
		if (strcmp(v, "on") && strcmp(v, "off"))
			return BAD("%s: active_validate = %s: expected on or off", where, v);
		c->active_validate = !strcmp(v, "on");
		return 0;
	}
	if (!strncmp(key, "xid.", 4)) {
		int xid;

		if (golden_parse_int(key + 4, 1, 100000, &xid))
			return BAD("%s: %s: expected xid.NUMBER", where, key);
		struct golden_xid_override *o = NULL;

		/* A later line (a node class's section) replaces an earlier one. */
		for (int i = 0; i < c->nxid && !o; i++)
			if (c->xids[i].xid == xid)
				o = &c->xids[i];
		if (!o && c->nxid >= GOLDEN_MAX_XID_OVERRIDES)
			return BAD("%s: too many xid overrides (at most %d)", where,
			           GOLDEN_MAX_XID_OVERRIDES);
		if (!o)
			o = &c->xids[c->nxid];
		if (parse_xid_policy(v, o))
			return BAD(
			    "%s: %s = %s: expected drain, drain-reset, drain-reboot, warn or "
			    "ignore",
			    where, key, v);
		if (o == &c->xids[c->nxid])
			c->nxid++;
		o->xid = xid;
		return 0;
	}
	if (!strncmp(key, "check.", 6)) {
		char name[32];
		const char *dot = strchr(key + 6, '.');
		size_t n = dot ? (size_t)(dot - key - 6) : strlen(key + 6);
		struct golden_check_override *o;

		if (n == 0 || n >= sizeof(name))
			return BAD("%s: %s: expected check.NAME, check.NAME.deadline_ms or "
			           "check.NAME.phases",
			           where, key);
		memcpy(name, key + 6, n);
		name[n] = '\0';
		if (!(o = override_for(c, name)))
			return BAD("%s: too many check overrides", where);
		if (!dot) {
			if (strcmp(v, "off") && strcmp(v, "on"))
				return BAD("%s: %s = %s: expected on or off", where, key, v);
			o->disabled = !strcmp(v, "off");
		} else if (!strcmp(dot + 1, "deadline_ms")) {
			if (golden_parse_int(v, 10, 600000, &o->deadline_ms))
				return BAD("%s: %s = %s: expected 10-600000", where, key, v);
		} else if (!strcmp(dot + 1, "phases")) {
			if (parse_phases(v, &o->phases))
				return BAD(
				    "%s: %s = %s: expected a list of prolog, epilog, manual, "
				    "healthcheck, healthcheck-busy",
				    where, key, v);
		} else {
			return BAD("%s: %s: unknown setting; expected deadline_ms or phases", where,
			           key);
		}
		return 0;
	}
	if (golden_conf_fleet_key(key))
		return golden_conf_fleet_apply(&c->fleet, where, key, v, err);
	return BAD(
	    "%s: unknown key '%s'; expected gpus, ib_rate, link_layer, efa_count, gpudirect, "
	    "mount, budget_ms, discovery_deadline_ms, xid_scope, topology, sysroot, state_dir, "
	    "log, scontrol, "
	    "teardown_dir, stall_sample_ms, flap_count, flap_hours, metrics_dir, active, "
	    "active_budget_s, active_validate, active_validate_s, active_sibling_pct, xid.N, "
	    "check.NAME, nccl_tests_dir, guard_*, drill_*, report_*",
	    where, key);
}

/* One `key = value` line, and the section it sits in (-1: every node). */
struct entry {
	int line;
	int section;
	char key[96];
	char value[PATH_MAX];
};

enum section_kind { SECTION_HOSTLIST, SECTION_GLOB, SECTION_FEATURE };

struct section {
	int line;
	enum section_kind kind;
	char expr[256];
	char header[288]; /* as written, for messages: "[nodes gpu[001-064]]" */
	bool matches;
};

struct parsed {
	struct entry *e;
	int ne, cap;
	struct section s[GOLDEN_CONF_MAX_SECTIONS];
	int ns;
};

static bool feature_name_ok(const char *f)
{
	if (!*f)
		return false;
	for (; *f; f++)
		if (!isalnum((unsigned char)*f) && !strchr("_.-", *f))
			return false;
	return true;
}

/* "[nodes EXPR]" or "[feature NAME]" (p is trimmed, starts with '['). */
static int parse_section(const char *where, const char *p, struct section *sec,
                         struct golden_err *err)
{
	size_t n = strlen(p);
	char body[288], *arg;

	if (n < 3 || p[n - 1] != ']' || n - 2 >= sizeof(body))
		return BAD("%s: '%s': expected a section [nodes HOSTLIST|GLOB] or [feature NAME]",
		           where, p);
	memcpy(body, p + 1, n - 2);
	body[n - 2] = '\0';
	golden_rtrim(body);
	arg = body + strcspn(body, " \t");
	if (*arg)
		*arg++ = '\0';
	while (isspace((unsigned char)*arg))
		arg++;
	golden_strlcpy(sec->header, p, sizeof(sec->header));
	if (golden_strlcpy(sec->expr, arg, sizeof(sec->expr)) < 0)
		return BAD("%s: %s: expression too long", where, p);
	if (!strcmp(body, "nodes")) {
		struct golden_err herr = {{0}};

		if (!*arg)
			return BAD("%s: %s: expected [nodes gpu[001-064]] or [nodes gpu*]", where,
			           p);
		if (strpbrk(arg, "*?")) {
			sec->kind = SECTION_GLOB;
			return 0;
		}
		sec->kind = SECTION_HOSTLIST;
		if (golden_hostlist_check(arg, &herr) < 0)
			return BAD("%s: %s: %s", where, p, herr.msg);
		return 0;
	}
	if (!strcmp(body, "feature")) {
		if (!feature_name_ok(arg))
			return BAD("%s: %s: expected [feature NAME], a Slurm node feature "
			           "(letters, digits, '_', '.', '-')",
			           where, p);
		sec->kind = SECTION_FEATURE;
		return 0;
	}
	return BAD("%s: '%s': unknown section '%s'; expected [nodes HOSTLIST|GLOB] or "
	           "[feature NAME]",
	           where, p, body);
}

static int add_entry(struct parsed *ps, int line, const char *key, const char *val)
{
	struct entry *e;

	if (ps->ne == ps->cap) {
		int cap = ps->cap ? ps->cap * 2 : 32;
		struct entry *ne = realloc(ps->e, sizeof(*ne) * (size_t)cap);

		if (!ne)
			return -1;
		ps->e = ne;
		ps->cap = cap;
	}
	e = &ps->e[ps->ne++];
	e->line = line;
	e->section = ps->ns - 1;
	if (golden_strlcpy(e->key, key, sizeof(e->key)) < 0 ||
	    golden_strlcpy(e->value, val, sizeof(e->value)) < 0)
		return -2;
	return 0;
}

/* Read FILE into lines and sections; every syntax error with FILE:LINE. */
static int parse_file(const char *path, bool check_owner, struct parsed *ps, struct golden_err *err)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	FILE *f;
	char line[PATH_MAX + 128];
	int lineno = 0, rc = 0;

	if (fd < 0)
		return golden_err_set(err, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return golden_err_set(err, "%s: not a regular file", path);
	}
	if (check_owner && (st.st_uid != 0 || (st.st_mode & 022))) {
		close(fd);
		return golden_err_set(err,
		                      "%s: refusing config: owned by uid %u, mode %04o; it must be "
		                      "root-owned and not group/world-writable",
		                      path, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
	}
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return golden_err_set(err, "%s: %s", path, strerror(errno));
	}
	while (rc == 0 && fgets(line, sizeof(line), f)) {
		char where[PATH_MAX + 16], *p = line, *eq, *key, *val;
		int arc;

		lineno++;
		snprintf(where, sizeof(where), "%s:%d", path, lineno);
		if (!strchr(line, '\n') && !feof(f)) {
			rc = golden_err_set(err, "%s: line longer than %zu bytes", where,
			                    sizeof(line) - 2);
			break;
		}
		line[strcspn(line, "#\n")] = '\0';
		while (isspace((unsigned char)*p))
			p++;
		golden_rtrim(p);
		if (!*p)
			continue;
		if (*p == '[') {
			if (ps->ns >= GOLDEN_CONF_MAX_SECTIONS) {
				rc = BAD("%s: too many sections (at most %d)", where,
				         GOLDEN_CONF_MAX_SECTIONS);
				break;
			}
			memset(&ps->s[ps->ns], 0, sizeof(ps->s[0]));
			ps->s[ps->ns].line = lineno;
			rc = parse_section(where, p, &ps->s[ps->ns], err);
			ps->ns++;
			continue;
		}
		eq = strchr(p, '=');
		if (!eq) {
			rc = golden_err_set(err, "%s: '%s': expected key = value", where, p);
			break;
		}
		*eq = '\0';
		key = golden_rtrim(p);
		for (val = eq + 1; isspace((unsigned char)*val); val++)
			;
		arc = add_entry(ps, lineno, key, val);
		if (arc == -1)
			rc = golden_err_set(err, "%s: out of memory", where);
		else if (arc == -2)
			rc = golden_err_set(err, "%s: key or value too long", where);
	}
	fclose(f);
	return rc;
}

/* Does the section apply to this node? Features are asked for once. */
static void match_sections(struct parsed *ps, const struct golden_conf_node *node)
{
	char features[1024];
	int have_features = 0; /* 0 not asked, 1 known, -1 unknown */

	for (int i = 0; i < ps->ns; i++) {
		struct section *sec = &ps->s[i];

		sec->matches = false;
		if (!node || !node->name)
			continue;
		switch (sec->kind) {
		case SECTION_HOSTLIST:
			sec->matches = golden_hostlist_match(sec->expr, node->name);
			break;
		case SECTION_GLOB:
			sec->matches = fnmatch(sec->expr, node->name, 0) == 0;
			break;
		case SECTION_FEATURE:
			if (!have_features)
				have_features =
				    node->features && node->features(node->arg, features,
				                                     sizeof(features)) == 0
				        ? 1
				        : -1;
			if (have_features > 0)
				sec->matches = golden_list_has(features, ',', sec->expr);
			else if (node->warn) {
				char msg[512];

				snprintf(msg, sizeof(msg),
				         "line %d: %s skipped: the features of %s are unknown "
				         "(slurmctld "
				         "not reachable?)",
				         sec->line, sec->header, node->name);
				node->warn(node->arg, msg);
			}
			break;
		}
	}
}

static bool applies(const struct parsed *ps, const struct entry *e)
{
	return e->section < 0 || ps->s[e->section].matches;
}

/* A key more than one line may give (all of them count). */
static bool repeatable(const char *key)
{
	return !strcmp(key, "mount") || golden_conf_fleet_repeatable(key);
}

/* The line whose value the node ends up with for e's key: the last line of
 * the most specific level (a section beats the lines before any section). */
static const struct entry *winner(const struct parsed *ps, const struct entry *e)
{
	const struct entry *w = NULL;

	for (int i = 0; i < ps->ne; i++) {
		const struct entry *x = &ps->e[i];

		if (!applies(ps, x) || strcmp(x->key, e->key))
			continue;
		if (!w || (x->section >= 0) >= (w->section >= 0))
			w = x;
	}
	return w;
}

/* After an error: the lines for every node that are valid on their own, so a
 * caller reporting the error can still find where the admin wants golden's
 * log. Never used to run checks. */
static void salvage(const struct parsed *ps, const char *path, struct golden_conf *conf)
{
	char where[PATH_MAX + 16];

	for (int i = 0; i < ps->ne; i++) {
		struct golden_err ignored = {{0}};

		if (ps->e[i].section >= 0)
			continue;
		snprintf(where, sizeof(where), "%s:%d", path, ps->e[i].line);
		apply(conf, where, ps->e[i].key, ps->e[i].value, &ignored);
	}
}

int golden_conf_load_node(const char *path, bool check_owner, const struct golden_conf_node *node,
                          struct golden_conf *conf, struct golden_err *err)
{
	struct parsed ps;
	struct golden_conf *scratch = malloc(sizeof(*scratch));
	char where[PATH_MAX + 16];
	int rc = 0;

	memset(&ps, 0, sizeof(ps));
	if (!scratch)
		return golden_err_set(err, "%s: out of memory", path);
	if (parse_file(path, check_owner, &ps, err) < 0) {
		salvage(&ps, path, conf);
		rc = -1;
		goto out;
	}
	/* Every line is checked, whichever nodes it applies to: a typo in
	 * another node class's section is an error on every node. */
	golden_conf_init(scratch);
	for (int i = 0; i < ps.ne && rc == 0; i++) {
		snprintf(where, sizeof(where), "%s:%d", path, ps.e[i].line);
		/* Limits count per node, not across node classes. */
		scratch->nmounts = scratch->nxid = scratch->nchecks = 0;
		golden_conf_fleet_reset_lists(&scratch->fleet);
		rc = apply(scratch, where, ps.e[i].key, ps.e[i].value, err);
	}
	if (rc < 0) {
		salvage(&ps, path, conf);
		goto out;
	}
	/* The lines for every node first: a [feature] lookup may need them
	 * (the scontrol path). */
	for (int i = 0; i < ps.ne && rc == 0; i++) {
		if (ps.e[i].section >= 0)
			continue;
		snprintf(where, sizeof(where), "%s:%d", path, ps.e[i].line);
		rc = apply(conf, where, ps.e[i].key, ps.e[i].value, err);
	}
	if (rc < 0)
		goto out;
	match_sections(&ps, node);
	/* Two sections that both apply to this node must not disagree. */
	for (int i = 0; i < ps.ne; i++) {
		const struct entry *a = &ps.e[i];

		if (a->section < 0 || !applies(&ps, a) || repeatable(a->key))
			continue;
		for (int j = i + 1; j < ps.ne; j++) {
			const struct entry *b = &ps.e[j];

			if (b->section < 0 || b->section == a->section || !applies(&ps, b) ||
			    strcmp(a->key, b->key) || !strcmp(a->value, b->value))
				continue;
			rc = golden_err_set(err,
			                    "%s:%d: %s = %s conflicts with %s:%d: %s = %s: node %s "
			                    "matches both %s and %s; make the sections disjoint or "
			                    "set %s once",
			                    path, b->line, b->key, b->value, path, a->line, a->key,
			                    a->value, node && node->name ? node->name : "?",
			                    ps.s[a->section].header, ps.s[b->section].header,
			                    a->key);
			goto out;
		}
	}
	/* Then the sections that apply, in file order. */
	for (int i = 0; i < ps.ne && rc == 0; i++) {
		if (ps.e[i].section < 0 || !applies(&ps, &ps.e[i]))
			continue;
		snprintf(where, sizeof(where), "%s:%d", path, ps.e[i].line);
		rc = apply(conf, where, ps.e[i].key, ps.e[i].value, err);
	}
	if (rc == 0 && node && node->explain)
		for (int i = 0; i < ps.ne; i++) {
			const struct entry *e = &ps.e[i];
			const struct entry *w = applies(&ps, e) ? winner(&ps, e) : NULL;
			char why[512];

			snprintf(where, sizeof(where), "%s:%d", path, e->line);
			if (!applies(&ps, e))
				snprintf(why, sizeof(why), "not for %s: %s does not match",
				         node->name ? node->name : "this node",
				         ps.s[e->section].header);
			else if (repeatable(e->key) || w == e)
				snprintf(why, sizeof(why), "applies%s%s",
				         e->section >= 0 ? ": " : " to every node",
				         e->section >= 0 ? ps.s[e->section].header : "");
			else
				snprintf(why, sizeof(why), "overridden by %s:%d", path, w->line);
			node->explain(node->arg, where, e->key, e->value, why);
		}
out:
	free(ps.e);
	free(scratch);
	return rc < 0 ? -1 : 0;
}

int golden_conf_load(const char *path, bool check_owner, struct golden_conf *conf,
                     struct golden_err *err)
{
	return golden_conf_load_node(path, check_owner, NULL, conf, err);
}

bool golden_conf_check(const struct golden_conf *conf, const struct golden_check *chk,
                       int *deadline_ms, unsigned *phases)
{
	*deadline_ms = chk->deadline_ms;
	*phases = chk->phases;
	for (int i = 0; conf && i < conf->nchecks; i++) {
		const struct golden_check_override *o = &conf->checks[i];

		if (strcmp(o->name, chk->name))
			continue;
		if (o->disabled)
			return false;
		if (o->deadline_ms)
			*deadline_ms = o->deadline_ms;
		if (o->phases)
			*phases = o->phases;
	}
	return true;
}

const struct golden_xid_override *golden_conf_xid(const struct golden_conf *conf, int xid)
{
	for (int i = 0; conf && i < conf->nxid; i++)
		if (conf->xids[i].xid == xid)
			return &conf->xids[i];
	return NULL;
}

static const char *phases_text(unsigned ph, char *buf, size_t len)
{
	static const struct {
		unsigned bit;
		const char *name;
	} names[] = {{GOLDEN_PHASE_PROLOG, "prolog"},
	             {GOLDEN_PHASE_EPILOG, "epilog"},
	             {GOLDEN_PHASE_MANUAL, "manual"},
	             {GOLDEN_PHASE_HEALTH, "healthcheck"},
	             {GOLDEN_PHASE_BUSY, "healthcheck-busy"}};

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (ph & names[i].bit) {
			if (buf[0])
				golden_strlcat(buf, ",", len);
			golden_strlcat(buf, names[i].name, len);
		}
	return buf;
}

static const char *xid_policy_text(const struct golden_xid_override *o)
{
	if (o->ignore)
		return "ignore";
	if (o->status == GOLDEN_ST_WARN)
		return "warn";
	return o->action == GOLDEN_ACTION_DRAIN_RESET    ? "drain-reset"
	       : o->action == GOLDEN_ACTION_DRAIN_REBOOT ? "drain-reboot"
	                                                 : "drain";
}

void golden_conf_print(const struct golden_conf *c, FILE *out)
{
	char buf[128];

	fprintf(out, "# in effect\n");
	if (c->expected_gpus < 0)
		fprintf(out, "gpus = (the NVIDIA GPUs on PCI)\n");
	else
		fprintf(out, "gpus = %d\n", c->expected_gpus);
	if (c->expected_rate_gbps > 0)
		fprintf(out, "ib_rate = %.0f\n", c->expected_rate_gbps);
	else
		fprintf(out, "ib_rate = (the best rate among the compute ports)\n");
	fprintf(out, "link_layer = %s\n",
	        c->expected_link_layer[0] ? c->expected_link_layer : "(any)");
	if (c->expected_efa < 0)
		fprintf(out, "efa_count = (unchecked)\n");
	else
		fprintf(out, "efa_count = %d\n", c->expected_efa);
	fprintf(out, "gpudirect = %s\n", c->require_gdr ? "required" : "optional");
	for (int i = 0; i < c->nmounts; i++)
		fprintf(out, "mount = %s\n", c->mounts[i]);
	fprintf(out, "budget_ms = %d\n", c->budget_ms);
	fprintf(out, "discovery_deadline_ms = %d\n", c->discovery_deadline_ms);
	fprintf(out, "xid_scope = %s\n", c->xid_scope_node_gpus ? "node-gpus" : "all");
	fprintf(out, "topology = %s\n", c->topology[0] ? c->topology : "(live)");
	fprintf(out, "sysroot = %s\n", c->sysroot[0] ? c->sysroot : "/");
	fprintf(out, "state_dir = %s\n", c->state_dir);
	fprintf(out, "log = %s\n", c->log_path);
	fprintf(out, "scontrol = %s\n", c->scontrol);
	fprintf(out, "teardown_dir = %s\n", c->teardown_dir);
	fprintf(out, "stall_sample_ms = %d\n", c->stall_sample_ms);
	fprintf(out, "flap_count = %d\n", c->flap_count);
	fprintf(out, "flap_hours = %d\n", c->flap_hours);
	fprintf(out, "metrics_dir = %s\n", c->metrics_dir[0] ? c->metrics_dir : "(off)");
	if (c->nccl_tests_dir[0])
		fprintf(out, "nccl_tests_dir = %s\n", c->nccl_tests_dir);
	golden_conf_fleet_print(&c->fleet, out);
	for (int i = 0; i < c->nxid; i++)
		fprintf(out, "xid.%d = %s\n", c->xids[i].xid, xid_policy_text(&c->xids[i]));
	for (int i = 0; i < c->nchecks; i++) {
		const struct golden_check_override *o = &c->checks[i];

		if (o->disabled)
			fprintf(out, "check.%s = off\n", o->name);
		if (o->deadline_ms)
			fprintf(out, "check.%s.deadline_ms = %d\n", o->name, o->deadline_ms);
		if (o->phases)
			fprintf(out, "check.%s.phases = %s\n", o->name,
			        phases_text(o->phases, buf, sizeof(buf)));
	}
}
