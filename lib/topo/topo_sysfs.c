/* The sysfs/procfs half of discovery: what hwloc does not tell us. */
#include <config.h>

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strutil.h"
#include "util/sysroot.h"
#include "topo/topo_internal.h"

int golden_topo_find_nic(const struct golden_topo *topo, const char *name)
{
	for (int i = 0; i < topo->nnics; i++)
		if (!strcmp(topo->nics[i].name, name))
			return i;
	return -1;
}

static int find_rdma_by_busid(const struct golden_topo *topo, const char *bus)
{
	for (int i = 0; i < topo->nnics; i++)
		if (topo->nics[i].kind != GOLDEN_NIC_ETH && !strcmp(topo->nics[i].busid, bus))
			return i;
	return -1;
}

static bool is_pci_address(const char *s)
{
	unsigned d, b, dev, f;
	char tail;

	return sscanf(s, "%x:%x:%x.%x%c", &d, &b, &dev, &f, &tail) == 4;
}

static bool ipv4_mapped(const char *gid)
{
	return golden_str_startswith(gid, "0000:0000:0000:0000:0000:ffff:");
}

static bool zero_gid(const char *gid)
{
	for (; *gid; gid++)
		if (*gid != '0' && *gid != ':')
			return false;
	return true;
}

/* Lowest RoCE v2 GID index, preferring IPv4-mapped ones as NCCL does with
 * NCCL_IB_ADDR_FAMILY=AF_INET (net_ib/connect.cc ncclIbGetGidIndex). */
static int roce_v2_gid(const char *root, const char *portdir)
{
	char path[512], val[128];
	DIR *d;
	struct dirent *de;
	int best4 = -1, best = -1;

	snprintf(path, sizeof(path), "%s/gid_attrs/types", portdir);
	d = golden_sys_opendir(root, path);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		char *end;
		long i = strtol(de->d_name, &end, 10);

		if (!isdigit((unsigned char)de->d_name[0]) || *end || i > 4096)
			continue;
		snprintf(path, sizeof(path), "%s/gid_attrs/types/%ld", portdir, i);
		if (golden_sys_read(root, path, val, sizeof(val)) <= 0 || strcmp(val, "RoCE v2"))
			continue;
		snprintf(path, sizeof(path), "%s/gids/%ld", portdir, i);
		if (golden_sys_read(root, path, val, sizeof(val)) <= 0 || zero_gid(val))
			continue;
		if (ipv4_mapped(val) && (best4 < 0 || i < best4))
			best4 = (int)i;
		if (best < 0 || i < best)
			best = (int)i;
	}
	closedir(d);
	return best4 >= 0 ? best4 : best;
}

static void read_ports(const char *root, struct golden_nic *nic)
{
	char dir[256], path[384], val[128];
	DIR *d;
	struct dirent *de;
	int ib = 0, eth = 0;

	snprintf(dir, sizeof(dir), "/sys/class/infiniband/%s/ports", nic->name);
	d = golden_sys_opendir(root, dir);
	if (!d)
		return;
	while ((de = readdir(d)) && nic->nports < GOLDEN_MAX_PORTS) {
		struct golden_port *p;
		char *end;
		long num = strtol(de->d_name, &end, 10);

		if (!isdigit((unsigned char)de->d_name[0]) || *end)
			continue;
		p = &nic->ports[nic->nports++];
		memset(p, 0, sizeof(*p));
		p->num = (int)num;
		p->state = p->phys_state = p->roce_v2_gid = -1;
		snprintf(path, sizeof(path), "%s/%ld/link_layer", dir, num);
		if (golden_sys_read(root, path, val, sizeof(val)) > 0)
			golden_strlcpy(p->link_layer, val, sizeof(p->link_layer));
		snprintf(path, sizeof(path), "%s/%ld/state", dir, num);
		if (golden_sys_read(root, path, val, sizeof(val)) > 0)
			p->state = atoi(val); /* "4: ACTIVE" */
		snprintf(path, sizeof(path), "%s/%ld/phys_state", dir, num);
		if (golden_sys_read(root, path, val, sizeof(val)) > 0)
			p->phys_state = atoi(val); /* "5: LinkUp" */
		snprintf(path, sizeof(path), "%s/%ld/rate", dir, num);
		if (golden_sys_read(root, path, val, sizeof(val)) > 0)
			p->rate_gbps = strtod(val, NULL); /* "400 Gb/sec (4X NDR)" */
		if (!strcmp(p->link_layer, "Ethernet")) {
			snprintf(path, sizeof(path), "%s/%ld", dir, num);
			p->roce_v2_gid = roce_v2_gid(root, path);
			eth++;
		} else if (!strcmp(p->link_layer, "InfiniBand")) {
			ib++;
		}
		if (p->rate_gbps > nic->rate_gbps)
			nic->rate_gbps = p->rate_gbps;
	}
	closedir(d);
	/* readdir order is arbitrary; keep ports sorted by number. */
	for (int i = 1; i < nic->nports; i++)
		for (int j = i; j > 0 && nic->ports[j - 1].num > nic->ports[j].num; j--) {
			struct golden_port tmp = nic->ports[j];

			nic->ports[j] = nic->ports[j - 1];
			nic->ports[j - 1] = tmp;
		}
	if (nic->kind != GOLDEN_NIC_EFA && (ib || eth))
		nic->kind = ib >= eth ? GOLDEN_NIC_IB : GOLDEN_NIC_ROCE;
}

