#!/usr/bin/env bats
# golden topo's fabric facts and golden topology gather|build|check, without a
# cluster: generated fabrics and node fixtures, real published ibnetdiscover
# dumps, real `scontrol show topology` captures, and (where ibsim is
# installed) the real ibnetdiscover against a simulated fabric.

load 'lib/ibsim'

setup() {
	GOLDEN="$GOLDEN_BUILDDIR/cli/golden"
	FX="$GOLDEN_BUILDDIR/t/fixtures/out"
	FAB="$GOLDEN_BUILDDIR/t/fixtures/fabric"
	NV="$GOLDEN_SRCDIR/t/fixtures/nvml"
	SHOW="$GOLDEN_SRCDIR/t/fixtures/slurm-topology"
	W=$(mktemp -d)
	# golden.conf: the default (optional) one, not a test's.
	unset GOLDEN_CONF
}

teardown() {
	golden_ibsim_stop
	rm -rf "$W"
}

build() { # build ARGS...: the minicluster fabric's facts, Slurm version given
	"$GOLDEN" topology build --facts "$FAB/minicluster.facts.json" "$@"
}

body() { # the lines Slurm reads (no comments, no blanks)
	grep -v '^#' | grep -v '^$'
}

@test "golden topo --format json: port GUIDs, subnet prefix, node description and the NVLink domain" {
	run env SLURMD_NODENAME=gb200-n2 LD_LIBRARY_PATH="$GOLDEN_BUILDDIR/t/fake-nvml/.libs" \
		FAKE_NVML_STATE="$NV/gb200-rack-a.json" \
		"$GOLDEN" topo --topology "$FX/%n/topo.xml" --sysroot "$FX/%n/root" --format json
	[ "$status" -eq 0 ]
	python3 - "$output" <<-'EOP'
	import json, sys
	d = json.loads(sys.argv[1])
	nic = {n["name"]: n for n in d["nics"]}
	p = nic["mlx5_1"]["ports"][0]
	assert p["port_guid"] == "0x0002c90300002011", p
	assert p["subnet_prefix"] == "0xfe80000000000000", p
	assert nic["mlx5_1"]["node_desc"] == "localhost mlx5_1"
	assert nic["mlx5_2"]["ports"][0]["port_guid"] is None  # RoCE
	nv = d["nvlink"]
	assert nv["attached"] and nv["domain"] == "5b0f6c1e-2d3a-4e8b-9c47-1a2b3c4d5e6f.1", nv
	assert all(g["fabric"]["state"] == "completed" for g in d["gpus"])
	EOP
}

@test "golden topo: GPUs that disagree on the clique are no domain; without NVML it says why" {
	run env LD_LIBRARY_PATH="$GOLDEN_BUILDDIR/t/fake-nvml/.libs" FAKE_NVML_STATE="$NV/gb200-split.json" \
		"$GOLDEN" topo --topology "$FX/gb200-n1/topo.xml" --sysroot "$FX/gb200-n1/root"
	[ "$status" -eq 0 ]
	[[ "$output" == *"NVLink domain: none: the GPUs disagree on the NVLink domain or clique"* ]]
	run env LD_LIBRARY_PATH=/nonexistent "$GOLDEN" topo --topology "$FX/gb200-n1/topo.xml" \
		--sysroot "$FX/gb200-n1/root" --format json
	[ "$status" -eq 0 ]
	[[ "$output" == *'"why":"NVML: libnvidia-ml.so.1 not found'* || "$output" == *'"why": "NVML: libnvidia-ml.so.1 not found'* ]]
}

