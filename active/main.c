/* golden-active: a short real GPU workload on every GPU of this node, each
 * phase in its own child under a deadline within one time budget, judged by
 * lib/active against the model's expectations and the node's own GPUs.
 *
 * The parent never touches CUDA: a phase child creates its own contexts, so
 * a hung driver call costs that phase's deadline (the child's process group
 * is killed) and the parent still reports which GPU and which test hung. */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "active/expect.h"
#include "active/hostside.h"
#include "active/phases.h"
#include "active/report.h"
#include "active/report_json.h"
#include "active/verdict.h"
#include "env/env.h"
#include "util/child.h"
#include "util/nodename.h"
#include "util/strutil.h"

#ifndef GOLDEN_RECIPEDIR
#define GOLDEN_RECIPEDIR "/usr/local/share/slurm-golden/recipes"
#endif

#define NSAMPLES 64

struct opts {
	bool json, golden_env, expectations;
	int budget_s, gemm_n, expected_gpus;
	double sibling_pct, memtest_frac;
	unsigned skip; /* bits of enum golden_active_phase */
	const char *node, *topology, *sysroot, *recipes;
	unsigned long long seed;
};

static struct opts o = {false, true, false, 60, 8192, -1, 0, 0.25, 0, NULL, NULL, NULL, NULL, 0};
static volatile sig_atomic_t interrupted;
static volatile pid_t running; /* the phase child's process group */

static void usage(FILE *out)
{
	fprintf(out,
	        "Usage: golden-active [--json] [--budget SECONDS] [--gpus N] [--sibling-pct X]\n"
	        "                     [--memtest-frac F] [--gemm-size N] [--skip PHASE,...]\n"
	        "                     [--node NAME] [--seed N] [--no-golden-env]\n"
	        "                     [--topology FILE] [--sysroot DIR] [--recipes DIR]\n"
	        "       golden-active --expectations\n"
	        "\n"
	        "Test every GPU of this node with a short real workload: HBM copy bandwidth,\n"
	        "bf16 and tf32 cuBLAS GEMMs checked against a CPU reference on fresh random\n"
	        "inputs, pinned host<->device bandwidth both ways, peer copies for every pair\n"
	        "with peer access, an NCCL all-reduce over all GPUs (with the node's golden\n"
	        "NCCL environment), and memory patterns over a fraction of free memory.\n"
	        "Each phase runs in its own process under a deadline; all phases share the\n"
	        "budget (default 60 s). Each figure is judged against the GPU model's\n"
	        "expectation (--expectations prints the table and its sources) and against\n"
	        "the median of this node's GPUs (a GPU more than X%% below fails; default 10%%\n"
	        "for HBM and GEMM, 15%% for host and peer links).\n"
	        "Phases: hbm, gemm, pcie, p2p, nccl, memtest.\n"
	        "Exit status: 0 passed (or passed with warnings), 1 a GPU failed (the reason\n"
	        "starts with the GPU and the test: 'gpu3 hbm 2.1<2.7TB/s'), 2 could not judge\n"
	        "(usage, no GPU or driver, interrupted).\n");
}

static int parse_skip(const char *v, unsigned *out)
{
	char buf[128], *save = NULL;

	if (golden_strlcpy(buf, v, sizeof(buf)) < 0)
		return -1;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int found = 0;

		for (int p = GOLDEN_ACTIVE_PH_HBM; p < GOLDEN_ACTIVE_NPHASES; p++)
			if (!strcmp(t, golden_active_phase_name((enum golden_active_phase)p))) {
				*out |= 1u << p;
				found = 1;
			}
		if (!found)
			return -1;
	}
	return 0;
}

static int num(const char *opt, const char *v, double min, double max, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(v, &end);
	if (errno || end == v || *end || *out < min || *out > max) {
		fprintf(stderr, "golden-active: --%s %s: expected a number from %g to %g\n", opt, v,
		        min, max);
		return -1;
	}
	return 0;
}

