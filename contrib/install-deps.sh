#!/bin/sh
# Install every build and test dependency of slurm-golden from Debian packages.
# Safe to run again: apt-get skips what is already there.
#
#   contrib/install-deps.sh [--stop-services]     (as root)
#
# Meant for a build/test machine or a throwaway VM, not a cluster node.
# Installing slurmd/slurmctld/slurmdbd/mariadb/munge makes Debian start them; the tests run
# private instances, so the ones this install started are stopped again. A
# slurmd, slurmctld, slurmdbd, mariadb or munge that was already running before is somebody's
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
SERVICES="slurmd slurmctld slurmdbd mariadb munge"
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
	slurm-wlm slurmctld slurmd slurm-client munge slurmdbd mariadb-server mariadb-client
	bats python3 valgrind procps iproute2 util-linux libfuse3-dev fuse3
	clang libclang-rt-14-dev
	ibsim-utils infiniband-diags
	gnuplot-nox jq
	debootstrap qemu-system-x86 qemu-utils e2fsprogs git
	dpkg-dev debhelper lintian fakeroot rpm logrotate groff-base man-db"
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

# NVIDIA's real NVML for t/nvml-abi.sh and t/nvidia.bats, from Debian's
# non-free component: libnvidia-ml1 (the driver's libnvidia-ml.so.1) and
# libnvidia-ml-dev (nvml.h), and trixie's libnvidia-ml-dev (NVML 12.4: the
# GPU-fabric types golden declares). Only these packages: the non-free source
# is pinned to -1 for everything else, and the packages are unpacked into
# /opt/slurm-golden rather than installed, because installing libnvidia-ml1
# pulls in the driver's alternatives and GLX diversions, and a
# libnvidia-ml.so.1 on the default library path would be loaded by hwloc's
# NVML plugin and by golden itself on this GPU-less machine. A failure here
# is a warning: those tests then fail where they must run (as root).
NVML_DIR=/opt/slurm-golden/nvidia-ml
NVML12_DIR=/opt/slurm-golden/nvidia-ml-trixie

# unpack DIR DEB...: extract the packages into DIR (replaced), list them in DIR/VERSIONS
unpack() {
	dir=$1
	shift
	rm -rf "$dir.new" && mkdir -p "$dir.new" || return 1
	for deb in "$@"; do
		[ -f "$deb" ] && dpkg-deb -x "$deb" "$dir.new" || return 1
		dpkg-deb -f "$deb" Package Version | tr '\n' ' ' >>"$dir.new/VERSIONS" && echo >>"$dir.new/VERSIONS"
	done
	rm -rf "$dir" && mv "$dir.new" "$dir"
}

fetch_nvml() {
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
	printf 'Types: deb\nURIs: http://deb.debian.org/debian\nSuites: %s\nComponents: non-free\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
		"$codename" >/etc/apt/sources.list.d/slurm-golden-non-free.sources || return 1
	printf 'Package: *\nPin: release o=Debian,c=non-free\nPin-Priority: -1\n\nPackage: libnvidia-ml1 libnvidia-ml-dev\nPin: release o=Debian,c=non-free\nPin-Priority: 500\n' \
		>/etc/apt/preferences.d/slurm-golden-non-free || return 1
	t=$(mktemp -d) || return 1
	chmod 0777 "$t" # apt-get download runs as _apt
	mkdir -p "$t/lists/partial" "$t/parts" "$t/trixie"
	chmod 0777 "$t/trixie"
	ok=0
	if apt-get update -qq && (cd "$t" && apt-get download -qq libnvidia-ml1 libnvidia-ml-dev) &&
		unpack "$NVML_DIR" "$t"/*.deb; then
		echo "install-deps.sh: NVML unpacked in $NVML_DIR: $(tr '\n' ';' <"$NVML_DIR/VERSIONS")"
	else
		ok=1
	fi
	# trixie's nvml.h with a private apt state: this machine's sources stay as they are
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie non-free" >"$t/sources.list"
	ao="-o Dir::Etc::sourcelist=$t/sources.list -o Dir::Etc::sourceparts=$t/parts -o Dir::State::Lists=$t/lists -o Dir::Etc::preferencesparts=$t/parts -o Dir::State::status=/dev/null -o Acquire::Check-Valid-Until=false"
	# shellcheck disable=SC2086
	if apt-get $ao update -qq && (cd "$t/trixie" && apt-get $ao download -qq libnvidia-ml-dev) &&
		unpack "$NVML12_DIR" "$t"/trixie/*.deb; then
		echo "install-deps.sh: trixie's nvml.h in $NVML12_DIR: $(cat "$NVML12_DIR/VERSIONS")"
	else
		ok=1
	fi
	rm -rf "$t"
	return "$ok"
}
fetch_nvml || echo "install-deps.sh: warning: NVIDIA's NVML packages could not be fetched (t/nvml-abi.sh and t/nvidia.bats will fail as root)" >&2

# promtool (t/metrics.bats lints golden's Prometheus textfiles with it) comes
# in Debian's prometheus package with the Prometheus server, whose install
# would start a server here: unpack the package and keep promtool only (a
# static Go binary).
PROMTOOL_DIR=/opt/slurm-golden/prometheus
fetch_promtool() {
	t=$(mktemp -d) || return 1
	chmod 0777 "$t" # apt-get download runs as _apt
	ok=1
	if (cd "$t" && apt-get download -qq prometheus) && unpack "$t/x" "$t"/prometheus_*.deb &&
		mkdir -p "$PROMTOOL_DIR.new/bin" && cp "$t/x/usr/bin/promtool" "$PROMTOOL_DIR.new/bin/" &&
		cp "$t/x/VERSIONS" "$PROMTOOL_DIR.new/" && rm -rf "$PROMTOOL_DIR" && mv "$PROMTOOL_DIR.new" "$PROMTOOL_DIR"; then
		echo "install-deps.sh: promtool in $PROMTOOL_DIR/bin: $(cat "$PROMTOOL_DIR/VERSIONS")"
		ok=0
	fi
	rm -rf "$t" "$PROMTOOL_DIR.new"
	return "$ok"
}
fetch_promtool || echo "install-deps.sh: warning: promtool could not be fetched (t/metrics.bats will fail)" >&2

echo "install-deps.sh: dependencies installed"
