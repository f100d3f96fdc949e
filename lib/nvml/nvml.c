/* NVML through dlopen: see nvml.h. */
#include <config.h>

#include "nvml/nvml.h"

#include <ctype.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#if defined(__LP64__)
/* The layouts in nvml.h must match NVML's on LP64 Linux (x86_64, aarch64);
 * these sizes follow from the field lists in the NVML reference. */
_Static_assert(sizeof(struct golden_nvml_pci_info) == 68, "nvmlPciInfo_t is 68 bytes");
_Static_assert(offsetof(struct golden_nvml_pci_info, busId) == 36, "nvmlPciInfo_t.busId");
_Static_assert(sizeof(struct golden_nvml_process_info) == 24, "nvmlProcessInfo_v2_t");
_Static_assert(sizeof(struct golden_nvml_field_value) == 40, "nvmlFieldValue_t");
_Static_assert(offsetof(struct golden_nvml_field_value, value) == 32, "nvmlFieldValue_t.value");
_Static_assert(sizeof(struct golden_nvml_gpu_fabric_info) == 28, "nvmlGpuFabricInfo_t");
_Static_assert(sizeof(struct golden_nvml_gpu_fabric_info_v2) == 36, "nvmlGpuFabricInfo_v2_t");
_Static_assert(sizeof(struct golden_nvml_gpu_fabric_info_v3) == 40, "nvmlGpuFabricInfo_v3_t");
_Static_assert(sizeof(golden_nvml_return_t) == sizeof(int), "nvmlReturn_t is an int enum");
#endif

struct sym {
	const char *name;
	size_t off; /* offset of the function pointer in struct golden_nvml_fns */
	bool required;
};

#define SYM(f, req)                                                                                \
	{                                                                                          \
#f, offsetof(struct golden_nvml_fns, f), req                                       \
	}
static const struct sym syms[] = {
    SYM(nvmlInit_v2, true),
    SYM(nvmlShutdown, true),
    SYM(nvmlDeviceGetCount_v2, true),
    SYM(nvmlDeviceGetHandleByIndex_v2, true),
    SYM(nvmlDeviceGetPciInfo_v3, true),
    SYM(nvmlErrorString, false),
    SYM(nvmlDeviceGetTotalEccErrors, false),
    SYM(nvmlDeviceGetRemappedRows, false),
    SYM(nvmlDeviceGetRetiredPagesPendingStatus, false),
    SYM(nvmlDeviceGetCurrPcieLinkGeneration, false),
    SYM(nvmlDeviceGetCurrPcieLinkWidth, false),
    SYM(nvmlDeviceGetMaxPcieLinkGeneration, false),
    SYM(nvmlDeviceGetMaxPcieLinkWidth, false),
    SYM(nvmlDeviceGetNvLinkState, false),
    SYM(nvmlDeviceGetCurrentClocksEventReasons, false),
    SYM(nvmlDeviceGetCurrentClocksThrottleReasons, false),
    SYM(nvmlDeviceGetGpuFabricInfoV, false),
    SYM(nvmlDeviceGetGpuFabricInfo, false),
    SYM(nvmlDeviceGetComputeRunningProcesses_v3, false),
    SYM(nvmlDeviceGetFieldValues, false),
};
#undef SYM

