#!/usr/bin/env bats
# The cluster's topology for Slurm on real local clusters.
#
# Four GB200 trays n1..n4 (fixtures gb200-n1..n4: four rails each, GUIDs
# of the generated test fabric, trap NodeDescriptions), racks n[1-2] and
# n[3-4] (the fake NVML serves each rack's NVLink domain), cabled to a
# rail-optimised fabric simulated by ibsim (t/fixtures/ibsim/mkfabric.py
# --preset minicluster: units su1 = n[1-2], su2 = n[3-4]).
#
# On this host (Slurm 22.05): facts gathered through srun and from the
# health check's files, the real ibnetdiscover under ibsim, topology.conf
# written by golden, slurmctld scheduling --switches=1 inside one leaf, the
# check against the running controller, a recabling found and fixed.
# In the Slurm environments of contrib/slurm-env (Debian trixie: 24.11,
# forky/sid: 26.05), when they exist: real slurmctld parses golden's block
# topology.conf and topology.yaml, and --segment jobs land inside a rack.

load ../lib/common
load ../lib/ibsim

setup_file() {
	golden_require_root
	export WORK="$BATS_FILE_TMPDIR/work"
	export FX="$GOLDEN_BUILDDIR/t/fixtures/out" FAB="$GOLDEN_BUILDDIR/t/fixtures/fabric"
	export GOLDEN="$GOLDEN_BUILDDIR/cli/golden"
	mkdir -p "$WORK/nvml" "$WORK/state" "$WORK/metrics"
	# Clusters inside the Slurm environments live below WORK: munged needs
	# every directory above its socket searchable.
	_golden_open_path "$WORK"
	chmod 0755 "$WORK"
	for n in n1 n2; do cp "$GOLDEN_SRCDIR/t/fixtures/nvml/gb200-rack-a.json" "$WORK/nvml/$n.json"; done
	for n in n3 n4; do cp "$GOLDEN_SRCDIR/t/fixtures/nvml/gb200-rack-b.json" "$WORK/nvml/$n.json"; done
	cat >"$WORK/golden.conf" <<-EOC
	topology = $FX/gb200-%n/topo.xml
	sysroot = $FX/gb200-%n/root
	state_dir = $WORK/state/%n
	log = $WORK/log/%n.jsonl
	scontrol = $(command -v scontrol)
	EOC
	chmod 0644 "$WORK/golden.conf"
	# Steps and HealthCheckProgram see each node's own NVML state.
	export LD_LIBRARY_PATH=$GOLDEN_BUILDDIR/t/fake-nvml/.libs
	export FAKE_NVML_STATE=$WORK/nvml/%n.json
	export GOLDEN_CONF=$WORK/golden.conf
	golden_cluster_start --nodes 4
	export CLUSTER=$GOLDEN_CLUSTER_DIR
}

teardown_file() {
	golden_cluster_stop
}

teardown() {
	golden_ibsim_stop
	golden_dump_logs_on_failure
}

gather() {
	"$GOLDEN" topology gather --topology "$FX/gb200-%n/topo.xml" --sysroot "$FX/gb200-%n/root" \
		--timeout 30 "$@"
}

# job_nodes JOBID: the nodes a finished job ran on.
job_nodes() {
	scontrol -o show job "$1" | grep -o ' NodeList=[^ ]*' | cut -d= -f2
}

# A job holding n1 whole, then a 2-node job: where does it go?
two_node_job() { # two_node_job [SBATCH OPTIONS...] -> prints the nodes
	local hold job
	hold=$(sbatch --parsable --exclusive -w n1 -o /dev/null --wrap 'sleep 300')
	golden_wait_node_state n1 'ALLOCATED' 30 >/dev/null
	job=$(runuser -u nobody -- sbatch --parsable --exclusive -N2 -D /tmp -o /dev/null \
		"$@" --wrap hostname)
	golden_wait_job "$job" >/dev/null
	scancel "$hold"
	golden_wait_node_state n1 'IDLE' 30 >/dev/null
	job_nodes "$job"
}

