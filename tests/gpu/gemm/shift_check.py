#!/usr/bin/env python3
"""The shifted last tile row (sm90/tile_rows.cuh) on the GPU: D of a problem whose M is not a
multiple of BM against D of the same plan on A padded to whole tile rows (no shift), bit for bit,
for every kind of plan (one pass through the shared-memory tile or from registers, split-K
reduced by the last CTA or by the second kernel, 2-CTA clusters with a padding row, ping-pong,
swap-AB, the fused epilogue, rowwise and block fp8 scales, 64-row tiles); and D against the
float64 product. Two launches of each compared too (run to run).

    FASTSWZ_CACHE=.fswcache PYTHONPATH=src python3 tests/gpu/gemm/shift_check.py [precompile]
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "src"))


def cases():
    """(name, m, n, k, dtype, fusion, overrides, swapped): swapped cases shift the caller's N."""
    gelu = {"activation": "gelu", "bias": "bf16", "residual": "bf16"}
    return [
        ("one pass, epilogue tile", 425, 3632, 4096, "bf16", {}, {}, False),
        ("one pass, registers", 425, 1000, 2048, "bf16", {}, {"epilogue": False, "epilogue_n": 0}, False),
        ("64-row tiles", 300, 1000, 2048, "bf16", {}, {"bm": 64, "bn": 128, "bk": 64, "stages": 6}, False),
        ("split-K last CTA", 425, 1000, 8192, "bf16", {}, {"epilogue": False, "epilogue_n": 0, "split_k": 4,
                                                         "split_reduce": "last_cta"}, False),
        ("split-K kernel", 425, 1000, 8192, "bf16", {}, {"epilogue": False, "epilogue_n": 0, "split_k": 4,
                                                       "split_reduce": "kernel"}, False),
        ("cluster, 4 rows", 425, 2000, 2048, "bf16", {}, {"cluster_m": 2}, False),
        ("cluster, padding row", 300, 2000, 2048, "bf16", {}, {"cluster_m": 2}, False),
        ("ping-pong", 425, 2000, 2048, "bf16", {}, {"pingpong": True, "epilogue": False, "epilogue_n": 0}, False),
        ("swap-AB", 16, 1000, 4096, "bf16", {}, {}, True),
        ("fused bias+gelu+residual", 425, 2000, 2048, "bf16", gelu, {}, False),
        ("e4m3 rowwise", 425, 2000, 4096, "e4m3", {"scale": "row"}, {}, False),
        ("e4m3 block", 425, 2048, 4096, "e4m3", {"scale": "block"}, {}, False),
        ("e4m3 one pass", 263, 5376, 4096, "e4m3", {}, {}, False),
    ]


def plan_of(m, n, k, dt, fusion, over):
    from fastswz.cuda import default_config, normalize_config

    c = default_config(m, n, k, dt, dt, "K", "K", "bf16", fusion=dict(fusion))
    return normalize_config(dict(c, **over))


def main(argv):
    from fastswz.cuda import compile_gemm

    plans = [(cs, plan_of(cs[1], cs[2], cs[3], cs[4], cs[5], cs[6])) for cs in cases()]
    if argv[:1] == ["precompile"]:
        for _, c in plans:
            compile_gemm(c)
        print(len(plans), "plans compiled")
        return 0
    import torch
    import fastswz.cuda as fc

    torch.manual_seed(0)
    bad = 0
    for (name, m, n, k, dt, fusion, over, swapped), c in plans:
        bm = c["bm"] * c["cluster_m"]
        full = -(-(n if swapped else m) // bm) * bm   # the shifted extent padded to whole tile rows
        mm, nn = (m, full) if swapped else (full, n)
        a = torch.randn(mm, k, device="cuda").to(torch.bfloat16)
        b = torch.randn(nn, k, device="cuda").to(torch.bfloat16)
        extra, extra_small = {}, {}
        if dt == "e4m3":
            a, b = (a * 4).to(torch.float8_e4m3fn), (b * 4).to(torch.float8_e4m3fn)
        if fusion.get("scale") == "row":
            sa, sb = torch.rand(mm, 1, device="cuda") + 0.5, torch.rand(1, nn, device="cuda") + 0.5
            extra.update(scale_a=sa, scale_b=sb)
            extra_small.update(scale_a=sa[:m], scale_b=sb)
        if fusion.get("scale") == "block":
            sa = torch.rand(k // 128, mm, device="cuda") + 0.5   # A's scales M-major (DeepGEMM's)
            sb = torch.rand(nn // 128, k // 128, device="cuda") + 0.5
            extra.update(scale_a=sa.t(), scale_b=sb)
            extra_small.update(scale_a=sa[:, :m].contiguous().t(), scale_b=sb)
        if fusion.get("bias"):
            bias = torch.randn(nn, device="cuda").to(torch.bfloat16)
            cc = torch.randn(mm, nn, device="cuda").to(torch.bfloat16)
            extra.update(bias=bias, c=cc, beta=1.0, activation=fusion["activation"])
            extra_small.update(bias=bias, c=cc[:m], beta=1.0, activation=fusion["activation"])
        kern = compile_gemm(c)
        big = fc.gemm(a, b.t(), plan=kern, **extra)
        small_a, small_b = (a, b[:n]) if swapped else (a[:m], b)
        if swapped:
            extra_small = dict(extra)
        d1 = fc.gemm(small_a, small_b.t(), plan=kern, **extra_small)
        d2 = fc.gemm(small_a, small_b.t(), plan=kern, **extra_small)
        torch.cuda.synchronize()
        want = big[:, :n] if swapped else big[:m]
        same = torch.equal(d1.view(torch.int16), want.contiguous().view(torch.int16))
        again = torch.equal(d1.view(torch.int16), d2.view(torch.int16))
        ref = small_a.double() @ small_b.double().t()
        if "scale_a" in extra_small and fusion["scale"] == "row":
            ref = ref * extra_small["scale_a"].double() * extra_small["scale_b"].double()
        err = float((d1.double() - ref).norm() / ref.norm()) if not fusion.get("bias") and fusion.get("scale") != "block" else float("nan")
        diff = int((d1.view(torch.int16) != want.contiguous().view(torch.int16)).sum())
        ok = same and again and not (err > 2e-2)
        bad += not ok
        print(f"{'ok ' if ok else 'BAD'} {name:26s} {m}x{n}x{k} {dt} plan {c['bm']}x{c['bn']} sk{c['split_k']} "
              f"cl{c['cluster_m']} pp{int(c['pingpong'])} swap{int(c['swap_ab'])} epi{int(c['epilogue'])}: "
              f"equal to the unshifted run {same} ({diff} elements differ), run to run {again}, "
              f"rel err vs float64 {err:.1e}", flush=True)
    print(f"shift_check: {len(plans) - bad} of {len(plans)} ok")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
