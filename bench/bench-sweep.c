/* golden sweep analyse's cost per log: N logs of 30 sizes each, written
 * from a published nccl-tests run (its first 30 rows), each analysed the
 * whole way: read, parse, infer, detect, the JSON report built. The
 * baseline in the same run is the least any analyser does: read the file
 * and split it into lines. Prints per-log medians and p90s and their ratio.
 *
 * Usage: bench-sweep LOG [N=1000] [ROUNDS=3]
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sweep/detect.h"
#include "sweep/infer.h"
#include "sweep/parse.h"
#include "sweep/report.h"

#define ROWS 30

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The source log's lines up to its 30th row, and its footer. */
static char *thirty_rows(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[4096], *out = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&out, &len);
	int rows = 0;

	if (!f || !o) {
		fprintf(stderr, "bench-sweep: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	while (fgets(line, sizeof(line), f)) {
		long long a, b;
		char *p = line;

		while (*p == ' ')
			p++;
		if (sscanf(p, "%lld %lld", &a, &b) == 2 && *p != '#') {
			if (rows++ >= ROWS)
				continue;
		}
		fputs(line, o);
	}
	fclose(f);
	fclose(o);
	if (rows < ROWS) {
		fprintf(stderr, "bench-sweep: %s has %d rows; expected at least %d\n", path, rows,
		        ROWS);
		exit(1);
	}
	return out;
}

static double baseline(const char *path)
{
	double t0 = now_us();
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char buf[65536];
	ssize_t n;
	long lines = 0;

	while (fd >= 0 && (n = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < n; i++)
			lines += buf[i] == '\n';
	if (fd >= 0)
		close(fd);
	if (lines < ROWS)
		exit(1);
	return now_us() - t0;
}

static double analyse(const char *path)
{
	double t0 = now_us();
	struct golden_sweep_set set = {0};
	struct golden_sweep_result res = {0};
	struct golden_sweep_infer_opts io = {GOLDEN_COLL_UNKNOWN, 0, 0};
	struct golden_err err = {{0}};
	struct json_object *j;

	if (golden_sweep_parse_file(path, &set, &err) < 1 || set.runs[0].nrows != ROWS) {
		fprintf(stderr, "bench-sweep: %s: %s\n", path, err.msg[0] ? err.msg : "no 30 rows");
		exit(1);
	}
	golden_sweep_infer_all(&set, &io);
	if (golden_sweep_detect(&set, NULL, &res) < 0)
		exit(1);
	j = golden_sweep_report_json(&set, &res, NULL);
	json_object_put(j);
	golden_sweep_result_free(&res);
	golden_sweep_set_free(&set);
	return now_us() - t0;
}

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 1000, rounds = argc > 3 ? atoi(argv[3]) : 3;
	char dir[] = "/tmp/golden-bench-sweep-XXXXXX", path[PATH_MAX];
	char *text;
	double *tb, *ta;

	if (argc < 2 || n < 1 || rounds < 1) {
		fprintf(stderr, "usage: bench-sweep LOG [N=1000] [ROUNDS=3]\n");
		return 2;
	}
	text = thirty_rows(argv[1]);
	if (!mkdtemp(dir))
		return 1;
	for (int i = 0; i < n; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/log%04d.log", dir, i);
		f = fopen(path, "w");
		if (!f)
			return 1;
		/* Each file its own: golden's line names a different node list. */
		fprintf(f,
		        "# golden-sweep: run collective=all_reduce_perf nodes=2 env=golden "
		        "nodelist=n%d,n%d step=%d/%d\n%s",
		        2 * i + 1, 2 * i + 2, i + 1, n, text);
		fclose(f);
	}
	tb = calloc((size_t)n, sizeof(*tb));
	ta = calloc((size_t)n, sizeof(*ta));
	if (!tb || !ta) {
		free(tb);
		free(ta);
		return 1;
	}
	printf("bench-sweep: %d logs of %d sizes from %s\n", n, ROWS, argv[1]);
	for (int r = 0; r < rounds; r++) {
		double total = 0;

		for (int i = 0; i < n; i++) {
			snprintf(path, sizeof(path), "%s/log%04d.log", dir, i);
			/* Alternate which goes first so the page cache favours neither. */
			if (i % 2) {
				tb[i] = baseline(path);
				ta[i] = analyse(path);
			} else {
				ta[i] = analyse(path);
				tb[i] = baseline(path);
			}
			total += ta[i];
		}
		qsort(tb, (size_t)n, sizeof(*tb), cmp_double);
		qsort(ta, (size_t)n, sizeof(*ta), cmp_double);
		printf("round %d: analyse median %.1f us p90 %.1f us (total %.1f ms for %d logs); "
		       "read+split baseline median %.1f us; ratio %.1f\n",
		       r + 1, ta[n / 2], ta[n * 9 / 10], total / 1e3, n, tb[n / 2],
		       ta[n / 2] / tb[n / 2]);
	}
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/log%04d.log", dir, i);
		unlink(path);
	}
	rmdir(dir);
	free(tb);
	free(ta);
	free(text);
	return 0;
}
