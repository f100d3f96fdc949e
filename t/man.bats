#!/usr/bin/env bats
# The manual: every page renders without a warning, every installed program
# has its page, golden(1) covers every subcommand and golden_nccl(8) every
# plugstack argument.

setup() {
	M=$GOLDEN_SRCDIR/man
}

# The pages make installs (dist_man_MANS in the generated Makefile).
installed_pages() {
	sed -n '/^dist_man_MANS = /,/[^\\]$/p' "$GOLDEN_BUILDDIR/Makefile" |
		sed -e 's/^dist_man_MANS = //' -e 's/\\$//' | tr ' \t' '\n\n' | grep . | sed 's|^man/||'
}

@test "every page renders without a warning (groff -man -ww, man --warnings)" {
	command -v groff >/dev/null || skip "no groff (apt-get install groff-base)"
	n=0
	for p in $(installed_pages); do
		out=$(groff -man -ww -z "$M/$p" 2>&1)
		[ -z "$out" ] || { echo "$p: $out"; false; }
		if command -v man >/dev/null; then
			out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$M/$p" 2>&1 >/dev/null)
			[ -z "$out" ] || { echo "$p: $out"; false; }
		fi
		n=$((n + 1))
	done
	[ "$n" -ge 8 ]
}

@test "every installed program, the plugin and each file format has a page" {
	pages=" $(installed_pages | tr '\n' ' ') "
	progs=$(sed -n -e 's/^bin_PROGRAMS = //p' -e 's/^sbin_PROGRAMS = //p' "$GOLDEN_BUILDDIR/Makefile" |
		tr ' ' '\n' | grep -v '^\\$' | grep . | sed -e 's/\$(EXEEXT)//' -e 's|.*/||')
	[ -n "$progs" ]
	for p in $progs golden_nccl golden.conf golden-recipe golden-json; do
		[[ "$pages" =~ \ $p\.[1578]\  ]] || { echo "no page for $p in:$pages"; false; }
	done
	# Each program's page is in its own section: 1 for golden, 8 for the rest.
	[[ "$pages" == *" golden.1 "* ]]
	for p in golden-prolog golden-epilog golden-healthcheck golden-watch; do
		[[ "$pages" == *" $p.8 "* ]]
	done
}

@test "golden(1) shows every subcommand golden --help lists" {
	cmds=$("$GOLDEN_BUILDDIR/cli/golden" --help | sed -n '/^Commands:/,/^$/p' | awk 'NR > 1 && /^  [a-z]/ {print $1}')
	[ -n "$cmds" ]
	for c in $cmds; do
		grep -q "^\.B golden ${c//-/\\\\-}\b" "$M/golden.1" || { echo "golden $c not in golden.1"; false; }
	done
}

@test "golden_nccl(8) describes every plugstack argument the plugin accepts" {
	keys=$(grep -o 'strcmp(key, "[a-z_]*")' "$GOLDEN_SRCDIR/spank/plugin_args.c" | sed 's/.*"\(.*\)")/\1/' | sort -u)
	[ "$(wc -w <<<"$keys")" -ge 10 ]
	for k in $keys; do
		# A .TP entry naming the key, followed by text (not another .TP).
		awk -v k="$k" '
			prev == ".TP" && $0 ~ ("(^|, )" k "=") { named = 1; getline; if ($0 != ".TP" && $0 !~ /^\.SH/) ok = 1 }
			{ prev = $0 }
			END { exit !(named && ok) }' "$M/golden_nccl.8" ||
			{ echo "$k= has no description in golden_nccl.8"; false; }
	done
}
