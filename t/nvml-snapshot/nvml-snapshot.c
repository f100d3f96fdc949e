/* nvml-snapshot: what NVML answers on this node, written as a fake-NVML
 * state file (t/fake-nvml/README.md), so a real GPU node becomes a fixture:
 * FAKE_NVML_STATE=snapshot.json then replays it for the GPU checks.
 *
 * It asks through golden's own NVML layer (lib/nvml), the same calls the
 * checks make, so the fixture holds exactly what the checks would have seen.
 * An answer that is not SUCCESS is kept: NOT_SUPPORTED as "unsupported"
 * where the fake knows that word, any other code under "errors" with the
 * entry point's name, so the replay fails the same way.
 *
 * Usage: nvml-snapshot [COMMENT]   (stdout; exit 1 when NVML cannot start) */
#include <config.h>

#include "nvml/nvml.h"

#include <dlfcn.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

enum { PROC_MAX = 256 };

/* name -> code, for every answer the replay must repeat. */
static void note_error(json_object *errors, const char *fn, golden_nvml_return_t r)
{
	json_object_object_add(errors, fn, json_object_new_int((int)r));
}

static json_object *hex64(unsigned long long v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "0x%llx", v);
	return json_object_new_string(buf);
}

/* key = value when NVML answered, "unsupported" for NOT_SUPPORTED (the
 * fake's word for it), else the code under errors with fn's name. Takes
 * value either way. */
static void put_answer(json_object *gpu, json_object *errors, const char *key, const char *fn,
                       golden_nvml_return_t r, json_object *value)
{
	if (r == GOLDEN_NVML_SUCCESS) {
		json_object_object_add(gpu, key, value);
		return;
	}
	json_object_put(value);
	if (r == GOLDEN_NVML_ERROR_NOT_SUPPORTED)
		json_object_object_add(gpu, key, json_object_new_string("unsupported"));
	else
		note_error(errors, fn, r);
}

static void snap_ecc(const struct golden_nvml *n, golden_nvml_device_t d, json_object *gpu,
                     json_object *errors)
{
	unsigned long long ecc = 0;
	golden_nvml_return_t r = golden_nvml_ecc_uncorrected_volatile(n, d, &ecc);

	put_answer(gpu, errors, "ecc_uncorrected_volatile", "nvmlDeviceGetTotalEccErrors", r,
	           json_object_new_uint64(ecc));
}

static void snap_remap(const struct golden_nvml *n, golden_nvml_device_t d, json_object *gpu,
                       json_object *errors)
{
	unsigned int corr = 0, unc = 0;
	bool pending = false, failure = false, retired = false;
	golden_nvml_return_t r = golden_nvml_remapped_rows(n, d, &corr, &unc, &pending, &failure);
	json_object *o = json_object_new_object();

	json_object_object_add(o, "corr", json_object_new_int64(corr));
	json_object_object_add(o, "unc", json_object_new_int64(unc));
	json_object_object_add(o, "pending", json_object_new_boolean(pending));
	json_object_object_add(o, "failure", json_object_new_boolean(failure));
	put_answer(gpu, errors, "remap", "nvmlDeviceGetRemappedRows", r, o);
	r = golden_nvml_retired_pages_pending(n, d, &retired);
	put_answer(gpu, errors, "retired_pages_pending", "nvmlDeviceGetRetiredPagesPendingStatus",
	           r, json_object_new_boolean(retired));
}

