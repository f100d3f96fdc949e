#!/usr/bin/env bats
# The blast-radius guard at scale on one host: 32 slurmd, golden check
# --healthcheck as their HealthCheckProgram. A storage outage hits every node
# at once: each node's storage mount (its own directory, listed in the
# nodes' mount table) becomes a real hung FUSE mount (t/hung-fs/hungfs,
# statfs never answers, as a dead NFS/Lustre server), so every node's mounts
# check times out; golden drains at most the guard's threshold and holds the
# rest back as a suspected shared cause; a GPU that falls off the bus during
# the outage still drains its node; when the storage is back (the hung
# filesystems gone), every drain golden took for it ends through the normal
# health check.

GOLDEN_PORT_SLOT=64 # 32 slurmd and slurmctld do not fit the default 32 ports
load ../lib/common

NODES=32
GUARD=4

setup_file() {
	golden_require_root
	[[ -x $GOLDEN_BUILDDIR/t/hung-fs/hungfs ]] || skip "hungfs not built (no libfuse3-dev)"
	[[ -c /dev/fuse ]] || skip "no /dev/fuse"
	export WORK="$BATS_FILE_TMPDIR/work"
	fx="$GOLDEN_BUILDDIR/t/fixtures/out"
	mkdir -p "$WORK/nvml" "$WORK/metrics"
	# Each node's storage mount point: STORAGE/nN.
	STORAGE=$(mktemp -d /tmp/golden-guard.XXXXXX)
	export STORAGE
	for i in $(seq 1 $NODES); do
		mkdir "$STORAGE/n$i"
	done
	cp -a "$fx/hgx-h100-ib/root" "$WORK/root"
	mkdir -p "$WORK/root/proc/self"
	storage_up
	for i in $(seq 1 $NODES); do
		cp "$GOLDEN_SRCDIR/t/fixtures/nvml/healthy-8gpu.json" "$WORK/nvml/n$i.json"
	done
	cat >"$WORK/golden.conf" <<-EOC
	topology = $fx/hgx-h100-ib/topo.xml
	sysroot = $WORK/root
	state_dir = $WORK/state/%n
	log = $WORK/log/%n.jsonl
	metrics_dir = $WORK/metrics/%n
	scontrol = $(command -v scontrol)
	xid_scope = node-gpus
	budget_ms = 40000
	gpus = 8
EOC
	# 32 nodes' checks run at once on the test host: only the two this file
	# is about (a GPU missing, the shared mount); the rest are other files'.
	for c in ib-ports ib-counters efa bootstrap gpudirect gpu-ecc gpu-remap gpu-pcie \
		gpu-nvlink gpu-throttle gpu-fabric gpu-procs gpu-recovery xid wb-stall wb-exposure \
		teardown; do
		printf 'check.%s = off\n' "$c"
	done >>"$WORK/golden.conf"
	cat >>"$WORK/golden.conf" <<-EOC
	check.mounts.deadline_ms = 1500
	guard_nodes = $GUARD
	guard_fraction = 0.1
	guard_window = 900
	EOC
	# Each node checks its own mount (mount lines add up per section).
	for i in $(seq 1 $NODES); do
		printf '[nodes n%s]\nmount = %s/n%s\n' "$i" "$STORAGE" "$i"
	done >>"$WORK/golden.conf"
	chmod 0644 "$WORK/golden.conf"
	golden_cluster_prepare
	golden_healthcheck_script "$WORK"
	golden_cluster_start --nodes $NODES \
		--conf-extra "HealthCheckProgram=$WORK/healthcheck" \
		--conf-extra HealthCheckInterval=65535 \
		--conf-extra HealthCheckNodeState=ANY
}

teardown_file() {
	storage_up
	golden_cluster_stop
	if [[ -n ${STORAGE:-} && -d $STORAGE ]]; then
		rmdir "$STORAGE"/n* "$STORAGE"
	fi
}

teardown() {
	golden_dump_logs_on_failure
}

# The nodes' mount table lists every node's storage mount, up or hung (a
# hung NFS mount stays in the table).
mount_table() {
	local i
	printf 'rootfs / rootfs rw 0 0\n'
	for i in $(seq 1 $NODES); do
		printf 'storage:/export/n%s %s/n%s nfs4 rw,relatime 0 0\n' "$i" "$STORAGE" "$i"
	done
}

# The storage answers: no hung filesystem left (only SIGKILL ends one: its
# statfs never returns), the mount points plain directories again.
storage_up() {
	local i pid
	mount_table >"$WORK/root/proc/self/mounts"
	for i in $(seq 1 $NODES); do
		pid=$(cat "$WORK/hungfs-n$i.pid" 2>/dev/null) || continue
		kill -9 "$pid" 2>/dev/null || true
		rm -f "$WORK/hungfs-n$i.pid"
	done
	for i in $(seq 1 $NODES); do
		if grep -q " $STORAGE/n$i " /proc/mounts; then
			umount -l "$STORAGE/n$i" 2>/dev/null || true
		fi
	done
}

