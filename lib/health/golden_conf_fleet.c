#include <config.h>

#include "health/golden_conf_fleet.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/strutil.h"

static const char *const owner_names[GOLDEN_OWNER_N] = {"golden", "admin", "slurm", "other"};

const char *golden_owner_name(enum golden_owner o)
{
	return (unsigned)o < GOLDEN_OWNER_N ? owner_names[o] : "unknown";
}

int golden_owner_parse(const char *name)
{
	for (int i = 0; i < GOLDEN_OWNER_N; i++)
		if (!strcmp(name, owner_names[i]))
			return i;
	return -1;
}

void golden_conf_fleet_init(struct golden_conf_fleet *f)
{
	memset(f, 0, sizeof(*f));
	f->guard_nodes = 3;
	f->guard_fraction = 0.05;
	f->guard_window_s = 900;
	f->drill_detect_ms = 2000;
	f->drill_drain_ms = 5000;
	f->drill_return_s = 600;
	f->drill_timeout_s = 600;
	/* A node-hour is down when a fault took it: golden's, Slurm's own
	 * (not responding, prolog error) or another health tool's. An admin's
	 * drain is maintenance unless report_count_reason says otherwise. */
	f->report_down[GOLDEN_OWNER_GOLDEN] = true;
	f->report_down[GOLDEN_OWNER_SLURM] = true;
	f->report_down[GOLDEN_OWNER_OTHER] = true;
	f->report_repeat = 3;
}

static const char *const list_keys[] = {"report_count_reason", "report_ignore_reason",
                                        "report_slurm_reason", "report_other_reason"};

bool golden_conf_fleet_key(const char *key)
{
	return golden_str_startswith(key, "guard_") || golden_str_startswith(key, "drill_") ||
	       golden_str_startswith(key, "report_");
}

bool golden_conf_fleet_repeatable(const char *key)
{
	for (size_t i = 0; i < sizeof(list_keys) / sizeof(list_keys[0]); i++)
		if (!strcmp(key, list_keys[i]))
			return true;
	return false;
}

void golden_conf_fleet_reset_lists(struct golden_conf_fleet *f)
{
	f->count.n = f->ignore.n = f->slurm.n = f->other.n = 0;
}

static int add_glob(struct golden_conf_globs *g, const char *v)
{
	/* Printable text only: it is matched against reasons, never run. */
	for (const char *p = v; *p; p++)
		if (*p < 0x20 || *p > 0x7e)
			return -1;
	if (!v[0] || g->n >= GOLDEN_CONF_REASON_GLOBS ||
	    golden_strlcpy(g->glob[g->n], v, sizeof(g->glob[0])) < 0)
		return -1;
	g->n++;
	return 0;
}

static int parse_owners(bool *down, const char *v)
{
	char buf[128], *save = NULL;

	if (golden_strlcpy(buf, v, sizeof(buf)) < 0)
		return -1;
	memset(down, 0, sizeof(bool) * GOLDEN_OWNER_N);
	if (!strcmp(buf, "none"))
		return 0;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int o = golden_owner_parse(t);

		if (o < 0)
			return -1;
		down[o] = true;
	}
	return 0;
}

