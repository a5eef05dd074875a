# cython: language_level=3
"""The launch path of fastswz's GPU runtime in C (STYLE.md: "no Python driver call per field").

The CUDA driver library is opened at run time (``dlopen("libcuda.so.1")``), so building fastswz
needs no CUDA: the few driver types used here are declared by their documented layout (cuda.h of
CUDA 12 and 13: ``CUtensorMap`` is 128 bytes, ``CUlaunchConfig`` seven unsigned ints then the
stream, the attributes and their count; ``CUlaunchAttribute`` an id padded to 8 bytes and a
64-byte value). ``tests/test_cuda_driver.py`` checks the enum values against cuda.bindings.

A :class:`Launcher` is one loaded kernel on one context: it encodes the three TMA tensor maps
(``cuTensorMapEncodeTiled``), reusing the last map of each operand while its pointer, extents and
pitch repeat, and launches (``cuLaunchKernel``, or ``cuLaunchKernelEx`` for a cluster) on the
caller's stream. Nothing here synchronizes or allocates device memory, so a launch can be
captured in a CUDA graph.
"""
cimport cython
from libc.stdint cimport uint64_t, uint32_t, int64_t, uintptr_t
from libc.string cimport memcpy, memset
from posix.dlfcn cimport dlopen, dlsym, dlerror, RTLD_NOW, RTLD_LOCAL

import os as _os

from .errors import CudaError, CudaUnavailableError, GemmArgumentError

ctypedef int CUresult
ctypedef void* CUfunction
ctypedef void* CUstream
ctypedef void* CUcontext

cdef struct TensorMap:          # CUtensorMap (alignas(64) in cuda.h: kept so by Launcher)
    uint64_t opaque[16]

cdef struct LaunchAttribute:    # CUlaunchAttribute
    int id
    int pad0
    unsigned int value[16]      # CUlaunchAttributeValue: a 64-byte union; clusterDim is x, y, z

cdef struct LaunchConfig:       # CUlaunchConfig
    unsigned int gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes
    CUstream hStream
    LaunchAttribute* attrs
    unsigned int numAttrs

cdef struct Memcpy2D:           # CUDA_MEMCPY2D: 128 bytes, source then destination
    size_t srcXInBytes, srcY
    int srcMemoryType           # CUmemorytype (an enum: 4 bytes, then padding)
    const void* srcHost
    uint64_t srcDevice          # CUdeviceptr
    void* srcArray
    size_t srcPitch
    size_t dstXInBytes, dstY
    int dstMemoryType
    void* dstHost
    uint64_t dstDevice
    void* dstArray
    size_t dstPitch
    size_t WidthInBytes, Height

ctypedef CUresult (*f_encode)(TensorMap*, int, uint32_t, void*, const uint64_t*, const uint64_t*,
                              const uint32_t*, const uint32_t*, int, int, int, int) noexcept nogil
ctypedef CUresult (*f_launch)(CUfunction, unsigned int, unsigned int, unsigned int, unsigned int,
                              unsigned int, unsigned int, unsigned int, CUstream, void**,
                              void**) noexcept nogil
ctypedef CUresult (*f_launch_ex)(const LaunchConfig*, CUfunction, void**, void**) noexcept nogil
ctypedef CUresult (*f_name)(CUresult, const char**) noexcept nogil
ctypedef CUresult (*f_ctx_get)(CUcontext*) noexcept nogil
ctypedef CUresult (*f_ctx_set)(CUcontext) noexcept nogil
ctypedef CUresult (*f_copy2d)(const Memcpy2D*, CUstream) noexcept nogil

