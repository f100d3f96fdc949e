#include <config.h>

#include "health/check.h"

#include <stdarg.h>
#include <stdio.h>

#include "util/strutil.h"

static void set(struct golden_check_result *r, enum golden_status st, enum golden_action action,
                const char *code, const char *fmt, va_list ap)
{
	/* Keep the worst result when a check reports several problems. */
	if (r->status > st || (r->status == st && r->action >= action && r->code[0]))
		return;
	r->status = st;
	r->action = action;
	golden_strlcpy(r->code, code, sizeof(r->code));
	vsnprintf(r->detail, sizeof(r->detail), fmt, ap);
}

void golden_check_fail(struct golden_check_result *r, enum golden_action action, const char *code,
                       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set(r, GOLDEN_ST_FAIL, action, code, fmt, ap);
	va_end(ap);
}

void golden_check_warn(struct golden_check_result *r, const char *code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set(r, GOLDEN_ST_WARN, GOLDEN_ACTION_NONE, code, fmt, ap);
	va_end(ap);
}

const char *golden_check_status_name(enum golden_status s)
{
	return s == GOLDEN_ST_OK ? "ok" : s == GOLDEN_ST_WARN ? "warn" : "fail";
}

const char *golden_check_action_name(enum golden_action a)
{
	switch (a) {
	case GOLDEN_ACTION_NONE:
		return "none";
	case GOLDEN_ACTION_DRAIN:
		return "drain";
	case GOLDEN_ACTION_DRAIN_ACTIVE:
		return "drain-active";
	case GOLDEN_ACTION_DRAIN_RESET:
		return "drain-reset";
	case GOLDEN_ACTION_DRAIN_REBOOT:
		break;
	}
	return "drain-reboot";
}

const char *golden_check_class_name(enum golden_check_class c)
{
	switch (c) {
	case GOLDEN_CHK_GPU:
		return "gpu";
	case GOLDEN_CHK_FABRIC:
		return "fabric";
	case GOLDEN_CHK_STORAGE:
		return "storage";
	case GOLDEN_CHK_KERNEL:
		break;
	}
	return "kernel";
}
