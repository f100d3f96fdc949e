#!/usr/bin/env bats
# golden's Prometheus textfiles pass promtool's lint: every family has HELP
# and TYPE, counters end in _total and only counters do, units are base
# units, names are valid. The files are written by the real writers:
# lib/node/metrics.c through t/unit/node/test_metrics (every node file) and
# `golden topology check` (the topology file).

setup() {
	W=$(mktemp -d)
	# contrib/install-deps.sh unpacks promtool there (without the server).
	PROMTOOL=${GOLDEN_PROMTOOL:-$(command -v promtool || echo /opt/slurm-golden/prometheus/bin/promtool)}
}

teardown() {
	rm -rf "$W"
}

lint() {
	local f out
	for f in "$@"; do
		[ -s "$f" ] || { echo "missing: $f"; return 1; }
		# promtool prints lint findings and exits non-zero on them.
		out=$("$PROMTOOL" check metrics <"$f" 2>&1) || { echo "$f: $out"; return 1; }
		[ -z "$out" ] || { echo "$f: $out"; return 1; }
	done
}

@test "promtool check metrics: every textfile golden-prolog, the health check, golden-watch and golden-active write" {
	# CI has promtool (contrib/install-deps.sh): a skip there is a failure.
	[ -x "$PROMTOOL" ] || skip "no promtool (contrib/install-deps.sh unpacks it)"
	GOLDEN_METRICS_KEEP=$W "$GOLDEN_BUILDDIR/t/unit/node/test_metrics" >"$W/tap"
	! grep -q '^not ok' "$W/tap"
	lint "$W/slurm_golden_checks_healthcheck.prom" "$W/slurm_golden_lifecycle.prom" \
		"$W/slurm_golden_watch.prom" "$W/slurm_golden_active.prom"
}

@test "promtool check metrics: golden topology check's textfile (consistent and recabled)" {
	[ -x "$PROMTOOL" ] || skip "no promtool (contrib/install-deps.sh unpacks it)"
	FAB=$GOLDEN_BUILDDIR/t/fixtures/fabric
	SHOW=$GOLDEN_SRCDIR/t/fixtures/slurm-topology
	run "$GOLDEN_BUILDDIR/cli/golden" topology check --facts "$FAB/minicluster.facts.json" \
		--ibnetdiscover "$FAB/minicluster-recabled.net" --slurm-version 22.05 \
		--show-topology "$SHOW/22.05-tree.show" --metrics-dir "$W"
	[ "$status" -eq 1 ]
	lint "$W/slurm_golden_topology.prom"
	grep -qx 'slurm_golden_topology_mismatches{kind="wrong-leaf"} 2' "$W/slurm_golden_topology.prom"
}

@test "promtool itself rejects what golden must not write (the lint is live)" {
	[ -x "$PROMTOOL" ] || skip "no promtool (contrib/install-deps.sh unpacks it)"
	printf '# HELP slurm_golden_x_total x\n# TYPE slurm_golden_x_total gauge\nslurm_golden_x_total 1\n' >"$W/bad.prom"
	! lint "$W/bad.prom"
}

@test "docs/metrics.md describes every family golden writes, with the labels it writes" {
	GOLDEN_METRICS_KEEP=$W "$GOLDEN_BUILDDIR/t/unit/node/test_metrics" >"$W/tap"
	FAB=$GOLDEN_BUILDDIR/t/fixtures/fabric
	"$GOLDEN_BUILDDIR/cli/golden" topology check --facts "$FAB/minicluster.facts.json" \
		--ibnetdiscover "$FAB/minicluster-recabled.net" --slurm-version 22.05 \
		--show-topology "$GOLDEN_SRCDIR/t/fixtures/slurm-topology/22.05-tree.show" \
		--metrics-dir "$W" >/dev/null || true
	doc="$GOLDEN_SRCDIR/docs/metrics.md"
	n=0
	for f in "$W"/*.prom; do
		for fam in $(awk '/^# TYPE / {print $3}' "$f"); do
			n=$((n + 1))
			# The table row of the family.
			row=$(grep -F "\`$fam\`" "$doc") ||
				{ echo "$fam ($(basename "$f")) is not in docs/metrics.md"; return 1; }
			# Every label it carries is in that row's labels column.
			for l in $(grep "^$fam{" "$f" | head -1 | grep -o '[a-z_]*="' | tr -d '="'); do
				[[ "$row" == *"$l"* ]] || { echo "$fam: label $l not documented"; return 1; }
			done
		done
	done
	[ "$n" -ge 30 ]
}
