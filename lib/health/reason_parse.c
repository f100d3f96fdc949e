#include <config.h>

#include "health/reason_parse.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "health/reason.h"
#include "util/strutil.h"

/* "flap 3x24h " */
static size_t flap_prefix(const char *s)
{
	const char *p = s;

	if (strncmp(p, "flap ", 5) != 0)
		return 0;
	p += 5;
	if (!isdigit((unsigned char)*p))
		return 0;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p++ != 'x' || !isdigit((unsigned char)*p))
		return 0;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p++ != 'h' || *p++ != ' ')
		return 0;
	return (size_t)(p - s);
}

/* Slurm shows "REASON [user@2026-12-03T18:00:01]". */
static void strip_slurm_suffix(char *s)
{
	char *at = NULL;
	size_t n = strlen(s);

	for (char *p = strstr(s, " ["); p; p = strstr(p + 1, " ["))
		at = p;
	if (at && strchr(at, '@') && n && s[n - 1] == ']')
		*at = '\0';
}

static const char *class_of_action(const char *action, bool flapping)
{
	if (flapping)
		return "flapping";
	if (!strcmp(action, "reboot"))
		return "reboot";
	if (!strcmp(action, "gpu-reset"))
		return "reset";
	if (!strcmp(action, "check"))
		return "transient";
	return action;
}

void golden_reason_parse(const char *reason, struct golden_reason_info *info)
{
	char body[GOLDEN_REASON_MAX + 64];
	char *marker, *semi, *more;
	size_t skip;

	memset(info, 0, sizeof(*info));
	if (!reason)
		return;
	golden_strlcpy(body, reason, sizeof(body));
	strip_slurm_suffix(body);
	/* Ours only when the marker ends the text: an admin who appended to
	 * golden's reason made it theirs. */
	marker = strstr(body, " " GOLDEN_REASON_MARKER);
	if (!marker || marker[sizeof(GOLDEN_REASON_MARKER)] != '\0')
		return;
	info->ours = true;
	*marker = '\0';
	semi = strrchr(body, ';');
	if (!semi || semi[1] != ' ')
		return;
	*semi = '\0';
	golden_strlcpy(info->action, semi + 2, sizeof(info->action));
	skip = flap_prefix(body);
	info->flapping = skip > 0;
	more = strstr(body + skip, " +");
	if (more && isdigit((unsigned char)more[2])) {
		char *end;
		long n = strtol(more + 2, &end, 10);

		if (!strcmp(end, " more")) {
			info->more = (int)n;
			*more = '\0';
		}
	}
	golden_strlcpy(info->code, body + skip, sizeof(info->code));
	golden_strlcpy(info->cls, class_of_action(info->action, info->flapping), sizeof(info->cls));
	golden_reason_check_of(info->code, info->check, sizeof(info->check));
	snprintf(info->component, sizeof(info->component), "%.*s", (int)strcspn(info->code, " "),
	         info->code);
}

/* "gpu3", "gpu?" */
static bool is_gpu_name(const char *t)
{
	if (strncmp(t, "gpu", 3) != 0)
		return false;
	if (!strcmp(t + 3, "?"))
		return true;
	if (!t[3])
		return false;
	for (const char *p = t + 3; *p; p++)
		if (!isdigit((unsigned char)*p))
			return false;
	return true;
}

/* "p1": an HCA port in the fabric checks' codes */
static bool is_port(const char *t)
{
	if (t[0] != 'p' || !t[1])
		return false;
	for (const char *p = t + 1; *p; p++)
		if (!isdigit((unsigned char)*p))
			return false;
	return true;
}

static const struct {
	const char *prefix; /* of the word after gpuN */
	const char *check;
} gpu_words[] = {
    {"xid", "xid"},
    {"ecc-", "gpu-ecc"},
    {"remap-", "gpu-remap"},
    {"retire-", "gpu-remap"},
    {"pcie", "gpu-pcie"},
    {"nvlink", "gpu-nvlink"},
    {"fabric", "gpu-fabric"},
    {"leftover", "gpu-procs"},
    {"recovery", "gpu-recovery"},
    {"hw-", "gpu-throttle"},
    {"sw-thermal", "gpu-throttle"},
    /* the GPU itself did not answer NVML: lost, needs a reset, ... */
    {"lost", "gpu-count"},
    {"reset-required", "gpu-count"},
    {"inforom", "gpu-count"},
    {"nvml-", "gpu-count"},
};

