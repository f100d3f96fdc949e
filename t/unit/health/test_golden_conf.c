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
	ok(load_text("xid.79 = panic\n", &c, &e) < 0 && strstr(e.msg, "drain, drain-reset"),
	   "bad xid policy: %s", e.msg);
	ok(load_text("check.xid.timeout = 5\n", &c, &e) < 0 &&
	       strstr(e.msg, "deadline_ms or phases"),
	   "bad check setting: %s", e.msg);
	ok(load_text("just words\n", &c, &e) < 0 && strstr(e.msg, "expected key = value"),
	   "no '=': %s", e.msg);
	ok(load_text("link_layer = infiniband\n", &c, &e) < 0, "link layer is case-exact");

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
	unlink(path);
	return done_testing();
}
