"""On a Hopper GPU: the GEMM kernels built from plans compute D = A B (skips elsewhere).

Small-integer inputs must give D exactly; random inputs within the type's error bound; D is
poisoned first. The full grid (18 configurations x 6 shapes) is tests/gpu/gemm/check.py.
"""

from __future__ import annotations

import pytest

from fastswz.cuda import compile_gemm

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("hopper_gpu")]


@pytest.mark.parametrize("cfg,shape", [
    (dict(bm=128, bn=256, bk=64, stages=4), (1000, 1000, 1000)),
    (dict(bm=128, bn=128, bk=64, stages=4, epilogue=True, a_major="MN", b_major="MN"), (129, 257, 72)),
    (dict(bm=128, bn=128, bk=128, stages=4, a_dtype="e4m3", b_dtype="e4m3"), (256, 384, 512)),
    (dict(bm=128, bn=64, bk=32, stages=4, a_dtype="tf32", b_dtype="tf32", out_dtype="f32"), (200, 300, 96)),
    # 2-CTA clusters: MN-major B has a real LBO, which the second CTA's shared addresses (cluster
    # rank from bit 24 up) corrupted until descriptor_rebase masked them
    (dict(bm=128, bn=128, bk=64, stages=4, epilogue=True, a_major="MN", b_major="MN", cluster_m=2), (256, 256, 256)),
    (dict(bm=64, bn=96, bk=64, stages=3, b_major="MN", swizzle_b="none", cluster_m=2), (777, 300, 136)),
    (dict(bm=128, bn=256, bk=64, stages=3, epilogue=True, cluster_m=2), (1000, 1000, 1000)),
    # the epilogue tile in column blocks (the default plans' epilogue): blocks past N included
    (dict(bm=128, bn=256, bk=64, stages=4, epilogue=True, epilogue_n=64), (1000, 330, 520)),
    (dict(bm=128, bn=256, bk=128, stages=4, epilogue=True, epilogue_n=128, a_dtype="e4m3", b_dtype="e4m3"),
     (640, 1000, 384)),
    (dict(bm=128, bn=128, bk=32, stages=4, epilogue=True, epilogue_n=32, a_dtype="tf32", b_dtype="tf32",
          out_dtype="f32", cluster_m=2), (300, 200, 96)),
    # ... rotating through two epilogue tiles, and through three whole tiles across output tiles
    (dict(bm=128, bn=256, bk=64, stages=4, epilogue=True, epilogue_n=64, epilogue_stages=2), (1000, 1000, 520)),
    (dict(bm=64, bn=64, bk=64, stages=4, epilogue=True, epilogue_stages=3, out_dtype="f32"), (777, 300, 136)),
    # swap-AB (D^T = B^T A^T, D stored transposed from registers) and split-K (check() runs a
    # split-K kernel twice and requires the same bits); K shorter than the splits: empty splits
    (dict(bm=128, bn=8, bk=64, stages=8, swap_ab=True), (1, 4096, 4096)),
    (dict(bm=128, bn=32, bk=64, stages=4, swap_ab=True, a_major="MN", b_major="MN", out_dtype="f32"), (29, 1000, 200)),
    (dict(bm=128, bn=16, bk=128, stages=3, swap_ab=True, split_k=4), (16, 4096, 4096)),
    (dict(bm=128, bn=16, bk=256, stages=3, swap_ab=True, split_k=2, a_dtype="e4m3", b_dtype="e4m3"), (5, 2000, 2048)),
    # swap-AB above M = 64 (SWAP_LONG_K_MAX_M's plans): M in one and two pieces of BN, split, ragged
    (dict(bm=128, bn=192, bk=64, stages=5, swap_ab=True, split_k=3), (189, 1000, 9000)),
    (dict(bm=128, bn=216, bk=64, stages=5, swap_ab=True, split_k=2), (419, 777, 8200)),
    (dict(bm=128, bn=128, bk=64, stages=5, split_k=8), (256, 256, 16384)),
    (dict(bm=128, bn=128, bk=64, stages=5, split_k=8), (129, 257, 65)),
    (dict(bm=128, bn=128, bk=64, stages=4, split_k=3, cluster_m=2, a_major="MN"), (300, 200, 3000)),
    # SPLIT_CLUSTER_MIN_KTILES' plan: e4m3 128 x 256 split on a pair, rows off the 128-byte line
    (dict(bm=128, bn=256, bk=128, stages=4, split_k=2, cluster_m=2, a_dtype="e4m3", b_dtype="e4m3"),
     (500, 700, 6224)),
    (dict(bm=64, bn=64, bk=32, stages=4, split_k=5, a_dtype="tf32", b_dtype="tf32", out_dtype="f32"), (100, 300, 1000)),
    # stream-K (132 workers; split_k: the most pieces a tail tile is cut into): fewer tiles than
    # workers cut into up to 17 pieces, whole waves then a tail, 2 k-tiles for 132 workers, a
    # cluster, swap-AB, e4m3, ping-pong
    (dict(bm=128, bn=256, bk=64, stages=4, split_k=11, stream_k=132), (300, 1000, 3000)),
    (dict(bm=128, bn=256, bk=64, stages=4, split_k=3, stream_k=132), (1000, 2000, 1024)),
    (dict(bm=128, bn=256, bk=64, stages=4, split_k=2, stream_k=132), (2000, 4000, 512)),
    (dict(bm=128, bn=128, bk=64, stages=5, split_k=8, stream_k=132), (1500, 1700, 2048)),   # a wave, 36 cut
    (dict(bm=128, bn=128, bk=64, stages=5, split_k=2, stream_k=132), (64, 64, 128)),
    # ... through the epilogue tile (whole tiles and the last piece's sums): 64-column blocks, a wave
    # and a cut tail; a whole tile, every tile cut
    (dict(bm=128, bn=256, bk=64, stages=4, split_k=4, stream_k=132, epilogue=True, epilogue_n=64), (1500, 4000, 2048)),
    (dict(bm=128, bn=128, bk=64, stages=4, split_k=8, stream_k=132, epilogue=True, cluster_m=2), (300, 1000, 3000)),
    (dict(bm=128, bn=128, bk=64, stages=4, split_k=14, stream_k=132, cluster_m=2, a_major="MN"), (300, 600, 4000)),
    (dict(bm=128, bn=16, bk=128, stages=4, split_k=5, stream_k=132, swap_ab=True), (16, 4096, 4096)),
    (dict(bm=128, bn=128, bk=128, stages=5, split_k=4, stream_k=132, a_dtype="e4m3", b_dtype="e4m3"), (700, 900, 2048)),
    (dict(bm=64, bn=128, bk=64, stages=6, pingpong=True, split_k=17, stream_k=132), (256, 256, 8192)),
    # ping-pong consumers: an odd number of tiles per CTA, a cluster, with split-K and swap-AB
    (dict(bm=64, bn=256, bk=64, stages=4, pingpong=True), (4096, 2048, 1024)),   # ~4 units per CTA, 16 k-tiles
    (dict(bm=64, bn=128, bk=64, stages=3, pingpong=True), (1000, 1000, 1000)),
    (dict(bm=64, bn=128, bk=64, stages=6, pingpong=True, a_major="MN", b_major="MN", cluster_m=2), (777, 300, 136)),
    (dict(bm=64, bn=128, bk=64, stages=6, pingpong=True, split_k=4), (256, 256, 8192)),
    (dict(bm=64, bn=16, bk=128, stages=6, pingpong=True, swap_ab=True, split_k=2), (9, 4096, 4096)),
    # ping-pong with the shared-memory epilogue: each warpgroup's own tiles, 64-row boxes per MN block
    (dict(bm=128, bn=128, bk=64, stages=4, pingpong=True, epilogue=True, epilogue_n=64, epilogue_stages=2),
     (777, 1500, 1000)),
    (dict(bm=64, bn=256, bk=64, stages=3, pingpong=True, epilogue=True, epilogue_stages=2, cluster_m=2),
     (1000, 1000, 520)),
    (dict(bm=128, bn=128, bk=128, stages=3, pingpong=True, epilogue=True, epilogue_n=32, epilogue_stages=4,
          a_dtype="e4m3", b_dtype="e4m3", out_dtype="f32"), (4096, 2048, 1024)),
    # 2-CTA clusters along N (A multicast): an odd number of tile columns (a padding column), rows
    # 16 mod 32 bytes, MN-major A (halves along K), no swizzle on B, swap-AB, a shifted last row
    (dict(bm=128, bn=128, bk=64, stages=4, cluster_n=2), (1000, 1000, 1000)),
    (dict(bm=64, bn=64, bk=128, stages=8, a_dtype="e4m3", b_dtype="e4m3", epilogue=True, cluster_n=2), (127, 3904, 6672)),
    (dict(bm=128, bn=128, bk=64, stages=4, epilogue=True, a_major="MN", b_major="MN", cluster_n=2), (129, 257, 72)),
    (dict(bm=64, bn=96, bk=64, stages=3, b_major="MN", swizzle_b="none", cluster_n=2), (777, 300, 136)),
    (dict(bm=128, bn=256, bk=64, stages=4, swap_ab=True, cluster_n=2), (300, 1000, 520)),
    (dict(bm=128, bn=128, bk=64, stages=4, epilogue=True, epilogue_n=64, cluster_n=2), (1000, 700, 520)),
    # 2 x 2 clusters (both operands multicast): odd tile rows and columns (a padding row, column
    # and corner), off-sector e4m3 through the epilogue tile, MN-major operands, swap-AB
    (dict(bm=128, bn=128, bk=64, stages=4, cluster_m=2, cluster_n=2), (1000, 1000, 1000)),
    (dict(bm=128, bn=256, bk=128, stages=4, a_dtype="e4m3", b_dtype="e4m3", epilogue=True, epilogue_n=64,
          cluster_m=2, cluster_n=2), (755, 2208, 2256)),
    (dict(bm=64, bn=64, bk=128, stages=8, a_dtype="e4m3", b_dtype="e4m3", epilogue=True, cluster_m=2,
          cluster_n=2), (127, 3904, 6672)),
    (dict(bm=128, bn=128, bk=64, stages=4, epilogue=True, a_major="MN", b_major="MN", cluster_m=2,
          cluster_n=2), (129, 257, 72)),
    (dict(bm=128, bn=128, bk=64, stages=4, swap_ab=True, cluster_m=2, cluster_n=2), (300, 1000, 520)),
])
def test_kernel_product(cfg, shape):
    from fastswz.cuda.runtime import check

    kern = compile_gemm(cfg)
    for ints in (True, False):
        r = check(kern, *shape, ints=ints)
        assert r["unwritten"] == 0 and r["ok"], r


