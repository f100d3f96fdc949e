/* GPU checks against the fake libnvidia-ml.so.1 (t/fake-nvml).
 *
 * dlopen reads LD_LIBRARY_PATH once, at process start, so the test first
 * re-executes itself with $GOLDEN_BUILDDIR/t/fake-nvml/.libs in front of it.
 * Each case then points FAKE_NVML_STATE at a fixture in t/fixtures/nvml and
 * calls a check function directly, with a hand-built topology of the
 * hgx-h100-ib node (8 GPUs).
 */
#include <config.h>

#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "health/check.h"
#include "health/golden_conf.h"
#include "nvml/nvml.h"
#include "t/unit/tap.h"

#define REEXEC_ENV "GOLDEN_TEST_CHECK_GPU_REEXEC"

extern char **environ;

static const char *const busids[8] = {"0000:1b:00.0", "0000:43:00.0", "0000:52:00.0",
                                      "0000:61:00.0", "0000:9d:00.0", "0000:c3:00.0",
                                      "0000:d1:00.0", "0000:df:00.0"};

static const char *srcdir;
static char fakedir[4096];
static struct golden_topo *topo;
static struct golden_conf conf;

static struct golden_topo *make_topo(int ngpus)
{
	struct golden_topo *t = calloc(1, sizeof(*t));

	if (!t) {
		printf("Bail out! out of memory\n");
		exit(1);
	}
	t->ngpus = ngpus;
	t->nvswitches = ngpus ? 4 : 0;
	for (int i = 0; i < ngpus && i < 8; i++) {
		snprintf(t->gpus[i].busid, sizeof(t->gpus[i].busid), "%s", busids[i]);
		t->gpus[i].vendor = 0x10de;
		t->gpus[i].device = 0x2330;
		t->gpus[i].numa = i < 4 ? 0 : 1;
		t->gpus[i].nearest_nic = -1;
	}
	return t;
}

