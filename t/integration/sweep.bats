#!/usr/bin/env bats
# golden sweep run / locate on a real local Slurm cluster: munged, slurmctld
# and four slurmd, the golden_nccl plugin in plugstack.conf (every node an
# HGX H100 fixture, so --golden-nccl gives hgx-h100-h200-ib's environment),
# and, in place of nccl-tests (no GPU here), t/sweep/nccl-tests-standin: it
# replays published nccl-tests runs from t/fixtures/nccl-tests/ chosen by
# the job's node count and by whether the plugin set the golden environment,
# and can make one node (one of its rails) the slow one or a step hang.
#
# The replays (NVIDIA/nccl-tests#309, 8x H100 + 8x 400G IB per node):
#   2 nodes, golden:  gj-aion's 2-node run with NCCL_ALGO=Ring (392.7 GB/s)
#   2 nodes, default: gj-aion's 2-node run, NCCL's defaults (466.7 GB/s)
#   4 nodes, golden:  qoofyk's 4-node run (365.8 GB/s, 2 MiB dip)
#   4 nodes, default: gj-aion's 4-node run (325.9 GB/s)
# so a golden environment that forced Ring would be slower than NCCL's
# defaults on 2 nodes, and the defaults scale badly from 2 to 4.

load ../lib/common

FX=""
GJ=""
QO=""

plugstack_line() {
	echo "required $GOLDEN_BUILDDIR/spank/.libs/golden_nccl.so recipes=$WORK/recipes" \
		"topology=$WORK/nodes/%n/topo.xml sysroot=$WORK/nodes/%n/root cache=off" \
		"discovery_deadline_ms=$(golden_scaled 10000)"
}

# tests_dir NAME [CONF-LINE...]: a directory of stand-in nccl-tests binaries
# replaying base_replays plus the extra lines.
tests_dir() {
	local d=$WORK/$1
	shift
	install -d -m 0755 "$d"
	install -m 0755 "$GOLDEN_SRCDIR/t/sweep/nccl-tests-standin" "$d/all_reduce_perf"
	{
		base_replays
		printf '%s\n' "$@"
	} >"$d/replay.conf"
	chmod 0644 "$d/replay.conf"
	echo "$d"
}

base_replays() {
	printf '%s\n' \
		"replay 2 golden $GJ 5" \
		"replay 2 default $GJ 2" \
		"replay 4 golden $QO 2" \
		"replay 4 default $GJ 3" \
		"replay 1 * $FX/superbench-dgxa100-1n-allreduce-v2019fmt.log 1"
}

golden() {
	"$GOLDEN_BUILDDIR/cli/golden" "$@"
}

as_user() {
	runuser -u nobody -- env SLURM_CONF="$SLURM_CONF" PATH="$PATH" GOLDEN_CONF="$GOLDEN_CONF" "$@"
}

