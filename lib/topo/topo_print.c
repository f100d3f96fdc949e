/* `golden topo` renderings. */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "nvml/nvml.h"
#include "topo/topo.h"
#include "util/jsonschema.h"

static const char *nic_ifname(const struct golden_nic *n)
{
	return n->kind == GOLDEN_NIC_ETH ? n->name : n->netdev;
}

/* GUIDs as "0x%016x" strings (a JSON number cannot hold 64 bits); null unknown. */
static struct json_object *guid_json(uint64_t guid)
{
	char buf[24];

	if (!guid)
		return NULL;
	golden_topo_guid_format(guid, buf, sizeof(buf));
	return json_object_new_string(buf);
}

static const char *fabric_state_name(unsigned st)
{
	static const char *const names[] = {"not-supported", "not-started", "in-progress",
	                                    "completed"};

	return st < sizeof(names) / sizeof(names[0]) ? names[st] : "unknown";
}

static struct json_object *gpu_fabric_json(const struct golden_gpu_fabric *f)
{
	struct json_object *o;
	char uuid[40];

	if (!f->read)
		return NULL;
	o = json_object_new_object();
	golden_nvml_uuid_format(f->cluster_uuid, uuid, sizeof(uuid));
	json_object_object_add(o, "state", json_object_new_string(fabric_state_name(f->state)));
	json_object_object_add(o, "status", json_object_new_int(f->status));
	json_object_object_add(o, "cluster_uuid", json_object_new_string(uuid));
	json_object_object_add(o, "clique_id", json_object_new_int64(f->clique_id));
	return o;
}

/* The node's NVLink domain: what topology generation groups nodes by. */
static struct json_object *nvlink_json(const struct golden_nvlink *nv)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "read", json_object_new_boolean(nv->read));
	if (nv->read) {
		json_object_object_add(o, "gpus", json_object_new_int(nv->ngpus));
		json_object_object_add(o, "state",
		                       json_object_new_string(fabric_state_name(nv->state)));
		json_object_object_add(o, "status", json_object_new_int(nv->status));
		json_object_object_add(o, "consistent", json_object_new_boolean(nv->consistent));
		json_object_object_add(o, "attached", json_object_new_boolean(nv->attached));
		json_object_object_add(
		    o, "cluster_uuid",
		    nv->cluster_uuid[0] ? json_object_new_string(nv->cluster_uuid) : NULL);
		json_object_object_add(o, "clique_id", json_object_new_int64(nv->clique_id));
		json_object_object_add(o, "domain",
		                       nv->domain[0] ? json_object_new_string(nv->domain) : NULL);
	}
	if (nv->why[0])
		json_object_object_add(o, "why", json_object_new_string(nv->why));
	return o;
}

static struct json_object *port_json(const struct golden_port *p)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "port", json_object_new_int(p->num));
	json_object_object_add(o, "link_layer", json_object_new_string(p->link_layer));
	json_object_object_add(o, "state", json_object_new_int(p->state));
	json_object_object_add(o, "phys_state", json_object_new_int(p->phys_state));
	json_object_object_add(o, "rate_gbps", json_object_new_double(p->rate_gbps));
	json_object_object_add(o, "roce_v2_gid_index", json_object_new_int(p->roce_v2_gid));
	json_object_object_add(o, "subnet_prefix", guid_json(p->subnet_prefix));
	json_object_object_add(o, "port_guid", guid_json(p->port_guid));
	return o;
}

static struct json_object *nic_json(const struct golden_nic *n)
{
	struct json_object *o = json_object_new_object(), *ports = json_object_new_array();

