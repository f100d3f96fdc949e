#!/usr/bin/env bats
# Node lifecycle on a real local cluster: golden-watch drains a node within
# seconds of a GPU fault while a job runs there, `golden check --healthcheck`
# is slurmd's HealthCheckProgram and returns nodes to service only as each
# fault class allows, a drain decided while slurmctld is down is applied when
# it is back, and nothing golden did not drain is ever touched.
#
# Four VM-style fixtures whose GPUs live in distinct PCI domains (node k:
# GPUs 00k1..00k4:00:00.0), so an XID written into the shared /dev/kmsg
# belongs to exactly one node (xid_scope = node-gpus). Each node has its own
# golden-watch, started here like the systemd unit would.

load ../lib/common

setup_file() {
	golden_require_root
	# Writes the host's /dev/kmsg: one such file at a time per machine.
	golden_kmsg_lock
	export WORK="$BATS_FILE_TMPDIR/work"
	mkdir -p "$WORK/nvml" "$WORK/out" "$WORK/metrics"
	golden_gpu_nodes "$WORK" 4 0x000 0x100
	golden_gpu_conf "$WORK" >"$WORK/golden.conf"
	cat >>"$WORK/golden.conf" <<-EOC
	flap_count = 2
	flap_hours = 24
	EOC
	chmod 0644 "$WORK/golden.conf"
	# slurmd runs HealthCheckProgram with only SLURMD_NODENAME set.
	golden_cluster_prepare
	golden_healthcheck_script "$WORK"
	# Faults earlier runs injected are not this run's: start each node's
	# checks' kernel-log cursors now.
	golden_acknowledge_kmsg "$WORK/golden.conf" n1 n2 n3 n4
	golden_cluster_start --nodes 4 --cred-expire 10 \
		--conf-extra "HealthCheckProgram=$WORK/healthcheck" \
		--conf-extra HealthCheckInterval=65535 \
		--conf-extra HealthCheckNodeState=ANY
	for n in n1 n2 n3 n4; do
		watch_start "$n"
	done
}

teardown_file() {
	for n in n1 n2 n3 n4; do
		watch_stop "$n"
	done
	golden_cluster_stop
	golden_kmsg_unlock
}

teardown() {
	golden_dump_logs_on_failure
	if [[ ${BATS_TEST_COMPLETED:-} != 1 ]]; then
		for n in n1 n2 n3 n4; do
			echo "--- golden-watch $n" >&2
			tail -n 20 "$WORK/watch-$n.log" >&2 2>/dev/null || true
		done
	fi
}

watch_start() { golden_watch_start "$WORK" "$1"; }
watch_stop() { golden_watch_stop "$WORK" "$1"; }

kmsg() {
	printf '%s\n' "$1" >/dev/kmsg
}

# Run the health check on NODE as slurmd does.
hc() {
	SLURMD_NODENAME=$1 env -i SLURMD_NODENAME="$1" "$WORK/healthcheck"
}

status() {
	GOLDEN_CONF=$WORK/golden.conf "$GOLDEN_BUILDDIR/cli/golden" status --node "$@"
}

# jq-free reads of the ledger: ledger NODE PYTHON-EXPR (d = the ledger).
ledger() {
	python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$WORK/state/$1/lifecycle.json" "$2"
}

wait_for() { # wait_for TIMEOUT COMMAND...: until COMMAND succeeds
	local t=$1
	shift
	for _ in $(seq $((t * 10))); do
		"$@" && return 0
		sleep 0.1
	done
	"$@"
}

reason_is() { [[ "$(golden_node_reason "$1")" == $2 ]]; }
drained() { [[ "$(golden_node_state "$1")" == *DRAIN* ]]; }
not_drained() { [[ "$(golden_node_state "$1")" != *DRAIN* ]]; }

# An ordinary user (nobody), in a user namespace of its own, mounts tmpfs
# with an option KEY: the kernel rejects it and logs KEY at facility kern.
user_mount_option() {
	local dir
	dir=$(mktemp -d "$WORK/umnt.XXXXXX")
	chmod 0777 "$dir"
	setpriv --reuid=65534 --regid=65534 --clear-groups unshare -rm \
		mount -t tmpfs -o "$1" none "$dir" 2>/dev/null || true
	rmdir "$dir"
}