static void snap_links(const struct golden_nvml *n, golden_nvml_device_t d, json_object *gpu,
                       json_object *errors)
{
	struct golden_nvml_pcie pcie = {0};
	golden_nvml_return_t r = golden_nvml_pcie_link(n, d, &pcie);
	if (r == GOLDEN_NVML_SUCCESS) {
		json_object *o = json_object_new_object();
		json_object_object_add(o, "gen", json_object_new_int64(pcie.gen));
		json_object_object_add(o, "width", json_object_new_int64(pcie.width));
		json_object_object_add(o, "max_gen", json_object_new_int64(pcie.max_gen));
		json_object_object_add(o, "max_width", json_object_new_int64(pcie.max_width));
		json_object_object_add(gpu, "pcie", o);
	} else {
		note_error(errors, "nvmlDeviceGetCurrPcieLinkGeneration", r);
	}

	/* Links until the first index the GPU does not have. */
	json_object *links = json_object_new_array();
	golden_nvml_return_t first = GOLDEN_NVML_SUCCESS;
	for (unsigned int l = 0; l < GOLDEN_NVML_NVLINK_MAX_LINKS; l++) {
		bool up = false;
		r = golden_nvml_nvlink_state(n, d, l, &up);
		if (l == 0)
			first = r;
		if (r != GOLDEN_NVML_SUCCESS)
			break;
		json_object_array_add(links, json_object_new_boolean(up));
	}
	if (json_object_array_length(links) > 0) {
		json_object_object_add(gpu, "nvlink_up", links);
	} else {
		json_object_put(links);
		if (first == GOLDEN_NVML_ERROR_NOT_SUPPORTED ||
		    first == GOLDEN_NVML_ERROR_INVALID_ARGUMENT)
			json_object_object_add(gpu, "nvlink",
			                       json_object_new_string("unsupported"));
		else
			note_error(errors, "nvmlDeviceGetNvLinkState", first);
	}

	unsigned long long reasons = 0;
	r = golden_nvml_clocks_event_reasons(n, d, &reasons);
	if (r == GOLDEN_NVML_SUCCESS)
		json_object_object_add(gpu, "clocks_event_reasons", hex64(reasons));
	else
		note_error(errors, "nvmlDeviceGetCurrentClocksEventReasons", r);
}

static void snap_fabric(const struct golden_nvml *n, golden_nvml_device_t d, json_object *gpu,
                        json_object *errors)
{
	struct golden_nvml_fabric fab;
	memset(&fab, 0, sizeof(fab));
	golden_nvml_return_t r = golden_nvml_fabric_info(n, d, &fab);
	if (r == GOLDEN_NVML_SUCCESS && fab.state != GOLDEN_NVML_GPU_FABRIC_STATE_NOT_SUPPORTED) {
		char uuid[40];
		golden_nvml_uuid_format(fab.cluster_uuid, uuid, sizeof(uuid));
		json_object *o = json_object_new_object();
		json_object_object_add(o, "state", json_object_new_int64(fab.state));
		json_object_object_add(o, "status", json_object_new_int((int)fab.status));
		json_object_object_add(o, "health_summary",
		                       json_object_new_int64(fab.health_summary));
		json_object_object_add(o, "cluster_uuid", json_object_new_string(uuid));
		json_object_object_add(o, "clique_id", json_object_new_int64(fab.clique_id));
		json_object_object_add(gpu, "fabric", o);
	} else if (r == GOLDEN_NVML_SUCCESS || r == GOLDEN_NVML_ERROR_NOT_SUPPORTED) {
		json_object_object_add(gpu, "fabric", json_object_new_string("unsupported"));
	} else {
		note_error(errors, "nvmlDeviceGetGpuFabricInfoV", r);
	}
}

static void snap_procs(const struct golden_nvml *n, golden_nvml_device_t d, json_object *gpu,
                       json_object *errors)
{
	static struct golden_nvml_process_info infos[PROC_MAX];
	unsigned int count = PROC_MAX;
	golden_nvml_return_t r = golden_nvml_compute_procs(n, d, &count, infos);
	if (r == GOLDEN_NVML_SUCCESS) {
		json_object *procs = json_object_new_array();
		for (unsigned int i = 0; i < count && i < PROC_MAX; i++) {
			json_object *p = json_object_new_object();
			json_object_object_add(p, "pid", json_object_new_int64(infos[i].pid));
			json_object_object_add(p, "mem",
			                       json_object_new_uint64(infos[i].usedGpuMemory));
			json_object_array_add(procs, p);
		}
		json_object_object_add(gpu, "procs", procs);
	} else {
		note_error(errors, "nvmlDeviceGetComputeRunningProcesses_v3", r);
	}

	unsigned int action = 0;
	r = golden_nvml_recovery_action(n, d, &action);
	put_answer(gpu, errors, "recovery_action", "nvmlDeviceGetFieldValues", r,
	           json_object_new_int64(action));
}