@test "gather through srun: one short step per node, each node's own GUIDs and NVLink domain" {
	run --separate-stderr gather --nodes 'n[1-4]' --out "$WORK/facts.json"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"4 of 4 node(s) answered"* ]]
	python3 - "$WORK/facts.json" <<-'EOP'
	import json, sys
	d = json.load(open(sys.argv[1]))
	assert d["method"] == "srun" and sorted(d["nodes"]) == ["n1", "n2", "n3", "n4"], d.keys()
	def port(n, dev):
	    return [x for x in d["nodes"][n]["nics"] if x["name"] == dev][0]["ports"][0]["port_guid"]
	assert port("n2", "mlx5_1") == "0x0002c90300002011"
	assert port("n4", "mlx5_4") == "0x0002c90300004031"
	dom = {n: d["nodes"][n]["nvlink"]["domain"] for n in d["nodes"]}
	assert dom["n1"] == dom["n2"] != dom["n3"] == dom["n4"], dom
	assert dom["n1"] == "5b0f6c1e-2d3a-4e8b-9c47-1a2b3c4d5e6f.1"
	EOP
}

@test "gather: a node that cannot run a step is listed with why, not dropped" {
	scontrol update nodename=n4 state=drain reason=topology-test
	run --separate-stderr gather --partition debug --out "$WORK/facts-3.json"
	scontrol update nodename=n4 state=resume
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"3 of 4 node(s) answered; did not answer:"* ]]
	[[ "$stderr" == *"n4: srun: "* ]]
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert sorted(d["nodes"])==["n1","n2","n3"] and "n4" in d["unanswered"], d["unanswered"]' "$WORK/facts-3.json"
}

@test "the health check leaves facts; gather --facts-dir reads the same as srun" {
	for n in n1 n2 n3 n4; do
		SLURMD_NODENAME=$n "$GOLDEN" check --healthcheck --node "$n" --no-drain >/dev/null || true
		[ -s "$WORK/state/$n/topology-facts.json" ]
	done
	run --separate-stderr "$GOLDEN" topology gather --nodes 'n[1-4]' --facts-dir "$WORK/state/%n" \
		--out "$WORK/facts-files.json"
	[ "$status" -eq 0 ]
	python3 - "$WORK/facts.json" "$WORK/facts-files.json" <<-'EOP'
	import json, sys
	a, b = (json.load(open(p))["nodes"] for p in sys.argv[1:3])
	def key(d):
	    return {n: (sorted(p["port_guid"] for x in v["nics"] for p in x["ports"] if p.get("port_guid")),
	                v["nvlink"]["domain"]) for n, v in d.items()}
	assert key(a) == key(b), (key(a), key(b))
	EOP
}

@test "without a topology, a 2-node job takes n2+n3 across both leaves (the baseline)" {
	nodes=$(two_node_job --switches=1)
	[ "$nodes" = "n[2-3]" ]
}

@test "the real ibnetdiscover (ibsim) + facts: topology.conf written; slurmctld 22.05 keeps --switches=1 inside one leaf" {
	golden_ibsim_available || skip "ibsim-utils / infiniband-diags not installed"
	golden_ibsim_start "$FAB/minicluster.net"
	golden_ibsim_run H-0002c90300001000 ibnetdiscover >"$WORK/fabric.dump" 2>/dev/null
	run "$GOLDEN" topology build --facts "$WORK/facts.json" --ibnetdiscover "$WORK/fabric.dump" \
		--write "$WORK/topology.conf"
	[ "$status" -eq 0 ]
	[[ "$output" == *"$WORK/topology.conf written"* ]]
	grep -qx 'SwitchName=su1-leaf-r0 Nodes=n\[1-2\]' "$WORK/topology.conf"
	grep -qx 'SwitchName=su2-leaf-r0 Nodes=n\[3-4\]' "$WORK/topology.conf"
	# The cluster has no topology yet: the check says so (exit 1).
	run "$GOLDEN" topology check --facts "$WORK/facts.json" --ibnetdiscover "$WORK/fabric.dump"
	[ "$status" -eq 1 ]
	[[ "$output" == *"no-tree"*"Slurm has no switches"* ]]
	"$GOLDEN_MINICLUSTER" stop "$CLUSTER"
	"$GOLDEN_MINICLUSTER" start "$CLUSTER" --nodes 4 --port-base "$GOLDEN_PORT_BASE" \
		--topology "$WORK/topology.conf" --conf-extra TopologyPlugin=topology/tree >/dev/null
	run scontrol show topology
	[[ "$output" == *"SwitchName=su1-leaf-r0 Level=0 LinkSpeed=1 Nodes=n[1-2]"* ]]
	nodes=$(two_node_job --switches=1)
	[ "$nodes" = "n[3-4]" ]
}

