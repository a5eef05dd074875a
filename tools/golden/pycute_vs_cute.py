#!/usr/bin/env python3
"""Run CUTLASS's pycute on the compiled-CuTe algebra vectors and list where it differs.

Writes ``tests/data/pycute_vs_cute.json``: for every case of ``golden_cute_algebra.json`` whose
operation pycute has, pycute's printed answer where it is not C++ CuTe's (``"raises"`` when pycute
raises and CuTe computes, or computes where CuTe refuses).  ``tests/test_pycute_parity.py`` checks
that pycute differs from C++ exactly there.  Needs ``pip install --no-deps nvidia-cutlass==4.2.0.0``.

    python tools/golden/pycute_vs_cute.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
VECTORS = REPO / "tests" / "data" / "golden_cute_algebra.json"
OUT = REPO / "tests" / "data" / "pycute_vs_cute.json"


def fmt(t) -> str:
    if isinstance(t, tuple):
        return "(" + ",".join(fmt(e) for e in t) + ")"
    return str(t)


def text(x) -> str:
    """pycute result in CuTe's print form (pycute prints Python tuples)."""
    import pycute as P

    if isinstance(x, P.Layout):
        return f"{fmt(x.shape)}:{fmt(x.stride)}"
    return fmt(x)


def parse_layout(s: str):
    """CuTe layout text -> pycute Layout (only plain layouts: pycute's ComposedLayout differs)."""
    import pycute as P

    def tup(t: str, i: int):
        if t[i] == "(":
            out, i = [], i + 1
            while t[i] != ")":
                v, i = tup(t, i)
                out.append(v)
                if t[i] == ",":
                    i += 1
            return tuple(out), i + 1
        j = i
        while j < len(t) and (t[j].isdigit() or t[j] == "-"):
            j += 1
        return int(t[i:j]), j

    shape, i = tup(s, 0)
    assert s[i] == ":"
    stride, _ = tup(s, i + 1)
    return P.Layout(shape, stride)


def arg(x):
    if isinstance(x, str):
        return parse_layout(x)
    if isinstance(x, list):
        return tuple(arg(e) for e in x)
    return x


def calls():
    import pycute as P

    return {
        "coalesce": P.coalesce, "coalesce_profile": P.coalesce, "filter": P.filter,
        "filter_profile": P.filter, "composition": P.composition,
        "composition_tiler": P.composition,
        "complement": lambda lay: P.complement(lay, P.cosize(P.filter(lay))),
        "complement_cotarget": lambda lay, c: P.complement(lay, P.product(c)),
        "right_inverse": P.right_inverse, "left_inverse": P.left_inverse,
        "logical_divide": P.logical_divide, "zipped_divide": P.zipped_divide,
        "tiled_divide": P.tiled_divide, "logical_product": P.logical_product,
        "zipped_product": P.zipped_product, "tiled_product": P.tiled_product,
        "slice": lambda crd, lay: lay(crd),
        "slice_and_offset": P.slice_and_offset,
        "eval_index": lambda lay, i: lay(i),
        "eval_coord": lambda lay, c: lay(c),
    }


def run(case) -> str:
    """pycute's printed answer for one case ('raises' when it raises)."""
    fn = calls()[case["op"]]
    try:
        r = fn(*[arg(a) for a in case["args"]])
    except Exception:  # noqa: BLE001 - pycute validates with assert and fails in many ways
        return "raises"
    if case["op"] == "slice_and_offset":
        return f"{text(r[0])}\t{text(r[1])}"
    return text(r)


def cute_answer(case) -> str:
    if case["cute"] is None:
        return "raises"
    if "offset" in case:
        return f"{case['cute']}\t{case['offset']}"
    return case["cute"]


def main() -> int:
    cases = json.loads(VECTORS.read_text())["cases"]
    ops = calls()
    diffs, n = [], 0
    for c in cases:
        if c["op"] not in ops:
            continue
        n += 1
        got = run(c)
        if got != cute_answer(c):
            diffs.append({"id": c["id"], "op": c["op"], "pycute": got})
    body = ",\n".join(json.dumps(d, separators=(",", ":")) for d in diffs)
    OUT.write_text('{\n"compared":%d,\n"differs":[\n%s\n]\n}\n' % (n, body))
    by_op: dict[str, int] = {}
    for d in diffs:
        by_op[d["op"]] = by_op.get(d["op"], 0) + 1
    print(f"{n} cases compared, pycute differs from C++ CuTe on {len(diffs)}: {by_op}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
