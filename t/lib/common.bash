# shellcheck shell=bash
# t/lib/common.bash - helpers for bats (1.8) tests that need a live Slurm.
#
#   load '../lib/common'          # from t/integration/*.bats
#
# Cluster:  golden_cluster_prepare (optional: fix the directory first)
#           golden_cluster_start [golden-minicluster start options...]
#           golden_cluster_stop
# Jobs:     golden_sbatch_wait SBATCH_ARGS...   -> prints the job id
#           golden_wait_job JOBID [TIMEOUT]     -> prints the final state
#           golden_job_state JOBID
# Nodes:    golden_node_state NODE, golden_node_reason NODE,
#           golden_wait_node_state NODE REGEX [TIMEOUT]
# Users:    golden_test_user (an ordinary user, created if absent),
#           golden_as_user CMD... (run CMD as that user)
# Misc:     golden_require_root, golden_dump_logs [LINES],
#           golden_dump_logs_on_failure (call it from teardown)
# Host:     golden_kmsg_lock / golden_kmsg_unlock: first thing in setup_file,
#           last in teardown_file, of every file that writes /dev/kmsg
# GPU nodes: golden_gpu_nodes DIR N GPU_BASE NIC_BASE (fixtures whose GPUs
#           are the file's own in the shared kernel log),
#           golden_healthcheck_script DIR, golden_watch_start/_stop DIR NODE
#
# Ports: each test file gets its own slot of GOLDEN_PORT_SLOT (32) ports, so
# files can run in parallel (make -j2 check, distcheck, and the Slurm
# matrix's chroots beside the host: contrib/env/slurm-env bind-mounts
# /tmp/golden-ports and /tmp/golden-kmsg.lock into them). Ports are handed
# out in units of 32, each with its lock file /tmp/golden-ports/BASE.lock.
# The first cluster start picks the first free slot at or above
# GOLDEN_PORT_BASE (free: nobody holds the lock of any of its units, and none
# of its ports listens), holds those locks for the rest of the file (this
# shell's lifetime) and sets GOLDEN_PORT_BASE to the slot: a file may use
# GOLDEN_PORT_BASE .. GOLDEN_PORT_BASE+GOLDEN_PORT_SLOT-1.
#
# Environment:
#   GOLDEN_SRCDIR       source tree (make check sets it); default: two levels
#                       above this file
#   GOLDEN_PORT_BASE    where port slots start (default 17100); after the
#                       first cluster start, this file's own slot
#   GOLDEN_PORT_SLOTS   how many slots to try (default 32)
#   GOLDEN_JOB_TIMEOUT  default wait for jobs in seconds (default 60)
#   GOLDEN_TIME_SCALE   integer factor for every wait and every deadline
#                       the harness writes into golden.conf (default 1; the
#                       matrix's emulated VM, about ten times slower than
#                       the host, sets 10): a slow machine gets more time,
#                       and what a test asserts stays the same
#   GOLDEN_MINICLUSTER  override the path of golden-minicluster
#   GOLDEN_TEST_USER    the ordinary user jobs run as (default golden-user)
#   GOLDEN_CLUSTER_CGROUP  1: every cluster with --cgroup (proctrack/cgroup,
#                       task/cgroup; cgroup/v2 on a unified host), as the
#                       cgroup v2 VM of contrib/env/slurm-matrix runs them

_golden_lib_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [[ -n ${GOLDEN_SRCDIR:-} ]]; then
    GOLDEN_SRCDIR=$(cd "$GOLDEN_SRCDIR" && pwd)
else
    GOLDEN_SRCDIR=$(cd "$_golden_lib_dir/../.." && pwd)
fi
export GOLDEN_SRCDIR
: "${GOLDEN_MINICLUSTER:=$GOLDEN_SRCDIR/contrib/minicluster/golden-minicluster}"
: "${GOLDEN_PORT_BASE:=17100}"
: "${GOLDEN_TIME_SCALE:=1}"
[[ $GOLDEN_TIME_SCALE =~ ^[1-9][0-9]?$ ]] || {
    printf 'GOLDEN_TIME_SCALE=%s: expected an integer 1-99\n' "$GOLDEN_TIME_SCALE" >&2
    exit 2
}
: "${GOLDEN_JOB_TIMEOUT:=$((60 * GOLDEN_TIME_SCALE))}"
export GOLDEN_MINICLUSTER GOLDEN_PORT_BASE GOLDEN_JOB_TIMEOUT GOLDEN_TIME_SCALE