setup_file() {
	golden_require_root
	FX=$GOLDEN_SRCDIR/t/fixtures/nccl-tests
	GJ=$FX/nccltests309-h100-ndr-gjaion-8n-2n-4n-8n-ring-dip-8m.log
	QO=$FX/nccltests309-h100-ndr-qoofyk-2n-4n-vm.log
	export FX GJ QO
	export WORK="$BATS_FILE_TMPDIR/work"
	install -d -m 0755 "$WORK" "$WORK/nodes" "$WORK/recipes"
	chmod go+x "$BATS_FILE_TMPDIR"
	install -m 0644 "$GOLDEN_SRCDIR"/recipes/*.json "$WORK/recipes/"
	for n in n1 n2 n3 n4; do
		ln -s "$GOLDEN_BUILDDIR/t/fixtures/out/hgx-h100-ib" "$WORK/nodes/$n"
	done
	tests_dir base >/dev/null
	tests_dir slow "slow n3 0.3 mlx5_4" >/dev/null
	tests_dir hang "hang 4 golden" >/dev/null
	cat >"$WORK/golden.conf" <<-EOC
	state_dir = $WORK/state/%n
	log = $WORK/log/%n.jsonl
	scontrol = $(command -v scontrol)
	nccl_tests_dir = $WORK/base
	flap_count = 0
	EOC
	chmod 0644 "$WORK/golden.conf"
	export GOLDEN_CONF=$WORK/golden.conf
	golden_cluster_start --nodes 4 --plugstack-line "$(plugstack_line)"
}

teardown_file() {
	golden_cluster_stop
}

teardown() {
	golden_dump_logs_on_failure
}

RUN_OPTS=(--gpus-per-node 1 --launcher "srun --mpi=none" --min-bytes 1M --max-bytes 8G)

@test "sweep run --compare-default: 2 and 4 nodes, golden and NCCL's defaults interleaved, analysed and plotted" {
	out=$WORK/run-ab
	run golden sweep run --out "$out" --nodes 4 --min-nodes 2 --compare-default \
		"${RUN_OPTS[@]}" --format json
	echo "$output" | tail -40
	[ "$status" -eq 1 ]
	# One log per step, golden's own line first; the plugin set the golden
	# environment exactly in the golden steps.
	for f in all_reduce-2n-golden all_reduce-2n-default all_reduce-4n-golden all_reduce-4n-default; do
		[ -s "$out/$f.log" ]
		head -1 "$out/$f.log" | grep -q '^# golden-sweep: run collective=all_reduce_perf'
	done
	grep -q 'env=golden recipe=hgx-h100-h200-ib' "$out/all_reduce-2n-golden.log"
	grep -q 'env=default recipe=-' "$out/all_reduce-2n-default.log"
	grep -q 'nodelist=n\[1-2\] ' "$out/all_reduce-2n-golden.log"
	grep -q 'nodelist=n\[1-4\] ' "$out/all_reduce-4n-default.log"
	grep -q '^# golden-sweep: end exit=0' "$out/all_reduce-4n-golden.log"
	# Interleaved A/B, the pair's order alternating: golden, default, default, golden.
	[ "$(grep -ho 'step=[0-9]*/4' "$out"/all_reduce-2n-golden.log)" = step=1/4 ]
	[ "$(grep -ho 'step=[0-9]*/4' "$out"/all_reduce-2n-default.log)" = step=2/4 ]
	[ "$(grep -ho 'step=[0-9]*/4' "$out"/all_reduce-4n-default.log)" = step=3/4 ]
	[ "$(grep -ho 'step=[0-9]*/4' "$out"/all_reduce-4n-golden.log)" = step=4/4 ]
	# The analysis: golden slower than NCCL's defaults on 2 nodes (Ring vs
	# tree), the defaults scale badly 2 -> 4, the 2 MiB dip of the 4-node run.
	python3 - "$out/report.json" <<-'EOP'
	import json, sys
	r = json.load(open(sys.argv[1]))
	runs = {x["run"]: x for x in r["runs"]}
	kinds = [(f["kind"], runs[f["run"]]["nodes"], runs[f["run"]].get("env")) for f in r["findings"]]
	print(kinds)
	assert ("slower-than-default", 2, "golden") in kinds
	assert ("scaling", 4, "default") in kinds
	assert ("dip", 4, "golden") in kinds
	assert not [k for k in kinds if k[0] == "slower-than-default" and k[1] == 4]
	assert not [k for k in kinds if k[0] == "scaling" and k[2] == "golden"]
	assert all(x["nodes_source"] == "golden" for x in r["runs"])
	EOP
	# Progress lines and the plots.
	[[ "$output" == *"[1/4] all_reduce_perf on 2 nodes (n[1-2]), golden: done"* ]]
	[[ "$output" == *"[4/4] all_reduce_perf on 4 nodes (n[1-4]), golden: done"* ]]
	[[ "$output" == *"about 0:00 left"* ]]
	[ "$(head -c 8 "$out/sweep.png" | od -An -c | tr -d ' ')" = '211PNG\r\n032\n' ]
	grep -q '<svg' "$out/sweep.svg"
	grep -q 'NCCL defaults' "$out/sweep.png.gp"
	grep -q 'dt 2' "$out/sweep.png.gp"
	[ -s "$out/report.txt" ]
}

@test "sweep run as an ordinary user: the same sweep, logs owned by the user" {
	out=$WORK/run-user
	install -d -o nobody -m 0755 "$out"
	run as_user "$GOLDEN_BUILDDIR/cli/golden" sweep run --out "$out" --nodes 4 --min-nodes 2 \
		--tests-dir "$WORK/base" "${RUN_OPTS[@]}"
	echo "$output" | tail -20
	[ "$status" -eq 1 ]
	[ "$(stat -c %U "$out/all_reduce-4n-golden.log")" = nobody ]
	[[ "$output" == *"4n golden out-of-place: busbw 21.24 GB/s at 2 MiB is 14% below"* ]]
	[[ "$output" == *"verdict: 1 finding (1 dip)"* ]]
	grep -q 'recipe=hgx-h100-h200-ib' "$out/all_reduce-2n-golden.log"
}

@test "sweep run: node counts double from 1 up to all idle nodes" {
	out=$WORK/run-counts
	run golden sweep run --out "$out" "${RUN_OPTS[@]}"
	echo "$output" | tail -20
	[ "$status" -ne 2 ]
	ls "$out"
	[ -s "$out/all_reduce-1n-golden.log" ]
	[ -s "$out/all_reduce-2n-golden.log" ]
	[ -s "$out/all_reduce-4n-golden.log" ]
	[ "$(ls "$out"/*.log | wc -l)" -eq 3 ]
}

