"""Hold :func:`fastswz.tune`'s cost model to measured times, and fit its constants.

Measurements are the rows ``tools/tune_measure.py`` writes (one per problem x plan)::

    {"name": "sq4096", "m": 4096, "n": 4096, "k": 4096, "a_dtype": "bf16", "b_dtype": "bf16",
     "a_major": "K", "b_major": "K", "config": {"arch": "sm90", "cta_group": 1, "bm": 128,
     "bn": 256, "bk": 64, "stages": 4, "swizzle_a": "128B", "swizzle_b": "128B"},
     "median_ms": 0.61, ...}

Rows without a ``median_ms`` (a plan that failed to compile or launch) are left out. A
*problem* is one (M, N, K, types, majors, arch): the metrics compare the model's ranking of a
problem's plans with their measured times.

* :func:`spearman` the rank correlation (ties get their average rank);
* :func:`top1_regret` the measured time of the model's first choice over the measured best, - 1;
* :func:`topk_recall` the share of the measured best ``k`` among the model's first ``k``;
  :func:`best_in_topk` whether the measured best is among them;
* :func:`evaluate` all of them per problem; :func:`fit_model` a deterministic coordinate search
  over :class:`~fastswz.TuneModel`'s constants that maximises the mean Spearman and minimises the
  regret on training problems (numpy only, no derivatives).
"""

from __future__ import annotations

import math

import numpy as np

from .errors import FastswzTypeError, PlanError, as_int
from .tune import DATASHEET_MODELS, DEFAULT_MODELS, DEFAULT_SMS, TuneModel, _cycles_of, _model_arg, _plan_columns

__all__ = ["spearman", "top1_regret", "topk_recall", "best_in_topk", "problems", "evaluate",
           "fit_model", "FIT_PARAMS", "DEFAULT_FIT_PARAMS"]

#: The constants :func:`fit_model` searches, with how: ``("scale", lo, hi)`` multiplies the
#: current value by factors that shrink each round, within [lo, hi]; ``("values", ...)`` tries
#: each value (``tile_overhead`` and ``epilogue_clocks_per_wavefront`` are also scaled once
#: non-zero).
FIT_PARAMS = {
    "latency": ("scale", 50.0, 50000.0),
    "l2_bytes_per_clock": ("scale", 2.0, 1024.0),
    "smem_bytes_per_clock": ("scale", 8.0, 2048.0),
    "macs_per_clock_16": ("scale", 128.0, 65536.0),
    "macs_per_clock_8": ("scale", 256.0, 131072.0),
    "unswizzled_row_cost": ("values", 1.0, 1.5, 2.0, 3.0, 4.0),
    "occupancy_weight": ("values", 0.0, 0.25, 0.5, 0.75, 1.0),
    "other_registers": ("values", 0.0, 16.0, 32.0, 64.0, 96.0, 128.0),
    "wave_quantization": ("values", 0.0, 0.25, 0.5, 0.75, 1.0),
    "tile_overhead": ("values", 0.0, 250.0, 500.0, 1000.0, 2000.0, 4000.0, 8000.0, 16000.0),
    "epilogue_clocks_per_wavefront": ("values", 0.0, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0),
}


#: The constants :func:`fit_model` fits unless told otherwise: :data:`FIT_PARAMS` less
#: ``other_registers`` (it also decides which plans fit on an SM at all: measurements drawn
#: from one model's legal plans cannot time the plans a lower value admits; fitted on the H100
#: data it went from 32 to 16 for +0.002 Spearman and made 192 x 224 tiles, never timed, tune's
#: first choice on 6 of 18 problems) and ``epilogue_clocks_per_wavefront`` (needs an epilogue).
DEFAULT_FIT_PARAMS = tuple(p for p in FIT_PARAMS
                           if p not in ("other_registers", "epilogue_clocks_per_wavefront"))

_SCALED_ONCE_NONZERO = ("tile_overhead", "epilogue_clocks_per_wavefront")


def _vectors(a, b, what):
    a = np.asarray(a, dtype=np.float64).ravel()
    b = np.asarray(b, dtype=np.float64).ravel()
    if a.shape != b.shape:
        raise PlanError(f"{what}: the model scores ({a.size}) and measured times ({b.size}) "
                        f"must be one per plan")
    return a, b


def _ranks(x):
    """Ranks 1..n, ties given their average rank."""
    order = np.argsort(x, kind="stable")
    xs = x[order]
    ranks = np.empty(x.size, dtype=np.float64)
    starts = np.flatnonzero(np.r_[True, xs[1:] != xs[:-1]])
    ends = np.r_[starts[1:], x.size]
    avg = (starts + ends + 1) / 2.0  # mean of ranks start+1 .. end
    ranks[order] = np.repeat(avg, ends - starts)
    return ranks


