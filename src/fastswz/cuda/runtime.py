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

import functools
import hashlib
import json
import math
import os
import pathlib
import tempfile
import threading

import numpy as np

from ..dtypes import dtype as _lookup_dtype
from ..errors import PlanError
from .errors import CudaError, CudaUnavailableError, GemmArgumentError
from . import codegen

try:
    from . import _driver
    _current_context = _driver.current_context
except ImportError:  # pragma: no cover - the launcher is built on POSIX systems only
    _driver = _current_context = None

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


@functools.lru_cache(maxsize=None)
def _nvrtc_version():
    # once per process: the import and the query cost tens of milliseconds
    return _nvrtc_version_uncached()


def _nvrtc_version_uncached():
    try:
        from cuda.bindings import nvrtc
    except ImportError as e:  # say which import failed: a broken install is not a missing one
        raise CudaUnavailableError(f"NVRTC is missing ({e}): pip install 'fastswz[cuda]'") from None
    err, major, minor = nvrtc.nvrtcVersion()
    return f"{major}.{minor}"


def _swap_rowwise(fields):
    """Rowwise scales in a swap-AB kernel's frame: its rows are D's columns, so its scale_a is
    the caller's scale_b and the other way round (with their strides). A pointer the caller did
    not give stays ungiven (its default, 0), never None: a block packed without the per-call
    pointers (:meth:`GemmKernel.bound`) packs the others."""
    f = {x: v for x, v in fields.items() if x not in ("scale_a", "scale_b")}
    for mine, theirs in (("scale_a", "scale_b"), ("scale_b", "scale_a")):
        if theirs in fields:
            f[mine] = fields[theirs]
    f["sa_sm"], f["sb_sn"] = fields.get("sb_sn", 1), fields.get("sa_sm", 1)
    return f


#: What in a configuration makes the epilogue read each pointer field.
_NEEDS_WHY = {"c": "a residual", "bias": "a bias", "scale_a": "scales", "scale_b": "scales"}


def _required_pointers(config):
    """The pointer fields of FswParams a launch of ``config`` must give: the epilogue reads C
    (a residual), the bias and both scales whenever the configuration has them, while it reads
    ``out_scale`` and ``amax`` only where they are not 0 (sm90/epilogue_ops.cuh).

    >>> _required_pointers({"residual": None, "bias": "bf16", "scale": "row"})
    ('bias', 'scale_a', 'scale_b')
    """
    need = ["c"] if config["residual"] else []
    if config["bias"]:
        need.append("bias")
    if config["scale"] != "none":
        need += ["scale_a", "scale_b"]
    return tuple(need)


def cache_dir() -> pathlib.Path:
    """``$FASTSWZ_CACHE`` or ``~/.cache/fastswz``."""
    return pathlib.Path(os.environ.get("FASTSWZ_CACHE") or pathlib.Path.home() / ".cache" / "fastswz")


_inline = codegen.inline_sources


