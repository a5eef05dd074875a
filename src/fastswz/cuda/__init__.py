"""fastswz's GPU runtime: GEMM kernels built from fastswz plans alone (extra ``cuda``).

``pip install 'fastswz[cuda]'`` (NVIDIA's cuda-core and cuda-bindings, NVRTC). ``import
fastswz`` never imports this package. A configuration (the dict :func:`fastswz.tune` returns,
plus dtypes and majors) becomes a plan (:func:`fastswz.plan_gemm`), the plan becomes a header
(:func:`fastswz.emit_header`), and one kernel source (``fastswz/kernels/gemm_sm90.cu``) compiled
against it with NVRTC becomes a :class:`GemmKernel`; cubins are cached on disk.

Examples
--------
>>> from fastswz.cuda import supported
>>> supported({"bm": 128, "bn": 256, "bk": 64, "stages": 4, "a_dtype": "e4m3",
...            "b_dtype": "e4m3", "bk": 128})
>>> supported({"a_major": "MN", "a_dtype": "e4m3", "b_dtype": "e4m3"})[:10]
'A: dtype /'
"""

from __future__ import annotations

import concurrent.futures
import math
import os
import sys

from ..errors import PlanError
from .errors import CudaError, CudaUnavailableError, GemmArgumentError
from . import codegen, tuned as _tuned
from .codegen import GEMM_KEYS, OUT_DTYPES, dtype_bits, kernel_sources, normalize_config, supported

__all__ = ["gemm", "compile_gemm", "compile_many", "supported", "kernel_sources", "GemmKernel",
           "device_info", "device_key", "choose_plan", "CudaError", "CudaUnavailableError",
           "GemmArgumentError", "KERNEL_VERSION", "GEMM_KEYS", "OUT_DTYPES", "normalize_config",
           "EPILOGUE_MIN_STAGES", "EPILOGUE_BLOCK_N", "EPILOGUE_BLOCK_STAGES", "FUSED_EPILOGUE_STAGES",
           "BLOCK_SCALE_RING_MAX_KTILES", "BLOCK_SCALE_192_MIN_KTILES", "BLOCK_SCALE_WIDTHS", "BLOCK_SCALE_WIDTHS_SHORT", "ROWWISE_ONE_PASS_MAX_M", "ROWWISE_ONE_PASS_MIN_FILL", "ROWWISE_SHORT_KTILES",
           "default_out_dtype", "SWAP_AB_MAX_M", "SPLIT_K_FILL", "SPLIT_K_MIN_KTILES", "SPLIT_K_MAX",
           "SPLIT_K_TILE", "SPLIT_K_MIN_KTILES_MN", "SPLIT_K_SWAP_M", "WIDE_SPLIT_FLOP_PER_BYTE",
           "WIDE_SPLIT_MIN_KTILES", "FULL_WIDTH_BK",
           "split_k_splits", "choose_block_scaled_plan", "default_config",
           "search_plans", "sweep_problems", "load_tuned", "use_tuned", "TunedTable", "stages_a"]

#: Changes whenever the kernel source or its generated headers change meaning (cache keys).
KERNEL_VERSION = "sm90-ws-persistent-3"   # 2: work units (swap-AB, split-K, ping-pong), static_for register epilogue; 3: the plan tables in the constant bank


def __getattr__(name):
    # The driver-backed names load cuda.bindings only when used.
    if name in ("GemmKernel", "device_info", "device_key"):
        from . import runtime
        return getattr(runtime, name)
    if name in ("load_tuned", "use_tuned", "TunedTable"):
        return getattr(_tuned, name)
    if name == "search_plans":
        from .search import search_plans
        return search_plans
    if name == "sweep_problems":
        from .sweep import sweep_problems
        return sweep_problems
    raise AttributeError(name)


def compile_gemm(config=None, **overrides):
    """A :class:`GemmKernel` for a configuration (NVRTC; cached on disk and in this process; no
    GPU needed).

    Parameters
    ----------
    config : dict, optional
        Plan fields (:data:`GEMM_KEYS`): ``bm``, ``bn``, ``bk``, ``stages``, ``a_dtype``,
        ``b_dtype``, ``a_major``, ``b_major``, ``swizzle_a``, ``swizzle_b``, ``out_dtype``,
        ``epilogue`` (True: registers -> the plan's swizzled shared-memory epilogue tile ->
        TMA store; False: registers -> global memory). Rows of :func:`fastswz.tune` fit.
    **overrides
        The same fields as keywords.
    """
    from .runtime import GemmKernel, compile_cubin

    c = normalize_config(config, **overrides)
    key = tuple(c[k] for k in GEMM_KEYS)
    kern = _KERNELS.get(key)
    if kern is None:
        # one kernel object per configuration in this process: its modules are loaded once per
        # GPU, so repeated calls neither read the disk cache nor load a module again
        cubin, ck, meta = compile_cubin(c, meta=True)
        kern = _KERNELS.setdefault(key, GemmKernel(c, cubin, ck, meta))
    return kern


_KERNELS = {}


def compile_many(configs, out_dtype=None, jobs=None, progress=False):
    """Compile many configurations in parallel (threads: NVRTC releases the GIL).

    A configuration that fails to compile gives its exception in place of a kernel, so one bad
    plan does not stop a search."""
    configs = [normalize_config(c, **({} if out_dtype is None else {"out_dtype": out_dtype}))
               for c in configs]
    jobs = jobs or max(1, os.cpu_count() or 1)
    out = [None] * len(configs)

    def one(i):
        try:
            return i, compile_gemm(configs[i])
        except (CudaError, PlanError) as e:
            return i, e

    with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        for done, (i, r) in enumerate(ex.map(one, range(len(configs)))):
            out[i] = r
            if progress:
                print(f"\rfastswz: compiled {done + 1}/{len(configs)}", end="", file=sys.stderr, flush=True)
    if progress and configs:
        print(file=sys.stderr)
    return out


#: The fewest pipeline stages :func:`choose_plan` keeps when it makes room for the shared-memory
#: epilogue tile: on the H100, 128x256 tiles with the tile and 2 stages ran 21-66% slower than the
#: best plan storing from registers, with the tile and 3 stages up to 15% faster
#: (benchmarks/data/tune_h100_epilogue.json; BENCHMARKS.md, part 4).
EPILOGUE_MIN_STAGES = 3
#: The epilogue :func:`choose_plan` tries first where BN allows (a multiple of 64 above 64):
#: 64-column blocks through one shared-memory tile, then the whole BM x BN tile, then the blocks
#: through 2 tiles. Measured on an H200 (tests/gpu/tune/collect.py, every candidate of 27 corpus
#: problems, docs/conformance/h200-2026-11-26-fit): the blocks through one tile were the best
#: epilogue of their tile on 15 of the 20 problems whose winner had BN >= 128 (a multiple of
#: 64), including the longest (bf16 and e4m3 8192^3, 16384 x 5120 x 12288), where the whole
#: tile with 3 stages ran 2.5-4.7% slower and the blocks through 2 tiles up to 15% slower; the
#: earlier rule (blocks through 2 tiles first, measured on the H100 against the whole tile
#: only) lost 2-12% there.
EPILOGUE_BLOCK_N, EPILOGUE_BLOCK_STAGES = 64, 1
#: Epilogue tiles of a fused epilogue's default plan (default_config: bias, activation, residual,
#: amax, fp8 output or block scales; scales alone keep choose_plan's): on an H100 (BENCHMARKS.md,
#: issue 28, eleventh session; tests/gpu/gemm/ab_configs.py) two tiles made the 128 x 256 bias +
#: GELU + e4m3 plan 1.2-3.0% faster than one on all six shapes timed, in turn.
FUSED_EPILOGUE_STAGES = 2
#: A whole-tile epilogue of BN above this (240 or 248: no 64-column blocks) that leaves the ring
#: :data:`EPILOGUE_MIN_STAGES` stages, on K of at most :data:`ROUND_UP_BN_MAX_KTILES` k-tiles, is
#: replaced by the same BM x 256 tile through 64-column blocks with one stage more: on short K the
#: third stage short of a ring the next tile's loads barely start in cost more than the wider
#: tile's padding. Measured on an H100 (``tests/gpu/gemm/probe.py`` set v20 found it, v22 timed
#: 128 x 256 beside every 128 x 240 default of the corpus and seeds 1-7, v24 the final rule;
#: docs/conformance/2026-11-28-seventeenth-session): with at most 21 k-tiles 128 x 256 was as fast
#: or faster on all 28 problems of v22 (1.00-1.36x), with 22 or more 0.88-1.02x (kept); in v24
#: 1.08x on seeds 1-5 (21 problems, none slower by 3%), 1.08x on seeds 6-7 and the corpus, 1.05x on
#: seed 8; 3425 x 32576 x 352 e4m3 165.3 -> 121.6 us (cuBLAS 125.5), 9248 x 3648 x 1184 e4m3
#: 100.6 -> 83.4 (78.5).
ROUND_UP_BN_ABOVE = 232
#: On K of at most this many k-tiles a plan of BN >= :data:`SHORT_K_TWO_TILES_BN` stores its
#: 64-column epilogue blocks through two shared-memory tiles where they fit at the same stage count
#: (one tile elsewhere, :data:`EPILOGUE_BLOCK_STAGES`): with a few k-tiles per output tile the
#: epilogue is a large share of the time, and a second tile lets a block's store overlap the next
#: block's writes. Measured on an H100 (``tests/gpu/gemm/probe.py`` case file
#: ``probe_cases_v25.json``: every 128 x 256 default of the corpus and eight fresh seeds with at
#: most 16 k-tiles, 107 problems, one run; docs/conformance/2026-11-28-seventeenth-session run 6):
#: two tiles 1.047x in geometric mean on the 62 with at most 8 k-tiles, 39 faster by more than
#: 3%, none slower (deepseek-v3 kv_b 2048 x 32768 x 512 e4m3 84.2 -> 74.9 us, cuBLAS 81.8); 1.029x
#: with 9-16, two slower (0.93x, 0.97x: kept out). 128 x 160 and ping-pong 128 x 128 in the same
#: run: 0.95x.
SHORT_K_TWO_TILES_KTILES = 8
#: The narrowest tile of :data:`SHORT_K_TWO_TILES_KTILES`' rule (only 128 x 256 was timed).
SHORT_K_TWO_TILES_BN = 256
#: A plain call's plan (no fused epilogue: :func:`choose_plan`'s own answer) where
#: :data:`SHORT_K_TWO_TILES_KTILES`' rule stores a 128 x 256 tile's 64-column blocks, with 8-bit
#: K-major operands whose rows are on the 32-byte sector and K of at least
#: :data:`SHORT_K_WHOLE_TILE_MIN_KTILES` whole 128-byte k-tiles and at most this many k-tiles, stores
#: through one tile of the whole BM x BN instead, at the most stages that fit beside it (3 for an
#: fp8 128 x 256 tile; :func:`_short_k_whole_tile`): with 2-4 k-tiles per output tile the four
#: blocks, each waiting for the store two blocks back, took longer than one store of the whole
#: tile. Measured on an H200 (``tests/gpu/gemm/probe.py`` sets v55 and v56, docs/conformance/
#: 2026-11-29-twenty-fourth-session runs 3-4): in v55 (the corpus's, seeds 1-8's and 20 drawn
#: short-K problems) the whole tile at 3 stages was faster on 16 of the 17 e4m3 problems in the
#: rule, 1.02-1.16x (5526 x 4864 x 256 25.9 -> 22.4 us); rows off the sector lost (10980 x 30336 x
#: 272, 0.80x), and bf16 with 4 k-tiles of 64 (0.90-1.01x). v56 held it out: the 15 problems of
#: the corpus and seeds it changes 1.077x in geometric mean, none slower by 3%; 30 drawn 1.016x,
#: 0.98x where K held under two whole k-tiles (96-192), 1.032x over the 16 with K >= 256 (two
#: 0.96x; this floor was set after v56). The rowwise-scaled calls of the same corpus problems
#: (deepseek-v3 kv_b, K 512) ran 0.69-0.83x on the whole tile (run 4), so fused epilogues keep
#: the blocks (:func:`default_config` asks :func:`_chosen` for the plan without it).
SHORT_K_WHOLE_TILE_KTILES = 4
#: The fewest whole 128-byte k-tiles of K (K bytes // 128) of :data:`SHORT_K_WHOLE_TILE_KTILES`' rule.
SHORT_K_WHOLE_TILE_MIN_KTILES = 2


#: A plain call whose one-pass unswapped default covers ``128 < N <= ONE_COLUMN_MAX_N`` in two or
#: more tile columns splits K on one 128-row tile column as wide as N instead (BN N rounded up to
#: 16), where those tiles fill at most :data:`SPLIT_K_FILL` of the SMs, each split keeps
#: :data:`WIDE_SPLIT_MIN_KTILES` k-tiles and tiles x splits are at least
#: :data:`ONE_COLUMN_MIN_UNITS`: each column of a narrower tile reads all of A again, and with N
#: this small A is nearly all the bytes. Found on 4944 x 256 x 28928 bf16 (128 x 96 one pass
#: 159-161 us; 128 x 256 split 3 ways 113.8-114.4, cuBLAS 110-112: probe sets v34, v53) and 4377
#: x 256 x 22784 e4m3 (v64: 62.0 -> 51.3 us, cuBLAS 50.2). Held out on an H200 (set v66,
#: docs/conformance/2026-11-29-twenty-sixth-session run 3; those two and 40 drawn, seed
#: 20261307, the rule without the unit floor): 1.216x in geometric mean, 33 faster by more than
#: 3%, 5 slower, up to 1.85x (4699 x 144 x 28272 bf16 154.7 -> 83.5 us, cuBLAS 86.3).
ONE_COLUMN_MAX_N = 256
#: The fewest work units (tiles x splits) of :data:`ONE_COLUMN_MAX_N`'s split: in v66 the five
#: with 46-64 units (split 2 ways with 68-94 k-tiles, most in place of deep 64-row one-pass plans
#: of 90-126 tiles) ran 0.615-1.12x (0.89x in geometric mean), the 37 with 82-129 units 1.27x;
#: the floor is SWAP_SECTOR_MIN_UNITS' (fitted on v66; held out by v67).
ONE_COLUMN_MIN_UNITS = 80


def _unswapped_one_cta(c):
    """Whether ``c`` runs unswapped on single CTAs with cooperative consumers (no swap-AB,
    stream-K, ping-pong or cluster): the defaults the plain calls' replacing rules start from."""
    return (not c["swap_ab"] and not c["stream_k"] and not c["pingpong"]
            and c["cluster_m"] == 1 and c["cluster_n"] == 1)


