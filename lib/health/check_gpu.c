/* GPU health checks through NVML (nvml/nvml.c loads libnvidia-ml.so.1).
 *
 * Every check runs in its own child process (check_run.c), so each opens
 * NVML itself: a hung or crashing driver call takes down one check, not the
 * runner. A check that finds several faults reports the worst as its result
 * (code and action) and lists all of them in the detail.
 *
 * GPUs are named "gpuN" with N the position of the GPU in the topology
 * (hwloc's PCI order, struct golden_topo), matched by PCI bus id, so the
 * names agree with `golden topo` and with the XID check; a GPU NVML reports
 * that the topology does not know keeps its NVML index.
 */
#include <config.h>

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "health/check.h"
#include "health/golden_conf.h"
#include "nvml/nvml.h"
#include "util/strutil.h"

#define GPU_PHASES                                                                                 \
	(GOLDEN_PHASE_PROLOG | GOLDEN_PHASE_EPILOG | GOLDEN_PHASE_MANUAL | GOLDEN_PHASE_HEALTH_ANY)
#define GPU_DEADLINE_MS 2000

struct gpu {
	golden_nvml_device_t dev; /* NULL: no handle (fault already reported) */
	unsigned int index;       /* NVML index */
	char busid[GOLDEN_BUSID_LEN];
	char name[16]; /* "gpu3" */
};

struct session {
	const struct golden_check_ctx *ctx;
	struct golden_check_result *res;
	struct golden_nvml nv;
	int expected;       /* GPUs expected, -1 unknown */
	const char *from;   /* where the expectation came from */
	unsigned int count; /* what NVML reports */
	unsigned int ngpus; /* entries in gpus[] */
	struct gpu gpus[GOLDEN_MAX_GPUS];
	int nfaults;
	char all[GOLDEN_DETAIL_LEN];
};

/* ------------------------------------------------------------- results */

static void vfault(struct session *s, enum golden_status st, enum golden_action action,
                   const char *code, const char *fmt, va_list ap)
{
	char detail[GOLDEN_DETAIL_LEN];

	vsnprintf(detail, sizeof(detail), fmt, ap);
	if (st == GOLDEN_ST_FAIL)
		golden_check_fail(s->res, action, code, "%s", detail);
	else
		golden_check_warn(s->res, code, "%s", detail);
	if (s->nfaults++)
		golden_strlcat(s->all, "; ", sizeof(s->all));
	golden_strlcat(s->all, detail, sizeof(s->all));
}

static __attribute__((format(printf, 4, 5))) void fail(struct session *s, enum golden_action action,
                                                       const char *code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfault(s, GOLDEN_ST_FAIL, action, code, fmt, ap);
	va_end(ap);
}

static __attribute__((format(printf, 3, 4))) void warn(struct session *s, const char *code,
                                                       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfault(s, GOLDEN_ST_WARN, GOLDEN_ACTION_NONE, code, fmt, ap);
	va_end(ap);
}

/* An NVML call on one GPU failed in a way the check did not expect. */
static void nvml_fault(struct session *s, const struct gpu *g, const char *call,
                       golden_nvml_return_t r)
{
	char code[GOLDEN_CODE_LEN];
	const char *why = golden_nvml_strerror(&s->nv, r);

	switch (r) {
	case GOLDEN_NVML_ERROR_GPU_IS_LOST:
		snprintf(code, sizeof(code), "%s lost", g->name);
		fail(s, GOLDEN_ACTION_DRAIN_REBOOT, code,
		     "%s (%s): %s: %s: the GPU fell off the bus or is inaccessible", g->name,
		     g->busid[0] ? g->busid : "?", call, why);
		return;
	case GOLDEN_NVML_ERROR_RESET_REQUIRED:
		snprintf(code, sizeof(code), "%s reset-required", g->name);
		fail(s, GOLDEN_ACTION_DRAIN_RESET, code, "%s (%s): %s: %s", g->name,
		     g->busid[0] ? g->busid : "?", call, why);
		return;
	case GOLDEN_NVML_ERROR_CORRUPTED_INFOROM:
		snprintf(code, sizeof(code), "%s inforom", g->name);
		fail(s, GOLDEN_ACTION_DRAIN, code, "%s (%s): %s: %s", g->name,
		     g->busid[0] ? g->busid : "?", call, why);
		return;
	default:
		snprintf(code, sizeof(code), "%s nvml-error", g->name);
		warn(s, code, "%s (%s): %s: %s (NVML error %d)", g->name,
		     g->busid[0] ? g->busid : "?", call, why, (int)r);
	}
}

static bool unsupported(golden_nvml_return_t r)
{
	return r == GOLDEN_NVML_ERROR_NOT_SUPPORTED || r == GOLDEN_NVML_ERROR_FUNCTION_NOT_FOUND;
}

/* ------------------------------------------------------------- session */

static void expectation(struct session *s)
{
	const struct golden_check_ctx *ctx = s->ctx;

	if (ctx->conf && ctx->conf->expected_gpus >= 0) {
		s->expected = ctx->conf->expected_gpus;
		s->from = "gpus in golden.conf";
	} else if (ctx->topo) {
		s->expected = ctx->topo->ngpus;
		s->from = "NVIDIA GPUs on PCI";
	} else {
		s->expected = -1;
		s->from = "unknown (no topology)";
	}
}