cdef extern from *:
    """
    /* The map cache is guarded by a PyMutex on free-threaded CPython; with the GIL, Launcher.run
       holds the GIL from the cache look-up to the launch, which guards it already. */
    #ifdef Py_GIL_DISABLED
    typedef PyMutex fsw_mutex;
    #define FSW_LOCK(m) PyMutex_Lock(&(m))
    #define FSW_UNLOCK(m) PyMutex_Unlock(&(m))
    #else
    typedef int fsw_mutex;
    #define FSW_LOCK(m) ((void)0)
    #define FSW_UNLOCK(m) ((void)0)
    #endif
    """
    ctypedef int fsw_mutex
    void FSW_LOCK(fsw_mutex) noexcept nogil
    void FSW_UNLOCK(fsw_mutex) noexcept nogil

cdef f_encode _encode = NULL
cdef f_launch _launch = NULL
cdef f_launch_ex _launch_ex = NULL
cdef f_name _error_name = NULL
cdef f_name _error_string = NULL
cdef f_ctx_get _ctx_get = NULL
cdef f_ctx_set _ctx_set = NULL
cdef f_copy2d _copy2d = NULL

cdef enum:                      # cuda.h's values (tests/test_cuda_driver.py checks them)
    L2_PROMOTION_NONE = 0       # CU_TENSOR_MAP_L2_PROMOTION_NONE
    L2_PROMOTION_128B = 2       # CU_TENSOR_MAP_L2_PROMOTION_L2_128B
    L2_PROMOTION_256B = 3       # CU_TENSOR_MAP_L2_PROMOTION_L2_256B
    L2_LINE_BYTES = 128         # the L2 cache line
    CLUSTER_DIMENSION = 4       # CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
    PROGRAMMATIC_SERIALIZATION = 6   # CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
    NOT_INITIALIZED = 3         # CUDA_ERROR_NOT_INITIALIZED
    MEMORYTYPE_DEVICE = 2       # CU_MEMORYTYPE_DEVICE

#: The L2 line (bytes): a tensor map whose row pitch is a multiple of it promotes L2 fills to 256
#: bytes, any other to 128 (:func:`l2_promotion`).
L2_LINE = L2_LINE_BYTES
#: ``FASTSWZ_L2_PROMOTION`` (read once, at import) overrides :func:`l2_promotion` for A/B runs:
#: "auto" (the rule, the default), "none", "128" or "256" for every tensor map.
_PROMOTION_NAMES = {"none": L2_PROMOTION_NONE, "128": L2_PROMOTION_128B, "256": L2_PROMOTION_256B}
_override = _os.environ.get("FASTSWZ_L2_PROMOTION", "auto").strip().lower()
if _override != "auto" and _override not in _PROMOTION_NAMES:
    raise GemmArgumentError(f"FASTSWZ_L2_PROMOTION={_override!r} must be auto, none, 128 or 256 (the TMA "
                            f"tensor maps' L2 promotion; auto: 256 bytes on rows a multiple of {L2_LINE} "
                            f"bytes, else 128)")
cdef int _forced = _PROMOTION_NAMES.get(_override, -1)


cdef inline int _promotion(uint64_t pitch) noexcept nogil:
    if _forced >= 0:
        return _forced
    return L2_PROMOTION_256B if pitch % L2_LINE_BYTES == 0 else L2_PROMOTION_128B