reboot_fixture() {
	cat /proc/sys/kernel/random/uuid >"$WORK/nodes/$1/root/proc/sys/kernel/random/boot_id"
}

@test "slurmd runs golden check --healthcheck as HealthCheckProgram on every node" {
	for n in n1 n2 n3 n4; do
		run python3 -c 'import json,sys
recs=[json.loads(l) for l in open(sys.argv[1])]
h=[r for r in recs if r["phase"]=="healthcheck"]
assert h, recs
assert h[0]["result"] in ("ok","warn"), h[0]
names={c["name"] for c in h[0]["checks"]}
assert {"xid","gpu-count","ib-ports","wb-stall"} <= names, names' "$WORK/log/$n.jsonl"
		[ "$status" -eq 0 ] || { echo "$n: $output"; false; }
		not_drained "$n"
	done
	[ -s "$WORK/metrics/n1/slurm_golden_checks_healthcheck.prom" ]
	grep -q '^slurm_golden_check_status{node="n1",phase="healthcheck",check="xid",state="ok"} 1$' \
		"$WORK/metrics/n1/slurm_golden_checks_healthcheck.prom"
}

@test "XID 79 while a job runs on n2: golden-watch drains n2 within seconds and leaves the job running" {
	job=$(sbatch --parsable -o /dev/null -w n2 --wrap 'sleep 60')
	wait_for 30 eval '[ "$(golden_job_state '"$job"')" = RUNNING ]'
	# A health check while the job runs: passive checks only.
	hc n2
	run python3 -c 'import json,sys
r=[json.loads(l) for l in open(sys.argv[1])][-1]
names={c["name"] for c in r["checks"]}
assert r["node_state"].startswith("busy"), r
assert "gpu-procs" not in names and "xid" in names, names' "$WORK/log/n2.jsonl"
	[ "$status" -eq 0 ]

	kmsg "NVRM: Xid (PCI:0021:00:00): 79, pid=4242, name=python3, GPU has fallen off the bus."
	wait_for 20 drained n2
	[ "$(golden_node_reason n2)" = "gpu0 xid79 offbus; reboot [golden]" ]
	[[ "$(golden_node_state n2)" == *ALLOC*DRAIN* || "$(golden_node_state n2)" == *MIXED*DRAIN* ]]
	[ "$(golden_job_state "$job")" = RUNNING ]
	grep -q "gpu0 xid79 offbus; reboot \[golden\]: drained" "$WORK/watch-n2.log"
	[ "$(ledger n2 'd["hold"]["source"]')" = watch ]
	[ "$(ledger n2 'd["hold"]["class"]')" = reboot ]
	run sinfo -h -R -n n2 -o '%E'
	[[ "$output" == "gpu0 xid79 offbus; r"* ]]
	scancel "$job"
	grep -q '^slurm_golden_drains_total{node="n2",check="xid"} 1$' \
		"$WORK/metrics/n2/slurm_golden_lifecycle.prom"
	grep -q '^slurm_golden_drained{node="n2",class="reboot"} 1$' \
		"$WORK/metrics/n2/slurm_golden_lifecycle.prom"
	grep -q '^slurm_golden_watch_fault_lines_total{node="n2"} [1-9]' \
		"$WORK/metrics/n2/slurm_golden_watch.prom"
}

@test "reboot-class: n2 stays drained through passing health checks until its boot id changes, then golden resumes it" {
	drained n2
	hc n2
	drained n2
	[ "$(golden_node_reason n2)" = "gpu0 xid79 offbus; reboot [golden]" ]
	run status n2
	[ "$status" -eq 1 ]
	[[ "$output" == *"drained by golden"* ]]
	[[ "$output" == *"golden resumes it after a reboot (boot id still"* ]]
	[[ "$output" == *"golden-watch: running"* ]]
	reboot_fixture n2
	hc n2
	not_drained n2
	[ "$(golden_node_reason n2)" = "" ]
	[ "$(ledger n2 'd["resumes"]["reboot"]')" = 1 ]
	[ "$(ledger n2 '"hold" in d')" = False ]
	run status n2 --json
	[ "$status" -eq 0 ]
	python3 -c 'import json,sys
s=json.loads(sys.argv[1])
assert s["ownership"]=="in service", s
assert [h for h in s["history"] if h["event"]=="resumed" and "reboot" in h["text"]], s' "$output"
}