@test "check against the running controller: consistent, exit 0, metric 0" {
	[ -s "$WORK/fabric.dump" ] || skip "needs the ibsim dump of the previous test"
	run "$GOLDEN" topology check --facts "$WORK/facts.json" --ibnetdiscover "$WORK/fabric.dump" \
		--metrics-dir "$WORK/metrics"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "0 mismatches between Slurm's topology (3 switches, 0 blocks) and the discovered fabric (4 nodes)"* ]]
	[ "$(awk '/^slurm_golden_topology_mismatches{/ { s += $2 } END { print s }' "$WORK/metrics/slurm_golden_topology.prom")" = 0 ]
}

@test "recabling: check finds n2, n3 under wrong leaves; --write + reconfigure fixes it; a rerun changes nothing" {
	golden_ibsim_available || skip "ibsim-utils / infiniband-diags not installed"
	[ -s "$WORK/topology.conf" ] || skip "needs the topology.conf of the previous tests"
	golden_ibsim_start "$FAB/minicluster-recabled.net"
	golden_ibsim_run H-0002c90300001000 ibnetdiscover >"$WORK/recabled.dump" 2>/dev/null
	run "$GOLDEN" topology check --facts "$WORK/facts.json" --ibnetdiscover "$WORK/recabled.dump" \
		--json --metrics-dir "$WORK/metrics"
	[ "$status" -eq 1 ]
	python3 -c 'import json,sys; d=json.loads(sys.argv[1]); k=sorted((m["kind"], m["subject"]) for m in d["details"]); assert k==[("wrong-leaf","n2"),("wrong-leaf","n3")], k' "$output"
	[ "$(awk '/^slurm_golden_topology_mismatches{/ { s += $2 } END { print s }' "$WORK/metrics/slurm_golden_topology.prom")" = 2 ]
	run "$GOLDEN" topology build --facts "$WORK/facts.json" --ibnetdiscover "$WORK/recabled.dump" \
		--write "$CLUSTER/etc/topology.conf"
	[ "$status" -eq 0 ]
	[[ "$output" == *"+SwitchName=su1-leaf-r0 Nodes=n[1,3]"* ]]
	scontrol reconfigure
	for i in $(seq 1 50); do
		scontrol show topology 2>/dev/null | grep -q 'Nodes=n\[1,3\]' && break
		sleep 0.2
	done
	run "$GOLDEN" topology check --facts "$WORK/facts.json" --ibnetdiscover "$WORK/recabled.dump"
	[ "$status" -eq 0 ]
	run "$GOLDEN" topology build --facts "$WORK/facts.json" --ibnetdiscover "$WORK/recabled.dump" \
		--write "$CLUSTER/etc/topology.conf"
	[ "$status" -eq 0 ]
	[[ "$output" == *"unchanged: not rewritten (no reconfigure needed)"* ]]
}

# ------------------------------------------------ newer Slurm (slurm-env)

: "${SLURM_ENV:=$GOLDEN_SRCDIR/contrib/env/slurm-env}"

# env_ready SUITE: the Slurm environment exists, else the test is skipped
# saying so; ENV_VERSION is its Slurm version.
env_ready() {
	local dir
	[[ -x $SLURM_ENV ]] || skip "no Slurm environments: $SLURM_ENV not found (set SLURM_ENV)"
	dir=$("$SLURM_ENV" path "$1" 2>/dev/null) || skip "slurm-env has no $1"
	[[ -f $dir/.slurm-env-stamp && -x $dir/usr/sbin/slurmctld ]] ||
		skip "the $1 environment is not built ($SLURM_ENV build $1)"
	ENV_VERSION=$(sed -n 's/^slurm=//p' "$dir/.slurm-env-stamp")
}

