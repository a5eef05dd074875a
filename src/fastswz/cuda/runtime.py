"""Compile, cache, load, launch and time fastswz GEMM kernels (needs the ``cuda`` extra).

NVRTC (through ``cuda.core``) compiles :func:`fastswz.cuda.codegen.kernel_sources`; cubins are
cached on disk under ``$FASTSWZ_CACHE/cubin`` (default ``~/.cache/fastswz``), keyed by the
sources, the target and the NVRTC version, so a configuration compiles once per machine and a
cache directory filled on a machine without a GPU can be carried to one. The driver
(``cuda.bindings.driver``) encodes the TMA tensor maps from the plan's TMA fields
(``cuTensorMapEncodeTiled``), loads the cubin and launches it on the current primary context,
which torch and cupy share.
"""

from __future__ import annotations

import math
import os
import pathlib
import tempfile
import threading

import numpy as np

from ..dtypes import dtype as _lookup_dtype
from .errors import CudaError, CudaUnavailableError, GemmArgumentError
from . import codegen

__all__ = ["cache_dir", "compile_cubin", "GemmKernel", "device_info", "device_key", "driver", "check",
           "current_device"]

_LOCK = threading.RLock()
_STATE = {}


def driver():
    """``cuda.bindings.driver``, or :class:`CudaUnavailableError` naming the extra."""
    try:
        from cuda.bindings import driver as drv
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise CudaUnavailableError(
            f"the fastswz GPU runtime needs the 'cuda' extra (cuda-core, cuda-bindings): "
            f"pip install 'fastswz[cuda]' ({e})") from None
    return drv


def _check(result, what):
    drv = driver()
    err, rest = (result[0], result[1:]) if isinstance(result, tuple) else (result, ())
    if err != drv.CUresult.CUDA_SUCCESS:
        _, name = drv.cuGetErrorName(err)
        _, text = drv.cuGetErrorString(err)
        name = name.decode() if isinstance(name, bytes) else name
        text = text.decode() if isinstance(text, bytes) else text
        raise CudaError(f"{what} failed: {name}: {text}")
    return rest[0] if len(rest) == 1 else rest


def _init():
    drv = driver()
    with _LOCK:
        if "count" not in _STATE:
            try:
                err = drv.cuInit(0)[0]
            except RuntimeError as e:  # cuda.bindings could not load the driver library
                raise CudaUnavailableError(
                    f"no NVIDIA driver here ({e}): the GEMM kernels need a Hopper GPU (sm_90a); "
                    f"compiling (compile_gemm) works without one") from None
            if err != drv.CUresult.CUDA_SUCCESS:
                raise CudaUnavailableError(
                    f"no usable NVIDIA GPU: cuInit returned {err.name}; the GEMM kernels need a "
                    f"Hopper GPU (sm_90a). Compiling (compile_gemm) works without one")
            _STATE["count"] = int(_check(drv.cuDeviceGetCount(), "cuDeviceGetCount"))
            _STATE["devices"] = {}
            _STATE["by_ctx"] = {}
    return _STATE


def _device(ordinal=0):
    """The state of GPU ``ordinal`` (its retained primary context, as torch and cupy use, and its
    properties); a Hopper GPU or :class:`CudaUnavailableError`."""
    st = _init()
    dev_state = st["devices"].get(ordinal)
    if dev_state is not None:
        return dev_state
    drv = driver()
    with _LOCK:
        if ordinal in st["devices"]:
            return st["devices"][ordinal]
        if not 0 <= ordinal < st["count"]:
            raise GemmArgumentError(f"GPU {ordinal} does not exist: this host has {st['count']} "
                                    f"visible GPU(s) (CUDA_VISIBLE_DEVICES decides which)")
        dev = _check(drv.cuDeviceGet(ordinal), "cuDeviceGet")
        attr = drv.CUdevice_attribute
        get = lambda a: int(_check(drv.cuDeviceGetAttribute(a, dev), "cuDeviceGetAttribute"))  # noqa: E731
        major = get(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)
        minor = get(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)
        name = _check(drv.cuDeviceGetName(256, dev), "cuDeviceGetName")
        name = name.split(b"\0", 1)[0].decode()
        if (major, minor) != (9, 0):
            raise CudaUnavailableError(
                f"GPU {ordinal} is {name}, compute capability {major}.{minor}: the fastswz GEMM "
                f"kernels are built for sm_90a (compute capability 9.0, H100/H200)")
        ctx = _check(drv.cuDevicePrimaryCtxRetain(dev), "cuDevicePrimaryCtxRetain")
        state = {"ordinal": ordinal, "dev": dev, "ctx": ctx, "ctx_int": int(ctx), "info": {
            "name": name, "compute_capability": f"{major}.{minor}", "ordinal": ordinal,
            "sms": get(attr.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT),
            "l2_bytes": get(attr.CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE),
            "smem_optin": get(attr.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN),
            "clock_khz": get(attr.CU_DEVICE_ATTRIBUTE_CLOCK_RATE),
            "memory_clock_khz": get(attr.CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE),
            "driver": int(_check(drv.cuDriverGetVersion(), "cuDriverGetVersion")),
            "nvrtc": _nvrtc_version()}}
        st["by_ctx"][state["ctx_int"]] = ordinal
        st["devices"][ordinal] = state
        return state


