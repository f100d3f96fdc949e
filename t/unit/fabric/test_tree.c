/* The switch tree over real and generated fabrics: hosts by port GUID, rails
 * merged, SHARP/UFM/unclaimed adapters ignored, separate fabrics kept
 * apart, unplaced nodes with a reason, and the topology.conf text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "fabric/facts.h"
#include "fabric/ibnet.h"
#include "fabric/topoconf.h"
#include "fabric/tree.h"
#include "t/unit/tap.h"
#include "util/strbuf.h"

static char src[2048], build[2048];

struct world {
	struct golden_ibnet net;
	struct golden_facts facts;
	struct golden_tree tree;
	struct golden_strbuf conf;
};

static int make(struct world *w, const char *const *dumps, const char *facts,
                enum golden_tree_levels lv)
{
	struct golden_err err = {{0}};

	memset(w, 0, sizeof(*w));
	golden_ibnet_init(&w->net);
	for (; *dumps; dumps++)
		if (golden_ibnet_load(&w->net, *dumps, &err) < 0) {
			diag("%s", err.msg);
			return -1;
		}
	golden_ibnet_finish(&w->net);
	if (golden_facts_load(facts, &w->facts, &err) < 0 ||
	    golden_tree_build(&w->net, &w->facts, lv, &w->tree, &err) < 0) {
		diag("%s", err.msg);
		return -1;
	}
	golden_topoconf_tree(&w->conf, &w->tree, &w->facts);
	return 0;
}

static void drop(struct world *w)
{
	golden_tree_free(&w->tree);
	golden_facts_free(&w->facts);
	golden_ibnet_free(&w->net);
	golden_strbuf_free(&w->conf);
}

static bool has_note(const struct golden_tree *t, const char *needle)
{
	for (int i = 0; i < t->nnotes; i++)
		if (strstr(t->notes[i], needle))
			return true;
	return false;
}

static const char *why_unplaced(const struct world *w, const char *node)
{
	for (int i = 0; i < w->tree.nunplaced; i++)
		if (!strcmp(w->facts.nodes[w->tree.unplaced[i].node].name, node))
			return w->tree.unplaced[i].why;
	return NULL;
}

static void test_minicluster(void)
{
	char net[4096], facts[4096], re[4096];
	const char *dumps[] = {net, NULL}, *recabled[] = {re, NULL};
	struct world w;

	snprintf(net, sizeof(net), "%s/t/fixtures/fabric/minicluster.net", build);
	snprintf(re, sizeof(re), "%s/t/fixtures/fabric/minicluster-recabled.net", build);
	snprintf(facts, sizeof(facts), "%s/t/fixtures/fabric/minicluster.facts.json", build);
	if (!ok(make(&w, dumps, facts, GOLDEN_TREE_TOP) == 0, "4-node rail-optimised fabric"))
		return;
	is(golden_strbuf_str(&w.conf),
	   "# fabric 0\n"
	   "SwitchName=su1-leaf-r0 Nodes=n[1-2]\n"
	   "SwitchName=su2-leaf-r0 Nodes=n[3-4]\n"
	   "SwitchName=spine-1 Switches=su1-leaf-r0,su2-leaf-r0\n",
	   "4 rails per unit merged into one leaf each, one top: by GUID although n2 says "
	   "localhost, n3 has no name and n4 claims to be n1");
	ok(has_note(&w.tree, "leaf su1-leaf-r0 stands for 4 switches"), "the rail merge is noted");
	ok(has_note(&w.tree, "ignored 8 SHARP aggregation node(s)"), "SHARP nodes are not hosts");
	ok(has_note(&w.tree, "1 host adapter(s) in the fabric belong to no gathered node") &&
	       has_note(&w.tree, "\"ufm01 mlx5_0\""),
	   "the UFM host is an unclaimed adapter, named in the note");
	is_int(w.tree.nunplaced, 0, "every node placed");
	drop(&w);

	if (!ok(make(&w, recabled, facts, GOLDEN_TREE_TOP) == 0, "the same fabric after recabling"))
		return;
	is(golden_strbuf_str(&w.conf),
	   "# fabric 0\n"
	   "SwitchName=su1-leaf-r0 Nodes=n[1,3]\n"
	   "SwitchName=su2-leaf-r0 Nodes=n[2,4]\n"
	   "SwitchName=spine-1 Switches=su1-leaf-r0,su2-leaf-r0\n",
	   "n2 and n3 swapped cables: they swap leaves");
	drop(&w);
}

static void test_topograph(void)
{
	char dump[4096], facts[4096];
	const char *dumps[] = {dump, NULL};
	struct world w;
	int placed = 0, leaves_with_nodes = 0;

	snprintf(dump, sizeof(dump), "%s/t/fixtures/ibnetdiscover/topograph-example.txt", src);
	snprintf(facts, sizeof(facts), "%s/t/fixtures/fabric/topograph.facts.json", build);
	if (!ok(make(&w, dumps, facts, GOLDEN_TREE_TOP) == 0, "NVIDIA topograph example (119 DGX)"))
		return;
	for (int i = 0; i < w.facts.n; i++)
		placed += w.tree.leaf_of[i] >= 0;
	is_int(placed, w.facts.n, "all %d gathered hosts placed", w.facts.n);
	for (int u = 0; u < w.tree.nleaves; u++)
		leaves_with_nodes += w.tree.units[u].nnodes > 0;
	ok(leaves_with_nodes >= 7 && leaves_with_nodes <= 9,
	   "31 host-facing leaves become %d rail groups (one per scalable unit)",
	   leaves_with_nodes);
	ok(!strstr(golden_strbuf_str(&w.conf), "dgx"),
	   "no description text reaches topology.conf (hosts renamed gpuNNN in the facts)");
	ok(strstr(golden_strbuf_str(&w.conf),
	          "SwitchName=A09-P1-IBLEAF-01-01 Nodes=gpu[001-010]\n") != NULL,
	   "leaves keep the managed switches' names");
	ok(has_note(&w.tree, "ignored 40 SHARP"), "40 SHARP nodes ignored");
	ok(has_note(&w.tree, "with a default or placeholder description"),
	   "default/localhost adapters counted as unclaimed");
	is_int(w.tree.nunits - w.tree.nleaves, 1, "one top switch over the whole fabric");
	diag("%s", golden_strbuf_str(&w.conf));
	drop(&w);
}

static void test_psmn(void)
{
	char dump[4096], facts[4096];
	const char *dumps[] = {dump, NULL};
	struct world w;

	snprintf(dump, sizeof(dump), "%s/t/fixtures/ibnetdiscover/psmn-x5.txt", src);
	snprintf(facts, sizeof(facts), "%s/t/fixtures/fabric/psmn-x5.facts.json", build);
	if (!ok(make(&w, dumps, facts, GOLDEN_TREE_TOP) == 0,
	        "PSMN X5: every description is the default, hosts from the GUID map"))
		return;
	is_int(w.tree.nunplaced, 0, "all 86 mapped hosts placed (%d facts)", w.facts.n);
	ok(has_note(&w.tree, "3 host adapter(s) in the fabric belong to no gathered node"),
	   "the 3 unmapped adapters are reported");
	is_int(w.tree.nunits - w.tree.nleaves, 1,
	       "one top: no cycle (the published topology.conf for this fabric has one)");
	ok(strstr(golden_strbuf_str(&w.conf), "SwitchName=S-") != NULL,
	   "unmanaged switches are named by GUID");
	diag("%s", golden_strbuf_str(&w.conf));
	drop(&w);
}

static void test_threetier(void)
{
	char net[4096], facts[4096];
	const char *dumps[] = {net, NULL};
	struct world w;

	snprintf(net, sizeof(net), "%s/t/fixtures/fabric/threetier.net", build);
	snprintf(facts, sizeof(facts), "%s/t/fixtures/fabric/threetier.facts.json", build);
	if (!ok(make(&w, dumps, facts, GOLDEN_TREE_ALL) == 0, "3 tiers, every level"))
		return;
	is(golden_strbuf_str(&w.conf),
	   "# fabric 0\n"
	   "SwitchName=su1-leaf-r0 Nodes=gb[01-04]\n"
	   "SwitchName=su2-leaf-r0 Nodes=gb[05-08]\n"
	   "SwitchName=su3-leaf-r0 Nodes=gb[09-12]\n"
	   "SwitchName=su4-leaf-r0 Nodes=gb[13-16]\n"
	   "SwitchName=spine-r0-1 Switches=su1-leaf-r0,su2-leaf-r0,su3-leaf-r0,su4-leaf-r0\n",
	   "rail spines join every unit at level 1: that is the top");
	drop(&w);
}

/* Facts written inline: the traps fabric's hosts, one not in the dump, one RoCE only. */
static const char traps_facts[] =
    "{\"format\": \"slurm-golden topology facts\", \"version\": 1, \"nodes\": {"
    "\"gpu01\": {\"nics\": [{\"name\": \"mlx5_0\", \"kind\": \"ib\", \"class\": \"compute\","
    " \"ports\": [{\"port\": 1, \"link_layer\": \"InfiniBand\", \"state\": 4,"
    " \"port_guid\": \"0x0b00000000000101\"}]}]},"
    "\"gpu02\": {\"nics\": [{\"name\": \"mlx5_0\", \"kind\": \"ib\", \"class\": \"compute\","
    " \"ports\": [{\"port\": 1, \"link_layer\": \"InfiniBand\", \"state\": 4,"
    " \"port_guid\": \"0x0b00000000000103\"}]}]},"
    "\"gpu03\": {\"nics\": [{\"name\": \"mlx5_0\", \"kind\": \"ib\", \"class\": \"compute\","
    " \"ports\": [{\"port\": 1, \"link_layer\": \"InfiniBand\", \"state\": 4,"
    " \"port_guid\": \"0x0b0000000000010a\"}]}]},"
    "\"gpu11\": {\"nics\": [{\"name\": \"mlx5_0\", \"kind\": \"ib\", \"class\": \"compute\","
    " \"ports\": [{\"port\": 1, \"link_layer\": \"InfiniBand\", \"state\": 4,"
    " \"port_guid\": \"0x0b00000000000901\"}]}]},"
    "\"gpu12\": {\"nics\": [{\"name\": \"mlx5_0\", \"kind\": \"ib\", \"class\": \"compute\","
    " \"ports\": [{\"port\": 1, \"link_layer\": \"InfiniBand\", \"state\": 4,"
    " \"port_guid\": \"0x0b00000000000903\"}]}]},"
    "\"gpu20\": {\"nics\": [{\"name\": \"mlx5_0\", \"kind\": \"ib\", \"class\": \"compute\","
    " \"ports\": [{\"port\": 1, \"link_layer\": \"InfiniBand\", \"state\": 4,"
    " \"port_guid\": \"0x0b00000000099901\"}]}]},"
    "\"roce1\": {\"nics\": [{\"name\": \"mlx5_0\", \"kind\": \"roce\", \"class\": \"compute\","
    " \"ports\": [{\"port\": 1, \"link_layer\": \"Ethernet\", \"state\": 4}]}]}"
    "}, \"unanswered\": {\"gpu13\": \"srun: error: Unable to allocate resources\"}}";

