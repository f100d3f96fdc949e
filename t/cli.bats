#!/usr/bin/env bats
# The golden command over the generated topology fixtures.

bats_require_minimum_version 1.5.0 # run --separate-stderr

setup() {
	GOLDEN="$GOLDEN_BUILDDIR/cli/golden"
	FX="$GOLDEN_BUILDDIR/t/fixtures/out"
	RECIPES="$GOLDEN_SRCDIR/recipes"
}

node() { # node FIXTURE -> options for golden
	echo --topology "$FX/$1/topo.xml" --sysroot "$FX/$1/root" --recipes "$RECIPES"
}

REAL="$GOLDEN_SRCDIR/t/fixtures/hwloc"

json() { # json EXPR: EXPR over the JSON document `d` on stdin, printed
	"${PYTHON3:-python3}" -c 'import json, sys; d = json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"
}

# mgmt_sysroot DIR IF BUSID: a /sys and /proc with IF up on PCI BUSID,
# carrying 10.0.0.0/24 and the default route (what bootstrap needs).
mgmt_sysroot() {
	mkdir -p "$1/sys/devices/pci0000:00/$3" "$1/sys/class/net/$2" "$1/proc/net"
	echo up >"$1/sys/class/net/$2/operstate"
	ln -s "../../../devices/pci0000:00/$3" "$1/sys/class/net/$2/device"
	printf 'Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n' >"$1/proc/net/route"
	printf '%s\t00000000\t0100000A\t0003\t0\t0\t0\t00000000\t0\t0\t0\n' "$2" >>"$1/proc/net/route"
	printf '%s\t0000000A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n' "$2" >>"$1/proc/net/route"
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

# The real HP SL390s export without its NUMA-0 GPU: the node's only HCA,
# mlx4_0 (ConnectX VPI, IB), is on the other socket from both GPUs.
@test "golden env: an HCA only on the other socket is used, nearest first, never NCCL_IB_DISABLE" {
	sed '/pci_busid="0000:06:00.0" pci_type="0302/,/<\/object>/d' \
		"$REAL/24em64t-2n6c2t-pci.xml" >"$BATS_TEST_TMPDIR/cross.xml"
	! grep -q '0000:06:00.0' "$BATS_TEST_TMPDIR/cross.xml"
	mgmt_sysroot "$BATS_TEST_TMPDIR/root" eth0 0000:04:00.0
	run --separate-stderr "$GOLDEN" env --topology "$BATS_TEST_TMPDIR/cross.xml" \
		--sysroot "$BATS_TEST_TMPDIR/root" --recipes "$RECIPES"
	[ "$status" -eq 0 ]
	[ "$output" = "NCCL_IB_HCA==mlx4_0
NCCL_SOCKET_IFNAME==eth0" ]
	run "$GOLDEN" env --topology "$BATS_TEST_TMPDIR/cross.xml" \
		--sysroot "$BATS_TEST_TMPDIR/root" --recipes "$RECIPES" --format explain
	[ "$status" -eq 0 ]
	grep -q '^  no RDMA device shares a PCIe switch with a GPU (they are on another socket): NCCL gets every RDMA device of the top rate tier, nearest first: mlx4_0 (SYS)' <<<"$output"
	run "$GOLDEN" topo --topology "$BATS_TEST_TMPDIR/cross.xml" --sysroot "$BATS_TEST_TMPDIR/root"
	grep -qE '^  mlx4_0 +ib +compute ' <<<"$output"
	! grep -q 'flat' <<<"$output"
}

@test "golden env --topology of another host without --sysroot: warns, and mixes in nothing of this host" {
	run --separate-stderr "$GOLDEN" topo --topology "$REAL/24em64t-2n6c2t-pci.xml" --format json
	[ "$status" -eq 0 ]
	[[ "$stderr" == "golden topo: warning: $REAL/24em64t-2n6c2t-pci.xml describes host 'mirage004', and no sysroot was given: this host's ("*") sysfs is not mixed in"*"--sysroot"* ]]
	# Only the export's own devices and facts: eth0, eth1, ib0, mlx4_0.
	[ "$(json '",".join(sorted(n["name"] for n in d["nics"]))' <<<"$output")" = "eth0,eth1,ib0,mlx4_0" ]
	[ "$(json 'd["dmi_product"]' <<<"$output")" = "ProLiant SL390s G7" ]
	[ "$(json 'd["bootstrap_if"]' <<<"$output")" = "" ]
	run --separate-stderr "$GOLDEN" env --topology "$REAL/24em64t-2n6c2t-pci.xml" --recipes "$RECIPES"
	[[ "$stderr" == *"golden env: warning: "*"describes host 'mirage004'"* ]]
	! grep -q 'NCCL_SOCKET_IFNAME' <<<"$output"
}

@test "golden topo on an hwloc 3.x export gives hwloc's own reason" {
	sed 's/<topology version="2.0">/<topology version="3.0">/' \
		"$REAL/power8gpudistances.xml" >"$BATS_TEST_TMPDIR/v3.xml"
	run "$GOLDEN" topo --topology "$BATS_TEST_TMPDIR/v3.xml"
	[ "$status" -eq 1 ]
	[ "$output" = "golden topo: hwloc XML $BATS_TEST_TMPDIR/v3.xml: not a valid hwloc topology; hwloc says: v3.xml: cannot import XML version 3.0 > 2" ]
}

@test "golden topo on bare-metal POWER8 with HCAs on their own host bridges: not a VM" {
	run "$GOLDEN" topo --topology "$FX/power8-ib/topo.xml" --sysroot "$FX/power8-ib/root"
	[ "$status" -eq 0 ]
	! grep -qi 'flat\|hypervisor' <<<"$output"
	# Each GPU's nearest HCA is on its own socket.
	grep -qE '^  0 +0002:01:00.0 +Tesla P100 SXM2 +0 +mlx5_1 PHB$' <<<"$output"
	grep -qE '^  2 +000a:01:00.0 +Tesla P100 SXM2 +1 +mlx5_2 PHB$' <<<"$output"
	run "$GOLDEN" topo --topology "$FX/power8-ib/topo.xml" --sysroot "$FX/power8-ib/root" --format json
	[ "$(json 'd["pcie_flat"]' <<<"$output")" = False ]
	run "$GOLDEN" topo --topology "$FX/vm-flat/topo.xml" --sysroot "$FX/vm-flat/root" --format json
	[ "$(json 'd["pcie_flat"]' <<<"$output")" = True ]
}