def _one_column(c, m, n, k):
    """The split on one tile column of :data:`ONE_COLUMN_MAX_N`'s rule in place of ``c`` where
    the rule applies, else ``c``."""
    if not (128 < n <= ONE_COLUMN_MAX_N and c["split_k"] == 1 and -(-n // c["bn"]) >= 2
            and _unswapped_one_cta(c)
            and _k_major_bits(c["a_dtype"], c["b_dtype"], c["a_major"], c["b_major"]) in (8, 16)):
        return c
    wide = _split_on(m, n, k, c["a_dtype"], c["b_dtype"], c["a_major"], c["b_major"], c["out_dtype"], 128,
                     -(-n // 16) * 16, WIDE_SPLIT_MIN_KTILES)
    if wide is None or -(-m // 128) * wide["split_k"] < ONE_COLUMN_MIN_UNITS:
        return c
    return wide


def _short_k_whole_tile(c, m, n, k):
    """``c`` through one whole-tile epilogue buffer where :data:`SHORT_K_WHOLE_TILE_KTILES`' rule
    asks for it, else ``c``."""
    k_tiles = -(-k // c["bk"])
    if not (c["epilogue"] and (c["bm"], c["bn"]) == (128, 256) and c["epilogue_n"] == EPILOGUE_BLOCK_N
            and not c["pingpong"] and not c["swap_ab"] and c["split_k"] == 1
            and SHORT_K_WHOLE_TILE_MIN_KTILES <= k // 128 and k_tiles <= SHORT_K_WHOLE_TILE_KTILES
            and k_tiles <= SHORT_K_TWO_TILES_KTILES
            and _k_major_bits(c["a_dtype"], c["b_dtype"], c["a_major"], c["b_major"]) == 8
            and not _off_sector(m, n, k, c["a_dtype"], c["b_dtype"], c["a_major"], c["b_major"])):
        return c
    for stages in range(c["stages"], EPILOGUE_MIN_STAGES - 1, -1):
        whole = dict(c, stages=stages, epilogue_n=0, epilogue_stages=1)
        if supported(whole) is None:
            return whole
    return c


#: A plain call's plan (:func:`choose_plan`'s own answer, no fused epilogue) of 8-bit K-major
#: operands whose rows, as ``gemm`` reads them, are 16 bytes off the 32-byte sector, with
#: ``SWAP_AB_MAX_M < M <=`` this and at least :data:`SWAP_SECTOR_MIN_KTILES` 128-byte k-tiles,
#: where the other rules give an unswapped plan on one CTA (a one-pass 64-row tile, or a tile of
#: 128 rows or more, one pass or split), runs swapped instead: 128 rows of
#: N by M rounded up to 8, K split to about one wave (at most ``132 // tiles`` splits, 8 k-tiles a
#: split, 16 splits), the deepest ring up to :data:`DEEP_TILE_MAX_STAGES`, D from registers
#: (:func:`_sector_swap`), where those tiles and splits make at least
#: :data:`SWAP_SECTOR_MIN_UNITS` work units. The 64-row tiles' two or more tile rows each re-read
#: B's rows, and a 128-byte row segment 16 bytes off the sector spans five sectors, not four; the
#: swapped tile covers M, so B's rows are read once (and where 128-row tiles pad M up to 128, it
#: pads M to 8). Measured on an H200 (``tests/gpu/gemm/probe.py`` sets v58-v61,
#: docs/conformance/2026-11-29-twenty-fifth-session): v58 (216 one-pass problems of
#: the corpus and seeds 1-10 with M 17-512 on two or more tile rows) found the swapped split
#: 1.11-1.36x faster on four e4m3 problems off the sector (144 x 5792 x 13552 53.1 -> 39.1 us,
#: cuBLAS 32.6) and 0.91x on two; v59 held that region out on 40 drawn: 1.091x in geometric mean,
#: 11 slower by > 3%, all of them defaults already on a 2-CTA sector cluster
#: (:data:`SECTOR_CLUSTER_WAVES`; 0.80-1.01x) or with K of at most 6016 (47 k-tiles); over v58 and v59 the
#: 18 with neither 1.273x (16 faster, one 0.94x). v60 held the rule out on 40 more drawn: 1.202x,
#: 35 faster by > 3%, none slower by > 3% (the least 0.986x). v61 then timed the same plan, as
#: stated before it ran, on the defaults of 128 rows or more the rule had left (one pass or split):
#: 40 drawn 1.071x, 21 faster by > 3%, 4 slower (0.89-0.96x; 68 x 7488 x 12400 on 128 x 128 split
#: 2 ways 1.22x), so those take it too.
SWAP_SECTOR_MAX_M = 256
#: The fewest 128-byte k-tiles of :data:`SWAP_SECTOR_MAX_M`'s rule.
SWAP_SECTOR_MIN_KTILES = 48
#: The fewest work units (swapped tiles x splits) of :data:`SWAP_SECTOR_MAX_M`'s rule.
SWAP_SECTOR_MIN_UNITS = 80
#: The least BM of the defaults (one pass or split) that :data:`SWAP_SECTOR_MAX_M`'s rule replaces
#: beside the one-pass 64-row ones (v61; 1 << 30 leaves only those).
SWAP_SECTOR_WIDE_BM = 128
#: The most K splits of :data:`SWAP_SECTOR_MAX_M`'s swapped plan: where its split would be
#: larger (few tiles of N: 132 // tiles above 8, and long K) the rule leaves the default. Measured
#: on an H200 (``tests/gpu/gemm/probe.py`` sets v63 and v65,
#: docs/conformance/2026-11-29-twenty-sixth-session runs 2-3): on v61's losing kind (split
#: defaults with 128 < M <= 256, 40 drawn and one seed problem) the swapped plan ran 0.911x of the
#: split before it where it split 9-14 ways (26 problems) and 1.085x at 6-8 ways (15); every
#: problem of v60 and v61 but four split at most 8 ways. Held out by v65 (40 drawn where today's
#: swapped plan splits 9-14 ways, seed 20261306): the plan the cap leaves 1.10x faster in
#: geometric mean, 33 faster by more than 3%, none slower by more than 2%.
SWAP_SECTOR_MAX_SPLIT = 8


def _sector_swap(c, m, n, k):
    """The swapped split plan of :data:`SWAP_SECTOR_MAX_M`'s rule in place of ``c`` where the
    rule applies, else ``c``."""
    k_tiles = -(-k // 128)
    if not (SWAP_AB_MAX_M < m <= SWAP_SECTOR_MAX_M and k_tiles >= SWAP_SECTOR_MIN_KTILES
            and ((c["bm"] == 64 and c["split_k"] == 1) or c["bm"] >= SWAP_SECTOR_WIDE_BM)
            and _unswapped_one_cta(c)
            and _k_major_bits(c["a_dtype"], c["b_dtype"], c["a_major"], c["b_major"]) == 8
            and _off_sector(m, n, k, c["a_dtype"], c["b_dtype"], c["a_major"], c["b_major"])):
        return c
    return _swapped_pieces_plan(c, m, n, k, 128) or c


#: Where :func:`_swapped_pieces_plan`'s swapped plan runs in one pass on more tiles (128 rows of
#: N) than the SMs, but tiles of this many rows of N would fit in one wave, its tiles take this
#: many rows (three consumer warpgroups): seed 24's 101 x 20256 x 17584 e4m3 ran 159 tiles of
#: 128 x 104, 1.2 waves, at 0.74x cuBLAS's speed. Measured on an H200 (``tests/gpu/gemm/probe.py``
#: set v86, docs/conformance/2026-11-29-thirty-fifth-session run 2: 40 problems drawn where the
#: default is that one pass over more than a wave, the first 20 to fit, the last 20 held out, as
#: stated before the run): on the fitted, 192 rows 1.18-1.43x faster on all 8 whose 192-row tiles
#: fit one wave, 0.75-0.84x on the 12 whose do not; held out, 1.10-1.42x faster on all 9 where
#: the rule applies (the 11 others 0.73-0.85x, which it leaves). Held out again by v88 (run 5: 22
#: problems drawn where the rule changes the plan, against the plan before it, clusters of four
#: included): **1.260x** in geometric mean, all 22 faster by > 3% (1.135-1.538x). 0 turns the rule
#: off.
SWAP_WAVE_BM = 192


def _swapped_pieces_plan(c, m, n, k, bk, one_pass_min_tiles=0):
    """:func:`_swap_pieces`' swapped split of ``bk`` k-tiles for ``c``'s operands where it makes at
    least :data:`SWAP_SECTOR_MIN_UNITS` work units (or, given ``one_pass_min_tiles``, is one pass
    of at least that many tiles: :data:`SWAP_PAD_ONE_PASS_MIN_TILES`) in at most
    :data:`SWAP_SECTOR_MAX_SPLIT` splits, on :data:`SWAP_WAVE_BM` rows of N where that rule asks,
    else None (the plan of :data:`SWAP_SECTOR_MAX_M`'s and :data:`SWAP_PAD_MAX_FILL`'s rules)."""
    from ..tune import DEFAULT_SMS

    pieces, bn, tiles, split = _swap_pieces(m, n, k, bk)
    split = max(1, split)
    one_pass = split == 1 and 0 < one_pass_min_tiles <= tiles
    if (tiles * split < SWAP_SECTOR_MIN_UNITS and not one_pass) or split > SWAP_SECTOR_MAX_SPLIT:
        return None
    sms = DEFAULT_SMS["sm90"]
    if SWAP_WAVE_BM and split == 1 and tiles > sms and -(-n // SWAP_WAVE_BM) * pieces <= sms:
        deep = _swapped_split(bn, bk, 1, c["a_dtype"], c["b_dtype"], c["a_major"], c["b_major"],
                              c["out_dtype"], bm=SWAP_WAVE_BM)
        if deep is not None:
            return deep
    return _swapped_split(bn, bk, split, c["a_dtype"], c["b_dtype"], c["a_major"], c["b_major"],
                          c["out_dtype"])


#: A plain call whose plan, after the other rules, is unswapped on one CTA with tiles of at least
#: 128 rows and at most :data:`SWAP_PAD_MAX_BN` columns, on 8- or 16-bit K-major operands whose
#: rows (K) are a multiple of 32 bytes as the caller holds them, with ``SWAP_AB_MAX_M < M <=``
#: :data:`SWAP_SECTOR_MAX_M` and at least :data:`SWAP_PAD_MIN_KTILES` 128-byte k-tiles, runs
#: :data:`SWAP_SECTOR_MAX_M`'s swapped split instead (128 rows of N by M rounded up to 8, K split
#: to about one wave, the same bounds on units and splits) where its tile rows cover M less than
#: this share (M / (BM ceil(M / BM))): 78 x 12544 x 28224 e4m3 ran one 128 x 96 tile row, 61% of
#: it inside M, at 0.67x cuBLAS's speed; swapped (128 x 80) 1.44x faster. Measured on an H200
#: (``tests/gpu/gemm/probe.py`` sets v73 and v74, docs/conformance/2026-11-29-thirty-second-session
#: run 2: the swapped split beside every default of the corpus and seeds 1-16 in SWAP_SECTOR_MAX_M's
#: region with rows on the sector, and 80 drawn per type): with BN <= 128 and the tile rows under
#: 85% inside M, 61 problems 1.16x faster in geometric mean (e4m3 1.15x, 27 of 32 faster by > 3%,
#: none slower; bf16 1.18x, 24 of 29, one 0.95x); on wider tiles (BN 144-256) 0.86x, with 85-90%
#: inside M mixed (0.88-1.08x), and with 90% or more 0.97x. Held out by v75 (run 3). 0 turns the
#: rule off.
SWAP_PAD_MAX_FILL = 0.85
#: The widest default tile (BN) :data:`SWAP_PAD_MAX_FILL`'s rule replaces.
SWAP_PAD_MAX_BN = 128
#: :data:`SWAP_PAD_MAX_FILL`'s rule also takes its swapped plan unsplit where the pieces make at
#: least this many tiles but fewer than :data:`SWAP_SECTOR_MIN_UNITS` and one pass (split 1) is
#: what the wave gives them (``SMs // tiles``). Seed 22's 73 x 9984 x 12672 bf16 (78 tiles) ran its
#: unswapped 128 x 80 default at 0.64x cuBLAS's speed. Measured on an H200 (``tests/gpu/gemm/probe.py``
#: set v84, docs/conformance/2026-11-29-thirty-fourth-session run 7: 60 problems drawn into the
#: region, 75-79 tiles, the first 30 fitting and the last 30 held out, as stated before the run):
#: the swapped plan in one pass 1.558x the default in geometric mean on the 30 fitted (all faster by
#: > 3%, the least 1.22x), 1.615x on the 30 held out (all faster, the least 1.29x); split 2 or 3
#: ways 1.18-1.44x. 73 x 9984 x 12672 bf16 115.1 -> 69.0 us (cuBLAS 77.0). 0 turns it off.
SWAP_PAD_ONE_PASS_MIN_TILES = 75
#: The fewest 128-byte k-tiles of :data:`SWAP_PAD_MAX_FILL`'s rule (it asked for
#: :data:`SWAP_SECTOR_MIN_KTILES`, 48, until seed 23's 141 x 12576 x 4480 e4m3, 35 k-tiles, ran its
#: unswapped default at 0.74x cuBLAS's speed and the swapped 128 x 144 at 0.91x). Measured on an
#: H200 (``tests/gpu/gemm/probe.py`` set v87, docs/conformance/2026-11-29-thirty-fifth-session
#: run 2: 40 problems drawn into the rule's region with 16-47 k-tiles, the first 20 to fit, the
#: last 20 held out, as stated before the run): the swapped plan 1.135x the default in geometric
#: mean on the fitted (16 faster by > 3%, none slower), 1.145x held out (19 faster, none slower;
#: 0.99-1.30x), 1.146x on the 4 corpus and seed problems there. Held out again by v88 (run 5: 18
#: problems drawn where the rule changes the plan, against the plan before it): **1.120x**, 15
#: faster by > 3%, one slower (157 x 14851 x 3456 e4m3, 0.939x).
SWAP_PAD_MIN_KTILES = 16


def _pad_swap(c, m, n, k):
    """The swapped split of :data:`SWAP_PAD_MAX_FILL`'s rule in place of ``c`` where the rule
    applies, else ``c``."""
    bits = _k_major_bits(c["a_dtype"], c["b_dtype"], c["a_major"], c["b_major"])
    if not (SWAP_AB_MAX_M < m <= SWAP_SECTOR_MAX_M and bits in (8, 16) and k * bits // 8 % 32 == 0
            and -(-k * bits // 8 // 128) >= SWAP_PAD_MIN_KTILES and _unswapped_one_cta(c)
            and c["bm"] >= 128 and c["bn"] <= SWAP_PAD_MAX_BN
            and m < SWAP_PAD_MAX_FILL * c["bm"] * -(-m // c["bm"])):
        return c
    return _swapped_pieces_plan(c, m, n, k, 1024 // bits, SWAP_PAD_ONE_PASS_MIN_TILES) or c


#: A plain call whose plan, after the other rules, runs whole tiles of at most this many rows
#: (the kernel's: N's with swap-AB) in one pass on single CTAs with cooperative consumers, on 8- or
#: 16-bit K-major operands whose rows (K), as ``gemm`` reads them, end off the 128-byte line, with at
#: least :data:`QUAD_CLUSTER_MIN_KTILES` k-tiles and at least 4 tile rows, runs on clusters of 4
#: CTAs along M (``cluster_m=4``: four tile rows share B, each CTA loading a quarter of its boxes and
#: multicasting it) at the deepest ring up to 16 stages, where the padding the clusters add to the
#: tile rows stays within :data:`QUAD_CLUSTER_MIN_FILL` and the clusters need no more waves of
#: :data:`QUAD_CLUSTER_SLOTS` than the tiles need of 132 SMs. cuBLAS runs such problems on clusters
#: of 4-8 CTAs (2035 x 272 x 6928 bf16: nvjet's 64 x 96 tiles on a 1 x 4 cluster, 17.6 us against
#: our 27.8 on the same tiles). Measured on an H200 (docs/conformance/
#: 2026-11-29-thirty-third-session runs 3-4, ``tests/gpu/gemm/probe.py`` sets v77-v78): on the 123
#: corpus and seed problems under 0.85x of cuBLAS's speed the 4 x 1 cluster lost 0.66x over all 74
#: it ran (beyond one wave of clusters, with 1-3 tile rows, beside splits) and won where these
#: bounds hold; on all 189 corpus and seed problems the rule's first form changed (any rows, at
#: least 16 k-tiles), rows on the 128-byte line lost at every size (0.94x, 71 of 111 slower: a
#: cluster launch costs about 1 us more), rows off it with at least 48 k-tiles won (40 problems
#: 1.09x), of them the 22 whose rows gemm reads in place (16-byte multiples: the others it stages
#: to whole lines) 1.053x, 9 faster by > 3%, 3 slower (0.92-0.93x): 2035 x 272 x 6928 bf16 31.0 ->
#: 24.7 us (cuBLAS 20.2), 2200 x 304 x 4336 bf16 1.27x, 210 x 6992 x 6896 bf16 1.17x, 13791 x 368 x
#: 24416 e4m3 1.09x. Held out by v79 (run 5). 0 turns the rule off.
QUAD_CLUSTER_MAX_BM = 128
#: The fewest k-tiles of :data:`QUAD_CLUSTER_MAX_BM`'s rule (with 16-47 the rows off the line ran
#: 0.94x: 38 problems, 24 slower).
QUAD_CLUSTER_MIN_KTILES = 48
#: The least share of the clusters' tile rows inside the tile rows (tm / (4 ceil(tm / 4))) of
#: :data:`QUAD_CLUSTER_MAX_BM`'s rule: 100 x 1136 x 3408 e4m3 (2 tile rows of 4) ran 0.88x.
QUAD_CLUSTER_MIN_FILL = 0.75
#: The 4-CTA clusters of a 1-CTA-per-SM GEMM resident at once on a 132-SM Hopper (H200: timings
#: that double past 30 clusters in probe set v72, as cuOccupancyMaxActiveClusters limits the grid).
QUAD_CLUSTER_SLOTS = 30


def _quad_cluster(c, m, n, k):
    """``c`` on clusters of 4 CTAs along M where :data:`QUAD_CLUSTER_MAX_BM`'s rule asks for
    them, else ``c``."""
    from ..tune import DEFAULT_SMS

    if not (c["bm"] <= QUAD_CLUSTER_MAX_BM and c["split_k"] == 1 and not c["stream_k"] and not c["pingpong"]
            and c["cluster_m"] == 1 and c["cluster_n"] == 1
            and _k_major_bits(c["a_dtype"], c["b_dtype"], c["a_major"], c["b_major"]) in (8, 16)
            and _rows_off(m, n, k, c["a_dtype"], c["b_dtype"], c["a_major"], c["b_major"], 128)
            and -(-k // c["bk"]) >= QUAD_CLUSTER_MIN_KTILES):
        return c
    rows, cols = (n, m) if c["swap_ab"] else (m, n)
    tm, tn = -(-rows // c["bm"]), -(-cols // c["bn"])
    padded = 4 * -(-tm // 4)
    clusters = padded // 4 * tn
    if tm < 4 or tm < QUAD_CLUSTER_MIN_FILL * padded or \
            -(-clusters // QUAD_CLUSTER_SLOTS) > -(-(tm * tn) // DEFAULT_SMS["sm90"]):
        return c
    return _deepest_ring(lambda stages: normalize_config(dict(c, cluster_m=4, stages=stages)),
                         least=c["stages"], most=16) or c


#: The most k-tiles of :data:`ROUND_UP_BN_ABOVE`'s rule.
ROUND_UP_BN_MAX_KTILES = 21
#: Block-scaled calls with at most this many k-tiles take the plan whose scales go through
#: shared memory (the producer's second warp copies each k-tile's scales into its stage's slot,
#: the consumers read theirs with ld.shared; ``fusion.scale_ring``), with the most stages that
#: leave room for the slots (5 beside the 128 x 128 epilogue tile instead of 6). Longer K keeps
#: the 6-stage plan and the consumers' global loads, which since the twenty-ninth session come
#: under the wgmma. H200, that plan against the slots' 5 stages (docs/conformance/
#: 2026-11-29-twenty-ninth-session run 4, tests/gpu/gemm/ab_configs.py): 1.030-1.033x with 12 and 16
#: k-tiles (4096 x 24576 x 1536, 4096 x 7168 x 2048 at BN 128, 2048 x 7168 x 2048), 0.987x with 8
#: (8192 x 2048 x 1024). (Before, on an H100 against the same 5 stages with the loads: 1.03-1.05x
#: at 12 and 16 k-tiles, docs/conformance/2026-11-27-fourteenth-session runs 7, 8 and 11.)
BLOCK_SCALE_RING_MAX_KTILES = 8
#: Block-scaled calls choose the tile width among these (each tile then spans one or two of B's
#: 128-column scale blocks: codegen.scale_b_blocks) by a wave model: ceil(tiles / SMs) waves of
#: BN columns each, times the width's cost per column: with at least
#: :data:`BLOCK_SCALE_192_MIN_KTILES` k-tiles these, with fewer :data:`BLOCK_SCALE_WIDTHS_SHORT`.
#: The costs per column relative to BN 128, refitted on an H200 once BN 128's loads came under the
#: wgmma (docs/conformance/2026-11-29-twenty-ninth-session run 4): BN 160 (5 stages, slots)
#: against BN 128 (6 stages) 361.4 us in 11 waves and 339.7 in 14 at 4096 x 7168 x 7168 (1.083
#: per column); BN 192 (5 stages) 113.7 us in 3 waves and 123.2 in 5 at 4096 x 2112 x 7168,
#: 89.3 and 86.7 in 6 and 9 at 6144 x 3072 x 2560 (1.025 and 1.030). Held out (runs 5 and 6:
#: the fifteen of the twenty-seventh session's shapes, 28-128 k-tiles, where the refit changed
#: the plan): 1.048x the first fit's BN 160 or 192 in geometric mean, 1.000-1.143x.
BLOCK_SCALE_WIDTHS = {128: 1.0, 160: 1.07, 192: 1.03}
#: :data:`BLOCK_SCALE_WIDTHS` with fewer k-tiles (the first fit's, twenty-seventh session run 1):
#: there the slots' BN 160 stays cheap. Run 5 of the twenty-ninth session, BN 128 (6 stages)
#: against BN 160 (slots) where :data:`BLOCK_SCALE_WIDTHS` would have moved it: 0.909-1.014x on
#: six problems of 10-16 k-tiles (2709 x 2496 x 1360 0.909x, 2372 x 15440 x 1648 0.918x: a
#: quarter fewer waves on BN 160).
BLOCK_SCALE_WIDTHS_SHORT = {128: 1.0, 160: 0.99}
#: BN 192 (and :data:`BLOCK_SCALE_WIDTHS`) only from this many k-tiles: with 12-16 k-tiles it lost
#: 3-5% (H200, docs/conformance/2026-11-29-twenty-seventh-session run 1).
BLOCK_SCALE_192_MIN_KTILES = 17
#: :data:`BLOCK_SCALE_WIDTHS`' rule leaves BN 128 with at most this many k-tiles. Run 2 of the
#: twenty-seventh session (12 held-out DeepSeek-V3 shapes): the wide plans 1.114x the BN 128 ones in
#: geometric mean, 10 faster by 2-56%, the two with 4 k-tiles (6144 and 8192 x 32768 x 512, BN
#: 160) 0.945x.
BLOCK_SCALE_WIDE_MIN_KTILES = 8
#: Rowwise-scaled calls (``scale="row"``) with ``64 < M <= ROWWISE_ONE_PASS_MAX_M`` whose unscaled
#: problem's plan splits K on 128-row tiles (the long-K rows of :data:`DEEP_TILE_MAX_M`'s rule) run
#: in one pass instead where those 64-row tiles fill at least :data:`ROWWISE_ONE_PASS_MIN_FILL` of
#: the SMs: the same tile cut to 64 rows, :data:`DEEP_TILE_MAX_STAGES` stages. Their
#: split-K reduction also applies the scales. Measured on an H100 (``tests/gpu/gemm/ab_configs.py``
#: with ``ab_rowwise_m128_*``, docs/conformance/2026-11-27-thirteenth-session/run6): 1.10-1.15x on
#: the five rowwise corpus problems of M = 128 that split (128 x 7168 x 16384 63.7 -> 55.5 us,
#: 128 x 8192 x 29568 107.2 -> 97.7), four of which ran 4-6% slower than ``torch._scaled_mm``
#: rowwise; the reduction in the last CTA instead gained 1.01-1.06x. Unscaled problems keep the
#: split: on an H200 it was 6-34% faster than 64-row tiles at K above :data:`DEEP_TILE_MAX_K`.
ROWWISE_ONE_PASS_MAX_M = 128
#: The least share of the SMs that :data:`ROWWISE_ONE_PASS_MAX_M`'s 64-row tiles fill (the five
#: problems measured filled 61-97%: 80-128 tiles on 132 SMs).
ROWWISE_ONE_PASS_MIN_FILL = 0.6
#: Rowwise-scaled calls whose plan is one wave of 128 x 256 tiles (no more tiles than SMs) with at
#: most ``ROWWISE_SHORT_KTILES`` k-tiles each run 128 x 128 tiles instead, D through 64-column
#: blocks and two epilogue tiles: each CTA then has two tiles, and the first's stores overlap the
#: second's loads. Fitted on the one rowwise corpus problem it covers, on an H100
#: (``tests/gpu/gemm/ab_configs.py``; docs/conformance/2026-11-27-thirteenth-session/run7):
#: 128 x 32768 x 512 (DeepSeek-V3's kv_b at 128 tokens) 16.0 -> 14.8 us, 0.97x -> about 1.05x
#: ``torch._scaled_mm`` rowwise (the twelfth session's A/B of the same change: 1.07x).
ROWWISE_SHORT_KTILES = 4


# -- schedules (issue 27). The rules below come from the kernel's structure and from what other
# Hopper GEMMs dispatch to; SPLIT_K_SWAP_M and SPLIT_K_MIN_KTILES_MN were chosen on an H200 from
# every candidate of 33 corpus problems (tests/gpu/tune/collect.py --part schedules), the others
# are first guesses those timings did not contradict.
#: Swap-AB (D^T = B^T A^T) when D has at most this many rows (M) and more columns than rows:
#: wgmma's M is fixed at 64 per warpgroup while its N goes down to 8, so a small M wastes at least
#: 64 - M rows of every instruction unless it becomes N (vLLM, SGLang, TensorRT-LLM and DeepGEMM
#: dispatch to swapped kernels for M <= 64-128). Above SPLIT_K_SWAP_M the unswapped split rule
#: is asked first.
SWAP_AB_MAX_M = 64
#: Split-K when the output tiles fill at most this fraction of the SMs (tiles <= SPLIT_K_FILL x
#: 132): the rest would idle for the whole K loop.
SPLIT_K_FILL = 0.5
#: ... and K is long: each split of a swapped (decode) plan keeps at least this many k-tiles ...
SPLIT_K_MIN_KTILES = 8
#: ... and each split of an unswapped one at least this many (:data:`SPLIT_K_SWAP_M`'s rule).
SPLIT_K_MIN_KTILES_MN = 16
#: A swapped plan that splits (8-bit, K-major operands) runs on exactly the
#: :data:`SPLIT_K_TILE` tile capped by the problem (BM 128, or the problem's N rounded up to 64;
#: BN the problem's M rounded up to 8), 256-byte k-tiles, the deepest ring up to
#: :data:`DEEP_TILE_MAX_STAGES`, and as many splits as fill the SMs with at least this many k-tiles
#: each (the decision to split stays :data:`SPLIT_K_MIN_KTILES`'). Measured on an H100
#: (``tests/gpu/gemm/probe.py`` set v7, 21 decode layers, M 1-16, beside cuBLAS;
#: docs/conformance/2026-11-27-eighth-session/run6-probe-v7-h100): the model's tile had been
#: 128 x 16 with 3 stages and 2-3 splits; 8 x 2112 x 5120 e4m3 took 13.5 us on it, 11.2-11.7 us on
#: 128 x 8 with 6 stages and 4-6 splits (cuBLAS 10.0 us), 8 x 2112 x 7168 14.5 and 12.9-13.3 us,
#: 1 x 4096 x 4096 e4m3 13.9 and 12.9 us (4 splits). In the corpus run that followed (run 7/8)
#: the e4m3 decode layers it covers ran up to 19% faster, but the bf16 ones 2-7% slower at M = 16
#: (128 x 16 x 128 with 6 stages against 3) and -3% to +5% at M = 1-8, though v7 had timed
#: 8 x 3584 x 3584 bf16 at 16.9 us on the model's tile and 15.8-16.3 us on this one: bf16 kept
#: the model's tile and :data:`SPLIT_K_MIN_KTILES`. Since 2026-11-28 both take
#: :data:`SPLIT_K_SWAP_TILE_M`'s 64-row tile.
SPLIT_K_SWAP_MIN_KTILES = 4
#: A swapped plan that splits (8- or 16-bit, K-major operands) runs on 64-row tiles (BN the
#: problem's M rounded up to 8), 256-byte k-tiles and the deepest ring up to
#: :data:`DEEP_TILE_MAX_STAGES`, split by :func:`split_k_splits` over those tiles with at least
#: :data:`SPLIT_K_SWAP_MIN_KTILES` (8-bit) or :data:`SPLIT_K_MIN_KTILES` (16-bit) k-tiles a split,
#: at most :data:`SPLIT_K_SWAP_UNITS` work units and :data:`SPLIT_K_SWAP_MAX` splits; or unsplit on
#: that tile where that count is 1. Until 2026-11-28 the tile had 128 rows and the splits filled
#: every SM: the tile's last split reads every split's partial sums back, a chain of L2 round trips
#: that grows with the splits, and half as many tiles need twice the splits. Measured on an H100
#: (``tests/gpu/gemm/probe.py``; docs/conformance/2026-11-28-seventeenth-session: set v21 found it
#: on fresh seeds 1-5, v22 and v23 compared variants, v24 timed the old and the new plan of every
#: problem the rules of this session change, in one run): on the 252 swapped problems it changes
#: 1.06x faster in geometric mean on the corpus (33, none slower), 1.14x on seeds 1-5, 1.12x on
#: seeds 6-7, 1.14x on seed 8 (run only after the rule was fixed), 5 slower by more than 3%
#: (0.90x the least); 15 x 640 x 26240 e4m3 24.2 -> 12.9 us (cuBLAS 15.1), 11 x 816 x 14528 bf16
#: 25.4 -> 15.1 (16.7), 1 x 4096 x 4096 bf16 17.6 -> 16.5 unsplit (18.8).
SPLIT_K_SWAP_TILE_M = 64
#: The most splits choose_plan picks (the workspace holds splits x M x N f32 partial sums and the
#: reduction reads all of them).
SPLIT_K_MAX = 32
#: A swapped split-K plan's tile is at least this BM x BN (capped by the problem's extents,
#: rounded up to 64 rows and 8 columns): the model ranks small tiles first on small outputs,
#: which fills the SMs with tiles too thin to reach the tensor cores' rate; splitting K fills
#: them instead. (K-major 8- and 16-bit operands take :data:`SPLIT_K_SWAP_TILE_M`'s 64 rows and
#: this BN.)
SPLIT_K_TILE = (128, 128)
#: Unswapped problems with M above :data:`SPLIT_K_SWAP_M` split K on a BM x 128 tile (BM and the
#: count by :data:`SPLIT_K_MN_CTAS`' rule), when those tiles fill at most :data:`SPLIT_K_FILL` of
#: the SMs and K keeps two splits of :data:`SPLIT_K_MIN_KTILES_MN` k-tiles; below, decode keeps the
#: swapped plan.
#: Measured on an H200 (tests/gpu/tune/collect.py --part schedules: the swap-AB x tile x split
#: grid, 80-160 plans each, on 33 decode, small and long-K corpus problems; the constants chosen
#: on them): this rule beside the swapped one had a mean regret of 2.4% against each problem's
#: best (max 14%), the rules before it 11.1% (max 121%, 512 x 512 x 32768 on a 64 x 32 tile
#: without a split).
SPLIT_K_SWAP_M = 16
#: ... except that a compute-bound problem (at least ``WIDE_SPLIT_FLOP_PER_BYTE / bits`` FLOPs
#: per byte of A, B and D, ``bits`` the operands' mean element width: about the H100's tensor
#: rate over its DRAM bandwidth) with M above 64 whose A or B rows, as ``gemm`` reads them, are
#: not a multiple of the 128-byte L2 line splits K on a 128 x 256 tile first (BN the problem's N
#: rounded up to 8 below 256), each split keeping at least :data:`WIDE_SPLIT_MIN_KTILES`
#: k-tiles, when those tiles fill at most :data:`SPLIT_K_FILL` of the SMs. Rows off the line cost
#: the 128 x 128 tile about half its rate (a 128-byte segment of a box spans two lines): the wider
#: tile reads a quarter fewer operand bytes per product and the splits fill the SMs it leaves
#: idle. Measured on an H100 (``tests/gpu/gemm/probe.py`` sets v13 and v14, shapes of
#: ``tools/gemm_corpus.py --fresh 20261128`` and ``--fresh 20261129``;
#: docs/conformance/2026-11-28-fifteenth-session): 1379 x 432 x 18768 bf16 (rows of 37536 bytes)
#: 73.3 us on 128 x 128 with 3 splits, 50.7 on 128 x 256 with 6 (cuBLAS 50.9); 419 x 3840 x 30864
#: bf16 267-276 us unsplit on 128 x 128 tiles, 170.5 on 128 x 256 with 2 splits (cuBLAS 151). On
#: rows a multiple of 128 bytes the same tile and split was 3-50% slower than the plan it replaced
#: on all eleven problems timed (512 x 4096 x 14336 bf16: 81.5 against 89.9 us).
WIDE_SPLIT_FLOP_PER_BYTE = 256
#: The unswapped split of :data:`SPLIT_K_SWAP_M`'s rule runs on 64-row tiles where M <= 64, or
#: M <= :data:`SPLIT_K_MN_FEW_MAX_M` with at most :data:`SPLIT_K_MN_FEW_TILES` 128-row tiles;
#: where those 64-row tiles are at most :data:`SPLIT_K_MN_FEW_UNITS_TILES`, the splits aim at this
#: many work units (tiles x splits) instead of one per SM, counted with
#: :data:`SPLIT_K_MN_PER_SPLIT` k-tiles a split (the decision to split stays
#: :data:`SPLIT_K_MIN_KTILES_MN`'), at most :data:`SPLIT_K_MN_MOST` splits. Elsewhere 128-row
#: tiles, one unit per SM, at most :data:`SPLIT_K_MN_WIDE_MOST` splits. Until 2026-11-28: 128 rows
#: above M = 64 and up to 32 splits filling every SM. Few tiles with many splits lose to the
#: tile's last split reading every split's partial sums back (a chain of L2 round trips, about
#: half a microsecond a split for a 64 x 128 tile), while half the SMs already draw the DRAM
#: bandwidth these problems need; with more tiles (N of 1800 and up at M 65-256) the 128-row tile's
#: operand reuse wins. Measured on an H100 (probe sets v21-v24 as :data:`SPLIT_K_SWAP_TILE_M`'s;
#: v24, one run): on the 123 unswapped split problems it changes 1.03x on the corpus (8), 1.08x on
#: seeds 1-5, 1.14x on seeds 6-7, 1.05x on seed 8 (4 of 18 slower, 0.79x the least: 241 x 688 x
#: 10384 bf16); 25 x 512 x 32512 bf16 28.9 -> 20.4 us at 16 splits instead of 31 (cuBLAS 19.0),
#: 139 x 256 x 24576 bf16 22.4 -> 16.4 (15.0), 256 x 256 x 65536 e4m3 27.0 -> 21.6 (25.2).
SPLIT_K_MN_CTAS = 64
#: The most 64-row tiles of :data:`SPLIT_K_MN_CTAS`' unit target (more: one unit per SM).
SPLIT_K_MN_FEW_UNITS_TILES = 24
#: The most splits of a 64-row unswapped split (:data:`SPLIT_K_MN_CTAS`).
SPLIT_K_MN_MOST = 16
#: The k-tiles a split counts with in :data:`SPLIT_K_MN_CTAS`' rule (32 x 1024 x 2688 bf16: 2
#: splits 11.5 us, 5 splits 11.1; 18 x 816 x 4384 e4m3: 11.4 and 9.9 at 4).
SPLIT_K_MN_PER_SPLIT = 8
#: The largest M of :data:`SPLIT_K_MN_CTAS`' 64-row tiles above M = 64 ...
SPLIT_K_MN_FEW_MAX_M = 256
#: ... where the problem has at most this many 128-row tiles.
SPLIT_K_MN_FEW_TILES = 12
#: Where :data:`SPLIT_K_MN_CTAS`' unit target gives M above 64 at most this many splits, the
#: 64-row split takes twice as many (at most one per :data:`SPLIT_K_MN_PER_SPLIT` k-tiles): the
#: target leaves more than half the SMs idle there (48-60 work units), while a reduction chain of
#: 4-8 splits still costs little. Measured on an H200 (``tests/gpu/gemm/probe.py`` set v48,
#: docs/conformance/2026-11-28-twenty-third-session run 1): all five such problems of fresh seeds
#: 1-8 and the draws ran 1.04-1.32x faster split twice as many ways (241 x 688 x 10384 bf16 24.2
#: -> 18.4 us at 4 splits, cuBLAS 18.4; 231 x 544 x 20960 bf16 28.9 -> 24.9 at 6), while from 5
#: splits up doubling was 0.74-1.00x (84 x 283 x 32128 bf16 10 -> 20 splits 0.74x). Held out
#: (set v49, run 2, 38 it changes): 1.096x in geometric mean (bf16 1.157x over 16, e4m3 1.053x over
#: 22), 4 slower by more than 3% (0.90x the least: 181 x 523 x 10288 e4m3).
SPLIT_K_MN_DOUBLE_MAX = 4
#: The most splits of a 128-row unswapped split (473 x 256 x 32640 e4m3: 25.5 us at 15 splits,
#: 21.3 at 12).
SPLIT_K_MN_WIDE_MOST = 12
#: The most work units of :data:`SPLIT_K_SWAP_TILE_M`'s swapped split (v23: 15 x 768 x 13056 e4m3
#: 14.5 us at 132 units, the 128-row plan's 72 units 10.5).
SPLIT_K_SWAP_UNITS = 96
#: The most splits of :data:`SPLIT_K_SWAP_TILE_M`'s swapped split.
SPLIT_K_SWAP_MAX = 16
#: A compute-bound problem (:data:`WIDE_SPLIT_FLOP_PER_BYTE`) with M above 64 and at least
#: :data:`NARROW_SPLIT_MIN_KTILES` 128-byte k-tiles, whose one-pass plan (the model's) has a tile
#: of at most this many elements (BM x BN), splits K on a 128 x 256 tile instead, where those tiles
#: fill at most :data:`SPLIT_K_FILL` of the SMs (:data:`WIDE_SPLIT_MIN_KTILES` per split): on long K
#: a narrow tile's extra operand bytes per product cost more than the split's reduction. Measured on
#: an H100 (``tests/gpu/gemm/probe.py`` case file ``probe_cases_v18.json``, this 128 x 256 split
#: beside the default on the 10 compute-bound one-wave problems of the corpus and five fresh seeds
#: with 192 k-tiles or more; docs/conformance/2026-11-28-sixteenth-session run 2): 556 x 1780 x
#: 12788 bf16 123.9 -> 83.4 us on 64 x 128 (cuBLAS 145.6), 771 x 1408 x 15232 bf16 75.7 -> 63.7 on
#: 64 x 144 (cuBLAS 79.9), 481 x 2314 x 26584 e4m3 85.0 -> 59.1 on 128 x 80; where the one-pass
#: tile was 128 x 112 or 128 x 128 the split was 3-11% slower on four of seven (512 x 3584 x 18944
#: bf16 97.7 -> 109.4) and faster on three (425 x 3632 x 32128 bf16 253.5 -> 171.1).
NARROW_TILE_AREA = 128 * 80
#: The fewest 128-byte k-tiles of :data:`NARROW_TILE_AREA`'s rule.
NARROW_SPLIT_MIN_KTILES = 192
#: The least k-tiles per split of :data:`WIDE_SPLIT_FLOP_PER_BYTE`'s rule (the seven problems it
#: won on kept 49-241; it lost where a split kept 18-32, on rows a multiple of the line).
WIDE_SPLIT_MIN_KTILES = 32
#: The k-tiles a split counts with where the rows are off the 128-byte line (the unswapped split
#: rule's own 128 x 256 split; the decision to split stays :data:`WIDE_SPLIT_MIN_KTILES`'). Measured
#: on an H100 (probe sets v21 and v24, docs/conformance/2026-11-28-seventeenth-session): 922 x 880 x
#: 8864 e4m3 33.3 us at 2 splits (35 k-tiles each), 27.0 at 4 (cuBLAS 24.5); 1132 x 880 x 8864
#: e4m3 33.7 and 31.0 (3); 695 x 1216 x 14576 e4m3 49.9 and 45.2 (4); 556 x 880 x 6320 bf16 32.2
#: and 25.2 (6).
WIDE_SPLIT_OFF_LINE_MIN_KTILES = 16
#: Problems with ``64 < M <= DEEP_TILE_MAX_M`` and ``K <= DEEP_TILE_MAX_K`` (8- and 16-bit inputs,
#: both operands K-major) run on 64-row tiles in one pass: BN the narrowest of :data:`DEEP_TILE_BN`
#: whose tiles fit in one wave of the SMs, the deepest stage ring up to :data:`DEEP_TILE_MAX_STAGES`
#: that fits beside the shared-memory epilogue tile, and K split (at most 2 ways, storing from
#: registers) only when those tiles fill at most :data:`SPLIT_K_FILL` of the SMs. (Until 2026-11-27
#: the model's own plan was taken where it had 64-row tiles: on an H100, probe set v6 below, it was
#: 2-13% slower than this rule's plan on 10 of 14 problems and at most 1.6% faster on the others;
#: 128 x 4608 x 3584 bf16 ran 21.5 us on its 64 x 80 x 128 3-stage plan and 19.1 us on this rule's
#: 64 x 96 x 64 with 8 stages, cuBLAS 17.2 us.) The 128-row split-K plans chosen before for most of
#: these problems left half the SMs' load bandwidth unused and paid a reduction (cuBLAS's kernels on
#: these shapes are 64-row tiles with 5-16 stages and no split:
#: ``tests/gpu/gemm/cublas_kernels.py``). Measured (``tests/gpu/gemm/probe.py``,
#: docs/conformance/h100-2026-11-27-deep-tiles) on the 64 corpus problems with 64 < M <= 256, 2-5
#: plans each, against the fastest of them (geometric mean of time ratios, L2 flushed by a read): on
#: an H100 this rule 1.7% slower (at most 11%), the rules before it 5.0% (at most 42%); on an H200
#: 1.3% and 4.1%. For longer K the 128-row split-K plans stay: on the H200 they were 6-34% faster
#: than the deep 64-row plan (on the H100 0-10% slower); with M 512 the 128-row plans were as fast
#: or faster on the H100, and with 2 waves of 64-row tiles or more (128 x 28672 x 4096) the model's
#: 128-row plan was 5-8% faster than any 64-row one.
DEEP_TILE_MAX_M = 256
#: The longest K of :data:`DEEP_TILE_MAX_M`'s rule.
DEEP_TILE_MAX_K = 8192
#: Above :data:`DEEP_TILE_MAX_M`, where :data:`SPLIT_K_SWAP_M`'s rule would split K this many ways
#: on BM x 128 (or narrower) tiles (BM 128: those fill at most :data:`SPLIT_K_FILL` of the SMs) and 64-row tiles
#: of one of :data:`DEEP_TILE_BN` fill at most one wave without a split (K at most
#: :data:`DEEP_TILE_MAX_K`), the 64-row one-pass plan runs instead: the split's half-empty wave
#: of 128-row tiles and its reduction cost more than the narrower tile's extra loads. Measured on
#: an H100 (``tests/gpu/gemm/probe.py`` set v13, shapes of ``tools/gemm_corpus.py --fresh
#: 20261128``; docs/conformance/2026-11-28-fifteenth-session run 3): 4158 x 256 x 2688 bf16 21.9 us
#: split on 128 x 128, 16.4 on 64 x 128 in one pass (cuBLAS 17.9); 310 x 1152 x 5760 e4m3 16.9 and
#: 11.2 (64 x 64; cuBLAS 13.0); 763 x 480 x 2608 bf16 16.1 and 14.1 (64 x 64; cuBLAS 10.7). On
#: every plan it changes (``probe_cases_v18.json``, seeds 1-5): 7 of 9 1.08-1.49x faster, 0.87x
#: and 0.98x the others; with three or more splits it lost on 5 of 6, so it takes two-way splits
#: only. Held out (seeds 6-7, ``probe_cases_v19.json``): 4 of 5 1.26-1.43x, one 0.85x.
DEEP_TILE_ONE_WAVE_SPLITS = 2
#: The tile widths :data:`DEEP_TILE_MAX_M`'s rule picks from.
DEEP_TILE_BN = (64, 96, 128, 160, 192, 256)
#: Where :data:`SPLIT_K_SWAP_M`'s rule would split K unswapped (16 < M <= 64), problems with
#: ``K <= SWAP_DEEP_MAX_K`` (8- and 16-bit inputs, both operands K-major) and at least
#: :data:`SWAP_DEEP_MIN_TILES` 64-row tiles of N run swapped in one pass instead: 64 x (M rounded
#: up to 8) tiles, 256-byte k-tiles, the deepest ring up to :data:`DEEP_TILE_MAX_STAGES`. Measured
#: on an H100 (``tests/gpu/gemm/probe.py`` set v8, 16 problems, M 32-64, N 2112-4096, 11-17 plans
#: each; docs/conformance/2026-11-27-eighth-session/run7-corpus-tests-probe-v8-h100): at N 3584 and
#: 4096 this plan was the fastest of all timed on the 6 problems the rule covers (bf16 and e4m3,
#: 5-13% faster than the unswapped split: 32 x 4096 x 4096 bf16 21.7 -> 19.5 us, cuBLAS 17.4); at
#: N 2112 (33 tiles) the splits stay.
SWAP_DEEP_MAX_K = 4096
#: The fewest 64-row tiles of N for :data:`SWAP_DEEP_MAX_K`'s rule.
SWAP_DEEP_MIN_TILES = 48
#: :data:`SWAP_DEEP_MAX_K` for 8-bit inputs: the same 8192 bytes of a row as 16-bit K = 4096.
#: Measured on an H200 (``tests/gpu/gemm/probe.py`` set v30, docs/conformance/
#: 2026-11-28-nineteenth-session/run1): the four e4m3 problems with 4096 < K <= 8192 and at least
#: :data:`SWAP_DEEP_MIN_TILES` tiles ran 1.12-1.23x faster swapped on 64 x (M rounded up to 8) tiles
#: than on their unswapped split (55 x 5248 x 7552 e4m3 1.23x, 44 x 8320 x 5888 1.18x); the bf16
#: problems past K = 4096 were 0.96-1.08x, so 16-bit keeps 4096. Against the plans before it (set
#: v31, run 2): 1.13-1.17x on those four, 1.16x and 1.08x on the corpus's 32 and 64 x 8192 x 8192,
#: 0.92-1.33x on ten drawn (nine faster; the slower one M = 62, where 64-row tiles pad nothing).
SWAP_DEEP_MAX_K_8BIT = 8192
#: Where :data:`SPLIT_K_SWAP_M`'s rule would split K unswapped (16 < M <= 64, 8- and 16-bit
#: inputs, both operands K-major) and :data:`SWAP_DEEP_MAX_K`'s one-pass rule does not apply,
#: problems with at least this many 64-row tiles of N run swapped on one column tile that covers M:
#: 64 x (M rounded up to 8), 256-byte k-tiles, the deepest ring up to
#: :data:`DEEP_TILE_MAX_STAGES`, K split as the swapped decode plans are
#: (:data:`SPLIT_K_SWAP_TILE_M`'s rule: :data:`SPLIT_K_SWAP_UNITS` work units, unsplit from
#: :data:`SPLIT_K_FILL`'s half of the SMs up), except where that leaves it unsplit with M above
#: :data:`SWAP_SPLIT_ONE_PASS_MAX_M` and A's or B's rows off the 128-byte L2 line. The unswapped
#: split reads the same weight bytes but on 64 x 128 tiles padded to 64 rows of D and through a
#: reduction; the corpus's M = 32 and 64 down and output projections ran 10-17% slower on it than
#: the same layer at M = 16 on its swapped plan. Measured on an H200 (``tests/gpu/gemm/probe.py``
#: sets v44 and v47, docs/conformance/2026-11-28-twenty-second-session runs 1-2). v44 (the
#: corpus's 122 problems with 16 < M <= 128 and an unswapped default, every third of fresh seeds
#: 1-8's, 40 drawn) found the region: on the 65 split defaults with at least 32 tiles this plan
#: ran 1.076x faster in geometric mean (0.93-1.25x; 32 x 4096 x 14336 e4m3 23.2 -> 20.5 us,
#: cuBLAS 19.8; 30 x 2688 x 5248 e4m3 13.2 -> 10.6, 10.3); with fewer tiles the split's count
#: grows past what was timed and the few wide tiles lost (0.70-0.99x at 4-16 tiles); with M 65-128
#: every swapped plan timed was slower in geometric mean (0.69-0.83x); unsplit unswapped defaults
#: (N of 168 tiles and more) stay: 0.74-1.08x. v47 held it out (the 12 seed problems v44 had not
#: timed and 40 drawn, seed 20261218): 1.034x, but 13 of 52 slower by more than 3%, 9 of them
#: unsplit with M above 32 on rows off the 128-byte line (0.77-0.93x; the 15 such problems 0.934x,
#: where v44's 20 on the line ran 1.042x), so those keep the unswapped split. With that exception,
#: fitted on both sets: 1.076x over v44's 64 and 1.078x over v47's 37 (4 slower by more than 3%,
#: 0.91x the least: 26 x 4471 x 19248 e4m3).
SWAP_SPLIT_MIN_TILES = 32
#: The largest M :data:`SWAP_SPLIT_MIN_TILES`' rule runs unsplit on rows off the 128-byte line.
SWAP_SPLIT_ONE_PASS_MAX_M = 32
#: Long-K 16-bit problems with ``SWAP_AB_MAX_M < M <= SWAP_LONG_K_MAX_M`` (both operands K-major,
#: at least :data:`SWAP_LONG_K_MIN_KTILES` 128-byte k-tiles) run swapped: 128 rows of N by M cut
#: into the fewest pieces of at most 256 columns (each rounded up to 8, so M pads by less than 8
#: a piece where 64- or 128-row tiles pad it by up to 127), K split to about one wave (at most
#: ``132 // tiles`` splits, 8 k-tiles a split, 16 splits), the deepest ring up to
#: :data:`DEEP_TILE_MAX_STAGES`, registers storing D; where those tiles number
#: :data:`SWAP_LONG_K_MIN_TILES` or more, the split is at least 2 and the pieces pad M less than
#: 128-row tiles would. Measured on an H200 (``tests/gpu/gemm/probe.py`` sets v30 and v31;
#: docs/conformance/2026-11-28-nineteenth-session): v30 (252 problems of fresh seeds 1-7 with
#: 16 < M <= 1024, swapped plans beside the default, run 1) found the region: its 9 bf16 problems
#: ran 0.99-1.37x swapped, e4m3 0.94-1.13x (kept out), other regions 0.38-0.97x in geometric mean.
#: v31 (run 2, two passes) timed the rule against the plans before it: 1.03-1.46x on the 17
#: problems of seeds 1-7 it changes, 1.59x on seed 8's one, 1.02-1.71x on 13 drawn in the region
#: (189 x 4336 x 31248 140.2 -> 98.0 us, cuBLAS 88.8); the corpus's M = 128 and 512 layers had run
#: 0.83-1.01x and M = 125 0.98x, where the pieces pad M as much as 128-row tiles: the padding
#: condition, set after that run, leaves those on their plans (and the drawn M = 250, 1.21x).
SWAP_LONG_K_MAX_M = 512
#: The fewest k-tiles (of 128 bytes) for :data:`SWAP_LONG_K_MAX_M`'s rule.
SWAP_LONG_K_MIN_KTILES = 128
#: The fewest swapped tiles (128 rows of N by the pieces of M) for :data:`SWAP_LONG_K_MAX_M`'s rule.
SWAP_LONG_K_MIN_TILES = 20
#: :data:`SWAP_LONG_K_MAX_M`'s rule also runs its pieces in one pass where they fit one wave (67
#: to 132 tiles: the split would be 1) and are at most this many columns wide, by the number of
#: pieces (one piece: M <= 200; two: 256 < M <= 320). Seed 23's 266 x 7936 x 22016 bf16 ran its
#: unswapped 128 x 192 default at 0.68-0.75x cuBLAS's speed (cuBLAS: swapped 128 x 136 tiles, one
#: pass). Measured on an H200 (``tests/gpu/gemm/probe.py`` sets v85 and v89,
#: docs/conformance/2026-11-29-thirty-fifth-session runs 2-3): v85 (the region's 40 drawn and 50
#: corpus and seed problems, one pass and a 2-way split beside the default) found the one pass
#: 0.84-0.87x in geometric mean on the drawn and mixed within one wave: faster on the problems
#: there with M <= 200 (11: 0.99-1.68x) and 256 < M <= 320 (6: 0.96-1.29x), slower with
#: 200 < M <= 256 (6: 0.82-1.06x) and above 320 (5: 0.82-1.00x). v89 (40 drawn in the one-wave region, M <= 320, the
#: first 20 to fit, the last 20 held out, as stated before the run): fitted, M <= 200 1.135x (9
#: of 12 faster by > 3%, none slower), 256 < M <= 320 1.04x (2), 200 < M <= 256 0.79x (2); held
#: out, in the rule's region 1.09x (13: 9 faster by > 3%, 2 slower, 0.925x the least), outside it
#: 0.95x. The 2-way split was slower than the default almost everywhere there. Held out again by
#: v90 (run 5: 30 problems drawn where the rule changes the plan, against the plan before it):
#: **1.180x**, 25 faster by > 3%, 2 slower (198 x 15566 x 15496 0.923x, 286 x 4966 x 25096
#: 0.944x). () turns it off.
SWAP_LONG_K_ONE_PASS_MAX_BN = (200, 160)
#: :data:`DEEP_TILE_MAX_M`'s rule splits K only with at least this many (128-byte) k-tiles per
#: split. In the H100 corpus run of 2026-11-27 (run 5), with 8 (:data:`SPLIT_K_MIN_KTILES`), the
#: split 64 x 64 plan of 128 x 2112 x K was 7-14% faster than one pass for bf16 (K 5120, 7168:
#: 40-56 k-tiles per split) and 1-9% slower for e4m3 (20-28).
DEEP_TILE_SPLIT_MIN_KTILES = 32
#: ... except that where its tiles number at most :data:`DEEP_TILE_FEW_TILES` (a third of the
#: SMs or fewer) K splits 2 ways with at least this many k-tiles a split: two thirds of the SMs
#: idle for the whole K loop cost more than one split's reduction. Measured on an H200
#: (``tests/gpu/gemm/probe.py`` set v48, docs/conformance/2026-11-28-twenty-third-session
#: run 1): on the 11 such problems of fresh seeds 1-8 and the draws (10-48 tiles, 32-63 k-tiles)
#: the 2-way split was faster on 10 (1.01-1.18x; 96 x 310 x 4016 bf16 13.5 -> 11.4 us, 68 x 432
#: x 3616 bf16 12.4 -> 10.8) and 0.97x on the other. Held out (set v49, run 2: the seeds' problems
#: v48 had not timed and draws, 41 it changes): 1.114x in geometric mean, none slower (1.00-1.32x).
DEEP_TILE_FEW_MIN_KTILES = 16
#: The most tiles of :data:`DEEP_TILE_FEW_MIN_KTILES`' rule.
DEEP_TILE_FEW_TILES = 48
#: Problems with ``SPLIT_K_SWAP_M < M <= SWAP_AB_MAX_M`` and ``K <= WIDE_N_MAX_K`` (8- and 16-bit
#: inputs, both operands K-major) whose D has at least ``WIDE_N_MIN_TILES`` 128-column tiles, and
#: that no split rule splits, run unswapped on 64-row tiles storing D through the shared-memory
#: epilogue tile (:data:`EPILOGUE_BLOCK_N`-column blocks through 2 tiles, the deepest ring that
#: fits), BN the one of :data:`WIDE_N_BN` whose tiles fill the last wave of the SMs best (the
#: narrowest among equals), at most :data:`DEEP_TILE_MAX_STAGES` stages. The swapped plan stores D^T
#: from registers, 2-byte stores scattered over M rows, which short K leaves exposed. Measured on an
#: H100 (``tests/gpu/gemm/probe.py`` set v5,
#: docs/conformance/2026-11-27-eighth-session/run3-probe-v5-h100; 13 plans on each of 16 problems, M
#: 16-64, N 10240-32768, K 512-8192, bf16 and e4m3, beside cuBLAS): 64 x 32768 x 512 took 22.0 us
#: swapped (bf16; e4m3 15.7) and 17.9 us (12.4) on the 64 x 128 tile through 2 epilogue tiles,
#: against cuBLAS's 17.6 us (12.1); with K 4096-8192 the unswapped plans were 1-3% faster; at M = 16
#: the two were within 5% either way (swapped kept). With fewer tiles (qwen2.5-7b's N = 3584-4608 at
#: M = 32-64: 28-36 tiles) the swapped plan's narrower tiles fill more SMs; they keep it.
WIDE_N_MIN_TILES = 64
#: The tile widths :data:`WIDE_N_MIN_TILES`' rule picks from.
WIDE_N_BN = (128, 192, 256)
#: The longest K of :data:`WIDE_N_MIN_TILES`' rule: in the H100 corpus run that first had the rule
#: (2026-11-27, run 5) the unswapped plan was 3-8% slower than the swapped one at K = 7168
#: (deepseek-v3 gate_up, M 32 and 64), -2% to +2% at K = 8192 and up to 7% faster at K <= 5120.
WIDE_N_MAX_K = 5120


#: choose_plan takes the model's best plan whose k-tile is at least this many bytes (BK x the
#: element size: 64 for bf16 and f16, 128 for fp8, 32 for tf32) before any with a narrower one.
#: Nearly every measured winner on an H200 had one (the 12 problems timed over all 244 plans
#: and 25 of the 27 corpus problems of tests/gpu/tune/collect.py), while the model ranked BK 32
#: first on bf16 problems such as 5000 x 3000 x 7000 and 3500 x 4500 x 2500, which then ran 56-60% slower
#: than their measured best (docs/conformance/h200-2026-11-26-fit).
FULL_WIDTH_BK = 128


def _full_width_first(rows, a_dtype):
    """``rows`` (the model's, in its order) with the full-width k-tiles (:data:`FULL_WIDTH_BK`)
    first, each part in the model's order: the rule the one-pass plan follows, for the swap-AB
    and split-K plans too. Measured on an H100 (``tests/gpu/gemm/probe.py`` set v13, shapes of
    ``tools/gemm_corpus.py --fresh 20261128``; docs/conformance/2026-11-28-fifteenth-session):
    1379 x 432 x 18768 bf16 split 3 ways took 92.3 us on the model's 128 x 128 x 32 tile (64-byte
    k-tiles, 64-byte swizzle) and 73.3 us at BK 64. No plan of the shipped corpus changes: its
    split and swapped plans already had full-width k-tiles."""
    rows = list(rows)
    return ([r for r in rows if _full_width(r, a_dtype)]
            + [r for r in rows if not _full_width(r, a_dtype)])


def _full_width(row, a_dtype):
    """Whether a plan row's k-tile is :data:`FULL_WIDTH_BK` bytes or wider."""
    return row["bk"] * dtype_bits(a_dtype) >= 8 * FULL_WIDTH_BK


#: A one-pass plan of 8- or 16-bit operands whose k-tiles are at most this many bytes takes
#: :data:`WIDENED_BK`-byte ones on the same tile and epilogue, at the deepest ring up to the larger of its own stages and
#: :data:`DEEP_TILE_MAX_STAGES` that fits (the model ranks such k-tiles first where K is short
#: and a wider one pads it: K = 288 bytes pads to 384 in 128-byte k-tiles, to 320 in 64-byte ones;
#: it does not price what each k-tile costs: a TMA box per operand, a barrier round trip and a
#: wgmma group of one or two K steps). Measured on an H200 (``tests/gpu/gemm/probe.py`` sets v43,
#: v45 and v46; docs/conformance/2026-11-28-twenty-first-session run 7 and
#: 2026-11-28-twenty-second-session runs 1-2): every default with 32-byte k-tiles timed ran slower
#: than its tile with wider ones: 6 of v43; 27 drawn on the sector (v45, seed 20261216; K 144-928
#: elements, 192 x 176 and 192 x 192 tiles), 64-byte k-tiles 1.20x faster in geometric mean
#: (1.09-1.47x; 9416 x 18784 x 544 e4m3 287.7 -> 221.6 us, cuBLAS 227.2), 128-byte ones 1.18x;
#: held out (v46, seed 20261217) 26 more, 1.24x (1.11-1.48x), where the model's own first 64-byte
#: row (128 x 256 or 128 x 240, 6 stages) was 0.92x this rule's plan in geometric mean.
NARROW_BK_BYTES = 32
#: The k-tile width in bytes :data:`NARROW_BK_BYTES`' rule gives.
WIDENED_BK = 64


def _widen_narrow(c):
    """``c``, or its tile with :data:`WIDENED_BK`-byte k-tiles where :data:`NARROW_BK_BYTES`' rule
    applies and such a plan runs."""
    bits = dtype_bits(c["a_dtype"])
    if c["bk"] * bits > 8 * NARROW_BK_BYTES or dtype_bits(c["b_dtype"]) != bits or bits not in (8, 16):
        return c   # (measured on 8- and 16-bit operands only)
    swizzle = f"{WIDENED_BK}B"
    for stages in range(max(c["stages"], DEEP_TILE_MAX_STAGES), 1, -1):
        wide = dict(c, bk=8 * WIDENED_BK // bits, swizzle_a=swizzle, swizzle_b=swizzle, stages=stages)
        if supported(wide) is None:
            return wide
    return c


#: Where an operand's rows, as ``gemm`` reads them, are 16 but not 32 bytes aligned and both
#: operands are this many bits wide, choose_plan takes only full-width k-tiles
#: (:data:`FULL_WIDTH_BK`) from the model's whole ranking (one-pass and swapped plans), a
#: narrower one only where none runs: a box row of BK bytes that starts 16 bytes into a sector
#: spans BK / 32 + 1 sectors, so on every other row 32- and 64-byte k-tiles read 2x and 1.5x the
#: sectors they use, 128-byte ones 1.25x, and the model, which prices a wide k-tile's K padding
#: (K = 784 e4m3: 7 k-tiles of 128 for 6.1), does not price sectors. Measured on an H200
#: (``tests/gpu/gemm/probe.py`` set v37; docs/conformance/2026-11-28-twenty-first-session, run 1):
#: on the 12 e4m3 problems of the corpus and fresh seeds 1-8 it changes 1.23x faster in
#: geometric mean (1.03-1.59x; 3839 x 7120 x 784 78.5 -> 49.4 us, cuBLAS 53.4), held out 21
#: e4m3 and 20 bf16 problems drawn off the sector (seed 20261210) 1.22x and 1.24x, every one
#: faster (at least 1.03x).
SECTOR_FULL_WIDTH_BITS = (8, 16)


def _sector_wide_only(m, n, k, a_dtype, b_dtype, a_major, b_major):
    """Whether :data:`SECTOR_FULL_WIDTH_BITS`' rule applies to the problem."""
    return (dtype_bits(a_dtype) in SECTOR_FULL_WIDTH_BITS and dtype_bits(b_dtype) in SECTOR_FULL_WIDTH_BITS
            and _off_sector(m, n, k, a_dtype, b_dtype, a_major, b_major))


def _sector_ranking(ranked, a_dtype):
    """:data:`SECTOR_FULL_WIDTH_BITS`' order of the model's whole ranking ``ranked``: every
    full-width row in the model's order, then the narrow rows of its first 64."""
    yield from (r for r in ranked if _full_width(r, a_dtype))
    yield from (r for r in ranked[:64] if not _full_width(r, a_dtype))


#: A 2-CTA cluster (``cluster_m=2``, B multicast to both) when an operand's rows, as ``gemm``
#: reads them (packed, or staged at :data:`runtime.STAGED_PITCH`), are a multiple of 16 bytes but
#: not of 32 (e.g. bf16 K = 1000: every 128-byte row segment of a TMA box spans five 32-byte
#: sectors, not four) and the plan has at least this many waves of output tiles (tiles / SMs).
#: Measured on an H200 (tests/gpu/tune/collect.py --part raster and --part pitch;
#: docs/conformance/h200-2026-11-26-pitch): on such rows the 1-CTA kernel took 1.43-1.52 times
#: as long as at 128-byte rows, and the cluster, whose CTAs each load half of B, was 16-25% faster on
#: the 5 shapes where it had won the exhaustive runs and on 12 of 14 random problems with at
#: least 2 waves (slower on 7096 x 2370 x 4456 bf16, 3%, and 6336 x 1452 x 2608 e4m3, 28%); with
#: fewer waves it was slower on 16 of 22. On rows a multiple of 32 bytes it was 4-11% slower on
#: most of 55 problems.
SECTOR_CLUSTER_WAVES = 2
#: ... or, with fewer waves, at least this many output tiles of at least
#: :data:`SECTOR_CLUSTER_AREA` elements each and at least :data:`SECTOR_CLUSTER_MIN_KTILES`
#: k-tiles. Measured on an H100 (``tests/gpu/gemm/probe.py`` set v17, every one-pass default of the
#: corpus and three fresh seeds beside its 2-CTA cluster; docs/conformance/2026-11-28-fifteenth-session
#: run 8): on the 15 such problems with rows off the 32-byte sector (116-261 tiles, 10-200 k-tiles,
#: tiles 64 x 128 to 128 x 224) the cluster was faster on 14 by 3% or more and within 3% on the
#: other (geometric mean 1.13x; 1665 x 2704 x 3248 e4m3 1.28x, 4057 x 672 x 19856 e4m3 1.37x); on
#: the smaller tiles (64 x 48 to 64 x 96) or with 5 k-tiles it was slower on 9 of 11. On rows
#: on the sector but off the 128-byte line the same tiles were as often slower as faster (36
#: problems, geometric mean 0.94x): no cluster there. The tile rows must be even or at least 4:
#: the cluster pads them to even, and with one or three (108 x 13440 x 25616 e4m3, 263 x 13920 x
#: 8176 e4m3) the pairs ran 0.70-0.95x (``probe_cases_v18.json``, run 2 of the sixteenth
#: session); the kept changes there 1.02-1.40x, and on held-out seeds 6-7 (``probe_cases_v19.json``)
#: 7 of 9 faster (1.06-1.40x), 0.86x and 0.99x the others.
SECTOR_CLUSTER_MIN_TILES = 110
#: The least BM x BN of :data:`SECTOR_CLUSTER_MIN_TILES`' rule.
SECTOR_CLUSTER_AREA = 64 * 128
#: The fewest k-tiles of :data:`SECTOR_CLUSTER_MIN_TILES`' rule.
SECTOR_CLUSTER_MIN_KTILES = 8
#: ... unless an odd number of tile rows, at most :data:`SECTOR_CLUSTER_PAD_ROWS`, is made even
#: by the cluster's padding row and that row costs more waves than this ratio: ceil(CTAs with it /
#: SMs) / ceil(CTAs without / SMs) (the sectors the cluster saves, 5/4). Measured on an H200
#: (twentieth session, ``probe.py`` sets v32 and v33: each problem's plan with and without the
#: cluster): the five such problems of the corpus and seeds (3 or 5 tile rows, 2 -> 3 or 3 -> 4
#: waves) 1.13-1.30x faster on one CTA, and 21 of 30 drawn off the sector 1.01-1.38x (1.17x in
#: geometric mean); the 9 drawn with 15-49 tile rows 0.90-1.09x (0.98x), where the padding row is
#: a sliver of the CTAs and the few CTAs of the extra wave run alone (hence the row limit, set
#: after that run).
SECTOR_CLUSTER_PAD_WAVES = 1.25
#: The most tile rows for :data:`SECTOR_CLUSTER_PAD_WAVES`' rule.
SECTOR_CLUSTER_PAD_ROWS = 13
#: From this M up, the one-pass 64-row plans of the schedule rules (:data:`DEEP_TILE_MAX_M`'s and
#: :data:`DEEP_TILE_ONE_WAVE_SPLITS`') take :data:`SECTOR_CLUSTER_WAVES`' cluster as the model's
#: plans do (until 2026-11-28 they returned before it). Measured on an H200
#: (``tests/gpu/gemm/probe.py`` set v51, docs/conformance/2026-11-28-twenty-third-session run 4:
#: every e4m3 64-row one-pass default off the sector with 64 tiles or more in fresh seeds 1-8 and
#: 40 drawn, beside it on the pair): of the 55, the 10 the rule pairs ran 1.109x faster in
#: geometric mean (0.99-1.29x; 86 x 11583 x 4848 e4m3 1.29x), the 45 it leaves 0.914x on the pair.
SECTOR_CLUSTER_DEEP_MIN_M = 65


def _rows_off(m, n, k, a_dtype, b_dtype, a_major, b_major, align):
    """Whether A's or B's rows, as gemm reads them (packed, or staged at
    :data:`runtime.STAGED_PITCH`), are not a multiple of ``align`` bytes."""
    from .runtime import _pitch

    for cols, dt in ((k if a_major == "K" else m, a_dtype), (k if b_major == "K" else n, b_dtype)):
        if _pitch(cols, dt) * dtype_bits(dt) // 8 % align:
            return True
    return False


def _off_sector(m, n, k, a_dtype, b_dtype, a_major, b_major):
    """Whether A's or B's rows, as gemm reads them, are 16- but not 32-byte aligned."""
    return _rows_off(m, n, k, a_dtype, b_dtype, a_major, b_major, 32)


def _sector_cluster(c, m, n, k):
    """``c`` on a 2-CTA cluster where :data:`SECTOR_CLUSTER_WAVES`'s rule asks for one."""
    from ..tune import DEFAULT_SMS

    if c["cluster_m"] != 1 or c["cluster_n"] != 1 or c["split_k"] != 1 or c["swap_ab"] or c["pingpong"]:
        return c
    rows, cols = -(-m // c["bm"]), -(-n // c["bn"])
    tiles = rows * cols
    if tiles < SECTOR_CLUSTER_WAVES * DEFAULT_SMS["sm90"] and not (
            tiles >= SECTOR_CLUSTER_MIN_TILES and c["bm"] * c["bn"] >= SECTOR_CLUSTER_AREA
            and -(-k // c["bk"]) >= SECTOR_CLUSTER_MIN_KTILES and (rows % 2 == 0 or rows >= 4)):
        return c
    if not _off_sector(m, n, k, c["a_dtype"], c["b_dtype"], c["a_major"], c["b_major"]):
        return c
    sms = DEFAULT_SMS["sm90"]
    if (rows % 2 and rows <= SECTOR_CLUSTER_PAD_ROWS
            and -(-(rows + 1) * cols // sms) > SECTOR_CLUSTER_PAD_WAVES * -(-tiles // sms)):
        return c
    pair = dict(c, cluster_m=2)
    return pair if supported(pair) is None else c


#: An unswapped split-K plan of 8-bit K-major operands on 128-row tiles, whose A or B rows are off
#: the 32-byte sector (16 bytes past it), runs on 2-CTA clusters along M (B's tile multicast to the
#: pair) where its tile rows are even and each split keeps at least this many k-tiles. An fp8
#: 128 x 256 tile at the tensor cores' rate reads about 48 KB of operands a k-tile per SM, near
#: what L2 serves 132 SMs, and rows off the sector read a fifth more sectors (as
#: :data:`SECTOR_CLUSTER_WAVES`' one-pass rule); the pair reads B once. 16-bit operands need half
#: the bytes per product and lost on the pair (0.72-0.74x in geometric mean). Measured on an H200
#: (``tests/gpu/gemm/probe.py`` sets v48 and v49, docs/conformance/2026-11-28-twenty-third-session
#: runs 1-2): in v48 the four such problems ran 1.10-1.23x faster on the pair (755 x 2208 x 22576
#: e4m3 93.3 -> 75.6 us, cuBLAS 60.1; 224 x 2528 x 18128 43.3 -> 38.3), with 17-21 k-tiles a
#: split or an odd number of tile rows (padded by the pair) 0.70-0.94x. v49 held out the rule as
#: first written, rows off the 128-byte line: 1.052x over 20, but the 6 with rows on the sector
#: were all slower (0.76-0.96x; 1501 x 363 x 32544 e4m3 0.76x) and the 14 off it 0.99-1.29x
#: (1.135x in geometric mean), as the one-pass rule had found on an H100; hence the sector.
SPLIT_CLUSTER_MIN_KTILES = 24
#: The row alignment (bytes) below which :data:`SPLIT_CLUSTER_MIN_KTILES`' rule applies: the
#: 32-byte sector (v49 ran it at the 128-byte line).
SPLIT_CLUSTER_ALIGN = 32


def _split_cluster(c, m, n, k):
    """``c`` on a 2-CTA cluster along M where :data:`SPLIT_CLUSTER_MIN_KTILES`' rule asks for
    one."""
    if not (c["split_k"] > 1 and not c["swap_ab"] and c["bm"] == 128 and c["cluster_m"] == 1
            and c["cluster_n"] == 1 and not c["stream_k"]
            and _k_major_bits(c["a_dtype"], c["b_dtype"], c["a_major"], c["b_major"]) == 8):
        return c
    if -(-m // 128) % 2 or -(-k // c["bk"]) // c["split_k"] < SPLIT_CLUSTER_MIN_KTILES:
        return c
    if not _rows_off(m, n, k, c["a_dtype"], c["b_dtype"], c["a_major"], c["b_major"],
                     SPLIT_CLUSTER_ALIGN):
        return c
    pair = dict(c, cluster_m=2)
    return pair if supported(pair) is None else c


#: The narrowest tile extent (columns of a 64-row tile: N unswapped, M swapped) of
#: :func:`_small_tiles`' one-pass plans: narrower tiles read more operand bytes per product than
#: L2 serves (cuBLAS's traced choices on these problems were 40 wide and up, thirty-first session).
SMALL_TILE_MIN_BN = 40
#: The least share of the SMs :func:`_small_tiles`' one-pass tiles must fill.
SMALL_TILE_MIN_FILL = 0.65
#: A plain call whose default is an unswapped split of 128-row tiles into 2 to
#: :data:`SMALL_TILE_MAX_SPLITS` pieces, on 8- or 16-bit K-major operands whose rows (K) are a
#: multiple of 128 bytes as the caller holds them (ragged K, staged by ``gemm``, lost: 0.83-0.85x
#: on three in run 4), with at most this many k-tiles, runs :func:`_small_tiles`' unswapped
#: one-pass plan instead (64 rows x the narrowest BN that fills the SMs, the deepest ring):
#: cuBLAS's own choice on such problems (traced, docs/conformance/2026-11-29-thirty-first-session
#: run 1: 979 x 256 x 3328 bf16 on 64 x 40 tiles, 16 stages, one pass). Measured on an H200
#: (``tests/gpu/gemm/probe.py`` set v70, run 3: every split default of the corpus and seeds 1-16
#: beside both one-pass orientations): the 24 such problems of the corpus and seeds 1-12 ran
#: 1.16x faster in geometric mean (22 faster, 526 x 1664 x 11264 and 558 x 1536 x 14592 e4m3
#: 0.94-0.95x; 548 x 512 x 6144 e4m3 1.37x), the 8 of seeds 13-16 1.20x (584 x 688 x 15360 e4m3
#: 0.92x); with more k-tiles, more splits, swapped or 64-row defaults, or rows off the 128-byte
#: line the one-pass plans lost as often as they won (0.85x over all 212). 0 turns the rule off.
SMALL_TILE_MAX_KTILES = 128
#: The most splits of :data:`SMALL_TILE_MAX_KTILES`' rule. 4 from v70 (5 or more: 0.61-0.84x
#: there); 5 from probe set v95 (thirty-ninth session, H200, run 1: after the cluster exit
#: change, every split default of the corpus and seeds 1-32 beside the small tiles): the nine
#: 5-way splits of 82-108 k-tiles, M 211-851, ran 1.02-1.20x on the small tiles but one (0.98x),
#: three of them in seeds 23-32, which no rule had seen; two 7-way splits of 124 k-tiles
#: 0.89-0.98x. Held out (v96, run 2, stated before it ran: 40 drawn problems the change
#: touched): 1.074x in geometric mean, 27 faster by more than 3%, 2 slower, one of them the only
#: M above v95's range, 1281 x 256 x 6080 bf16, 0.81x (0.91x of cuBLAS's speed -> 0.73x); hence
#: :data:`SMALL_TILE_FIVE_MAX_M`.
SMALL_TILE_MAX_SPLITS = 5
#: The largest M of :data:`SMALL_TILE_MAX_SPLITS`' fifth split (above it, at most 4 splits, as
#: before v95): the fit's problems had M <= 851 and the one held-out problem above 1024 lost.
SMALL_TILE_FIVE_MAX_M = 1024


#: The deepest ring :func:`_small_tiles` asks for (the rule's plans ran 8-16 stages in v70-v71).
SMALL_TILE_MAX_STAGES = 16


def _small_tiles(m, n, k, c, swapped=False):
    """A one-pass plan of 64-row tiles that fills one wave without splitting K, in place of a
    split-K plan ``c``: unswapped, 64 rows of M x BN of N, or ``swapped``, 64 rows of N x BN of M;
    BN the narrowest multiple of 8, at least :data:`SMALL_TILE_MIN_BN`, whose tiles fit the SMs;
    the deepest ring up to :data:`SMALL_TILE_MAX_STAGES` that runs, the unswapped plan through the
    epilogue tile where it fits, else (and the swapped one) from registers. None where ``c`` is
    not such a split or the tiles fill less than :data:`SMALL_TILE_MIN_FILL` of the SMs."""
    from ..tune import DEFAULT_SMS

    if not (c["split_k"] > 1 and not c["stream_k"] and not c["pingpong"]
            and _k_major_bits(c["a_dtype"], c["b_dtype"], c["a_major"], c["b_major"]) in (8, 16)):
        return None
    sms = DEFAULT_SMS["sm90"]
    rows, cols = (-(-n // 64), m) if swapped else (-(-m // 64), n)
    if rows > sms:
        return None
    need = -(-cols // (sms // rows))   # the least width whose tile columns fit the SMs
    w = max(SMALL_TILE_MIN_BN, -(-need // 8) * 8)
    if w > 256 or rows * -(-cols // w) < SMALL_TILE_MIN_FILL * sms:
        return None
    base = dict(c, bm=64, bn=w, swap_ab=swapped, split_k=1, stream_k=0, pingpong=False, cluster_m=1,
                cluster_n=1, epilogue_n=0, epilogue_stages=1, split_reduce="auto")
    for epi in ((False,) if swapped else (True, False)):
        plan = _deepest_ring(lambda stages: normalize_config(dict(base, epilogue=epi, stages=stages)),
                             least=EPILOGUE_MIN_STAGES, most=SMALL_TILE_MAX_STAGES)
        if plan is not None:
            return plan
    return None


#: A plain call whose default is an unswapped split of 128-row tiles on one CTA into at most
#: :data:`SPLIT_64_MAX_SPLITS` pieces, with at most this many work units (tiles x splits), runs
#: a split of 64-row tiles of the same width instead: ``min(132 // (its 64-row tiles), k-tiles //
#: SPLIT_64_MIN_KTILES, SPLIT_K_MAX)`` ways, applied only where that is at least the default's
#: count, at the deepest ring up to :data:`SMALL_TILE_MAX_STAGES`. Few 128-row units leave SMs idle
#: for the whole K loop (378 x 336 x 4544 bf16: 9 tiles x 4 splits on 36 of 132 SMs, its GEMM
#: kernel alone 9.8 us against cuBLAS's whole call, 5.8 + 2.1 us, on 126 CTAs); twice the tiles
#: draw operands through twice the SMs. Measured on an H200 (``tests/gpu/gemm/probe.py``,
#: fortieth session): set v100 (run 2, every such split of the corpus and seeds 1-38 beside four
#: alternatives) found the 64-row split faster at up to 100 units (41 problems of the corpus and
#: seeds 1-34, 1.066x in geometric mean, 6 slower by more than 3%); held out (v101, run 3: 40
#: drawn) that first form failed, 1.028x with 12 slower (264 x 128 x 14384 bf16 0.58x: 12 splits
#: became 26), all of them defaults of 5 or more splits or made fewer splits. This form, at most
#: 4 splits and never fewer: 1.120x on v100's 14 it changes in the corpus and seeds 1-34 (1
#: slower, 0.97x), 1.116x on its 3 of seeds 35-38, 1.175x on v101's 13 (none slower); held out
#: again (v102, run 4: 40 drawn, stated in probe.py) 1.217x, 39 faster by more than 3%, 1 slower
#: (0.90x); cuBLAS's speed over fastswz's 0.884 -> 1.075. 0 turns the rule off.
SPLIT_64_MAX_UNITS = 100
#: The least k-tiles a split of :data:`SPLIT_64_MAX_UNITS`' rule keeps.
SPLIT_64_MIN_KTILES = 8
#: The most splits of a default that :data:`SPLIT_64_MAX_UNITS`' rule replaces.
SPLIT_64_MAX_SPLITS = 4


def _split_rows_64(c, m, n, k):
    """``c``, or :data:`SPLIT_64_MAX_UNITS`' 64-row split where its rule asks for it."""
    from ..tune import DEFAULT_SMS

    if not (c["bm"] == 128 and c["split_k"] > 1 and _unswapped_one_cta(c)):
        return c
    sms = DEFAULT_SMS["sm90"]
    cols = -(-n // c["bn"])
    if -(-m // 128) * cols * c["split_k"] > SPLIT_64_MAX_UNITS or c["split_k"] > SPLIT_64_MAX_SPLITS:
        return c
    splits = min(sms // (-(-m // 64) * cols), -(-k // c["bk"]) // SPLIT_64_MIN_KTILES, SPLIT_K_MAX)
    if splits < c["split_k"]:
        return c
    plan = _deepest_ring(lambda stages: normalize_config(dict(c, bm=64, split_k=splits, stages=stages)),
                         least=EPILOGUE_MIN_STAGES, most=SMALL_TILE_MAX_STAGES)
    return plan or c


#: A plain call whose default is an unswapped 2-way split of 64-row tiles on one CTA (the deep
#: tiles' split, :data:`DEEP_TILE_ONE_WAVE_SPLITS`) with at most this many work units (tiles x
#: splits) splits K 4 ways instead, on the same tile and ring, where each split keeps at least
#: :data:`SPLIT_64_MIN_KTILES` k-tiles: at most 20 such tiles leave 112 SMs idle. Measured on an
#: H200 (``tests/gpu/gemm/probe.py`` set v104, fortieth session run 6: every 64-row split default
#: of the corpus and seeds 1-38 with at most 100 units that could split further, beside fuller
#: splits and half-width tiles): the 31 2-way splits of 64 x 64 tiles with at most 40 units ran
#: 1.171x faster split 4 ways (30 faster by more than 3%, none slower; 4 of them in seeds 35-38),
#: the 31 with 41-64 units 1.022x (9 slower); more splits on the 64 x 128 splits of 4-16 pieces
#: lost (0.67-0.97x). Held out (v105, run 7: 40 drawn, stated in probe.py): 1.229x, all 40 faster
#: (cuBLAS's speed over fastswz's 0.958 -> 1.177). 0 turns the rule off.
SPLIT_DOUBLE_MAX_UNITS = 40


def _split_double(c, m, n, k):
    """``c``, or :data:`SPLIT_DOUBLE_MAX_UNITS`' 4-way split where its rule asks for it."""
    if not (c["bm"] == 64 and c["split_k"] == 2 and _unswapped_one_cta(c)):
        return c
    if (-(-m // 64) * -(-n // c["bn"]) * 2 > SPLIT_DOUBLE_MAX_UNITS
            or -(-k // c["bk"]) // 4 < SPLIT_64_MIN_KTILES):
        return c
    plan = normalize_config(dict(c, split_k=4))
    return plan if supported(plan) is None else c


def _small_tile(c, m, n, k):
    """``c``, or :func:`_small_tiles`' unswapped one-pass plan where
    :data:`SMALL_TILE_MAX_KTILES`' rule asks for it."""
    most = SMALL_TILE_MAX_SPLITS if m <= SMALL_TILE_FIVE_MAX_M else min(SMALL_TILE_MAX_SPLITS, 4)
    if not (c["bm"] == 128 and not c["swap_ab"] and 2 <= c["split_k"] <= most
            and c["cluster_m"] == 1 and c["cluster_n"] == 1 and c["a_major"] == "K" and c["b_major"] == "K"
            and -(-k // c["bk"]) <= SMALL_TILE_MAX_KTILES
            and all(k * dtype_bits(dt) // 8 % 128 == 0 for dt in (c["a_dtype"], c["b_dtype"]))):
        return c
    return _small_tiles(m, n, k, c) or c


def default_out_dtype(a_dtype):
    """The output type of a GEMM given no ``out``: A's own for bf16 and f16 (as torch's matmul),
    f32 for tf32/f32 inputs, bf16 for fp8 (as ``torch._scaled_mm`` is usually asked).

    >>> default_out_dtype("f16"), default_out_dtype("e4m3"), default_out_dtype("tf32")
    ('f16', 'bf16', 'f32')
    """
    return {"f16": "f16", "f32": "f32", "tf32": "f32"}.get(a_dtype, "bf16")


def choose_plan(m, n, k, a_dtype="bf16", b_dtype="bf16", a_major="K", b_major="K",
                out_dtype="bf16", epilogue=None, schedules=True):
    """The configuration :func:`gemm` uses when given no plan (memoized per problem: a repeated
    problem costs a dictionary look-up; ``choose_plan.cache_clear()`` forgets them).

    The best plan of :func:`fastswz.tune`'s model (register-store ranking) that the kernel family
    runs, storing D through the plan's shared-memory epilogue tile and a TMA store when the tile
    fits beside at least :data:`EPILOGUE_MIN_STAGES` stages of the same BM x BN x BK, else from
    registers. Per stage count, from the model's down: where BN is a multiple of
    :data:`EPILOGUE_BLOCK_N` above it, :data:`EPILOGUE_BLOCK_N`-column blocks through
    :data:`EPILOGUE_BLOCK_STAGES` tile, then the whole BM x BN tile, then the blocks through 2
    tiles; else the whole tile. Measured (BENCHMARKS.md, "The epilogue"; the constants' notes): the
    tile's asynchronous store was 12-15% faster than register stores on large fp8 problems on the
    H100 and up to 5% on large bf16 ones, and the one-tile blocks the best epilogue of their tile
    on 15 of 20 corpus problems on an H200.

    Parameters
    ----------
    m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype
        As :func:`gemm`.
    epilogue : bool, optional
        None (default): as above; True: only plans whose epilogue tile fits (with at least
        :data:`EPILOGUE_MIN_STAGES` stages); False: register stores, the model's plan as ranked.
    schedules : bool
        False: no swap-AB or split-K plan (a fused epilogue beyond scales runs in the single-pass
        schedules only: :func:`fastswz.cuda.codegen.scheduled_fusion`).

    Returns
    -------
    dict
        A normalized configuration (:func:`normalize_config`).

    A tuned-plan table (:func:`use_tuned`, ``FASTSWZ_TUNED``) is asked first, when ``epilogue``
    is None: its plan for the problem, or for the nearest problem within its bound
    (:func:`fastswz.cuda.tuned.lookup`); the model only when it has none.

    Raises
    ------
    fastswz.PlanError
        No plan among the model's first 64 runs on the kernel family.

    Examples
    --------
    >>> c = choose_plan(4096, 14336, 4096)
    >>> c["bm"], c["bn"], c["bk"], c["stages"], c["epilogue"], c["epilogue_n"], c["epilogue_stages"]
    (128, 256, 64, 4, True, 64, 1)
    >>> c = choose_plan(512, 512, 32768)         # few output tiles, long K: split-K
    >>> c["bm"], c["bn"], c["split_k"], c["swap_ab"], c["epilogue"]
    (128, 128, 8, False, False)
    """
    return _chosen(m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype, epilogue, schedules, True)


def _chosen(m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype, epilogue, schedules, plain):
    """:func:`choose_plan`'s answer; where not ``plain`` (a fused epilogue's, scales included)
    without :data:`SHORT_K_WHOLE_TILE_KTILES`', :data:`SWAP_SECTOR_MAX_M`'s,
    :data:`ONE_COLUMN_MAX_N`'s, :data:`SMALL_TILE_MAX_KTILES`' and :data:`SWAP_PAD_MAX_FILL`'s
    rules."""
    if epilogue is None and schedules:   # a tuned table's measured winner first (fastswz.cuda.tuned)
        hit = _tuned.lookup(m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype)
        if hit is not None:
            return hit
    return _planned(m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype, epilogue, schedules, plain)


def _planned(m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype, epilogue=None, schedules=True,
             plain=False):
    """:func:`choose_plan`'s plan, memoized per problem, no tuned table asked (:func:`_chosen`
    asks it); :data:`SHORT_K_WHOLE_TILE_KTILES`', :data:`SWAP_SECTOR_MAX_M`'s,
    :data:`ONE_COLUMN_MAX_N`'s, :data:`SMALL_TILE_MAX_KTILES`', :data:`SPLIT_64_MAX_UNITS`',
    :data:`SPLIT_DOUBLE_MAX_UNITS`', :data:`SWAP_PAD_MAX_FILL`'s and
    :data:`QUAD_CLUSTER_MAX_BM`'s rules applied only where ``plain``
    (the plan a fused epilogue builds on leaves them out)."""
    from ..dtypes import dtype as lookup

    key = (m, n, k, lookup(a_dtype).name, lookup(b_dtype).name, str(a_major).upper(),
           str(b_major).upper(), lookup(out_dtype).name, epilogue, bool(schedules), bool(plain))
    hit = _PLAN_MEMO.get(key)
    if hit is None:
        if not plain:
            hit = _choose_plan(*key[:-1])
        else:
            hit = _short_k_whole_tile(_planned(*key[:-1]), m, n, k)
            if epilogue is None and schedules:   # the swapped and split plans store from registers
                for rule in (_sector_swap, _one_column, _small_tile, _split_rows_64, _split_double, _pad_swap,
                             _quad_cluster):   # in this order
                    hit = rule(hit, m, n, k)
        if len(_PLAN_MEMO) >= 65536:
            _PLAN_MEMO.clear()
        _PLAN_MEMO[key] = hit
    return dict(hit)


_PLAN_MEMO = {}
_DEFAULT_MEMO = {}   # default_config's answers: they build on choose_plan's, so they go together


def _clear_plan_memos():
    _PLAN_MEMO.clear()
    _DEFAULT_MEMO.clear()


choose_plan.cache_clear = _clear_plan_memos


def _round_up_bn(c, k):
    """``c``, or its BM x 256 tile through 64-column epilogue blocks with one stage more where
    :data:`ROUND_UP_BN_ABOVE`'s rule applies (``k`` the problem's K; the blocks through two tiles
    where :data:`SHORT_K_TWO_TILES_KTILES`' rule applies and they fit)."""
    k_tiles = -(-k // c["bk"])
    if not (ROUND_UP_BN_ABOVE < c["bn"] < 256 and c["epilogue_n"] == 0
            and c["stages"] <= EPILOGUE_MIN_STAGES and k_tiles <= ROUND_UP_BN_MAX_KTILES):
        return c
    short = k_tiles <= SHORT_K_TWO_TILES_KTILES   # SHORT_K_TWO_TILES_KTILES' two tiles first
    for est in ((2, EPILOGUE_BLOCK_STAGES) if short else (EPILOGUE_BLOCK_STAGES,)):
        wide = dict(c, bn=256, stages=c["stages"] + 1, epilogue_n=EPILOGUE_BLOCK_N, epilogue_stages=est)
        if supported(wide) is None:
            return wide
    return c


def _choose_plan(m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype, epilogue, schedules=True):
    from ..tune import tune

    if epilogue is not True and schedules:   # swap-AB and split-K store from registers
        sched = _schedule_plan(m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype)
        if sched is not None:
            if m >= SECTOR_CLUSTER_DEEP_MIN_M:
                sched = _sector_cluster(sched, m, n, k)
            return _split_cluster(sched, m, n, k)
        # the model's plan, through the memo: the schedule rules may have asked for it already
        return _planned(m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype, epilogue, False)

    first_why = None
    def ranked():
        # the model's first 64 in its order, those with a full-width k-tile first (FULL_WIDTH_BK);
        # its first 8 are asked first: one of those almost always runs, and the 64 cost more
        if _sector_wide_only(m, n, k, a_dtype, b_dtype, a_major, b_major):
            yield from _sector_ranking(tune(m, n, k, a_dtype, b_dtype, a_major, b_major, top=1 << 20), a_dtype)
            return
        wide = lambda r: _full_width(r, a_dtype)   # noqa: E731
        first = tune(m, n, k, a_dtype, b_dtype, a_major, b_major, top=8)
        yield from filter(wide, first)
        rows = tune(m, n, k, a_dtype, b_dtype, a_major, b_major, top=64)
        yield from filter(wide, rows[len(first):])
        yield from (r for r in rows if not wide(r))

    for row in ranked():
        c = normalize_config(row, a_dtype=a_dtype, b_dtype=b_dtype, a_major=a_major,
                             b_major=b_major, out_dtype=out_dtype)
        why = supported(c)
        if why is not None:
            first_why = first_why or why
            continue
        if epilogue is not False:
            blocks = EPILOGUE_BLOCK_N < c["bn"] and c["bn"] % EPILOGUE_BLOCK_N == 0
            tries = ([(EPILOGUE_BLOCK_N, EPILOGUE_BLOCK_STAGES), (0, 1), (EPILOGUE_BLOCK_N, 2)]
                     if blocks else [(0, 1)])
            if blocks and c["bn"] >= SHORT_K_TWO_TILES_BN and -(-k // c["bk"]) <= SHORT_K_TWO_TILES_KTILES:
                tries = [(EPILOGUE_BLOCK_N, 2)] + [t for t in tries if t != (EPILOGUE_BLOCK_N, 2)]
            for stages in range(c["stages"], EPILOGUE_MIN_STAGES - 1, -1):
                for cols, est in tries:
                    with_tile = dict(c, epilogue=True, stages=stages, epilogue_n=cols,
                                     epilogue_stages=est)
                    if supported(with_tile) is None:
                        return _widen_narrow(_sector_cluster(_round_up_bn(with_tile, k), m, n, k))
        if epilogue is not True:
            return _widen_narrow(_sector_cluster(c, m, n, k))
    tile = {None: "", True: ", with the shared-memory epilogue tile", False: ", with register stores"}
    raise PlanError(f"no plan of the model's first 64 runs {a_dtype} x {b_dtype} "
                    f"({a_major}/{b_major}-major){tile[epilogue]} on the sm90 kernel family"
                    + (f"; the first was refused: {first_why}" if first_why else ""))



def split_k_splits(tiles, k_tiles, sms=None, min_ktiles=None, ctas=None, most=None, per_split=None):
    """The K splits :func:`choose_plan` gives a plan with ``tiles`` output tiles (work units
    without split) and ``k_tiles`` k-tiles per tile: 1 unless the tiles fill at most
    :data:`SPLIT_K_FILL` of the SMs and K has two splits of :data:`SPLIT_K_MIN_KTILES`; else
    enough splits that tiles x splits is about the SM count, each split keeping at least
    :data:`SPLIT_K_MIN_KTILES` k-tiles, at most :data:`SPLIT_K_MAX`. ``min_ktiles`` replaces
    :data:`SPLIT_K_MIN_KTILES` (the unswapped rule passes :data:`SPLIT_K_MIN_KTILES_MN`); ``ctas``
    replaces the SM count as the work units (tiles x splits) to aim at (:data:`SPLIT_K_MN_CTAS`,
    :data:`SPLIT_K_SWAP_UNITS`); ``most`` replaces :data:`SPLIT_K_MAX`; ``per_split``, where given,
    is the k-tiles a split counts with (the decision to split keeps ``min_ktiles``).

    >>> split_k_splits(4, 1024), split_k_splits(32, 32), split_k_splits(512, 64), split_k_splits(8, 12)
    (32, 4, 1, 1)
    >>> split_k_splits(4, 1024, ctas=64, most=16), split_k_splits(8, 42, min_ktiles=16, per_split=8)
    (16, 5)
    """
    from ..tune import DEFAULT_SMS

    sms = sms or DEFAULT_SMS["sm90"]
    least = SPLIT_K_MIN_KTILES if min_ktiles is None else min_ktiles
    if tiles > SPLIT_K_FILL * sms or k_tiles < 2 * least:
        return 1
    return max(1, min((ctas or sms) // tiles, k_tiles // (per_split or least), most or SPLIT_K_MAX))


def schedule_frame(m, n, a_dtype, b_dtype, a_major, b_major, swap):
    """The kernel's problem of a swap-AB plan: ``(km, kn, (a_dtype, a_major), (b_dtype,
    b_major))`` as :func:`fastswz.tune` ranks it (swapped, the kernel's A is the caller's B and
    its M the caller's N); unchanged without the swap.

    >>> schedule_frame(16, 4096, "bf16", "e4m3", "K", "K", True)
    (4096, 16, ('e4m3', 'K'), ('bf16', 'K'))
    """
    types = ((a_dtype, a_major), (b_dtype, b_major))
    return (n, m, types[1], types[0]) if swap else (m, n, types[0], types[1])


def schedule_config(row, a_dtype, b_dtype, a_major, b_major, out_dtype, swap, split_k=1):
    """The register-store configuration of a :func:`fastswz.tune` row ranked in
    :func:`schedule_frame`'s frame, with swap-AB and ``split_k``: the row's swizzles name the
    kernel's operands, so a swapped row's are exchanged."""
    c = normalize_config(row, a_dtype=a_dtype, b_dtype=b_dtype, a_major=a_major, b_major=b_major,
                         out_dtype=out_dtype, epilogue=False, swap_ab=swap, split_k=split_k)
    if swap:
        c["swizzle_a"], c["swizzle_b"] = row["swizzle_b"], row["swizzle_a"]
    return c


def _schedule_plan(m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype):
    """A swap-AB and/or split-K plan by the rules above (SWAP_AB_MAX_M, split_k_splits), or None
    when neither applies (the caller goes on with the model's plan and its epilogue rules)."""
    from ..tune import tune

    swapped = _swap_long_k_plan(m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype)
    if swapped is not None:
        return swapped
    deep = _deep_tile_plan(m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype)
    if deep is not None:
        return deep
    if m > SPLIT_K_SWAP_M:   # an unswapped split on a BM x 128 tile (SPLIT_K_SWAP_M's note)
        split = _split_mn_plan(m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype)
        if split is not None:
            if m > DEEP_TILE_MAX_M and split["bn"] <= 128 and split["split_k"] == DEEP_TILE_ONE_WAVE_SPLITS:
                deep = _deep_tile_plan(m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype, True)
                if deep is not None:
                    return deep
            return (_swap_deep_plan(m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype)
                    or _swap_whole_m_plan(m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype) or split)
        wide = _narrow_split_plan(m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype)
        if wide is not None:
            return wide
        wide = _wide_n_plan(m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype)
        if wide is not None:
            return wide
    swap = m <= SWAP_AB_MAX_M and n > m
    km, kn, (ta, ma), (tb, mb) = schedule_frame(m, n, a_dtype, b_dtype, a_major, b_major, swap)

    def config(row):
        return schedule_config(row, a_dtype, b_dtype, a_major, b_major, out_dtype, swap)

    def splits(c):
        tiles = -(-km // c["bm"]) * -(-kn // c["bn"])
        return split_k_splits(tiles, -(-k // c["bk"]))

    def ranked():   # the model's first 8, then its first 64 only if none of those runs; in
        # each of the two parts full-width k-tiles first (the one-pass ranking puts every full-width
        # row of the 64 before any narrow one); off the sector (SECTOR_FULL_WIDTH_BITS) every
        # full-width row of the whole ranking before any narrow one
        if _sector_wide_only(m, n, k, a_dtype, b_dtype, a_major, b_major):
            yield from _sector_ranking(tune(km, kn, k, ta, tb, ma, mb, top=1 << 20), ta)
            return
        rows = tune(km, kn, k, ta, tb, ma, mb, top=8)
        yield from _full_width_first(rows, ta)
        yield from _full_width_first(tune(km, kn, k, ta, tb, ma, mb, top=64)[len(rows):], ta)

    first = next((c for c in map(config, ranked()) if supported(c) is None), None)
    if first is None:
        return None
    if splits(first) > 1:
        want_m = min(SPLIT_K_TILE[0], -(-km // 64) * 64)
        want_n = min(SPLIT_K_TILE[1], -(-kn // 8) * 8)
        bits = _k_major_bits(ta, tb, ma, mb)
        if swap and bits in (8, 16):
            # SPLIT_K_SWAP_TILE_M's rule: a 64-row tile, 256-byte k-tiles, a deep ring
            base = {"bm": SPLIT_K_SWAP_TILE_M, "bn": want_n, "bk": 2048 // bits, "epilogue": False,
                    "swizzle_a": "128B", "swizzle_b": "128B"}
            c = _deepest_ring(lambda stages: config(dict(base, stages=stages)))
            if c is not None:
                s = _swap_splits(-(-km // c["bm"]) * -(-kn // c["bn"]), -(-k // c["bk"]), bits)
                if s == 1:
                    return c
                if supported(dict(c, split_k=s)) is None:
                    return dict(c, split_k=s)
        every = _full_width_first(tune(km, kn, k, ta, tb, ma, mb, top=1 << 20), ta)
        for c in map(config, every):
            if c["bm"] >= want_m and c["bn"] >= want_n and supported(c) is None:
                s = splits(c)
                if s > 1 and supported(dict(c, split_k=s)) is None:
                    return dict(c, split_k=s)
                break
    return first if swap else None


def _swap_deep_plan(m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype):
    """The swapped one-pass plan of :data:`SWAP_DEEP_MAX_K`'s rule, or None where it does not
    apply (the caller keeps the unswapped split)."""
    bits = _k_major_bits(a_dtype, b_dtype, a_major, b_major)
    if not (m <= SWAP_AB_MAX_M and k <= (SWAP_DEEP_MAX_K_8BIT if bits == 8 else SWAP_DEEP_MAX_K) and bits in (8, 16)
            and -(-n // 64) >= SWAP_DEEP_MIN_TILES):
        return None
    return _whole_m_swapped(m, bits, a_dtype, b_dtype, a_major, b_major, out_dtype)


def _swap_whole_m_plan(m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype):
    """The swapped plan of :data:`SWAP_SPLIT_MIN_TILES`' rule, or None where it does not apply
    (the caller keeps the unswapped split)."""
    bits = _k_major_bits(a_dtype, b_dtype, a_major, b_major)
    tiles = -(-n // 64)
    if not (m <= SWAP_AB_MAX_M and bits in (8, 16) and tiles >= SWAP_SPLIT_MIN_TILES):
        return None
    split = _swap_splits(tiles, -(-k // (2048 // bits)), bits)
    if split == 1 and m > SWAP_SPLIT_ONE_PASS_MAX_M and _rows_off(m, n, k, a_dtype, b_dtype, a_major, b_major, 128):
        return None
    return _whole_m_swapped(m, bits, a_dtype, b_dtype, a_major, b_major, out_dtype, split)


def _whole_m_swapped(m, bits, a_dtype, b_dtype, a_major, b_major, out_dtype, split=1):
    """The swapped plan on one column tile covering M (64 x (M rounded up to 8), 256-byte
    k-tiles of ``bits``-bit operands, ``split`` K splits) at the deepest ring up to
    :data:`DEEP_TILE_MAX_STAGES` that runs, or None: :data:`SWAP_DEEP_MAX_K`'s and
    :data:`SWAP_SPLIT_MIN_TILES`' plan."""
    base = {"bm": 64, "bn": -(-m // 8) * 8, "bk": 2048 // bits, "epilogue": False,
            "swizzle_a": "128B", "swizzle_b": "128B"}
    return _deepest_ring(lambda stages: schedule_config(dict(base, stages=stages), a_dtype, b_dtype,
                                                        a_major, b_major, out_dtype, True, split))


def _swap_splits(tiles, k_tiles, bits):
    """The K splits of a swapped plan with ``tiles`` 64-row tiles and ``k_tiles`` k-tiles of
    ``bits``-bit operands (:data:`SPLIT_K_SWAP_TILE_M`'s rule: at least
    :data:`SPLIT_K_SWAP_MIN_KTILES` (8-bit) or :data:`SPLIT_K_MIN_KTILES` k-tiles a split,
    :data:`SPLIT_K_SWAP_UNITS` work units, at most :data:`SPLIT_K_SWAP_MAX` splits)."""
    least = SPLIT_K_SWAP_MIN_KTILES if bits == 8 else SPLIT_K_MIN_KTILES
    return split_k_splits(tiles, k_tiles, min_ktiles=least, ctas=SPLIT_K_SWAP_UNITS, most=SPLIT_K_SWAP_MAX)


def _swap_long_k_plan(m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype):
    """The swapped split plan of :data:`SWAP_LONG_K_MAX_M`'s rule, or None where it does not
    apply."""
    bits = _k_major_bits(a_dtype, b_dtype, a_major, b_major)
    bk = 8 * FULL_WIDTH_BK // bits if bits else 0
    if not (bits == 16 and SWAP_AB_MAX_M < m <= SWAP_LONG_K_MAX_M and -(-k // bk) >= SWAP_LONG_K_MIN_KTILES):
        return None
    pieces, bn, tiles, split = _swap_pieces(m, n, k, bk)
    one_pass = split == 1 and pieces <= len(SWAP_LONG_K_ONE_PASS_MAX_BN) and bn <= SWAP_LONG_K_ONE_PASS_MAX_BN[pieces - 1]
    if tiles < SWAP_LONG_K_MIN_TILES or (split < 2 and not one_pass) or pieces * bn >= -(-m // 128) * 128:
        return None   # (the last: the pieces pad M as much as 128-row tiles do, nothing to gain)
    return _swapped_split(bn, bk, split, a_dtype, b_dtype, a_major, b_major, out_dtype)


def _swap_pieces(m, n, k, bk):
    """``(pieces, bn, tiles, split)`` of the swapped split that :data:`SWAP_LONG_K_MAX_M`'s and
    :data:`SWAP_SECTOR_MAX_M`'s rules run: M in the fewest pieces of at most 256 columns, each
    rounded up to 8 (BN); 128 rows of N by those pieces (tiles); K (k-tiles of ``bk``) split
    ``min(132 // tiles, k-tiles // 8, SPLIT_K_SWAP_MAX)`` ways (0 where the tiles pass 132).

    >>> _swap_pieces(189, 4336, 31248, 128), _swap_pieces(300, 2000, 8192, 64)
    ((1, 192, 34, 3), (2, 152, 32, 4))
    """
    from ..tune import DEFAULT_SMS

    pieces = -(-m // 256)
    bn = -(-m // (8 * pieces)) * 8   # ceil(ceil(M / pieces) / 8) * 8
    tiles = -(-n // 128) * pieces
    return pieces, bn, tiles, min(DEFAULT_SMS["sm90"] // tiles, -(-k // bk) // 8, SPLIT_K_SWAP_MAX)


def _swapped_split(bn, bk, split, a_dtype, b_dtype, a_major, b_major, out_dtype, bm=128):
    """The swapped plan of ``bm`` (128) rows of N by ``bn`` columns of M, ``bk`` k-tiles,
    ``split`` K splits, registers storing D, at the deepest ring up to
    :data:`DEEP_TILE_MAX_STAGES` that runs, or None (:func:`_swap_pieces`' plan)."""
    base = {"bm": bm, "bn": bn, "bk": bk, "epilogue": False, "split_k": split, "swizzle_a": "auto",
            "swizzle_b": "auto"}
    return _deepest_ring(lambda stages: schedule_config(dict(base, stages=stages), a_dtype, b_dtype,
                                                        a_major, b_major, out_dtype, True, split))


def _k_major_bits(a_dtype, b_dtype, a_major, b_major):
    """The operands' element width in bits where both are K-major and of one width (the domain
    of the 64-row and swapped rules, with 8 or 16), else 0."""
    bits = dtype_bits(a_dtype)
    same = dtype_bits(b_dtype) == bits and str(a_major).upper() == "K" == str(b_major).upper()
    return bits if same else 0


def _deepest_ring(make, least=2, most=None):
    """``make(stages)`` at the most stages, at most ``most`` (default
    :data:`DEEP_TILE_MAX_STAGES`) and at least ``least``, that the kernel family runs; None where
    none does."""
    for stages in range(most or DEEP_TILE_MAX_STAGES, least - 1, -1):
        c = make(stages)
        if supported(c) is None:
            return c
    return None


def _deep_tile_plan(m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype, one_wave=False):
    """The 64-row plan of :data:`DEEP_TILE_MAX_M`'s rule, or None where it does not apply; with
    ``one_wave``, of :data:`DEEP_TILE_ONE_WAVE_SPLITS`' (any M above 64, one pass only)."""
    from ..tune import DEFAULT_SMS

    bits = _k_major_bits(a_dtype, b_dtype, a_major, b_major)
    if not (64 < m and (one_wave or m <= DEEP_TILE_MAX_M) and k <= DEEP_TILE_MAX_K and bits in (8, 16)):
        return None
    sms = DEFAULT_SMS["sm90"]
    rows = -(-m // 64)
    bn = next((w for w in DEEP_TILE_BN if rows * -(-n // w) <= sms), None)
    if bn is None:
        return None
    bk = 8 * FULL_WIDTH_BK // bits
    tiles = rows * -(-n // bn)
    split = split_k_splits(tiles, -(-k // bk), min_ktiles=DEEP_TILE_SPLIT_MIN_KTILES)
    if (split == 1 and not one_wave and tiles <= DEEP_TILE_FEW_TILES
            and -(-k // bk) >= 2 * DEEP_TILE_FEW_MIN_KTILES):
        split = 2
    if split > (1 if one_wave else 2):   # long K on few tiles: SPLIT_K_SWAP_M's rule splits wider tiles further
        return None
    base = {"bm": 64, "bn": bn, "bk": bk, "split_k": split}
    # one pass: the shared-memory epilogue tile (64-column blocks where BN is a multiple of 64
    # above it) beside the deepest ring that still fits; a split stores from registers
    tile = ({"epilogue": True, "epilogue_n": EPILOGUE_BLOCK_N if bn > EPILOGUE_BLOCK_N
             and bn % EPILOGUE_BLOCK_N == 0 else 0, "epilogue_stages": 1} if split == 1 else None)
    for extra in (tile, {"epilogue": False}):
        if extra is None:
            continue
        c = _deepest_ring(lambda stages: normalize_config(
            dict(base, stages=stages, **extra), a_dtype=a_dtype, b_dtype=b_dtype,
            a_major=a_major, b_major=b_major, out_dtype=out_dtype), EPILOGUE_MIN_STAGES)
        if c is not None:
            return c
    return None


#: The deepest stage ring the 64-row rules (:data:`DEEP_TILE_MAX_M`, :data:`WIDE_N_MIN_TILES`)
#: take. Measured on an H100 (``tests/gpu/gemm/probe.py`` set v6, 38 plans on each of 14 problems,
#: M 96-256; docs/conformance/2026-11-27-eighth-session/run4-probe-v6-h100): 8 stages were as fast
#: as the deepest ring that fits (9-16) or faster (128 x 4608 x 3584 bf16 on 64 x 80 tiles: 18.7
#: against 19.1 us with 11), 5-6 stages up to 13% slower.
DEEP_TILE_MAX_STAGES = 8


def _wide_n_plan(m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype):
    """The unswapped 64-row plan of :data:`WIDE_N_MIN_TILES`' rule, or None where it does not
    apply (the caller goes on to the swapped plan)."""
    bits = _k_major_bits(a_dtype, b_dtype, a_major, b_major)
    if not (SPLIT_K_SWAP_M < m <= SWAP_AB_MAX_M and k <= WIDE_N_MAX_K and bits in (8, 16)
            and -(-n // 128) >= WIDE_N_MIN_TILES):
        return None
    bn = max(WIDE_N_BN, key=lambda w: (_tuned.wave_fill({"bm": 64, "bn": w}, m, n), -w))
    base = {"bm": 64, "bn": bn, "bk": 8 * FULL_WIDTH_BK // bits, "epilogue": True,
            "epilogue_n": EPILOGUE_BLOCK_N, "epilogue_stages": 2}
    return _deepest_ring(lambda stages: normalize_config(
        dict(base, stages=stages), a_dtype=a_dtype, b_dtype=b_dtype, a_major=a_major,
        b_major=b_major, out_dtype=out_dtype), EPILOGUE_MIN_STAGES)


def _split_mn_plan(m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype):
    """The unswapped split-K plan of :data:`SPLIT_K_SWAP_M`'s rule, or None: the model's best row
    of the BM x BN tile (BM and the split count by :data:`SPLIT_K_MN_CTAS`' rule; BN 128, or N
    rounded up to 8 below it; 128 x 256 first where :data:`WIDE_SPLIT_FLOP_PER_BYTE`'s rule
    applies)."""
    if _rows_off(m, n, k, a_dtype, b_dtype, a_major, b_major, 128):   # off the L2 line
        wide = _wide_split(m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype,
                           WIDE_SPLIT_OFF_LINE_MIN_KTILES)
        if wide is not None:
            return wide
    bn = min(128, -(-n // 8) * 8)
    if m <= 64 or (m <= SPLIT_K_MN_FEW_MAX_M and -(-m // 128) * -(-n // bn) <= SPLIT_K_MN_FEW_TILES):
        # SPLIT_K_MN_CTAS' rule: 64-row tiles; few of them aim at SPLIT_K_MN_CTAS units
        few = -(-m // 64) * -(-n // bn) <= SPLIT_K_MN_FEW_UNITS_TILES
        c = _split_on(m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype, 64, bn,
                      SPLIT_K_MIN_KTILES_MN, SPLIT_K_MN_CTAS if few else None,
                      most=SPLIT_K_MN_MOST, per_split=SPLIT_K_MN_PER_SPLIT)
        if c is not None and few and m > 64 and c["split_k"] <= SPLIT_K_MN_DOUBLE_MAX:
            twice = dict(c, split_k=min(2 * c["split_k"], -(-k // c["bk"]) // SPLIT_K_MN_PER_SPLIT))
            c = twice if supported(twice) is None else c
        if c is not None or m <= 64:
            return c
    return _split_on(m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype, 128, bn,
                     SPLIT_K_MIN_KTILES_MN, most=SPLIT_K_MN_WIDE_MOST)


def _wide_split(m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype, per_split=None):
    """The 128 x 256 split (BN the problem's N rounded up to 8 below 256, above it N's tile
    columns evened out by :func:`_even_bn`; at least :data:`WIDE_SPLIT_MIN_KTILES` k-tiles a
    split) that :data:`WIDE_SPLIT_FLOP_PER_BYTE`'s and :data:`NARROW_TILE_AREA`'s rules take, for
    a compute-bound problem with M above 64 and N above 128; None elsewhere or where
    :func:`_split_on` gives none."""
    if not (m > 64 and n > 128 and _compute_bound(m, n, k, a_dtype, b_dtype, out_dtype)):
        return None
    return _split_on(m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype, 128,
                     _even_bn(n, min(256, -(-n // 8) * 8)), WIDE_SPLIT_MIN_KTILES, per_split=per_split)


def _narrow_split_plan(m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype):
    """The 128 x 256 split of :data:`NARROW_TILE_AREA`'s rule, or None where it does not apply."""
    if k * dtype_bits(a_dtype) < 8 * 128 * NARROW_SPLIT_MIN_KTILES or m <= 64 or n <= 128:
        return None   # (the cheap conditions before the one-pass plan is asked for)
    one = _planned(m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype, None, False)
    if one["bm"] * one["bn"] > NARROW_TILE_AREA or one["split_k"] != 1:
        return None
    return _wide_split(m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype)


def _compute_bound(m, n, k, a_dtype, b_dtype, out_dtype):
    """Whether the problem has at least ``WIDE_SPLIT_FLOP_PER_BYTE x 16 / bits`` FLOPs per byte
    of A, B and D (``bits`` the operands' mean width: 256 for bf16, 512 for fp8)."""
    bits = (dtype_bits(a_dtype) + dtype_bits(b_dtype)) / 2
    moved = (m * k * dtype_bits(a_dtype) + k * n * dtype_bits(b_dtype) + m * n * dtype_bits(out_dtype)) / 8
    return 2 * m * n * k >= WIDE_SPLIT_FLOP_PER_BYTE * 16 / bits * moved


#: The 128 x 256 split of :data:`WIDE_SPLIT_FLOP_PER_BYTE`'s and :data:`NARROW_TILE_AREA`'s rules,
#: where N takes two or more of its tile columns, takes them of equal width instead: BN the
#: columns' mean, rounded up to this many (the model's grid of BN). The tiles and splits stay as
#: many, and each CTA's work shrinks with its BN (N = 416 is 256 + 160 columns on 128 x 256 tiles,
#: 208 + 208 on 128 x 208: the slowest CTA does 0.81 of the work). Measured on an H200
#: (``tests/gpu/gemm/probe.py`` sets v53 and v54, docs/conformance/2026-11-29-twenty-fourth-session
#: runs 1-2): in v53 the 11 problems whose default was such a split without a cluster ran
#: 1.02-1.24x faster on the even tile at the same split (4193 x 416 x 8752 bf16 71.5 -> 57.6 us,
#: cuBLAS 56.8); v54 held the rule out (the rule's plan against the plan before it): over the 18
#: such problems v53 had not timed 1.143x in geometric mean, 13 faster by > 3%, one slower (451 x
#: 636 x 12576 bf16, 11 splits, 0.955x); 28 in all 1.138x. v54 also timed the rule on the split
#: rules' 128- and 64-row tiles of 128 columns (it was first written in :func:`_split_on`):
#: 1.024x and 1.009x over 26 and 28, 0.83-0.89x on four with 10-12 splits, so it stays on the
#: 128 x 256 split.
SPLIT_EVEN_BN_STEP = 16
#: The fewest tile columns for :data:`SPLIT_EVEN_BN_STEP`'s rule (1 << 30 switches it off).
SPLIT_EVEN_MIN_COLUMNS = 2


def _even_bn(n, bn):
    """The width of ``-(-n // bn)`` equal tile columns covering N (:data:`SPLIT_EVEN_BN_STEP`'s
    rule), or ``bn`` where N takes fewer than :data:`SPLIT_EVEN_MIN_COLUMNS` columns.

    >>> _even_bn(416, 256), _even_bn(1136, 256), _even_bn(256, 256), _even_bn(1464, 256)
    (208, 240, 256, 256)
    """
    cols = -(-n // bn)
    if cols < SPLIT_EVEN_MIN_COLUMNS:
        return bn
    even = -(-(-(-n // cols)) // SPLIT_EVEN_BN_STEP) * SPLIT_EVEN_BN_STEP
    return even if -(-n // even) == cols else bn


def _split_on(m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype, bm, bn, min_ktiles, ctas=None,
              most=None, per_split=None):
    """The model's best split-K row of the BM x BN tile (full-width k-tiles first), split by
    :func:`split_k_splits` with ``min_ktiles`` and ``ctas``; None where those tiles do not leave
    SMs idle or K is too short to split (``most`` and ``per_split`` as :func:`split_k_splits`)."""
    from ..tune import DEFAULT_SMS, tune

    tiles = -(-m // bm) * -(-n // bn)
    if tiles > SPLIT_K_FILL * DEFAULT_SMS["sm90"]:   # split_k_splits is 1 whatever the BK
        return None
    for row in _full_width_first(tune(m, n, k, a_dtype, b_dtype, a_major, b_major, top=1 << 20,
                                      bm=bm, bn=bn), a_dtype):
        c = normalize_config(row, a_dtype=a_dtype, b_dtype=b_dtype, a_major=a_major, b_major=b_major,
                             out_dtype=out_dtype, epilogue=False)
        s = split_k_splits(tiles, -(-k // c["bk"]), min_ktiles=min_ktiles, ctas=ctas, most=most,
                           per_split=per_split)
        if s == 1:
            return None
        c = dict(c, split_k=s)
        if supported(c) is None:
            return c
    return None


# -- the call path: tensors -> prepared call -> launch ----------------------------------------------
# A call on a combination already seen (types, shapes, strides, devices, output) finds its
# prepared _Call in _CALLS and does no planning, no compile, no file read and no module load:
# pointers, the caller's stream and one C launch (fastswz.cuda._driver). Everything that
# decides the kernel is in the key, so the rules below run once per key.

# a memo of choose_plan (its cache_clear) forgets its answers whenever the active table changes
_tuned.on_change(lambda: getattr(choose_plan, "cache_clear", lambda: None)())
# ... and so do the prepared calls of gemm's fast path, which hold the plans chosen before
_tuned.on_change(lambda: _CALLS.clear())

_TORCH_DTYPES = {"torch.bfloat16": "bf16", "torch.float16": "f16", "torch.float32": "f32",
                 "torch.float8_e4m3fn": "e4m3", "torch.float8_e5m2": "e5m2"}
_TYPESTR = {"<f2": "f16", "<f4": "f32"}
_CALLS = {}
_MAX_CALLS = 4096
_FAST_TYPES = set()     # torch.Tensor and nn.Parameter once torch has been seen
_torch_stream = None    # torch._C._cuda_getCurrentRawStream, once torch has been seen


class _Operand:
    """Pointer, shape, element strides, dtype and GPU of a CUDA array (torch, cupy, DLPack)."""

    def __init__(self, x, name, dtype=None, ndim=2):
        from ..dtypes import dtype as lookup

        self.obj, self.name = x, name
        if hasattr(x, "data_ptr") and hasattr(x, "stride") and hasattr(x, "is_cuda"):
            if not x.is_cuda:
                raise GemmArgumentError(f"{name} is a CPU tensor: move it to the GPU (.cuda())")
            self.ptr, self.shape, self.strides = x.data_ptr(), tuple(x.shape), tuple(x.stride())
            dt = _TORCH_DTYPES.get(str(x.dtype))
            self.kind, self.device = "torch", x.get_device()
            _note_torch(type(x))
        elif hasattr(x, "__cuda_array_interface__"):
            cai = x.__cuda_array_interface__
            self.ptr, self.shape = int(cai["data"][0]), tuple(cai["shape"])
            item = int(cai["typestr"][2:])
            st = cai.get("strides")
            if st is None:
                st, acc = [], item
                for s in reversed(self.shape):
                    st.insert(0, acc)
                    acc *= s
            if any(s % item for s in st):
                raise GemmArgumentError(f"{name} has byte strides {tuple(st)}, not whole elements of "
                                        f"{item} bytes: copy it to a contiguous array first")
            self.strides = tuple(s // item for s in st)
            dt = _TYPESTR.get(cai["typestr"])
            self.kind = "cupy" if type(x).__module__.startswith("cupy") else "cai"
            self.device = x.device.id if self.kind == "cupy" else None
        elif hasattr(x, "__dlpack__"):
            # DLPack device types: 2 CUDA, 13 CUDA managed (what the TMA reads); 1 CPU, 3 pinned host.
            kind, dev = x.__dlpack_device__() if hasattr(x, "__dlpack_device__") else (None, None)
            if kind not in (2, 13):
                raise GemmArgumentError(
                    f"{name} is a {type(x).__name__} in host memory (DLPack device type {kind}): "
                    f"copy it to the GPU first (cupy.asarray, torch.as_tensor(..., device='cuda'))")
            from cuda.core.utils import StridedMemoryView

            v = StridedMemoryView.from_dlpack(x, -1)
            self.ptr, self.shape = int(v.ptr), tuple(v.shape)
            self.strides = tuple(v.strides) if v.strides is not None else None
            if self.strides is None:
                st, acc = [], 1
                for s in reversed(self.shape):
                    st.insert(0, acc)
                    acc *= s
                self.strides = tuple(st)
            dt = None
            self.kind, self.device = "dlpack", int(dev) if kind == 2 else None
        else:
            raise GemmArgumentError(
                f"{name} is a {type(x).__name__}: pass a CUDA array (torch, cupy or any DLPack "
                f"producer), or call GemmKernel.launch with device pointers")
        if dtype is not None:
            dt = lookup(dtype).name
        if dt is None and name not in ("a", "b", "out"):
            raise GemmArgumentError(
                f"{name}: its element type is not one the epilogue reads by itself (cupy has no "
                f"bf16): pass a torch tensor, or f16/f32 ({name} of bf16, f16 or f32; scales f32)")
        if dt is None:
            raise GemmArgumentError(
                f"{name}: its element type is not one the kernels read by itself (bf16 and fp8 "
                f"arrays from cupy are raw uint16/uint8): pass {name[0] if name != 'out' else 'out'}"
                f"_dtype='bf16' (or 'e4m3', ...)")
        self.dtype = dt
        if ndim is not None and len(self.shape) != ndim:
            raise GemmArgumentError(f"{name} has shape {self.shape}: the GEMM takes 2-D matrices")
        if self.device is None:
            from . import runtime

            self.device = runtime.pointer_device(self.ptr)

    def layout(self):
        """('row' | 'col', leading dimension in elements), or an error naming the rule: one
        dimension contiguous (stride 1), the other's stride at least the contiguous extent."""
        r, c = self.shape
        sr, sc = self.strides
        if r > 1 and sr <= 0 or c > 1 and sc <= 0:
            bad = 0 if r > 1 and sr <= 0 else 1
            what = "a broadcast (expand) view" if self.strides[bad] == 0 else "a reversed view"
            raise GemmArgumentError(
                f"{self.name} has stride {self.strides[bad]} in dimension {bad} ({what}): the TMA "
                f"reads every row from its own memory; pass {self.name}.contiguous()")
        if sc == 1 or c == 1:
            ld = sr if r > 1 else c
            if ld < c:
                raise GemmArgumentError(
                    f"{self.name} has shape {self.shape} and strides {self.strides}: its rows "
                    f"overlap (row stride {sr} < {c} columns); pass {self.name}.contiguous()")
            return "row", ld
        if sr == 1 or r == 1:
            ld = sc if c > 1 else r
            if ld < r:
                raise GemmArgumentError(
                    f"{self.name} has shape {self.shape} and strides {self.strides}: its columns "
                    f"overlap (column stride {sc} < {r} rows); pass {self.name}.contiguous()")
            return "col", ld
        raise GemmArgumentError(
            f"{self.name} has strides {self.strides}: one of its two dimensions must be "
            f"contiguous (stride 1); copy it with .contiguous() first")


def _note_torch(cls):
    global _torch_stream
    if cls not in _FAST_TYPES:
        import torch

        _FAST_TYPES.update((torch.Tensor, torch.nn.Parameter, cls))
        _torch_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None) or (
            lambda d: torch.cuda.current_stream(d).cuda_stream)


def _aligned(ptr, ld, e):
    return ptr % 16 == 0 and (ld * e) % 16 == 0


#: ``gemm`` copies A into rows of :data:`runtime.STAGED_PITCH` bytes, though the TMA could read it
#: in place, when A is 8-bit and K-major with a row pitch a multiple of 16 bytes but not of 32 (its
#: 128-byte box rows then span five 32-byte sectors, every other row), M is at most
#: ``STAGE_A_MAX_M``, N at least :data:`STAGE_A_MIN_N` and :data:`STAGE_A_N_OVER_M` x M (every row
#: of A is read by N / BN tiles), K at least :data:`STAGE_A_MIN_K` and the product at least
#: :data:`STAGE_A_MIN_FLOP` (the copy's fixed cost, about 5 us). Measured on an H200
#: (``tests/gpu/gemm/stage_probe.py``; docs/conformance/2026-11-28-nineteenth-session, runs 3-5):
#: on the 76 problems of the corpus and fresh seeds 1-8 with such rows and M, N >= 256 the default
#: plan ran 1.0-1.64x faster with A's rows padded, most where M is small and N large (272 x 13440
#: x 25616 e4m3 345.4 -> 236.4 us, cuBLAS 161.8); the copy (``cuMemcpy2DAsync``) and the launch
#: timed as one were 1.02-1.42x faster than the packed launch on the 10 problems of this region
#: (geometric mean 1.20x) and slower on most outside it. Held out, 30 problems drawn in the
#: region (seed 20261208): 1.108x in geometric mean, 25 faster, 0.89x the least, every loss a
#: product under 6 GFLOP or within 1% (1420 x 6502 x 2224); the FLOP floor was set after that run
#: (with it, 25 problems, 1.142x, least 0.99x).
STAGE_A_MAX_M = 1536
#: The least N of :data:`STAGE_A_MAX_M`'s rule.
STAGE_A_MIN_N = 4096
#: The least N / M of :data:`STAGE_A_MAX_M`'s rule.
STAGE_A_N_OVER_M = 4
#: The least K of :data:`STAGE_A_MAX_M`'s rule.
STAGE_A_MIN_K = 768
#: The least product (2 M N K, FLOPs) of :data:`STAGE_A_MAX_M`'s rule.
STAGE_A_MIN_FLOP = 6e9


def stages_a(m, n, k, a_dtype, a_major="K", lda=None):
    """Whether :func:`gemm` copies A into padded rows by :data:`STAGE_A_MAX_M`'s rule (rows off
    the 32-byte sector of an 8-bit, K-major A that many tiles re-read); ``lda`` is A's row pitch
    in elements (default K, a packed A). The copy (``cuMemcpy2DAsync`` on the call's stream) is
    part of every such call, the prepared ones included, and of what ``benchmarks/gpu_corpus.py``
    times.

    >>> stages_a(272, 13440, 25616, "e4m3"), stages_a(272, 13440, 25600, "e4m3")
    (True, False)
    >>> stages_a(272, 13440, 25616, "bf16"), stages_a(3839, 7120, 784, "e4m3")
    (False, False)
    """
    if dtype_bits(a_dtype) != 8 or str(a_major).upper() != "K":
        return False
    pitch = k if lda is None else lda
    return (pitch % 32 == 16 and m <= STAGE_A_MAX_M and n >= max(STAGE_A_MIN_N, STAGE_A_N_OVER_M * m)
            and k >= STAGE_A_MIN_K and 2 * m * n * k >= STAGE_A_MIN_FLOP)


def _stream_handle(stream, kind, device):
    """The CUstream (int) a call runs on: ``stream`` (an int handle, a torch or cupy stream, or
    any object with ``__cuda_stream__``), else the current stream of the framework that owns the
    tensors, else 0 (the legacy default stream)."""
    if stream is None:
        if kind == "torch":
            return int(_torch_stream(device))
        if kind == "cupy":
            import cupy

            return int(cupy.cuda.get_current_stream().ptr)
        return 0
    if isinstance(stream, int):
        return stream
    if hasattr(stream, "cuda_stream"):      # torch.cuda.Stream
        return int(stream.cuda_stream)
    if hasattr(stream, "__cuda_stream__"):  # the CUDA stream protocol (cuda.core, cupy >= 13)
        return int(stream.__cuda_stream__()[1])
    if hasattr(stream, "ptr"):              # cupy.cuda.Stream
        return int(stream.ptr)
    raise GemmArgumentError(f"stream={stream!r}: pass a CUstream handle (int), a torch or cupy "
                            f"stream, or None for the current stream of the tensors' framework")


class _Call:
    """A prepared call: the kernel's launcher on the operands' GPU, the leading dimensions, the
    grid, and how to allocate D. Valid for every call with the same key."""

    __slots__ = ("kern", "lau", "m", "n", "k", "lda", "ldb", "ldd", "grid", "pack", "device",
                 "alloc", "d_align", "a_bytes", "b_bytes", "d_bytes", "general")

    def pointers(self, a, b, out):
        """``(D, pa, pb, pd)`` for a call on this key (a new D from ``alloc`` when ``out`` is
        None), or None when its pointers break a rule the general path checks: A and B 16-byte
        aligned, D aligned for its store, D apart from A and B (the general path then names it)."""
        pa, pb = a.data_ptr(), b.data_ptr()
        if out is None:
            d = self.alloc()
            pd = d.data_ptr()
        else:
            d, pd = out, out.data_ptr()
            if (pd < pa + self.a_bytes and pa < pd + self.d_bytes
                    or pd < pb + self.b_bytes and pb < pd + self.d_bytes):
                return None
        if (pa | pb) & 15 or pd % self.d_align:
            return None
        return d, pa, pb, pd

    def run(self, pa, pb, pd, stream):
        if self.general:   # swap-AB or split-K: the kernel's own launch (workspace from torch)
            return self.general(pa, pb, pd, stream)
        self.lau.run(stream, pa, pb, pd, self.m, self.n, self.k, self.lda, self.ldb, self.ldd,
                     self.pack, self.grid)


def _torch_key(a, b, out, out_dtype):
    return (a.dtype, b.dtype, a.shape, b.shape, a.stride(), b.stride(), a.get_device(),
            b.get_device(), None if out is None else (out.dtype, out.shape, out.stride(),
                                                      out.get_device()), out_dtype)


def _plan_key(plan):
    """The part of a prepared call's key that names an explicit plan: the kernel object itself (a
    prepared call holds it, so its id is not reused while the key lives), or a configuration
    dict's items in their order (a dict changed between calls is another key); None without a
    plan, False where a value cannot be hashed or the plan is of another kind (the call takes
    the general path)."""
    if plan is None:
        return None
    if type(plan) is dict:
        try:
            items = tuple(plan.items())
            hash(items)
        except TypeError:
            return False
        return ("config", items)
    from .runtime import GemmKernel

    return ("kernel", id(plan)) if isinstance(plan, GemmKernel) else False


def gemm(a, b, out=None, plan=None, *, a_dtype=None, b_dtype=None, out_dtype=None, stream=None,
         bias=None, c=None, alpha=None, beta=None, activation=None, scale_a=None, scale_b=None,
         out_scale=None, amax=None, use_fast_accum=None):
    """D = A @ B on the GPU with a fastswz kernel, optionally with a fused epilogue and fp8
    scales: D = act(alpha * (A @ B) * scales + beta * C + bias); returns D, asynchronously.

    Parameters
    ----------
    a : CUDA array, (M, K)
        Row-major (K-major) or a transposed view of a K x M array (MN-major).
    b : CUDA array, (K, N)
        A transposed view of an N x K array (K-major, as ``w.T`` of a linear layer's weight)
        or row-major K x N (MN-major). fp8 and tf32 operands must be K-major (PTX: wgmma
        transposes only 16-bit types). Broadcast (stride 0), reversed and overlapping views
        are refused: pass ``.contiguous()``.
    out : CUDA array (M, N), optional
        Row-major (its rows may be padded); allocated (torch or cupy, like ``a``, on a's GPU)
        when omitted.
    plan : dict or GemmKernel, optional
        A configuration (:data:`GEMM_KEYS`, e.g. a :func:`fastswz.tune` row) or a compiled
        kernel; default :func:`choose_plan`. Its dtypes and majors must be the tensors' (a plan
        made for tf32 runs on f32 tensors).
    a_dtype, b_dtype, out_dtype : str, optional
        Element types where the array cannot say (cupy has no bf16/fp8). A new ``out`` is of
        ``out_dtype``, default :func:`default_out_dtype` of A's type.
    stream : optional
        Where the kernel runs: an int ``CUstream`` handle, a torch or cupy stream, or an object
        with ``__cuda_stream__``; default (None) the current stream of the framework that owns
        the tensors (torch: ``torch.cuda.current_stream(a.device)``; cupy: its current stream;
        other arrays: the legacy default stream 0).
    bias : CUDA array (N,), optional
        Added to every row (bf16, f16 or f32; contiguous).
    c : CUDA array (M, N), optional
        A residual of D's shape (bf16, f16 or f32; row-major, its rows may be padded; may be
        ``out`` itself), added times ``beta``.
    alpha, beta : float, optional
        Scalars (default 1, and 1 for ``beta`` when ``c`` is given). ``beta`` 0 ignores C
        (NaN in C does not propagate), as torch.addmm.
    activation : str, optional
        ``identity`` (default), ``relu``, ``gelu`` (erf), ``gelu_tanh`` (torch's
        ``approximate='tanh'``) or ``silu``, applied last, in f32.
    scale_a, scale_b : CUDA arrays of f32, optional
        Dequantization scales, both or neither (``torch._scaled_mm``'s): one element each (per
        tensor); ``scale_a`` (M, 1) and ``scale_b`` (1, N) (rowwise, contiguous); or
        DeepSeek-V3's blocks: ``scale_a`` (M, ceil(K/128)), one per row per 128 of K, and
        ``scale_b`` (ceil(N/128), ceil(K/128)), one per 128 x 128 block of the N x K weight,
        either row- or column-major (DeepGEMM's A scales are column-major): the kernel promotes
        the partial sums to f32 every 128 of K (fp8 operands only).
    out_scale : CUDA array of f32, one element, optional
        fp8 ``out`` only: D is multiplied by it before the cast (the D scale of cuBLASLt;
        Transformer Engine's ``scale``, whose inverse the next layer reads; torch 2.11's
        ``_scaled_mm`` was seen to ignore its ``scale_result`` there, docs/cuda.md). Default 1. The cast rounds to nearest even and
        saturates (``cvt.rn.satfinite``: past the largest finite value, and Inf, give +-max;
        NaN stays NaN), as ``torch._scaled_mm`` with an fp8 ``out_dtype``; note that
        ``tensor.to(torch.float8_e4m3fn)`` does not saturate (it gives NaN past 448).
    amax : CUDA array of f32, one element, optional
        Receives ``max |D|`` (before ``out_scale``; NaN if any D is NaN) by ``atomicMax`` with its
        current value: zero it first for this product's alone (it can gather the amax of several
        products, as a delayed-scaling history slot).
    use_fast_accum : bool, optional
        As ``torch._scaled_mm``'s: False adds each k-tile's tensor-core partial sums to an f32
        total (Hopper's fp8 accumulator keeps about 14 bits), on a plan with BN <= 128
        (:func:`choose_block_scaled_plan`'s shape); True or None (default, the fastest): the
        whole K accumulates in the tensor core. Block scales always promote.

    Returns
    -------
    CUDA array
        ``out``, or the new D. Nothing synchronizes: the product is ready when the stream
        reaches it, so the call can be captured in a CUDA graph (``torch.cuda.graph``). A, B and
        D must sit on one GPU; the kernel runs on that GPU.

    Notes
    -----
    A call whose types, shapes, strides, GPUs and output match an earlier call reuses that
    call's plan and loaded kernel; only the pointers and the stream are read again. A call
    given an explicit ``plan`` (a configuration dict, compared item by item, or the same
    :class:`GemmKernel`) has a prepared call of its own. On torch
    tensors this holds for calls with epilogue or scale arguments too (their types, shapes,
    strides, GPUs and scalars part of the match; each argument's pointer read again, its alignment
    and overlap with D checked); other calls take the general path, every rule checked.
    """
    if type(a) in _FAST_TYPES and stream is None and a_dtype is None \
            and b_dtype is None and type(b) in _FAST_TYPES and bias is None and c is None \
            and alpha is None and beta is None and activation is None and scale_a is None \
            and scale_b is None and out_scale is None and amax is None and use_fast_accum is None:
        # an explicit plan (a configuration or a GemmKernel: the schedules choose_plan does not
        # pick, tuned plans) has its own prepared call, keyed by the plan as well
        call = _CALLS.get(_torch_key(a, b, out, out_dtype) if plan is None else
                          (_torch_key(a, b, out, out_dtype), _plan_key(plan)))
        if call is not None:
            got = call.pointers(a, b, out)
            if got is not None:
                d, pa, pb, pd = got
                call.run(pa, pb, pd, _torch_stream(call.device))
                return d
    extras = None
    if not (bias is None and c is None and alpha is None and beta is None and activation is None
            and scale_a is None and scale_b is None and out_scale is None and amax is None
            and use_fast_accum is None):
        extras = dict(bias=bias, c=c, alpha=alpha, beta=beta, activation=activation,
                      scale_a=scale_a, scale_b=scale_b, out_scale=out_scale, amax=amax,
                      use_fast_accum=use_fast_accum)
        # a fused call on torch tensors like an earlier one (the same types, shapes, strides,
        # GPUs, scalars and activation): that call's kernel and fields, the pointers read again
        if type(a) in _FAST_TYPES and type(b) in _FAST_TYPES and plan is None and stream is None \
                and a_dtype is None and b_dtype is None:
            key = _fused_key(a, b, out, out_dtype, extras)
            call = _CALLS.get(key) if key is not None else None
            if call is not None:
                d = call.run_fused(a, b, out, extras)
                if d is not None:
                    return d
    return _gemm(a, b, out, plan, a_dtype, b_dtype, out_dtype, stream, extras)


def _gemm(a, b, out, plan, a_dtype, b_dtype, out_dtype, stream, extras=None):
    """The general path: every rule checked, the plan chosen and compiled, staging where an
    operand is not what the TMA reads; a plain torch call is prepared for the fast path."""
    from ..dtypes import dtype as lookup
    from . import runtime

    A, B = _Operand(a, "a", a_dtype), _Operand(b, "b", b_dtype)
    (m, ka), (kb, n) = A.shape, B.shape
    if ka != kb:
        raise GemmArgumentError(f"a is {m} x {ka} and b is {kb} x {n}: a's columns must equal b's rows (K)")
    k = ka
    if A.device != B.device:
        raise GemmArgumentError(f"a is on GPU {A.device} and b on GPU {B.device}: put both on one "
                                f"GPU (the kernel runs where its operands are)")
    lay_a, lda = A.layout()
    lay_b, ldb = B.layout()
    a_major = "K" if lay_a == "row" else "MN"
    b_major = "MN" if lay_b == "row" else "K"
    new_out = out is None
    if new_out:
        od = lookup(out_dtype or default_out_dtype(A.dtype)).name
        if od not in OUT_DTYPES:
            raise GemmArgumentError(f"out_dtype={od}: the kernels write {', '.join(OUT_DTYPES)}")
        out = _allocate_like(a, A.kind, (m, n), od, A.device, stream)
    D = _Operand(out, "out", out_dtype)
    if D.shape != (m, n):
        raise GemmArgumentError(f"out has shape {D.shape}: it must be ({m}, {n})")
    if out_dtype is not None and lookup(out_dtype).name != D.dtype:
        raise GemmArgumentError(f"out_dtype={lookup(out_dtype).name} but out holds {D.dtype}: give "
                                f"one of them (out_dtype only names the type of a new out)")
    if D.device != A.device:
        raise GemmArgumentError(f"out is on GPU {D.device} and a, b on GPU {A.device}: put all "
                                f"three on one GPU")
    lay_d, ldd = D.layout()
    if lay_d != "row" and m > 1:
        raise GemmArgumentError(f"out has strides {D.strides}: it must be row-major (N contiguous)")
    if D.dtype not in OUT_DTYPES:
        raise GemmArgumentError(f"out holds {D.dtype}: the kernels write {', '.join(OUT_DTYPES)} "
                                f"(out_dtype)")
    device = A.device
    handle = _stream_handle(stream, A.kind, device)
    ed = lookup(D.dtype).bits // 8
    if min(m, n) == 0:
        return out
    if not new_out and _spans_overlap(D, m, n, ldd, ed, (A, B)):
        raise GemmArgumentError("out shares memory with a or b: the kernel reads A and B while it "
                                "writes D; pass a separate out")
    if k == 0:   # as torch: an empty sum is zero
        runtime.memset2d(D.ptr, ldd * ed, n * ed, m, handle, device)
        return out
    ea, eb = (lookup(t).bits // 8 for t in (A.dtype, B.dtype))
    d_tma = _aligned(D.ptr, ldd, ed)
    fusion, fields = _fusion_arguments(extras, m, n, k, A, B, D, ldd, ed)
    if isinstance(plan, runtime.GemmKernel):
        kern = plan
    else:
        if plan is None:
            cfg = default_config(m, n, k, A.dtype, B.dtype, a_major, b_major, D.dtype, fusion,
                                 epilogue=None if _aligned(0, ldd, ed) else False)
        else:
            cfg = normalize_config(plan, a_dtype=plan.get("a_dtype", A.dtype) if isinstance(plan, dict) else A.dtype,
                                   b_dtype=plan.get("b_dtype", B.dtype) if isinstance(plan, dict) else B.dtype,
                                   a_major=a_major, b_major=b_major, out_dtype=D.dtype, **fusion)
        kern = compile_gemm(cfg)
    c = kern.config
    asked = normalize_config(**fusion)
    for key in codegen.FUSION_DEFAULTS:
        want, have = c[key], asked[key]
        if want != have:
            raise GemmArgumentError(f"the plan has {key}={want!r} but the call gives {have!r}: pass "
                                    f"the matching arguments (or a plan made for them, or plan=None)")
    for key, have in (("a_dtype", A.dtype), ("b_dtype", B.dtype), ("out_dtype", D.dtype),
                      ("a_major", a_major), ("b_major", b_major)):
        want = c[key]
        if key.endswith("dtype"):
            same = want == have or {want, have} == {"tf32", "f32"} and key != "out_dtype"
        else:
            same = want == have
        if not same:
            raise GemmArgumentError(f"the plan has {key}={want!r} but the tensors give {have!r}: "
                                    f"pass a plan made for these tensors (or plan=None)")
    staged = _Staging(A.kind, device, handle)
    try:
        pa, lda_k = _maybe_stage(A, lda, ea, (m, k) if a_major == "K" else (k, m), staged,
                                 stages_a(m, n, k, A.dtype, a_major, lda))
        # A copied by stages_a's rule alone (readable in place): the prepared call can copy it too
        rule_copy = staged.used and _aligned(A.ptr, lda, ea)
        staged.used = staged.used and not rule_copy
        pb, ldb_k = _maybe_stage(B, ldb, eb, (n, k) if b_major == "K" else (k, n), staged)
        # D: the TMA store needs 16-byte rows and base; the register store writes pairs of
        # 2 elements where the pitch is even, so its base must hold a pair.
        d_ok = d_tma if c["epilogue"] else D.ptr % (2 * ed) == 0
        if d_ok:
            pd, ldd_k = D.ptr, ldd
        else:
            pd, ldd_k = staged.buffer(m, n, ed, lines=True)
        ws = staged.workspace(kern.workspace_bytes(m, n, k)) if kern.config["split_k"] > 1 else None
        kern.launch(pa, pb, pd, m, n, k, lda_k, ldb_k, ldd_k, stream=handle, device=device, workspace=ws,
                    **fields)
        if not d_ok:
            runtime.copy2d(pd, ldd_k * ed, D.ptr, ldd * ed, n * ed, m, handle, device)
    finally:
        staged.release()
    plan_key = _plan_key(plan)
    if (A.kind == "torch" and B.kind == "torch" and stream is None and a_dtype is None
            and b_dtype is None and plan_key is not False and not staged.used and d_ok):
        if extras is None:
            _remember(a, b, None if new_out else out, out_dtype, kern, m, n, k, lda, ldb, ldd, ed,
                      device, out if new_out else None, plan_key, lda_k if rule_copy else None)
        elif plan is None:
            _remember_fused(a, b, None if new_out else out, out_dtype, extras, fields, kern, m, n, k,
                            lda, ldb, ldd, ed, device, out if new_out else None, lda_k if rule_copy else None)
    return out


def default_config(m, n, k, a_dtype="bf16", b_dtype="bf16", a_major="K", b_major="K", out_dtype="bf16",
                   fusion=None, epilogue=None):
    """The configuration :func:`gemm` runs given no plan: :func:`choose_plan`'s (or, for block
    scales, :func:`choose_block_scaled_plan`'s) with the call's fused epilogue (``fusion``: the
    configuration keys ``activation``, ``bias``, ``residual``, ``scale``, ``amax``). Scales alone
    keep ``choose_plan``'s schedules (swap-AB, split-K: :func:`codegen.scheduled_fusion`); any
    other fused epilogue takes a single-pass plan, its column blocks through
    :data:`FUSED_EPILOGUE_STAGES` epilogue tiles where they fit.

    >>> c = default_config(4096, 14336, 4096, fusion={"activation": "gelu", "bias": "bf16"})
    >>> c["bn"], c["epilogue"], c["activation"], c["bias"]
    (256, True, 'gelu', 'bf16')
    """
    fusion = dict(fusion or {})
    # memoized with choose_plan (its cache_clear forgets both): the general call path asks on
    # every call that has no prepared fast path (cupy arrays, a call's first time)
    key = (m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype, tuple(sorted(fusion.items())), epilogue)
    hit = _DEFAULT_MEMO.get(key)
    if hit is None:
        hit = _default_config(m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype, fusion, epilogue)
        if len(_DEFAULT_MEMO) >= 65536:
            _DEFAULT_MEMO.clear()
        _DEFAULT_MEMO[key] = hit
    return dict(hit)


def _default_config(m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype, fusion, epilogue):
    if fusion.get("scale") == "block" or fusion.get("promote"):
        return choose_block_scaled_plan(a_dtype, b_dtype, out_dtype, fusion, epilogue=epilogue, k=k, m=m, n=n)
    # swap-AB and split-K take scales alone (codegen.scheduled_fusion): the decode shapes of
    # rowwise fp8 get the unscaled problem's schedule
    scheduled = codegen.scheduled_fusion(dict(fusion, a_dtype=a_dtype, b_dtype=b_dtype, out_dtype=out_dtype))
    # a fused epilogue (scales too) builds on the plan before the plain calls' rules
    # (SHORT_K_WHOLE_TILE_KTILES, SWAP_SECTOR_MAX_M, ONE_COLUMN_MAX_N, SMALL_TILE_MAX_KTILES,
    # SWAP_PAD_MAX_FILL)
    cfg = normalize_config(_chosen(m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype, epilogue,
                                   scheduled, not fusion), **fusion)
    if (not scheduled and cfg["epilogue"] and 0 < cfg["epilogue_n"] < cfg["bn"] and cfg["epilogue_stages"] == 1
            and not cfg["pingpong"]):
        # a fused epilogue's column blocks through two epilogue tiles where they fit beside the
        # stages and the column operands (FUSED_EPILOGUE_STAGES)
        two = normalize_config(cfg, epilogue_stages=FUSED_EPILOGUE_STAGES)
        if codegen.supported(two) is None and (codegen.kernel_row(two)["fusion"]["col_operands"] is not None
                                               or codegen.kernel_row(cfg)["fusion"]["col_operands"] is None):
            cfg = two
    if fusion.get("scale") == "row":
        cfg = _rowwise_plan(cfg, m, n, k, epilogue)
    return cfg


def _rowwise_plan(cfg, m, n, k, epilogue):
    """A rowwise-scaled call's plan from its unscaled problem's: ROWWISE_ONE_PASS_MAX_M's and
    ROWWISE_SHORT_KTILES's rules."""
    from ..tune import DEFAULT_SMS

    sms = DEFAULT_SMS["sm90"]
    if 64 < m <= ROWWISE_ONE_PASS_MAX_M and cfg["split_k"] > 1 and not cfg["swap_ab"] and cfg["bm"] == 128:
        one = normalize_config(cfg, bm=64, split_k=1, stages=DEEP_TILE_MAX_STAGES)
        tiles = -(-m // 64) * -(-n // one["bn"])
        if tiles >= ROWWISE_ONE_PASS_MIN_FILL * sms and codegen.supported(one) is None:
            cfg = one
    if (epilogue is not False and not cfg["swap_ab"] and cfg["split_k"] == 1 and cfg["bn"] == 256
            and -(-k // cfg["bk"]) <= ROWWISE_SHORT_KTILES and -(-m // cfg["bm"]) * -(-n // cfg["bn"]) <= sms):
        two = normalize_config(cfg, bn=128, epilogue=True, epilogue_n=EPILOGUE_BLOCK_N, epilogue_stages=2)
        if codegen.supported(two) is None:
            return two
    return cfg


def _block_scaled_width(m, n, k, bk):
    """BN of a block-scaled call's plan: :data:`BLOCK_SCALE_WIDTHS`' wave model (128 without the
    shape)."""
    from ..tune import DEFAULT_SMS

    if m is None or n is None or k is None or -(-k // bk) <= BLOCK_SCALE_WIDE_MIN_KTILES:
        return 128
    sms = DEFAULT_SMS["sm90"]
    widths = BLOCK_SCALE_WIDTHS if -(-k // bk) >= BLOCK_SCALE_192_MIN_KTILES else BLOCK_SCALE_WIDTHS_SHORT
    cost = {}
    for bn, per_column in widths.items():
        tiles = -(-m // 128) * -(-n // bn)
        cost[bn] = -(-tiles // sms) * bn * per_column   # waves x columns per wave
    return min(cost, key=lambda bn: (cost[bn], bn))


def choose_block_scaled_plan(a_dtype="e4m3", b_dtype="e4m3", out_dtype="bf16", fusion=None, epilogue=None,
                             k=None, m=None, n=None):
    """The configuration :func:`gemm` uses for block-scaled fp8 (DeepSeek-V3's 1 x 128 / 128 x
    128 scales), or for any promotion of the partial sums to f32 (``fusion["promote"]``), given
    no plan: BK 128 for fp8 (one promotion and one scale per k-tile; 64 for 16-bit types, 32 for
    tf32), BN 128 (one B scale per tile; two accumulators fit) unless the shape says otherwise (below), BM 128 (two consumer
    warpgroups), the most stages (6 down to 3) that fit beside the shared-memory epilogue tile,
    else register stores. ``fusion`` without a ``scale`` means block scales. Block scales with
    at most :data:`BLOCK_SCALE_RING_MAX_KTILES` k-tiles (``k`` given) take the most stages that
    leave room for the scales' slots in shared memory (``fusion.scale_ring`` of the plan row).
    Given the shape (``m``, ``n``, ``k``), block scales take BN 160 or 192 where
    :data:`BLOCK_SCALE_WIDTHS`' wave model says (192 with 64-column epilogue blocks; with more
    than :data:`BLOCK_SCALE_WIDE_MIN_KTILES` k-tiles, 192 from :data:`BLOCK_SCALE_192_MIN_KTILES`).

    >>> c = choose_block_scaled_plan()
    >>> c["bm"], c["bn"], c["bk"], c["stages"], c["epilogue"], c["scale"], c["promote"]
    (128, 128, 128, 6, True, 'block', True)
    >>> choose_block_scaled_plan(k=1024)["stages"]   # 8 k-tiles: the scales through shared memory
    5
    >>> choose_block_scaled_plan(k=2048)["stages"]   # 16: the consumers' loads
    6
    >>> choose_block_scaled_plan(m=4096, n=2112, k=7168)["bn"]   # 11 tile columns: 3 waves, not 5
    192
    """
    fusion = dict(fusion or {})
    if not fusion.get("promote"):
        fusion.setdefault("scale", "block")
    bk = {"e4m3": 128, "e5m2": 128, "tf32": 32, "f32": 32}.get(str(a_dtype), 64)
    bn = _block_scaled_width(m, n, k, bk) if fusion.get("scale") == "block" else 128
    base = normalize_config(dict(bm=128, bn=128, bk=bk, a_dtype=a_dtype, b_dtype=b_dtype,
                                 out_dtype=out_dtype, **fusion))
    ring = base["scale"] == "block" and k is not None and -(-k // base["bk"]) <= BLOCK_SCALE_RING_MAX_KTILES
    for width in dict.fromkeys((bn, 128)):   # (the wide tile's plans first)
        for want_ring in ((True, False) if ring else (False,)):
            for epi in ((True, False) if epilogue is None else (epilogue,)):
                for stages in range(6, 2, -1):
                    cfg = dict(base, bn=width, stages=stages, epilogue=epi,
                               epilogue_n=64 if width == 192 and epi else 0)
                    if supported(cfg) is None and (not want_ring or codegen.kernel_row(cfg)["fusion"]["scale_ring"]):
                        return cfg
    raise PlanError(f"no block-scaled plan runs {a_dtype} x {b_dtype} -> {out_dtype}: "
                    f"{supported(dict(base, stages=3))}")


_AUX_DTYPES = ("bf16", "f16", "f32")


def _aux(x, name, dtype=None):
    """An epilogue or scale operand (any rank) of the call: an _Operand, or a one-line error."""
    if x is None:
        return None
    op = _Operand(x, name, dtype, ndim=None)
    if op.ptr == 0:
        raise GemmArgumentError(f"{name} has no memory (a null pointer)")
    return op


def _fusion_arguments(extras, m, n, k, A, B, D, ldd, ed):
    """The configuration keys (activation, bias, residual, scale, amax) and the FswParams
    fields of a call's epilogue arguments, every rule checked (GemmArgumentError, one line)."""
    fusion, fields = {}, {}
    fp8_out = D.dtype in ("e4m3", "e5m2")
    if not extras:
        return fusion, fields
    x = extras
    if x.get("use_fast_accum") is not None:
        if x["use_fast_accum"] not in (True, False):
            raise GemmArgumentError(f"use_fast_accum={x['use_fast_accum']!r} must be True or False")
        if not x["use_fast_accum"]:
            fusion["promote"] = True
    if x["activation"] is not None:
        act = x["activation"]
        try:
            act = codegen.normalize_config(activation=act)["activation"]
        except Exception:  # noqa: BLE001 - one line naming the choices
            raise GemmArgumentError(f"activation={act!r}: one of {', '.join(codegen.ACTIVATIONS)} "
                                    f"('gelu' is erf GELU, 'gelu_tanh' torch's approximate='tanh')") from None
        fusion["activation"] = act
    for key in ("alpha", "beta"):
        if x[key] is not None:
            try:
                fields[key] = float(x[key])
            except (TypeError, ValueError):
                raise GemmArgumentError(f"{key}={x[key]!r} must be a number (a host scalar)") from None
    if x["beta"] is not None and x["c"] is None:
        raise GemmArgumentError("beta is given without c: beta scales the residual c")
    ops = []
    bias = _aux(x["bias"], "bias")
    if bias is not None:
        if bias.dtype not in _AUX_DTYPES:
            raise GemmArgumentError(f"bias holds {bias.dtype}: it must be bf16, f16 or f32")
        if bias.shape not in ((n,), (1, n)):
            raise GemmArgumentError(f"bias has shape {bias.shape}: it must have N = {n} elements, "
                                    f"shape ({n},), one per column of D")
        if n > 1 and bias.strides[-1] != 1:
            raise GemmArgumentError(f"bias has strides {bias.strides}: it must be contiguous "
                                    f"(bias.contiguous())")
        fusion["bias"], fields["bias"] = bias.dtype, bias.ptr
        ops.append(bias)
    res = _aux(x["c"], "c")
    if res is not None:
        if res.dtype not in _AUX_DTYPES:
            raise GemmArgumentError(f"c holds {res.dtype}: it must be bf16, f16 or f32")
        if len(res.shape) != 2 or res.shape != (m, n):
            raise GemmArgumentError(f"c has shape {res.shape}: it must be D's, ({m}, {n})")
        lay, ldc = res.layout()
        if lay != "row" and m > 1:
            raise GemmArgumentError(f"c has strides {res.strides}: it must be row-major (N contiguous)")
        same = res.ptr == D.ptr and ldc == ldd and res.dtype == D.dtype
        if not same and _spans_overlap(D, m, n, ldd, ed, (res,)):
            raise GemmArgumentError("c overlaps out without being out itself: pass out=c or "
                                    "separate arrays")
        fusion["residual"], fields["c"], fields["ldc"] = res.dtype, res.ptr, ldc
        fields.setdefault("beta", 1.0)
        ops.append(res)
    sa, sb = _aux(x["scale_a"], "scale_a"), _aux(x["scale_b"], "scale_b")
    if (sa is None) != (sb is None):
        raise GemmArgumentError("scale_a and scale_b come together (torch._scaled_mm's form): "
                                "pass both, or neither")
    if sa is not None:
        for op in (sa, sb):
            if op.dtype != "f32":
                raise GemmArgumentError(f"{op.name} holds {op.dtype}: scales are f32 (torch.float32)")
        form, sf = _scale_form(sa, sb, m, n, k)
        if form == "block" and (A.dtype not in ("e4m3", "e5m2") or B.dtype not in ("e4m3", "e5m2")):
            raise GemmArgumentError(f"block scales are for fp8 operands; a is {A.dtype}, b {B.dtype}")
        fusion["scale"] = form
        fields.update(sf, scale_a=sa.ptr, scale_b=sb.ptr)
        ops += [sa, sb]
    osc = _aux(x["out_scale"], "out_scale")
    if osc is not None:
        if not fp8_out:
            raise GemmArgumentError(f"out_scale scales an fp8 output; out is {D.dtype} "
                                    f"(out_dtype='e4m3' or 'e5m2')")
        if osc.dtype != "f32" or math.prod(osc.shape) != 1:
            raise GemmArgumentError(f"out_scale is {osc.dtype} of shape {osc.shape}: it must be one f32")
        fields["out_scale"] = osc.ptr
        ops.append(osc)
    am = _aux(x["amax"], "amax")
    if am is not None:
        if am.dtype != "f32" or math.prod(am.shape) != 1:
            raise GemmArgumentError(f"amax is {am.dtype} of shape {am.shape}: it must be one f32")
        if am.ptr % 4:
            raise GemmArgumentError("amax is not 4-byte aligned: the kernel updates it atomically")
        if _spans_overlap(D, m, n, ldd, ed, (am,)):
            raise GemmArgumentError("amax lies inside out: give it its own memory")
        fusion["amax"], fields["amax"] = True, am.ptr
        ops.append(am)
    for op in ops:
        if op.device != A.device:
            raise GemmArgumentError(f"{op.name} is on GPU {op.device} and a on GPU {A.device}: put "
                                    f"every operand on one GPU")
    return fusion, fields


def _scale_form(sa, sb, m, n, k):
    """('tensor' | 'row' | 'block', FswParams stride fields) of two f32 scale operands."""
    na, nb = math.prod(sa.shape), math.prod(sb.shape)
    blk = codegen.BLOCK_SCALE_K
    kb, nbk = -(-k // blk), -(-n // blk)
    if na == 1 and nb == 1:
        return "tensor", {}
    if sa.shape == (m, 1) and sb.shape == (1, n):
        if (m > 1 and sa.strides[0] != 1) or (n > 1 and sb.strides[1] != 1):
            raise GemmArgumentError(f"rowwise scales must be contiguous: scale_a {sa.shape} has strides "
                                    f"{sa.strides}, scale_b {sb.shape} {sb.strides} (.contiguous())")
        return "row", {"sa_sm": 1, "sb_sn": 1}
    if sa.shape == (m, kb) and sb.shape == (nbk, kb):
        out = {}
        for op, (f0, f1) in ((sa, ("sa_sm", "sa_sk")), (sb, ("sb_sn", "sb_sk"))):
            r, cdim = op.shape
            s0, s1 = op.strides
            row_major = (s1 == 1 or cdim == 1) and (s0 >= cdim or r == 1)
            col_major = (s0 == 1 or r == 1) and (s1 >= r or cdim == 1)
            if not (row_major or col_major):
                raise GemmArgumentError(
                    f"{op.name} {op.shape} has strides {op.strides}: block scales must be row- or "
                    f"column-major with one dimension contiguous (.contiguous())")
            out[f0], out[f1] = s0, s1
        return "block", out
    raise GemmArgumentError(
        f"scale_a {sa.shape} and scale_b {sb.shape} are none of the scale forms for a {m} x {k} by "
        f"{k} x {n} product: one element each (per tensor); ({m}, 1) and (1, {n}) (rowwise); "
        f"({m}, {kb}) and ({nbk}, {kb}) (1 x 128 and 128 x 128 blocks)")


def _spans_overlap(D, m, n, ldd, ed, others):
    lo, hi = D.ptr, D.ptr + ((m - 1) * ldd + n) * ed
    for X in others:
        e = _dtype_bytes(X.dtype)
        if not all(X.shape):
            continue
        xlo, xhi = X.ptr, X.ptr + (sum((d - 1) * st for d, st in zip(X.shape, X.strides)) + 1) * e
        if lo < xhi and xlo < hi:
            return True
    return False


def _dtype_bytes(name):
    from ..dtypes import dtype as lookup

    return max(1, lookup(name).bits // 8)


def _fill_call(call, a, b, kern, m, n, k, lda, ldb, ldd, ed, device, new_out):
    """``call`` (a :class:`_Call`) filled with what every call on its key shares: the kernel and
    its launcher on ``device``, the extents, leading dimensions and grid, D's alignment and the
    spans A, B and D reach from their base pointers (the key fixes shapes and strides), how to
    allocate a new D (``new_out``: the first call's), and None for ``general``."""
    call.kern, call.lau = kern, kern.launcher(device)
    call.m, call.n, call.k, call.lda, call.ldb, call.ldd = m, n, k, lda, ldb, ldd
    call.grid, call.pack, call.device = kern.grid(m, n, device), kern._params0, device
    call.d_align = 16 if kern.config["epilogue"] else 2 * ed
    call.d_bytes = ((m - 1) * ldd + n) * ed
    call.a_bytes, call.b_bytes = _span(a), _span(b)
    if new_out is not None:
        import torch

        shape, dt, dev = (m, n), new_out.dtype, new_out.device
        call.alloc = lambda: torch.empty(shape, dtype=dt, device=dev)
    else:
        call.alloc = None
    call.general = None
    return call


def _keep(key, call):
    if len(_CALLS) >= _MAX_CALLS:
        _CALLS.clear()
    _CALLS[key] = call


def _workspace(nbytes, device):
    """A split-K workspace from torch's allocator on the current stream: it goes back to the
    allocator once the launches are queued (stream-ordered, no device sync)."""
    import torch

    return torch.empty(nbytes, dtype=torch.uint8, device=torch.device("cuda", device))


def _remember(a, b, out, out_dtype, kern, m, n, k, lda, ldb, ldd, ed, device, new_out, plan_key=None,
              staged_lda=None):
    """Keep a prepared call for calls like this one; ``staged_lda``: A is copied into rows of
    that pitch (elements) first, as :func:`stages_a`'s rule has the general path do."""
    call = _fill_call(_Call(), a, b, kern, m, n, k, lda, ldb, ldd, ed, device, new_out)
    if kern.config["swap_ab"] or kern.config["split_k"] > 1 or staged_lda:
        nbytes = kern.workspace_bytes(m, n, k)
        run = kern.bound(m, n, k, staged_lda or lda, ldb, ldd, device, call.grid)
        if not nbytes:
            call.general = run
        else:
            def general(pa, pb, pd, stream):
                run(pa, pb, pd, stream, _workspace(nbytes, device).data_ptr())
            call.general = general
        if staged_lda:
            call.general = _staged_a(call.general, m, k, lda, staged_lda, a.element_size(), device)
    key = _torch_key(a, b, out, out_dtype)
    _keep(key if plan_key is None else (key, plan_key), call)


def _copy_a(pa, m, k, lda, pitch, e, stream, device):
    """A prepared call's copy of A (``m`` rows of ``k`` elements, ``lda`` apart) into a buffer of
    ``pitch``-element rows from torch's allocator, on ``stream`` (:func:`stages_a`'s rule): the
    buffer, to keep until the launch is queued."""
    from . import runtime

    buf = _workspace(m * pitch * e, device)
    runtime.copy2d(pa, lda * e, buf.data_ptr(), pitch * e, k * e, m, stream, device)
    return buf


def _staged_a(run, m, k, lda, pitch, e, device):
    """``run`` (a prepared call's launch) after :func:`_copy_a`."""
    def general(pa, pb, pd, stream):
        buf = _copy_a(pa, m, k, lda, pitch, e, stream, device)
        run(buf.data_ptr(), pb, pd, stream)
    return general


#: the epilogue arguments that are arrays (their pointers are FswParams fields of the same name)
_EXTRA_ARRAYS = ("bias", "c", "scale_a", "scale_b", "out_scale", "amax")


def _fused_key(a, b, out, out_dtype, extras):
    """The fused fast path's key of a call (None: not eligible): the plain call's key and, per
    epilogue argument, a torch tensor's type, shape, strides and GPU, or the scalar itself."""
    parts = []
    for name in ("bias", "c", "alpha", "beta", "activation", "scale_a", "scale_b", "out_scale", "amax",
                 "use_fast_accum"):
        x = extras[name]
        if x is None or type(x) in (bool, int, float, str):
            parts.append((type(x), x))
        elif type(x) in _FAST_TYPES:
            parts.append((x.dtype, x.shape, x.stride(), x.get_device()))
        else:
            return None
    return ("fused", _torch_key(a, b, out, out_dtype), tuple(parts))


def _span(x):
    """Bytes from a torch tensor's base pointer to one past its last element."""
    if not x.numel():
        return 0
    return (sum((d - 1) * st for d, st in zip(x.shape, x.stride())) + 1) * x.element_size()


def _remember_fused(a, b, out, out_dtype, extras, fields, kern, m, n, k, lda, ldb, ldd, ed, device,
                    new_out, staged_lda=None):
    """Prepare the fused fast path for calls like this one: its kernel, launcher, leading
    dimensions, the fields that stay (scalars, strides) and which fields take which argument's
    pointer; not when an argument was staged (its field is not its own pointer). ``staged_lda``:
    A is copied into rows of that pitch first (:func:`stages_a`), as on the general path."""
    key = _fused_key(a, b, out, out_dtype, extras)
    if key is None:
        return
    ptrs = {}
    for name in _EXTRA_ARRAYS:
        x = extras[name]
        if x is not None:
            if fields.get(name) != x.data_ptr():
                return
            ptrs[name] = (x.data_ptr() % 16, _span(x))
    call = _fill_call(_FusedCall(), a, b, kern, m, n, k, lda, ldb, ldd, ed, device, new_out)
    call.static = {f: v for f, v in fields.items() if f not in ptrs}
    call.ptrs = ptrs
    call.in_place = extras["c"] is not None and out is not None and extras["c"].data_ptr() == out.data_ptr()
    call.ws_bytes = kern.workspace_bytes(m, n, k) if kern.config["split_k"] > 1 else 0
    call.staged_lda = staged_lda
    # the fields packed from a list made once, then one C launch (split-K: and the workspace
    # from torch's allocator, as the general path's)
    call.fused = kern.bound_fused(m, n, k, staged_lda or lda, ldb, ldd, call.static, list(ptrs), device, call.grid)
    _keep(key, call)


class _FusedCall(_Call):
    """A prepared fused call (:func:`_remember_fused`); ``run_fused`` returns D, or None when
    this call's pointers break a rule the general path checks (alignment, overlaps), so that
    path runs and says which."""

    __slots__ = ("static", "ptrs", "in_place", "ws_bytes", "staged_lda", "fused")

    def run_fused(self, a, b, out, extras):
        got = self.pointers(a, b, out)
        if got is None:
            return None
        d, pa, pb, pd = got
        ptrs = []
        for name, (align, span) in self.ptrs.items():
            p = extras[name].data_ptr()
            if p % 16 != align:
                return None
            if not (name == "c" and self.in_place and p == pd) and p < pd + self.d_bytes and pd < p + span:
                return None   # an argument inside D (the general path names the rule)
            ptrs.append(p)
        stream = _torch_stream(self.device)
        if self.staged_lda:   # stages_a's copy, as the general path makes it (bound_fused has its pitch)
            buf = _copy_a(pa, self.m, self.k, self.lda, self.staged_lda, a.element_size(), stream, self.device)
            pa = buf.data_ptr()
        ws = _workspace(self.ws_bytes, self.device) if self.ws_bytes else None   # kept until queued
        self.fused(pa, pb, pd, stream, 0 if ws is None else ws.data_ptr(), ptrs)
        return d


class _Staging:
    """Padded copies of operands the TMA cannot read in place, from the framework's allocator
    (torch, cupy) or stream-ordered driver memory, on the call's stream: no cuMemFree (which
    synchronizes the device) on the call path."""

    def __init__(self, kind, device, stream):
        self.kind, self.device, self.stream = kind, device, stream
        self.keep, self.ptrs, self.used = [], [], False

    def workspace(self, nbytes):
        """A split-K workspace of ``nbytes``, from the same allocator and stream as
        :meth:`buffer`, kept until :meth:`release`; not staging (the call can be remembered)."""
        used = self.used
        ptr, _ = self.buffer(1, nbytes, 1)
        self.used = used
        return ptr

    def buffer(self, rows, cols, e, lines=False):
        from . import runtime

        self.used = True
        # copies of A, B and D get whole-L2-line rows (runtime.STAGED_PITCH), the workspace 16 bytes
        pitch = runtime.staged_pitch(cols, e) * e if lines else -(-cols * e // 16) * 16
        nbytes = max(pitch * rows, 16)
        if self.kind == "torch":
            import torch

            with torch.cuda.device(self.device):
                s = torch.cuda.ExternalStream(self.stream) if self.stream else None
                with torch.cuda.stream(s) if s is not None else _null():
                    t = torch.empty(nbytes, dtype=torch.uint8, device=f"cuda:{self.device}")
            self.keep.append(t)
            return t.data_ptr(), pitch // e
        if self.kind == "cupy":
            import cupy

            with cupy.cuda.Device(self.device):
                t = cupy.empty(nbytes, dtype=cupy.uint8)
            self.keep.append(t)
            return t.data.ptr, pitch // e
        p = runtime.alloc_async(nbytes, self.stream, self.device)
        self.ptrs.append(p)
        return p, pitch // e

    def release(self):
        from . import runtime

        for p in self.ptrs:
            runtime.free_async(p, self.stream, self.device)
        self.ptrs = []


class _null:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def _maybe_stage(op, ld, e, stored, staged, sector=False):
    """(pointer, ld) the TMA can read: the array itself when its base and row pitch are 16-byte
    aligned (cuTensorMapEncodeTiled's rule) and ``sector`` is False, else a copy on the call's
    stream with rows padded to :data:`runtime.STAGED_PITCH` bytes (``sector``:
    :func:`stages_a`'s rule asks for one)."""
    from . import runtime

    if _aligned(op.ptr, ld, e) and not sector:
        return op.ptr, ld
    rows, cols = stored
    p, pitch = staged.buffer(rows, cols, e, lines=True)
    runtime.copy2d(op.ptr, ld * e, p, pitch * e, cols * e, rows, staged.stream, staged.device)
    return p, pitch


def _allocate_like(a, kind, shape, dtype, device, stream):
    if kind == "torch":
        import torch

        td = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32,
              "e4m3": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2}[dtype]
        if stream is None:
            return torch.empty(shape, dtype=td, device=a.device)
        with torch.cuda.device(device):
            s = torch.cuda.ExternalStream(_stream_handle(stream, kind, device))
            with torch.cuda.stream(s):
                return torch.empty(shape, dtype=td, device=a.device)
    if kind == "cupy":
        import cupy

        with cupy.cuda.Device(device):
            return cupy.empty(shape, dtype={"bf16": "uint16", "f16": "float16", "f32": "float32",
                                            "e4m3": "uint8", "e5m2": "uint8"}[dtype])
    raise GemmArgumentError("out is needed: fastswz allocates an output only for torch and cupy inputs")
