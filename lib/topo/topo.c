/* golden_topo_discover: hwloc for the PCIe tree, sysfs for the rest, then
 * classification. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "util/strutil.h"
#include "topo/topo_internal.h"

static const struct golden_topo *sort_topo; /* qsort has no context argument */

static int cmp_gpu(const void *a, const void *b)
{
	return strcmp(sort_topo->gpus[*(const int *)a].busid,
	              sort_topo->gpus[*(const int *)b].busid);
}

/* PCI devices in bus order, then the rest (virtual, vmbus) by name. */
static int cmp_nic(const void *a, const void *b)
{
	const struct golden_nic *x = &sort_topo->nics[*(const int *)a];
	const struct golden_nic *y = &sort_topo->nics[*(const int *)b];
	int c;

	if (!x->busid[0] != !y->busid[0])
		return x->busid[0] ? -1 : 1;
	c = strcmp(x->busid, y->busid);
	return c ? c : golden_natcmp(x->name, y->name);
}

/* Output order must not depend on hwloc's or readdir's order, so that
 * `golden topo` and the facts are the same on identical nodes. */
static int sort_devices(struct golden_topo *topo)
{
	struct golden_topo *copy = malloc(sizeof(*copy));
	int gi[GOLDEN_MAX_GPUS], ni[GOLDEN_MAX_NICS];

	if (!copy)
		return -1;
	for (int i = 0; i < topo->ngpus; i++)
		gi[i] = i;
	for (int i = 0; i < topo->nnics; i++)
		ni[i] = i;
	sort_topo = topo;
	qsort(gi, (size_t)topo->ngpus, sizeof(int), cmp_gpu);
	qsort(ni, (size_t)topo->nnics, sizeof(int), cmp_nic);
	memcpy(copy, topo, sizeof(*copy));
	for (int g = 0; g < topo->ngpus; g++)
		topo->gpus[g] = copy->gpus[gi[g]];
	for (int n = 0; n < topo->nnics; n++)
		topo->nics[n] = copy->nics[ni[n]];
	for (int g = 0; g < topo->ngpus; g++)
		for (int n = 0; n < topo->nnics; n++)
			topo->loc[g][n] = copy->loc[gi[g]][ni[n]];
	free(copy);
	return 0;
}

int golden_topo_discover(const struct golden_topo_opts *opts, struct golden_topo *topo,
                         struct golden_err *err)
{
	memset(topo, 0, sizeof(*topo));
	if (golden_topo_load_hwloc(opts, topo, err) < 0)
		return -1;
	golden_topo_read_sysfs(opts->sysroot, topo);
	if (sort_devices(topo) < 0)
		return golden_err_set(err, "out of memory");
	golden_topo_classify(topo);
	return 0;
}
