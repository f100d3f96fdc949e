/* Fabric health checks: RDMA port state and rate, error counters between
 * runs, EFA device count, the bootstrap interface and GPUDirect RDMA.
 *
 * The topology (ctx->topo) says which devices and ports exist and what role
 * each plays; the state of each is re-read from sysfs under ctx->sysroot,
 * because a port that was ACTIVE at discovery may be down now, and that is
 * exactly what a prolog must catch.
 */
#include <config.h>

#include "health/check_fabric.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "health/check.h"
#include "health/golden_conf.h"
#include "util/jsonget.h"
#include "util/jsonschema.h"
#include "util/statefile.h"
#include "util/strutil.h"
#include "util/sysroot.h"

#define PHASES                                                                                     \
	(GOLDEN_PHASE_PROLOG | GOLDEN_PHASE_EPILOG | GOLDEN_PHASE_MANUAL | GOLDEN_PHASE_HEALTH_ANY)

/* ------------------------------------------------------------ findings */

/* A check may find several problems at once: the code names the first (it
 * becomes the drain reason), the detail lists them all. */
struct findings {
	int n;
	char code[GOLDEN_CODE_LEN];
	char detail[GOLDEN_DETAIL_LEN];
};

static void __attribute__((format(printf, 3, 4)))
note(struct findings *f, const char *code, const char *fmt, ...)
{
	char buf[GOLDEN_DETAIL_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (f->n++ == 0)
		golden_strlcpy(f->code, code, sizeof(f->code));
	else
		golden_strlcat(f->detail, "; ", sizeof(f->detail));
	golden_strlcat(f->detail, buf, sizeof(f->detail));
}

/* Report fails (as a drain) before warns; a fail's detail mentions the
 * warns too. Returns true if anything was reported. */
static bool report(struct golden_check_result *res, const struct findings *fail,
                   const struct findings *warn)
{
	if (fail->n) {
		golden_check_fail(res, GOLDEN_ACTION_DRAIN, fail->code, "%s%s%s", fail->detail,
		                  warn->n ? "; warnings: " : "", warn->n ? warn->detail : "");
		return true;
	}
	if (warn->n) {
		golden_check_warn(res, warn->code, "%s", warn->detail);
		return true;
	}
	return false;
}

static void __attribute__((format(printf, 2, 3)))
ok_detail(struct golden_check_result *res, const char *fmt, ...)
{
	va_list ap;

	if (res->status != GOLDEN_ST_OK)
		return;
	va_start(ap, fmt);
	vsnprintf(res->detail, sizeof(res->detail), fmt, ap);
	va_end(ap);
}

/* ------------------------------------------------------------ helpers */

static bool is_rdma(const struct golden_nic *n)
{
	return n->kind == GOLDEN_NIC_IB || n->kind == GOLDEN_NIC_ROCE;
}

static bool is_compute_rdma(const struct golden_nic *n)
{
	return is_rdma(n) && n->cls == GOLDEN_CLASS_COMPUTE;
}

/* A port as sysfs shows it right now. */
struct live_port {
	bool present;        /* the port directory exists */
	char state[32];      /* "4: ACTIVE" */
	char phys_state[32]; /* "5: LinkUp" */
	char link_layer[16];
	int st, ph;
	double rate_gbps; /* 0 unknown */
};

static void read_attr(const char *root, const char *dev, int port, const char *attr, char *buf,
                      size_t len)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%d/%s", dev, port, attr);
	if (golden_sys_read(root, path, buf, len) <= 0)
		buf[0] = '\0';
}