def l2_promotion(pitch):
    """The L2 promotion of an operand's tensor map whose rows are ``pitch`` bytes apart.

    256 bytes (``CU_TENSOR_MAP_L2_PROMOTION_L2_256B``) where the pitch is a multiple of the
    128-byte L2 line, else 128 bytes: off the line each 128-byte row segment of a box spans two
    lines. Measured on an H200 (docs/conformance/2026-11-29-thirty-fourth-session, run 4: the
    190 default plans of the corpus's and seeds' problems, 130 of them under 0.85x cuBLAS's speed,
    each promotion in its own process, cuBLAS as the gauge): on the 114 problems with rows off
    the line 128 bytes ran 1.058x faster than 256 in geometric mean (67 faster by > 3%, 2
    slower), no promotion 1.046x, 64 bytes 1.046x; on the 76 on the line every setting was level
    (0.997-0.998x). Held out on 60 drawn problems with rows off the line (run 5): 1.0496x, none
    slower by > 3%. Why the wider promotion costs time there was not measured.

    Parameters
    ----------
    pitch : int
        The row pitch in bytes (a multiple of 16, as ``cuTensorMapEncodeTiled`` asks).

    Returns
    -------
    int
        The ``CUtensorMapL2promotion`` value (:data:`ENUMS`); ``FASTSWZ_L2_PROMOTION`` (``none``,
        ``128``, ``256``) replaces the rule's for A/B runs.

    Examples
    --------
    >>> l2_promotion(8192) == ENUMS["CU_TENSOR_MAP_L2_PROMOTION_L2_256B"]
    True
    >>> l2_promotion(3168) == ENUMS["CU_TENSOR_MAP_L2_PROMOTION_L2_128B"]   # bf16 K = 1584
    True
    """
    cdef uint64_t p = int(pitch)
    return _promotion(p)


#: CUtensorMapDataType of each element type: fp8 travels as bytes, tf32 as f32 (its bits).
TMA_DATA_TYPE = {"e4m3": 0, "e5m2": 0, "f16": 6, "f32": 7, "tf32": 7, "bf16": 9}
#: The values above, for the tests.
ENUMS = {"CU_TENSOR_MAP_L2_PROMOTION_NONE": L2_PROMOTION_NONE,
         "CU_TENSOR_MAP_L2_PROMOTION_L2_128B": L2_PROMOTION_128B,
         "CU_TENSOR_MAP_L2_PROMOTION_L2_256B": L2_PROMOTION_256B,
         "CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION": CLUSTER_DIMENSION,
         "CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION": PROGRAMMATIC_SERIALIZATION,
         "CUDA_ERROR_NOT_INITIALIZED": NOT_INITIALIZED,
         "CU_MEMORYTYPE_DEVICE": MEMORYTYPE_DEVICE}


cdef dict _memcpy2d_offsets():
    cdef Memcpy2D s
    cdef uintptr_t base = <uintptr_t>&s
    return {"srcMemoryType": <uintptr_t>&s.srcMemoryType - base, "srcDevice": <uintptr_t>&s.srcDevice - base,
            "srcPitch": <uintptr_t>&s.srcPitch - base, "dstMemoryType": <uintptr_t>&s.dstMemoryType - base,
            "dstDevice": <uintptr_t>&s.dstDevice - base, "dstPitch": <uintptr_t>&s.dstPitch - base,
            "WidthInBytes": <uintptr_t>&s.WidthInBytes - base, "Height": <uintptr_t>&s.Height - base,
            "sizeof": sizeof(Memcpy2D)}


#: Where :func:`copy2d` writes each CUDA_MEMCPY2D field it sets (bytes), and the struct's size:
#: the tests check them against cuda.bindings' own struct.
MEMCPY2D_OFFSETS = _memcpy2d_offsets()


cdef void* _symbol(void* lib, const char* name) except NULL:
    cdef void* p = dlsym(lib, name)
    if p == NULL:
        raise CudaUnavailableError(
            f"the CUDA driver library has no {name.decode()}: fastswz needs a driver of CUDA 12.0 "
            f"or newer (nvidia-smi shows the version)")
    return p


