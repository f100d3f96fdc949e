#!/usr/bin/env bats
# The Debian and RPM packages (make deb, make rpm): what each package holds,
# the Slurm pin of the plugin, lintian, %config(noreplace), and a smoke
# test of the .deb's in a clean Debian 13 with its real Slurm 24.11.
#
# The smoke test builds the packages inside a throw-away overlay of
# slurm-env's trixie chroot (contrib/env/slurm-env; built here when missing),
# because a package built on this host is pinned to this host's Slurm series
# and must not install there: that refusal is tested too.
# Needs: dpkg-buildpackage + debhelper (Debian packages), rpmbuild (RPM),
# lintian; root, debootstrap and unshare for the smoke test. Each missing
# tool skips only the tests that need it, saying which. GOLDEN_PKG_SMOKE=no
# skips the smoke test (it starts a Slurm cluster: run it under the suite's
# lock like the integration tests).

load 'lib/common'

setup_file() {
	B=$GOLDEN_BUILDDIR
	export B
	export ARCH
	ARCH=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo unknown)
	export TARNAME=slurm-golden VERSION
	VERSION=$(sed -n 's/^PACKAGE_VERSION = //p' "$B/Makefile")
	SERIES=$(sed -n 's/^SLURM_SERIES = //p' "$B/Makefile")
	NEXT=$(sed -n 's/^SLURM_SERIES_NEXT = //p' "$B/Makefile")
	export SERIES NEXT
	# Build with every core (debhelper's default is one), as CI would.
	DEB_BUILD_OPTIONS="parallel=$(nproc 2>/dev/null || echo 2)"
	export DEB_BUILD_OPTIONS
	if command -v dpkg-buildpackage >/dev/null && [ -x /usr/bin/dh ]; then
		t0=$(date +%s)
		make -C "$B" deb >"$BATS_FILE_TMPDIR/deb.log" 2>&1 && touch "$BATS_FILE_TMPDIR/deb.ok"
		echo "$(($(date +%s) - t0))" >"$BATS_FILE_TMPDIR/deb.seconds"
	fi
	if command -v rpmbuild >/dev/null; then
		t0=$(date +%s)
		# Debian cannot satisfy the RPM BuildRequires: --nodeps.
		make -C "$B" rpm RPMBUILD_FLAGS=--nodeps >"$BATS_FILE_TMPDIR/rpm.log" 2>&1 &&
			touch "$BATS_FILE_TMPDIR/rpm.ok"
		echo "$(($(date +%s) - t0))" >"$BATS_FILE_TMPDIR/rpm.seconds"
	fi
	smoke_run
}

