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
#
# Environment:
#   GOLDEN_SRCDIR       source tree (make check sets it); default: two levels
#                       above this file
#   GOLDEN_PORT_BASE    SlurmctldPort of test clusters (default 17100; the
#                       slurmd's use the next ports)
#   GOLDEN_JOB_TIMEOUT  default wait for jobs in seconds (default 60)
#   GOLDEN_MINICLUSTER  override the path of golden-minicluster
#   GOLDEN_TEST_USER    the ordinary user jobs run as (default golden-user)

_golden_lib_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [[ -n ${GOLDEN_SRCDIR:-} ]]; then
    GOLDEN_SRCDIR=$(cd "$GOLDEN_SRCDIR" && pwd)
else
    GOLDEN_SRCDIR=$(cd "$_golden_lib_dir/../.." && pwd)
fi
export GOLDEN_SRCDIR
: "${GOLDEN_MINICLUSTER:=$GOLDEN_SRCDIR/contrib/minicluster/golden-minicluster}"
: "${GOLDEN_PORT_BASE:=17100}"
: "${GOLDEN_JOB_TIMEOUT:=60}"
export GOLDEN_MINICLUSTER GOLDEN_PORT_BASE GOLDEN_JOB_TIMEOUT

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

# golden_cluster_prepare: choose the cluster directory (and SLURM_CONF)
# before starting, for programs written before the cluster exists that
# need its path (slurmd runs HealthCheckProgram with an empty environment).
golden_cluster_prepare() {
    local parent=${BATS_FILE_TMPDIR:-${TMPDIR:-/tmp}}
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
    if ! "$GOLDEN_MINICLUSTER" start "$GOLDEN_CLUSTER_DIR" \
        --port-base "$GOLDEN_PORT_BASE" "$@" >/dev/null; then
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
    local jobid=$1 timeout=${2:-$GOLDEN_JOB_TIMEOUT} state
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
# "[user@time]"; empty when there is none.
golden_node_reason() {
    local out line
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
    local node=$1 re=$2 timeout=${3:-30} state
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
