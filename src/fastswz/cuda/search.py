"""The measured search: time plans of the sm90 kernel family for one GEMM problem, keep the fastest.

This is the runtime layer's autotuner (``fastswz tune --measure``). :func:`fastswz.tune` (the cost
model, below this package) ranks register-store plans only and knows nothing of the epilogue or of
clusters; the search draws its candidates across everything the kernel family runs and lets the
clock decide:

* **Candidates** (:func:`candidates`): every tile shape the model ranks (BM 64/128/192/256 as the
  registers allow, BN 16..256), every epilogue (:data:`KINDS`: registers, the whole tile, 64-column
  blocks through 2 or 1 epilogue tiles) and clusters of 1 and 2 CTAs (``cluster_m``); off the
  32-byte sector, full-width k-tiles first and 2 x 2 clusters (:data:`SQUARE_CLUSTER_SHAPES`)
  right after the default. Where they
  can help, the schedules ``choose_plan`` picks too (:func:`_schedule_candidates`): swap-AB for
  M <= 128 and split-K where the tiles leave SMs idle. For each such
  class the model picks the rest (BK, stages, swizzles) as ``choose_plan`` does: the model's best
  row of that tile shape with its stages lowered until the epilogue fits (at least
  :data:`fastswz.cuda.EPILOGUE_MIN_STAGES` with an epilogue tile), else its best-ranked row of the
  shape that the family runs with that epilogue. The order: the default plan (:func:`fastswz.cuda.choose_plan`, what ``gemm``
  runs without a tuned table) first; then every epilogue/cluster variant of the model's two best
  tile shapes, with the schedule classes before them when the default is a swap-AB or split-K
  plan and right after them otherwise; then the model's best shape of each other BM (where the model gives it at most
  :data:`OTHER_BM_CYCLES` times the best shape's cycles); then the following shapes in the model's
  order, each with its default-rule epilogue (``choose_plan``'s rule) on one CTA, the whole tile
  where that rule gave column blocks, and 2 CTAs where the rows are off the 32-byte sector; then every
  remaining variant, by shape rank. :func:`candidates` with ``budget=None`` gives them all (what
  ``tests/gpu/tune/exhaustive.py`` times).
* **Successive halving** (:class:`Halving`): the first ``budget`` candidates (or as many as fit
  half of a ``seconds`` budget) are timed with ``reps`` repeats each; the faster half is timed again
  with ``eta`` times more repeats, and so on until two remain. A plan's estimate is the median of
  all its samples. The default plan is timed in every round (the reference, outside the quota), so
  each result carries the default's time measured alongside the winner's.
* **The same kernel ``gemm`` runs**: a candidate is a full :func:`normalize_config` configuration,
  compiled by :func:`fastswz.cuda.compile_gemm` and timed by ``GemmKernel.time`` (CUDA events,
  warm-up launches, L2 flushed before each launch), exactly what ``gemm(plan=config)`` and a tuned
  table entry run.
* **A journal** (:class:`Journal`): every completed timing is appended, one JSON line, keyed by
  (GPU, kernel version, problem, configuration, round, repeats, warm-up). A second search, or a
  sweep restarted after a crash, reads its timings back instead of timing again; the halving is
  deterministic given the timings, so it replays to the same point.

The timer is a parameter (``timer(config, m, n, k, reps, warmup) -> list of milliseconds``): the
GPU's by default (:func:`gpu_timer`), a stand-in in the CPU tests.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import sys
import threading
import time
from pathlib import Path

from ..dtypes import dtype as _lookup_dtype
from ..errors import FastswzTypeError, MeasureError, PlanError, as_int
from ..rules import _choice
from ..tune import tune
from .codegen import normalize_config, supported

__all__ = ["KINDS", "CLUSTERS", "SQUARE_CLUSTER_SHAPES", "candidates", "plan_label", "Halving", "Journal", "search_plans", "gpu_timer",
           "kind_of", "problem_of", "problem_key", "cache_dir_default", "DEFAULT_BUDGET", "stand_in_timer",
           "load_timer", "run_search", "timing_key", "result_key",
           "DEFAULT_REPS", "DEFAULT_ETA"]

#: The epilogues the search draws: D stored from registers, through the whole BM x BN epilogue
#: tile, or in 64-column blocks rotating through 2 (``blocks2``) or 1 (``blocks1``) epilogue tiles.
KINDS = ("registers", "tile", "blocks2", "blocks1")
_KIND_FIELDS = {"registers": {"epilogue": False, "epilogue_n": 0, "epilogue_stages": 1},
                "tile": {"epilogue": True, "epilogue_n": 0, "epilogue_stages": 1},
                "blocks2": {"epilogue": True, "epilogue_n": 64, "epilogue_stages": 2},
                "blocks1": {"epilogue": True, "epilogue_n": 64, "epilogue_stages": 1}}
#: CTAs per cluster along M the search draws.
CLUSTERS = (1, 2)
#: Off the 32-byte sector the search also draws 2 x 2 clusters (both operands multicast) of the
#: default's tile and of these BM x BN. Measured on an H200 (probe set v41, 56 e4m3 problems off
#: the sector; docs/conformance/2026-11-28-twenty-first-session, run 4): no rule found where they
#: win (0.78x in geometric mean on the default's tile, and a held-out region lost: v42), but
#: they won by 5-46% on 12, most on 128 x 128 (755 x 2208 x 22576 e4m3 95.1 -> 65.0 us, cuBLAS
#: 59.7; 1247 x 4192 x 25200 on its own 128 x 176 tile 247.0 -> 191.8 us).
SQUARE_CLUSTER_SHAPES = ((128, 128),)
#: The model's cycles, relative to its best shape's, within which another BM's best shape is
#: drawn early (step 2 of :func:`candidates`).
OTHER_BM_CYCLES = 1.5
#: Plans a search times when given no budget.
DEFAULT_BUDGET = 24
#: Repeats of the first halving round (each later round times ``eta`` times more).
DEFAULT_REPS = 3
#: The halving factor: each round keeps the fastest 1/eta of the plans.
DEFAULT_ETA = 2
#: Most repeats one round gives a plan.
MAX_REPS = 48

_SUPPORTED = {}   # supported() per configuration: a configuration's verdict never depends on the problem
_SUPPORTED_LOCK = threading.Lock()


def _supported(cfg):
    key = tuple(sorted(cfg.items()))
    hit = _SUPPORTED.get(key)
    if hit is None:
        hit = (supported(cfg),)
        with _SUPPORTED_LOCK:
            _SUPPORTED[key] = hit
    return hit[0]


def kind_of(config) -> str:
    """The epilogue class of a configuration (one of :data:`KINDS`, or ``"other"``).

    Examples
    --------
    >>> kind_of({"epilogue": True, "epilogue_n": 64, "epilogue_stages": 2})
    'blocks2'
    >>> kind_of({"bm": 128})
    'registers'
    """
    c = normalize_config(config)
    for kind, f in _KIND_FIELDS.items():
        if all(c[key] == v for key, v in f.items()):
            return kind
    return "other"


def plan_label(config) -> str:
    """A configuration in a few words, for tables: ``BMxBNxBK/stages``, the epilogue kind
    (:func:`kind_of`) and what is not the default schedule (``c2``, ``swap``, ``split=S``,
    ``streamk=G/S``, ``pingpong``).

    Examples
    --------
    >>> plan_label({"bm": 128, "bn": 256, "bk": 64, "stages": 4, "epilogue": True, "epilogue_n": 64})
    '128x256x64/4 blocks1'
    >>> plan_label({"bm": 128, "bn": 16, "bk": 256, "stages": 3, "swap_ab": True, "split_k": 4})
    '128x16x256/3 registers swap split=4'
    """
    c = normalize_config(config)
    return (f"{c['bm']}x{c['bn']}x{c['bk']}/{c['stages']} {kind_of(c)}"
            + {(1, 1): "", (2, 1): " c2", (1, 2): " cn2", (2, 2): " c2x2"}[(c["cluster_m"], c["cluster_n"])]
            + (" swap" if c["swap_ab"] else "")
            + (f" split={c['split_k']}" if c["split_k"] > 1 and not c["stream_k"] else "")
            + (f" streamk={c['stream_k']}/{c['split_k']}" if c["stream_k"] else "")
            + (" pingpong" if c["pingpong"] else ""))


def problem_of(m, n, k, a_dtype="bf16", b_dtype="bf16", a_major="K", b_major="K",
               out_dtype=None) -> dict:
    """The canonical problem dict (names spelled one way; ``out_dtype`` default
    :func:`fastswz.cuda.default_out_dtype` of A's type).

    Examples
    --------
    >>> problem_of(4096, 4096, 4096, "BF16", "bf16", "k", "K")
    {'m': 4096, 'n': 4096, 'k': 4096, 'a_dtype': 'bf16', 'b_dtype': 'bf16', 'a_major': 'K', 'b_major': 'K', 'out_dtype': 'bf16'}
    """
    from . import default_out_dtype

    m, n, k = (as_int(x, v) for x, v in (("m", m), ("n", n), ("k", k)))
    for name, v in (("m", m), ("n", n), ("k", k)):
        if v < 1:
            raise PlanError(f"{name}={v} must be >= 1 (a GEMM problem extent in elements)")
    a, b = _lookup_dtype(a_dtype).name, _lookup_dtype(b_dtype).name
    am, bm = (_choice(f, v, ("K", "MN")) for f, v in (("a_major", a_major), ("b_major", b_major)))
    out = _lookup_dtype(out_dtype).name if out_dtype is not None else default_out_dtype(a)
    return {"m": m, "n": n, "k": k, "a_dtype": a, "b_dtype": b, "a_major": am, "b_major": bm,
            "out_dtype": out}


def problem_key(problem) -> tuple:
    """``(m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype)`` of a canonical problem dict."""
    return tuple(problem[f] for f in ("m", "n", "k", "a_dtype", "b_dtype", "a_major", "b_major",
                                      "out_dtype"))


def _default_plan(p):
    """choose_plan's configuration with any tuned table set aside: the model's default."""
    from . import choose_plan, tuned

    with tuned.suspended():
        return choose_plan(p["m"], p["n"], p["k"], p["a_dtype"], p["b_dtype"], p["a_major"],
                           p["b_major"], p["out_dtype"])


def _variant(row, p, kind, cluster, cluster_n=1):
    """The configuration of a tune row with an epilogue kind and a cluster (``cluster`` CTAs
    along M, ``cluster_n`` along N), or None where the family does not run it (or an epilogue
    tile would leave fewer than EPILOGUE_MIN_STAGES)."""
    from . import EPILOGUE_MIN_STAGES

    if kind.startswith("blocks") and not (row["bn"] > 64 and row["bn"] % 64 == 0):
        return None
    if kind != "registers" and row["stages"] < EPILOGUE_MIN_STAGES:
        return None
    c = {f: row[f] for f in ("arch", "bm", "bn", "bk", "stages", "swizzle_a", "swizzle_b",
                             "cta_group")}
    c.update(a_dtype=p["a_dtype"], b_dtype=p["b_dtype"], a_major=p["a_major"],
             b_major=p["b_major"], out_dtype=p["out_dtype"], cluster_m=cluster, cluster_n=cluster_n,
             **_KIND_FIELDS[kind])
    c = normalize_config(c)
    return c if _supported(c) is None else None


def _config_key(c):
    return tuple(sorted(normalize_config(c).items()))


def candidates(m, n, k, a_dtype="bf16", b_dtype="bf16", a_major="K", b_major="K", out_dtype=None,
               *, budget=None, model=None, sms=None) -> list:
    """The configurations a measured search times, in the order it draws them.

    Parameters
    ----------
    m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype
        The problem (``out_dtype`` default :func:`fastswz.cuda.default_out_dtype`).
    budget : int, optional
        Return the first ``budget`` only (default: every class, the exhaustive set).
    model, sms
        Passed to :func:`fastswz.tune`.

    Returns
    -------
    list of dict
        ``config`` (a full configuration, as ``gemm`` runs it), ``kind`` (:data:`KINDS`),
        ``cluster_m``, ``model_rank`` (the model's rank of the configuration's tile row among all
        legal plans; the epilogue and cluster do not change it), ``shape_rank`` (1 for the
        model's best BM x BN), ``default`` (True for :func:`fastswz.cuda.choose_plan`'s plan).
        One entry per (BM, BN, epilogue kind, cluster) class the family runs; the default plan
        stands for its class.

    Examples
    --------
    >>> c = candidates(3000, 5000, 1000, budget=24)
    >>> len(c), c[0]["default"], sorted({x["kind"] for x in c}) == sorted(KINDS)
    (24, True, True)
    >>> sorted({x["cluster_m"] for x in c}), len({x["config"]["bm"] for x in c}) >= 3
    ([1, 2], True)
    """
    if budget is not None:
        budget = as_int("budget", budget)
        if budget < 1:
            raise PlanError(f"budget={budget} must be >= 1 (plans to time)")
    p = problem_of(m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype)
    ranked = tune(p["m"], p["n"], p["k"], p["a_dtype"], p["b_dtype"], p["a_major"], p["b_major"],
                  sms=sms, top=1 << 62, model=model)
    # Tile shapes in the model's order; per shape its rows, best first (one per BK x stages:
    # the widest swizzles come first among equal model cycles).
    shapes, rows = [], {}
    for r in ranked:
        s = (r["bm"], r["bn"])
        if s not in rows:
            shapes.append(s)
            rows[s] = {}
        rows[s].setdefault((r["bk"], r["stages"]), r)
    cycles = {s: next(iter(rows[s].values()))["model_cycles"] for s in shapes}
    from . import _full_width, _sector_wide_only

    if _sector_wide_only(p["m"], p["n"], p["k"], p["a_dtype"], p["b_dtype"], p["a_major"], p["b_major"]):
        # choose_plan's SECTOR_FULL_WIDTH_BITS rule: per shape, its full-width k-tiles first
        for sh in shapes:
            rows[sh] = dict(sorted(rows[sh].items(), key=lambda kv: not _full_width(kv[1], p["a_dtype"])))
    default = _default_plan(p)
    dkey = _config_key(default)
    dclass = (default["bm"], default["bn"], kind_of(default), default["cluster_m"], default["cluster_n"])
    rank_of = {}
    for r in ranked:
        rank_of.setdefault((r["bm"], r["bn"], r["bk"], r["stages"], r["swizzle_a"], r["swizzle_b"]),
                           r["rank"])
    from . import EPILOGUE_MIN_STAGES

    def best(shape, kind, cluster, cluster_n=1):
        # choose_plan's rule first: the shape's best row, its stages lowered until the epilogue
        # fits (the model ranks register stores; measured, fewer stages of the same BK beat
        # another BK there); else the best-ranked row of the shape that runs in this class
        first = next(iter(rows[shape].values()))
        lowest = 2 if kind == "registers" else EPILOGUE_MIN_STAGES
        for st in range(first["stages"], lowest - 1, -1):
            c = _variant(dict(first, stages=st), p, kind, cluster, cluster_n)
            if c is not None:
                return c, rank_of.get((shape[0], shape[1], first["bk"], st, first["swizzle_a"],
                                       first["swizzle_b"]), first["rank"])
        for row in rows[shape].values():
            c = _variant(row, p, kind, cluster, cluster_n)
            if c is not None:
                return c, row["rank"]
        return None

    # choose_plan's order of epilogues: 64-column blocks through one tile where BN allows, then
    # the whole tile, then the blocks through 2 tiles; registers where no tile fits
    default_kinds = ("blocks1", "tile", "blocks2", "registers")

    picked, seen = [], {dkey}
    picked.append({"config": default, "kind": dclass[2], "cluster_m": dclass[3], "cluster_n": dclass[4],
                   "model_rank": rank_of.get((default["bm"], default["bn"], default["bk"],
                                              default["stages"], default["swizzle_a"],
                                              default["swizzle_b"])),
                   "shape_rank": shapes.index((default["bm"], default["bn"])) + 1
                   if (default["bm"], default["bn"]) in rows else None, "default": True})
    done_classes = {dclass}

    def add(shape, kind, cluster, cluster_n=1):
        # the class's plan, unless drawn already; whether the family runs the class
        cls = (shape[0], shape[1], kind, cluster, cluster_n)
        if cls in done_classes or -(-p["m"] // shape[0]) < cluster or -(-p["n"] // shape[1]) < cluster_n:
            return False   # (a cluster wider than the tiles leaves CTAs idle)
        done_classes.add(cls)
        got = best(shape, kind, cluster, cluster_n)
        if got is None:
            return False
        c, rank = got
        key = _config_key(c)
        if key not in seen:
            seen.add(key)
            picked.append({"config": c, "kind": kind, "cluster_m": cluster, "cluster_n": cluster_n,
                           "model_rank": rank, "shape_rank": shapes.index(shape) + 1, "default": False})
        return True

    def full():
        return budget is not None and len(picked) >= budget

    def add_schedules():
        for c, rank, srank in _schedule_candidates(p, ranked, sms, model):
            key = _config_key(c)
            if key not in seen:
                seen.add(key)
                picked.append({"config": c, "kind": kind_of(c), "cluster_m": c["cluster_m"],
                               "cluster_n": c["cluster_n"], "model_rank": rank, "shape_rank": srank,
                               "default": False})

    from . import _off_sector

    pair = _off_sector(p["m"], p["n"], p["k"], p["a_dtype"], p["b_dtype"], p["a_major"], p["b_major"])
    # 0. off the 32-byte sector, 2 x 2 clusters (SQUARE_CLUSTER_SHAPES) first: no rule picks
    #    them, and they won by 5-46% on a fifth of such e4m3 problems (probe set v41)
    if pair and not default["swap_ab"]:
        for shape in [(default["bm"], default["bn"]), *SQUARE_CLUSTER_SHAPES]:
            for kind in default_kinds if shape in rows else ():
                if add(shape, kind, 2, 2):   # choose_plan's first epilogue that runs on 2 x 2
                    break
    # 0b. where the default is a swap-AB or split-K plan, the other schedule classes next
    scheduled = default["swap_ab"] or default["split_k"] > 1
    if scheduled:
        add_schedules()
    # 1. every epilogue and cluster of the model's two best shapes
    for s in shapes[:2]:
        for kind in default_kinds:
            for cl in CLUSTERS:
                add(s, kind, cl)
    # 1b. else the schedule classes after them (none where the tiles already fill the SMs)
    if not scheduled:
        add_schedules()
    # 2. the model's best shape of each other BM, its default-rule epilogue on one CTA, where the
    #    model gives it at most OTHER_BM_CYCLES times the best shape's cycles
    top = cycles[shapes[0]]
    for bm in sorted({s[0] for s in shapes}):
        s = next(s for s in shapes if s[0] == bm)
        if cycles[s] > OTHER_BM_CYCLES * top:
            continue
        kind = next((kd for kd in default_kinds if best(s, kd, 1) is not None), None)
        if kind is not None:
            add(s, kind, 1)
    # 3. the following shapes in the model's order: default-rule epilogue on one CTA, then the
    #    whole tile where that rule gave column blocks, then 2 CTAs where A's or B's rows are off
    #    the 32-byte sector. Measured on an H200 over 14 problems x every class
    #    (docs/conformance/h200-2026-11-26-pitch): a 2-CTA cluster won only on such rows
    #    (SECTOR_CLUSTER_WAVES), while the whole tile beat the one-tile blocks of the same shape by
    #    up to 3.7% (2500 x 7000 x 1536, 128 x 192: a plan the 24-plan search had missed in 3 of
    #    5 runs).
    for s in shapes[1:]:
        if full():
            break
        kind = next((kd for kd in default_kinds if best(s, kd, 1) is not None), None)
        if kind is not None:
            add(s, kind, 1)
            if kind == "blocks1":
                add(s, "tile", 1)
            if pair:
                add(s, kind, 2)
    # 4. every remaining variant, by shape rank
    for s in shapes:
        if full():
            break
        for kind in KINDS:
            for cl in CLUSTERS:
                add(s, kind, cl)
    return picked if budget is None else picked[:budget]


#: Tile shapes per frame (unswapped, swapped) whose swap-AB / split-K classes the search draws,
#: in the model's order.
SCHEDULE_SHAPES = 3
#: ... and these BM x BN (BM at most M rounded up to 64), choose_plan's split tiles
#: (SPLIT_K_TILE and SPLIT_K_SWAP_M's BM x 128), which the model ranks below small tiles.
SCHEDULE_TILES = ((128, 128), (64, 128), (128, 64))


def _schedule_candidates(p, ranked, sms, model):
    """``(config, model_rank, shape_rank)`` of the swap-AB and split-K classes of problem ``p``
    (register stores), best first: in the swapped frame when M <= 128 and N > M, then in the
    caller's.

    Per frame, the shapes are the model's first :data:`SCHEDULE_SHAPES` tile shapes that run,
    and those of :data:`SCHEDULE_TILES` that fit the problem. Per shape, the K splits are
    :func:`fastswz.cuda.split_k_splits`'s ``s``, then ``s // 2`` and ``2 s``, each keeping the
    units within 2 waves and :data:`fastswz.cuda.SPLIT_K_MIN_KTILES` (8) k-tiles per split. Swapped shapes also run without a split.
    Unswapped shapes whose tiles fill the SMs give none: the single-pass classes cover them.
    """
    from . import SPLIT_K_MAX, SPLIT_K_MIN_KTILES, schedule_config, schedule_frame
    from ..tune import DEFAULT_SMS

    sms = sms or DEFAULT_SMS["sm90"]
    frames = [True, False] if p["m"] <= 128 and p["n"] > p["m"] else [False]
    out = []
    for swap in frames:
        km, kn, (ta, ma), (tb, mb) = schedule_frame(p["m"], p["n"], p["a_dtype"], p["b_dtype"],
                                                    p["a_major"], p["b_major"], swap)
        rows = ranked if not swap else tune(km, kn, p["k"], ta, tb, ma, mb, sms=sms, top=1 << 62,
                                            model=model)
        shapes, order = {}, []
        extra = [t for t in SCHEDULE_TILES if t[0] <= -(-km // 64) * 64 and t[1] <= -(-kn // 8) * 8]
        for r in rows:
            sh = (r["bm"], r["bn"])
            if sh in shapes or (len(order) >= SCHEDULE_SHAPES and sh not in extra):
                continue
            c = schedule_config(r, p["a_dtype"], p["b_dtype"], p["a_major"], p["b_major"],
                                p["out_dtype"], swap)
            if _supported(c) is None:
                shapes[sh] = r
                order.append(sh)
            if len(order) >= SCHEDULE_SHAPES and all(t in shapes for t in extra):
                break
        for srank, sh in enumerate(order, 1):
            r = shapes[sh]
            tiles = -(-km // sh[0]) * -(-kn // sh[1])
            kt = -(-p["k"] // r["bk"])
            if tiles > sms and not swap:
                continue
            least = SPLIT_K_MIN_KTILES
            rule = max(1, min(sms // tiles, kt // least, SPLIT_K_MAX))
            splits = [rule, rule // 2, 2 * rule] + ([1] if swap else [])
            for s in dict.fromkeys(splits):
                if s < 1 or s > SPLIT_K_MAX or (s == 1 and not swap):
                    continue
                if s > 1 and (tiles * s > 2 * sms or kt // s < least):
                    continue
                c = schedule_config(r, p["a_dtype"], p["b_dtype"], p["a_major"], p["b_major"],
                                    p["out_dtype"], swap, s)
                if _supported(c) is None:
                    out.append((c, r["rank"], srank))
    return out


class Halving:
    """Successive halving over candidates, driven by whoever times them.

    ``next_batch()`` gives the timings to do next, ``(index, round, reps, warmup)`` tuples (empty
    when the search is over); ``feed(index, round, samples)`` takes each one's milliseconds.
    Round 0 times the first ``budget`` candidates (fewer when half of ``seconds`` is spent: round 0
    is handed out in chunks of ``chunk`` and the clock is read between them) with ``reps`` repeats;
    each later round keeps the fastest ``1/eta`` of the previous round's plans (by the median of all
    their samples), at least two, and times them with ``eta`` times more repeats (at most
    :data:`MAX_REPS`), until two or fewer remain or the ``seconds`` are spent. Candidate 0, when it
    is the default plan (``reference=True``), is timed in every round outside the quota.

    Examples
    --------
    >>> h = Halving(4, budget=4, reps=2, eta=2, chunk=4, reference=False)
    >>> first = h.next_batch(); [(i, rnd, r) for i, rnd, r, _ in first]
    [(0, 0, 2), (1, 0, 2), (2, 0, 2), (3, 0, 2)]
    >>> for i, rnd, r, _ in first:
    ...     h.feed(i, rnd, [float(4 - i)] * r)        # candidate 3 is the fastest
    >>> [(i, rnd, r) for i, rnd, r, _ in h.next_batch()]
    [(3, 1, 4), (2, 1, 4)]
    """

    def __init__(self, count, *, budget=DEFAULT_BUDGET, seconds=None, reps=DEFAULT_REPS,
                 eta=DEFAULT_ETA, chunk=8, reference=True, warmup=2, clock=time.perf_counter):
        self.count = count
        self.budget = min(count, budget) if budget is not None else count
        self.seconds, self.reps, self.eta, self.chunk = seconds, reps, eta, max(1, chunk)
        self.reference, self.warmup, self.clock = reference and count > 0, warmup, clock
        self.started = clock()
        self.samples = {}       # index -> list of ms (every round)
        self.rounds = [[]]      # per round, the indices timed in it
        self.competing = [[]]   # per round, those that won their place (the reference may not have)
        self.drawn = 0
        self.pending = set()
        self.stopped = None     # why round 0 stopped drawing, or why the search stopped early

    def elapsed(self):
        return self.clock() - self.started

    def estimate(self, i):
        s = self.samples.get(i)
        return math.inf if not s or any(x is None for x in s) else _median(s)

    def feed(self, index, rnd, samples):
        """Record the samples (ms) of one timing; ``None`` for a plan that failed."""
        self.pending.discard((index, rnd))
        vals = [None] if samples is None else [float(x) for x in samples]
        self.samples.setdefault(index, []).extend(vals)

    def _round_reps(self, rnd):
        return min(MAX_REPS, self.reps * self.eta ** rnd)

    def next_batch(self):
        if self.pending:
            raise MeasureError(f"Halving.next_batch: {len(self.pending)} timings of the last batch "
                               f"were not fed back (feed(index, round, samples) each)")
        rnd = len(self.rounds) - 1
        if rnd == 0 and self.drawn < self.budget:
            if self.seconds is not None and self.drawn and self.elapsed() >= self.seconds / 2:
                self._stop(f"round 0 stopped after {self.drawn} plans: half of {self.seconds} s spent")
                self.budget = self.drawn
            else:
                take = list(range(self.drawn, min(self.budget, self.drawn + self.chunk)))
                self.drawn += len(take)
                self.rounds[0] += take
                self.competing[0] += take
                return self._batch(take, 0)
        alive = [i for i in self.competing[-1] if self.estimate(i) < math.inf]
        if len(alive) <= 2:
            return []
        if self.seconds is not None and self.elapsed() >= self.seconds:
            self._stop(f"halving stopped after round {rnd}: {self.seconds} s spent")
            return []
        keep = max(2, math.ceil(len(alive) / self.eta))
        nxt = sorted(alive, key=lambda i: (self.estimate(i), i))[:keep]
        self.competing.append(nxt)
        ref = self.reference and 0 not in nxt and self.estimate(0) < math.inf
        batch = nxt + ([0] if ref else [])
        self.rounds.append(batch)
        return self._batch(batch, rnd + 1)

    def _stop(self, why):
        self.stopped = why if self.stopped is None else f"{self.stopped}; {why}"

    def _batch(self, indices, rnd):
        reps = self._round_reps(rnd)
        warm = self.warmup if rnd == 0 else 1
        out = [(i, rnd, reps, warm) for i in indices]
        self.pending.update((i, rnd) for i in indices)
        return out

    def ranking(self):
        """Indices timed, best first: by the last round each reached, then by the estimate."""
        last = {}
        for rnd, idx in enumerate(self.rounds):
            for i in idx:
                last[i] = rnd
        return sorted(last, key=lambda i: (self.estimate(i) == math.inf, -last[i] if
                                           self.estimate(i) < math.inf else 0,
                                           self.estimate(i), i))


def _median(xs):
    s = sorted(xs)
    h = len(s) // 2
    return s[h] if len(s) % 2 else 0.5 * (s[h - 1] + s[h])


# -- the journal -----------------------------------------------------------------------------------
def cache_dir_default() -> Path:
    """Where a single search keeps its journal: ``$FASTSWZ_CACHE/tune``, else
    ``~/.cache/fastswz/tune``.

    Examples
    --------
    >>> import os
    >>> old = os.environ.get("FASTSWZ_CACHE")
    >>> os.environ["FASTSWZ_CACHE"] = "/tmp/fsw"
    >>> str(cache_dir_default())
    '/tmp/fsw/tune'
    >>> _ = os.environ.pop("FASTSWZ_CACHE") if old is None else os.environ.update(FASTSWZ_CACHE=old)
    """
    root = os.environ.get("FASTSWZ_CACHE")
    return Path(root) / "tune" if root else Path.home() / ".cache" / "fastswz" / "tune"


def timing_key(device, kernel_version, problem, config, rnd, reps, warmup) -> str:
    """The journal key of one timing: a SHA-256 of its JSON."""
    text = json.dumps({"device": device, "kernel_version": kernel_version, "problem": problem,
                       "config": normalize_config(config), "round": rnd, "reps": reps,
                       "warmup": warmup}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


class Journal:
    """An append-only record of timings and results (JSON lines).

    ``directory`` holds one or more ``*.jsonl`` files; every process appends to its own file
    (``name``, default ``journal.jsonl``) with one ``write`` per line, and all files are read
    back. A line that does not parse (a process killed mid-write) is skipped.

    Examples
    --------
    >>> import tempfile
    >>> d = tempfile.mkdtemp()
    >>> j = Journal(d)
    >>> j.put_timing("k1", [1.0, 2.0], note="x")
    >>> Journal(d).timing("k1"), Journal(d).timing("k2")
    ([1.0, 2.0], None)
    """

    def __init__(self, directory, name="journal.jsonl"):
        self.dir = Path(directory)
        self.path = self.dir / name
        self.timings, self.results = {}, {}
        self._lock = threading.Lock()
        self.reload()

    def reload(self):
        if not self.dir.is_dir():
            return
        for path in sorted(self.dir.glob("*.jsonl")):
            with open(path, encoding="utf-8", errors="replace") as f:
                for line in f:
                    try:
                        rec = json.loads(line)
                    except ValueError:
                        continue
                    if not isinstance(rec, dict):
                        continue
                    if rec.get("type") == "timing" and isinstance(rec.get("samples"), list):
                        self.timings[rec.get("key")] = rec["samples"]
                    elif rec.get("type") == "result" and isinstance(rec.get("result"), dict):
                        self.results[rec.get("problem_key")] = rec["result"]

    def timing(self, key):
        """The samples journaled under ``key``, or None."""
        return self.timings.get(key)

    def put_timing(self, key, samples, **info):
        self.timings[key] = samples
        self._append({"type": "timing", "key": key, "samples": samples, **info})

    def put_result(self, problem_key, result):
        self.results[problem_key] = result
        self._append({"type": "result", "problem_key": problem_key, "result": result})

    def _append(self, rec):
        line = (json.dumps(rec, sort_keys=True) + "\n").encode()
        with self._lock:
            self.dir.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                size = os.fstat(fd).st_size
                if size and os.pread(fd, 1, size - 1) != b"\n":
                    line = b"\n" + line    # a process killed mid-line: end its torn line first
                os.write(fd, line)
            finally:
                os.close(fd)


def result_key(problem, budget, seconds, reps, eta) -> str:
    """The journal key of a finished search (problem and search settings)."""
    return json.dumps({"problem": problem, "budget": budget, "seconds": seconds, "reps": reps,
                       "eta": eta}, sort_keys=True)


# -- the GPU's timer --------------------------------------------------------------------------------
_KERNELS = {}


def gpu_timer(config, m, n, k, reps, warmup):
    """Milliseconds of ``reps`` launches of ``config``'s kernel on an M x N x K problem (this
    process's GPU 0; ``GemmKernel.time``: CUDA events, L2 flushed before each launch)."""
    from . import compile_gemm

    key = _config_key(config)
    kern = _KERNELS.get(key)
    if kern is None:
        kern = _KERNELS[key] = compile_gemm(config)
    t = kern.time(m, n, k, warmup=warmup, reps=reps, flush_l2=True)
    return [float(x) for x in t["samples_ms"]]