static void read_live_port(const char *root, const char *dev, int port, struct live_port *lp)
{
	char path[PATH_MAX], rate[64];

	memset(lp, 0, sizeof(*lp));
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%d", dev, port);
	lp->present = golden_sys_exists(root, path);
	read_attr(root, dev, port, "state", lp->state, sizeof(lp->state));
	read_attr(root, dev, port, "phys_state", lp->phys_state, sizeof(lp->phys_state));
	read_attr(root, dev, port, "link_layer", lp->link_layer, sizeof(lp->link_layer));
	read_attr(root, dev, port, "rate", rate, sizeof(rate));
	/* "4: ACTIVE", "5: LinkUp", "400 Gb/sec (4X NDR)" */
	lp->st = isdigit((unsigned char)lp->state[0]) ? atoi(lp->state) : -1;
	lp->ph = isdigit((unsigned char)lp->phys_state[0]) ? atoi(lp->phys_state) : -1;
	lp->rate_gbps = rate[0] ? strtod(rate, NULL) : 0;
}

static bool port_up(const struct live_port *lp)
{
	return lp->present && lp->st == 4 && lp->ph == 5;
}

static const char *or_unreadable(const char *s)
{
	return s[0] ? s : "unreadable";
}

/* ------------------------------------------------------------ ib-ports */

static void note_down(struct findings *f, const char *dev, int port, const struct live_port *lp,
                      const char *role)
{
	char code[GOLDEN_CODE_LEN];

	snprintf(code, sizeof(code), "%s p%d down", dev, port);
	if (!lp->present)
		note(f, code, "%s %s port %d: gone from /sys/class/infiniband", role, dev, port);
	else
		note(f, code,
		     "%s %s port %d: state '%s', phys_state '%s' (want '4: ACTIVE', '5: LinkUp')",
		     role, dev, port, or_unreadable(lp->state), or_unreadable(lp->phys_state));
}

static void check_ib_ports(const struct golden_check_ctx *ctx, struct golden_check_result *res)
{
	const struct golden_topo *t = ctx->topo;
	const struct golden_conf *conf = ctx->conf;
	struct findings fail = {0}, warn = {0};
	struct live_port *live;
	double want;
	int ncompute = 0, nstorage = 0;

	if (!t) {
		ok_detail(res, "no topology");
		return;
	}
	/* One slot per (NIC, port), so the rate baseline sees every port first. */
	live = calloc((size_t)GOLDEN_MAX_NICS * GOLDEN_MAX_PORTS, sizeof(*live));
	if (!live) {
		golden_check_warn(res, "ib-ports nomem", "out of memory");
		return;
	}
	want = conf && conf->expected_rate_gbps > 0 ? conf->expected_rate_gbps : 0;
	for (int i = 0; i < t->nnics && i < GOLDEN_MAX_NICS; i++) {
		const struct golden_nic *n = &t->nics[i];

		if (!is_rdma(n) ||
		    (n->cls != GOLDEN_CLASS_COMPUTE && n->cls != GOLDEN_CLASS_STORAGE))
			continue;
		for (int p = 0; p < n->nports && p < GOLDEN_MAX_PORTS; p++) {
			struct live_port *lp = &live[i * GOLDEN_MAX_PORTS + p];

			read_live_port(ctx->sysroot, n->name, n->ports[p].num, lp);
			/* No ib_rate configured: the best compute port sets the bar,
			 * so one degraded rail among healthy ones stands out. */
			if (n->cls == GOLDEN_CLASS_COMPUTE &&
			    !(conf && conf->expected_rate_gbps > 0) && port_up(lp) &&
			    lp->rate_gbps > want)
				want = lp->rate_gbps;
		}
	}
	for (int i = 0; i < t->nnics && i < GOLDEN_MAX_NICS; i++) {
		const struct golden_nic *n = &t->nics[i];

		if (!is_rdma(n) ||
		    (n->cls != GOLDEN_CLASS_COMPUTE && n->cls != GOLDEN_CLASS_STORAGE))
			continue;
		for (int p = 0; p < n->nports && p < GOLDEN_MAX_PORTS; p++) {
			const struct live_port *lp = &live[i * GOLDEN_MAX_PORTS + p];
			int num = n->ports[p].num;
			char code[GOLDEN_CODE_LEN];

			if (n->cls == GOLDEN_CLASS_STORAGE) {
				/* Storage rails are the storage checks' business: a
				 * down one is worth a warning, never a drain here. */
				nstorage++;
				if (!port_up(lp))
					note_down(&warn, n->name, num, lp, "storage HCA");
				continue;
			}
			ncompute++;
			if (!port_up(lp)) {
				note_down(&fail, n->name, num, lp, "compute HCA");
				continue;
			}
			/* Half a step of slack: sysfs rates are exact ("400", "53.125"). */
			if (want > 0 && lp->rate_gbps > 0 && lp->rate_gbps + 0.5 < want) {
				snprintf(code, sizeof(code), "%s p%d %gG<%gG", n->name, num,
				         lp->rate_gbps, want);
				note(&fail, code,
				     "compute HCA %s port %d: rate %g Gb/s, expected %g Gb/s (%s)",
				     n->name, num, lp->rate_gbps, want,
				     conf && conf->expected_rate_gbps > 0 ? "ib_rate"
				                                          : "best compute port");
			}
			if (conf && conf->expected_link_layer[0] &&
			    strcmp(lp->link_layer, conf->expected_link_layer)) {
				snprintf(code, sizeof(code), "%s p%d linklayer %s", n->name, num,
				         or_unreadable(lp->link_layer));
				note(&fail, code,
				     "compute HCA %s port %d: link_layer '%s', expected '%s'",
				     n->name, num, or_unreadable(lp->link_layer),
				     conf->expected_link_layer);
			}
		}
	}
	free(live);
	if (!report(res, &fail, &warn)) {
		if (ncompute)
			ok_detail(
			    res,
			    "%d compute port(s) ACTIVE/LinkUp at >= %g Gb/s, %d storage port(s)",
			    ncompute, want, nstorage);
		else
			ok_detail(res, "no compute RDMA ports, %d storage port(s)", nstorage);
	}
}

