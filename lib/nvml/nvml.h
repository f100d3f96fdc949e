/* NVML, loaded at run time with dlopen("libnvidia-ml.so.1").
 *
 * slurm-golden builds and runs on machines without the NVIDIA driver or the
 * CUDA toolkit, so nothing here includes <nvml.h>: the small part of the NVML
 * API the GPU checks use is declared by hand from the NVML API reference
 * (NVML API version 13). Every name is prefixed (golden_nvml_*, GOLDEN_NVML_*)
 * so a test can put these declarations next to NVIDIA's own header and compare
 * the layouts. Each declaration names the NVML type or constant it mirrors.
 *
 * The same dlopen serves production and tests: the tests put a fake
 * libnvidia-ml.so.1 (t/fake-nvml) first on LD_LIBRARY_PATH.
 */
#ifndef GOLDEN_NVML_NVML_H
#define GOLDEN_NVML_NVML_H

#include <stdbool.h>
#include <stddef.h>

#include "util/errbuf.h"

#define GOLDEN_NVML_SONAME "libnvidia-ml.so.1"

/* nvmlReturn_t (the subset the checks look at; the values are NVML's). */
typedef enum golden_nvml_return {
	GOLDEN_NVML_SUCCESS = 0,                          /* NVML_SUCCESS */
	GOLDEN_NVML_ERROR_UNINITIALIZED = 1,              /* NVML_ERROR_UNINITIALIZED */
	GOLDEN_NVML_ERROR_INVALID_ARGUMENT = 2,           /* NVML_ERROR_INVALID_ARGUMENT */
	GOLDEN_NVML_ERROR_NOT_SUPPORTED = 3,              /* NVML_ERROR_NOT_SUPPORTED */
	GOLDEN_NVML_ERROR_NO_PERMISSION = 4,              /* NVML_ERROR_NO_PERMISSION */
	GOLDEN_NVML_ERROR_NOT_FOUND = 6,                  /* NVML_ERROR_NOT_FOUND */
	GOLDEN_NVML_ERROR_INSUFFICIENT_SIZE = 7,          /* NVML_ERROR_INSUFFICIENT_SIZE */
	GOLDEN_NVML_ERROR_DRIVER_NOT_LOADED = 9,          /* NVML_ERROR_DRIVER_NOT_LOADED */
	GOLDEN_NVML_ERROR_TIMEOUT = 10,                   /* NVML_ERROR_TIMEOUT */
	GOLDEN_NVML_ERROR_LIBRARY_NOT_FOUND = 12,         /* NVML_ERROR_LIBRARY_NOT_FOUND */
	GOLDEN_NVML_ERROR_FUNCTION_NOT_FOUND = 13,        /* NVML_ERROR_FUNCTION_NOT_FOUND */
	GOLDEN_NVML_ERROR_CORRUPTED_INFOROM = 14,         /* NVML_ERROR_CORRUPTED_INFOROM */
	GOLDEN_NVML_ERROR_GPU_IS_LOST = 15,               /* NVML_ERROR_GPU_IS_LOST */
	GOLDEN_NVML_ERROR_RESET_REQUIRED = 16,            /* NVML_ERROR_RESET_REQUIRED */
	GOLDEN_NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18,   /* NVML_ERROR_LIB_RM_VERSION_MISMATCH */
	GOLDEN_NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25, /* NVML_ERROR_ARGUMENT_VERSION_MISMATCH */
	GOLDEN_NVML_ERROR_UNKNOWN = 999                   /* NVML_ERROR_UNKNOWN */
} golden_nvml_return_t;

/* nvmlDevice_t: an opaque handle. */
typedef struct golden_nvml_device_st *golden_nvml_device_t;

/* nvmlEnableState_t */
typedef enum golden_nvml_enable_state {
	GOLDEN_NVML_FEATURE_DISABLED = 0, /* NVML_FEATURE_DISABLED */
	GOLDEN_NVML_FEATURE_ENABLED = 1   /* NVML_FEATURE_ENABLED */
} golden_nvml_enable_state_t;

/* nvmlMemoryErrorType_t */
typedef enum golden_nvml_memory_error_type {
	GOLDEN_NVML_MEMORY_ERROR_TYPE_CORRECTED = 0,  /* NVML_MEMORY_ERROR_TYPE_CORRECTED */
	GOLDEN_NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1 /* NVML_MEMORY_ERROR_TYPE_UNCORRECTED */
} golden_nvml_memory_error_type_t;