# The smoke test, once for the file: results in $BATS_FILE_TMPDIR/smoke/.
smoke_run() {
	local suite=${GOLDEN_PKG_SUITE:-trixie} envtool=$GOLDEN_SRCDIR/contrib/env/slurm-env
	local cache=${SLURM_ENV_CACHE:-/var/cache/slurm-golden} why=
	[ "${GOLDEN_PKG_SMOKE:-yes}" != no ] || why="GOLDEN_PKG_SMOKE=no"
	[ -n "$why" ] || [ $EUID -eq 0 ] || why="needs root (chroot, overlay mount, a Slurm cluster)"
	[ -n "$why" ] || [ -x "$envtool" ] || why="no $envtool"
	[ -n "$why" ] || [ -f "$BATS_FILE_TMPDIR/deb.ok" ] || why="the host's Debian packages did not build"
	[ -n "$why" ] || [ -f "$B/$TARNAME-$VERSION.tar.gz" ] ||
		make -C "$B" dist-gzip >"$BATS_FILE_TMPDIR/dist.log" 2>&1 || why="make dist failed"
	if [ -z "$why" ] && [ ! -f "$cache/env-$suite/.slurm-env-stamp" ]; then
		if command -v debootstrap >/dev/null; then
			"$envtool" build "$suite" >"$BATS_FILE_TMPDIR/env-build.log" 2>&1 ||
				why="slurm-env build $suite failed (see $BATS_FILE_TMPDIR/env-build.log)"
		else
			why="no $suite chroot in $cache and no debootstrap to build one"
		fi
	fi
	if [ -n "$why" ]; then
		echo "$why" >"$BATS_FILE_TMPDIR/smoke.skip"
		return 0
	fi
	# A throw-away copy: an overlay on the cached chroot, in a mount
	# namespace of its own, handed to slurm-env through its cache variable.
	local t=$BATS_FILE_TMPDIR/smoke
	mkdir -p "$t/cache/env-$suite" "$t/upper" "$t/work" "$t/out" "$t/in"
	cp "$B/$TARNAME-$VERSION.tar.gz" "$t/in/"
	cp "$B"/pkg/deb/*.deb "$t/in/"
	chmod -R go+rX "$t" "$BATS_FILE_TMPDIR"
	t0=$(date +%s)
	unshare -m --propagation private bash -c '
		mount -t overlay overlay -o "lowerdir=$1,upperdir=$2/upper,workdir=$2/work" "$2/cache/env-$3" &&
		SLURM_ENV_CACHE=$2/cache "$4" run "$3" --tree "$5" --tree "$6" --tree "$2" \
			--env "DEB_BUILD_OPTIONS=$DEB_BUILD_OPTIONS" -- \
			bash "$5/t/packages/smoke-inside.sh" "$2/in/'"$TARNAME-$VERSION"'.tar.gz" "$2/in" \
			"$6/t/fixtures/out" "$5" "$7" "$2/out"' \
		smoke "$cache/env-$suite" "$t" "$suite" "$envtool" "$GOLDEN_SRCDIR" "$B" "$GOLDEN_PORT_BASE" \
		>"$t/run.log" 2>&1 && touch "$t/ok"
	echo "$(($(date +%s) - t0))" >"$t/seconds"
	# The upper layer (a Debian userland with debhelper) is not needed again.
	rm -rf "$t/upper" "$t/work"
}

need_deb() {
	command -v dpkg-buildpackage >/dev/null || skip "no dpkg-buildpackage (apt-get install dpkg-dev)"
	[ -x /usr/bin/dh ] || skip "no debhelper (apt-get install debhelper)"
	[ -f "$BATS_FILE_TMPDIR/deb.ok" ] || { tail -40 "$BATS_FILE_TMPDIR/deb.log"; false; }
}

need_rpm() {
	command -v rpmbuild >/dev/null || skip "no rpmbuild (apt-get install rpm)"
	[ -f "$BATS_FILE_TMPDIR/rpm.ok" ] || { tail -40 "$BATS_FILE_TMPDIR/rpm.log"; false; }
}

need_smoke() {
	if [ -f "$BATS_FILE_TMPDIR/smoke.skip" ]; then
		skip "$(cat "$BATS_FILE_TMPDIR/smoke.skip")"
	fi
	S=$BATS_FILE_TMPDIR/smoke
	[ -f "$S/ok" ] || {
		tail -30 "$S/run.log"
		tail -30 "$S/out/build.log" 2>/dev/null
		cat "$S/out/steps" 2>/dev/null
		false
	}
}

# Files of a .deb (no directories), the multiarch triplet as ARCH and
# /lib as /usr/lib (Debian 12 installs systemd units to /lib).
deb_files() {
	dpkg-deb -c "$1" | awk '$1 !~ /^d/ {print $6}' | sed -e "s|$ARCH|ARCH|g" -e 's|^\./lib/|./usr/lib/|' | sort
}

# The file lists every .deb must have, exactly.
expect_deb() {
	case $1 in
	plugin) cat <<-EOL ;;
	./etc/slurm/plugstack.conf.d/golden_nccl.conf.example
	./usr/lib/ARCH/slurm-golden/golden_nccl.so
	./usr/share/doc/slurm-golden-plugin/changelog.gz
	./usr/share/doc/slurm-golden-plugin/copyright
	./usr/share/lintian/overrides/slurm-golden-plugin
	./usr/share/man/man8/golden_nccl.8.gz
	EOL
	node) cat <<-EOL ;;
	./etc/logrotate.d/slurm-golden
	./usr/lib/systemd/system/golden-watch.service
	./usr/sbin/golden-epilog
	./usr/sbin/golden-healthcheck
	./usr/sbin/golden-prolog
	./usr/sbin/golden-watch
	./usr/share/doc/slurm-golden-node/README.md.gz
	./usr/share/doc/slurm-golden-node/changelog.gz
	./usr/share/doc/slurm-golden-node/copyright
	./usr/share/doc/slurm-golden-node/golden.conf.example
	./usr/share/doc/slurm-golden-node/plugstack.conf.example
	./usr/share/lintian/overrides/slurm-golden-node
	./usr/share/man/man5/golden.conf.5.gz
	./usr/share/man/man8/golden-epilog.8.gz
	./usr/share/man/man8/golden-healthcheck.8.gz
	./usr/share/man/man8/golden-prolog.8.gz
	./usr/share/man/man8/golden-watch.8.gz
	EOL
	cli) cat <<-EOL ;;
	./usr/bin/golden
	./usr/lib/systemd/system/golden-active-submit.service
	./usr/lib/systemd/system/golden-active-submit.timer
	./usr/share/bash-completion/completions/golden
	./usr/share/doc/slurm-golden-cli/changelog.gz
	./usr/share/doc/slurm-golden-cli/copyright
	./usr/share/man/man1/golden.1.gz
	./usr/share/man/man7/golden-json.7.gz
	EOL
	recipes)
		cat <<-EOL
		./usr/share/doc/slurm-golden-recipes/changelog.gz
		./usr/share/doc/slurm-golden-recipes/copyright
		./usr/share/man/man5/golden-recipe.5.gz
		./usr/share/slurm-golden/nccl-topo/azure-ndv4.xml
		./usr/share/slurm-golden/nccl-topo/azure-ndv5.xml
		EOL
		(cd "$GOLDEN_SRCDIR" && ls recipes/*.json) | sed 's|^|./usr/share/slurm-golden/|'
		;;
	esac
}

check_deb_lists() {
	local dir=$1 p d
	for p in plugin node cli recipes; do
		d=$(ls "$dir"/slurm-golden-${p}_*.deb)
		diff -u <(expect_deb $p | sort) <(deb_files "$d") || { echo "in $d"; return 1; }
	done
}

# Nothing of the build tree inside: no path of it in any installed file.
check_no_build_tree() {
	local dir=$1 x=$BATS_TEST_TMPDIR/x d
	for d in "$dir"/slurm-golden-{plugin,node,cli,recipes}_*.deb; do
		rm -rf "$x" && mkdir -p "$x" && dpkg-deb -x "$d" "$x"
		if grep -rlF -e "$GOLDEN_BUILDDIR" -e "$GOLDEN_SRCDIR" -e "/_build" "$x"; then
			echo "$d holds a path of the build tree"
			return 1
		fi
	done
}

@test "make deb: each package holds exactly its files (plugin, node, cli, recipes)" {
	need_deb
	echo "# dpkg-buildpackage: $(cat "$BATS_FILE_TMPDIR/deb.seconds") s" >&3
	check_deb_lists "$B/pkg/deb"
	ls -l "$B"/pkg/deb/*.deb | awk '{print "# " $5 " " $9}' >&3
}

@test "make deb: no path of the build or source tree in any packaged file" {
	need_deb
	check_no_build_tree "$B/pkg/deb"
}

@test "the plugin package depends on exactly the Slurm series of slurm_version.h" {
	need_deb
	# The series from the header itself, not from configure.
	hex=$(sed -n 's/^#define SLURM_VERSION_NUMBER *0x\([0-9a-fA-F]*\).*/\1/p' /usr/include/slurm/slurm_version.h)
	want=$(printf '%d.%02d' "0x${hex:0:2}" "0x${hex:2:2}")
	next=$(printf '%d.%02d' "0x${hex:0:2}" "$((0x${hex:2:2} + 1))")
	deps=$(dpkg-deb -f "$B"/pkg/deb/slurm-golden-plugin_*.deb Depends)
	[[ "$deps" == *"slurm-wlm-basic-plugins (>= $want), slurm-wlm-basic-plugins (<< $next~)"* ]] ||
		{ echo "$deps"; false; }
	# The installed Slurm is inside the range (so the pin is satisfiable here).
	v=$(dpkg-query -W -f '${Version}' slurm-wlm-basic-plugins)
	dpkg --compare-versions "$v" ge "$want"
	dpkg --compare-versions "$v" lt "$next~"
	# The node programs talk to Slurm through scontrol only: not pinned.
	[[ "$(dpkg-deb -f "$B"/pkg/deb/slurm-golden-node_*.deb Depends)" != *"<<"* ]]
	[ "$(dpkg-deb -f "$B"/pkg/deb/slurm-golden-recipes_*.deb Architecture)" = all ]
}

