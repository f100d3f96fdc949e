#!/usr/bin/env bats
# Active health checks on a real local cluster with a preemptible partition
# (PreemptType=preempt/partition_prio: `scavenger` at PriorityTier 0 under
# `debug`, PreemptMode=CANCEL). Without a GraceTime the preempted job is
# terminated like scancel: SIGTERM to all its processes, SIGKILL KillWait (5 s
# here) later. Seen on Slurm 22.05: with a partition GraceTime the batch
# script received no SIGTERM at all during the grace (only the job's end time
# moved), so golden's jobs rely on the KillWait window. The GPU workload is a
# stand-in at the hardware boundary (t/active-standin: golden-active's
# options and JSON, the result and run time this test chooses); everything
# else is real: `golden active submit` places jobs with sbatch, each job runs
# `golden active run`, a real job submitted by an ordinary user preempts it,
# failures drain through the lifecycle, and slurmd's HealthCheckProgram
# validates a drained node with the stand-in before golden resumes it.
#
# Node k's GPUs live in PCI domain 04k1..04k4 (golden_gpu_nodes), so a
# fault written to the shared /dev/kmsg belongs to exactly one node.

load ../lib/common

setup_file() {
	golden_require_root
	# Writes the host's /dev/kmsg: one such file at a time per machine.
	golden_kmsg_lock
	export WORK="$BATS_FILE_TMPDIR/work"
	mkdir -p "$WORK/nvml" "$WORK/metrics" "$WORK/bin/standin.d"
	golden_gpu_nodes "$WORK" 3 0x400 0x500
	# The stand-in where golden.conf's `active =` points; root-owned, 0755.
	install -m 0755 "$GOLDEN_SRCDIR/t/active-standin/golden-active-standin" "$WORK/bin/golden-active"
	chmod 0755 "$WORK/bin" "$WORK/bin/standin.d"
	golden_gpu_conf "$WORK" >"$WORK/golden.conf"
	cat >>"$WORK/golden.conf" <<-EOC
	flap_count = 0
	active = $WORK/bin/golden-active
	active_budget_s = 20
	active_validate_s = 15
	# slurmd starts three health checks at once at boot; on a loaded 2-core
	# host the sysfs/proc reads of these two have missed 1 s before.
	check.wb-exposure.deadline_ms = 5000
	check.wb-stall.deadline_ms = 5000
	EOC
	chmod 0644 "$WORK/golden.conf"
	golden_cluster_prepare
	golden_healthcheck_script "$WORK"
	# Faults earlier runs of this file injected (test 3's XID for n1's GPU)
	# are not this run's: start each node's kernel-log cursors now.
	golden_acknowledge_kmsg "$WORK/golden.conf" n1 n2 n3
	for n in n1 n2 n3; do
		GOLDEN_CONF=$WORK/golden.conf LD_LIBRARY_PATH=$GOLDEN_BUILDDIR/t/fake-nvml/.libs \
			FAKE_NVML_STATE=$WORK/nvml/$n.json \
			"$GOLDEN_BUILDDIR/cli/golden" check --node "$n" --no-drain >/dev/null || true
	done
	golden_cluster_start --nodes 3 --cred-expire 10 \
		--conf-extra "HealthCheckProgram=$WORK/healthcheck" \
		--conf-extra HealthCheckInterval=65535 \
		--conf-extra HealthCheckNodeState=ANY \
		--conf-extra PreemptType=preempt/partition_prio \
		--conf-extra PreemptMode=CANCEL \
		--conf-extra "PartitionName=scavenger Nodes=n[1-3] PriorityTier=0 PreemptMode=CANCEL OverSubscribe=NO MaxTime=60 State=UP"
	# An ordinary user for the real jobs.
	id golden-active-user >/dev/null 2>&1 || useradd -M -s /usr/sbin/nologin golden-active-user
}

teardown_file() {
	golden_cluster_stop
	golden_kmsg_unlock
}

