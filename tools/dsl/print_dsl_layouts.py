"""Print the CUTLASS Python DSL's own shared-memory layouts (sm90 warpgroup and sm100 tcgen05
atoms, and hopper_helpers.make_smem_layout_a/b over whole tiles), one per line as
``name<TAB>printed layout``, for docs/dialects/cute-dsl.md and tests/test_dialects.py.

Runs where ``nvidia-cutlass-dsl`` imports (no GPU needed: the layouts print while the function
is traced). Usage: python tools/dsl/print_dsl_layouts.py > tests/data/dsl_layouts.tsv
"""
import sys

import cutlass
import cutlass.cute as cute
from cutlass.cute.nvgpu import tcgen05, warpgroup
import cutlass.utils.hopper_helpers as sm90
from cutlass.tensor_utils import LayoutEnum

DTYPES = {"f16": cutlass.Float16, "bf16": cutlass.BFloat16, "e4m3": cutlass.Float8E4M3FN,
          "tf32": cutlass.TFloat32}
LINES = []


@cute.jit
def trace():
    for name, dt in DTYPES.items():
        for kind in warpgroup.SmemLayoutAtomKind:
            LINES.append((f"sm90 atom {kind.name} {name}", str(warpgroup.make_smem_layout_atom(kind, dt))))
        for kind in tcgen05.SmemLayoutAtomKind:
            LINES.append((f"sm100 atom {kind.name} {name}", str(tcgen05.make_smem_layout_atom(kind, dt))))
    for name in ("bf16", "e4m3"):
        for lay in (LayoutEnum.ROW_MAJOR, LayoutEnum.COL_MAJOR):
            for mnk in ((128, 128, 64), (64, 256, 128)):
                a = sm90.make_smem_layout_a(lay, mnk, DTYPES[name], 1)
                b = sm90.make_smem_layout_b(lay, mnk, DTYPES[name], 1)
                LINES.append((f"sm90 make_smem_layout_a {lay.name} {mnk} {name} stages=1", str(a)))
                LINES.append((f"sm90 make_smem_layout_b {lay.name} {mnk} {name} stages=1", str(b)))


if __name__ == "__main__":
    try:
        cute.compile(trace)
    except Exception as exc:  # the layouts are printed while tracing; compiling may need a GPU
        print(f"# compile after tracing: {type(exc).__name__}: {str(exc)[:200]}", file=sys.stderr)
    print(f"# nvidia-cutlass-dsl {getattr(cutlass, '__version__', '?')}")
    for name, text in LINES:
        print(f"{name}\t{text}")
