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
	[[ "$output" == *"expected env, topo, recipe, check, teardown, status, nccl-topo, topology, active, sweep, report or drill"* ]]
}

@test "the golden-watch systemd unit verifies and stays hardened (exposure <= 3.0)" {
	command -v systemd-analyze >/dev/null || skip "no systemd-analyze"
	unit="$BATS_TEST_TMPDIR/golden-watch.service"
	# Generated with configure's sbindir, never a hard-coded /usr/local.
	sbindir=$(sed -n 's/^sbindir = //p' "$GOLDEN_BUILDDIR/Makefile")
	prefix=$(sed -n 's/^prefix = //p' "$GOLDEN_BUILDDIR/Makefile")
	sbindir=${sbindir/\$\{exec_prefix\}/$prefix}
	grep -qx "ExecStart=$sbindir/golden-watch" "$GOLDEN_BUILDDIR/contrib/golden-watch.service"
	# verify wants ExecStart to exist: point it at the build.
	sed "s|^ExecStart=.*|ExecStart=$GOLDEN_BUILDDIR/watch/golden-watch|" \
		"$GOLDEN_BUILDDIR/contrib/golden-watch.service" >"$unit"
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

# golden status over state files that hold values of the wrong type (an old
# version's crash mid-write, an operator's edit): every one is "unknown" (?)
# or skipped; before, a null "node" in the log and a watch.json that is not
# an object crashed it.
@test "golden status reads damaged state and log files as unknown, never crashes" {
	d="$BATS_TEST_TMPDIR"
	mkdir -m 0700 "$d/state"
	printf 'state_dir = %s/state\nlog = %s/health.jsonl\nscontrol = /bin/false\n' "$d" "$d" >"$d/golden.conf"
	chmod 0644 "$d/golden.conf"
	echo '{"hold":{"class":null,"reason":7,"check":null,"detail":[],"time":"x","applied":"yes","attempts":"3"},
	       "episodes":[null,5,{"time":-9223372036854775808,"key":null}],
	       "history":[{"time":9223372036854775807,"event":null,"text":[]},{"time":"1","event":"drained","text":"t"}],
	       "drains":{"xid":"many"},"resumes":[],"left_foreign":null}' >"$d/state/lifecycle.json"
	echo '{"pid":"abc","records":null,"missed":{},"lag_s":"1.5","lag_max_s":2.5,"running":true}' >"$d/state/watch.json"
	printf '%s\n' '{"node":null,"time":"2025-01-01"}' '{"node":5}' '[1]' 'null' '"n1"' \
		'{"node":"n1","time":null,"phase":7,"result":null,"reason":5,"resume":null}' >"$d/health.jsonl"
	chmod 0600 "$d/state/"*
	run "$GOLDEN" status --config "$d/golden.conf" --node n1
	echo "$output"
	[ "$status" -eq 1 ] # a hold, of unknown class: held as the strictest
	[[ "$output" == *"class: reboot"* ]]
	[[ "$output" == *"golden-watch: NOT running, ? records, ? lost to overrun, lag 1.5 s (max 2.5)"* ]]
	[[ "$output" == *"    ? 7           ?   "* ]]
	[[ "$output" == *"- drained    t"* ]]
	run "$GOLDEN" status --config "$d/golden.conf" --node n1 --json
	[ "$status" -eq 1 ]
	python3 -c 'import json,sys; j=json.load(sys.stdin); assert len(j["runs"]) == 1 and j["watch"]["running"] is False' <<<"$output"
	# Not a JSON object at all: no state, no crash.
	echo '[1]' >"$d/state/watch.json"
	echo '"text"' >"$d/state/lifecycle.json"
	run "$GOLDEN" status --config "$d/golden.conf" --node n1
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"ledger: $d/state/lifecycle.json unreadable"* ]]
	[[ "$output" == *"golden-watch: never ran here"* ]]
}