def spearman(a, b) -> float:
    """Spearman rank correlation of two equal-length sequences (ties: average ranks).

    ``nan`` when either holds fewer than two distinct values.

    Examples
    --------
    >>> spearman([1, 2, 3, 4], [10, 20, 30, 40]), spearman([1, 2, 3], [3, 2, 1])
    (1.0, -1.0)
    >>> round(spearman([1, 2, 2, 3], [1, 3, 2, 4]), 4)
    0.9487
    """
    a, b = _vectors(a, b, "spearman")
    if a.size < 2:
        return math.nan
    ra, rb = _ranks(a), _ranks(b)
    ra -= ra.mean()
    rb -= rb.mean()
    den = math.sqrt(float(ra @ ra) * float(rb @ rb))
    return math.nan if den == 0 else float(ra @ rb) / den


def top1_regret(model, measured) -> float:
    """Measured time of the model's first choice over the measured best, minus 1.

    ``model`` holds the model's scores (lower is better; ties go to the earlier plan, so pass
    plans in the model's rank order), ``measured`` the times.

    Examples
    --------
    >>> top1_regret([3.0, 1.0, 2.0], [1.0, 1.5, 1.2])
    0.5
    """
    a, b = _vectors(model, measured, "top1_regret")
    if not a.size:
        return math.nan
    return float(b[int(np.argmin(a))] / b.min() - 1.0)


def topk_recall(model, measured, k=5) -> float:
    """The share of the ``k`` measured-fastest plans among the model's first ``k``.

    Examples
    --------
    >>> topk_recall([1, 2, 3, 4], [1, 3, 2, 4], k=2)
    0.5
    """
    a, b = _vectors(model, measured, "topk_recall")
    k = min(as_int("k", k), a.size)
    if k < 1:
        return math.nan
    mine = set(np.argsort(a, kind="stable")[:k].tolist())
    best = set(np.argsort(b, kind="stable")[:k].tolist())
    return len(mine & best) / k


def best_in_topk(model, measured, k=5) -> bool:
    """Whether the measured-fastest plan is among the model's first ``k``.

    Examples
    --------
    >>> best_in_topk([1, 2, 3, 4], [4, 3, 2, 1], k=3), best_in_topk([1, 2, 3, 4], [4, 1, 2, 3], k=2)
    (False, True)
    """
    a, b = _vectors(model, measured, "best_in_topk")
    k = as_int("k", k)
    return bool(a.size) and int(np.argmin(b)) in np.argsort(a, kind="stable")[:k].tolist()


_PROBLEM_KEYS = ("m", "n", "k", "a_dtype", "b_dtype", "a_major", "b_major")


def problems(measurements) -> dict:
    """Group measured rows by problem: ``{key: {"name", "rows"}}``, key ``(m, n, k, a_dtype,
    b_dtype, a_major, b_major, arch, epilogue)``, in first-seen order; failed rows are left out.
    ``epilogue`` is the row's ``out_dtype`` for kernels that store through the plan's
    shared-memory epilogue tile (``config["epilogue"]`` true), else None: those are other
    kernels, ranked among themselves, with the epilogue tile in their plans.

    Examples
    --------
    >>> rows = [{"name": "sq", "m": 64, "n": 64, "k": 64, "a_dtype": "bf16", "b_dtype": "bf16",
    ...          "config": {"bm": 64, "bn": 64, "bk": 64, "stages": 2}, "median_ms": 0.01}]
    >>> list(problems(rows))
    [(64, 64, 64, 'bf16', 'bf16', 'K', 'K', 'sm90', None)]
    """
    if isinstance(measurements, dict):
        measurements = measurements.get("rows", [])
    if not isinstance(measurements, (list, tuple)):
        raise FastswzTypeError(f"measurements={type(measurements).__name__} must be a list of "
                               f"measured rows (or the measured JSON object with 'rows')")
    out = {}
    for r in measurements:
        ms = r.get("median_ms")
        if ms is None or not np.isfinite(ms) or ms <= 0:
            continue
        cfg = r["config"]
        key = (int(r["m"]), int(r["n"]), int(r["k"]), r.get("a_dtype", "bf16"), r.get("b_dtype", "bf16"),
               r.get("a_major", "K"), r.get("b_major", "K"), cfg.get("arch", "sm90"),
               r.get("out_dtype", "bf16") if cfg.get("epilogue") else None)
        out.setdefault(key, {"name": r.get("name") or "x".join(map(str, key[:3])), "rows": []})
        out[key]["rows"].append(r)
    return out