/* nvmlEccCounterType_t */
typedef enum golden_nvml_ecc_counter_type {
	GOLDEN_NVML_VOLATILE_ECC = 0, /* NVML_VOLATILE_ECC: since the driver loaded */
	GOLDEN_NVML_AGGREGATE_ECC = 1 /* NVML_AGGREGATE_ECC: lifetime of the board */
} golden_nvml_ecc_counter_type_t;

/* nvmlValueType_t */
typedef enum golden_nvml_value_type {
	GOLDEN_NVML_VALUE_TYPE_DOUBLE = 0,
	GOLDEN_NVML_VALUE_TYPE_UNSIGNED_INT = 1,
	GOLDEN_NVML_VALUE_TYPE_UNSIGNED_LONG = 2,
	GOLDEN_NVML_VALUE_TYPE_UNSIGNED_LONG_LONG = 3,
	GOLDEN_NVML_VALUE_TYPE_SIGNED_LONG_LONG = 4,
	GOLDEN_NVML_VALUE_TYPE_SIGNED_INT = 5,
	GOLDEN_NVML_VALUE_TYPE_UNSIGNED_SHORT = 6
} golden_nvml_value_type_t;

/* NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE, NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE */
#define GOLDEN_NVML_PCI_BUS_ID_BUFFER_SIZE    32
#define GOLDEN_NVML_PCI_BUS_ID_BUFFER_V2_SIZE 16

/* nvmlPciInfo_t, as filled by nvmlDeviceGetPciInfo_v3. busId is
 * "%08X:%02X:%02X.0" ("00000000:3B:00.0"); busIdLegacy is "%04X:%02X:%02X.0". */
struct golden_nvml_pci_info {
	char busIdLegacy[GOLDEN_NVML_PCI_BUS_ID_BUFFER_V2_SIZE];
	unsigned int domain;
	unsigned int bus;
	unsigned int device;
	unsigned int pciDeviceId; /* device id << 16 | vendor id (0x10de) */
	unsigned int pciSubSystemId;
	char busId[GOLDEN_NVML_PCI_BUS_ID_BUFFER_SIZE];
};

/* nvmlProcessInfo_t (= nvmlProcessInfo_v2_t), as filled by
 * nvmlDeviceGetComputeRunningProcesses_v3. */
struct golden_nvml_process_info {
	unsigned int pid;
	unsigned long long usedGpuMemory; /* bytes */
	unsigned int gpuInstanceId;       /* 0xFFFFFFFF without MIG */
	unsigned int computeInstanceId;   /* 0xFFFFFFFF without MIG */
};

/* NVML_GPU_FABRIC_UUID_LEN and the NVML_GPU_FABRIC_STATE_* values of
 * nvmlGpuFabricState_t (an unsigned char). */
#define GOLDEN_NVML_GPU_FABRIC_UUID_LEN            16
#define GOLDEN_NVML_GPU_FABRIC_STATE_NOT_SUPPORTED 0
#define GOLDEN_NVML_GPU_FABRIC_STATE_NOT_STARTED   1
#define GOLDEN_NVML_GPU_FABRIC_STATE_IN_PROGRESS   2
#define GOLDEN_NVML_GPU_FABRIC_STATE_COMPLETED     3
/* NVML_GPU_FABRIC_HEALTH_SUMMARY_* (v3 healthSummary) */
#define GOLDEN_NVML_GPU_FABRIC_HEALTH_SUMMARY_NOT_SUPPORTED    0
#define GOLDEN_NVML_GPU_FABRIC_HEALTH_SUMMARY_HEALTHY          1
#define GOLDEN_NVML_GPU_FABRIC_HEALTH_SUMMARY_UNHEALTHY        2
#define GOLDEN_NVML_GPU_FABRIC_HEALTH_SUMMARY_LIMITED_CAPACITY 3

/* nvmlGpuFabricInfo_t: nvmlDeviceGetGpuFabricInfo (deprecated in NVML 13). */
struct golden_nvml_gpu_fabric_info {
	unsigned char clusterUuid[GOLDEN_NVML_GPU_FABRIC_UUID_LEN];
	golden_nvml_return_t status; /* meaningful only when state is COMPLETED */
	unsigned int cliqueId;
	unsigned char state; /* GOLDEN_NVML_GPU_FABRIC_STATE_* */
};

/* nvmlGpuFabricInfo_v2_t and nvmlGpuFabricInfo_v3_t (= nvmlGpuFabricInfoV_t):
 * nvmlDeviceGetGpuFabricInfoV. v2 is v3 without healthSummary. */
