"""Tuned-plan tables: the measured search's winners, which :func:`fastswz.cuda.choose_plan` (and
so :func:`fastswz.cuda.gemm` given no plan) runs.

A table is a JSON file (``fastswz tune --measure --save TABLE``, :meth:`TunedTable.save`) that
users can ship: one GPU (:func:`gpu_id`: name, compute capability, SM count) and one kernel
version (:data:`fastswz.cuda.KERNEL_VERSION`) per file, and per problem (M, N, K, A and B types,
majors, output type) the configuration that won and its time beside the default plan's::

    {"format": "fastswz-tuned-plans", "format_version": 1,
     "kernel_version": "sm90-ws-persistent-1", "gpu": "NVIDIA H100 80GB HBM3|sm9.0|132sms",
     "entries": [{"m": 3000, "n": 5000, "k": 1000, "a_dtype": "bf16", "b_dtype": "bf16",
                  "a_major": "K", "b_major": "K", "out_dtype": "bf16",
                  "config": {...}, "median_ms": 0.071, "default_ms": 0.102, ...}, ...]}

A table is made active by :func:`use_tuned` (a path or a :class:`TunedTable`), or by the
environment variable ``FASTSWZ_TUNED=TABLE``, read at the first lookup of a process that called
no :func:`use_tuned`. A table of another kernel version is ignored with a
:class:`TunedTableWarning` when it is made active; one of another GPU at its first lookup, when
this process's GPU is known (or at once, given ``gpu=``).

:func:`lookup` (what ``choose_plan`` asks first) answers in this order:

1. **exact**: an entry for this very problem;
2. **nearest**: among entries of the same types, majors and output type, the one nearest in
   log-space, ``d = max(|log2(M'/M)|, |log2(N'/N)|, |log2(K'/K)|)`` (ties: the smaller sum of the
   three), if ``d <= NEAREST_BOUND`` (0.25: each extent within a factor of 1.19), its configuration
   still passes :func:`fastswz.cuda.supported` and it fits the new problem: BM no larger than M
   rounded up to 64, BN no larger than N rounded up to 16, with a cluster along M at least two
   row tiles (along N, two column tiles), and its work units filling the SMs' last wave at most ``NEAREST_FILL_LOSS`` (0.1)
   less than on the entry's own problem (:func:`wave_fill`);
3. **none**: ``choose_plan`` falls back to the cost model.

A lookup is a dict access once a problem has been seen: answers are remembered per problem (a
table is parsed once). Whoever memoizes above the lookup registers a clearing function with
:func:`on_change`; it runs whenever the active table changes (``fastswz.cuda`` registers
``choose_plan.cache_clear`` when ``choose_plan`` has one).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import tempfile
import threading
import time
import warnings
from pathlib import Path

from ..dtypes import dtype as _lookup_dtype
from ..errors import FastswzError
from .codegen import GEMM_KEYS, normalize_config, supported

__all__ = ["TunedTable", "TunedTableWarning", "TunedTableError", "load_tuned", "use_tuned", "save_results",
           "active", "lookup", "suspended", "on_change", "gpu_id", "NEAREST_BOUND", "NEAREST_FILL_LOSS",
           "wave_fill", "FORMAT",
           "FORMAT_VERSION", "ENV"]

FORMAT = "fastswz-tuned-plans"
FORMAT_VERSION = 1
#: The nearest rule's bound on ``max |log2(x'/x)|`` over M, N and K. Measured on an H200
#: (tests/gpu/tune/exhaustive.py, docs/conformance/h200-2026-11-26-tune): with 1.0 (a factor of 2)
#: the six held-out problems all took their nearest entry's plan and lost 13.8% on average to
#: their measured best, more than the cost model's own plan; a neighbour's winner carries over
#: only while the tile counts (waves) and k-tiles barely change.
NEAREST_BOUND = 0.25
#: ... and the nearest entry's plan fills the SMs' waves on the new problem at most this much
#: less than on its own (:func:`wave_fill`). Measured on an H200
#: (docs/conformance/h200-2026-11-26-pitch/schedules-search): 4096 x 2560 x 5120's winner, a
#: 192 x 144 tile making exactly 3 waves there, made 3.03 on the held-out 4707 x 2236 x 5040 and
#: ran 25.7% slower than that problem's measured best.
NEAREST_FILL_LOSS = 0.1
#: The environment variable naming a table to use.
ENV = "FASTSWZ_TUNED"
_PROBLEM = ("m", "n", "k", "a_dtype", "b_dtype", "a_major", "b_major", "out_dtype")


class TunedTableWarning(UserWarning):
    """A tuned table was ignored: made for another kernel version or GPU, or this process
    cannot tell which GPU it runs on."""


class TunedTableError(FastswzError, ValueError):
    """A tuned-plan table that cannot be read: not JSON, not this format, or an entry without
    a problem or a configuration."""


def gpu_id(info=None) -> str:
    """The GPU a table is made for: ``name|smCC|Nsms`` of GPU 0 (:func:`fastswz.cuda.device_info`),
    without the driver and compiler versions that :func:`fastswz.cuda.device_key` adds.

    Examples
    --------
    >>> gpu_id({"name": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0", "sms": 132})
    'NVIDIA H100 80GB HBM3|sm9.0|132sms'
    """
    if info is None:
        from .runtime import device_info

        info = device_info()
    return f"{info['name']}|sm{info['compute_capability']}|{info['sms']}sms"


def _canonical(m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype):
    return (int(m), int(n), int(k), _lookup_dtype(a_dtype).name, _lookup_dtype(b_dtype).name,
            str(a_major).strip().upper(), str(b_major).strip().upper(), _lookup_dtype(out_dtype).name)


def _fits(c, m, n):
    return (c["bm"] <= -(-m // 64) * 64 and c["bn"] <= -(-n // 16) * 16
            and (c["cluster_m"] == 1 or -(-m // c["bm"]) >= 2)
            and (c.get("cluster_n", 1) == 1 or -(-n // c["bn"]) >= 2))


def wave_fill(c, m, n, sms=None):
    """The fraction of the SMs' waves a configuration's work units fill on an M x N problem:
    units / (waves x SMs), units = output tiles (in the kernel's frame: swapped, N x M) x K
    splits.

    >>> c = {"bm": 192, "bn": 144, "swap_ab": False, "split_k": 1}
    >>> round(wave_fill(c, 4096, 2560), 3), round(wave_fill(c, 4707, 2236), 3)
    (1.0, 0.758)
    """
    from ..tune import DEFAULT_SMS

    sms = sms or DEFAULT_SMS["sm90"]
    km, kn = (n, m) if c.get("swap_ab") else (m, n)
    units = -(-km // c["bm"]) * -(-kn // c["bn"]) * c.get("split_k", 1)
    return units / (-(-units // sms) * sms)


class TunedTable:
    """Measured winners of one GPU and kernel version, looked up by problem.

    Parameters
    ----------
    entries : list of dict, optional
        Each the problem's fields (``m``, ``n``, ``k``, ``a_dtype``, ``b_dtype``, ``a_major``,
        ``b_major``, ``out_dtype``) and ``config`` (a configuration), plus anything measured
        (``median_ms``, ``default_ms``, ...).
    gpu : str, optional
        :func:`gpu_id` of the GPU the entries were timed on (None: not checked).
    kernel_version : str, optional
        Default :data:`fastswz.cuda.KERNEL_VERSION`.

    Examples
    --------
    >>> t = TunedTable([{"m": 3000, "n": 5000, "k": 1000, "a_dtype": "bf16", "b_dtype": "bf16",
    ...                  "a_major": "K", "b_major": "K", "out_dtype": "bf16",
    ...                  "config": {"bm": 128, "bn": 256, "bk": 64, "stages": 3, "epilogue": True,
    ...                             "cluster_m": 2}}], gpu="GPU|sm9.0|132sms")
    >>> c, how = t.find(3000, 5000, 1000, "bf16", "bf16", "K", "K", "bf16")
    >>> how, c["bn"], c["cluster_m"]
    ('exact', 256, 2)
    >>> t.find(2900, 5100, 1100, "bf16", "bf16", "K", "K", "bf16")[1]      # within 2x: nearest
    'nearest'
    >>> t.find(300, 5000, 1000, "bf16", "bf16", "K", "K", "bf16")          # 10x smaller M: none
    (None, None)
    """

    def __init__(self, entries=(), *, gpu=None, kernel_version=None, meta=None, source=None):
        from . import KERNEL_VERSION

        self.gpu = gpu
        self.kernel_version = KERNEL_VERSION if kernel_version is None else kernel_version
        self.meta = dict(meta or {})
        self.source = source
        self.entries = {}
        self._memo, self._groups, self._usable = {}, None, {}
        self._lock = threading.Lock()
        for i, e in enumerate(entries):
            self.add(e, where=f"entry {i}")

    def __len__(self):
        return len(self.entries)

    def add(self, entry, where="entry"):
        """Add (or replace) one entry: the problem's fields and ``config``."""
        if not isinstance(entry, dict) or not isinstance(entry.get("config"), dict):
            raise TunedTableError(f"{self._name()}: {where} must be an object with the problem "
                                  f"({', '.join(_PROBLEM)}) and 'config' (a configuration)")
        try:
            key = _canonical(*(entry[f] for f in _PROBLEM))
            cfg = normalize_config({f: v for f, v in entry["config"].items() if f in GEMM_KEYS})
        except (KeyError, TypeError, ValueError) as exc:
            raise TunedTableError(f"{self._name()}: {where} has no usable problem or config "
                                  f"({type(exc).__name__}: {exc}); it needs "
                                  f"{', '.join(_PROBLEM)} and config") from None
        for f, v in zip(("a_dtype", "b_dtype", "a_major", "b_major", "out_dtype"), key[3:]):
            if cfg[f] != v:
                raise TunedTableError(f"{self._name()}: {where} is for {f}={v} but its config has "
                                      f"{f}={cfg[f]}: the plan must be made for the problem's types")
        e = {**{f: v for f, v in entry.items() if f != "config"}, **dict(zip(_PROBLEM, key)),
             "config": cfg}
        with self._lock:
            self.entries[key] = e
            self._memo, self._groups = {}, None

    def add_result(self, result):
        """Add a :func:`fastswz.cuda.search.search_plans` result: its winner, with the default
        plan's time beside it."""
        best, dflt = result["best"], result.get("default") or {}
        self.add({**result["problem"], "config": best["config"], "median_ms": best["median_ms"],
                  "tflops": best.get("tflops"), "spread": best.get("spread"),
                  "model_rank": best.get("model_rank"), "kind": best.get("kind"),
                  "default_ms": dflt.get("median_ms"), "regret": result.get("regret"),
                  "plans": result.get("plans")})

    def _name(self):
        return f"tuned table {self.source}" if self.source else "tuned table"

    def _group(self, types):
        if self._groups is None:
            groups = {}
            for key in self.entries:
                groups.setdefault(key[3:], []).append(key)
            self._groups = groups
        return self._groups.get(types, ())

    def _usable_config(self, key):
        ok = self._usable.get(key)
        if ok is None:
            why = supported(self.entries[key]["config"])
            ok = self._usable[key] = why is None
            if not ok:
                warnings.warn(f"{self._name()}: the plan for {key[:3]} is not run by this kernel "
                              f"family ({why}); that entry is ignored", TunedTableWarning, stacklevel=4)
        return ok

    def find(self, m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype):
        """``(config, "exact" | "nearest")`` for a problem, or ``(None, None)`` (no GPU check)."""
        key = _canonical(m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype)
        if key in self.entries and self._usable_config(key):
            return dict(self.entries[key]["config"]), "exact"
        best, bd = None, (math.inf, math.inf)
        lm, ln, lk = (math.log2(x) for x in key[:3])
        for other in self._group(key[3:]):
            d = [abs(math.log2(a) - b) for a, b in zip(other[:3], (lm, ln, lk))]
            score = (max(d), sum(d))
            if score < bd:
                best, bd = other, score
        if best is None or bd[0] > NEAREST_BOUND:
            return None, None
        c = self.entries[best]["config"]
        if not self._usable_config(best) or not _fits(c, key[0], key[1]):
            return None, None
        if wave_fill(c, key[0], key[1]) < wave_fill(c, best[0], best[1]) - NEAREST_FILL_LOSS:
            return None, None   # the plan's last wave would be emptier here than where it won
        return dict(c), "nearest"

    def lookup(self, m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype):
        """The configuration for a problem (exact, else nearest), else None; remembered."""
        raw = (m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype)
        hit = self._memo.get(raw, _MISS)
        if hit is _MISS:
            hit = self.find(*raw)[0]
            self._memo[raw] = hit
        return dict(hit) if hit is not None else None

    def to_json(self) -> dict:
        """The file's JSON object."""
        from .._version import __version__

        entries = [self.entries[key] for key in sorted(self.entries)]
        return {"format": FORMAT, "format_version": FORMAT_VERSION,
                "kernel_version": self.kernel_version, "gpu": self.gpu,
                "fastswz": __version__, **{k: v for k, v in self.meta.items()
                                           if k not in ("format", "format_version", "entries",
                                                        "kernel_version", "gpu")},
                "entries": entries}

    def save(self, path):
        """Write the table to ``path`` (JSON, through a temporary file and a rename)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".fastswz-", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(self.to_json(), f, indent=1, sort_keys=False)
                f.write("\n")
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        self.source = str(path)
        return path


_MISS = object()


def save_results(path, results) -> TunedTable:
    """Add search results (:func:`fastswz.cuda.search.search_plans`) to the table at ``path``
    (created when missing) and write it. The results' device and kernel version must be the
    table's: a table holds one GPU's measurements.

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "t.json")
    >>> r = {"problem": {"m": 64, "n": 64, "k": 64, "a_dtype": "bf16", "b_dtype": "bf16",
    ...      "a_major": "K", "b_major": "K", "out_dtype": "bf16"}, "device": "stand-in",
    ...      "kernel_version": "doc", "best": {"config": {"bm": 64, "bn": 64}, "median_ms": 0.01},
    ...      "default": None}
    >>> len(save_results(p, [r])), load_tuned(p).gpu
    (1, 'stand-in')
    """
    results = [r for r in results if r.get("best")]   # a failed problem has no winner
    if not results:
        return load_tuned(path) if Path(path).exists() else None
    gpu, kv = results[0]["device"], results[0]["kernel_version"]
    if Path(path).exists():
        t = load_tuned(path)
        if (t.gpu, t.kernel_version) != (gpu, kv):
            raise TunedTableError(f"tuned table {path} holds {t.gpu} / kernel {t.kernel_version}, "
                                  f"the results {gpu} / kernel {kv}: a table holds one GPU and one "
                                  f"kernel version; save these to another file")
    else:
        t = TunedTable([], gpu=gpu, kernel_version=kv, meta={"created": _now()})
    for r in results:
        if (r["device"], r["kernel_version"]) != (gpu, kv):
            raise TunedTableError(f"results of {r['device']} / {r['kernel_version']} and {gpu} / "
                                  f"{kv} cannot share a table; save them one GPU at a time")
        t.add_result(r)
    t.meta["updated"] = _now()
    t.save(path)
    return t


def load_tuned(path) -> TunedTable:
    """Read a tuned-plan table (JSON) without making it active.

    Raises
    ------
    TunedTableError
        The file is missing, is not JSON, or is not a table of this format.

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "t.json")
    >>> _ = TunedTable([], gpu="GPU|sm9.0|132sms").save(p)
    >>> t = load_tuned(p)
    >>> len(t), t.gpu
    (0, 'GPU|sm9.0|132sms')
    """
    if isinstance(path, TunedTable):
        return path
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise TunedTableError(f"tuned table {path}: cannot be read ({exc.strerror or exc}); "
                              f"make one with fastswz tune --measure --save {path}") from None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise TunedTableError(f"tuned table {path}: not JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise TunedTableError(f"tuned table {path}: 'format' is not {FORMAT!r}; it is not a "
                              f"table fastswz tune --measure --save wrote")
    if data.get("format_version") != FORMAT_VERSION:
        raise TunedTableError(f"tuned table {path}: format_version={data.get('format_version')!r}, "
                              f"this fastswz reads {FORMAT_VERSION}")
    if not isinstance(data.get("kernel_version"), str):
        raise TunedTableError(f"tuned table {path}: no 'kernel_version' (the kernel source the "
                              f"entries were timed with)")
    if not isinstance(data.get("entries"), list):
        raise TunedTableError(f"tuned table {path}: 'entries' must be a list")
    meta = {k: v for k, v in data.items() if k not in ("entries", "gpu", "kernel_version")}
    return TunedTable(data["entries"], gpu=data.get("gpu"),
                      kernel_version=data.get("kernel_version"), meta=meta, source=str(path))


_STATE = {"table": None, "env_done": False, "suspended": 0, "gpu_checked": True}
_HOOKS = []
_LOCK = threading.Lock()


def on_change(fn):
    """Call ``fn()`` whenever the active table changes (memoizing callers clear their memo)."""
    _HOOKS.append(fn)
    return fn


def _changed():
    for fn in list(_HOOKS):
        fn()


def use_tuned(table, *, gpu=None):
    """Make a table active (a path, a :class:`TunedTable`, or None for none); returns it, or None
    when it was ignored as stale.

    Parameters
    ----------
    table : str, Path, TunedTable or None
    gpu : str, optional
        The :func:`gpu_id` to check the table against now (default: this process's GPU 0, at the
        first lookup that finds the table active).

    Examples
    --------
    >>> t = TunedTable([], gpu="GPU|sm9.0|132sms")
    >>> use_tuned(t, gpu="GPU|sm9.0|132sms") is t, active() is t
    (True, True)
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     use_tuned(t, gpu="Other|sm9.0|114sms") is None, active() is None
    (True, True)
    >>> print(str(w[0].message)[:78])
    tuned table ignored: it was measured on GPU|sm9.0|132sms, this process runs on
    >>> use_tuned(None)
    """
    from . import KERNEL_VERSION

    with _LOCK:
        _STATE["env_done"] = True
        t = None if table is None else load_tuned(table)
        if t is not None and t.kernel_version != KERNEL_VERSION:
            warnings.warn(f"{t._name()} ignored: it was measured with kernel version "
                          f"{t.kernel_version!r}, this fastswz runs {KERNEL_VERSION!r}; measure "
                          f"again (fastswz tune --measure --save)", TunedTableWarning, stacklevel=2)
            t = None
        if t is not None and gpu is not None and t.gpu is not None and t.gpu != gpu:
            warnings.warn(_gpu_message(t, gpu), TunedTableWarning, stacklevel=2)
            t = None
        _STATE["table"] = t
        _STATE["gpu_checked"] = t is None or gpu is not None or t.gpu is None
    _changed()
    return t


def _gpu_message(t, gpu):
    return (f"{t._name()} ignored: it was measured on {t.gpu}, this process runs on {gpu}; "
            f"measure this GPU (fastswz tune --measure --save)")


def active():
    """The active :class:`TunedTable`, or None (reads ``FASTSWZ_TUNED`` the first time)."""
    if not _STATE["env_done"]:
        _from_env()
    return _STATE["table"]


def _from_env():
    with _LOCK:
        if _STATE["env_done"]:
            return
        _STATE["env_done"] = True
        path = os.environ.get(ENV)
    if path:
        try:
            use_tuned(path)
        except TunedTableError as exc:
            warnings.warn(f"{ENV}={path}: {exc}; no tuned table is used", TunedTableWarning,
                          stacklevel=4)


def _check_gpu(t):
    try:
        here = gpu_id()
    except Exception as exc:  # noqa: BLE001 - no GPU: the table cannot be checked
        warnings.warn(f"{t._name()} ignored: this process cannot tell which GPU it runs on "
                      f"({type(exc).__name__}: {exc}); pass use_tuned(..., gpu=...)",
                      TunedTableWarning, stacklevel=4)
        here = None
    with _LOCK:
        if _STATE["table"] is not t:
            return _STATE["table"]
        _STATE["gpu_checked"] = True
        if here is None or (t.gpu is not None and t.gpu != here):
            if here is not None:
                warnings.warn(_gpu_message(t, here), TunedTableWarning, stacklevel=4)
            _STATE["table"] = None
    if _STATE["table"] is None:
        _changed()
    return _STATE["table"]


@contextlib.contextmanager
def suspended():
    """No table is consulted inside the block (the search's default plan is the model's)."""
    with _LOCK:
        _STATE["suspended"] += 1
    _changed()
    try:
        yield
    finally:
        with _LOCK:
            _STATE["suspended"] -= 1
        _changed()


def lookup(m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype):
    """The active table's configuration for a problem (exact, then nearest), else None.

    What :func:`fastswz.cuda.choose_plan` asks first; None sends it to the cost model.

    Examples
    --------
    >>> use_tuned(None)
    >>> lookup(4096, 4096, 4096, "bf16", "bf16", "K", "K", "bf16") is None
    True
    """
    if _STATE["suspended"]:
        return None
    t = _STATE["table"]
    if t is None:
        if _STATE["env_done"]:
            return None
        t = active()
        if t is None:
            return None
    if not _STATE["gpu_checked"]:
        t = _check_gpu(t)
        if t is None:
            return None
    return t.lookup(m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype)


def _now():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