@test "build: topology/tree for 22.05, placed by port GUID, with a header saying what and why" {
	run build --ibnetdiscover "$FAB/minicluster.net" --slurm-version 22.05
	[ "$status" -eq 0 ]
	[ "$(body <<<"$output")" = "SwitchName=su1-leaf-r0 Nodes=n[1-2]
SwitchName=su2-leaf-r0 Nodes=n[3-4]
SwitchName=spine-1 Switches=su1-leaf-r0,su2-leaf-r0" ]
	[[ "${lines[0]}" == "# topology.conf for Slurm 22.05, written by golden topology build"* ]]
	[[ "$output" == *"# slurm.conf: TopologyPlugin=topology/tree"* ]]
	[[ "$output" == *"ignored 8 SHARP aggregation node(s)"* ]]
	[[ "$output" == *'"ufm01 mlx5_0"'* ]]
}

@test "build: the real topograph dump (119 DGX, 4 rails): one leaf per unit, no description text" {
	run "$GOLDEN" topology build --facts "$FAB/topograph.facts.json" \
		--ibnetdiscover "$GOLDEN_SRCDIR/t/fixtures/ibnetdiscover/topograph-example.txt" \
		--slurm-version 24.11 --plugin tree
	[ "$status" -eq 0 ]
	[ "$(body <<<"$output" | grep -c 'Nodes=')" -eq 8 ]
	[[ "$(body <<<"$output")" != *dgx* ]]
	body <<<"$output" | grep -qx 'SwitchName=A10-P1-IBSPINE-01 Switches=A09-P1-IBLEAF-01-\[01-04\],B09-P1-IBLEAF-01-\[05-08\]'
}

@test "build: blocks per Slurm version (23.11 BlockLevels, 24.11 BlockSizes, 25.05+ yaml with both)" {
	run build --slurm-version 23.11 --plugin block
	[ "$status" -eq 0 ]
	[ "$(body <<<"$output" | head -1)" = "BlockLevels=0,1" ]
	run build --slurm-version 24.11 --plugin block --block-sizes 2,4
	[ "$status" -eq 0 ]
	[ "$(body <<<"$output")" = "BlockSizes=2,4
BlockName=nvl-15f06591-1 Nodes=n[1-2]
BlockName=nvl-9dd58c34-1 Nodes=n[3-4]" ]
	run build --slurm-version 26.05 --ibnetdiscover "$FAB/minicluster.net"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "# topology.yaml for Slurm 26.05"* ]]
	[[ "$output" == *"- topology: fabric"*"- topology: nvlink"*"block_sizes: [2, 4]"* ]]
}

@test "build: refusals a person can act on" {
	run build --slurm-version 24.11 --ibnetdiscover "$FAB/minicluster.net"
	[ "$status" -eq 2 ]
	[[ "$output" == *"Slurm 24.11 takes one TopologyPlugin"*"choose --plugin tree or --plugin block"* ]]
	run build --slurm-version 22.05 --plugin block
	[ "$status" -eq 2 ]
	[[ "$output" == *"Slurm 22.05 has no topology/block"* ]]
	run build --slurm-version 24.11 --plugin tree
	[ "$status" -eq 2 ]
	[[ "$output" == *"the tree needs --ibnetdiscover FILE or --run-ibnetdiscover"* ]]
	run build --slurm-version 24.11 --plugin block --block-sizes 2,6
	[ "$status" -eq 2 ]
	[[ "$output" == *"power-of-two multiple"* ]]
	run "$GOLDEN" topology build --facts /nonexistent --slurm-version 24.11
	[ "$status" -eq 2 ]
	[[ "$output" == *"/nonexistent: cannot read facts"* ]]
	run "$GOLDEN" topology build --facts "$FAB/minicluster.facts.json" --ibnetdiscover "$GOLDEN_SRCDIR/README.md" --slurm-version 22.05
	[ "$status" -eq 2 ]
	[[ "$output" == *"README.md: no ibnetdiscover node or port line found"* ]]
	run "$GOLDEN" topology frobnicate
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown subcommand 'frobnicate'"* ]]
	run "$GOLDEN" topology gather --facts x
	[ "$status" -eq 2 ]
	[[ "$output" == *"option --facts does not apply to 'topology gather'"* ]]
}