/* ------------------------------------------------------------ ib-counters */

static const char *const counter_names[] = {"link_downed", "symbol_error", "link_error_recovery"};
#define NCOUNTERS       (sizeof(counter_names) / sizeof(counter_names[0]))
#define STATE_MAX_BYTES 65536 /* what save_state writes at most */

static int read_counters(const char *root, const char *dev, int port,
                         unsigned long long v[NCOUNTERS])
{
	for (size_t c = 0; c < NCOUNTERS; c++) {
		char path[PATH_MAX], buf[64], *end;

		snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%d/counters/%s", dev,
		         port, counter_names[c]);
		if (golden_sys_read(root, path, buf, sizeof(buf)) <= 0)
			return -1;
		errno = 0;
		v[c] = strtoull(buf, &end, 0);
		if (errno || end == buf)
			return -1;
	}
	return 0;
}

static int save_state(const char *dir, json_object *root)
{
	char path[PATH_MAX], text[65536];
	const char *s = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN);
	int n = snprintf(text, sizeof(text), "%s\n", s);

	if (n < 0 || (size_t)n >= sizeof(text) ||
	    snprintf(path, sizeof(path), "%s/%s", dir, GOLDEN_IB_COUNTERS_STATE) >=
	        (int)sizeof(path))
		return -1;
	return golden_write_atomic(path, text, (size_t)n);
}

/* The previous run's counters. The file is golden's, but whatever it
 * holds: unreadable, not an object, or "ports" not an object is no
 * baseline (a first run), never a failure. */
static json_object *load_state(const char *dir)
{
	char path[PATH_MAX], *text;
	json_object *root;

	if (snprintf(path, sizeof(path), "%s/%s", dir, GOLDEN_IB_COUNTERS_STATE) >=
	    (int)sizeof(path))
		return NULL;
	text = golden_read_trusted(path, STATE_MAX_BYTES, NULL);
	root = golden_json_parse_object(text);
	free(text);
	if (root && (!golden_json_member(root, "ports", json_type_object) ||
	             !golden_json_schema_ok(root, "golden-ib-counters", NULL, 0))) {
		json_object_put(root);
		root = NULL;
	}
	return root;
}

