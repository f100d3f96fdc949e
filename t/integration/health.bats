#!/usr/bin/env bats
# golden-prolog/golden-epilog as Slurm's Prolog/Epilog on a real local
# cluster, with faults injected the way operators do it: real NVRM lines
# written to /dev/kmsg, a degraded rate written into a node's /sys fixture,
# a fake libnvidia-ml whose call hangs; and what must not be a fault: kernel
# records quoting an ordinary user's text.
#   n1  HGX H100 IB fixture, healthy fake NVML
#   n2  flat-PCIe VM fixture (GPUs 0001:00:00.0 ...), healthy fake NVML
#   n3  HGX H100 IB fixture copied; mlx5_4 degraded to 200G in a test
#   n4  HGX H100 IB fixture; its fake NVML hangs in the ECC call

load ../lib/common

setup_file() {
	golden_require_root
	# Writes the host's /dev/kmsg: one such file at a time per machine.
	golden_kmsg_lock
	export WORK="$BATS_FILE_TMPDIR/work"
	fx="$GOLDEN_BUILDDIR/t/fixtures/out"
	mkdir -p "$WORK/nodes" "$WORK/nvml" "$WORK/out"
	ln -s "$fx/hgx-h100-ib" "$WORK/nodes/n1"
	ln -s "$fx/vm-flat" "$WORK/nodes/n2"
	cp -a "$fx/hgx-h100-ib" "$WORK/nodes/n3"
	ln -s "$fx/hgx-h100-ib" "$WORK/nodes/n4"
	nv="$GOLDEN_SRCDIR/t/fixtures/nvml"
	cp "$nv/healthy-8gpu.json" "$WORK/nvml/n1.json"
	python3 - "$nv/healthy-8gpu.json" "$WORK/nvml/n2.json" <<-'EOP'
	import json, sys
	d = json.load(open(sys.argv[1]))
	d["gpus"] = [dict(d["gpus"][0], bus_id="%04x:00:00.0" % (i + 1)) for i in range(4)]
	json.dump(d, open(sys.argv[2], "w"))
	EOP
	cp "$nv/healthy-8gpu.json" "$WORK/nvml/n3.json"
	cp "$nv/hang-ecc.json" "$WORK/nvml/n4.json"
	golden_scaled_check_deadlines >"$WORK/golden.conf"
	cat >>"$WORK/golden.conf" <<-EOC
	# health checks for the test nodes
	topology = $WORK/nodes/%n/topo.xml
	sysroot = $WORK/nodes/%n/root
	state_dir = $WORK/state/%n
	log = $WORK/log/%n.jsonl
	scontrol = $(command -v scontrol)
	check.gpu-ecc.deadline_ms = $(golden_scaled 1500)
	budget_ms = $(golden_scaled 5000)
	discovery_deadline_ms = $(golden_scaled 3000)
	# four slurmd share this host's kernel log
	xid_scope = node-gpus
	EOC
	chmod 0644 "$WORK/golden.conf"
	# Prolog/Epilog get a bare environment: the wrapper points the same
	# dlopen("libnvidia-ml.so.1") at the fake and picks the node's state.
	for p in prolog epilog; do
		cat >"$WORK/$p" <<-EOW
		#!/bin/sh
		export GOLDEN_CONF=$WORK/golden.conf
		export LD_LIBRARY_PATH=$GOLDEN_BUILDDIR/t/fake-nvml/.libs
		export FAKE_NVML_STATE=$WORK/nvml/\$SLURMD_NODENAME.json
		exec $GOLDEN_BUILDDIR/$p/golden-$p
		EOW
		chmod 0755 "$WORK/$p"
	done
	# Start each node's kernel-log cursors now: faults earlier runs injected
	# are not this run's.
	golden_acknowledge_kmsg "$WORK/golden.conf" n1 n2 n3 n4
	golden_cluster_start --nodes 4 --prolog "$WORK/prolog" --epilog "$WORK/epilog" \
		--conf-extra SchedulerParameters=nohold_on_prolog_fail --cred-expire 10
}