# golden_scaled N: N times GOLDEN_TIME_SCALE (seconds or milliseconds).
golden_scaled() { printf '%d\n' "$(($1 * GOLDEN_TIME_SCALE))"; }

# golden_scaled_check_deadlines: on a slower machine (GOLDEN_TIME_SCALE > 1),
# one check.NAME.deadline_ms line per check, its built-in default scaled
# (lib/health: GPU checks and wb-stall 2000 ms, mounts 3000, the rest 1000),
# so a check is not killed for the emulator's speed. Nothing at scale 1: the
# built-in deadlines are what the suites test there. Put these lines first;
# a suite's own check.NAME.deadline_ms later in the file wins.
golden_scaled_check_deadlines() {
    ((GOLDEN_TIME_SCALE > 1)) || return 0
    local name ms
    for name in gpu-count:2000 gpu-ecc:2000 gpu-remap:2000 gpu-pcie:2000 gpu-nvlink:2000 \
        gpu-throttle:2000 gpu-fabric:2000 gpu-procs:2000 gpu-recovery:2000 xid:1000 \
        mounts:3000 ib-ports:1000 ib-counters:1000 efa:1000 bootstrap:1000 gpudirect:1000 \
        wb-stall:2000 wb-exposure:1000 teardown:1000; do
        ms=${name#*:}
        printf 'check.%s.deadline_ms = %d\n' "${name%%:*}" "$(golden_scaled "$ms")"
    done
}

# Job states after which a job will not run again by itself.
_GOLDEN_FINAL_STATES=" COMPLETED FAILED CANCELLED TIMEOUT NODE_FAIL OUT_OF_MEMORY PREEMPTED BOOT_FAIL DEADLINE "

_golden_err() { printf '%s\n' "$*" >&2; }

# Skip the current test (or, from setup_file, the whole file) unless root.
golden_require_root() {
    if [[ $EUID -ne 0 ]]; then
        skip "needs root (starts munged, slurmctld and slurmd)"
    fi
}

# golden_test_user: print the name of an ordinary (non-root) user for jobs,
# creating it (a system account: no home, no login shell) when absent. Jobs
# run as root hide what only happens with the job user's euid.
golden_test_user() {
    local u=${GOLDEN_TEST_USER:-golden-user}
    if ! id -u "$u" >/dev/null 2>&1; then
        useradd --system --no-create-home --home-dir /nonexistent \
            --shell /usr/sbin/nologin "$u" >/dev/null 2>&1 || id -u "$u" >/dev/null 2>&1 ||
            { _golden_err "golden_test_user: cannot create user $u"; return 1; }
    fi
    printf '%s\n' "$u"
}

# golden_as_user CMD...: run CMD (srun, sbatch...) as golden_test_user, with
# this environment (SLURM_CONF), from /tmp so the job's slurmstepd can enter
# its working directory as that user.
golden_as_user() {
    local u
    u=$(golden_test_user) || return 1
    (cd /tmp && runuser -u "$u" -- "$@")
}

# munged runs as user munge and has to reach DIR/munge.  bats creates its
# run directory with mode 0700, so open the directories between the bats
# run dir and the cluster dir for search by all (munged insists on
# go+x on every directory above its socket; no read bits are added).
_golden_open_path() {
    local d=$1 stop=${BATS_RUN_TMPDIR:-}
    [[ -n $stop ]] || return 0
    stop=${stop%/}
    case $d in
        "$stop" | "$stop"/*) ;;
        *) return 0 ;;
    esac
    while [[ $d == "$stop"/* || $d == "$stop" ]]; do
        chmod go+x "$d"
        [[ $d == "$stop" ]] && break
        d=$(dirname "$d")
    done
}

# --- ports ----------------------------------------------------------------

# A file that starts more than 29 slurmd sets GOLDEN_PORT_SLOT=64 before
# `load`: it locks two units, so that a file running beside it cannot take
# its upper 32 ports before its slurmd listen there.
: "${GOLDEN_PORT_SLOT:=32}"
_GOLDEN_PORT_UNIT=32
: "${GOLDEN_PORT_SLOTS:=32}"
_GOLDEN_LOCK_DIR=/tmp/golden-ports

# _golden_ports_busy BASE: some port of the slot at BASE listens.
_golden_ports_busy() {
    local base=$1 line port
    while read -r line; do
        port=${line##*:}
        [[ $port =~ ^[0-9]+$ ]] || continue
        ((port >= base && port < base + GOLDEN_PORT_SLOT)) && return 0
    done < <(ss -Htln 2>/dev/null | awk '{ print $4 }')
    return 1
}

# _golden_holds_fd FD PATH: this shell has FD open on PATH.
_golden_holds_fd() {
    [[ -n $1 && $(readlink "/proc/$BASHPID/fd/$1" 2>/dev/null) == "$2" ]]
}

# golden_ports_allocate: give this file its own port slot (see "Ports" above);
# a no-op when it has one. Called by golden_cluster_prepare.
golden_ports_allocate() {
    if [[ -n ${_GOLDEN_PORT_FD:-} ]] &&
        _golden_holds_fd "$_GOLDEN_PORT_FD" "$_GOLDEN_LOCK_DIR/$GOLDEN_PORT_BASE.lock"; then
        return 0
    fi
    local region=${GOLDEN_PORT_BASE} i u base fd ok
    local units=$(((GOLDEN_PORT_SLOT + _GOLDEN_PORT_UNIT - 1) / _GOLDEN_PORT_UNIT))
    local -a fds=()
    mkdir -p "$_GOLDEN_LOCK_DIR" || return 1
    # Lock files in a directory somebody else owns could be their symlinks.
    if [[ ! -O $_GOLDEN_LOCK_DIR && $(stat -c %u "$_GOLDEN_LOCK_DIR") != 0 ]]; then
        _golden_err "golden_ports_allocate: $_GOLDEN_LOCK_DIR is not owned by root or by you"
        return 1
    fi
    chmod 1777 "$_GOLDEN_LOCK_DIR" 2>/dev/null || true
    for ((i = 0; i < GOLDEN_PORT_SLOTS; i++)); do
        base=$((region + i * _GOLDEN_PORT_UNIT))
        ((base + GOLDEN_PORT_SLOT <= 65536)) || break
        ok=1
        fds=()
        for ((u = 0; u < units; u++)); do
            exec {fd}>>"$_GOLDEN_LOCK_DIR/$((base + u * _GOLDEN_PORT_UNIT)).lock" || { ok=0; break; }
            fds+=("$fd")
            flock -n "$fd" || { ok=0; break; }
        done
        if ((ok)) && ! _golden_ports_busy "$base"; then
            # Kept open (and locked) until this shell exits: tests and
            # teardown_file run while they are held. golden-minicluster
            # closes them in the daemons it starts.
            _GOLDEN_PORT_FD=${fds[0]}
            GOLDEN_PORT_BASE=$base
            export _GOLDEN_PORT_FD GOLDEN_PORT_BASE
            return 0
        fi
        for fd in "${fds[@]}"; do exec {fd}>&-; done
    done
    _golden_err "golden_ports_allocate: no free slot of $GOLDEN_PORT_SLOT ports in $GOLDEN_PORT_SLOTS tries from $region (set GOLDEN_PORT_BASE elsewhere)"
    return 1
}

# --- the host's kernel log ----------------------------------------------------

# golden_kmsg_lock: serialize the files that write into the host's real
# /dev/kmsg (and read it back through golden's checks): one at a time per
# machine, whatever else runs in parallel (the Slurm matrix's chroots see
# the host's lock file: contrib/env/slurm-env). Waits for the lock.
golden_kmsg_lock() {
    local fd
    if [[ -n ${_GOLDEN_KMSG_FD:-} ]] && _golden_holds_fd "$_GOLDEN_KMSG_FD" /tmp/golden-kmsg.lock; then
        return 0
    fi
    exec {fd}>>/tmp/golden-kmsg.lock || return 1
    flock "$fd" || return 1
    _GOLDEN_KMSG_FD=$fd
    export _GOLDEN_KMSG_FD
}

# golden_kmsg_unlock: release it (an explicit unlock, so that a process that
# inherited the descriptor cannot keep it held).
golden_kmsg_unlock() {
    [[ -n ${_GOLDEN_KMSG_FD:-} ]] || return 0
    flock -u "$_GOLDEN_KMSG_FD" 2>/dev/null || true
    exec {_GOLDEN_KMSG_FD}>&- 2>/dev/null || true
    unset _GOLDEN_KMSG_FD
}

# --- clusters ---------------------------------------------------------------

# golden_cluster_prepare: choose the cluster directory (and SLURM_CONF)
# before starting, for programs written before the cluster exists that
# need its path (slurmd runs HealthCheckProgram with an empty environment).
golden_cluster_prepare() {
    local parent=${BATS_FILE_TMPDIR:-${TMPDIR:-/tmp}}
    golden_ports_allocate || return 1
    # A file that writes the host's kernel log must hold the kmsg lock.
    if [[ -n ${BATS_TEST_FILENAME:-} ]] && grep -q '/dev/kmsg' "$BATS_TEST_FILENAME" &&
        ! _golden_holds_fd "${_GOLDEN_KMSG_FD:-}" /tmp/golden-kmsg.lock; then
        _golden_err "golden_cluster_prepare: ${BATS_TEST_FILENAME##*/} writes /dev/kmsg: call golden_kmsg_lock first in its setup_file"
        return 1
    fi
    GOLDEN_CLUSTER_DIR=$(mktemp -d "$parent/golden-cluster.XXXXXX") || return 1
    export GOLDEN_CLUSTER_DIR
    _golden_open_path "$GOLDEN_CLUSTER_DIR"
    export SLURM_CONF=$GOLDEN_CLUSTER_DIR/etc/slurm.conf
}

