#!/usr/bin/env bats
# golden sweep analyse over the corpus of published nccl-tests outputs
# (t/fixtures/nccl-tests/, sources in its SOURCES.md): every log gives the
# runs and findings its .findings file says; the report, the JSON, the exit
# status, the plots (rendered with gnuplot, every log), expectations from
# recipes, A/B runs and -J files.

GOLDEN="$GOLDEN_BUILDDIR/cli/golden"
FX="$GOLDEN_SRCDIR/t/fixtures/nccl-tests"
GJ="$FX/nccltests309-h100-ndr-gjaion-8n-2n-4n-8n-ring-dip-8m.log"

setup() {
	TMP=$(mktemp -d)
}

teardown() {
	rm -rf "$TMP"
}

# findings LOG: the normalised runs, findings and exit status of LOG, with
# the options its .findings file names.
findings() {
	local log=$1 exp=${1%.log}.findings args rc
	args=$(sed -n 's/^# args: //p' "$exp")
	args=${args//@RECIPES@/$GOLDEN_SRCDIR/recipes}
	args=${args//@FIXTURES@/$GOLDEN_SRCDIR/t/fixtures}
	# shellcheck disable=SC2086
	"$GOLDEN" sweep analyse "$log" --format json $args >"$TMP/out.json" 2>"$TMP/err"
	rc=$?
	python3 "$GOLDEN_SRCDIR/t/sweep/findings.py" <"$TMP/out.json"
	echo "exit $rc"
}

@test "every corpus log gives the runs and findings its .findings file expects" {
	n=0
	bad=0
	for log in "$FX"/*.log; do
		exp=${log%.log}.findings
		[ -f "$exp" ] || { echo "no expected findings for $log"; bad=1; continue; }
		if ! diff -u <(grep -v '^#' "$exp") <(findings "$log") >"$TMP/diff"; then
			echo "=== $(basename "$log")"
			cat "$TMP/diff" "$TMP/err"
			bad=1
		fi
		n=$((n + 1))
	done
	echo "$n logs"
	[ "$n" -eq 44 ]
	[ "$bad" -eq 0 ]
}

@test "text report: what each run is, which bandwidth is judged, one line per finding worst first, a verdict" {
	run "$GOLDEN" sweep analyse "$FX/olivia-gh200-slingshot-4n-corrupt-wrong.log"
	[ "$status" -eq 1 ]
	[[ "${lines[1]}" == "run 1  olivia-gh200-slingshot-4n-corrupt-wrong.log:1 all_reduce 4n: all_reduce, 4 nodes, 16 ranks, NVIDIA GH200 120GB, NCCL 22902"* || "${lines[1]}" == *"4 nodes, 16 ranks, NVIDIA GH200 120GB"* ]]
	[[ "$output" == *"judged on busbw = algbw x 2(n-1)/n = 1.88"* ]]
	[ "${lines[4]}" = "findings, worst first:" ] || [[ "$output" == *"findings, worst first:"* ]]
	first=$(grep -m1 '^  [a-z-]* *run ' <<<"$output")
	[[ "$first" == "  wrong "*"out-of-place: #wrong > 0 at 2 MiB to 64 MiB (6 sizes): up to 951005 wrong elements" ]]
	[ "$(grep -c '^  [a-z-]* *run ' <<<"$output")" -eq 6 ]
	[ "${lines[-1]}" = "verdict: 6 findings (2 wrong, 4 dip) in 1 of 1 run" ]
}

@test "a healthy log: no findings, exit 0, 'verdict: ok'" {
	run "$GOLDEN" sweep analyse "$FX/superbench-dgxa100-1n-allreduce-v2019fmt.log"
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = "verdict: ok: no findings in 1 run" ]
}

@test "--format json: runs per placement with collective, nodes, ranks, rows and findings" {
	run "$GOLDEN" sweep analyse "$FX/dstack-lambda-b200-2n-v2176-hashstripped-dip-512k.log" --format json
	[ "$status" -eq 1 ]
	python3 - <<-EOP
	import json
	r = json.loads('''$output''')
	assert [x["placement"] for x in r["runs"]] == ["out", "in"]
	out = r["runs"][0]
	assert out["collective"] == "all_reduce" and out["ranks"] == 16 and out["nodes"] is None
	assert out["judged"] == "busbw" and out["busbw_factor"] == "2(n-1)/n"
	row = out["rows"][16]
	assert row == {"size": 524288, "count": 131072, "time_us": 240.71, "algbw": 2.18,
	               "busbw": 4.08, "wrong": 0}, row
	[f] = out["findings"]
	assert f["kind"] == "dip" and f["size"] == 524288 and f["busbw"] == 4.08
	assert f["reference"] == 7.37 and abs(f["ratio"] - 4.08 / 7.37) < 1e-9
	assert r["runs"][1]["findings"] == []
	assert r["verdict"] == "findings" and r["exit"] == 1
	EOP
}

@test "exit 2: a file with no readable row, a file that is not there, a bad option" {
	run "$GOLDEN" sweep analyse "$FX/excerpt-nccl1453-h100-rankprefix-info-split-row-cut.log"
	[ "$status" -eq 2 ]
	[[ "$output" == *"no nccl-tests row could be read (1 row cut short, 1 fragment)"* ]]
	printf 'hello\nworld\n' >"$TMP/notes.txt"
	run "$GOLDEN" sweep analyse "$TMP/notes.txt"
	[ "$status" -eq 2 ]
	[[ "$output" == *"notes.txt: no nccl-tests row could be read"* ]]
	run "$GOLDEN" sweep analyse "$TMP/nothing.log"
	[ "$status" -eq 2 ]
	[[ "$output" == *"nothing.log: cannot open: No such file or directory"* ]]
	run "$GOLDEN" sweep analyse "$GJ" --dip-threshold lots
	[ "$status" -eq 2 ]
	[[ "$output" == *"--dip-threshold lots: expected a percentage"* ]]
	run "$GOLDEN" sweep analyse "$GJ" --plot out.pdf
	[ "$status" -eq 2 ]
	[[ "$output" == *"--plot out.pdf: expected a file name ending in .svg or .png"* ]]
	run "$GOLDEN" sweep analyse "$GJ" --collective allgatherv
	[ "$status" -eq 2 ]
	run "$GOLDEN" sweep
	[ "$status" -eq 2 ]
	run "$GOLDEN" sweep frobnicate
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown subcommand 'frobnicate'; expected analyse, run or locate"* ]]
}

@test "thresholds are options: a smaller dip threshold names the mild 512 MiB shelf" {
	log=$FX/oci-a100-roce-2n-k8s-mpijob-dip-512m.log
	run "$GOLDEN" sweep analyse "$log"
	[ "$status" -eq 0 ]
	run "$GOLDEN" sweep analyse "$log" --dip-threshold 5
	[ "$status" -eq 1 ]
	[[ "$output" == *"out-of-place: busbw 156.41 GB/s at 512 MiB is 5% below 165.42 GB/s reached at 256 MiB"* ]]
}

@test "every corpus log renders to PNG with gnuplot; SVG too" {
	command -v gnuplot >/dev/null || skip "gnuplot not installed (contrib/install-deps.sh installs gnuplot-nox)"
	n=0
	for log in "$FX"/*.log; do
		name=$(basename "$log" .log)
		"$GOLDEN" sweep analyse "$log" --plot "$TMP/$name.png" >/dev/null 2>"$TMP/err" || true
		# nothing to draw: no rows (the two crashed runs, the split-row excerpt)
		grep -q "no nccl-tests row\|no rows to draw" "$TMP/err" && continue
		[ "$(head -c 8 "$TMP/$name.png" | od -An -c | tr -d ' ')" = '211PNG\r\n032\n' ] || {
			echo "$name: no PNG"
			cat "$TMP/err"
			return 1
		}
		[ "$(stat -c %s "$TMP/$name.png")" -gt 10000 ]
		n=$((n + 1))
	done
	[ "$n" -eq 42 ]
	run "$GOLDEN" sweep analyse "$GJ" --plot "$TMP/gj.svg"
	[ "$status" -eq 1 ]
	grep -q '<svg' "$TMP/gj.svg"
	# The dips are marked, each line is named, the axis says bytes on log2.
	grep -q "title 'dip'" "$TMP/gj.svg.gp"
	grep -q "title 'run 1: 8 nodes, out-of-place'" "$TMP/gj.svg.gp"
	grep -q "logscale x 2" "$TMP/gj.svg.gp"
	grep -q '"8G" 8589934592' "$TMP/gj.svg.gp"
	[ "$(awk '$1 == 8388608' "$TMP/gj.svg.dat" | wc -l)" -ge 10 ]
}

@test "without gnuplot: a clear message, the data and script written, the analysis unchanged" {
	run env GOLDEN_GNUPLOT=/nonexistent/gnuplot "$GOLDEN" sweep analyse "$GJ" --plot "$TMP/x.png"
	[ "$status" -eq 1 ]
	[[ "$output" == *"cannot draw $TMP/x.png: gnuplot not found (install it: apt-get install --no-install-recommends gnuplot-nox, or set GOLDEN_GNUPLOT)"* ]]
	[[ "$output" == *"verdict: 3 findings"* ]]
	[ -s "$TMP/x.png.dat" ]
	[ -s "$TMP/x.png.gp" ]
	[ ! -e "$TMP/x.png" ]
}

@test "--expect FILE: peak busbw below the recipe's figure, the tuned run passes, and the line is drawn" {
	run "$GOLDEN" sweep analyse "$GJ" --expect "$GOLDEN_SRCDIR/t/fixtures/sweep/recipes/h100-ndr400-example.json" \
		--plot "$TMP/e.png"
	[ "$status" -eq 1 ]
	[[ "$output" == *"expectations: recipe h100-ndr400-example (1 figure)"* ]]
	[[ "$output" == *"below-expected       run 1 "*"8n: peak busbw 320.7 GB/s (at 8 GiB) is 89% of the 360 GB/s h100-ndr400-example expects for all_reduce on 8 nodes"* ]]
	[ "$(grep -c 'below-expected  ' <<<"$output")" -eq 2 ]
	[[ "$output" != *"below-expected       run 4 "* ]]
	grep -q "expected >= 360 GB/s (3+ nodes)" "$TMP/e.png.gp"
}

@test "--expect auto: the recipe this node's topology selects (azure-ndv4 fixture)" {
	fx=$GOLDEN_BUILDDIR/t/fixtures/out/azure-ndv4
	run "$GOLDEN" sweep analyse "$FX/superbench-dgxa100-1n-allreduce-v2019fmt.log" \
		"$FX/azure-ndv4-a100-2n-oldfmt-info-line.log" --gpus-per-node 8 --expect auto \
		--recipes "$GOLDEN_SRCDIR/recipes" --topology "$fx/topo.xml" --sysroot "$fx/root"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"expectations: recipe azure-ndv4 (2 figures)"* ]]
	# The HGX H100 fixture selects hgx-h100-h200-ib: its figure is for 16 GiB,
	# an 8 GiB sweep is not judged against it (and says so).
	fx=$GOLDEN_BUILDDIR/t/fixtures/out/hgx-h100-ib
	run "$GOLDEN" sweep analyse "$FX/superbench-dgxa100-1n-allreduce-v2019fmt.log" --expect auto \
		--recipes "$GOLDEN_SRCDIR/recipes" --topology "$fx/topo.xml" --sysroot "$fx/root"
	[ "$status" -eq 0 ]
	[[ "$output" == *"not judged against hgx-h100-h200-ib's 431 GB/s: the sweep stops at 8 GiB, the figure holds from 16 GiB"* ]]
	# A recipe without figures says so; a recipe that does not exist is an error.
	run "$GOLDEN" sweep analyse "$GJ" --expect generic-ib --recipes "$GOLDEN_SRCDIR/recipes"
	[[ "$output" == *"recipe generic-ib has no expect section"* ]]
	run "$GOLDEN" sweep analyse "$GJ" --expect no-such --recipes "$GOLDEN_SRCDIR/recipes"
	[ "$status" -eq 2 ]
	[[ "$output" == *"--expect no-such: no recipe of that name"* ]]
}

# ab LOG: the 2-node runs of gj-aion's log, NCCL's defaults (run 2) and
# NCCL_ALGO=Ring (run 5) standing in for a golden environment that forced
# Ring, with golden sweep run's own lines; the rows are the published ones.
ab_log() {
	python3 - "$GJ" >"$1" <<-'EOP'
	import sys
	lines = open(sys.argv[1]).read().splitlines()
	starts = [i for i, l in enumerate(lines) if l.startswith("# nThread")]
	def block(k):
	    end = starts[k] if k < len(starts) else len(lines)
	    out = []
	    for l in lines[starts[k - 1]:end]:
	        out.append(l)
	        if "Avg bus bandwidth" in l:
	            break
	    return out
	for env, k in (("golden", 5), ("default", 2)):
	    print("# golden-sweep: run collective=all_reduce_perf nodes=2 env=%s nodelist=n1,n2 step=1/2" % env)
	    print("\n".join(block(k)))
	    print("# golden-sweep: end exit=0 elapsed=30.0")
	EOP
}

@test "A/B: the golden environment slower than NCCL's defaults is named, with sizes and numbers" {
	ab_log "$TMP/ab.log"
	run "$GOLDEN" sweep analyse "$TMP/ab.log" --plot "$TMP/ab.png"
	echo "$output"
	[ "$status" -eq 1 ]
	# Ring loses to the tree on two nodes at large sizes (392.7 vs 466.7 at
	# 8 GiB, NVIDIA/nccl-tests#309), and at the smallest sizes.
	[[ "$output" == *"slower-than-default  run 1 ab.log:1 all_reduce 2n golden: golden busbw 391.4 GB/s at 4 GiB is 16% below NCCL's defaults (465.8 GB/s); slower at 512 MiB to 8 GiB (5 sizes)"* ]]
	[[ "$output" == *"slower-than-default  run 1 ab.log:1 all_reduce 2n golden: golden busbw "*" at 1 MiB is "*"slower at 1 MiB to 8 MiB (4 sizes)"* ]]
	[ "$(grep -c '^  slower-than-default' <<<"$output")" -eq 2 ]
	[[ "$output" != *"slower-than-default  run 2"* ]]
	# The defaults' twin is dashed in the plot.
	grep -q "2 nodes, NCCL defaults, out-of-place' *$\|2 nodes, NCCL defaults, out-of-place'" "$TMP/ab.png.gp"
	grep "NCCL defaults, out-of-place" "$TMP/ab.png.gp" | grep -q "dt 2"
	run "$GOLDEN" sweep analyse "$TMP/ab.log" --format json
	python3 - <<-EOP
	import json
	r = json.loads('''$output''')
	[f] = [f for f in r["findings"] if f["kind"] == "slower-than-default" and f["size"] > 1 << 28]
	assert f["run"] == 1 and f["compared_with_run"] == 2 and f["placement"] == "both", f
	assert f["ratio"] < 0.9 and f["size"] == 536870912 and f["size_to"] == 8589934592, f
	assert abs(f["reference"] / f["busbw"] - 1 / f["ratio"]) < 1e-9
	EOP
}

@test "-J JSON files: the first version's misspelling and the current keys read the same" {
	J=$GOLDEN_SRCDIR/t/fixtures/sweep/json
	a=$("$GOLDEN" sweep analyse "$J/olivia-2n-jsonv1-misspelled.json" --format json | python3 "$GOLDEN_SRCDIR/t/sweep/findings.py")
	b=$("$GOLDEN" sweep analyse "$J/olivia-2n-jsonv3.json" --format json | python3 "$GOLDEN_SRCDIR/t/sweep/findings.py")
	c=$("$GOLDEN" sweep analyse "$FX/olivia-gh200-slingshot-2n-apptainer-v2183.log" --format json | python3 "$GOLDEN_SRCDIR/t/sweep/findings.py")
	[ "$a" = "$b" ]
	[ "$a" = "$c" ]
	run "$GOLDEN" sweep analyse "$J/olivia-2n-jsonv3-error.json"
	[ "$status" -eq 1 ]
	[[ "$output" == *"stopped after 4 B"*"the log says: NCCL failure common.cu:1234 'remote process exited"* ]]
	echo '{"results": ' >"$TMP/broken.json"
	run "$GOLDEN" sweep analyse "$TMP/broken.json"
	[ "$status" -eq 2 ]
	[[ "$output" == *"starts with '{' but is not a JSON object"* ]]
}

@test "several files at once: scaling across them, in the order given" {
	run "$GOLDEN" sweep analyse "$FX/oci-gb300-alltoall-1-2-16-32n-rack-collapse.log" \
		"$FX/oci-gb300-allreduce-1-2-16-32n-truncated.log"
	[ "$status" -eq 1 ]
	[[ "$output" == *"golden sweep: 2 files, 8 runs"* ]]
	[[ "$output" == *"scaling              run 4 "*"alltoall 32n: large-message busbw 47.7 GB/s on 32 nodes is 7% of 666.9 GB/s on 16 nodes"* ]]
	[[ "$output" == *"scaling              run 8 "*"all_reduce 32n"* ]]
}

@test "golden recipe lint rejects overlapping expectations" {
	mkdir "$TMP/r"
	python3 - "$GOLDEN_SRCDIR/t/fixtures/sweep/recipes/h100-ndr400-example.json" "$TMP/r/h100-ndr400-example.json" <<-'EOP'
	import json, sys
	d = json.load(open(sys.argv[1]))
	d["expect"].append(dict(d["expect"][0], nodes={"min": 4, "max": 8}))
	json.dump(d, open(sys.argv[2], "w"))
	EOP
	run "$GOLDEN" recipe lint "$TMP/r"
	[ "$status" -eq 1 ]
	[[ "$output" == *"expect[1].nodes: all_reduce on 4-8 nodes is already covered by expect[0]"* ]]
}
