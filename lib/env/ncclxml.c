/* Generate NCCL topology XML from a GPU-NIC pairing description. The
 * element and attribute names are those NCCL's src/graph/xml.cc reads:
 * <system version>, <cpu numaid>, <pci busid class link_speed link_width
 * vendor device subsystem_vendor subsystem_device>. NCCL matches the leaves
 * to real devices by busid and fills in everything else itself. */
#include "env/ncclxml.h"

#include <ctype.h>
#include <stdbool.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NUMA     16
#define MAX_SWITCHES 64

/* NCCL's kvDictPciGen (src/graph/topo.cc): any other text falls back to Gen3. */
static const char *const link_speeds[] = {"2.5 GT/s",       "5 GT/s",         "8 GT/s",
                                          "16 GT/s",        "32 GT/s",        "2.5 GT/s PCIe",
                                          "5.0 GT/s PCIe",  "8.0 GT/s PCIe",  "16.0 GT/s PCIe",
                                          "32.0 GT/s PCIe", "64.0 GT/s PCIe", NULL};

struct gen {
	const char *path;
	struct golden_err *err;
	const char *speed;
	int width;
	char seen[MAX_NUMA * MAX_SWITCHES * 8][16]; /* every busid once */
	int nseen;
};

/* "DDDD:BB:DD.F", lower-case hex, as NCCL writes and compares busids. */
static bool is_busid(const char *s)
{
	static const char shape[] = "xxxx:xx:xx.x";

	if (strlen(s) != sizeof(shape) - 1)
		return false;
	for (size_t i = 0; shape[i]; i++)
		if (shape[i] == 'x'
		        ? !(isdigit((unsigned char)s[i]) || (s[i] >= 'a' && s[i] <= 'f'))
		        : s[i] != shape[i])
			return false;
	return s[11] <= '7';
}

static const char *get_str(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static struct json_object *get_array(struct json_object *o, const char *key, size_t max)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_array) ||
	    json_object_array_length(v) == 0 || json_object_array_length(v) > max)
		return NULL;
	return v;
}

static int leaves(struct gen *g, struct json_object *sw, const char *key, const char *where,
                  const char *cls, FILE *out)
{
	struct json_object *a = get_array(sw, key, 8);

	if (!a)
		return golden_err_set(g->err, "%s: %s.%s: expected an array of 1-8 PCI bus ids",
		                      g->path, where, key);
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		struct json_object *b = json_object_array_get_idx(a, i);
		const char *s = json_object_get_string(b);

		if (!json_object_is_type(b, json_type_string) || !is_busid(s))
			return golden_err_set(g->err,
			                      "%s: %s.%s[%zu]: expected a PCI bus id DDDD:BB:DD.F "
			                      "(lower-case hex), e.g. 0001:00:00.0",
			                      g->path, where, key, i);
		for (int j = 0; j < g->nseen; j++)
			if (!strcmp(g->seen[j], s))
				return golden_err_set(
				    g->err,
				    "%s: %s.%s[%zu]: %s is paired twice; expected "
				    "each device in one switch",
				    g->path, where, key, i, s);
		if (g->nseen < (int)(sizeof(g->seen) / sizeof(g->seen[0])))
			memcpy(g->seen[g->nseen++], s, strlen(s) + 1);
		fprintf(out,
		        "      <pci busid=\"%s\" class=\"%s\" link_speed=\"%s\" "
		        "link_width=\"%d\"/>\n",
		        s, cls, g->speed, g->width);
	}
	return 0;
}