struct golden_nvml_gpu_fabric_info_v2 {
	unsigned int version; /* GOLDEN_NVML_GPU_FABRIC_INFO_V2 */
	unsigned char clusterUuid[GOLDEN_NVML_GPU_FABRIC_UUID_LEN];
	golden_nvml_return_t status;
	unsigned int cliqueId;
	unsigned char state;
	unsigned int healthMask; /* NVML_GPU_FABRIC_HEALTH_MASK_* fields */
};
struct golden_nvml_gpu_fabric_info_v3 {
	unsigned int version; /* GOLDEN_NVML_GPU_FABRIC_INFO_V3 */
	unsigned char clusterUuid[GOLDEN_NVML_GPU_FABRIC_UUID_LEN];
	golden_nvml_return_t status;
	unsigned int cliqueId;
	unsigned char state;
	unsigned int healthMask;
	unsigned char healthSummary; /* GOLDEN_NVML_GPU_FABRIC_HEALTH_SUMMARY_* */
};
/* NVML_STRUCT_VERSION(data, ver): sizeof(struct) | ver << 24. */
#define GOLDEN_NVML_STRUCT_VERSION(type, ver) ((unsigned int)(sizeof(type) | ((ver) << 24U)))
#define GOLDEN_NVML_GPU_FABRIC_INFO_V2                                                             \
	GOLDEN_NVML_STRUCT_VERSION(struct golden_nvml_gpu_fabric_info_v2, 2)
#define GOLDEN_NVML_GPU_FABRIC_INFO_V3                                                             \
	GOLDEN_NVML_STRUCT_VERSION(struct golden_nvml_gpu_fabric_info_v3, 3)

/* nvmlValue_t */
union golden_nvml_value {
	double dVal;
	int siVal;
	unsigned int uiVal;
	unsigned long ulVal;
	unsigned long long ullVal;
	signed long long sllVal;
	unsigned short usVal;
};

/* nvmlFieldValue_t: nvmlDeviceGetFieldValues. */
struct golden_nvml_field_value {
	unsigned int fieldId; /* NVML_FI_* */
	unsigned int scopeId;
	long long timestamp;
	long long latencyUsec;
	golden_nvml_value_type_t valueType;
	golden_nvml_return_t nvmlReturn; /* value is valid only if SUCCESS */
	union golden_nvml_value value;
};

/* NVML_FI_DEV_GET_GPU_RECOVERY_ACTION: a nvmlDeviceGpuRecoveryAction_t. */
#define GOLDEN_NVML_FI_DEV_GET_GPU_RECOVERY_ACTION 230

/* nvmlDeviceGpuRecoveryAction_t (NVML_GPU_RECOVERY_ACTION_*). */
enum golden_nvml_recovery_action {
	GOLDEN_NVML_RECOVERY_NONE = 0,
	GOLDEN_NVML_RECOVERY_GPU_RESET = 1,
	GOLDEN_NVML_RECOVERY_NODE_REBOOT = 2,
	GOLDEN_NVML_RECOVERY_DRAIN_P2P = 3,
	GOLDEN_NVML_RECOVERY_DRAIN_AND_RESET = 4,
	GOLDEN_NVML_RECOVERY_RECOVER_IMEX_DOMAIN = 5,
	GOLDEN_NVML_RECOVERY_BUS_RESET = 6,
	GOLDEN_NVML_RECOVERY_SYSTEM_REBOOT = 7
};

/* nvmlClocksEventReason* bits (the older nvmlClocksThrottleReason* names
 * have the same values). */
#define GOLDEN_NVML_CLOCKS_EVENT_GPU_IDLE       0x0000000000000001ULL
#define GOLDEN_NVML_CLOCKS_EVENT_SW_POWER_CAP   0x0000000000000004ULL
#define GOLDEN_NVML_CLOCKS_EVENT_HW_SLOWDOWN    0x0000000000000008ULL
#define GOLDEN_NVML_CLOCKS_EVENT_SYNC_BOOST     0x0000000000000010ULL
#define GOLDEN_NVML_CLOCKS_EVENT_SW_THERMAL     0x0000000000000020ULL
#define GOLDEN_NVML_CLOCKS_EVENT_HW_THERMAL     0x0000000000000040ULL
#define GOLDEN_NVML_CLOCKS_EVENT_HW_POWER_BRAKE 0x0000000000000080ULL

/* NVML_NVLINK_MAX_LINKS: 18 in NVML 11.8-13.2 headers, 36 from 13.3. A link
 * index past what a GPU has answers INVALID_ARGUMENT or NOT_SUPPORTED, so
 * asking for 36 is safe with older drivers. */
