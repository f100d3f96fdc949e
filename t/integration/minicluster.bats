#!/usr/bin/env bats
# Smoke test of the local Slurm mini-cluster harness
# (contrib/minicluster/golden-minicluster and t/lib/common.bash).
#
#   GOLDEN_SRCDIR=$PWD bats --tap t/integration/minicluster.bats
#
# Needs root and the Debian slurmctld/slurmd/munge packages.  Uses ports
# GOLDEN_PORT_BASE (this file's own slot, t/lib/common.bash) .. +4 for the
# shared cluster, +10 .. +12 for a second, short-lived cluster and +20 for a
# start that must be refused.

load '../lib/common'

setup_file() {
    golden_require_root
    # Fails the job and drains the node when a flag file for it exists.
    # Prologs get no PATH.
    export PROLOG_FLAG_DIR=$BATS_FILE_TMPDIR/prolog-flags
    mkdir -p "$PROLOG_FLAG_DIR"
    cat >"$BATS_FILE_TMPDIR/prolog" <<EOF
#!/bin/bash
PATH=/usr/sbin:/usr/bin:/sbin:/bin
if [ -e "$PROLOG_FLAG_DIR/\$SLURMD_NODENAME" ]; then
    scontrol update NodeName="\$SLURMD_NODENAME" State=DRAIN Reason="test: drained"
    exit 1
fi
exit 0
EOF
    chmod 0755 "$BATS_FILE_TMPDIR/prolog"
    local t0
    t0=$(_ms)
    golden_cluster_start --nodes 4 --prolog "$BATS_FILE_TMPDIR/prolog"
    echo "# 4-node cluster started in $(($(_ms) - t0)) ms in $GOLDEN_CLUSTER_DIR" >&3
}

teardown_file() {
    local t0
    t0=$(_ms)
    golden_cluster_stop
    echo "# 4-node cluster stopped in $(($(_ms) - t0)) ms" >&3
}

_ms() {
    local ns
    ns=$(date +%s%N)
    echo $((ns / 1000000))
}

teardown() {
    golden_dump_logs_on_failure
}

@test "minicluster: all 4 nodes are idle" {
    run sinfo -h -N -p debug -o '%N %T'
    [ "$status" -eq 0 ]
    [ "$output" = "$(printf 'n1 idle\nn2 idle\nn3 idle\nn4 idle')" ]
    [ "$(golden_node_state n1)" = IDLE ]
}

@test "minicluster: env and status subcommands" {
    run "$GOLDEN_MINICLUSTER" env "$GOLDEN_CLUSTER_DIR"
    [ "$status" -eq 0 ]
    [ "$output" = "export SLURM_CONF=$GOLDEN_CLUSTER_DIR/etc/slurm.conf" ]
    run "$GOLDEN_MINICLUSTER" status "$GOLDEN_CLUSTER_DIR"
    [ "$status" -eq 0 ]
    [[ $output == *"6 of 6 daemons running"* ]]
}

@test "minicluster: srun -N1 -w n2 hostname" {
    run srun -N1 -w n2 hostname
    [ "$status" -eq 0 ]
    [ "$output" = "$(hostname)" ]
    run srun -N1 -w n2 printenv SLURMD_NODENAME
    [ "$status" -eq 0 ]
    [ "$output" = n2 ]
}

@test "minicluster: srun -N2 -n2 -w n1,n3 runs one task on each node" {
    run srun -N2 -n2 -w n1,n3 env
    [ "$status" -eq 0 ]
    local nodes
    nodes=$(grep '^SLURMD_NODENAME=' <<<"$output" | sort | tr '\n' ' ')
    [ "$nodes" = "SLURMD_NODENAME=n1 SLURMD_NODENAME=n3 " ]
}

@test "minicluster: sbatch --wrap job completes and writes its output" {
    local out=$BATS_TEST_TMPDIR/out
    local jobid
    # shellcheck disable=SC2016 # expanded by the job, not here
    jobid=$(golden_sbatch_wait -N1 -o "$out.%j" --wrap 'echo "hello from $SLURMD_NODENAME job $SLURM_JOB_ID"')
    [ "$(golden_job_state "$jobid")" = COMPLETED ]
    [[ $(cat "$out.$jobid") =~ ^hello\ from\ n[1-4]\ job\ $jobid$ ]]
}