def gpu_compile(configs, jobs=None):
    """Compile configurations in parallel (the cubin cache fills; nothing is timed)."""
    from . import compile_many

    todo = [c for c in configs if _config_key(c) not in _KERNELS]
    for c, kern in zip(todo, compile_many(todo, jobs=jobs) if todo else []):
        if not isinstance(kern, Exception):
            _KERNELS[_config_key(c)] = kern


def _device_and_version():
    from . import KERNEL_VERSION
    from .tuned import gpu_id

    return gpu_id(), KERNEL_VERSION


class _Bar:
    """``fastswz tune: <what> [####----] i/n ... ETA`` on stderr, drawn once a step has run > 1 s."""

    def __init__(self, on, what, total, unit="plans"):
        self.on, self.what, self.total, self.unit = on, what, total, unit
        self.started, self.shown, self.drawn = time.perf_counter(), False, 0.0

    def step(self, done, total=None, note=""):
        if total is not None:
            self.total = total
        el = time.perf_counter() - self.started
        if not self.on or not (self.shown or el > 1.0):
            return
        if self.shown and el - self.drawn < 0.2 and done < self.total:
            return   # at most five redraws a second
        self.shown, self.drawn = True, el
        width = 24
        fill = width * done // max(self.total, 1)
        eta = ""
        if 0 < done < self.total:
            eta = f" ETA {_hms(el / done * (self.total - done))}"
        print(f"\rfastswz tune: {self.what} [{'#' * fill}{'-' * (width - fill)}] {done}/{self.total} "
              f"{self.unit}, {_hms(el)}{eta}{note}   ", end="", file=sys.stderr, flush=True)

    def close(self):
        if self.shown:
            print(file=sys.stderr, flush=True)