def load():
    """Open the driver library once; :class:`CudaUnavailableError` when there is none."""
    global _encode, _launch, _launch_ex, _error_name, _error_string, _ctx_get, _ctx_set, _copy2d
    if _launch != NULL:
        return
    cdef void* lib = dlopen(b"libcuda.so.1", RTLD_NOW | RTLD_LOCAL)
    if lib == NULL:
        err = dlerror()
        raise CudaUnavailableError(
            f"no NVIDIA driver here ({(<bytes>err).decode() if err != NULL else 'libcuda.so.1'}): "
            f"the GEMM kernels need a Hopper GPU (sm_90a); compiling (compile_gemm) works without one")
    _encode = <f_encode>_symbol(lib, b"cuTensorMapEncodeTiled")
    _launch_ex = <f_launch_ex>_symbol(lib, b"cuLaunchKernelEx")
    _error_name = <f_name>_symbol(lib, b"cuGetErrorName")
    _error_string = <f_name>_symbol(lib, b"cuGetErrorString")
    _ctx_get = <f_ctx_get>_symbol(lib, b"cuCtxGetCurrent")
    _ctx_set = <f_ctx_set>_symbol(lib, b"cuCtxSetCurrent")
    # cuda.h maps cuMemcpy2DAsync to its _v2 entry point (64-bit sizes) since CUDA 3.2
    _copy2d = <f_copy2d>_symbol(lib, b"cuMemcpy2DAsync_v2")
    _launch = <f_launch>_symbol(lib, b"cuLaunchKernel")


cdef str _describe(CUresult r):
    cdef const char* name = NULL
    cdef const char* text = NULL
    if _error_name != NULL:
        _error_name(r, &name)
        _error_string(r, &text)
    return (f"{(<bytes>name).decode() if name != NULL else 'CUresult ' + str(r)}: "
            f"{(<bytes>text).decode() if text != NULL else ''}")


cdef inline const LaunchConfig* _with_attribute(LaunchConfig* cfg, LaunchAttribute* attr, int id,
                                               unsigned int v0, unsigned int v1, unsigned int v2,
                                               unsigned int grid, unsigned int threads,
                                               unsigned int smem, CUstream stream) noexcept nogil:
    """``cfg`` (returned) for a launch of ``grid`` CTAs of ``threads`` on ``stream`` with the one
    launch attribute ``id``, its value's first words ``v0, v1, v2`` (the rest zero)."""
    memset(attr, 0, sizeof(LaunchAttribute))
    attr.id = id
    attr.value[0], attr.value[1], attr.value[2] = v0, v1, v2
    cfg.gridDimX, cfg.gridDimY, cfg.gridDimZ = grid, 1, 1
    cfg.blockDimX, cfg.blockDimY, cfg.blockDimZ = threads, 1, 1
    cfg.sharedMemBytes = smem
    cfg.hStream = stream
    cfg.attrs = attr
    cfg.numAttrs = 1
    return cfg


cdef inline CUresult _enter(CUcontext want, CUcontext* before) noexcept nogil:
    """Make ``want`` current, the caller's context kept in ``before``."""
    cdef CUresult r = _ctx_get(before)
    if r == 0 and before[0] != want:
        r = _ctx_set(want)
    return r


cdef inline CUresult _leave(CUcontext want, CUcontext before, CUresult r) noexcept nogil:
    """Restore ``before`` after a call that returned ``r``; the first error."""
    cdef CUresult r2
    if before != want:
        r2 = _ctx_set(before)
        if r == 0:
            r = r2
    return r


cdef CUresult _launch_in(CUcontext want, CUfunction func, unsigned int grid, unsigned int threads,
                         unsigned int smem, CUstream stream, void** args,
                         const LaunchConfig* cfg) noexcept nogil:
    """One launch with ``want`` current (cuLaunchKernelEx with ``cfg``, else cuLaunchKernel), the
    caller's context restored after it; the first error."""
    cdef CUcontext before = NULL
    cdef CUresult r = _enter(want, &before)
    if r != 0:
        return r
    if cfg != NULL:
        r = _launch_ex(cfg, func, args, NULL)
    else:
        r = _launch(func, grid, 1, 1, threads, 1, 1, smem, stream, args, NULL)
    return _leave(want, before, r)


