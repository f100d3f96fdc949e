/* golden topology gather|build|check: the cluster's topology for Slurm's
 * scheduler, from the real fabric and the NVLink domains (lib/fabric/). */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cli.h"
#include "fabric/block.h"
#include "fabric/facts.h"
#include "fabric/gather.h"
#include "fabric/ibnet.h"
#include "fabric/showtopo.h"
#include "fabric/topoconf.h"
#include "fabric/tree.h"
#include "fabric/verify.h"
#include "health/golden_conf.h"
#include "node/node_main.h"
#include "util/capture.h"
#include "util/hostlist.h"
#include "util/nodename.h"
#include "util/statefile.h"
#include "util/strbuf.h"
#include "util/strutil.h"

#define CMD                "topology"
#define MAX_DUMPS          32
#define SCONTROL_TIMEOUT   30000
#define IBNETDISC_TIMEOUT  180000
#define MAX_HEADER_ENTRIES 50

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "Usage: golden topology gather [--partition P | --nodes LIST] [--out FILE]\n"
	    "                              [--facts-dir TEMPLATE [--max-age SECONDS]]\n"
	    "                              [--timeout SECONDS] [--parallel N]\n"
	    "                              [--topology FILE] [--sysroot DIR]\n"
	    "       golden topology build  --facts FILE [--ibnetdiscover FILE]...\n"
	    "                              [--run-ibnetdiscover[=CA[:PORT]]]...\n"
	    "                              [--plugin auto|tree|block|both] [--slurm-version X.Y]\n"
	    "                              [--block-sizes N,2N,...] [--levels top|all]\n"
	    "                              [--default tree|block] [--current FILE]\n"
	    "                              [--out FILE | --write FILE]\n"
	    "       golden topology check  --facts FILE [--ibnetdiscover FILE]...\n"
	    "                              [--run-ibnetdiscover[=CA[:PORT]]]...\n"
	    "                              [--slurm-version X.Y] [--show-topology FILE]\n"
	    "                              [--json] [--metrics-dir DIR]\n"
	    "Common: [--config FILE] (golden.conf: scontrol path, metrics_dir)\n"
	    "\n"
	    "gather: ask every node (golden topo --format json: port GUIDs, NVLink domain)\n"
	    "  through one short srun step per node, run by an admin, or read the files the\n"
	    "  health check leaves in each node's state_dir (--facts-dir /shared/golden/%%n).\n"
	    "  Nodes that cannot answer are listed with why. Exit 1 if any did not answer.\n"
	    "build: topology.conf (topology/tree from ibnetdiscover output, hosts matched by\n"
	    "  port GUID; topology/block from NVLink domains) or topology.yaml (Slurm 25.05+,\n"
	    "  both), in the syntax of the Slurm version in use, with a header saying what\n"
	    "  was found and from what, and a diff against the current file. --write (root)\n"
	    "  replaces the file atomically, and only when what Slurm reads changed.\n"
	    "check: compare the running controller's topology (scontrol show topology)\n"
	    "  with the fabric and NVLink domains. Exit 0 consistent, 1 mismatches, 2 could\n"
	    "  not check. --metrics-dir writes slurm_golden_topology.prom.\n");
}

struct opts {
	const char *sub;
	const char *config, *facts, *out, *write, *current, *show, *metrics;
	const char *partition, *nodes, *facts_dir, *topology, *sysroot;
	const char *plugin, *version, *sizes, *levels, *deflt;
	const char *dumps[MAX_DUMPS];
	int ndumps;
	const char *runs[MAX_DUMPS]; /* "" or "CA[:PORT]" */
	int nruns;
	long max_age, timeout, parallel;
	bool json;
};