/* "b8e9:2403:009c:a838" (sysfs node_guid, the GUID half of a GID) -> value. */
static int parse_guid_groups(const char *s, int groups, uint64_t *out)
{
	uint64_t v = 0;

	for (int g = 0; g < groups; g++) {
		unsigned x;
		int n = 0;

		if (sscanf(s, "%4x%n", &x, &n) != 1 || n != 4)
			return -1;
		v = v << 16 | x;
		s += 4;
		if (g + 1 < groups && *s++ != ':')
			return -1;
	}
	*out = v;
	return 0;
}

/* What ibnetdiscover knows this adapter by: node GUID, NodeDescription,
 * and per InfiniBand port the subnet prefix and port GUID from GID 0
 * ("fe80:0000:0000:0000:b8e9:2403:009c:a838"). */
static void read_ib_ids(const char *root, struct golden_nic *nic)
{
	char path[384], val[128];

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/node_guid", nic->name);
	if (golden_sys_read(root, path, val, sizeof(val)) > 0)
		parse_guid_groups(val, 4, &nic->node_guid);
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/node_desc", nic->name);
	if (golden_sys_read(root, path, val, sizeof(val)) > 0)
		golden_strlcpy(nic->node_desc, val, sizeof(nic->node_desc));
	for (int i = 0; i < nic->nports; i++) {
		struct golden_port *p = &nic->ports[i];

		if (strcmp(p->link_layer, "InfiniBand"))
			continue;
		snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%d/gids/0", nic->name,
		         p->num);
		if (golden_sys_read(root, path, val, sizeof(val)) > 0 && strlen(val) == 39 &&
		    parse_guid_groups(val, 4, &p->subnet_prefix) == 0 &&
		    parse_guid_groups(val + 20, 4, &p->port_guid) == 0)
			continue;
		p->subnet_prefix = p->port_guid = 0;
	}
}

/* Attach a sysfs netdev to its RDMA device, to hwloc's entry, or add it. */
static struct golden_nic *netdev_entry(const char *root, struct golden_topo *topo,
                                       const char *ifname)
{
	char path[384], bus[64] = "";
	struct golden_nic *nic;
	int i;

	snprintf(path, sizeof(path), "/sys/class/net/%s/device", ifname);
	if (golden_sys_link_base(root, path, bus, sizeof(bus)) == 0 && is_pci_address(bus) &&
	    (i = find_rdma_by_busid(topo, bus)) >= 0) {
		nic = &topo->nics[i];
		if (!nic->netdev[0])
			golden_strlcpy(nic->netdev, ifname, sizeof(nic->netdev));
		if (!strcmp(nic->netdev, ifname))
			return nic;
		/* a second netdev on the same function: its own entry below */
	}
	for (i = 0; i < topo->nnics; i++)
		if (!strcmp(topo->nics[i].netdev, ifname))
			return &topo->nics[i];
	if ((i = golden_topo_find_nic(topo, ifname)) >= 0)
		return &topo->nics[i];
	if (topo->nnics >= GOLDEN_MAX_NICS)
		return NULL;
	nic = &topo->nics[topo->nnics++];
	memset(nic, 0, sizeof(*nic));
	golden_strlcpy(nic->name, ifname, sizeof(nic->name));
	nic->kind = GOLDEN_NIC_ETH;
	nic->numa = -1;
	nic->gpu_loc = GOLDEN_LOC_NONE;
	for (int g = 0; g < topo->ngpus; g++)
		topo->loc[g][topo->nnics - 1] = GOLDEN_LOC_NONE;
	if (bus[0] && is_pci_address(bus))
		golden_strlcpy(nic->busid, bus, sizeof(nic->busid));
	return nic;
}