# golden_cluster_start [options]: start a cluster in a fresh temporary dir
# (under BATS_FILE_TMPDIR when set) on GOLDEN_PORT_BASE; export SLURM_CONF
# and GOLDEN_CLUSTER_DIR.  Options go to `golden-minicluster start`
# (--nodes, --prolog, --plugstack-line, --cgroup, --conf-extra, ...).
golden_cluster_start() {
    if [[ ! -x $GOLDEN_MINICLUSTER ]]; then
        _golden_err "golden_cluster_start: $GOLDEN_MINICLUSTER not found or not executable"
        return 1
    fi
    # A directory golden_cluster_prepare made and nothing started in yet.
    if [[ -z ${GOLDEN_CLUSTER_DIR:-} || -e $GOLDEN_CLUSTER_DIR/etc ]]; then
        golden_cluster_prepare || return 1
    fi
    local -a cg=()
    if [[ ${GOLDEN_CLUSTER_CGROUP:-0} == 1 && " $* " != *" --cgroup "* ]]; then
        cg=(--cgroup)
    fi
    # Before the suite's own options, so that a --timeout there wins.
    ((GOLDEN_TIME_SCALE > 1)) && cg+=(--timeout "$(golden_scaled 60)")
    if ! "$GOLDEN_MINICLUSTER" start "$GOLDEN_CLUSTER_DIR" \
        --port-base "$GOLDEN_PORT_BASE" "${cg[@]}" "$@" >/dev/null; then
        _golden_err "golden_cluster_start: could not start a cluster in $GOLDEN_CLUSTER_DIR (port base $GOLDEN_PORT_BASE; set GOLDEN_PORT_BASE if those ports are busy)"
        return 1
    fi
}

