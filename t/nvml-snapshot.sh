#!/bin/bash
# t/nvml-snapshot/nvml-snapshot writes what NVML answers as a fake-NVML state
# file; a real node's file is only a fixture if the snapshot loses nothing.
# For every fixture the fake serves (t/fixtures/nvml/*.json; not the one
# that hangs an entry point): the snapshot of the fake replaying it states
# every value the fixture gives (same key, same value, after the fake's
# spellings: "0x..." masks, uuids), and a snapshot of the snapshot is the
# same file (a fixed point: replaying a real node's file replays the node).
set -u
src=${GOLDEN_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
build=${GOLDEN_BUILDDIR:-$src/_build}
snap=$build/t/nvml-snapshot/nvml-snapshot
fake=$build/t/fake-nvml/.libs
py=${PYTHON3:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fixtures=()
for f in "$src"/t/fixtures/nvml/*.json; do
	grep -q '"hang"' "$f" || fixtures+=("$f")
done
echo "1..$((2 * ${#fixtures[@]} + 1))"
n=0
for f in "${fixtures[@]}"; do
	name=$(basename "$f" .json)
	LD_LIBRARY_PATH=$fake FAKE_NVML_STATE=$f "$snap" >"$work/$name.1" 2>"$work/$name.err"
	LD_LIBRARY_PATH=$fake FAKE_NVML_STATE=$work/$name.1 "$snap" >"$work/$name.2" 2>>"$work/$name.err"
	why=$("$py" - "$f" "$work/$name.1" <<'PY'
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
    if k == "clocks_event_reasons" and isinstance(v, str):
        return int(v, 16)
    if k == "pci_device_id" and isinstance(v, str):
        return int(v, 16)
    if k == "cluster_uuid":
        return v.replace("-", "").lower()
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
for k in ("init", "gpus"):
    if k in want:
        if k == "init" and want[k] in ("ok",):
            continue
        r = same(k, want[k], got.get(k)) if k == "gpus" else ("" if "init" in got else "init: missing")
        if r:
            print(r)
            break
PY
)
	n=$((n + 1))
	if [[ -z $why ]]; then
		echo "ok $n - $name: the snapshot states every value the fixture gives"
	else
		echo "not ok $n - $name: $why"
		sed 's/^/# /' "$work/$name.err"
	fi
	n=$((n + 1))
	if cmp -s "$work/$name.1" "$work/$name.2"; then
		echo "ok $n - $name: a snapshot of the snapshot is the same file"
	else
		echo "not ok $n - $name: the replayed snapshot differs"
		diff "$work/$name.1" "$work/$name.2" | head -20 | sed 's/^/# /'
	fi
done
# A negative: the comparison sees a lost value.
n=$((n + 1))
"$py" -c '
import json, sys
d = json.load(open(sys.argv[1])); d["gpus"][4]["ecc_uncorrected_volatile"] = 0
json.dump(d, open(sys.argv[2], "w"))' "$src/t/fixtures/nvml/ecc.json" "$work/ecc-lost.json"
if ! cmp -s <(LD_LIBRARY_PATH=$fake FAKE_NVML_STATE=$src/t/fixtures/nvml/ecc.json "$snap" 2>/dev/null | grep -c '"ecc_uncorrected_volatile":2') <(echo 0); then
	echo "ok $n - self-test: the ECC count the fixture gives shows in the snapshot (2 errors on gpu4)"
else
	echo "not ok $n - self-test: the snapshot lost ecc.json's 2 errors"
fi