@test "minicluster: several batch jobs run at the same time on one node" {
    local -a ids=()
    local _ id
    for _ in 1 2 3 4; do
        id=$(sbatch --parsable -w n1 -n1 -o /dev/null --wrap 'sleep 3')
        ids+=("${id%%;*}")
    done
    local running=0 deadline=$((SECONDS + 20))
    while ((SECONDS < deadline)); do
        running=$(squeue -h -w n1 -t RUNNING -o %i | wc -l)
        ((running >= 4)) && break
        sleep 0.2
    done
    [ "$running" -ge 4 ]
    for id in "${ids[@]}"; do
        [ "$(golden_wait_job "$id")" = COMPLETED ]
    done
}

@test "minicluster: drain shows in sinfo -R and resume clears it" {
    scontrol update nodename=n4 state=drain reason=x
    run sinfo -h -R -o '%E %N'
    [ "$status" -eq 0 ]
    [ "$output" = "x n4" ]
    [[ $(golden_node_state n4) == *DRAIN* ]]
    [ "$(golden_node_reason n4)" = x ]
    scontrol update nodename=n4 state=resume
    run sinfo -h -R -o '%E %N'
    [ "$output" = "" ]
    [ "$(golden_wait_node_state n4 '^IDLE$' 10)" = IDLE ]
    [ "$(golden_node_reason n4)" = "" ]
}

@test "minicluster: a failing prolog drains the node with its own reason" {
    touch "$PROLOG_FLAG_DIR/n3"
    local jobid
    jobid=$(sbatch --parsable -w n3 -o /dev/null --wrap true)
    jobid=${jobid%%;*}
    run golden_wait_node_state n3 DRAIN 30
    rm -f "$PROLOG_FLAG_DIR/n3"
    [ "$status" -eq 0 ]
    [ "$(golden_node_reason n3)" = "test: drained" ]
    run sinfo -h -R -o '%E|%N'
    [ "$output" = "test: drained|n3" ]
    # Default (no nohold_on_prolog_fail): requeued and held.
    local deadline=$((SECONDS + 20)) info=""
    while ((SECONDS < deadline)); do
        info=$(scontrol -o show job "$jobid")
        [[ $info == *"Reason=launch_failed_requeued_held"* ]] && break
        sleep 0.2
    done
    [[ $info == *"JobState=PENDING"* ]]
    [[ $info == *"Reason=launch_failed_requeued_held"* ]]
    scancel "$jobid"
    scontrol update nodename=n3 state=resume
    golden_wait_node_state n3 '^IDLE$' 20
    run srun -N1 -w n3 printenv SLURMD_NODENAME
    [ "$status" -eq 0 ]
    [ "$output" = n3 ]
}

@test "minicluster: start refuses a DIR whose cluster is running, and busy ports" {
    run "$GOLDEN_MINICLUSTER" start "$GOLDEN_CLUSTER_DIR" --port-base "$((GOLDEN_PORT_BASE + 20))"
    [ "$status" -ne 0 ]
    [[ $output == *"already running"* ]]
    run "$GOLDEN_MINICLUSTER" start "$BATS_TEST_TMPDIR/other" --port-base "$GOLDEN_PORT_BASE"
    [ "$status" -ne 0 ]
    [[ $output == *"port $GOLDEN_PORT_BASE is already in use"* ]]
    # the running cluster is untouched
    run sinfo -h -N -o '%N %T'
    [ "$(grep -c ' idle$' <<<"$output")" -eq 4 ]
}

# _slot_of SLOT REGION [FIFO]: a test file's port slot (t/lib/common.bash),
# from a shell of its own; with FIFO, that shell keeps its locks until a
# line arrives there.
_slot_of() {
    GOLDEN_PORT_SLOT=$1 GOLDEN_PORT_BASE=$2 bash -c '
        source "$GOLDEN_SRCDIR/t/lib/common.bash" || exit 1
        golden_ports_allocate || exit 1
        echo "$GOLDEN_PORT_BASE"
        [[ -z $1 ]] || read -r _ <"$1"' _ "${3:-}"
}

@test "harness: a 64-port file's upper ports are not handed to a file beside it" {
    # Files run side by side (make -j2 check, the matrix's chroots). A file
    # with 32 slurmd holds 64 ports; the next file must start above them,
    # not 32 ports in, where the big file's slurmd are about to listen.
    local region=$((GOLDEN_PORT_BASE + 4096)) fifo=$BATS_TEST_TMPDIR/hold
    mkfifo "$fifo"
    _slot_of 64 "$region" "$fifo" >"$BATS_TEST_TMPDIR/big" &
    local big=$! i
    for ((i = 0; i < 100; i++)); do
        [[ -s $BATS_TEST_TMPDIR/big ]] && break
        sleep 0.1
    done
    local big_base
    big_base=$(cat "$BATS_TEST_TMPDIR/big")
    run _slot_of 32 "$region"
    # Bounded: a holder that died before opening the FIFO never reads it.
    timeout 10 bash -c 'echo >"$1"' _ "$fifo" || true
    wait "$big" || true
    [ "$status" -eq 0 ]
    [ "$output" -ge "$((big_base + 64))" ]
    # Released with its shell: the region is free again.
    run _slot_of 32 "$region"
    [ "$status" -eq 0 ]
    [ "$output" -eq "$big_base" ]
}