def copy2d(uint64_t src, size_t src_pitch, uint64_t dst, size_t dst_pitch, size_t width,
           size_t height, uintptr_t stream, uintptr_t ctx):
    """A 2-D device-to-device copy of ``height`` rows of ``width`` bytes on ``stream``
    (``cuMemcpy2DAsync``), with ``ctx`` current for the call and the caller's context restored
    after it: the staged operands' copy without a Python driver call per field."""
    cdef Memcpy2D cp
    cdef CUcontext before = NULL
    cdef CUresult r
    if _copy2d == NULL:
        load()
    memset(&cp, 0, sizeof(Memcpy2D))
    cp.srcMemoryType, cp.srcDevice, cp.srcPitch = MEMORYTYPE_DEVICE, src, src_pitch
    cp.dstMemoryType, cp.dstDevice, cp.dstPitch = MEMORYTYPE_DEVICE, dst, dst_pitch
    cp.WidthInBytes, cp.Height = width, height
    with nogil:
        r = _enter(<CUcontext>ctx, &before)
        if r == 0:
            r = _leave(<CUcontext>ctx, before, _copy2d(&cp, <CUstream>stream))
    if r != 0:
        raise CudaError(f"cuMemcpy2DAsync of {height} rows of {width} bytes (pitches {src_pitch} -> "
                        f"{dst_pitch}) failed: {_describe(r)}")


def current_context():
    """The calling thread's current CUDA context as an integer (0: none)."""
    cdef CUcontext ctx = NULL
    if _ctx_get == NULL:
        load()
    cdef CUresult r = _ctx_get(&ctx)
    if r != 0 and r != NOT_INITIALIZED:
        raise CudaError(f"cuCtxGetCurrent failed: {_describe(r)}")
    return <uintptr_t>ctx


