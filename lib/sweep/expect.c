#include "sweep/expect.h"

#include <stddef.h>

const struct golden_sweep_expect_entry *
golden_sweep_expect_find(const struct golden_sweep_expect *x, enum golden_sweep_coll coll,
                         int nodes)
{
	if (!x || nodes < 1)
		return NULL;
	for (int i = 0; i < x->n; i++)
		if (x->e[i].coll == coll && nodes >= x->e[i].nodes_min &&
		    nodes <= x->e[i].nodes_max)
			return &x->e[i];
	return NULL;
}