teardown_file() {
	golden_cluster_stop
	golden_kmsg_unlock
}

teardown() {
	golden_dump_logs_on_failure
	# A test that broke golden.conf on purpose puts the good one back.
	if [[ -f $WORK/golden.conf.good ]]; then
		mv -f "$WORK/golden.conf.good" "$WORK/golden.conf"
	fi
}

kmsg() {
	printf '%s\n' "$1" >/dev/kmsg
}

@test "a healthy node runs the job and logs one JSON record per run" {
	jobid=$(golden_sbatch_wait -w n1 -o "$WORK/out/ok.out" --wrap 'echo ran-on-$SLURMD_NODENAME')
	[ "$(golden_job_state "$jobid")" = COMPLETED ]
	grep -qx ran-on-n1 "$WORK/out/ok.out"
	[ "$(golden_node_reason n1)" = "" ]
	run python3 -c 'import json,sys
recs=[json.loads(l) for l in open(sys.argv[1])]
p=[r for r in recs if r.get("job")==sys.argv[2] and r["phase"]=="prolog"]
assert p and p[-1]["result"] in ("ok","warn"), recs[-1]
names={c["name"] for c in p[-1]["checks"]}
assert {"xid","gpu-count","ib-ports"} <= names, names' "$WORK/log/n1.jsonl" "$jobid"
	[ "$status" -eq 0 ]
}

@test "XID 79 on n2's GPU: the next job does not run there, is requeued onto a healthy node, n2 drained with golden's reason" {
	kmsg "NVRM: Xid (PCI:0001:00:00): 79, pid=4242, name=python3, GPU has fallen off the bus."
	# Keep n1 busy so the scheduler's first choice is n2.
	hold=$(sbatch --parsable -o /dev/null -w n1 --exclusive --wrap 'sleep 60')
	golden_wait_node_state n1 'ALLOCATED|MIXED' 30
	jobid=$(sbatch --parsable -o "$WORK/out/xid.out" --wrap 'echo ran-on-$SLURMD_NODENAME')
	# The prolog on n2 fails: Slurm requeues the job and delays its begin
	# time by the credential lifetime (--cred-expire 10 on this cluster).
	for _ in $(seq 60); do
		restarts=$(scontrol -o show job "$jobid" | sed -n 's/.*Restarts=\([0-9]*\).*/\1/p')
		[ "${restarts:-0}" -ge 1 ] && break
		sleep 0.5
	done
	[ "${restarts:-0}" -ge 1 ]
	golden_wait_job "$jobid" 90
	scancel "$hold"
	[ "$(golden_job_state "$jobid")" = COMPLETED ]
	run cat "$WORK/out/xid.out"
	[[ "$output" == ran-on-n[34] ]]
	run sinfo -h -R -n n2 -o '%E'
	[[ "$output" == "gpu0 xid79"* ]]
	[[ "$(golden_node_reason n2)" == *"[golden]" ]]
	[[ "$(golden_node_state n2)" == *DRAIN* ]]
}

@test "a degraded IB rail (200G among 400G) drains the node before the job runs" {
	echo "200 Gb/sec (4X HDR)" >"$WORK/nodes/n3/root/sys/class/infiniband/mlx5_4/ports/1/rate"
	jobid=$(sbatch --parsable -w n3 -o "$WORK/out/rate.out" --wrap 'echo ran')
	golden_wait_node_state n3 'DRAIN' 30
	run sinfo -h -R -n n3 -o '%E'
	[[ "$output" == "mlx5_4 p1 200G<400G"* ]]
	cat "$WORK/out/rate.out" 2>/dev/null || true
	! grep -qx ran "$WORK/out/rate.out" 2>/dev/null
	scancel "$jobid"
}

