"""fastswz: where each element of a tensor-core operand lives in shared memory, and the
descriptors the hardware must be handed, bit-exactly and fast.

The layout language is CuTe's (``Layout``, ``Swizzle``, ``ComposedLayout`` and the algebra);
:class:`OperandTile` knows the canonical wgmma/tcgen05 layouts; the descriptor classes pack and
unpack the 64-bit shared-memory descriptors and the tcgen05 instruction descriptor; the array
functions run in a Cython core, with pure-numpy twins in :mod:`fastswz.reference`.
"""

from .blockscaled import InstrDescriptorBlockScaled
from .bulk import (CONFIG_ERRORS, evaluate, pack_smem_descriptors, swizzle_offsets, tile_addresses,
                   tile_configs, tile_coords, tile_descriptors, unpack_smem_descriptors)
from .descriptor import InstrDescriptorSM100, SmemDescriptorSM90, SmemDescriptorSM100, decode
from .dtypes import DTYPES, DType, dtype
from .errors import (DescriptorFieldError, FastswzError, FastswzTypeError, LayoutError,
                     ParseError, TileError)
from .layout import (Layout, blocked_product, ceil_div, coalesce, complement, composition,
                     congruent, cosize, crd2crd, crd2idx, depth, downcast, elem_scale, filter,
                     flat_divide, flat_product, flatten, has_none, idx2crd, inner_product, is_int,
                     is_tuple, left_inverse, logical_divide, logical_product, make_layout,
                     make_ordered_layout, max_common_layout, max_common_vector, parse,
                     prefix_product, product, raked_product, rank, recast, right_inverse,
                     shape_div, size, slice_, slice_and_offset, tile_to_shape, tiled_divide,
                     tiled_product, upcast, zipped_divide, zipped_product)
from .modes import SwizzleMode
from .swizzle import ComposedLayout, Swizzle, make_composed_layout
from .tile import OperandTile
from .errors import PlanError
from .plan import PLAN_ERRORS, GemmPlans, plan_gemm, plan_reason
from .tune import tune
from .emit import emit, emit_header, emit_json, emit_python

__version__ = "0.1.0"

__all__ = [
    "OperandTile", "SwizzleMode", "DType", "DTYPES", "dtype",
    "SmemDescriptorSM90", "SmemDescriptorSM100", "InstrDescriptorSM100", "InstrDescriptorBlockScaled",
    "decode",
    "evaluate", "swizzle_offsets", "tile_addresses", "tile_coords", "tile_descriptors",
    "pack_smem_descriptors", "unpack_smem_descriptors", "tile_configs", "CONFIG_ERRORS",
    "Layout", "Swizzle", "ComposedLayout", "make_composed_layout", "parse",
    "FastswzError", "FastswzTypeError", "LayoutError", "ParseError", "TileError",
    "DescriptorFieldError",
    "blocked_product", "ceil_div", "coalesce", "complement", "composition", "congruent", "cosize",
    "crd2crd", "crd2idx", "depth", "downcast", "elem_scale", "filter", "flat_divide",
    "flat_product", "flatten", "has_none", "idx2crd", "inner_product", "is_int", "is_tuple",
    "left_inverse", "logical_divide", "logical_product", "make_layout", "make_ordered_layout",
    "max_common_layout", "max_common_vector", "prefix_product", "product", "raked_product",
    "rank", "recast", "right_inverse", "shape_div", "size", "slice_", "slice_and_offset",
    "tile_to_shape", "tiled_divide", "tiled_product", "upcast", "zipped_divide", "zipped_product",
    "PlanError", "PLAN_ERRORS", "GemmPlans", "plan_gemm", "plan_reason", "tune", "emit", "emit_header",
    "emit_json", "emit_python",
]