	json_object_object_add(o, "name", json_object_new_string(n->name));
	json_object_object_add(o, "netdev", json_object_new_string(n->netdev));
	json_object_object_add(o, "kind",
	                       json_object_new_string(golden_topo_nic_kind_name(n->kind)));
	json_object_object_add(o, "class",
	                       json_object_new_string(golden_topo_nic_class_name(n->cls)));
	json_object_object_add(o, "busid", json_object_new_string(n->busid));
	json_object_object_add(o, "numa", json_object_new_int(n->numa));
	json_object_object_add(o, "gpu_locality",
	                       json_object_new_string(golden_topo_loc_name(n->gpu_loc)));
	json_object_object_add(o, "rate_gbps", json_object_new_double(n->rate_gbps));
	json_object_object_add(o, "operstate", json_object_new_string(n->operstate));
	json_object_object_add(o, "has_address", json_object_new_boolean(n->has_addr));
	json_object_object_add(o, "default_route", json_object_new_boolean(n->default_route));
	for (int i = 0; i < n->nports; i++)
		json_object_array_add(ports, port_json(&n->ports[i]));
	json_object_object_add(o, "ports", ports);
	if (n->kind != GOLDEN_NIC_ETH) {
		json_object_object_add(o, "node_guid", guid_json(n->node_guid));
		json_object_object_add(o, "node_desc", json_object_new_string(n->node_desc));
	}
	return o;
}

static struct json_object *notes_json(const struct golden_topo *topo)
{
	struct json_object *a = json_object_new_array();

	for (int i = 0; i < topo->nnotes && i < GOLDEN_TOPO_MAX_NOTES; i++) {
		struct json_object *n = json_object_new_object();

		json_object_object_add(n, "warning",
		                       json_object_new_boolean(topo->notes[i].warning));
		json_object_object_add(n, "text", json_object_new_string(topo->notes[i].text));
		json_object_array_add(a, n);
	}
	return a;
}

struct json_object *golden_topo_to_json(const struct golden_topo *topo)
{
	struct json_object *o = json_object_new_object();
	struct json_object *gpus = json_object_new_array(), *nics = json_object_new_array();

	for (int i = 0; i < topo->ngpus; i++) {
		const struct golden_gpu *g = &topo->gpus[i];
		struct json_object *j = json_object_new_object();

		json_object_object_add(j, "busid", json_object_new_string(g->busid));
		json_object_object_add(j, "model", json_object_new_string(g->model));
		json_object_object_add(j, "numa", json_object_new_int(g->numa));
		json_object_object_add(j, "nearest_nic",
		                       g->nearest_nic >= 0
		                           ? json_object_new_string(topo->nics[g->nearest_nic].name)
		                           : NULL);
		json_object_object_add(
		    j, "nearest_locality",
		    json_object_new_string(golden_topo_loc_name(g->nearest_loc)));
		if (g->fabric.read)
			json_object_object_add(j, "fabric", gpu_fabric_json(&g->fabric));
		json_object_array_add(gpus, j);
	}
	for (int i = 0; i < topo->nnics; i++)
		json_object_array_add(nics, nic_json(&topo->nics[i]));
	json_object_object_add(o, "source", json_object_new_string(topo->source));
	json_object_object_add(o, "dmi_product", json_object_new_string(topo->dmi_product));
	json_object_object_add(o, "numa_count", json_object_new_int(topo->nnuma));
	json_object_object_add(o, "nvswitches", json_object_new_int(topo->nvswitches));
	json_object_object_add(o, "pcie_flat", json_object_new_boolean(topo->pcie_flat));
	json_object_object_add(o, "rdma_fallback", json_object_new_boolean(topo->rdma_fallback));
	json_object_object_add(o, "xml_host", json_object_new_string(topo->xml_host));
	json_object_object_add(o, "notes", notes_json(topo));
	json_object_object_add(o, "bootstrap_if", json_object_new_string(topo->bootstrap_if));
	json_object_object_add(o, "gpus", gpus);
	json_object_object_add(o, "nics", nics);
	json_object_object_add(o, "nvlink", nvlink_json(&topo->nvlink));
	return o;
}

static void port_summary(const struct golden_nic *n, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < n->nports && used < len; i++) {
		const struct golden_port *p = &n->ports[i];
		int w = snprintf(buf + used, len - used, "%sp%d %s %s %s%s", i ? ", " : "", p->num,
		                 p->state == 4  ? "ACTIVE"
		                 : p->state < 0 ? "?"
		                                : "NOT-ACTIVE",
		                 p->phys_state == 5  ? "LinkUp"
		                 : p->phys_state < 0 ? "?"
		                                     : "down",
		                 p->link_layer[0] ? p->link_layer : "?", "");

		if (w < 0)
			return;
		used += (size_t)w;
		if (p->roce_v2_gid >= 0 && used < len) {
			w = snprintf(buf + used, len - used, " gid%d=RoCEv2", p->roce_v2_gid);
			used += w > 0 ? (size_t)w : 0;
		}
	}
}

