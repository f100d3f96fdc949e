#!/usr/bin/env bats
# golden drill on a real local cluster: the driver's own XID line written
# into the host's /dev/kmsg for one GPU of one node, and golden's production
# path (golden-watch, HealthCheckProgram, lifecycle) measured by the drill:
# detect, drain, the probe job kept off the node, the running job left
# alone, and with --return auto the node back in service without a reboot.
# A drill whose node never drains is a FAILED DRILL; a drill that must not
# run (drained node, golden holding a drain, not root, an application XID)
# injects nothing. --fault rail-down takes a compute rail's port down in the
# node's sysroot, --fault mount-hang mounts a filesystem whose statfs never
# answers on drill_mount (a real FUSE mount on this host): the health check
# catches both, the drill takes its fault away and the node returns; with
# the blast-radius guard holding the drain back the drill says so.
#
# Node k's GPUs live in PCI domain 06k1..06k4 (lifecycle.bats uses 00k_,
# active.bats 04k_), so every XID in the shared kernel log has one owner.

load ../lib/common

setup_file() {
	golden_require_root
	golden_kmsg_lock
	export WORK="$BATS_FILE_TMPDIR/work"
	mkdir -p "$WORK/nvml" "$WORK/metrics"
	golden_gpu_nodes "$WORK" 3 0x600 0x700
	golden_gpu_conf "$WORK" >"$WORK/golden.conf"
	cat >>"$WORK/golden.conf" <<-EOC
	flap_count = 0
	check.wb-exposure.deadline_ms = 5000
	check.wb-stall.deadline_ms = 5000
	check.mounts.deadline_ms = 1000
	drill_mount = $WORK/drill-mnt
	EOC
	mkdir -p "$WORK/drill-mnt"
	chmod 0644 "$WORK/golden.conf"
	golden_cluster_prepare
	golden_healthcheck_script "$WORK"
	golden_acknowledge_kmsg "$WORK/golden.conf" n1 n2 n3
	golden_cluster_start --nodes 3 --cred-expire 10 \
		--conf-extra "HealthCheckProgram=$WORK/healthcheck" \
		--conf-extra HealthCheckInterval=65535 \
		--conf-extra HealthCheckNodeState=ANY
	# golden-watch on n1 and n3, as the systemd unit would run it; n2 has
	# none: its drills find out what a node without it does.
	for n in n1 n3; do
		watch_start "$n"
	done
}

teardown_file() {
	# a drill killed mid-way would leave its mount: never leave one behind
	umount -l "$WORK/drill-mnt" 2>/dev/null || true
	for n in n1 n3; do
		watch_stop "$n"
	done
	golden_cluster_stop
	golden_kmsg_unlock
}

teardown() {
	golden_dump_logs_on_failure
}

watch_start() { golden_watch_start "$WORK" "$1"; }
watch_stop() { golden_watch_stop "$WORK" "$1"; }

golden() {
	GOLDEN_CONF=$WORK/golden.conf LD_LIBRARY_PATH=$GOLDEN_BUILDDIR/t/fake-nvml/.libs \
		FAKE_NVML_STATE=$WORK/nvml/${NODE:-n1}.json "$GOLDEN_BUILDDIR/cli/golden" "$@"
}

hc() {
	SLURMD_NODENAME=$1 env -i SLURMD_NODENAME="$1" "$WORK/healthcheck"
}

# drained_as REASON_PREFIX: the drill's output says Slurm shows the node
# drained for REASON_PREFIX. Slurm 26.05 marks a node it has just resumed as
# not responding until its next ping (slurmctld logs "Node nX now
# responding" half a second after the resume), so a drill that follows a
# resume may see IDLE+DRAIN+NOT_RESPONDING: the same drain, and Slurm's words.
drained_as() {
	[[ $output == *"drained: Slurm shows IDLE+DRAIN '$1"* ||
		$output == *"drained: Slurm shows IDLE+DRAIN+NOT_RESPONDING '$1"* ]]
}

# The NVRM lines in the kernel log for node k's GPUs (domain 06k_).
xid_lines() {
	dmesg | grep -c "NVRM: Xid (PCI:06$1" || true
}

