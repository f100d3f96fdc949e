/* golden topology check's comparison: `scontrol show topology` output (as
 * Slurm 22.05, 24.11 and 26.05 print it: t/fixtures/slurm-topology/)
 * against the discovered tree and blocks; every kind of mismatch, the JSON
 * and the Prometheus textfile. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "fabric/block.h"
#include "fabric/facts.h"
#include "fabric/ibnet.h"
#include "fabric/showtopo.h"
#include "fabric/topoconf.h"
#include "fabric/tree.h"
#include "fabric/verify.h"
#include "t/unit/tap.h"

static char src[2048], build[2048];

struct world {
	struct golden_ibnet net;
	struct golden_facts facts;
	struct golden_tree tree;
	struct golden_blocks blocks;
};

static int make(struct world *w, const char *net_rel)
{
	char path[4096];
	struct golden_err err = {{0}};
	struct golden_slurm_version v = {26, 5};

	memset(w, 0, sizeof(*w));
	golden_ibnet_init(&w->net);
	snprintf(path, sizeof(path), "%s/t/fixtures/fabric/%s", build, net_rel);
	if (golden_ibnet_load(&w->net, path, &err) < 0)
		goto fail;
	golden_ibnet_finish(&w->net);
	snprintf(path, sizeof(path), "%s/t/fixtures/fabric/minicluster.facts.json", build);
	if (golden_facts_load(path, &w->facts, &err) < 0 ||
	    golden_tree_build(&w->net, &w->facts, GOLDEN_TREE_TOP, &w->tree, &err) < 0 ||
	    golden_blocks_build(&w->facts, &w->tree, NULL, 0, v, &w->blocks, &err) < 0)
		goto fail;
	return 0;
fail:
	diag("%s", err.msg);
	return -1;
}

static void drop(struct world *w)
{
	golden_blocks_free(&w->blocks);
	golden_tree_free(&w->tree);
	golden_facts_free(&w->facts);
	golden_ibnet_free(&w->net);
}

/* Run the check against show-topology text; returns the mismatch count and
 * keeps the result in v. */
static int check(struct world *w, const char *show, bool tree, bool blocks, struct golden_verify *v)
{
	struct golden_showtopo st = {0};
	struct golden_err err = {{0}};
	int n;

	if (golden_showtopo_parse(&st, show, "", &err) < 0) {
		diag("%s", err.msg);
		return -1;
	}
	if (golden_verify_run(&w->facts, tree ? &w->tree : NULL, blocks ? &w->blocks : NULL, &st,
	                      NULL, v, &err) < 0) {
		diag("%s", err.msg);
		golden_showtopo_free(&st);
		return -1;
	}
	golden_showtopo_free(&st);
	n = v->n;
	for (int i = 0; i < v->n; i++)
		diag("%s %s: %s", v->m[i].kind, v->m[i].subject, v->m[i].detail);
	return n;
}

static bool has(const struct golden_verify *v, const char *kind, const char *subject)
{
	for (int i = 0; i < v->n; i++)
		if (!strcmp(v->m[i].kind, kind) && !strcmp(v->m[i].subject, subject))
			return true;
	return false;
}

