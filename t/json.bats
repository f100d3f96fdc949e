#!/usr/bin/env bats
# Every JSON document golden writes names itself ("document") and its shape's
# version ("schema"), and golden-json(7) describes each one (issue 14).

setup() {
	GOLDEN="$GOLDEN_BUILDDIR/cli/golden"
	FX="$GOLDEN_BUILDDIR/t/fixtures/out"
	RECIPES="$GOLDEN_SRCDIR/recipes"
	PAGE="$GOLDEN_SRCDIR/man/golden-json.7"
}

# stamp DOCUMENT: stdin is one JSON object whose first members are
# "document": DOCUMENT and "schema": 1.
stamp() {
	python3 -c '
import json, sys
d = json.load(sys.stdin)
keys = list(d)
assert keys[:2] == ["document", "schema"], keys[:4]
assert d["document"] == sys.argv[1], d["document"]
assert d["schema"] == 1 and type(d["schema"]) is int, d["schema"]
' "$1"
}

# The names golden_json_stamp() is called with anywhere in the source.
stamped_in_source() {
	grep -rhoE 'golden_json_stamp\([a-z]+, "[a-z-]+"\)' "$GOLDEN_SRCDIR/lib" "$GOLDEN_SRCDIR/cli" |
		sed -E 's/.*"([a-z-]+)".*/\1/' | sort -u
}

@test "golden-json(7) describes every document the source stamps, and no other" {
	src=$(stamped_in_source)
	[ "$(wc -l <<<"$src")" -ge 15 ]
	page=$(sed -n 's/^\.SS \(golden-[a-z-]*\)$/\1/p' "$PAGE" | sort -u)
	diff -u <(echo "$src") <(echo "$page")
}

@test "command output carries its stamp: env, topo, check-free status, teardown, report, sweep, topology check" {
	"$GOLDEN" env --topology "$FX/hgx-h100-ib/topo.xml" --sysroot "$FX/hgx-h100-ib/root" \
		--recipes "$RECIPES" --format json | stamp golden-env
	"$GOLDEN" topo --topology "$FX/hgx-h100-ib/topo.xml" --sysroot "$FX/hgx-h100-ib/root" \
		--format json | stamp golden-topo
	"$GOLDEN" teardown --cgroup /sys/fs/cgroup --flush off --json | stamp golden-teardown
	"$GOLDEN" report --events "$GOLDEN_SRCDIR/t/fixtures/sacctmgr/events-22.05.txt" \
		--since @1796300000 --until @1796400000 --format json | stamp golden-report
	"$GOLDEN" sweep analyse --format json \
		"$GOLDEN_SRCDIR/t/fixtures/nccl-tests/nccltests309-h100-ndr-gjaion-8n-2n-4n-8n-ring-dip-8m.log" |
		stamp golden-sweep
	FAB="$GOLDEN_BUILDDIR/t/fixtures/fabric"
	run "$GOLDEN" topology check --facts "$FAB/minicluster.facts.json" \
		--ibnetdiscover "$FAB/minicluster-recabled.net" --slurm-version 22.05 \
		--show-topology "$GOLDEN_SRCDIR/t/fixtures/slurm-topology/22.05-tree.show" --json
	[ "$status" -eq 1 ] # the recabled fabric: mismatches
	stamp golden-topology-check <<<"$output"
	d="$BATS_TEST_TMPDIR"
	mkdir -m 0700 "$d/state"
	printf 'state_dir = %s/state\nlog = %s/health.jsonl\nscontrol = /bin/false\n' "$d" "$d" >"$d/golden.conf"
	chmod 0644 "$d/golden.conf"
	run "$GOLDEN" status --config "$d/golden.conf" --node n1 --json
	stamp golden-status <<<"$output"
}

@test "the facts gather writes and the topology build reads are stamped; a newer schema is refused with why" {
	FAB="$GOLDEN_BUILDDIR/t/fixtures/fabric"
	d="$BATS_TEST_TMPDIR"
	# A facts file from before the stamp (the fixtures) still reads.
	"$GOLDEN" topology build --facts "$FAB/minicluster.facts.json" \
		--ibnetdiscover "$FAB/minicluster.net" --slurm-version 22.05 >/dev/null
	python3 - "$FAB/minicluster.facts.json" "$d/newer.json" <<-'EOP'
	import json, sys
	d = json.load(open(sys.argv[1]))
	d = {"document": "golden-topology-facts", "schema": 2, **d}
	json.dump(d, open(sys.argv[2], "w"))
	EOP
	run "$GOLDEN" topology build --facts "$d/newer.json" \
		--ibnetdiscover "$FAB/minicluster.net" --slurm-version 22.05
	[ "$status" -ne 0 ]
	[[ "$output" == *"$d/newer.json: schema 2, this golden reads schema 1"* ]]
	sed -i 's/"golden-topology-facts", "schema": 2/"golden-sweep", "schema": 1/' "$d/newer.json"
	run "$GOLDEN" topology build --facts "$d/newer.json" \
		--ibnetdiscover "$FAB/minicluster.net" --slurm-version 22.05
	[ "$status" -ne 0 ]
	[[ "$output" == *"it is a golden-sweep document, not golden-topology-facts"* ]]
}

@test "state files: a ledger of a newer schema is unreadable to golden status, not misread" {
	d="$BATS_TEST_TMPDIR"
	mkdir -m 0700 "$d/state"
	printf 'state_dir = %s/state\nlog = %s/health.jsonl\nscontrol = /bin/false\n' "$d" "$d" >"$d/golden.conf"
	chmod 0644 "$d/golden.conf"
	hold='"hold":{"class":"reboot","reason":"gpu0 xid79 offbus; reboot [golden]","check":"xid","time":1796321990,"applied":true}'
	echo "{\"document\":\"golden-ledger\",\"schema\":1,$hold}" >"$d/state/lifecycle.json"
	chmod 0600 "$d/state/lifecycle.json"
	run "$GOLDEN" status --config "$d/golden.conf" --node n1
	[ "$status" -eq 1 ]
	[[ "$output" == *"class: reboot"* ]]
	echo "{\"document\":\"golden-ledger\",\"schema\":2,$hold}" >"$d/state/lifecycle.json"
	run "$GOLDEN" status --config "$d/golden.conf" --node n1
	[[ "$output" == *"ledger: $d/state/lifecycle.json unreadable"* ]]
	[[ "$output" != *"class: reboot"* ]]
}
