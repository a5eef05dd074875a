"""Canonical tensor-core operand tiles in shared memory.

An :class:`OperandTile` is an MN x K operand (A is M x K, B is N x K) stored as CuTe stores
it: one swizzle atom (PTX 9.7.15.5.1.2, 9.7.16.3; CUTLASS ``GMMA::Layout_*_Atom`` and
``UMMA::Layout_*_Atom``) repeated over the tile by ``tile_to_shape``, MN atoms first
(``order="mn"``, CuTe's default) or K atoms first (``order="k"``, the TMA-box order of
DeepGEMM and ThunderKittens). Element (mn, k) lives at byte address
``swz(start + E * L(mn, k))`` where ``L`` is the unswizzled element layout, ``E`` the element
size and ``swz`` the mode's byte swizzle, applied to the *absolute* address as the hardware and
CuTe do (NOTES 10, 11).

Geometry, in elements (T = 16 bytes / E, S = swizzle row bytes, W = S / 16):

======  ===========================  =============================================
major   atom (mn x k)                canonical layout (PTX, u128 units)
======  ===========================  =============================================
K       8 x S/E                      ((8,m),(T,2k)) : ((W T, SBO),(1, LBO or T))
MN      S/E x 8 (x 4 for base32B)    ((T,W,m),(8,k)) : ((1,T,LBO),(W T, SBO))
======  ===========================  =============================================
"""

from __future__ import annotations

from .algebra import recast, tile_to_shape
from .bulk import tile_addresses, tile_coords, tile_descriptors
from .descriptor import SmemDescriptorSM90, SmemDescriptorSM100
from .dtypes import DType, dtype as _dtype
from .errors import TileError
from .layout import Layout
from .modes import SwizzleMode
from .rules import (ARCHS, LBO_POLICIES, ORDERS, SMEM_WINDOW, SWIZZLE_BASES, _check_legal, _choice,
                    _int, _storage_bits, check_stride_fields)
from .swizzle import ComposedLayout, Swizzle

__all__ = ["OperandTile", "ARCHS", "ORDERS", "SWIZZLE_BASES", "LBO_POLICIES"]