static void name_gpu(const struct golden_topo *topo, struct gpu *g)
{
	int n = (int)g->index;

	if (topo && g->busid[0])
		for (int i = 0; i < topo->ngpus && i < GOLDEN_MAX_GPUS; i++)
			if (strcasecmp(topo->gpus[i].busid, g->busid) == 0) {
				n = i;
				break;
			}
	snprintf(g->name, sizeof(g->name), "gpu%d", n);
}

/* Does this run report "NVML unavailable"? Every GPU check needs NVML, so
 * when it is missing or does not start they would all fail the same way:
 * the first GPU check this phase runs (gpu-count unless golden.conf turned
 * it off) reports it once, the others say they could not look. */
static bool reports_nvml(const struct golden_check_ctx *ctx, const char *self)
{
	for (const struct golden_check *c = golden_gpu_checks; c->name; c++) {
		int deadline;
		unsigned phases;

		if (!golden_conf_check(ctx->conf, c, &deadline, &phases) ||
		    (ctx->phase && !(phases & ctx->phase)))
			continue;
		return strcmp(c->name, self) == 0;
	}
	return true;
}

/* NVML cannot be used on a node whose GPUs are on PCI: one failure, by one
 * check. Not a GPU fault: the library is missing, its version does not
 * match the loaded kernel module (a driver upgrade without a reload), or
 * the driver is not loaded, so the class is a plain drain that ends when
 * NVML works again and the GPU checks pass, not a reboot a driver upgrade
 * across the fleet would wait for. A GPU that is really gone shows in its
 * own checks and in the kernel log (Xid 79, probe failures). */
static void nvml_unavailable(struct session *s, const char *self, const char *code,
                             const char *what)
{
	const char *hint = "";

	if (!reports_nvml(s->ctx, self)) {
		warn(s, "gpu nvml-unavailable", "not checked: NVML unavailable (%s); reported once",
		     what);
		return;
	}
	if (s->nv.init_ret == GOLDEN_NVML_ERROR_LIB_RM_VERSION_MISMATCH)
		hint = ": the NVIDIA user-space driver does not match the loaded kernel module "
		       "(upgraded without a reload): reload the nvidia modules or reboot";
	else if (s->nv.init_ret == GOLDEN_NVML_ERROR_DRIVER_NOT_LOADED)
		hint = ": load the nvidia kernel module (check dmesg for NVRM errors)";
	else if (s->nv.init_ret == GOLDEN_NVML_ERROR_LIBRARY_NOT_FOUND && !s->nv.dl)
		hint = ": install the NVIDIA driver's libnvidia-ml.so.1";
	if (s->expected > 0)
		fail(s, GOLDEN_ACTION_DRAIN, code,
		     "%s; %d GPU(s) expected (%s)%s; no GPU check can run until NVML works", what,
		     s->expected, s->from, hint);
	else
		fail(s, GOLDEN_ACTION_DRAIN, code, "%s%s; no GPU check can run until NVML works",
		     what, hint);
}

/* Open NVML and list the GPUs. Returns true if the check should go on;
 * false when the result is final: NVML unusable on a GPU node, or a node
 * without GPUs (ok). self: the check's name. */
static bool session_open(struct session *s, const struct golden_check_ctx *ctx,
                         struct golden_check_result *res, const char *self)
{
	struct golden_err err = {{0}};
	golden_nvml_return_t r;

	memset(s, 0, sizeof(*s));
	s->ctx = ctx;
	s->res = res;
	expectation(s);
	if (golden_nvml_open(&s->nv, &err) < 0) {
		bool missing = s->nv.init_ret == GOLDEN_NVML_ERROR_LIBRARY_NOT_FOUND && !s->nv.dl;

		/* A CPU node may well have the driver package but no GPU. And
		 * with no topology, a missing library most likely means the
		 * same; a library that is there but fails to start does not. */
		if (s->expected == 0 || (s->expected < 0 && missing)) {
			snprintf(res->detail, sizeof(res->detail),
			         "no NVIDIA GPU expected (%s); NVML: %.600s", s->from, err.msg);
			return false;
		}
		nvml_unavailable(s, self,
		                 missing ? "gpu nvml-missing"
		                 : s->nv.init_ret == GOLDEN_NVML_ERROR_LIB_RM_VERSION_MISMATCH
		                     ? "gpu nvml-mismatch"
		                     : "gpu nvml-init",
		                 err.msg);
		return false;
	}
	r = golden_nvml_device_count(&s->nv, &s->count);
	if (r != GOLDEN_NVML_SUCCESS) {
		char what[160];

		snprintf(what, sizeof(what), "nvmlDeviceGetCount_v2: %s",
		         golden_nvml_strerror(&s->nv, r));
		nvml_unavailable(s, self, "gpu nvml-count", what);
		return false;
	}
	s->ngpus = s->count < GOLDEN_MAX_GPUS ? s->count : GOLDEN_MAX_GPUS;
	for (unsigned int i = 0; i < s->ngpus; i++) {
		struct gpu *g = &s->gpus[i];

		g->index = i;
		r = golden_nvml_device_handle(&s->nv, i, &g->dev);
		if (r == GOLDEN_NVML_SUCCESS)
			r = golden_nvml_device_busid(&s->nv, g->dev, g->busid, sizeof(g->busid));
		name_gpu(ctx->topo, g);
		if (r != GOLDEN_NVML_SUCCESS) {
			nvml_fault(s, g, "nvmlDeviceGetHandleByIndex_v2/PciInfo_v3", r);
			g->dev = NULL;
		}
	}
	return true;
}