static int parse(int argc, char **argv)
{
	static const struct option lo[] = {{"json", no_argument, NULL, 'j'},
	                                   {"budget", required_argument, NULL, 'b'},
	                                   {"gpus", required_argument, NULL, 'g'},
	                                   {"sibling-pct", required_argument, NULL, 'x'},
	                                   {"memtest-frac", required_argument, NULL, 'm'},
	                                   {"gemm-size", required_argument, NULL, 'G'},
	                                   {"skip", required_argument, NULL, 'S'},
	                                   {"node", required_argument, NULL, 'n'},
	                                   {"seed", required_argument, NULL, 's'},
	                                   {"no-golden-env", no_argument, NULL, 'E'},
	                                   {"topology", required_argument, NULL, 't'},
	                                   {"sysroot", required_argument, NULL, 'r'},
	                                   {"recipes", required_argument, NULL, 'R'},
	                                   {"expectations", no_argument, NULL, 'X'},
	                                   {"help", no_argument, NULL, 'h'},
	                                   {"version", no_argument, NULL, 'V'},
	                                   {NULL, 0, NULL, 0}};
	double d;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'j':
			o.json = true;
			break;
		case 'b':
			if (num("budget", optarg, 10, 3600, &d))
				return -1;
			o.budget_s = (int)d;
			break;
		case 'g':
			if (num("gpus", optarg, 0, GOLDEN_ACTIVE_MAX_GPUS, &d))
				return -1;
			o.expected_gpus = (int)d;
			break;
		case 'x':
			if (num("sibling-pct", optarg, 1, 90, &o.sibling_pct))
				return -1;
			break;
		case 'm':
			if (num("memtest-frac", optarg, 0.01, 0.9, &o.memtest_frac))
				return -1;
			break;
		case 'G':
			if (num("gemm-size", optarg, 256, 16384, &d))
				return -1;
			o.gemm_n = (int)d / 256 * 256;
			break;
		case 'S':
			if (parse_skip(optarg, &o.skip)) {
				fprintf(stderr,
				        "golden-active: --skip %s: expected phases from hbm, gemm, "
				        "pcie, p2p, nccl, memtest\n",
				        optarg);
				return -1;
			}
			break;
		case 'n':
			o.node = optarg;
			break;
		case 's':
			o.seed = strtoull(optarg, NULL, 0);
			break;
		case 'E':
			o.golden_env = false;
			break;
		case 't':
			o.topology = optarg;
			break;
		case 'r':
			o.sysroot = optarg;
			break;
		case 'R':
			o.recipes = optarg;
			break;
		case 'X':
			o.expectations = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			printf("golden-active (slurm-golden) %s\n", PACKAGE_VERSION);
			exit(0);
		default:
			fprintf(stderr, "golden-active: unknown option '%s' (see --help)\n",
			        argv[optind - 1]);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "golden-active: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	return 0;
}

static void print_expectations(void)
{
	static const enum golden_active_test ts[] = {GOLDEN_ACTIVE_HBM, GOLDEN_ACTIVE_BF16,
	                                             GOLDEN_ACTIVE_TF32, GOLDEN_ACTIVE_H2D,
	                                             GOLDEN_ACTIVE_P2P};

	printf("%-20s %-14s %-14s %-14s %-14s %-14s %-9s %s\n", "model", "hbm TB/s", "bf16 TF/s",
	       "tf32 TF/s", "h2d/d2h GB/s", "p2p GB/s", "nccl8", "verified");
	for (int i = 0; i < golden_active_nmodels; i++) {
		const struct golden_active_model *m = &golden_active_models[i];

		printf("%-20s", m->label);
		for (size_t k = 0; k < sizeof(ts) / sizeof(ts[0]); k++) {
			char cellbuf[32];
			double d = golden_active_datasheet(m, ts[k]);

			if (d > 0)
				snprintf(cellbuf, sizeof(cellbuf), "%g->%.4g", d,
				         golden_active_floor(m, ts[k]));
			else
				snprintf(cellbuf, sizeof(cellbuf), "-");
			printf(" %-14s", cellbuf);
		}
		printf(" %-9s %s\n", m->nccl8_busbw > 0 ? "yes" : "-", m->verified ? "yes" : "no");
	}
	printf("\ndatasheet->floor; floor = datasheet x fraction:\n");
	for (int t = 0; t < GOLDEN_ACTIVE_NTESTS; t++)
		printf("  %-5s %.2f  sibling tolerance %g%%: %s\n",
		       golden_active_test_name((enum golden_active_test)t),
		       golden_active_fraction((enum golden_active_test)t),
		       golden_active_sibling_pct((enum golden_active_test)t),
		       golden_active_fraction_why((enum golden_active_test)t));
	printf("\nsources:\n");
	for (int i = 0; i < golden_active_nmodels; i++)
		printf("  %s: %s%s%s; %s\n", golden_active_models[i].label,
		       golden_active_models[i].source,
		       golden_active_models[i].nccl_source[0] ? "; nccl: " : "",
		       golden_active_models[i].nccl_source, golden_active_models[i].note);
}

/* --- phases: each runs in a child ------------------------------------------ */

struct phase_arg {
	struct golden_active_params params;
};

static void ph_discover(void *shared, void *arg)
{
	(void)arg;
	golden_active_cuda_discover(shared);
}

static void ph_hbm(void *shared, void *arg)
{
	golden_active_cuda_hbm(shared, &((struct phase_arg *)arg)->params);
}

/* Fresh random inputs, the GEMMs on every GPU, then each GPU's results at
 * the sample positions against the CPU's reference. */