def current_device() -> int:
    """The ordinal of the GPU whose context is current on this thread (0 when none is)."""
    from . import _driver

    ctx = _driver.current_context()
    if not ctx:
        return 0
    st = _init()
    ordinal = st["by_ctx"].get(ctx)
    if ordinal is None:
        drv = driver()
        dev = _check(drv.cuCtxGetDevice(), "cuCtxGetDevice")
        ordinal = int(dev)
        _device(ordinal)
    return ordinal


def _context(ordinal=None):
    """Make a GPU's primary context current on this thread (default: the current GPU, else GPU
    0) and return its state."""
    state = _device(current_device() if ordinal is None else ordinal)
    _check(driver().cuCtxSetCurrent(state["ctx"]), "cuCtxSetCurrent")
    return state


def device_info(device=None) -> dict:
    """Name, SM count, L2 size, clocks, driver and NVRTC versions of a GPU (default: the one
    whose context is current, else GPU 0)."""
    return dict(_device(current_device() if device is None else device)["info"])


def device_key(device=None) -> str:
    """A string that names the GPU and software a measurement depends on (cache keys)."""
    i = device_info(device)
    return f"{i['name']}|sm{i['compute_capability']}|{i['sms']}sms|driver{i['driver']}|nvrtc{i['nvrtc']}"


def _nvrtc_version():
    try:
        from cuda.bindings import nvrtc
    except ImportError as e:  # say which import failed: a broken install is not a missing one
        raise CudaUnavailableError(f"NVRTC is missing ({e}): pip install 'fastswz[cuda]'") from None
    err, major, minor = nvrtc.nvrtcVersion()
    return f"{major}.{minor}"


def cache_dir() -> pathlib.Path:
    """``$FASTSWZ_CACHE`` or ``~/.cache/fastswz``."""
    return pathlib.Path(os.environ.get("FASTSWZ_CACHE") or pathlib.Path.home() / ".cache" / "fastswz")


_inline = codegen.inline_sources


def compile_cubin(config, cache=True, defines=None):
    """``(cubin bytes, key)`` of a configuration: from the cache, else NVRTC (no GPU needed).

    Raises :class:`~fastswz.PlanError` for a configuration the kernel family does not run and
    :class:`~fastswz.errors.CudaError` with NVRTC's log when the compile fails.
    """
    sources = codegen.kernel_sources(config)
    if defines:
        sources["gemm_sm90.cu"] = "".join(f"#define {k} {v}\n" for k, v in sorted(defines.items())) + sources["gemm_sm90.cu"]
    key = codegen.source_key(sources, "sm_90a", "nvrtc" + _nvrtc_version())
    path = cache_dir() / "cubin" / f"{key}.cubin"
    if cache and path.is_file():
        return path.read_bytes(), key
    with _LOCK:  # one import at a time: compile_many's threads would race a first import
        try:
            from cuda.core import Program, ProgramOptions
        except ImportError:
            raise CudaUnavailableError("compiling needs cuda-core: pip install 'fastswz[cuda]'") from None
    opts = ProgramOptions(arch="sm_90a", std="c++17", name=f"fastswz_{key[:8]}.cu")
    try:
        prog = Program(_inline(sources), code_type="c++", options=opts)
        obj = prog.compile("cubin")
    except Exception as e:  # noqa: BLE001 - NVRTC's error carries the log
        raise CudaError(f"NVRTC failed to compile the GEMM kernel for {codegen.normalize_config(config)}: {e}") from None
    cubin = bytes(obj.code)
    if cache:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(cubin)
        os.replace(tmp, path)
    return cubin, key


# -- loaded kernels and launches ----------------------------------------------------------------------
_SWIZZLE_CODE = {"none": 0, "32B": 1, "64B": 2, "128B": 3}   # CUtensorMapSwizzle


