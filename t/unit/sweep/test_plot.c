/* The plot's data file and gnuplot script, and (when gnuplot is here) the
 * picture itself. */
#include "../tap.h"
#include "sweep_test.h"

#include <sys/stat.h>
#include <unistd.h>

#include "sweep/plot.h"

static char *capture(int (*fn)(FILE *, void *), void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fn(f, arg);
	fclose(f);
	return buf;
}

struct ctx {
	struct golden_sweep_set *s;
	struct golden_sweep_result *r;
	struct golden_sweep_plot_opts *o;
	const char *out;
	struct golden_err err;
	int rc;
};

static int data(FILE *f, void *a)
{
	struct ctx *c = a;

	return c->rc = golden_sweep_plot_data(f, c->s, c->r, c->o);
}

static int script(FILE *f, void *a)
{
	struct ctx *c = a;

	return c->rc = golden_sweep_plot_script(f, c->s, c->r, "/tmp/d.dat", c->out,
	                                        GOLDEN_PLOT_PNG, true, c->o, &c->err);
}

/* "# index" lines followed by a blank line: empty blocks. */
static int empty_blocks(const char *s)
{
	int n = 0;

	for (const char *p = s; (p = strstr(p, "# index")); p++) {
		const char *nl = strchr(p, '\n');

		n += nl && nl[1] == '\n';
	}
	return n;
}

static void test_files(void)
{
	struct golden_sweep_set s = {0};
	struct golden_sweep_result r = {0};
	struct golden_sweep_expect x = {
	    "site", 1, {{GOLDEN_COLL_ALL_REDUCE, 3, 100, 360, 2LL << 30, "s"}}};
	struct golden_sweep_plot_opts o = {NULL, &x, NULL};
	struct ctx c = {&s, &r, &o, "/tmp/out.png", {{0}}, 0};
	char *d, *g;

	parse_corpus(&s, "nccltests309-h100-ndr-gjaion-8n-2n-4n-8n-ring-dip-8m.log");
	golden_sweep_detect(&s, NULL, &r);
	d = capture(data, &c);
	is_int(c.rc, 10, "10 series: 5 runs x 2 placements");
	ok(d && empty_blocks(d) == 0, "no empty blocks that would shift the indexes");
	ok(d && strstr(d, "# index 10: dips\n1 NaN\n8388608 12.98\n8388608 18.58\n"),
	   "index 10: the two 8 MiB dips");
	ok(d && strstr(d, "# index 11: #wrong\n1 NaN\n\n\n"), "index 11: no #wrong sizes");
	ok(d &&
	       strstr(
	           d,
	           "# index 12: expected all_reduce >= 360 GB/s\n2147483648 360\n8589934592 360\n"),
	   "index 12: the expected figure from the size it holds for");
	g = capture(script, &c);
	ok(g && strstr(g, "set terminal pngcairo") && strstr(g, "set output '/tmp/out.png'") &&
	       strstr(g, "set logscale x 2"),
	   "script: pngcairo, the output, the log2 axis");
	ok(g && strstr(g, "set xtics (\"1M\" 1048576, \"2M\" 2097152") &&
	       strstr(g, "\"8G\" 8589934592)"),
	   "script: human size labels");
	ok(g && strstr(g, "title 'run 1: 8 nodes, out-of-place'") &&
	       strstr(g, "title 'run 1: 8 nodes, in-place'") &&
	       strstr(g, "title '4 nodes, in-place'"),
	   "script: each series named; runs that would read the same carry their number");
	ok(g && strstr(g, "index 10 using 1:2 with points pt 2") && !strstr(g, "index 11 using"),
	   "script: the dips drawn, the empty #wrong index not");
	ok(g && strstr(g, "index 12 using 1:2 with lines dt 3") &&
	       strstr(g, "expected >= 360 GB/s (3-100 nodes)"),
	   "script: the expected line");
	ok(g &&
	       strstr(g,
	              "set title 'all_reduce bus bandwidth - NVIDIA H100 80GB HBM3 - recipe site'"),
	   "script: the title names collective, GPU and recipe");
	free(d);
	free(g);

	/* Paths and titles never break out of gnuplot's quotes. */
	c.out = "/tmp/it's.png";
	o.title = "a 'quoted' \\ title";
	g = capture(script, &c);
	ok(g && strstr(g, "set output '/tmp/it''s.png'") &&
	       strstr(g, "set title 'a ''quoted'' _ title'"),
	   "a quote in the path is doubled; quotes in the title doubled, a backslash replaced");
	free(g);
	c.out = "/tmp/new\nline.png";
	memset(&c.err, 0, sizeof(c.err));
	g = capture(script, &c);
	ok(c.rc < 0 && strstr(c.err.msg, "characters gnuplot cannot be given"),
	   "a control character in the path: refused");
	free(g);
	golden_sweep_result_free(&r);
	golden_sweep_set_free(&s);
}