@test "the plugstack snippet, the unit and the logrotate file carry the packages' paths" {
	need_deb
	x=$BATS_TEST_TMPDIR/x
	for p in plugin node; do dpkg-deb -x "$B"/pkg/deb/slurm-golden-${p}_*.deb "$x"; done
	grep -qx "required /usr/lib/$ARCH/slurm-golden/golden_nccl.so" \
		"$x/etc/slurm/plugstack.conf.d/golden_nccl.conf.example"
	unit=$x/usr/lib/systemd/system/golden-watch.service
	[ -f "$unit" ] || unit=$x/lib/systemd/system/golden-watch.service
	grep -qx 'ExecStart=/usr/sbin/golden-watch' "$unit"
	dpkg-deb -x "$B"/pkg/deb/slurm-golden-cli_*.deb "$x"
	grep -qx 'ExecStart=/usr/bin/golden active submit --partition scavenger --max-age 24h' \
		"${unit%/*}/golden-active-submit.service"
	[ -f "${unit%/*}/golden-active-submit.timer" ]
	grep -q '^/var/log/slurm-golden/\*.jsonl {' "$x/etc/logrotate.d/slurm-golden"
	if command -v logrotate >/dev/null; then
		logrotate -d "$x/etc/logrotate.d/slurm-golden" 2>&1 | grep -v 'error' >/dev/null
		! logrotate -d "$x/etc/logrotate.d/slurm-golden" 2>&1 | grep -i 'error'
	fi
	# Installed disabled: no enable in the maintainer scripts.
	ctrl=$BATS_TEST_TMPDIR/ctrl
	dpkg-deb -e "$B"/pkg/deb/slurm-golden-node_*.deb "$ctrl"
	# (debhelper's --no-enable snippet re-enables only a unit that was enabled
	# before an upgrade, and never starts one.)
	grep -q 'deb-systemd-helper update-state' "$ctrl"/postinst
	! grep -q 'deb-systemd-invoke start\|systemctl.*start' "$ctrl"/postinst
}

