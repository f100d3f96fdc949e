#!/usr/bin/env bats
# Platform recipes on a real local Slurm cluster: one job spans nodes that
# carry different platforms' fixtures, and each node gets its own recipe.
#   n1  AWS p5.48xlarge (EFA, aws-p5)
#   n2  Google Cloud A3 Mega (TCPXO, gcp-a3-mega)
#   n3  GB200 NVL72 tray without an IMEX channel (gb200-nvl72)

load ../lib/common

setup_file() {
	golden_require_root
	export WORK="$BATS_FILE_TMPDIR/work"
	mkdir -p "$WORK/nodes" "$WORK/out"
	install -d -m 0755 "$WORK/recipes"
	install -m 0644 "$GOLDEN_SRCDIR"/recipes/*.json "$WORK/recipes/"
	fx="$GOLDEN_BUILDDIR/t/fixtures/out"
	ln -s "$fx/aws-p5" "$WORK/nodes/n1"
	ln -s "$fx/gcp-a3-mega" "$WORK/nodes/n2"
	ln -s "$fx/gb200-nvl72-noimex" "$WORK/nodes/n3"
	golden_cluster_start --nodes 3 --plugstack-line \
		"required $GOLDEN_BUILDDIR/spank/.libs/golden_nccl.so recipes=$WORK/recipes topology=$WORK/nodes/%n/topo.xml sysroot=$WORK/nodes/%n/root discovery_deadline_ms=$(golden_scaled 10000)"
}

teardown_file() {
	golden_cluster_stop
}

teardown() {
	golden_dump_logs_on_failure
}

@test "one three-node job: every node gets its own platform's recipe and values" {
	out="$WORK/out/platforms.out"
	cat >"$WORK/platforms.sh" <<-'EOS'
	#!/bin/bash
	srun -N3 -n3 bash -c 'echo "$SLURMD_NODENAME $GOLDEN_NCCL_RECIPE ${NCCL_SOCKET_IFNAME-unset} ${NCCL_FASTRAK_IFNAME-unset} ${NCCL_MNNVL_ENABLE-unset} ${NCCL_IB_HCA-unset}"'
	EOS
	jobid=$(golden_sbatch_wait --golden-nccl -N3 -w n1,n2,n3 -o "$out" "$WORK/platforms.sh")
	[ "$(golden_job_state "$jobid")" = COMPLETED ]
	grep -qx "n1 aws-p5 =ens32 unset unset unset" "$out"
	grep -qx "n2 gcp-a3-mega enp0s12 enp6s0,enp7s0,enp13s0,enp14s0,enp134s0,enp135s0,enp141s0,enp142s0 unset unset" "$out"
	grep -qx "n3 gb200-nvl72 =enP6p1s0 unset 1 =mlx5_0,mlx5_1,mlx5_3,mlx5_4" "$out"
}

@test "the AWS node gets nothing aws-ofi-nccl sets for itself" {
	run srun --golden-nccl -w n1 env
	[ "$status" -eq 0 ]
	! grep -qE '^(NCCL_BUFFSIZE|NCCL_P2P_NET_CHUNKSIZE|NCCL_PROTO|NCCL_TUNER_PLUGIN|FI_PROVIDER|FI_EFA_FORK_SAFE)=' <<<"$output"
	grep -qx 'GOLDEN_NCCL_RECIPE=aws-p5' <<<"$output"
}

@test "verbose mode on the GB200 node reports the missing IMEX channel in the job's stderr" {
	run srun --golden-nccl=verbose -w n3 --error="$WORK/out/imex.err" true
	[ "$status" -eq 0 ]
	grep -q "golden_nccl: n3: warning: MNNVL is on but /dev/nvidia-caps-imex-channels is missing.*Cuda failure 800" "$WORK/out/imex.err"
	run srun --golden-nccl -w n3 --error="$WORK/out/imex-quiet.err" true
	! grep -q "IMEX\|imex" "$WORK/out/imex-quiet.err"
}
