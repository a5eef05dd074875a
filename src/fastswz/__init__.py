"""fastswz: where each element of a tensor-core operand lives in shared memory, and the
descriptors the hardware must be handed, bit-exactly and fast.

The layout language is CuTe's (``Layout``, ``Swizzle``, ``ComposedLayout`` and the algebra);
:class:`OperandTile` knows the canonical wgmma/tcgen05 layouts; the descriptor classes pack and
unpack the 64-bit shared-memory descriptors and the tcgen05 instruction descriptor; the array
functions run in a Cython core, with pure-numpy twins in :mod:`fastswz.reference`.
"""

from ._version import __version__  # noqa: F401 - the one version source
from .algebra import (blocked_product, coalesce, complement, composition, downcast, filter,
                      flat_divide, flat_product, left_inverse, logical_divide, logical_product,
                      make_ordered_layout, max_common_layout, max_common_vector, raked_product,
                      recast, right_inverse, slice_and_offset, tile_to_shape, tiled_divide,
                      tiled_product, upcast, zipped_divide, zipped_product)
from .banks import bank_wavefronts, best_swizzle, ideal_wavefronts, matrix_wavefronts, pattern_scores
from .blockscaled import InstrDescriptorBlockScaled
from .bulk import (CONFIG_ERRORS, evaluate, pack_smem_descriptors, swizzle_offsets, tile_addresses,
                   tile_configs, tile_coords, tile_descriptors, unpack_smem_descriptors)
from .descriptor import InstrDescriptorSM100, SmemDescriptorSM90, SmemDescriptorSM100, decode
from .draw import draw_layout, draw_tile, show_layout, show_tile
from .doctor import check_descriptors, consistent_tiles
from .dtypes import DTYPES, DType, dtype
from .errors import (BankError, DescriptorFieldError, FastswzError, FastswzTypeError, LayoutError,
                     ParseError, TileError)
from .int_tuple import (ceil_div, congruent, crd2crd, crd2idx, elem_scale, flatten, has_none,
                        idx2crd, inner_product, is_int, is_tuple, prefix_product, product,
                        shape_div, slice_)
from .layout import Layout, cosize, depth, make_layout, rank, size
from .modes import SwizzleMode
from .notation import parse
from .swizzle import ComposedLayout, Swizzle, make_composed_layout
from .tile import OperandTile
from .linear import LinearLayout, from_linear_layout, linear_evaluate, to_linear_layout
from .errors import MeasureError, PlanError
from .plan import PLAN_ERRORS, GemmPlans, plan_gemm, plan_reason
from .tune import TuneModel, score_plans, tune
from .emit import emit, emit_header, emit_json, emit_python


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
    "bank_wavefronts", "ideal_wavefronts", "matrix_wavefronts", "best_swizzle", "pattern_scores",
    "BankError",
    "LinearLayout", "to_linear_layout", "from_linear_layout", "linear_evaluate",
    "PlanError", "PLAN_ERRORS", "GemmPlans", "plan_gemm", "plan_reason", "tune", "emit", "emit_header",
    "emit_json", "emit_python",
]
__all__ += ["draw_tile", "draw_layout", "show_tile", "show_layout"]
__all__ += ["check_descriptors", "consistent_tiles"]
from .errors import FragmentError
from .tv_layout import (TVLayout, fragment, ldmatrix, mma_sync, stmatrix, tcgen05_ld, tcgen05_st, tmem_accumulator,
                        tmem_fragment, tv_coords, tv_inverse, wgmma_a, wgmma_d, wgmma_d_coords)
from .draw import draw_fragment, show_fragment
__all__ += ["FragmentError", "TVLayout", "fragment", "draw_fragment", "show_fragment", "mma_sync", "wgmma_d", "wgmma_a", "wgmma_d_coords", "ldmatrix",
            "stmatrix", "tmem_accumulator", "tcgen05_ld", "tcgen05_st", "tmem_fragment", "tv_coords",
            "tv_inverse"]
__all__ += ["TuneModel", "score_plans", "MeasureError"]