static void test_ab_style(void)
{
	struct golden_sweep_set s = {0};
	struct golden_sweep_result r = {0};
	struct golden_sweep_plot_opts o = {NULL, NULL, NULL};
	struct ctx c = {&s, &r, &o, "/tmp/ab.png", {{0}}, 0};
	struct text t = {0};
	const double v[] = {10, 100, 200};
	char *g, *line;

	add_run(&t, "collective=all_reduce_perf nodes=2 env=golden", 16, 1 << 28, v, NULL, 3);
	add_run(&t, "collective=all_reduce_perf nodes=2 env=default", 16, 1 << 28, v, NULL, 3);
	add_run(&t, "collective=all_reduce_perf nodes=4 env=golden", 32, 1 << 28, v, NULL, 3);
	parse_text(&s, "ab", t.s);
	golden_sweep_detect(&s, NULL, &r);
	g = capture(script, &c);
	line = g ? strstr(g, "title '2 nodes, NCCL defaults, out-of-place'") : NULL;
	ok(line && strstr(g, "index 0 using 1:2 with linespoints lc rgb '#1f77b4' lw 2.5 dt 1") &&
	       strstr(g, "index 2 using 1:2 with linespoints lc rgb '#1f77b4' lw 2.5 dt 2") &&
	       strstr(g, "index 4 using 1:2 with linespoints lc rgb '#ff7f0e'"),
	   "A/B: the default twin shares the golden run's colour, dashed; 4 nodes another colour");
	ok(g && strstr(g, "pt 7") && strstr(g, "pt 8"), "out-of-place and in-place points differ");
	free(g);
	free(t.s);
	golden_sweep_result_free(&r);
	golden_sweep_set_free(&s);
}

static void test_render(void)
{
	struct golden_sweep_set s = {0};
	struct golden_sweep_result r = {0};
	struct golden_err err = {{0}};
	struct golden_sweep_plot_opts o = {NULL, NULL, NULL};
	char gp[4096], dir[] = "/tmp/golden-plot-XXXXXX", png[256], magic[8] = {0};
	FILE *f;
	struct stat st;

	if (golden_sweep_plot_find_gnuplot(NULL, gp, sizeof(gp)) < 0 || !mkdtemp(dir)) {
		ok(1, "# SKIP gnuplot not installed");
		return;
	}
	parse_corpus(&s, "olivia-gh200-slingshot-4n-corrupt-wrong.log");
	golden_sweep_detect(&s, NULL, &r);
	snprintf(png, sizeof(png), "%s/olivia.png", dir);
	ok(golden_sweep_plot(&s, &r, png, &o, &err) == 0, "gnuplot draws the PNG: %s", err.msg);
	f = fopen(png, "rb");
	ok(f && fread(magic, 1, 8, f) == 8 && !memcmp(magic, "\x89PNG\r\n\x1a\n", 8) &&
	       stat(png, &st) == 0 && st.st_size > 10000,
	   "a PNG of some substance");
	if (f)
		fclose(f);
	o.gnuplot = "/nonexistent/gnuplot";
	memset(&err, 0, sizeof(err));
	ok(golden_sweep_plot(&s, &r, png, &o, &err) < 0 && strstr(err.msg, "gnuplot not found"),
	   "no gnuplot: a clear error");
	ok(golden_sweep_plot_format("x.SVG") == GOLDEN_PLOT_SVG &&
	       golden_sweep_plot_format("x.pdf") == GOLDEN_PLOT_NONE,
	   "formats by extension");
	snprintf(gp, sizeof(gp), "%s/olivia.png.dat", dir);
	unlink(gp);
	snprintf(gp, sizeof(gp), "%s/olivia.png.gp", dir);
	unlink(gp);
	unlink(png);
	rmdir(dir);
	golden_sweep_result_free(&r);
	golden_sweep_set_free(&s);
}

int main(void)
{
	test_files();
	test_ab_style();
	test_render();
	return done_testing();
}