# golden_cluster_stop: stop the cluster of golden_cluster_start; logs stay in
# GOLDEN_CLUSTER_DIR.  Safe to call when nothing was started.
golden_cluster_stop() {
    [[ -n ${GOLDEN_CLUSTER_DIR:-} && -d $GOLDEN_CLUSTER_DIR ]] || return 0
    "$GOLDEN_MINICLUSTER" stop "$GOLDEN_CLUSTER_DIR"
}

# _golden_field TEXT KEY: value of KEY=VALUE (up to the next space) in TEXT.
_golden_field() {
    local text=$1 key=$2
    if [[ $text =~ (^|[[:space:]])$key=([^[:space:]]*) ]]; then
        printf '%s\n' "${BASH_REMATCH[2]}"
        return 0
    fi
    return 1
}

# golden_job_state JOBID: print the job's state (PENDING, RUNNING, COMPLETED,
# ...); UNKNOWN and status 1 when the controller does not know the job.
golden_job_state() {
    local out
    if out=$(scontrol -o show job "$1" 2>/dev/null) && [[ -n $out ]]; then
        _golden_field "$out" JobState && return 0
    fi
    printf 'UNKNOWN\n'
    return 1
}

# golden_wait_job JOBID [TIMEOUT]: wait (bounded, default GOLDEN_JOB_TIMEOUT)
# until the job reaches a final state; print that state.  Status 0 once a
# final state is reached (whichever it is), 1 on timeout (the current state
# and reason are printed to stderr).
golden_wait_job() {
    local jobid=$1 timeout=$GOLDEN_JOB_TIMEOUT state
    [[ -n ${2:-} ]] && timeout=$(golden_scaled "$2")
    local deadline=$((SECONDS + timeout))
    while :; do
        state=$(golden_job_state "$jobid") || true
        if [[ $_GOLDEN_FINAL_STATES == *" $state "* ]]; then
            printf '%s\n' "$state"
            return 0
        fi
        if ((SECONDS >= deadline)); then
            _golden_err "golden_wait_job: job $jobid still $state after ${timeout}s: $(scontrol -o show job "$jobid" 2>&1 | grep -o 'Reason=[^ ]*')"
            printf '%s\n' "$state"
            return 1
        fi
        sleep 0.2
    done
}