/* Close NVML; on success write the ok detail, with several faults list
 * them all. */
static __attribute__((format(printf, 2, 3))) void session_close(struct session *s,
                                                                const char *okfmt, ...)
{
	golden_nvml_close(&s->nv);
	if (s->res->status == GOLDEN_ST_OK) {
		va_list ap;

		va_start(ap, okfmt);
		vsnprintf(s->res->detail, sizeof(s->res->detail), okfmt, ap);
		va_end(ap);
	} else if (s->nfaults > 1) {
		golden_strlcpy(s->res->detail, s->all, sizeof(s->res->detail));
	}
}

/* ----------------------------------------------------------- gpu-count */

static bool nvml_has_busid(const struct session *s, const char *busid)
{
	for (unsigned int i = 0; i < s->ngpus; i++)
		if (strcasecmp(s->gpus[i].busid, busid) == 0)
			return true;
	return false;
}

static void check_count(const struct golden_check_ctx *ctx, struct golden_check_result *res)
{
	struct session s;
	const struct golden_topo *topo = ctx->topo;
	char code[GOLDEN_CODE_LEN], missing[GOLDEN_DETAIL_LEN / 2] = "";
	const char *first = NULL;
	int nmissing = 0;

	if (!session_open(&s, ctx, res, "gpu-count")) {
		golden_nvml_close(&s.nv);
		return;
	}
	if (topo)
		for (int i = 0; i < topo->ngpus && i < GOLDEN_MAX_GPUS; i++) {
			if (!topo->gpus[i].busid[0] || nvml_has_busid(&s, topo->gpus[i].busid))
				continue;
			if (!nmissing++)
				first = topo->gpus[i].busid;
			else
				golden_strlcat(missing, ", ", sizeof(missing));
			golden_strlcat(missing, topo->gpus[i].busid, sizeof(missing));
		}
	if (s.expected >= 0 && (int)s.count < s.expected) {
		if (first)
			snprintf(code, sizeof(code), "gpu %u/%d missing %s", s.count, s.expected,
			         first);
		else
			snprintf(code, sizeof(code), "gpu %u/%d missing", s.count, s.expected);
		fail(&s, GOLDEN_ACTION_DRAIN_REBOOT, code,
		     "NVML sees %u of %d GPUs (%s)%s%s: fallen off the bus (XID 79) or failed to "
		     "initialise; check dmesg for NVRM errors",
		     s.count, s.expected, s.from, nmissing ? "; not in NVML: " : "", missing);
	} else if (s.expected >= 0 && (int)s.count > s.expected) {
		snprintf(code, sizeof(code), "gpu %u/%d extra", s.count, s.expected);
		warn(&s, code, "NVML sees %u GPUs, %d expected (%s)", s.count, s.expected, s.from);
	}
	session_close(&s, "%u GPU(s) in NVML, %d expected (%s)", s.count, s.expected, s.from);
}

/* ------------------------------------------------------------- gpu-ecc */

static void check_ecc(const struct golden_check_ctx *ctx, struct golden_check_result *res)
{
	struct session s;
	unsigned int checked = 0;

	if (!session_open(&s, ctx, res, "gpu-ecc")) {
		golden_nvml_close(&s.nv);
		return;
	}
	for (unsigned int i = 0; i < s.ngpus; i++) {
		const struct gpu *g = &s.gpus[i];
		unsigned long long dbe = 0;
		golden_nvml_return_t r;

		if (!g->dev)
			continue;
		r = golden_nvml_ecc_uncorrected_volatile(&s.nv, g->dev, &dbe);
		if (unsupported(r))
			continue; /* ECC off, or a board without ECC */
		if (r != GOLDEN_NVML_SUCCESS) {
			nvml_fault(&s, g, "nvmlDeviceGetTotalEccErrors", r);
			continue;
		}
		checked++;
		if (dbe > 0) {
			char code[GOLDEN_CODE_LEN];

			snprintf(code, sizeof(code), "%s ecc-dbe", g->name);
			fail(&s, GOLDEN_ACTION_DRAIN_RESET, code,
			     "%s (%s): %llu volatile uncorrectable ECC error(s) since the driver "
			     "loaded; reset the GPU (nvidia-smi -r) and check row remapping",
			     g->name, g->busid, dbe);
		}
	}
	session_close(&s, "%u GPU(s) with ECC, no volatile uncorrectable errors", checked);
}

/* ----------------------------------------------------------- gpu-remap */

