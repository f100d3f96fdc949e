/* A stand-in libnvidia-ml.so.1 for machines without an NVIDIA GPU.
 *
 * It exports the NVML entry points slurm-golden uses, with NVML's
 * signatures, and answers them from the JSON file named by FAKE_NVML_STATE,
 * read at nvmlInit_v2. The format is in README.md next to this file. The
 * types come from lib/nvml/nvml.h, slurm-golden's hand-written NVML declarations
 * (their layouts are checked against NVIDIA's nvml.h where one is installed).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "nvml/nvml.h"

/* ---------------------------------------------------------- entry points */
/* Prototypes for the exported NVML functions (NVML's own signatures). */
golden_nvml_return_t nvmlInit_v2(void);
golden_nvml_return_t nvmlShutdown(void);
const char *nvmlErrorString(golden_nvml_return_t result);
golden_nvml_return_t nvmlDeviceGetCount_v2(unsigned int *deviceCount);
golden_nvml_return_t nvmlDeviceGetHandleByIndex_v2(unsigned int index,
                                                   golden_nvml_device_t *device);
golden_nvml_return_t nvmlDeviceGetPciInfo_v3(golden_nvml_device_t device,
                                             struct golden_nvml_pci_info *pci);
golden_nvml_return_t nvmlDeviceGetTotalEccErrors(golden_nvml_device_t device,
                                                 golden_nvml_memory_error_type_t errorType,
                                                 golden_nvml_ecc_counter_type_t counterType,
                                                 unsigned long long *eccCounts);
golden_nvml_return_t nvmlDeviceGetRemappedRows(golden_nvml_device_t device, unsigned int *corrRows,
                                               unsigned int *uncRows, unsigned int *isPending,
                                               unsigned int *failureOccurred);
golden_nvml_return_t nvmlDeviceGetRetiredPagesPendingStatus(golden_nvml_device_t device,
                                                            golden_nvml_enable_state_t *isPending);
golden_nvml_return_t nvmlDeviceGetCurrPcieLinkGeneration(golden_nvml_device_t device,
                                                         unsigned int *currLinkGen);
golden_nvml_return_t nvmlDeviceGetCurrPcieLinkWidth(golden_nvml_device_t device,
                                                    unsigned int *currLinkWidth);
golden_nvml_return_t nvmlDeviceGetMaxPcieLinkGeneration(golden_nvml_device_t device,
                                                        unsigned int *maxLinkGen);
golden_nvml_return_t nvmlDeviceGetMaxPcieLinkWidth(golden_nvml_device_t device,
                                                   unsigned int *maxLinkWidth);
golden_nvml_return_t nvmlDeviceGetNvLinkState(golden_nvml_device_t device, unsigned int link,
                                              golden_nvml_enable_state_t *isActive);
golden_nvml_return_t nvmlDeviceGetCurrentClocksEventReasons(golden_nvml_device_t device,
                                                            unsigned long long *clocksEventReasons);
golden_nvml_return_t nvmlDeviceGetCurrentClocksThrottleReasons(golden_nvml_device_t device,
                                                               unsigned long long *reasons);
golden_nvml_return_t nvmlDeviceGetGpuFabricInfo(golden_nvml_device_t device,
                                                struct golden_nvml_gpu_fabric_info *gpuFabricInfo);
golden_nvml_return_t nvmlDeviceGetGpuFabricInfoV(golden_nvml_device_t device, void *gpuFabricInfo);
golden_nvml_return_t
nvmlDeviceGetComputeRunningProcesses_v3(golden_nvml_device_t device, unsigned int *infoCount,
                                        struct golden_nvml_process_info *infos);
golden_nvml_return_t nvmlDeviceGetFieldValues(golden_nvml_device_t device, int valuesCount,
                                              struct golden_nvml_field_value *values);

/* ---------------------------------------------------------------- state */
#define FAKE_MAX_GPUS   64
#define FAKE_MAX_PROCS  64
#define FAKE_MAX_ERRORS 16

struct fake_proc {
	unsigned int pid;
	unsigned long long mem;
};

struct fake_error {
	char fn[64];
	golden_nvml_return_t ret;
};

