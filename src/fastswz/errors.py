"""Exceptions raised by fastswz.

Every error fastswz raises on bad input is a :class:`FastswzError`, so callers can catch
one class. Each also subclasses the builtin that fits (``ValueError`` for a bad value,
``TypeError`` for a bad kind of argument), so ``except ValueError`` keeps working.
Messages name the field, the value, the rule and the fix.
"""

from __future__ import annotations

import operator

__all__ = [
    "as_flag",
    "as_major",
    "as_int",
    "FastswzError",
    "FastswzTypeError",
    "LayoutError",
    "ParseError",
    "TileError",
    "DescriptorFieldError",
    "BankError",
    "PlanError",
    "FragmentError",
    "MeasureError",
    "CorpusError",
]


class FastswzError(Exception):
    """Base class of every error fastswz raises for bad input."""


class FastswzTypeError(FastswzError, TypeError):
    """An argument has the wrong kind (e.g. a float where an int tuple is needed)."""


class LayoutError(FastswzError, ValueError):
    """A layout, swizzle or int-tuple operation was given values it cannot accept."""


class ParseError(FastswzError, ValueError):
    """Text in CuTe notation could not be parsed."""


class TileError(FastswzError, ValueError):
    """An operand tile is not a legal canonical layout for the requested architecture."""


class DescriptorFieldError(FastswzError, ValueError):
    """A descriptor field is out of range, misaligned or not allowed in this combination."""


class BankError(FastswzError, ValueError):
    """A shared-memory access pattern the bank model cannot score (width, alignment, shape)."""


def as_int(name: str, value) -> int:
    """``operator.index(value)``, refusing bools, floats and arrays with a FastswzTypeError.

    Numpy integers are accepted (they convert exactly); a numpy array also has ``__index__``
    but raises for more than one element, so the conversion itself is the test.
    """
    if isinstance(value, bool):
        raise FastswzTypeError(f"{name}={value!r} must be an int, not bool")
    try:
        return operator.index(value)
    except TypeError:
        raise FastswzTypeError(f"{name}={value!r} must be an int, not {type(value).__name__}") from None


def as_flag(name: str, value) -> bool:
    """A boolean field: True/False (numpy bools too) or the ints 0/1; anything else is refused,
    so that e.g. ``negate_a="no"`` cannot silently mean True."""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return bool(value)
    v = as_int(name, value)
    if v not in (0, 1):
        raise FastswzTypeError(f"{name}={value!r} must be True/False (or 0/1)")
    return bool(v)


def as_major(name: str, value) -> str:
    """A major-ness argument: the string ``"K"`` or ``"MN"`` (instruction descriptors)."""
    if not isinstance(value, str):
        raise FastswzTypeError(f"{name}={value!r} must be 'K' or 'MN', not {type(value).__name__}")
    if value not in ("K", "MN"):
        raise DescriptorFieldError(f"{name}={value!r} must be 'K' or 'MN'")
    return value


class PlanError(FastswzError, ValueError):
    """A kernel plan (``plan_gemm``, ``tune``, ``emit``) was given input no configuration can use."""


class FragmentError(FastswzError, ValueError):
    """A register fragment or tensor-memory layout (``fastswz.tv_layout``) was asked for an
    instruction, shape or operand the PTX ISA does not have, or composed with a map that does
    not fit."""

class MeasureError(FastswzError, RuntimeError):
    """A measured search (``fastswz.cuda.search_plans``, ``fastswz tune --measure``) cannot run:
    no GPU runtime (``fastswz.cuda``, the extra ``cuda``), no GPU, no plan that it can time, or
    it was asked of the cost model (``tune(..., measure=K)``)."""


class CorpusError(FastswzError, ValueError):
    """A GEMM shape corpus (:mod:`fastswz.corpus`) that does not read or does not follow its
    schema, or a selection from it that names no dtype or bucket it has."""
