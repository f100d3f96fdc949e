/* Blocks from NVLink domains: one per rack, ordered by the InfiniBand tree,
 * BlockSizes inferred or given, the syntax of each Slurm version, and the
 * 24.05/24.11 refusal of blocks smaller than the base. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "fabric/block.h"
#include "fabric/facts.h"
#include "fabric/ibnet.h"
#include "fabric/topoconf.h"
#include "fabric/tree.h"
#include "t/unit/tap.h"
#include "util/strbuf.h"

static char build[2048];

static struct golden_slurm_version ver(const char *s)
{
	struct golden_slurm_version v = {0, 0};

	golden_slurm_version_parse(s, &v);
	return v;
}

static void test_versions(void)
{
	struct golden_slurm_version v;

	ok(golden_slurm_version_parse("slurm-wlm 24.11.5", &v) == 0 && v.major == 24 &&
	       v.minor == 11,
	   "scontrol --version of Debian's 24.11");
	ok(golden_slurm_version_parse("slurm 22.05.8", &v) == 0 && v.major == 22 && v.minor == 5,
	   "22.05");
	ok(golden_slurm_version_parse("junk", &v) < 0, "no version in the text");
	ok(!golden_slurm_has_block(ver("22.05")) && golden_slurm_has_block(ver("23.11")),
	   "block from 23.11");
	ok(!golden_slurm_has_block_sizes(ver("23.11")) &&
	       golden_slurm_has_block_sizes(ver("24.05")),
	   "BlockSizes from 24.05");
	ok(golden_slurm_short_block_fatal(ver("24.05")) &&
	       golden_slurm_short_block_fatal(ver("24.11")) &&
	       !golden_slurm_short_block_fatal(ver("25.05")) &&
	       !golden_slurm_short_block_fatal(ver("23.11")),
	   "short blocks fatal in 24.05-24.11 only");
	ok(!golden_slurm_has_yaml(ver("24.11")) && golden_slurm_has_yaml(ver("25.05")) &&
	       golden_slurm_has_yaml(ver("26.05")),
	   "topology.yaml from 25.05");
}

static void test_sizes(void)
{
	int s[16];
	struct golden_err err = {{0}};

	is_int(golden_blocks_parse_sizes("18,36,72", s, 16, &err), 3, "18,36,72");
	ok(golden_blocks_parse_sizes("18,54", s, 16, &err) < 0 && strstr(err.msg, "power-of-two"),
	   "54 = 3 x 18 refused: %s", err.msg);
	memset(&err, 0, sizeof(err));
	ok(golden_blocks_parse_sizes("18,9", s, 16, &err) < 0, "decreasing refused: %s", err.msg);
	memset(&err, 0, sizeof(err));
	ok(golden_blocks_parse_sizes("0", s, 16, &err) < 0, "0 refused: %s", err.msg);
}

static int load(const char *net_rel, struct golden_ibnet *net, struct golden_facts *f,
                struct golden_tree *t)
{
	char path[4096];
	struct golden_err err = {{0}};

	snprintf(path, sizeof(path), "%s/t/fixtures/fabric/threetier.facts.json", build);
	if (golden_facts_load(path, f, &err) < 0) {
		diag("%s", err.msg);
		return -1;
	}
	if (!net_rel)
		return 0;
	golden_ibnet_init(net);
	snprintf(path, sizeof(path), "%s/t/fixtures/fabric/%s", build, net_rel);
	if (golden_ibnet_load(net, path, &err) < 0) {
		diag("%s", err.msg);
		return -1;
	}
	golden_ibnet_finish(net);
	return golden_tree_build(net, f, GOLDEN_TREE_TOP, t, &err);
}

static const char *first_block_nodes(const struct golden_blocks *bl, const struct golden_facts *f)
{
	return bl->n ? f->nodes[bl->b[0].nodes[0]].name : "";
}

static void test_blocks(void)
{
	struct golden_ibnet net;
	struct golden_facts f;
	struct golden_tree t;
	struct golden_blocks bl;
	struct golden_strbuf out = {0};
	struct golden_err err = {{0}};
	int sizes[] = {4, 16};

	if (!ok(load("threetier-swapped.net", &net, &f, &t) == 0, "16 trays in 4 racks of 4"))
		return;
	ok(golden_blocks_build(&f, NULL, NULL, 0, ver("24.11"), &bl, &err) == 0, "blocks: %s",
	   err.msg);
	is_int(bl.n, 4, "one block per NVLink domain");
	is(first_block_nodes(&bl, &f), "gb01", "without a tree: in node-name order");
	golden_blocks_free(&bl);

	ok(golden_blocks_build(&f, &t, NULL, 0, ver("24.11"), &bl, &err) == 0, "with the tree");
	is(first_block_nodes(&bl, &f), "gb13",
	   "with the tree: racks in leaf order (gb13-16 are cabled to the first unit)");
	is_int(bl.nsizes, 3, "inferred sizes: base and doublings up to the number of racks");
	ok(bl.sizes[0] == 4 && bl.sizes[1] == 8 && bl.sizes[2] == 16, "BlockSizes=4,8,16");
	golden_topoconf_block(&out, &bl, &f, ver("24.11"));
	ok(!strncmp(golden_strbuf_str(&out), "BlockSizes=4,8,16\nBlockName=nvl-", 31),
	   "24.11 syntax: BlockSizes line then blocks (%.60s)", golden_strbuf_str(&out));
	ok(strstr(golden_strbuf_str(&out), " Nodes=gb[13-16]\n") != NULL, "ranged node lists");
	golden_strbuf_free(&out);
	golden_topoconf_block(&out, &bl, &f, ver("23.11"));
	ok(!strncmp(golden_strbuf_str(&out), "BlockLevels=0,1,2\n", 18),
	   "23.11: BlockLevels=0,1,2");
	golden_strbuf_free(&out);
	golden_topoconf_yaml(&out, &t, &bl, &f, true);
	ok(strstr(golden_strbuf_str(&out), "- topology: fabric\n  cluster_default: false\n") &&
	       strstr(golden_strbuf_str(&out), "- topology: nvlink\n  cluster_default: true\n") &&
	       strstr(golden_strbuf_str(&out), "    block_sizes: [4, 8, 16]\n") &&
	       strstr(golden_strbuf_str(&out), "        nodes: \"gb[13-16]\"\n"),
	   "25.05+ yaml: tree and block topologies");
	golden_strbuf_free(&out);
	golden_blocks_free(&bl);

	ok(golden_blocks_build(&f, &t, sizes, 2, ver("26.05"), &bl, &err) == 0 && bl.nsizes == 2 &&
	       bl.sizes_given,
	   "the site's sizes are used as given");
	golden_blocks_free(&bl);
	ok(golden_blocks_build(&f, &t, NULL, 0, ver("22.05"), &bl, &err) < 0 &&
	       strstr(err.msg, "no topology/block"),
	   "22.05 has no block plugin: %s", err.msg);
	golden_tree_free(&t);
	golden_ibnet_free(&net);
	golden_facts_free(&f);
}

/* A rack with a tray whose registration is in progress, an HGX node, a
 * node whose NVML never answered. */