def _select(groups, shapes):
    if shapes is None:
        return list(groups)
    want = list(shapes)
    keys = []
    for key, g in groups.items():
        for s in want:
            if (s == g["name"] or s == key or (isinstance(s, (tuple, list)) and len(s) == 3
                                               and tuple(s) == key[:3])):
                keys.append(key)
                break
    if not keys:
        raise PlanError(f"shapes={shapes!r} select none of the measured problems "
                        f"{sorted({g['name'] for g in groups.values()})}: name them as the rows do, "
                        f"or as (m, n, k)")
    return keys


class _Problem:
    """A problem's plan table (independent of the model) and measured times."""

    def __init__(self, key, group, epilogue_dtype, sms):
        self.key, self.name = key, group["name"]
        m, n, k, a, b, am, bm, arch, epi = key
        rows = [dict(r["config"], a_dtype=a, b_dtype=b, a_major=am, b_major=bm) for r in group["rows"]]
        self.arch, self.mnk = arch, (m, n, k)
        self.sms = sms or DEFAULT_SMS[arch]
        self.table = _plan_columns(arch, rows, epi if epi is not None else epilogue_dtype)
        self.measured = np.array([r["median_ms"] for r in group["rows"]], dtype=np.float64)
        # model rank order of the default model breaks ties the way tune does (earlier first)
        order = [r.get("model_rank") for r in group["rows"]]
        self.order = (np.argsort(np.array(order), kind="stable") if all(o is not None for o in order)
                      else np.arange(len(rows)))

    def cycles(self, model):
        return _cycles_of(model, self.table, *self.mnk, self.sms)

    def metrics(self, model, k=5):
        c = self.cycles(model)[self.order]
        t = self.measured[self.order]
        ok = np.isfinite(c)
        c, t = c[ok], t[ok]
        return {"name": self.name, "problem": list(self.key), "plans": int(c.size),
                "spearman": spearman(c, t), "top1_regret": top1_regret(c, t),
                f"top{k}_recall": topk_recall(c, t, k), f"best_in_top{k}": best_in_topk(c, t, k),
                "best_ms": float(t.min()) if t.size else math.nan,
                "model_choice_ms": float(t[int(np.argmin(c))]) if t.size else math.nan}


def _prepare(measurements, shapes, epilogue_dtype, sms):
    groups = problems(measurements)
    if not groups:
        raise PlanError("measurements hold no measured row (every row failed or the list is "
                        "empty): nothing to compare the model with")
    return [_Problem(key, groups[key], epilogue_dtype, sms) for key in _select(groups, shapes)]


def evaluate(model, measurements, shapes=None, *, k=5, epilogue_dtype=None, sms=None):
    """Per-problem metrics of ``model`` against measurements.

    Parameters
    ----------
    model : TuneModel or None
        None: the default model of each problem's arch.
    measurements : list of dict or dict
        Measured rows (see the module docstring), or the JSON object holding them under ``rows``.
    shapes : list, optional
        Problems to score: names (``"sq4096"``), ``(m, n, k)`` tuples or full keys; default all.
    k : int
        The cut of the recall metrics.
    epilogue_dtype : str, optional
        Score rows whose kernel has no epilogue tile as if it had one of this type (rows with
        ``config["epilogue"]`` true always have theirs).
    sms : int, optional
        As :func:`fastswz.score_plans`.

    Returns
    -------
    list of dict
        ``name``, ``problem``, ``plans``, ``spearman``, ``top1_regret``, ``top{k}_recall``,
        ``best_in_top{k}``, ``best_ms``, ``model_choice_ms``.

    Examples
    --------
    >>> from fastswz import TuneModel, tune
    >>> plans = tune(4096, 4096, 4096, top=4000)[::100]      # 40 plans across the ranking
    >>> rows = [{"m": 4096, "n": 4096, "k": 4096, "config": p, "model_rank": p["rank"],
    ...          "median_ms": p["model_cycles"] / 1.83e6} for p in plans]
    >>> e = evaluate(None, rows)[0]
    >>> e["spearman"], e["top1_regret"], e["best_in_top5"]
    (1.0, 0.0, True)
    """
    probs = _prepare(measurements, shapes, epilogue_dtype, sms)
    return [p.metrics(model if model is not None else DEFAULT_MODELS[p.arch], k) for p in probs]


def _objective(model, probs, regret_weight):
    total = 0.0
    for p in probs:
        c = p.cycles(model)[p.order]
        ok = np.isfinite(c)
        rho = spearman(c[ok], p.measured[p.order][ok])
        reg = top1_regret(c[ok], p.measured[p.order][ok])
        total += (0.0 if math.isnan(rho) else rho) - regret_weight * min(reg, 1.0)
    return total / len(probs)


