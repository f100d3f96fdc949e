#!/bin/bash
# t/packages/smoke-inside.sh - runs inside a throw-away copy (overlay) of a
# slurm-env chroot with the suite's real Slurm, for t/packages.bats:
#   1. builds the Debian packages from `make dist`'s tarball against this
#      suite's Slurm (dpkg-buildpackage -us -uc -b), as an admin would;
#   2. asks apt whether the host's plugin package (built for the host's
#      Slurm series) would install here: it must not, unless the series match;
#   3. installs this suite's packages with dpkg and starts a one-node
#      cluster (golden-minicluster) whose plugstack.conf is the installed
#      plugin, Prolog= the installed golden-prolog and HealthCheckProgram=
#      the installed golden-healthcheck, with no wrapper;
#   4. runs an ordinary user's --golden-nccl job and records what it got.
# Everything it learns goes to OUT as files; t/packages.bats asserts them.
#
#   smoke-inside.sh TARBALL HOST_DEB_DIR FIXTURES SRCDIR PORT_BASE OUT
set -euo pipefail
tarball=$1 hostdebs=$2 fx=$3 src=$4 port=$5 out=$6
export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8
step() { printf '%s %s\n' "$(date +%s)" "$*" >>"$out/steps"; }

step apt
# debhelper is not in slurm-env's package list; this copy is thrown away.
apt-get update -qq >"$out/apt.log" 2>&1
apt-get install -y -q --no-install-recommends debhelper systemd-dev >>"$out/apt.log" 2>&1

step build
rm -rf /tmp/golden-pkg && mkdir -p /tmp/golden-pkg
tar -C /tmp/golden-pkg -xzf "$tarball"
(cd /tmp/golden-pkg/slurm-golden-* && dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1
mkdir -p "$out/debs"
cp /tmp/golden-pkg/*.deb "$out/debs/"
dpkg-query -W -f '${Version}\n' slurmd >"$out/slurm-version"

step refuse
# The host's plugin, pinned to the host's series: apt must refuse it here
# when the series differ (the status goes to a file, not to set -e).
rc=0
apt-get install -s -y "$hostdebs"/slurm-golden-plugin_*.deb "$hostdebs"/slurm-golden-recipes_*.deb \
	>"$out/host-plugin.log" 2>&1 || rc=$?
echo "$rc" >"$out/host-plugin.rc"

step install
debs=()
for p in recipes plugin node cli; do
	debs+=(/tmp/golden-pkg/slurm-golden-${p}_*.deb)
done
dpkg -i "${debs[@]}" >"$out/install.log" 2>&1
dpkg-query -W -f '${Package} ${Status}\n' 'slurm-golden-*' >"$out/installed"
for p in golden golden-prolog golden-epilog golden-healthcheck golden-watch; do
	"$p" --version >>"$out/versions"
done

step cluster
arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
dir=/srv/golden-smoke
mkdir -p "$dir/etc" /var/log/slurm-golden
# The node programs' golden.conf: the prolog reads the default
# /etc/slurm/golden.conf; golden-healthcheck must find the one beside the
# cluster's slurm.conf through slurmd's -f. Different logs tell them apart.
# A CPU-only fixture: no GPU here, and the checks must pass.
conf() {
	printf 'topology = %s\nsysroot = %s\nstate_dir = /var/lib/slurm-golden/%%n\nlog = %s\nxid_scope = node-gpus\nscontrol = /usr/bin/scontrol\n' \
		"$fx/cpu-only/topo.xml" "$fx/cpu-only/root" "$1"
}
conf /var/log/slurm-golden/prolog.jsonl >/etc/slurm/golden.conf
conf /var/log/slurm-golden/healthcheck.jsonl >"$dir/etc/golden.conf"
chmod 0644 /etc/slurm/golden.conf "$dir/etc/golden.conf"
# The plugin sees an HGX H100 node (fixture topology and /sys).
plug="required /usr/lib/$arch/slurm-golden/golden_nccl.so"
plug+=" topology=$fx/hgx-h100-ib/topo.xml sysroot=$fx/hgx-h100-ib/root cache=off"
id golden-user >/dev/null 2>&1 || useradd -M -s /bin/sh golden-user
stop() { "$src/contrib/minicluster/golden-minicluster" stop "$dir" >/dev/null 2>&1 || true; }
trap stop EXIT
"$src/contrib/minicluster/golden-minicluster" start "$dir" --nodes 1 --port-base "$port" \
	--plugstack-line "$plug" --prolog /usr/sbin/golden-prolog \
	--conf-extra HealthCheckProgram=/usr/sbin/golden-healthcheck \
	--conf-extra HealthCheckInterval=65535 --conf-extra HealthCheckNodeState=ANY \
	>"$out/cluster.log" 2>&1
export SLURM_CONF=$dir/etc/slurm.conf
chmod -R go+rX "$dir/etc"

step job
srun --help 2>&1 | grep -e '--golden-nccl' >"$out/srun-help" || true
runuser -u golden-user -- env SLURM_CONF="$SLURM_CONF" \
	srun -N1 --golden-nccl=verbose printenv NCCL_IB_HCA NCCL_SOCKET_IFNAME GOLDEN_NCCL_RECIPE \
	>"$out/job.env" 2>"$out/job.err" || echo "srun: $?" >>"$out/job.err"
runuser -u golden-user -- env SLURM_CONF="$SLURM_CONF" \
	srun -N1 printenv NCCL_IB_HCA >"$out/job-off.env" 2>>"$out/job.err" || true
# slurmd ran the health check at start; give it a moment if it is slow.
for _ in $(seq 50); do
	[ -s /var/log/slurm-golden/healthcheck.jsonl ] && break
	sleep 0.2
done
cp /var/log/slurm-golden/*.jsonl "$out/" 2>/dev/null || true
sinfo -h -N -o '%N %T %E' >"$out/sinfo"
step done