static void test_short_and_unplaced(void)
{
	struct golden_facts f;
	struct golden_blocks bl;
	struct golden_strbuf out = {0};
	struct golden_err err = {{0}};
	char path[4096];
	int left = 0;

	snprintf(path, sizeof(path), "%s/t/fixtures/fabric/threetier.facts.json", build);
	if (golden_facts_load(path, &f, &err) < 0)
		return;
	f.nodes[3].nvl_attached = false; /* gb04 */
	strcpy(f.nodes[3].nvl_state, "in-progress");
	strcpy(f.nodes[3].nvl_why, "NVLink fabric registration in progress on at least one GPU");
	f.nodes[4].nvl_attached = false; /* gb05: HGX */
	strcpy(f.nodes[4].nvl_why, "cluster UUID is zero: no multi-node NVLink domain");
	f.nodes[5].nvl_read = false; /* gb06 */
	f.nodes[5].nvl_attached = false;
	strcpy(f.nodes[5].nvl_why, "NVML: libnvidia-ml.so.1 not found");
	ok(golden_blocks_build(&f, NULL, NULL, 0, ver("24.11"), &bl, &err) == 0, "built");
	is_int(bl.sizes[0], 4, "base stays 4: the most common rack size");
	for (int i = 0; i < bl.n; i++)
		left += bl.b[i].left_out;
	is_int(left, 2, "24.11: the racks with 3 and 2 ready trays are left out");
	golden_topoconf_block(&out, &bl, &f, ver("24.11"));
	ok(strstr(golden_strbuf_str(&out), "# left out: BlockName=") &&
	       strstr(golden_strbuf_str(&out), "Nodes=gb[01-03] (3 nodes < base block size 4"),
	   "left-out blocks are comments saying why");
	golden_strbuf_free(&out);
	is_int(bl.nunplaced, 3 + 3 + 2, "3 not ready + 5 in short racks = 8 unplaced");
	golden_blocks_free(&bl);

	ok(golden_blocks_build(&f, NULL, NULL, 0, ver("25.05"), &bl, &err) == 0, "25.05");
	left = 0;
	for (int i = 0; i < bl.n; i++)
		left += bl.b[i].left_out;
	is_int(left, 0, "25.05 accepts short blocks");
	is_int(bl.nunplaced, 3, "only the 3 nodes that are not ready");
	golden_blocks_free(&bl);
	golden_facts_free(&f);
}

int main(void)
{
	const char *b = getenv("GOLDEN_BUILDDIR");

	snprintf(build, sizeof(build), "%s", b && *b ? b : ".");
	test_versions();
	test_sizes();
	test_blocks();
	test_short_and_unplaced();
	return done_testing();
}