def compile_cubin(config, cache=True, defines=None, meta=False):
    """``(cubin bytes, key)`` of a configuration: from the cache, else NVRTC (no GPU needed).

    The cache name is a digest of the configuration, the generator (:func:`codegen.generator_key`),
    the defines, the target and the NVRTC version, so a cached cubin is found without generating
    its sources; beside it ``KEY.json`` holds :func:`codegen.launch_meta` (``meta=True`` returns
    ``(cubin, key, meta)``). Raises :class:`~fastswz.PlanError` for a configuration the kernel
    family does not run and :class:`~fastswz.errors.CudaError` with NVRTC's log when the compile
    fails.
    """
    c = codegen.normalize_config(config)
    h = hashlib.sha256(repr((tuple(c[k] for k in codegen.GEMM_KEYS), sorted((defines or {}).items()),
                             "sm_90a", _nvrtc_version(), codegen.generator_key())).encode())
    key = h.hexdigest()[:32]
    path = cache_dir() / "cubin" / f"{key}.cubin"
    mpath = path.with_suffix(".json")
    if cache and path.is_file() and mpath.is_file():
        try:
            m = json.loads(mpath.read_text())
            out = (path.read_bytes(), key)
            return out + (m,) if meta else out
        except (OSError, ValueError):
            pass   # a torn or foreign file: compile again and rewrite it
    sources = codegen.kernel_sources(c)
    if defines:
        sources["gemm_sm90.cu"] = "".join(f"#define {k} {v}\n" for k, v in sorted(defines.items())) + sources["gemm_sm90.cu"]
    with _LOCK:  # one import at a time: compile_many's threads would race a first import
        try:
            from cuda.core import Program, ProgramOptions
        except ImportError:
            raise CudaUnavailableError("compiling needs cuda-core: pip install 'fastswz[cuda]'") from None
    # -default-device: NVRTC 13.0 (the H100 machines') takes the generic lambdas of the kernel's
    # static_for (epilogue.cuh) for host functions without it; 13.5 does not
    opts = ProgramOptions(arch="sm_90a", std="c++17", name=f"fastswz_{key[:8]}.cu",
                          device_as_default_execution_space=True)
    try:
        prog = Program(_inline(sources), code_type="c++", options=opts)
        obj = prog.compile("cubin")
    except Exception as e:  # noqa: BLE001 - NVRTC's error carries the log
        raise CudaError(f"NVRTC failed to compile the GEMM kernel for {c}: {e}") from None
    cubin = bytes(obj.code)
    m = codegen.launch_meta(codegen.kernel_row(c), c["out_dtype"])
    if cache:
        path.parent.mkdir(parents=True, exist_ok=True)
        for target, data in ((path, cubin), (mpath, json.dumps(m).encode())):
            fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, target)
    return (cubin, key, m) if meta else (cubin, key)


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

    def __init__(self, config, cubin, key, meta=None):
        self.config = codegen.normalize_config(config)
        self.cubin, self.key = cubin, key
        self._plan = None
        self.meta = meta if meta is not None else codegen.launch_meta(self.plan, self.config["out_dtype"])
        self._modules = {}      # device ordinal -> (module, function, split-K reduction or None)
        self._launchers = {}    # device ordinal -> _driver.Launcher
        self._by_ctx = {}       # context handle (int) -> (launcher, device ordinal)
        self._grids = {}        # (device, m, n) -> CTAs
        self._pack = codegen.params_packer()
        # FswParams with the defaults of the fields after k (alpha 1): the launcher writes the rest
        self._params0 = self._pack(0, 0, 0, 0, 0)
        self._swap = self.config["swap_ab"]     # the kernel's A is the caller's B
        self._plain = not self.config["swap_ab"] and self.config["split_k"] == 1
        self._needs = _required_pointers(self.config)   # pointer fields every launch must give
        self._splits = self.config["split_k"]   # > 1: partials to a workspace, then the reduction
        # split-K whose last split reduces each tile (kernel.scheduler.workspace.reduce): the
        # kernel needs zeroed u32 semaphores, one per output tile, which it leaves zero
        # (a cached meta written before launch_meta had "reduce": the plan's own)
        reduce = self.meta["reduce"] if "reduce" in self.meta else codegen.launch_meta(
            self.plan, self.config["out_dtype"])["reduce"]
        self._last_cta = reduce == "last_cta"
        self._stream_k = self.config["stream_k"]   # > 0: stream-K workers (kernel.scheduler.workers)
        self._sems = {}         # (device, stream) -> (_Free, count): the semaphores of eager launches
        self._sems_retired = []   # replaced ones: launches queued earlier may still use them

    @property
    def plan(self):
        """The plan row the kernel was built from (:func:`codegen.kernel_row`), made on first use."""
        if self._plan is None:
            self._plan = codegen.kernel_row(self.config)
        return self._plan

    def _kernel_tiles(self, m, n):
        """Output tiles of the kernel's own M x N (swapped already)."""
        return math.ceil(m / self.config["bm"]) * math.ceil(n / self.config["bn"])

    def _reduce_grid(self, m, n):
        """The split-K reduction's CTAs for the kernel's M x N: per output tile the plan's
        ``kernel.scheduler.workspace.reduce_ctas_per_tile``."""
        return self._kernel_tiles(m, n) * self.plan["kernel"]["scheduler"]["workspace"]["reduce_ctas_per_tile"]

    def _semaphores(self, ordinal, stream, m, n):
        """``(pointer, owned)``: zeroed u32 semaphores for a ``last_cta`` split-K launch on the
        kernel's M x N (one per output tile) on ``stream``. Eager launches share one buffer per
        (GPU, stream), zeroed once in stream order: the kernel leaves it zero, and launches on
        one stream run one after another (on different streams they get different buffers). A
        launch into a CUDA graph being captured gets its own (``owned``: the caller frees it in
        stream order after the launch), zeroed by a memset node before the kernel, so each replay
        starts from zero."""
        drv = driver()
        count = self._kernel_tiles(m, n)
        if stream and _capturing(stream):
            ptr = alloc_async(4 * count, stream, ordinal)
            _call_on(ordinal, "cuMemsetD32Async", drv.cuMemsetD32Async, ptr, 0, count, stream)
            return ptr, True
        key = (ordinal, stream)
        hit = self._sems.get(key)
        if hit is None or hit[1] < count:
            size = max(count, 256)
            buf = _Free(int(_call_on(ordinal, "cuMemAlloc", drv.cuMemAlloc, 4 * size)))
            _call_on(ordinal, "cuMemsetD32Async", drv.cuMemsetD32Async, buf.ptr, 0, size, stream)
            if hit is not None:
                self._sems_retired.append(hit[0])
            hit = self._sems[key] = (buf, size)
        return hit[0].ptr, False

    def __repr__(self):
        c = self.config
        return (f"<GemmKernel {c['a_dtype']}x{c['b_dtype']}->{c['out_dtype']} "
                f"{c['a_major']}/{c['b_major']}-major {c['bm']}x{c['bn']}x{c['bk']} "
                f"{c['stages']} stages{' epilogue tile' if c['epilogue'] else ''}"
                f"{' of ' + str(c['epilogue_n']) + ' columns' if c['epilogue'] and c['epilogue_n'] else ''}"
                f"{' x' + str(c['epilogue_stages']) if c['epilogue'] and c['epilogue_stages'] > 1 else ''}"
                f"{' swap-AB' if c['swap_ab'] else ''}{' split-K ' + str(c['split_k']) if c['split_k'] > 1 and not c['stream_k'] else ''}"
                f"{' stream-K ' + str(c['stream_k']) + ' workers, ' + str(c['split_k']) + ' pieces' if c['stream_k'] else ''}"
                f"{' ping-pong' if c['pingpong'] else ''}>")

    def __del__(self):
        try:
            drv = driver()
            for mod, *_ in self._modules.values():
                drv.cuModuleUnload(mod)
        except Exception:  # noqa: BLE001 - at interpreter exit the driver may be gone
            pass

    @property
    def smem_bytes(self):
        return self.meta["smem_bytes"] + 1024   # the kernel rounds its base up to 1024

    def _function(self, device=None):
        """The kernel's CUfunction on a GPU (default: the current one), loading the cubin into
        that GPU's primary context on first use."""
        ordinal = current_device() if device is None else device
        hit = self._modules.get(ordinal)
        if hit is not None:
            return hit[1]
        return self._load(ordinal)[1]

    def _load(self, ordinal):
        """(module, kernel, reduction kernel or None) on GPU ``ordinal``, loaded once."""
        hit = self._modules.get(ordinal)
        if hit is not None:
            return hit
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
                    red = (_check(drv.cuModuleGetFunction(mod, codegen.REDUCE_KERNEL_NAME.encode()),
                                  "cuModuleGetFunction") if self._splits > 1 else None)
                finally:
                    if int(prev) != state["ctx_int"]:
                        drv.cuCtxSetCurrent(prev)
                self._modules[ordinal] = (mod, f, red)
        return self._modules[ordinal]

    def launcher(self, device=None):
        """The :class:`fastswz.cuda._driver.Launcher` of this kernel on a GPU (default: the
        current one)."""
        ordinal = current_device() if device is None else device
        lau = self._launchers.get(ordinal)
        if lau is None:
            from . import _driver

            c, m = self.config, self.meta
            f = self._function(ordinal)
            # the kernel's operands (swap_ab: its A is the caller's B), from the launch metadata
            dtypes = [_driver.TMA_DATA_TYPE[t] for t in m["dtypes"]]
            sizes = [_lookup_dtype(t).bits // 8 for t in m["dtypes"]]
            cm = self._cluster_ctas
            limit = _device(ordinal)["info"]["sms"] if cm == 1 else self._clusters(ordinal)
            lau = _driver.Launcher(int(f), _device(ordinal)["ctx_int"], m["threads"],
                                   self.smem_bytes, cm, dtypes, sizes, m["boxes"],
                                   m["swizzles"], [mj == "K" for mj in m["majors"]], m["epilogue"],
                                   c["bm"], c["bn"], limit, c["cluster_n"])
            self._by_ctx[_device(ordinal)["ctx_int"]] = (lau, ordinal)
            self._launchers[ordinal] = lau
        return lau

    @property
    def _cluster_ctas(self):
        """CTAs per cluster (cluster_m x cluster_n)."""
        return self.config["cluster_m"] * self.config["cluster_n"]

    def _tiles(self, m, n):
        """(tile rows, tile columns) of the kernel's output for the caller's M x N."""
        if self._swap:
            m, n = n, m
        return math.ceil(m / self.config["bm"]), math.ceil(n / self.config["bn"])

    def workspace_bytes(self, m, n, k):
        """Bytes of device workspace a launch on the caller's M x N x K problem needs: 0
        without split-K, else one block of the plan's ``kernel.scheduler.workspace.tile_bytes``
        per output tile (f32 partial sums of every split; layout in the plan)."""
        if self._splits == 1:
            return 0
        rows, cols = self._tiles(m, n)
        return rows * cols * self.plan["kernel"]["scheduler"]["workspace"]["tile_bytes"]

    def grid(self, m, n, device=None):
        """CTAs to launch (the caller's M x N): one per SM (or per work unit, if fewer: an
        output tile, or with split-K a tile's split); with clusters, whole clusters, as many as
        can be resident at once (cuOccupancyMaxActiveClusters)."""
        ordinal = current_device() if device is None else device
        g = self._grids.get((ordinal, m, n))
        if g is not None:
            return g
        sms = _device(ordinal)["info"]["sms"]
        rows, cols = self._tiles(m, n)
        groups = math.ceil(rows / self.config["cluster_m"]) * math.ceil(cols / self.config["cluster_n"]) * self._splits
        cm = self._cluster_ctas
        if self._stream_k:   # every worker, whatever the GPU: its share is the plan's (one result)
            g = cm * self._stream_k
        elif cm == 1:
            g = max(1, min(groups, sms))
        else:
            g = cm * max(1, min(groups, self._clusters(ordinal)))
        if len(self._grids) > 4096:
            self._grids.clear()
        self._grids[(ordinal, m, n)] = g
        return g

    def _clusters(self, ordinal):
        """How many of this kernel's clusters fit on GPU ``ordinal`` at once."""
        cm = self._cluster_ctas
        sms = _device(ordinal)["info"]["sms"]
        key = ("clusters", ordinal)
        if key not in self.__dict__:
            drv = driver()
            cfg = drv.CUlaunchConfig()
            cfg.gridDimX, cfg.gridDimY, cfg.gridDimZ = cm * (sms // cm), 1, 1   # whole clusters
            cfg.blockDimX, cfg.blockDimY, cfg.blockDimZ = self.meta["threads"], 1, 1
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
        return self.__dict__[key]

    def launch(self, a_ptr, b_ptr, d_ptr, m, n, k, lda, ldb, ldd, stream=0, grid=None, device=None,
               workspace=None, **fields):
        """Run D = A x B on device pointers (leading dimensions in elements, 16-byte aligned
        rows and bases). A is M x K (K-major: row pitch ``lda``) or its K x M transpose
        (MN-major); B is N x K (K-major) or K x N (MN-major); D is M x N row-major. A swap-AB
        kernel (``swap_ab``) takes the same arguments and passes B as its A itself.

        ``fields``: the fused epilogue's parameters (:data:`fastswz.cuda.codegen.PARAM_FIELDS`
        after ``k``: ``alpha``, ``beta``, device pointers ``bias``, ``c``, ``scale_a``,
        ``scale_b``, ``out_scale``, ``amax``, and ``ldc`` and the scale strides in elements);
        the configuration says which the kernel reads, and those must be given: a launch that
        leaves ``c``, ``bias``, ``scale_a`` or ``scale_b`` 0 where the plan reads it raises
        :class:`~fastswz.cuda.GemmArgumentError` (``out_scale`` and ``amax`` may be 0: unread).

        Asynchronous on ``stream`` (a ``CUstream`` handle as an int; 0 the legacy default
        stream) of GPU ``device`` (default: the one whose context is current on this thread,
        else GPU 0); nothing synchronizes, so a launch can be captured in a CUDA graph. Launch
        errors raise :class:`~fastswz.cuda.CudaError`; tensor maps are re-encoded only when an
        operand's pointer, extents or pitch change.

        A split-K kernel (``split_k`` > 1) writes partial sums to ``workspace``, a device
        pointer to :meth:`workspace_bytes` bytes that nothing else touches until the stream has
        run the launch, then launches its reduction kernel on the same stream, or, when the plan's
        ``kernel.scheduler.workspace.reduce`` is ``"last_cta"``, each tile's last split reduces
        it in the same kernel (one launch; the kernel's zeroed semaphores are kept per GPU and
        stream, :meth:`_semaphores`). Without a workspace it allocates stream-ordered memory
        (``cuMemAllocAsync``) and frees it after the launch in stream order."""
        if self._needs:
            self._check_pointers(fields, ())
        if device is None:
            hit = self._by_ctx.get(_current_context())
            if hit is not None and self._plain and not fields:   # the hot path: one C call
                hit[0].run(stream, a_ptr, b_ptr, d_ptr, m, n, k, lda, ldb, ldd, self._params0, grid or 0)
                return
            lau, ordinal = hit if hit is not None else (self.launcher(), current_device())
        else:
            ordinal = device
            lau = self._launchers.get(ordinal) or self.launcher(ordinal)
        if self._splits == 1 and not self._swap:   # the common case: grid computed in C
            lau.run(stream, a_ptr, b_ptr, d_ptr, m, n, k, lda, ldb, ldd,
                    self._pack(d_ptr, ldd, m, n, k, **fields) if fields else self._params0, grid or 0)
            return
        g = grid or self._grids.get((ordinal, m, n)) or self.grid(m, n, ordinal)
        stream = int(stream)
        if self._splits > 1:
            own = workspace is None
            ws = alloc_async(self.workspace_bytes(m, n, k), stream, ordinal) if own else int(workspace)
        if self._swap:   # D^T = B^T A^T: the kernel's A is the caller's B, its M the caller's N
            a_ptr, b_ptr, m, n, lda, ldb = b_ptr, a_ptr, n, m, ldb, lda
            if self.config["scale"] == "row":   # and its rows' scales are the caller's columns'
                fields = _swap_rowwise(fields)
        if self._splits == 1:
            lau.run(stream, a_ptr, b_ptr, d_ptr, m, n, k, lda, ldb, ldd,
                    self._pack(d_ptr, ldd, m, n, k, **fields) if fields else self._params0, g)
            return
        try:
            self._split_run(lau, ordinal, stream, a_ptr, b_ptr, d_ptr, m, n, k, lda, ldb, ldd, ws, g,
                            fields)
        finally:
            if own:
                free_async(ws, stream, ordinal)

    def _split_run(self, lau, ordinal, stream, a_ptr, b_ptr, d_ptr, m, n, k, lda, ldb, ldd, ws, g,
                   fields):
        """Split-K in the kernel's frame (swapped already): the GEMM kernel's partials into
        ``ws``, then the reduction (:meth:`_reduce_grid` CTAs of 128 threads per MN block of A), a
        programmatic dependent launch: it starts while the GEMM kernel runs and waits for it in
        the kernel (griddepcontrol), so the two launches do not queue one after the other."""
        from . import _driver

        if not ws:
            raise GemmArgumentError("workspace=0: a split-K kernel needs workspace_bytes(m, n, k) "
                                    "bytes of device memory")
        if self._stream_k:
            self._stream_k_check(g)
        if self._last_cta:   # the GEMM kernel reduces: no second launch
            sem, owned = self._semaphores(ordinal, stream, m, n)
            params = self._pack(d_ptr, ldd, m, n, k, workspace=ws, semaphores=sem, **fields)
            lau.run(stream, a_ptr, b_ptr, d_ptr, m, n, k, lda, ldb, ldd, params, g)
            if owned:
                free_async(sem, stream, ordinal)
            return
        params = self._pack(d_ptr, ldd, m, n, k, workspace=ws, **fields)
        lau.run(stream, a_ptr, b_ptr, d_ptr, m, n, k, lda, ldb, ldd, params, g)
        red = self._load(ordinal)[2]
        _driver.launch_plain(int(red), _device(ordinal)["ctx_int"], self._reduce_grid(m, n),
                             128 * self.plan["warpgroups"], 0, stream, params,
                             "the split-K reduction kernel", True)

    def _check_pointers(self, fields, names):
        """Raise unless ``fields`` (or the per-call ``names``) give every pointer the plan's
        epilogue reads (:func:`_required_pointers`): the kernel would read address 0."""
        for f in self._needs:
            if not fields.get(f) and f not in names:
                raise GemmArgumentError(
                    f"{f}={fields.get(f)!r}: this plan's epilogue reads {f} (its configuration has "
                    f"{_NEEDS_WHY[f]}), so each launch must give its device pointer ({f}=PTR), as "
                    f"gemm(..., {f}=...) does")

    def _stream_k_check(self, grid):
        """Raise unless a stream-K launch runs as the plan's workers: each worker's share of the
        tiles comes from the plan's worker count (sm90/scheduler.cuh), not from the grid."""
        want = self.config["cluster_m"] * self._stream_k
        if grid != want:
            raise GemmArgumentError(f"grid={grid}: a stream-K plan (stream_k={self._stream_k}, "
                                    f"cluster_m={self.config['cluster_m']}) runs as {want} CTAs, each "
                                    f"worker's share fixed by the plan; leave grid to the kernel")

    def bound(self, m, n, k, lda, ldb, ldd, device=None, grid=None):
        """``run(a_ptr, b_ptr, d_ptr, stream, workspace=0)``: :meth:`launch` for one problem
        (the caller's meaning, no epilogue fields) with everything but the pointers and the
        stream worked out once: the swapped extents, the grid, the reduction's function and grid.
        What a prepared call keeps (``gemm``'s call cache, the timing loop): one or two C
        launches per call (:meth:`bound_fused` with no fields)."""
        return self.bound_fused(m, n, k, lda, ldb, ldd, {}, (), device, grid)

    def bound_fused(self, m, n, k, lda, ldb, ldd, static, names, device=None, grid=None):
        """``run(a_ptr, b_ptr, d_ptr, stream, workspace=0, pointers=())``: :meth:`launch` with
        epilogue fields for one problem (the caller's meaning), ``static`` the fields that stay
        and ``names`` the pointer fields given per call, in the order of ``pointers``. The swapped
        extents, the grid and the fields in the kernel's frame (swap-AB: rowwise scales
        exchanged, as :meth:`launch` does) are worked out once; a call is one ``struct.pack`` (none
        where nothing changes per call) and one C launch (split-K: with ``workspace``,
        :meth:`workspace_bytes` of device memory, and its semaphores or its reduction launch, as
        :meth:`launch`).

        Raises :class:`~fastswz.PlanError` for a field ``FswParams`` does not have, and
        :class:`~fastswz.cuda.GemmArgumentError` for a pointer the plan's epilogue reads that
        neither ``static`` nor ``names`` gives."""
        if self._needs:
            self._check_pointers(static, names)
        ordinal = current_device() if device is None else device
        lau = self.launcher(ordinal)
        g = grid or self.grid(m, n, ordinal)
        rest = [f for f, _, _ in codegen.PARAM_FIELDS[5:]]
        fields = dict(static)
        for i, name in enumerate(names):
            fields[name] = ("pointer", i)   # a marker: where the call's pointer goes
        unknown = sorted(set(fields) - set(rest))
        if unknown:
            raise PlanError(f"FswParams has no field {unknown[0]!r} (fields: "
                            f"{', '.join(f for f, _, _ in codegen.PARAM_FIELDS)})")
        swap = self._swap
        if swap:   # as launch: the kernel's A is the caller's B, its M the caller's N
            m, n, lda, ldb = n, m, ldb, lda
            if self.config["scale"] == "row":
                fields = _swap_rowwise(fields)
        vals = [fields.get(f, codegen.PARAM_DEFAULTS.get(f, 0)) for f in rest]
        # where each per-call pointer lands among the fields after k (after the swap above)
        slots = [5 + j for i in range(len(names)) for j, v in enumerate(vals) if v == ("pointer", i)]
        if len(slots) != len(names):
            raise PlanError(f"fields {names}: each must be an FswParams field, once")
        vals = [0, ldd, m, n, k] + [0 if type(v) is tuple else v for v in vals]
        fpack = codegen.params_struct().pack
        if self._splits == 1 and not slots:   # nothing per call: the block packed once
            params = fpack(*vals)

            def run_packed(a_ptr, b_ptr, d_ptr, stream, workspace=0, pointers=()):
                if swap:
                    a_ptr, b_ptr = b_ptr, a_ptr
                lau.run(stream, a_ptr, b_ptr, d_ptr, m, n, k, lda, ldb, ldd, params, g)
            return run_packed
        if self._splits == 1:
            def run(a_ptr, b_ptr, d_ptr, stream, workspace=0, pointers=()):
                v = vals.copy()
                for s, p in zip(slots, pointers):
                    v[s] = p
                if swap:
                    a_ptr, b_ptr = b_ptr, a_ptr
                lau.run(stream, a_ptr, b_ptr, d_ptr, m, n, k, lda, ldb, ldd, fpack(*v), g)
            return run
        if self._stream_k:
            self._stream_k_check(g)
        ws_slot, sem_slot = 5 + rest.index("workspace"), 5 + rest.index("semaphores")
        last_cta, sems = self._last_cta, self._semaphores
        if not last_cta:
            from . import _driver

            red, ctx = int(self._load(ordinal)[2]), _device(ordinal)["ctx_int"]
            ctas, threads, plain = self._reduce_grid(m, n), 128 * self.plan["warpgroups"], _driver.launch_plain

        def run_split(a_ptr, b_ptr, d_ptr, stream, workspace=0, pointers=()):
            if not workspace:
                raise GemmArgumentError("workspace=0: a split-K kernel needs workspace_bytes(m, n, k) "
                                        "bytes of device memory")
            v = vals.copy()
            for s, p in zip(slots, pointers):
                v[s] = p
            v[0], v[ws_slot] = d_ptr, workspace   # the reduction kernel reads D from its params
            if swap:
                a_ptr, b_ptr = b_ptr, a_ptr
            if last_cta:   # the GEMM kernel reduces: its semaphores, no second launch
                sem, owned = sems(ordinal, stream, m, n)
                v[sem_slot] = sem
                lau.run(stream, a_ptr, b_ptr, d_ptr, m, n, k, lda, ldb, ldd, fpack(*v), g)
                if owned:
                    free_async(sem, stream, ordinal)
                return
            params = fpack(*v)
            lau.run(stream, a_ptr, b_ptr, d_ptr, m, n, k, lda, ldb, ldd, params, g)
            plain(red, ctx, ctas, threads, 0, stream, params, "the split-K reduction kernel", True)
        return run_split

    def _prepare(self, a_ptr, b_ptr, d_ptr, m, n, k, lda, ldb, ldd, stream=0, grid=None, **fields):
        """The launch as a no-argument callable (the timing loop's), for the current GPU; a
        split-K kernel's workspace is allocated once, here, and freed with the callable."""
        if self._needs:
            self._check_pointers(fields, ())
        ordinal = current_device()
        stream = int(stream)
        if self._swap or self._splits > 1:
            keep = _Free(_alloc(self.workspace_bytes(m, n, k)) if self._splits > 1 else 0)

            if not fields:
                run = self.bound(m, n, k, lda, ldb, ldd, ordinal, grid)

                def go_scheduled():   # one or two C launches, no Python between them
                    run(a_ptr, b_ptr, d_ptr, stream, keep.ptr)
                return go_scheduled

            def go_general():
                self.launch(a_ptr, b_ptr, d_ptr, m, n, k, lda, ldb, ldd, stream, grid, ordinal,
                            keep.ptr or None, **fields)
            return go_general
        lau = self.launcher(ordinal)
        g = grid or self.grid(m, n, ordinal)
        params = self._pack(d_ptr, ldd, m, n, k, **fields) if fields else self._params0

        def go():
            lau.run(stream, a_ptr, b_ptr, d_ptr, m, n, k, lda, ldb, ldd, params, g)
        return go

    def time(self, m, n, k, *, warmup=3, reps=20, flush_l2=True, seed=0):
        """Median/min/max milliseconds of ``reps`` runs on random inputs (CUDA events around
        each launch; the L2 flushed by a memset before each one), spread = max/min - 1, and
        TFLOP/s = 2 m n k / median; ``samples_ms`` holds every timed run (the measured search
        pools them across its rounds). The memset leaves the L2 full of dirty lines whose
        write-back the timed launch pays: on an H100 about 1-3 us of a 10-20 us kernel, the same
        for every plan of a problem, so rankings hold; compare with other libraries through
        ``benchmarks/gpu_corpus.py``, which flushes by reading (BENCHMARKS.md, "Fifth session")."""
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
                "reps": reps, "samples_ms": [float(x) for x in times]}


class _Free:
    """Frees a cuMemAlloc pointer (or nothing) when dropped."""

    def __init__(self, ptr):
        self.ptr = ptr

    def __del__(self):
        if self.ptr:
            try:
                driver().cuMemFree(self.ptr)
            except Exception:  # noqa: BLE001 - at interpreter exit the driver may be gone
                pass


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
    terms, ``|alpha acc s| + |beta C| + |bias|``), so each element must be within that plus one ulp
    of the output type at the reference (a rounding boundary may fall between), and amax within
    ``2**-20 * max S``. ``ints=False``: normal(0, 1) operands and epilogue inputs, scales in
    [0.5, 2]; the relative Frobenius error of D against the float64 reference must be under
    1e-2 (bf16/f16 inputs), 2e-2 (fp8), 3e-3 (tf32), or (fp8 output) one ulp of the output type
    relative (2**-3 e4m3, 2**-2 e5m2) where larger. D is poisoned (all bits set: NaN) first, so
    an unwritten element fails. ``alpha``, ``beta``, ``out_scale``: other values than the
    check's own (then "exact" holds only if they keep every step exact, e.g. powers of two).
    A split-K kernel runs twice (D poisoned again between): ``deterministic`` says whether the
    two D were the same bits, and ``ok`` needs it. Returns a dict (``ok``, ``mismatches`` or
    ``rel_err``, ``unwritten``, ``deterministic``, ``amax`` and ``amax_ref`` where the kernel
    writes amax).
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
    runs = []
    try:
        for name, arr in fused["device"].items():
            ptr = _to_device(arr)
            ptrs.append(ptr)
            extras[name] = ptr
        extras.update(fused["params"])
        for _ in range(2 if c["split_k"] > 1 else 1):
            _check(drv.cuMemsetD8(pd, 0xFF, m * ldd * eo), "cuMemsetD8")
            kernel.launch(ptrs[0], ptrs[1], pd, m, n, k, lda, ldb, ldd, **extras)
            _check(drv.cuCtxSynchronize(), "the GEMM kernel")
            out = np.empty(m * ldd, dtype={1: np.uint8, 2: np.uint16, 4: np.uint32}[eo])
            _check(drv.cuMemcpyDtoH(out.ctypes.data, pd, out.nbytes), "cuMemcpyDtoH")
            runs.append(out)
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
    res = {"m": m, "n": n, "k": k, "ints": ints, "unwritten": int(np.isnan(d).sum() - np.isnan(want).sum()),
           "deterministic": all(np.array_equal(r.reshape(m, ldd)[:, :n], runs[0].reshape(m, ldd)[:, :n])
                                for r in runs)}
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
        res["ok"] = res["mismatches"] == 0 and amax_ok and res["deterministic"]
    else:
        ref = want if fp8_out else D
        num = np.linalg.norm(np.nan_to_num(d, nan=1e30) - ref)
        err = float(num / max(np.linalg.norm(ref), 1e-30))
        bound = 2e-2 if c["a_dtype"] in ("e4m3", "e5m2") else (3e-3 if c["a_dtype"] == "tf32" else 1e-2)
        if fp8_out:
            bound = max(bound, 2.0 ** -3 if c["out_dtype"] == "e4m3" else 2.0 ** -2)
        res["rel_err"] = err
        res["ok"] = bool(err < bound) and amax_ok and res["deterministic"]
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


