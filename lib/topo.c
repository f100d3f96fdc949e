/* golden_topo_discover: hwloc for the PCIe tree, sysfs for the rest, then
 * classification. */
#include <config.h>

#include <string.h>

#include "topo_internal.h"

int golden_topo_discover(const struct golden_topo_opts *opts, struct golden_topo *topo,
                         struct golden_err *err)
{
	memset(topo, 0, sizeof(*topo));
	if (golden_topo_load_hwloc(opts, topo, err) < 0)
		return -1;
	golden_topo_read_sysfs(opts->sysroot, topo);
	golden_topo_classify(topo);
	return 0;
}