static void check_remap(const struct golden_check_ctx *ctx, struct golden_check_result *res)
{
	struct session s;
	unsigned int remap = 0, retired = 0;

	if (!session_open(&s, ctx, res, "gpu-remap")) {
		golden_nvml_close(&s.nv);
		return;
	}
	for (unsigned int i = 0; i < s.ngpus; i++) {
		const struct gpu *g = &s.gpus[i];
		unsigned int corr, unc;
		bool pending, failure;
		golden_nvml_return_t r;
		char code[GOLDEN_CODE_LEN];

		if (!g->dev)
			continue;
		r = golden_nvml_remapped_rows(&s.nv, g->dev, &corr, &unc, &pending, &failure);
		if (r == GOLDEN_NVML_SUCCESS) {
			remap++;
			if (failure) {
				snprintf(code, sizeof(code), "%s remap-failed", g->name);
				fail(&s, GOLDEN_ACTION_DRAIN_REBOOT, code,
				     "%s (%s): row remapping failed (%u correctable, %u "
				     "uncorrectable rows remapped): RMA candidate",
				     g->name, g->busid, corr, unc);
			}
			if (pending) {
				snprintf(code, sizeof(code), "%s remap-pending", g->name);
				fail(&s, GOLDEN_ACTION_DRAIN_RESET, code,
				     "%s (%s): row remapping pending (%u correctable, %u "
				     "uncorrectable rows remapped); reset the GPU to apply it",
				     g->name, g->busid, corr, unc);
			}
			continue;
		}
		if (!unsupported(r)) {
			nvml_fault(&s, g, "nvmlDeviceGetRemappedRows", r);
			continue;
		}
		/* Before Ampere (or with MIG on): page retirement instead. */
		r = golden_nvml_retired_pages_pending(&s.nv, g->dev, &pending);
		if (unsupported(r))
			continue;
		if (r != GOLDEN_NVML_SUCCESS) {
			nvml_fault(&s, g, "nvmlDeviceGetRetiredPagesPendingStatus", r);
			continue;
		}
		retired++;
		if (pending) {
			snprintf(code, sizeof(code), "%s retire-pending", g->name);
			fail(&s, GOLDEN_ACTION_DRAIN_RESET, code,
			     "%s (%s): retired pages pending; reset the GPU to retire them",
			     g->name, g->busid);
		}
	}
	session_close(&s, "%u GPU(s) with row remapping, %u with page retirement: nothing pending",
	              remap, retired);
}

/* ------------------------------------------------------------ gpu-pcie */

static void check_pcie(const struct golden_check_ctx *ctx, struct golden_check_result *res)
{
	struct session s;
	unsigned int checked = 0;

	if (!session_open(&s, ctx, res, "gpu-pcie")) {
		golden_nvml_close(&s.nv);
		return;
	}
	for (unsigned int i = 0; i < s.ngpus; i++) {
		const struct gpu *g = &s.gpus[i];
		struct golden_nvml_pcie l;
		golden_nvml_return_t r;
		char code[GOLDEN_CODE_LEN];

		if (!g->dev)
			continue;
		r = golden_nvml_pcie_link(&s.nv, g->dev, &l);
		if (unsupported(r))
			continue;
		if (r != GOLDEN_NVML_SUCCESS) {
			nvml_fault(&s, g, "nvmlDeviceGet{Curr,Max}PcieLink{Generation,Width}", r);
			continue;
		}
		checked++;
		/* A narrower link than the slot allows is a training fault
		 * (bad riser, cable, retimer or seating): it stays until the
		 * link retrains, and halves host bandwidth or worse. */
		if (l.max_width && l.width < l.max_width) {
			snprintf(code, sizeof(code), "%s pcie x%u/x%u", g->name, l.width,
			         l.max_width);
			fail(&s, GOLDEN_ACTION_DRAIN, code,
			     "%s (%s): PCIe link x%u, x%u possible (gen%u/gen%u): reseat or check "
			     "the riser/retimer",
			     g->name, g->busid, l.width, l.max_width, l.gen, l.max_gen);
		} else if (l.max_gen && l.gen < l.max_gen) {
			/* An idle GPU lowers its link generation to save power
			 * and raises it again under load, so a generation drop
			 * alone is only a warning. */
			snprintf(code, sizeof(code), "%s pcie gen%u/gen%u", g->name, l.gen,
			         l.max_gen);
			warn(&s, code,
			     "%s (%s): PCIe link gen%u, gen%u possible (x%u): normal when idle, "
			     "a fault if it stays under load",
			     g->name, g->busid, l.gen, l.max_gen, l.width);
		}
	}
	session_close(&s, "%u GPU(s): PCIe links at full width", checked);
}

/* ---------------------------------------------------------- gpu-nvlink */

struct nvlink_state {
	unsigned int supported, up, down;
	char downlist[128];
	int first_down;
};

/* GPUs without a single NVLink in NVML's answer whose model (from the
 * topology) is an SXM part, which has NVLink: "gpu0 H200 SXM 141GB". An H200
 * passed through to a Firecracker VM answered exactly that (driver 580,
 * t/fixtures/nvml/real-h200-vm.json), which "PCIe GPUs" would misname. */
