#!/usr/bin/env python3
"""Summaries of the thirty-sixth session's probe runs (BENCHMARKS.md, issue 27, "Thirty-sixth
session"): v91 (each unseen loser's default against the grid's fastest), v92 and v93 (the rule's
plan against the plan before it: geometric mean, and how many faster or slower by more than 3%).

    python3 docs/conformance/2026-11-29-thirty-sixth-session/analyze.py
"""
import gzip
import json
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def _load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def _text(c):
    s = f'{c["bm"]}x{c["bn"]}x{c["bk"]} s{c["stages"]}'
    s += " swap" if c.get("swap_ab") else ""
    s += f' split {c["split_k"]}' if c.get("split_k", 1) > 1 else ""
    s += f' cluster {c.get("cluster_m", 1)}x{c.get("cluster_n", 1)}' if c.get("cluster_m", 1) * c.get("cluster_n", 1) > 1 else ""
    return s + (f' epi{c.get("epilogue_n", 0) or c["bn"]}' if c.get("epilogue") else " regs")


def v91():
    rows = _load(os.path.join(HERE, "run1-seeds-27-28-losers-v91-callpath-ab", "v91", "probe.json.gz"))
    print("v91: each unseen loser (seeds 25-28, < 0.86x), its default against v91's fastest plan")
    for r in rows:
        timed = [x for x in r["rows"] if x["ms"]]
        d, best = r["rows"][0], min(timed, key=lambda x: x["ms"])
        cub = r["cublas_ms"]
        print(f'  {"x".join(map(str, r["shape"]))} {r["dtype"]}: default {cub / d["ms"]:.2f}x ({_text(d["config"])}), '
              f'fastest {cub / best["ms"]:.2f}x ({_text(best["config"])}), {d["ms"] / best["ms"]:.3f}x the default')


def held_out(name):
    rows = _load(os.path.join(HERE, "run2-heldout-v92-v93-corpus-ab-seeds", name, "probe.json"))
    ratios = [r["rows"][1]["ms"] / r["rows"][0]["ms"] for r in rows]   # the plan before / the rule's
    gm = math.exp(sum(map(math.log, ratios)) / len(ratios))
    faster, slower = sum(x > 1.03 for x in ratios), sum(x < 1 / 1.03 for x in ratios)
    ok = all(x["ok"] for r in rows for x in r["rows"])
    print(f"{name}: {len(ratios)} problems, the rule's plan {gm:.3f}x the plan before it (geometric mean), "
          f"{faster} faster and {slower} slower by more than 3%, every plan {'exact' if ok else 'NOT exact'}")


if __name__ == "__main__":
    v91()
    held_out("v92")
    held_out("v93")