@test "golden status does not read state planted through a symlink or a FIFO" {
	d="$BATS_TEST_TMPDIR"
	mkdir -m 0700 "$d/elsewhere" "$d/real"
	echo '{"hold":{"class":"transient","reason":"planted"}}' >"$d/elsewhere/lifecycle.json"
	ln -s "$d/elsewhere" "$d/state"
	mkfifo "$d/real/watch.json" "$d/health.jsonl"
	printf 'state_dir = %s/state\nlog = %s/health.jsonl\nscontrol = /bin/false\n' "$d" "$d" >"$d/golden.conf"
	chmod 0644 "$d/golden.conf"
	run timeout 60 "$GOLDEN" status --config "$d/golden.conf" --node n1
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" != *planted* ]]
	[[ "$output" == *"ledger: $d/state/lifecycle.json unreadable"* ]]
	sed -i "s|/state|/real|" "$d/golden.conf"
	run timeout 60 "$GOLDEN" status --config "$d/golden.conf" --node n1
	[ "$status" -eq 0 ]
	[[ "$output" == *"golden-watch: never ran here"* ]]
}

@test "every program answers --version and --help with its own name and text" {
	version=$(sed -n 's/^AC_INIT(\[slurm-golden\], \[\([^]]*\)\].*/\1/p' "$GOLDEN_SRCDIR/configure.ac")
	[ -n "$version" ]
	for p in cli/golden prolog/golden-prolog epilog/golden-epilog watch/golden-watch \
		healthcheck/golden-healthcheck; do
		name=${p#*/}
		run "$GOLDEN_BUILDDIR/$p" --version
		[ "$status" -eq 0 ] || { echo "$name --version: $output"; false; }
		[ "$output" = "$name (slurm-golden) $version" ]
		run "$GOLDEN_BUILDDIR/$p" --help
		[ "$status" -eq 0 ] || { echo "$name --help: $output"; false; }
		[[ "${lines[0]}" == "Usage: "*"$name"* ]]
	done
	run "$GOLDEN_BUILDDIR/prolog/golden-prolog" --help
	[[ "$output" == *"Slurm's Prolog= program"* && "$output" != *Epilog=* ]]
	run "$GOLDEN_BUILDDIR/epilog/golden-epilog" --help
	[[ "$output" == *"Slurm's Epilog= program"* && "$output" != *Prolog=* ]]
	run "$GOLDEN_BUILDDIR/healthcheck/golden-healthcheck" --help
	[[ "$output" == *"HealthCheckProgram"* ]]
}

@test "golden with an unknown command names every command golden --help lists" {
	run "$GOLDEN" frobnicate
	[ "$status" -eq 2 ]
	msg=$output
	run "$GOLDEN" --help
	cmds=$(sed -n '/^Commands:/,/^$/s/^  \([a-z-]*\) .*/\1/p' <<<"$output")
	[ "$(wc -w <<<"$cmds")" -ge 7 ]
	for c in $cmds; do
		[[ "$msg" == *" $c"[,\ ]* ]] || { echo "'$c' missing from: $msg"; false; }
	done
}

@test "every option golden --help documents for a command is accepted by that command" {
	run "$GOLDEN" --help
	[ "$status" -eq 0 ]
	# "Options of env, topo, recipe and check:" then "  --opt ARG ..." lines.
	pairs=$(awk '/^Options of / { sub(/^Options of /, ""); sub(/:$/, ""); gsub(/,| and /, " ");
			cmds = $0; next }
		/^  --/ && cmds != "" { split(cmds, c, " "); for (i in c) if (c[i] != "") print c[i], $1; next }
		{ cmds = "" }' <<<"$output")
	[ "$(wc -l <<<"$pairs")" -ge 8 ]
	while read -r cmd opt; do
		sub=$cmd
		[ "$cmd" = recipe ] && sub="recipe list"
		# --help after the option: parsing stops there, so only "accepted?" is tested.
		run $GOLDEN $sub "$opt" /nonexistent --help
		[ "$status" -eq 0 ] || { echo "golden $sub $opt: $output"; false; }
	done <<<"$pairs"
	run "$GOLDEN" topo --recipes /x
	[ "$status" -eq 2 ]
	[[ "$output" == *"--recipes does not apply to 'topo'"* ]]
}

@test "golden run from the build tree reads the source tree's recipes; a copy elsewhere the installed ones" {
	unset GOLDEN_RECIPES
	run "$GOLDEN" recipe list --topology "$FX/hgx-h100-ib/topo.xml" --sysroot "$FX/hgx-h100-ib/root"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	grep -q '^hgx-h100-h200-ib .* yes' <<<"$output"
	run "$GOLDEN" --help
	[[ "$output" == *"recipe directory [$GOLDEN_SRCDIR/recipes]"* ]]
	cp "$GOLDEN" "$BATS_TEST_TMPDIR/golden"
	run "$BATS_TEST_TMPDIR/golden" --help
	[[ "$output" == *"recipe directory [$GOLDEN_PKGDATADIR/recipes]"* ]]
}

@test "a broken golden.conf: by hand exit 2 with FILE:LINE; as prolog/epilog no check runs, nothing drains, exit 0, logged" {
	conf="$BATS_TEST_TMPDIR/golden.conf"
	log="$BATS_TEST_TMPDIR/log/n1.jsonl"
	printf 'gpus = 8\nib_rat = 400\nlog = %s/log/%%n.jsonl\n' "$BATS_TEST_TMPDIR" >"$conf"
	chmod 0644 "$conf"
	where="$conf:2: unknown key 'ib_rat'"
	run "$GOLDEN" check --config "$conf" --node n1
	[ "$status" -eq 2 ]
	[[ "$output" == "golden check: $where"* ]]
	[ ! -e "$log" ]
	# --no-drain: even a mistake here must not reach a real scontrol.
	for p in prolog epilog; do
		run "$GOLDEN_BUILDDIR/$p/golden-$p" --config "$conf" --node n1 --no-drain
		[ "$status" -eq 0 ] || { echo "golden-$p: $output"; false; }
		[[ "$output" == *"$where"*"golden.conf is broken: no checks ran, nothing drained; the job runs" ]]
	done
	run "$GOLDEN" check --healthcheck --config "$conf" --node n1 --no-drain
	[ "$status" -eq 2 ]
	[[ "$output" == *"$where"*"golden.conf is broken: no checks ran, nothing drained" ]]
	run python3 -c 'import json,sys
recs=[json.loads(l) for l in open(sys.argv[1])]
assert [r["phase"] for r in recs]==["prolog","epilog","healthcheck"], recs
for r in recs:
    assert r["result"]=="config-error" and r["checks"]==[] and sys.argv[2] in r["config_error"], r' \
		"$log" "$where"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	run "$GOLDEN_BUILDDIR/watch/golden-watch" --config "$conf" --once --kmsg /dev/null
	[ "$status" -eq 2 ]
	[[ "$output" == *"$where"* ]]
}

@test "install-deps.sh stops only the daemons its own install started, unless --stop-services" {
	[ "$(id -u)" -eq 0 ] || skip "install-deps.sh runs as root"
	# Doubles for apt-get and systemctl: a state directory says what runs.
	fake="$BATS_TEST_TMPDIR/bin"
	state="$BATS_TEST_TMPDIR/active"
	mkdir -p "$fake" "$state"
	cat >"$fake/systemctl" <<-EOS
	#!/bin/sh
	case "\$1" in
	is-active) [ -e "$state/\$3" ] ;;
	stop) rm -f "$state/\$2"; echo "\$2" >>"$BATS_TEST_TMPDIR/stopped" ;;
	*) exit 1 ;;
	esac
	EOS
	# Installing the packages starts munge, as Debian's postinst does.
	cat >"$fake/apt-get" <<-EOS
	#!/bin/sh
	[ "\$1" = install ] || [ "\$1" = update ] || exit 1
	[ "\$1" = install ] && touch "$state/munge"
	exit 0
	EOS
	chmod 0755 "$fake/systemctl" "$fake/apt-get"
	# slurmd was running before: somebody's, left alone.
	touch "$state/slurmd"
	PATH="$fake:$PATH" run "$GOLDEN_SRCDIR/contrib/install-deps.sh"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ "$output" == *"already running here: slurmd; leaving them alone"* ]]
	[ "$(cat "$BATS_TEST_TMPDIR/stopped")" = munge ]
	[ -e "$state/slurmd" ]
	# With the flag, it is stopped too.
	rm -f "$BATS_TEST_TMPDIR/stopped"
	PATH="$fake:$PATH" run "$GOLDEN_SRCDIR/contrib/install-deps.sh" --stop-services
	[ "$status" -eq 0 ]
	[ ! -e "$state/slurmd" ]
	grep -qx slurmd "$BATS_TEST_TMPDIR/stopped"
	run "$GOLDEN_SRCDIR/contrib/install-deps.sh" --stop-everything
	[ "$status" -eq 2 ]
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
	v=$(hwloc-info --version | awk '{ print $2 }')
	if [[ $(printf '%s\n' 2.12 "$v" | sort -V | head -1) == 2.12 ]]; then
		# hwloc 2.12+ (Debian 13, the Slurm matrix) imports 3.0 exports
		[ "$status" -eq 0 ]
		[[ "$output" == *"Tesla P100"* ]]
	else
		[ "$status" -eq 1 ]
		[ "$output" = "golden topo: hwloc XML $BATS_TEST_TMPDIR/v3.xml: not a valid hwloc topology; hwloc says: v3.xml: cannot import XML version 3.0 > 2" ]
	fi
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
	grep -q '^slurm_golden_active_last_outcome{node="x1",outcome="pass"} 1$' "$A/metrics/x1/slurm_golden_active.prom"
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