@test "a hanging step is stopped at golden's deadline, its job step is gone, and the report says so" {
	out=$WORK/run-hang
	run golden sweep run --out "$out" --nodes 4 --min-nodes 2 --tests-dir "$WORK/hang" \
		--step-timeout 5 "${RUN_OPTS[@]}"
	echo "$output" | tail -20
	[ "$status" -eq 1 ]
	grep -q '^# golden-sweep: end timeout=5' "$out/all_reduce-4n-golden.log"
	[[ "$output" == *"TIMED OUT"* ]]
	[[ "$output" == *"missing"*"hung"* ]]
	# srun got SIGTERM and cancelled its step: nothing is left running.
	for _ in $(seq 50); do
		[ -z "$(squeue -h -n golden-sweep)" ] && break
		sleep 0.2
	done
	[ -z "$(squeue -h -n golden-sweep)" ]
}

@test "sweep locate: pairwise tests name n3 and its slow rail mlx5_4" {
	out=$WORK/locate
	run golden sweep locate --out "$out" --nodelist 'n[1-4]' --tests-dir "$WORK/slow" \
		--gpus-per-node 1 --launcher "srun --mpi=none" --min-bytes 512M --max-bytes 2G
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"culprit: n3: slow with every partner (2 of 2 pairs"* ]]
	[[ "$output" == *"the slow rail: mlx5_4"* ]]
	# n1-n2 and n4-n1 are fine; only pairs with n3 are slow.
	[ "$(grep -c '  SLOW' <<<"$output")" -ge 3 ]
	[[ "$output" != *"culprit: n1"* && "$output" != *"culprit: n2"* && "$output" != *"culprit: n4"* ]]
	# Pairs 1-2 and 3-4, then 2-3 and 4-1; then the eight rails of n3 against a good node.
	[ "$(ls "$out"/pair-*.log | wc -l)" -eq 4 ]
	[ "$(ls "$out"/rail-n3-*.log | wc -l)" -eq 8 ]
	grep -q 'NCCL_IB_HCA==mlx5_4' "$out/rail-n3-mlx5_4.log"
	# Nothing was drained without --drain.
	[[ "$(golden_node_state n3)" != *DRAIN* ]]
}

@test "sweep locate --from a sweep's log takes the nodes of its largest run" {
	printf '%s\n' \
		"# golden-sweep: run collective=all_reduce_perf nodes=2 env=golden nodelist=n[1-2] step=1/2" \
		"# golden-sweep: run collective=all_reduce_perf nodes=4 env=golden nodelist=n[1-4] step=2/2" \
		>"$WORK/slow-run.log"
	out=$WORK/locate-from
	run golden sweep locate --out "$out" --from "$WORK/slow-run.log" --tests-dir "$WORK/slow" \
		--gpus-per-node 1 --launcher "srun --mpi=none" --min-bytes 512M --max-bytes 2G \
		--rails none --format json
	echo "$output"
	[ "$status" -eq 1 ]
	# stdout is the JSON; the progress lines went to stderr before it.
	json=$(sed -n '/^{/,$p' <<<"$output")
	python3 - <<-EOP
	import json
	r = json.loads("""$json""")
	assert [n["node"] for n in r["nodes"]] == ["n1", "n2", "n3", "n4"]
	assert [n["node"] for n in r["nodes"] if n["culprit"]] == ["n3"]
	assert len(r["pairs"]) == 4 and r["culprits"] == 1
	EOP
}

@test "sweep locate --drain is refused to an ordinary user" {
	run as_user "$GOLDEN_BUILDDIR/cli/golden" sweep locate --out /tmp/x --nodelist 'n[1-4]' \
		--tests-dir "$WORK/base" --drain
	[ "$status" -eq 2 ]
	[[ "$output" == *"--drain needs root"* ]]
}

@test "sweep locate --drain drains n3 through the lifecycle with golden's reason and ledger" {
	d=$WORK/slow
	out=$WORK/locate-drain
	run golden sweep locate --out "$out" --nodelist 'n[1-4]' --tests-dir "$d" \
		--gpus-per-node 1 --launcher "srun --mpi=none" --min-bytes 512M --max-bytes 2G --drain
	echo "$output"
	[ "$status" -eq 1 ]
	golden_wait_node_state n3 DRAIN 10
	reason=$(golden_node_reason n3)
	echo "reason: $reason"
	[[ "$reason" == "mlx5_4 busbw "*"%; check [golden]" ]]
	# What sinfo -R shows (its first 20 characters) names the rail.
	[[ "$(sinfo -h -R -o '%20E' -n n3)" == "mlx5_4 busbw "* ]]
	python3 - "$WORK/state/n3/lifecycle.json" <<-'EOP'
	import json, sys
	l = json.load(open(sys.argv[1]))
	h = l["hold"]
	assert h["applied"] and h["check"] == "nccl-sweep" and h["source"] == "sweep", h
	assert "[golden]" in h["reason"]
	EOP
	for n in n1 n2 n4; do [[ "$(golden_node_state $n)" != *DRAIN* ]]; done
	# golden never resumes it by itself: an operator does.
	scontrol update NodeName=n3 State=RESUME
}
