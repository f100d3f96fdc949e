#!/bin/bash
# Every NCCL_* variable a recipe (recipes/*.json) sets must be one NVIDIA's
# libnccl.so.2 reads, or one a network/tuner plugin reads, listed with its
# source in t/fixtures/nccl/plugin-vars.txt: a typo, or a variable NCCL
# removed, fails here.
#
# The names NCCL reads are the NCCL_* strings in libnccl.so.2 (its
# NCCL_PARAM/ncclGetEnv names are string literals): the installed library's
# when there is one ($NCCL_LIB, ldconfig, /usr/local/cuda*/lib*), and always
# the list extracted from 2.28.9 in t/fixtures/nccl/ (CI machines have no
# NCCL: Debian does not package it).
set -u
src=${GOLDEN_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
fx=$src/t/fixtures/nccl
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

lib=${NCCL_LIB:-}
[[ -z $lib || -f $lib ]] || { echo "# NCCL_LIB=$lib: no such file" >&2; lib=""; }
if [[ -z $lib ]]; then
	lib=$(ldconfig -p 2>/dev/null | awk '$1 == "libnccl.so.2" { print $NF; exit }')
fi
if [[ -z $lib ]]; then
	for f in /usr/local/cuda*/lib*/libnccl.so.2 /usr/lib/x86_64-linux-gnu/libnccl.so.2; do
		[[ -f $f ]] && { lib=$f; break; }
	done
fi

# names FILE: the NCCL_* names of a library or of a list
lib_names() { strings -n 6 "$1" | grep -oE '^NCCL_[A-Z0-9_]+$' | sort -u; }
list_names() { grep -v '^#' "$1" | cut -f1 | grep -E '^NCCL_' | sort -u; }

recipe_vars() {
	python3 - "$@" <<-'EOP'
	import json, sys
	for f in sys.argv[1:]:
	    for e in json.load(open(f)).get("env", []):
	        if e["name"].startswith("NCCL_"):
	            print(f.rsplit("/", 1)[-1], e["name"])
	EOP
}

fixture=$(ls "$fx"/libnccl-*-vars.txt | sort -V | tail -1)
list_names "$fixture" >"$work/fixture"
list_names "$fx/plugin-vars.txt" >"$work/plugins"
sources=("fixture:$fixture")
if [[ -n $lib ]]; then
	lib_names "$lib" >"$work/live"
	ver=$(strings "$lib" | sed -n 's/^NCCL version \([0-9][^ ]*\).*/\1/p' | head -1)
	sources+=("live:$lib ($ver)")
fi

recipe_vars "$src"/recipes/*.json | sort -u -k2 >"$work/vars"
# a self-test: a misspelt name must be caught
printf 'self-test.json NCCL_IB_HCAA\n' >>"$work/vars"
total=$(wc -l <"$work/vars")
echo "1..$total"
for s in "${sources[@]}"; do echo "# NCCL names from $s"; done
n=0
fail=0
while read -r recipe var; do
	n=$((n + 1))
	where=""
	if grep -qx "$var" "$work/plugins"; then
		where="a plugin's ($(awk -F'\t' -v v="$var" '$1 == v { print $2 }' "$fx/plugin-vars.txt"))"
	else
		grep -qx "$var" "$work/fixture" && where="libnccl $(basename "$fixture" | sed 's/libnccl-\(.*\)-vars.txt/\1/')"
		if [[ -s $work/live ]]; then
			if grep -qx "$var" "$work/live"; then
				where+="${where:+, }installed libnccl $ver"
			else
				where="" # the installed NCCL no longer reads it
			fi
		fi
	fi
	if [[ $recipe == self-test.json ]]; then
		if [[ -z $where ]]; then
			echo "ok $n - self-test: the misspelt $var is caught"
		else
			echo "not ok $n - self-test: the misspelt $var passed as $where"
			fail=1
		fi
	elif [[ -n $where ]]; then
		echo "ok $n - $var ($recipe): $where"
	else
		echo "not ok $n - $var ($recipe): read by no libnccl.so.2 checked and not a listed plugin variable"
		fail=1
	fi
done <"$work/vars"
exit "$fail"