int golden_nvml_open(struct golden_nvml *n, struct golden_err *err)
{
	const char *why;
	size_t i;

	memset(n, 0, sizeof(*n));
	n->init_ret = GOLDEN_NVML_ERROR_LIBRARY_NOT_FOUND;
	dlerror();
	n->dl = dlopen(GOLDEN_NVML_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!n->dl) {
		why = dlerror();
		if (!why || strstr(why, "No such file"))
			return golden_err_set(err, "%s not found: NVIDIA driver not installed?",
			                      GOLDEN_NVML_SONAME);
		return golden_err_set(err, "cannot load %s: %s", GOLDEN_NVML_SONAME, why);
	}
	for (i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		void *p;

		dlerror();
		p = dlsym(n->dl, syms[i].name);
		if (!p && syms[i].required) {
			golden_err_set(err, "%s has no %s: driver too old or not NVML?",
			               GOLDEN_NVML_SONAME, syms[i].name);
			golden_nvml_close(n);
			n->init_ret = GOLDEN_NVML_ERROR_LIBRARY_NOT_FOUND;
			return -1;
		}
		/* POSIX guarantees a function pointer round-trips through void *. */
		memcpy((char *)&n->fn + syms[i].off, &p, sizeof(p));
	}
	n->init_ret = n->fn.nvmlInit_v2();
	if (n->init_ret != GOLDEN_NVML_SUCCESS)
		return golden_err_set(err, "nvmlInit_v2 failed: %s (NVML error %d)",
		                      golden_nvml_strerror(n, n->init_ret), (int)n->init_ret);
	n->initialized = true;
	return 0;
}

void golden_nvml_close(struct golden_nvml *n)
{
	if (n->initialized && n->fn.nvmlShutdown)
		n->fn.nvmlShutdown();
	n->initialized = false;
	if (n->dl)
		dlclose(n->dl);
	n->dl = NULL;
	memset(&n->fn, 0, sizeof(n->fn));
}

const char *golden_nvml_strerror(const struct golden_nvml *n, golden_nvml_return_t r)
{
	const char *s;

	if (n && n->dl && n->fn.nvmlErrorString) {
		s = n->fn.nvmlErrorString(r);
		if (s)
			return s;
	}
	switch (r) {
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
	case GOLDEN_NVML_ERROR_DRIVER_NOT_LOADED:
		return "Driver Not Loaded";
	case GOLDEN_NVML_ERROR_LIBRARY_NOT_FOUND:
		return "NVML Shared Library Not Found";
	case GOLDEN_NVML_ERROR_GPU_IS_LOST:
		return "GPU is lost";
	case GOLDEN_NVML_ERROR_RESET_REQUIRED:
		return "GPU requires reset";
	case GOLDEN_NVML_ERROR_LIB_RM_VERSION_MISMATCH:
		return "Driver/library version mismatch";
	default:
		return "Unknown Error";
	}
}

/* Up to maxdigits hex digits (at least one) at *p; advances *p. */
static int hex_field(const char **p, int maxdigits, unsigned int *out)
{
	int n = 0;

	*out = 0;
	while (isxdigit((unsigned char)**p)) {
		if (++n > maxdigits)
			return -1;
		*out = *out << 4 | (unsigned int)(isdigit((unsigned char)**p)
		                                      ? **p - '0'
		                                      : tolower((unsigned char)**p) - 'a' + 10);
		(*p)++;
	}
	return n ? 0 : -1;
}

int golden_nvml_busid_normalize(const char *in, char *out, size_t outlen)
{
	unsigned int dom, bus, dev, fn;
	const char *p = in;

	if (!out || outlen == 0)
		return -1;
	out[0] = '\0';
	/* domain:bus:device.function, all hex: "00000000:3B:00.0" */
	if (!p || hex_field(&p, 8, &dom) < 0 || *p++ != ':' || hex_field(&p, 2, &bus) < 0 ||
	    *p++ != ':' || hex_field(&p, 2, &dev) < 0 || *p++ != '.' || hex_field(&p, 1, &fn) < 0 ||
	    *p || dev > 0x1f || fn > 7)
		return -1;
	if ((size_t)snprintf(out, outlen, "%04x:%02x:%02x.%x", dom, bus, dev, fn) >= outlen) {
		out[0] = '\0';
		return -1;
	}
	return 0;
}

golden_nvml_return_t golden_nvml_device_count(const struct golden_nvml *n, unsigned int *count)
{
	*count = 0;
	return n->fn.nvmlDeviceGetCount_v2(count);
}

