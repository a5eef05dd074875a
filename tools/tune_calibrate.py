"""Hold fastswz.tune's cost model to measured times, fit its constants, report held-out shapes.

    PYTHONPATH=src python tools/tune_calibrate.py benchmarks/data/tune_h100.json \\
        [--train sq2048,sq8192,llm_up,skinny,decode128] [--write-model fitted.py]

Reads the JSON of ``tools/tune_measure.py --run`` (issue 20, part 2). Per problem (shape x
dtype) it reports, for the datasheet model (``fastswz.tune.DATASHEET_MODELS``, the fit's start
point) and for the model fitted on the training shapes:
Spearman rank correlation between model cycles and measured time, top-1 regret (measured time
of the model's first choice over the measured best, - 1), top-5 recall (share of the measured
top 5 in the model's top 5) and whether the measured best is in the model's top 5; then the
same for the held-out shapes, the targets (held-out Spearman >= 0.7, regret <= 10%, best in the
top 5), and the fitted constants as a Python literal to paste into ``DEFAULT_MODELS`` in
src/fastswz/tune.py (and whether they equal the shipped ones). ``--epilogue`` also fits the epilogue's bank-conflict weight (issue 20,
part 4) and says whether it helps on held-out shapes.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from fastswz.calibrate import DEFAULT_FIT_PARAMS, evaluate, fit_model, model_literal, problems, spearman
from fastswz.tune import DATASHEET_MODELS, DEFAULT_MODELS

DEFAULT_TRAIN = ("sq2048", "sq8192", "llm_up", "skinny", "decode128")
TARGETS = {"spearman": 0.7, "top1_regret": 0.10}


def _fmt(x, pct=False):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    if isinstance(x, bool):
        return "yes" if x else "no"
    return f"{x:.1%}" if pct else f"{x:.3f}"


def table(before, after, title):
    lines = [f"**{title}**", "",
             "| shape | dtype | plans | Spearman | top-1 regret | top-5 recall | best in top 5 |",
             "|---|---|---|---|---|---|---|"]
    for b, a in zip(before, after):
        dt = b["problem"][3] + (f", smem epilogue {b['problem'][8]}" if b["problem"][8] else "")
        lines.append(
            f"| {b['name']} | {dt} | {b['plans']} | {_fmt(b['spearman'])} -> {_fmt(a['spearman'])} | "
            f"{_fmt(b['top1_regret'], True)} -> {_fmt(a['top1_regret'], True)} | "
            f"{_fmt(b['top5_recall'])} -> {_fmt(a['top5_recall'])} | "
            f"{_fmt(b['best_in_top5'])} -> {_fmt(a['best_in_top5'])} |")
    if after:
        mean = lambda rows, k: sum(r[k] for r in rows if not math.isnan(r[k])) / max(len(rows), 1)  # noqa: E731
        lines.append(f"| **mean** | | | {mean(before, 'spearman'):.3f} -> {mean(after, 'spearman'):.3f} | "
                     f"{mean(before, 'top1_regret'):.1%} -> {mean(after, 'top1_regret'):.1%} | "
                     f"{mean(before, 'top5_recall'):.3f} -> {mean(after, 'top5_recall'):.3f} | "
                     f"{sum(r['best_in_top5'] for r in before)}/{len(before)} -> "
                     f"{sum(r['best_in_top5'] for r in after)}/{len(after)} |")
    return "\n".join(lines)


def targets_met(rows):
    return [r["name"] + "/" + r["problem"][3] for r in rows
            if not (r["spearman"] >= TARGETS["spearman"] and r["top1_regret"] <= TARGETS["top1_regret"]
                    and r["best_in_top5"])]


def epilogue_pairs(rows):
    """Plans measured with both stores (registers, and the smem epilogue tile): per (shape,
    dtype) the time the epilogue tile adds and the plan's epilogue bank counts."""
    import numpy as np

    from fastswz import plan_gemm

    by = {}
    for r in rows:
        if r.get("median_ms") is None:
            continue
        cfg = dict(r["config"])
        on = bool(cfg.pop("epilogue", False))
        tag = (r["name"], r["a_dtype"], json.dumps(cfg, sort_keys=True))
        by.setdefault(tag, {})[on] = r
    pairs = {}
    for (name, dt, cfg), d in by.items():
        if True in d and False in d:
            pairs.setdefault((name, dt), []).append((json.loads(cfg), d[False], d[True]))
    out = []
    for (name, dt), ps in pairs.items():
        cfgs = [c for c, _, _ in ps]
        out_dtype = ps[0][2].get("out_dtype", "bf16")
        p = plan_gemm(cfgs[0].get("arch", "sm90"), dt, dt, "K", "K", [c["bm"] for c in cfgs],
                      [c["bn"] for c in cfgs], [c["bk"] for c in cfgs], [c["stages"] for c in cfgs],
                      [c["swizzle_a"] for c in cfgs], [c["swizzle_b"] for c in cfgs], out_dtype)
        delta = np.array([on["median_ms"] - off["median_ms"] for _, off, on in ps])
        ratio = np.array([on["median_ms"] / off["median_ms"] for _, off, on in ps])
        wav = p["epi_wavefronts"].astype(float)
        exc = p["epi_excess"].astype(float)
        out.append({"name": name, "dtype": dt, "pairs": len(ps),
                    "median_on_over_off": float(np.median(ratio)),
                    "spearman_delta_wavefronts": spearman(delta, wav),
                    "spearman_delta_excess": spearman(delta, exc),
                    "plans_with_excess": int((exc > 0).sum())})
    return out