static int hidden_nvlink(const struct session *s, const struct nvlink_state *st, char *out,
                         size_t outlen)
{
	int n = 0;

	out[0] = '\0';
	for (unsigned int i = 0; i < s->ngpus; i++) {
		const struct golden_topo *t = s->ctx->topo;

		if (!s->gpus[i].dev || st[i].supported || !t)
			continue;
		for (int j = 0; j < t->ngpus; j++) {
			char one[96];

			if (strcmp(t->gpus[j].busid, s->gpus[i].busid) != 0 ||
			    !strstr(t->gpus[j].model, "SXM"))
				continue;
			snprintf(one, sizeof(one), "%s%s %s", n++ ? ", " : "", s->gpus[i].name,
			         t->gpus[j].model);
			golden_strlcat(out, one, outlen);
		}
	}
	return n;
}

static void check_nvlink(const struct golden_check_ctx *ctx, struct golden_check_result *res)
{
	struct session s;
	struct nvlink_state st[GOLDEN_MAX_GPUS];
	unsigned int gpus_with_links = 0, links_up = 0;
	char hidden[GOLDEN_DETAIL_LEN / 2];

	if (!session_open(&s, ctx, res, "gpu-nvlink")) {
		golden_nvml_close(&s.nv);
		return;
	}
	memset(st, 0, sizeof(st));
	for (unsigned int i = 0; i < s.ngpus; i++) {
		const struct gpu *g = &s.gpus[i];

		st[i].first_down = -1;
		if (!g->dev)
			continue;
		for (unsigned int l = 0; l < GOLDEN_NVML_NVLINK_MAX_LINKS; l++) {
			bool active;
			golden_nvml_return_t r =
			    golden_nvml_nvlink_state(&s.nv, g->dev, l, &active);
			char num[8];

			/* No such link on this GPU (fewer links than the
			 * maximum), or a PCIe GPU without NVLink. */
			if (unsupported(r) || r == GOLDEN_NVML_ERROR_INVALID_ARGUMENT)
				continue;
			if (r != GOLDEN_NVML_SUCCESS) {
				nvml_fault(&s, g, "nvmlDeviceGetNvLinkState", r);
				break;
			}
			st[i].supported++;
			if (active) {
				st[i].up++;
				continue;
			}
			if (st[i].down++ == 0)
				st[i].first_down = (int)l;
			else
				golden_strlcat(st[i].downlist, ",", sizeof(st[i].downlist));
			snprintf(num, sizeof(num), "%u", l);
			golden_strlcat(st[i].downlist, num, sizeof(st[i].downlist));
		}
		if (st[i].supported)
			gpus_with_links++;
		links_up += st[i].up;
	}
	for (unsigned int i = 0; i < s.ngpus; i++) {
		const struct gpu *g = &s.gpus[i];
		char code[GOLDEN_CODE_LEN];

		if (!st[i].down)
			continue;
		if (st[i].up) {
			snprintf(code, sizeof(code), "%s nvlink %d down", g->name,
			         st[i].first_down);
			fail(&s, GOLDEN_ACTION_DRAIN, code,
			     "%s (%s): NVLink %s down, %u of %u up: NCCL falls back or hangs; "
			     "check XID 74/144-150",
			     g->name, g->busid, st[i].downlist, st[i].up, st[i].supported);
		} else if (links_up) {
			snprintf(code, sizeof(code), "%s nvlink all down", g->name);
			fail(&s, GOLDEN_ACTION_DRAIN, code,
			     "%s (%s): all %u NVLinks down while the other GPUs have theirs up",
			     g->name, g->busid, st[i].supported);
		}
	}
	if (gpus_with_links && !links_up)
		warn(&s, "gpu nvlink all down",
		     "every NVLink of %u GPU(s) is down: NVLink disabled, or fabric manager not "
		     "running?",
		     gpus_with_links);
	if (gpus_with_links == 0 && hidden_nvlink(&s, st, hidden, sizeof(hidden)) > 0)
		session_close(&s,
		              "0 GPU(s) with NVLink: NVML reports none on %s, SXM parts that have "
		              "NVLink (a VM that passes the GPU through without it, or NVLink off)",
		              hidden);
	else
		session_close(&s,
		              "%u GPU(s) with NVLink, %u links up (none with NVLink: PCIe GPUs)",
		              gpus_with_links, links_up);
}

/* -------------------------------------------------------- gpu-throttle */

#define HW_REASONS                                                                                 \
	(GOLDEN_NVML_CLOCKS_EVENT_HW_SLOWDOWN | GOLDEN_NVML_CLOCKS_EVENT_HW_THERMAL |              \
	 GOLDEN_NVML_CLOCKS_EVENT_HW_POWER_BRAKE)

