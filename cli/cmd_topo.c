/* golden topo: what discovery found on this node. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cli.h"
#include "topo/topo.h"
#include "util/child.h"
#include "util/jsonschema.h"
#include "util/nodename.h"

#define NVLINK_DEADLINE_MS 5000

static void topo_usage(void)
{
	printf("Usage: golden topo [--topology FILE] [--sysroot DIR] [--format text|json]\n"
	       "\n"
	       "Print the NVIDIA GPUs, the network devices with their class (compute, storage,\n"
	       "mgmt, virtual) and PCIe locality to the GPUs (PIX, PXB, PHB, SYS), NUMA nodes,\n"
	       "each GPU's nearest compute NIC, and the bootstrap interface; for InfiniBand\n"
	       "ports the port GUID and subnet prefix (what ibnetdiscover shows), and the\n"
	       "NVLink domain of the GPUs from NVML (cluster UUID and clique), which\n"
	       "'golden topology gather' collects from every node. %%n in FILE and DIR is the\n"
	       "Slurm node name ($SLURMD_NODENAME, else the host name).\n"
	       "With --topology and no --sysroot, this host's /sys and /proc are used only\n"
	       "when the XML names this host (--sysroot / to use them anyway).\n");
}

/* NVML can hang with a sick driver: ask it in a child under a deadline. */
static void nvlink_child(void *shared, void *arg)
{
	struct golden_err err = {{0}};

	/* shared starts zeroed: work on a copy of the caller's topology. */
	memcpy(shared, arg, sizeof(struct golden_topo));
	golden_topo_read_nvlink(shared, &err);
}

static void read_nvlink(struct golden_topo *topo)
{
	int rc = golden_child_run(nvlink_child, topo, topo, sizeof(*topo), NVLINK_DEADLINE_MS);

	if (rc != 0) {
		memset(&topo->nvlink, 0, sizeof(topo->nvlink));
		snprintf(topo->nvlink.why, sizeof(topo->nvlink.why), "NVML %s",
		         rc == 1 ? "did not answer within 5000 ms" : "crashed");
	}
}

int cmd_topo(int argc, char **argv)
{
	struct cli_opts o;
	struct golden_topo_opts topts;
	struct golden_topo *topo;
	struct golden_err err = {{0}};
	const char *fmt;
	char node[64], xml[4096], root[4096];

	if (cli_parse(argc, argv, "topo", "topology sysroot format", &o, topo_usage) < 0)
		return 2;
	fmt = o.format ? o.format : "text";
	if (strcmp(fmt, "text") && strcmp(fmt, "json")) {
		cli_error("topo", "--format %s: expected text or json", fmt);
		return 2;
	}
	topo = malloc(sizeof(*topo));
	if (!topo) {
		cli_error("topo", "out of memory");
		return 1;
	}
	golden_nodename_get(NULL, node, sizeof(node));
	if ((o.topology && golden_nodename_expand(o.topology, node, xml, sizeof(xml), &err) < 0) ||
	    (o.sysroot && golden_nodename_expand(o.sysroot, node, root, sizeof(root), &err) < 0)) {
		cli_error("topo", "%s", err.msg);
		free(topo);
		return 2;
	}
	topts = (struct golden_topo_opts){.topology_xml = o.topology ? xml : NULL,
	                                  .sysroot = o.sysroot ? root : NULL};
	if (golden_topo_discover(&topts, topo, &err) < 0) {
		cli_error("topo", "%s", err.msg);
		free(topo);
		return 1;
	}
	for (int i = 0; i < topo->nnotes && i < GOLDEN_TOPO_MAX_NOTES; i++)
		if (topo->notes[i].warning)
			cli_error("topo", "warning: %s", topo->notes[i].text);
	read_nvlink(topo);
	if (!strcmp(fmt, "json")) {
		struct json_object *j = golden_topo_to_json(topo);

		golden_json_stamp(j, "golden-topo");
		printf("%s\n", json_object_to_json_string_ext(
		                   j, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(j);
	} else {
		golden_topo_print_text(topo, stdout);
	}
	free(topo);
	return 0;
}