#define GOLDEN_NVML_NVLINK_MAX_LINKS 36

/* The NVML entry points slurm-golden uses, looked up with dlsym. The first
 * group is required (golden_nvml_open fails without it); the rest may be
 * NULL (older driver), and their wrappers then answer NOT_SUPPORTED. */
struct golden_nvml_fns {
	golden_nvml_return_t (*nvmlInit_v2)(void);
	golden_nvml_return_t (*nvmlShutdown)(void);
	golden_nvml_return_t (*nvmlDeviceGetCount_v2)(unsigned int *count);
	golden_nvml_return_t (*nvmlDeviceGetHandleByIndex_v2)(unsigned int index,
	                                                      golden_nvml_device_t *device);
	golden_nvml_return_t (*nvmlDeviceGetPciInfo_v3)(golden_nvml_device_t device,
	                                                struct golden_nvml_pci_info *pci);
	/* optional from here on */
	const char *(*nvmlErrorString)(golden_nvml_return_t result);
	golden_nvml_return_t (*nvmlDeviceGetTotalEccErrors)(golden_nvml_device_t device,
	                                                    golden_nvml_memory_error_type_t type,
	                                                    golden_nvml_ecc_counter_type_t counter,
	                                                    unsigned long long *count);
	golden_nvml_return_t (*nvmlDeviceGetRemappedRows)(golden_nvml_device_t device,
	                                                  unsigned int *corrRows,
	                                                  unsigned int *uncRows,
	                                                  unsigned int *isPending,
	                                                  unsigned int *failureOccurred);
	golden_nvml_return_t (*nvmlDeviceGetRetiredPagesPendingStatus)(
	    golden_nvml_device_t device, golden_nvml_enable_state_t *isPending);
	golden_nvml_return_t (*nvmlDeviceGetCurrPcieLinkGeneration)(golden_nvml_device_t device,
	                                                            unsigned int *gen);
	golden_nvml_return_t (*nvmlDeviceGetCurrPcieLinkWidth)(golden_nvml_device_t device,
	                                                       unsigned int *width);
	golden_nvml_return_t (*nvmlDeviceGetMaxPcieLinkGeneration)(golden_nvml_device_t device,
	                                                           unsigned int *gen);
	golden_nvml_return_t (*nvmlDeviceGetMaxPcieLinkWidth)(golden_nvml_device_t device,
	                                                      unsigned int *width);
	golden_nvml_return_t (*nvmlDeviceGetNvLinkState)(golden_nvml_device_t device,
	                                                 unsigned int link,
	                                                 golden_nvml_enable_state_t *isActive);
	golden_nvml_return_t (*nvmlDeviceGetCurrentClocksEventReasons)(golden_nvml_device_t device,
	                                                               unsigned long long *reasons);
	golden_nvml_return_t (*nvmlDeviceGetCurrentClocksThrottleReasons)(
	    golden_nvml_device_t device, unsigned long long *reasons);
	golden_nvml_return_t (*nvmlDeviceGetGpuFabricInfoV)(golden_nvml_device_t device,
	                                                    void *info /* _v2 or _v3 */);
	golden_nvml_return_t (*nvmlDeviceGetGpuFabricInfo)(
	    golden_nvml_device_t device, struct golden_nvml_gpu_fabric_info *info);
	golden_nvml_return_t (*nvmlDeviceGetComputeRunningProcesses_v3)(
	    golden_nvml_device_t device, unsigned int *count,
	    struct golden_nvml_process_info *infos);
	golden_nvml_return_t (*nvmlDeviceGetFieldValues)(golden_nvml_device_t device, int count,
	                                                 struct golden_nvml_field_value *values);
};

struct golden_nvml {
	void *dl;
	bool initialized;
	/* NVML_SUCCESS once open; LIBRARY_NOT_FOUND when the library (or a
	 * required symbol) is missing; else what nvmlInit_v2 returned. */
	golden_nvml_return_t init_ret;
	struct golden_nvml_fns fn;
};

/* dlopen libnvidia-ml.so.1, look up the entry points and call nvmlInit_v2.
 * Returns 0, or -1 with a one-line reason in err (n->init_ret says which
 * step failed). Call golden_nvml_close either way. */
int golden_nvml_open(struct golden_nvml *n, struct golden_err *err);

/* nvmlShutdown if initialised, then dlclose. Safe to call twice. */
void golden_nvml_close(struct golden_nvml *n);

