/* Recipes: loading (shipped, good and bad fixtures, owner checks), matching
 * over hand-built topologies, selection, rendering, lint, known variables. */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "env/facts.h"
#include "env/nccl_vars.h"
#include "env/recipe.h"
#include "util/strutil.h"
#include "t/unit/tap.h"

static char srcdir[1024];
static char tmpdir[64];

/* ------------------------------------------------------------ diagnostics */

static char msgs[64][1024];
static int nmsgs;

static void collect(void *arg, const char *msg)
{
	(void)arg;
	if (nmsgs < 64)
		golden_strlcpy(msgs[nmsgs], msg, sizeof(msgs[0]));
	nmsgs++;
}

static bool any_msg(const char *a, const char *b)
{
	for (int i = 0; i < nmsgs && i < 64; i++)
		if (strstr(msgs[i], a) && (!b || strstr(msgs[i], b)))
			return true;
	return false;
}

/* Print the collected diagnostics, only when a test failed since last time. */
static void show_msgs(void)
{
	static int seen_failed;

	if (tap_failed == seen_failed)
		return;
	seen_failed = tap_failed;
	for (int i = 0; i < nmsgs && i < 64; i++)
		diag("diag: %s", msgs[i]);
}

/* ------------------------------------------------------------ topologies */

static struct golden_topo *new_topo(void)
{
	struct golden_topo *t = calloc(1, sizeof(*t));

	if (!t) {
		printf("Bail out! out of memory\n");
		exit(1);
	}
	golden_strlcpy(t->bootstrap_if, "eno1", sizeof(t->bootstrap_if));
	t->nnuma = 2;
	return t;
}

static struct golden_nic *add_nic(struct golden_topo *t, const char *name,
                                  enum golden_nic_kind kind, enum golden_nic_class cls,
                                  const char *busid)
{
	struct golden_nic *n = &t->nics[t->nnics++];

	memset(n, 0, sizeof(*n));
	golden_strlcpy(n->name, name, sizeof(n->name));
	golden_strlcpy(n->busid, busid, sizeof(n->busid));
	n->kind = kind;
	n->cls = cls;
	n->numa = -1;
	if (kind != GOLDEN_NIC_ETH) {
		n->nports = 1;
		n->ports[0].num = 1;
		golden_strlcpy(n->ports[0].link_layer,
		               kind == GOLDEN_NIC_ROCE ? "Ethernet" : "InfiniBand",
		               sizeof(n->ports[0].link_layer));
		n->ports[0].state = 4;
		n->ports[0].roce_v2_gid = kind == GOLDEN_NIC_ROCE ? 3 : -1;
	}
	return n;
}

static void add_gpus(struct golden_topo *t, int n, const char *model)
{
	for (int i = 0; i < n; i++) {
		struct golden_gpu *g = &t->gpus[t->ngpus++];

		golden_strlcpy(g->model, model, sizeof(g->model));
		snprintf(g->busid, sizeof(g->busid), "0000:%02x:00.0", 0x10 + 0x10 * i);
	}
}

static const char *const rail_bus[] = {"0000:18:00.0", "0000:40:00.0", "0000:4f:00.0",
                                       "0000:5e:00.0", "0000:9a:00.0", "0000:c0:00.0",
                                       "0000:ce:00.0", "0000:dc:00.0"};
static const char *const rail_name[] = {"mlx5_0", "mlx5_3", "mlx5_4",  "mlx5_5",
                                        "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11"};

/* NGPUS GPUs of MODEL, NRAILS compute rails of KIND, 2 storage IB HCAs,
 * eno1 for bootstrap, NVSwitches when nvswitch. */
static struct golden_topo *node(int ngpus, const char *model, int nrails, enum golden_nic_kind kind,
                                bool nvswitch)
{
	struct golden_topo *t = new_topo();

	add_gpus(t, ngpus, model);
	add_nic(t, "eno1", GOLDEN_NIC_ETH, GOLDEN_CLASS_MGMT, "0000:01:00.0");
	/* Reverse array order: selection must not depend on it. */
	for (int i = nrails - 1; i >= 0; i--)
		add_nic(t, rail_name[i], kind, GOLDEN_CLASS_COMPUTE, rail_bus[i]);
	add_nic(t, "mlx5_1", GOLDEN_NIC_IB, GOLDEN_CLASS_STORAGE, "0000:29:00.0");
	add_nic(t, "mlx5_2", GOLDEN_NIC_IB, GOLDEN_CLASS_STORAGE, "0000:aa:00.0");
	t->nvswitches = nvswitch ? 4 : 0;
	return t;
}

/* "NAME=VALUE\n" for every variable, as `golden env` prints them. */
static const char *env_text(const struct golden_decision *res)
{
	static char buf[4096];

	buf[0] = '\0';
	for (int i = 0; i < res->nvars; i++) {
		golden_strlcat(buf, res->vars[i].name, sizeof(buf));
		golden_strlcat(buf, "=", sizeof(buf));
		golden_strlcat(buf, res->vars[i].value, sizeof(buf));
		golden_strlcat(buf, "\n", sizeof(buf));
	}
	return buf;
}

static const struct golden_decision_candidate *cand(const struct golden_decision *res,
                                                    const char *name)
{
	for (int i = 0; i < res->ncandidates; i++)
		if (!strcmp(res->candidates[i].recipe, name))
			return &res->candidates[i];
	return NULL;
}

static bool note_has(const struct golden_decision *res, const char *name, const char *a,
                     const char *b)
{
	const struct golden_decision_candidate *c = cand(res, name);
	bool found = c && c->note && strstr(c->note, a) && (!b || strstr(c->note, b));

	if (!found)
		diag("note of %s: %s", name, c && c->note ? c->note : "(none)");
	return found;
}

/* Select and render over T; returns the winner's name or NULL. */
static const char *choose(const struct golden_recipe_set *set, const struct golden_topo *t,
                          struct golden_decision *res, struct golden_err *err)
{
	const struct golden_recipe *w;

	golden_decision_init(res);
	memset(err, 0, sizeof(*err));
	w = golden_recipe_select(set, t, res, err);
	if (!w)
		return NULL;
	if (golden_recipe_render(w, t, res, err) < 0)
		return NULL;
	return w->name;
}

/* --------------------------------------------------------------- files */