golden_nvml_return_t golden_nvml_device_handle(const struct golden_nvml *n, unsigned int index,
                                               golden_nvml_device_t *dev)
{
	*dev = NULL;
	return n->fn.nvmlDeviceGetHandleByIndex_v2(index, dev);
}

golden_nvml_return_t golden_nvml_device_busid(const struct golden_nvml *n, golden_nvml_device_t dev,
                                              char *out, size_t outlen)
{
	struct golden_nvml_pci_info pci;
	golden_nvml_return_t r;

	memset(&pci, 0, sizeof(pci));
	if (outlen)
		out[0] = '\0';
	r = n->fn.nvmlDeviceGetPciInfo_v3(dev, &pci);
	if (r != GOLDEN_NVML_SUCCESS)
		return r;
	pci.busId[sizeof(pci.busId) - 1] = '\0';
	if (golden_nvml_busid_normalize(pci.busId, out, outlen) < 0)
		snprintf(out, outlen, "%04x:%02x:%02x.0", pci.domain, pci.bus, pci.device);
	return GOLDEN_NVML_SUCCESS;
}

golden_nvml_return_t golden_nvml_ecc_uncorrected_volatile(const struct golden_nvml *n,
                                                          golden_nvml_device_t dev,
                                                          unsigned long long *count)
{
	*count = 0;
	if (!n->fn.nvmlDeviceGetTotalEccErrors)
		return GOLDEN_NVML_ERROR_NOT_SUPPORTED;
	return n->fn.nvmlDeviceGetTotalEccErrors(dev, GOLDEN_NVML_MEMORY_ERROR_TYPE_UNCORRECTED,
	                                         GOLDEN_NVML_VOLATILE_ECC, count);
}

golden_nvml_return_t golden_nvml_remapped_rows(const struct golden_nvml *n,
                                               golden_nvml_device_t dev, unsigned int *corr,
                                               unsigned int *unc, bool *pending, bool *failure)
{
	unsigned int p = 0, f = 0;
	golden_nvml_return_t r;

	*corr = *unc = 0;
	*pending = *failure = false;
	if (!n->fn.nvmlDeviceGetRemappedRows)
		return GOLDEN_NVML_ERROR_NOT_SUPPORTED;
	r = n->fn.nvmlDeviceGetRemappedRows(dev, corr, unc, &p, &f);
	*pending = p != 0;
	*failure = f != 0;
	return r;
}

golden_nvml_return_t golden_nvml_retired_pages_pending(const struct golden_nvml *n,
                                                       golden_nvml_device_t dev, bool *pending)
{
	golden_nvml_enable_state_t st = GOLDEN_NVML_FEATURE_DISABLED;
	golden_nvml_return_t r;

	*pending = false;
	if (!n->fn.nvmlDeviceGetRetiredPagesPendingStatus)
		return GOLDEN_NVML_ERROR_NOT_SUPPORTED;
	r = n->fn.nvmlDeviceGetRetiredPagesPendingStatus(dev, &st);
	*pending = st == GOLDEN_NVML_FEATURE_ENABLED;
	return r;
}

golden_nvml_return_t golden_nvml_pcie_link(const struct golden_nvml *n, golden_nvml_device_t dev,
                                           struct golden_nvml_pcie *link)
{
	golden_nvml_return_t r;

	memset(link, 0, sizeof(*link));
	if (!n->fn.nvmlDeviceGetCurrPcieLinkGeneration || !n->fn.nvmlDeviceGetCurrPcieLinkWidth ||
	    !n->fn.nvmlDeviceGetMaxPcieLinkGeneration || !n->fn.nvmlDeviceGetMaxPcieLinkWidth)
		return GOLDEN_NVML_ERROR_NOT_SUPPORTED;
	if ((r = n->fn.nvmlDeviceGetCurrPcieLinkGeneration(dev, &link->gen)) != GOLDEN_NVML_SUCCESS)
		return r;
	if ((r = n->fn.nvmlDeviceGetCurrPcieLinkWidth(dev, &link->width)) != GOLDEN_NVML_SUCCESS)
		return r;
	if ((r = n->fn.nvmlDeviceGetMaxPcieLinkGeneration(dev, &link->max_gen)) !=
	    GOLDEN_NVML_SUCCESS)
		return r;
	return n->fn.nvmlDeviceGetMaxPcieLinkWidth(dev, &link->max_width);
}