def test_measured_search_ranks_by_the_clock_and_replays(tmp_path):
    """search_plans on a shape no data file holds: the winner's time is the best measured, the
    default plan timed beside it; the second call replays the journal and times nothing."""
    from fastswz.cuda import search_plans

    first = search_plans(3072, 5120, 6144, budget=6, journal=tmp_path)
    times = [r["median_ms"] for r in first["rows"] if r["median_ms"] is not None]
    assert first["plans"] == 6 and all(t > 0 for t in times)
    assert first["best"]["median_ms"] <= first["default"]["median_ms"]
    again = search_plans(3072, 5120, 6144, budget=6, journal=tmp_path)
    assert again["timings"] == 0 and again["best"]["config"] == first["best"]["config"]


def test_time_is_a_first_driver_call():
    """GemmKernel.time in a fresh process (no torch, no other driver call first)."""
    import json
    import subprocess
    import sys

    code = ("import json; from fastswz.cuda import compile_gemm; "
            "print(json.dumps(compile_gemm(bm=128, bn=128, bk=64, stages=4).time(512, 512, 512, reps=2)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    r = json.loads(out.stdout.strip().splitlines()[-1])
    assert r["reps"] == 2 and r["median_ms"] > 0


@pytest.mark.parametrize("shape", [(1, 4096, 4096), (16, 4096, 4096), (256, 256, 65536), (4096, 4096, 4096),
                                   (3000, 5000, 1000)])
def test_default_plans_with_schedules_through_gemm(shape):
    """gemm() with choose_plan's plan (swap-AB and split-K on the first three shapes, a 2-CTA
    cluster on the last, whose 2000-byte rows are off the 32-byte sector): small
    integers exact, D poisoned first, and two calls give the same bits (the second through the
    prepared-call path, its workspace from torch's allocator)."""
    torch = pytest.importorskip("torch")
    from fastswz.cuda import choose_plan, gemm

    m, n, k = shape
    c = choose_plan(m, n, k)
    if m <= 256:
        assert c["swap_ab"] or c["split_k"] > 1
    assert c["cluster_m"] == (2 if shape == (3000, 5000, 1000) else 1)
    g = torch.Generator(device="cuda").manual_seed(0)
    a = torch.randint(-2, 3, (m, k), generator=g, device="cuda").to(torch.bfloat16)
    b = torch.randint(-2, 3, (n, k), generator=g, device="cuda").to(torch.bfloat16).t()
    want = (a.double() @ b.double()).to(torch.bfloat16)
    outs = []
    for _ in range(2):
        out = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
        gemm(a, b, out=out)
        torch.cuda.synchronize()
        outs.append(out)
    assert torch.equal(outs[0], want)
    assert torch.equal(outs[0].view(torch.int16), outs[1].view(torch.int16))
    d = gemm(a, b)          # a new out, from the prepared call on the second use
    d = gemm(a, b)
    torch.cuda.synchronize()
    assert torch.equal(d, want)


def _exact_twice(m, n, k, dt, seed, top, rowwise):
    """gemm() of small integers (|values| <= ``top``) of type ``dt`` into a NaN-poisoned bf16 D,
    unscaled and, where ``rowwise``, with rowwise power-of-two scales: equal to the float64
    product rounded to bf16, and two calls the same bits."""
    import torch

    from fastswz.cuda import gemm

    g = torch.Generator(device="cuda").manual_seed(seed)
    kind = torch.float8_e4m3fn if dt == "e4m3" else torch.bfloat16
    a = torch.randint(-top, top + 1, (m, k), generator=g, device="cuda").to(kind)
    b = torch.randint(-top, top + 1, (n, k), generator=g, device="cuda").to(kind).t()
    prod = a.double() @ b.double()
    cases = [({}, prod.to(torch.bfloat16))]
    if rowwise:
        sa = 2.0 ** torch.randint(-2, 3, (m, 1), generator=g, device="cuda").float()
        sb = 2.0 ** torch.randint(-2, 3, (1, n), generator=g, device="cuda").float()
        cases.append(({"scale_a": sa, "scale_b": sb}, (prod * sa.double() * sb.double()).to(torch.bfloat16)))
    for scales, expect in cases:
        outs = []
        for _ in range(2):
            out = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
            gemm(a, b, out=out, **scales)
            torch.cuda.synchronize()
            outs.append(out)
        assert torch.equal(outs[0], expect)
        assert torch.equal(outs[0].view(torch.int16), outs[1].view(torch.int16))


@pytest.mark.parametrize("shape,dt,bn", [
    ((2547, 416, 7088), "bf16", 208), ((1132, 880, 8864), "e4m3", 224), ((1728, 400, 29840), "e4m3", 208)])
def test_even_split_tiles_through_gemm(shape, dt, bn):
    """gemm() where SPLIT_EVEN_BN_STEP's rule evens a 128 x 256 split's tile columns (bf16 128 x
    208 split 3 ways; e4m3 128 x 224 split 3 ways; e4m3 128 x 208 split on a 2-CTA cluster):
    small integers exact, D poisoned first, two calls the same bits."""
    pytest.importorskip("torch")
    from fastswz.cuda import choose_plan

    m, n, k = shape
    c = choose_plan(m, n, k, dt, dt)
    assert c["bn"] == bn and c["split_k"] > 1
    _exact_twice(m, n, k, dt, 5, 2, rowwise=False)


@pytest.mark.parametrize("shape", [(2663, 4352, 256), (1000, 8192, 512)])
def test_short_fp8_whole_tile_through_gemm(shape):
    """gemm() on e4m3 shapes where SHORT_K_WHOLE_TILE_KTILES' rule stores a plain call's 128 x 256
    tile through one whole-tile epilogue buffer, and with rowwise power-of-two scales (whose plan
    keeps the 64-column blocks): small integers exact, D poisoned first, two calls the same bits."""
    pytest.importorskip("torch")
    from fastswz.cuda import choose_plan, default_config

    m, n, k = shape
    c = choose_plan(m, n, k, "e4m3", "e4m3")
    assert (c["bn"], c["epilogue_n"], c["epilogue_stages"]) == (256, 0, 1)
    row = default_config(m, n, k, "e4m3", "e4m3", fusion={"scale": "row"})
    assert (row["bn"], row["epilogue_n"]) == (256, 64)
    _exact_twice(m, n, k, "e4m3", 7, 3, rowwise=True)


@pytest.mark.parametrize("shape", [(127, 3904, 6672), (144, 5792, 13552), (75, 3760, 6160), (68, 7488, 12400)])
def test_sector_swap_through_gemm(shape):
    """gemm() on e4m3 shapes where SWAP_SECTOR_MAX_M's rule runs a plain call swapped and split
    (rows 16 bytes off the sector; 144 x 5792 x 13552 with A staged; M = 75 not a multiple of 8;
    68 x 7488 x 12400 in place of a 128 x 128 split), and with rowwise power-of-two scales (whose
    plan stays unswapped): small integers exact, D poisoned first, two calls the same bits."""
    pytest.importorskip("torch")
    from fastswz.cuda import choose_plan, default_config

    m, n, k = shape
    c = choose_plan(m, n, k, "e4m3", "e4m3")
    assert c["swap_ab"] and c["bm"] == 128 and c["bn"] == -(-m // 8) * 8 and c["split_k"] > 1
    assert not default_config(m, n, k, "e4m3", "e4m3", fusion={"scale": "row"})["swap_ab"]
    _exact_twice(m, n, k, "e4m3", 11, 3, rowwise=True)


@pytest.mark.parametrize("shape,dt", [((4944, 256, 28928), "bf16"), ((4377, 256, 22784), "e4m3"),
                                      ((4699, 144, 28272), "bf16"), ((5470, 176, 18624), "e4m3")])
def test_one_column_split_through_gemm(shape, dt):
    """gemm() on shapes where ONE_COLUMN_MAX_N's rule splits K on one 128-row tile column as wide
    as N (N 144-256; M not a multiple of 128): small integers exact, D poisoned first, two calls
    the same bits; rowwise power-of-two scales on e4m3 too."""
    pytest.importorskip("torch")
    from fastswz.cuda import choose_plan

    m, n, k = shape
    c = choose_plan(m, n, k, dt, dt)
    assert (c["bm"], c["bn"], c["swap_ab"]) == (128, -(-n // 16) * 16, False) and c["split_k"] > 1
    _exact_twice(m, n, k, dt, 13, 2, rowwise=dt == "e4m3")


@pytest.mark.parametrize("shape,dt", [((979, 256, 3328), "bf16"), ((548, 512, 6144), "e4m3"),
                                      ((1782, 384, 5120), "bf16"), ((144, 3584, 8960), "e4m3")])
def test_small_tiles_through_gemm(shape, dt):
    """gemm() on shapes where SMALL_TILE_MAX_KTILES' rule runs one pass of 64-row tiles in place
    of a split (BN 40-96, 10-16 stages, register stores or the epilogue tile; M not a multiple of
    64): small integers exact, D poisoned first, two calls the same bits; rowwise power-of-two
    scales on e4m3 too."""
    pytest.importorskip("torch")
    from fastswz.cuda import choose_plan

    m, n, k = shape
    c = choose_plan(m, n, k, dt, dt)
    assert (c["bm"], c["swap_ab"], c["split_k"]) == (64, False, 1)
    _exact_twice(m, n, k, dt, 5, 2, rowwise=dt == "e4m3")


@pytest.mark.parametrize("shape,dt", [((69, 2752, 12224), "e4m3"), ((173, 2304, 15232), "bf16"),
                                      ((132, 11504, 7904), "e4m3"), ((74, 10336, 8496), "bf16"),
                                      ((73, 9984, 12672), "bf16")])
def test_padded_rows_swapped_through_gemm(shape, dt):
    """gemm() on shapes where SWAP_PAD_MAX_FILL's rule runs a plain call swapped (128 rows of N
    by M rounded up to 8; split 6-7 ways, and one pass in place of 192 x 128 and 128 x 80 tiles,
    also with fewer than SWAP_SECTOR_MIN_UNITS tiles: SWAP_PAD_ONE_PASS_MIN_TILES;
    M not a multiple of 8): small integers exact, D poisoned first, two calls the same bits;
    rowwise power-of-two scales on e4m3 too (their plan stays unswapped)."""
    pytest.importorskip("torch")
    from fastswz.cuda import choose_plan, default_config

    m, n, k = shape
    c = choose_plan(m, n, k, dt, dt)
    assert (c["bm"], c["bn"], c["swap_ab"]) == (128, -(-m // 8) * 8, True)
    if dt == "e4m3":
        assert not default_config(m, n, k, dt, dt, fusion={"scale": "row"})["swap_ab"]
    _exact_twice(m, n, k, dt, 7, 2, rowwise=dt == "e4m3")


@pytest.mark.parametrize("shape,dt,bm,bn", [
    ((101, 20256, 17584), "e4m3", 192, 104),   # SWAP_WAVE_BM: 106 tiles of 192 rows, not 159 of 128
    ((77, 16942, 13232), "e4m3", 192, 80),
    ((141, 12576, 4480), "e4m3", 128, 144),    # SWAP_PAD_MIN_KTILES: 35 k-tiles
    ((266, 7936, 22016), "bf16", 128, 136),    # SWAP_LONG_K_ONE_PASS_MAX_BN: two pieces, one pass
    ((79, 10186, 11432), "bf16", 128, 80)])
def test_thirty_fifth_session_swapped_plans_through_gemm(shape, dt, bm, bn):
    """gemm() on shapes where the thirty-fifth session's rules run a plain call swapped in one pass
    (192-row tiles past one wave of 128-row ones; SWAP_PAD_MAX_FILL's plan below 48 k-tiles; the
    long-K pieces in one wave): small integers exact, D poisoned first, two calls the same bits;
    rowwise power-of-two scales on e4m3 too."""
    pytest.importorskip("torch")
    from fastswz.cuda import choose_plan

    m, n, k = shape
    c = choose_plan(m, n, k, dt, dt)
    assert (c["bm"], c["bn"], c["swap_ab"], c["split_k"]) == (bm, bn, True, 1)
    _exact_twice(m, n, k, dt, 7, 2, rowwise=dt == "e4m3")


@pytest.mark.parametrize("shape,rule", [
    ((224, 2528, 18128), "split on a pair"), ((86, 11583, 4848), "64 rows on a pair"),
    ((131, 1024, 6528), "64 rows split 2"), ((70, 896, 20864), "64-row split doubled")])
def test_fp8_rule_plans_through_gemm(shape, rule):
    """gemm() on e4m3 shapes where the twenty-third session's plan rules apply (an 8-bit split
    on a 2-CTA cluster, SPLIT_CLUSTER_MIN_KTILES; a 64-row one-pass plan on the pair,
    SECTOR_CLUSTER_DEEP_MIN_M; a few-tile 64-row plan split 2 ways, DEEP_TILE_FEW_TILES; a 64-row
    split doubled, SPLIT_K_MN_DOUBLE_MAX), unscaled and with rowwise power-of-two scales (the
    rowwise default keeps the plan): small integers exact, D poisoned first, two calls the same
    bits."""
    pytest.importorskip("torch")
    from fastswz.cuda import choose_plan, default_config

    m, n, k = shape
    c = choose_plan(m, n, k, "e4m3", "e4m3")
    want = {"split on a pair": (128, 2, True), "64 rows on a pair": (64, 2, False),
            "64 rows split 2": (64, 1, True), "64-row split doubled": (64, 1, True)}[rule]
    assert (c["bm"], c["cluster_m"], c["split_k"] > 1) == want
    row = default_config(m, n, k, "e4m3", "e4m3", fusion={"scale": "row"})
    keys = ("bm", "bn", "split_k", "cluster_m")
    assert [row[key] for key in keys] == [c[key] for key in keys]
    _exact_twice(m, n, k, "e4m3", 3, 2, rowwise=True)