# --- what configure and make leave behind (issue 12, a first-time admin)

@test "configure's summary shows real paths, no \${libdir} or other variable left unexpanded" {
	log=$GOLDEN_BUILDDIR/config.log
	[ -r "$log" ] || skip "no config.log in the build tree"
	# AC_MSG_RESULT copies the summary into config.log too.
	summary=$(sed -n '/^slurm-golden [0-9]/,/fuzzing (tests):/p' "$log")
	[ -n "$summary" ]
	[[ "$summary" == *"SPANK plugin:    /"*"/golden_nccl.so"* ]]
	[[ "$summary" == *"recipes:         /"* ]]
	[[ "$summary" != *'${'* ]]
}

@test "runstatedir: /run unless configure got --runstatedir (the cache and teardown_dir the docs name)" {
	log=$GOLDEN_BUILDDIR/config.log
	[ -r "$log" ] || skip "no config.log in the build tree"
	want=/run
	given=$(sed -n 's/^  \$ .*--runstatedir=\([^ ]*\).*/\1/p' "$log" | head -1)
	[ -z "$given" ] || want=$given
	printf '' >"$BATS_TEST_TMPDIR/empty.conf"
	run "$GOLDEN" check --explain-config --config "$BATS_TEST_TMPDIR/empty.conf"
	[ "$status" -eq 0 ]
	[[ "$output" == *"teardown_dir = $want/slurm-golden/teardown"* ]]
}