@test "a hung NVML call costs only its deadline: reported by name, node drained" {
	start=$(date +%s)
	jobid=$(sbatch --parsable -o /dev/null -w n4 --wrap 'echo ran')
	golden_wait_node_state n4 'DRAIN' 40
	run sinfo -h -R -n n4 -o '%E'
	[[ "$output" == "hc gpu-ecc timeout"* ]]
	scancel "$jobid"
	run python3 -c 'import json,sys
r=[json.loads(l) for l in open(sys.argv[1])][-1]
c=[c for c in r["checks"] if c["name"]=="gpu-ecc"][0]
assert c.get("timed_out") and r["duration_ms"] < int(sys.argv[2]), r' "$WORK/log/n4.jsonl" "$(golden_scaled 5000)"
	[ "$status" -eq 0 ]
}

@test "an application XID (13) is recorded for the job and drains nothing" {
	kmsg "NVRM: Xid (PCI:0000:1b:00): 13, pid=777, name=train.py, Graphics Exception: ESR 0x405840=0x1"
	jobid=$(golden_sbatch_wait -o /dev/null -w n1 --wrap 'true')
	[ "$(golden_job_state "$jobid")" = COMPLETED ]
	[ "$(golden_node_reason n1)" = "" ]
	grep -q '"code":"gpu0 xid13' "$WORK/log/n1.jsonl"
}

@test "the epilog attributes an XID raised during the job to that job, without draining" {
	# Written once the script runs: ALLOCATED comes before the prolog, which
	# would then take the line for itself and leave the epilog nothing.
	jobid=$(sbatch --parsable -o /dev/null -w n1 --wrap "touch $WORK/out/xid31.started; sleep 4")
	for _ in $(seq 150); do
		[ -e "$WORK/out/xid31.started" ] && break
		sleep 0.2
	done
	[ -e "$WORK/out/xid31.started" ]
	kmsg "NVRM: Xid (PCI:0000:1b:00): 31, pid=888, name=train.py, MMU Fault: ENGINE GRAPHICS"
	golden_wait_job "$jobid" 60
	[ "$(golden_job_state "$jobid")" = COMPLETED ]
	run python3 -c 'import json,sys
recs=[json.loads(l) for l in open(sys.argv[1])]
e=[r for r in recs if r.get("job")==sys.argv[2] and r["phase"]=="epilog"]
assert e, "no epilog record"
x=[c for c in e[-1]["checks"] if c["name"]=="xid"][0]
assert x["result"]=="warn" and "xid31" in x["code"] and "job "+sys.argv[2] in x["detail"], x' \
		"$WORK/log/n1.jsonl" "$jobid"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(golden_node_reason n1)" = "" ]
}

@test "an admin's own drain is never altered by golden" {
	scontrol update NodeName=n1 State=DRAIN Reason="admin: bios update"
	printf '6,99999999,1,-;NVRM: Xid (PCI:0000:1b:00): 79, pid=1, name=x, GPU has fallen off the bus.\n' \
		>"$WORK/kmsg-fault"
	GOLDEN_CONF=$WORK/golden.conf LD_LIBRARY_PATH=$GOLDEN_BUILDDIR/t/fake-nvml/.libs \
		FAKE_NVML_STATE=$WORK/nvml/n1.json \
		run "$GOLDEN_BUILDDIR/cli/golden" check --node n1 --kmsg "$WORK/kmsg-fault"
	[ "$status" -eq 1 ]
	[[ "$output" == *"left alone"* ]]
	[ "$(golden_node_reason n1)" = "admin: bios update" ]
	scontrol update NodeName=n1 State=RESUME
}

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