@test "build --write: atomic, only when what Slurm reads changed, with a diff" {
	[ "$EUID" -eq 0 ] || skip "--write needs root"
	run build --ibnetdiscover "$FAB/minicluster.net" --slurm-version 22.05 --write "$W/topology.conf"
	[ "$status" -eq 0 ]
	[[ "$output" == *"$W/topology.conf written"* ]]
	[ "$(stat -c %a "$W/topology.conf")" = 644 ]
	ino=$(stat -c %i "$W/topology.conf")
	sleep 1 # a new header timestamp; nothing Slurm reads changes
	run build --ibnetdiscover "$FAB/minicluster.net" --slurm-version 22.05 --write "$W/topology.conf"
	[ "$status" -eq 0 ]
	[[ "$output" == *"unchanged: not rewritten"* ]]
	[ "$(stat -c %i "$W/topology.conf")" = "$ino" ]
	run build --ibnetdiscover "$FAB/minicluster-recabled.net" --slurm-version 22.05 --write "$W/topology.conf"
	[ "$status" -eq 0 ]
	[[ "$output" == *"-SwitchName=su1-leaf-r0 Nodes=n[1-2]"* ]]
	[[ "$output" == *"+SwitchName=su1-leaf-r0 Nodes=n[1,3]"* ]]
	[[ "$output" == *"replaced: apply with \`scontrol reconfigure\`"* ]]
	grep -qx 'SwitchName=su2-leaf-r0 Nodes=n\[2,4\]' "$W/topology.conf"
	ln -s "$W/topology.conf" "$W/link.conf"
	run build --ibnetdiscover "$FAB/minicluster.net" --slurm-version 22.05 --write "$W/link.conf"
	[ "$status" -eq 2 ]
	[[ "$output" == *"not a regular file (a symlink?)"* ]]
}

@test "build --current: the diff goes to stderr, the file to stdout" {
	build --ibnetdiscover "$FAB/minicluster.net" --slurm-version 22.05 >"$W/old.conf"
	run --separate-stderr build --ibnetdiscover "$FAB/minicluster-recabled.net" \
		--slurm-version 22.05 --current "$W/old.conf"
	[ "$status" -eq 0 ]
	[[ "$output" == *"SwitchName=su1-leaf-r0 Nodes=n[1,3]"* ]]
	[[ "$output" != *"+SwitchName"* ]]
	[[ "$stderr" == *"+SwitchName=su1-leaf-r0 Nodes=n[1,3]"* ]]
}

@test "check: consistent (0), recabled (1, with the fix), unreadable (2); JSON and metrics" {
	run "$GOLDEN" topology check --facts "$FAB/minicluster.facts.json" \
		--ibnetdiscover "$FAB/minicluster.net" --slurm-version 22.05 \
		--show-topology "$SHOW/22.05-tree.show" --metrics-dir "$W"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "0 mismatches between Slurm's topology (3 switches, 0 blocks)"* ]]
	[ "$(awk '/^slurm_golden_topology_mismatches{/ { s += $2 } END { print s }' "$W/slurm_golden_topology.prom")" = 0 ]
	run "$GOLDEN" topology check --facts "$FAB/minicluster.facts.json" \
		--ibnetdiscover "$FAB/minicluster-recabled.net" --slurm-version 22.05 \
		--show-topology "$SHOW/22.05-tree.show" --metrics-dir "$W"
	[ "$status" -eq 1 ]
	[[ "$output" == *"wrong-leaf"*"n2 is under leaf su1-leaf-r0 in Slurm"*"fix: regenerate with golden topology build --write"* ]]
	[ "$(awk '/^slurm_golden_topology_mismatches{/ { s += $2 } END { print s }' "$W/slurm_golden_topology.prom")" = 2 ]
	grep -qx 'slurm_golden_topology_mismatches{kind="wrong-leaf"} 2' "$W/slurm_golden_topology.prom"
	run "$GOLDEN" topology check --facts "$FAB/minicluster.facts.json" \
		--ibnetdiscover "$FAB/minicluster-recabled.net" --slurm-version 22.05 \
		--show-topology "$SHOW/22.05-tree.show" --json
	[ "$status" -eq 1 ]
	python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["mismatches"]==2 and d["by_kind"]["wrong-leaf"]==2, d' "$output"
	run "$GOLDEN" topology check --facts "$FAB/minicluster.facts.json" --slurm-version 26.05 \
		--show-topology "$SHOW/26.05-block.show" --metrics-dir "$W"
	[ "$status" -eq 0 ]
	run "$GOLDEN" topology check --facts "$FAB/minicluster.facts.json" --slurm-version 26.05 \
		--show-topology "$W/nonexistent" --metrics-dir "$W"
	[ "$status" -eq 2 ]
	grep -qx 'slurm_golden_topology_check_success 0' "$W/slurm_golden_topology.prom"
}

