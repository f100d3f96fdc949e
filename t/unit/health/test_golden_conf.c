/* golden.conf parsing: every key, and errors with FILE:LINE. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "health/golden_conf.h"
#include "t/unit/tap.h"

static char path[] = "/tmp/golden-conf-XXXXXX";

struct who {
	const char *features; /* NULL: unknown */
	int asked, warned;
	char lines[4096];
};

static int features(void *arg, char *buf, size_t len)
{
	struct who *w = arg;

	w->asked++;
	if (!w->features)
		return -1;
	strncpy(buf, w->features, len - 1);
	buf[len - 1] = '\0';
	return 0;
}

static void warn(void *arg, const char *msg)
{
	((struct who *)arg)->warned++;
}

static void explain(void *arg, const char *where, const char *key, const char *value,
                    const char *why)
{
	struct who *w = arg;
	size_t n = strlen(w->lines);

	snprintf(w->lines + n, sizeof(w->lines) - n, "%s %s=%s %s\n", strrchr(where, ':') + 1, key,
	         value, why);
}

/* Load text for node (with features; NULL: unknown). */
static int load_for(const char *text, const char *node, struct who *w, struct golden_conf *c,
                    struct golden_err *e)
{
	FILE *f = fopen(path, "w");
	struct golden_conf_node n = {node, features, explain, warn, w};

	fputs(text, f);
	fclose(f);
	memset(e, 0, sizeof(*e));
	w->asked = w->warned = 0;
	w->lines[0] = '\0';
	golden_conf_init(c);
	return golden_conf_load_node(path, false, &n, c, e);
}

static void node_classes(void)
{
	static const char conf[] = "gpus = 4\n"
	                           "mount = /home\n"
	                           "xid.31 = warn\n"
	                           "[nodes gpu[001-064]]\n"
	                           "gpus = 8\n"
	                           "ib_rate = 400\n"
	                           "mount = /lustre\n"
	                           "xid.31 = drain\n"
	                           "[nodes cpu*]\n"
	                           "gpus = 0\n"
	                           "[feature efa]\n"
	                           "efa_count = 32\n";
	struct golden_conf c;
	struct golden_err e;
	struct who w = {NULL, 0, 0, ""};

	ok(load_for(conf, "gpu007", &w, &c, &e) == 0, "a node class file loads: %s", e.msg);
	is_int(c.expected_gpus, 8, "gpu007 is an H100 node: its section's gpus = 8 wins");
	ok(c.expected_rate_gbps == 400, "and its ib_rate");
	is_int(c.nmounts, 2, "mounts add up: every node's and its class's");
	is(c.mounts[1], "/lustre", "the class's mount comes second");
	ok(golden_conf_xid(&c, 31) && golden_conf_xid(&c, 31)->action == GOLDEN_ACTION_DRAIN &&
	       c.nxid == 1,
	   "xid.31 in the section replaces the one for every node");
	ok(strstr(w.lines, "1 gpus=4 overridden by ") && strstr(w.lines, ":5\n"),
	   "explain: the line for every node is overridden by line 5: %s", w.lines);
	ok(strstr(w.lines, "5 gpus=8 applies: [nodes gpu[001-064]]") != NULL,
	   "explain: line 5 applies");
	ok(strstr(w.lines, "10 gpus=0 not for gpu007: [nodes cpu*] does not match") != NULL,
	   "explain: the cpu section does not apply");
	is_int(w.asked, 1, "features asked once (there is a [feature] section)");
	ok(w.warned == 1 && c.expected_efa == -1,
	   "features unknown: the [feature] section is skipped, with a warning");

	ok(load_for(conf, "cpu12", &w, &c, &e) == 0 && c.expected_gpus == 0 && c.nmounts == 1 &&
	       c.expected_rate_gbps == 0,
	   "cpu12 gets the glob section: gpus = 0, only /home");
	ok(load_for(conf, "login1", &w, &c, &e) == 0 && c.expected_gpus == 4,
	   "a node no section names gets the lines for every node");

	w.features = "efa,a100";
	ok(load_for(conf, "p5-1", &w, &c, &e) == 0 && c.expected_efa == 32 && w.warned == 0,
	   "a node with feature efa gets efa_count = 32");
	w.features = "efax";
	ok(load_for(conf, "p5-1", &w, &c, &e) == 0 && c.expected_efa == -1,
	   "a feature is matched whole (efax is not efa)");
	w.features = NULL;

	ok(load_for("[nodes gpu*]\ngpus = 8\n[feature h100]\ngpus = 4\n", "gpu1",
	            &(struct who){"h100", 0, 0, ""}, &c, &e) < 0,
	   "two sections that apply and disagree are an error");
	ok(strstr(e.msg, ":4: gpus = 4 conflicts with ") && strstr(e.msg, ":2: gpus = 8") &&
	       strstr(e.msg, "node gpu1 matches both [nodes gpu*] and [feature h100]"),
	   "... naming both lines, the node and both sections: %s", e.msg);
	ok(load_for("[nodes gpu*]\ngpus = 8\n[feature h100]\ngpus = 8\n", "gpu1",
	            &(struct who){"h100", 0, 0, ""}, &c, &e) == 0,
	   "agreeing sections are fine");
	ok(load_for("[nodes gpu*]\ngpus = 8\n[nodes cpu*]\ngpus = 0\n", "gpu1", &w, &c, &e) == 0,
	   "disjoint sections are fine");
	ok(load_for("gpus = 8\n[nodes cpu*]\ngpu = 0\n", "gpu1", &w, &c, &e) < 0 &&
	       strstr(e.msg, ":3: unknown key 'gpu'"),
	   "a typo in a section that does not apply to this node is still an error: %s", e.msg);
	ok(load_for("[nodes gpu[1-]]\ngpus = 8\n", "gpu1", &w, &c, &e) < 0 &&
	       strstr(e.msg, ":1: [nodes gpu[1-]]") && strstr(e.msg, "not a range"),
	   "a bad hostlist: FILE:LINE and what is wrong: %s", e.msg);
	ok(load_for("[partition gpu]\ngpus = 8\n", "gpu1", &w, &c, &e) < 0 &&
	       strstr(e.msg, "unknown section 'partition'") && strstr(e.msg, "[feature NAME]"),
	   "an unknown section kind: %s", e.msg);
	ok(load_for("[feature h100 a]\n", "gpu1", &w, &c, &e) < 0 &&
	       strstr(e.msg, "expected [feature NAME]"),
	   "a feature name with a space: %s", e.msg);
	ok(load_for("[nodes gpu*]\nmount = /a\nmount = /b\n[nodes gpu1]\nmount = /c\n", "gpu1", &w,
	            &c, &e) == 0 &&
	       c.nmounts == 3,
	   "mounts from two matching sections all count, no conflict");
	ok(load_for("gpus = 8\n[nodes gpu1]\ngpus = 2\n", NULL, &w, &c, &e) == 0 &&
	       c.expected_gpus == 8,
	   "no node: no section applies");
}