struct golden_nvml_device_st {
	unsigned int index;
	unsigned int domain, bus, dev, fn;
	unsigned int pci_device_id;
	bool ecc_supported;
	unsigned long long ecc_unc_volatile;
	bool remap_supported;
	unsigned int remap_corr, remap_unc;
	bool remap_pending, remap_failure;
	bool retired_supported, retired_pending;
	unsigned int gen, width, max_gen, max_width;
	bool nvlink_supported;
	unsigned int nlinks;
	bool nvlink_up[GOLDEN_NVML_NVLINK_MAX_LINKS];
	unsigned long long clocks;
	bool fabric_supported;
	unsigned int fabric_state, fabric_health;
	golden_nvml_return_t fabric_status;
	unsigned char fabric_uuid[GOLDEN_NVML_GPU_FABRIC_UUID_LEN];
	unsigned int fabric_clique;
	unsigned int nprocs;
	struct fake_proc procs[FAKE_MAX_PROCS];
	bool recovery_supported;
	unsigned int recovery_action;
	unsigned int nerrors;
	struct fake_error errors[FAKE_MAX_ERRORS];
};

static struct {
	int refs;
	unsigned int ngpus;
	struct golden_nvml_device_st gpus[FAKE_MAX_GPUS];
	char hang[64];
} fake;

static void fake_hang(const char *fn)
{
	if (fake.hang[0] && strcmp(fake.hang, fn) == 0)
		for (;;)
			pause();
}

/* Common entry: hang if asked, check the library is initialised and the
 * handle is one of ours, and answer an injected error if there is one. */
static golden_nvml_return_t fake_enter(const char *fn, golden_nvml_device_t d)
{
	unsigned int i;

	fake_hang(fn);
	if (fake.refs <= 0)
		return GOLDEN_NVML_ERROR_UNINITIALIZED;
	if (!d || d < fake.gpus || d >= fake.gpus + fake.ngpus)
		return GOLDEN_NVML_ERROR_INVALID_ARGUMENT;
	for (i = 0; i < d->nerrors; i++)
		if (strcmp(d->errors[i].fn, fn) == 0)
			return d->errors[i].ret;
	return GOLDEN_NVML_SUCCESS;
}

static int bad(const char *path, const char *what, const char *key)
{
	fprintf(stderr, "fake-nvml: %s: %s%s%s\n", path, what, key ? ": " : "", key ? key : "");
	return -1;
}

static bool is_unsupported(json_object *v)
{
	return json_object_is_type(v, json_type_string) &&
	       strcmp(json_object_get_string(v), "unsupported") == 0;
}

static unsigned long long get_u64(json_object *v)
{
	if (json_object_is_type(v, json_type_string))
		return strtoull(json_object_get_string(v), NULL, 0);
	return (unsigned long long)json_object_get_int64(v);
}

static int parse_remap(const char *path, struct golden_nvml_device_st *g, json_object *v)
{
	if (is_unsupported(v)) {
		g->remap_supported = false;
		return 0;
	}
	if (!json_object_is_type(v, json_type_object))
		return bad(path, "remap must be an object or \"unsupported\"", NULL);
	json_object_object_foreach(v, key, val)
	{
		if (strcmp(key, "corr") == 0)
			g->remap_corr = (unsigned int)json_object_get_int(val);
		else if (strcmp(key, "unc") == 0)
			g->remap_unc = (unsigned int)json_object_get_int(val);
		else if (strcmp(key, "pending") == 0)
			g->remap_pending = json_object_get_boolean(val);
		else if (strcmp(key, "failure") == 0)
			g->remap_failure = json_object_get_boolean(val);
		else
			return bad(path, "unknown remap key", key);
	}
	return 0;
}

static int parse_pcie(const char *path, struct golden_nvml_device_st *g, json_object *v)
{
	if (!json_object_is_type(v, json_type_object))
		return bad(path, "pcie must be an object", NULL);
	json_object_object_foreach(v, key, val)
	{
		unsigned int x = (unsigned int)json_object_get_int(val);

		if (strcmp(key, "gen") == 0)
			g->gen = x;
		else if (strcmp(key, "width") == 0)
			g->width = x;
		else if (strcmp(key, "max_gen") == 0)
			g->max_gen = x;
		else if (strcmp(key, "max_width") == 0)
			g->max_width = x;
		else
			return bad(path, "unknown pcie key", key);
	}
	return 0;
}

