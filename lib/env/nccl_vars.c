/* Known variables and their value checks. Ranges and value lists follow
 * NVIDIA/nccl docs/userguide/source/env.rst (2.30); see
 * /work/shared/reference/nccl-golden-recipes.md section 6. */
#include "env/nccl_vars.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/strutil.h"

#define POS_MAX 2147483647LL

/* One table row per line reads better than clang-format's layout. */
/* clang-format off */
#define INTV(n, lo, hi, h) {n, GOLDEN_VT_INT, lo, hi, NULL, false, h}
#define BOOLV(n, h) {n, GOLDEN_VT_BOOL, 0, 1, NULL, false, h}
#define ENUMV(n, v, nc, h) {n, GOLDEN_VT_ENUM, 0, 0, v, nc, h}
#define TYPEV(n, t, h) {n, t, 0, 0, NULL, false, h}

const struct golden_nccl_var golden_nccl_vars[] = {
	/* System configuration (safe to set node-wide). */
	TYPEV("NCCL_SOCKET_IFNAME", GOLDEN_VT_IF_LIST,
	      "bootstrap/socket interfaces: prefixes, ^ excludes, = exact names"),
	ENUMV("NCCL_SOCKET_FAMILY", "AF_INET,AF_INET6", false, "address family for sockets"),
	TYPEV("NCCL_IB_HCA", GOLDEN_VT_HCA_LIST,
	      "RDMA devices NCCL may use: [^][=]hca[:port],...; unset = every ACTIVE port"),
	BOOLV("NCCL_IB_DISABLE", "1: do not use the IB/RoCE transport (sockets instead)"),
	INTV("NCCL_IB_GID_INDEX", -1, 255, "GID index for RoCE; -1 (default since 2.21) = auto"),
	ENUMV("NCCL_IB_ADDR_FAMILY", "AF_INET,AF_INET6", false, "GID address family (RoCE auto)"),
	TYPEV("NCCL_IB_ADDR_RANGE", GOLDEN_VT_CIDR, "GID address range, CIDR (RoCE auto)"),
	INTV("NCCL_IB_ROCE_VERSION_NUM", 1, 2, "RoCE version for GID auto-selection (default 2)"),
	INTV("NCCL_IB_TC", 0, 255, "IB traffic class (RoCE: DSCP<<2, vendor specific)"),
	INTV("NCCL_IB_FIFO_TC", 0, 255, "traffic class of the CTS FIFO messages"),
	INTV("NCCL_IB_SL", 0, 15, "IB service level"),
	INTV("NCCL_IB_TIMEOUT", 0, 31, "IB verbs timeout, 4.096us*2^n (default 20)"),
	INTV("NCCL_IB_RETRY_CNT", 0, 7, "IB retry count (default 7)"),
	INTV("NCCL_IB_QPS_PER_CONNECTION", 1, 128, "QPs per connection (RoCE ECMP entropy)"),
	BOOLV("NCCL_IB_SPLIT_DATA_ON_QPS", "1: split each message over the QPs"),
	BOOLV("NCCL_IB_ADAPTIVE_ROUTING", "adaptive routing (default 1 on IB, 0 on RoCE)"),
	INTV("NCCL_IB_AR_THRESHOLD", 0, POS_MAX, "message size for adaptive routing (8192)"),
	INTV("NCCL_IB_PCI_RELAXED_ORDERING", 0, 2, "PCI relaxed ordering: 0, 1, 2 = auto"),
	BOOLV("NCCL_IB_ECE_ENABLE", "enhanced connection establishment (default 1)"),
	BOOLV("NCCL_IB_MERGE_NICS", "merge dual-port NICs into one device (default 1)"),
	ENUMV("NCCL_NET_MERGE_POLICY", "ALL,RAIL", true, "how devices are merged"),
	INTV("NCCL_CROSS_NIC", 0, 2, "rings/trees may use different NICs per node (2 = auto)"),
	{"NCCL_NETDEVS_POLICY", GOLDEN_VT_NETDEVS_POL, 1, 128, NULL, true,
	 "NICs per GPU: AUTO, ALL or MAX:N"},
	TYPEV("NCCL_NET", GOLDEN_VT_WORD, "network to use: IB, Socket or a plugin's name"),
	TYPEV("NCCL_NET_PLUGIN", GOLDEN_VT_PLUGIN, "net plugin: suffix, file, path or none"),
	TYPEV("NCCL_TUNER_PLUGIN", GOLDEN_VT_PLUGIN, "tuner plugin: suffix, file, path or none"),
	TYPEV("NCCL_ENV_PLUGIN", GOLDEN_VT_PLUGIN, "env plugin (2.28+): suffix, path or none"),
	TYPEV("NCCL_PROFILER_PLUGIN", GOLDEN_VT_PLUGIN, "profiler plugin: suffix, path or none"),
	ENUMV("NCCL_NET_GDR_LEVEL", "LOC,PIX,PXB,P2C,PHB,SYS", false,
	      "max GPU-NIC distance for GPUDirect RDMA (default PXB)"),
	BOOLV("NCCL_NET_GDR_C2C", "GPUDirect RDMA over C2C (default 1)"),
	BOOLV("NCCL_NET_GDR_READ", "GPUDirect RDMA for sends"),
	BOOLV("NCCL_DMABUF_ENABLE", "DMA-BUF for GPUDirect RDMA (default 1)"),
	TYPEV("NCCL_TOPO_FILE", GOLDEN_VT_PATH, "topology XML loaded before detection"),
	TYPEV("NCCL_TOPO_DUMP_FILE", GOLDEN_VT_PATH, "write the detected topology XML"),
	BOOLV("NCCL_IGNORE_CPU_AFFINITY", "1: ignore the job's CPU affinity for NUMA choice"),
	BOOLV("NCCL_CUMEM_ENABLE", "cuMem* allocations (auto since 2.19)"),
	INTV("NCCL_NVLS_ENABLE", 0, 2, "NVLink SHARP: 0, 1, 2 = auto"),
	INTV("NCCL_MNNVL_ENABLE", 0, 2, "multi-node NVLink: 0, 1, 2 = auto"),
	INTV("NCCL_MNNVL_CLIQUE_ID", 0, 4294967295LL, "MNNVL clique id override"),
	BOOLV("NCCL_COLLNET_ENABLE", "CollNet (SHARP) plugin"),
	INTV("NCCL_SOCKET_NTHREADS", 1, 16, "socket transport threads (x NSOCKS <= 64)"),
	INTV("NCCL_NSOCKS_PERTHREAD", 1, 64, "sockets per thread (x NTHREADS <= 64)"),
	TYPEV("NCCL_SOCKET_MAGIC", GOLDEN_VT_CINT, "bootstrap magic, e.g. 0x<job id in hex>"),
	TYPEV("NCCL_CONF_FILE", GOLDEN_VT_PATH, "config file read instead of ~/.nccl.conf"),
	ENUMV("NCCL_DEBUG", "VERSION,WARN,INFO,TRACE", true, "log level"),
	TYPEV("NCCL_DEBUG_SUBSYS", GOLDEN_VT_TOKEN_LIST, "log subsystems: [^]INIT,NET,..."),
	TYPEV("NCCL_DEBUG_FILE", GOLDEN_VT_FILE, "log file; %h host, %p pid"),
	/* Tuning (platform recipes only). */
	INTV("NCCL_BUFFSIZE", 1, POS_MAX, "buffer size in bytes (default 4194304)"),
	INTV("NCCL_P2P_NET_CHUNKSIZE", 1, POS_MAX, "send/recv chunk over the network (131072)"),
	INTV("NCCL_P2P_PCI_CHUNKSIZE", 1, POS_MAX, "send/recv chunk over PCI (131072)"),
	INTV("NCCL_P2P_NVL_CHUNKSIZE", 1, POS_MAX, "send/recv chunk over NVLink (524288)"),
	INTV("NCCL_NVLS_CHUNKSIZE", 1, POS_MAX, "NVLS chunk size (131072)"),
	INTV("NCCL_NVLSTREE_MAX_CHUNKSIZE", 1, POS_MAX, "NVLSTree max chunk size"),
	BOOLV("NCCL_NET_FORCE_FLUSH", "force a flush after GPUDirect receives (default 0)"),
	INTV("NCCL_MIN_CTAS", 1, 64, "minimum CTAs per communicator"),
	INTV("NCCL_MAX_CTAS", 1, 64, "maximum CTAs per communicator"),
	INTV("NCCL_MIN_NCHANNELS", 1, 64, "deprecated: use NCCL_MIN_CTAS"),
	INTV("NCCL_MAX_NCHANNELS", 1, 64, "deprecated: use NCCL_MAX_CTAS"),
	ENUMV("NCCL_P2P_LEVEL", "LOC,NVL,PIX,PXB,PHB,SYS", false, "max GPU-GPU distance for P2P"),
	BOOLV("NCCL_PXN_DISABLE", "1: no PCI x NVLink forwarding"),
	INTV("NCCL_P2P_PXN_LEVEL", 0, 2, "PXN use: 0 never, 1 send/recv, 2 always"),
	BOOLV("NCCL_PXN_C2C", "PXN over C2C (default 1)"),
	{"NCCL_ALGO", GOLDEN_VT_ENUM_LIST, 0, 0,
	 "Ring,Tree,CollnetDirect,CollnetChain,NVLS,NVLSTree,PAT", true,
	 "algorithms allowed: [^]list, or coll:list;coll:list (2.24+)"},
	{"NCCL_PROTO", GOLDEN_VT_ENUM_LIST, 0, 0, "LL,LL128,Simple", true,
	 "protocols allowed: [^]list, or coll:list;coll:list (2.24+)"},
	/* UCX, MPI, libfabric, CUDA, containers. */
	TYPEV("UCX_NET_DEVICES", GOLDEN_VT_TOKEN_LIST, "UCX devices: dev[:port],... or all"),
	TYPEV("UCX_TLS", GOLDEN_VT_TOKEN_LIST, "UCX transports: [^]tcp,rc,..."),
	{"UCX_IB_GID_INDEX", GOLDEN_VT_INT_AUTO, 0, 255, NULL, true, "UCX GID index or auto"},
	ENUMV("UCX_IB_PCI_RELAXED_ORDERING", "on,off,try,auto,yes,no,y,n,1,0", true,
	      "UCX PCI relaxed ordering"),
	BOOLV("OMPI_MCA_coll_hcoll_enable", "Open MPI HCOLL collectives"),
	BOOLV("HCOLL_ENABLE_MCAST_ALL", "HCOLL multicast"),
	TYPEV("FI_PROVIDER", GOLDEN_VT_TOKEN_LIST, "libfabric provider, e.g. efa"),
	BOOLV("FI_EFA_FORK_SAFE", "EFA fork safety"),
	BOOLV("FI_EFA_USE_HUGE_PAGE", "EFA huge pages for bounce buffers"),
	BOOLV("FI_EFA_USE_DEVICE_RDMA", "EFA device RDMA (not needed with libfabric >= 1.18)"),
	ENUMV("CUDA_DEVICE_ORDER", "FASTEST_FIRST,PCI_BUS_ID", false, "CUDA device numbering"),
	TYPEV("MELLANOX_VISIBLE_DEVICES", GOLDEN_VT_TOKEN_LIST, "container RDMA devices: all, ..."),
	/* GCP plugins. */
	TYPEV("NCCL_FASTRAK_IFNAME", GOLDEN_VT_IF_LIST, "TCPXO GPU NICs"),
	TYPEV("NCCL_FASTRAK_CTRL_DEV", GOLDEN_VT_IF_LIST, "TCPXO control NIC"),
	TYPEV("NCCL_GPUDIRECTTCPX_SOCKET_IFNAME", GOLDEN_VT_IF_LIST, "TCPX GPU NICs"),
	TYPEV("NCCL_GPUDIRECTTCPX_CTRL_DEV", GOLDEN_VT_IF_LIST, "TCPX control NIC"),
	TYPEV("NCCL_TUNER_CONFIG_PATH", GOLDEN_VT_PATH, "tuner plugin configuration file"),
	INTV("NCCL_DYNAMIC_CHUNK_SIZE", 1, POS_MAX, "TCPX plugin chunk size in bytes"),
	INTV("NCCL_FASTRAK_NUM_FLOWS", 1, 64, "TCPXO flows per connection"),
	BOOLV("NCCL_FASTRAK_ENABLE_CONTROL_CHANNEL", "TCPXO separate control channel"),
	BOOLV("NCCL_FASTRAK_USE_SNAP", "TCPXO: use the Snap datapath"),
	BOOLV("NCCL_FASTRAK_USE_LLCM", "TCPXO: use LLCM (low-latency control messages)"),
	TYPEV("NCCL_FASTRAK_LLCM_DEVICE_DIRECTORY", GOLDEN_VT_PATH, "TCPXO LLCM device directory"),
	INTV("NCCL_FASTRAK_PLUGIN_ACCEPT_TIMEOUT_MS", 1, POS_MAX, "TCPXO accept timeout (ms)"),
	TYPEV("NCCL_SHIMNET_GUEST_CONFIG_CHECKER_CONFIG_FILE", GOLDEN_VT_PATH,
	      "GCP guest-config checker file (it enforces the profile's values)"),
	{NULL, 0, 0, 0, NULL, false, NULL},
};
/* clang-format on */

