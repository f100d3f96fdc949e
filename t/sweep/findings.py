#!/usr/bin/env python3
"""Normalise `golden sweep analyse --format json` into the lines the
expected-findings files (t/fixtures/nccl-tests/*.findings) hold:

  run N COLLECTIVE nodes=N|? ranks=N|? rows=N     one per parsed run
  KIND RUN PLACEMENT SIZE SIZE_TO WHAT            one per finding

PLACEMENT is out, in or both; SIZE and SIZE_TO are bytes (0: none). Runs
are the parsed runs (the JSON lists each placement separately)."""
import json
import sys


def main():
    text = sys.stdin.read()
    if not text.strip():
        return 0
    r = json.loads(text)
    seen = {}
    for x in r["runs"]:
        n = x["run"]
        rows = len(x["rows"])
        if n in seen:
            seen[n]["rows"] = max(seen[n]["rows"], rows)
            continue
        seen[n] = {"coll": x["collective"], "nodes": x["nodes"], "ranks": x["ranks"],
                   "rows": rows}
    for n in sorted(seen):
        s = seen[n]
        print("run %d %s nodes=%s ranks=%s rows=%d" % (
            n, s["coll"], s["nodes"] if s["nodes"] is not None else "?",
            s["ranks"] if s["ranks"] is not None else "?", s["rows"]))
    lines = []
    for f in r["findings"]:
        lines.append((f["run"], f["kind"], f["placement"], f.get("size", 0), f.get("size_to", 0),
                      f["what"]))
    for l in sorted(lines):
        print("%s %d %s %d %d %s" % (l[1], l[0], l[2], l[3], l[4], l[5]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