@test "transient: a degraded rail drains n1 at the health check; once it recovers the next health check resumes it" {
	rate="$WORK/nodes/n1/root/sys/class/infiniband/mlx5_1/ports/1/rate"
	good=$(cat "$rate")
	echo "100 Gb/sec (4X EDR)" >"$rate"
	run hc n1
	drained n1
	reason_is n1 "mlx5_1 *; check \[golden\]"
	[ "$(ledger n1 'd["hold"]["class"]')" = transient ]
	echo "$good" >"$rate"
	hc n1
	not_drained n1
	[ "$(ledger n1 'd["resumes"]["transient"]')" = 1 ]
}

@test "flapping: the same rail failing again within flap_hours stays drained with a reason that says so" {
	rate="$WORK/nodes/n1/root/sys/class/infiniband/mlx5_1/ports/1/rate"
	good=$(cat "$rate")
	echo "100 Gb/sec (4X EDR)" >"$rate"
	run hc n1
	drained n1
	reason_is n1 "flap 2x24h mlx5_1 *; admin \[golden\]"
	run sinfo -h -R -n n1 -o '%E'
	[[ "$output" == "flap 2x24h mlx5_1 "* ]]
	echo "$good" >"$rate"
	hc n1
	drained n1
	reason_is n1 "flap 2x24h *"
	run status n1
	[[ "$output" == *"golden never resumes a flapping node"* ]]
	# The operator decides; golden then lets go of it.
	scontrol update NodeName=n1 State=RESUME
	hc n1
	not_drained n1
	[ "$(ledger n1 '"hold" in d')" = False ]
	[ "$(ledger n1 '[h["event"] for h in d["history"]][-1]')" = released ]
}

@test "reset-class: XID 95 drains n3; only the driver re-initialising that GPU (not another) lets golden resume it" {
	kmsg "NVRM: Xid (PCI:0031:00:00): 95, pid=777, name=train, Uncontained ECC error"
	wait_for 20 drained n3
	[ "$(golden_node_reason n3)" = "gpu0 xid95 ecc-uncontained; gpu-reset [golden]" ]
	[ "$(ledger n3 'd["hold"]["gpu_busid"]')" = "0031:00:00.0" ]
	hc n3
	drained n3
	kmsg "NVRM: GPU at PCI:0032:00:00: GPU-11111111-2222-3333-4444-555555555555"
	hc n3
	drained n3
	# That GPU's re-init line quoted by the kernel for an ordinary user, or
	# forwarded by a logger, is not the driver's.
	user_mount_option "NVRM: GPU at PCI:0031:00:00: GPU-cccccccc-2222-3333-4444-555555555555"
	printf '<14>NVRM: GPU at PCI:0031:00:00: GPU-dddddddd-2222-3333-4444-555555555555[4242]: x\n' \
		>/dev/kmsg
	hc n3
	drained n3
	kmsg "NVRM: GPU at PCI:0031:00:00: GPU-aaaaaaaa-2222-3333-4444-555555555555"
	hc n3
	not_drained n3
	[ "$(ledger n3 'd["resumes"]["reset"]')" = 1 ]
}

@test "an admin re-words golden's drain: golden never resumes it, even once the fault clears" {
	kmsg "NVRM: Xid (PCI:0033:00:00): 62, pid=778, name=train, Internal micro-controller halt"
	wait_for 20 drained n3
	reason_is n3 "gpu2 xid62 *; gpu-reset \[golden\]"
	scontrol update NodeName=n3 Reason="RMA ticket 4711"
	kmsg "NVRM: GPU at PCI:0033:00:00: GPU-bbbbbbbb-2222-3333-4444-555555555555"
	hc n3
	drained n3
	[ "$(golden_node_reason n3)" = "RMA ticket 4711" ]
	[ "$(ledger n3 '"hold" in d')" = False ]
	[[ "$(ledger n3 'd["history"][-1]["text"]')" == *"reason changed to 'RMA ticket 4711'"* ]]
	scontrol update NodeName=n3 State=RESUME
}