# Process ids of the daemons of the cluster in $1 (from its pid files).
_cluster_pids() {
    local f
    for f in "$1/munge/munged.pid" "$1/run/"*.pid; do
        [[ -f $f ]] && cat "$f"
    done
}

# slurmstepd's with a file under $1 open (the slurmd log they write to).
_stepds_of() {
    local p fd
    for p in $(pgrep -x slurmstepd); do
        for fd in "/proc/$p/fd"/*; do
            if [[ $(readlink "$fd" 2>/dev/null) == "$1/"* ]]; then
                echo "$p"
                break
            fi
        done
    done
}

# Alive: its status can be read and it is not a zombie. One read, not
# "-d /proc/PID" then the status: a zombie reaped between the two looked
# alive (seen with slurmd 26.05, whose zombies wait ~1 s for the reaper).
_alive() {
    local st
    st=$(grep -m1 '^State:' "/proc/$1/status" 2>/dev/null) || return 1
    [[ $st != *Z* ]]
}

@test "minicluster: stop leaves nothing of that cluster running, and only that cluster" {
    local dir=$BATS_TEST_TMPDIR/second
    local base=$((GOLDEN_PORT_BASE + 10))
    mkdir -p "$dir"
    _golden_open_path "$dir"
    local t0
    t0=$(_ms)
    run "$GOLDEN_MINICLUSTER" start "$dir" --nodes 2 --port-base "$base"
    [ "$status" -eq 0 ]
    echo "# 2-node cluster started in $(($(_ms) - t0)) ms" >&3
    # a running batch job and a running srun step, so slurmstepd's exist
    local jobid
    jobid=$(SLURM_CONF=$dir/etc/slurm.conf sbatch --parsable -w n1 -o /dev/null --wrap 'sleep 300')
    SLURM_CONF=$dir/etc/slurm.conf srun -w n2 sleep 300 </dev/null >/dev/null 2>&1 3>&- &
    local srun_pid=$!
    local deadline=$((SECONDS + 20)) nrun=0
    while ((SECONDS < deadline)); do
        nrun=$(SLURM_CONF=$dir/etc/slurm.conf squeue -h -t RUNNING -o %i | wc -l)
        ((nrun >= 2)) && break
        sleep 0.2
    done
    [ "$nrun" -eq 2 ]
    local -a pids stepds
    mapfile -t pids < <(_cluster_pids "$dir")
    [ "${#pids[@]}" -eq 4 ]
    # slurmstepd's of the second cluster (they hold its slurmd log open)
    mapfile -t stepds < <(_stepds_of "$dir")
    [ "${#stepds[@]}" -ge 2 ]
    local main_pids
    main_pids=$(_cluster_pids "$GOLDEN_CLUSTER_DIR")

    t0=$(_ms)
    run "$GOLDEN_MINICLUSTER" stop "$dir"
    [ "$status" -eq 0 ]
    echo "# 2-node cluster with 2 running jobs stopped in $(($(_ms) - t0)) ms" >&3
    local p
    for p in "${pids[@]}" "${stepds[@]}"; do
        if _alive "$p"; then
            echo "pid $p of the stopped cluster is still alive" >&2
            false
        fi
    done
    if pgrep -f -- "$dir/"; then
        echo "processes naming $dir are still running" >&2
        false
    fi
    # the srun client ends once its job is cancelled
    deadline=$((SECONDS + 15))
    while _alive "$srun_pid" && ((SECONDS < deadline)); do
        sleep 0.2
    done
    if _alive "$srun_pid"; then
        kill "$srun_pid"
        echo "srun $srun_pid did not exit after stop" >&2
        false
    fi
    [ -s "$dir/log/slurmctld.log" ]   # logs stay

    # idempotent
    run "$GOLDEN_MINICLUSTER" stop "$dir"
    [ "$status" -eq 0 ]
    run "$GOLDEN_MINICLUSTER" status "$dir"
    [ "$status" -eq 3 ]

    # the shared cluster is still alive
    for p in $main_pids; do
        _alive "$p"
    done
    run srun -N1 -w n1 true
    [ "$status" -eq 0 ]
}
