"""fastswz's GEMM as PyTorch operators, for ``torch.compile`` and CUDA graphs (needs torch).

``import fastswz.cuda.torch`` registers two ``torch.library`` custom operators with fake
(meta) implementations, so a function that calls them compiles with
``torch.compile(fullgraph=True)`` and captures in ``torch.cuda.graph``:

- ``torch.ops.fastswz.gemm(a, b, out_dtype=None) -> Tensor`` (also :func:`gemm` here),
- ``torch.ops.fastswz.gemm_out(a, b, out) -> ()``, which writes ``out`` (:func:`gemm_out`).

Both call :func:`fastswz.cuda.gemm` on the current stream. Plain calls of
:func:`fastswz.cuda.gemm` need none of this; the operators cost torch's dispatcher on top.
Neither records autograd: the product is not differentiable through them.

Examples
--------
>>> import torch, fastswz.cuda.torch as ft            # doctest: +SKIP
>>> f = torch.compile(lambda a, w: ft.gemm(a, w.t()), fullgraph=True)   # doctest: +SKIP
"""

from __future__ import annotations

from typing import Optional

import torch

from . import default_out_dtype
from . import gemm as _gemm
from .errors import GemmArgumentError

__all__ = ["gemm", "gemm_out"]

_NAMES = {torch.bfloat16: "bf16", torch.float16: "f16", torch.float32: "f32",
          torch.float8_e4m3fn: "e4m3", torch.float8_e5m2: "e5m2"}
_TORCH = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}


def _out_dtype(a, out_dtype):
    if out_dtype is not None:
        return out_dtype
    name = _NAMES.get(a.dtype)
    if name is None:
        raise GemmArgumentError(f"a holds {a.dtype}: fastswz multiplies "
                                f"{', '.join(str(t) for t in _NAMES)}")
    return _TORCH[default_out_dtype(name)]


def _check_shapes(a, b):
    if a.dim() != 2 or b.dim() != 2 or a.shape[1] != b.shape[0]:
        raise GemmArgumentError(f"a is {tuple(a.shape)} and b is {tuple(b.shape)}: the GEMM takes "
                                f"2-D matrices with a's columns equal to b's rows (K)")


@torch.library.custom_op("fastswz::gemm", mutates_args=(), device_types="cuda")
def gemm(a: torch.Tensor, b: torch.Tensor, out_dtype: Optional[torch.dtype] = None) -> torch.Tensor:
    """D = A @ B with a fastswz kernel (see :func:`fastswz.cuda.gemm`); a new tensor."""
    od = _out_dtype(a, out_dtype)
    name = _NAMES.get(od)
    return _gemm(a, b, out_dtype=name if name is not None else str(od))


@gemm.register_fake
def _gemm_fake(a, b, out_dtype=None):
    _check_shapes(a, b)
    return a.new_empty((a.shape[0], b.shape[1]), dtype=_out_dtype(a, out_dtype))


@torch.library.custom_op("fastswz::gemm_out", mutates_args=("out",), device_types="cuda")
def gemm_out(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor) -> None:
    """``out[:] = A @ B`` with a fastswz kernel (see :func:`fastswz.cuda.gemm`)."""
    _gemm(a, b, out=out)


@gemm_out.register_fake
def _gemm_out_fake(a, b, out):
    _check_shapes(a, b)
    if tuple(out.shape) != (a.shape[0], b.shape[1]):
        raise GemmArgumentError(f"out has shape {tuple(out.shape)}: it must be "
                                f"({a.shape[0]}, {b.shape[1]})")
    return None
