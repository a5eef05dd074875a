#!/usr/bin/env python3
"""What the probe grids left on the table: the default plan's regret on every problem the H200
probes timed (CPU only; reads the committed logs).

    PYTHONPATH=src python3 tests/gpu/gemm/regret.py [--over 1.05] [--json OUT]

Every ``probe.py run`` result under ``docs/conformance/*-{nineteenth..}-session/`` (the H200
sessions) holds, per problem, the times of a grid of plans measured in one run (plans today's
kernel family no longer runs left out). Where today's
``choose_plan`` plan is one of them, its regret is its time over the fastest plan of that
grid; a problem timed in several sets counts once, with its latest set. The report: how many
problems, the geometric mean of the regret, how many exceed ``--over``, and those grouped by
the plan fields in which the fastest plan differs from the default. A grid's fastest plan is the
minimum of noisy medians, so the regret is biased upward by about the runs' spread (2-3%).
"""
from __future__ import annotations

import argparse
import collections
import glob
import gzip
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..", "..")
SESSIONS = ("nineteenth", "twentieth", "twenty-first", "twenty-second", "twenty-third", "twenty-fourth",
            "twenty-fifth", "twenty-sixth")
FIELDS = ("bm", "bn", "bk", "stages", "swap_ab", "split_k", "cluster_m", "cluster_n", "epilogue", "epilogue_n",
          "epilogue_stages", "pingpong", "stream_k", "split_reduce")


def _probe_files():
    for sess in SESSIONS:
        for path in sorted(glob.glob(os.path.join(ROOT, "docs", "conformance", f"*-{sess}-session", "**", "*.json*"),
                                     recursive=True)):
            if "cases" not in os.path.basename(path):
                yield path


def _cases(path):
    try:
        with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
            data = json.load(f)
    except (OSError, ValueError):
        return []
    if not (isinstance(data, list) and data and isinstance(data[0], dict) and "rows" in data[0]
            and "shape" in data[0]):
        return []
    return data


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--over", type=float, default=1.05, help="report regrets above this (default 1.05)")
    ap.add_argument("--json", default=None, help="write the per-problem regrets here")
    args = ap.parse_args(argv)
    sys.path.insert(0, os.path.join(ROOT, "src"))
    from fastswz.cuda import choose_plan
    from fastswz.cuda.codegen import normalize_config, supported

    def key(c):
        return json.dumps(normalize_config(c), sort_keys=True)

    def runs_today(c):
        # a plan input since taken out (the twenty-sixth session's cluster split-K reduction,
        # reverted) is no plan today's kernel family offers
        try:
            return supported(c) is None
        except Exception:  # noqa: BLE001 - an unknown configuration key or value
            return False

    latest = {}
    for path in _probe_files():
        for case in _cases(path):
            m, n, k = case["shape"]
            dt = case["dtype"]
            rows = [r for r in case["rows"] if r.get("ms") and r.get("ok") and runs_today(r["config"])]
            if not rows:
                continue
            plan = normalize_config(choose_plan(m, n, k, dt, dt))
            mine = [r for r in rows if key(r["config"]) == key(plan)]
            if not mine:
                continue
            best = min(rows, key=lambda r: r["ms"])
            latest[(m, n, k, dt)] = {"shape": [m, n, k], "dtype": dt, "regret": mine[0]["ms"] / best["ms"],
                                     "best": normalize_config(best["config"]), "default": plan,
                                     "file": os.path.relpath(path, ROOT)}
    got = list(latest.values())
    if not got:
        print("regret: no probe result holds today's default plan")
        return 1
    geo = math.exp(sum(math.log(r["regret"]) for r in got) / len(got))
    over = [r for r in got if r["regret"] > args.over]
    print(f"regret: {len(got)} problems whose default plan a probe grid timed; geometric mean "
          f"{geo:.3f}; {len(over)} above {args.over}")
    groups = collections.defaultdict(list)
    for r in over:
        groups[tuple(f for f in FIELDS if r["best"].get(f) != r["default"].get(f))].append(r["regret"])
    for fields, regrets in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        g = math.exp(sum(map(math.log, regrets)) / len(regrets))
        print(f"  {len(regrets):4d}  geometric mean {g:.3f}  the fastest differs in {', '.join(fields) or '(nothing)'}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(got, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