@test "kernel records quoting an ordinary user's text drain nothing; a logger's forward neither" {
	# The admin test's --kmsg FILE run keyed n1's cursor to the fixture's
	# boot: look only at what comes from here on.
	GOLDEN_CONF=$WORK/golden.conf "$GOLDEN_BUILDDIR/cli/golden" check --node n1 \
		--acknowledge-kmsg >/dev/null
	mark="golden-quote-$$-$RANDOM"
	user_mount_option "NVRM: Xid (PCI:0000:1b:00): 79 GPU has fallen off the bus. $mark"
	user_mount_option "NVRM: GPU 0000:43:00.0: GPU has fallen off the bus. $mark"
	user_mount_option "nvidia-nvswitch0: SXid (PCI:0000:1b:00.0): 24007 Fatal $mark"
	dmesg | grep -q "Unknown parameter 'NVRM: Xid (PCI:0000:1b:00): 79 GPU has fallen off the bus. $mark'" ||
		skip "this kernel does not log rejected mount options"
	# A logging daemon forwards a user's message as IDENT[PID]: TEXT, with an
	# identifier the user chose (journald ForwardToKMsg): the same write.
	printf '<14>NVRM: Xid (PCI:0000:1b:00): 79, pid=1, name=x, GPU has fallen off the bus.[4242]: %s\n' \
		"$mark" >/dev/kmsg
	jobid=$(golden_sbatch_wait -w n1 -o "$WORK/out/quote.out" --wrap 'echo ran-on-$SLURMD_NODENAME')
	[ "$(golden_job_state "$jobid")" = COMPLETED ]
	grep -qx ran-on-n1 "$WORK/out/quote.out"
	[ "$(golden_node_reason n1)" = "" ]
	run python3 -c 'import json,sys
recs=[json.loads(l) for l in open(sys.argv[1])]
p=[r for r in recs if r.get("job")==sys.argv[2] and r["phase"]=="prolog"][-1]
x=[c for c in p["checks"] if c["name"]=="xid"][0]
assert x["result"]=="ok" and "no new GPU faults" in x["detail"], x' "$WORK/log/n1.jsonl" "$jobid"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "golden check --no-drain is a dry run: the next prolog still sees the fault and drains" {
	kmsg "NVRM: Xid (PCI:0000:43:00): 79, pid=4245, name=python3, GPU has fallen off the bus."
	GOLDEN_CONF=$WORK/golden.conf LD_LIBRARY_PATH=$GOLDEN_BUILDDIR/t/fake-nvml/.libs \
		FAKE_NVML_STATE=$WORK/nvml/n1.json \
		run "$GOLDEN_BUILDDIR/cli/golden" check --node n1 --no-drain
	[ "$status" -eq 1 ]
	[[ "$output" == *"reason: gpu1 xid79 offbus"* ]]
	[[ "$output" == *"nothing consumed"* ]]
	[ "$(golden_node_reason n1)" = "" ]
	jobid=$(sbatch --parsable -o /dev/null -w n1 --wrap 'echo ran')
	golden_wait_node_state n1 'DRAIN' 30
	[ "$(golden_node_reason n1)" = "gpu1 xid79 offbus; reboot [golden]" ]
	scancel "$jobid"
	# n1 back for the tests below, as an operator does after the reboot.
	scontrol update NodeName=n1 State=RESUME
}

@test "a scontrol that closes stdout and keeps running cannot hang the prolog past its deadline" {
	cat >"$WORK/scontrol-hang" <<-'EOS'
	#!/bin/sh
	# stdout closed, still running: a scontrol waiting on a dead controller
	exec >&-
	sleep 600
	EOS
	chmod 0755 "$WORK/scontrol-hang"
	{
		grep -v -e '^scontrol' -e '^state_dir' -e '^log' "$WORK/golden.conf"
		printf 'scontrol = %s\nstate_dir = %s/state-hang\nlog = %s/log/hang.jsonl\n' \
			"$WORK/scontrol-hang" "$WORK" "$WORK"
	} >"$WORK/golden-hang.conf"
	chmod 0644 "$WORK/golden-hang.conf"
	printf '4,1,1,-;NVRM: Xid (PCI:0000:1b:00): 79, pid=1, name=x, GPU has fallen off the bus.\n' \
		>"$WORK/kmsg-hang"
	SLURM_JOB_ID=999 GOLDEN_CONF=$WORK/golden-hang.conf \
		LD_LIBRARY_PATH=$GOLDEN_BUILDDIR/t/fake-nvml/.libs FAKE_NVML_STATE=$WORK/nvml/n1.json \
		run timeout 120 "$GOLDEN_BUILDDIR/prolog/golden-prolog" --node n1 --kmsg "$WORK/kmsg-hang"
	echo "$output"
	# 1: the check failed and the drain is owed; 124 would be the timeout
	[ "$status" -eq 1 ]
	[[ "$output" == *"drain owed"* ]]
	# the stuck scontrol was killed with its process group, not left behind
	! pgrep -f "$WORK/scontrol-hang"
}

