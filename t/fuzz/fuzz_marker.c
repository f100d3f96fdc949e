/* GOLDEN_NCCL_SET, the marker a job carries from node to node: the input is
 * "MARKER\nNAME\nVALUE\nVALUE2..."; the marker is asked whether it owns
 * NAME=VALUE, then a plan is made for a decision of three variables in an
 * environment holding the marker and the values. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "env/decision.h"
#include "env/marker.h"
#include "t/fuzz/fuzz.h"

struct env {
	char *marker, *values[3];
};

static const char *const names[3] = {"NCCL_IB_HCA", "NCCL_SOCKET_IFNAME", "NCCL_IB_GID_INDEX"};

static const char *get(void *arg, const char *name)
{
	struct env *e = arg;

	if (!strcmp(name, GOLDEN_MARKER_VAR))
		return e->marker;
	for (int i = 0; i < 3; i++)
		if (!strcmp(name, names[i]))
			return e->values[i];
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct golden_env_plan *plan = malloc(sizeof(*plan));
	struct golden_decision res;
	struct env e = {NULL, {NULL, NULL, NULL}};
	char *s, *parts[5] = {NULL};
	int n;

	if (!plan)
		abort();
	if (size > 16384) {
		free(plan);
		return 0;
	}
	s = fuzz_string(data, size);
	n = fuzz_split(s, '\n', parts, 5);
	e.marker = parts[0];
	for (int i = 0; i < 3 && i + 2 < n; i++)
		e.values[i] = parts[i + 2];
	if (n >= 3)
		golden_marker_owns(parts[0], parts[1], parts[2]);
	golden_decision_init(&res);
	golden_decision_setvar(&res, names[0], "=mlx5_0,mlx5_3", "compute rails");
	golden_decision_setvar(&res, names[1], "=eno1", "bootstrap");
	golden_decision_setvar(&res, names[2], "3", "RoCE v2");
	golden_marker_plan(&res, GOLDEN_USER_ENV_RESPECT, get, &e, plan);
	golden_marker_plan(&res, GOLDEN_USER_ENV_OVERRIDE, get, &e, plan);
	golden_decision_free(&res);
	free(s);
	free(plan);
	return 0;
}