static json_object *snap_gpu(const struct golden_nvml *n, unsigned int index)
{
	json_object *gpu = json_object_new_object();
	json_object *errors = json_object_new_object();
	golden_nvml_device_t d = NULL;
	golden_nvml_return_t r = golden_nvml_device_handle(n, index, &d);
	if (r != GOLDEN_NVML_SUCCESS) {
		note_error(errors, "nvmlDeviceGetHandleByIndex_v2", r);
		json_object_object_add(gpu, "errors", errors);
		return gpu;
	}
	struct golden_nvml_pci_info pci;
	memset(&pci, 0, sizeof(pci));
	r = n->fn.nvmlDeviceGetPciInfo_v3(d, &pci);
	char busid[GOLDEN_NVML_PCI_BUS_ID_BUFFER_SIZE] = "";
	if (r == GOLDEN_NVML_SUCCESS &&
	    golden_nvml_busid_normalize(pci.busId, busid, sizeof(busid)) == 0) {
		char devid[16];
		snprintf(devid, sizeof(devid), "0x%08x", pci.pciDeviceId);
		json_object_object_add(gpu, "bus_id", json_object_new_string(busid));
		json_object_object_add(gpu, "pci_device_id", json_object_new_string(devid));
	} else {
		note_error(errors, "nvmlDeviceGetPciInfo_v3", r);
	}
	snap_ecc(n, d, gpu, errors);
	snap_remap(n, d, gpu, errors);
	snap_links(n, d, gpu, errors);
	snap_fabric(n, d, gpu, errors);
	snap_procs(n, d, gpu, errors);
	if (json_object_object_length(errors) > 0)
		json_object_object_add(gpu, "errors", errors);
	else
		json_object_put(errors);
	return gpu;
}

/* "driver 580.159.04, NVIDIA H200": for the comment, from entry points the
 * checks do not need (looked up here only). */
static void describe(const struct golden_nvml *n, char *out, size_t outlen)
{
	typedef golden_nvml_return_t (*version_fn)(char *, unsigned int);
	typedef golden_nvml_return_t (*name_fn)(golden_nvml_device_t, char *, unsigned int);
	char version[96] = "?", name[96] = "?";
	version_fn v = NULL;
	name_fn nm = NULL;
	*(void **)&v = dlsym(n->dl, "nvmlSystemGetDriverVersion");
	*(void **)&nm = dlsym(n->dl, "nvmlDeviceGetName");
	golden_nvml_device_t d = NULL;
	if (v && v(version, sizeof(version)) != GOLDEN_NVML_SUCCESS)
		strcpy(version, "?");
	if (nm && golden_nvml_device_handle(n, 0, &d) == GOLDEN_NVML_SUCCESS &&
	    nm(d, name, sizeof(name)) != GOLDEN_NVML_SUCCESS)
		strcpy(name, "?");
	snprintf(out, outlen, "driver %s, %s", version, name);
}

int main(int argc, char **argv)
{
	struct golden_nvml n;
	struct golden_err err = {{0}};
	json_object *root = json_object_new_object();
	int rc = 0;

	if (golden_nvml_open(&n, &err) != 0) {
		fprintf(stderr, "nvml-snapshot: %s\n", err.msg);
		json_object_object_add(root, "comment",
		                       json_object_new_string(argc > 1 ? argv[1] : err.msg));
		json_object_object_add(root, "init", json_object_new_int((int)n.init_ret));
		rc = 1;
	} else {
		char what[256], comment[512];
		describe(&n, what, sizeof(what));
		snprintf(comment, sizeof(comment), "%s%s%s", argc > 1 ? argv[1] : "",
		         argc > 1 ? "; " : "", what);
		json_object_object_add(root, "comment", json_object_new_string(comment));
		json_object *gpus = json_object_new_array();
		unsigned int count = 0;
		golden_nvml_return_t r = golden_nvml_device_count(&n, &count);
		if (r != GOLDEN_NVML_SUCCESS) {
			fprintf(stderr, "nvml-snapshot: nvmlDeviceGetCount_v2: %s\n",
			        golden_nvml_strerror(&n, r));
			rc = 1;
		}
		for (unsigned int i = 0; i < count; i++)
			json_object_array_add(gpus, snap_gpu(&n, i));
		json_object_object_add(root, "gpus", gpus);
	}
	golden_nvml_close(&n);
	puts(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
	                                              JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(root);
	return rc;
}