static void write_file(const char *name, const char *text, mode_t mode)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0 || chmod(path, mode) != 0) {
		printf("Bail out! cannot write %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

static const char *tmp_path(const char *name)
{
	static char path[512];

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	return path;
}

static const char *recipe_json(const char *name, const char *match)
{
	static char buf[2048];

	snprintf(buf, sizeof(buf),
	         "{\"name\": \"%s\", \"description\": \"d\", \"source\": \"s\", \"match\": %s, "
	         "\"env\": [{\"name\": \"NCCL_IB_HCA\", \"value\": \"={compute_hcas}\", "
	         "\"why\": \"w\"}]}\n",
	         name, match);
	return buf;
}

static void clean_tmpdir(void)
{
	DIR *d = opendir(tmpdir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			unlink(tmp_path(de->d_name));
	closedir(d);
}

/* -------------------------------------------------------- shipped set */

static void load_shipped(struct golden_recipe_set *set)
{
	static const char *const names[] = {
	    "aws-p4d",          "aws-p5",           "aws-p6",       "azure-ndv4",
	    "azure-ndv5",       "gb200-nvl72",      "gcp-a3-high",  "gcp-a3-mega",
	    "gcp-a3-ultra-a4",  "generic-ib",       "generic-roce", "generic-socket",
	    "hgx-b200-b300-ib", "hgx-h100-h200-ib", "hgx-roce",     "single-node"};
	static const int spec[] = {2, 2, 2, 6, 6, 3, 4, 4, 6, 1, 1, 1, 5, 5, 5, 2};
	enum { NSHIPPED = (int)(sizeof(names) / sizeof(names[0])) };
	struct golden_load_opts opts = {false, collect, NULL};
	struct golden_err err = {{0}};
	char dir[1100];
	int bad;

	snprintf(dir, sizeof(dir), "%s/recipes", srcdir);
	nmsgs = 0;
	bad = golden_recipes_load_dir(dir, &opts, set, &err);
	is_int(bad, 0, "shipped recipes: none bad (%s)", err.msg);
	is_int(nmsgs, 0, "shipped recipes: no diagnostics");
	show_msgs();
	is_int(set->n, NSHIPPED, "%d shipped recipes", NSHIPPED);
	for (int i = 0; i < NSHIPPED && i < set->n; i++) {
		const struct golden_recipe *r = &set->recipes[i];
		struct golden_recipe one;
		char path[1200];
		bool whys = true;

		is(r->name, names[i], "recipe %d is %s (sorted by name)", i, names[i]);
		is_int(r->specificity, spec[i], "%s: specificity", names[i]);
		/* single-node sets nothing on purpose; every other recipe sets something. */
		ok(r->description[0] && r->source[0] &&
		       (r->nvars > 0) == (strcmp(names[i], "single-node") != 0),
		   "%s: description, source, env", names[i]);
		for (int v = 0; v < r->nvars; v++)
			whys = whys && r->vars[v].why && strlen(r->vars[v].why) > 20;
		ok(whys, "%s: every variable has a why", names[i]);
		snprintf(path, sizeof(path), "%s/%s.json", dir, names[i]);
		memset(&err, 0, sizeof(err));
		ok(golden_recipe_load_file(path, &opts, &one, &err) == 0 &&
		       !strcmp(one.name, names[i]) && !strcmp(one.path, path),
		   "load_file %s: %s", names[i], err.msg);
		golden_recipe_free(&one);
	}
	nmsgs = 0;
	is_int(golden_recipes_lint(set, collect, NULL), 0, "shipped recipes are lint-clean");
	show_msgs();
}

static void test_hgx(const struct golden_recipe_set *set)
{
	struct golden_topo *t = node(8, "H100 SXM5 80GB", 8, GOLDEN_NIC_IB, true);
	struct golden_decision res;
	struct golden_err err;

	is(choose(set, t, &res, &err), "hgx-h100-h200-ib", "8x H100 + 8 IB rails: hgx wins (%s)",
	   err.msg);
	is(env_text(&res),
	   "NCCL_IB_HCA==mlx5_0,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_9,mlx5_10,mlx5_11\n"
	   "NCCL_SOCKET_IFNAME==eno1\n",
	   "hgx: exactly the 8 rails (no storage HCAs) and the bootstrap interface");
	is(res.recipe, "hgx-h100-h200-ib", "res->recipe");
	ok(res.source && strstr(res.source, "oci-hpc"), "res->source is the recipe's source");
	is_int(res.ncandidates, 16, "every recipe is a candidate");
	ok(note_has(&res, "hgx-h100-h200-ib", "won", "specificity 5"), "winner's note");
	ok(note_has(&res, "generic-ib", "lost to hgx-h100-h200-ib", "specificity 1 < 5"),
	   "generic-ib matched but lost on specificity");
	ok(cand(&res, "generic-ib") && cand(&res, "generic-ib")->matched, "generic-ib matched");
	ok(note_has(&res, "generic-roce", "compute_nic_kind", "wants roce"),
	   "generic-roce: wrong fabric");
	ok(cand(&res, "generic-roce") && !cand(&res, "generic-roce")->matched,
	   "generic-roce did not match");
	ok(note_has(&res, "generic-socket", "wants none", NULL), "generic-socket: wrong fabric");
	golden_decision_free(&res);

	golden_strlcpy(t->gpus[3].model, "H200 SXM 141GB", sizeof(t->gpus[3].model));
	is(choose(set, t, &res, &err), "hgx-h100-h200-ib", "H100 and H200 models both match");
	golden_decision_free(&res);
	for (int i = 0; i < 8; i++)
		golden_strlcpy(t->gpus[i].model, "H200 SXM 141GB", sizeof(t->gpus[i].model));
	is(choose(set, t, &res, &err), "hgx-h100-h200-ib", "8x H200 matches");
	golden_decision_free(&res);

	t->nvswitches = 0;
	is(choose(set, t, &res, &err), "generic-ib", "no NVSwitch: generic-ib");
	ok(note_has(&res, "hgx-h100-h200-ib", "nvswitch", NULL), "hgx note says nvswitch");
	golden_decision_free(&res);
	free(t);

	/* Only 6 rails. */
	t = node(8, "H100 SXM5 80GB", 6, GOLDEN_NIC_IB, true);
	is(choose(set, t, &res, &err), "generic-ib", "6 rails: generic-ib");
	ok(note_has(&res, "hgx-h100-h200-ib", "compute_nic_count: 6", ">= 8"),
	   "hgx note says 6 compute devices, wants >= 8");
	golden_decision_free(&res);
	free(t);

	/* No GPUs at all. */
	t = node(0, "", 8, GOLDEN_NIC_IB, true);
	is(choose(set, t, &res, &err), "generic-ib", "no GPUs: not hgx");
	ok(note_has(&res, "hgx-h100-h200-ib", "no GPUs", NULL), "hgx note: no GPUs");
	golden_decision_free(&res);
	free(t);
}

static void test_generic(const struct golden_recipe_set *set)
{
	struct golden_topo *t = node(4, "A100-SXM4-80GB", 4, GOLDEN_NIC_IB, true);
	struct golden_decision res;
	struct golden_err err;
	char why[512];

	is(choose(set, t, &res, &err), "generic-ib", "4x A100 + IB: generic-ib");
	is(env_text(&res), "NCCL_IB_HCA==mlx5_0,mlx5_3,mlx5_4,mlx5_5\nNCCL_SOCKET_IFNAME==eno1\n",
	   "generic-ib env");
	ok(note_has(&res, "hgx-h100-h200-ib", "gpu_model", "A100-SXM4-80GB"),
	   "hgx note names the A100");
	ok(!golden_recipe_matches(golden_recipe_find(set, "hgx-h100-h200-ib"), t, why,
	                          sizeof(why)) &&
	       strstr(why, "recipe wants H100* | H200*"),
	   "matches() says which patterns were wanted: %s", why);
	golden_decision_free(&res);

	/* Required fact empty: the recipe fails to render, res untouched. */
	t->bootstrap_if[0] = '\0';
	golden_decision_init(&res);
	memset(&err, 0, sizeof(err));
	ok(golden_recipe_render(golden_recipe_find(set, "generic-ib"), t, &res, &err) == -1,
	   "no bootstrap interface: render fails");
	is(err.msg,
	   "recipe generic-ib: NCCL_SOCKET_IFNAME needs fact bootstrap_if, which is empty on "
	   "this node",
	   "render error names the variable and the fact");
	ok(res.nvars == 0 && res.recipe == NULL, "a failed render leaves res alone");
	golden_decision_free(&res);
	free(t);

	/* RoCE, every port on GID 3; no NVSwitch, so not hgx-roce. */
	t = node(8, "H100 PCIe 80GB", 8, GOLDEN_NIC_ROCE, false);
	is(choose(set, t, &res, &err), "generic-roce", "RoCE: generic-roce (%s)", err.msg);
	is(env_text(&res),
	   "NCCL_IB_GID_INDEX=3\n"
	   "NCCL_IB_HCA==mlx5_0,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_9,mlx5_10,mlx5_11\n"
	   "NCCL_IB_QPS_PER_CONNECTION=4\n"
	   "NCCL_IB_SPLIT_DATA_ON_QPS=0\n"
	   "NCCL_SOCKET_IFNAME==eno1\n",
	   "generic-roce env with GID 3");
	ok(note_has(&res, "hgx-h100-h200-ib", "compute_nic_kind", "roce"), "hgx: not IB");
	ok(note_has(&res, "hgx-roce", "nvswitch", NULL), "hgx-roce: no NVSwitch");
	golden_decision_free(&res);

	/* Mixed GIDs: the optional variable is skipped, the recipe still renders. */
	t->nics[3].ports[0].roce_v2_gid = 5;
	is(choose(set, t, &res, &err), "generic-roce", "mixed GIDs: still generic-roce");
	ok(!golden_decision_getvar(&res, "NCCL_IB_GID_INDEX") && res.nvars == 4,
	   "mixed GIDs: NCCL_IB_GID_INDEX skipped, the other 4 set");
	ok(note_has(&res, "generic-roce", "skipped optional NCCL_IB_GID_INDEX", "roce_gid_index"),
	   "the winner's note says which optional variable was skipped and why");
	golden_decision_free(&res);
	free(t);

	/* No compute NIC: only storage HCAs and eno1. */
	t = node(8, "L40S", 0, GOLDEN_NIC_IB, false);
	is(choose(set, t, &res, &err), "generic-socket", "no compute NIC: generic-socket");
	is(env_text(&res), "NCCL_IB_DISABLE=1\nNCCL_SOCKET_IFNAME==eno1\n", "generic-socket env");
	golden_decision_free(&res);
	free(t);

	/* EFA on an instance type no AWS recipe names (aws-ofi-nccl configures itself). */
	t = node(8, "H100 80GB HBM3", 0, GOLDEN_NIC_IB, true);
	add_nic(t, "rdmap16s27", GOLDEN_NIC_EFA, GOLDEN_CLASS_COMPUTE, "0000:10:1b.0");
	ok(choose(set, t, &res, &err) == NULL && strstr(err.msg, "no recipe matches"),
	   "EFA node: no recipe matches (%s)", err.msg);
	is_int(res.ncandidates, 16, "still every candidate with a note");
	ok(note_has(&res, "generic-socket", "fabric is efa", NULL), "socket: fabric is efa");
	golden_decision_free(&res);
	free(t);
}

/* ------------------------------------------------------ good fixture */

static void test_full_fixture(void)
{
	struct golden_recipe r;
	struct golden_err err = {{0}};
	struct golden_decision res;
	struct golden_topo *t;
	char path[1200], why[512];

	snprintf(path, sizeof(path), "%s/t/fixtures/recipes-good/full.json", srcdir);
	ok(golden_recipe_load_file(path, NULL, &r, &err) == 0, "full.json loads: %s", err.msg);
	is_int(r.specificity, 8, "all 8 rules count");
	ok(r.match.n_gpu_model == 2 && !strcmp(r.match.gpu_model[1], "H200*"), "gpu_model");
	ok(r.match.gpu_count.set && r.match.gpu_count.min == 4 && r.match.gpu_count.max == 8,
	   "gpu_count range 4-8");
	ok(r.match.compute_nic_count.min == 4 && r.match.compute_nic_count.max == 4,
	   "compute_nic_count exact 4");
	ok(!strcmp(r.match.compute_nic_kind, "roce") && !strcmp(r.match.link_layer, "Ethernet"),
	   "kind and link layer");
	ok(r.match.nvswitch == 0 && r.match.pcie_flat == 1, "nvswitch false, pcie_flat true");
	ok(r.match.n_dmi_product == 2, "dmi patterns");
	ok(r.nvars == 4 && r.vars[1].optional && !r.vars[3].optional, "optional flags");
	is_int(r.nexpect, 3, "three expectations");
	ok(!strcmp(r.expect[0].collective, "all_reduce") && r.expect[0].nodes.min == 1 &&
	       r.expect[0].nodes.max == 1 && r.expect[0].min_busbw == 431.5 &&
	       r.expect[0].size == 16LL << 30 &&
	       !strcmp(r.expect[0].source, "a public pass mark") &&
	       !strcmp(r.expect[0].why, "one node"),
	   "expect[0]: all_reduce, 1 node, 431.5 GB/s from 16G, source and why");
	ok(r.expect[1].nodes.min == 2 && r.expect[1].nodes.max == INT_MAX &&
	       r.expect[1].size == 1LL << 30,
	   "expect[1]: 2+ nodes, size defaults to 1 GiB");
	ok(!strcmp(r.expect[2].collective, "alltoall") && r.expect[2].nodes.max == 8 &&
	       r.expect[2].size == 536870912,
	   "expect[2]: a node range and a byte count");

	t = new_topo();
	add_gpus(t, 4, "H200 NVL");
	for (int i = 0; i < 4; i++)
		add_nic(t, rail_name[i], GOLDEN_NIC_ROCE, GOLDEN_CLASS_COMPUTE, rail_bus[i]);
	t->pcie_flat = true;
	golden_strlcpy(t->dmi_product, "PowerEdge XE8640", sizeof(t->dmi_product));
	ok(golden_recipe_matches(&r, t, why, sizeof(why)), "full matches its node: %s", why);
	golden_decision_init(&res);
	ok(golden_recipe_render(&r, t, &res, &err) == 0, "full renders: %s", err.msg);
	is(env_text(&res),
	   "NCCL_DEBUG_FILE=/tmp/nccl-{4}-%h.log\n"
	   "NCCL_IB_GID_INDEX=3\n"
	   "NCCL_IB_HCA==mlx5_0:1,mlx5_3:1,mlx5_4:1,mlx5_5:1\n"
	   "NCCL_IB_TC=106\n",
	   "full env: ports, GID, literal braces, literal value");
	golden_decision_free(&res);

	/* Each rule can fail on its own. */
	golden_strlcpy(t->dmi_product, "PowerEdge R750", sizeof(t->dmi_product));
	ok(!golden_recipe_matches(&r, t, why, sizeof(why)) && strstr(why, "dmi_product_name"),
	   "dmi_product_name fails: %s", why);
	golden_strlcpy(t->dmi_product, "ThinkSystem SR675 V3", sizeof(t->dmi_product));
	t->pcie_flat = false;
	ok(!golden_recipe_matches(&r, t, why, sizeof(why)) && strstr(why, "pcie_flat"),
	   "pcie_flat fails: %s", why);
	t->pcie_flat = true;
	t->nvswitches = 2;
	ok(!golden_recipe_matches(&r, t, why, sizeof(why)) && strstr(why, "nvswitch"),
	   "nvswitch fails: %s", why);
	t->nvswitches = 0;
	t->nics[0].ports[0].link_layer[0] = 'X';
	ok(!golden_recipe_matches(&r, t, why, sizeof(why)) && strstr(why, "link_layer"),
	   "link_layer fails: %s", why);
	t->nics[0].ports[0].link_layer[0] = 'E';
	add_nic(t, "mlx5_6", GOLDEN_NIC_ROCE, GOLDEN_CLASS_COMPUTE, "0000:9a:00.0");
	ok(!golden_recipe_matches(&r, t, why, sizeof(why)) && strstr(why, "compute_nic_count"),
	   "compute_nic_count fails: %s", why);
	t->nics[4].kind = GOLDEN_NIC_IB;
	t->nics[3].kind = GOLDEN_NIC_IB;
	t->nics[2].kind = GOLDEN_NIC_IB;
	ok(!golden_recipe_matches(&r, t, why, sizeof(why)) && strstr(why, "compute_nic_kind"),
	   "compute_nic_kind fails: %s", why);
	t->nnics = 4;
	t->nics[3].kind = t->nics[2].kind = GOLDEN_NIC_ROCE;
	add_gpus(t, 6, "H200 NVL");
	ok(!golden_recipe_matches(&r, t, why, sizeof(why)) && strstr(why, "gpu_count: 10"),
	   "gpu_count fails: %s", why);
	t->ngpus = 4;
	golden_strlcpy(t->gpus[2].model, "GH200", sizeof(t->gpus[2].model));
	ok(!golden_recipe_matches(&r, t, why, sizeof(why)) && strstr(why, "GH200"),
	   "gpu_model fails when one GPU differs: %s", why);
	golden_strlcpy(t->gpus[2].model, "H100 NVL", sizeof(t->gpus[2].model));
	ok(golden_recipe_matches(&r, t, why, sizeof(why)), "and matches again: %s", why);
	golden_recipe_free(&r);
	free(t);
}

/* ------------------------------------------------------- bad fixtures */

struct bad_case {
	const char *file, *key, *expect;
};

/* clang-format off */
static const struct bad_case bad_cases[] = {
	{"syntax", "syntax.json:4:", "invalid JSON"},
	{"empty-file", "empty-file.json:1:1", "unexpected end of file"},
	{"trailing-text", "trailing-text.json:2:1", "expected one object per file"},
	{"not-object", "not-object.json", "expected a JSON object"},
	{"unknown-key",
	 ": descripton: ", "unknown key; expected one of: name, description, source, match, env"},
	{"missing-source", ": source: ", "missing; every recipe needs"},
	{"unsafe-name", ": name: ", "expected 1-64 characters from [A-Za-z0-9._-]"},
	{"empty-description", ": description: ", "expected a non-empty string"},
	{"match-not-object", ": match: ", "expected an object of rules"},
	{"match-unknown-key", ": match.gpu_models: ",
	 "unknown key; expected one of: gpu_model, gpu_count, compute_nic_kind"},
	{"gpu-model-not-array", ": match.gpu_model: ", "expected an array of 1-16 fnmatch"},
	{"gpu-model-empty-pattern", ": match.gpu_model[1]: ", "expected a non-empty fnmatch"},
	{"gpu-count-string",
	 ": match.gpu_count: ", "expected an integer 0-64 or {\"min\": N, \"max\": M}"},
	{"gpu-count-float", ": match.gpu_count: ", "expected an integer 0-64"},
	{"gpu-count-inverted", ": match.gpu_count: ", "expected min <= max"},
	{"gpu-count-range-key",
	 ": match.gpu_count.minimum: ", "unknown key; expected one of: min, max"},
	{"gpu-count-range-empty", ": match.gpu_count: ", "empty range"},
	{"nic-count-out-of-range",
	 ": match.compute_nic_count: ", "999 is out of range; expected an integer 0-128"},
	{"nic-kind", ": match.compute_nic_kind: ", "expected one of: ib, roce, efa, none"},
	{"link-layer", ": match.link_layer: ", "expected one of: InfiniBand, Ethernet"},
	{"nvswitch-not-bool", ": match.nvswitch: ", "expected true or false"},
	{"pcie-flat-not-bool", ": match.pcie_flat: ", "expected true or false"},
	{"dmi-too-many", ": match.dmi_product_name: ", "expected an array of 1-16"},
	{"env-not-array", ": env: ", "expected an array of at most 64 variables"},
	{"env-entry-not-object", ": env[0]: ", "expected an object {\"name\""},
	{"env-unknown-key",
	 ": env[0].reason: ", "unknown key; expected one of: name, value, why, optional"},
	{"env-unknown-var", ": env[0].name: ", "NCCL_IB_HCAS is not a variable golden knows"},
	{"env-missing-why", ": env[0].why: ", "missing; expected a string"},
	{"env-empty-why", ": env[0].why: ", "expected a non-empty string"},
	{"env-value-not-string", ": env[0].value: ", "expected a string"},
	{"env-unknown-fact",
	 ": env[0].value: ", "unknown fact {compute_hca}; expected one of: compute_hcas,"},
	{"env-unterminated-brace", ": env[0].value: ", "unterminated '{'"},
	{"env-lone-brace", ": env[0].value: ", "lone '}'"},
	{"env-bad-literal", ": env[1].value: ", "NCCL_IB_TC=300: expected an integer 0-255"},
	{"env-optional-not-bool", ": env[0].optional: ", "expected true or false"},
	{"env-duplicate-var", ": env[1].name: ", "NCCL_IB_HCA is already set by env[0]"},
	{"env-fact-needs-arg", ": env[0].value: ",
	 "fact {pci_netdevs} needs an argument; expected {pci_netdevs:PATTERN}"},
	{"env-fact-no-arg", ": env[0].value: ",
	 "fact {compute_hcas} takes no argument; expected {compute_hcas}"},
	{"env-value-out-of-range", ": env[0].value: ",
	 "NCCL_FASTRAK_NUM_FLOWS=0: expected an integer 1-64"},
	{"env-value-not-in-list", ": env[0].value: ",
	 "NCCL_PROTO=Simple,LL256: expected a comma list of LL, LL128, Simple"},
	{"gpu-eth-count-string", ": match.gpu_eth_count: ", "expected an integer 0-128 or"},
	{"bootstrap-if-not-bool", ": match.bootstrap_if: ", "expected true or false"},
	{"expect-not-array", ": expect: ", "expected an array of at most 32 expectations"},
	{"expect-unknown-collective", ": expect[0].collective: ",
	 "\"all_reduce_perf_mpi\" is not an nccl-tests collective; expected one of: all_reduce,"},
	{"expect-unknown-key", ": expect[0].minimum: ",
	 "unknown key; expected one of: collective, nodes, min_busbw, size, source, why"},
	{"expect-no-source", ": expect[0].source: ", "missing; expected a string"},
	{"expect-no-why", ": expect[0].why: ", "missing; expected a string"},
	{"expect-zero-busbw", ": expect[0].min_busbw: ", "expected the minimum bus bandwidth in GB/s"},
	{"expect-busbw-string", ": expect[0].min_busbw: ", "a number above 0"},
	{"expect-bad-size", ": expect[0].size: ", "\"16 gigs\": expected a message size such as \"16G\""},
	{"expect-no-nodes", ": expect[0].nodes: ", "missing; expected a node count"},
	{"expect-zero-nodes", ": expect[0].nodes: ", "0 nodes; expected at least 1"},
};
/* clang-format on */

static void test_bad_fixtures(void)
{
	int n = (int)(sizeof(bad_cases) / sizeof(bad_cases[0]));
	struct golden_load_opts opts = {false, collect, NULL};
	struct golden_recipe_set set = {0, NULL};
	struct golden_err err = {{0}};
	char dir[1100];
	int bad;

	snprintf(dir, sizeof(dir), "%s/t/fixtures/recipes-bad", srcdir);
	for (int i = 0; i < n; i++) {
		const struct bad_case *c = &bad_cases[i];
		struct golden_recipe r;
		char path[1200];
		int rc;

		snprintf(path, sizeof(path), "%s/%s.json", dir, c->file);
		memset(&err, 0, sizeof(err));
		rc = golden_recipe_load_file(path, &opts, &r, &err);
		ok(rc == -1 && golden_str_startswith(err.msg, path) && strstr(err.msg, c->key) &&
		       strstr(err.msg, c->expect),
		   "bad recipe %s: file, '%s', '%s'", c->file, c->key, c->expect);
		if (rc != -1 || !strstr(err.msg, c->key) || !strstr(err.msg, c->expect))
			diag("got rc %d: %s", rc, err.msg);
		if (rc == 0)
			golden_recipe_free(&r);
	}
	nmsgs = 0;
	bad = golden_recipes_load_dir(dir, &opts, &set, &err);
	is_int(bad, n, "load_dir on recipes-bad: every bad file skipped and counted");
	is_int(nmsgs, n, "one diagnostic per bad file");
	is_int(set.n, 1, "the one loadable file (name-mismatch) still loads");
	nmsgs = 0;
	ok(golden_recipes_lint(&set, collect, NULL) == 1 &&
	       any_msg("name-mismatch.json: name: \"something-else\" differs from the file name",
	               "expected \"name-mismatch\""),
	   "lint: name differs from the file's basename");
	show_msgs();
	golden_recipe_set_free(&set);
}

/* Two recipes of one specificity that can fit the same node: lint names both. */
static void test_ties(void)
{
	struct golden_load_opts opts = {false, collect, NULL};
	struct golden_recipe_set set = {0, NULL};
	struct golden_err err = {{0}};
	char dir[1100];

	snprintf(dir, sizeof(dir), "%s/t/fixtures/recipes-tie", srcdir);
	nmsgs = 0;
	is_int(golden_recipes_load_dir(dir, &opts, &set, &err), 0, "recipes-tie loads (%s)",
	       err.msg);
	is_int(golden_recipes_lint(&set, collect, NULL), 2, "lint: two ties");
	ok(any_msg("site-hopper-nvswitch.json: tie: site-h100-ib and site-hopper-nvswitch both "
	           "match at specificity 2",
	           "add a rule that tells them apart"),
	   "tie: H100* on IB vs H1* with NVSwitch");
	ok(any_msg("tie: site-h100-roce and site-hopper-nvswitch both match at specificity 2",
	           NULL),
	   "tie: H100* on RoCE vs H1* with NVSwitch");
	ok(!any_msg("site-h100-ib and site-h100-roce", NULL), "no tie between IB and RoCE recipes");
	show_msgs();
	golden_recipe_set_free(&set);
}

/* -------------------------------------------------- owner and file checks */

static int load_tmp(const char *name, bool owner, struct golden_err *err)
{
	struct golden_load_opts opts = {owner, NULL, NULL};
	struct golden_recipe r;
	int rc;

	memset(err, 0, sizeof(*err));
	rc = golden_recipe_load_file(tmp_path(name), &opts, &r, err);
	if (rc == 0)
		golden_recipe_free(&r);
	return rc;
}

static void test_files(void)
{
	struct golden_load_opts opts = {true, collect, NULL};
	struct golden_recipe_set set = {0, NULL};
	struct golden_err err;
	bool root = geteuid() == 0;
	char *big;

	write_file("ok.json", recipe_json("ok", "{}"), 0644);
	if (root)
		ok(load_tmp("ok.json", true, &err) == 0, "root-owned 0644: accepted (%s)", err.msg);
	else
		ok(load_tmp("ok.json", true, &err) == -1 && strstr(err.msg, "owned by uid"),
		   "not root: the file is not root-owned, refused (%s)", err.msg);
	ok(load_tmp("ok.json", false, &err) == 0, "without check_owner: accepted");

	chmod(tmp_path("ok.json"), 0666);
	ok(load_tmp("ok.json", true, &err) == -1 &&
	       golden_str_startswith(err.msg, tmp_path("ok.json")) &&
	       strstr(err.msg, "refusing recipe: ") &&
	       strstr(err.msg, "mode 0666 is group- and world-writable") &&
	       strstr(err.msg, "recipes must be root-owned and not group/world-writable"),
	   "0666: refused with the mode (%s)", err.msg);
	chmod(tmp_path("ok.json"), 0664);
	ok(load_tmp("ok.json", true, &err) == -1 && strstr(err.msg, "mode 0664 is group-writable"),
	   "0664: group-writable (%s)", err.msg);
	chmod(tmp_path("ok.json"), 0646);
	ok(load_tmp("ok.json", true, &err) == -1 && strstr(err.msg, "mode 0646 is world-writable"),
	   "0646: world-writable (%s)", err.msg);
	chmod(tmp_path("ok.json"), 0644);
	if (root) {
		ok(chown(tmp_path("ok.json"), 65534, 65534) == 0 &&
		       load_tmp("ok.json", true, &err) == -1 &&
		       strstr(err.msg, "refusing recipe: owned by uid 65534; recipes must be "
		                       "root-owned"),
		   "owned by uid 65534: refused (%s)", err.msg);
		if (chown(tmp_path("ok.json"), 0, 0) != 0)
			diag("chown back failed");
	} else {
		printf("ok %d # skip chown needs root\n", ++tap_n);
	}

	if (symlink("ok.json", tmp_path("link.json")) == 0)
		ok(load_tmp("link.json", false, &err) == -1 && strstr(err.msg, "symbolic link"),
		   "a symlink is refused (%s)", err.msg);
	else
		ok(0, "symlink: %s", strerror(errno));
	if (mkfifo(tmp_path("fifo.json"), 0644) == 0)
		ok(load_tmp("fifo.json", false, &err) == -1 &&
		       strstr(err.msg, "not a regular file"),
		   "a FIFO is refused without blocking (%s)", err.msg);
	else
		ok(0, "mkfifo: %s", strerror(errno));
	big = malloc(300 * 1024);
	if (big) {
		memset(big, ' ', 300 * 1024 - 1);
		big[0] = '{';
		big[300 * 1024 - 2] = '}';
		big[300 * 1024 - 1] = '\0';
		write_file("big.json", big, 0644);
		free(big);
		ok(load_tmp("big.json", false, &err) == -1 &&
		       strstr(err.msg, "expected at most 262144"),
		   "a file over 256 KiB is refused (%s)", err.msg);
	}
	ok(load_tmp("missing.json", false, &err) == -1 && strstr(err.msg, "cannot open"),
	   "a missing file (%s)", err.msg);

	/* The directory itself, group/world-writable. */
	unlink(tmp_path("link.json"));
	unlink(tmp_path("fifo.json"));
	unlink(tmp_path("big.json"));
	chmod(tmpdir, 0777);
	memset(&err, 0, sizeof(err));
	ok(golden_recipes_load_dir(tmpdir, &opts, &set, &err) == -1 &&
	       strstr(err.msg, "refusing recipe directory: ") &&
	       strstr(err.msg, "world-writable") && set.n == 0,
	   "a world-writable recipe directory is refused (%s)", err.msg);
	chmod(tmpdir, 0700);

	/* Duplicate names, hidden and non-JSON files. */
	write_file("a.json", recipe_json("dup", "{\"compute_nic_kind\": \"ib\"}"), 0644);
	write_file("b.json", recipe_json("dup", "{\"compute_nic_kind\": \"roce\"}"), 0644);
	write_file(".hidden.json", "not json", 0644);
	write_file("README", "not json", 0644);
	opts.check_owner = false;
	nmsgs = 0;
	memset(&err, 0, sizeof(err));
	is_int(golden_recipes_load_dir(tmpdir, &opts, &set, &err), 1,
	       "duplicate name: one skipped, dot files and non-JSON ignored");
	ok(any_msg("b.json: name: recipe \"dup\" is already defined in ", "a.json"),
	   "the second file is reported");
	show_msgs();
	ok(set.n == 2 && golden_recipe_find(&set, "dup") &&
	       !strcmp(golden_recipe_find(&set, "dup")->match.compute_nic_kind, "ib"),
	   "the first one (in name order) is kept");
	golden_recipe_set_free(&set);
	memset(&err, 0, sizeof(err));
	ok(golden_recipes_load_dir("/nonexistent/recipes", &opts, &set, &err) == -1 &&
	       strstr(err.msg, "cannot open recipe directory"),
	   "a missing directory: -1 (%s)", err.msg);

	/* Too many variables. */
	{
		char text[16384];
		size_t o;

		o = (size_t)snprintf(text, sizeof(text),
		                     "{\"name\":\"many\",\"description\":\"d\",\"source\":\"s\","
		                     "\"match\":{},\"env\":[");
		for (int i = 0; i < 65; i++)
			o += (size_t)snprintf(text + o, sizeof(text) - o,
			                      "%s{\"name\":\"NCCL_IB_TC\",\"value\":\"1\",\"why\":"
			                      "\"w\"}",
			                      i ? "," : "");
		snprintf(text + o, sizeof(text) - o, "]}");
		write_file("many.json", text, 0644);
		ok(load_tmp("many.json", false, &err) == -1 &&
		       strstr(err.msg, "env: expected an array of at most 64"),
		   "65 variables: refused (%s)", err.msg);
	}
	clean_tmpdir();
}

/* ---------------------------------------------------------------- lint */

static struct golden_recipe *load_json(const char *name, const char *match)
{
	struct golden_recipe *r = calloc(1, sizeof(*r));
	struct golden_err err = {{0}};
	char file[128];

	snprintf(file, sizeof(file), "%s.json", name);
	write_file(file, recipe_json(name, match), 0644);
	if (!r || golden_recipe_load_file(tmp_path(file), NULL, r, &err) < 0) {
		printf("Bail out! %s\n", err.msg);
		exit(1);
	}
	return r;
}

static bool overlap(const char *ma, const char *mb)
{
	struct golden_recipe *a = load_json("oa", ma), *b = load_json("ob", mb);
	bool o = golden_recipes_may_overlap(a, b), o2 = golden_recipes_may_overlap(b, a);

	if (o != o2)
		diag("asymmetric overlap for %s / %s", ma, mb);
	golden_recipe_free(a);
	golden_recipe_free(b);
	free(a);
	free(b);
	return o && o2;
}

static void test_lint(const struct golden_recipe_set *shipped)
{
	struct golden_recipe_set set = {0, NULL};
	struct golden_err err = {{0}};
	struct golden_decision res;
	struct golden_topo *t;

	ok(overlap("{\"compute_nic_kind\": \"ib\", \"gpu_count\": {\"min\": 4}}",
	           "{\"compute_nic_kind\": \"ib\", \"nvswitch\": true}"),
	   "kind ib + gpu_count vs kind ib + nvswitch: may overlap");
	ok(!overlap("{\"compute_nic_kind\": \"ib\"}", "{\"compute_nic_kind\": \"roce\"}"),
	   "different kinds: apart");
	ok(!overlap("{\"gpu_count\": 8}", "{\"gpu_count\": {\"max\": 4}}"),
	   "gpu_count 8 vs <= 4: apart");
	ok(overlap("{\"gpu_count\": {\"min\": 4}}", "{\"gpu_count\": {\"max\": 4}}"),
	   "gpu_count >= 4 vs <= 4: overlap at 4");
	ok(!overlap("{\"compute_nic_count\": {\"min\": 8}}", "{\"compute_nic_count\": 4}"),
	   "compute_nic_count >= 8 vs 4: apart");
	ok(!overlap("{\"gpu_model\": [\"A100*\"]}", "{\"gpu_model\": [\"H100*\", \"H200*\"]}"),
	   "A100* vs H100*/H200*: apart");
	ok(overlap("{\"gpu_model\": [\"H1*\"]}", "{\"gpu_model\": [\"H100*\"]}"),
	   "H1* vs H100*: overlap");
	ok(!overlap("{\"link_layer\": \"InfiniBand\"}", "{\"link_layer\": \"Ethernet\"}"),
	   "link layers: apart");
	ok(!overlap("{\"nvswitch\": true}", "{\"nvswitch\": false}"), "nvswitch: apart");
	ok(!overlap("{\"pcie_flat\": true}", "{\"pcie_flat\": false}"), "pcie_flat: apart");
	ok(!overlap("{\"dmi_product_name\": [\"p4d*\"]}", "{\"dmi_product_name\": [\"p5*\"]}"),
	   "dmi patterns: apart");
	ok(!overlap("{\"compute_nic_kind\": \"none\"}", "{\"compute_nic_count\": {\"min\": 1}}"),
	   "kind none vs >= 1 compute NIC: apart");
	ok(!overlap("{\"compute_nic_kind\": \"ib\"}", "{\"link_layer\": \"Ethernet\"}"),
	   "kind ib vs Ethernet ports: apart");
	ok(!overlap("{\"compute_nic_kind\": \"roce\"}", "{\"link_layer\": \"InfiniBand\"}"),
	   "kind roce vs InfiniBand ports: apart");
	ok(!overlap("{\"compute_nic_kind\": \"ib\"}", "{\"compute_nic_count\": 0}"),
	   "kind ib vs 0 compute NICs: apart");
	ok(!overlap("{\"gpu_model\": [\"H100*\"]}", "{\"gpu_count\": 0}"),
	   "gpu_model vs 0 GPUs: apart");
	ok(overlap("{\"compute_nic_kind\": \"ib\"}", "{\"gpu_count\": 8}"),
	   "unrelated rules: may overlap");
	ok(overlap("{}", "{}"), "two catch-alls overlap");

	golden_recipe_set_add(&set,
	                      load_json("tie-a", "{\"compute_nic_kind\": \"ib\", "
	                                         "\"gpu_count\": {\"min\": 4}}"),
	                      &err);
	golden_recipe_set_add(&set,
	                      load_json("tie-b", "{\"compute_nic_kind\": \"ib\", "
	                                         "\"nvswitch\": true}"),
	                      &err);
	golden_recipe_set_add(&set,
	                      load_json("apart", "{\"compute_nic_kind\": \"roce\", "
	                                         "\"nvswitch\": true}"),
	                      &err);
	nmsgs = 0;
	is_int(golden_recipes_lint(&set, collect, NULL), 1, "lint: exactly one tie");
	ok(any_msg("tie: tie-a and tie-b both match at specificity 2; add a rule that tells "
	           "them apart",
	           "tie-b.json"),
	   "the tie message names both recipes and the specificity");
	show_msgs();

	/* Selection on a node both match: broken by name, and said so. */
	t = node(8, "H100 SXM5 80GB", 8, GOLDEN_NIC_IB, true);
	golden_decision_init(&res);
	ok(golden_recipe_select(&set, t, &res, &err) == golden_recipe_find(&set, "tie-a"),
	   "a tie goes to the first name");
	ok(note_has(&res, "tie-a", "tied with 1 other recipe", "lint reports this tie"),
	   "winner's note mentions the tie");
	ok(note_has(&res, "tie-b", "lost to tie-a: tie at specificity 2", "sorts first by name"),
	   "loser's note says why it lost");
	golden_decision_free(&res);
	free(t);

	memset(&err, 0, sizeof(err));
	ok(golden_recipe_set_add(&set, load_json("tie-a", "{}"), &err) == -1 &&
	       strstr(err.msg, "already defined"),
	   "set_add refuses a duplicate name (%s)", err.msg);
	golden_recipe_set_free(&set);

	/* Lint sees variables a hand-built recipe got wrong. */
	{
		struct golden_recipe *r = load_json("handmade", "{}");
		struct golden_recipe_set one = {0, NULL};

		free(r->vars[0].value);
		r->vars[0].value = strdup("{nope}");
		free(r->vars[0].why);
		r->vars[0].why = strdup("");
		golden_recipe_set_add(&one, r, &err);
		nmsgs = 0;
		is_int(golden_recipes_lint(&one, collect, NULL), 1, "lint: a bad variable");
		ok(any_msg("handmade.json: env[0].why", "missing or empty"),
		   "lint names env[0].why");
		show_msgs();
		golden_recipe_set_free(&one);
	}
	nmsgs = 0;
	is_int(golden_recipes_lint(shipped, collect, NULL), 0, "lint passes on the shipped set");
	clean_tmpdir();
}

/* ----------------------------------------------------------- templates */

static void test_templates(void)
{
	struct golden_topo *t = new_topo();
	char out[256], fact[64], why[512];

	is_int(golden_recipe_template_check("plain", why, sizeof(why)), 0, "literal: 0 facts");
	is_int(golden_recipe_template_check("={compute_hcas},{bootstrap_if}", why, sizeof(why)), 2,
	       "2 fact references");
	is_int(golden_recipe_template_check("a{{b}}c", why, sizeof(why)), 0,
	       "escaped braces are literal");
	ok(golden_recipe_template_check("{nope}", why, sizeof(why)) == -1 &&
	       strstr(why, "unknown fact {nope}; expected one of: compute_hcas"),
	   "unknown fact: %s", why);
	ok(golden_recipe_template_check("x{", why, sizeof(why)) == -1 &&
	       strstr(why, "unterminated"),
	   "unterminated: %s", why);
	ok(golden_recipe_template_check("x}", why, sizeof(why)) == -1 && strstr(why, "lone '}'"),
	   "lone brace: %s", why);
	ok(golden_recipe_template_check("{Bad Name}", why, sizeof(why)) == -1 &&
	       strstr(why, "not a fact reference"),
	   "not a fact name: %s", why);
	ok(golden_recipe_template_expand("x{{{bootstrap_if}}}", t, out, sizeof(out), fact,
	                                 sizeof(fact), why, sizeof(why)) == 0 &&
	       !strcmp(out, "x{eno1}"),
	   "expand with braces: %s", out);
	ok(golden_recipe_template_expand("={roce_gid_index}", t, out, sizeof(out), fact,
	                                 sizeof(fact), why, sizeof(why)) == 1 &&
	       !strcmp(fact, "roce_gid_index"),
	   "an empty fact: 1 and its name");
	ok(golden_recipe_template_expand("0123456789{bootstrap_if}", t, out, 8, fact, sizeof(fact),
	                                 why, sizeof(why)) == -1 &&
	       strstr(why, "longer than"),
	   "overflow: -1 (%s)", why);
	free(t);
}

/* ----------------------------------------------------- known variables */

struct var_case {
	const char *name, *value;
	int rc;
	const char *expect; /* substring of why when rc is -1 */
};

/* clang-format off */
static const struct var_case var_cases[] = {
	{"NCCL_IB_HCA", "=mlx5_0,mlx5_3", 0, NULL},
	{"NCCL_IB_HCA", "^=mlx5_0:1", 0, NULL},
	{"NCCL_IB_HCA", "mlx5_0:1:0:1", 0, NULL},
	{"NCCL_IB_HCA", "ibp", 0, NULL},
	{"NCCL_IB_HCA", "", -1, "expected [^][=]hca[:port"},
	{"NCCL_IB_HCA", "=", -1, "expected [^][=]hca"},
	{"NCCL_IB_HCA", "mlx5_0,", -1, "expected [^][=]hca"},
	{"NCCL_IB_HCA", "mlx5 0", -1, "expected [^][=]hca"},
	{"NCCL_IB_HCA", "mlx5_0:x", -1, "expected [^][=]hca"},
	{"NCCL_IB_HCA", "mlx5_0:1:2:3:4", -1, "expected [^][=]hca"},
	{"NCCL_IB_HCA",
	 "a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,b0,b1,b2,b3,b4,b5,b6,b7,b8,b9,c0,c1,c2,c3,c4,c5,c6,c7,c8,c9,"
	 "d0,d1,d2",
	 -1, "at most 32 devices"},
	{"NCCL_SOCKET_IFNAME", "=eno1", 0, NULL},
	{"NCCL_SOCKET_IFNAME", "^docker,lo", 0, NULL},
	{"NCCL_SOCKET_IFNAME", "=", -1, "expected [^][=]interface"},
	{"NCCL_SOCKET_IFNAME", "eth 0", -1, "expected [^][=]interface"},
	{"NCCL_SOCKET_IFNAME", "=abcdefghijklmnop", -1, "expected [^][=]interface"},
	{"NCCL_IB_TC", "41", 0, NULL},
	{"NCCL_IB_TC", "300", -1, "expected an integer 0-255"},
	{"NCCL_IB_TC", " 4", -1, "expected an integer 0-255"},
	{"NCCL_IB_TC", "4x", -1, "expected an integer 0-255"},
	{"NCCL_IB_GID_INDEX", "-1", 0, NULL},
	{"NCCL_IB_GID_INDEX", "-2", -1, "expected an integer -1-255"},
	{"NCCL_IB_SL", "16", -1, "expected an integer 0-15"},
	{"NCCL_IB_QPS_PER_CONNECTION", "0", -1, "expected an integer 1-128"},
	{"NCCL_BUFFSIZE", "0", -1, "expected an integer >= 1"},
	{"NCCL_BUFFSIZE", "8388608", 0, NULL},
	{"NCCL_IB_DISABLE", "2", -1, "expected 0 or 1"},
	{"NCCL_IB_SPLIT_DATA_ON_QPS", "true", -1, "expected 0 or 1"},
	{"NCCL_ALGO", "Ring,Tree", 0, NULL},
	{"NCCL_ALGO", "^NVLS", 0, NULL},
	{"NCCL_ALGO", "allreduce:tree,ring;allgather:ring", 0, NULL},
	{"NCCL_ALGO", "Rign", -1, "Ring, Tree, CollnetDirect"},
	{"NCCL_ALGO", "Ring;", -1, "expected a comma list"},
	{"NCCL_PROTO", "simple", 0, NULL},
	{"NCCL_PROTO", "Simple,LL128", 0, NULL},
	{"NCCL_PROTO", "LL256", -1, "LL, LL128, Simple"},
	{"NCCL_NET_GDR_LEVEL", "PHB", 0, NULL},
	{"NCCL_NET_GDR_LEVEL", "phb", -1, "expected one of: LOC, PIX, PXB, P2C, PHB, SYS"},
	{"NCCL_DEBUG", "info", 0, NULL},
	{"NCCL_NETDEVS_POLICY", "max:1", 0, NULL},
	{"NCCL_NETDEVS_POLICY", "MAX:0", -1, "expected AUTO, ALL or MAX:N"},
	{"NCCL_IB_ADDR_RANGE", "10.0.0.0/8", 0, NULL},
	{"NCCL_IB_ADDR_RANGE", "fd00::/8", 0, NULL},
	{"NCCL_IB_ADDR_RANGE", "10.0.0.0", -1, "expected ADDRESS/BITS"},
	{"NCCL_IB_ADDR_RANGE", "10.0.0.0/33", -1, "expected ADDRESS/BITS"},
	{"NCCL_SOCKET_MAGIC", "0x1a2b", 0, NULL},
	{"NCCL_SOCKET_MAGIC", "12", 0, NULL},
	{"NCCL_SOCKET_MAGIC", "0x", -1, "expected a decimal or 0x hexadecimal"},
	{"NCCL_SOCKET_MAGIC", "012", -1, "expected a decimal or 0x hexadecimal"},
	{"NCCL_TOPO_FILE", "/opt/microsoft/ndv5/topo.xml", 0, NULL},
	{"NCCL_TOPO_FILE", "topo.xml", -1, "expected an absolute path"},
	{"NCCL_DEBUG_FILE", "nccl.%h.%p.log", 0, NULL},
	{"NCCL_NET_PLUGIN", "none", 0, NULL},
	{"NCCL_NET_PLUGIN", "aws-ofi", 0, NULL},
	{"NCCL_NET_PLUGIN", "/opt/hpcx/nccl_rdma_sharp_plugin/lib/libnccl-net.so", 0, NULL},
	{"NCCL_NET_PLUGIN", "a b", -1, "expected none, a plugin suffix"},
	{"NCCL_NET", "IB", 0, NULL},
	{"UCX_NET_DEVICES", "mlx5_0:1,mlx5_3:1", 0, NULL},
	{"UCX_TLS", "^ud", 0, NULL},
	{"UCX_IB_GID_INDEX", "auto", 0, NULL},
	{"UCX_IB_GID_INDEX", "x", -1, "expected auto or an integer 0-255"},
	{"CUDA_DEVICE_ORDER", "PCI_BUS_ID", 0, NULL},
	{"FI_PROVIDER", "efa", 0, NULL},
	{"NCCL_IB_HCAS", "x", -1,
	 "NCCL_IB_HCAS is not a variable golden knows; expected "
	 "NCCL_IB_HCA (did you mean it?)"},
	{"LD_PRELOAD", "/tmp/x.so", -1, "LD_PRELOAD is not a variable golden knows"},
};
/* clang-format on */

static void test_vars(void)
{
	int n = (int)(sizeof(var_cases) / sizeof(var_cases[0])), bad_help = 0;

	for (int i = 0; i < n; i++) {
		const struct var_case *c = &var_cases[i];
		char why[512] = "";
		int rc = golden_nccl_var_check(c->name, c->value, why, sizeof(why));

		ok(rc == c->rc && (rc == 0 || strstr(why, c->expect)), "%s=%s: %s", c->name,
		   c->value, c->rc ? c->expect : "valid");
		if (rc != c->rc || (rc && !strstr(why, c->expect)))
			diag("got rc %d: %s", rc, why);
	}
	for (const struct golden_nccl_var *v = golden_nccl_vars; v->name; v++)
		bad_help += !v->help || !v->help[0] || golden_nccl_var_find(v->name) != v;
	is_int(bad_help, 0, "every known variable has help and is found by name once");
	ok(golden_nccl_var_find("NCCL_NOPE") == NULL, "unknown variable: NULL");
	is(golden_nccl_var_suggest("NCCL_SOCKET_IFNAM"), "NCCL_SOCKET_IFNAME", "suggest a typo");
	ok(golden_nccl_var_suggest("SOMETHING_ELSE") == NULL, "no suggestion for a far name");
}

int main(void)
{
	struct golden_recipe_set shipped = {0, NULL};
	const char *s = getenv("GOLDEN_SRCDIR");

	golden_strlcpy(srcdir, s && *s ? s : ".", sizeof(srcdir));
	golden_strlcpy(tmpdir, "/tmp/golden-test-recipe-XXXXXX", sizeof(tmpdir));
	if (!mkdtemp(tmpdir)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	load_shipped(&shipped);
	test_hgx(&shipped);
	test_generic(&shipped);
	test_full_fixture();
	test_bad_fixtures();
	test_ties();
	test_files();
	test_lint(&shipped);
	test_templates();
	test_vars();
	golden_recipe_set_free(&shipped);
	clean_tmpdir();
	rmdir(tmpdir);
	return done_testing();
}