static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {{"config", required_argument, NULL, 'c'},
	                                   {"facts", required_argument, NULL, 'f'},
	                                   {"out", required_argument, NULL, 'o'},
	                                   {"write", required_argument, NULL, 'w'},
	                                   {"current", required_argument, NULL, 'C'},
	                                   {"show-topology", required_argument, NULL, 'S'},
	                                   {"metrics-dir", required_argument, NULL, 'm'},
	                                   {"partition", required_argument, NULL, 'p'},
	                                   {"nodes", required_argument, NULL, 'n'},
	                                   {"facts-dir", required_argument, NULL, 'd'},
	                                   {"max-age", required_argument, NULL, 'a'},
	                                   {"timeout", required_argument, NULL, 't'},
	                                   {"parallel", required_argument, NULL, 'P'},
	                                   {"topology", required_argument, NULL, 'T'},
	                                   {"sysroot", required_argument, NULL, 'R'},
	                                   {"ibnetdiscover", required_argument, NULL, 'i'},
	                                   {"run-ibnetdiscover", optional_argument, NULL, 'I'},
	                                   {"plugin", required_argument, NULL, 'g'},
	                                   {"slurm-version", required_argument, NULL, 'v'},
	                                   {"block-sizes", required_argument, NULL, 'b'},
	                                   {"levels", required_argument, NULL, 'l'},
	                                   {"default", required_argument, NULL, 'D'},
	                                   {"json", no_argument, NULL, 'j'},
	                                   {"help", no_argument, NULL, 'h'},
	                                   {NULL, 0, NULL, 0}};
	static const char *const allowed[] = {
	    "gather", "c o p n d a t P T R h", "build", "c f o w C i I g v b l D h",
	    "check",  "c f i I v S j m h",
	};
	const char *ok = NULL;
	int c, idx;
	char *end;

	memset(o, 0, sizeof(*o));
	o->max_age = 86400;
	o->timeout = 60;
	o->parallel = 32;
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? -1 : 1;
	}
	o->sub = argv[1];
	for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i += 2)
		if (!strcmp(o->sub, allowed[i]))
			ok = allowed[i + 1];
	if (!ok) {
		cli_error(CMD, "unknown subcommand '%s': expected gather, build or check", o->sub);
		return -1;
	}
	optind = 2;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", lo, &idx)) != -1) {
		char key[2] = {(char)c, '\0'};

		if (c == '?') {
			cli_error(CMD, "unknown option '%s' (see 'golden topology --help')",
			          argv[optind - 1]);
			return -1;
		}
		if (!golden_list_has(ok, ' ', key)) {
			cli_error(CMD, "option --%s does not apply to 'topology %s'", lo[idx].name,
			          o->sub);
			return -1;
		}
		switch (c) {
		case 'h':
			usage(stdout);
			return 1;
		case 'c':
			o->config = optarg;
			break;
		case 'f':
			o->facts = optarg;
			break;
		case 'o':
			o->out = optarg;
			break;
		case 'w':
			o->write = optarg;
			break;
		case 'C':
			o->current = optarg;
			break;
		case 'S':
			o->show = optarg;
			break;
		case 'm':
			o->metrics = optarg;
			break;
		case 'p':
			o->partition = optarg;
			break;
		case 'n':
			o->nodes = optarg;
			break;
		case 'd':
			o->facts_dir = optarg;
			break;
		case 'T':
			o->topology = optarg;
			break;
		case 'R':
			o->sysroot = optarg;
			break;
		case 'i':
		case 'I':
			if (o->ndumps + o->nruns >= MAX_DUMPS) {
				cli_error(CMD, "at most %d fabrics", MAX_DUMPS);
				return -1;
			}
			if (c == 'i')
				o->dumps[o->ndumps++] = optarg;
			else
				o->runs[o->nruns++] = optarg ? optarg : "";
			break;
		case 'g':
			o->plugin = optarg;
			break;
		case 'v':
			o->version = optarg;
			break;
		case 'b':
			o->sizes = optarg;
			break;
		case 'l':
			o->levels = optarg;
			break;
		case 'D':
			o->deflt = optarg;
			break;
		case 'j':
			o->json = true;
			break;
		case 'a':
		case 't':
		case 'P': {
			const char *arg = optarg ? optarg : "";
			long v = strtol(arg, &end, 10);

			if (!*arg || *end || v < (c == 'a' ? 0 : 1) ||
			    v > (c == 'P' ? 1024 : 10000000)) {
				cli_error(CMD, "--%s %s: expected a whole number%s", lo[idx].name,
				          arg, c == 'P' ? " from 1 to 1024" : " of seconds");
				return -1;
			}
			if (c == 'a')
				o->max_age = v;
			else if (c == 't')
				o->timeout = v;
			else
				o->parallel = v;
			break;
		}
		}
	}
	if (optind < argc) {
		cli_error(CMD, "unexpected argument '%s'", argv[optind]);
		return -1;
	}
	return 0;
}

/* ----------------------------------------------------------- Slurm tools */

struct slurm {
	char scontrol[PATH_MAX], sinfo[PATH_MAX], srun[PATH_MAX];
	char metrics[PATH_MAX];
};

static int slurm_paths(const struct opts *o, struct slurm *s)
{
	struct golden_conf *conf = malloc(sizeof(*conf));
	char *slash, node[64];

	/* This node's sections of golden.conf apply (the command runs here). */
	golden_nodename_get(NULL, node, sizeof(node));
	if (!conf || golden_node_load_conf("golden topology", o->config, node, conf, NULL) < 0) {
		free(conf);
		return -1;
	}
	golden_strlcpy(s->scontrol, conf->scontrol, sizeof(s->scontrol));
	golden_strlcpy(s->sinfo, conf->scontrol, sizeof(s->sinfo));
	golden_strlcpy(s->srun, conf->scontrol, sizeof(s->srun));
	/* sinfo and srun live next to scontrol. */
	if ((slash = strrchr(s->sinfo, '/')))
		golden_strlcpy(slash + 1, "sinfo",
		               sizeof(s->sinfo) - (size_t)(slash + 1 - s->sinfo));
	if ((slash = strrchr(s->srun, '/')))
		golden_strlcpy(slash + 1, "srun", sizeof(s->srun) - (size_t)(slash + 1 - s->srun));
	s->metrics[0] = '\0';
	if (conf->metrics_dir[0] &&
	    golden_node_expand("golden topology", "metrics_dir", conf->metrics_dir, node,
	                       s->metrics, sizeof(s->metrics)) < 0) {
		free(conf);
		return -1;
	}
	free(conf);
	return 0;
}