void golden_topo_print_text(const struct golden_topo *topo, FILE *out)
{
	char ports[256];

	fprintf(out, "source: %s\nproduct: %s\nNUMA nodes: %d   NVSwitches: %d%s\n\n", topo->source,
	        topo->dmi_product[0] ? topo->dmi_product : "-", topo->nnuma, topo->nvswitches,
	        topo->pcie_flat
	            ? "   GPUs sit right on host bridges: a hypervisor hides the PCIe tree"
	            : "");
	for (int i = 0; i < topo->nnotes && i < GOLDEN_TOPO_MAX_NOTES; i++)
		fprintf(out, "%s: %s\n", topo->notes[i].warning ? "warning" : "note",
		        topo->notes[i].text);
	if (topo->nnotes)
		fputc('\n', out);
	fprintf(out, "GPUs (%d):\n", topo->ngpus);
	fprintf(out, "  %-4s %-13s %-22s %-4s %s\n", "#", "BUSID", "MODEL", "NUMA", "NEAREST NIC");
	for (int i = 0; i < topo->ngpus; i++) {
		const struct golden_gpu *g = &topo->gpus[i];

		fprintf(out, "  %-4d %-13s %-22s %-4d %s %s\n", i, g->busid, g->model, g->numa,
		        g->nearest_nic >= 0 ? topo->nics[g->nearest_nic].name : "-",
		        golden_topo_loc_name(g->nearest_loc));
	}
	fprintf(out, "\nNICs (%d):\n", topo->nnics);
	fprintf(out, "  %-14s %-5s %-8s %-13s %-4s %-4s %-7s %-14s %-6s %s\n", "NAME", "KIND",
	        "CLASS", "BUSID", "NUMA", "LOC", "GB/S", "NETDEV", "STATE", "PORTS");
	for (int i = 0; i < topo->nnics; i++) {
		const struct golden_nic *n = &topo->nics[i];

		port_summary(n, ports, sizeof(ports));
		fprintf(out, "  %-14s %-5s %-8s %-13s %-4d %-4s %-7g %-14s %-6s %s\n", n->name,
		        golden_topo_nic_kind_name(n->kind), golden_topo_nic_class_name(n->cls),
		        n->busid[0] ? n->busid : "-", n->numa, golden_topo_loc_name(n->gpu_loc),
		        n->rate_gbps, *nic_ifname(n) ? nic_ifname(n) : "-",
		        n->operstate[0] ? n->operstate : "-", ports);
	}
	fprintf(out, "\nbootstrap interface (NCCL_SOCKET_IFNAME): %s\n",
	        topo->bootstrap_if[0] ? topo->bootstrap_if
	                              : "(none: no up interface with an address)");
	if (topo->nvlink.attached)
		fprintf(out, "NVLink domain: %s (%d GPUs, registration completed)\n",
		        topo->nvlink.domain, topo->nvlink.ngpus);
	else if (topo->nvlink.why[0])
		fprintf(out, "NVLink domain: none: %s\n", topo->nvlink.why);
}

struct json_object *golden_topo_node_facts_json(const char *node, const struct golden_topo *topo)
{
	struct json_object *o = json_object_new_object();

	golden_json_stamp(o, "golden-node-facts");
	json_object_object_add(o, "format", json_object_new_string(GOLDEN_NODE_FACTS_FORMAT));
	json_object_object_add(o, "version", json_object_new_int(1));
	json_object_object_add(o, "node", json_object_new_string(node));
	json_object_object_add(o, "time", json_object_new_int64((int64_t)time(NULL)));
	json_object_object_add(o, "topo", golden_topo_to_json(topo));
	return o;
}