# Last in this file: it leaves n1 drained for the XID it injects.
@test "a typo in golden.conf: jobs still run, nothing drains (no 'Prolog error'), the error is logged, and a pending fault is kept" {
	cp "$WORK/golden.conf" "$WORK/golden.conf.good"
	printf 'ib_rat = 400\n' >>"$WORK/golden.conf"
	where="$WORK/golden.conf:$(wc -l <"$WORK/golden.conf"): unknown key 'ib_rat'"
	# A fault logged while the configuration is broken: no check runs, so it
	# must still be there for the first run after the fix.
	kmsg "NVRM: Xid (PCI:0000:1b:00): 79, pid=4245, name=python3, GPU has fallen off the bus."
	jobid=$(golden_sbatch_wait -w n1 -o "$WORK/out/typo.out" --wrap 'echo ran-on-$SLURMD_NODENAME')
	# And as an ordinary user.
	userjob=$(runuser -u nobody -- sbatch --parsable --chdir=/tmp -w n1 -o /dev/null --wrap true)
	golden_wait_job "$userjob"
	[ "$(golden_job_state "$jobid")" = COMPLETED ]
	[ "$(golden_job_state "$userjob")" = COMPLETED ]
	grep -qx ran-on-n1 "$WORK/out/typo.out"
	[ "$(golden_node_reason n1)" = "" ]
	[[ "$(golden_node_state n1)" != *DRAIN* ]]
	run sinfo -h -R -o '%E'
	[[ "$output" != *"Prolog error"* && "$output" != *"Epilog error"* ]]
	# The prolog's and epilog's records say why no check ran (the epilog's
	# may land just after the job is reported done).
	for _ in $(seq 50); do
		grep -q "\"job\":\"$jobid\",\"phase\":\"epilog\"" "$WORK/log/n1.jsonl" && break
		sleep 0.2
	done
	run python3 -c 'import json,sys
recs=[json.loads(l) for l in open(sys.argv[1]) if json.loads(l).get("job")==sys.argv[2]]
assert sorted(r["phase"] for r in recs)==["epilog","prolog"], recs
for r in recs:
    assert r["result"]=="config-error" and r["checks"]==[] and sys.argv[3] in r["config_error"], r' \
		"$WORK/log/n1.jsonl" "$jobid" "$where"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	# HealthCheckProgram as slurmd runs it: exit 2 (slurmd only logs that), no drain.
	run env -i SLURMD_NODENAME=n1 SLURM_CONF="$SLURM_CONF" GOLDEN_CONF="$WORK/golden.conf" \
		"$GOLDEN_BUILDDIR/cli/golden" check --healthcheck
	[ "$status" -eq 2 ]
	[[ "$output" == *"$where"* ]]
	[ "$(golden_node_reason n1)" = "" ]
	# By hand: refused with FILE:LINE.
	GOLDEN_CONF=$WORK/golden.conf run "$GOLDEN_BUILDDIR/cli/golden" check --node n1
	[ "$status" -eq 2 ]
	[[ "$output" == "golden check: $where"* ]]
	# Fixed: the next job's prolog finds the fault logged meanwhile.
	mv -f "$WORK/golden.conf.good" "$WORK/golden.conf"
	jobid=$(sbatch --parsable -o /dev/null -w n1 --wrap true)
	golden_wait_node_state n1 'DRAIN' 30
	scancel "$jobid"
	run sinfo -h -R -n n1 -o '%E'
	[[ "$output" == "gpu0 xid79"* ]]
}
