/* Which multi-node NVLink domain this node's GPUs are in, from NVML's GPU
 * fabric info: the cluster UUID names the domain (an NVL72 rack under the
 * default partition), the clique id the partition inside it. A GPU counts
 * only once its registration is COMPLETED with status SUCCESS; an all-zero
 * UUID means no multi-node domain (HGX boards report exactly that). */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "nvml/nvml.h"
#include "util/strutil.h"
#include "topo/topo.h"

#define MAX_EXTRA 16

void golden_topo_guid_format(uint64_t guid, char *out, size_t len)
{
	snprintf(out, len, "0x%016llx", (unsigned long long)guid);
}

static const char *state_name(unsigned st)
{
	switch (st) {
	case GOLDEN_NVML_GPU_FABRIC_STATE_NOT_SUPPORTED:
		return "not supported";
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

static bool same_domain(const struct golden_gpu_fabric *a, const struct golden_gpu_fabric *b)
{
	return !memcmp(a->cluster_uuid, b->cluster_uuid, sizeof(a->cluster_uuid)) &&
	       a->clique_id == b->clique_id;
}

void golden_topo_nvlink_summarize(struct golden_topo *topo, const struct golden_gpu_fabric *extra,
                                  int nextra)
{
	struct golden_nvlink *nv = &topo->nvlink;
	const struct golden_gpu_fabric *first = NULL;
	int total = topo->ngpus + nextra;

	nv->ngpus = 0;
	nv->state = GOLDEN_NVML_GPU_FABRIC_STATE_COMPLETED;
	nv->status = 0;
	nv->consistent = true;
	nv->attached = false;
	nv->cluster_uuid[0] = nv->domain[0] = '\0';
	nv->clique_id = 0;
	for (int i = 0; i < total; i++) {
		const struct golden_gpu_fabric *f =
		    i < topo->ngpus ? &topo->gpus[i].fabric : &extra[i - topo->ngpus];

		if (!f->read || f->state == GOLDEN_NVML_GPU_FABRIC_STATE_NOT_SUPPORTED)
			continue;
		nv->ngpus++;
		if (f->state < nv->state)
			nv->state = f->state;
		if (f->state != GOLDEN_NVML_GPU_FABRIC_STATE_COMPLETED)
			continue;
		if (f->status != GOLDEN_NVML_SUCCESS) {
			if (!nv->status)
				nv->status = f->status;
			continue;
		}
		if (!first)
			first = f;
		else if (!same_domain(first, f))
			nv->consistent = false;
	}
	if (!nv->ngpus) {
		nv->state = GOLDEN_NVML_GPU_FABRIC_STATE_NOT_SUPPORTED;
		snprintf(nv->why, sizeof(nv->why),
		         "no GPU reports an NVLink fabric (no NVSwitch, or a driver without it)");
		return;
	}
	if (first) {
		golden_nvml_uuid_format(first->cluster_uuid, nv->cluster_uuid,
		                        sizeof(nv->cluster_uuid));
		nv->clique_id = first->clique_id;
	}
	if (nv->state != GOLDEN_NVML_GPU_FABRIC_STATE_COMPLETED)
		snprintf(nv->why, sizeof(nv->why),
		         "NVLink fabric registration %s on at least one GPU: is the fabric manager "
		         "(and IMEX) running?",
		         state_name(nv->state));
	else if (nv->status)
		snprintf(
		    nv->why, sizeof(nv->why),
		    "NVLink fabric registration failed (NVML error %d): see the fabric manager "
		    "log",
		    nv->status);
	else if (!nv->consistent)
		snprintf(nv->why, sizeof(nv->why),
		         "the GPUs disagree on the NVLink domain or clique (gpu-fabric check: "
		         "fabric split)");
	else if (golden_nvml_uuid_is_zero(first->cluster_uuid))
		snprintf(nv->why, sizeof(nv->why),
		         "cluster UUID is zero: no multi-node NVLink domain (an HGX board)");
	else {
		nv->attached = true;
		nv->why[0] = '\0';
		snprintf(nv->domain, sizeof(nv->domain), "%s.%u", nv->cluster_uuid, nv->clique_id);
	}
}

int golden_topo_read_nvlink(struct golden_topo *topo, struct golden_err *err)
{
	struct golden_nvml nv;
	struct golden_gpu_fabric extra[MAX_EXTRA];
	struct golden_err nerr = {{0}};
	unsigned count = 0;
	int nextra = 0;
	golden_nvml_return_t r;

	memset(&topo->nvlink, 0, sizeof(topo->nvlink));
	for (int i = 0; i < topo->ngpus; i++)
		memset(&topo->gpus[i].fabric, 0, sizeof(topo->gpus[i].fabric));
	if (golden_nvml_open(&nv, &nerr) < 0) {
		golden_nvml_close(&nv);
		golden_strlcpy(topo->nvlink.why, "NVML: ", sizeof(topo->nvlink.why));
		golden_strlcat(topo->nvlink.why, nerr.msg, sizeof(topo->nvlink.why));
		return golden_err_set(err, "%s", topo->nvlink.why);
	}
	r = golden_nvml_device_count(&nv, &count);
	if (r != GOLDEN_NVML_SUCCESS) {
		snprintf(topo->nvlink.why, sizeof(topo->nvlink.why),
		         "NVML: nvmlDeviceGetCount failed: %s", golden_nvml_strerror(&nv, r));
		golden_nvml_close(&nv);
		return golden_err_set(err, "%s", topo->nvlink.why);
	}
	for (unsigned i = 0; i < count; i++) {
		golden_nvml_device_t dev;
		struct golden_nvml_fabric f;
		struct golden_gpu_fabric *g = NULL;
		char bus[32];

		if (golden_nvml_device_handle(&nv, i, &dev) != GOLDEN_NVML_SUCCESS ||
		    golden_nvml_device_busid(&nv, dev, bus, sizeof(bus)) != GOLDEN_NVML_SUCCESS)
			continue;
		for (int k = 0; k < topo->ngpus && !g; k++)
			if (!strcmp(topo->gpus[k].busid, bus))
				g = &topo->gpus[k].fabric;
		if (!g) {
			if (nextra >= MAX_EXTRA)
				continue;
			g = &extra[nextra++];
			memset(g, 0, sizeof(*g));
		}
		r = golden_nvml_fabric_info(&nv, dev, &f);
		if (r == GOLDEN_NVML_ERROR_NOT_SUPPORTED ||
		    r == GOLDEN_NVML_ERROR_FUNCTION_NOT_FOUND)
			f.state = GOLDEN_NVML_GPU_FABRIC_STATE_NOT_SUPPORTED;
		else if (r != GOLDEN_NVML_SUCCESS)
			continue;
		g->read = true;
		g->state = f.state;
		g->status = (int)f.status;
		memcpy(g->cluster_uuid, f.cluster_uuid, sizeof(g->cluster_uuid));
		g->clique_id = f.clique_id;
	}
	golden_nvml_close(&nv);
	topo->nvlink.read = true;
	golden_topo_nvlink_summarize(topo, extra, nextra);
	return 0;
}
