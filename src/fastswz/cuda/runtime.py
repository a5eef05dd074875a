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

import ctypes
import math
import os
import pathlib
import tempfile
import threading

import numpy as np

from ..dtypes import dtype as _lookup_dtype
from .errors import CudaError, CudaUnavailableError, GemmArgumentError
from . import codegen

__all__ = ["cache_dir", "compile_cubin", "GemmKernel", "device_info", "device_key", "driver", "check"]

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


def _context():
    """Initialise the driver once and make device 0's primary context current on this thread."""
    drv = driver()
    with _LOCK:
        if "ctx" not in _STATE:
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
            dev = _check(drv.cuDeviceGet(0), "cuDeviceGet")
            major = _check(drv.cuDeviceGetAttribute(
                drv.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev), "cuDeviceGetAttribute")
            minor = _check(drv.cuDeviceGetAttribute(
                drv.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev), "cuDeviceGetAttribute")
            name = _check(drv.cuDeviceGetName(256, dev), "cuDeviceGetName")
            name = name.split(b"\0", 1)[0].decode()
            if (major, minor) != (9, 0):
                raise CudaUnavailableError(
                    f"GPU 0 is {name}, compute capability {major}.{minor}: the fastswz GEMM kernels "
                    f"are built for sm_90a (compute capability 9.0, H100/H200)")
            ctx = _check(drv.cuDevicePrimaryCtxRetain(dev), "cuDevicePrimaryCtxRetain")
            attr = drv.CUdevice_attribute
            get = lambda a: int(_check(drv.cuDeviceGetAttribute(a, dev), "cuDeviceGetAttribute"))  # noqa: E731
            _STATE.update(ctx=ctx, dev=dev, info={
                "name": name, "compute_capability": f"{major}.{minor}",
                "sms": get(attr.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT),
                "l2_bytes": get(attr.CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE),
                "smem_optin": get(attr.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN),
                "clock_khz": get(attr.CU_DEVICE_ATTRIBUTE_CLOCK_RATE),
                "memory_clock_khz": get(attr.CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE),
                "driver": int(_check(drv.cuDriverGetVersion(), "cuDriverGetVersion")),
                "nvrtc": _nvrtc_version()})
        _check(drv.cuCtxSetCurrent(_STATE["ctx"]), "cuCtxSetCurrent")
    return _STATE


def device_info() -> dict:
    """Name, SM count, L2 size, clocks, driver and NVRTC versions of GPU 0."""
    return dict(_context()["info"])


def device_key() -> str:
    """A string that names the GPU and software a measurement depends on (cache keys)."""
    i = device_info()
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


def _inline(sources):
    """One translation unit: NVRTC gets the kernel with its two headers pasted in."""
    text = sources["gemm_sm90.cu"]
    for name in ("fastswz_plan.h", "fastswz_mma.h"):
        text = text.replace(f'#include "{name}"', sources[name])
    return text


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


# -- tensor maps --------------------------------------------------------------------------------------
_TMA_DTYPE = {"bf16": "CU_TENSOR_MAP_DATA_TYPE_BFLOAT16", "f16": "CU_TENSOR_MAP_DATA_TYPE_FLOAT16",
              "f32": "CU_TENSOR_MAP_DATA_TYPE_FLOAT32", "tf32": "CU_TENSOR_MAP_DATA_TYPE_FLOAT32",
              "e4m3": "CU_TENSOR_MAP_DATA_TYPE_UINT8", "e5m2": "CU_TENSOR_MAP_DATA_TYPE_UINT8"}


def _tensor_map(ptr, dtype, inner, outer, ld, box, swizzle_value):
    """cuTensorMapEncodeTiled of a 2-D row-major array ``outer x inner`` (row pitch ``ld``
    elements), box ``[inner, outer]`` from the plan, its swizzle, zero fill out of bounds."""
    drv = driver()
    e = _lookup_dtype(dtype).bits // 8
    if ptr % 16 or (ld * e) % 16 or ld < inner:
        raise GemmArgumentError(
            f"a {outer} x {inner} {dtype} operand at 0x{ptr:x} with row pitch {ld} elements "
            f"({ld * e} bytes): cuTensorMapEncodeTiled needs a 16-byte aligned base and a pitch that "
            f"is a multiple of 16 bytes and at least the row; gemm() copies such operands into a "
            f"padded buffer, GemmKernel.launch does not")
    tmap = _check(drv.cuTensorMapEncodeTiled(
        getattr(drv.CUtensorMapDataType, _TMA_DTYPE[dtype]), drv.cuuint32_t(2), ptr,
        [drv.cuuint64_t(inner), drv.cuuint64_t(outer)], [drv.cuuint64_t(ld * e)],
        [drv.cuuint32_t(box[0]), drv.cuuint32_t(box[1])], [drv.cuuint32_t(1), drv.cuuint32_t(1)],
        drv.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE,
        drv.CUtensorMapSwizzle(swizzle_value),
        drv.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
        drv.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE), "cuTensorMapEncodeTiled")
    buf = (ctypes.c_ubyte * 128)()
    ctypes.memmove(buf, tmap.getPtr(), 128)
    return buf