# An admin puts NODE back after a drill that left it drained; the next
# health check sees golden's drain is gone and lets go of it.
admin_resume() {
	scontrol update NodeName="$1" State=RESUME
	hc "$1" || true
	golden_wait_node_state "$1" '^IDLE' 30
	[[ "$(golden_node_state "$1")" != *DRAIN* ]]
	run golden status --node "$1"
	[[ "$output" != *"golden holds"* ]]
}

@test "drill --return auto: golden-watch detects and drains in milliseconds, a new job is kept off, the health check returns the node" {
	before=$(xid_lines 1)
	NODE=n1 run golden drill run --node n1 --return auto --validate-now --timeout 120
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"NVRM: Xid (PCI:0611:00:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."* ]]
	[[ "$output" == *"detected: golden decided 'gpu0 xid79 offbus; reboot [golden]'"*"(watch)"* ]]
	drained_as "gpu0 xid79 offbus; reboot [golden]'"
	[[ "$output" == *"a new job asking for n1: refused"* ]]
	[[ "$output" == *"returned: Slurm shows IDLE"* ]]
	[[ "${lines[-1]}" == "drill "*"-n1: pass" ]]
	# Exactly one line went into the kernel log, for n1's GPU 0.
	[ "$(xid_lines 1)" -eq $((before + 1)) ]
	# In service: no DRAIN (a loaded host may add NOT_RESPONDING for a moment).
	[[ "$(golden_node_state n1)" =~ ^IDLE && "$(golden_node_state n1)" != *DRAIN* ]]
	# The record: three times, passed, with the kernel log sequence number.
	python3 - "$WORK/state/n1/drills.json" <<-'EOP'
	import json, sys
	d = json.load(open(sys.argv[1]))
	assert d["document"] == "golden-drills", d
	r = d["drills"][-1]
	assert r["state"] == "done" and r["passed"] is True, r
	assert r["injected_ms"] <= r["detected_ms"] <= r["drained_ms"] <= r["returned_ms"], r
	assert int(r["seq"]) > int(r["seq_before"]), r
	assert r["probe"] == 1 and r["job_kept"] == -1, r
	EOP
	NODE=n1 run golden drill report --node n1
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"xid79 gpu0 0611:00:00.0"*" ms"*"pass"* ]]
	NODE=n1 run golden drill report --node n1 --json
	python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["document"]=="golden-drill-report" and d["failed"]==0 and d["drills"][-1]["passed"], d' <<<"$output"
}

@test "after a drill the kernel-log cursors are intact: a real XID on another GPU drains once and is not cleared as a drill" {
	kmsg_line="NVRM: Xid (PCI:0612:00:00): 79, pid=4242, name=python3, GPU has fallen off the bus."
	printf '%s\n' "$kmsg_line" >/dev/kmsg
	golden_wait_node_state n1 DRAIN 30
	[ "$(golden_node_reason n1)" = "gpu1 xid79 offbus; reboot [golden]" ]
	# A real fault of the reboot class: a passing health check does not end it.
	hc n1 || true
	[ "$(golden_node_reason n1)" = "gpu1 xid79 offbus; reboot [golden]" ]
	run golden status --node n1
	[[ "$output" == *"a reboot (boot id still"* ]]
	# And a drill refuses to run while golden holds it.
	before=$(xid_lines 1)
	NODE=n1 run golden drill run --node n1
	[ "$status" -eq 1 ]
	[[ "$output" == *"not run: n1 is IDLE+DRAIN"*" (gpu1 xid79 offbus; reboot [golden])"* ]]
	[ "$(xid_lines 1)" -eq "$before" ]
	admin_resume n1
}

@test "drill --return manual with a job running (--allow-busy): the ordinary user's job keeps running, the node stays drained" {
	u=$(golden_test_user)
	job=$(cd /tmp && runuser -u "$u" -- sbatch --parsable -w n3 -t 5 --wrap 'sleep 300')
	golden_wait_node_state n3 'ALLOC|MIXED' 30
	NODE=n3 run golden drill run --node n3
	[ "$status" -eq 1 ]
	[[ "$output" == *"n3 is running a job"*"--allow-busy"* ]]
	NODE=n3 run golden drill run --node n3 --allow-busy --gpu 2 --xid 48 --timeout 60
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"NVRM: Xid (PCI:0633:00:00): 48, pid='<unknown>', name=<unknown>, Double Bit ECC Error."* ]]
	[[ "$output" == *"running job(s) $job: still running after the drain"* ]]
	[[ "$output" == *"--return manual: n3 stays drained"* ]]
	[[ "$(golden_node_state n3)" == *DRAIN* ]]
	[ "$(golden_node_reason n3)" = "gpu2 xid48 dbe; gpu-reset [golden]" ]
	[ "$(golden_job_state "$job")" = RUNNING ]
	scancel "$job"
	golden_wait_job "$job" >/dev/null
	admin_resume n3
}