def _hms(s):
    s = int(round(s))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


def search_plans(m, n, k, a_dtype="bf16", b_dtype="bf16", a_major="K", b_major="K", out_dtype=None,
                 *, budget=DEFAULT_BUDGET, seconds=None, reps=DEFAULT_REPS, eta=DEFAULT_ETA,
                 journal=None, use_cache=True, timer=None, compile=None, device=None,
                 kernel_version=None, model=None, jobs=None, progress=False, clock=time.perf_counter):
    """Time the kernel family's plans for one problem by successive halving; the fastest wins.

    Parameters
    ----------
    m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype
        The problem (``out_dtype`` default :func:`fastswz.cuda.default_out_dtype` of A's type).
    budget : int or None
        Plans to time (the first of :func:`candidates`); None: all of them, or as many as half
        of ``seconds`` allows.
    seconds : float, optional
        Wall-clock budget: round 0 stops drawing plans once half of it is spent, halving stops
        once all of it is.
    reps, eta
        Repeats of round 0, and the halving factor (round r: ``reps * eta**r`` repeats, at most
        :data:`MAX_REPS`).
    journal : Journal, str or Path, optional
        Where timings are journaled and read back (a directory); default
        :func:`cache_dir_default`. ``use_cache=False`` reads and writes none.
    timer, compile : callable, optional
        ``timer(config, m, n, k, reps, warmup) -> list of ms`` (default :func:`gpu_timer`), and
        ``compile(configs)`` run on each batch before it is timed (default: NVRTC in parallel,
        :func:`gpu_compile`; with a ``timer`` given, nothing).
    device, kernel_version : str, optional
        What the journal keys hold (default: this GPU's :func:`fastswz.cuda.tuned.gpu_id` and
        :data:`fastswz.cuda.KERNEL_VERSION`); a stand-in timer names itself here.
    model, jobs, progress
        The cost model (:func:`fastswz.tune`), compile threads, a progress bar on stderr.

    Returns
    -------
    dict
        ``problem``, ``best`` and ``default`` (each ``config``, ``median_ms``, ``tflops``,
        ``samples``, ``model_rank``, ``kind``), ``regret`` (default / best - 1), ``rows`` (every
        plan timed, best first: ``rank``, ``model_rank``, ``shape_rank``, ``kind``, ``cluster_m``,
        ``median_ms``, ``min_ms``, ``max_ms``, ``spread``, ``tflops``, ``reps`` (samples), ``round``
        (the last it reached), ``error``, ``config``), ``plans`` (timed), ``timings`` (done now)
        and ``replayed`` (read from the journal), ``stopped``, ``wall_s``, ``device``,
        ``kernel_version``.

    Raises
    ------
    MeasureError
        No GPU runtime or GPU to time on, or every plan failed.

    Examples
    --------
    A stand-in timer (milliseconds from the tile shape; no GPU): the search times 8 plans and the
    default plan's time comes with the winner's.

    >>> def stand_in(config, m, n, k, reps, warmup):
    ...     return [1.0 + abs(config["bn"] - 192) / 256 + 0.01 * config["cluster_m"]] * reps
    >>> r = search_plans(4096, 4096, 4096, budget=8, timer=stand_in, use_cache=False,
    ...                  device="stand-in", kernel_version="doc")
    >>> r["plans"], r["best"]["median_ms"] <= r["default"]["median_ms"]
    (8, True)
    """
    p = problem_of(m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype)
    if budget is not None:
        budget = as_int("budget", budget)
        if budget < 1:
            raise PlanError(f"budget={budget} must be >= 1 (plans to time)")
    if seconds is not None:
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not seconds > 0:
            raise PlanError(f"seconds={seconds!r} must be a number > 0 (the search's wall-clock budget)")
    reps, eta = as_int("reps", reps), as_int("eta", eta)
    if reps < 1 or eta < 2:
        raise PlanError(f"reps={reps} and eta={eta}: round 0 needs reps >= 1 repeats and each "
                        f"round keeps 1/eta of the plans, eta >= 2")
    if timer is None:
        timer = gpu_timer
        compile = compile if compile is not None else (lambda cs: gpu_compile(cs, jobs))
        if device is None or kernel_version is None:
            dv, kv = _gpu_identity()
            device, kernel_version = device or dv, kernel_version or kv
    elif device is None:
        raise FastswzTypeError("search_plans(timer=...) needs device=: a name for what the stand-in "
                               "times, so that its journal entries never pass for a GPU's")
    kernel_version = kernel_version or "unversioned"
    if journal is None and use_cache:
        journal = cache_dir_default()
    if journal is not None and not isinstance(journal, Journal) and use_cache:
        journal = Journal(journal)
    if not use_cache:
        journal = None
    started = clock()
    cands = candidates(p["m"], p["n"], p["k"], p["a_dtype"], p["b_dtype"], p["a_major"],
                       p["b_major"], p["out_dtype"], budget=None if seconds else budget, model=model)
    return run_search(p, cands, timer=timer, compile=compile, journal=journal, device=device,
                      kernel_version=kernel_version, budget=budget, seconds=seconds, reps=reps,
                      eta=eta, progress=progress, clock=clock, started=started, jobs=jobs)


