"""The GEMM shape corpus: the problems fastswz's default plan is held to (issue 27).

``fastswz/data/gemm_corpus.json`` (written by ``tools/gemm_corpus.py``, never by hand) lists
the linear layers of published open LLMs (Llama 3 8B/70B/405B, Mistral 7B, Mixtral 8x7B's
experts, Qwen 2.5 7B/72B, DeepSeek-V3/V2's dense layers) at token counts 1 to 16384, squares
512 to 16384, ragged and long-K sizes, in bf16 and e4m3; its header names the source of every
model's dimensions and the rule that makes each layer's N and K. A problem is ``x @ W.T``: A is
M x K (the activations), B is ``W.T`` with W N x K, N the output features and K the input
features; D is M x N.

Buckets: ``decode`` (a model layer at M <= 16), ``small`` (16 < M <= 128), ``prefill``
(M > 128), ``square``, ``ragged`` and ``long_k`` (:data:`BUCKETS`). This module reads and
checks the file and nothing else: no GPU, no torch.

Examples
--------
>>> from fastswz.corpus import load_corpus
>>> problems = load_corpus()
>>> len(problems) >= 300
True
>>> p = load_corpus(dtype="e4m3", bucket="decode")[0]
>>> p.name, (p.m, p.n, p.k), p.model, p.layer, p.shared_by
('llama3-8b.qkv.m1.e4m3', (1, 6144, 4096), 'Llama 3 8B', 'qkv', ('Mistral 7B/qkv',))
>>> p.bytes                     # A, B and D once each: the least DRAM traffic
25182208
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from .dtypes import DTYPES
from .errors import CorpusError, FastswzTypeError

__all__ = ["GemmProblem", "load_corpus", "corpus_header", "validate_corpus", "token_bucket",
           "CORPUS_PATH", "BUCKETS", "CorpusError"]

#: The corpus that ships with fastswz.
CORPUS_PATH = Path(__file__).resolve().parent / "data" / "gemm_corpus.json"
#: The buckets, in report order: three of model layers by token count, three synthetic kinds.
BUCKETS = ("decode", "small", "prefill", "square", "ragged", "long_k")
_MODEL_BUCKETS = BUCKETS[:3]
_FORMAT, _VERSION = "fastswz-gemm-corpus", 1
_KEYS = ("name", "model", "layer", "m", "n", "k", "a_dtype", "b_dtype", "out_dtype", "a_major",
         "b_major", "bucket", "shared_by")
_OUT_DTYPES = ("bf16", "f16", "f32")
_MAX_EXTENT = 2**31 - 1  # the kernel's M, N, K are int32


def token_bucket(m):
    """The bucket of a model layer run on ``m`` tokens.

    >>> token_bucket(16), token_bucket(17), token_bucket(128), token_bucket(129)
    ('decode', 'small', 'small', 'prefill')
    """
    return "decode" if m <= 16 else "small" if m <= 128 else "prefill"


@dataclass(frozen=True)
class GemmProblem:
    """One GEMM of the corpus: D (M x N, ``out_dtype``) = A (M x K) x B (K x N).

    Attributes
    ----------
    name : str
        Unique, ``model.layer.mM.dtype`` or ``bucket.MxNxK.dtype``.
    model, layer : str or None
        The model and linear layer (header ``layers`` says how N and K follow from the model's
        configuration); None for a synthetic problem (square, ragged, long_k).
    m, n, k : int
        Tokens, output features, input features.
    a_dtype, b_dtype, out_dtype : str
        Element types (fastswz names).
    a_major, b_major : str
        ``"K"`` or ``"MN"``: A K-major is M x K row-major; B K-major is W (N x K) row-major.
    bucket : str
        One of :data:`BUCKETS`.
    shared_by : tuple of str
        Other ``"model/layer"`` pairs with this very shape.

    Examples
    --------
    >>> p = GemmProblem("t", None, None, 1000, 1000, 1000, "e4m3", "e4m3", "bf16", "K", "K",
    ...                 "ragged")
    >>> p.flops, p.bytes, p.key
    (2000000000, 4000000, (1000, 1000, 1000, 'e4m3', 'e4m3', 'bf16', 'K', 'K'))
    """

    name: str
    model: str | None
    layer: str | None
    m: int
    n: int
    k: int
    a_dtype: str
    b_dtype: str
    out_dtype: str
    a_major: str
    b_major: str
    bucket: str
    shared_by: tuple = ()

    @property
    def flops(self):
        """2 M N K: a multiply and an add per term."""
        return 2 * self.m * self.n * self.k

    @property
    def bytes(self):
        """Bytes of A, B and D, each read or written once: the least DRAM traffic."""
        size = {name: d.bits // 8 for name, d in DTYPES.items()}
        return (self.m * self.k * size[self.a_dtype] + self.n * self.k * size[self.b_dtype]
                + self.m * self.n * size[self.out_dtype])

    @property
    def key(self):
        """What makes two problems the same GEMM: extents, types and majors."""
        return (self.m, self.n, self.k, self.a_dtype, self.b_dtype, self.out_dtype,
                self.a_major, self.b_major)


def _read(path):
    path = CORPUS_PATH if path is None else Path(path)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise CorpusError(f"corpus {path}: cannot read it ({type(exc).__name__}: {exc}); pass the "
                          f"path of a JSON file written by tools/gemm_corpus.py") from None


def validate_corpus(data):
    """Check a parsed corpus (the JSON object) and return its problems.

    Parameters
    ----------
    data : dict
        ``json.load`` of a corpus file.

    Returns
    -------
    list of GemmProblem
        In file order.

    Raises
    ------
    fastswz.errors.CorpusError
        The first rule broken, naming the problem, the field and the value: the header
        (format, version, models), a problem's keys, extents (positive int32), types (sm90
        operand types; fp8 K-major only), majors, bucket (known, and consistent with M for a
        model layer or with the shape for a synthetic problem), model and layer (in the header),
        ``shared_by``, or a name or shape listed twice.

    Examples
    --------
    >>> row = {"name": "sq", "model": None, "layer": None, "m": 64, "n": 64, "k": 64,
    ...        "a_dtype": "bf16", "b_dtype": "bf16", "out_dtype": "bf16", "a_major": "K",
    ...        "b_major": "K", "bucket": "square", "shared_by": []}
    >>> data = {"format": "fastswz-gemm-corpus", "version": 1, "models": [], "problems": [row]}
    >>> validate_corpus(data)[0].bucket
    'square'
    """
    what = _header_fault(data)
    if what:
        raise CorpusError(f"corpus: {what}: a corpus is the JSON object tools/gemm_corpus.py "
                          f"writes (format {_FORMAT!r}, version {_VERSION}, models, problems)")
    models, rows = data["models"], data["problems"]
    layers = {(s["model"], layer) for s in models for layer in s["layers"]}
    out, names, shapes = [], {}, {}
    for i, row in enumerate(rows):
        p = _problem(i, row, layers)
        where = f"corpus problem {i} ({p.name})"
        if p.name in names:
            raise CorpusError(f"{where}: name={p.name!r} is listed twice (problems {names[p.name]} "
                              f"and {i}): names must be unique")
        names[p.name] = i
        kind = p.bucket if p.model is None else "model"
        other = shapes.setdefault((p.key, kind), p.name)
        if other != p.name:
            raise CorpusError(f"{where}: {p.m} x {p.n} x {p.k} {p.a_dtype} x {p.b_dtype} "
                              f"({p.a_major}/{p.b_major}-major) is the same problem as {other!r}: "
                              f"list it once (a shape models share goes in shared_by)")
        out.append(p)
    return out


def _header_fault(data):
    """What is wrong with a corpus's top level, or None."""
    if not isinstance(data, dict):
        return f"the top level is a {type(data).__name__}"
    if data.get("format") != _FORMAT:
        return f"format={data.get('format')!r}"
    if data.get("version") != _VERSION:
        return f"version={data.get('version')!r}"
    models = data.get("models")
    if not (isinstance(models, list) and all(
            isinstance(s, dict) and isinstance(s.get("model"), str)
            and isinstance(s.get("layers"), list) for s in models)):
        return f"models={models!r:.60} is not a list of objects with 'model' and 'layers'"
    if not isinstance(data.get("problems"), list):
        return f"problems={data.get('problems')!r:.60} is not a list"
    return None


