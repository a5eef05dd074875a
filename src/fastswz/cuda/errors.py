"""Errors of the GPU runtime (:mod:`fastswz.cuda`), part of the :class:`~fastswz.FastswzError`
family. They live here, not in :mod:`fastswz.errors`, because only the optional runtime raises
them (a GPU, a driver or NVRTC is involved); docs/cuda.md lists them."""

from __future__ import annotations

from ..errors import FastswzError

__all__ = ["CudaError", "CudaUnavailableError", "GemmArgumentError"]


class CudaError(FastswzError, RuntimeError):
    """The optional GPU runtime (:mod:`fastswz.cuda`) failed: a compile error (with the NVRTC
    log), a driver call that returned an error, or a launch that faulted."""


class CudaUnavailableError(CudaError):
    """The GPU runtime cannot run here: the ``cuda`` extra is not installed, no GPU is visible,
    or the GPU is not the architecture the plan targets."""


class GemmArgumentError(FastswzError, ValueError):
    """A tensor handed to :func:`fastswz.cuda.gemm` does not fit the plan: shape, dtype,
    strides, alignment or device."""
