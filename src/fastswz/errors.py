"""Exceptions raised by fastswz.

Every error fastswz raises on bad input is a :class:`FastswzError`, so callers can catch
one class. Each also subclasses the builtin that fits (``ValueError`` for a bad value,
``TypeError`` for a bad kind of argument), so ``except ValueError`` keeps working.
Messages name the field, the value, the rule and the fix.
"""

from __future__ import annotations

__all__ = [
    "FastswzError",
    "FastswzTypeError",
    "LayoutError",
    "ParseError",
    "TileError",
    "DescriptorFieldError",
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