/* "Not Supported", from nvmlErrorString when there is one. */
const char *golden_nvml_strerror(const struct golden_nvml *n, golden_nvml_return_t r);

/* "00000000:3B:00.0" (NVML) -> "0000:3b:00.0" (sysfs, hwloc, struct
 * golden_gpu). Returns 0, or -1 if in is not a PCI address. */
int golden_nvml_busid_normalize(const char *in, char *out, size_t outlen);

/* Wrappers: NVML return codes; NOT_SUPPORTED where the symbol is absent. */
golden_nvml_return_t golden_nvml_device_count(const struct golden_nvml *n, unsigned int *count);
golden_nvml_return_t golden_nvml_device_handle(const struct golden_nvml *n, unsigned int index,
                                               golden_nvml_device_t *dev);
/* The normalised PCI bus id of a device (out: at least 16 bytes). */
golden_nvml_return_t golden_nvml_device_busid(const struct golden_nvml *n, golden_nvml_device_t dev,
                                              char *out, size_t outlen);
golden_nvml_return_t golden_nvml_ecc_uncorrected_volatile(const struct golden_nvml *n,
                                                          golden_nvml_device_t dev,
                                                          unsigned long long *count);
golden_nvml_return_t golden_nvml_remapped_rows(const struct golden_nvml *n,
                                               golden_nvml_device_t dev, unsigned int *corr,
                                               unsigned int *unc, bool *pending, bool *failure);
golden_nvml_return_t golden_nvml_retired_pages_pending(const struct golden_nvml *n,
                                                       golden_nvml_device_t dev, bool *pending);

struct golden_nvml_pcie {
	unsigned int gen, width, max_gen, max_width;
};
golden_nvml_return_t golden_nvml_pcie_link(const struct golden_nvml *n, golden_nvml_device_t dev,
                                           struct golden_nvml_pcie *link);
/* *active: true if the link is up. */
golden_nvml_return_t golden_nvml_nvlink_state(const struct golden_nvml *n, golden_nvml_device_t dev,
                                              unsigned int link, bool *active);
/* nvmlDeviceGetCurrentClocksEventReasons, or the older ThrottleReasons. */
golden_nvml_return_t golden_nvml_clocks_event_reasons(const struct golden_nvml *n,
                                                      golden_nvml_device_t dev,
                                                      unsigned long long *reasons);

struct golden_nvml_fabric {
	unsigned int state;          /* GOLDEN_NVML_GPU_FABRIC_STATE_* */
	golden_nvml_return_t status; /* when state is COMPLETED */
	unsigned int health_summary; /* GOLDEN_NVML_GPU_FABRIC_HEALTH_SUMMARY_*; 0 unknown */
	/* The NVLink domain (clusterUuid) and the partition in it (cliqueId),
	 * meaningful when state is COMPLETED and status SUCCESS. An all-zero
	 * UUID: no multi-node NVLink domain (HGX boards report that). */
	unsigned char cluster_uuid[GOLDEN_NVML_GPU_FABRIC_UUID_LEN];
	unsigned int clique_id;
};
/* A fabric cluster UUID as text, "8c2b1e7a-4f0d-4c5e-9a61-0d3f5e7b9c21"
 * (out: at least 37 bytes). */
void golden_nvml_uuid_format(const unsigned char uuid[GOLDEN_NVML_GPU_FABRIC_UUID_LEN], char *out,
                             size_t outlen);
/* All 16 bytes zero: no multi-node NVLink domain. */
bool golden_nvml_uuid_is_zero(const unsigned char uuid[GOLDEN_NVML_GPU_FABRIC_UUID_LEN]);

/* nvmlDeviceGetGpuFabricInfoV (v3, then v2), else nvmlDeviceGetGpuFabricInfo. */
golden_nvml_return_t golden_nvml_fabric_info(const struct golden_nvml *n, golden_nvml_device_t dev,
                                             struct golden_nvml_fabric *fab);
/* *count: in, the size of infos; out, how many were returned. With more
 * processes than that: INSUFFICIENT_SIZE, *count = how many there are, and
 * infos is not filled. */
golden_nvml_return_t golden_nvml_compute_procs(const struct golden_nvml *n,
                                               golden_nvml_device_t dev, unsigned int *count,
                                               struct golden_nvml_process_info *infos);
/* NVML_FI_DEV_GET_GPU_RECOVERY_ACTION via nvmlDeviceGetFieldValues. */
golden_nvml_return_t golden_nvml_recovery_action(const struct golden_nvml *n,
                                                 golden_nvml_device_t dev, unsigned int *action);

#endif
