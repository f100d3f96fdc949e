/* The ibnetdiscover parser over real published dumps (t/fixtures/
 * ibnetdiscover/SOURCES.md) and real ibnetdiscover runs against ibsim
 * (t/fixtures/ibsim/README.md): counts, GUID spellings, descriptions with
 * '#' and '"', self-links, a lone CA, the -p report, separate fabrics. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/ibnet.h"
#include "t/unit/tap.h"

static char dir[2048];

static int load(struct golden_ibnet *net, const char *rel)
{
	char path[4096];
	struct golden_err err = {{0}};
	int rc;

	snprintf(path, sizeof(path), "%s/t/fixtures/%s", dir, rel);
	golden_ibnet_init(net);
	rc = golden_ibnet_load(net, path, &err);
	if (rc < 0)
		diag("%s: %s", rel, err.msg);
	golden_ibnet_finish(net);
	return rc;
}

static const struct golden_ibnet_node *node(const struct golden_ibnet *net, uint64_t guid)
{
	int i = golden_ibnet_find(net, guid);

	return i >= 0 ? &net->nodes[i] : NULL;
}

static int remote_of(const struct golden_ibnet *net, const struct golden_ibnet_node *n, int port,
                     int *rport)
{
	for (int k = 0; n && k < n->nports; k++)
		if (n->ports[k].num == port) {
			if (rport)
				*rport = n->ports[k].remote_port;
			return n->ports[k].remote;
		}
	(void)net;
	return -2;
}

static void test_topograph(void)
{
	struct golden_ibnet net;
	struct golden_ibnet_counts c;
	const struct golden_ibnet_node *n;
	char name[80];
	int port = 0, idx, rp = 0;

	ok(load(&net, "ibnetdiscover/topograph-example.txt") > 0, "topograph example parsed");
	golden_ibnet_count(&net, &c);
	is_int(c.switches, 40, "40 switches");
	is_int(c.cas + c.sharp, 582, "582 CAs");
	is_int(c.sharp, 40, "40 SHARP aggregation nodes, one per switch");
	is_int(c.links, 1114,
	       "every link once (2,228 port records, each link seen from both ends)");
	is_int(c.fabrics, 1, "one fabric");
	n = node(&net, 0x2c5eab0300b87b40ULL);
	ok(n && n->type == GOLDEN_IBNET_SWITCH, "switch S-2c5eab0300b87b40");
	if (!n) {
		golden_ibnet_free(&net);
		return;
	}
	golden_ibnet_switch_name(n, name, sizeof(name));
	is(name, "A09-P1-IBLEAF-04-04", "managed switch name from MF0;<name>:<model>");
	is(n->desc, "MF0;A09-P1-IBLEAF-04-04:MQM9701/U1", "description without the tail");
	/* [1] "H-e09d7303007a4bd8"[1](e09d7303007a4bd8) */
	idx = golden_ibnet_find_port(&net, 0xe09d7303007a4bd8ULL, &port);
	ok(idx >= 0 && port == 1, "CA port GUID (unpadded, in parentheses) found");
	ok(idx >= 0 && !strcmp(net.nodes[idx].desc, "a08-p1-dgx-04-c01 mlx5_5"), "CA description");
	ok(remote_of(&net, &net.nodes[idx], 1, &rp) ==
	           golden_ibnet_find(&net, 0x2c5eab0300b87b40ULL) &&
	       rp == 1,
	   "CA port 1 is cabled to the leaf's port 1");
	ok(golden_ibnet_desc_is_default("MT4129 ConnectX7   Mellanox Technologies"),
	   "unset default description recognised");
	ok(golden_ibnet_desc_is_default("localhost mlx5_0") &&
	       golden_ibnet_desc_is_default("ubuntu HCA-1"),
	   "placeholder host names recognised");
	ok(!golden_ibnet_desc_is_default("a08-p1-dgx-04-c01 mlx5_5"), "a real host name is not");
	golden_ibnet_free(&net);
}

static void test_psmn(void)
{
	struct golden_ibnet net;
	struct golden_ibnet_counts c;
	const struct golden_ibnet_node *n;
	char name[80];

	ok(load(&net, "ibnetdiscover/psmn-x5.txt") > 0, "psmn-x5 parsed");
	golden_ibnet_count(&net, &c);
	is_int(c.switches, 11, "11 switches");
	is_int(c.cas, 89, "89 CAs");
	is_int(c.fabrics, 1, "one fabric");
	n = node(&net, 0x0008f10500108c5cULL);
	ok(n != NULL, "switch 0008f10500108c5c");
	is(n ? n->desc : "", "Voltaire 4036 # 4036-8C5C", "a '#' inside the description is kept");
	name[0] = 'x';
	name[1] = '\0';
	if (n)
		golden_ibnet_switch_name(n, name, sizeof(name));
	is(name, "", "an unmanaged switch has no name of its own");
	golden_ibnet_free(&net);

	ok(load(&net, "ibsim/psmn-x5.ibnetdiscover-p.out") > 0, "psmn-x5 -p report (ibsim) parsed");
	golden_ibnet_count(&net, &c);
	is_int(c.switches, 11, "-p: 11 switches");
	is_int(c.cas, 89, "-p: 89 CA ports");
	is_int(c.fabrics, 1, "-p: one fabric");
	golden_ibnet_free(&net);
}