def _problem(i, row, layers):
    """One problem row checked against the schema (``layers``: the header's (model, layer))."""
    name = row.get("name") if isinstance(row, dict) else None
    where = f"corpus problem {i} ({name})"
    keys = set(row) if isinstance(row, dict) else set()
    if keys != set(_KEYS) or not isinstance(name, str):
        missing, unknown = sorted(set(_KEYS) - keys), sorted(keys - set(_KEYS))
        raise CorpusError(f"{where}: its keys must be exactly {', '.join(_KEYS)} with a string "
                          f"name; missing {missing}, unknown {unknown}")
    for key in ("m", "n", "k"):
        v = row[key]
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= _MAX_EXTENT:
            raise CorpusError(f"{where}: {key}={v!r} must be a positive int of at most 2**31 - 1 "
                              f"(the kernel's int32 extents)")
    for key in ("a_dtype", "b_dtype"):
        v = row[key]
        if not (isinstance(v, str) and v in DTYPES and DTYPES[v].sm90):
            raise CorpusError(f"{where}: {key}={v!r} is not an sm90 operand type (one of "
                              f"{', '.join(n for n, d in DTYPES.items() if d.sm90)})")
    if row["out_dtype"] not in _OUT_DTYPES:
        raise CorpusError(f"{where}: out_dtype={row['out_dtype']!r} is not an output type of the "
                          f"kernel (one of {', '.join(_OUT_DTYPES)})")
    for op in ("a", "b"):
        v = row[op + "_major"]
        if v not in ("K", "MN"):
            raise CorpusError(f"{where}: {op}_major={v!r} must be 'K' or 'MN'")
        if v == "MN" and not DTYPES[row[op + "_dtype"]].mn_major_sm90:
            raise CorpusError(f"{where}: {op}_major='MN' with {op}_dtype={row[op + '_dtype']!r}: "
                              f"wgmma reads 8- and 32-bit operands K-major only (PTX 9.7.15.5.1.2)")
    m, n, k, bucket = row["m"], row["n"], row["k"], row["bucket"]
    if bucket not in BUCKETS:
        raise CorpusError(f"{where}: bucket={bucket!r} is not one of {', '.join(BUCKETS)}")
    model, layer = row["model"], row["layer"]
    if (model, layer) not in layers and not (model is None and layer is None):
        raise CorpusError(f"{where}: model={model!r}, layer={layer!r} is not a layer of a model in "
                          f"the header (a synthetic problem has neither)")
    if model is not None and bucket != token_bucket(m):
        raise CorpusError(f"{where}: bucket={bucket!r} but m={m} tokens is {token_bucket(m)!r} "
                          f"(decode: M <= 16, small: M <= 128, prefill: above)")
    if model is None:
        fits = {"square": m == n == k, "ragged": any(x % 64 for x in (m, n, k)),
                "long_k": k >= 16 * max(m, n)}.get(bucket, False)
        if not fits:
            rule = {"square": "M = N = K", "ragged": "one of M, N, K not a multiple of 64",
                    "long_k": "K >= 16 x max(M, N)"}.get(bucket, "only model layers go in it")
            raise CorpusError(f"{where}: bucket={bucket!r} does not fit the synthetic problem "
                              f"{m} x {n} x {k}: {rule}")
    shared = row["shared_by"]
    if not (isinstance(shared, list) and all(isinstance(s, str) and tuple(s.split("/", 1)) in layers
                                             for s in shared)):
        raise CorpusError(f"{where}: shared_by={shared!r} must be a list of 'model/layer' strings "
                          f"naming layers of the header's models")
    return GemmProblem(name, model, layer, m, n, k, row["a_dtype"], row["b_dtype"],
                       row["out_dtype"], row["a_major"], row["b_major"], bucket, tuple(shared))