/* `scontrol --version`: "slurm 24.11.5". */
static int slurm_version(const struct opts *o, const struct slurm *s,
                         struct golden_slurm_version *v)
{
	char *argv[] = {(char *)s->scontrol, "--version", NULL};
	struct golden_capture job = {.argv = argv, .timeout_ms = SCONTROL_TIMEOUT};
	char why[400];

	if (o->version) {
		if (golden_slurm_version_parse(o->version, v) < 0) {
			cli_error(CMD, "--slurm-version %s: expected MAJOR.MINOR such as 24.11",
			          o->version);
			return -1;
		}
		return 0;
	}
	if (golden_capture_one(&job, 4096) == 0 && job.status == 0 &&
	    golden_slurm_version_parse(job.out, v) == 0) {
		golden_capture_free(&job);
		return 0;
	}
	golden_capture_reason(&job, why, sizeof(why));
	golden_capture_free(&job);
	cli_error(CMD, "cannot tell the Slurm version (%s --version: %s): pass --slurm-version",
	          s->scontrol, why);
	return -1;
}

/* ---------------------------------------------------------------- inputs */

struct inputs {
	struct golden_facts facts;
	struct golden_ibnet net;
	struct golden_strbuf header; /* "dump: ..." lines for the file's header */
	bool have_net;
};

static const char *ibnetdiscover_path(void)
{
	static const char *const where[] = {"/usr/sbin/ibnetdiscover", "/usr/bin/ibnetdiscover",
	                                    "/sbin/ibnetdiscover"};

	for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++)
		if (access(where[i], X_OK) == 0)
			return where[i];
	return NULL;
}

/* ibnetdiscover [-C CA -P PORT], once per fabric, where it is installed. */
static int run_ibnetdiscover(const char *spec, struct inputs *in)
{
	const char *prog = ibnetdiscover_path();
	char ca[64] = "", port[16] = "", name[160], why[400];
	char *argv[8];
	int a = 0, n;
	struct golden_err err = {{0}};
	struct golden_capture job;

	if (!prog) {
		cli_error(CMD,
		          "--run-ibnetdiscover: ibnetdiscover not found (Debian: apt-get "
		          "install infiniband-diags); or pass its output with --ibnetdiscover");
		return -1;
	}
	if (*spec) {
		const char *colon = strchr(spec, ':');

		snprintf(ca, sizeof(ca), "%.*s", (int)(colon ? colon - spec : (long)strlen(spec)),
		         spec);
		if (colon)
			snprintf(port, sizeof(port), "%s", colon + 1);
		if (!golden_is_safe_name(ca, 63) || (port[0] && !golden_is_safe_name(port, 8))) {
			cli_error(CMD, "--run-ibnetdiscover=%s: expected CA[:PORT] (mlx5_0:1)",
			          spec);
			return -1;
		}
	}
	argv[a++] = (char *)prog;
	if (ca[0]) {
		argv[a++] = "-C";
		argv[a++] = ca;
	}
	if (port[0]) {
		argv[a++] = "-P";
		argv[a++] = port;
	}
	argv[a] = NULL;
	job = (struct golden_capture){.argv = argv, .timeout_ms = IBNETDISC_TIMEOUT};
	if (golden_capture_one(&job, 256 << 20) < 0 || job.status != 0) {
		golden_capture_reason(&job, why, sizeof(why));
		golden_capture_free(&job);
		cli_error(CMD, "%s%s%s failed: %s (needs root or access to /dev/infiniband/umad*)",
		          prog, ca[0] ? " -C " : "", ca, why);
		return -1;
	}
	snprintf(name, sizeof(name), "ibnetdiscover%s%s", ca[0] ? " -C " : "", ca);
	n = golden_ibnet_parse(&in->net, job.out, name, &err);
	golden_capture_free(&job);
	if (n < 0) {
		cli_error(CMD, "%s", err.msg);
		return -1;
	}
	golden_strbuf_printf(&in->header, "  %s, run on this host: %d nodes\n", name, n);
	return 0;
}

