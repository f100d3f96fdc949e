/* The check families the node programs run, in the order they run and
 * report: health's own (GPU, kernel log, fabric, storage) and the stall
 * probe's kernel checks. It lives here, above both, so that neither has to
 * know of the other. */
#include <config.h>

#include "node/check_registry.h"

#include <string.h>

#include "health/golden_conf.h"
#include "stall/check_kernel.h"

static const struct golden_check *const modules[] = {golden_xid_checks, golden_gpu_checks,
                                                     golden_fabric_checks, golden_storage_checks,
                                                     golden_kernel_checks};

const struct golden_check *golden_check_find(const char *name)
{
	for (size_t m = 0; m < sizeof(modules) / sizeof(modules[0]); m++)
		for (const struct golden_check *c = modules[m]; c->name; c++)
			if (!strcmp(c->name, name))
				return c;
	return NULL;
}

int golden_checks_select(const struct golden_conf *conf, enum golden_phase phase,
                         const struct golden_check **list, int max)
{
	int n = 0;

	for (size_t m = 0; m < sizeof(modules) / sizeof(modules[0]); m++)
		for (const struct golden_check *c = modules[m]; c->name && n < max; c++) {
			int deadline;
			unsigned phases;

			if (golden_conf_check(conf, c, &deadline, &phases) &&
			    (phases & (unsigned)phase))
				list[n++] = c;
		}
	return n;
}