/* "8c2b1e7a-4f0d-4c5e-9a61-0d3f5e7b9c21" (or without dashes) -> 16 bytes. */
static int parse_uuid(const char *s, unsigned char out[GOLDEN_NVML_GPU_FABRIC_UUID_LEN])
{
	int n = 0;

	for (; s && *s; s++) {
		unsigned int v;

		if (*s == '-')
			continue;
		if (n >= 2 * GOLDEN_NVML_GPU_FABRIC_UUID_LEN || sscanf(s, "%1x", &v) != 1)
			return -1;
		out[n / 2] = (unsigned char)(n % 2 ? out[n / 2] | v : v << 4);
		n++;
	}
	return n == 2 * GOLDEN_NVML_GPU_FABRIC_UUID_LEN ? 0 : -1;
}

static int parse_fabric(const char *path, struct golden_nvml_device_st *g, json_object *v)
{
	if (is_unsupported(v)) {
		g->fabric_supported = false;
		return 0;
	}
	if (!json_object_is_type(v, json_type_object))
		return bad(path, "fabric must be an object or \"unsupported\"", NULL);
	g->fabric_supported = true;
	g->fabric_state = GOLDEN_NVML_GPU_FABRIC_STATE_COMPLETED;
	json_object_object_foreach(v, key, val)
	{
		if (strcmp(key, "state") == 0)
			g->fabric_state = (unsigned int)json_object_get_int(val);
		else if (strcmp(key, "status") == 0)
			g->fabric_status = (golden_nvml_return_t)json_object_get_int(val);
		else if (strcmp(key, "health_summary") == 0)
			g->fabric_health = (unsigned int)json_object_get_int(val);
		else if (strcmp(key, "cluster_uuid") == 0) {
			if (parse_uuid(json_object_get_string(val), g->fabric_uuid) < 0)
				return bad(path,
				           "cluster_uuid: expected 32 hex digits (dashes allowed)",
				           json_object_get_string(val));
		} else if (strcmp(key, "clique_id") == 0)
			g->fabric_clique = (unsigned int)json_object_get_int(val);
		else
			return bad(path, "unknown fabric key", key);
	}
	return 0;
}

static int parse_gpu(const char *path, struct golden_nvml_device_st *g, json_object *o)
{
	/* Healthy defaults: an H100 SXM5 on PCIe gen5 x16 with 18 NVLinks up. */
	g->pci_device_id = 0x233010de;
	g->ecc_supported = true;
	g->remap_supported = true;
	g->retired_supported = false; /* Ampere and later: row remapping instead */
	g->gen = g->max_gen = 5;
	g->width = g->max_width = 16;
	g->nvlink_supported = true;
	g->nlinks = 18;
	for (unsigned int l = 0; l < GOLDEN_NVML_NVLINK_MAX_LINKS; l++)
		g->nvlink_up[l] = true;
	g->recovery_supported = true;
	if (!json_object_is_type(o, json_type_object))
		return bad(path, "each of gpus must be an object", NULL);
	json_object_object_foreach(o, key, val)
	{
		if (strcmp(key, "bus_id") == 0) {
			const char *s = json_object_get_string(val);
			char tail;

			if (!s || sscanf(s, "%x:%x:%x.%x%c", &g->domain, &g->bus, &g->dev, &g->fn,
			                 &tail) != 4)
				return bad(path, "bus_id must look like 0000:1b:00.0", s);
		} else if (strcmp(key, "pci_device_id") == 0) {
			g->pci_device_id = (unsigned int)get_u64(val);
		} else if (strcmp(key, "ecc_uncorrected_volatile") == 0) {
			if (is_unsupported(val))
				g->ecc_supported = false;
			else
				g->ecc_unc_volatile = get_u64(val);
		} else if (strcmp(key, "remap") == 0) {
			if (parse_remap(path, g, val) < 0)
				return -1;
		} else if (strcmp(key, "retired_pages_pending") == 0) {
			g->retired_supported = !is_unsupported(val);
			g->retired_pending = g->retired_supported && json_object_get_boolean(val);
		} else if (strcmp(key, "pcie") == 0) {
			if (parse_pcie(path, g, val) < 0)
				return -1;
		} else if (strcmp(key, "nvlink") == 0) {
			if (!is_unsupported(val))
				return bad(path, "nvlink can only be \"unsupported\"", NULL);
			g->nvlink_supported = false;
		} else if (strcmp(key, "nvlink_up") == 0) {
			size_t n = json_object_is_type(val, json_type_array)
			               ? json_object_array_length(val)
			               : 0;

			if (!n || n > GOLDEN_NVML_NVLINK_MAX_LINKS)
				return bad(path, "nvlink_up must be an array of 1 to 36 booleans",
				           NULL);
			g->nlinks = (unsigned int)n;
			for (size_t l = 0; l < n; l++)
				g->nvlink_up[l] =
				    json_object_get_boolean(json_object_array_get_idx(val, l));
		} else if (strcmp(key, "clocks_event_reasons") == 0) {
			g->clocks = get_u64(val);
		} else if (strcmp(key, "fabric") == 0) {
			if (parse_fabric(path, g, val) < 0)
				return -1;
		} else if (strcmp(key, "procs") == 0) {
			size_t n = json_object_is_type(val, json_type_array)
			               ? json_object_array_length(val)
			               : 0;

			if (n > FAKE_MAX_PROCS)
				return bad(path, "too many procs", NULL);
			g->nprocs = (unsigned int)n;
			for (size_t p = 0; p < n; p++) {
				json_object *po = json_object_array_get_idx(val, p), *x;

				if (json_object_object_get_ex(po, "pid", &x))
					g->procs[p].pid = (unsigned int)json_object_get_int(x);
				if (json_object_object_get_ex(po, "mem", &x))
					g->procs[p].mem = get_u64(x);
			}
		} else if (strcmp(key, "recovery_action") == 0) {
			if (is_unsupported(val))
				g->recovery_supported = false;
			else
				g->recovery_action = (unsigned int)json_object_get_int(val);
		} else if (strcmp(key, "errors") == 0) {
			if (!json_object_is_type(val, json_type_object))
				return bad(path, "errors must map function names to codes", NULL);
			json_object_object_foreach(val, fname, code)
			{
				struct fake_error *e;

				if (g->nerrors >= FAKE_MAX_ERRORS)
					return bad(path, "too many errors", NULL);
				e = &g->errors[g->nerrors++];
				snprintf(e->fn, sizeof(e->fn), "%s", fname);
				e->ret = (golden_nvml_return_t)json_object_get_int(code);
			}
		} else {
			return bad(path, "unknown gpu key", key);
		}
	}
	return 0;
}