static void ph_gemm(void *shared, void *arg)
{
	struct golden_active_report *r = shared;
	struct golden_active_params p = ((struct phase_arg *)arg)->params;
	size_t elems = (size_t)p.gemm_n * (size_t)p.gemm_n;
	uint16_t *a = malloc(elems * 2), *b = malloc(elems * 2);
	float *got = calloc((size_t)r->ngpus * 2 * NSAMPLES, sizeof(float));
	int is[NSAMPLES], js[NSAMPLES];
	double ref[NSAMPLES], absum[NSAMPLES];

	if (!a || !b || !got)
		_exit(3);
	golden_active_fill_bf16(a, elems, p.seed);
	golden_active_fill_bf16(b, elems, p.seed ^ 0xabcdefULL);
	golden_active_gemm_samples(p.gemm_n, p.gemm_n, NSAMPLES, p.seed, is, js);
	p.gemm_a = a;
	p.gemm_b = b;
	p.sample_i = is;
	p.sample_j = js;
	p.nsamples = NSAMPLES;
	p.gemm_got = got;
	golden_active_cuda_gemm(r, &p);
	for (int t = 0; t < NSAMPLES; t++)
		ref[t] = golden_active_gemm_ref(a, b, p.gemm_n, p.gemm_n, is[t], js[t], &absum[t]);
	for (int g = 0; g < r->ngpus; g++)
		for (int k = 0; k < 2; k++)
			if (r->gpu[g].fig[k ? GOLDEN_ACTIVE_TF32 : GOLDEN_ACTIVE_BF16].measured)
				r->gpu[g].gemm_max_err[k] = golden_active_gemm_check(
				    got + ((size_t)g * 2 + (size_t)k) * NSAMPLES, ref, absum,
				    NSAMPLES);
	free(a);
	free(b);
	free(got);
}

static void ph_pcie(void *shared, void *arg)
{
	struct golden_active_report *r = shared;
	struct golden_active_cpus cpus[GOLDEN_ACTIVE_MAX_GPUS];

	memset(cpus, 0, sizeof(cpus));
	for (int g = 0; g < r->ngpus; g++) {
		char path[128], list[4096];
		FILE *f;

		snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/%s/local_cpulist",
		         o.sysroot ? o.sysroot : "", r->gpu[g].busid);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fgets(list, sizeof(list), f) &&
		    golden_active_cpulist(list, cpus[g].mask, 1024) <= 0)
			memset(&cpus[g], 0, sizeof(cpus[g]));
		fclose(f);
	}
	golden_active_cuda_pcie(r, &((struct phase_arg *)arg)->params, cpus);
}

static void ph_p2p(void *shared, void *arg)
{
	golden_active_cuda_p2p(shared, &((struct phase_arg *)arg)->params);
}

/* The node's golden NCCL environment, as the plugin would set it in a job
 * (a variable already set wins, as there). */
static void golden_env(struct golden_active_report *r)
{
	struct golden_decision d;
	struct golden_err err = {{0}};
	struct golden_env_request req = {
	    .topology = o.topology,
	    .sysroot = o.sysroot,
	    .recipes_dir = o.recipes ? o.recipes : GOLDEN_RECIPEDIR,
	    .check_owner = geteuid() == 0,
	};

	golden_decision_init(&d);
	if (golden_env_compute(&req, &d, &err) == 0) {
		golden_strlcpy(r->nccl.recipe, d.recipe ? d.recipe : "", sizeof(r->nccl.recipe));
		for (int i = 0; i < d.nvars; i++)
			if (!getenv(d.vars[i].name) &&
			    setenv(d.vars[i].name, d.vars[i].value, 0) == 0)
				r->nccl.nvars_set++;
	} else {
		snprintf(r->phase[GOLDEN_ACTIVE_PH_NCCL].note, GOLDEN_ACTIVE_ERR_LEN,
		         "no golden environment (%.50s): NCCL defaults", err.msg);
	}
	golden_decision_free(&d);
}

static void ph_nccl(void *shared, void *arg)
{
	if (o.golden_env)
		golden_env(shared);
	golden_active_cuda_nccl(shared, &((struct phase_arg *)arg)->params);
}

static void ph_memtest(void *shared, void *arg)
{
	golden_active_cuda_memtest(shared, &((struct phase_arg *)arg)->params);
}

static void (*const phase_fn[GOLDEN_ACTIVE_NPHASES])(void *, void *) = {
    ph_discover, ph_hbm, ph_gemm, ph_pcie, ph_p2p, ph_nccl, ph_memtest};

/* --- the parent ---------------------------------------------------------------- */

static void on_signal(int sig)
{
	interrupted = sig;
	if (running > 0)
		kill(-running, SIGKILL); /* async-signal-safe; the wait sees the pipe close */
}

