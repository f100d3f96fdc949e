#!/bin/bash
# t/nvml-snapshot/nvml-snapshot writes what NVML answers as a fake-NVML state
# file; a real node's file is only a fixture if the snapshot loses nothing.
# For every fixture the fake serves (t/fixtures/nvml/*.json; not the one
# that hangs an entry point): the snapshot of the fake replaying it states
# every value the fixture gives (same key, same value, after the fake's
# spellings: "0x..." masks, uuids, "fail" for init), and a snapshot of the
# snapshot is the same file (a fixed point: replaying a real node's file
# replays the node). Two self-tests prove the comparison sees a lost value.
set -u
src=${GOLDEN_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
build=${GOLDEN_BUILDDIR:-$src/_build}
snap=$build/t/nvml-snapshot/nvml-snapshot
fake=$build/t/fake-nvml/.libs
py=${PYTHON3:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# compare WANT GOT: nothing when GOT states every value of WANT, else the
# first difference.
cat >"$work/compare.py" <<'PY'
import json, sys
want, got = (json.load(open(p)) for p in sys.argv[1:3])
# A GPU without a handle (GPU_IS_LOST) shows nothing else to NVML's callers:
# only that answer can be in the snapshot.
for g in want.get("gpus", []):
    lost = g.get("errors", {}).get("nvmlDeviceGetHandleByIndex_v2")
    if lost is not None:
        g.clear()
        g["errors"] = {"nvmlDeviceGetHandleByIndex_v2": lost}
def norm(k, v):
    if k in ("clocks_event_reasons", "pci_device_id") and isinstance(v, str):
        return int(v, 16)
    if k == "cluster_uuid":
        return v.replace("-", "").lower()
    if k == "init":  # the fake's words for NVML's codes
        return {"ok": 0, "fail": 9}.get(v, v)
    return v
def same(path, w, g):
    if isinstance(w, dict):
        if not isinstance(g, dict):
            return f"{path}: {g!r} instead of an object"
        for k, v in w.items():
            if k not in g:
                return f"{path}.{k}: missing"
            r = same(f"{path}.{k}", norm(k, v), norm(k, g[k]))
            if r:
                return r
        return ""
    if isinstance(w, list) and w and isinstance(w[0], dict):
        if len(w) != len(g or []):
            return f"{path}: {len(g or [])} entries instead of {len(w)}"
        for i, (a, b) in enumerate(zip(w, g)):
            r = same(f"{path}[{i}]", a, b)
            if r:
                return r
        return ""
    return "" if w == g else f"{path}: {g!r} instead of {w!r}"
if norm("init", want.get("init", "ok")) != 0:
    print(same("", {"init": want["init"]}, {"init": got.get("init")}).lstrip("."))
else:
    print(same("", {"gpus": want.get("gpus", [])}, got).lstrip("."))
PY
compare() { "$py" "$work/compare.py" "$1" "$2"; }
replay() { LD_LIBRARY_PATH=$fake FAKE_NVML_STATE=$1 "$snap" 2>>"$work/err"; }

fixtures=()
for f in "$src"/t/fixtures/nvml/*.json; do
	grep -q '"hang"' "$f" || fixtures+=("$f")
done
echo "1..$((2 * ${#fixtures[@]} + 2))"
n=0
for f in "${fixtures[@]}"; do
	name=$(basename "$f" .json)
	: >"$work/err"
	replay "$f" >"$work/$name.1"
	replay "$work/$name.1" >"$work/$name.2"
	why=$(compare "$f" "$work/$name.1")
	n=$((n + 1))
	if [[ -z $why ]]; then
		echo "ok $n - $name: the snapshot states every value the fixture gives"
	else
		echo "not ok $n - $name: $why"
		sed 's/^/# /' "$work/err"
	fi
	n=$((n + 1))
	if cmp -s "$work/$name.1" "$work/$name.2"; then
		echo "ok $n - $name: a snapshot of the snapshot is the same file"
	else
		echo "not ok $n - $name: the replayed snapshot differs"
		diff "$work/$name.1" "$work/$name.2" | head -20 | sed 's/^/# /'
	fi
done

# Self-tests: a snapshot of a node that lost a value, compared with the
# fixture that has it, is a difference, by name.
"$py" -c '
import json, sys
d = json.load(open(sys.argv[1])); d["gpus"][4]["ecc_uncorrected_volatile"] = 0
json.dump(d, open(sys.argv[2], "w"))' "$src/t/fixtures/nvml/ecc.json" "$work/ecc-lost.json"
replay "$work/ecc-lost.json" >"$work/ecc-lost.1"
why=$(compare "$src/t/fixtures/nvml/ecc.json" "$work/ecc-lost.1")
n=$((n + 1))
if [[ $why == "gpus[4].ecc_uncorrected_volatile: 0 instead of 2" ]]; then
	echo "ok $n - self-test: a lost ECC count is seen ($why)"
else
	echo "not ok $n - self-test: a lost ECC count was not seen as such: '$why'"
fi
printf '{"init": 18}\n' >"$work/init-18.json"
replay "$work/init-18.json" >"$work/init-18.1"
why=$(compare "$src/t/fixtures/nvml/init-fail.json" "$work/init-18.1")
n=$((n + 1))
if [[ $why == "init: 18 instead of 9" ]]; then
	echo "ok $n - self-test: another init failure is seen ($why)"
else
	echo "not ok $n - self-test: init 18 against init-fail was not seen as such: '$why'"
fi