static void test_two_fabrics(void)
{
	char a[4096], b[4096], facts[] = "/tmp/golden-test-tree-XXXXXX";
	const char *dumps[] = {a, b, NULL};
	struct world w;
	const char *why;
	int fd = mkstemp(facts);

	if (fd < 0 || write(fd, traps_facts, sizeof(traps_facts) - 1) < 0) {
		ok(0, "write facts");
		return;
	}
	close(fd);
	snprintf(a, sizeof(a), "%s/t/fixtures/ibsim/traps-A.ibnetdiscover.out", src);
	snprintf(b, sizeof(b), "%s/t/fixtures/ibsim/traps-B.ibnetdiscover.out", src);
	if (!ok(make(&w, dumps, facts, GOLDEN_TREE_TOP) == 0, "two fabrics from two runs")) {
		unlink(facts);
		return;
	}
	unlink(facts);
	is(golden_strbuf_str(&w.conf),
	   "# fabric 0\n"
	   "SwitchName=leafA1 Nodes=gpu[01-02]\n"
	   "SwitchName=leafA2 Nodes=gpu03\n"
	   "SwitchName=spineA Switches=leafA[1-2]\n"
	   "\n# fabric 1\n"
	   "SwitchName=leafB1 Nodes=gpu[11-12]\n",
	   "fabric B is a leaf of its own: no switch joins the fabrics");
	why = why_unplaced(&w, "gpu20");
	ok(why && strstr(why, "is in the ibnetdiscover input"), "gpu20 (GUID not in the dumps): %s",
	   why ? why : "(placed)");
	why = why_unplaced(&w, "roce1");
	ok(why && strstr(why, "RoCE"), "roce1: %s", why ? why : "(placed)");
	ok(has_note(&w.tree, "ignored 1 router(s)"), "the router is not a host");
	is_int(w.facts.nmissing, 1, "gpu13 did not answer: kept as missing");
	drop(&w);
}

int main(void)
{
	const char *s = getenv("GOLDEN_SRCDIR"), *b = getenv("GOLDEN_BUILDDIR");

	snprintf(src, sizeof(src), "%s", s && *s ? s : ".");
	snprintf(build, sizeof(build), "%s", b && *b ? b : ".");
	test_minicluster();
	test_topograph();
	test_psmn();
	test_threetier();
	test_two_fabrics();
	return done_testing();
}