class GemmKernel:
    """One compiled configuration of the sm90 GEMM kernel family.

    ``launch`` runs it on device pointers; ``time`` measures it with CUDA events on random
    inputs (L2 flushed before each run). The plan row (``plan``) is what the kernel was built
    from: its JSON is ``fastswz plan --json`` of the same configuration.
    """

    def __init__(self, config, cubin, key):
        self.config = codegen.normalize_config(config)
        self.cubin, self.key = cubin, key
        self.plan = codegen.kernel_row(self.config)
        self._func = None

    def __repr__(self):
        c = self.config
        return (f"<GemmKernel {c['a_dtype']}x{c['b_dtype']}->{c['out_dtype']} "
                f"{c['a_major']}/{c['b_major']}-major {c['bm']}x{c['bn']}x{c['bk']} "
                f"{c['stages']} stages{' epilogue tile' if c['epilogue'] else ''}"
                f"{' of ' + str(c['epilogue_n']) + ' columns' if c['epilogue'] and c['epilogue_n'] else ''}"
                f"{' x' + str(c['epilogue_stages']) if c['epilogue'] and c['epilogue_stages'] > 1 else ''}>")

    @property
    def smem_bytes(self):
        return self.plan["smem_bytes"] + 1024   # the kernel rounds its base up to 1024

    def _function(self):
        if self._func is None:
            drv = driver()
            _context()
            mod = _check(drv.cuModuleLoadData(self.cubin), "cuModuleLoadData")
            f = _check(drv.cuModuleGetFunction(mod, codegen.KERNEL_NAME.encode()), "cuModuleGetFunction")
            _check(drv.cuFuncSetAttribute(
                f, drv.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                self.smem_bytes), "cuFuncSetAttribute")
            self._module, self._func = mod, f
        return self._func

    def grid(self, m, n):
        """CTAs to launch: one per SM (or per output tile, if fewer); with clusters, whole
        clusters, as many as can be resident at once (cuOccupancyMaxActiveClusters)."""
        cm = self.config["cluster_m"]
        groups = math.ceil(math.ceil(m / self.config["bm"]) / cm) * math.ceil(n / self.config["bn"])
        if cm == 1:
            return max(1, min(groups, device_info()["sms"]))
        if "clusters" not in self.__dict__:
            drv = driver()
            cfg = drv.CUlaunchConfig()
            cfg.gridDimX, cfg.gridDimY, cfg.gridDimZ = cm * device_info()["sms"] // cm, 1, 1
            cfg.blockDimX, cfg.blockDimY, cfg.blockDimZ = self.plan["kernel"]["threads"], 1, 1
            cfg.sharedMemBytes = self.smem_bytes
            attr = drv.CUlaunchAttribute()
            attr.id = drv.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
            attr.value.clusterDim.x, attr.value.clusterDim.y, attr.value.clusterDim.z = cm, 1, 1
            cfg.attrs = [attr]
            cfg.numAttrs = 1
            self.clusters = int(_check(drv.cuOccupancyMaxActiveClusters(self._function(), cfg),
                                       "cuOccupancyMaxActiveClusters"))
        return cm * max(1, min(groups, self.clusters))

    def launch(self, a_ptr, b_ptr, d_ptr, m, n, k, lda, ldb, ldd, stream=0, grid=None):
        """Run D = A x B on device pointers (leading dimensions in elements, 16-byte aligned
        rows and bases). A is M x K (K-major: row pitch ``lda``) or its K x M transpose
        (MN-major); B is N x K (K-major) or K x N (MN-major); D is M x N row-major."""
        self._prepare(a_ptr, b_ptr, d_ptr, m, n, k, lda, ldb, ldd, stream, grid)()

    def _prepare(self, a_ptr, b_ptr, d_ptr, m, n, k, lda, ldb, ldd, stream=0, grid=None):
        """The launch as a no-argument callable: tensor maps encoded and parameters packed once,
        so that a timing loop measures the kernel and not the host's encoding."""
        c, p = self.config, self.plan
        f = self._function()
        maps = []
        mc = p["kernel"]["multicast"]
        for op, ptr, ld, rows in (("a", a_ptr, lda, m), ("b", b_ptr, ldb, n)):
            o = p[op]
            inner, outer = (k, rows) if o["major"] == "K" else (rows, k)
            box = mc["tma_box"] if mc and mc["operand"] == op else o["tma_box"]
            maps.append(_tensor_map(ptr, c[op + "_dtype"], inner, outer, ld, box,
                                    o["tma_swizzle_value"]))
        if p["epilogue"]:
            e = p["epilogue"]
            maps.append(_tensor_map(d_ptr, c["out_dtype"], n, m, ldd, e["tma_box"],
                                    ("none", "32B", "64B", "128B").index(e["swizzle"])))
        else:
            maps.append((ctypes.c_ubyte * 128)())
        args = [*maps, ctypes.c_uint64(d_ptr), ctypes.c_int64(ldd), ctypes.c_int32(m),
                ctypes.c_int32(n), ctypes.c_int32(k)]
        params = (ctypes.c_void_p * len(args))(*[ctypes.addressof(a) for a in args])
        drv = driver()
        g = self.grid(m, n) if grid is None else grid
        cm = self.config["cluster_m"]
        threads = self.plan["kernel"]["threads"]
        if cm == 1:
            def go(args=args, params=params):   # the defaults keep the buffers alive
                _check(drv.cuLaunchKernel(f, g, 1, 1, threads, 1, 1, self.smem_bytes, stream,
                                          ctypes.addressof(params), 0), "cuLaunchKernel")
            return go
        cfg = drv.CUlaunchConfig()
        cfg.gridDimX, cfg.gridDimY, cfg.gridDimZ = g, 1, 1
        cfg.blockDimX, cfg.blockDimY, cfg.blockDimZ = threads, 1, 1
        cfg.sharedMemBytes = self.smem_bytes
        cfg.hStream = drv.CUstream(stream)
        attr = drv.CUlaunchAttribute()
        attr.id = drv.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
        attr.value.clusterDim.x, attr.value.clusterDim.y, attr.value.clusterDim.z = cm, 1, 1
        cfg.attrs = [attr]
        cfg.numAttrs = 1

        def go(args=args, params=params, cfg=cfg):
            _check(drv.cuLaunchKernelEx(cfg, f, ctypes.addressof(params), 0), "cuLaunchKernelEx")
        return go

    def time(self, m, n, k, *, warmup=3, reps=20, flush_l2=True, seed=0):
        """Median/min/max milliseconds of ``reps`` runs on random inputs (CUDA events around
        each launch; the L2 flushed by a memset before each one), spread = max/min - 1, and
        TFLOP/s = 2 m n k / median; ``samples_ms`` holds every timed run (the measured search
        pools them across its rounds)."""
        bufs = _problem_buffers(self.config, m, n, k, seed)
        drv = driver()
        start = _check(drv.cuEventCreate(0), "cuEventCreate")
        stop = _check(drv.cuEventCreate(0), "cuEventCreate")
        flush = _flush_buffer() if flush_l2 else None
        times = []
        go = self._prepare(*bufs, m, n, k, *_lds(self.config, m, n, k))
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
                "reps": reps, "samples_ms": [float(x) for x in times]}