class GemmKernel:
    """One compiled configuration of the sm90 GEMM kernel family.

    ``launch`` runs it on device pointers; ``time`` measures it with CUDA events on random
    inputs (L2 flushed before each run). The plan row (``plan``) is what the kernel was built
    from: its JSON is ``fastswz plan --json`` of the same configuration. The cubin is loaded once
    per GPU it runs on (a module per device context, unloaded when the kernel is dropped); the
    launch itself (tensor maps, parameters, ``cuLaunchKernel``) runs in C
    (:mod:`fastswz.cuda._driver`).
    """

    def __init__(self, config, cubin, key):
        self.config = codegen.normalize_config(config)
        self.cubin, self.key = cubin, key
        self.plan = codegen.kernel_row(self.config)
        self._modules = {}      # device ordinal -> (module, function)
        self._launchers = {}    # device ordinal -> _driver.Launcher
        self._grids = {}        # (device, m, n) -> CTAs
        self._pack = codegen.params_packer()

    def __repr__(self):
        c = self.config
        return (f"<GemmKernel {c['a_dtype']}x{c['b_dtype']}->{c['out_dtype']} "
                f"{c['a_major']}/{c['b_major']}-major {c['bm']}x{c['bn']}x{c['bk']} "
                f"{c['stages']} stages{' epilogue tile' if c['epilogue'] else ''}"
                f"{' of ' + str(c['epilogue_n']) + ' columns' if c['epilogue'] and c['epilogue_n'] else ''}"
                f"{' x' + str(c['epilogue_stages']) if c['epilogue'] and c['epilogue_stages'] > 1 else ''}>")

    def __del__(self):
        try:
            drv = driver()
            for mod, _ in self._modules.values():
                drv.cuModuleUnload(mod)
        except Exception:  # noqa: BLE001 - at interpreter exit the driver may be gone
            pass

    @property
    def smem_bytes(self):
        return self.plan["smem_bytes"] + 1024   # the kernel rounds its base up to 1024

    def _function(self, device=None):
        """The kernel's CUfunction on a GPU (default: the current one), loading the cubin into
        that GPU's primary context on first use."""
        ordinal = current_device() if device is None else device
        hit = self._modules.get(ordinal)
        if hit is not None:
            return hit[1]
        drv = driver()
        with _LOCK:
            if ordinal not in self._modules:
                state = _device(ordinal)
                prev = _check(drv.cuCtxGetCurrent(), "cuCtxGetCurrent")
                _check(drv.cuCtxSetCurrent(state["ctx"]), "cuCtxSetCurrent")
                try:
                    mod = _check(drv.cuModuleLoadData(self.cubin), "cuModuleLoadData")
                    f = _check(drv.cuModuleGetFunction(mod, codegen.KERNEL_NAME.encode()),
                               "cuModuleGetFunction")
                    _check(drv.cuFuncSetAttribute(
                        f, drv.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                        self.smem_bytes), "cuFuncSetAttribute")
                finally:
                    if int(prev) != state["ctx_int"]:
                        drv.cuCtxSetCurrent(prev)
                self._modules[ordinal] = (mod, f)
        return self._modules[ordinal][1]

    def launcher(self, device=None):
        """The :class:`fastswz.cuda._driver.Launcher` of this kernel on a GPU (default: the
        current one)."""
        ordinal = current_device() if device is None else device
        lau = self._launchers.get(ordinal)
        if lau is None:
            from . import _driver

            c, p = self.config, self.plan
            f = self._function(ordinal)
            mc = p["kernel"]["multicast"]
            boxes, swizzles, dtypes, sizes = [], [], [], []
            for op in ("a", "b"):
                o = p[op]
                boxes.append(mc["tma_box"] if mc and mc["operand"] == op else o["tma_box"])
                swizzles.append(o["tma_swizzle_value"])
                dtypes.append(_driver.TMA_DATA_TYPE[c[op + "_dtype"]])
                sizes.append(_lookup_dtype(c[op + "_dtype"]).bits // 8)
            e = p["epilogue"]
            boxes.append(e["tma_box"] if e else (1, 1))
            swizzles.append(_SWIZZLE_CODE[e["swizzle"]] if e else 0)
            dtypes.append(_driver.TMA_DATA_TYPE[c["out_dtype"]])
            sizes.append(_lookup_dtype(c["out_dtype"]).bits // 8)
            lau = _driver.Launcher(int(f), _device(ordinal)["ctx_int"], p["kernel"]["threads"],
                                   self.smem_bytes, c["cluster_m"], dtypes, sizes, boxes, swizzles,
                                   (p["a"]["major"] == "K", p["b"]["major"] == "K"), bool(e))
            self._launchers[ordinal] = lau
        return lau

    def grid(self, m, n, device=None):
        """CTAs to launch: one per SM (or per output tile, if fewer); with clusters, whole
        clusters, as many as can be resident at once (cuOccupancyMaxActiveClusters)."""
        ordinal = current_device() if device is None else device
        g = self._grids.get((ordinal, m, n))
        if g is not None:
            return g
        cm = self.config["cluster_m"]
        sms = _device(ordinal)["info"]["sms"]
        groups = math.ceil(math.ceil(m / self.config["bm"]) / cm) * math.ceil(n / self.config["bn"])
        if cm == 1:
            g = max(1, min(groups, sms))
        else:
            key = ("clusters", ordinal)
            if key not in self.__dict__:
                drv = driver()
                cfg = drv.CUlaunchConfig()
                cfg.gridDimX, cfg.gridDimY, cfg.gridDimZ = cm * sms // cm, 1, 1
                cfg.blockDimX, cfg.blockDimY, cfg.blockDimZ = self.plan["kernel"]["threads"], 1, 1
                cfg.sharedMemBytes = self.smem_bytes
                attr = drv.CUlaunchAttribute()
                attr.id = drv.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
                attr.value.clusterDim.x, attr.value.clusterDim.y, attr.value.clusterDim.z = cm, 1, 1
                cfg.attrs = [attr]
                cfg.numAttrs = 1
                f = self._function(ordinal)
                prev = _check(drv.cuCtxGetCurrent(), "cuCtxGetCurrent")
                _check(drv.cuCtxSetCurrent(_device(ordinal)["ctx"]), "cuCtxSetCurrent")
                try:
                    self.__dict__[key] = int(_check(drv.cuOccupancyMaxActiveClusters(f, cfg),
                                                    "cuOccupancyMaxActiveClusters"))
                finally:
                    drv.cuCtxSetCurrent(prev)
            g = cm * max(1, min(groups, self.__dict__[key]))
        if len(self._grids) > 4096:
            self._grids.clear()
        self._grids[(ordinal, m, n)] = g
        return g

    def launch(self, a_ptr, b_ptr, d_ptr, m, n, k, lda, ldb, ldd, stream=0, grid=None, device=None,
               **fields):
        """Run D = A x B on device pointers (leading dimensions in elements, 16-byte aligned
        rows and bases). A is M x K (K-major: row pitch ``lda``) or its K x M transpose
        (MN-major); B is N x K (K-major) or K x N (MN-major); D is M x N row-major.

        ``fields``: the fused epilogue's parameters (:data:`fastswz.cuda.codegen.PARAM_FIELDS`
        after ``k``: ``alpha``, ``beta``, device pointers ``bias``, ``c``, ``scale_a``,
        ``scale_b``, ``out_scale``, ``amax``, and ``ldc`` and the scale strides in elements);
        the configuration says which the kernel reads, and those must be given.

        Asynchronous on ``stream`` (a ``CUstream`` handle as an int; 0 the legacy default
        stream) of GPU ``device`` (default: the one whose context is current on this thread,
        else GPU 0); nothing synchronizes, so a launch can be captured in a CUDA graph. Launch
        errors raise :class:`~fastswz.cuda.CudaError`; tensor maps are re-encoded only when an
        operand's pointer, extents or pitch change."""
        ordinal = current_device() if device is None else device
        lau = self._launchers.get(ordinal) or self.launcher(ordinal)
        g = grid or self._grids.get((ordinal, m, n)) or self.grid(m, n, ordinal)
        lau.run(int(stream), a_ptr, b_ptr, d_ptr, m, n, k, lda, ldb, ldd,
                self._pack(d_ptr, ldd, m, n, k, **fields), g)

    def _prepare(self, a_ptr, b_ptr, d_ptr, m, n, k, lda, ldb, ldd, stream=0, grid=None, **fields):
        """The launch as a no-argument callable (the timing loop's), for the current GPU."""
        ordinal = current_device()
        lau = self.launcher(ordinal)
        g = grid or self.grid(m, n, ordinal)
        params = self._pack(d_ptr, ldd, m, n, k, **fields)
        stream = int(stream)

        def go():
            lau.run(stream, a_ptr, b_ptr, d_ptr, m, n, k, lda, ldb, ldd, params, g)
        return go

    def time(self, m, n, k, *, warmup=3, reps=20, flush_l2=True, seed=0):
        """Median/min/max milliseconds of ``reps`` runs on random inputs (CUDA events around
        each launch; the L2 flushed by a memset before each one), spread = max/min - 1, and
        TFLOP/s = 2 m n k / median."""
        bufs = _problem_buffers(self.config, m, n, k, seed)
        drv = driver()
        start = _check(drv.cuEventCreate(0), "cuEventCreate")
        stop = _check(drv.cuEventCreate(0), "cuEventCreate")
        flush = _flush_buffer() if flush_l2 else None
        times = []
        go = self._prepare(*bufs, m, n, k, *_lds(self.config, m, n, k),
                           **_fusion_buffers(self.config, m, n, k, seed))
        for i in range(warmup + reps):
            if flush is not None:
                _check(drv.cuMemsetD32Async(flush[0], i, flush[1] // 4, 0), "cuMemsetD32Async")
            _check(drv.cuEventRecord(start, 0), "cuEventRecord")
            go()
            _check(drv.cuEventRecord(stop, 0), "cuEventRecord")
            _check(drv.cuEventSynchronize(stop), "cuEventSynchronize")
            if i >= warmup:
                times.append(float(_check(drv.cuEventElapsedTime(start, stop), "cuEventElapsedTime")))
        drv.cuEventDestroy(start)
        drv.cuEventDestroy(stop)
        t = np.array(times)
        med = float(np.median(t))
        return {"median_ms": med, "min_ms": float(t.min()), "max_ms": float(t.max()),
                "spread": float(t.max() / t.min() - 1.0), "tflops": 2.0 * m * n * k / med / 1e9,
                "reps": reps}


def check(kernel, m, n, k, *, ints=True, seed=0, alpha=None, beta=None, out_scale=None):
    """Run ``kernel`` once on host-made inputs and compare D with a float64 reference.

    The reference is the float64 product (``block`` scales: promoted per 128 of K,
    :func:`~fastswz.cuda.reference_gemm.reference_block_scaled`) through the configuration's
    epilogue (:func:`~fastswz.cuda.reference_gemm.reference_epilogue`: scales, alpha, beta C,
    bias, activation, amax, fp8 ``out_scale``), rounded to the output type as the kernel rounds
    (nearest even; fp8 saturating).

    ``ints=True``: small integers in [-2, 2] for A and B, integers for C and bias, powers of two
    for alpha, beta and every scale: every sum and product is exact in f32, so with the
    identity or relu D must equal the rounded reference element for element (``mismatches``)
    and amax must be equal. With gelu, gelu_tanh or silu (erff, tanhf, expf in f32, each
    within a few f32 ulps, and a few f32 operations around them) the kernel's value before the
    cast is within ``2**-20 * S`` of the float64 one (``S``: the sum of the magnitudes of the
    terms, |alpha acc s| + |beta C| + |bias|), so each element must be within that plus one ulp
    of the output type at the reference (a rounding boundary may fall between), and amax within
    ``2**-20 * max S``. ``ints=False``: normal(0, 1) operands and epilogue inputs, scales in
    [0.5, 2]; the relative Frobenius error of D against the float64 reference must be under
    1e-2 (bf16/f16 inputs), 2e-2 (fp8), 3e-3 (tf32), or (fp8 output) one ulp of the output type
    relative (2**-3 e4m3, 2**-2 e5m2) where larger. D is poisoned (all bits set: NaN) first, so
    an unwritten element fails. ``alpha``, ``beta``, ``out_scale``: other values than the
    check's own (then "exact" holds only if they keep every step exact, e.g. powers of two).
    Returns a dict (``ok``, ``mismatches`` or ``rel_err``, ``unwritten``, ``amax`` and
    ``amax_ref`` where the kernel writes amax).
    """
    from .reference_gemm import decode, reference_block_scaled, reference_epilogue, ulp

    c = kernel.config
    drv = driver()
    _context()
    rng = np.random.default_rng(seed)
    ops = _host_operands(c, m, n, k, rng, ints)
    host = [logical for logical, _, _ in ops]
    ptrs = [_to_device(stored) for _, stored, _ in ops]
    (_, _, lda), (_, _, ldb) = ops
    fused = _host_fusion(c, m, n, k, rng, ints, alpha=alpha, beta=beta, out_scale=out_scale)
    extras = {}
    eo = _lookup_dtype(c["out_dtype"]).bits // 8
    ldd = -(-n * eo // 16) * 16 // eo
    pd = _alloc(m * ldd * eo)
    try:
        for name, arr in fused["device"].items():
            ptr = _to_device(arr)
            ptrs.append(ptr)
            extras[name] = ptr
        extras.update(fused["params"])
        _check(drv.cuMemsetD8(pd, 0xFF, m * ldd * eo), "cuMemsetD8")
        kernel.launch(ptrs[0], ptrs[1], pd, m, n, k, lda, ldb, ldd, **extras)
        _check(drv.cuCtxSynchronize(), "the GEMM kernel")
        out = np.empty(m * ldd, dtype={1: np.uint8, 2: np.uint16, 4: np.uint32}[eo])
        _check(drv.cuMemcpyDtoH(out.ctypes.data, pd, out.nbytes), "cuMemcpyDtoH")
        amax = None
        if c["amax"]:
            got = np.empty(1, dtype=np.float32)
            _check(drv.cuMemcpyDtoH(got.ctypes.data, extras["amax"], 4), "cuMemcpyDtoH")
            amax = float(got[0])
    finally:
        for p in (*ptrs, pd):
            drv.cuMemFree(p)
    d = decode(out, c["out_dtype"]).reshape(m, ldd)[:, :n]
    h = fused["host"]
    if c["scale"] == "block":
        acc = reference_block_scaled(host[0], host[1].T, h["scale_a"], h["scale_b"])
    else:
        acc = host[0] @ host[1].T
    D, want, amax_ref = reference_epilogue(
        acc, alpha=h["alpha"], beta=h["beta"], c=h.get("c"), bias=h.get("bias"),
        activation_name=c["activation"], scale=c["scale"], scale_a=h.get("scale_a"),
        scale_b=h.get("scale_b"), out_scale=h.get("out_scale"), out_dtype=c["out_dtype"])
    res = {"m": m, "n": n, "k": k, "ints": ints, "unwritten": int(np.isnan(d).sum() - np.isnan(want).sum())}
    terms = np.abs(h["alpha"] * acc * h["s"])
    if h.get("c") is not None and h["beta"] != 0:
        terms = terms + np.abs(h["beta"] * h["c"])
    if h.get("bias") is not None:
        terms = terms + np.abs(h["bias"]).reshape(1, -1)
    exact = c["activation"] in ("identity", "relu")
    if amax is not None:
        res["amax"], res["amax_ref"] = amax, amax_ref
        bound = 0.0 if ints and exact else 2.0 ** -20 * float(terms.max(initial=0.0)) + (
            0.0 if ints else 1e-2 * abs(amax_ref))
        amax_ok = abs(amax - amax_ref) <= bound or (np.isnan(amax) and np.isnan(amax_ref))
        res["amax_ok"] = bool(amax_ok)
    else:
        amax_ok = True
    fp8_out = c["out_dtype"] in ("e4m3", "e5m2")
    if ints:
        if exact:
            bad = ~((d == want) | (np.isnan(d) & np.isnan(want)))
        else:
            scale_out = h.get("out_scale") or 1.0 if fp8_out else 1.0
            tol = ulp(want, c["out_dtype"]) + 2.0 ** -20 * terms * scale_out
            bad = ~((np.abs(d - want) <= tol) | (np.isnan(d) & np.isnan(want)))
        res["mismatches"] = int(bad.sum())
        res["ok"] = res["mismatches"] == 0 and amax_ok
    else:
        ref = want if fp8_out else D
        num = np.linalg.norm(np.nan_to_num(d, nan=1e30) - ref)
        err = float(num / max(np.linalg.norm(ref), 1e-30))
        bound = 2e-2 if c["a_dtype"] in ("e4m3", "e5m2") else (3e-3 if c["a_dtype"] == "tf32" else 1e-2)
        if fp8_out:
            bound = max(bound, 2.0 ** -3 if c["out_dtype"] == "e4m3" else 2.0 ** -2)
        res["rel_err"] = err
        res["ok"] = bool(err < bound) and amax_ok
    return res


def _host_fusion(c, m, n, k, rng, ints, alpha=None, beta=None, out_scale=None):
    """The epilogue inputs of a check: ``{"host": float64 values, "device": {field: stored array},
    "params": {field: scalar}}`` for the configuration's bias, residual, scales, out_scale and
    amax (see :func:`check` for the values)."""
    pow2 = lambda *shape: 2.0 ** rng.integers(-2, 3, shape)   # noqa: E731
    uni = lambda *shape: rng.uniform(0.5, 2.0, shape)         # noqa: E731
    h = {"alpha": (2.0 if ints else 0.75) if alpha is None else float(alpha), "beta": 0.0, "s": 1.0}
    dev, params = {}, {"alpha": h["alpha"]}
    if c["residual"]:
        h["beta"] = (0.5 if ints else 1.25) if beta is None else float(beta)
        x = rng.integers(-4, 5, (m, n)).astype(np.float32) if ints else rng.standard_normal((m, n), dtype=np.float32)
        bits = _bits_of(x, c["residual"])
        ldc = _pitch(n, c["residual"])
        dev["c"] = np.pad(bits, ((0, 0), (0, ldc - n)))
        h["c"] = _decode_bits(bits, c["residual"])
        params.update(beta=h["beta"], ldc=ldc)
    if c["bias"]:
        x = rng.integers(-8, 9, n).astype(np.float32) if ints else rng.standard_normal(n, dtype=np.float32)
        bits = _bits_of(x, c["bias"])
        dev["bias"] = bits
        h["bias"] = _decode_bits(bits, c["bias"])
    draw = pow2 if ints else uni
    if c["scale"] == "tensor":
        sa, sb = draw(1).astype(np.float32), draw(1).astype(np.float32)
        h["s"] = float(sa[0]) * float(sb[0])
    elif c["scale"] == "row":
        sa, sb = draw(m).astype(np.float32), draw(n).astype(np.float32)
        h["s"] = sa.astype(np.float64).reshape(-1, 1) * sb.astype(np.float64).reshape(1, -1)
        params.update(sa_sm=1, sb_sn=1)
    elif c["scale"] == "block":
        kb, nb = -(-k // codegen.BLOCK_SCALE_K), -(-n // codegen.BLOCK_SCALE_K)
        sa, sb = draw(m, kb).astype(np.float32), draw(nb, kb).astype(np.float32)
        # A's scales column-major (M contiguous), as DeepGEMM stores them; B's row-major
        dev_sa = np.ascontiguousarray(sa.T)
        params.update(sa_sm=1, sa_sk=m, sb_sn=kb, sb_sk=1)
    if c["scale"] != "none":
        dev["scale_a"] = dev_sa if c["scale"] == "block" else sa
        dev["scale_b"] = sb
        h["scale_a"], h["scale_b"] = sa.astype(np.float64), sb.astype(np.float64)
    if c["out_dtype"] in ("e4m3", "e5m2"):
        h["out_scale"] = (0.5 if ints else 0.25) if out_scale is None else float(out_scale)
        dev["out_scale"] = np.array([h["out_scale"]], dtype=np.float32)
    if c["amax"]:
        dev["amax"] = np.zeros(1, dtype=np.float32)
    return {"host": h, "device": dev, "params": params}


def _decode_bits(bits, dtype):
    from .reference_gemm import decode

    return decode(bits, dtype)


def _fusion_buffers(c, m, n, k, seed):
    """Device pointers and parameters of the epilogue inputs a timed launch reads (random
    values, scales in [0.5, 2]); kept with the problem's buffers."""
    if all(c[key] == v for key, v in codegen.FUSION_DEFAULTS.items()) and c["out_dtype"] not in ("e4m3", "e5m2"):
        return {}
    key = ("fusion", tuple(c[x] for x in codegen.GEMM_KEYS), m, n, k, seed)
    with _LOCK:
        old = _STATE.get("fusion")
        if old and old[0] == key:
            return old[1]
        if old:
            for name, v in old[1].items():
                if name in ("bias", "c", "scale_a", "scale_b", "out_scale", "amax"):
                    driver().cuMemFree(v)
        f = _host_fusion(c, m, n, k, np.random.default_rng(seed + 1), False)
        fields = dict(f["params"])
        for name, arr in f["device"].items():
            fields[name] = _to_device(arr)
        _STATE["fusion"] = (key, fields)
        return fields


def _host_operands(config, m, n, k, rng, ints=True):
    """The host side of a check: ``[(logical, stored, pitch)]`` for A (m x k) and B (n x k).

    Values are small integers in [-2, 2] (``ints``) or normal(0, 1), drawn from ``rng`` A first,
    rounded to each operand's type. ``logical`` is the (rows, k) float64 matrix the bits
    decode to; ``stored`` the raw bits as the kernel reads them (K-major (rows, k), MN-major
    (k, rows)), each row padded with zeros to a 16-byte pitch (cuTensorMapEncodeTiled takes
    16-byte multiples only); ``pitch`` that row length in elements.
    """
    from .reference_gemm import decode

    out = []
    for op, rows in (("a", m), ("b", n)):
        dt = config[op + "_dtype"]
        x = rng.integers(-2, 3, rows * k).astype(np.float32) if ints else rng.standard_normal(rows * k, dtype=np.float32)
        bits = _bits_of(x, dt).reshape(rows, k)
        stored = bits if config[op + "_major"] == "K" else np.ascontiguousarray(bits.T)
        e = stored.itemsize
        pitch = -(-stored.shape[1] * e // 16) * 16 // e
        out.append((decode(bits, dt).reshape(rows, k),
                    np.pad(stored, ((0, 0), (0, pitch - stored.shape[1]))), pitch))
    return out


def _bits_of(x, dtype):
    """Raw bits of float32 values rounded to ``dtype`` (round to nearest even)."""
    name = _lookup_dtype(dtype).name
    x = np.asarray(x, dtype=np.float32)
    if name in ("f32", "tf32"):
        return x.view(np.uint32)
    if name == "f16":
        return x.astype(np.float16).view(np.uint16)
    if name == "bf16":
        u = x.view(np.uint32).astype(np.uint64)
        return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    from .reference_gemm import encode_fp8
    return encode_fp8(x, name)


def _pitch(cols, dtype):
    """Row pitch (elements) of ``cols`` elements rounded up to 16 bytes, the only pitches
    cuTensorMapEncodeTiled takes."""
    e = _lookup_dtype(dtype).bits // 8
    return -(-cols * e // 16) * 16 // e


def _lds(c, m, n, k):
    """Leading dimensions (elements) of A, B, D for a configuration's majors: packed rows
    padded to 16 bytes."""
    lda = _pitch(k if c["a_major"] == "K" else m, c["a_dtype"])
    ldb = _pitch(k if c["b_major"] == "K" else n, c["b_dtype"])
    return lda, ldb, _pitch(n, c["out_dtype"])


def pointer_device(ptr) -> int:
    """The GPU ordinal a device pointer belongs to (cuPointerGetAttribute)."""
    drv = driver()
    _init()
    try:
        v = _check(drv.cuPointerGetAttribute(
            drv.CUpointer_attribute.CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, ptr), "cuPointerGetAttribute")
    except CudaError as e:
        raise GemmArgumentError(f"0x{ptr:x} is not device memory the driver knows ({e}): pass "
                                f"CUDA arrays") from None
    return int(v)


def _on(device):
    """Make GPU ``device``'s context current; returns the previous context to restore."""
    drv = driver()
    prev = _check(drv.cuCtxGetCurrent(), "cuCtxGetCurrent")
    state = _device(device)
    if int(prev) != state["ctx_int"]:
        _check(drv.cuCtxSetCurrent(state["ctx"]), "cuCtxSetCurrent")
    return prev


def copy2d(src, src_pitch, dst, dst_pitch, width, height, stream, device):
    """A 2-D device-to-device copy (bytes) on ``stream`` of GPU ``device``."""
    drv = driver()
    cp = drv.CUDA_MEMCPY2D()
    cp.srcMemoryType = drv.CUmemorytype.CU_MEMORYTYPE_DEVICE
    cp.srcDevice = src
    cp.srcPitch = src_pitch
    cp.dstMemoryType = drv.CUmemorytype.CU_MEMORYTYPE_DEVICE
    cp.dstDevice = dst
    cp.dstPitch = dst_pitch
    cp.WidthInBytes = width
    cp.Height = height
    prev = _on(device)
    try:
        _check(drv.cuMemcpy2DAsync(cp, stream), "cuMemcpy2DAsync")
    finally:
        drv.cuCtxSetCurrent(prev)


def memset2d(dst, pitch, width, height, stream, device):
    """Zero ``height`` rows of ``width`` bytes at ``dst`` (row pitch ``pitch``) on ``stream``."""
    drv = driver()
    prev = _on(device)
    try:
        _check(drv.cuMemsetD2D8Async(dst, pitch, 0, width, height, stream), "cuMemsetD2D8Async")
    finally:
        drv.cuCtxSetCurrent(prev)


def alloc_async(nbytes, stream, device):
    """Stream-ordered device memory (cuMemAllocAsync): no device-wide synchronization."""
    drv = driver()
    prev = _on(device)
    try:
        return int(_check(drv.cuMemAllocAsync(nbytes, stream), "cuMemAllocAsync"))
    finally:
        drv.cuCtxSetCurrent(prev)


def free_async(ptr, stream, device):
    drv = driver()
    prev = _on(device)
    try:
        _check(drv.cuMemFreeAsync(ptr, stream), "cuMemFreeAsync")
    finally:
        drv.cuCtxSetCurrent(prev)


def _alloc(nbytes):
    drv = driver()
    _context()   # GemmKernel.time may be the process's first driver call
    return int(_check(drv.cuMemAlloc(max(nbytes, 16)), "cuMemAlloc"))


def _to_device(host):
    """A new device buffer holding the contiguous numpy array ``host``; its pointer."""
    host = np.ascontiguousarray(host)
    ptr = _alloc(host.nbytes)
    _check(driver().cuMemcpyHtoD(ptr, host.ctypes.data, host.nbytes), "cuMemcpyHtoD")
    return ptr


def _flush_buffer():
    with _LOCK:
        if "flush" not in _STATE:
            nbytes = max(2 * device_info()["l2_bytes"], 64 << 20)
            _STATE["flush"] = (_alloc(nbytes), nbytes)
        return _STATE["flush"]


def random_bits(dtype, count, rng):
    """Random finite values of ``dtype`` as raw bits (uint8/uint16/uint32 numpy array):
    normal(0, 1) rounded to the type (no NaN or infinity), for timing and checks."""
    name = _lookup_dtype(dtype).name
    x = rng.standard_normal(count, dtype=np.float32)
    return _bits_of(x, name)


def _problem_buffers(c, m, n, k, seed):
    key = (c["a_dtype"], c["b_dtype"], c["out_dtype"], m, n, k, seed)
    with _LOCK:
        old = _STATE.get("problem")
        if old and old[0] == key:
            return old[1]
        if old:
            for ptr in old[1]:
                driver().cuMemFree(ptr)
            _STATE.pop("problem")
        rng = np.random.default_rng(seed)
        ptrs = []
        lda, ldb, ldd = _lds(c, m, n, k)
        rows = (m if c["a_major"] == "K" else k, n if c["b_major"] == "K" else k)
        for dt, count in ((c["a_dtype"], rows[0] * lda), (c["b_dtype"], rows[1] * ldb)):
            ptrs.append(_to_device(random_bits(dt, count, rng)))   # pad columns: values no box reads
        ptrs.append(_alloc(m * ldd * _lookup_dtype(c["out_dtype"]).bits // 8))
        _STATE["problem"] = (key, tuple(ptrs))
        return tuple(ptrs)
