#!/usr/bin/env bats
# One golden.conf for a heterogeneous cluster: sections that apply to nodes
# by Slurm hostlist, glob and Slurm node feature, read by golden-prolog as
# Slurm's Prolog on a real local cluster. Jobs run as an ordinary user.
#   n1       every node's settings only: healthy
#   n2       [feature bigmem] (set with scontrol): its mount does not exist -> drained
#   n3       [nodes n[3-4]] expects 9 GPUs on an 8-GPU node -> drained

load ../lib/common

setup_file() {
	golden_require_root
	export WORK="$BATS_FILE_TMPDIR/work"
	fx="$GOLDEN_BUILDDIR/t/fixtures/out"
	mkdir -p "$WORK/nvml"
	cp "$GOLDEN_SRCDIR/t/fixtures/nvml/healthy-8gpu.json" "$WORK/nvml/state.json"
	cat >"$WORK/golden.conf" <<-EOC
	# every node
	topology = $fx/hgx-h100-ib/topo.xml
	sysroot = $fx/hgx-h100-ib/root
	state_dir = $WORK/state/%n
	log = $WORK/log/%n.jsonl
	scontrol = $(command -v scontrol)
	xid_scope = node-gpus
	check.xid = off
	gpus = 8
	mount = /

	[nodes n[3-4]]
	gpus = 9

	[feature bigmem]
	mount = /golden-nodeclass-missing
	EOC
	chmod 0644 "$WORK/golden.conf"
	cat >"$WORK/prolog" <<-EOW
	#!/bin/sh
	export GOLDEN_CONF=$WORK/golden.conf
	export LD_LIBRARY_PATH=$GOLDEN_BUILDDIR/t/fake-nvml/.libs
	export FAKE_NVML_STATE=$WORK/nvml/state.json
	exec $GOLDEN_BUILDDIR/prolog/golden-prolog
	EOW
	chmod 0755 "$WORK/prolog"
	id golden-user >/dev/null 2>&1 || useradd -M -s /bin/sh golden-user
	golden_cluster_start --nodes 4 --prolog "$WORK/prolog" \
		--conf-extra SchedulerParameters=nohold_on_prolog_fail
	chmod -R go+rX "$BATS_FILE_TMPDIR"
	scontrol update NodeName=n2 AvailableFeatures=bigmem ActiveFeatures=bigmem
}

teardown_file() {
	golden_cluster_stop
}

teardown() {
	golden_dump_logs_on_failure
}

golden() {
	GOLDEN_CONF=$WORK/golden.conf LD_LIBRARY_PATH=$GOLDEN_BUILDDIR/t/fake-nvml/.libs \
		FAKE_NVML_STATE=$WORK/nvml/state.json "$GOLDEN_BUILDDIR/cli/golden" "$@"
}

as_user() {
	runuser -u golden-user -- env SLURM_CONF="$SLURM_CONF" "$@"
}

@test "explain-config: the feature section applies to n2 because Slurm says it has the feature" {
	run golden check --explain-config --node n2
	[ "$status" -eq 0 ]
	echo "$output"
	[[ "$output" == *"mount"*"= /golden-nodeclass-missing"*"applies: [feature bigmem]"* ]]
	[[ "$output" == *"gpus"*"= 9"*"not for n2: [nodes n[3-4]] does not match"* ]]
	[[ "$output" == *$'\nmount = /golden-nodeclass-missing'* ]]
}

@test "explain-config for a node without the feature: the section does not apply" {
	run golden check --explain-config --node n1
	[ "$status" -eq 0 ]
	[[ "$output" == *"mount"*"/golden-nodeclass-missing"*"not for n1: [feature bigmem] does not match"* ]]
	[[ "$output" != *$'\nmount = /golden-nodeclass-missing'* ]]
	[[ "$output" == *$'\ngpus = 8\n'* ]]
}

@test "an ordinary user's jobs: only the node classes whose expectations fail are drained, each for its own reason" {
	for n in n1 n2 n3; do
		as_user sbatch --parsable -o /dev/null -w "$n" --wrap true
	done
	golden_wait_node_state n2 'DRAIN' 40
	golden_wait_node_state n3 'DRAIN' 40
	[[ "$(golden_node_reason n2)" == "/golden-nodeclass-missing "*"[golden]" ]]
	[[ "$(golden_node_reason n3)" == "gpu 8/9 missing"*"[golden]" ]]
	[ "$(golden_node_reason n1)" = "" ]
	run as_user squeue -h -t all -o '%N %T'
	[[ "$output" == *"n1 COMPLETED"* ]]
}