/* Prolog and epilog of different jobs may run at once on a shared node:
 * serialise read-compare-write so that no increase is counted twice or lost. */
static int lock_state(const char *dir)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%s.lock", dir, GOLDEN_IB_COUNTERS_STATE) >=
	    (int)sizeof(path))
		return -1;
	return golden_lock_file(path);
}

static void check_ib_counters(const struct golden_check_ctx *ctx, struct golden_check_result *res)
{
	const struct golden_topo *t = ctx->topo;
	const char *dir = ctx->state_dir;
	struct findings fail = {0}, warn = {0};
	json_object *prev = NULL, *prev_ports = NULL, *root, *ports;
	struct golden_err why = {{0}};
	int nports = 0, nskipped = 0, nnew = 0, nreset = 0, lockfd;
	bool first;

	if (!t) {
		ok_detail(res, "no topology");
		return;
	}
	if (!dir || !*dir) {
		ok_detail(res, "no state_dir: counters not compared");
		return;
	}
	if (golden_state_dir(dir, 0700, &why) < 0) {
		golden_check_warn(res, "ib-counters nostate", "state_dir %s", why.msg);
		return;
	}
	if ((lockfd = lock_state(dir)) < 0) {
		golden_check_warn(res, "ib-counters nostate", "state_dir %s: lock: %s", dir,
		                  strerror(errno));
		return;
	}
	prev = load_state(dir);
	first = !prev;
	if (prev)
		prev_ports = golden_json_member(prev, "ports", json_type_object);
	root = json_object_new_object();
	ports = json_object_new_object();
	golden_json_stamp(root, "golden-ib-counters");
	json_object_object_add(root, "version", json_object_new_int(1));
	json_object_object_add(root, "updated", json_object_new_int64((int64_t)time(NULL)));
	json_object_object_add(root, "ports", ports);

	for (int i = 0; i < t->nnics && i < GOLDEN_MAX_NICS; i++) {
		const struct golden_nic *n = &t->nics[i];

		if (!is_compute_rdma(n))
			continue;
		for (int p = 0; p < n->nports && p < GOLDEN_MAX_PORTS; p++) {
			unsigned long long v[NCOUNTERS];
			int num = n->ports[p].num;
			char key[GOLDEN_NAME_LEN + 16];
			json_object *entry, *old = NULL;
			bool reset = false;

			if (read_counters(ctx->sysroot, n->name, num, v) < 0) {
				nskipped++; /* no counters (driver without them): nothing to compare
				             */
				continue;
			}
			nports++;
			snprintf(key, sizeof(key), "%s/%d", n->name, num);
			entry = json_object_new_object();
			for (size_t c = 0; c < NCOUNTERS; c++)
				json_object_object_add(entry, counter_names[c],
				                       json_object_new_int64((int64_t)v[c]));
			json_object_object_add(ports, key, entry);
			if (!(old = golden_json_member(prev_ports, key, json_type_object))) {
				nnew++;
				continue;
			}
			for (size_t c = 0; c < NCOUNTERS; c++) {
				long long saved;
				unsigned long long was;
				char code[GOLDEN_CODE_LEN];

				/* A counter the file does not hold as a number is
				 * unknown: this run is its baseline, never a drain. */
				if (!golden_json_int_range(old, counter_names[c], 0, LLONG_MAX,
				                           &saved))
					continue;
				was = (unsigned long long)saved;
				if (v[c] < was) {
					/* Counters restart at a reboot, driver reload or
					 * perfquery -R: take the new value as the baseline. */
					reset = true;
					continue;
				}
				if (v[c] == was)
					continue;
				snprintf(code, sizeof(code), "%s p%d %s+%llu", n->name, num,
				         counter_names[c], v[c] - was);
				/* A link that went down under a job broke it; symbol
				 * errors and recoveries are worth watching, not a drain. */
				note(c == 0 ? &fail : &warn, code,
				     "%s port %d: %s %llu -> %llu since the last run", n->name, num,
				     counter_names[c], was, v[c]);
			}
			if (reset)
				nreset++;
		}
	}
	/* A dry run compares but keeps the baseline: the next run sees the same increase. */
	if (!ctx->dry_run && save_state(dir, root) < 0 && !fail.n)
		note(&warn, "ib-counters nosave", "cannot save %s/%s: %s", dir,
		     GOLDEN_IB_COUNTERS_STATE, strerror(errno));
	json_object_put(root);
	if (prev)
		json_object_put(prev);
	close(lockfd);
	if (!report(res, &fail, &warn)) {
		if (first)
			ok_detail(
			    res, "first run: baseline recorded for %d port(s), %d without counters",
			    nports, nskipped);
		else
			ok_detail(res,
			          "%d port(s) unchanged since the last run (%d new, %d reset), %d "
			          "without counters",
			          nports, nnew, nreset, nskipped);
	}
}

