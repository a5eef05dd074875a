#!/usr/bin/env python3
"""Triton's linear layouts of its MMA register layouts against fastswz's fragment maps.

For each case, Gluon's ``to_linear_layout`` (Triton's own C++ conversion, reached through
``GluonOpBuilder.to_linear_layout``; Triton 3.6) turns an NVMMADistributedLayout (mma.sync v2,
wgmma v3) or a DotOperandLayout into register/lane/warp bases; fastswz's
``TVLayout.to_linear()`` of the matching fragment must give the same bases, and
``TVLayout.gluon()`` must name the same layout. Needs triton (with Gluon) importable; no kernel
is launched.

    python3 triton_probe.py [--out DIR]

Writes DIR/triton_probe.json and prints one line per case and a SUMMARY line. A case is "equal",
"register order differs" (the same elements per lane and warp, Triton numbering a thread's
registers in another order: a convention, reported, not a failure), "different" or "error".
Exit status: 0 no case different or in error, 1 otherwise, 77 Triton/Gluon (or its
to_linear_layout) not available (skipped).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import fastswz
from fastswz import tv_layout as tvl


def cases():
    """(name, fastswz TVLayout, transpose, gluon constructor text, tensor shape)."""
    out = []
    for n in (8, 16, 32, 64, 128, 256):
        d = tvl.wgmma_d(n)
        out.append((d.name, d, False, d.gluon(), [64, n]))
    for shape, dt in (("m16n8k8", "f16"), ("m16n8k16", "f16"), ("m16n8k16", "bf16"), ("m16n8k8", "tf32"),
                      ("m16n8k32", "s8"), ("m16n8k32", "e4m3")):
        M, N, K = (int(x) for x in shape[1:].replace("n", " ").replace("k", " ").split())
        c = tvl.mma_sync(shape, "f32", "C")
        a = tvl.mma_sync(shape, dt, "A")
        b = tvl.mma_sync(shape, dt, "B")
        out.append((c.name, c, False, c.gluon(), [M, N]))
        out.append((a.name, a, False, a.gluon(), [M, K]))
        out.append((b.name, b, True, b.gluon(), [K, N]))
    for dt in ("f16", "bf16", "tf32", "e4m3"):
        a = tvl.wgmma_a(dt)
        out.append((a.name, a, False, a.gluon(), list(a.extents)))
    # several instructions per warpgroup / warp: TVLayout.repeat against Triton's tiling
    for tv in (tvl.wgmma_d(128).repeat(2), tvl.wgmma_d(64).repeat(2, 2),
               tvl.mma_sync("m16n8k16", "f32", "C").repeat(2, 4)):
        out.append((tv.name, tv, False, tv.gluon(), list(tv.extents)))
    return out


def fastswz_bases(tv, transpose):
    ll = tv.to_linear(transpose)
    return {name: [list(v) for v in vecs] for name, vecs in ll.bases}


def triton_bases(text, shape):
    import triton.experimental.gluon.language as ttgl
    from triton._C.libtriton import gluon_ir, ir

    env = {k: getattr(ttgl, k) for k in ("NVMMADistributedLayout", "DotOperandLayout")}
    layout = eval(text, env)  # noqa: S307 - our own constructor text
    ctx = ir.context()
    ir.load_dialects(ctx)
    builder = gluon_ir.GluonOpBuilder(ctx)
    ll = builder.to_linear_layout(layout._to_ir(builder), shape)
    return {"register": [list(b) for b in ll.reg_bases], "lane": [list(b) for b in ll.lane_bases],
            "warp": [list(b) for b in ll.warp_bases]}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.environ.get("OUT", str(Path(__file__).resolve().parent / "results")))
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    try:
        import triton
        import triton.experimental.gluon.language  # noqa: F401
    except Exception as exc:  # noqa: BLE001
        print(f"SUMMARY triton probe: skipped (Triton/Gluon not importable: {exc})")
        return 77
    try:
        from triton._C.libtriton import gluon_ir
        if not hasattr(gluon_ir.GluonOpBuilder, "to_linear_layout"):
            raise AttributeError("GluonOpBuilder.to_linear_layout")
    except Exception as exc:  # noqa: BLE001
        print(f"SUMMARY triton probe: skipped (this Triton has no to_linear_layout: {exc})")
        return 77
    records, verdicts = [], {"equal": 0, "register order differs": 0, "different": 0, "error": 0}
    for name, tv, transpose, text, shape in cases():
        mine = fastswz_bases(tv, transpose)
        try:
            theirs = triton_bases(text, shape)
            err = None
        except Exception as exc:  # noqa: BLE001 - recorded per case
            theirs, err = None, f"{type(exc).__name__}: {exc}"
        if err:
            verdict = "error"
        else:
            theirs = {k: v for k, v in theirs.items() if v or k in mine}
            mine_cmp = {k: mine.get(k, []) for k in theirs}
            if mine_cmp == theirs:
                verdict = "equal"
            elif (sorted(map(tuple, mine_cmp.get("register", []))) == sorted(map(tuple, theirs.get("register", [])))
                  and {k: v for k, v in mine_cmp.items() if k != "register"}
                  == {k: v for k, v in theirs.items() if k != "register"}):
                # the same elements per (lane, warp); Triton numbers the registers in another order
                verdict = "register order differs"
            else:
                verdict = "different"
        verdicts[verdict] += 1
        tag = {"equal": "ok  ", "register order differs": "PERM", "different": "DIFF", "error": "ERR "}[verdict]
        print(f"{tag} {name:32s} {text}" + (f"  ERROR {err}" if err else ""))
        if verdict in ("different", "register order differs"):
            print(f"     triton : {theirs}\n     fastswz: {mine}")
        records.append({"case": name, "gluon": text, "shape": shape, "verdict": verdict, "error": err,
                        "triton": theirs, "fastswz": mine})
    summary = (f"SUMMARY triton probe: {verdicts['equal']}/{len(records)} fastswz linear forms equal Triton "
               f"{triton.__version__}'s to_linear_layout, {verdicts['register order differs']} equal up to "
               f"the register order, {verdicts['different']} different, {verdicts['error']} errors")
    print(summary)
    (out / "triton_probe.json").write_text(json.dumps({"triton": triton.__version__, "fastswz": fastswz.__version__,
                                                      "summary": summary, "cases": records}, indent=1))
    return 0 if verdicts["different"] == 0 and verdicts["error"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