def stand_in_timer(config, m, n, k, reps, warmup):
    """A CPU stand-in for :func:`gpu_timer`, for tests and dry runs of sweeps: NOT a measurement.

    Milliseconds from the cost model (:func:`fastswz.score_plans` cycles at 1.83 GHz), scaled by
    a fixed factor per epilogue kind and cluster (so that the search has something to find
    beyond the model's ranking) and a deterministic 1% jitter per (configuration, repeat).
    Journal entries it makes must name a stand-in device (``device="cpu-stand-in"``).

    Examples
    --------
    >>> c = normalize_config({"bm": 128, "bn": 256, "bk": 64, "stages": 4})
    >>> t = stand_in_timer(c, 4096, 4096, 4096, 3, 1)
    >>> len(t), 0.1 < t[0] < 1.0, t == stand_in_timer(c, 4096, 4096, 4096, 3, 1)
    (3, True, True)
    """
    import random

    from ..tune import score_plans

    c = normalize_config(config)
    cyc = float(score_plans(None, [c], m, n, k)[0])
    factor = {"registers": 1.0, "tile": 0.97, "blocks2": 0.95, "blocks1": 0.96}.get(kind_of(c), 1.0)
    factor *= 0.97 if c["cluster_m"] == 2 and n >= 4096 else 1.0
    base = cyc / 1.83e6 * factor
    seed = hashlib.sha256(json.dumps([c, m, n, k], sort_keys=True).encode()).digest()
    rng = random.Random(seed)
    return [base * (1.0 + 0.01 * abs(rng.gauss(0.0, 1.0))) for _ in range(reps)]