@cython.final
cdef class Launcher:
    """One loaded GEMM kernel on one context: encodes its tensor maps and launches it.

    Parameters (all fixed per kernel): ``func`` and ``ctx`` (driver handles as integers),
    ``threads``, ``smem`` (dynamic shared-memory bytes), ``cluster`` (CTAs along x; ``cluster_n``
    of them take tile columns, the rest tile rows: ``cluster / cluster_n`` along M), and for A,
    B and D: the TMA data type code (:data:`TMA_DATA_TYPE`), element bytes, box
    ``(inner, outer)``, swizzle code and whether the operand is stored K-major (D: always
    row-major; ``d_map=False``: D is stored from registers and its map stays zero).
    """
    cdef CUfunction func
    cdef CUcontext ctx
    cdef unsigned int threads, smem, cluster
    cdef int dtype[3]
    cdef int esize[3]
    cdef uint32_t box[3][2]
    cdef int swizzle[3]
    cdef bint kmajor[2]
    cdef bint d_map
    cdef unsigned char storage[3 * 128 + 64]
    cdef TensorMap* maps
    cdef uint64_t keys[3][4]
    cdef bint cached[3]
    cdef fsw_mutex lock
    cdef unsigned int limit, bm, bn
    cdef unsigned int cluster_n

    def __init__(self, uintptr_t func, uintptr_t ctx, unsigned int threads, unsigned int smem,
                 unsigned int cluster, dtypes, esizes, boxes, swizzles, kmajor, bint d_map,
                 unsigned int bm=0, unsigned int bn=0, unsigned int limit=0, unsigned int cluster_n=1):
        load()
        self.func, self.ctx = <CUfunction>func, <CUcontext>ctx
        self.threads, self.smem, self.cluster = threads, smem, cluster
        # grid=0 in run(): clusters of output tiles (ceil(ceil(m/bm)/cluster_m) x
        # ceil(ceil(n/bn)/cluster_n)), at most `limit` of them (the SMs, or the clusters that fit at
        # once), times the cluster
        if cluster_n < 1 or cluster % cluster_n:
            raise ValueError(f"cluster_n={cluster_n} must divide the cluster's {cluster} CTAs")
        self.bm, self.bn, self.limit, self.cluster_n = bm, bn, limit, cluster_n
        for i in range(3):
            self.dtype[i], self.esize[i], self.swizzle[i] = dtypes[i], esizes[i], swizzles[i]
            self.box[i][0], self.box[i][1] = boxes[i][0], boxes[i][1]
            self.cached[i] = False
        self.kmajor[0], self.kmajor[1] = kmajor[0], kmajor[1]
        self.d_map = d_map
        self.maps = <TensorMap*>((<uintptr_t>self.storage + 63) & ~(<uintptr_t>63))
        memset(self.maps, 0, 3 * sizeof(TensorMap))

    cdef int _map(self, int i, uint64_t ptr, uint64_t inner, uint64_t outer, uint64_t ld,
                  TensorMap* out) except -1:
        cdef uint64_t dims[2]
        cdef uint64_t strides[1]
        cdef uint32_t estr[2]
        cdef CUresult r
        cdef uint64_t pitch = ld * <uint64_t>self.esize[i]
        FSW_LOCK(self.lock)
        if (self.cached[i] and self.keys[i][0] == ptr and self.keys[i][1] == inner
                and self.keys[i][2] == outer and self.keys[i][3] == ld):
            memcpy(out, &self.maps[i], sizeof(TensorMap))
            FSW_UNLOCK(self.lock)
            return 0
        FSW_UNLOCK(self.lock)
        if ptr % 16 or pitch % 16 or ld < inner:
            name = "abd"[i]
            raise GemmArgumentError(
                f"{name}: an {outer} x {inner} operand at 0x{ptr:x} with row pitch {ld} elements "
                f"({pitch} bytes): cuTensorMapEncodeTiled needs a 16-byte aligned base and a pitch "
                f"that is a multiple of 16 bytes and at least the row; gemm() copies such operands "
                f"into a padded buffer, GemmKernel.launch does not")
        dims[0], dims[1] = inner, outer
        strides[0] = pitch
        estr[0], estr[1] = 1, 1
        r = _encode(out, self.dtype[i], 2, <void*>ptr, dims, strides, self.box[i], estr, 0,
                    self.swizzle[i], _promotion(pitch), 0)
        if r != 0:
            raise CudaError(
                f"cuTensorMapEncodeTiled failed for {'ABD'[i]} ({outer} x {inner}, pitch {pitch} "
                f"bytes, box {self.box[i][0]} x {self.box[i][1]}, at 0x{ptr:x}): {_describe(r)}")
        FSW_LOCK(self.lock)
        memcpy(&self.maps[i], out, sizeof(TensorMap))
        self.keys[i][0], self.keys[i][1], self.keys[i][2], self.keys[i][3] = ptr, inner, outer, ld
        self.cached[i] = True
        FSW_UNLOCK(self.lock)
        return 0

    def run(self, uintptr_t stream, uint64_t a, uint64_t b, uint64_t d, int64_t m, int64_t n,
            int64_t k, int64_t lda, int64_t ldb, int64_t ldd, bytes params, unsigned int grid):
        """Encode (or reuse) the maps and launch ``grid`` CTAs on ``stream``; the context is
        made current for the launch and the caller's restored after it.

        ``params`` is the kernel's ``FswParams`` as bytes (``codegen.params_struct()``); its
        leading fields ``d, ldd, m, n, k`` (``codegen.PARAM_FIELDS``) are written here from the
        arguments, so a kernel without further fields passes the same zero bytes every call."""
        cdef TensorMap local[4]     # one spare: the aligned three start inside it
        cdef TensorMap* mp = <TensorMap*>((<uintptr_t>local + 63) & ~(<uintptr_t>63))
        cdef void* args[4]
        cdef uint64_t pbuf[64]      # FswParams, 8-byte aligned, at most 512 bytes
        cdef Py_ssize_t plen = len(params)
        cdef int64_t groups, cm
        if grid == 0:
            if self.bm == 0 or self.bn == 0 or self.limit == 0:
                raise ValueError("grid=0 needs the launcher's bm, bn and limit")
            cm = self.cluster // self.cluster_n
            groups = (((m + self.bm - 1) // self.bm + cm - 1) // cm
                      * (((n + self.bn - 1) // self.bn + self.cluster_n - 1) // self.cluster_n))
            grid = self.cluster * <unsigned int>(1 if groups < 1 else (self.limit if groups > self.limit else groups))
        if plen < 32 or plen > 512:
            raise ValueError(f"params holds {plen} bytes: FswParams is 32 to 512 bytes")
        memcpy(pbuf, <const char*>params, plen)
        pbuf[0] = d
        (<int64_t*>pbuf)[1] = ldd
        (<int*>pbuf)[4], (<int*>pbuf)[5], (<int*>pbuf)[6] = <int>m, <int>n, <int>k
        cdef CUresult r
        cdef LaunchConfig cfg
        cdef LaunchAttribute attr
        if self.kmajor[0]:
            self._map(0, a, k, m, lda, &mp[0])
        else:
            self._map(0, a, m, k, lda, &mp[0])
        if self.kmajor[1]:
            self._map(1, b, k, n, ldb, &mp[1])
        else:
            self._map(1, b, n, k, ldb, &mp[1])
        if self.d_map:
            self._map(2, d, n, m, ldd, &mp[2])
        else:
            memset(&mp[2], 0, sizeof(TensorMap))
        args[0], args[1], args[2] = &mp[0], &mp[1], &mp[2]
        args[3] = <void*>pbuf
        with nogil:
            # a cluster launch names its dimensions (x = the cluster's CTAs along M)
            r = _launch_in(self.ctx, self.func, grid, self.threads, self.smem, <CUstream>stream, args,
                           NULL if self.cluster == 1 else
                           _with_attribute(&cfg, &attr, CLUSTER_DIMENSION, self.cluster, 1, 1, grid,
                                           self.threads, self.smem, <CUstream>stream))
        if r != 0:
            raise CudaError(f"launching the GEMM kernel ({grid} CTAs of {self.threads} threads, "
                            f"{self.smem} bytes of shared memory) failed: {_describe(r)}")


def launch_plain(uintptr_t func, uintptr_t ctx, unsigned int grid, unsigned int threads,
                 unsigned int smem, uintptr_t stream, const unsigned char[::1] params, str what="a kernel",
                 bint dependent=False):
    """Launch ``func`` (a kernel whose one parameter is the packed ``params``, e.g. the split-K
    reduction's ``FswParams``) as ``grid`` CTAs of ``threads`` on ``stream``: no tensor maps, no
    cluster. ``dependent``: a programmatic dependent launch (CUDA programming guide, "Programmatic
    Dependent Launch"): the kernel may start before the one before it on the stream has finished,
    and must wait for it itself (``griddepcontrol.wait``, as the split-K reduction does), so its
    launch overlaps the kernel before instead of following its end. The context is made current
    for the launch and the caller's restored after it; errors raise :class:`CudaError` naming
    ``what``."""
    cdef void* args[1]
    cdef CUresult r
    cdef LaunchConfig cfg
    cdef LaunchAttribute attr
    load()
    args[0] = <void*>&params[0]
    with nogil:
        # programmaticStreamSerializationAllowed = 1 for a dependent launch
        r = _launch_in(<CUcontext>ctx, <CUfunction>func, grid, threads, smem, <CUstream>stream, args,
                       _with_attribute(&cfg, &attr, PROGRAMMATIC_SERIALIZATION, 1, 0, 0, grid,
                                       threads, smem, <CUstream>stream) if dependent else NULL)
    if r != 0:
        raise CudaError(f"launching {what} ({grid} CTAs of {threads} threads, {smem} bytes of "
                        f"shared memory) failed: {_describe(r)}")