@test "slurmctld down: golden-watch keeps the drain decision and applies it when the controller is back" {
	"$GOLDEN_MINICLUSTER" ctld-stop "$GOLDEN_CLUSTER_DIR"
	kmsg "NVRM: Xid (PCI:0041:00:00): 79, pid=4243, name=python3, GPU has fallen off the bus."
	wait_for 60 eval '[ "$(ledger n4 "d.get(\"hold\", {}).get(\"applied\")")" = False ]'
	run status n4
	[[ "$output" == *"golden owes a drain"* ]]
	"$GOLDEN_MINICLUSTER" ctld-start "$GOLDEN_CLUSTER_DIR"
	wait_for 60 drained n4
	[ "$(golden_node_reason n4)" = "gpu0 xid79 offbus; reboot [golden]" ]
	[ "$(ledger n4 'd["hold"]["applied"]')" = True ]
	[ "$(ledger n4 '[h["event"] for h in d["history"]]')" = "['pending', 'applied']" ]
	reboot_fixture n4
	hc n4
	not_drained n4
}

@test "restarting golden-watch mid-stream: a fault logged while it was down still drains, exactly once" {
	watch_stop n1
	kmsg "NVRM: Xid (PCI:0012:00:00): 48, pid=99, name=train, An uncorrectable double bit error"
	watch_start n1
	wait_for 20 drained n1
	reason_is n1 "gpu1 xid48 dbe; gpu-reset \[golden\]"
	# Restart again: it looks from its cursor and finds nothing new to act on.
	watch_stop n1
	watch_start n1
	watch_stop n1
	watch_start n1
	run grep -c 'xid48 dbe; gpu-reset \[golden\]: drained$' "$WORK/watch-n1.log"
	[ "$output" = 1 ]
	[ "$(ledger n1 'sum(1 for h in d["history"] if h["event"]=="drained" and "xid48" in h["text"])')" = 1 ]
	[ "$(ledger n1 'd["drains"]["xid"]')" = 1 ]
	reboot_fixture n1
	hc n1
	not_drained n1
}

@test "an admin's drain is never touched: not by faults, not by passing health checks" {
	scontrol update NodeName=n4 State=DRAIN Reason="maintenance by ops"
	kmsg "NVRM: Xid (PCI:0042:00:00): 79, pid=1, name=x, GPU has fallen off the bus."
	wait_for 20 eval '[ "$(ledger n4 "d[\"left_foreign\"]")" -ge 1 ]'
	rate="$WORK/nodes/n4/root/sys/class/infiniband/mlx5_0/ports/1/rate"
	good=$(cat "$rate")
	echo "100 Gb/sec (4X EDR)" >"$rate"
	run hc n4
	echo "$good" >"$rate"
	hc n4
	hc n4
	[ "$(golden_node_reason n4)" = "maintenance by ops" ]
	drained n4
	[ "$(ledger n4 '"hold" in d')" = False ]
	run status n4
	[[ "$output" == *"golden never touches it"* ]]
	scontrol update NodeName=n4 State=RESUME
}

@test "kmsg flood while golden-watch is stopped: the overrun is counted and the next fault still drains" {
	pid=$(cat "$WORK/watch-n2.pid")
	kill -STOP "$pid"
	# Each line through its own open(): /dev/kmsg rate-limits per open file.
	python3 -c '
import os
pad = "x" * 180
for i in range(30000):
    fd = os.open("/dev/kmsg", os.O_WRONLY)
    os.write(fd, ("golden-flood %d %s\n" % (i, pad)).encode())
    os.close(fd)'
	kill -CONT "$pid"
	wait_for 30 grep -q "kernel log overrun: resynchronised" "$WORK/watch-n2.log"
	kmsg "NVRM: Xid (PCI:0022:00:00): 79, pid=4244, name=python3, GPU has fallen off the bus."
	wait_for 20 drained n2
	[ "$(golden_node_reason n2)" = "gpu1 xid79 offbus; reboot [golden]" ]
	run python3 -c 'import json,sys
w=json.load(open(sys.argv[1]))
assert w["overruns"] >= 1 and w["missed"] > 0, w
print(w["missed"])' "$WORK/state/n2/watch.json"
	[ "$status" -eq 0 ]
	grep -Eq '^slurm_golden_watch_missed_records_total\{node="n2"\} [1-9]' \
		"$WORK/metrics/n2/slurm_golden_watch.prom"
	reboot_fixture n2
	hc n2
	not_drained n2
}