def load_timer(spec):
    """A timer from ``"module:function"`` (what sweep workers are told), or a callable as is."""
    if callable(spec):
        return spec
    import importlib

    mod, _, name = str(spec).partition(":")
    try:
        return getattr(importlib.import_module(mod), name)
    except (ImportError, AttributeError, ValueError) as exc:
        raise MeasureError(f"timer={spec!r}: not an importable 'module:function' ({exc})") from None


def _gpu_identity():
    try:
        return _device_and_version()
    except MeasureError:
        raise
    except ImportError as exc:
        raise MeasureError(f"the measured search needs the GPU runtime (pip install "
                           f"'fastswz[cuda]') and an NVIDIA Hopper GPU ({exc})") from None
    except Exception as exc:  # noqa: BLE001 - the runtime's own failure, named
        raise MeasureError(f"the measured search found no GPU to time on ({type(exc).__name__}: "
                           f"{exc}); fastswz.tune ranks by the cost model alone") from None


def run_search(p, cands, *, timer, compile=None, journal=None, device, kernel_version,
               budget=DEFAULT_BUDGET, seconds=None, reps=DEFAULT_REPS, eta=DEFAULT_ETA,
               progress=False, clock=time.perf_counter, started=None, jobs=None):
    """:func:`search_plans` on candidates already drawn (:func:`candidates`); the sweeps call it."""
    started = clock() if started is None else started
    fatal = _fatal()
    h = Halving(len(cands), budget=budget if budget is not None else len(cands), seconds=seconds,
                reps=reps, eta=eta, chunk=max(8, jobs or os.cpu_count() or 1),
                reference=bool(cands and cands[0]["default"]), clock=clock)
    h.started = started
    errors, timed, replayed = {}, 0, 0
    bar = _Bar(progress, "timing", expected_timings(h.budget, eta, h.reference), "timings")
    done = 0
    try:
        while True:
            batch = h.next_batch()
            if not batch:
                break
            keys = [timing_key(device, kernel_version, p, cands[i]["config"], rnd, r, w)
                    for i, rnd, r, w in batch]
            todo = [cands[i]["config"] for (i, *_), key in zip(batch, keys)
                    if journal is None or journal.timing(key) is None]
            if todo and compile is not None:
                compile(todo)
            for (i, rnd, r, w), key in zip(batch, keys):
                got = journal.timing(key) if journal is not None else None
                if got is not None:
                    replayed += 1
                    h.feed(i, rnd, got)
                else:
                    try:
                        samples = timer(cands[i]["config"], p["m"], p["n"], p["k"], r, w)
                        samples = [float(x) for x in samples]
                        if not samples or not all(x > 0 and math.isfinite(x) for x in samples):
                            raise MeasureError(f"the timer returned {samples!r:.80}: not positive times")
                    except fatal:
                        raise
                    except Exception as exc:  # noqa: BLE001 - recorded with the plan, not fatal
                        errors[i] = f"{type(exc).__name__}: {exc}"[:400]
                        h.feed(i, rnd, None)
                    else:
                        timed += 1
                        h.feed(i, rnd, samples)
                        if journal is not None:
                            journal.put_timing(key, samples, problem=p, config=cands[i]["config"],
                                               round=rnd, reps=r, device=device)
                done += 1
                bar.step(done, max(bar.total, done))
    finally:
        bar.close()
    return _report(p, cands, h, errors, timed, replayed, clock() - started, device, kernel_version)