static void check_throttle(const struct golden_check_ctx *ctx, struct golden_check_result *res)
{
	struct session s;
	unsigned long long reasons[GOLDEN_MAX_GPUS] = {0};
	bool ok[GOLDEN_MAX_GPUS] = {false}, any_hw = false;
	unsigned int checked = 0;

	if (!session_open(&s, ctx, res, "gpu-throttle")) {
		golden_nvml_close(&s.nv);
		return;
	}
	for (unsigned int i = 0; i < s.ngpus; i++) {
		golden_nvml_return_t r;

		ok[i] = false;
		reasons[i] = 0;
		if (!s.gpus[i].dev)
			continue;
		r = golden_nvml_clocks_event_reasons(&s.nv, s.gpus[i].dev, &reasons[i]);
		if (unsupported(r))
			continue;
		if (r != GOLDEN_NVML_SUCCESS) {
			nvml_fault(&s, &s.gpus[i], "nvmlDeviceGetCurrentClocksEventReasons", r);
			continue;
		}
		ok[i] = true;
		checked++;
		any_hw |= (reasons[i] & HW_REASONS) != 0;
	}
	/* NVML documents HW slowdown as possibly reported during a P-state or
	 * clock change: only what is still set a moment later counts. */
	if (any_hw) {
		struct timespec ts = {0, 100 * 1000 * 1000};

		nanosleep(&ts, NULL);
		for (unsigned int i = 0; i < s.ngpus; i++) {
			unsigned long long again = 0;

			if (!ok[i] || !(reasons[i] & HW_REASONS))
				continue;
			if (golden_nvml_clocks_event_reasons(&s.nv, s.gpus[i].dev, &again) ==
			    GOLDEN_NVML_SUCCESS)
				reasons[i] = (reasons[i] & ~HW_REASONS) | (reasons[i] & again);
		}
	}
	for (unsigned int i = 0; i < s.ngpus; i++) {
		const struct gpu *g = &s.gpus[i];
		unsigned long long x = reasons[i];
		char code[GOLDEN_CODE_LEN];
		const char *what = NULL, *tag = NULL;

		if (!ok[i])
			continue;
		if (x & GOLDEN_NVML_CLOCKS_EVENT_HW_THERMAL) {
			tag = "hw-thermal";
			what = "HW thermal slowdown (clocks halved or worse): cooling fault";
		} else if (x & GOLDEN_NVML_CLOCKS_EVENT_HW_POWER_BRAKE) {
			tag = "hw-power-brake";
			what = "HW power brake slowdown: the power supply asserted the brake";
		} else if (x & GOLDEN_NVML_CLOCKS_EVENT_HW_SLOWDOWN) {
			tag = "hw-slowdown";
			what = "HW slowdown (clocks halved or worse): temperature, power brake or "
			       "power draw";
		}
		if (tag) {
			snprintf(code, sizeof(code), "%s %s", g->name, tag);
			fail(&s, GOLDEN_ACTION_DRAIN, code,
			     "%s (%s): %s (clocks event reasons 0x%llx)", g->name, g->busid, what,
			     x);
		} else if (x & GOLDEN_NVML_CLOCKS_EVENT_SW_THERMAL) {
			snprintf(code, sizeof(code), "%s sw-thermal", g->name);
			warn(&s, code,
			     "%s (%s): SW thermal slowdown: GPU or memory near its maximum "
			     "operating temperature (clocks event reasons 0x%llx)",
			     g->name, g->busid, x);
		}
	}
	session_close(&s, "%u GPU(s): no HW slowdown or thermal throttling", checked);
}

/* ---------------------------------------------------------- gpu-fabric */

static const char *fabric_state_name(unsigned int st)
{
	switch (st) {
	case GOLDEN_NVML_GPU_FABRIC_STATE_NOT_STARTED:
		return "not started";
	case GOLDEN_NVML_GPU_FABRIC_STATE_IN_PROGRESS:
		return "in progress";
	case GOLDEN_NVML_GPU_FABRIC_STATE_COMPLETED:
		return "completed";
	default:
		return "unknown";
	}
}