def fit_model(measurements, shapes=None, *, model=None, params=None, rounds=4, regret_weight=1.0,
              epilogue_dtype=None, sms=None):
    """Fit :class:`~fastswz.TuneModel` constants to measured times (coordinate search).

    Maximises ``mean(spearman) - regret_weight * mean(min(top1_regret, 1))`` over the training
    problems. Each round visits the constants of ``params`` in order and keeps the best value
    tried for each (:data:`FIT_PARAMS`: scale factors 4, 2, sqrt 2 and their inverses, shrinking
    by a square root each round, or a list of values); only a strict improvement moves a
    constant, so the result is deterministic.

    Parameters
    ----------
    measurements : list of dict or dict
        Measured rows (see the module docstring).
    shapes : list, optional
        Training problems (names, ``(m, n, k)`` or keys); default all.
    model : TuneModel, optional
        Start point; default the arch's :data:`~fastswz.tune.DATASHEET_MODELS` entry (not the
        shipped, already fitted :data:`~fastswz.tune.DEFAULT_MODELS`: a fit from the datasheet
        reproduces the shipped sm90 constants from ``benchmarks/data/tune_h100.json``).
    params : list of str, optional
        Constants to fit; default :data:`DEFAULT_FIT_PARAMS` (every key of :data:`FIT_PARAMS`
        but ``other_registers`` and ``epilogue_clocks_per_wavefront``), plus
        ``epilogue_clocks_per_wavefront`` when ``epilogue_dtype`` is given (pass it in
        ``params`` to fit it on rows whose kernels have an epilogue tile).
    rounds : int
        Coordinate-search rounds.
    regret_weight : float
        Weight of the top-1 regret against the Spearman correlation.
    epilogue_dtype, sms
        As :func:`fastswz.score_plans`.

    Returns
    -------
    TuneModel
        The fitted constants (the start point where nothing improved).

    Examples
    --------
    >>> from fastswz import TuneModel, tune, score_plans
    >>> truth = TuneModel(latency=3000.0, tile_overhead=4000.0)
    >>> rows = []
    >>> for m, n, k in ((2048, 2048, 2048), (256, 8192, 8192)):
    ...     plans = tune(m, n, k, top=3000, model=TuneModel())[::50]
    ...     t = score_plans(truth, plans, m, n, k)
    ...     rows += [{"m": m, "n": n, "k": k, "config": p, "median_ms": float(x) / 1.83e6}
    ...              for p, x in zip(plans, t)]
    >>> [round(e["spearman"], 2) for e in evaluate(TuneModel(), rows)]   # the datasheet model
    [0.43, 0.14]
    >>> fitted = fit_model(rows, params=["latency", "tile_overhead"], rounds=3)
    >>> [round(e["spearman"], 2) for e in evaluate(fitted, rows)]
    [1.0, 1.0]
    """
    probs = _prepare(measurements, shapes, epilogue_dtype, sms)
    archs = {p.arch for p in probs}
    if len(archs) > 1:
        raise PlanError(f"the training problems span several archs {sorted(archs)}: fit one arch "
                        f"at a time")
    arch = archs.pop()
    model = DATASHEET_MODELS[arch] if model is None else _model_arg(model, arch)
    if params is None:
        params = list(DEFAULT_FIT_PARAMS)
        if epilogue_dtype is not None:
            params.append("epilogue_clocks_per_wavefront")
    params = list(params)
    for p in params:
        if p not in FIT_PARAMS:
            raise PlanError(f"params holds {p!r}, not a fittable TuneModel constant: use some of "
                            f"{list(FIT_PARAMS)}")
    rounds = as_int("rounds", rounds)
    best = _objective(model, probs, regret_weight)
    factors = [4.0, 2.0, math.sqrt(2.0)]
    for r in range(max(rounds, 0)):
        fs = [f ** (0.5 ** r) for f in factors]
        for name in params:
            kind, *spec = FIT_PARAMS[name]
            cur = getattr(model, name)
            if kind == "scale":
                tries = [cur * f for f in fs] + [cur / f for f in fs]
                tries = [v for v in tries if spec[0] <= v <= spec[1]]
            else:
                tries = [v for v in spec if v != cur]
                if name in _SCALED_ONCE_NONZERO and cur > 0:
                    tries += [cur * f for f in fs] + [cur / f for f in fs]
            for v in tries:
                cand = model.replace(**{name: v})
                score = _objective(cand, probs, regret_weight)
                if score > best + 1e-12:
                    best, model = score, cand
    return model


def model_literal(model) -> str:
    """``model`` as a Python literal to paste into tune.py's :data:`DEFAULT_MODELS`.

    Examples
    --------
    >>> print(model_literal(TuneModel(latency=1200.0)))
    TuneModel(latency=1200.0)
    """
    base = TuneModel()
    changed = [f"{k}={v!r}" for k, v in model.to_dict().items() if getattr(base, k) != v]
    return f"TuneModel({', '.join(changed)})"


__all__.append("model_literal")
