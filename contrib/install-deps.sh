#!/bin/sh
# Install every build and test dependency of slurm-golden from Debian packages.
# Safe to run again: apt-get skips what is already there.
#
#   contrib/install-deps.sh [--stop-services]     (as root)
#
# Meant for a build/test machine or a throwaway VM, not a cluster node.
# Installing slurmd/slurmctld/munge makes Debian start them; the tests run
# private instances, so the ones this install started are stopped again. A
# slurmd, slurmctld or munge that was already running before is somebody's
# (maybe a real cluster's) and is left alone: with --stop-services it is
# stopped too.
set -eu
stop_running=0
for arg in "$@"; do
	case $arg in
	--stop-services) stop_running=1 ;;
	-h | --help)
		sed -n '2,12s/^# \{0,1\}//p' "$0"
		exit 0
		;;
	*)
		echo "install-deps.sh: unknown argument '$arg' (expected --stop-services)" >&2
		exit 2
		;;
	esac
done
if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps.sh: run as root (it calls apt-get)" >&2
	exit 1
fi
SERVICES="slurmd slurmctld munge"
is_active() {
	command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet "$1" 2>/dev/null
}
# What was running before this script touched anything.
running_before=""
for svc in $SERVICES; do
	if is_active "$svc"; then
		running_before="$running_before $svc"
	fi
done
if [ -n "$running_before" ] && [ "$stop_running" -eq 0 ]; then
	echo "install-deps.sh: already running here:$running_before; leaving them alone" \
		"(this machine may be a real Slurm node: the tests are meant for a throwaway" \
		"machine; --stop-services stops them)" >&2
fi

export DEBIAN_FRONTEND=noninteractive
PKGS="build-essential autoconf automake libtool pkg-config
	libslurm-dev libhwloc-dev libjson-c-dev hwloc
	slurm-wlm slurmctld slurmd slurm-client munge
	bats python3 valgrind procps iproute2 util-linux libfuse3-dev fuse3
	clang libclang-rt-14-dev
	ibsim-utils infiniband-diags
	gnuplot-nox
	dpkg-dev debhelper lintian fakeroot rpm debootstrap logrotate groff-base man-db"
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $PKGS >/dev/null

for svc in $SERVICES; do
	is_active "$svc" || continue
	case " $running_before " in
	*" $svc "*) [ "$stop_running" -eq 1 ] || continue ;;
	esac
	echo "install-deps.sh: stopping $svc" >&2
	systemctl stop "$svc" || true
done
echo "install-deps.sh: dependencies installed"