static void test_traps(void)
{
	struct golden_ibnet net;
	struct golden_ibnet_counts c;
	const struct golden_ibnet_node *n;
	struct golden_err err = {{0}};
	char path[4096];

	ok(load(&net, "ibnetdiscover/topograph-example-bad.txt") > 0, "lone CA parsed");
	golden_ibnet_count(&net, &c);
	ok(c.cas == 1 && c.links == 0 && c.switches == 0, "one CA without links");
	n = node(&net, 0xb8e92403009ca838ULL);
	ok(n && n->fabric == -1 && !strcmp(n->desc, "dgx-gb200-n01-c1 HCA-1"),
	   "the lone CA belongs to no fabric");
	golden_ibnet_free(&net);

	ok(load(&net, "ibnetdiscover/jabl-ibtopotool-test3.txt") > 0,
	   "dump with a stderr line and single spaces parsed");
	n = node(&net, 0xe41d2d030003e470ULL);
	ok(n != NULL, "switch e41d2d030003e470");
	ok(remote_of(&net, n, 1, NULL) == golden_ibnet_find(&net, 0xe41d2d030003e470ULL),
	   "a loopback cable: port 1 is cabled to the same switch");
	golden_ibnet_count(&net, &c);
	is_int(c.fabrics, 1, "two switches in series: one fabric");
	golden_ibnet_free(&net);

	ok(load(&net, "ibnetdiscover/jabl-ibtopotool-test4.txt") > 0,
	   "whitespace-only separator lines");
	golden_ibnet_count(&net, &c);
	ok(c.switches >= 1, "switch found (%d)", c.switches);
	golden_ibnet_free(&net);

	ok(load(&net, "ibnetdiscover/jabl-ibtopotool-test1.txt") > 0, "2007 man page (-g) dump");
	ok(golden_ibnet_find_port(&net, 0x8f10403960559ULL, NULL) >= 0 &&
	       golden_ibnet_find_port(&net, 0x8f1040396055aULL, NULL) >= 0,
	   "a dual-port HCA: both port GUIDs");
	golden_ibnet_free(&net);

	ok(load(&net, "ibnetdiscover/osc-infiniband-exporter-p-test2.txt") > 0,
	   "-p excerpt with padded descriptions");
	n = node(&net, 0x946dae030053ec1aULL);
	is(n ? n->desc : "", " 5FB0406-spine-IB03 ", "leading and trailing spaces kept");
	n = node(&net, 0x946dae0300630bfeULL);
	ok(n && golden_ibnet_is_sharp(n), "SHARP aggregation node in -p");
	golden_ibnet_free(&net);

	golden_ibnet_init(&net);
	snprintf(path, sizeof(path),
	         "%s/t/fixtures/ibnetdiscover/osc-infiniband-exporter-p-test3.txt", dir);
	ok(golden_ibnet_load(&net, path, &err) < 0 && strstr(err.msg, "no ibnetdiscover node"),
	   "a malformed -p line: nothing recognisable, said so (%s)", err.msg);
	golden_ibnet_free(&net);

	/* Two fabrics from two runs: never joined. */
	ok(load(&net, "ibsim/traps-A.ibnetdiscover.out") > 0, "fabric A (ibsim)");
	snprintf(path, sizeof(path), "%s/t/fixtures/ibsim/traps-B.ibnetdiscover.out", dir);
	ok(golden_ibnet_load(&net, path, &err) > 0, "fabric B added");
	golden_ibnet_finish(&net);
	golden_ibnet_count(&net, &c);
	is_int(c.fabrics, 2, "two fabrics stay two");
	is_int(c.routers, 1, "the router");
	is_int(c.sharp, 1, "the SHARP node");
	n = node(&net, 0x0b00000000000900ULL);
	ok(n && n->fabric == 1, "gpu11 is in fabric 1 (fabric B's switch GUID is higher)");
	golden_ibnet_free(&net);

	/* The same fabric twice: the same nodes, not doubled. */
	ok(load(&net, "ibsim/traps-A.ibnetdiscover.out") > 0, "fabric A");
	snprintf(path, sizeof(path), "%s/t/fixtures/ibsim/traps-A.ibnetdiscover-p.out", dir);
	golden_ibnet_load(&net, path, &err);
	golden_ibnet_finish(&net);
	golden_ibnet_count(&net, &c);
	is_int(c.switches, 3, "default dump + -p report of one fabric: still 3 switches");
	golden_ibnet_free(&net);
}

int main(void)
{
	const char *s = getenv("GOLDEN_SRCDIR");

	snprintf(dir, sizeof(dir), "%s", s && *s ? s : ".");
	test_topograph();
	test_psmn();
	test_traps();
	return done_testing();
}