static int expand_node(const char *tmpl, char *out, size_t len)
{
	const char *node = getenv("SLURMD_NODENAME");
	size_t o = 0;

	for (; *tmpl; tmpl++) {
		const char *add = NULL;
		char one[2] = {*tmpl, '\0'};

		if (tmpl[0] == '%' && tmpl[1] == 'n') {
			if (!node || !*node || strchr(node, '/'))
				return -1;
			add = node;
			tmpl++;
		} else {
			add = one;
		}
		if (o + strlen(add) >= len)
			return -1;
		memcpy(out + o, add, strlen(add));
		o += strlen(add);
	}
	out[o] = '\0';
	return 0;
}

/* 0, or an NVML error: LIBRARY_NOT_FOUND when the file is missing or not
 * JSON, UNKNOWN when it is JSON but not in the expected format. */
static golden_nvml_return_t fake_load(void)
{
	const char *tmpl = getenv("FAKE_NVML_STATE");
	char path[4096];
	json_object *root, *v;
	golden_nvml_return_t ret = GOLDEN_NVML_SUCCESS;

	/* %n: the Slurm node name, so one setting serves every node of a test
	 * cluster (slurmd steps and HealthCheckProgram set SLURMD_NODENAME). */
	if (tmpl && expand_node(tmpl, path, sizeof(path)) < 0)
		return GOLDEN_NVML_ERROR_LIBRARY_NOT_FOUND;

	memset(&fake.gpus, 0, sizeof(fake.gpus));
	fake.ngpus = 0;
	fake.hang[0] = '\0';
	if (!tmpl || !*path || access(path, R_OK) != 0)
		return GOLDEN_NVML_ERROR_LIBRARY_NOT_FOUND;
	root = json_object_from_file(path);
	if (!root) {
		bad(path, "not JSON", json_util_get_last_err());
		return GOLDEN_NVML_ERROR_LIBRARY_NOT_FOUND;
	}
	if (!json_object_is_type(root, json_type_object)) {
		bad(path, "the top level must be an object", NULL);
		json_object_put(root);
		return GOLDEN_NVML_ERROR_UNKNOWN;
	}
	json_object_object_foreach(root, key, val)
	{
		if (strcmp(key, "init") == 0) {
			if (json_object_is_type(val, json_type_int))
				ret = (golden_nvml_return_t)json_object_get_int(val);
			else if (strcmp(json_object_get_string(val), "fail") == 0)
				ret = GOLDEN_NVML_ERROR_DRIVER_NOT_LOADED;
			else if (strcmp(json_object_get_string(val), "ok") != 0) {
				bad(path, "init: ok, fail or an NVML code",
				    json_object_get_string(val));
				ret = GOLDEN_NVML_ERROR_UNKNOWN;
			}
		} else if (strcmp(key, "hang") == 0) {
			snprintf(fake.hang, sizeof(fake.hang), "%s", json_object_get_string(val));
		} else if (strcmp(key, "gpus") == 0) {
			continue;
		} else if (strcmp(key, "comment") != 0) {
			bad(path, "unknown key", key);
			ret = GOLDEN_NVML_ERROR_UNKNOWN;
		}
	}
	if (ret == GOLDEN_NVML_SUCCESS && json_object_object_get_ex(root, "gpus", &v)) {
		size_t n =
		    json_object_is_type(v, json_type_array) ? json_object_array_length(v) : 0;

		if (n > FAKE_MAX_GPUS) {
			bad(path, "too many gpus", NULL);
			ret = GOLDEN_NVML_ERROR_UNKNOWN;
		}
		for (size_t i = 0; ret == GOLDEN_NVML_SUCCESS && i < n; i++) {
			fake.gpus[i].index = (unsigned int)i;
			if (parse_gpu(path, &fake.gpus[i], json_object_array_get_idx(v, i)) < 0)
				ret = GOLDEN_NVML_ERROR_UNKNOWN;
			fake.ngpus = (unsigned int)i + 1;
		}
	}
	if (ret != GOLDEN_NVML_SUCCESS)
		fake.ngpus = 0;
	json_object_put(root);
	return ret;
}

