/* golden topo: what discovery found on this node. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cli.h"
#include "topo/topo.h"

static void topo_usage(void)
{
	printf("Usage: golden topo [--topology FILE] [--sysroot DIR] [--format text|json]\n"
	       "\n"
	       "Print the NVIDIA GPUs, the network devices with their class (compute, storage,\n"
	       "mgmt, virtual) and PCIe locality to the GPUs (PIX, PXB, PHB, SYS), NUMA nodes,\n"
	       "each GPU's nearest compute NIC, and the bootstrap interface.\n"
	       "With --topology and no --sysroot, this host's /sys and /proc are used only\n"
	       "when the XML names this host (--sysroot / to use them anyway).\n");
}

int cmd_topo(int argc, char **argv)
{
	struct cli_opts o;
	struct golden_topo_opts topts;
	struct golden_topo *topo;
	struct golden_err err = {{0}};
	const char *fmt;

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
	topts = (struct golden_topo_opts){o.topology, o.sysroot};
	if (golden_topo_discover(&topts, topo, &err) < 0) {
		cli_error("topo", "%s", err.msg);
		free(topo);
		return 1;
	}
	for (int i = 0; i < topo->nnotes && i < GOLDEN_TOPO_MAX_NOTES; i++)
		if (topo->notes[i].warning)
			cli_error("topo", "warning: %s", topo->notes[i].text);
	if (!strcmp(fmt, "json")) {
		struct json_object *j = golden_topo_to_json(topo);

		printf("%s\n", json_object_to_json_string_ext(
		                   j, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(j);
	} else {
		golden_topo_print_text(topo, stdout);
	}
	free(topo);
	return 0;
}
