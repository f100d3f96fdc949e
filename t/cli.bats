#!/usr/bin/env bats
# The golden command over the generated topology fixtures.

setup() {
	GOLDEN="$GOLDEN_BUILDDIR/cli/golden"
	FX="$GOLDEN_BUILDDIR/t/fixtures/out"
	RECIPES="$GOLDEN_SRCDIR/recipes"
}

node() { # node FIXTURE -> options for golden
	echo --topology "$FX/$1/topo.xml" --sysroot "$FX/$1/root" --recipes "$RECIPES"
}

@test "golden env on the 8xH100 IB node: compute rails only, exact-match forms, sorted" {
	run "$GOLDEN" env $(node hgx-h100-ib)
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 2 ]
	[ "${lines[0]}" = "NCCL_IB_HCA==mlx5_0,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_9,mlx5_10,mlx5_11" ]
	[ "${lines[1]}" = "NCCL_SOCKET_IFNAME==eno1" ]
}

@test "golden env never puts the storage HCAs or docker0 anywhere" {
	run "$GOLDEN" env $(node hgx-h100-ib)
	[[ "$output" != *mlx5_1,* && "$output" != *mlx5_2,* && "$output" != *docker0* ]]
}

@test "golden env on renamed devices follows the names" {
	run "$GOLDEN" env $(node hgx-h100-ib-alt)
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "NCCL_IB_HCA==ibp24s0,ibp64s0,ibp79s0,ibp94s0,ibp154s0,ibp192s0,ibp206s0,ibp220s0" ]
	[ "${lines[1]}" = "NCCL_SOCKET_IFNAME==ens1f0" ]
}

@test "golden env on the HGX RoCE node: hgx-roce with GID index 3 from sysfs" {
	run "$GOLDEN" env $(node hgx-h100-roce)
	[ "$status" -eq 0 ]
	grep -qx 'NCCL_IB_GID_INDEX=3' <<<"$output"
	grep -qx 'NCCL_IB_HCA==mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7' <<<"$output"
	grep -qx 'NCCL_IB_QPS_PER_CONNECTION=1' <<<"$output"
	grep -qx 'NCCL_IB_TC=41' <<<"$output"
	grep -qx 'NCCL_SOCKET_IFNAME==eth0' <<<"$output"
}

@test "golden env on a node without GPUs exits 1 with one clear line" {
	run "$GOLDEN" env $(node cpu-only)
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" == "golden env: no NVIDIA GPU on this node"* ]]
}

@test "golden env on the flat-PCIe VM uses the fastest-tier fallback" {
	run "$GOLDEN" env $(node vm-flat)
	[ "$status" -eq 0 ]
	grep -qx 'NCCL_IB_HCA==mlx5_0,mlx5_1,mlx5_2,mlx5_3' <<<"$output"
	grep -qx 'NCCL_SOCKET_IFNAME==eth0' <<<"$output"
}

@test "golden env --format explain says who won over whom" {
	run "$GOLDEN" env $(node hgx-h100-ib) --format explain
	[ "$status" -eq 0 ]
	grep -q '^recipe: hgx-h100-h200-ib' <<<"$output"
	grep -qE '^  \* hgx-h100-h200-ib +specificity 5' <<<"$output"
	grep -qE '^    generic-ib +specificity 1 +matches' <<<"$output"
	grep -qE '^    generic-roce +specificity 1 +no match' <<<"$output"
	grep -q 'why: ' <<<"$output"
}

@test "golden env --format json is valid JSON with the variables" {
	run "$GOLDEN" env $(node hgx-h100-ib) --format json
	[ "$status" -eq 0 ]
	python3 -c 'import json,sys; d=json.load(sys.stdin); v={x["name"]:x["value"] for x in d["vars"]}; assert v["NCCL_SOCKET_IFNAME"]=="=eno1", v' <<<"$output"
}

@test "golden env --recipe forces a recipe; an unknown one is an error" {
	run "$GOLDEN" env $(node hgx-h100-ib) --recipe generic-ib --format explain
	[ "$status" -eq 0 ]
	grep -q '^recipe: generic-ib' <<<"$output"
	run "$GOLDEN" env $(node hgx-h100-ib) --recipe nope
	[ "$status" -eq 1 ]
	[[ "$output" == *"recipe 'nope' not found"* ]]
}

@test "golden env with a missing topology file names it" {
	run "$GOLDEN" env --topology /nonexistent/topo.xml --recipes "$RECIPES"
	[ "$status" -eq 1 ]
	[[ "$output" == *"topology discovery failed"*"/nonexistent/topo.xml"* ]]
}

@test "golden topo shows classes, locality and the nearest NIC" {
	run "$GOLDEN" topo --topology "$FX/hgx-h100-ib/topo.xml" --sysroot "$FX/hgx-h100-ib/root"
	[ "$status" -eq 0 ]
	grep -q 'mlx5_1.*storage' <<<"$output"
	grep -q 'mlx5_0.*compute' <<<"$output"
	grep -q 'docker0.*virtual' <<<"$output"
	grep -q 'PIX' <<<"$output"
	grep -q 'eno1' <<<"$output"
}

