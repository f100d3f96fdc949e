/* lib/health/check_fabric.c: ib-ports, ib-counters, efa, bootstrap, gpudirect
 * against sysroot trees built here and hand-made topologies. */
#include <config.h>

#include <errno.h>
#include <stdarg.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "health/check.h"
#include "health/check_fabric.h"
#include "health/golden_conf.h"
#include "util/strutil.h"
#include "t/unit/tap.h"
#include "topo/topo.h"

static char root[] = "/tmp/golden-test-fabric-XXXXXX";
static char state_dir[4200];
static struct golden_conf conf;
static struct golden_topo *topo;
static struct golden_check_ctx ctx;
static struct golden_check_result r;

static void bail(const char *what)
{
	printf("Bail out! %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Create root/rel (and its parents) holding content; NULL removes it. */
static void put(const char *rel, const char *content)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	if (!content) {
		if (unlink(path) < 0 && errno != ENOENT)
			bail(path);
		return;
	}
	for (const char *p = strchr(rel + 1, '/'); p; p = strchr(p + 1, '/')) {
		snprintf(path, sizeof(path), "%s%.*s", root, (int)(p - rel), rel);
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			bail(path);
	}
	snprintf(path, sizeof(path), "%s%s", root, rel);
	f = fopen(path, "w");
	if (!f)
		bail(path);
	fprintf(f, "%s\n", content);
	fclose(f);
}

static void putf(const char *content, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(const char *content, const char *fmt, ...)
{
	char rel[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	put(rel, content);
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void rm_rf(const char *path)
{
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Remove root/rel and everything below it. */
static void rm_rel(const char *rel)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s%s", root, rel);
	rm_rf(path);
}

/* ---------------------------------------------------------------- fixture */

static void live_port(const char *dev, int port, const char *state, const char *phys,
                      const char *rate, const char *ll)
{
	putf(state, "/sys/class/infiniband/%s/ports/%d/state", dev, port);
	putf(phys, "/sys/class/infiniband/%s/ports/%d/phys_state", dev, port);
	putf(rate, "/sys/class/infiniband/%s/ports/%d/rate", dev, port);
	putf(ll, "/sys/class/infiniband/%s/ports/%d/link_layer", dev, port);
}

static void healthy_port(const char *dev, int port)
{
	live_port(dev, port, "4: ACTIVE", "5: LinkUp", "400 Gb/sec (4X NDR)", "InfiniBand");
}

static void counters(const char *dev, int port, long ld, long se, long ler)
{
	char v[32];

	snprintf(v, sizeof(v), "%ld", ld);
	putf(v, "/sys/class/infiniband/%s/ports/%d/counters/link_downed", dev, port);
	snprintf(v, sizeof(v), "%ld", se);
	putf(v, "/sys/class/infiniband/%s/ports/%d/counters/symbol_error", dev, port);
	snprintf(v, sizeof(v), "%ld", ler);
	putf(v, "/sys/class/infiniband/%s/ports/%d/counters/link_error_recovery", dev, port);
}

static struct golden_nic *add_nic(const char *name, enum golden_nic_kind kind,
                                  enum golden_nic_class cls, int nports)
{
	struct golden_nic *n = &topo->nics[topo->nnics++];

	memset(n, 0, sizeof(*n));
	golden_strlcpy(n->name, name, sizeof(n->name));
	n->kind = kind;
	n->cls = cls;
	n->numa = -1;
	n->nports = nports;
	for (int p = 0; p < nports; p++) {
		/* The cached state says healthy: the checks must read sysfs. */
		n->ports[p].num = p + 1;
		n->ports[p].state = 4;
		n->ports[p].phys_state = 5;
		n->ports[p].rate_gbps = 400;
		golden_strlcpy(n->ports[p].link_layer, "InfiniBand",
		               sizeof(n->ports[p].link_layer));
	}
	return n;
}

/* 4 compute IB HCAs (mlx5_0..3) at 400, one storage HCA (mlx5_4) at 200,
 * 8 GPUs, bootstrap eno1 with an IPv4 route, nvidia_peermem loaded. */
static void reset_fixture(void)
{
	char name[16];

	rm_rf(root);
	if (mkdir(root, 0700) < 0)
		bail(root);
	memset(topo, 0, sizeof(*topo));
	topo->ngpus = 8;
	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "mlx5_%d", i);
		add_nic(name, GOLDEN_NIC_IB, GOLDEN_CLASS_COMPUTE, 1);
		healthy_port(name, 1);
		counters(name, 1, 1, 10, 0);
	}
	add_nic("mlx5_4", GOLDEN_NIC_IB, GOLDEN_CLASS_STORAGE, 1);
	live_port("mlx5_4", 1, "4: ACTIVE", "5: LinkUp", "200 Gb/sec (4X HDR)", "InfiniBand");
	counters("mlx5_4", 1, 0, 0, 0);
	golden_strlcpy(add_nic("eno1", GOLDEN_NIC_ETH, GOLDEN_CLASS_MGMT, 0)->operstate, "up",
	               sizeof(topo->nics[0].operstate));
	golden_strlcpy(topo->bootstrap_if, "eno1", sizeof(topo->bootstrap_if));
	put("/sys/class/net/eno1/operstate", "up");
	put("/proc/net/route",
	    "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
	    "eno1\t00000000\t0102000A\t0003\t0\t0\t0\t00000000\t0\t0\t0\n"
	    "eno1\t0002000A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0");
	put("/proc/net/if_inet6", "00000000000000000000000000000001 01 80 10 80       lo");
	put("/sys/module/nvidia_peermem/version", "550.54.15");

	golden_conf_init(&conf);
	snprintf(state_dir, sizeof(state_dir), "%s/var/lib/golden/node1", root);
	memset(&ctx, 0, sizeof(ctx));
	ctx.conf = &conf;
	ctx.topo = topo;
	ctx.sysroot = root;
	ctx.node = "node1";
	ctx.job_id = "";
	ctx.phase = GOLDEN_PHASE_MANUAL;
	ctx.state_dir = state_dir;
}

static const struct golden_check *find(const char *name)
{
	for (const struct golden_check *c = golden_fabric_checks; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

static void run(const char *name)
{
	const struct golden_check *c = find(name);

	memset(&r, 0, sizeof(r));
	if (!c)
		bail(name);
	c->fn(&ctx, &r);
}

#define expect(st, act, want_code, what)                                                           \
	do {                                                                                       \
		is(golden_check_status_name(r.status), golden_check_status_name(st), "%s: status", \
		   what);                                                                          \
		is(golden_check_action_name(r.action), golden_check_action_name(act),              \
		   "%s: action", what);                                                            \
		is(r.code, want_code, "%s: code", what);                                           \
		if (r.status != (st))                                                              \
			diag("detail: %s", r.detail);                                              \
	} while (0)

/* ---------------------------------------------------------------- tests */

static void test_table(void)
{
	static const char *const names[] = {"ib-ports", "ib-counters", "efa", "bootstrap",
	                                    "gpudirect"};
	int n = 0;

	for (const struct golden_check *c = golden_fabric_checks; c->name; c++) {
		n++;
		ok(c->cls == GOLDEN_CHK_FABRIC && c->deadline_ms == 1000 &&
		       c->phases == (GOLDEN_PHASE_PROLOG | GOLDEN_PHASE_EPILOG |
		                     GOLDEN_PHASE_MANUAL | GOLDEN_PHASE_HEALTH_ANY) &&
		       c->fn,
		   "%s: fabric class, 1000 ms, prolog|epilog|manual|healthcheck(-busy)", c->name);
	}
	is_int(n, 5, "five fabric checks");
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		ok(find(names[i]) != NULL, "check %s exists", names[i]);
}

static void test_ib_ports(void)
{
	reset_fixture();
	run("ib-ports");
	expect(GOLDEN_ST_OK, GOLDEN_ACTION_NONE, "", "all healthy");
	ok(strstr(r.detail, "4 compute port") != NULL, "ok detail counts ports: %s", r.detail);

	/* One port down now, though the cached topology says ACTIVE. */
	live_port("mlx5_2", 1, "1: DOWN", "3: Disabled", "400 Gb/sec (4X NDR)", "InfiniBand");
	run("ib-ports");
	expect(GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN, "mlx5_2 p1 down", "port down");
	ok(strstr(r.detail, "1: DOWN") && strstr(r.detail, "3: Disabled"),
	   "detail has both state strings: %s", r.detail);

	/* ACTIVE but not LinkUp (phys_state Polling) is down too. */
	reset_fixture();
	live_port("mlx5_1", 1, "4: ACTIVE", "2: Polling", "400 Gb/sec (4X NDR)", "InfiniBand");
	run("ib-ports");
	expect(GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN, "mlx5_1 p1 down", "phys_state Polling");

	/* Port directory gone (device reset, driver unbound). */
	reset_fixture();
	rm_rel("/sys/class/infiniband/mlx5_3");
	run("ib-ports");
	expect(GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN, "mlx5_3 p1 down", "port vanished");
	ok(strstr(r.detail, "gone") != NULL, "detail says gone: %s", r.detail);

	/* One degraded rail among 400s, no ib_rate configured. */
	reset_fixture();
	live_port("mlx5_1", 1, "4: ACTIVE", "5: LinkUp", "200 Gb/sec (4X HDR)", "InfiniBand");
	run("ib-ports");
	expect(GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN, "mlx5_1 p1 200G<400G", "degraded rail");

	/* Expected rate from golden.conf: every 400 port is short of 800. */
	reset_fixture();
	conf.expected_rate_gbps = 800;
	run("ib-ports");
	expect(GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN, "mlx5_0 p1 400G<800G", "ib_rate = 800");
	ok(strstr(r.detail, "mlx5_3") != NULL, "detail lists every short port: %s", r.detail);
	conf.expected_rate_gbps = 400;
	run("ib-ports");
	expect(GOLDEN_ST_OK, GOLDEN_ACTION_NONE, "", "ib_rate = 400");
	/* Configured rate wins over the best port: all at 200, ib_rate 200. */
	for (int i = 0; i < 4; i++) {
		char dev[16];

		snprintf(dev, sizeof(dev), "mlx5_%d", i);
		live_port(dev, 1, "4: ACTIVE", "5: LinkUp", "200 Gb/sec (4X HDR)", "InfiniBand");
	}
	conf.expected_rate_gbps = 200;
	run("ib-ports");
	expect(GOLDEN_ST_OK, GOLDEN_ACTION_NONE, "", "all at 200, ib_rate = 200");
	conf.expected_rate_gbps = 0;
	run("ib-ports");
	expect(GOLDEN_ST_OK, GOLDEN_ACTION_NONE, "", "all at 200, no ib_rate (uniform)");

	/* Storage HCA down: a warning, never a drain. Its slower rate (200)
	 * never counted against the compute ports either. */
	reset_fixture();
	live_port("mlx5_4", 1, "1: DOWN", "3: Disabled", "200 Gb/sec (4X HDR)", "InfiniBand");
	run("ib-ports");
	expect(GOLDEN_ST_WARN, GOLDEN_ACTION_NONE, "mlx5_4 p1 down", "storage port down");

	/* Storage down and compute down: the drain wins, the warn is in the detail. */
	live_port("mlx5_0", 1, "1: DOWN", "2: Polling", "400 Gb/sec (4X NDR)", "InfiniBand");
	run("ib-ports");
	expect(GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN, "mlx5_0 p1 down", "compute + storage down");
	ok(strstr(r.detail, "mlx5_4") != NULL, "detail mentions the storage warning: %s", r.detail);

	/* Link layer mismatch. */
	reset_fixture();
	golden_strlcpy(conf.expected_link_layer, "InfiniBand", sizeof(conf.expected_link_layer));
	live_port("mlx5_3", 1, "4: ACTIVE", "5: LinkUp", "400 Gb/sec (4X NDR)", "Ethernet");
	run("ib-ports");
	expect(GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN, "mlx5_3 p1 linklayer Ethernet",
	       "link layer mismatch");
	conf.expected_link_layer[0] = '\0';
	run("ib-ports");
	expect(GOLDEN_ST_OK, GOLDEN_ACTION_NONE, "", "link layer unchecked when unset");

	/* RoCE compute ports are RDMA ports too. */
	reset_fixture();
	topo->nics[0].kind = GOLDEN_NIC_ROCE;
	live_port("mlx5_0", 1, "1: DOWN", "3: Disabled", "400 Gb/sec (4X NDR)", "Ethernet");
	run("ib-ports");
	expect(GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN, "mlx5_0 p1 down", "RoCE port down");

	ctx.topo = NULL;
	run("ib-ports");
	expect(GOLDEN_ST_OK, GOLDEN_ACTION_NONE, "", "no topology");
	is(r.detail, "no topology", "no topology detail");
}

static void test_ib_counters(void)
{
	char path[4300];
	struct stat st;

	reset_fixture();
	run("ib-counters");
	expect(GOLDEN_ST_OK, GOLDEN_ACTION_NONE, "", "first run");
	ok(strstr(r.detail, "first run") != NULL, "first run detail: %s", r.detail);
	snprintf(path, sizeof(path), "%s/%s", state_dir, GOLDEN_IB_COUNTERS_STATE);
	ok(stat(path, &st) == 0, "state written to %s", path);
	is_int(st.st_mode & 07777, 0600, "state file mode 0600");
	ok(stat(state_dir, &st) == 0 && (st.st_mode & 07777) == 0700, "state dir created 0700");

	run("ib-counters");
	expect(GOLDEN_ST_OK, GOLDEN_ACTION_NONE, "", "second run, unchanged");

	counters("mlx5_3", 1, 3, 10, 0);
	run("ib-counters");
	expect(GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN, "mlx5_3 p1 link_downed+2", "link_downed +2");
	ok(strstr(r.detail, "1 -> 3") != NULL, "detail has old and new: %s", r.detail);

	/* The state is "the last run": no new flap, no failure. */
	run("ib-counters");
	expect(GOLDEN_ST_OK, GOLDEN_ACTION_NONE, "", "after the flap, unchanged");

	counters("mlx5_0", 1, 1, 15, 0);
	run("ib-counters");
	expect(GOLDEN_ST_WARN, GOLDEN_ACTION_NONE, "mlx5_0 p1 symbol_error+5", "symbol_error +5");

	counters("mlx5_1", 1, 1, 10, 1);
	run("ib-counters");
	expect(GOLDEN_ST_WARN, GOLDEN_ACTION_NONE, "mlx5_1 p1 link_error_recovery+1",
	       "link_error_recovery +1");

	/* Both at once: the drain wins. */
	counters("mlx5_1", 1, 2, 10, 2);
	run("ib-counters");
	expect(GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN, "mlx5_1 p1 link_downed+1", "downed + recovery");

	/* Counters went back to 0 (reboot, perfquery -R): a new baseline. */
	counters("mlx5_0", 1, 0, 0, 0);
	run("ib-counters");
	expect(GOLDEN_ST_OK, GOLDEN_ACTION_NONE, "", "counter reset");
	ok(strstr(r.detail, "1 reset") != NULL, "reset counted: %s", r.detail);

	/* The storage HCA's counters are not this check's business. */
	counters("mlx5_4", 1, 9, 9, 9);
	run("ib-counters");
	expect(GOLDEN_ST_OK, GOLDEN_ACTION_NONE, "", "storage HCA counters ignored");

	/* A port without counters is skipped. */
	putf(NULL, "/sys/class/infiniband/%s/ports/1/counters/link_downed", "mlx5_2");
	run("ib-counters");
	expect(GOLDEN_ST_OK, GOLDEN_ACTION_NONE, "", "missing counters");
	ok(strstr(r.detail, "1 without counters") != NULL, "skip counted: %s", r.detail);

	/* A corrupt state file: start over instead of failing. */
	put(path + strlen(root), "{not json");
	run("ib-counters");
	expect(GOLDEN_ST_OK, GOLDEN_ACTION_NONE, "", "corrupt state");
	ok(strstr(r.detail, "first run") != NULL, "corrupt state is a new baseline: %s", r.detail);
	ok(stat(path, &st) == 0 && (st.st_mode & 07777) == 0600, "rewritten 0600");

	/* Values of the wrong type are unknown, never a counter of 0: mlx5_3
	 * has link_downed 3 and symbol_error 10 (json-c reads "abc" and null
	 * as 0, which made this a false drain). */
	run("ib-counters");
	put(path + strlen(root), "{\"version\":1,\"ports\":{\"mlx5_3/1\":{\"link_downed\":\"abc\","
	                         "\"symbol_error\":null,\"link_error_recovery\":-4},"
	                         "\"mlx5_0/1\":[1],\"mlx5_1/1\":null}}");
	run("ib-counters");
	expect(GOLDEN_ST_OK, GOLDEN_ACTION_NONE, "", "garbage counter values");
	put(path + strlen(root), "{\"ports\":\"x\"}");
	run("ib-counters");
	expect(GOLDEN_ST_OK, GOLDEN_ACTION_NONE, "", "ports of the wrong type");
	ok(strstr(r.detail, "first run") != NULL, "... is a new baseline: %s", r.detail);
	put(path + strlen(root), "[1,2]");
	run("ib-counters");
	expect(GOLDEN_ST_OK, GOLDEN_ACTION_NONE, "", "a state that is not an object");

	/* A state_dir others may write to is refused, not trusted. */
	chmod(state_dir, 0777);
	run("ib-counters");
	expect(GOLDEN_ST_WARN, GOLDEN_ACTION_NONE, "ib-counters nostate",
	       "world-writable state_dir");
	ok(strstr(r.detail, "mode 0777") != NULL, "... saying why: %s", r.detail);
	chmod(state_dir, 0700);

	ctx.state_dir = NULL;
	run("ib-counters");
	expect(GOLDEN_ST_OK, GOLDEN_ACTION_NONE, "", "no state_dir");

	/* State dir that cannot be created: a warning. */
	ctx.state_dir = "/proc/golden-no-such-dir/x";
	run("ib-counters");
	expect(GOLDEN_ST_WARN, GOLDEN_ACTION_NONE, "ib-counters nostate", "unwritable state_dir");

	ctx.state_dir = state_dir;
	ctx.topo = NULL;
	run("ib-counters");
	expect(GOLDEN_ST_OK, GOLDEN_ACTION_NONE, "", "no topology");
}

static void efa_dev(const char *name)
{
	putf("0x1d0f", "/sys/class/infiniband/%s/device/vendor", name);
	live_port(name, 1, "4: ACTIVE", "5: LinkUp", "100 Gb/sec (4X EDR)", "Unspecified");
}

static void test_efa(void)
{
	reset_fixture();
	run("efa");
	expect(GOLDEN_ST_OK, GOLDEN_ACTION_NONE, "", "efa_count unset");

	/* The Mellanox HCAs of the fixture have no device/vendor 0x1d0f. */
	putf("0x15b3", "/sys/class/infiniband/%s/device/vendor", "mlx5_0");
	efa_dev("rdmap16s27");
	efa_dev("rdmap32s27");
	add_nic("rdmap16s27", GOLDEN_NIC_EFA, GOLDEN_CLASS_COMPUTE, 1);
	add_nic("rdmap32s27", GOLDEN_NIC_EFA, GOLDEN_CLASS_COMPUTE, 1);
	conf.expected_efa = 2;
	run("efa");
	expect(GOLDEN_ST_OK, GOLDEN_ACTION_NONE, "", "2 of 2");
	conf.expected_efa = 3;
	run("efa");
	expect(GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN, "efa 2/3", "2 of 3");
	conf.expected_efa = 1;
	run("efa");
	expect(GOLDEN_ST_WARN, GOLDEN_ACTION_NONE, "efa 2/1", "more than configured");

	/* One adapter gone since discovery: the live count is what counts. */
	conf.expected_efa = 2;
	rm_rel("/sys/class/infiniband/rdmap32s27");
	run("efa");
	expect(GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN, "efa 1/2", "adapter lost since discovery");

	/* No /sys/class/infiniband at all (driver not loaded). */
	rm_rel("/sys/class/infiniband");
	conf.expected_efa = 32;
	run("efa");
	expect(GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN, "efa 0/32", "no RDMA class at all");
	conf.expected_efa = 0;
	run("efa");
	expect(GOLDEN_ST_OK, GOLDEN_ACTION_NONE, "", "efa_count = 0 and none");
}

static void test_bootstrap(void)
{
	reset_fixture();
	run("bootstrap");
	expect(GOLDEN_ST_OK, GOLDEN_ACTION_NONE, "", "eno1 up with a route");

	put("/sys/class/net/eno1/operstate", "down");
	run("bootstrap");
	expect(GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN, "eno1 down", "eno1 down now (cached up)");
	ok(strstr(r.detail, "'down'") != NULL, "detail has the operstate: %s", r.detail);

	put("/sys/class/net/eno1/operstate", "unknown");
	put("/sys/class/net/eno1/carrier", "1");
	run("bootstrap");
	expect(GOLDEN_ST_OK, GOLDEN_ACTION_NONE, "", "operstate unknown with carrier");
	put("/sys/class/net/eno1/carrier", "0");
	run("bootstrap");
	expect(GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN, "eno1 down", "operstate unknown, no carrier");

	put("/sys/class/net/eno1/operstate", NULL);
	run("bootstrap");
	expect(GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN, "eno1 down", "interface gone");

	reset_fixture();
	/* Routes on another interface only; a non-UP route does not count. */
	put("/proc/net/route",
	    "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
	    "eth9\t00000000\t0102000A\t0003\t0\t0\t0\t00000000\t0\t0\t0\n"
	    "eno1\t0002000A\t00000000\t0000\t0\t0\t0\t00FFFFFF\t0\t0\t0");
	run("bootstrap");
	expect(GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN, "eno1 no-addr", "no address");
	/* A link-local IPv6 address (scope 0x20) is no address for NCCL. */
	put("/proc/net/if_inet6", "fe800000000000000a0000fffe000001 02 40 20 80     eno1");
	run("bootstrap");
	expect(GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN, "eno1 no-addr", "link-local IPv6 only");
	put("/proc/net/if_inet6", "fd000000000000000a0000fffe000001 02 40 00 80     eno1");
	run("bootstrap");
	expect(GOLDEN_ST_OK, GOLDEN_ACTION_NONE, "", "global IPv6 address");
	/* A name that is a prefix of another does not match. */
	put("/proc/net/if_inet6", "fd000000000000000a0000fffe000001 02 40 00 80     eno10");
	run("bootstrap");
	expect(GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN, "eno1 no-addr", "eno10 is not eno1");

	reset_fixture();
	topo->bootstrap_if[0] = '\0';
	run("bootstrap");
	expect(GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN, "bootstrap none", "none, with GPUs");
	topo->ngpus = 0;
	run("bootstrap");
	expect(GOLDEN_ST_OK, GOLDEN_ACTION_NONE, "", "none, without GPUs");

	ctx.topo = NULL;
	run("bootstrap");
	expect(GOLDEN_ST_OK, GOLDEN_ACTION_NONE, "", "no topology");
}

static void test_gpudirect(void)
{
	char how[512];

	reset_fixture();
	run("gpudirect");
	expect(GOLDEN_ST_OK, GOLDEN_ACTION_NONE, "", "nvidia_peermem loaded");
	ok(strstr(r.detail, "nvidia_peermem") && strstr(r.detail, "550.54.15"),
	   "detail names the module and version: %s", r.detail);

	put("/sys/module/nvidia_peermem/version", NULL);
	conf.require_gdr = true;
	run("gpudirect");
	expect(GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN, "gdr unavailable", "absent, required");
	conf.require_gdr = false;
	run("gpudirect");
	expect(GOLDEN_ST_WARN, GOLDEN_ACTION_NONE, "gdr unavailable", "absent, optional");

	conf.require_gdr = true;
	put("/sys/kernel/mm/memory_peers/nv_mem/version", "1.3");
	run("gpudirect");
	expect(GOLDEN_ST_OK, GOLDEN_ACTION_NONE, "", "legacy nv_peer_mem (nv_mem)");
	put("/sys/kernel/mm/memory_peers/nv_mem/version", NULL);
	put("/sys/kernel/mm/memory_peers/nv_mem_nc/version", "1.3");
	run("gpudirect");
	expect(GOLDEN_ST_OK, GOLDEN_ACTION_NONE, "", "legacy nv_peer_mem (nv_mem_nc)");
	put("/sys/kernel/mm/memory_peers/nv_mem_nc/version", NULL);

	/* dma-buf: open kernel module and kernel >= 5.12. */
	put("/proc/driver/nvidia/version",
	    "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.15  Release Build  "
	    "(dvs-builder@U16-I3-B03-4-3)  Tue Mar  5 22:16:25 UTC 2024");
	put("/proc/sys/kernel/osrelease", "6.5.0-1018-nvidia");
	run("gpudirect");
	expect(GOLDEN_ST_OK, GOLDEN_ACTION_NONE, "", "dma-buf: open module, kernel 6.5");
	ok(strstr(r.detail, "dma-buf") != NULL, "detail says dma-buf: %s", r.detail);
	put("/proc/sys/kernel/osrelease", "5.4.0-150-generic");
	run("gpudirect");
	expect(GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN, "gdr unavailable", "open module, kernel 5.4");
	put("/proc/sys/kernel/osrelease", "5.12.0");
	run("gpudirect");
	expect(GOLDEN_ST_OK, GOLDEN_ACTION_NONE, "", "open module, kernel 5.12");
	put("/proc/driver/nvidia/version", "NVRM version: NVIDIA UNIX x86_64 Kernel Module  "
	                                   "535.104.05  Sat Aug 19 01:15:15 UTC 2023");
	run("gpudirect");
	expect(GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN, "gdr unavailable", "proprietary module");
	ok(golden_fabric_gdr_available(root, how, sizeof(how)) == 0 && strstr(how, "5.12"),
	   "golden_fabric_gdr_available says why not: %s", how);

	/* Not applicable: no GPUs, or no compute RDMA NIC. */
	topo->ngpus = 0;
	run("gpudirect");
	expect(GOLDEN_ST_OK, GOLDEN_ACTION_NONE, "", "no GPUs");
	topo->ngpus = 8;
	for (int i = 0; i < topo->nnics; i++)
		if (topo->nics[i].cls == GOLDEN_CLASS_COMPUTE)
			topo->nics[i].cls = GOLDEN_CLASS_STORAGE;
	run("gpudirect");
	expect(GOLDEN_ST_OK, GOLDEN_ACTION_NONE, "", "no compute HCAs");

	ctx.topo = NULL;
	run("gpudirect");
	expect(GOLDEN_ST_OK, GOLDEN_ACTION_NONE, "", "no topology");
}

int main(void)
{
	if (!mkdtemp(root))
		bail("mkdtemp");
	topo = calloc(1, sizeof(*topo));
	if (!topo)
		bail("calloc");
	test_table();
	test_ib_ports();
	test_ib_counters();
	test_efa();
	test_bootstrap();
	test_gpudirect();
	rm_rf(root);
	free(topo);
	return done_testing();
}