static void read_netdev(const char *root, struct golden_nic *nic, const char *ifname)
{
	char path[384], val[64];
	long speed;

	snprintf(path, sizeof(path), "/sys/class/net/%s/operstate", ifname);
	if (golden_sys_read(root, path, val, sizeof(val)) > 0)
		golden_strlcpy(nic->operstate, val, sizeof(nic->operstate));
	snprintf(path, sizeof(path), "/sys/class/net/%s/device", ifname);
	nic->has_device = golden_sys_exists(root, path);
	snprintf(path, sizeof(path), "/sys/class/net/%s/bridge", ifname);
	nic->is_bridge = golden_sys_exists(root, path);
	snprintf(path, sizeof(path), "/sys/class/net/%s/bonding", ifname);
	nic->is_bond = golden_sys_exists(root, path);
	snprintf(path, sizeof(path), "/sys/class/net/%s/speed", ifname);
	if (nic->kind == GOLDEN_NIC_ETH && golden_sys_read_long(root, path, &speed) == 0 &&
	    speed > 0)
		nic->rate_gbps = (double)speed / 1000.0;
}

static struct golden_nic *nic_for_ifname(struct golden_topo *topo, const char *ifname)
{
	for (int i = 0; i < topo->nnics; i++) {
		struct golden_nic *n = &topo->nics[i];

		if (!strcmp(n->kind == GOLDEN_NIC_ETH ? n->name : n->netdev, ifname))
			return n;
	}
	return NULL;
}

/* /proc/net/route: an interface with an IPv4 route has an address; the
 * all-zero destination and mask is the default route. */
static void read_routes(const char *root, struct golden_topo *topo)
{
	char path[4096];
	FILE *f;
	char line[512];

	if (golden_sys_path(root, "/proc/net/route", path, sizeof(path)) < 0 ||
	    !(f = fopen(path, "re")))
		return;
	while (fgets(line, sizeof(line), f)) {
		char ifname[64], dest[16], gw[16], mask[16];
		unsigned flags;
		struct golden_nic *n;

		if (sscanf(line, "%63s %15s %15s %x %*s %*s %*s %15s", ifname, dest, gw, &flags,
		           mask) != 5 ||
		    !(flags & 1) || !(n = nic_for_ifname(topo, ifname)))
			continue;
		n->has_addr = true;
		if (!strcmp(dest, "00000000") && !strcmp(mask, "00000000"))
			n->default_route = true;
	}
	fclose(f);
}

/* /proc/net/if_inet6: global-scope IPv6 addresses count too. */
static void read_inet6(const char *root, struct golden_topo *topo)
{
	char path[4096], line[256];
	FILE *f;

	if (golden_sys_path(root, "/proc/net/if_inet6", path, sizeof(path)) < 0 ||
	    !(f = fopen(path, "re")))
		return;
	while (fgets(line, sizeof(line), f)) {
		char addr[64], ifname[64];
		unsigned idx, plen, scope, flags;
		struct golden_nic *n;

		if (sscanf(line, "%63s %x %x %x %x %63s", addr, &idx, &plen, &scope, &flags,
		           ifname) == 6 &&
		    scope == 0 && (n = nic_for_ifname(topo, ifname)))
			n->has_addr = true;
	}
	fclose(f);
}

void golden_topo_read_sysfs(const char *root, struct golden_topo *topo)
{
	DIR *d;
	struct dirent *de;
	int nhwloc = topo->nnics;

	for (int i = 0; i < nhwloc; i++)
		if (topo->nics[i].kind != GOLDEN_NIC_ETH)
			read_ports(root, &topo->nics[i]);
	for (int i = 0; i < nhwloc; i++)
		if (topo->nics[i].kind != GOLDEN_NIC_ETH)
			read_ib_ids(root, &topo->nics[i]);
	d = golden_sys_opendir(root, "/sys/class/net");
	if (d) {
		while ((de = readdir(d))) {
			struct golden_nic *nic;

			if (de->d_name[0] == '.')
				continue;
			nic = netdev_entry(root, topo, de->d_name);
			if (nic)
				read_netdev(root, nic, de->d_name);
		}
		closedir(d);
	}
	read_routes(root, topo);
	read_inet6(root, topo);
	/* An XML export carries its own machine's product name: that one is
	 * the node's, sysfs only fills in when it has none. */
	if (!topo->dmi_product[0] &&
	    golden_sys_read(root, "/sys/devices/virtual/dmi/id/product_name", topo->dmi_product,
	                    sizeof(topo->dmi_product)) < 0)
		topo->dmi_product[0] = '\0';
}
