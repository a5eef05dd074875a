"""CuTe notation: :func:`parse` reads what ``str()`` prints, the grammar the CLI reads.

The printers themselves are the ``__str__`` methods of :class:`~fastswz.layout.Layout`
(``(8,64):(64,1)``), :class:`~fastswz.swizzle.Swizzle` (``Sw<3,4,3>``) and
:class:`~fastswz.swizzle.ComposedLayout` (``Sw<3,4,3> o 0 o (8,64):(64,1)``), after CuTe's
``print`` in ``include/cute/layout.hpp``, ``swizzle.hpp`` and ``layout_composed.hpp``; this
module is their inverse, and ``parse(str(x)) == x``.
"""

from __future__ import annotations

from .errors import FastswzTypeError, LayoutError, ParseError
from .int_tuple import MAX_DEPTH
from .layout import Layout
from .swizzle import ComposedLayout, Swizzle

__all__ = ["parse"]


# ---------------------------------------------------------------------------------------------
# Parsing CuTe notation
# ---------------------------------------------------------------------------------------------


# ASCII digits only: str.isdigit() also accepts superscripts that int() refuses.
_DIGITS = frozenset("0123456789")

class _Parser:
    # Grammar (whitespace allowed between tokens):
    #   top      := object EOF
    #   object   := function ['o' [int 'o'] layout]
    #   function := swizzle | layout
    #   swizzle  := 'Sw' '<' int ',' int ',' int '>'
    #   layout   := inttuple [':' inttuple]
    #   inttuple := int | '(' [inttuple (',' inttuple)*] ')'
    #   int      := ['_'] ['-'] digits        (CuTe prints static ints as _8)

    def __init__(self, text):
        self.text = text
        self.pos = 0

    def error(self, expected, pos=None):
        pos = self.pos if pos is None else pos
        found = repr(self.text[pos : pos + 10]) if pos < len(self.text) else "end of text"
        raise ParseError(
            f"cannot parse {self.text!r}: at position {pos} expected {expected}, found {found}"
        )

    def skip(self):
        t, p = self.text, self.pos
        while p < len(t) and t[p].isspace():
            p += 1
        self.pos = p

    def peek(self, s):
        self.skip()
        return self.text.startswith(s, self.pos)

    def expect(self, s):
        if not self.peek(s):
            self.error(repr(s))
        self.pos += len(s)

    def int_(self):
        self.skip()
        t, start = self.text, self.pos
        p = start + 1 if t.startswith("_", start) else start
        sign = p
        if p < len(t) and t[p] in "+-":
            p += 1
        q = p
        while q < len(t) and t[q] in _DIGITS:
            q += 1
        if q == p:
            self.error("an integer", start)
        self.pos = q
        return int(t[sign:q])

    def inttuple(self, level=0):
        if self.peek("("):
            if level >= MAX_DEPTH:
                # the parser recurses once per "(": refuse before Python's recursion limit does
                text = self.text if len(self.text) <= 60 else self.text[:40] + "..."
                raise ParseError(
                    f"cannot parse {text!r} ({len(self.text)} characters): at position {self.pos} "
                    f"the tuples nest more than {MAX_DEPTH} levels deep; an IntTuple may nest at "
                    f"most {MAX_DEPTH} levels (fastswz.int_tuple.MAX_DEPTH)"
                )
            self.pos += 1
            items = []
            if self.peek(")"):
                self.pos += 1
                return ()
            while True:
                items.append(self.inttuple(level + 1))
                if self.peek(","):
                    self.pos += 1
                    continue
                if self.peek(")"):
                    self.pos += 1
                    return tuple(items)
                self.error("',' or ')'")
        return self.int_()

    def layout_parts(self):
        self.skip()
        start = self.pos
        shape = self.inttuple()
        stride = None
        if self.peek(":"):
            self.pos += 1
            stride = self.inttuple()
        return start, shape, stride

    def build(self, start, shape, stride):
        try:
            return Layout(shape, stride)
        except LayoutError as e:
            raise ParseError(
                f"cannot parse {self.text!r}: the layout at position {start} is invalid: {e}"
            ) from None

    def layout(self):
        return self.build(*self.layout_parts())

    def swizzle(self):
        self.skip()
        start = self.pos
        self.expect("Sw" if self.peek("Sw") else "S")  # the CuTe DSL prints S<3,4,3>
        self.expect("<")
        b = self.int_()
        self.expect(",")
        m = self.int_()
        self.expect(",")
        s = self.int_()
        self.expect(">")
        try:
            return Swizzle(b, m, s)
        except LayoutError as e:
            raise ParseError(
                f"cannot parse {self.text!r}: the swizzle at position {start} is invalid: {e}"
            ) from None

    def parse(self):
        self.skip()
        if self.peek("Sw") or self.peek("S<"):
            fn = self.swizzle()
        elif (
            self.peek("(")
            or self.peek("_")
            or self.peek("-")
            or (self.pos < len(self.text) and self.text[self.pos] in _DIGITS)
        ):
            fn = self.layout()
        else:
            self.error("a layout such as (8,64):(64,1) or a swizzle such as Sw<3,4,3>")
        if self.peek("o"):
            self.pos += 1
            start, shape, stride = self.layout_parts()
            offset = 0
            if stride is None and type(shape) is int and self.peek("o"):
                # "A o 16 o B": a bare int followed by another "o" is the offset
                self.pos += 1
                offset = shape
                start, shape, stride = self.layout_parts()
            inner = self.build(start, shape, stride)
            self.done()
            return ComposedLayout(fn, offset, inner)
        self.done()
        return fn

    def done(self):
        self.skip()
        if self.pos != len(self.text):
            self.error("end of text or ' o '")


def parse(text):
    """Parse CuTe notation into a Layout, Swizzle or ComposedLayout.

    Accepts what ``str()`` prints (``(8,64):(64,1)``, ``Sw<3,4,3>``, ``Sw<3,4,3> o 0 o 8:1``),
    CuTe's static spelling (``(_8,_64):(_64,_1)``), a shape alone (compact column-major), a
    composed layout without offset (``Sw<3,4,3> o (8,64):(64,1)``, offset 0), and the CuTe DSL's
    ``S<3,4,3>`` for a swizzle.

    Raises
    ------
    fastswz.errors.ParseError
        With the position and what was expected there.

    Examples
    --------
    >>> parse("(_8,_64):(_64,_1)")
    Layout((8, 64), (64, 1))
    >>> parse("(8,64)")
    Layout((8, 64), (1, 8))
    >>> parse("Sw<3,4,3> o (8,64):(64,1)")
    ComposedLayout(Swizzle(3, 4, 3), 0, Layout((8, 64), (64, 1)))
    >>> parse("S<3,4,3> o 0 o (8,64):(64,1)") == parse("Sw<3,4,3> o 0 o (8,64):(64,1)")
    True
    """
    # The inverse of CuTe's printers: include/cute/layout.hpp (print), swizzle.hpp (print),
    # layout_composed.hpp (print); static ints print there as _8.
    if not isinstance(text, str):
        raise FastswzTypeError(f"text={text!r} must be a str")
    return _Parser(text).parse()