def _choices(name, value):
    """A filter argument as a set of strings (None: no filter)."""
    if value is None:
        return None
    if isinstance(value, str):
        return {value}
    if (isinstance(value, (list, tuple, set, frozenset)) and value
            and all(isinstance(v, str) for v in value)):
        return set(value)
    raise FastswzTypeError(f"{name}={value!r} must be a string or a non-empty list of strings")


def load_corpus(path=None, *, dtype=None, bucket=None):
    """The problems of a corpus file, checked, optionally filtered.

    Parameters
    ----------
    path : str or pathlib.Path, optional
        A corpus file; default :data:`CORPUS_PATH`, the one fastswz ships.
    dtype : str or list of str, optional
        Keep the problems whose A type is one of these (``"bf16"``, ``"e4m3"``).
    bucket : str or list of str, optional
        Keep the problems of these buckets (:data:`BUCKETS`).

    Returns
    -------
    list of GemmProblem
        In file order.

    Raises
    ------
    fastswz.errors.CorpusError
        The file does not read or breaks the schema (:func:`validate_corpus`), or a filter
        names a dtype or bucket the corpus does not have.
    fastswz.FastswzTypeError
        A filter that is not a string or a list of strings.

    Examples
    --------
    >>> [p.name for p in load_corpus(bucket="long_k", dtype="bf16")]
    ['long_k.256x256x65536.bf16', 'long_k.512x512x32768.bf16', 'long_k.1024x1024x16384.bf16']
    """
    dtypes, buckets = _choices("dtype", dtype), _choices("bucket", bucket)
    problems = validate_corpus(_read(path))
    have = {p.a_dtype for p in problems}
    if dtypes is not None and not dtypes <= have:
        raise CorpusError(f"dtype={dtype!r} is not in the corpus: its A types are "
                          f"{', '.join(sorted(have))}")
    if buckets is not None and not buckets <= set(BUCKETS):
        raise CorpusError(f"bucket={bucket!r} is not a corpus bucket: one of {', '.join(BUCKETS)}")
    return [p for p in problems if (dtypes is None or p.a_dtype in dtypes)
            and (buckets is None or p.bucket in buckets)]


def corpus_header(path=None):
    """The header of a corpus file (everything but ``problems``): sources, layer rules, buckets.

    >>> h = corpus_header()
    >>> h["tokens"]
    [1, 8, 16, 32, 64, 128, 512, 2048, 8192, 16384]
    >>> [m["model"] for m in h["models"]][:3]
    ['Llama 3 8B', 'Llama 3 70B', 'Llama 3 405B']
    """
    data = _read(path)
    validate_corpus(data)
    return {k: v for k, v in data.items() if k != "problems"}
