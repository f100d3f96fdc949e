#!/bin/sh
# Install every build and test dependency of slurm-golden from Debian packages.
# Safe to run again: apt-get skips what is already there.
set -eu
if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps.sh: run as root (it calls apt-get)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
PKGS="build-essential autoconf automake libtool pkg-config
	libslurm-dev libhwloc-dev libjson-c-dev hwloc
	slurm-wlm slurmctld slurmd slurm-client munge
	bats python3 valgrind procps iproute2 util-linux libfuse3-dev fuse3
	gnuplot-nox"
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $PKGS >/dev/null
# The Debian packages start their own munged/slurmd/slurmctld on install;
# slurm-golden's mini-cluster runs private instances, so stop the system ones.
for svc in slurmd slurmctld munge; do
	if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet "$svc" 2>/dev/null; then
		systemctl stop "$svc" || true
	fi
done
echo "install-deps.sh: dependencies installed"