teardown() {
	golden_dump_logs_on_failure
	if [[ ${BATS_TEST_COMPLETED:-} != 1 ]]; then
		tail -n 5 "$WORK"/bin/standin.d/*.log >&2 2>/dev/null || true
		tail -n 3 "$WORK"/log/*.jsonl >&2 2>/dev/null || true
	fi
}

golden() { GOLDEN_CONF=$WORK/golden.conf "$GOLDEN_BUILDDIR/cli/golden" "$@"; }
standin() { # standin NODE key=value...: what the stand-in does on NODE
	printf '%s\n' "${@:2}" >"$WORK/bin/standin.d/$1"
}
record() { # record NODE PYTHON-EXPR (d = the node's active record)
	python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$WORK/state/$1/active.json" "$2"
}
ledger() {
	python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$WORK/state/$1/lifecycle.json" "$2"
}
hc() { env -i SLURMD_NODENAME="$1" "$WORK/healthcheck"; }
wait_for() {
	local t=$1
	shift
	for _ in $(seq $((t * 10))); do
		"$@" && return 0
		sleep 0.1
	done
	"$@"
}
drained() { [[ "$(golden_node_state "$1")" == *DRAIN* ]]; }
idle() { [[ "$(golden_node_state "$1")" != *DRAIN* ]] || { echo "$1 is $(golden_node_state "$1")" >&2; false; }; }
started() { grep -q '^start ' "$WORK/bin/standin.d/$1.log" 2>/dev/null; }
job_of() { # the golden-active job id on NODE from submit's output
	sed -n "s/^$1: submitted job \([0-9]*\) .*/\1/p" <<<"$2"
}
kmsg() { printf '%s\n' "$1" >/dev/kmsg; }
reboot_fixture() {
	cat /proc/sys/kernel/random/uuid >"$WORK/nodes/$1/root/proc/sys/kernel/random/boot_id"
}

@test "submit: one preemptible job per idle node that has not passed within --max-age" {
	standin n1 result=pass
	standin n2 result=pass
	standin n3 result=pass
	# n1 passed a moment ago (by hand): not due.
	run golden active run --node n1
	[ "$status" -eq 0 ]
	[ "$(record n1 'd["last_source"]')" = manual ]
	run golden active submit --partition scavenger --max-age 1h
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"n1: skipped (passed "*" ago)"* ]]
	j2=$(job_of n2 "$output")
	j3=$(job_of n3 "$output")
	[ -n "$j2" ] && [ -n "$j3" ]
	[ "$(golden_wait_job "$j2")" = COMPLETED ]
	[ "$(golden_wait_job "$j3")" = COMPLETED ]
	run scontrol -o show job "$j2"
	[[ "$output" == *"Partition=scavenger"* && "$output" == *"NodeList=n2"* ]]
	[[ "$output" == *"OverSubscribe=NO"* ]]
	[ "$(record n2 'd["last_outcome"], d["last_source"], d["last_job"]')" = "('pass', 'job', '$j2')" ]
	[ "$(record n3 'd["passes"]')" = 1 ]
	# The job ran the configured program with the configured budget.
	grep -q "^start [0-9]* --json --budget 20 --node n2" "$WORK/bin/standin.d/n2.log"
	# Everything passed within the hour: nothing to submit.
	run golden active submit --partition scavenger --max-age 1h
	[ "$status" -eq 0 ]
	[ "$(grep -c 'skipped (passed' <<<"$output")" = 3 ]
	# JSON log and metrics got the job's run.
	python3 -c 'import json,sys
r=[json.loads(l) for l in open(sys.argv[1]) if json.loads(l)["phase"]=="active"][-1]
assert r["job"]==sys.argv[2] and r["result"]=="ok", r' "$WORK/log/n2.jsonl" "$j2"
	grep -q '^slurm_golden_active_last_outcome{node="n2",outcome="pass"} 1$' "$WORK/metrics/n2/slurm_golden_active.prom"
	grep -q '^slurm_golden_active_value{node="n2",gpu="3",test="hbm"} 3.05' \
		"$WORK/metrics/n2/slurm_golden_active.prom"
}

@test "a real job from an ordinary user preempts the active check: golden ends it on SIGTERM and does not hold it against the node" {
	standin n2 result=pass sleep=600
	rm -f "$WORK/bin/standin.d/n2.log"
	run golden active submit --partition scavenger --nodes n2 --max-age 0
	echo "$output"
	aj=$(job_of n2 "$output")
	[ -n "$aj" ]
	wait_for 30 started n2
	passes=$(record n2 'd["passes"]')
	last_pass=$(record n2 'd["last_pass"]')
	# The node is busy with the active job: submit leaves it alone.
	run golden active submit --partition scavenger --nodes n2 --max-age 0
	[[ "$output" == *"n2: skipped (not idle ("* ]]
	rj=$(runuser -u golden-active-user -- sbatch --parsable -D /tmp -o /dev/null -p debug -w n2 \
		--wrap 'hostname')
	[ "$(golden_wait_job "$rj" 60)" = COMPLETED ]
	[ "$(golden_wait_job "$aj")" = PREEMPTED ]
	run scontrol -o show job "$rj"
	[[ "$output" == *"NodeList=n2"* && "$output" == *"UserId=golden-active-user"* ]]
	# golden handled the SIGTERM itself (SIGKILL would only come KillWait
	# later, and a killed run records nothing): the stand-in never
	# finished, the run is recorded as interrupted, nothing else changed.
	! grep -q '^end ' "$WORK/bin/standin.d/n2.log"
	pid=$(sed -n 's/^start \([0-9]*\) .*/\1/p' "$WORK/bin/standin.d/n2.log")
	! kill -0 "$pid" 2>/dev/null
	[ "$(record n2 'd["last_outcome"]')" = interrupted ]
	[ "$(record n2 'd["interruptions"]')" = 1 ]
	[ "$(record n2 'd["passes"]')" = "$passes" ]
	[ "$(record n2 'd["last_pass"]')" = "$last_pass" ]
	[[ "$(golden_node_state n2)" != *DRAIN* ]]
	grep -q '^slurm_golden_active_runs_total{node="n2",outcome="interrupted"} 1$' \
		"$WORK/metrics/n2/slurm_golden_active.prom"
}