static void check_fabric(const struct golden_check_ctx *ctx, struct golden_check_result *res)
{
	struct session s;
	unsigned int checked = 0;
	const struct gpu *first = NULL; /* the first GPU attached to a domain */
	struct golden_nvml_fabric first_f;

	if (!session_open(&s, ctx, res, "gpu-fabric")) {
		golden_nvml_close(&s.nv);
		return;
	}
	memset(&first_f, 0, sizeof(first_f));
	for (unsigned int i = 0; i < s.ngpus; i++) {
		const struct gpu *g = &s.gpus[i];
		struct golden_nvml_fabric f;
		golden_nvml_return_t r;
		char code[GOLDEN_CODE_LEN];

		if (!g->dev)
			continue;
		r = golden_nvml_fabric_info(&s.nv, g->dev, &f);
		/* No NVSwitch fabric (PCIe or NVLink bridge), or a driver
		 * before the fabric probe. */
		if (unsupported(r) || (r == GOLDEN_NVML_SUCCESS &&
		                       f.state == GOLDEN_NVML_GPU_FABRIC_STATE_NOT_SUPPORTED))
			continue;
		if (r != GOLDEN_NVML_SUCCESS) {
			nvml_fault(&s, g, "nvmlDeviceGetGpuFabricInfoV", r);
			continue;
		}
		checked++;
		snprintf(code, sizeof(code), "%s fabric not-ready", g->name);
		if (f.state != GOLDEN_NVML_GPU_FABRIC_STATE_COMPLETED) {
			fail(&s, GOLDEN_ACTION_DRAIN, code,
			     "%s (%s): NVLink fabric registration %s (state %u): is "
			     "nvidia-fabricmanager running?",
			     g->name, g->busid, fabric_state_name(f.state), f.state);
		} else if (f.status != GOLDEN_NVML_SUCCESS) {
			fail(&s, GOLDEN_ACTION_DRAIN, code,
			     "%s (%s): NVLink fabric registration failed: %s (NVML error %d); see "
			     "the fabric manager log",
			     g->name, g->busid, golden_nvml_strerror(&s.nv, f.status),
			     (int)f.status);
		} else if (f.health_summary == GOLDEN_NVML_GPU_FABRIC_HEALTH_SUMMARY_UNHEALTHY) {
			snprintf(code, sizeof(code), "%s fabric unhealthy", g->name);
			fail(&s, GOLDEN_ACTION_DRAIN, code,
			     "%s (%s): NVLink fabric health unhealthy", g->name, g->busid);
		} else if (f.health_summary ==
		           GOLDEN_NVML_GPU_FABRIC_HEALTH_SUMMARY_LIMITED_CAPACITY) {
			snprintf(code, sizeof(code), "%s fabric degraded", g->name);
			warn(&s, code, "%s (%s): NVLink fabric at limited capacity", g->name,
			     g->busid);
		}
		if (f.state != GOLDEN_NVML_GPU_FABRIC_STATE_COMPLETED ||
		    f.status != GOLDEN_NVML_SUCCESS)
			continue;
		/* One node is one member of one NVLink partition: GPUs that
		 * disagree would put the node in two blocks of topology.conf. */
		if (!first) {
			first = g;
			first_f = f;
		} else if (memcmp(f.cluster_uuid, first_f.cluster_uuid, sizeof(f.cluster_uuid)) ||
		           f.clique_id != first_f.clique_id) {
			char u[40], fu[40];

			golden_nvml_uuid_format(f.cluster_uuid, u, sizeof(u));
			golden_nvml_uuid_format(first_f.cluster_uuid, fu, sizeof(fu));
			snprintf(code, sizeof(code), "%s fabric split", g->name);
			fail(&s, GOLDEN_ACTION_DRAIN, code,
			     "%s (%s) is in NVLink domain %s clique %u but %s is in %s clique %u: "
			     "one node's GPUs must share one partition; check the fabric manager's "
			     "partition configuration (nvidia-smi -q, Fabric)",
			     g->name, g->busid, u, f.clique_id, first->name, fu, first_f.clique_id);
		}
	}
	session_close(&s, "%u GPU(s) registered with the NVLink fabric (%d NVSwitch(es) on PCI)",
	              checked, ctx->topo ? ctx->topo->nvswitches : -1);
}

/* ----------------------------------------------------------- gpu-procs */

/* SLURM_JOB_GPUS ("0,3") in the prolog: the GPUs the starting job gets.
 * Another job's processes on the other GPUs of a shared node are no
 * leftovers. Without it (manual run, exclusive nodes) every GPU counts. */
static bool job_gpu(unsigned int index)
{
	const char *v = getenv("SLURM_JOB_GPUS");
	const char *p;
	char *end;

	if (!v || !*v)
		return true;
	for (p = v; *p;) {
		unsigned long n = strtoul(p, &end, 10);

		if (end == p || (*end && *end != ','))
			return true; /* not a plain index list: check every GPU */
		if (n == index)
			return true;
		p = *end ? end + 1 : end;
	}
	return false;
}

static void check_procs(const struct golden_check_ctx *ctx, struct golden_check_result *res)
{
	struct session s;
	unsigned int checked = 0;

	if (!session_open(&s, ctx, res, "gpu-procs")) {
		golden_nvml_close(&s.nv);
		return;
	}
	for (unsigned int i = 0; i < s.ngpus; i++) {
		const struct gpu *g = &s.gpus[i];
		struct golden_nvml_process_info procs[64];
		unsigned int n = 64;
		golden_nvml_return_t r;
		char code[GOLDEN_CODE_LEN], pids[256] = "";

		if (!g->dev || !job_gpu(g->index))
			continue;
		memset(procs, 0, sizeof(procs));
		r = golden_nvml_compute_procs(&s.nv, g->dev, &n, procs);
		if (unsupported(r))
			continue;
		if (r == GOLDEN_NVML_ERROR_INSUFFICIENT_SIZE) {
			snprintf(code, sizeof(code), "%s leftover procs", g->name);
			fail(&s, GOLDEN_ACTION_DRAIN, code,
			     "%s (%s): %u compute processes left over before the job starts",
			     g->name, g->busid, n);
			continue;
		}
		if (r != GOLDEN_NVML_SUCCESS) {
			nvml_fault(&s, g, "nvmlDeviceGetComputeRunningProcesses_v3", r);
			continue;
		}
		checked++;
		if (!n)
			continue;
		for (unsigned int p = 0; p < n && p < 64; p++) {
			char one[64];

			snprintf(one, sizeof(one), "%s%u (%llu MiB)", p ? ", " : "", procs[p].pid,
			         procs[p].usedGpuMemory >> 20);
			golden_strlcat(pids, one, sizeof(pids));
		}
		snprintf(code, sizeof(code), "%s leftover pid %u", g->name, procs[0].pid);
		fail(&s, GOLDEN_ACTION_DRAIN, code,
		     "%s (%s): %u compute process(es) still on the GPU before the job starts: "
		     "pid %s; a previous job did not exit (D state?)",
		     g->name, g->busid, n, pids);
	}
	session_close(&s, "%u GPU(s) without compute processes", checked);
}

