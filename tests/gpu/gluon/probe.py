"""Where does Triton put each element of an NVMMASharedLayout buffer? Observe it, compare it.

    python probe.py cases                       # list the grid
    python probe.py work I P DIR                # GPU: run cases I, I+P, ... ; DIR/obs_I.npz
    python probe.py compile I P                 # no GPU: compile the same kernels for sm_90 only
    python probe.py simulate I P DIR            # no GPU: write the model's prediction as "observed"
    python probe.py collect DIR OUT             # compare with fastswz; OUT/table.md, OUT/*.json

The kernel (``probe_kernel.py``) stores each element's logical index ``i * C + j`` through the
NVMMA layout and reads the raw shared-memory words back in physical order; the observed map is
``pos[i * C + j] = element offset``. ``collect`` compares it, for every case, with

* fastswz's model of Triton's rule (:func:`fastswz.gluon.nvmma_linear_layout`), and
* the equivalent fastswz tile (:func:`fastswz.gluon.gluon_nvmma_shared`, operand A then B,
  sm90 then sm100) where one exists,

and, as a negative control, with the same tile with its swizzle removed (must differ).
"""

import hashlib
import itertools
import json
import os
import sys
import time

import numpy as np

SWIZZLES = (0, 32, 64, 128)
EBITS = (8, 16, 32)
EXTENTS = (8, 16, 32, 64, 128, 256)
MAX_ELEMS = 32768


def cases():
    """(swz, ebits, transposed, R, C) of the grid: every pair of extents Triton accepts whose
    buffer fits (<= 32768 elements, <= 128 KiB)."""
    out = []
    for swz, eb, tr in itertools.product(SWIZZLES, EBITS, (False, True)):
        for r, c in itertools.product(EXTENTS, EXTENTS):
            if r * c > MAX_ELEMS or r * c * eb // 8 > 131072:
                continue
            if swz:
                width = swz * 8 // eb
                contig, rows = (r, c) if tr else (c, r)
                if contig < width or rows < 8:  # Triton's report_fatal_error: would end the process
                    continue
            out.append((swz, eb, tr, r, c))
    return out


def key(case):
    swz, eb, tr, r, c = case
    return f"swz{swz}_e{eb}_{'T' if tr else 'N'}_{r}x{c}"


def _launch_args(case):
    import triton.experimental.gluon.language as ttgl

    swz, eb, tr, r, c = case
    dt = {8: ttgl.int8, 16: ttgl.int16, 32: ttgl.int32}[eb]
    mask = (1 << eb) - 1 if eb < 32 else -1
    nw = 4 if r * c <= 4096 else 8
    return dict(R=r, C=c, SWZ=swz, EBITS=eb, TRANS=tr, DT=dt, MASK=mask, NW=nw)


def work(i, p, outdir):
    import torch
    import triton
    import triton.experimental.gluon.language as ttgl

    from probe_kernel import nvmma_probe

    mine = cases()[i::p]
    res, errs = {}, {}
    t0 = time.time()
    if i == 0:
        with open(os.path.join(outdir, "api.txt"), "w") as f:
            f.write(f"triton {triton.__version__} torch {torch.__version__} "
                    f"device {torch.cuda.get_device_name()}\n")
            f.write("ttgl: " + " ".join(n for n in dir(ttgl) if not n.startswith("_")) + "\n\n")
            f.write((ttgl.NVMMASharedLayout.__doc__ or "") + "\n")
    for case in mine:
        a = _launch_args(case)
        n = a["R"] * a["C"]
        lo = torch.full((n,), -1, dtype=torch.int32, device="cuda")
        hi = torch.full((n,), -1, dtype=torch.int32, device="cuda")
        try:
            nvmma_probe[(1,)](lo, hi, a["R"], a["C"], a["SWZ"], a["EBITS"], a["TRANS"], a["DT"],
                              a["MASK"], a["NW"], num_warps=a["NW"])
            torch.cuda.synchronize()
        except Exception as exc:  # recorded, reported in the table
            errs[key(case)] = f"{type(exc).__name__}: {str(exc)[:400]}"
            continue
        val = lo.cpu().numpy().astype(np.int64) | (hi.cpu().numpy().astype(np.int64) << case[1])
        res[key(case)] = val  # val[physical element offset] = logical index i * C + j
    np.savez_compressed(os.path.join(outdir, f"obs_{i}.npz"), **res)
    with open(os.path.join(outdir, f"err_{i}.json"), "w") as f:
        json.dump(errs, f)
    print(f"worker {i}: {len(res)} observed, {len(errs)} errors, {time.time() - t0:.1f} s", flush=True)


def compile_only(i, p):
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource

    from probe_kernel import nvmma_probe

    names = list(nvmma_probe.arg_names)
    for case in cases()[i::p]:
        a = _launch_args(case)
        sig = {n: ("*i32" if n.startswith("out") else "constexpr") for n in names}
        src = GluonASTSource(nvmma_probe, sig, constexprs={(names.index(k),): v for k, v in a.items()})
        triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": a["NW"]})
    print(f"compiled {len(cases()[i::p])} kernels", flush=True)


def simulate(i, p, outdir):
    """Rehearsal without a GPU: write what the model predicts as if it had been observed."""
    res = {}
    for case in cases()[i::p]:
        pos = model_offsets(case).ravel()
        val = np.empty_like(pos)
        val[pos] = np.arange(pos.size)
        res[key(case)] = val
    np.savez_compressed(os.path.join(outdir, f"obs_{i}.npz"), **res)
    with open(os.path.join(outdir, f"err_{i}.json"), "w") as f:
        json.dump({}, f)
    print(f"worker {i}: {len(res)} simulated", flush=True)