# in_env SUITE SCRIPT: run a script of the checks below inside the chroot
# (the work directory and this tree are visible at the same paths).
in_env() {
	"$SLURM_ENV" run "$1" --tree "$GOLDEN_SRCDIR" --tree "$WORK" --tree "$GOLDEN_BUILDDIR" \
		--env GOLDEN_PORT_BASE="$GOLDEN_PORT_BASE" -- bash "$2"
}

# A cluster inside the chroot with FILE next to slurm.conf: show its
# topology, and where a -N2 --segment=2 job goes while n1 is busy.
env_script() { # env_script OUTDIR TOPOLOGY_FILE [slurm.conf line]
	cat <<-EOS
	set -u
	out=$1
	mkdir -p "\$out" && chmod 0755 "\$out"
	c=$WORK/env-cluster
	rm -rf "\$c"; mkdir -p "\$c"; chmod 0755 "\$c"
	mc=$GOLDEN_MINICLUSTER
	slurmctld -V >"\$out/version"
	if ! "\$mc" start "\$c" --nodes 4 --port-base "\$GOLDEN_PORT_BASE" --topology $2 ${3:+--conf-extra $3} >"\$out/start.log" 2>&1; then
		echo fail >"\$out/started"
		cp "\$c"/log/slurmctld.log "\$out/" 2>/dev/null
		"\$mc" stop "\$c" >/dev/null 2>&1
		exit 0
	fi
	echo ok >"\$out/started"
	export SLURM_CONF=\$c/etc/slurm.conf
	scontrol show topoconf >"\$out/topoconf" 2>/dev/null || true
	for t in \$(sed -n 's/^- topology: *//p' "\$out/topoconf"); do scontrol show topology "\$t"; done >"\$out/show" 2>&1
	[ -s "\$out/show" ] || scontrol show topology >"\$out/show" 2>&1
	hold=\$(sbatch --parsable --exclusive -w n1 -o /dev/null --wrap 'sleep 300' </dev/null)
	for i in \$(seq 1 100); do scontrol -o show job "\$hold" | grep -q JobState=RUNNING && break; sleep 0.2; done
	job=\$(runuser -u nobody -- sbatch --parsable --exclusive -N2 --segment=2 -D /tmp -o /dev/null --wrap hostname </dev/null)
	for i in \$(seq 1 150); do scontrol -o show job "\$job" | grep -q 'JobState=COMPLETED' && break; sleep 0.2; done
	scontrol -o show job "\$job" | grep -o ' NodeList=[^ ]*' | cut -d= -f2 >"\$out/segment-nodes"
	scancel "\$hold"
	"\$mc" stop "\$c" >/dev/null
	EOS
}

@test "Slurm 24.11 (trixie): golden's block topology.conf is parsed and --segment=2 stays in a rack" {
	env_ready trixie
	version=$ENV_VERSION
	golden_cluster_stop
	run "$GOLDEN" topology build --facts "$WORK/facts.json" --slurm-version "$version" \
		--plugin block --out "$WORK/trixie-topology.conf"
	[ "$status" -eq 0 ]
	mkdir -p "$WORK/trixie" && cp "$WORK/trixie-topology.conf" "$WORK/trixie/topology.conf"
	env_script "$WORK/trixie/out" "$WORK/trixie/topology.conf" TopologyPlugin=topology/block >"$WORK/trixie.sh"
	in_env trixie "$WORK/trixie.sh"
	[ "$(cat "$WORK/trixie/out/started")" = ok ]
	grep -q 'slurm-wlm 24.11' "$WORK/trixie/out/version"
	grep -q '^BlockName=nvl-5b0f6c1e-1 BlockIndex=0 Nodes=n\[1-2\] BlockSize=2' "$WORK/trixie/out/show"
	[ "$(cat "$WORK/trixie/out/segment-nodes")" = "n[3-4]" ]
	run "$GOLDEN" topology check --facts "$WORK/facts.json" --slurm-version "$version" \
		--show-topology "$WORK/trixie/out/show"
	[ "$status" -eq 0 ]
}