@test "a node without golden-watch never drains within the drill's time: FAILED DRILL, reported loudly" {
	NODE=n2 run golden drill run --node n2 --no-probe --timeout 5
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "${lines[-1]}" == "FAILED DRILL: drill "*"-n2: FAIL: never detected; NEVER DRAINED" ]]
	NODE=n2 run golden drill report --node n2
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"FAILED DRILL "*"-n2: n2 never drained after the injected fault (xid79 gpu0 0621:00:00.0)"* ]]
	# The fault was real to golden all along: the next health check drains it.
	hc n2 || true
	[ "$(golden_node_reason n2)" = "gpu0 xid79 offbus; reboot [golden]" ]
	admin_resume n2
}

@test "refused before anything is injected: an application XID, a GPU the node lacks, an ordinary user" {
	before=$(xid_lines 1)
	NODE=n1 run golden drill run --node n1 --xid 13
	[ "$status" -eq 1 ]
	[[ "$output" == *"XID 13: golden does not drain for it"* ]]
	NODE=n1 run golden drill run --node n1 --gpu 7
	[ "$status" -eq 1 ]
	[[ "$output" == *"--gpu 7: n1 has 4 GPU(s) (0-3)"* ]]
	u=$(golden_test_user)
	run runuser -u "$u" -- env GOLDEN_CONF="$WORK/golden.conf" "$GOLDEN_BUILDDIR/cli/golden" drill run --node n1
	[ "$status" -eq 1 ]
	[[ "$output" == *"must run as root"* ]]
	NODE=n1 run golden drill run --node n1 --return later
	[ "$status" -eq 2 ]
	[[ "$output" == *"--return later: expected auto or manual"* ]]
	[ "$(xid_lines 1)" -eq "$before" ]
}

# The port files of node $1's rail $2 (port 1), as the ib-ports check reads them.
port_files() {
	cat "$WORK/nodes/$1/root/sys/class/infiniband/$2/ports/1/state" \
		"$WORK/nodes/$1/root/sys/class/infiniband/$2/ports/1/phys_state"
}

drills_n() {
	python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["drills"]))' "$WORK/state/$1/drills.json" 2>/dev/null || echo 0
}

@test "drill --fault rail-down --return auto: the health check sees the port down, drains, the port comes back, the node returns" {
	before=$(port_files n1 mlx5_0)
	[[ "$before" == *"4: ACTIVE"*"5: LinkUp"* ]]
	NODE=n1 run golden drill run --node n1 --fault rail-down --return auto --validate-now --timeout 120
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"staged: rail-down mlx5_0 port 1 (the ib-ports check must catch it)"* ]]
	[[ "$output" == *"detected: golden decided 'mlx5_0 p1 down"*"(healthcheck)"* ]]
	drained_as "mlx5_0 p1 down"
	[[ "$output" == *"a new job asking for n1: refused"* ]]
	[[ "$output" == *"fault taken away: mlx5_0 p1 is as before the drill"* ]]
	[[ "$output" == *"returned: Slurm shows IDLE"* ]]
	[[ "${lines[-1]}" == "drill "*"-n1: pass" ]]
	# The port's files are exactly as they were; the node is in service.
	[ "$(port_files n1 mlx5_0)" = "$before" ]
	[[ "$(golden_node_state n1)" =~ ^IDLE && "$(golden_node_state n1)" != *DRAIN* ]]
	python3 - "$WORK/state/n1/drills.json" <<-'EOP'
	import json, sys
	r = json.load(open(sys.argv[1]))["drills"][-1]
	assert r["kind"] == "rail-down" and r["target"] == "mlx5_0 p1" and r["check"] == "ib-ports", r
	assert r["what"] == "rail-down mlx5_0 port 1", r
	assert r["state"] == "done" and r["passed"] is True and r["guard"] == "", r
	assert r["injected_ms"] <= r["detected_ms"] <= r["drained_ms"] <= r["returned_ms"], r
	assert r["reason"].startswith("mlx5_0 p1 down"), r
	EOP
	NODE=n1 run golden drill report --node n1 --json
	python3 -c 'import json,sys; d=json.load(sys.stdin); r=d["drills"][-1]; assert r["fault"]=="rail-down" and r["target"]=="mlx5_0 p1" and r["passed"] and not r["suppressed_by_guard"], r' <<<"$output"
}

