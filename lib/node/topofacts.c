/* The node's topology facts file: see topofacts.h. */
#include <config.h>

#include "node/topofacts.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "util/child.h"
#include "util/statefile.h"
#include "util/strutil.h"

#define NVLINK_DEADLINE_MS 3000

static void nvlink_child(void *shared, void *arg)
{
	struct golden_err err = {{0}};

	/* shared starts zeroed: work on a copy of the caller's topology. */
	memcpy(shared, arg, sizeof(struct golden_topo));
	golden_topo_read_nvlink(shared, &err);
}

int golden_topofacts_write(const char *state_dir, const char *node, const struct golden_topo *topo,
                           struct golden_err *err)
{
	struct golden_topo *t = malloc(sizeof(*t));
	struct json_object *j;
	char path[PATH_MAX];
	const char *text;
	int rc;

	if (!t)
		return golden_err_set(err, "out of memory");
	memcpy(t, topo, sizeof(*t));
	rc = golden_child_run(nvlink_child, (void *)topo, t, sizeof(*t), NVLINK_DEADLINE_MS);
	if (rc != 0) {
		memcpy(t, topo, sizeof(*t));
		memset(&t->nvlink, 0, sizeof(t->nvlink));
		golden_strlcpy(t->nvlink.why,
		               rc == 1 ? "NVML did not answer within 3000 ms" : "NVML crashed",
		               sizeof(t->nvlink.why));
	}
	if (golden_mkdir_p(state_dir) < 0 ||
	    golden_path_join(path, sizeof(path), state_dir, GOLDEN_NODE_FACTS_FILE) < 0) {
		free(t);
		return golden_err_set(err, "%s: %s", state_dir, strerror(errno));
	}
	j = golden_topo_node_facts_json(node, t);
	free(t);
	text = json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY |
	                                             JSON_C_TO_STRING_NOSLASHESCAPE);
	rc = golden_write_atomic_mode(path, text, strlen(text), 0644);
	json_object_put(j);
	if (rc < 0)
		return golden_err_set(err, "cannot write %s: %s", path, strerror(errno));
	return 0;
}