@test "make in the source tree leaves nothing untracked: nccl-topo/*.xml and t/hung-fs/hungfs are ignored" {
	git -C "$GOLDEN_SRCDIR" rev-parse --git-dir >/dev/null 2>&1 || skip "not a git checkout"
	git -C "$GOLDEN_SRCDIR" check-ignore -q nccl-topo/h100-8gpu.xml
	git -C "$GOLDEN_SRCDIR" check-ignore -q t/hung-fs/hungfs
	git -C "$GOLDEN_SRCDIR" check-ignore -q cli/golden
}

@test "the release tarball can hold every fixture: each t/fixtures entry is distributed, no name too long for its tar format" {
	git -C "$GOLDEN_SRCDIR" rev-parse --git-dir >/dev/null 2>&1 || skip "not a git checkout"
	cd "$GOLDEN_SRCDIR"
	missing=$(git ls-files t/fixtures | cut -d/ -f1-3 | sort -u | while read -r d; do
		grep -qE -- "(^|[[:space:]])$d([[:space:]]|\$)" Makefile.am || echo "$d"
	done)
	[ -z "$missing" ] || { echo "not in EXTRA_DIST: $missing"; false; }
	# automake's default tar format (v7) drops names over 99 characters
	# with only a warning; ustar and pax hold them.
	if ! grep -qE 'AM_INIT_AUTOMAKE\(\[[^]]*tar-(pax|ustar)' configure.ac; then
		prefix=$(sed -n 's/^AC_INIT(\[\([^]]*\)\], \[\([^]]*\)\].*/\1-\2/p' configure.ac)
		long=$(git ls-files | awk -v p="$prefix/" 'length(p $0) > 99')
		[ -z "$long" ] || { echo "too long for tar v7: $long"; false; }
	fi
}