@test "a failing active check drains its node with the GPU and the test in the reason" {
	standin n3 "result=fail" "code=gpu3 hbm 2.1<2.7TB/s"
	run golden active submit --partition scavenger --nodes n3 --max-age 0
	j=$(job_of n3 "$output")
	[ -n "$j" ]
	golden_wait_job "$j" >/dev/null
	wait_for 20 drained n3
	[ "$(golden_node_reason n3)" = "gpu3 hbm 2.1<2.7TB/s; active [golden]" ]
	run sinfo -h -R -n n3 -o '%E'
	[[ "$output" == "gpu3 hbm 2.1<2.7TB/s"* ]]
	[ "$(ledger n3 'd["hold"]["class"]')" = active ]
	[ "$(ledger n3 'd["hold"]["check"]')" = active ]
	[ "$(record n3 'd["last_outcome"], d["last_code"]')" = "('fail', 'gpu3 hbm 2.1<2.7TB/s')" ]
	run golden status --node n3
	[ "$status" -eq 1 ]
	[[ "$output" == *"active check: fail gpu3 hbm 2.1<2.7TB/s"* ]]
	[[ "$output" == *"gpu3  0000:13:00.0  hbm 2.10!"* ]]
	[[ "$output" == *"golden resumes it after a passing active check"* ]]
	run golden active submit --partition scavenger --nodes n3 --max-age 0
	[[ "$output" == *"n3: skipped (not idle (drained))"* ]]
}

@test "validation before return: HealthCheckProgram runs golden-active on the drained node itself and golden resumes it only on a pass" {
	drained n3
	standin n3 "result=fail" "code=gpu1 bf16 412<594"
	rm -f "$WORK/bin/standin.d/n3.log"
	run hc n3
	# It ran on the drained node, outside the scheduler, with the validation budget.
	grep -q '^start [0-9]* --json --budget 15 --node n3' "$WORK/bin/standin.d/n3.log"
	drained n3
	[ "$(golden_node_reason n3)" = "gpu1 bf16 412<594; failed validation; active [golden]" ]
	[ "$(ledger n3 'd["hold"]["class"]')" = active ]
	[ "$(record n3 'd["last_source"], d["last_outcome"]')" = "('validation', 'fail')" ]
	python3 -c 'import json,sys
r=[json.loads(l) for l in open(sys.argv[1]) if json.loads(l)["phase"]=="healthcheck"][-1]
v=[c for c in r["checks"] if c["name"]=="active-validate"]
assert v and v[0]["result"]=="fail", r' "$WORK/log/n3.jsonl"
	standin n3 result=pass
	run hc n3
	idle n3
	[ "$(golden_node_reason n3)" = "" ]
	[ "$(ledger n3 'd["resumes"]["active"]')" = 1 ]
	[ "$(record n3 'd["last_outcome"]')" = pass ]
}

@test "a reboot-class drain is validated only after the reboot; a failing validation keeps it drained, a pass resumes it" {
	standin n1 result=pass
	rm -f "$WORK/bin/standin.d/n1.log"
	kmsg "NVRM: Xid (PCI:0411:00:00): 79, pid=4242, name=python3, GPU has fallen off the bus."
	run hc n1
	wait_for 10 drained n1
	[ "$(golden_node_reason n1)" = "gpu0 xid79 offbus; reboot [golden]" ]
	run hc n1
	drained n1
	! started n1 # no reboot yet: nothing to validate
	reboot_fixture n1
	standin n1 "result=fail" "code=gpu0 hbm 1.2<2.7TB/s"
	run hc n1
	started n1
	drained n1
	[ "$(golden_node_reason n1)" = "gpu0 hbm 1.2<2.7TB/s; failed validation; active [golden]" ]
	[ "$(ledger n1 'd["hold"]["class"]')" = active ]
	run golden status --node n1
	[[ "$output" == *"golden resumes it after a passing active check"* ]]
	standin n1 result=pass
	run hc n1
	idle n1
	[ "$(ledger n1 'd["resumes"]["active"]')" = 1 ]
}