@test "drill --fault refused before anything is staged: a rail the node lacks, the real /sys, no drill_mount, a symlink, the check off, --xid with --fault" {
	before=$(port_files n1 mlx5_0)
	n=$(drills_n n1)
	NODE=n1 run golden drill run --node n1 --fault rail-down --rail mlx5_9
	[ "$status" -eq 1 ]
	[[ "$output" == *"--rail mlx5_9: not a compute rail of this node (mlx5_0, mlx5_1, mlx5_2, mlx5_3)"* ]]
	grep -v '^sysroot' "$WORK/golden.conf" >"$WORK/nosysroot.conf"
	NODE=n1 run golden drill run --node n1 --fault rail-down --config "$WORK/nosysroot.conf"
	[ "$status" -eq 1 ]
	[[ "$output" == *"the real /sys: writing the real /sys cannot take an InfiniBand port down"*"ibportstate"* ]]
	grep -v '^drill_mount' "$WORK/golden.conf" >"$WORK/nomount.conf"
	NODE=n1 run golden drill run --node n1 --fault mount-hang --config "$WORK/nomount.conf"
	[ "$status" -eq 1 ]
	[[ "$output" == *"golden.conf drill_mount is not set"* ]]
	ln -sfn "$WORK/drill-mnt" "$WORK/drill-link"
	{ grep -v '^drill_mount' "$WORK/golden.conf"; echo "drill_mount = $WORK/drill-link"; } >"$WORK/link.conf"
	NODE=n1 run golden drill run --node n1 --fault mount-hang --config "$WORK/link.conf"
	[ "$status" -eq 1 ]
	[[ "$output" == *"drill_mount = $WORK/drill-link is a symlink"* ]]
	{ cat "$WORK/golden.conf"; echo "check.ib-ports = off"; } >"$WORK/noports.conf"
	NODE=n1 run golden drill run --node n1 --fault rail-down --config "$WORK/noports.conf"
	[ "$status" -eq 1 ]
	[[ "$output" == *"golden.conf turns the ib-ports check off for the health check"* ]]
	NODE=n1 run golden drill run --node n1 --fault rail-down --xid 48
	[ "$status" -eq 2 ]
	[[ "$output" == *"--fault rail-down with --xid/--gpu: one fault per drill"* ]]
	NODE=n1 run golden drill run --node n1 --fault link-flap
	[ "$status" -eq 2 ]
	[[ "$output" == *"--fault link-flap: expected rail-down or mount-hang"* ]]
	# Nothing staged, nothing recorded, nothing mounted.
	[ "$(port_files n1 mlx5_0)" = "$before" ]
	[ "$(drills_n n1)" -eq "$n" ]
	! grep -q " $WORK/drill-mnt " /proc/self/mounts
}