@test "golden drill: bad usage is refused with a usable message, and a report of no drills is empty" {
	run "$GOLDEN" drill
	[ "$status" -eq 2 ]
	[[ "$output" == *"expected run or report"* ]]
	run "$GOLDEN" drill run --xid many
	[ "$status" -eq 2 ]
	[[ "$output" == *"--xid many: expected an XID number"* ]]
	run "$GOLDEN" drill run --timeout 1
	[ "$status" -eq 2 ]
	[[ "$output" == *"--timeout 1: expected 5-86400 seconds"* ]]
	d="$BATS_TEST_TMPDIR"
	printf 'state_dir = %s/state\nscontrol = /bin/false\ndrill_detect_ms = 900\n' "$d" >"$d/golden.conf"
	chmod 0644 "$d/golden.conf"
	run "$GOLDEN" drill report --config "$d/golden.conf" --node n1
	[ "$status" -eq 0 ]
	[[ "$output" == *"drills on n1 (targets: detect <= 900 ms, drain <= 5000 ms, return <= 600 s"* ]]
	[[ "$output" == *"none yet"* ]]
	# A drill whose node never drained, as golden drill run records it.
	mkdir -m 0700 -p "$d/state"
	cat >"$d/state/drills.json" <<-'EOJ'
	{"document":"golden-drills","schema":1,"drills":[
	 {"id":"20261204T100000-n1","node":"n1","kind":"xid","what":"xid79 gpu0 0000:3b:00.0","check":"xid",
	  "state":"done","return":"manual","injected_ms":1796300000000,"detected_ms":0,"drained_ms":0,
	  "passed":false,"verdict":"never detected; NEVER DRAINED","job_kept":-1,"probe":-1},
	 {"id":"20261204T110000-n1","node":"n1","kind":"xid","what":"xid48 gpu1 0000:3c:00.0","check":"xid",
	  "state":"done","return":"auto","injected_ms":1796300000000,"detected_ms":1796300000040,
	  "drained_ms":1796300000060,"returned_ms":1796300003000,"passed":true,"verdict":"pass",
	  "job_kept":-1,"probe":1}]}
	EOJ
	chmod 0600 "$d/state/drills.json"
	run "$GOLDEN" drill report --config "$d/golden.conf" --node n1
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"20261204T100000-n1"*"FAIL: never detected; NEVER DRAINED"* ]]
	[[ "$output" == *"20261204T110000-n1"*"40 ms"*"60 ms"*"3000 ms"*"pass"* ]]
	[[ "$output" == *"FAILED DRILL 20261204T100000-n1: n1 never drained after the injected fault (xid79 gpu0 0000:3b:00.0)"* ]]
	run "$GOLDEN" drill report --config "$d/golden.conf" --node n1 --json
	[ "$status" -eq 1 ]
	python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["document"]=="golden-drill-report" and d["failed"]==1 and d["drills"][1]["drain_ms"]==60 and d["drills"][0]["drain_ms"] is None, d' <<<"$output"
}
