#!/usr/bin/env bats
# t/check-layering.sh, the dependency rule of lib/, against trees with planted
# violations: it must name each one, and pass the real tree.

setup() {
	TREE=$(mktemp -d)
	cp -r "$GOLDEN_SRCDIR/lib" "$TREE/lib"
}

teardown() {
	rm -rf "$TREE"
}

@test "the real tree follows the rule" {
	run "$GOLDEN_SRCDIR/t/check-layering.sh"
	[ "$status" -eq 0 ]
	[[ "$output" == *"ok 1 lib/ follows its dependency rule"* ]]
}

@test "an upward include (topo -> health) is named with FILE:LINE" {
	sed -i '0,/^#include "util/s//#include "health\/check.h"\n&/' "$TREE/lib/topo/topo.c"
	GOLDEN_SRCDIR=$TREE run "$GOLDEN_SRCDIR/t/check-layering.sh"
	[ "$status" -eq 1 ]
	[[ "$output" == *"lib/topo/topo.c:"*"lib/topo must not include health/check.h"* ]]
}

@test "env and health never include each other" {
	sed -i '0,/^#include "util/s//#include "env\/recipe.h"\n&/' "$TREE/lib/health/check_xid.c"
	GOLDEN_SRCDIR=$TREE run "$GOLDEN_SRCDIR/t/check-layering.sh"
	[ "$status" -eq 1 ]
	[[ "$output" == *"lib/health/check_xid.c:"*"must not include env/recipe.h"* ]]
}

@test "lib/ never includes a front end, nor another folder's internal header" {
	sed -i '0,/^#include "util/s//#include "spank\/plugin_args.h"\n#include "topo\/topo_internal.h"\n&/' \
		"$TREE/lib/env/facts.c"
	GOLDEN_SRCDIR=$TREE run "$GOLDEN_SRCDIR/t/check-layering.sh"
	[ "$status" -eq 1 ]
	[[ "$output" == *"must not include spank/plugin_args.h"* ]]
	[[ "$output" == *"topo/topo_internal.h is internal to lib/topo"* ]]
}

@test "an include not spelled from lib/ is refused" {
	sed -i '0,/^#include "util/s//#include "strutil.h"\n&/' "$TREE/lib/node/ledger.c"
	GOLDEN_SRCDIR=$TREE run "$GOLDEN_SRCDIR/t/check-layering.sh"
	[ "$status" -eq 1 ]
	[[ "$output" == *"lib/node/ledger.c:"*"spell includes from lib/"* ]]
}

@test "nvml sits below topo: nvml -> topo is refused, topo -> nvml is not" {
	sed -i '0,/^#include "nvml/s//#include "topo\/topo.h"\n&/' "$TREE/lib/nvml/nvml.c"
	sed -i '0,/^#include "util/s//#include "nvml\/nvml.h"\n&/' "$TREE/lib/topo/topo.c"
	GOLDEN_SRCDIR=$TREE run "$GOLDEN_SRCDIR/t/check-layering.sh"
	[ "$status" -eq 1 ]
	[[ "$output" == *"lib/nvml/nvml.c:"*"lib/nvml must not include topo/topo.h"* ]]
	[[ "$output" != *"lib/topo/topo.c:"* ]]
}

@test "fabric is a leaf of its own: node -> fabric and fabric -> health are refused" {
	sed -i '0,/^#include "util/s//#include "fabric\/tree.h"\n&/' "$TREE/lib/node/ledger.c"
	sed -i '0,/^#include "util/s//#include "health\/check.h"\n&/' "$TREE/lib/fabric/verify.c"
	GOLDEN_SRCDIR=$TREE run "$GOLDEN_SRCDIR/t/check-layering.sh"
	[ "$status" -eq 1 ]
	[[ "$output" == *"lib/node/ledger.c:"*"lib/node must not include fabric/tree.h"* ]]
	[[ "$output" == *"lib/fabric/verify.c:"*"lib/fabric must not include health/check.h"* ]]
}

@test "lib/active includes only util: the program's verdict never depends on health" {
	sed -i '0,/^#include "util/s//#include "health\/check.h"\n&/' "$TREE/lib/active/verdict.c"
	GOLDEN_SRCDIR=$TREE run "$GOLDEN_SRCDIR/t/check-layering.sh"
	[ "$status" -eq 1 ]
	[[ "$output" == *"lib/active/verdict.c:"*"lib/active must not include health/check.h"* ]]
}

@test "sweep includes only util, and nothing else in lib/ includes sweep" {
	sed -i '0,/^#include "util/s//#include "env\/recipe.h"\n&/' "$TREE/lib/sweep/detect.c"
	sed -i '0,/^#include "util/s//#include "sweep\/sweep.h"\n&/' "$TREE/lib/node/ledger.c"
	GOLDEN_SRCDIR=$TREE run "$GOLDEN_SRCDIR/t/check-layering.sh"
	[ "$status" -eq 1 ]
	[[ "$output" == *"lib/sweep/detect.c:"*"lib/sweep must not include env/recipe.h"* ]]
	[[ "$output" == *"lib/node/ledger.c:"*"lib/node must not include sweep/sweep.h"* ]]
}