# golden_sbatch_wait SBATCH_ARGS...: submit with `sbatch --parsable`, wait for
# the job to end (GOLDEN_JOB_TIMEOUT) and print its id.  Status 1 when the
# submission fails or the wait times out; check golden_job_state yourself.
golden_sbatch_wait() {
    local out jobid
    out=$(sbatch --parsable "$@") || return 1
    jobid=${out%%;*}
    printf '%s\n' "$jobid"
    golden_wait_job "$jobid" >/dev/null
}

# golden_node_state NODE: State= of the node, e.g. IDLE, IDLE+DRAIN, MIXED.
golden_node_state() {
    local out
    out=$(scontrol -o show node "$1" 2>/dev/null) || return 1
    _golden_field "$out" State
}

# golden_node_reason NODE: the node's Reason= text without the trailing
# "[user@time]"; empty when there is none, or when the node is not drained,
# down or failed: Slurm 24.11 keeps the last reason on a node that was
# resumed (IDLE with Reason=...; 22.05 and 26.05 clear it, and no scontrol
# update clears it on 24.11), and sinfo -R does not list such a node.
golden_node_reason() {
    local out line state
    state=$(golden_node_state "$1") || return 1
    if [[ ! $state =~ DRAIN|DOWN|FAIL ]]; then
        printf '\n'
        return 0
    fi
    out=$(scontrol show node "$1" 2>/dev/null) || return 1
    while IFS= read -r line; do
        line=${line#"${line%%[![:space:]]*}"}
        if [[ $line == Reason=* ]]; then
            line=${line#Reason=}
            line=${line% \[*\]}
            [[ $line == "(null)" ]] && line=""
            printf '%s\n' "$line"
            return 0
        fi
    done <<<"$out"
    printf '\n'
}

# golden_wait_node_state NODE REGEX [TIMEOUT]: wait until the node's state
# matches the (bash) regex, e.g. 'DRAIN' or '^IDLE$'; print the state.
golden_wait_node_state() {
    local node=$1 re=$2 timeout state
    timeout=$(golden_scaled "${3:-30}")
    local deadline=$((SECONDS + timeout))
    while :; do
        state=$(golden_node_state "$node") || state=""
        if [[ $state =~ $re ]]; then
            printf '%s\n' "$state"
            return 0
        fi
        if ((SECONDS >= deadline)); then
            _golden_err "golden_wait_node_state: $node is '$state', not /$re/ after ${timeout}s"
            return 1
        fi
        sleep 0.2
    done
}

# golden_dump_logs [LINES]: print the cluster's state and log tails (to
# stderr, which bats shows for failed tests).
golden_dump_logs() {
    local lines=${1:-40} f dir=${GOLDEN_CLUSTER_DIR:-}
    [[ -n $dir && -d $dir ]] || return 0
    {
        printf '=== golden cluster %s ===\n' "$dir"
        timeout 10 sinfo -N -o '%N %T %E' 2>&1 || true
        timeout 10 squeue -o '%i %j %T %R' 2>&1 || true
        for f in "$dir/munge/munged.log" "$dir"/log/*.log; do
            [[ -s $f ]] || continue
            printf '==> %s (last %s lines) <==\n' "$f" "$lines"
            tail -n "$lines" "$f" || true
        done
    } >&2
}

# golden_dump_logs_on_failure: for teardown(): dump logs when the test failed.
golden_dump_logs_on_failure() {
    if [[ -z ${BATS_TEST_COMPLETED:-} ]]; then
        golden_dump_logs "$@"
    fi
    return 0
}

# golden_gpu_nodes DIR N GPU_BASE NIC_BASE: fixtures for nodes n1..nN:
# DIR/nodes/nK/{topo.xml,root} (the vm-flat fixture: 4 A100s, 4 HDR HCAs)
# and DIR/nvml/nK.json (the fake NVML's healthy GPUs), node k's GPUs in PCI
# domains GPU_BASE+0x10*k+1..4 and its HCAs in NIC_BASE+0x10*k+1..4. The
# kernel log is the host's: with xid_scope = node-gpus an XID belongs to
# exactly one node, and each file that writes XIDs has bases of its own
# (lifecycle 0x000/0x100, active 0x400/0x500, drill 0x600/0x700), so one
# file's faults, still in the ring buffer, are never another's.
golden_gpu_nodes() {
    local dir=$1 n=$2 gbase=$3 nbase=$4 k
    mkdir -p "$dir/nvml"
    python3 - "$GOLDEN_SRCDIR/t/fixtures/nodes.json" "$dir/nodes.json" "$n" "$gbase" "$nbase" <<-'EOP' || return 1
	import json, sys
	d = json.load(open(sys.argv[1]))
	n, gb, nb = int(sys.argv[3]), int(sys.argv[4], 0), int(sys.argv[5], 0)
	base = d["fixtures"]["vm-flat"]
	out = {"models": d["models"], "ports": d["ports"], "fixtures": {}}
	for k in range(1, n + 1):
	    f = json.loads(json.dumps(base))
	    gpus = ["%04x:00:00.0" % (gb + 0x10 * k + i) for i in range(1, 5)]
	    nics = ["%04x:00:00.0" % (nb + 0x10 * k + i) for i in range(1, 5)]
	    f["pci"] = [{"numa": 0, "tree": [b]} for b in gpus + nics]
	    f["devices"] = {g: "a100" for g in gpus}
	    for i, b in enumerate(nics):
	        f["devices"][b] = {"model": "cx6-vf-ib", "rdma": "mlx5_%d" % i,
	                           "net": "ib%d" % i, "port": "hdr"}
	    out["fixtures"]["n%d" % k] = f
	json.dump(out, open(sys.argv[2], "w"), indent=1)
	EOP
    python3 "$GOLDEN_SRCDIR/t/fixtures/mkfixture.py" "$dir/nodes.json" "$dir/nodes" || return 1
    for ((k = 1; k <= n; k++)); do
        python3 - "$GOLDEN_SRCDIR/t/fixtures/nvml/healthy-8gpu.json" "$dir/nvml/n$k.json" "$k" "$gbase" <<-'EOP' || return 1
	import json, sys
	d = json.load(open(sys.argv[1]))
	k, gb = int(sys.argv[3]), int(sys.argv[4], 0)
	d["gpus"] = [dict(d["gpus"][0], bus_id="%04x:00:00.0" % (gb + 0x10 * k + i + 1)) for i in range(4)]
	json.dump(d, open(sys.argv[2], "w"))
	EOP
    done
}

# golden_gpu_conf DIR: the golden.conf lines the suites on golden_gpu_nodes
# share (each node's topology and sysroot, state, log and metrics under DIR,
# the real scontrol, a 5 s budget, XIDs counted for the node's own GPUs);
# the suite appends its own lines.
golden_gpu_conf() {
    local dir=$1
    golden_scaled_check_deadlines
    cat <<EOC
topology = $dir/nodes/%n/topo.xml
sysroot = $dir/nodes/%n/root
state_dir = $dir/state/%n
log = $dir/log/%n.jsonl
metrics_dir = $dir/metrics/%n
scontrol = $(command -v scontrol)
budget_ms = $(golden_scaled 5000)
discovery_deadline_ms = $(golden_scaled 3000)
xid_scope = node-gpus
EOC
}

# golden_acknowledge_kmsg CONF NODE...: each node's kernel-log cursors start
# now, so faults earlier runs wrote into the host's ring buffer are not this
# run's.
golden_acknowledge_kmsg() {
    local conf=$1 n
    shift
    for n in "$@"; do
        GOLDEN_CONF=$conf "$GOLDEN_BUILDDIR/cli/golden" check --node "$n" \
            --acknowledge-kmsg >/dev/null || return 1
    done
}

# golden_healthcheck_script DIR: DIR/healthcheck, what slurmd runs as
# HealthCheckProgram (with only SLURMD_NODENAME in its environment):
# golden check --healthcheck with DIR/golden.conf and its node's fake NVML.
# Call it after golden_cluster_prepare (it needs SLURM_CONF).
golden_healthcheck_script() {
    local dir=$1
    cat >"$dir/healthcheck" <<-EOW
	#!/bin/sh
	export SLURM_CONF=$SLURM_CONF
	export GOLDEN_CONF=$dir/golden.conf
	export LD_LIBRARY_PATH=$GOLDEN_BUILDDIR/t/fake-nvml/.libs
	export FAKE_NVML_STATE=$dir/nvml/\$SLURMD_NODENAME.json
	exec $GOLDEN_BUILDDIR/cli/golden check --healthcheck
	EOW
    chmod 0755 "$dir/healthcheck"
}

# golden_watch_start DIR NODE: golden-watch for NODE with DIR/golden.conf
# and the node's fake NVML, as its systemd unit would run it; log in
# DIR/watch-NODE.log. Returns once it reads the kernel log.
golden_watch_start() {
    local dir=$1 node=$2
    GOLDEN_CONF=$dir/golden.conf LD_LIBRARY_PATH=$GOLDEN_BUILDDIR/t/fake-nvml/.libs \
        FAKE_NVML_STATE=$dir/nvml/$node.json setsid "$GOLDEN_BUILDDIR/watch/golden-watch" \
        --node "$node" </dev/null >>"$dir/watch-$node.log" 2>&1 3>&- &
    echo $! >"$dir/watch-$node.pid"
    for _ in $(seq 100); do
        grep -q "watching" "$dir/watch-$node.log" 2>/dev/null && return 0
        sleep 0.1
    done
    _golden_err "golden_watch_start: golden-watch for $node did not start: $(tail -n 3 "$dir/watch-$node.log" 2>&1)"
    return 1
}

# golden_watch_stop DIR NODE: SIGTERM, then SIGKILL after 5 s.
golden_watch_stop() {
    local dir=$1 node=$2 pid
    pid=$(cat "$dir/watch-$node.pid" 2>/dev/null) || return 0
    kill -TERM "$pid" 2>/dev/null || return 0
    for _ in $(seq 50); do
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
}