static const struct golden_check *find(const char *name)
{
	for (const struct golden_check *c = golden_gpu_checks; c->name; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	printf("Bail out! no check %s\n", name);
	exit(1);
}

static void set_fixture(const char *fixture)
{
	char path[4096];

	if (!fixture) {
		unsetenv("FAKE_NVML_STATE");
		return;
	}
	snprintf(path, sizeof(path), "%s/t/fixtures/nvml/%s.json", srcdir, fixture);
	setenv("FAKE_NVML_STATE", path, 1);
}

static void run_with(const char *fixture, const char *check, const struct golden_topo *t,
                     enum golden_phase phase, struct golden_check_result *res)
{
	struct golden_check_ctx ctx = {0};

	set_fixture(fixture);
	ctx.conf = &conf;
	ctx.topo = t;
	ctx.node = "gpu-node-01";
	ctx.job_id = "42";
	ctx.phase = phase;
	memset(res, 0, sizeof(*res));
	find(check)->fn(&ctx, res);
}

/* Three assertions: status, action, code. */
static void expect_t(const char *fixture, const char *check, const struct golden_topo *t,
                     enum golden_status st, enum golden_action action, const char *code)
{
	struct golden_check_result res;
	int good = 1;

	run_with(fixture, check, t, GOLDEN_PHASE_PROLOG, &res);
	good &= is(golden_check_status_name(res.status), golden_check_status_name(st),
	           "%s %s: status %s", fixture ? fixture : "(no state)", check,
	           golden_check_status_name(st));
	good &= is(golden_check_action_name(res.action), golden_check_action_name(action),
	           "%s %s: action %s", fixture ? fixture : "(no state)", check,
	           golden_check_action_name(action));
	good &=
	    is(res.code, code, "%s %s: code '%s'", fixture ? fixture : "(no state)", check, code);
	if (!good)
		diag("detail: %s", res.detail);
}

static void expect(const char *fixture, const char *check, enum golden_status st,
                   enum golden_action action, const char *code)
{
	expect_t(fixture, check, topo, st, action, code);
}

static void expect_ok(const char *fixture, const char *check)
{
	expect(fixture, check, GOLDEN_ST_OK, GOLDEN_ACTION_NONE, "");
}

/* ------------------------------------------------------------ re-exec */

static void reexec(char **argv)
{
	const char *build = getenv("GOLDEN_BUILDDIR");
	const char *old = getenv("LD_LIBRARY_PATH");
	char path[8192], lib[4200];
	const char *exe = strchr(argv[0], '/') ? argv[0] : "/proc/self/exe";

	if (!build || !*build)
		build = ".";
	snprintf(fakedir, sizeof(fakedir), "%s/t/fake-nvml/.libs", build);
	if (getenv(REEXEC_ENV))
		return;
	snprintf(lib, sizeof(lib), "%s/%s", fakedir, GOLDEN_NVML_SONAME);
	if (access(lib, R_OK) != 0) {
		printf("Bail out! %s not built (make t/fake-nvml/libnvidia-ml.la): %s\n", lib,
		       strerror(errno));
		exit(1);
	}
	if (old && *old)
		snprintf(path, sizeof(path), "%s:%s", fakedir, old);
	else
		snprintf(path, sizeof(path), "%s", fakedir);
	setenv("LD_LIBRARY_PATH", path, 1);
	setenv(REEXEC_ENV, "1", 1);
	fflush(stdout);
	execv(exe, argv);
	printf("Bail out! re-exec %s: %s\n", exe, strerror(errno));
	exit(1);
}

/* ------------------------------------------- children without the fake */

/* In a child started by spawn_nolib: report what NVML and gpu-count say. */
static int child_main(const char *mode)
{
	if (strcmp(mode, "--child-open") == 0) {
		struct golden_nvml n;
		struct golden_err err = {{0}};
		int rc = golden_nvml_open(&n, &err);

		printf("%d|%d|%s\n", rc, (int)n.init_ret, err.msg);
		golden_nvml_close(&n);
		return 0;
	}
	if (strcmp(mode, "--child-count0") == 0 || strcmp(mode, "--child-count8") == 0) {
		struct golden_topo *t = make_topo(mode[13] == '8' ? 8 : 0);
		struct golden_check_result res;

		golden_conf_init(&conf);
		run_with(NULL, "gpu-count", t, GOLDEN_PHASE_PROLOG, &res);
		printf("%s|%s|%s|%s\n", golden_check_status_name(res.status),
		       golden_check_action_name(res.action), res.code, res.detail);
		free(t);
		return 0;
	}
	return 2;
}

/* Run this program in mode with LD_LIBRARY_PATH pointing nowhere; return
 * its first line of output in out, and the exit status. */
static int spawn_nolib(const char *self, const char *mode, char *out, size_t outlen)
{
	int fds[2], st = 0;
	pid_t pid;
	size_t n = 0, envn = 0;
	char **envp;
	ssize_t got;

	out[0] = '\0';
	for (char **e = environ; *e; e++)
		envn++;
	envp = calloc(envn + 3, sizeof(*envp));
	if (!envp || pipe(fds) < 0)
		return -1;
	envn = 0;
	for (char **e = environ; *e; e++)
		if (strncmp(*e, "LD_LIBRARY_PATH=", 16) != 0 && strncmp(*e, "FAKE_NVML_STATE=", 16))
			envp[envn++] = *e;
	envp[envn++] = "LD_LIBRARY_PATH=/nonexistent/slurm-golden-no-nvml";
	envp[envn] = NULL;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		char *args[] = {(char *)self, (char *)mode, NULL};

		dup2(fds[1], STDOUT_FILENO);
		close(fds[0]);
		close(fds[1]);
		execve(self, args, envp);
		_exit(127);
	}
	close(fds[1]);
	while (n + 1 < outlen && (got = read(fds[0], out + n, outlen - 1 - n)) > 0)
		n += (size_t)got;
	out[n] = '\0';
	out[strcspn(out, "\n")] = '\0';
	close(fds[0]);
	waitpid(pid, &st, 0);
	free(envp);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_no_library(const char *self)
{
	static const char want8[] = "fail|drain|gpu nvml-missing|libnvidia-ml.so.1 not found";
	char out[2048];
	int rc;

	rc = spawn_nolib(self, "--child-open", out, sizeof(out));
	if (rc == 0 && strncmp(out, "0|", 2) == 0) {
		/* A real libnvidia-ml.so.1 is in the loader's default path. */
		for (int i = 0; i < 5; i++)
			ok(1, "# SKIP a real %s is installed here: %s", GOLDEN_NVML_SONAME, out);
		return;
	}
	is_int(rc, 0, "child without the fake library ran");
	is(out, "-1|12|libnvidia-ml.so.1 not found: NVIDIA driver not installed?",
	   "missing library: clear error, init_ret LIBRARY_NOT_FOUND");
	rc = spawn_nolib(self, "--child-count8", out, sizeof(out));
	ok(rc == 0 && strncmp(out, want8, strlen(want8)) == 0,
	   "missing library with 8 GPUs on PCI: fail drain gpu nvml-missing (%s)", out);
	ok(strstr(out, "8 GPU(s) expected (NVIDIA GPUs on PCI)") != NULL,
	   "... and the detail says how many GPUs were expected and why");
	rc = spawn_nolib(self, "--child-count0", out, sizeof(out));
	ok(rc == 0 && strncmp(out, "ok|none||", 9) == 0,
	   "missing library, no GPU on PCI: ok, not a GPU node (%s)", out);
}

/* ----------------------------------------------------------- hang test */

/* Run check on fixture in a child: 1 if it was still running after ms
 * milliseconds (then it is killed), 0 if it returned, 2 if it died. */
static int runs_longer_than(const char *fixture, const char *check, int ms, int *killed)
{
	pid_t pid;
	int st = 0;

	*killed = 0;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		struct golden_check_result res;

		alarm(5); /* never outlive the test */
		run_with(fixture, check, topo, GOLDEN_PHASE_PROLOG, &res);
		_exit(0);
	}
	for (int waited = 0; waited < ms; waited += 10) {
		struct timespec ts = {0, 10 * 1000 * 1000};

		if (waitpid(pid, &st, WNOHANG) == pid)
			return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 2;
		nanosleep(&ts, NULL);
	}
	kill(pid, SIGKILL);
	if (waitpid(pid, &st, 0) == pid && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)
		*killed = 1;
	return 1;
}