#: Row pitch (bytes) of the copies ``gemm`` makes of operands the TMA cannot read in place: a
#: multiple of the 128-byte L2 line. With a pitch that is a multiple of 16 but not of 32 bytes
#: (e.g. bf16 K = 1000), every 128-byte row segment of a box spans five 32-byte sectors instead of
#: four, and the 1-CTA kernel took 1.43-1.52 times as long as at a 128-byte pitch on five such shapes
#: (H200, ``tests/gpu/tune/pitch.py``; docs/conformance/h200-2026-11-26-pitch).
STAGED_PITCH = 128


def _pitch(cols, dtype):
    """Row pitch (elements) of ``cols`` elements as ``gemm`` reads them from a packed array: the
    packed row when it is a multiple of 16 bytes (cuTensorMapEncodeTiled's rule: read in place),
    else the pitch of ``gemm``'s staged copy (:data:`STAGED_PITCH`)."""
    e = _lookup_dtype(dtype).bits // 8
    if cols * e % 16 == 0:
        return cols
    return staged_pitch(cols, e)


def staged_pitch(cols, e):
    """Row pitch (elements of ``e`` bytes) of ``gemm``'s staged copy of a row of ``cols``
    elements: rounded up to :data:`STAGED_PITCH` bytes.

    >>> staged_pitch(1259, 2), staged_pitch(1000, 1)
    (1280, 1024)
    """
    return -(-cols * e // STAGED_PITCH) * STAGED_PITCH // e


def _lds(c, m, n, k):
    """Leading dimensions (elements) of A, B, D for a configuration's majors, as ``gemm`` reads
    packed arrays (:func:`_pitch`)."""
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


def _call_on(device, what, fn, *args):
    """The driver call ``fn(*args)`` with GPU ``device``'s context current (the caller's restored
    after it); its result, or :class:`CudaError` naming ``what``."""
    drv = driver()
    prev = _on(device)
    try:
        return _check(fn(*args), what)
    finally:
        drv.cuCtxSetCurrent(prev)


def copy2d(src, src_pitch, dst, dst_pitch, width, height, stream, device):
    """A 2-D device-to-device copy (bytes) on ``stream`` of GPU ``device``: through the C launcher
    (:func:`fastswz.cuda._driver.copy2d`) where it is built, a staged call's host path being a
    few microseconds shorter that way than through cuda.bindings' struct."""
    if _driver is not None:
        _driver.copy2d(int(src), src_pitch, int(dst), dst_pitch, width, height, int(stream),
                       _device(device)["ctx_int"])
        return
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
    _call_on(device, "cuMemcpy2DAsync", drv.cuMemcpy2DAsync, cp, stream)


def memset2d(dst, pitch, width, height, stream, device):
    """Zero ``height`` rows of ``width`` bytes at ``dst`` (row pitch ``pitch``) on ``stream``."""
    drv = driver()
    _call_on(device, "cuMemsetD2D8Async", drv.cuMemsetD2D8Async, dst, pitch, 0, width, height, stream)


def alloc_async(nbytes, stream, device):
    """Stream-ordered device memory (cuMemAllocAsync): no device-wide synchronization."""
    drv = driver()
    return int(_call_on(device, "cuMemAllocAsync", drv.cuMemAllocAsync, nbytes, stream))


def free_async(ptr, stream, device):
    """Return :func:`alloc_async` memory in stream order (cuMemFreeAsync)."""
    drv = driver()
    _call_on(device, "cuMemFreeAsync", drv.cuMemFreeAsync, ptr, stream)


def _capturing(stream):
    """Whether ``stream`` (a CUstream handle as an int, not 0) is capturing a CUDA graph."""
    drv = driver()
    status = _check(drv.cuStreamIsCapturing(stream), "cuStreamIsCapturing")
    return status != drv.CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_NONE


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
