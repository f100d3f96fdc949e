# shellcheck shell=bash
# t/lib/ibsim.bash - a simulated InfiniBand fabric for the real ibnetdiscover
# (Debian ibsim-utils + infiniband-diags; t/fixtures/ibsim/README.md).
#
#   golden_ibsim_available           status 0 when ibsim, libumad2sim and ibnetdiscover exist
#   golden_ibsim_start NETFILE       start ibsim on NETFILE under its own socket name
#   golden_ibsim_run SIM_HOST CMD... run CMD (ibnetdiscover, or golden --run-ibnetdiscover)
#                                    attached to the simulated fabric at node SIM_HOST
#   golden_ibsim_stop                stop the ibsim this shell started (by its pid)

GOLDEN_UMAD2SIM=${GOLDEN_UMAD2SIM:-/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}

golden_ibsim_available() {
    command -v ibsim >/dev/null && [[ -r $GOLDEN_UMAD2SIM ]] &&
        { [[ -x /usr/sbin/ibnetdiscover ]] || command -v ibnetdiscover >/dev/null; }
}

golden_ibsim_start() {
    local net=$1 log i
    GOLDEN_IBSIM_SOCK=golden-$$-$RANDOM
    log=${BATS_TEST_TMPDIR:-${TMPDIR:-/tmp}}/ibsim-$GOLDEN_IBSIM_SOCK.log
    IBSIM_SOCKNAME=$GOLDEN_IBSIM_SOCK ibsim -s -n "$net" >"$log" 2>&1 </dev/null &
    GOLDEN_IBSIM_PID=$!
    for i in $(seq 1 100); do
        grep -q 'simulator ready' "$log" 2>/dev/null && return 0
        kill -0 "$GOLDEN_IBSIM_PID" 2>/dev/null || break
        sleep 0.1
    done
    printf 'ibsim did not start on %s:\n' "$net" >&2
    tail -5 "$log" >&2
    return 1
}

# ibnetdiscover hangs silently when nobody answers on the socket: always
# under timeout. ASan's link-order check would refuse the preloaded library
# in a sanitizer build of golden; it does not matter to golden itself.
golden_ibsim_run() {
    local host=$1
    shift
    env LD_PRELOAD="$GOLDEN_UMAD2SIM" IBSIM_SOCKNAME="$GOLDEN_IBSIM_SOCK" SIM_HOST="$host" \
        ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
        timeout 120 "$@"
}

golden_ibsim_stop() {
    [[ -n ${GOLDEN_IBSIM_PID:-} ]] || return 0
    kill "$GOLDEN_IBSIM_PID" 2>/dev/null || true
    wait "$GOLDEN_IBSIM_PID" 2>/dev/null || true
    GOLDEN_IBSIM_PID=
}