def epilogue_report(rows, groups, train, held, fitted, args, header):
    """Part 4: does the model need the epilogue's bank conflicts?"""
    edt = args.epilogue_dtype  # only for rows that do not say (config["epilogue"])
    has_epi = any(key[8] is not None for key in groups)
    if not has_epi and edt is None:
        edt = header.get("timing", {}).get("out_dtype", "bf16")
    params = list(DEFAULT_FIT_PARAMS)
    fe = fit_model(rows, train, model=fitted, params=params + ["epilogue_clocks_per_wavefront"],
                   rounds=args.rounds, regret_weight=args.regret_weight, epilogue_dtype=edt)
    w = fe.epilogue_clocks_per_wavefront
    rep = {"fitted_weight": w, "model": fe.to_dict()}
    print(f"**epilogue: fitted epilogue_clocks_per_wavefront = {w}**"
          + ("" if has_epi else f" (rows without an epilogue flag scored with a {edt} tile)") + "\n")
    if held:
        a0 = evaluate(fitted, rows, held, epilogue_dtype=edt)
        a1 = evaluate(fe, rows, held, epilogue_dtype=edt)
        print(table(a0, a1, "held-out shapes (fitted -> fitted with the epilogue term)") + "\n")
        rep["held_out"] = {"without": a0, "with": a1}
    pairs = epilogue_pairs(rows)
    if pairs:
        lines = ["| shape | dtype | plans timed both ways | median time smem-epilogue / registers | "
                 "Spearman(added time, wavefronts) | Spearman(added time, excess) | plans with excess |",
                 "|---|---|---|---|---|---|---|"]
        for e in pairs:
            lines.append(f"| {e['name']} | {e['dtype']} | {e['pairs']} | {e['median_on_over_off']:.3f} | "
                         f"{_fmt(e['spearman_delta_wavefronts'])} | {_fmt(e['spearman_delta_excess'])} | "
                         f"{e['plans_with_excess']} |")
        print("**the epilogue tile's cost, plan by plan**\n\n" + "\n".join(lines) + "\n")
        rep["pairs"] = pairs
    print("the epilogue term " + ("is not used by the fit (weight 0)" if w == 0 else
                                  f"costs {w} clocks per wavefront per tile") + "\n")
    return rep


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("measured", help="JSON of tools/tune_measure.py --run")
    p.add_argument("--train", default=",".join(DEFAULT_TRAIN),
                   help="shape names to fit on (the rest are held out); default " + ",".join(DEFAULT_TRAIN))
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--regret-weight", type=float, default=1.0)
    p.add_argument("--epilogue", action="store_true",
                   help="also fit epilogue_clocks_per_wavefront on the plans' epilogue bank conflicts")
    p.add_argument("--epilogue-dtype", default=None,
                   help="--epilogue on rows without an epilogue flag: score them with this "
                        "epilogue tile (default: the run's out_dtype when no row has the flag)")
    p.add_argument("--write-model", metavar="FILE", help="write the fitted TuneModel literal here")
    p.add_argument("--json", metavar="FILE", help="write every metric here as JSON")
    args = p.parse_args(argv)
    data = json.loads(Path(args.measured).read_text())
    rows = data["rows"] if isinstance(data, dict) else data
    groups = problems(rows)
    names = sorted({g["name"] for g in groups.values()})
    train = [s for s in args.train.split(",") if s]
    missing = [s for s in train if s not in names]
    if missing:
        print(f"tune_calibrate: error: --train names {missing} not among the measured shapes {names}",
              file=sys.stderr)
        return 2
    held = [s for s in names if s not in train]
    archs = {key[7] for key in groups}
    arch = archs.pop() if len(archs) == 1 else "sm90"
    datasheet = DATASHEET_MODELS[arch]
    fitted = fit_model(rows, train, rounds=args.rounds, regret_weight=args.regret_weight)
    out = {"train": train, "held_out": held, "datasheet": datasheet.to_dict(), "fitted": fitted.to_dict(),
           "shipped": fitted == DEFAULT_MODELS[arch]}
    header = data.get("header", {}) if isinstance(data, dict) else {}
    print(f"# tune model vs {header.get('device_key', 'the measured GPU')} "
          f"({sum(len(g['rows']) for g in groups.values())} measured plans, {len(groups)} problems)\n")
    for title, shapes in (("training shapes", train), ("held-out shapes", held)):
        if not shapes:
            continue
        b = evaluate(datasheet, rows, shapes)
        a = evaluate(fitted, rows, shapes)
        out[title] = {"datasheet": b, "fitted": a}
        print(table(b, a, f"{title} (datasheet -> fitted)") + "\n")
    if held:
        miss = targets_met(out["held-out shapes"]["fitted"])
        print(f"held-out targets (Spearman >= {TARGETS['spearman']}, regret <= "
              f"{TARGETS['top1_regret']:.0%}, best in top 5): "
              + ("all met" if not miss else f"missed on {', '.join(miss)}") + "\n")
        out["held_out_targets_missed"] = miss
    print("fitted constants (paste into DEFAULT_MODELS in src/fastswz/tune.py):\n")
    print("    " + model_literal(fitted) + "\n")
    print(f"the shipped DEFAULT_MODELS[{arch!r}] " + ("equals these constants" if out["shipped"] else
                                                      "differs from these constants") + "\n")
    if args.epilogue:
        out["epilogue"] = epilogue_report(rows, groups, train, held, fitted, args, header)
    if args.write_model:
        Path(args.write_model).write_text(model_literal(fitted) + "\n")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