static int load_inputs(const struct opts *o, struct inputs *in, bool need_net)
{
	struct golden_err err = {{0}};
	struct golden_ibnet_counts c;

	memset(in, 0, sizeof(*in));
	golden_ibnet_init(&in->net);
	if (!o->facts) {
		cli_error(CMD, "%s needs --facts FILE (from golden topology gather)", o->sub);
		return -1;
	}
	if (golden_facts_load(o->facts, &in->facts, &err) < 0) {
		cli_error(CMD, "%s", err.msg);
		return -1;
	}
	for (int i = 0; i < o->ndumps; i++) {
		int n = golden_ibnet_load(&in->net, o->dumps[i], &err);

		if (n < 0) {
			cli_error(CMD, "%s", err.msg);
			return -1;
		}
		golden_strbuf_printf(&in->header, "  ibnetdiscover output %s: %d nodes\n",
		                     o->dumps[i], n);
	}
	for (int i = 0; i < o->nruns; i++)
		if (run_ibnetdiscover(o->runs[i], in) < 0)
			return -1;
	in->have_net = o->ndumps + o->nruns > 0;
	if (need_net && !in->have_net) {
		cli_error(CMD, "the tree needs the fabric: --ibnetdiscover FILE (the output of "
		               "ibnetdiscover, once per fabric) or --run-ibnetdiscover");
		return -1;
	}
	golden_ibnet_finish(&in->net);
	if (in->have_net) {
		golden_ibnet_count(&in->net, &c);
		golden_strbuf_printf(
		    &in->header,
		    "  fabric: %d switch(es), %d host adapter(s), %d SHARP node(s), "
		    "%d router(s), %d fabric(s)\n",
		    c.switches, c.cas, c.sharp, c.routers, c.fabrics);
	}
	return 0;
}

static void free_inputs(struct inputs *in)
{
	golden_facts_free(&in->facts);
	golden_ibnet_free(&in->net);
	golden_strbuf_free(&in->header);
}

static int attached_nodes(const struct golden_facts *f)
{
	int n = 0;

	for (int i = 0; i < f->n; i++)
		n += f->nodes[i].nvl_attached;
	return n;
}

/* ------------------------------------------------------------------ gather */

static int resolve_nodes(const struct opts *o, const struct slurm *s, struct golden_hostlist *nodes)
{
	struct golden_err err = {{0}};

	if (o->nodes && o->partition) {
		cli_error(CMD, "--nodes and --partition: give one");
		return -1;
	}
	if (o->nodes) {
		if (golden_hostlist_expand(o->nodes, nodes, &err) < 0) {
			cli_error(CMD, "--nodes %s: %s", o->nodes, err.msg);
			return -1;
		}
		for (size_t i = 0; i < nodes->n; i++)
			if (!golden_is_safe_name(nodes->names[i], GOLDEN_FACTS_NAME - 1)) {
				cli_error(CMD, "--nodes: '%s' is not a plain Slurm node name",
				          nodes->names[i]);
				return -1;
			}
		golden_hostlist_uniq(nodes);
		return 0;
	}
	if (o->partition && !golden_is_safe_name(o->partition, 128)) {
		cli_error(CMD, "--partition %s: not a partition name", o->partition);
		return -1;
	}
	if (golden_gather_slurm_nodes(s->sinfo, o->partition, nodes, &err) < 0) {
		cli_error(CMD, "%s", err.msg);
		return -1;
	}
	return 0;
}