golden_nvml_return_t golden_nvml_nvlink_state(const struct golden_nvml *n, golden_nvml_device_t dev,
                                              unsigned int link, bool *active)
{
	golden_nvml_enable_state_t st = GOLDEN_NVML_FEATURE_DISABLED;
	golden_nvml_return_t r;

	*active = false;
	if (!n->fn.nvmlDeviceGetNvLinkState)
		return GOLDEN_NVML_ERROR_NOT_SUPPORTED;
	r = n->fn.nvmlDeviceGetNvLinkState(dev, link, &st);
	*active = st == GOLDEN_NVML_FEATURE_ENABLED;
	return r;
}

golden_nvml_return_t golden_nvml_clocks_event_reasons(const struct golden_nvml *n,
                                                      golden_nvml_device_t dev,
                                                      unsigned long long *reasons)
{
	*reasons = 0;
	if (n->fn.nvmlDeviceGetCurrentClocksEventReasons)
		return n->fn.nvmlDeviceGetCurrentClocksEventReasons(dev, reasons);
	if (n->fn.nvmlDeviceGetCurrentClocksThrottleReasons)
		return n->fn.nvmlDeviceGetCurrentClocksThrottleReasons(dev, reasons);
	return GOLDEN_NVML_ERROR_NOT_SUPPORTED;
}

void golden_nvml_uuid_format(const unsigned char uuid[GOLDEN_NVML_GPU_FABRIC_UUID_LEN], char *out,
                             size_t outlen)
{
	size_t o = 0;

	if (!outlen)
		return;
	out[0] = '\0';
	for (int i = 0; i < GOLDEN_NVML_GPU_FABRIC_UUID_LEN; i++) {
		int w = snprintf(out + o, outlen - o, "%s%02x",
		                 i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "", uuid[i]);

		if (w < 0 || (size_t)w >= outlen - o)
			return;
		o += (size_t)w;
	}
}

bool golden_nvml_uuid_is_zero(const unsigned char uuid[GOLDEN_NVML_GPU_FABRIC_UUID_LEN])
{
	for (int i = 0; i < GOLDEN_NVML_GPU_FABRIC_UUID_LEN; i++)
		if (uuid[i])
			return false;
	return true;
}

golden_nvml_return_t golden_nvml_fabric_info(const struct golden_nvml *n, golden_nvml_device_t dev,
                                             struct golden_nvml_fabric *fab)
{
	golden_nvml_return_t r;