static char *slurp(const char *rel)
{
	char path[4096];
	FILE *f;
	char *buf;
	long n;

	snprintf(path, sizeof(path), "%s/t/fixtures/slurm-topology/%s", src, rel);
	f = fopen(path, "re");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

static const char good_tree[] =
    "SwitchName=su1-leaf-r0 Level=0 LinkSpeed=1 Nodes=n[1-2]\n"
    "SwitchName=su2-leaf-r0 Level=0 LinkSpeed=1 Nodes=n[3-4]\n"
    "SwitchName=spine-1 Level=1 LinkSpeed=1 Nodes=n[1-4] Switches=su1-leaf-r0,su2-leaf-r0\n";

static void test_tree_checks(void)
{
	struct world w;
	struct golden_verify v;

	if (!ok(make(&w, "minicluster.net") == 0, "the 4-node fabric"))
		return;
	is_int(check(&w, good_tree, true, false, &v), 0, "the file golden wrote: no mismatch");
	golden_verify_free(&v);
	check(&w,
	      "SwitchName=su1-leaf-r0 Level=0 LinkSpeed=1 Nodes=n[1-2]\n"
	      "SwitchName=su2-leaf-r0 Level=0 LinkSpeed=1 Nodes=n3\n"
	      "SwitchName=spine-1 Level=1 LinkSpeed=1 Nodes=n[1-3] Switches=su[1-2]-leaf-r0\n",
	      true, false, &v);
	ok(has(&v, "missing-switch", "n4"), "n4 under no leaf: missing-switch");
	golden_verify_free(&v);
	check(&w,
	      "SwitchName=su1-leaf-r0 Level=0 LinkSpeed=1 Nodes=n[1-2]\n"
	      "SwitchName=su2-leaf-r0 Level=0 LinkSpeed=1 Nodes=n[3-4]\n",
	      true, false, &v);
	ok(has(&v, "no-common-parent", "spine-1"),
	   "two leaves of one fabric without a common switch: no-common-parent");
	golden_verify_free(&v);
	check(&w,
	      "SwitchName=r0 Level=0 LinkSpeed=1 Nodes=n[1-2]\n"
	      "SwitchName=r1 Level=0 LinkSpeed=1 Nodes=n[1-4]\n"
	      "SwitchName=top Level=1 LinkSpeed=1 Nodes=n[1-4] Switches=r[0-1]\n",
	      true, false, &v);
	ok(has(&v, "multi-leaf", "n1") && has(&v, "multi-leaf", "n2"),
	   "a node under two leaves: multi-leaf");
	ok(has(&v, "split-leaf", "su1-leaf-r0"), "one discovered leaf over two Slurm leaves");
	golden_verify_free(&v);
	is_int(check(&w, "", true, false, &v), 1, "Slurm without switches: one mismatch");
	ok(has(&v, "no-tree", "topology"), "no-tree");
	golden_verify_free(&v);
	drop(&w);

	/* Recabled since the file was written: n2 and n3 swapped. */
	if (!ok(make(&w, "minicluster-recabled.net") == 0, "the fabric after recabling"))
		return;
	is_int(check(&w, good_tree, true, false, &v), 2, "two mismatches");
	ok(has(&v, "wrong-leaf", "n2") && has(&v, "wrong-leaf", "n3"),
	   "n2 and n3 under wrong leaves");
	ok(v.n && strstr(v.m[0].fix, "golden topology build --write"), "the fix says how");
	golden_verify_free(&v);
	drop(&w);
}

static void test_block_checks(void)
{
	struct world w;
	struct golden_verify v;
	char good[1024], *p;

	if (!ok(make(&w, "minicluster.net") == 0, "the 4-node fabric, 2 racks"))
		return;
	snprintf(good, sizeof(good),
	         "BlockName=%s BlockIndex=0 Nodes=n[1-2] BlockSize=2\n"
	         "BlockName=%s BlockIndex=1 Nodes=n[3-4] BlockSize=2\n"
	         "AggregatedBlock=%s,%s BlockIndex=0 Nodes=n[1-4] BlockSize=4\n",
	         w.blocks.b[0].name, w.blocks.b[1].name, w.blocks.b[0].name, w.blocks.b[1].name);
	is_int(check(&w, good, false, true, &v), 0, "blocks = racks: no mismatch");
	golden_verify_free(&v);
	is_int(check(&w,
	             "BlockName=b1 BlockIndex=0 Nodes=n[1,3] BlockSize=2\n"
	             "BlockName=b2 BlockIndex=1 Nodes=n[2,4] BlockSize=2\n",
	             false, true, &v),
	       4, "blocks across racks: 4 mismatches");
	ok(has(&v, "mixed-block", "b1") && has(&v, "mixed-block", "b2"), "mixed-block b1, b2");
	ok(has(&v, "split-domain", w.blocks.b[0].domain), "split-domain");
	golden_verify_free(&v);
	check(&w, "BlockName=b1 BlockIndex=0 Nodes=n[1-2] BlockSize=2\n", false, true, &v);
	ok(has(&v, "missing-block", "n3") && has(&v, "missing-block", "n4"),
	   "missing-block n3, n4");
	golden_verify_free(&v);
	check(&w, "SwitchName=s Level=0 LinkSpeed=1 Nodes=n[1-4]\n", false, true, &v);
	ok(has(&v, "no-block", "topology"), "no blocks at all: no-block");
	golden_verify_free(&v);

	/* n3's fabric registration is still in progress. */
	w.facts.nodes[2].nvl_attached = false;
	strcpy(w.facts.nodes[2].nvl_state, "in-progress");
	strcpy(w.facts.nodes[2].nvl_why, "NVLink fabric registration in progress");
	p = strstr(good, "Nodes=n[3-4]");
	check(&w, good, false, true, &v);
	ok(has(&v, "fabric-state", "n3"), "fabric-state n3");
	(void)p;
	golden_verify_free(&v);
	drop(&w);
}

/* Real `scontrol show topology` outputs captured from slurmctld 22.05, 24.11
 * and 26.05 running on golden's files (t/fixtures/slurm-topology/README.md). */
static void test_real_outputs(void)
{
	struct world w;
	struct golden_verify v;
	char *text;

	if (!ok(make(&w, "minicluster.net") == 0, "the 4-node fabric"))
		return;
	text = slurp("22.05-tree.show");
	if (ok(text != NULL, "22.05 tree output present")) {
		is_int(check(&w, text, true, false, &v), 0, "22.05's own output: no mismatch");
		golden_verify_free(&v);
	}
	free(text);
	text = slurp("24.11-block.show");
	if (ok(text != NULL, "24.11 block output present")) {
		memset(&v, 0, sizeof(v));
		is_int(check(&w, text, false, true, &v), 0, "24.11's own output: no mismatch");
		ok(v.slurm_blocks == 2, "aggregated blocks are not blocks (%d)", v.slurm_blocks);
		golden_verify_free(&v);
	}
	free(text);
	text = slurp("26.05-block.show");
	if (ok(text != NULL, "26.05 block output present")) {
		is_int(check(&w, text, false, true, &v), 0, "26.05's own output: no mismatch");
		golden_verify_free(&v);
	}
	free(text);
	text = slurp("26.05-tree.show");
	if (ok(text != NULL, "26.05 tree output (from topology.yaml) present")) {
		is_int(check(&w, text, true, false, &v), 0, "26.05's tree: no mismatch");
		golden_verify_free(&v);
	}
	free(text);
	text = slurp("26.05-topoconf.show");
	if (ok(text != NULL, "26.05 show topoconf output present")) {
		char names[4][64];

		is_int(golden_showtopo_names(text, names, 4), 2, "two topologies in topoconf");
		ok(!strcmp(names[0], GOLDEN_TOPO_YAML_BLOCK) &&
		       !strcmp(names[1], GOLDEN_TOPO_YAML_TREE),
		   "named %s (the default, first) and %s", names[0], names[1]);
	}
	free(text);
	drop(&w);
}

static void test_outputs(void)
{
	struct world w;
	struct golden_verify v;
	struct golden_err err = {{0}};
	struct json_object *j, *x;
	char dir[] = "/tmp/golden-test-verify-XXXXXX", path[4096], buf[4096];
	FILE *f;
	size_t n;
	struct stat st;

	if (!ok(make(&w, "minicluster-recabled.net") == 0, "recabled") || !mkdtemp(dir))
		return;
	check(&w, good_tree, true, false, &v);
	j = golden_verify_json(&v);
	ok(json_object_object_get_ex(j, "mismatches", &x) && json_object_get_int(x) == 2,
	   "JSON: mismatches 2");
	ok(json_object_object_get_ex(j, "by_kind", &x) &&
	       json_object_object_get_ex(x, "wrong-leaf", &x) && json_object_get_int(x) == 2,
	   "JSON: by_kind wrong-leaf 2");
	json_object_put(j);
	ok(golden_verify_metrics(dir, &v, true, &err) == 0, "metrics written: %s", err.msg);
	snprintf(path, sizeof(path), "%s/slurm_golden_topology.prom", dir);
	f = fopen(path, "re");
	n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	buf[n] = '\0';
	if (f)
		fclose(f);
	ok(!strstr(buf, "\nslurm_golden_topology_mismatches ") &&
	       strstr(buf, "slurm_golden_topology_mismatches{kind=\"wrong-leaf\"} 2\n") &&
	       strstr(buf, "slurm_golden_topology_mismatches{kind=\"mixed-block\"} 0\n") &&
	       strstr(buf, "slurm_golden_topology_check_success 1\n"),
	   "textfile: by kind (zeros included, no separate total), success");
	ok(stat(path, &st) == 0 && (st.st_mode & 0777) == 0644, "mode 0644 for node_exporter");
	unlink(path);
	rmdir(dir);
	golden_verify_free(&v);
	drop(&w);
}

int main(void)
{
	const char *s = getenv("GOLDEN_SRCDIR"), *b = getenv("GOLDEN_BUILDDIR");

	snprintf(src, sizeof(src), "%s", s && *s ? s : ".");
	snprintf(build, sizeof(build), "%s", b && *b ? b : ".");
	test_tree_checks();
	test_block_checks();
	test_real_outputs();
	test_outputs();
	return done_testing();
}