@test "drill --fault mount-hang --return auto: a real hung mount on drill_mount, the mounts check times out, drains, the mount goes, the node returns" {
	[[ -c /dev/fuse ]] || skip "no /dev/fuse"
	table=$WORK/nodes/n2/root/proc/self/mounts
	mkdir -p "$(dirname "$table")"
	printf 'rootfs / rootfs rw 0 0\n' >"$table"
	before=$(cat "$table")
	NODE=n2 run golden drill run --node n2 --fault mount-hang --return auto --validate-now --timeout 120
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"staged: mount-hang $WORK/drill-mnt (the mounts check must catch it)"* ]]
	[[ "$output" == *"detected: golden decided 'hc mounts timeout"*"(healthcheck)"* ]]
	drained_as "hc mounts timeout"
	[[ "$output" == *"fault taken away: $WORK/drill-mnt is as before the drill"* ]]
	[[ "$output" == *"returned: Slurm shows IDLE"* ]]
	[[ "${lines[-1]}" == "drill "*"-n2: pass" ]]
	# The mount is gone from the kernel's table and the sysroot's, its
	# server with it: statfs answers again at once.
	! grep -q " $WORK/drill-mnt " /proc/self/mounts
	[ "$(cat "$table")" = "$before" ]
	timeout 5 stat -f "$WORK/drill-mnt" >/dev/null
	[[ "$(golden_node_state n2)" =~ ^IDLE && "$(golden_node_state n2)" != *DRAIN* ]]
	python3 - "$WORK/state/n2/drills.json" "$WORK/drill-mnt" <<-'EOP'
	import json, sys
	r = json.load(open(sys.argv[1]))["drills"][-1]
	assert r["kind"] == "mount-hang" and r["target"] == sys.argv[2] and r["check"] == "mounts", r
	assert r["state"] == "done" and r["passed"] is True, r
	assert r["injected_ms"] <= r["detected_ms"] <= r["drained_ms"] <= r["returned_ms"], r
	EOP
	# A second mount-hang drill refuses a drill_mount that is a mount point.
	mount -t tmpfs golden-test "$WORK/drill-mnt"
	NODE=n2 run golden drill run --node n2 --fault mount-hang
	umount "$WORK/drill-mnt"
	[ "$status" -eq 1 ]
	[[ "$output" == *"drill_mount = $WORK/drill-mnt is a mount point already"* ]]
}

@test "drill --fault rail-down while another node holds golden's ib-ports drain: the guard holds the drain back, the drill says suppressed by guard" {
	{ cat "$WORK/golden.conf"; echo "guard_nodes = 1"; } >"$WORK/guard.conf"
	chmod 0644 "$WORK/guard.conf"
	# n3 drained by golden for its rail, the way a switch outage begins.
	n3port=$WORK/nodes/n3/root/sys/class/infiniband/mlx5_1/ports/1
	cp "$n3port/state" "$WORK/n3-state"
	echo "1: DOWN" >"$n3port/state"
	hc n3 || true
	[[ "$(golden_node_reason n3)" == "mlx5_1 p1 down"* ]]
	before=$(port_files n1 mlx5_0)
	NODE=n1 run golden drill run --node n1 --fault rail-down --return auto --validate-now \
		--config "$WORK/guard.conf" --timeout 60
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"suppressed by guard: mlx5_0 p1 down: 1 other nodes hold golden's drain for ib-ports ib"* ]]
	[[ "${lines[-1]}" == "SUPPRESSED BY GUARD: drill "*"-n1: FAIL: suppressed by guard (mlx5_0 p1 down: "* ]]
	[[ "${lines[-1]}" != *"NEVER DRAINED"* ]]
	# n1 stayed in service, its port as before; the report says why.
	[[ "$(golden_node_state n1)" != *DRAIN* ]]
	[ "$(port_files n1 mlx5_0)" = "$before" ]
	NODE=n1 run golden drill report --node n1 --config "$WORK/guard.conf"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"SUPPRESSED BY GUARD "*"-n1: n1 did not drain for the staged fault (rail-down mlx5_0 port 1): the blast-radius guard held the drain back"* ]]
	NODE=n1 run golden drill report --node n1 --json
	python3 -c 'import json,sys; r=json.load(sys.stdin)["drills"][-1]; assert r["suppressed_by_guard"] and not r["drained"] and not r["passed"], r' <<<"$output"
	# The outage ends: n3's port back, its next health check returns it.
	cp "$WORK/n3-state" "$n3port/state"
	hc n3 || true
	golden_wait_node_state n3 '^IDLE' 30
	[[ "$(golden_node_state n3)" != *DRAIN* ]]
}