/* ------------------------------------------------------------ the API */
golden_nvml_return_t nvmlInit_v2(void)
{
	golden_nvml_return_t r;

	if (fake.refs > 0) {
		fake.refs++; /* NVML counts nested init/shutdown pairs */
		return GOLDEN_NVML_SUCCESS;
	}
	r = fake_load();
	fake_hang("nvmlInit_v2");
	if (r == GOLDEN_NVML_SUCCESS)
		fake.refs = 1;
	return r;
}

golden_nvml_return_t nvmlShutdown(void)
{
	fake_hang("nvmlShutdown");
	if (fake.refs <= 0)
		return GOLDEN_NVML_ERROR_UNINITIALIZED;
	if (--fake.refs == 0)
		fake.ngpus = 0;
	return GOLDEN_NVML_SUCCESS;
}

const char *nvmlErrorString(golden_nvml_return_t result)
{
	switch (result) {
	case GOLDEN_NVML_SUCCESS:
		return "Success";
	case GOLDEN_NVML_ERROR_UNINITIALIZED:
		return "Uninitialized";
	case GOLDEN_NVML_ERROR_INVALID_ARGUMENT:
		return "Invalid Argument";
	case GOLDEN_NVML_ERROR_NOT_SUPPORTED:
		return "Not Supported";
	case GOLDEN_NVML_ERROR_NO_PERMISSION:
		return "Insufficient Permissions";
	case GOLDEN_NVML_ERROR_INSUFFICIENT_SIZE:
		return "Insufficient Size";
	case GOLDEN_NVML_ERROR_DRIVER_NOT_LOADED:
		return "Driver Not Loaded";
	case GOLDEN_NVML_ERROR_LIBRARY_NOT_FOUND:
		return "NVML Shared Library Not Found";
	case GOLDEN_NVML_ERROR_GPU_IS_LOST:
		return "GPU is lost";
	case GOLDEN_NVML_ERROR_RESET_REQUIRED:
		return "GPU requires reset";
	case GOLDEN_NVML_ERROR_ARGUMENT_VERSION_MISMATCH:
		return "Argument version mismatch";
	default:
		return "Unknown Error";
	}
}

golden_nvml_return_t nvmlDeviceGetCount_v2(unsigned int *deviceCount)
{
	fake_hang("nvmlDeviceGetCount_v2");
	if (fake.refs <= 0)
		return GOLDEN_NVML_ERROR_UNINITIALIZED;
	if (!deviceCount)
		return GOLDEN_NVML_ERROR_INVALID_ARGUMENT;
	*deviceCount = fake.ngpus;
	return GOLDEN_NVML_SUCCESS;
}