const struct golden_nccl_var *golden_nccl_var_find(const char *name)
{
	if (!name)
		return NULL;
	for (const struct golden_nccl_var *v = golden_nccl_vars; v->name; v++)
		if (!strcmp(v->name, name))
			return v;
	return NULL;
}

static int bad(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int bad(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (why && len) {
		va_start(ap, fmt);
		vsnprintf(why, len, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* Whole-string integer: no blanks, no '+', no trailing junk. */
static int parse_ll(const char *s, int base, long long *out)
{
	char *end;

	if (!*s || isspace((unsigned char)*s) || *s == '+')
		return -1;
	errno = 0;
	*out = strtoll(s, &end, base);
	return (errno || *end) ? -1 : 0;
}

static int check_int(const struct golden_nccl_var *v, const char *s, char *why, size_t len)
{
	long long n;

	if (parse_ll(s, 10, &n) == 0 && n >= v->min && n <= v->max)
		return 0;
	if (v->max >= POS_MAX)
		return bad(why, len, "expected an integer >= %lld", v->min);
	return bad(why, len, "expected an integer %lld-%lld", v->min, v->max);
}

/* Is WORD (of length n) one of the comma-separated VALUES? */
static bool in_list(const char *values, const char *word, size_t n, bool nocase)
{
	const char *p = values;

	while (*p) {
		size_t l = strcspn(p, ",");

		if (l == n && (nocase ? !strncasecmp(p, word, n) : !strncmp(p, word, n)))
			return true;
		p += l;
		if (*p == ',')
			p++;
	}
	return false;
}

/* "a,b,c" -> "a, b, c" for messages. */
static void list_for_humans(const char *values, char *buf, size_t len)
{
	size_t o = 0;

	for (const char *p = values; *p && o + 3 < len; p++) {
		buf[o++] = *p;
		if (*p == ',')
			buf[o++] = ' ';
	}
	buf[o] = '\0';
}

static int check_enum(const struct golden_nccl_var *v, const char *s, char *why, size_t len)
{
	char h[256];

	if (*s && in_list(v->values, s, strlen(s), v->nocase))
		return 0;
	list_for_humans(v->values, h, sizeof(h));
	return bad(why, len, "expected one of: %s", h);
}

/* One "[^]a,b" list of enum values, N bytes of S. */
static bool enum_list_ok(const struct golden_nccl_var *v, const char *s, size_t n)
{
	const char *end = s + n;

	if (s < end && *s == '^')
		s++;
	if (s >= end)
		return false;
	while (s <= end) {
		size_t l = 0;

		while (s + l < end && s[l] != ',')
			l++;
		if (!l || !in_list(v->values, s, l, v->nocase))
			return false;
		s += l + 1;
	}
	return true;
}

/* NCCL_ALGO / NCCL_PROTO: "[^]list" or, since 2.24, "coll:[^]list;coll:[^]list". */
static int check_enum_list(const struct golden_nccl_var *v, const char *s, char *why, size_t len)
{
	const char *p = s;
	char h[256];

	while (*p) {
		size_t l = strcspn(p, ";");
		const char *colon = memchr(p, ':', l);
		const char *list = p;

		if (colon) {
			for (const char *c = p; c < colon; c++)
				if (!isalpha((unsigned char)*c))
					goto fail;
			if (colon == p)
				goto fail;
			list = colon + 1;
		}
		if (!enum_list_ok(v, list, l - (size_t)(list - p)))
			goto fail;
		p += l;
		if (*p == ';' && !*++p)
			goto fail;
	}
	if (*s)
		return 0;
fail:
	list_for_humans(v->values, h, sizeof(h));
	return bad(why, len,
	           "expected a comma list of %s (optionally starting with ^), or "
	           "collective:list;collective:list",
	           h);
}

static bool name_char(int c, const char *extra)
{
	return isalnum(c) || (c && strchr(extra, c));
}

/* A comma list of non-empty names made of [A-Za-z0-9] and EXTRA; at most max
 * entries. Returns the number of entries, or -1. */
static int name_list(const char *s, const char *extra, size_t maxname, int max)
{
	int n = 0;

	if (!*s)
		return -1;
	for (;;) {
		size_t l = 0;

		while (name_char((unsigned char)s[l], extra))
			l++;
		if (!l || l > maxname || ++n > max)
			return -1;
		s += l;
		if (!*s)
			return n;
		if (*s++ != ',' || !*s)
			return -1;
	}
}

/* NCCL_IB_HCA: [^][=]hca[:port[:rail[:plane]]],... at most 32 devices. */
static int check_hca(const char *s, char *why, size_t len)
{
	int n = 0;

	if (*s == '^')
		s++;
	if (*s == '=')
		s++;
	while (*s) {
		size_t l = 0;
		int fields = 0;

		while (name_char((unsigned char)s[l], "._-"))
			l++;
		if (!l || l >= 64)
			goto fail;
		s += l;
		while (*s == ':') {
			size_t d = 0;

			s++;
			while (isdigit((unsigned char)s[d]))
				d++;
			if (!d || d > 5 || ++fields > 3)
				goto fail;
			s += d;
		}
		if (++n > 32)
			goto fail;
		if (*s == ',' && s[1])
			s++;
		else if (*s)
			goto fail;
	}
	if (n)
		return 0;
fail:
	return bad(why, len,
	           "expected [^][=]hca[:port[:rail[:plane]]],... with at most 32 devices, "
	           "e.g. =mlx5_0:1,mlx5_3:1");
}

/* NCCL_SOCKET_IFNAME: [^][=]prefix,... of interface names (IFNAMSIZ 16). */
static int check_iflist(const char *s, char *why, size_t len)
{
	if (*s == '^')
		s++;
	if (*s == '=')
		s++;
	if (name_list(s, "._:@-", 15, 64) > 0)
		return 0;
	return bad(why, len,
	           "expected [^][=]interface,... (prefixes; = exact names, ^ excludes), "
	           "e.g. =eth0 or ^docker,lo");
}

static int check_tokens(const char *s, char *why, size_t len)
{
	if (*s == '^')
		s++;
	if (name_list(s, "._:/+@-", 255, 256) > 0)
		return 0;
	return bad(why, len,
	           "expected a comma list of names (optionally starting with ^), "
	           "e.g. mlx5_0:1,mlx5_3:1");
}

static bool no_blanks(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isgraph((unsigned char)*s))
			return false;
	return true;
}

static int check_plugin(const char *s, char *why, size_t len)
{
	if ((*s == '/' && no_blanks(s)) || name_list(s, "._+-", 255, 1) == 1)
		return 0;
	return bad(why, len,
	           "expected none, a plugin suffix or file name (e.g. aws-ofi), or an "
	           "absolute path");
}

static int check_path(const char *s, bool absolute, char *why, size_t len)
{
	if (no_blanks(s) && strlen(s) < 4096 && (!absolute || *s == '/'))
		return 0;
	return bad(why, len, "expected %s path without blanks", absolute ? "an absolute" : "a");
}

static int check_cidr(const char *s, char *why, size_t len)
{
	const char *slash = strchr(s, '/');
	unsigned char addr[16];
	char host[64];
	long long bits;
	int fam;

	if (!slash || (size_t)(slash - s) >= sizeof(host))
		goto fail;
	memcpy(host, s, (size_t)(slash - s));
	host[slash - s] = '\0';
	fam = strchr(host, ':') ? AF_INET6 : AF_INET;
	if (inet_pton(fam, host, addr) != 1 || parse_ll(slash + 1, 10, &bits) < 0 || bits < 0 ||
	    bits > (fam == AF_INET ? 32 : 128))
		goto fail;
	return 0;
fail:
	return bad(why, len, "expected ADDRESS/BITS, e.g. 10.0.0.0/8 or fd00::/8");
}

static int check_netdevs(const struct golden_nccl_var *v, const char *s, char *why, size_t len)
{
	long long n;

	if (!strcasecmp(s, "AUTO") || !strcasecmp(s, "ALL"))
		return 0;
	if (!strncasecmp(s, "MAX:", 4) && parse_ll(s + 4, 10, &n) == 0 && n >= v->min &&
	    n <= v->max)
		return 0;
	return bad(why, len, "expected AUTO, ALL or MAX:N with N %lld-%lld", v->min, v->max);
}

static int check_cint(const char *s, char *why, size_t len)
{
	char *end;

	/* Decimal or 0x hex, as strtoull(..., 0) reads it; no octal surprises. */
	if (isdigit((unsigned char)*s) && (s[0] != '0' || !s[1] || s[1] == 'x' || s[1] == 'X')) {
		errno = 0;
		(void)strtoull(s, &end, 0);
		if (!errno && !*end)
			return 0;
	}
	return bad(why, len, "expected a decimal or 0x hexadecimal integer, e.g. 0x1a2b");
}

static int check_value(const struct golden_nccl_var *v, const char *s, char *why, size_t len)
{
	switch (v->type) {
	case GOLDEN_VT_INT:
		return check_int(v, s, why, len);
	case GOLDEN_VT_INT_AUTO:
		if (!strcasecmp(s, "auto"))
			return 0;
		if (check_int(v, s, NULL, 0) == 0)
			return 0;
		return bad(why, len, "expected auto or an integer %lld-%lld", v->min, v->max);
	case GOLDEN_VT_BOOL:
		if (!strcmp(s, "0") || !strcmp(s, "1"))
			return 0;
		return bad(why, len, "expected 0 or 1");
	case GOLDEN_VT_ENUM:
		return check_enum(v, s, why, len);
	case GOLDEN_VT_ENUM_LIST:
		return check_enum_list(v, s, why, len);
	case GOLDEN_VT_HCA_LIST:
		return check_hca(s, why, len);
	case GOLDEN_VT_IF_LIST:
		return check_iflist(s, why, len);
	case GOLDEN_VT_TOKEN_LIST:
		return check_tokens(s, why, len);
	case GOLDEN_VT_WORD:
		if (name_list(s, "._-", 63, 1) == 1)
			return 0;
		return bad(why, len, "expected one name, e.g. IB or Socket");
	case GOLDEN_VT_PLUGIN:
		return check_plugin(s, why, len);
	case GOLDEN_VT_PATH:
		return check_path(s, true, why, len);
	case GOLDEN_VT_FILE:
		return check_path(s, false, why, len);
	case GOLDEN_VT_CIDR:
		return check_cidr(s, why, len);
	case GOLDEN_VT_NETDEVS_POL:
		return check_netdevs(v, s, why, len);
	case GOLDEN_VT_CINT:
		return check_cint(s, why, len);
	}
	return bad(why, len, "internal error: no check for this variable");
}

int golden_nccl_var_check(const char *name, const char *value, char *why, size_t whylen)
{
	const struct golden_nccl_var *v = golden_nccl_var_find(name);

	if (!v) {
		const char *s = golden_nccl_var_suggest(name);

		return bad(why, whylen, "%s is not a variable golden knows; expected %s%s%s",
		           name ? name : "(null)",
		           s ? ""
		             : "a known NCCL/UCX/FI/CUDA variable (the table in lib/nccl_vars.c)",
		           s ? s : "", s ? " (did you mean it?)" : "");
	}
	if (!value)
		return bad(why, whylen, "no value");
	return check_value(v, value, why, whylen);
}

/* Levenshtein distance, capped: names are short. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[64];

	if (la >= 63 || lb >= 63)
		return (size_t)-1;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (toupper((unsigned char)a[i - 1]) !=
			                      toupper((unsigned char)b[j - 1]));

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

const char *golden_nccl_var_suggest(const char *name)
{
	const char *best = NULL;
	size_t bestd = 3; /* more than 2 edits is not a typo */

	if (!name)
		return NULL;
	for (const struct golden_nccl_var *v = golden_nccl_vars; v->name; v++) {
		size_t d = edit_distance(name, v->name);

		if (d < bestd) {
			bestd = d;
			best = v->name;
		}
	}
	return best;
}