	memset(fab, 0, sizeof(*fab));
	if (n->fn.nvmlDeviceGetGpuFabricInfoV) {
		struct golden_nvml_gpu_fabric_info_v3 v3;
		struct golden_nvml_gpu_fabric_info_v2 v2;

		memset(&v3, 0, sizeof(v3));
		v3.version = GOLDEN_NVML_GPU_FABRIC_INFO_V3;
		r = n->fn.nvmlDeviceGetGpuFabricInfoV(dev, &v3);
		if (r == GOLDEN_NVML_SUCCESS) {
			fab->state = v3.state;
			fab->status = v3.status;
			fab->health_summary = v3.healthSummary;
			memcpy(fab->cluster_uuid, v3.clusterUuid, sizeof(fab->cluster_uuid));
			fab->clique_id = v3.cliqueId;
			return r;
		}
		if (r != GOLDEN_NVML_ERROR_ARGUMENT_VERSION_MISMATCH)
			return r;
		/* A driver that knows only v2. */
		memset(&v2, 0, sizeof(v2));
		v2.version = GOLDEN_NVML_GPU_FABRIC_INFO_V2;
		r = n->fn.nvmlDeviceGetGpuFabricInfoV(dev, &v2);
		if (r == GOLDEN_NVML_SUCCESS) {
			fab->state = v2.state;
			fab->status = v2.status;
			memcpy(fab->cluster_uuid, v2.clusterUuid, sizeof(fab->cluster_uuid));
			fab->clique_id = v2.cliqueId;
		}
		if (r != GOLDEN_NVML_ERROR_ARGUMENT_VERSION_MISMATCH)
			return r;
	}
	if (n->fn.nvmlDeviceGetGpuFabricInfo) {
		struct golden_nvml_gpu_fabric_info v1;

		memset(&v1, 0, sizeof(v1));
		r = n->fn.nvmlDeviceGetGpuFabricInfo(dev, &v1);
		if (r == GOLDEN_NVML_SUCCESS) {
			fab->state = v1.state;
			fab->status = v1.status;
			memcpy(fab->cluster_uuid, v1.clusterUuid, sizeof(fab->cluster_uuid));
			fab->clique_id = v1.cliqueId;
		}
		return r;
	}
	return GOLDEN_NVML_ERROR_NOT_SUPPORTED;
}

golden_nvml_return_t golden_nvml_compute_procs(const struct golden_nvml *n,
                                               golden_nvml_device_t dev, unsigned int *count,
                                               struct golden_nvml_process_info *infos)
{
	if (!n->fn.nvmlDeviceGetComputeRunningProcesses_v3) {
		*count = 0;
		return GOLDEN_NVML_ERROR_NOT_SUPPORTED;
	}
	return n->fn.nvmlDeviceGetComputeRunningProcesses_v3(dev, count, infos);
}

golden_nvml_return_t golden_nvml_recovery_action(const struct golden_nvml *n,
                                                 golden_nvml_device_t dev, unsigned int *action)
{
	struct golden_nvml_field_value fv;
	golden_nvml_return_t r;

	*action = 0;
	if (!n->fn.nvmlDeviceGetFieldValues)
		return GOLDEN_NVML_ERROR_NOT_SUPPORTED;
	memset(&fv, 0, sizeof(fv));
	fv.fieldId = GOLDEN_NVML_FI_DEV_GET_GPU_RECOVERY_ACTION;
	r = n->fn.nvmlDeviceGetFieldValues(dev, 1, &fv);
	if (r != GOLDEN_NVML_SUCCESS)
		return r;
	if (fv.nvmlReturn != GOLDEN_NVML_SUCCESS)
		return fv.nvmlReturn;
	switch (fv.valueType) {
	case GOLDEN_NVML_VALUE_TYPE_UNSIGNED_LONG:
		*action = (unsigned int)fv.value.ulVal;
		break;
	case GOLDEN_NVML_VALUE_TYPE_UNSIGNED_LONG_LONG:
		*action = (unsigned int)fv.value.ullVal;
		break;
	case GOLDEN_NVML_VALUE_TYPE_SIGNED_LONG_LONG:
		*action = (unsigned int)fv.value.sllVal;
		break;
	case GOLDEN_NVML_VALUE_TYPE_SIGNED_INT:
		*action = (unsigned int)fv.value.siVal;
		break;
	case GOLDEN_NVML_VALUE_TYPE_UNSIGNED_SHORT:
		*action = fv.value.usVal;
		break;
	case GOLDEN_NVML_VALUE_TYPE_DOUBLE:
		*action = (unsigned int)fv.value.dVal;
		break;
	case GOLDEN_NVML_VALUE_TYPE_UNSIGNED_INT:
	default:
		*action = fv.value.uiVal;
		break;
	}
	return GOLDEN_NVML_SUCCESS;
}