@test "golden topo --format json lists 8 GPUs and 4 NVSwitches" {
	run "$GOLDEN" topo --topology "$FX/hgx-h100-ib/topo.xml" --sysroot "$FX/hgx-h100-ib/root" --format json
	[ "$status" -eq 0 ]
	python3 -c 'import json,sys; d=json.load(sys.stdin); assert len(d["gpus"])==8 and d["nvswitches"]==4, d' <<<"$output"
}

@test "golden recipe lint passes on the shipped recipes" {
	run "$GOLDEN" recipe lint "$RECIPES"
	[ "$status" -eq 0 ]
	[[ "${lines[-1]}" == "golden recipe lint: 16 recipes, 0 problems" ]]
}

@test "golden recipe lint fails on recipes that tie on the same node" {
	run "$GOLDEN" recipe lint "$GOLDEN_SRCDIR/t/fixtures/recipes-tie"
	[ "$status" -eq 1 ]
	grep -q 'site-hopper-nvswitch.json: tie: site-h100-ib and site-hopper-nvswitch both match at specificity 2' <<<"$output"
	[[ "${lines[-1]}" == "golden recipe lint: 3 recipes, 2 problems" ]]
}

@test "golden recipe lint rejects every broken recipe with file and key" {
	for f in "$GOLDEN_SRCDIR"/t/fixtures/recipes-bad/*.json; do
		run "$GOLDEN" recipe lint "$f"
		[ "$status" -eq 1 ] || { echo "not rejected: $f"; return 1; }
		[[ "$output" == *"$(basename "$f")"* ]] || { echo "no file name: $output"; return 1; }
	done
}

@test "golden recipe list says which recipes match this node and why not" {
	run "$GOLDEN" recipe list $(node hgx-h100-ib)
	[ "$status" -eq 0 ]
	grep -qE '^hgx-h100-h200-ib +5 +yes' <<<"$output"
	grep -qE '^generic-roce +1 +no +.*roce' <<<"$output"
}

@test "golden recipe explain shows template, value here and why" {
	run "$GOLDEN" recipe explain hgx-roce $(node hgx-h100-roce)
	[ "$status" -eq 0 ]
	grep -q 'template: {roce_gid_index} (optional)' <<<"$output"
	grep -q 'here:     3' <<<"$output"
}

@test "golden rejects unknown options and formats with a usable message" {
	run "$GOLDEN" env --frmat json
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown option '--frmat'"* ]]
	run "$GOLDEN" env --format yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"expected env, json or explain"* ]]
	run "$GOLDEN" topo --recipe x
	[ "$status" -eq 2 ]
	run "$GOLDEN" --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"golden COMMAND"* ]]
	[[ "$output" == *"sweep    judge nccl-tests sweeps"* ]]
	run "$GOLDEN" sweep --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"golden sweep analyse FILE..."* ]]
	run "$GOLDEN" sweep run --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"--compare-default"* ]]
	run "$GOLDEN" sweep run --nodes 4
	[ "$status" -eq 2 ]
	[[ "$output" == *"--out DIR is required"* ]]
	run "$GOLDEN" sweep locate --out /tmp/x
	[ "$status" -eq 2 ]
	[[ "$output" == *"one of --nodelist LIST or --from LOG"* ]]
	run "$GOLDEN" bogus
	[ "$status" -eq 2 ]
	[[ "$output" == *"expected env, topo, recipe, check, teardown, status, nccl-topo or sweep"* ]]
}

@test "the golden-watch systemd unit verifies and stays hardened (exposure <= 3.0)" {
	command -v systemd-analyze >/dev/null || skip "no systemd-analyze"
	unit="$BATS_TEST_TMPDIR/golden-watch.service"
	# verify wants ExecStart to exist: point it at the build.
	sed "s|^ExecStart=.*|ExecStart=$GOLDEN_BUILDDIR/watch/golden-watch|" \
		"$GOLDEN_SRCDIR/contrib/golden-watch.service" >"$unit"
	run systemd-analyze verify --man=no "$unit"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	run systemd-analyze security --offline=yes "$unit"
	level=$(sed -n 's/.*Overall exposure level for golden-watch.service: \([0-9.]*\).*/\1/p' <<<"$output")
	[ -n "$level" ]
	awk -v l="$level" 'BEGIN { exit !(l <= 3.0) }' || { echo "exposure $level"; false; }
	grep -qx 'CapabilityBoundingSet=CAP_SYSLOG' "$unit"
	grep -qx 'RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6' "$unit"
}

@test "golden-watch and golden status reject bad usage with a usable message" {
	run "$GOLDEN_BUILDDIR/watch/golden-watch" --bogus
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown option '--bogus'"* ]]
	run "$GOLDEN_BUILDDIR/watch/golden-watch" --kmsg /etc/hostname
	[ "$status" -eq 2 ]
	[[ "$output" == *"not a character device: use --once"* ]]
	run "$GOLDEN" status --history -1
	[ "$status" -eq 2 ]
	[[ "$output" == *"--history -1: expected 0-1000"* ]]
	conf="$BATS_TEST_TMPDIR/golden.conf"
	printf 'flap_count = many\n' >"$conf"
	chmod 0644 "$conf"
	run "$GOLDEN" status --config "$conf"
	[ "$status" -eq 2 ]
	[[ "$output" == *"$conf:1: flap_count = many: expected 0-100"* ]]
}