/* ------------------------------------------------------------ efa */

/* EFA devices by PCI vendor (Amazon 0x1d0f), as sysfs shows them now.
 * Returns the count, or -1 if /sys/class/infiniband cannot be read. */
static int count_efa_live(const char *root)
{
	DIR *d = golden_sys_opendir(root, "/sys/class/infiniband");
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		char path[PATH_MAX];
		long vendor;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device/vendor", de->d_name);
		if (golden_sys_read_long(root, path, &vendor) == 0 && vendor == 0x1d0f)
			n++;
	}
	closedir(d);
	return n;
}

static void check_efa(const struct golden_check_ctx *ctx, struct golden_check_result *res)
{
	const struct golden_conf *conf = ctx->conf;
	int want, live, topo_n = -1, have;
	char code[GOLDEN_CODE_LEN];

	if (!conf || conf->expected_efa < 0) {
		ok_detail(res, "efa_count not set: not checked");
		return;
	}
	want = conf->expected_efa;
	if (ctx->topo) {
		topo_n = 0;
		for (int i = 0; i < ctx->topo->nnics; i++)
			if (ctx->topo->nics[i].kind == GOLDEN_NIC_EFA)
				topo_n++;
	}
	/* What sysfs shows now wins: an adapter lost since discovery must be
	 * caught. No /sys/class/infiniband at all (efa driver not loaded)
	 * means none. */
	live = count_efa_live(ctx->sysroot);
	have = live >= 0 ? live : 0;
	snprintf(code, sizeof(code), "efa %d/%d", have, want);
	if (have < want)
		golden_check_fail(res, GOLDEN_ACTION_DRAIN, code,
		                  "%d EFA device(s) in /sys/class/infiniband, efa_count = %d "
		                  "(topology saw %d)",
		                  have, want, topo_n);
	else if (have > want)
		/* More than configured is a configuration mismatch, not a fault. */
		golden_check_warn(res, code, "%d EFA device(s), more than efa_count = %d", have,
		                  want);
	else
		ok_detail(res, "%d EFA device(s)", have);
}

/* ------------------------------------------------------------ bootstrap */

static bool ifname_match(const char *a, const char *b)
{
	return !strcmp(a, b);
}

/* An IPv4 route (RTF_UP) through the interface, or a global-scope IPv6
 * address on it: the same notion of "has an address" as discovery. */
static bool iface_has_addr(const char *root, const char *ifname)
{
	char path[PATH_MAX], line[512];
	FILE *f;
	bool found = false;

	if (golden_sys_path(root, "/proc/net/route", path, sizeof(path)) == 0 &&
	    (f = fopen(path, "re"))) {
		while (!found && fgets(line, sizeof(line), f)) {
			char name[64], dest[16];
			unsigned flags;

			if (sscanf(line, "%63s %15s %*s %x", name, dest, &flags) == 3 &&
			    (flags & 1) && ifname_match(name, ifname))
				found = true;
		}
		fclose(f);
	}
	if (!found && golden_sys_path(root, "/proc/net/if_inet6", path, sizeof(path)) == 0 &&
	    (f = fopen(path, "re"))) {
		while (!found && fgets(line, sizeof(line), f)) {
			char addr[64], name[64];
			unsigned idx, plen, scope, flags;

			if (sscanf(line, "%63s %x %x %x %x %63s", addr, &idx, &plen, &scope, &flags,
			           name) == 6 &&
			    scope == 0 && ifname_match(name, ifname))
				found = true;
		}
		fclose(f);
	}
	return found;
}