@test "golden-watch: an application XID is recorded, never drained" {
	kmsg "NVRM: Xid (PCI:0013:00:00): 13, pid=555, name=badkernel, Graphics Exception"
	wait_for 20 grep -q "app xid13" "$WORK/log/n1.jsonl"
	run python3 -c 'import json,sys
r=[json.loads(l) for l in open(sys.argv[1]) if "app xid13" in l][-1]
assert r["phase"]=="watch" and r["result"]=="warn" and "reason" not in r, r' "$WORK/log/n1.jsonl"
	[ "$status" -eq 0 ]
	not_drained n1
}

@test "golden-watch: a writeback-stall signature runs the wb-stall check (a past stall only warns)" {
	kmsg "watchdog: BUG: soft lockup - CPU#1 stuck for 23s! [kworker/1:2+inode_switch_wbs:4321]"
	wait_for 20 python3 -c 'import json,sys
recs=[json.loads(l) for l in open(sys.argv[1])]
w=[c for r in recs if r["phase"]=="watch" for c in r["checks"] if c["name"]=="wb-stall"]
assert w and w[-1]["result"]=="warn", w
assert "soft" in w[-1].get("detail","") or "past" in w[-1].get("detail",""), w[-1]' "$WORK/log/n3.jsonl"
	not_drained n3
	grep -Eq '^slurm_golden_watch_stall_lines_total\{node="n3"\} [1-9]' \
		"$WORK/metrics/n3/slurm_golden_watch.prom"
}

@test "golden-watch: kernel records quoting an ordinary user's driver-like text drain nothing" {
	user_mount_option "NVRM: Xid (PCI:0043:00:00): 79 GPU has fallen off the bus."
	user_mount_option "NVRM: GPU at 0043:00:00.0 has fallen off the bus."
	printf '<14>NVRM: Xid (PCI:0043:00:00): 79, pid=1, name=x, GPU has fallen off the bus.[4242]: x\n' \
		>/dev/kmsg
	# A real application XID after them: once it is recorded, golden-watch
	# has looked at everything before it.
	kmsg "NVRM: Xid (PCI:0044:00:00): 13, pid=556, name=barrier, Graphics Exception"
	wait_for 20 grep -q "app xid13 gpu3 pid=556" "$WORK/log/n4.jsonl"
	not_drained n4
	# The run that read them all found the application XID and nothing else.
	run python3 -c 'import json,sys
r=[json.loads(l) for l in open(sys.argv[1]) if "pid=556" in l][-1]
x=[c for c in r["checks"] if c["name"]=="xid"][0]
assert r["phase"]=="watch" and x["result"]=="warn" and "xid79" not in x["detail"], x' \
		"$WORK/log/n4.jsonl"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "a ledger that cannot be locked: the fault is not lost, and drains once the ledger works again" {
	lock="$WORK/state/n3/lifecycle.lock"
	rm -f "$lock"
	mkdir "$lock" # a directory where the lock file should be
	kmsg "NVRM: Xid (PCI:0034:00:00): 79, pid=4246, name=python3, GPU has fallen off the bus."
	wait_for 20 grep -q "gpu3 xid79 offbus: not drained: cannot lock the ledger" "$WORK/watch-n3.log"
	not_drained n3
	# A health check meanwhile cannot act on it either, and does not consume it.
	run hc n3
	echo "$output"
	[[ "$output" == *"cannot update the lifecycle ledger"* ]]
	not_drained n3
	rmdir "$lock"
	# golden-watch retries with backoff (at most 30 s apart).
	wait_for 60 drained n3
	[ "$(golden_node_reason n3)" = "gpu3 xid79 offbus; reboot [golden]" ]
	[ "$(ledger n3 'd["hold"]["class"]')" = reboot ]
	[ "$(ledger n3 'sum(1 for h in d["history"] if h["event"]=="drained" and "xid79" in h["text"])')" = 1 ]
	reboot_fixture n3
	hc n3
	not_drained n3
}