def expected_timings(budget, eta=DEFAULT_ETA, reference=True) -> int:
    """The most timings a halving over ``budget`` plans makes (none failing, no clock): each
    round after the first may add the reference (the default plan) to its leaders.

    >>> expected_timings(24)            # 24, then 12 + 1, 6 + 1, 3 + 1, 2 + 1 (the reference)
    51
    """
    n, total = budget, budget
    while n > 2:
        n = max(2, math.ceil(n / eta))
        total += n + (1 if reference else 0)
    return total


def _fatal():
    try:
        from .errors import CudaUnavailableError
    except ImportError:  # pragma: no cover
        return ()
    return CudaUnavailableError


def _row(p, cand, h, i, last, errors):
    s = [x for x in h.samples.get(i, []) if x is not None]
    med = h.estimate(i)
    ok = med < math.inf
    c = cand["config"]
    return {"model_rank": cand["model_rank"], "shape_rank": cand["shape_rank"],
            "kind": cand["kind"], "cluster_m": cand["cluster_m"], "cluster_n": cand.get("cluster_n", 1),
            "default": cand["default"],
            "bm": c["bm"], "bn": c["bn"], "bk": c["bk"], "stages": c["stages"],
            "median_ms": med if ok else None, "min_ms": min(s) if ok else None,
            "max_ms": max(s) if ok else None,
            "spread": (max(s) / min(s) - 1.0) if ok else None,
            "tflops": 2.0 * p["m"] * p["n"] * p["k"] / (med * 1e9) if ok else None,
            "reps": len(s), "round": last.get(i), "error": errors.get(i) if not ok else None,
            "samples": s, "config": c, "index": i}