@test "Slurm 24.11: a rack short of the base size is left out by golden; written in, slurmctld refuses to start" {
	env_ready trixie
	version=$ENV_VERSION
	# n4's fabric registration is still in progress: rack B has one ready tray.
	python3 - "$WORK/facts.json" "$WORK/facts-short.json" <<-'EOP'
	import json, sys
	d = json.load(open(sys.argv[1]))
	nv = d["nodes"]["n4"]["nvlink"]
	nv.update(attached=False, state="in-progress", domain=None, why="NVLink fabric registration in progress")
	json.dump(d, open(sys.argv[2], "w"))
	EOP
	run "$GOLDEN" topology build --facts "$WORK/facts-short.json" --slurm-version "$version" \
		--plugin block --block-sizes 2,4 --out "$WORK/short.conf"
	[ "$status" -eq 0 ]
	grep -q '^# left out: BlockName=nvl-9e8d7c6b-1 Nodes=n3 (1 nodes < base block size 2' "$WORK/short.conf"
	mkdir -p "$WORK/short-ok" "$WORK/short-bad"
	cp "$WORK/short.conf" "$WORK/short-ok/topology.conf"
	sed 's/^# left out: \(BlockName=[^ ]* Nodes=[^ ]*\) .*/\1/' "$WORK/short.conf" >"$WORK/short-bad/topology.conf"
	grep -q '^BlockName=nvl-9e8d7c6b-1 Nodes=n3$' "$WORK/short-bad/topology.conf"
	env_script "$WORK/short-ok/out" "$WORK/short-ok/topology.conf" TopologyPlugin=topology/block >"$WORK/ok.sh"
	env_script "$WORK/short-bad/out" "$WORK/short-bad/topology.conf" TopologyPlugin=topology/block >"$WORK/bad.sh"
	in_env trixie "$WORK/ok.sh"
	in_env trixie "$WORK/bad.sh"
	[ "$(cat "$WORK/short-ok/out/started")" = ok ]
	[ "$(cat "$WORK/short-bad/out/started")" = fail ]
	grep -q 'children count lower than bblock_node_cnt' "$WORK/short-bad/out/slurmctld.log"
}

@test "Slurm 26.05 (forky/sid): golden's topology.yaml (tree + block) is parsed; --segment=2 stays in a rack" {
	suite=forky
	[[ -d $("$SLURM_ENV" path forky 2>/dev/null)/usr/sbin ]] || suite=sid
	env_ready "$suite"
	version=$ENV_VERSION
	golden_cluster_stop
	[ -s "$WORK/fabric.dump" ] || skip "needs the ibsim dump (ibsim-utils not installed)"
	mkdir -p "$WORK/$suite"
	run "$GOLDEN" topology build --facts "$WORK/facts.json" --ibnetdiscover "$WORK/fabric.dump" \
		--slurm-version "$version" --out "$WORK/$suite/topology.yaml"
	[ "$status" -eq 0 ]
	env_script "$WORK/$suite/out" "$WORK/$suite/topology.yaml" >"$WORK/$suite.sh"
	in_env "$suite" "$WORK/$suite.sh"
	[ "$(cat "$WORK/$suite/out/started")" = ok ]
	grep -q 'slurm-wlm 26' "$WORK/$suite/out/version"
	grep -q '^- topology: nvlink' "$WORK/$suite/out/topoconf"
	grep -q '^SwitchName=su1-leaf-r0 Level=0 LinkSpeed=0 Nodes=n\[1-2\]' "$WORK/$suite/out/show"
	grep -q '^BlockName=nvl-5b0f6c1e-1 BlockIndex=0 Nodes=n\[1-2\] BlockSize=2' "$WORK/$suite/out/show"
	[ "$(cat "$WORK/$suite/out/segment-nodes")" = "n[3-4]" ]
	run "$GOLDEN" topology check --facts "$WORK/facts.json" --ibnetdiscover "$WORK/fabric.dump" \
		--slurm-version "$version" --show-topology "$WORK/$suite/out/show"
	[ "$status" -eq 0 ]
}