@test "check: blocks across racks and a rack not ready are reported" {
	cat >"$W/show" <<-'EOF'
	BlockName=b1 BlockIndex=0 Nodes=n[1,3] BlockSize=2
	BlockName=b2 BlockIndex=1 Nodes=n[2,4] BlockSize=2
	EOF
	run "$GOLDEN" topology check --facts "$FAB/minicluster.facts.json" --slurm-version 24.11 \
		--show-topology "$W/show"
	[ "$status" -eq 1 ]
	[[ "$output" == *"mixed-block"*"block b1 mixes NVLink domains"* ]]
	[[ "$output" == *"split-domain"* ]]
}

# A node facts file as golden check --healthcheck writes it.
node_file() { # node_file NODE FIXTURE [AGE_SECONDS] -> $W/state/NODE/topology-facts.json
	mkdir -p "$W/state/$1"
	SLURMD_NODENAME=$2 "$GOLDEN" topo --topology "$FX/%n/topo.xml" --sysroot "$FX/%n/root" \
		--format json >"$W/topo.json"
	python3 - "$1" "${3:-0}" "$W/topo.json" >"$W/state/$1/topology-facts.json" <<-'EOP'
	import json, sys, time
	print(json.dumps({"format": "slurm-golden node facts", "version": 1, "node": sys.argv[1],
	                  "time": int(time.time()) - int(sys.argv[2]),
	                  "topo": json.load(open(sys.argv[3]))}))
	EOP
}

@test "gather --facts-dir: fresh files are facts; stale, foreign, writable or missing ones are listed" {
	node_file n1 gb200-n1
	node_file n2 gb200-n2 200000
	node_file n3 gb200-n3
	sed -i 's/"node": "n3"/"node": "n1"/' "$W/state/n3/topology-facts.json"
	node_file n4 gb200-n4
	chmod 0666 "$W/state/n4/topology-facts.json"
	run --separate-stderr "$GOLDEN" topology gather --nodes 'n[1-5]' --facts-dir "$W/state/%n" \
		--out "$W/facts.json"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"1 of 5 node(s) answered; did not answer:"* ]]
	[[ "$stderr" == *"n2: facts in $W/state/n2/topology-facts.json are "*" s old (more than 86400)"* ]]
	[[ "$stderr" == *"n3: $W/state/n3/topology-facts.json was written by node 'n1', not n3"* ]]
	[[ "$stderr" == *"n4: $W/state/n4/topology-facts.json is not a regular file owned by root (or you) and writable only by its owner"* ]]
	[[ "$stderr" == *"n5: no facts file $W/state/n5/topology-facts.json"* ]]
	python3 - "$W/facts.json" <<-'EOP'
	import json, sys
	d = json.load(open(sys.argv[1]))
	assert d["format"] == "slurm-golden topology facts" and d["method"] == "state_dir"
	assert list(d["nodes"]) == ["n1"], d["nodes"].keys()
	assert sorted(d["unanswered"]) == ["n2", "n3", "n4", "n5"]
	EOP
	# The unanswered are in build's header as not placed.
	run "$GOLDEN" topology build --facts "$W/facts.json" --ibnetdiscover "$FAB/minicluster.net" \
		--slurm-version 22.05
	[ "$status" -eq 0 ]
	[[ "$output" == *"# not placed: n5 did not answer: no facts file"* ]]
	[[ "$(body <<<"$output")" == *"Nodes=n1"* ]]
}

