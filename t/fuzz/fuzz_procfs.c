/* What the stall probe reads from the kernel: memory.stat (flat keys),
 * /proc/stat (two samples, split at a line "--"), bdi wb_stats and a NUMA
 * cpulist. Every input goes to every parser: the formats are close enough
 * that a mutation of one is a good test of another. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stall/cgmem.h"
#include "stall/wbstall.h"
#include "t/fuzz/fuzz.h"

static FILE *text_file(char *text)
{
	FILE *f = fmemopen(text, strlen(text) + 1, "r");

	if (!f)
		abort();
	return f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct golden_cpustat a, b;
	static const char *const keys[] = {"file_dirty", "file_writeback", "total_dirty",
	                                   "dirty",      "writeback",      "nr_dying_descendants"};
	static int cpu_node[GOLDEN_MAX_CPUS];
	unsigned char set[64];
	double pct[GOLDEN_MAX_NUMA];
	char *s, *second;
	FILE *f;

	if (size > 65536)
		return 0;
	s = fuzz_string(data, size);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		golden_cg_keyed(s, keys[i]);
	golden_stall_cpulist_parse(s, set, (int)sizeof(set));
	for (int c = 0; c < GOLDEN_MAX_CPUS; c++)
		cpu_node[c] = c % 4 == 3 ? -1 : c % 3;
	f = text_file(s);
	golden_cg_wb_stats_parse(f, (const unsigned long[]){1}, 1);
	fclose(f);
	second = strstr(s, "\n--\n");
	if (second) {
		*second = '\0';
		second += 4;
	}
	f = text_file(s);
	golden_stall_cpustat_parse(f, &a);
	fclose(f);
	f = text_file(second ? second : s);
	golden_stall_cpustat_parse(f, &b);
	fclose(f);
	golden_stall_numa_sys_pct(&a, &b, cpu_node, pct, 3);
	free(s);
	return 0;
}