golden_nvml_return_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, golden_nvml_device_t *device)
{
	golden_nvml_return_t r;

	fake_hang("nvmlDeviceGetHandleByIndex_v2");
	if (fake.refs <= 0)
		return GOLDEN_NVML_ERROR_UNINITIALIZED;
	if (!device || index >= fake.ngpus)
		return GOLDEN_NVML_ERROR_INVALID_ARGUMENT;
	if ((r = fake_enter("nvmlDeviceGetHandleByIndex_v2", &fake.gpus[index])))
		return r;
	*device = &fake.gpus[index];
	return GOLDEN_NVML_SUCCESS;
}

golden_nvml_return_t nvmlDeviceGetPciInfo_v3(golden_nvml_device_t d,
                                             struct golden_nvml_pci_info *pci)
{
	golden_nvml_return_t r;

	if ((r = fake_enter("nvmlDeviceGetPciInfo_v3", d)))
		return r;
	if (!pci)
		return GOLDEN_NVML_ERROR_INVALID_ARGUMENT;
	memset(pci, 0, sizeof(*pci));
	snprintf(pci->busIdLegacy, sizeof(pci->busIdLegacy), "%04X:%02X:%02X.0", d->domain & 0xffff,
	         d->bus & 0xff, d->dev & 0x1f);
	snprintf(pci->busId, sizeof(pci->busId), "%08X:%02X:%02X.0", d->domain, d->bus & 0xff,
	         d->dev & 0x1f);
	pci->domain = d->domain;
	pci->bus = d->bus;
	pci->device = d->dev;
	pci->pciDeviceId = d->pci_device_id;
	pci->pciSubSystemId = 0x16c110de;
	return GOLDEN_NVML_SUCCESS;
}

golden_nvml_return_t nvmlDeviceGetTotalEccErrors(golden_nvml_device_t d,
                                                 golden_nvml_memory_error_type_t errorType,
                                                 golden_nvml_ecc_counter_type_t counterType,
                                                 unsigned long long *eccCounts)
{
	golden_nvml_return_t r;

	if ((r = fake_enter("nvmlDeviceGetTotalEccErrors", d)))
		return r;
	if (!eccCounts || (unsigned)errorType > 1 || (unsigned)counterType > 1)
		return GOLDEN_NVML_ERROR_INVALID_ARGUMENT;
	if (!d->ecc_supported)
		return GOLDEN_NVML_ERROR_NOT_SUPPORTED;
	/* Only volatile uncorrected errors are modelled. */
	*eccCounts = (errorType == GOLDEN_NVML_MEMORY_ERROR_TYPE_UNCORRECTED &&
	              counterType == GOLDEN_NVML_VOLATILE_ECC)
	                 ? d->ecc_unc_volatile
	                 : 0;
	return GOLDEN_NVML_SUCCESS;
}

golden_nvml_return_t nvmlDeviceGetRemappedRows(golden_nvml_device_t d, unsigned int *corrRows,
                                               unsigned int *uncRows, unsigned int *isPending,
                                               unsigned int *failureOccurred)
{
	golden_nvml_return_t r;

	if ((r = fake_enter("nvmlDeviceGetRemappedRows", d)))
		return r;
	if (!corrRows || !uncRows || !isPending || !failureOccurred)
		return GOLDEN_NVML_ERROR_INVALID_ARGUMENT;
	if (!d->remap_supported)
		return GOLDEN_NVML_ERROR_NOT_SUPPORTED;
	*corrRows = d->remap_corr;
	*uncRows = d->remap_unc;
	*isPending = d->remap_pending;
	*failureOccurred = d->remap_failure;
	return GOLDEN_NVML_SUCCESS;
}

golden_nvml_return_t nvmlDeviceGetRetiredPagesPendingStatus(golden_nvml_device_t d,
                                                            golden_nvml_enable_state_t *isPending)
{
	golden_nvml_return_t r;

	if ((r = fake_enter("nvmlDeviceGetRetiredPagesPendingStatus", d)))
		return r;
	if (!isPending)
		return GOLDEN_NVML_ERROR_INVALID_ARGUMENT;
	if (!d->retired_supported)
		return GOLDEN_NVML_ERROR_NOT_SUPPORTED;
	*isPending =
	    d->retired_pending ? GOLDEN_NVML_FEATURE_ENABLED : GOLDEN_NVML_FEATURE_DISABLED;
	return GOLDEN_NVML_SUCCESS;
}