def check(kernel, m, n, k, *, ints=True, seed=0):
    """Run ``kernel`` once on host-made inputs and compare D with the float64 product.

    ``ints=True``: small integers in [-2, 2] (exact in every input type, every sum exact in
    f32): D must equal the reference rounded to the output type, element for element.
    ``ints=False``: normal(0, 1) values; the relative Frobenius error is reported. D is
    poisoned (all bits set: NaN) first, so an unwritten element fails. Returns a dict.
    """
    from .reference_gemm import decode

    c = kernel.config
    drv = driver()
    _context()
    ops = _host_operands(c, m, n, k, np.random.default_rng(seed), ints)
    host = [logical for logical, _, _ in ops]
    ptrs = [_to_device(stored) for _, stored, _ in ops]
    (_, _, lda), (_, _, ldb) = ops
    eo = _lookup_dtype(c["out_dtype"]).bits // 8
    ldd = -(-n * eo // 16) * 16 // eo
    pd = _alloc(m * ldd * eo)
    try:
        _check(drv.cuMemsetD8(pd, 0xFF, m * ldd * eo), "cuMemsetD8")
        kernel.launch(ptrs[0], ptrs[1], pd, m, n, k, lda, ldb, ldd)
        _check(drv.cuCtxSynchronize(), "the GEMM kernel")
        out = np.empty(m * ldd, dtype={1: np.uint8, 2: np.uint16, 4: np.uint32}[eo])
        _check(drv.cuMemcpyDtoH(out.ctypes.data, pd, out.nbytes), "cuMemcpyDtoH")
    finally:
        for p in (*ptrs, pd):
            drv.cuMemFree(p)
    d = decode(out, c["out_dtype"]).reshape(m, ldd)[:, :n]
    ref = host[0] @ host[1].T
    res = {"m": m, "n": n, "k": k, "ints": ints, "unwritten": int(np.isnan(d).sum())}
    if ints:
        want = decode(_bits_of(ref.astype(np.float32), c["out_dtype"]), c["out_dtype"]).reshape(m, n)
        res["mismatches"] = int((d != want).sum())
        res["ok"] = res["mismatches"] == 0
    else:
        err = float(np.linalg.norm(np.nan_to_num(d, nan=1e30) - ref) / np.linalg.norm(ref))
        res["rel_err"] = err
        res["ok"] = bool(err < (2e-2 if c["a_dtype"] in ("e4m3", "e5m2") else 1e-2))
    return res


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
    # the majors too: they decide the buffers' row counts and pitches
    key = (c["a_dtype"], c["b_dtype"], c["out_dtype"], c["a_major"], c["b_major"], m, n, k, seed)
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