static int write_text(const char *path, const char *text, size_t len, unsigned mode)
{
	if (golden_write_atomic_mode(path, text, len, mode) < 0) {
		cli_error(CMD, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int cmd_gather(const struct opts *o)
{
	struct slurm s;
	struct golden_hostlist nodes = {0};
	struct golden_err err = {{0}};
	struct json_object *doc, *un;
	char self[PATH_MAX];
	int rc = 2, nun;
	const char *text;

	if (slurm_paths(o, &s) < 0 || resolve_nodes(o, &s, &nodes) < 0)
		goto out;
	doc = golden_gather_document(o->facts_dir ? "state_dir" : "srun");
	if (o->facts_dir) {
		if (golden_gather_from_files(&nodes, o->facts_dir, o->max_age, doc, &err) < 0) {
			cli_error(CMD, "%s", err.msg);
			json_object_put(doc);
			goto out;
		}
	} else {
		struct golden_gather_srun g;

		if (cli_self_path(self, sizeof(self)) < 0) {
			cli_error(CMD, "cannot find my own path: %s", strerror(errno));
			json_object_put(doc);
			goto out;
		}
		g = (struct golden_gather_srun){s.srun,          self,
		                                o->partition,    o->topology,
		                                o->sysroot,      (int)(o->timeout * 1000),
		                                (int)o->parallel};
		if (golden_gather_by_srun(&nodes, &g, doc, &err) < 0) {
			cli_error(CMD, "%s", err.msg);
			json_object_put(doc);
			goto out;
		}
	}
	text = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
	                                               JSON_C_TO_STRING_NOSLASHESCAPE);
	if (o->out) {
		if (write_text(o->out, text, strlen(text), 0644) < 0) {
			json_object_put(doc);
			goto out;
		}
	} else {
		printf("%s\n", text);
	}
	json_object_object_get_ex(doc, "unanswered", &un);
	nun = json_object_object_length(un);
	fprintf(stderr, "golden topology gather: %zu of %zu node(s) answered%s\n",
	        nodes.n - (size_t)nun, nodes.n, nun ? "; did not answer:" : "");
	json_object_object_foreach(un, who, why)
	{
		fprintf(stderr, "  %s: %s\n", who, json_object_get_string(why));
	}
	rc = nun ? 1 : 0;
	json_object_put(doc);
out:
	golden_hostlist_free(&nodes);
	return rc;
}

/* ------------------------------------------------------------------- build */

enum kind { KIND_TREE, KIND_BLOCK, KIND_YAML };

static int choose(const struct opts *o, struct golden_slurm_version v, const struct inputs *in,
                  enum kind *kind, bool *want_tree, bool *want_block)
{
	const char *p = o->plugin ? o->plugin : "auto";
	bool domains = attached_nodes(&in->facts) > 0;

	if (!strcmp(p, "auto")) {
		*want_tree = in->have_net;
		*want_block = domains && golden_slurm_has_block(v);
		if (!*want_tree && !*want_block) {
			cli_error(CMD,
			          "nothing to build: no --ibnetdiscover input for a tree and no "
			          "node in an NVLink domain for blocks");
			return -1;
		}
		if (*want_tree && *want_block && !golden_slurm_has_yaml(v)) {
			cli_error(
			    CMD,
			    "Slurm %d.%02d takes one TopologyPlugin and both a tree and NVLink "
			    "blocks were found: choose --plugin tree or --plugin block "
			    "(topology.yaml, 25.05+, holds both)",
			    v.major, v.minor);
			return -1;
		}
	} else if (!strcmp(p, "tree") || !strcmp(p, "block") || !strcmp(p, "both")) {
		*want_tree = strcmp(p, "block") != 0;
		*want_block = strcmp(p, "tree") != 0;
	} else {
		cli_error(CMD, "--plugin %s: expected auto, tree, block or both", p);
		return -1;
	}
	if (*want_tree && !in->have_net) {
		cli_error(CMD, "the tree needs --ibnetdiscover FILE or --run-ibnetdiscover");
		return -1;
	}
	if (*want_block && !golden_slurm_has_block(v)) {
		cli_error(CMD, "Slurm %d.%02d has no topology/block (23.11+)", v.major, v.minor);
		return -1;
	}
	if (*want_tree && *want_block && !golden_slurm_has_yaml(v)) {
		cli_error(CMD,
		          "--plugin both needs topology.yaml: Slurm 25.05 or later (this is "
		          "%d.%02d)",
		          v.major, v.minor);
		return -1;
	}
	*kind = golden_slurm_has_yaml(v) ? KIND_YAML : *want_tree ? KIND_TREE : KIND_BLOCK;
	return 0;
}

struct built {
	struct golden_tree tree;
	struct golden_blocks blocks;
	bool have_tree, have_blocks;
};

static int build_topology(const struct opts *o, struct golden_slurm_version v,
                          const struct inputs *in, bool want_tree, bool want_block, struct built *b)
{
	struct golden_err err = {{0}};
	int sizes[GOLDEN_BLOCK_MAX_SIZES], nsizes = 0;
	enum golden_tree_levels lv = GOLDEN_TREE_TOP;

	memset(b, 0, sizeof(*b));
	if (o->levels) {
		if (!strcmp(o->levels, "all"))
			lv = GOLDEN_TREE_ALL;
		else if (strcmp(o->levels, "top")) {
			cli_error(CMD,
			          "--levels %s: expected top (leaves + one top switch, as Slurm's "
			          "topology guide recommends) or all",
			          o->levels);
			return -1;
		}
	}
	if (o->sizes && (nsizes = golden_blocks_parse_sizes(o->sizes, sizes, GOLDEN_BLOCK_MAX_SIZES,
	                                                    &err)) < 0) {
		cli_error(CMD, "--block-sizes: %s", err.msg);
		return -1;
	}
	if (in->have_net) {
		if (golden_tree_build(&in->net, &in->facts, lv, &b->tree, &err) < 0) {
			cli_error(CMD, "%s", err.msg);
			return -1;
		}
		b->have_tree = want_tree || in->have_net;
	}
	if (want_block || (golden_slurm_has_block(v) && attached_nodes(&in->facts))) {
		if (golden_blocks_build(&in->facts, b->have_tree ? &b->tree : NULL, sizes, nsizes,
		                        v, &b->blocks, &err) < 0) {
			cli_error(CMD, "%s", err.msg);
			return -1;
		}
		b->have_blocks = true;
	}
	return 0;
}

static void free_built(struct built *b)
{
	if (b->have_tree)
		golden_tree_free(&b->tree);
	if (b->have_blocks)
		golden_blocks_free(&b->blocks);
}

static void header(struct golden_strbuf *out, const struct opts *o, struct golden_slurm_version v,
                   enum kind kind, const struct inputs *in, const struct built *b, bool want_tree,
                   bool want_block)
{
	char when[40];
	time_t now = time(NULL);
	struct tm tm;
	int listed = 0;
	const struct golden_facts *f = &in->facts;

	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	golden_strbuf_printf(out,
	                     "# %s for Slurm %d.%02d, written by golden topology build "
	                     "(slurm-golden %s) at %s.\n",
	                     kind == KIND_YAML ? "topology.yaml" : "topology.conf", v.major,
	                     v.minor, PACKAGE_VERSION, when);
	if (kind == KIND_YAML)
		golden_strbuf_printf(out, "# slurm.conf: this file, next to slurm.conf, replaces "
		                          "topology.conf and TopologyPlugin; partitions may pick "
		                          "Topology=" GOLDEN_TOPO_YAML_TREE
		                          " or " GOLDEN_TOPO_YAML_BLOCK ".\n");
	else
		golden_strbuf_printf(out, "# slurm.conf: TopologyPlugin=topology/%s%s\n",
		                     kind == KIND_TREE ? "tree" : "block",
		                     kind == KIND_TREE ? " (needs SelectType=select/cons_tres)"
		                                       : "");
	golden_strbuf_printf(out, "# Inputs:\n#   facts %s: %d node(s), gathered %s by %s",
	                     o->facts, f->n, f->generated[0] ? f->generated : "?",
	                     f->method[0] ? f->method : "?");
	golden_strbuf_printf(out, "; %d did not answer\n", f->nmissing);
	for (const char *p = golden_strbuf_str(&in->header); *p;) {
		size_t n = strcspn(p, "\n");

		golden_strbuf_printf(out, "# %.*s\n", (int)n, p);
		p += n + (p[n] ? 1 : 0);
	}
	if (b->have_tree && want_tree) {
		golden_strbuf_printf(out, "# Tree: %d leaf switch(es), %d node(s) placed.\n",
		                     b->tree.nleaves, f->n - b->tree.nunplaced);
		for (int i = 0; i < b->tree.nnotes; i++)
			golden_strbuf_printf(out, "#   %s\n", b->tree.notes[i]);
	}
	if (b->have_blocks && want_block) {
		golden_strbuf_printf(out, "# Blocks: %d NVLink domain(s), BlockSizes ",
		                     b->blocks.n);
		for (int i = 0; i < b->blocks.nsizes; i++)
			golden_strbuf_printf(out, "%s%d", i ? "," : "", b->blocks.sizes[i]);
		golden_strbuf_printf(out, " (%s); ordered %s.\n",
		                     b->blocks.sizes_given ? "--block-sizes"
		                                           : "the most common rack size, doubled",
		                     b->have_tree ? "by the InfiniBand tree (racks under one leaf "
		                                    "are consecutive)"
		                                  : "by node name (no ibnetdiscover input)");
	}
	/* Nodes that are not placed, with why: Slurm would only warn. */
	for (int i = 0; i < f->nmissing; i++)
		if (listed++ < MAX_HEADER_ENTRIES)
			golden_strbuf_printf(out, "# not placed: %s did not answer: %s\n",
			                     f->missing[i].name, f->missing[i].why);
	for (int i = 0; want_tree && b->have_tree && i < b->tree.nunplaced; i++)
		if (listed++ < MAX_HEADER_ENTRIES)
			golden_strbuf_printf(out, "# not placed in the tree: %s: %s\n",
			                     f->nodes[b->tree.unplaced[i].node].name,
			                     b->tree.unplaced[i].why);
	for (int i = 0; want_block && b->have_blocks && i < b->blocks.nunplaced; i++)
		if (listed++ < MAX_HEADER_ENTRIES)
			golden_strbuf_printf(out, "# not in a block: %s: %s\n",
			                     f->nodes[b->blocks.unplaced[i].node].name,
			                     b->blocks.unplaced[i].why);
	if (listed > MAX_HEADER_ENTRIES)
		golden_strbuf_printf(out, "# ... and %d more not placed\n",
		                     listed - MAX_HEADER_ENTRIES);
	golden_strbuf_printf(out, "\n");
}

/* Read a whole small file; NULL when it does not exist. */
static char *slurp(const char *path, bool *missing)
{
	FILE *f = fopen(path, "re");
	struct golden_strbuf b = {0};
	char buf[65536];
	size_t n;

	*missing = !f && errno == ENOENT;
	if (!f)
		return NULL;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		golden_strbuf_add(&b, buf, n);
	fclose(f);
	if (b.oom) {
		golden_strbuf_free(&b);
		return NULL;
	}
	return b.p ? b.p : strdup("");
}

/* diff -u CURRENT NEW on stdout (a child under a deadline); "" current: all new. */
static void show_diff(const char *current, const char *text, size_t len, FILE *out)
{
	char tmp[] = "/tmp/golden-topology-XXXXXX";
	int fd = mkstemp(tmp);
	char *argv[] = {"/usr/bin/diff", "-u", "--label", (char *)current, "--label", "new",
	                (char *)current, tmp,  NULL};
	struct golden_capture job = {.argv = argv, .timeout_ms = 30000};

	if (fd < 0)
		return;
	if (write(fd, text, len) != (ssize_t)len) {
		close(fd);
		unlink(tmp);
		return;
	}
	close(fd);
	if (access(argv[0], X_OK) == 0 && golden_capture_one(&job, 64 << 20) == 0 && job.out)
		fputs(job.out, out);
	golden_capture_free(&job);
	unlink(tmp);
}

static int cmd_build(const struct opts *o)
{
	struct slurm s;
	struct golden_slurm_version v;
	struct inputs in = {0};
	struct built b;
	struct golden_strbuf out = {0};
	enum kind kind;
	bool want_tree = false, want_block = false, missing = false;
	char *current = NULL;
	const char *cur_path = o->current ? o->current : o->write;
	int rc = 2;

	memset(&b, 0, sizeof(b));
	if (o->out && o->write) {
		cli_error(CMD, "--out and --write: give one");
		return 2;
	}
	if (slurm_paths(o, &s) < 0 || slurm_version(o, &s, &v) < 0 ||
	    load_inputs(o, &in, false) < 0)
		goto out;
	if (choose(o, v, &in, &kind, &want_tree, &want_block) < 0 ||
	    build_topology(o, v, &in, want_tree, want_block, &b) < 0)
		goto out;
	header(&out, o, v, kind, &in, &b, want_tree, want_block);
	if (kind == KIND_YAML) {
		bool default_block = o->deflt ? !strcmp(o->deflt, "block") : true;

		if (o->deflt && strcmp(o->deflt, "block") && strcmp(o->deflt, "tree")) {
			cli_error(CMD, "--default %s: expected tree or block", o->deflt);
			goto out;
		}
		golden_topoconf_yaml(&out, want_tree ? &b.tree : NULL,
		                     want_block ? &b.blocks : NULL, &in.facts, default_block);
	} else if (kind == KIND_TREE) {
		golden_topoconf_tree(&out, &b.tree, &in.facts);
	} else {
		golden_topoconf_block(&out, &b.blocks, &in.facts, v);
	}
	if (out.oom) {
		cli_error(CMD, "out of memory");
		goto out;
	}
	if (cur_path) {
		current = slurp(cur_path, &missing);
		if (!current && !missing) {
			cli_error(CMD, "cannot read %s: %s", cur_path, strerror(errno));
			goto out;
		}
	}
	if (o->write) {
		struct stat st;

		if (geteuid() != 0) {
			cli_error(CMD,
			          "--write: run as root (Slurm's configuration stays root-owned)");
			goto out;
		}
		if (lstat(o->write, &st) == 0 && !S_ISREG(st.st_mode)) {
			cli_error(CMD, "--write %s: not a regular file (a symlink?): not replaced",
			          o->write);
			goto out;
		}
		if (current && golden_topoconf_same(current, golden_strbuf_str(&out))) {
			printf("%s unchanged: not rewritten (no reconfigure needed)\n", o->write);
			rc = 0;
			goto out;
		}
		if (current)
			show_diff(o->write, golden_strbuf_str(&out), out.len, stdout);
		if (write_text(o->write, out.p, out.len, 0644) < 0)
			goto out;
		printf("%s %s: apply with `scontrol reconfigure`%s\n", o->write,
		       current ? "replaced" : "written",
		       kind == KIND_YAML ? "" : " (a changed TopologyPlugin needs a restart)");
		rc = 0;
		goto out;
	}
	if (o->out) {
		if (write_text(o->out, out.p, out.len, 0644) < 0)
			goto out;
	} else {
		fputs(golden_strbuf_str(&out), stdout);
	}
	if (current) {
		if (golden_topoconf_same(current, golden_strbuf_str(&out)))
			fprintf(stderr, "golden topology build: same as %s for Slurm\n", cur_path);
		else
			show_diff(cur_path, golden_strbuf_str(&out), out.len, stderr);
	}
	rc = 0;
out:
	free(current);
	golden_strbuf_free(&out);
	free_built(&b);
	free_inputs(&in);
	return rc;
}

/* ------------------------------------------------------------------- check */

static char *scontrol_out(const struct slurm *s, char *const *args, int *status, char *why,
                          size_t len)
{
	char *argv[8];
	int a = 0;
	struct golden_capture job;
	char *out;

	argv[a++] = (char *)s->scontrol;
	for (; *args && a < 7; args++)
		argv[a++] = *args;
	argv[a] = NULL;
	job = (struct golden_capture){.argv = argv, .timeout_ms = SCONTROL_TIMEOUT};
	if (golden_capture_one(&job, 64 << 20) < 0) {
		*status = -1;
		snprintf(why, len, "out of memory");
		return NULL;
	}
	*status = job.status;
	golden_capture_reason(&job, why, len);
	out = job.out ? job.out : strdup("");
	return out;
}

/* What the controller schedules with: every topology it has. */
static int actual_topology(const struct opts *o, const struct slurm *s,
                           struct golden_slurm_version v, struct golden_showtopo *st)
{
	struct golden_err err = {{0}};
	char why[400];
	int status;

	if (o->show) {
		bool missing;
		char *text = slurp(o->show, &missing);
		int rc;

		if (!text) {
			cli_error(CMD, "--show-topology %s: %s", o->show, strerror(errno));
			return -1;
		}
		rc = golden_showtopo_parse(st, text, "", &err);
		free(text);
		if (rc < 0)
			cli_error(CMD, "%s: %s", o->show, err.msg);
		return rc < 0 ? -1 : 0;
	}
	if (golden_slurm_has_yaml(v)) {
		/* 25.05+: show topology alone is the default topology only. */
		char *args[] = {"show", "topoconf", NULL}, names[16][64];
		char *text = scontrol_out(s, args, &status, why, sizeof(why));
		int n = text && status == 0 ? golden_showtopo_names(text, names, 16) : 0;

		free(text);
		for (int i = 0; i < n; i++) {
			char *a2[] = {"show", "topology", names[i], NULL};

			text = scontrol_out(s, a2, &status, why, sizeof(why));
			if (!text || status != 0) {
				free(text);
				cli_error(CMD, "%s show topology %s failed: %s", s->scontrol,
				          names[i], why);
				return -1;
			}
			if (golden_showtopo_parse(st, text, names[i], &err) < 0) {
				free(text);
				cli_error(CMD, "scontrol show topology %s: %s", names[i], err.msg);
				return -1;
			}
			free(text);
		}
		if (n)
			return 0;
	}
	{
		char *args[] = {"show", "topology", NULL};
		char *text = scontrol_out(s, args, &status, why, sizeof(why));

		/* No topology plugin: nothing to parse, and every node is then
		 * "missing" (reported as no-tree / no-block). */
		if (text && status != 0 && strstr(why, "No topology information available")) {
			free(text);
			return 0;
		}
		if (!text || status != 0) {
			free(text);
			cli_error(CMD, "%s show topology failed: %s", s->scontrol, why);
			return -1;
		}
		if (golden_showtopo_parse(st, text, "", &err) < 0) {
			free(text);
			cli_error(CMD, "scontrol show topology: %s", err.msg);
			return -1;
		}
		free(text);
	}
	return 0;
}

static int cmd_check(const struct opts *o)
{
	struct slurm s;
	struct golden_slurm_version v = {0, 0};
	struct inputs in = {0};
	struct built b;
	struct golden_showtopo st = {0};
	struct golden_hostlist nodes = {0};
	struct golden_verify ver = {0};
	struct golden_err err = {{0}};
	const char *metrics;
	bool compared = false;
	int rc = 2;

	memset(&b, 0, sizeof(b));
	if (slurm_paths(o, &s) < 0)
		return 2;
	metrics = o->metrics ? o->metrics : s.metrics[0] ? s.metrics : NULL;
	if (slurm_version(o, &s, &v) < 0 || load_inputs(o, &in, false) < 0)
		goto out;
	if (build_topology(o, v, &in, in.have_net, golden_slurm_has_block(v), &b) < 0 ||
	    actual_topology(o, &s, v, &st) < 0)
		goto out;
	if (!o->show && golden_gather_slurm_nodes(s.sinfo, NULL, &nodes, &err) < 0) {
		cli_error(CMD, "%s", err.msg);
		goto out;
	}
	if (golden_verify_run(&in.facts, b.have_tree ? &b.tree : NULL,
	                      b.have_blocks ? &b.blocks : NULL, &st, &nodes, &ver, &err) < 0) {
		cli_error(CMD, "%s", err.msg);
		goto out;
	}
	compared = true;
	if (o->json) {
		struct json_object *j = golden_verify_json(&ver);

		printf("%s\n", json_object_to_json_string_ext(
		                   j, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(j);
	} else {
		golden_verify_print(&ver, stdout);
	}
	rc = ver.n ? 1 : 0;
out:
	if (metrics) {
		struct golden_err merr = {{0}};

		if (golden_verify_metrics(metrics, &ver, compared, &merr) < 0)
			cli_error(CMD, "metrics: %s", merr.msg);
	}
	golden_verify_free(&ver);
	golden_showtopo_free(&st);
	golden_hostlist_free(&nodes);
	free_built(&b);
	free_inputs(&in);
	return rc;
}

int cmd_topology(int argc, char **argv)
{
	struct opts o;
	int r = parse(argc, argv, &o);

	if (r != 0)
		return r < 0 ? 2 : 0;
	if (!strcmp(o.sub, "gather"))
		return cmd_gather(&o);
	if (!strcmp(o.sub, "build"))
		return cmd_build(&o);
	return cmd_check(&o);
}