static int load_text(const char *text, struct golden_conf *c, struct golden_err *e)
{
	FILE *f = fopen(path, "w");

	fputs(text, f);
	fclose(f);
	memset(e, 0, sizeof(*e));
	golden_conf_init(c);
	return golden_conf_load(path, false, c, e);
}

int main(void)
{
	struct golden_conf c;
	struct golden_err e;
	int fd = mkstemp(path);
	int dl;
	unsigned ph;
	const struct golden_check chk = {"gpu-ecc", GOLDEN_CHK_GPU, NULL, 2000, 7};

	close(fd);
	ok(load_text("# comment\n\ngpus = 8\nib_rate=400  # inline\nlink_layer = InfiniBand\n"
	             "efa_count = 0\ngpudirect = required\nmount = /lustre\nmount = /home\n"
	             "budget_ms = 3000\nxid_scope = node-gpus\ntopology = /fx/%n/topo.xml\n"
	             "sysroot = /fx/%n/root\nstate_dir = /var/lib/g/%n\nlog = /var/log/g.jsonl\n"
	             "scontrol = /opt/slurm/bin/scontrol\nxid.31 = drain\nxid.13 = ignore\n"
	             "check.gpu-ecc.deadline_ms = 500\ncheck.gpu-ecc.phases = epilog\n"
	             "check.mounts = off\n",
	             &c, &e) == 0,
	   "full config loads: %s", e.msg);
	is_int(c.expected_gpus, 8, "gpus");
	ok(c.expected_rate_gbps == 400, "ib_rate");
	is(c.expected_link_layer, "InfiniBand", "link_layer");
	is_int(c.expected_efa, 0, "efa_count");
	ok(c.require_gdr, "gpudirect");
	is_int(c.nmounts, 2, "two mounts");
	is(c.mounts[1], "/home", "second mount");
	is_int(c.budget_ms, 3000, "budget");
	ok(c.xid_scope_node_gpus, "xid_scope");
	is(c.topology, "/fx/%n/topo.xml", "topology kept as template");
	is(c.scontrol, "/opt/slurm/bin/scontrol", "scontrol path");
	ok(golden_conf_xid(&c, 31) && golden_conf_xid(&c, 31)->action == GOLDEN_ACTION_DRAIN,
	   "xid.31 = drain");
	ok(golden_conf_xid(&c, 13) && golden_conf_xid(&c, 13)->ignore, "xid.13 = ignore");
	ok(!golden_conf_xid(&c, 79), "no override for 79");
	{
		bool on = golden_conf_check(&c, &chk, &dl, &ph);

		ok(on && dl == 500 && ph == GOLDEN_PHASE_EPILOG,
		   "check override: deadline %d, phases %u", dl, ph);
	}
	{
		const struct golden_check m = {"mounts", GOLDEN_CHK_STORAGE, NULL, 3000, 7};

		ok(!golden_conf_check(&c, &m, &dl, &ph), "check.mounts = off disables it");
	}

	golden_conf_init(&c);
	is_int(c.expected_gpus, -1, "default: GPUs from PCI");
	ok(!c.xid_scope_node_gpus, "default xid scope: all");

	ok(load_text("gpus = 8\ngpu = 8\n", &c, &e) < 0, "unknown key");
	ok(strstr(e.msg, ":2: unknown key 'gpu'") && strstr(e.msg, "expected gpus"),
	   "FILE:LINE, key and valid keys: %s", e.msg);
	ok(load_text("gpus = eight\n", &c, &e) < 0 && strstr(e.msg, ":1: gpus = eight: expected"),
	   "bad value: %s", e.msg);
	ok(load_text("\n\nib_rate = 0\n", &c, &e) < 0 && strstr(e.msg, ":3:"), "line number: %s",
	   e.msg);
	ok(load_text("mount = relative\n", &c, &e) < 0 && strstr(e.msg, "absolute path"),
	   "relative mount: %s", e.msg);
	ok(load_text("nccl_tests_dir = /opt/nccl-tests/build\n", &c, &e) == 0 &&
	       !strcmp(c.nccl_tests_dir, "/opt/nccl-tests/build"),
	   "nccl_tests_dir (golden sweep run/locate)");
	ok(load_text("nccl_tests_dir = build\n", &c, &e) < 0 &&
	       strstr(e.msg, "nccl_tests_dir = build: expected an absolute path"),
	   "nccl_tests_dir must be absolute: %s", e.msg);
	ok(load_text("xid.79 = panic\n", &c, &e) < 0 && strstr(e.msg, "drain, drain-reset"),
	   "bad xid policy: %s", e.msg);
	ok(load_text("check.xid.timeout = 5\n", &c, &e) < 0 &&
	       strstr(e.msg, "deadline_ms or phases"),
	   "bad check setting: %s", e.msg);
	ok(load_text("just words\n", &c, &e) < 0 && strstr(e.msg, "expected key = value"),
	   "no '=': %s", e.msg);
	ok(load_text("link_layer = infiniband\n", &c, &e) < 0, "link layer is case-exact");
	/* The prolog's topology discovery runs under this deadline; a slow
	 * node (a large PCIe tree, an emulated VM) needs more than 3 s. */
	is_int(c.discovery_deadline_ms, 3000, "discovery deadline: 3000 ms by default");
	ok(load_text("discovery_deadline_ms = 20000\n", &c, &e) == 0 &&
	       c.discovery_deadline_ms == 20000,
	   "discovery_deadline_ms = 20000: %s", e.msg);
	ok(load_text("discovery_deadline_ms = 50\n", &c, &e) < 0 &&
	       strstr(e.msg, ":1: discovery_deadline_ms = 50: expected 100-600000"),
	   "discovery deadline below 100 ms refused: %s", e.msg);
	/* The first bad line is the error; the lines after it still parse, so
	 * the Slurm-run programs can log the error where the admin wants. */
	ok(load_text("gpus = 8\nlgo = /x\nib_rate = fast\nlog = /var/log/g/%n.jsonl\n", &c, &e) <
	           0 &&
	       strstr(e.msg, ":2: unknown key 'lgo'"),
	   "first bad line reported: %s", e.msg);
	is(c.log_path, "/var/log/g/%n.jsonl", "a line after the bad ones still parsed");
	is_int(c.expected_gpus, 8, "a line before it too");

	memset(&e, 0, sizeof(e));
	golden_conf_init(&c);
	ok(golden_conf_load("/nonexistent/golden.conf", false, &c, &e) < 0 &&
	       strstr(e.msg, "/nonexistent/golden.conf"),
	   "missing file named: %s", e.msg);
	if (geteuid() == 0) {
		load_text("gpus = 1\n", &c, &e);
		chmod(path, 0666);
		memset(&e, 0, sizeof(e));
		ok(golden_conf_load(path, true, &c, &e) < 0 &&
		       strstr(e.msg, "not group/world-writable"),
		   "world-writable config refused: %s", e.msg);
	} else {
		ok(1, "# skip not root");
	}
	node_classes();
	unlink(path);
	return done_testing();
}