/* -------------------------------------------------------- gpu-recovery */

static void check_recovery(const struct golden_check_ctx *ctx, struct golden_check_result *res)
{
	struct session s;
	unsigned int checked = 0;

	if (!session_open(&s, ctx, res, "gpu-recovery")) {
		golden_nvml_close(&s.nv);
		return;
	}
	for (unsigned int i = 0; i < s.ngpus; i++) {
		const struct gpu *g = &s.gpus[i];
		unsigned int a = 0;
		golden_nvml_return_t r;
		enum golden_action action;
		const char *tag, *what;
		char code[GOLDEN_CODE_LEN];

		if (!g->dev)
			continue;
		r = golden_nvml_recovery_action(&s.nv, g->dev, &a);
		if (unsupported(r))
			continue; /* a driver before the recovery action field */
		if (r != GOLDEN_NVML_SUCCESS) {
			nvml_fault(&s, g, "nvmlDeviceGetFieldValues(GPU_RECOVERY_ACTION)", r);
			continue;
		}
		checked++;
		switch (a) {
		case GOLDEN_NVML_RECOVERY_NONE:
			continue;
		case GOLDEN_NVML_RECOVERY_GPU_RESET:
			action = GOLDEN_ACTION_DRAIN_RESET;
			tag = "reset";
			what = "GPU reset required (nvidia-smi -r)";
			break;
		case GOLDEN_NVML_RECOVERY_NODE_REBOOT:
			action = GOLDEN_ACTION_DRAIN_REBOOT;
			tag = "reboot";
			what = "node reboot required";
			break;
		case GOLDEN_NVML_RECOVERY_DRAIN_P2P:
			action = GOLDEN_ACTION_DRAIN;
			tag = "drain-p2p";
			what = "drain peer-to-peer traffic";
			break;
		case GOLDEN_NVML_RECOVERY_DRAIN_AND_RESET:
			action = GOLDEN_ACTION_DRAIN_RESET;
			tag = "drain-reset";
			what = "drain peer-to-peer traffic, then reset the GPU";
			break;
		case GOLDEN_NVML_RECOVERY_RECOVER_IMEX_DOMAIN:
			action = GOLDEN_ACTION_DRAIN;
			tag = "imex";
			what = "recover the IMEX domain";
			break;
		case GOLDEN_NVML_RECOVERY_BUS_RESET:
			/* A PCIe bus reset is more than nvidia-smi -r; a
			 * reboot covers it. */
			action = GOLDEN_ACTION_DRAIN_REBOOT;
			tag = "bus-reset";
			what = "PCIe bus reset required";
			break;
		case GOLDEN_NVML_RECOVERY_SYSTEM_REBOOT:
			action = GOLDEN_ACTION_DRAIN_REBOOT;
			tag = "system-reboot";
			what = "system reboot required";
			break;
		default:
			action = GOLDEN_ACTION_DRAIN;
			tag = "unknown";
			what = "unknown recovery action";
			break;
		}
		snprintf(code, sizeof(code), "%s recovery %s", g->name, tag);
		fail(&s, action, code, "%s (%s): NVML recovery action %u: %s", g->name, g->busid, a,
		     what);
	}
	session_close(&s, "%u GPU(s): no recovery action pending", checked);
}

/* --------------------------------------------------------------- table */

const struct golden_check golden_gpu_checks[] = {
    {"gpu-count", GOLDEN_CHK_GPU, check_count, GPU_DEADLINE_MS, GPU_PHASES},
    {"gpu-ecc", GOLDEN_CHK_GPU, check_ecc, GPU_DEADLINE_MS, GPU_PHASES},
    {"gpu-remap", GOLDEN_CHK_GPU, check_remap, GPU_DEADLINE_MS, GPU_PHASES},
    {"gpu-pcie", GOLDEN_CHK_GPU, check_pcie, GPU_DEADLINE_MS, GPU_PHASES},
    {"gpu-nvlink", GOLDEN_CHK_GPU, check_nvlink, GPU_DEADLINE_MS, GPU_PHASES},
    {"gpu-throttle", GOLDEN_CHK_GPU, check_throttle, GPU_DEADLINE_MS, GPU_PHASES},
    {"gpu-fabric", GOLDEN_CHK_GPU, check_fabric, GPU_DEADLINE_MS, GPU_PHASES},
    {"gpu-procs", GOLDEN_CHK_GPU, check_procs, GPU_DEADLINE_MS,
     /* A running job's processes are not leftovers: idle health checks only. */
     GOLDEN_PHASE_PROLOG | GOLDEN_PHASE_MANUAL | GOLDEN_PHASE_HEALTH},
    {"gpu-recovery", GOLDEN_CHK_GPU, check_recovery, GPU_DEADLINE_MS, GPU_PHASES},
    {NULL, GOLDEN_CHK_GPU, NULL, 0, 0},
};