static void test_hang(void)
{
	int killed;

	is_int(runs_longer_than("healthy-8gpu", "gpu-ecc", 4000, &killed), 0,
	       "control: gpu-ecc on the healthy fixture returns in a child");
	is_int(runs_longer_than("hang-ecc", "gpu-ecc", 300, &killed), 1,
	       "hang-ecc: gpu-ecc is still blocked in nvmlDeviceGetTotalEccErrors after 300 ms");
	ok(killed, "... and the child was killed with SIGKILL");
}

/* ------------------------------------------------------------- layout */

#if defined(__has_include)
#if __has_include("/usr/local/cuda/include/nvml.h")
#include "/usr/local/cuda/include/nvml.h"
#define HAVE_REAL_NVML_H 1
#elif __has_include("/usr/include/nvml.h")
#include "/usr/include/nvml.h"
#define HAVE_REAL_NVML_H 1
#endif
#endif

static void test_layouts(void)
{
#ifdef HAVE_REAL_NVML_H
#define SAME(a, b) is_int((long)(a), (long)(b), "layout: %s == %s", #a, #b)
	SAME(sizeof(nvmlPciInfo_t), sizeof(struct golden_nvml_pci_info));
	SAME(offsetof(nvmlPciInfo_t, busId), offsetof(struct golden_nvml_pci_info, busId));
	SAME(offsetof(nvmlPciInfo_t, pciDeviceId),
	     offsetof(struct golden_nvml_pci_info, pciDeviceId));
	SAME(sizeof(nvmlProcessInfo_t), sizeof(struct golden_nvml_process_info));
	SAME(offsetof(nvmlProcessInfo_t, usedGpuMemory),
	     offsetof(struct golden_nvml_process_info, usedGpuMemory));
	SAME(sizeof(nvmlFieldValue_t), sizeof(struct golden_nvml_field_value));
	SAME(offsetof(nvmlFieldValue_t, nvmlReturn),
	     offsetof(struct golden_nvml_field_value, nvmlReturn));
	SAME(offsetof(nvmlFieldValue_t, value), offsetof(struct golden_nvml_field_value, value));
	SAME(sizeof(nvmlGpuFabricInfo_t), sizeof(struct golden_nvml_gpu_fabric_info));
	SAME(offsetof(nvmlGpuFabricInfo_t, state),
	     offsetof(struct golden_nvml_gpu_fabric_info, state));
#ifdef nvmlGpuFabricInfo_v2
	SAME(sizeof(nvmlGpuFabricInfo_v2_t), sizeof(struct golden_nvml_gpu_fabric_info_v2));
	SAME(nvmlGpuFabricInfo_v2, GOLDEN_NVML_GPU_FABRIC_INFO_V2);
#endif
#ifdef nvmlGpuFabricInfo_v3
	SAME(sizeof(nvmlGpuFabricInfo_v3_t), sizeof(struct golden_nvml_gpu_fabric_info_v3));
	SAME(nvmlGpuFabricInfo_v3, GOLDEN_NVML_GPU_FABRIC_INFO_V3);
#endif
#ifdef NVML_FI_DEV_GET_GPU_RECOVERY_ACTION
	SAME(NVML_FI_DEV_GET_GPU_RECOVERY_ACTION, GOLDEN_NVML_FI_DEV_GET_GPU_RECOVERY_ACTION);
#endif
	SAME(nvmlClocksThrottleReasonHwSlowdown, GOLDEN_NVML_CLOCKS_EVENT_HW_SLOWDOWN);
	SAME(nvmlClocksThrottleReasonHwThermalSlowdown, GOLDEN_NVML_CLOCKS_EVENT_HW_THERMAL);
	SAME(nvmlClocksThrottleReasonHwPowerBrakeSlowdown, GOLDEN_NVML_CLOCKS_EVENT_HW_POWER_BRAKE);
	SAME(nvmlClocksThrottleReasonSwThermalSlowdown, GOLDEN_NVML_CLOCKS_EVENT_SW_THERMAL);
	SAME(NVML_ERROR_GPU_IS_LOST, GOLDEN_NVML_ERROR_GPU_IS_LOST);
	SAME(NVML_ERROR_LIBRARY_NOT_FOUND, GOLDEN_NVML_ERROR_LIBRARY_NOT_FOUND);
	SAME(NVML_ERROR_ARGUMENT_VERSION_MISMATCH, GOLDEN_NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
	SAME(NVML_GPU_FABRIC_STATE_COMPLETED, GOLDEN_NVML_GPU_FABRIC_STATE_COMPLETED);
#undef SAME
#else
	diag("no NVIDIA nvml.h installed: layouts checked only by the _Static_asserts in nvml.c");
#endif
}

/* --------------------------------------------------------------- main */

static void test_busid(void)
{
	char out[GOLDEN_BUSID_LEN];

	ok(golden_nvml_busid_normalize("00000000:3B:00.0", out, sizeof(out)) == 0 &&
	       strcmp(out, "0000:3b:00.0") == 0,
	   "NVML bus id 00000000:3B:00.0 -> 0000:3b:00.0 (%s)", out);
	ok(golden_nvml_busid_normalize("0000:DF:00.0", out, sizeof(out)) == 0 &&
	       strcmp(out, "0000:df:00.0") == 0,
	   "legacy bus id 0000:DF:00.0 -> 0000:df:00.0 (%s)", out);
	is_int(golden_nvml_busid_normalize("00000000:3B:00.0x", out, sizeof(out)), -1,
	       "trailing junk is rejected");
	is_int(golden_nvml_busid_normalize("GPU-1234", out, sizeof(out)), -1,
	       "a UUID is not a bus id");
	is_int(golden_nvml_busid_normalize("00000000:3B:00.0", out, 8), -1,
	       "too small a buffer is an error");
}

static void test_table(void)
{
	static const char *const names[] = {"gpu-count",  "gpu-ecc",    "gpu-remap",
	                                    "gpu-pcie",   "gpu-nvlink", "gpu-throttle",
	                                    "gpu-fabric", "gpu-procs",  "gpu-recovery"};
	const unsigned all = GOLDEN_PHASE_PROLOG | GOLDEN_PHASE_EPILOG | GOLDEN_PHASE_MANUAL |
	                     GOLDEN_PHASE_HEALTH_ANY;
	int n = 0, good = 1;

	for (const struct golden_check *c = golden_gpu_checks; c->name; c++, n++) {
		unsigned want =
		    strcmp(c->name, "gpu-procs") == 0
		        ? (GOLDEN_PHASE_PROLOG | GOLDEN_PHASE_MANUAL | GOLDEN_PHASE_HEALTH)
		        : all;

		if (n >= 9 || strcmp(c->name, names[n]) != 0 || c->cls != GOLDEN_CHK_GPU ||
		    !c->fn || c->deadline_ms != 2000 || c->phases != want) {
			diag("bad entry %d: %s", n, c->name);
			good = 0;
		}
	}
	is_int(n, 9, "golden_gpu_checks has 9 checks, terminated by {NULL}");
	ok(good, "names, class GPU, 2000 ms deadlines; gpu-procs prolog|manual|healthcheck (never "
	         "while a job runs), others in every phase");
}

int main(int argc, char **argv)
{
	static const char *const checks[] = {"gpu-count",  "gpu-ecc",    "gpu-remap",
	                                     "gpu-pcie",   "gpu-nvlink", "gpu-throttle",
	                                     "gpu-fabric", "gpu-procs",  "gpu-recovery"};
	struct golden_check_result res;
	struct golden_topo *notopo;

	if (argc > 1)
		return child_main(argv[1]);
	reexec(argv);
	srcdir = getenv("GOLDEN_SRCDIR");
	if (!srcdir || !*srcdir)
		srcdir = ".";
	unsetenv("SLURM_JOB_GPUS");
	golden_conf_init(&conf);
	topo = make_topo(8);
	notopo = make_topo(0);

	test_busid();
	test_table();
	test_layouts();

	/* Healthy: every check passes. */
	for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++)
		expect_ok("healthy-8gpu", checks[i]);
	run_with("healthy-8gpu", "gpu-count", topo, GOLDEN_PHASE_EPILOG, &res);
	is(res.detail, "8 GPU(s) in NVML, 8 expected (NVIDIA GPUs on PCI)",
	   "healthy gpu-count detail");
	run_with("healthy-8gpu", "gpu-fabric", topo, GOLDEN_PHASE_EPILOG, &res);
	ok(strncmp(res.detail, "8 GPU(s) registered", 19) == 0,
	   "healthy gpu-fabric looked at all 8 GPUs (%s)", res.detail);

	/* A real node: what NVIDIA's NVML (driver 580) answered for an H200
	 * passed through to a VM (t/fixtures/nvml/real-h200-vm.json, written by
	 * t/nvml-snapshot on that node). Every check passes, as it did there,
	 * and gpu-nvlink does not call an SXM part a PCIe GPU. */
	{
		struct golden_topo *h200 = make_topo(1);

		snprintf(h200->gpus[0].busid, sizeof(h200->gpus[0].busid), "0000:00:06.0");
		snprintf(h200->gpus[0].model, sizeof(h200->gpus[0].model), "H200 SXM 141GB");
		h200->gpus[0].device = 0x2335;
		h200->nvswitches = 0;
		for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++)
			expect_t("real-h200-vm", checks[i], h200, GOLDEN_ST_OK, GOLDEN_ACTION_NONE,
			         "");
		run_with("real-h200-vm", "gpu-nvlink", h200, GOLDEN_PHASE_PROLOG, &res);
		ok(strstr(res.detail, "gpu0 H200 SXM 141GB, SXM parts that have NVLink") != NULL,
		   "real H200 in a VM: gpu-nvlink names the hidden NVLink (%s)", res.detail);
		run_with("real-h200-vm", "gpu-throttle", h200, GOLDEN_PHASE_PROLOG, &res);
		ok(strstr(res.detail, "no HW slowdown") != NULL,
		   "real H200: clocks event 0x1 (GPU idle) is no slowdown (%s)", res.detail);
		run_with("healthy-8gpu", "gpu-nvlink", topo, GOLDEN_PHASE_PROLOG, &res);
		ok(strstr(res.detail, "SXM parts") == NULL, "NVLink up: no hidden-NVLink note (%s)",
		   res.detail);
		free(h200);
	}

	/* gpu-count */
	expect("missing-gpu", "gpu-count", GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_REBOOT,
	       "gpu 7/8 missing 0000:df:00.0");
	expect_ok("missing-gpu", "gpu-ecc");
	expect("ecc-missing-middle", "gpu-count", GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_REBOOT,
	       "gpu 7/8 missing 0000:43:00.0");
	conf.expected_gpus = 8;
	expect_t("missing-gpu", "gpu-count", NULL, GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_REBOOT,
	         "gpu 7/8 missing");
	conf.expected_gpus = 7;
	expect_t("missing-gpu", "gpu-count", NULL, GOLDEN_ST_OK, GOLDEN_ACTION_NONE, "");
	expect("healthy-8gpu", "gpu-count", GOLDEN_ST_WARN, GOLDEN_ACTION_NONE, "gpu 8/7 extra");
	conf.expected_gpus = -1;
	expect("gpu-lost", "gpu-count", GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_REBOOT, "gpu5 lost");
	expect("gpu-lost", "gpu-ecc", GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_REBOOT, "gpu5 lost");

	/* NVML does not start on a node whose GPUs are on PCI: one failure, by
	 * gpu-count, a plain drain (it ends when NVML works and the checks
	 * pass), not nine reboot-class ones a driver upgrade would cause
	 * across the fleet. */
	expect("init-fail", "gpu-count", GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN, "gpu nvml-init");
	run_with("init-fail", "gpu-count", topo, GOLDEN_PHASE_PROLOG, &res);
	ok(strstr(res.detail, "nvmlInit_v2 failed: Driver Not Loaded") != NULL &&
	       strstr(res.detail, "load the nvidia kernel module"),
	   "init failure detail names the NVML error and what to do (%s)", res.detail);
	expect("init-fail", "gpu-ecc", GOLDEN_ST_WARN, GOLDEN_ACTION_NONE, "gpu nvml-unavailable");
	{
		int fails = 0, warns = 0;

		for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) {
			run_with("init-fail", checks[i], topo, GOLDEN_PHASE_PROLOG, &res);
			fails += res.status == GOLDEN_ST_FAIL;
			warns += res.status == GOLDEN_ST_WARN;
		}
		ok(fails == 1 && warns == 8,
		   "NVML down: one failure for the 9 GPU checks, 8 say they could not look "
		   "(%d failed, %d warned)",
		   fails, warns);
		/* gpu-count off in golden.conf: the next GPU check reports it. */
		conf.nchecks = 1;
		snprintf(conf.checks[0].name, sizeof(conf.checks[0].name), "gpu-count");
		conf.checks[0].disabled = true;
		expect("init-fail", "gpu-ecc", GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN,
		       "gpu nvml-init");
		expect("init-fail", "gpu-remap", GOLDEN_ST_WARN, GOLDEN_ACTION_NONE,
		       "gpu nvml-unavailable");
		conf.nchecks = 0;
		memset(&conf.checks[0], 0, sizeof(conf.checks[0]));
	}
	expect("init-mismatch", "gpu-count", GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN,
	       "gpu nvml-mismatch");
	run_with("init-mismatch", "gpu-count", topo, GOLDEN_PHASE_PROLOG, &res);
	ok(strstr(res.detail, "reload the nvidia modules or reboot") != NULL,
	   "driver/library mismatch (an upgrade without reload) says so (%s)", res.detail);
	expect_t("init-fail", "gpu-count", notopo, GOLDEN_ST_OK, GOLDEN_ACTION_NONE, "");
	expect(NULL, "gpu-count", GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN, "gpu nvml-init");
	run_with(NULL, "gpu-count", topo, GOLDEN_PHASE_PROLOG, &res);
	ok(strstr(res.detail, "NVML Shared Library Not Found") != NULL,
	   "FAKE_NVML_STATE unset: nvmlInit_v2 fails with LIBRARY_NOT_FOUND (%s)", res.detail);

	/* One fixture per fault. */
	expect("ecc", "gpu-ecc", GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_RESET, "gpu4 ecc-dbe");
	expect_ok("ecc", "gpu-remap");
	expect("ecc-missing-middle", "gpu-ecc", GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_RESET,
	       "gpu4 ecc-dbe");
	expect("remap-pending", "gpu-remap", GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_RESET,
	       "gpu3 remap-pending");
	expect("remap-failed", "gpu-remap", GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_REBOOT,
	       "gpu5 remap-failed");
	expect("retired-pending", "gpu-remap", GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_RESET,
	       "gpu2 retire-pending");
	expect("pcie-width", "gpu-pcie", GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN, "gpu6 pcie x8/x16");
	expect("nvlink-down", "gpu-nvlink", GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN,
	       "gpu1 nvlink 7 down");
	expect("hw-slowdown", "gpu-throttle", GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN,
	       "gpu0 hw-slowdown");
	expect("fabric-not-ready", "gpu-fabric", GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN,
	       "gpu7 fabric not-ready");
	/* GB200 trays: one NVLink domain and clique per node, or a split. */
	expect_t("gb200-rack-a", "gpu-fabric", notopo, GOLDEN_ST_OK, GOLDEN_ACTION_NONE, "");
	expect_t("gb200-split", "gpu-fabric", notopo, GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN,
	         "gpu2 fabric split");
	run_with("gb200-split", "gpu-fabric", notopo, GOLDEN_PHASE_PROLOG, &res);
	ok(strstr(res.detail, "5b0f6c1e-2d3a-4e8b-9c47-1a2b3c4d5e6f clique 2") &&
	       strstr(res.detail, "clique 1"),
	   "split detail names the domain and both cliques (%s)", res.detail);
	expect("leftover-proc", "gpu-procs", GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN,
	       "gpu2 leftover pid 4242");
	run_with("leftover-proc", "gpu-procs", topo, GOLDEN_PHASE_PROLOG, &res);
	ok(strstr(res.detail, "pid 4242 (1024 MiB)") != NULL,
	   "leftover detail: pid and memory (%s)", res.detail);
	setenv("SLURM_JOB_GPUS", "0,1", 1);
	expect_ok("leftover-proc", "gpu-procs");
	setenv("SLURM_JOB_GPUS", "1,2", 1);
	expect("leftover-proc", "gpu-procs", GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN,
	       "gpu2 leftover pid 4242");
	unsetenv("SLURM_JOB_GPUS");
	expect("recovery-reboot", "gpu-recovery", GOLDEN_ST_FAIL, GOLDEN_ACTION_DRAIN_REBOOT,
	       "gpu3 recovery reboot");

	/* Warnings only, on a PCIe node without NVLink. */
	expect("warn-only", "gpu-pcie", GOLDEN_ST_WARN, GOLDEN_ACTION_NONE, "gpu0 pcie gen1/gen5");
	expect("warn-only", "gpu-throttle", GOLDEN_ST_WARN, GOLDEN_ACTION_NONE, "gpu3 sw-thermal");
	expect_ok("warn-only", "gpu-nvlink");
	expect_ok("warn-only", "gpu-fabric");

	/* A check blocked in the driver does not return. */
	test_hang();

	/* Without the fake on LD_LIBRARY_PATH. */
	test_no_library(strchr(argv[0], '/') ? argv[0] : "/proc/self/exe");

	free(topo);
	free(notopo);
	unsetenv("FAKE_NVML_STATE");
	return done_testing();
}
