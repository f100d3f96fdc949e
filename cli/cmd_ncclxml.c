/* golden nccl-topo PAIRING.json: the NCCL_TOPO_FILE for a flattened VM. */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "env/ncclxml.h"

int cmd_ncclxml(int argc, char **argv)
{
	struct golden_err err = {{0}};

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("Usage: golden nccl-topo PAIRING.json\n"
		       "\n"
		       "Print the NCCL topology XML (for NCCL_TOPO_FILE) that puts each GPU and\n"
		       "its NIC behind one fake PCIe switch, as PAIRING.json describes them.\n");
		return 0;
	}
	if (argc != 2) {
		cli_error("nccl-topo", "expected one pairing description (JSON file)");
		return 2;
	}
	if (golden_ncclxml_generate(argv[1], stdout, &err) < 0) {
		cli_error("nccl-topo", "%s", err.msg);
		return 1;
	}
	return fflush(stdout) == 0 ? 0 : 1;
}