static golden_nvml_return_t pcie_value(const char *fn, golden_nvml_device_t d, unsigned int *out,
                                       unsigned int which)
{
	golden_nvml_return_t r;

	if ((r = fake_enter(fn, d)))
		return r;
	if (!out)
		return GOLDEN_NVML_ERROR_INVALID_ARGUMENT;
	*out = which == 0 ? d->gen : which == 1 ? d->width : which == 2 ? d->max_gen : d->max_width;
	return GOLDEN_NVML_SUCCESS;
}

golden_nvml_return_t nvmlDeviceGetCurrPcieLinkGeneration(golden_nvml_device_t d,
                                                         unsigned int *currLinkGen)
{
	return pcie_value("nvmlDeviceGetCurrPcieLinkGeneration", d, currLinkGen, 0);
}

golden_nvml_return_t nvmlDeviceGetCurrPcieLinkWidth(golden_nvml_device_t d,
                                                    unsigned int *currLinkWidth)
{
	return pcie_value("nvmlDeviceGetCurrPcieLinkWidth", d, currLinkWidth, 1);
}

golden_nvml_return_t nvmlDeviceGetMaxPcieLinkGeneration(golden_nvml_device_t d,
                                                        unsigned int *maxLinkGen)
{
	return pcie_value("nvmlDeviceGetMaxPcieLinkGeneration", d, maxLinkGen, 2);
}

golden_nvml_return_t nvmlDeviceGetMaxPcieLinkWidth(golden_nvml_device_t d,
                                                   unsigned int *maxLinkWidth)
{
	return pcie_value("nvmlDeviceGetMaxPcieLinkWidth", d, maxLinkWidth, 3);
}

golden_nvml_return_t nvmlDeviceGetNvLinkState(golden_nvml_device_t d, unsigned int link,
                                              golden_nvml_enable_state_t *isActive)
{
	golden_nvml_return_t r;

	if ((r = fake_enter("nvmlDeviceGetNvLinkState", d)))
		return r;
	if (!isActive)
		return GOLDEN_NVML_ERROR_INVALID_ARGUMENT;
	if (!d->nvlink_supported)
		return GOLDEN_NVML_ERROR_NOT_SUPPORTED;
	if (link >= d->nlinks)
		return GOLDEN_NVML_ERROR_INVALID_ARGUMENT;
	*isActive = d->nvlink_up[link] ? GOLDEN_NVML_FEATURE_ENABLED : GOLDEN_NVML_FEATURE_DISABLED;
	return GOLDEN_NVML_SUCCESS;
}

golden_nvml_return_t nvmlDeviceGetCurrentClocksEventReasons(golden_nvml_device_t d,
                                                            unsigned long long *clocksEventReasons)
{
	golden_nvml_return_t r;

	if ((r = fake_enter("nvmlDeviceGetCurrentClocksEventReasons", d)))
		return r;
	if (!clocksEventReasons)
		return GOLDEN_NVML_ERROR_INVALID_ARGUMENT;
	*clocksEventReasons = d->clocks;
	return GOLDEN_NVML_SUCCESS;
}

golden_nvml_return_t nvmlDeviceGetCurrentClocksThrottleReasons(golden_nvml_device_t d,
                                                               unsigned long long *reasons)
{
	golden_nvml_return_t r;

	if ((r = fake_enter("nvmlDeviceGetCurrentClocksThrottleReasons", d)))
		return r;
	if (!reasons)
		return GOLDEN_NVML_ERROR_INVALID_ARGUMENT;
	*reasons = d->clocks;
	return GOLDEN_NVML_SUCCESS;
}

golden_nvml_return_t nvmlDeviceGetGpuFabricInfo(golden_nvml_device_t d,
                                                struct golden_nvml_gpu_fabric_info *info)
{
	golden_nvml_return_t r;

	if ((r = fake_enter("nvmlDeviceGetGpuFabricInfo", d)))
		return r;
	if (!info)
		return GOLDEN_NVML_ERROR_INVALID_ARGUMENT;
	if (!d->fabric_supported)
		return GOLDEN_NVML_ERROR_NOT_SUPPORTED;
	memset(info, 0, sizeof(*info));
	info->state = (unsigned char)d->fabric_state;
	info->status = d->fabric_status;
	memcpy(info->clusterUuid, d->fabric_uuid, sizeof(info->clusterUuid));
	info->cliqueId = d->fabric_clique;
	return GOLDEN_NVML_SUCCESS;
}