int golden_conf_fleet_apply(struct golden_conf_fleet *f, const char *where, const char *key,
                            const char *v, struct golden_err *err)
{
	struct {
		const char *key;
		int *dst;
		int min, max;
		const char *what;
	} const ints[] = {
	    {"guard_nodes", &f->guard_nodes, 0, 100000,
	     "0-100000 (the drains that make a shared cause likely; 0: guard off)"},
	    {"guard_window", &f->guard_window_s, 10, 604800, "10-604800 seconds"},
	    {"drill_detect_ms", &f->drill_detect_ms, 1, 3600000, "1-3600000"},
	    {"drill_drain_ms", &f->drill_drain_ms, 1, 3600000, "1-3600000"},
	    {"drill_return_s", &f->drill_return_s, 1, 86400, "1-86400"},
	    {"drill_timeout", &f->drill_timeout_s, 5, 86400, "5-86400 seconds"},
	    {"report_repeat", &f->report_repeat, 2, 1000, "2-1000"},
	};
	struct golden_conf_globs *lists[] = {&f->count, &f->ignore, &f->slurm, &f->other};

	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
		if (!strcmp(key, ints[i].key))
			return golden_parse_int(v, ints[i].min, ints[i].max, ints[i].dst)
			           ? golden_err_set(err, "%s: %s = %s: expected %s", where, key, v,
			                            ints[i].what)
			           : 0;
	if (!strcmp(key, "guard_fraction")) {
		char *end;
		double d;

		errno = 0;
		d = strtod(v, &end);
		if (errno || end == v || *end || !(d >= 0 && d <= 1))
			return golden_err_set(
			    err,
			    "%s: guard_fraction = %s: expected 0-1 (0.05: 5%% of the partition)",
			    where, v);
		f->guard_fraction = d;
		return 0;
	}
	if (!strcmp(key, "drill_mount")) {
		if (v[0] != '/' || golden_strlcpy(f->drill_mount, v, sizeof(f->drill_mount)) < 0)
			return golden_err_set(
			    err, "%s: drill_mount = %s: expected an absolute path", where, v);
		return 0;
	}
	if (!strcmp(key, "report_downtime")) {
		if (parse_owners(f->report_down, v) < 0)
			return golden_err_set(
			    err,
			    "%s: report_downtime = %s: expected a comma-separated "
			    "list of golden, admin, slurm, other (or none)",
			    where, v);
		return 0;
	}
	for (size_t i = 0; i < sizeof(list_keys) / sizeof(list_keys[0]); i++)
		if (!strcmp(key, list_keys[i])) {
			if (add_glob(lists[i], v) < 0)
				return golden_err_set(
				    err,
				    "%s: %s = %s: expected a glob of printable text "
				    "(at most %d per node, %d characters)",
				    where, key, v, GOLDEN_CONF_REASON_GLOBS,
				    GOLDEN_CONF_GLOB_LEN - 1);
			return 0;
		}
	return golden_err_set(err,
	                      "%s: unknown key '%s'; expected guard_nodes, guard_fraction, "
	                      "guard_window, drill_detect_ms, drill_drain_ms, drill_return_s, "
	                      "drill_timeout, drill_mount, report_downtime, report_count_reason, "
	                      "report_ignore_reason, report_slurm_reason, report_other_reason, "
	                      "report_repeat",
	                      where, key);
}

void golden_conf_fleet_print(const struct golden_conf_fleet *f, FILE *out)
{
	const struct golden_conf_globs *lists[] = {&f->count, &f->ignore, &f->slurm, &f->other};
	bool any = false;

	fprintf(out, "guard_nodes = %d%s\n", f->guard_nodes, f->guard_nodes ? "" : " (guard off)");
	fprintf(out, "guard_fraction = %g\n", f->guard_fraction);
	fprintf(out, "guard_window = %d\n", f->guard_window_s);
	fprintf(out, "drill_detect_ms = %d\n", f->drill_detect_ms);
	fprintf(out, "drill_drain_ms = %d\n", f->drill_drain_ms);
	fprintf(out, "drill_return_s = %d\n", f->drill_return_s);
	fprintf(out, "drill_timeout = %d\n", f->drill_timeout_s);
	fprintf(out, "drill_mount = %s\n", f->drill_mount[0] ? f->drill_mount : "(none)");
	fprintf(out, "report_downtime = ");
	for (int o = 0; o < GOLDEN_OWNER_N; o++)
		if (f->report_down[o]) {
			fprintf(out, "%s%s", any ? "," : "", owner_names[o]);
			any = true;
		}
	fprintf(out, "%s\n", any ? "" : "none");
	for (size_t i = 0; i < sizeof(list_keys) / sizeof(list_keys[0]); i++)
		for (int k = 0; k < lists[i]->n; k++)
			fprintf(out, "%s = %s\n", list_keys[i], lists[i]->glob[k]);
	fprintf(out, "report_repeat = %d\n", f->report_repeat);
}