def fastswz_offsets(case):
    """(element offset of [i, j] from the equivalent fastswz tile, tile repr) or (None, reason)."""
    import fastswz
    from fastswz.gluon import gluon_nvmma_shared

    swz, eb, tr, r, c = case
    first = None
    for op, arch in (("A", "sm90"), ("B", "sm90"), ("A", "sm100"), ("B", "sm100")):
        try:
            t = gluon_nvmma_shared(swz, eb, transposed=tr, block_shape=(r, c), operand=op, arch=arch)
        except fastswz.TileError as exc:
            first = first or str(exc)
            continue
        off = fastswz.evaluate(t.layout).reshape(t.k, t.mn).T  # [mn, k]
        return (off if op == "A" else off.T), f"{op}: {t!r}"
    return None, first


def model_offsets(case):
    from fastswz.gluon import nvmma_linear_layout
    from fastswz.linear import linear_evaluate

    swz, eb, tr, r, c = case
    inv = nvmma_linear_layout(swz, eb, (r, c), tr).invert()
    return linear_evaluate(inv).reshape(c, r).T  # flat input: dim0 bits lowest


def unswizzled_offsets(case):
    """Negative control: the same model with the 16-byte-chunk XOR removed."""
    from fastswz.gluon import nvmma_linear_layout
    from fastswz.linear import LinearLayout, linear_evaluate

    swz, eb, tr, r, c = case
    ll = nvmma_linear_layout(swz, eb, (r, c), tr)
    cd = 0 if tr else 1
    bases = list(ll.bases[0][1])
    nb = (swz * 8 // eb).bit_length() - 1  # the first nb offset bits walk the contiguous dim
    for j in range(nb, nb + 3):  # the three row bits of the core tile carry the XOR
        v = list(bases[j])
        v[cd] = 0
        bases[j] = tuple(v)
    inv = LinearLayout([("offset", bases)], ll.out_dims).invert()
    return linear_evaluate(inv).reshape(c, r).T


def digest(pos):
    return hashlib.sha256(np.ascontiguousarray(pos, dtype="<i4").tobytes()).hexdigest()[:16]


def collect(indir, outdir):
    obs, errs = {}, {}
    for name in sorted(os.listdir(indir)):
        if name.startswith("obs_"):
            with np.load(os.path.join(indir, name)) as z:
                obs.update({k: z[k] for k in z.files})
        elif name.startswith("err_"):
            with open(os.path.join(indir, name)) as f:
                errs.update(json.load(f))
    rows, fixture = [], {}
    totals = dict(cases=0, observed=0, model_diff=0, tile_cases=0, tile_diff=0, no_tile=0,
                  control_same=0, errors=len(errs))
    for case in cases():
        k = key(case)
        swz, eb, tr, r, c = case
        totals["cases"] += 1
        if k not in obs:
            rows.append((k, "-", "-", "-", errs.get(k, "missing")))
            continue
        val = obs[k]
        totals["observed"] += 1
        if sorted(val.tolist()) != list(range(r * c)):
            rows.append((k, "not a permutation", "-", "-", ""))
            totals["model_diff"] += 1
            continue
        pos = np.empty(r * c, dtype=np.int64)
        pos[val] = np.arange(r * c)
        pos = pos.reshape(r, c)  # pos[i, j] = element offset of logical (i, j)
        md = int((model_offsets(case) != pos).sum())
        totals["model_diff"] += md > 0
        tile_off, what = fastswz_offsets(case)
        if tile_off is None:
            td = "no tile"
            totals["no_tile"] += 1
        else:
            td = int((tile_off != pos).sum())
            totals["tile_cases"] += 1
            totals["tile_diff"] += td > 0
        ctrl = "-"
        if swz:
            ctrl = int((unswizzled_offsets(case) != pos).sum())
            totals["control_same"] += ctrl == 0
        rows.append((k, md, td, ctrl, what))
        entry = {"sha256_16": digest(pos)}
        if r * c <= 128:
            entry["pos"] = pos.ravel().tolist()
        fixture[k] = entry
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, "gluon_placements.json"), "w") as f:
        json.dump({"about": "Triton 3.6 Gluon NVMMASharedLayout placements observed on the GPU: "
                            "pos[i*C+j] = element offset of logical (i, j); sha256 of the int32 "
                            "little-endian row-major pos array, first 16 hex digits",
                   "cases": fixture}, f, indent=0, sort_keys=True)
    with open(os.path.join(outdir, "table.md"), "w") as f:
        f.write("| case | model diffs | tile diffs | unswizzled control diffs | fastswz tile / note |\n")
        f.write("|---|---|---|---|---|\n")
        for row in rows:
            f.write("| " + " | ".join(str(x) for x in row) + " |\n")
        f.write("\n" + json.dumps(totals) + "\n")
    print(json.dumps(totals))
    return totals


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "cases":
        cs = cases()
        print(len(cs))
    elif cmd == "work":
        work(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
    elif cmd == "simulate":
        simulate(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
    elif cmd == "compile":
        compile_only(int(sys.argv[2]), int(sys.argv[3]))
    elif cmd == "collect":
        t = collect(sys.argv[2], sys.argv[3])
        sys.exit(0 if t["model_diff"] == 0 and t["tile_diff"] == 0 and t["errors"] == 0 else 1)
