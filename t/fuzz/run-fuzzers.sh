#!/bin/sh
# Run every libFuzzer harness (t/fuzz/fuzz_NAME, built by `make check` when
# configure found clang with -fsanitize=fuzzer) for a bounded time:
# first over its seed corpus t/fuzz/corpus/NAME/ (every fixed finding is a
# file there: a regression), then mutating for GOLDEN_FUZZ_SECONDS (default
# 8) seconds. A crash, a sanitizer report, a leak or a timeout fails the
# test; the input is kept as t/fuzz/crash-NAME-* in the build tree and the
# log says how to reproduce it. TAP output for automake's driver.
#
#   make check TESTS=t/fuzz/run-fuzzers.sh GOLDEN_FUZZ_SECONDS=60
#   GOLDEN_FUZZ_ONLY=ledger make check TESTS=t/fuzz/run-fuzzers.sh
set -u
src=${GOLDEN_SRCDIR:?}
build=${GOLDEN_BUILDDIR:?}
secs=${GOLDEN_FUZZ_SECONDS:-8}
fx=${GOLDEN_FIXTURES:-$build/t/fixtures/out}/hgx-h100-ib

# The recipe harness renders over a real topology; the option harness
# checks recipe names against the shipped recipes.
export GOLDEN_FUZZ_TOPO="$fx/topo.xml" GOLDEN_FUZZ_SYSROOT="$fx/root"
export GOLDEN_FUZZ_RECIPES="$src/recipes"

names=
for c in "$src"/t/fuzz/corpus/*/; do
	n=$(basename "$c")
	if [ -n "${GOLDEN_FUZZ_ONLY:-}" ] && [ "$n" != "$GOLDEN_FUZZ_ONLY" ]; then
		continue
	fi
	names="$names $n"
done
set -- $names
echo "1..$#"
i=0
failed=0
work=$(mktemp -d "${TMPDIR:-/tmp}/golden-fuzz-run-XXXXXX")
trap 'rm -rf "$work"' EXIT
for n in "$@"; do
	i=$((i + 1))
	bin="$build/t/fuzz/fuzz_$n"
	if [ ! -x "$bin" ]; then
		echo "not ok $i - fuzz_$n: not built (a corpus without a harness?)"
		failed=1
		continue
	fi
	mkdir -p "$work/$n"
	# New inputs go to the scratch corpus, never into the source tree.
	if "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$build/t/fuzz/crash-$n-" "$work/$n" "$src/t/fuzz/corpus/$n" \
		>"$work/$n.log" 2>&1; then
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$n.log")
		echo "ok $i - fuzz_$n: ${runs:-?} inputs in ${secs}s, seeds $(ls "$src/t/fuzz/corpus/$n" | wc -l)"
	else
		echo "not ok $i - fuzz_$n: a finding (input in $build/t/fuzz/crash-$n-*)"
		sed 's/^/# /' "$work/$n.log" | grep -v '^# #[0-9]' | tail -40
		echo "# reproduce: $bin $build/t/fuzz/crash-$n-<hash>"
		echo "# once fixed, add the input to t/fuzz/corpus/$n/ as a regression seed"
		failed=1
	fi
done
exit $failed