@test "the real ibnetdiscover against ibsim: its dump, and --run-ibnetdiscover, give the same tree" {
	golden_ibsim_available || skip "ibsim-utils / infiniband-diags not installed"
	golden_ibsim_start "$FAB/minicluster.net"
	golden_ibsim_run H-0002c90300003000 ibnetdiscover >"$W/dump" 2>"$W/err"
	run build --ibnetdiscover "$W/dump" --slurm-version 22.05
	[ "$status" -eq 0 ]
	expected=$(body <<<"$output")
	[ "$expected" = "SwitchName=su1-leaf-r0 Nodes=n[1-2]
SwitchName=su2-leaf-r0 Nodes=n[3-4]
SwitchName=spine-1 Switches=su1-leaf-r0,su2-leaf-r0" ]
	run golden_ibsim_run H-0002c90300003000 "$GOLDEN" topology build \
		--facts "$FAB/minicluster.facts.json" --run-ibnetdiscover --slurm-version 22.05
	[ "$status" -eq 0 ]
	[ "$(body <<<"$output")" = "$expected" ]
	[[ "$output" == *"#   ibnetdiscover, run on this host: 35 nodes"* ]]
	golden_ibsim_run H-0002c90300003000 ibnetdiscover -p >"$W/ports" 2>/dev/null
	run build --ibnetdiscover "$W/ports" --slurm-version 22.05
	[ "$status" -eq 0 ]
	[ "$(body <<<"$output")" = "$expected" ]
}

@test "the real ibnetdiscover: one run sees one fabric; two runs give two tops, never one over both" {
	golden_ibsim_available || skip "ibsim-utils / infiniband-diags not installed"
	golden_ibsim_start "$GOLDEN_SRCDIR/t/fixtures/ibsim/traps.net"
	golden_ibsim_run gpu01 ibnetdiscover >"$W/a" 2>/dev/null
	golden_ibsim_run gpu11 ibnetdiscover >"$W/b" 2>/dev/null
	cat >"$W/facts.json" <<-'EOF'
	{"format": "slurm-golden topology facts", "version": 1, "nodes": {
	 "gpu01": {"nics": [{"name": "mlx5_0", "kind": "ib", "class": "compute", "ports": [{"port": 1, "link_layer": "InfiniBand", "port_guid": "0x0b00000000000101"}]}]},
	 "gpu03": {"nics": [{"name": "mlx5_0", "kind": "ib", "class": "compute", "ports": [{"port": 1, "link_layer": "InfiniBand", "port_guid": "0x0b0000000000010a"}]}]},
	 "gpu11": {"nics": [{"name": "mlx5_0", "kind": "ib", "class": "compute", "ports": [{"port": 1, "link_layer": "InfiniBand", "port_guid": "0x0b00000000000901"}]}]}}}
	EOF
	run "$GOLDEN" topology build --facts "$W/facts.json" --ibnetdiscover "$W/a" --slurm-version 22.05
	[[ "$output" == *"# not placed in the tree: gpu11: none of its compute InfiniBand ports"* ]]
	run "$GOLDEN" topology build --facts "$W/facts.json" --ibnetdiscover "$W/a" \
		--ibnetdiscover "$W/b" --slurm-version 22.05
	[ "$status" -eq 0 ]
	[ "$(body <<<"$output")" = "SwitchName=leafA1 Nodes=gpu01
SwitchName=leafA2 Nodes=gpu03
SwitchName=spineA Switches=leafA[1-2]
SwitchName=leafB1 Nodes=gpu11" ]
}