static void check_bootstrap(const struct golden_check_ctx *ctx, struct golden_check_result *res)
{
	const struct golden_topo *t = ctx->topo;
	char path[PATH_MAX], oper[32], carrier[8], code[GOLDEN_CODE_LEN];
	const char *ifname;

	if (!t) {
		ok_detail(res, "no topology");
		return;
	}
	ifname = t->bootstrap_if;
	if (!ifname[0]) {
		/* NCCL needs a socket interface to bootstrap even on IB. */
		if (t->ngpus > 0)
			golden_check_fail(
			    res, GOLDEN_ACTION_DRAIN, "bootstrap none",
			    "no usable bootstrap interface (NCCL_SOCKET_IFNAME) found "
			    "on a node with %d GPU(s)",
			    t->ngpus);
		else
			ok_detail(res, "no bootstrap interface, no GPUs");
		return;
	}
	snprintf(path, sizeof(path), "/sys/class/net/%s/operstate", ifname);
	if (golden_sys_read(ctx->sysroot, path, oper, sizeof(oper)) <= 0) {
		snprintf(code, sizeof(code), "%.48s down", ifname);
		golden_check_fail(res, GOLDEN_ACTION_DRAIN, code,
		                  "bootstrap interface %s: no %s (interface gone?)", ifname, path);
		return;
	}
	if (strcmp(oper, "up")) {
		/* Drivers without operstate support report "unknown" even when
		 * the link works (kernel Documentation/networking/operstates.rst);
		 * accept that when the carrier is there. */
		snprintf(path, sizeof(path), "/sys/class/net/%s/carrier", ifname);
		if (strcmp(oper, "unknown") ||
		    golden_sys_read(ctx->sysroot, path, carrier, sizeof(carrier)) <= 0 ||
		    strcmp(carrier, "1")) {
			snprintf(code, sizeof(code), "%.48s down", ifname);
			golden_check_fail(res, GOLDEN_ACTION_DRAIN, code,
			                  "bootstrap interface %s: operstate '%s', want 'up'",
			                  ifname, oper);
			return;
		}
	}
	if (!iface_has_addr(ctx->sysroot, ifname)) {
		snprintf(code, sizeof(code), "%.48s no-addr", ifname);
		golden_check_fail(
		    res, GOLDEN_ACTION_DRAIN, code,
		    "bootstrap interface %s is %s but has no IPv4 route and no global "
		    "IPv6 address",
		    ifname, oper);
		return;
	}
	ok_detail(res, "bootstrap interface %s %s with an address", ifname, oper);
}

/* ------------------------------------------------------------ gpudirect */

/* The peer-memory clients NCCL probes for GDR (net_ib/gdr.cc: access() on
 * these version files): nvidia_peermem from the driver, the legacy
 * out-of-tree nv_peer_mem (nv_mem, nv_mem_nc). efa_nv_peermem is AWS's EFA
 * counterpart (amzn-drivers kernel/linux/efa_nv_peermem). */
static const char *const peermem_files[] = {
    "/sys/module/nvidia_peermem/version",
    "/sys/kernel/mm/memory_peers/nv_mem/version",
    "/sys/kernel/mm/memory_peers/nv_mem_nc/version",
    "/sys/module/efa_nv_peermem/version",
};

