#!/usr/bin/env bats
# golden-prolog/golden-epilog as Slurm's Prolog/Epilog on a real local
# cluster, with faults injected the way operators do it: real NVRM lines
# written to /dev/kmsg, a degraded rate written into a node's /sys fixture,
# a fake libnvidia-ml whose call hangs.
#   n1  HGX H100 IB fixture, healthy fake NVML
#   n2  flat-PCIe VM fixture (GPUs 0001:00:00.0 ...), healthy fake NVML
#   n3  HGX H100 IB fixture copied; mlx5_4 degraded to 200G in a test
#   n4  HGX H100 IB fixture; its fake NVML hangs in the ECC call

load ../lib/common

setup_file() {
	golden_require_root
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
	cat >"$WORK/golden.conf" <<-EOC
	# health checks for the test nodes
	topology = $WORK/nodes/%n/topo.xml
	sysroot = $WORK/nodes/%n/root
	state_dir = $WORK/state/%n
	log = $WORK/log/%n.jsonl
	scontrol = $(command -v scontrol)
	check.gpu-ecc.deadline_ms = 1500
	budget_ms = 5000
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
	# Start each node's kernel-log cursor now: faults earlier runs injected
	# are not this run's.
	for n in n1 n2 n3 n4; do
		GOLDEN_CONF=$WORK/golden.conf LD_LIBRARY_PATH=$GOLDEN_BUILDDIR/t/fake-nvml/.libs \
			FAKE_NVML_STATE=$WORK/nvml/n1.json \
			"$GOLDEN_BUILDDIR/cli/golden" check --node "$n" --no-drain >/dev/null || true
	done
	golden_cluster_start --nodes 4 --prolog "$WORK/prolog" --epilog "$WORK/epilog" \
		--conf-extra SchedulerParameters=nohold_on_prolog_fail --cred-expire 10
}

teardown_file() {
	golden_cluster_stop
}

teardown() {
	golden_dump_logs_on_failure
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
assert c.get("timed_out") and r["duration_ms"] < 5000, r' "$WORK/log/n4.jsonl"
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
	jobid=$(sbatch --parsable -o /dev/null -w n1 --wrap 'sleep 4')
	golden_wait_node_state n1 'ALLOCATED|MIXED' 30
	# The node shows ALLOCATED before its prolog has run: inject only once
	# the prolog has looked, or the prolog may take the line for its own.
	for _ in $(seq 150); do
		grep -q "\"job\":\"$jobid\",\"phase\":\"prolog\"" "$WORK/log/n1.jsonl" && break
		sleep 0.2
	done
	grep -q "\"job\":\"$jobid\",\"phase\":\"prolog\"" "$WORK/log/n1.jsonl"
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