golden_nvml_return_t nvmlDeviceGetGpuFabricInfoV(golden_nvml_device_t d, void *info)
{
	golden_nvml_return_t r;
	unsigned int version;

	if ((r = fake_enter("nvmlDeviceGetGpuFabricInfoV", d)))
		return r;
	if (!info)
		return GOLDEN_NVML_ERROR_INVALID_ARGUMENT;
	memcpy(&version, info, sizeof(version));
	if (version == GOLDEN_NVML_GPU_FABRIC_INFO_V3) {
		struct golden_nvml_gpu_fabric_info_v3 *v3 = info;

		if (!d->fabric_supported)
			return GOLDEN_NVML_ERROR_NOT_SUPPORTED;
		v3->state = (unsigned char)d->fabric_state;
		v3->status = d->fabric_status;
		v3->healthMask = 0;
		v3->healthSummary = (unsigned char)d->fabric_health;
		memcpy(v3->clusterUuid, d->fabric_uuid, sizeof(v3->clusterUuid));
		v3->cliqueId = d->fabric_clique;
		return GOLDEN_NVML_SUCCESS;
	}
	if (version == GOLDEN_NVML_GPU_FABRIC_INFO_V2) {
		struct golden_nvml_gpu_fabric_info_v2 *v2 = info;

		if (!d->fabric_supported)
			return GOLDEN_NVML_ERROR_NOT_SUPPORTED;
		v2->state = (unsigned char)d->fabric_state;
		v2->status = d->fabric_status;
		v2->healthMask = 0;
		memcpy(v2->clusterUuid, d->fabric_uuid, sizeof(v2->clusterUuid));
		v2->cliqueId = d->fabric_clique;
		return GOLDEN_NVML_SUCCESS;
	}
	return GOLDEN_NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
}

golden_nvml_return_t nvmlDeviceGetComputeRunningProcesses_v3(golden_nvml_device_t d,
                                                             unsigned int *infoCount,
                                                             struct golden_nvml_process_info *infos)
{
	golden_nvml_return_t r;

	if ((r = fake_enter("nvmlDeviceGetComputeRunningProcesses_v3", d)))
		return r;
	if (!infoCount || (*infoCount && !infos))
		return GOLDEN_NVML_ERROR_INVALID_ARGUMENT;
	if (*infoCount < d->nprocs) {
		*infoCount = d->nprocs;
		return GOLDEN_NVML_ERROR_INSUFFICIENT_SIZE;
	}
	for (unsigned int i = 0; i < d->nprocs; i++) {
		infos[i].pid = d->procs[i].pid;
		infos[i].usedGpuMemory = d->procs[i].mem;
		infos[i].gpuInstanceId = 0xFFFFFFFFu;
		infos[i].computeInstanceId = 0xFFFFFFFFu;
	}
	*infoCount = d->nprocs;
	return GOLDEN_NVML_SUCCESS;
}

golden_nvml_return_t nvmlDeviceGetFieldValues(golden_nvml_device_t d, int valuesCount,
                                              struct golden_nvml_field_value *values)
{
	golden_nvml_return_t r;

	if ((r = fake_enter("nvmlDeviceGetFieldValues", d)))
		return r;
	if (valuesCount < 0 || (valuesCount && !values))
		return GOLDEN_NVML_ERROR_INVALID_ARGUMENT;
	for (int i = 0; i < valuesCount; i++) {
		struct golden_nvml_field_value *v = &values[i];

		v->timestamp = 0;
		v->latencyUsec = 0;
		if (v->fieldId == GOLDEN_NVML_FI_DEV_GET_GPU_RECOVERY_ACTION &&
		    d->recovery_supported) {
			v->valueType = GOLDEN_NVML_VALUE_TYPE_UNSIGNED_INT;
			v->value.uiVal = d->recovery_action;
			v->nvmlReturn = GOLDEN_NVML_SUCCESS;
		} else {
			v->nvmlReturn = GOLDEN_NVML_ERROR_NOT_SUPPORTED;
		}
	}
	return GOLDEN_NVML_SUCCESS;
}
