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

# golden active over the stand-in (no cluster: --no-drain, scontrol false).
active_setup() {
	A=$BATS_TEST_TMPDIR
	mkdir -p "$A/bin/standin.d" "$A/metrics"
	install -m 0755 "$GOLDEN_SRCDIR/t/active-standin/golden-active-standin" "$A/bin/golden-active"
	chmod 0755 "$A" "$A/bin"
	cat >"$A/golden.conf" <<-EOC
	state_dir = $A/state/%n
	log = $A/log.jsonl
	metrics_dir = $A/metrics/%n
	scontrol = /bin/false
	active = $A/bin/golden-active
	EOC
	export GOLDEN_CONF=$A/golden.conf
}

@test "golden active run: the program's verdict, the record, the log and the metrics" {
	active_setup
	echo result=fail >"$A/bin/standin.d/x1"
	run "$GOLDEN" active run --node x1 --no-drain
	[ "$status" -eq 1 ]
	[[ "$output" == *"active check on x1: fail gpu3 hbm 2.1<2.7TB/s"* ]]
	[[ "$output" == *"not drained (--no-drain)"* ]]
	echo result=pass >"$A/bin/standin.d/x1"
	run "$GOLDEN" active run --node x1 --json
	[ "$status" -eq 0 ]
	python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["outcome"]=="pass", d' "$output"
	run "$GOLDEN" active run --node x1 --max-age 1h
	[ "$status" -eq 0 ]
	[[ "$output" == *"fresh"* ]]
	python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
assert (d["runs"], d["passes"], d["fails"]) == (2, 1, 1), d
assert d["report"]["gpus"][3]["busid"] == "0000:13:00.0", d' "$A/state/x1/active.json"
	grep -q '^slurm_golden_active_last_result{node="x1"} 0$' "$A/metrics/x1/slurm_golden_active.prom"
	[ "$(grep -c '"phase":"active"' "$A/log.jsonl")" = 2 ]
	run "$GOLDEN" status --node x1
	[[ "$output" == *"active check: pass "*" ago (manual, "* ]]
}

@test "golden active run: what the program prints or does wrong is an error, never a drain" {
	active_setup
	echo result=garbage >"$A/bin/standin.d/x2"
	run "$GOLDEN" active run --node x2
	[ "$status" -eq 2 ]
	[[ "$output" == *"output is not JSON"* ]]
	chmod 0775 "$A/bin/golden-active"
	run "$GOLDEN" active run --node x2
	[ "$status" -eq 2 ]
	[[ "$output" == *"refusing to run it as root"* || $EUID -ne 0 ]]
	sed -i '/^active =/d' "$A/golden.conf"
	run "$GOLDEN" active run --node x2
	[ "$status" -eq 2 ]
	[[ "$output" == *"no active program: set active = "* ]]
}

@test "golden active rejects bad usage with a usable message" {
	run "$GOLDEN" active submit
	[ "$status" -eq 2 ]
	[[ "$output" == *"--partition missing: expected the preemptible partition's name"* ]]
	run "$GOLDEN" active submit --partition 'a;b'
	[ "$status" -eq 2 ]
	run "$GOLDEN" active run --max-age 3x
	[ "$status" -eq 2 ]
	[[ "$output" == *"--max-age 3x: expected N[smhd]"* ]]
	run "$GOLDEN" active frobnicate
	[ "$status" -eq 2 ]
	[[ "$output" == *"expected run or submit"* ]]
	printf 'active = relative/path\n' >"$BATS_TEST_TMPDIR/bad.conf"
	run "$GOLDEN" active run --config "$BATS_TEST_TMPDIR/bad.conf"
	[ "$status" -eq 2 ]
	[[ "$output" == *"bad.conf:1: active = relative/path: expected the absolute path"* ]]
}

@test "golden-active (when built): no GPU here is 'could not judge', or a failure when GPUs are expected" {
	GA=$GOLDEN_BUILDDIR/active/golden-active
	[ -x "$GA" ] || skip "golden-active not built (configure found no CUDA)"
	run "$GA" --json --budget 10
	[ "$status" -eq 2 ]
	python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["result"]=="error" and d["error"], d' "$output"
	run "$GA" --budget 10 --gpus 8
	[ "$status" -eq 1 ]
	[[ "$output" == *"result: fail gpu count 0<8"* ]]
	run "$GA" --expectations
	[ "$status" -eq 0 ]
	[[ "$output" == *"H200 SXM 141GB"*"4.8->3.84"* ]]
	[[ "$output" == *"nvidia.com/en-us/data-center/h200"* ]]
	run "$GA" --skip warp
	[ "$status" -eq 2 ]
	[[ "$output" == *"--skip warp: expected phases from hbm, gemm"* ]]
}