@test "lintian: clean, every remaining tag overridden with its reason" {
	need_deb
	command -v lintian >/dev/null || skip "no lintian (apt-get install lintian)"
	run lintian --pedantic -I "$B"/pkg/deb/*.changes
	out=$(grep -v 'running with root privileges' <<<"$output" || true)
	[ -z "$out" ] || { echo "$out"; false; }
	# Every override says why.
	for f in "$GOLDEN_SRCDIR"/debian/*.lintian-overrides; do
		grep -q '^# ' "$f"
	done
}

rpm_files() {
	rpm -qlp "$1" 2>/dev/null | grep -v '^/usr/lib/.build-id' | sed -e 's|/usr/lib64/|/usr/LIB/|' -e 's|/usr/lib/slurm-golden|/usr/LIB/slurm-golden|' | sort
}

@test "make rpm: rpmbuild -ta of make dist's tarball; each package holds exactly its files" {
	need_rpm
	echo "# rpmbuild -ta: $(cat "$BATS_FILE_TMPDIR/rpm.seconds") s" >&3
	r=$B/pkg/rpm
	diff -u - <(rpm_files "$r"/slurm-golden-plugin-*.rpm) <<-EOL
	/etc/slurm/plugstack.conf.d
	/etc/slurm/plugstack.conf.d/golden_nccl.conf.example
	/usr/LIB/slurm-golden
	/usr/LIB/slurm-golden/golden_nccl.so
	/usr/share/man/man8/golden_nccl.8
	EOL
	diff -u - <(rpm_files "$r"/slurm-golden-node-*.rpm) <<-EOL
	/etc/logrotate.d/slurm-golden
	/usr/lib/systemd/system/golden-watch.service
	/usr/sbin/golden-epilog
	/usr/sbin/golden-healthcheck
	/usr/sbin/golden-prolog
	/usr/sbin/golden-watch
	/usr/share/doc/slurm-golden
	/usr/share/doc/slurm-golden/README.md
	/usr/share/doc/slurm-golden/golden.conf.example
	/usr/share/doc/slurm-golden/plugstack.conf.example
	/usr/share/man/man5/golden.conf.5
	/usr/share/man/man8/golden-epilog.8
	/usr/share/man/man8/golden-healthcheck.8
	/usr/share/man/man8/golden-prolog.8
	/usr/share/man/man8/golden-watch.8
	EOL
	diff -u - <(rpm_files "$r"/slurm-golden-cli-*.rpm) <<-EOL
	/usr/bin/golden
	/usr/lib/systemd/system/golden-active-submit.service
	/usr/lib/systemd/system/golden-active-submit.timer
	/usr/share/bash-completion/completions/golden
	/usr/share/man/man1/golden.1
	/usr/share/man/man7/golden-json.7
	EOL
	diff -u <( (printf '%s\n' /usr/share/man/man5/golden-recipe.5 /usr/share/slurm-golden \
		/usr/share/slurm-golden/nccl-topo /usr/share/slurm-golden/nccl-topo/azure-ndv4.xml \
		/usr/share/slurm-golden/nccl-topo/azure-ndv5.xml /usr/share/slurm-golden/recipes
		(cd "$GOLDEN_SRCDIR" && ls recipes/*.json) | sed 's|^|/usr/share/slurm-golden/|') | sort) \
		<(rpm_files "$r"/slurm-golden-recipes-*.noarch.rpm)
	for f in "$r"/*.rpm; do
		! rpm -qlp "$f" 2>/dev/null | grep -e _build -e "$GOLDEN_BUILDDIR"
	done
}

@test "the RPMs: configs are %config(noreplace), the plugin requires its Slurm series" {
	need_rpm
	r=$B/pkg/rpm
	# FILEFLAGS: c = %config, n = noreplace.
	for f in "$r"/slurm-golden-plugin-*.rpm "$r"/slurm-golden-node-*.rpm; do
		rpm -qp --qf '[%{FILEFLAGS:fflags} %{FILENAMES}\n]' "$f" 2>/dev/null | grep ' /etc/' >"$BATS_TEST_TMPDIR/etc"
		[ -s "$BATS_TEST_TMPDIR/etc" ]
		while read -r flags path; do
			[ -d "$path" ] && continue
			[[ $path == /etc/slurm/plugstack.conf.d ]] && continue
			[[ $flags == *c*n* ]] || { echo "$f: $path: flags '$flags'"; false; }
		done <"$BATS_TEST_TMPDIR/etc"
	done
	req=$(rpm -qp --requires "$r"/slurm-golden-plugin-*.rpm 2>/dev/null)
	grep -qx "slurm >= $SERIES" <<<"$req"
	grep -qx "slurm < $NEXT" <<<"$req"
	grep -qx "slurm-golden-recipes = $VERSION-1" <<<"$req"
	rpm -qp --qf '%{ARCH}\n' "$r"/slurm-golden-recipes-*.rpm 2>/dev/null | grep -qx noarch
}

@test "smoke, Debian 13: dpkg-buildpackage against its Slurm; the packages hold the same files" {
	need_smoke
	echo "# chroot run (apt, build, install, cluster, jobs): $(cat "$S/seconds") s; Slurm $(cat "$S/out/slurm-version")" >&3
	check_deb_lists "$S/out/debs"
	check_no_build_tree "$S/out/debs"
	v=$(cat "$S/out/slurm-version")
	series=${v%.*}
	deps=$(dpkg-deb -f "$S"/out/debs/slurm-golden-plugin_*.deb Depends)
	[[ "$deps" == *"slurm-wlm-basic-plugins (>= $series)"* ]] || { echo "$deps"; false; }
}

@test "smoke, Debian 13: the host's plugin, pinned to another Slurm series, does not install" {
	need_smoke
	v=$(cat "$S/out/slurm-version")
	if [ "${v%.*}" = "$SERIES" ]; then
		skip "the chroot's Slurm is the host's series ($SERIES)"
	fi
	[ "$(cat "$S/out/host-plugin.rc")" -ne 0 ]
	# apt words it "(< 22.06~)" or "(<< 22.06~)" depending on its version.
	grep -Eq "slurm-wlm-basic-plugins \(<<? ${NEXT//./\\.}~\)" "$S/out/host-plugin.log" ||
		{ cat "$S/out/host-plugin.log"; false; }
}

@test "smoke, Debian 13: installed, each program says its version" {
	need_smoke
	grep -c '^slurm-golden-.* install ok installed$' "$S/out/installed" | grep -qx 4
	for p in golden golden-prolog golden-epilog golden-healthcheck golden-watch; do
		grep -qx "$p (slurm-golden) $VERSION" "$S/out/versions"
	done
}

@test "smoke, Debian 13: the installed plugin loads and an ordinary user's --golden-nccl job gets its env" {
	need_smoke
	grep -q -e '--golden-nccl' "$S/out/srun-help"
	run cat "$S/out/job.env"
	[ "${lines[0]}" = "=mlx5_0,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_9,mlx5_10,mlx5_11" ] ||
		{ cat "$S/out/job.err"; echo "$output"; false; }
	[ "${lines[1]}" = "=eno1" ]
	# The recipe golden env picks for that fixture from the same recipes.
	fx=$GOLDEN_FIXTURES/hgx-h100-ib
	want=$("$B/cli/golden" env --topology "$fx/topo.xml" --sysroot "$fx/root" \
		--recipes "$GOLDEN_SRCDIR/recipes" --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["recipe"])')
	[ "${lines[2]}" = "$want" ]
	grep -q 'NCCL_IB_HCA' "$S/out/job.err"
	# Without the option (default=off): nothing injected.
	[ ! -s "$S/out/job-off.env" ]
}

@test "smoke, Debian 13: the installed golden-prolog ran as Prolog for the job" {
	need_smoke
	run python3 -c 'import json,sys
recs=[json.loads(l) for l in open(sys.argv[1])]
p=[r for r in recs if r["phase"]=="prolog"]
assert p, recs
assert p[-1]["result"] in ("ok","warn"), p[-1]
assert p[-1].get("job"), p[-1]' "$S/out/prolog.jsonl"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	grep -q ' IDLE \| idle ' "$S/out/sinfo" || { cat "$S/out/sinfo"; false; }
}

@test "smoke, Debian 13: golden-healthcheck as HealthCheckProgram found slurmd's slurm.conf and golden.conf beside it" {
	need_smoke
	# Its log is named only in the golden.conf beside the cluster's
	# slurm.conf, which it could find only through slurmd's -f.
	run python3 -c 'import json,sys
recs=[json.loads(l) for l in open(sys.argv[1])]
h=[r for r in recs if r["phase"]=="healthcheck"]
assert h, recs
assert h[0]["result"] in ("ok","warn"), h[0]' "$S/out/healthcheck.jsonl"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	! grep -q '"phase": *"healthcheck"' "$S/out/prolog.jsonl"
}