static int emit(struct gen *g, struct json_object *root, FILE *out)
{
	struct json_object *numas = get_array(root, "numa", MAX_NUMA), *w;
	const char *name = get_str(root, "name");
	int nsw = 0;

	if (!name)
		return golden_err_set(g->err, "%s: name: missing; expected a string", g->path);
	g->speed = get_str(root, "link_speed");
	for (const char *const *s = link_speeds; g->speed && *s; s++)
		if (!strcmp(*s, g->speed))
			goto speed_ok;
	return golden_err_set(
	    g->err,
	    "%s: link_speed: expected one of NCCL's PCIe speeds, e.g. \"16 GT/s\" "
	    "or \"32.0 GT/s PCIe\"",
	    g->path);
speed_ok:
	if (!json_object_object_get_ex(root, "link_width", &w) ||
	    !json_object_is_type(w, json_type_int) || json_object_get_int(w) < 1 ||
	    json_object_get_int(w) > 32)
		return golden_err_set(g->err, "%s: link_width: expected an integer 1-32", g->path);
	g->width = json_object_get_int(w);
	if (!numas)
		return golden_err_set(g->err, "%s: numa: expected an array of 1-%d NUMA nodes",
		                      g->path, MAX_NUMA);
	/* No comment lines: NCCL's own XML reader is minimal. */
	fprintf(out, "<system version=\"1\">\n");
	for (size_t i = 0; i < json_object_array_length(numas); i++) {
		struct json_object *n = json_object_array_get_idx(numas, i), *id, *sws;
		char where[64];

		snprintf(where, sizeof(where), "numa[%zu]", i);
		if (!json_object_is_type(n, json_type_object) ||
		    !json_object_object_get_ex(n, "id", &id) ||
		    !json_object_is_type(id, json_type_int) || json_object_get_int(id) < 0 ||
		    json_object_get_int(id) > 1023)
			return golden_err_set(g->err,
			                      "%s: %s.id: expected a NUMA node number 0-1023",
			                      g->path, where);
		sws = get_array(n, "switches", MAX_SWITCHES);
		if (!sws)
			return golden_err_set(g->err,
			                      "%s: %s.switches: expected an array of 1-%d "
			                      "{\"gpus\": [...], \"nics\": [...]}",
			                      g->path, where, MAX_SWITCHES);
		/* affinity, arch and vendor are left out: NCCL reads them from the node. */
		fprintf(out, "  <cpu numaid=\"%d\">\n", json_object_get_int(id));
		for (size_t s = 0; s < json_object_array_length(sws); s++) {
			struct json_object *sw = json_object_array_get_idx(sws, s);
			char swhere[96];

			snprintf(swhere, sizeof(swhere), "%s.switches[%zu]", where, s);
			if (++nsw > 255)
				return golden_err_set(g->err, "%s: %s: more than 255 switches",
				                      g->path, swhere);
			/* ffff:ff is no real domain: NCCL keeps it as a bridge of its own. */
			fprintf(
			    out,
			    "    <pci busid=\"ffff:ff:%02x.0\" class=\"0x060400\" "
			    "vendor=\"0x0000\" device=\"0x0000\" subsystem_vendor=\"0x0000\" "
			    "subsystem_device=\"0x0000\" link_speed=\"%s\" link_width=\"%d\">\n",
			    nsw, g->speed, g->width);
			if (leaves(g, sw, "gpus", swhere, "0x030200", out) < 0 ||
			    leaves(g, sw, "nics", swhere, "0x020700", out) < 0)
				return -1;
			fprintf(out, "    </pci>\n");
		}
		fprintf(out, "  </cpu>\n");
	}
	fprintf(out, "</system>\n");
	return 0;
}

int golden_ncclxml_generate(const char *path, FILE *out, struct golden_err *err)
{
	struct json_object *root = json_object_from_file(path);
	struct gen *g;
	int rc;

	if (!root || !json_object_is_type(root, json_type_object)) {
		json_object_put(root);
		return golden_err_set(err, "%s: cannot read or not a JSON object: %s", path,
		                      json_util_get_last_err() ? json_util_get_last_err() : "");
	}
	g = calloc(1, sizeof(*g));
	if (!g) {
		json_object_put(root);
		return golden_err_set(err, "%s: out of memory", path);
	}
	g->path = path;
	g->err = err;
	rc = emit(g, root, out);
	free(g);
	json_object_put(root);
	return rc;
}