# The outage: every node's storage mount hangs, a real FUSE mount each.
storage_down() {
	local i n
	# Not this shell's children: hc_all's wait must not wait for them.
	for i in $(seq 1 $NODES); do
		("$GOLDEN_BUILDDIR/t/hung-fs/hungfs" "$STORAGE/n$i" >/dev/null 2>&1 3>&- &
			echo $! >"$WORK/hungfs-n$i.pid")
	done
	for _ in $(seq 100); do
		n=$(grep -c " $STORAGE/n[0-9]* fuse" /proc/mounts || true)
		((n == NODES)) && return 0
		sleep 0.1
	done
	echo "only $n of $NODES hung mounts appeared" >&2
	return 1
}

# The health check slurmd runs, on node $1, with slurmd's bare environment.
hc() {
	env -i SLURMD_NODENAME="$1" "$WORK/healthcheck" >>"$WORK/hc-$1.out" 2>&1
}

# Every node's health check at the same moment, as HealthCheckInterval does.
hc_all() {
	local i pids=()
	for i in $(seq 1 $NODES); do
		hc "n$i" &
		pids+=($!)
	done
	# A failing health check exits 1: that is what is being tested.
	for i in "${pids[@]}"; do
		wait "$i" || true
	done
}

# Nodes Slurm shows drained for golden's storage reason: the mounts check
# timed out on the hung mount.
storage_drained() {
	sinfo -h -N -o '%N|%T|%E' | awk -F'|' -v m="hc mounts timeout" \
		'$2 ~ /drain/ && index($3, m) == 1 && index($3, "[golden]") { print $1 }' | sort -u
}

@test "healthy storage: all $NODES nodes idle after their health check" {
	hc_all
	[ "$(sinfo -h -N -o '%T' | grep -c '^idle\*\{0,1\}$')" -eq $NODES ]
}

@test "storage outage on every node: at most $GUARD drained, the rest held back as a shared cause" {
	storage_down
	t0=$(date +%s%N)
	hc_all
	t1=$(date +%s%N)
	# A second round: nodes that drained at the same moment settle on the
	# first $GUARD (by Slurm's time, then name).
	hc_all
	t2=$(date +%s%N)
	echo "# $NODES parallel health checks with the guard: $(((t1 - t0) / 1000000)) ms; second round $(((t2 - t1) / 1000000)) ms" >&3
	drained=$(storage_drained)
	echo "drained: $drained"
	n=$(grep -c . <<<"$drained" || true)
	[ "$n" -ge 1 ]
	[ "$n" -le $GUARD ]
	# Every other node is in service, with the guard's decision recorded.
	[ "$(sinfo -h -N -o '%T' | grep -c '^idle\*\{0,1\}$')" -eq $((NODES - n)) ]
	suppressed=0
	for i in $(seq 1 $NODES); do
		grep -q "^n$i\$" <<<"$drained" && continue
		v=$(awk '/^slurm_golden_guard_suppressed_total/ { print $2 }' \
			"$WORK/metrics/n$i/slurm_golden_lifecycle.prom")
		[ "${v:-0}" -ge 1 ] && suppressed=$((suppressed + 1))
	done
	echo "suppressed on $suppressed nodes"
	[ "$suppressed" -eq $((NODES - n)) ]
	# golden status says why a held-back node is in service.
	first=$(comm -23 <(printf 'n%s\n' $(seq 1 $NODES) | sort) <(printf '%s\n' "$drained") | head -1)
	run env GOLDEN_CONF=$WORK/golden.conf "$GOLDEN_BUILDDIR/cli/golden" status --node "$first"
	echo "$output"
	[[ "$output" == *"suspected shared cause"* ]]
	echo "$drained" >"$WORK/drained"
}

@test "a GPU falling off the bus during the outage still drains its node" {
	victim=$(comm -23 <(printf 'n%s\n' $(seq 1 $NODES) | sort) <(sort "$WORK/drained") | tail -1)
	echo "$victim" >"$WORK/victim"
	cp "$GOLDEN_SRCDIR/t/fixtures/nvml/gpu-lost.json" "$WORK/nvml/$victim.json"
	hc "$victim" || true # a failing health check exits non-zero
	run golden_node_reason "$victim"
	echo "$victim: $output"
	[[ "$output" == *"[golden]"* ]]
	[[ "$output" != "hc mounts timeout"* ]]
	[[ $(golden_node_state "$victim") == *DRAIN* ]]
}

@test "the storage is back: every drain golden took for it ends through the health check" {
	storage_up
	hc_all
	[ -z "$(storage_drained)" ]
	victim=$(cat "$WORK/victim")
	# Not drained any more; a slurmd slow to answer on a loaded host ("idle*",
	# IDLE+NOT_RESPONDING) is not golden's business.
	for n in $(cat "$WORK/drained"); do
		[[ "$(golden_node_state "$n")" == IDLE* ]]
	done
	# The GPU fault is the node's own: it stays drained.
	[[ $(golden_node_state "$victim") == *DRAIN* ]]
	[ "$(sinfo -h -N -o '%T' | grep -c '^idle\*\{0,1\}$')" -eq $((NODES - 1)) ]
}