int golden_fabric_gdr_available(const char *root, char *how, size_t len)
{
	char buf[256];
	int major = 0, minor = 0;
	bool open_km;

	for (size_t i = 0; i < sizeof(peermem_files) / sizeof(peermem_files[0]); i++) {
		if (!golden_sys_exists(root, peermem_files[i]))
			continue;
		if (golden_sys_read(root, peermem_files[i], buf, sizeof(buf)) <= 0)
			buf[0] = '\0';
		snprintf(how, len, "%s%s%s", peermem_files[i], buf[0] ? " " : "", buf);
		return 1;
	}
	/* DMA-BUF, the path NVIDIA now recommends over peermem, needs
	 *  - the open flavour of the NVIDIA kernel modules: the driver README,
	 *    chapter "Open Linux Kernel Modules" (kernel_open.html), lists "DMABUF
	 *    support for CUDA allocations" among the features that only work
	 *    with it. The loaded flavour shows in /proc/driver/nvidia/version:
	 *    "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64 ..." vs
	 *    "NVIDIA UNIX x86_64 Kernel Module ..." for the proprietary one;
	 *  - Linux >= 5.12, which added the RDMA dma-buf import (torvalds/linux
	 *    bfe0cc6, the same test aws-ofi-nccl makes in nccl_ofi_dmabuf).
	 * NCCL confirms at init with ibv_reg_dmabuf_mr; from sysfs this is the
	 * best available signal. */
	open_km = golden_sys_read(root, "/proc/driver/nvidia/version", buf, sizeof(buf)) > 0 &&
	          strstr(buf, "Open Kernel Module");
	if (golden_sys_read(root, "/proc/sys/kernel/osrelease", buf, sizeof(buf)) <= 0 ||
	    sscanf(buf, "%d.%d", &major, &minor) != 2)
		major = minor = 0;
	if (open_km && (major > 5 || (major == 5 && minor >= 12))) {
		snprintf(how, len, "dma-buf (open kernel module, kernel %d.%d)", major, minor);
		return 1;
	}
	snprintf(how, len,
	         "no nvidia_peermem/nv_peer_mem loaded, and no dma-buf (%s kernel module, kernel "
	         "%d.%d; dma-buf needs the open module and kernel >= 5.12)",
	         open_km ? "open" : "no open", major, minor);
	return 0;
}

static void check_gpudirect(const struct golden_check_ctx *ctx, struct golden_check_result *res)
{
	const struct golden_topo *t = ctx->topo;
	char how[512];
	int nrdma = 0;

	if (!t) {
		ok_detail(res, "no topology");
		return;
	}
	for (int i = 0; i < t->nnics; i++)
		if (t->nics[i].cls == GOLDEN_CLASS_COMPUTE &&
		    (is_rdma(&t->nics[i]) || t->nics[i].kind == GOLDEN_NIC_EFA))
			nrdma++;
	if (t->ngpus == 0 || nrdma == 0) {
		ok_detail(res, "not applicable: %d GPU(s), %d compute RDMA NIC(s)", t->ngpus,
		          nrdma);
		return;
	}
	if (golden_fabric_gdr_available(ctx->sysroot, how, sizeof(how))) {
		ok_detail(res, "GPUDirect RDMA via %s", how);
		return;
	}
	if (ctx->conf && ctx->conf->require_gdr)
		golden_check_fail(res, GOLDEN_ACTION_DRAIN, "gdr unavailable",
		                  "%s; gpudirect = required (modprobe nvidia-peermem)", how);
	else
		golden_check_warn(res, "gdr unavailable",
		                  "%s; NCCL will bounce through host memory", how);
}

/* ------------------------------------------------------------ table */

const struct golden_check golden_fabric_checks[] = {
    {"ib-ports", GOLDEN_CHK_FABRIC, check_ib_ports, 1000, PHASES},
    {"ib-counters", GOLDEN_CHK_FABRIC, check_ib_counters, 1000, PHASES},
    {"efa", GOLDEN_CHK_FABRIC, check_efa, 1000, PHASES},
    {"bootstrap", GOLDEN_CHK_FABRIC, check_bootstrap, 1000, PHASES},
    {"gpudirect", GOLDEN_CHK_FABRIC, check_gpudirect, 1000, PHASES},
    {NULL, GOLDEN_CHK_FABRIC, NULL, 0, 0},
};