class OperandTile:
    """An MN x K tensor-core operand tile in a canonical shared-memory layout.

    Parameters
    ----------
    dtype : str or DType
        Element type: ``"f16"``, ``"bf16"``, ``"tf32"``, ``"f32"``, ``"e4m3"``, ``"e5m2"``,
        ``"s8"``, ``"u8"``.
    major : {"K", "MN"}
        Which extent is contiguous in memory. wgmma reads MN-major only for 16-bit types.
    swizzle : str or SwizzleMode
        ``"none"`` (interleave), ``"32B"``, ``"64B"``, ``"128B"``, or ``"128B_base32B"`` (sm100,
        MN-major 32-bit types only).
    mn, k : int
        Tile extents in elements; whole swizzle atoms, and K whole 32-byte MMA steps.
    order : {"mn", "k"}
        Order in which atoms tile the tile: MN first (CuTe ``tile_to_shape`` default) or K
        first (TMA box / DeepGEMM). LBO/SBO and the map differ between them.
    arch : {"sm90", "sm100", "sm103"}
        Target: wgmma (sm_90a) or tcgen05 (sm_100a; sm_103a adds the absolute-address LBO mode);
        decides legality and the descriptor.
    packed : bool, keyword-only
        Sub-byte types only. ``False`` (default): one element per byte, the form kind::f8f6f4
        reads (CUTLASS ``*_unpacksmem_t``). ``True``: 4-bit e2m1 packed two per byte, the form
        kind::mxf4 / mxf4nvf4 read; byte maps then hold the byte of each element, the low nibble
        for even k and the high nibble for odd k.
    inst_k : int, keyword-only
        Elements of K per MMA (per descriptor). Default 32 bytes' worth; ``96`` for packed e2m1
        (kind::mxf4 K = 96, 48-byte blocks: a block that would cross a 128-byte swizzle row is
        split with the absolute-address LBO mode, sm_103a only).

    Examples
    --------
    >>> t = OperandTile("bf16", "K", "128B", 64, 64)
    >>> str(t.layout)
    'Sw<3,3,3> o 0 o ((8,8),(64,1)):((64,512),(1,0))'
    >>> t.lbo_bytes, t.sbo_bytes
    (16, 1024)
    >>> hex(int(t.descriptor(start=0x400)))
    '0x4000004000010040'
    >>> [hex(d) for d in t.descriptors(start=0x400)[0]]
    ['0x4000004000010040', '0x4000004000010042', '0x4000004000010044', '0x4000004000010046']
    >>> int(t.addresses(start=0x400)[3, 10]) == 0x5A4
    True
    """

    __slots__ = ("dtype", "major", "swizzle", "mn", "k", "order", "arch", "packed", "inst_k", "_g",
                 "_cache")

    def __init__(self, dtype, major, swizzle, mn, k, order="mn", arch="sm90", *, packed=False,
                 inst_k=None):
        dt = _dtype(dtype)
        major = _choice("major", major, ("K", "MN"))
        mode = SwizzleMode.parse(swizzle)
        mn = _int("mn", mn, 1)
        k = _int("k", k, 1)
        order = _choice("order", order, ORDERS)
        arch = _choice("arch", arch, ARCHS)
        _check_legal(dt, major, mode, arch)
        bits = _storage_bits(dt, packed)
        inst_k = _inst_k(dt, bits, mode, major, inst_k)
        width = mode.byte_width
        if major == "K":
            amn, ak = 8, width * 8 // bits
        else:
            amn, ak = width * 8 // bits, mode.atom_rows
        if mn % amn:
            raise TileError(
                f"mn={mn} is not a whole number of {major}-major {mode} atoms: the atom is "
                f"{amn} x {ak} {dt} elements (mn x k), so mn must be a multiple of {amn}")
        if k % ak:
            raise TileError(
                f"k={k} is not a whole number of {major}-major {mode} atoms: the atom is "
                f"{amn} x {ak} {dt} elements (mn x k), so k must be a multiple of {ak}")
        if k % inst_k:
            raise TileError(
                f"k={k} is not a whole number of MMA K steps: one {dt} MMA reads "
                f"{inst_k * bits // 8} bytes = {inst_k} elements of K, so k must be a multiple of {inst_k}")
        object.__setattr__(self, "dtype", dt)
        object.__setattr__(self, "major", major)
        object.__setattr__(self, "swizzle", mode)
        object.__setattr__(self, "mn", mn)
        object.__setattr__(self, "k", k)
        object.__setattr__(self, "order", order)
        object.__setattr__(self, "arch", arch)
        object.__setattr__(self, "packed", bool(packed))
        object.__setattr__(self, "inst_k", inst_k)
        n_mn, n_k = mn // amn, k // ak
        atom = amn * ak
        smn, sk = (atom, atom * n_mn) if order == "mn" else (atom * n_k, atom)
        object.__setattr__(self, "_g", _Geometry(bits, amn, ak, n_mn, n_k, smn, sk, major == "K"))
        object.__setattr__(self, "_cache", {})

    def __setattr__(self, name, value):
        raise AttributeError("OperandTile is immutable")

    # -- identity -----------------------------------------------------------------------------
    def _key(self):
        return (self.dtype.name, self.major, self.swizzle, self.mn, self.k, self.order, self.arch,
                self.packed, self.inst_k)

    def __eq__(self, other):
        return isinstance(other, OperandTile) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        extra = ", packed=True" if self.packed else ""
        if self.inst_k != 256 // self._g.ebits:
            extra += f", inst_k={self.inst_k}"
        return (f"OperandTile({self.dtype.name!r}, {self.major!r}, {self.swizzle.value!r}, "
                f"{self.mn}, {self.k}, order={self.order!r}, arch={self.arch!r}{extra})")

    # -- geometry -------------------------------------------------------------------------------
    @property
    def element_bits(self) -> int:
        """Bits one element occupies in shared memory (8 for unpacked sub-byte types)."""
        return self._g.ebits

    @property
    def element_bytes(self) -> int:
        """Bytes per element; raises for packed 4-bit tiles, whose elements share bytes."""
        if self._g.ebits < 8:
            raise TileError(f"{self!r} packs two elements per byte; use element_bits")
        return self._g.ebits // 8

    @property
    def desc_arch(self) -> str:
        """Descriptor format: "sm90" (wgmma) or "sm100" (tcgen05, also for sm103)."""
        return "sm90" if self.arch == "sm90" else "sm100"

    @property
    def atom_shape(self) -> "tuple[int, int]":
        """(mn, k) extent of one swizzle atom, in elements."""
        return (self._g.amn, self._g.ak)

    @property
    def nbytes(self) -> int:
        """Bytes the tile occupies (it is compact: no holes)."""
        return self.mn * self.k * self._g.ebits // 8

    @property
    def atom(self):
        """The unswizzled element layout of one atom, as a :class:`fastswz.Layout`."""
        g = self._g
        if g.kmajor:
            return Layout((8, g.ak), (g.ak, 1))
        return Layout((g.amn, g.ak), (1, g.amn))

    @property
    def layout(self):
        """The tile as CuTe builds it, in element units (position-independent form).

        ``tile_to_shape(atom, (mn, k), order)`` composed with the element-unit swizzle (the byte
        swizzle upcast by the element size, NOTES 1). It gives element offsets from a tile start
        on the swizzle pattern boundary; :meth:`addresses` handles any start.
        """
        if "layout" not in self._cache:
            order = (0, 1) if self.order == "mn" else (1, 0)
            inner = tile_to_shape(self.atom, (self.mn, self.k), order)
            sw = recast(Swizzle(*self.swizzle.swizzle_bits), 8, self._g.ebits)
            self._cache["layout"] = ComposedLayout(sw, 0, inner)
        return self._cache["layout"]

    def offset(self, mn: int, k: int) -> int:
        """Unswizzled byte offset of element (mn, k) from the tile start (CuTe's layout value).

        For packed 4-bit tiles: the byte holding the element (low nibble for even k)."""
        g = self._g
        return g.bytes(g.row(mn) + g.col(k))

    def address(self, mn: int, k: int, start: int = 0, swizzle_base: str = "absolute") -> int:
        """Byte address of one element: the scalar twin of :meth:`addresses`."""
        self.check_start(start, swizzle_base, self.nbytes, 1 << 32)
        mn, k = _int("mn", mn), _int("k", k)
        if not (0 <= mn < self.mn and 0 <= k < self.k):
            raise TileError(f"(mn, k)=({mn}, {k}) is outside the {self.mn} x {self.k} tile")
        b, m, s = self.swizzle.swizzle_bits
        yyy = ((1 << b) - 1) << (m + s)
        off = self.offset(mn, k)
        if _choice("swizzle_base", swizzle_base, SWIZZLE_BASES) == "relative":
            return start + (off ^ ((off & yyy) >> s))
        a = start + off
        return a ^ ((a & yyy) >> s)

    # -- descriptor strides -----------------------------------------------------------------------
    def strides(self, inst_mn=None, lbo_policy="cutlass") -> "tuple[int, int]":
        """``(LBO, SBO)`` in bytes for MMA sub-tiles of ``inst_mn`` x ``inst_k`` elements.

        Follows CuTe's ``make_gmma_desc``/``make_umma_desc``: the canonical strides of the
        sub-tile in 16-byte units; a mode with a single step (one atom along MN, or one 8-row
        K group) is degenerate and encodes 0 (NOTES 2, 11). K-major swizzled LBO is unused by
        the hardware: 16 under ``lbo_policy="cutlass"``, 0 under ``"deepgemm"``.
        """
        inst_mn = self.check_inst_mn(inst_mn)
        lbo_policy = _choice("lbo_policy", lbo_policy, LBO_POLICIES)
        key = ("strides", inst_mn, lbo_policy)
        if key not in self._cache:
            self._cache[key] = self._strides(inst_mn, lbo_policy)
        return self._cache[key]

    def _strides(self, inst_mn, lbo_policy):
        g, mode = self._g, self.swizzle
        e = g.ebits / 8  # exact: every stride below is a whole number of 16-byte chunks
        if g.kmajor:
            # SBO: 8-row group to the next (PTX 9.7.15.5.1.2.1.2). The atom is 8 rows tall.
            sbo = g.smn * e if inst_mn > 8 else 0
            if mode.is_swizzled:
                lbo = 16 if lbo_policy == "cutlass" else 0
            else:
                # Interleave: K-adjacent core matrices; an MMA always spans two (32 B of K).
                lbo = g.sk * e
            return int(lbo), int(sbo)
        mn_step = g.smn * e if inst_mn > g.amn else 0
        k_step = g.sk * e if self.inst_k > g.ak else 0
        mn_step, k_step = int(mn_step), int(k_step)
        if mode.is_swizzled:
            return mn_step, k_step  # LBO along MN atoms, SBO along K row groups
        return k_step, mn_step  # interleave swaps the roles (PTX 9.7.15.5.1.2.1.1, NOTES 7.2)

    @property
    def lbo_bytes(self) -> int:
        """LBO in bytes for one MMA over the whole MN extent (CUTLASS policy)."""
        return self.strides()[0]

    @property
    def sbo_bytes(self) -> int:
        """SBO in bytes for one MMA over the whole MN extent."""
        return self.strides()[1]

    # -- validation shared by the fast path and the numpy twin ------------------------------------
    def check_inst_mn(self, inst_mn) -> int:
        """Validate the MMA's MN extent per descriptor; ``None`` means the whole tile."""
        if inst_mn is None:
            inst_mn = self.mn
        inst_mn = _int("inst_mn", inst_mn, 1)
        g = self._g
        if self.mn % inst_mn:
            raise TileError(f"inst_mn={inst_mn} does not divide the tile's mn={self.mn}")
        if g.kmajor and inst_mn % 8:
            raise TileError(
                f"inst_mn={inst_mn} is not a multiple of 8: K-major canonical layouts are built "
                f"of 8-row core matrices ((8,m),(T,2k))")
        if not g.kmajor and inst_mn % g.amn:
            raise TileError(
                f"inst_mn={inst_mn} is narrower than / not a multiple of one MN-major "
                f"{self.swizzle} atom ({g.amn} {self.dtype} elements); the canonical layout "
                f"((T,W,m),(8,k)) needs a multiple of {g.amn}: use a narrower swizzle or a "
                f"larger MMA N")
        return inst_mn

    def check_start(self, start, swizzle_base, span, limit):
        """Validate a tile start address (16-byte aligned, the tile inside [0, limit))."""
        start = _int("start", start, 0)
        base = _choice("swizzle_base", swizzle_base, SWIZZLE_BASES)
        if base == "relative" and self.swizzle.is_swizzled and start % 128:
            raise TileError(
                f"start=0x{start:x} with swizzle_base='relative' is not on a 128-byte line: "
                f"base_offset can shift the swizzle pattern only by whole 128-byte lines (seen on "
                f"H100, docs/CONFORMANCE.md); use swizzle_base='absolute' (any 16-byte-aligned "
                f"start) or a start that is a multiple of 128 such as 0x{start & ~127:x}")
        if start % 16:
            raise TileError(
                f"start=0x{start:x} is not 16-byte aligned: shared-memory matrix addresses are "
                f"16-byte units (PTX matrix-descriptor-encode); round to 0x{start & ~15:x}")
        if start + span > limit:
            raise TileError(
                f"start=0x{start:x} + {span} bytes ends past 0x{limit:x}"
                + (": descriptors address the 256 KiB shared window with 14-bit fields; "
                   "use a start below 0x{:x}".format(max(limit - span, 0))
                   if limit == SMEM_WINDOW else ": addresses are uint32"))
        return start

    # -- bulk entry points -----------------------------------------------------------------------
    def addresses(self, start=0, swizzle_base="absolute", threads=None, out=None):
        """Absolute byte address of every element, as a ``uint32`` array of shape (mn, k).

        See :func:`fastswz.tile_addresses`.
        """
        return tile_addresses(self, start, swizzle_base, threads, out)

    def coords(self, addresses, start=0, swizzle_base="absolute"):
        """Inverse map: ``(mn, k)`` int64 arrays for byte addresses. See :func:`fastswz.tile_coords`."""
        return tile_coords(self, addresses, start, swizzle_base)

    def descriptors(self, start=0, inst_mn=None, swizzle_base="absolute", lbo_policy="cutlass",
                    stages=None, stage_stride=None):
        """Descriptors of every MMA sub-tile. See :func:`fastswz.tile_descriptors`."""
        return tile_descriptors(self, start, inst_mn, swizzle_base, lbo_policy, stages, stage_stride)

    def descriptor(self, mn0=0, k0=0, start=0, inst_mn=None, swizzle_base="absolute",
                   lbo_policy="cutlass"):
        """The descriptor of the ``inst_mn`` x ``inst_k`` sub-tile whose first element is (mn0, k0).

        Returns a :class:`fastswz.SmemDescriptorSM90` (arch sm90) or
        :class:`fastswz.SmemDescriptorSM100`; ``int()`` gives the 64-bit value.
        """
        # Hot path (autotuners call this millions of times): the per-tile work is cached in a
        # plan, the common arguments are checked with cheap tests and only fall through to the
        # full validators when something looks wrong.
        if (inst_mn is None or type(inst_mn) is int) and type(lbo_policy) is str:
            plan = self._cache.get((inst_mn, lbo_policy))
            if plan is None:
                plan = self._cache[(inst_mn, lbo_policy)] = self._descriptor_plan(inst_mn, lbo_policy)
        else:  # validated (and refused or normalised) without touching the cache
            plan = self._descriptor_plan(inst_mn, lbo_policy)
        inst_mn, lbo, sbo, cls, split, last_start, amn, rm, smn, ak, cm, sk, ebits = plan
        if type(start) is not int or start & 15 or start < 0 or start > last_start:
            start = self.check_start(start, swizzle_base, self.nbytes, SMEM_WINDOW)
        if type(swizzle_base) is str and swizzle_base == "absolute":
            base_offset = 0
        else:
            start = self.check_start(start, swizzle_base, self.nbytes, SMEM_WINDOW)
            base_offset = (start >> 7) & 7 if self.swizzle.is_swizzled else 0
        if type(mn0) is not int or type(k0) is not int:
            mn0, k0 = _int("mn0", mn0), _int("k0", k0)
        if mn0 % inst_mn or not 0 <= mn0 < self.mn:
            raise TileError(f"mn0={mn0} must be a multiple of inst_mn={inst_mn} inside mn={self.mn}")
        if k0 % self.inst_k or not 0 <= k0 < self.k:
            raise TileError(f"k0={k0} must be a multiple of inst_k={self.inst_k} inside k={self.k}")
        addr = start + ((mn0 % amn * rm + mn0 // amn * smn + k0 % ak * cm + k0 // ak * sk) * ebits >> 3)
        if split:
            chunk2 = self.k_split(mn0, k0, start, base_offset)
            if chunk2 is not None:
                return cls._trusted(addr, chunk2, sbo, 0, self.swizzle, 1)
        return cls._trusted(addr, lbo, sbo, base_offset, self.swizzle)

    @property
    def _split_k(self):
        return self.inst_k * self._g.ebits == 384 and self.swizzle is SwizzleMode.B128

    def k_split(self, mn0, k0, start, base_offset=0):
        """Absolute address of the second chunk of a 48-byte K block that crosses a 128-byte row.

        ``None`` when the block at (mn0, k0) fits its row. PTX 9.7.16.3.1.2: the chunk after the
        row boundary is where K continues, the first row of the next K atom; the descriptor's
        LBO field then holds that absolute address (lbo_mode = 1), which needs sm_103a, the
        128B swizzle, K-major and base_offset 0.
        """
        g = self._g
        row_byte = g.bytes(k0 % g.ak)
        if row_byte + 48 <= 128:
            return None
        if self.arch != "sm103":
            raise TileError(
                f"the 48-byte K block at k0={k0} crosses a 128-byte swizzle row; splitting it needs "
                f"the absolute-address LBO mode (descriptor bit 52), which PTX supports on sm_103a "
                f"only: use arch='sm103', or inst_k=64")
        if base_offset:
            raise TileError(
                f"the split K block at k0={k0} needs base_offset 0 (PTX 9.7.16.3.1.2.1); use "
                f"swizzle_base='absolute' or a start on the 1024-byte pattern boundary")
        nxt = (k0 // g.ak + 1) * g.ak
        return start + g.bytes(g.row(mn0) + g.col(nxt))

    def _descriptor_plan(self, inst_mn, lbo_policy):
        inst_mn = self.check_inst_mn(inst_mn)
        lbo, sbo = self.strides(inst_mn, lbo_policy)
        check_stride_fields(lbo, sbo)
        cls = SmemDescriptorSM90 if self.arch == "sm90" else SmemDescriptorSM100
        g = self._g
        rm, cm = (g.ak, 1) if g.kmajor else (1, g.amn)
        return (inst_mn, lbo, sbo, cls, self._split_k, SMEM_WINDOW - self.nbytes,
                g.amn, rm, g.smn, g.ak, cm, g.sk, g.ebits)


class _Geometry:
    """Element-unit geometry of a canonical tile; row(i) + col(j) is CuTe's layout value."""

    __slots__ = ("ebits", "amn", "ak", "n_mn", "n_k", "smn", "sk", "kmajor")

    def __init__(self, ebits, amn, ak, n_mn, n_k, smn, sk, kmajor):
        self.ebits, self.amn, self.ak = ebits, amn, ak
        self.n_mn, self.n_k, self.smn, self.sk, self.kmajor = n_mn, n_k, smn, sk, kmajor

    def bytes(self, elems):
        return elems * self.ebits >> 3

    def row(self, i):
        q, r = divmod(i, self.amn)
        return (r * self.ak if self.kmajor else r) + q * self.smn

    def col(self, j):
        q, r = divmod(j, self.ak)
        return (r if self.kmajor else r * self.amn) + q * self.sk

    def modes(self):
        """(shape, element stride, mn multiplier, k multiplier) of the four modes."""
        if self.kmajor:
            return [(self.amn, self.ak, 1, 0), (self.n_mn, self.smn, self.amn, 0),
                    (self.ak, 1, 0, 1), (self.n_k, self.sk, 0, self.ak)]
        return [(self.amn, 1, 1, 0), (self.n_mn, self.smn, self.amn, 0),
                (self.ak, self.amn, 0, 1), (self.n_k, self.sk, 0, self.ak)]


def _inst_k(dt: DType, bits: int, mode: SwizzleMode, major: str, inst_k) -> int:
    default = 256 // bits
    if inst_k is None:
        return default
    inst_k = _int("inst_k", inst_k, 1)
    if inst_k == default:
        return default
    if bits != 4 or inst_k != 96:
        raise TileError(
            f"inst_k={inst_k} is not an MMA K for {dt} ({bits}-bit in shared memory): every MMA "
            f"reads 32 bytes = {default} elements, except kind::mxf4 K = 96 on packed e2m1 "
            f"(packed=True, inst_k=96)")
    if mode not in (SwizzleMode.NONE, SwizzleMode.B128):
        raise TileError(
            f"inst_k=96 with swizzle={mode}: a 48-byte K block does not fit a {mode.byte_width}-byte "
            f"swizzle row, and the absolute-address LBO mode that splits it exists for 128B only "
            f"(PTX 9.7.16.3.1.2.1); use 128B or none")
    return inst_k