static const char *check_of(const char *code, char *hc, size_t hclen)
{
	char buf[GOLDEN_CODE_LEN], *save = NULL;
	const char *t[4] = {"", "", "", ""};
	int n = 0;

	golden_strlcpy(buf, code ? code : "", sizeof(buf));
	for (char *w = strtok_r(buf, " ", &save); w && n < 4; w = strtok_r(NULL, " ", &save))
		t[n++] = w;
	if (!n)
		return "";
	/* The runner's own codes name the check: "hc mounts timeout". */
	if (!strcmp(t[0], "hc") && n >= 3 &&
	    (!strcmp(t[2], "timeout") || !strcmp(t[2], "crashed"))) {
		if (!golden_is_safe_name(t[1], hclen - 1))
			return "";
		golden_strlcpy(hc, t[1], hclen);
		return hc;
	}
	if (!strcmp(t[0], "kernel"))
		return !strcmp(t[1], "wb-switch")  ? "wb-stall"
		       : !strcmp(t[1], "teardown") ? "teardown"
		                                   : "";
	if (t[0][0] == '/')
		return "mounts";
	if (!strcmp(t[0], "gpu"))
		return !strcmp(t[1], "nvlink") ? "gpu-nvlink" : "gpu-count";
	if (is_gpu_name(t[0])) {
		for (size_t i = 0; i < sizeof(gpu_words) / sizeof(gpu_words[0]); i++)
			if (golden_str_startswith(t[1], gpu_words[i].prefix))
				return gpu_words[i].check;
		return "";
	}
	if (!strncmp(t[0], "nvsw", 4) && golden_str_startswith(t[1], "sxid"))
		return "xid";
	if (!strcmp(t[0], "efa"))
		return "efa";
	if (!strcmp(t[0], "bootstrap"))
		return "bootstrap";
	if (!strcmp(t[0], "gdr"))
		return "gpudirect";
	if (n >= 3 && is_port(t[1])) {
		if (!strcmp(t[2], "down") || strstr(t[2], "G<") || !strcmp(t[2], "linklayer"))
			return "ib-ports";
		if (strchr(t[2], '+'))
			return "ib-counters";
		return "";
	}
	if (n == 2 && (!strcmp(t[1], "down") || !strcmp(t[1], "no-addr")))
		return "bootstrap"; /* "eth0 down": the bootstrap interface */
	return "";
}

void golden_reason_check_of(const char *code, char *buf, size_t len)
{
	char hc[32];

	golden_strlcpy(buf, check_of(code, hc, sizeof(hc)), len);
}

bool golden_reason_shared_class(const char *check, const char *code, char *key, size_t len)
{
	char comp[48];

	if (len)
		key[0] = '\0';
	if (!check)
		return false;
	if (!strcmp(check, "mounts")) {
		/* A mount point names its own outage; a check that timed out
		 * as a whole ("hc mounts timeout") does not say which. */
		if (code && code[0] == '/')
			snprintf(comp, sizeof(comp), "%.*s", (int)strcspn(code, " "), code);
		else
			golden_strlcpy(comp, "*", sizeof(comp));
		snprintf(key, len, "mounts %s", comp);
		return true;
	}
	/* A switch or subnet manager takes down different HCAs on different
	 * nodes (mlx5_0 here, mlx5_3 there): the class is the fabric. */
	if (!strcmp(check, "ib-ports") || !strcmp(check, "ib-counters")) {
		snprintf(key, len, "%s ib", check);
		return true;
	}
	if (!strcmp(check, "efa") || !strcmp(check, "bootstrap")) {
		snprintf(key, len, "%s %s", check, check);
		return true;
	}
	return false;
}

bool golden_reason_same_class(const char *a, const char *b)
{
	size_t la = strcspn(a, " "), lb = strcspn(b, " ");

	if (!a[0] || !b[0])
		return false;
	if (!strcmp(a, b))
		return true;
	if (la != lb || strncmp(a, b, la) != 0)
		return false;
	return !strcmp(a + la, " *") || !strcmp(b + lb, " *");
}
