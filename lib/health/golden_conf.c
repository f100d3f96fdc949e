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

#include "util/strutil.h"

void golden_conf_init(struct golden_conf *conf)
{
	memset(conf, 0, sizeof(*conf));
	conf->expected_gpus = -1;
	conf->expected_efa = -1;
	conf->budget_ms = 10000;
	golden_strlcpy(conf->state_dir, "/var/lib/slurm-golden/%n", sizeof(conf->state_dir));
	golden_strlcpy(conf->log_path, "/var/log/slurm-golden/health.jsonl",
	               sizeof(conf->log_path));
	golden_strlcpy(conf->scontrol, "/usr/bin/scontrol", sizeof(conf->scontrol));
	golden_strlcpy(conf->teardown_dir, GOLDEN_CACHEDIR "/teardown", sizeof(conf->teardown_dir));
	conf->stall_sample_ms = 100;
	conf->flap_count = 3;
	conf->flap_hours = 24;
}

static int parse_int(const char *v, int min, int max, int *out)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || end == v || *end || n < min || n > max)
		return -1;
	*out = (int)n;
	return 0;
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
		return parse_int(v, 0, GOLDEN_MAX_GPUS, &c->expected_gpus)
		           ? BAD("%s: gpus = %s: expected a GPU count 0-%d", where, v,
		                 GOLDEN_MAX_GPUS)
		           : 0;
	if (!strcmp(key, "ib_rate")) {
		int r;

		if (parse_int(v, 1, 3200, &r))
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
		return parse_int(v, 0, 64, &c->expected_efa)
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
		return parse_int(v, 100, 600000, &c->budget_ms)
		           ? BAD("%s: budget_ms = %s: expected 100-600000", where, v)
		           : 0;
	if (!strcmp(key, "stall_sample_ms"))
		return parse_int(v, 10, 2000, &c->stall_sample_ms)
		           ? BAD("%s: stall_sample_ms = %s: expected 10-2000", where, v)
		           : 0;
	if (!strcmp(key, "flap_count"))
		return parse_int(v, 0, 100, &c->flap_count)
		           ? BAD("%s: flap_count = %s: expected 0-100 (0: never call a node "
		                 "flapping)",
		                 where, v)
		           : 0;
	if (!strcmp(key, "flap_hours"))
		return parse_int(v, 1, 24 * 90, &c->flap_hours)
		           ? BAD("%s: flap_hours = %s: expected 1-2160", where, v)
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
	if (!strncmp(key, "xid.", 4)) {
		int xid;

		if (parse_int(key + 4, 1, 100000, &xid))
			return BAD("%s: %s: expected xid.NUMBER", where, key);
		if (c->nxid >= GOLDEN_MAX_XID_OVERRIDES)
			return BAD("%s: too many xid overrides (at most %d)", where,
			           GOLDEN_MAX_XID_OVERRIDES);
		c->xids[c->nxid].xid = xid;
		if (parse_xid_policy(v, &c->xids[c->nxid]))
			return BAD(
			    "%s: %s = %s: expected drain, drain-reset, drain-reboot, warn or "
			    "ignore",
			    where, key, v);
		c->nxid++;
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
			if (parse_int(v, 10, 600000, &o->deadline_ms))
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
	return BAD(
	    "%s: unknown key '%s'; expected gpus, ib_rate, link_layer, efa_count, gpudirect, "
	    "mount, budget_ms, xid_scope, topology, sysroot, state_dir, log, scontrol, "
	    "teardown_dir, stall_sample_ms, flap_count, flap_hours, metrics_dir, xid.N, "
	    "check.NAME",
	    where, key);
}

int golden_conf_load(const char *path, bool check_owner, struct golden_conf *conf,
                     struct golden_err *err)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	FILE *f;
	char line[1024];
	int lineno = 0;

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
	while (fgets(line, sizeof(line), f)) {
		char where[PATH_MAX + 16], *p = line, *eq, *key, *val;

		lineno++;
		snprintf(where, sizeof(where), "%s:%d", path, lineno);
		if (!strchr(line, '\n') && !feof(f)) {
			fclose(f);
			return golden_err_set(err, "%s: line longer than %zu bytes", where,
			                      sizeof(line) - 2);
		}
		line[strcspn(line, "#\n")] = '\0';
		while (isspace((unsigned char)*p))
			p++;
		golden_rtrim(p);
		if (!*p)
			continue;
		eq = strchr(p, '=');
		if (!eq) {
			fclose(f);
			return golden_err_set(err, "%s: '%s': expected key = value", where, p);
		}
		*eq = '\0';
		key = golden_rtrim(p);
		for (val = eq + 1; isspace((unsigned char)*val); val++)
			;
		if (apply(conf, where, key, val, err) < 0) {
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	return 0;
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
