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
from .codegen import GEMM_KEYS, OUT_DTYPES, kernel_sources, normalize_config, supported

__all__ = ["gemm", "compile_gemm", "compile_many", "supported", "kernel_sources", "GemmKernel",
           "device_info", "device_key", "choose_plan", "CudaError", "CudaUnavailableError",
           "GemmArgumentError", "KERNEL_VERSION", "GEMM_KEYS", "OUT_DTYPES", "normalize_config",
           "EPILOGUE_MIN_STAGES", "EPILOGUE_BLOCK_N", "EPILOGUE_BLOCK_STAGES", "EPILOGUE_WHOLE_KTILES",
           "default_out_dtype", "search_plans", "sweep_problems", "load_tuned", "use_tuned",
           "TunedTable"]

#: Changes whenever the kernel source or its generated headers change meaning (cache keys).
KERNEL_VERSION = "sm90-ws-persistent-1"


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
    """A :class:`GemmKernel` for a configuration (NVRTC; cached on disk; no GPU needed).

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
    cubin, key = compile_cubin(c)
    return GemmKernel(c, cubin, key)


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
#: The epilogue :func:`choose_plan` falls back to where the whole BM x BN tile does not fit beside
#: the model's stages: 64-column blocks rotating through 2 tiles. On the H100, in two runs, the
#: 128 x 256 plans with 4 stages and those blocks ran 3-18% faster than the whole tile with 3
#: stages on the benchmark's shapes but the three longest, and -0.7 to +9.8% on e4m3's two longest
#: (docs/cuda.md, "The epilogue in column blocks"; docs/conformance/h100-2026-11-25-epilogue-stages).
EPILOGUE_BLOCK_N, EPILOGUE_BLOCK_STAGES = 64, 2
#: ... except on long problems, from this many k-tiles per SM (``tiles x ceil(K / BK) / 132``,
#: the SM count of :data:`fastswz.tune.DEFAULT_SMS`):
#: at bf16 8192^3 (1986) and 8192 x 4096 x 14336 (1738) the block plans ran at 0.88-1.08 of the
#: whole tile with 3 stages over four H100 runs, with spreads up to 16%, while the whole tile held
#: 93-98% of cuBLAS at 8192^3 in every one of them; there the stages are lowered instead.
EPILOGUE_WHOLE_KTILES = 1024


def default_out_dtype(a_dtype):
    """The output type of a GEMM given no ``out``: A's own for bf16 and f16 (as torch's matmul),
    f32 for tf32/f32 inputs, bf16 for fp8 (as ``torch._scaled_mm`` is usually asked).

    >>> default_out_dtype("f16"), default_out_dtype("e4m3"), default_out_dtype("tf32")
    ('f16', 'bf16', 'f32')
    """
    return {"f16": "f16", "f32": "f32", "tf32": "f32"}.get(a_dtype, "bf16")


def choose_plan(m, n, k, a_dtype="bf16", b_dtype="bf16", a_major="K", b_major="K",
                out_dtype="bf16", epilogue=None):
    """The configuration :func:`gemm` uses when given no plan.

    The best plan of :func:`fastswz.tune`'s model (register-store ranking) that the kernel family
    runs, storing D through the plan's shared-memory epilogue tile and a TMA store when the tile
    fits beside at least :data:`EPILOGUE_MIN_STAGES` stages of the same BM x BN x BK, else from
    registers. Per stage count, from the model's down: the whole BM x BN tile, else (unless the
    problem has :data:`EPILOGUE_WHOLE_KTILES` k-tiles per SM or more) :data:`EPILOGUE_BLOCK_N`
    column blocks through :data:`EPILOGUE_BLOCK_STAGES` tiles, or through one. Measured on the H100 (BENCHMARKS.md, "The
    epilogue"): the tile's asynchronous store was 12-15% faster on large fp8 problems and up to 5%
    on large bf16 ones, and at most 3.4% slower on the shapes where it lost.

    Parameters
    ----------
    m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype
        As :func:`gemm`.
    epilogue : bool, optional
        None (default): as above; True: only plans whose epilogue tile fits (with at least
        :data:`EPILOGUE_MIN_STAGES` stages); False: register stores, the model's plan as ranked.

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
    (128, 256, 64, 4, True, 64, 2)
    >>> c = choose_plan(8192, 8192, 8192)        # long: the whole tile, 3 stages
    >>> c["stages"], c["epilogue"], c["epilogue_n"]
    (3, True, 0)
    """
    if epilogue is None:   # a tuned table's measured winner first (fastswz.cuda.tuned)
        hit = _tuned.lookup(m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype)
        if hit is not None:
            return hit
    from ..tune import DEFAULT_SMS, tune

    first_why = None
    for row in tune(m, n, k, a_dtype, b_dtype, a_major, b_major, top=64):
        c = normalize_config(row, a_dtype=a_dtype, b_dtype=b_dtype, a_major=a_major,
                             b_major=b_major, out_dtype=out_dtype)
        why = supported(c)
        if why is not None:
            first_why = first_why or why
            continue
        if epilogue is not False:
            tiles = -(-m // c["bm"]) * -(-n // c["bn"])
            # per SM of the GPU the model assumes (tune.DEFAULT_SMS, 132 on sm90)
            long = tiles * -(-k // c["bk"]) >= EPILOGUE_WHOLE_KTILES * DEFAULT_SMS[c["arch"]]
            blocks = (not long and EPILOGUE_BLOCK_N < c["bn"] and c["bn"] % EPILOGUE_BLOCK_N == 0)
            tries = [(0, 1)] + ([(EPILOGUE_BLOCK_N, EPILOGUE_BLOCK_STAGES), (EPILOGUE_BLOCK_N, 1)]
                                if blocks else [])
            for stages in range(c["stages"], EPILOGUE_MIN_STAGES - 1, -1):
                for cols, est in tries:
                    with_tile = dict(c, epilogue=True, stages=stages, epilogue_n=cols,
                                     epilogue_stages=est)
                    if supported(with_tile) is None:
                        return with_tile
        if epilogue is not True:
            return c
    tile = {None: "", True: ", with the shared-memory epilogue tile", False: ", with register stores"}
    raise PlanError(f"no plan of the model's first 64 runs {a_dtype} x {b_dtype} "
                    f"({a_major}/{b_major}-major){tile[epilogue]} on the sm90 kernel family"
                    + (f"; the first was refused: {first_why}" if first_why else ""))


# a memo of choose_plan (its cache_clear) forgets its answers whenever the active table changes
_tuned.on_change(lambda: getattr(choose_plan, "cache_clear", lambda: None)())

_TORCH_DTYPES = {"torch.bfloat16": "bf16", "torch.float16": "f16", "torch.float32": "f32",
                 "torch.float8_e4m3fn": "e4m3", "torch.float8_e5m2": "e5m2"}
_TYPESTR = {"<f2": "f16", "<f4": "f32"}


class _Operand:
    """Pointer, shape, element strides and dtype of a CUDA array (torch, cupy, DLPack)."""

    def __init__(self, x, name, dtype=None):
        from ..dtypes import dtype as lookup

        self.obj, self.name = x, name
        if hasattr(x, "data_ptr") and hasattr(x, "stride") and hasattr(x, "is_cuda"):
            if not x.is_cuda:
                raise GemmArgumentError(f"{name} is a CPU tensor: move it to the GPU (.cuda())")
            self.ptr, self.shape, self.strides = x.data_ptr(), tuple(x.shape), tuple(x.stride())
            dt = _TORCH_DTYPES.get(str(x.dtype))
            self.kind = "torch"
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
            self.strides = tuple(s // item for s in st)
            dt = _TYPESTR.get(cai["typestr"])
            self.kind = "cupy" if type(x).__module__.startswith("cupy") else "cai"
        elif hasattr(x, "__dlpack__"):
            # DLPack device types: 2 CUDA, 13 CUDA managed (what the TMA reads); 1 CPU, 3 pinned host.
            kind = x.__dlpack_device__()[0] if hasattr(x, "__dlpack_device__") else None
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
            self.kind = "dlpack"
        else:
            raise GemmArgumentError(
                f"{name} is a {type(x).__name__}: pass a CUDA array (torch, cupy or any DLPack "
                f"producer), or call GemmKernel.launch with device pointers")
        if dtype is not None:
            dt = lookup(dtype).name
        if dt is None:
            raise GemmArgumentError(
                f"{name}: its element type is not one the kernels read by itself (bf16 and fp8 "
                f"arrays from cupy are raw uint16/uint8): pass {name[0]}_dtype='bf16' (or 'e4m3', ...)")
        self.dtype = dt
        if len(self.shape) != 2:
            raise GemmArgumentError(f"{name} has shape {self.shape}: the GEMM takes 2-D matrices")

    def layout(self, rows_name, cols_name):
        """('row' | 'col', leading dimension) of the 2-D array, or an error naming the rule."""
        r, c = self.shape
        sr, sc = self.strides
        if sc == 1 or c == 1:
            return "row", max(sr, c) if r > 1 else c
        if sr == 1 or r == 1:
            return "col", max(sc, r) if c > 1 else r
        raise GemmArgumentError(
            f"{self.name} has strides {self.strides}: one of its two dimensions must be "
            f"contiguous (stride 1); copy it with .contiguous() first")


def _aligned(op, ld, e):
    return op.ptr % 16 == 0 and (ld * e) % 16 == 0


def gemm(a, b, out=None, plan=None, *, a_dtype=None, b_dtype=None, out_dtype=None, stream=0):
    """D = A @ B on the GPU with a fastswz kernel; returns D.

    Parameters
    ----------
    a : CUDA array, (M, K)
        Row-major (K-major) or a transposed view of a K x M array (MN-major).
    b : CUDA array, (K, N)
        A transposed view of an N x K array (K-major, as ``w.T`` of a linear layer's weight)
        or row-major K x N (MN-major). fp8 and tf32 operands must be K-major (PTX: wgmma
        transposes only 16-bit types).
    out : CUDA array (M, N), optional
        Row-major; allocated (torch or cupy, like ``a``) when omitted.
    plan : dict or GemmKernel, optional
        A configuration (:data:`GEMM_KEYS`, e.g. a :func:`fastswz.tune` row) or a compiled
        kernel; default :func:`choose_plan`. Its dtypes and majors must be the tensors'.
    a_dtype, b_dtype, out_dtype : str, optional
        Element types where the array cannot say (cupy has no bf16/fp8). A new ``out`` is of
        :func:`default_out_dtype` of A's type.
    stream : int
        CUDA stream handle (0: the legacy default stream, which torch and cupy use by default).
    """
    from ..dtypes import dtype as lookup
    from . import runtime

    A, B = _Operand(a, "a", a_dtype), _Operand(b, "b", b_dtype)
    (m, ka), (kb, n) = A.shape, B.shape
    if ka != kb:
        raise GemmArgumentError(f"a is {m} x {ka} and b is {kb} x {n}: a's columns must equal b's rows (K)")
    k = ka
    if min(m, n, k) < 1:
        raise GemmArgumentError(f"M, N, K = {m}, {n}, {k}: every extent must be >= 1")
    lay_a, lda = A.layout("M", "K")
    lay_b, ldb = B.layout("K", "N")
    a_major = "K" if lay_a == "row" else "MN"
    b_major = "MN" if lay_b == "row" else "K"
    if out is None:
        od = lookup(out_dtype or default_out_dtype(A.dtype)).name
        out = _allocate_like(a, A.kind, (m, n), od)
    D = _Operand(out, "out", out_dtype)
    if D.shape != (m, n):
        raise GemmArgumentError(f"out has shape {D.shape}: it must be ({m}, {n})")
    lay_d, ldd = D.layout("M", "N")
    if lay_d != "row" and m > 1:
        raise GemmArgumentError(f"out has strides {D.strides}: it must be row-major (N contiguous)")
    if isinstance(plan, runtime.GemmKernel):
        kern = plan
    else:
        if plan is None:
            cfg = choose_plan(m, n, k, A.dtype, B.dtype, a_major, b_major, D.dtype)
        else:
            cfg = normalize_config(plan, a_dtype=A.dtype, b_dtype=B.dtype, a_major=a_major,
                                   b_major=b_major, out_dtype=D.dtype)
        kern = compile_gemm(cfg)
    c = kern.config
    for key, have in (("a_dtype", A.dtype), ("b_dtype", B.dtype), ("out_dtype", D.dtype),
                      ("a_major", a_major), ("b_major", b_major)):
        if lookup(c[key]).name != lookup(have).name if key.endswith("dtype") else c[key] != have:
            raise GemmArgumentError(f"the plan has {key}={c[key]!r} but the tensors give {have!r}: "
                                    f"pass a plan made for these tensors (or plan=None)")
    ea, eb, ed = (lookup(t).bits // 8 for t in (A.dtype, B.dtype, D.dtype))
    staged = []
    try:
        pa, lda = _maybe_stage(A, lda, ea, (m, k) if a_major == "K" else (k, m), staged)
        pb, ldb = _maybe_stage(B, ldb, eb, (n, k) if b_major == "K" else (k, n), staged)
        if _aligned(D, ldd, ed) or not c["epilogue"]:
            pd, ldd_k = D.ptr, ldd
            back = None
        else:
            pd, ldd_k = _padded(m, n, ed, staged)
            back = (pd, ldd_k)
        kern.launch(pa, pb, pd, m, n, k, lda, ldb, ldd_k, stream=stream)
        if back is not None:
            _copy2d(back[0], back[1] * ed, D.ptr, ldd * ed, n * ed, m, stream)
        drv = runtime.driver()
        runtime._check(drv.cuStreamSynchronize(stream), "the GEMM kernel")
    finally:
        for p in staged:
            runtime.driver().cuMemFree(p)
    return out


def _padded(rows, cols, e, staged):
    from . import runtime

    pitch = -(-cols * e // 16) * 16
    p = runtime._alloc(pitch * rows)
    staged.append(p)
    return p, pitch // e


def _copy2d(src, src_pitch, dst, dst_pitch, width, height, stream):
    from . import runtime

    drv = runtime.driver()
    cp = drv.CUDA_MEMCPY2D()
    cp.srcMemoryType = drv.CUmemorytype.CU_MEMORYTYPE_DEVICE
    cp.srcDevice = src
    cp.srcPitch = src_pitch
    cp.dstMemoryType = drv.CUmemorytype.CU_MEMORYTYPE_DEVICE
    cp.dstDevice = dst
    cp.dstPitch = dst_pitch
    cp.WidthInBytes = width
    cp.Height = height
    runtime._check(drv.cuMemcpy2DAsync(cp, stream), "cuMemcpy2DAsync")


def _maybe_stage(op, ld, e, stored, staged):
    """(pointer, ld) the TMA can read: the array itself when its base and row pitch are 16-byte
    aligned (cuTensorMapEncodeTiled's rule), else a padded copy."""
    if _aligned(op, ld, e):
        return op.ptr, ld
    rows, cols = stored
    p, pitch = _padded(rows, cols, e, staged)
    _copy2d(op.ptr, ld * e, p, pitch * e, cols * e, rows, 0)
    return p, pitch


def _allocate_like(a, kind, shape, dtype):
    if kind == "torch":
        import torch

        td = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}[dtype]
        return torch.empty(shape, dtype=td, device=a.device)
    if kind == "cupy":
        import cupy

        return cupy.empty(shape, dtype={"bf16": "uint16", "f16": "float16", "f32": "float32"}[dtype])
    raise GemmArgumentError("out is needed: fastswz allocates an output only for torch and cupy inputs")