@test "a mount-hang drill killed outright: its filesystem's server dies with it, the mount fails at once instead of hanging, no drill runs on it until umount -l" {
	[[ -c /dev/fuse ]] || skip "no /dev/fuse"
	table=$WORK/nodes/n2/root/proc/self/mounts
	printf 'rootfs / rootfs rw 0 0\n' >"$table"
	GOLDEN_CONF=$WORK/golden.conf LD_LIBRARY_PATH=$GOLDEN_BUILDDIR/t/fake-nvml/.libs \
		FAKE_NVML_STATE=$WORK/nvml/n2.json "$GOLDEN_BUILDDIR/cli/golden" drill run --node n2 \
		--fault mount-hang --no-probe --timeout 60 >"$WORK/killed.out" 2>&1 3>&- &
	pid=$!
	for _ in $(seq 100); do
		grep -q '^staged: ' "$WORK/killed.out" && break
		sleep 0.1
	done
	cat "$WORK/killed.out"
	grep -q '^staged: ' "$WORK/killed.out"
	kill -9 "$pid"
	wait "$pid" || true
	# The server went with the drill: statfs fails (no hang), so the next
	# health check drains for it rather than waiting out its deadline.
	run timeout 10 stat -f "$WORK/drill-mnt"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"Transport endpoint is not connected"* || "$output" == *"connection abort"* ]]
	NODE=n2 run golden drill run --node n2 --fault mount-hang
	[ "$status" -eq 1 ]
	[[ "$output" == *"drill_mount = $WORK/drill-mnt is a mount point already (a drill's leftover: umount -l"* ]]
	umount -l "$WORK/drill-mnt"
	printf 'rootfs / rootfs rw 0 0\n' >"$table"
	# The record: abandoned, not running, and not a pass.
	NODE=n2 run golden drill report --node n2 --json
	python3 -c 'import json,sys; r=json.load(sys.stdin)["drills"][-1]; assert r["fault"]=="mount-hang" and r["state"]=="abandoned" and not r["passed"], r' <<<"$output"
}

@test "drill --fault rail-down --return manual: the fault is taken away after the drain, the node stays drained until its next passing health check" {
	before=$(port_files n3 mlx5_2)
	NODE=n3 run golden drill run --node n3 --fault rail-down --rail mlx5_2 --validate-now --no-probe --timeout 60
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"staged: rail-down mlx5_2 port 1"* ]]
	drained_as "mlx5_2 p1 down"
	[[ "$output" == *"fault taken away: mlx5_2 p1 is as before the drill"* ]]
	[[ "$output" == *"--return manual: n3 stays drained until its next passing health check"* ]]
	[[ "$output" != *"returned: "* ]]
	[ "$(port_files n3 mlx5_2)" = "$before" ]
	[[ "$(golden_node_reason n3)" == "mlx5_2 p1 down"* ]]
	# The port is back, so the next health check returns the node, as it
	# would after a real port that recovers.
	hc n3 || true
	golden_wait_node_state n3 '^IDLE' 30
	[[ "$(golden_node_state n3)" != *DRAIN* ]]
}

@test "a rail-down drill stopped with SIGTERM takes its fault away first and records itself abandoned" {
	before=$(port_files n1 mlx5_1)
	GOLDEN_CONF=$WORK/golden.conf LD_LIBRARY_PATH=$GOLDEN_BUILDDIR/t/fake-nvml/.libs \
		FAKE_NVML_STATE=$WORK/nvml/n1.json "$GOLDEN_BUILDDIR/cli/golden" drill run --node n1 \
		--fault rail-down --rail mlx5_1 --no-probe --timeout 60 >"$WORK/term.out" 2>&1 3>&- &
	pid=$!
	for _ in $(seq 100); do
		grep -q '^staged: ' "$WORK/term.out" && break
		sleep 0.1
	done
	# Staged, and nothing runs a health check: the drill waits.
	grep -q '^staged: rail-down mlx5_1 port 1' "$WORK/term.out"
	[[ "$(port_files n1 mlx5_1)" == *"1: DOWN"*"3: Disabled"* ]]
	kill -TERM "$pid"
	rc=0
	wait "$pid" || rc=$?
	cat "$WORK/term.out"
	[ "$rc" -eq 1 ]
	grep -q 'fault taken away: mlx5_1 p1 is as before the drill' "$WORK/term.out"
	grep -q 'interrupted: the staged fault was taken away' "$WORK/term.out"
	[ "$(port_files n1 mlx5_1)" = "$before" ]
	NODE=n1 run golden drill report --node n1 --json
	python3 -c 'import json,sys; r=json.load(sys.stdin)["drills"][-1]; assert r["fault"]=="rail-down" and r["state"]=="abandoned" and r["verdict"].startswith("interrupted by a signal"), r' <<<"$output"
	[[ "$(golden_node_state n1)" != *DRAIN* ]]
}
