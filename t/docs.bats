#!/usr/bin/env bats
# The README and docs/: links that resolve, every page reachable, the two
# commands the README promises, and CI running the README's test command.

setup() {
	S="$GOLDEN_SRCDIR"
	CHECK="$S/t/docs/check-links.py"
}

md_files() {
	(cd "$S" && ls README.md CONTRIBUTING.md docs/*.md lib/*/README.md lib/README.md \
		contrib/*/README.md t/fuzz/README.md 2>/dev/null)
}

@test "every relative link and anchor in the README, docs/ and the folder READMEs resolves" {
	run python3 "$CHECK" "$S" $(md_files)
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "the link check fails on a missing file and on a missing anchor" {
	d="$BATS_TEST_TMPDIR"
	mkdir "$d/docs"
	printf '# Title\n\n## Node lifecycle: golden-watch, HealthCheckProgram\n\n[ok](#node-lifecycle-golden-watch-healthcheckprogram)\n[gone](docs/nope.md)\n[bad](docs/a.md#nope)\n[fine](docs/a.md#a-page)\n' >"$d/README.md"
	printf '# A page\n' >"$d/docs/a.md"
	run python3 "$CHECK" "$d" README.md
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 2 ]
	[[ "${lines[0]}" == "README.md:6: docs/nope.md: no such file" ]]
	[[ "${lines[1]}" == "README.md:7: docs/a.md#nope: no heading with that anchor in docs/a.md" ]]
}

@test "every page in docs/ is listed in docs/README.md and linked from the README" {
	for p in "$S"/docs/*.md; do
		b=$(basename "$p")
		[ "$b" = README.md ] && continue
		grep -q "]($b)" "$S/docs/README.md" || { echo "docs/README.md does not list $b"; false; }
	done
	grep -q '](docs/README.md)' "$S/README.md"
}

@test "the README's two commands exist, and CI runs the README's test command" {
	cmds=$(sed -n '/^## Try it/,/^## /p' "$S/README.md" | sed -n '/^```sh$/,/^```$/p' |
		grep -o '^contrib/[a-z-]*')
	[ "$(echo "$cmds" | tr '\n' ' ')" = "contrib/demo contrib/run-tests " ]
	for c in $cmds; do [ -x "$S/$c" ]; done
	grep -qx './contrib/run-tests' "$S/.ci/run"
}

@test "the README stays readable in one sitting; the deploy steps follow the two commands" {
	[ "$(wc -l <"$S/README.md")" -le 250 ]
	first=$(grep -n '^## ' "$S/README.md" | head -2 | cut -d: -f2- | tr '\n' '|')
	[ "$first" = "## Try it on a fresh Debian 12 machine (two commands)|## Deploy on a cluster|" ]
}

@test "docs/ is in the release tarball" {
	for p in "$S"/docs/*.md; do
		grep -q "docs/$(basename "$p")" "$S/Makefile.am" || { echo "$(basename "$p") not in EXTRA_DIST"; false; }
	done
}