def _report(p, cands, h, errors, timed, replayed, wall, device, kernel_version):
    last = {}
    for rnd, idx in enumerate(h.rounds):
        for i in idx:
            last[i] = rnd
    order = h.ranking()
    rows = []
    for rank, i in enumerate(order, 1):
        rows.append(dict(_row(p, cands[i], h, i, last, errors), rank=rank))
    good = [r for r in rows if r["median_ms"] is not None]
    if not good:
        first = rows[0]["error"] if rows else "no candidate"
        raise MeasureError(f"every one of the {len(rows)} plans timed for {p['m']} x {p['n']} x "
                           f"{p['k']} {p['a_dtype']} failed to compile or run; the first: {first}")
    best = good[0]
    dflt = next((r for r in rows if r["default"]), None)
    keep = ("config", "median_ms", "min_ms", "max_ms", "spread", "tflops", "model_rank", "kind",
            "cluster_m", "cluster_n", "samples", "reps", "round")
    out = {"problem": p, "best": {f: best[f] for f in keep},
           "default": {f: dflt[f] for f in keep} if dflt else None, "rows": rows,
           "plans": len(rows), "timings": timed, "replayed": replayed, "stopped": h.stopped,
           "wall_s": round(wall, 3), "device": device, "kernel_version": kernel_version}
    out["regret"] = (dflt["median_ms"] / best["median_ms"] - 1.0
                     if dflt and dflt["median_ms"] is not None else None)
    return out
