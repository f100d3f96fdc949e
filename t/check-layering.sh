#!/bin/sh
# The dependency rule of lib/ (lib/README.md): a subsystem includes only the
# subsystems below it, env and health never include each other, lib/ never
# includes a front end, and a folder's *_internal.h stays in its folder.
# Prints every violation as FILE:LINE and exits 1 if there is one.
: "${GOLDEN_SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
cd "$GOLDEN_SRCDIR" || exit 2

allowed() { # subsystem -> what it may include
	case $1 in
	util) echo "util" ;;
	nvml) echo "util nvml" ;;
	topo) echo "util nvml topo" ;;
	env) echo "util nvml topo env" ;;
	health) echo "util nvml topo health" ;;
	stall) echo "util nvml topo health stall" ;;
	node) echo "util nvml topo health stall active node" ;;
	fabric) echo "util nvml topo fabric" ;;
	active) echo "util active" ;;
	sweep) echo "util sweep" ;;
	fleet) echo "util nvml topo health stall active node fleet" ;;
	*) echo "" ;;
	esac
}

echo "1..1"
bad=0
for f in lib/*/*.c lib/*/*.h; do
	sub=${f#lib/}
	sub=${sub%%/*}
	ok=$(allowed "$sub")
	if [ -z "$ok" ]; then
		echo "# $f: lib/$sub is not a known subsystem (add it to t/check-layering.sh and lib/README.md)"
		bad=1
		continue
	fi
	grep -n '^#include "' "$f" | while IFS= read -r line; do
		n=${line%%:*}
		inc=${line#*#include \"}
		inc=${inc%%\"*}
		case $inc in
		config.h) continue ;;
		*/*) ;;
		*)
			echo "# $f:$n: includes \"$inc\": spell includes from lib/ (\"$sub/$inc\")"
			continue
			;;
		esac
		dep=${inc%%/*}
		case " $ok " in
		*" $dep "*) ;;
		*) echo "# $f:$n: lib/$sub must not include $inc (lib/$sub may include: $ok)" ;;
		esac
		case $inc in
		*_internal.h)
			[ "$dep" = "$sub" ] || echo "# $f:$n: $inc is internal to lib/$dep"
			;;
		esac
	done
done >"${TMPDIR:-/tmp}/golden-layering.$$"
if [ -s "${TMPDIR:-/tmp}/golden-layering.$$" ]; then
	cat "${TMPDIR:-/tmp}/golden-layering.$$"
	bad=1
fi
rm -f "${TMPDIR:-/tmp}/golden-layering.$$"
if [ "$bad" -eq 0 ]; then
	echo "ok 1 lib/ follows its dependency rule"
else
	echo "not ok 1 lib/ follows its dependency rule"
	exit 1
fi