static void run_phase(struct golden_active_report *r, enum golden_active_phase p)
{
	struct golden_active_phase_rec *rec = &r->phase[p];
	struct phase_arg arg;
	struct golden_child ch;
	long t0 = golden_child_now_ms();
	int sig = 0, st;

	rec->deadline_ms = golden_active_phase_deadline_ms(o.budget_s, p);
	memset(&arg, 0, sizeof(arg));
	arg.params.target_s = rec->deadline_ms / 1000.0 * 0.4;
	arg.params.gemm_n = o.gemm_n;
	arg.params.pcie_bytes = (size_t)256 << 20;
	arg.params.p2p_bytes = (size_t)256 << 20;
	arg.params.nccl_bytes = (size_t)256 << 20;
	arg.params.memtest_frac = o.memtest_frac;
	arg.params.seed = o.seed;
	if (golden_child_spawn(&ch, phase_fn[p], r, &arg) < 0) {
		rec->end = GOLDEN_ACTIVE_CRASHED;
		snprintf(rec->note, sizeof(rec->note), "could not start: %s", strerror(errno));
		return;
	}
	running = ch.pid;
	ch.deadline = t0 + rec->deadline_ms;
	golden_child_wait_all(&ch, 1);
	close(ch.fd);
	if (!ch.done) {
		rec->end = GOLDEN_ACTIVE_TIMEOUT;
		if (!golden_child_kill(ch.pid))
			snprintf(rec->note, sizeof(rec->note),
			         "killed at its deadline; stuck in the kernel, abandoned");
	} else if ((st = golden_child_exit_status(ch.pid, ch.deadline, &sig)) == 0) {
		rec->end = GOLDEN_ACTIVE_DONE;
	} else if (st == 1) { /* closed its pipe but did not exit by the deadline */
		rec->end = GOLDEN_ACTIVE_TIMEOUT;
		snprintf(rec->note, sizeof(rec->note),
		         "closed its output but did not exit in time");
	} else {
		rec->end = GOLDEN_ACTIVE_CRASHED;
		snprintf(rec->note, sizeof(rec->note), "the phase's process %s %d",
		         sig ? "died of signal" : "exited with", sig ? sig : 1);
	}
	running = 0;
	rec->duration_ms = (int)(golden_child_now_ms() - t0);
}

int main(int argc, char **argv)
{
	struct golden_active_report *r;
	struct golden_active_judge_opts jo;
	struct sigaction sa;
	char node[64];
	long t0 = golden_child_now_ms();
	int rc;

	if (parse(argc, argv) < 0)
		return 2;
	if (o.expectations) {
		print_expectations();
		return 0;
	}
	if (!o.seed)
		o.seed =
		    (unsigned long long)time(NULL) * 2654435761ULL ^ (unsigned long long)getpid();
	/* nvidia-smi's numbering (PCI order), which golden's reasons use. */
	setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 1);
	r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (r == MAP_FAILED) {
		perror("golden-active: mmap");
		return 2;
	}
	golden_active_report_init(r);
	golden_nodename_get(o.node, node, sizeof(node));
	golden_strlcpy(r->node, node, sizeof(r->node));
	snprintf(r->program, sizeof(r->program), "golden-active %s", PACKAGE_VERSION);
	r->budget_s = o.budget_s;
	r->expected_gpus = o.expected_gpus;
	r->started = (long long)time(NULL);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	for (int p = 0; p < GOLDEN_ACTIVE_NPHASES && !interrupted; p++) {
		if (p != GOLDEN_ACTIVE_PH_DISCOVER && (r->ngpus == 0 || r->env_error[0]))
			break;
		if (o.skip & (1u << p)) {
			snprintf(r->phase[p].note, sizeof(r->phase[p].note), "skipped (--skip)");
			continue;
		}
		if (p == GOLDEN_ACTIVE_PH_NCCL && r->ngpus < 2) {
			snprintf(r->phase[p].note, sizeof(r->phase[p].note),
			         "one GPU: no all-reduce inside the node");
			continue;
		}
		run_phase(r, (enum golden_active_phase)p);
	}
	if (interrupted)
		snprintf(r->env_error, sizeof(r->env_error), "interrupted (%s)",
		         interrupted == SIGTERM ? "SIGTERM: preempted or cancelled" : "SIGINT");
	r->duration_ms = (int)(golden_child_now_ms() - t0);
	jo.sibling_pct = o.sibling_pct;
	golden_active_judge(r, &jo);
	if (o.json) {
		struct json_object *j = golden_active_report_to_json(r);

		printf("%s\n", json_object_to_json_string_ext(
		                   j, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(j);
	} else {
		golden_active_report_print(stdout, r);
	}
	rc = golden_active_exit_status(r->result);
	munmap(r, sizeof(*r));
	return rc;
}
