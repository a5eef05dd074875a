"""The fastswz layout algebra compared with CUTLASS's pycute (CuTe's algebra in Python).

pycute is a comparison, not the referee: the referee is compiled C++ CuTe
(``tests/test_golden_algebra.py``). ``test_pycute_on_compiled_cute_vectors`` runs pycute on those
vectors and requires it to differ from C++ exactly on the cases listed, with pycute's answer, in
``tests/data/pycute_vs_cute.json`` (``tools/golden/pycute_vs_cute.py`` writes it); the C++ answer
of each is in ``golden_cute_algebra.json``. The property tests below compare fastswz with pycute
where both follow CuTe.

pycute ships in the ``nvidia-cutlass`` wheel (``pip install --no-deps nvidia-cutlass``); the PyPI
project *named* ``pycute`` is unrelated, so the module is skipped unless the import is the CUTLASS
one. Results are compared value by value: shape, stride, and the function over the whole domain.

Known, deliberate differences (each tested against CuTe semantics instead of pycute's):

* ``logical_product(L, n)`` with an int: pycute divides (bug); fastswz multiplies by ``n:1``.
* ``composition`` with a tuple tiler drops unnamed modes (CuTe); pycute keeps them. Tuple tilers
  here therefore name every mode of ``a`` when compared.
* pycute does not check the shape divisibility condition and can return a layout of the wrong
  size (``(2,2):(1,4) o 3:1`` gives ``2:1``); fastswz refuses like CuTe. pycute checks the stride
  condition on extent-1 modes too, where it does not matter; fastswz does not. Where exactly one
  side refuses, the other side's answer is checked to be wrong (pycute) or right (fastswz).
* ``composition`` past ``a``'s domain: pycute extends ``a`` as ``coalesce(a)`` does (trailing
  extent-1 modes and their strides dropped), CuTe by ``a``'s last stride; values are compared
  only inside ``a``'s domain.
* ``right_inverse`` of a layout whose sorted strides have a gap or a stride 0: pycute stops
  there, CuTe skips the mode and continues. Both are right inverses (checked); only layouts
  without gaps or zeros are compared exactly.
* ``complement`` defaults its cotarget to 1 in pycute and to ``cosize`` in CuTe; the tests pass it.
* ``L(None)``: pycute wraps the layout in a 1-tuple, CuTe returns it unchanged; coordinates drawn
  here always fix at least one mode.
* Strides of extent-1 modes are compared as 0: they never change a value, and CuTe (static
  compact rule, or the stride that extends the layout) and pycute (its coalesce writes 0) pick
  different ones. ``tiled_divide``/``tiled_product`` keep a rank-1 rest mode whole (CuTe) where
  pycute unpacks it; those are compared by value.
"""

import os

import pytest

pycute = pytest.importorskip(
    "pycute", reason="needs CUTLASS's pycute (pip install --no-deps nvidia-cutlass)"
)
if not (
    hasattr(pycute, "Layout")
    and hasattr(pycute, "logical_divide")
    and hasattr(pycute, "complement")
):
    pytest.skip(
        "the installed 'pycute' is not CUTLASS's (that one ships in nvidia-cutlass; the PyPI project "
        "named pycute is unrelated)",
        allow_module_level=True,
    )
if not os.path.isdir(
    os.path.join(os.path.dirname(os.path.dirname(pycute.__file__)), "cutlass_library")
):
    pytest.skip(
        "pycute does not live next to cutlass_library, so it is not the nvidia-cutlass one",
        allow_module_level=True,
    )

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import fastswz as fl
from fastswz.errors import LayoutError

P = pycute
# ~80 examples per property keeps the module near 20 s on two cores
SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MAX_SIZE = 1 << 16

# ---------------------------------------------------------------------------------------------
# Strategies
# ---------------------------------------------------------------------------------------------

EXTENTS = st.sampled_from([1, 2, 2, 3, 4, 4, 5, 6, 8, 16, 32])


@st.composite
def shapes(draw, max_depth=3, max_rank=4, top=True):
    """An IntTuple of rank <= 4 and depth <= 3 whose product stays <= 2**16."""
    if max_depth == 0 or (not top and draw(st.integers(0, 2)) == 0):
        return draw(EXTENTS)
    n = draw(st.integers(1, max_rank if top else 3))
    shape = tuple(draw(shapes(max_depth - 1, max_rank, top=False)) for _ in range(n))
    if top and n == 1 and draw(st.booleans()):
        shape = shape[0]
    assume(fl.product(shape) <= MAX_SIZE)
    return shape


def _unflatten(flat, like):
    it = iter(flat)

    def build(s):
        return tuple(build(e) for e in s) if isinstance(s, tuple) else next(it)

    return build(like)


@st.composite
def layouts(draw, shape=None, max_stride=16):
    """Any layout: small strides (0 allowed) so the cosize stays modest."""
    shape = draw(shapes()) if shape is None else shape
    n = len(fl.flatten(shape))
    stride = _unflatten(draw(st.lists(st.integers(0, max_stride), min_size=n, max_size=n)), shape)
    return fl.Layout(shape, stride)


@st.composite
def ordered_layouts(draw, shape=None, zeros=True, gaps=True):
    """Injective layouts whose strides, sorted, each divide the next: a permuted compact layout,
    optionally with stride-0 modes and with gaps (a sorted mode's stride scaled by 2 or 3 times the
    previous span). These meet the preconditions of complement, divide and product."""
    shape = draw(shapes()) if shape is None else shape
    flat = fl.flatten(shape)
    order = draw(st.permutations(range(len(flat))))
    strides = [0] * len(flat)
    span = 1
    for i in order:
        if zeros and flat[i] > 1 and draw(st.integers(0, 5)) == 0:
            continue  # a broadcast (stride-0) mode
        if gaps:
            span *= draw(st.sampled_from([1, 1, 1, 2, 3]))
        strides[i] = span
        span *= flat[i]
    assume(span <= 1 << 20)
    return fl.Layout(shape, _unflatten(strides, shape))


def to_pycute(x):
    if isinstance(x, fl.Layout):
        return P.Layout(x.shape, x.stride)
    if isinstance(x, tuple):
        return tuple(to_pycute(e) for e in x)
    return x


def domain(n):
    """Every index of a domain up to 1024; beyond that 1024 evenly spread ones and the last."""
    if n <= 1024:
        return range(n)
    return list(range(0, n, n // 1024)) + [n - 1]


def values(lay, n=None):
    return [lay(i) for i in domain(lay.size() if n is None else n)]


def _stride_where_it_matters(shape, stride):
    # The stride of an extent-1 mode is never multiplied by anything but 0. CuTe and pycute pick
    # different ones (CuTe keeps the stride that extends the layout past its domain, pycute's
    # coalesce writes 0), so those are compared as 0.
    if isinstance(shape, tuple):
        return tuple(_stride_where_it_matters(s, d) for s, d in zip(shape, stride))
    return 0 if shape == 1 else stride


def same(ours, theirs):
    """Equal shape, stride (outside extent-1 modes) and values over the domain."""
    assert isinstance(ours, fl.Layout)
    assert ours.shape == theirs.shape, f"fastswz {ours} vs pycute {theirs}"
    assert _stride_where_it_matters(ours.shape, ours.stride) == _stride_where_it_matters(
        theirs.shape, theirs.stride
    ), f"fastswz {ours} vs pycute {theirs}"
    assert values(ours) == values(theirs, P.size(theirs))


def pycute_is_wrong(theirs, expected_size, fn=None):
    """pycute skips CuTe's shape divisibility check and can return a layout of the wrong size
    (e.g. (2,2):(1,4) o 3:1 gives 2:1); fastswz refuses those, like CuTe."""
    if P.size(theirs) != expected_size:
        return True
    return fn is not None and values(theirs, expected_size) != [
        fn(i) for i in domain(expected_size)
    ]


def both(fn_ours, fn_theirs):
    """Run both sides; return (ours, theirs) or (exception, exception) when both refuse."""
    try:
        ours = fn_ours()
    except LayoutError as e:
        ours = e
    try:
        theirs = fn_theirs()
    except (AssertionError, ZeroDivisionError) as e:  # pycute validates with assert
        theirs = e
    return ours, theirs


# ---------------------------------------------------------------------------------------------
# IntTuple helpers
# ---------------------------------------------------------------------------------------------


@SETTINGS
@given(shapes(), st.data())
def test_int_tuple_helpers(shape, data):
    assert fl.prefix_product(shape) == P.prefix_product(shape)
    assert fl.product(shape) == P.product(shape)
    assert fl.flatten(shape) == P.flatten(shape)
    n = fl.product(shape)
    for idx in data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=8)):
        crd = fl.idx2crd(idx, shape)
        assert crd == P.idx2crd(idx, shape)
        assert fl.crd2idx(crd, shape) == P.crd2idx(crd, shape) == idx
        assert fl.crd2idx(idx, shape) == P.crd2idx(idx, shape)
        assert fl.crd2crd(idx, shape) == P.crd2crd(idx, shape)
    div = data.draw(st.sampled_from([1, 2, 3, 4, 8, 16, 64]))
    ours, theirs = both(lambda: fl.shape_div(shape, div), lambda: P.shape_div(shape, div))
    if isinstance(theirs, Exception):
        assert isinstance(ours, Exception), "pycute refused shape_div but fastswz did not"
    else:
        assert ours == theirs


@SETTINGS
@given(layouts(), st.data())
def test_crd2idx_and_slicing(lay, data):
    pl = to_pycute(lay)
    for i in data.draw(st.lists(st.integers(0, lay.size() - 1), min_size=1, max_size=6)):
        crd = fl.idx2crd(i, lay.shape)
        assert lay(i) == pl(i) == lay(crd) == pl(crd)
        if isinstance(crd, tuple) and len(crd) > 1:
            # slice: keep a random non-empty, non-full subset of the top-level modes
            keep = data.draw(st.lists(st.booleans(), min_size=len(crd), max_size=len(crd)))
            assume(any(keep) and not all(keep))
            sl = tuple(None if k else c for k, c in zip(keep, crd))
            ours = lay(sl)
            same(ours, pl(sl))
            sub, off = fl.slice_and_offset(sl, lay)
            psub, poff = P.slice_and_offset(sl, pl)
            same(sub, psub)
            assert off == poff


# ---------------------------------------------------------------------------------------------
# coalesce, filter, composition
# ---------------------------------------------------------------------------------------------


@SETTINGS
@given(layouts())
def test_coalesce_and_filter(lay):
    pl = to_pycute(lay)
    same(fl.coalesce(lay), P.coalesce(pl))
    same(fl.filter(lay), P.filter(pl))
    if isinstance(lay.shape, tuple):
        profile = (1,) * len(lay)
        same(fl.coalesce(lay, profile), P.coalesce(pl, profile))
        same(fl.filter(lay, profile), P.filter(pl, profile))


@SETTINGS
@given(layouts(max_stride=8), st.data())
def test_composition(a, data):
    # b: a compact-ish layout that stays inside a's domain most of the time
    b = data.draw(ordered_layouts(shape=data.draw(shapes(max_depth=2, max_rank=3)), zeros=True))
    assume(b.cosize() <= 4 * a.size())
    ours, theirs = both(
        lambda: fl.composition(a, b), lambda: P.composition(to_pycute(a), to_pycute(b))
    )
    if isinstance(ours, Exception):
        # fastswz refuses only where the divisibility conditions fail, and pycute's are stricter;
        # past a's domain pycute extends a as coalesce(a) does (trailing size-1 modes and their
        # strides dropped), CuTe as a's last stride does, so there CuTe (and fastswz) may refuse
        # where pycute answers.
        assert (
            isinstance(theirs, Exception)
            or b.cosize() > a.size()
            or pycute_is_wrong(theirs, b.size(), lambda i: a(b(i)))
            or refused_for_extent_1_strides(a, b)
        ), f"fastswz refused {a} o {b}, pycute gave {theirs}"
        return
    if b.cosize() <= a.size():
        # inside a's domain the answer is a o b, whatever pycute did, except where CuTe 4.2's
        # weak stride condition builds another layout (fastswz returns CuTe's: CUTE_COMPARISON 8)
        if values(ours) != [a(b(i)) for i in domain(b.size())]:
            assert takes_weak_condition(a, b), f"{a} o {b} = {ours} is not a o b"
            return
        if not isinstance(theirs, Exception):
            assert values(ours) == values(theirs, b.size())


def refused_for_extent_1_strides(a, b):
    """CuTe checks the stride condition on every mode of b, extent 1 included: host-compiled
    CuTe 4.2 stops (2,1):(0,1) o 1:3 with the static assertion "Stride Divisibility Condition"
    though b only reaches 0 (fastswz.algebra._compose_int does the same); pycute answers 1:0.
    True when b with its extent-1 strides zeroed composes."""
    def zero(shape, stride):
        if isinstance(shape, tuple):
            return tuple(zero(s, d) for s, d in zip(shape, stride))
        return 0 if shape == 1 else stride

    try:
        fl.composition(a, fl.Layout(b.shape, zero(b.shape, b.stride)))
    except LayoutError:
        return False
    return True


def _has_none(t):
    return t is None or isinstance(t, tuple) and any(_has_none(e) for e in t)


def takes_weak_condition(a, b):
    """Does some stride of b, divided through a's coalesced modes, fall below an extent that it
    does not divide (CuTe 4.2's weak stride condition, layout.hpp composition_impl)?"""
    shapes = [s for s in fl.flatten(fl.coalesce(a).shape)]
    for rs, rd in zip(fl.flatten(b.shape), fl.flatten(b.stride)):
        ad = abs(rd)
        for cs in shapes[:-1]:
            if rs == 1 or ad == 0:
                break
            if ad % cs and cs % ad:
                return True
            nxt = -(-cs // ad)
            rs = rs // nxt if rs % nxt == 0 and nxt > 1 else rs
            ad = -(-ad // cs)
    return False


@SETTINGS
@given(layouts(max_stride=8), st.data())
def test_composition_by_tuple_tiler(a, data):
    assume(isinstance(a.shape, tuple))
    # a tiler naming every mode of a (CuTe drops unnamed modes, pycute keeps them)
    tiler = tuple(
        data.draw(st.sampled_from([None, 1] + [d for d in (2, 4, 8) if m.size() % d == 0]))
        for m in a
    )
    ours, theirs = both(
        lambda: fl.composition(a, tiler), lambda: P.composition(to_pycute(a), tiler)
    )
    if isinstance(ours, Exception):
        expected = fl.product(tuple(m.size() if t is None else t for m, t in zip(a, tiler)))
        assert isinstance(theirs, Exception) or pycute_is_wrong(theirs, expected), (ours, theirs)
        return
    if not isinstance(theirs, Exception):
        same(ours, theirs)


# ---------------------------------------------------------------------------------------------
# complement and inverses
# ---------------------------------------------------------------------------------------------


@SETTINGS
@given(ordered_layouts(), st.integers(1, 1 << 16))
def test_complement(lay, cotarget):
    same(fl.complement(lay, cotarget), P.complement(to_pycute(lay), cotarget))
    # the default cotarget: CuTe uses cosize(filter(lay)), pycute 1; the result is the same
    same(fl.complement(lay), P.complement(to_pycute(lay), fl.filter(lay).cosize()))


@SETTINGS
@given(ordered_layouts(zeros=False, gaps=False))
def test_right_inverse(lay):
    ours = fl.right_inverse(lay)
    same(ours, P.right_inverse(to_pycute(lay)))
    assert all(lay(ours(i)) == i for i in domain(ours.size()))


@SETTINGS
@given(layouts())
def test_right_inverse_is_a_right_inverse(lay):
    # at a gap or a stride-0 mode pycute stops and CuTe skips the mode and keeps going; both
    # must satisfy the definition, and CuTe's is never smaller
    ours = fl.right_inverse(lay)
    theirs = P.right_inverse(to_pycute(lay))
    assert all(lay(ours(i)) == i for i in domain(ours.size()))
    assert ours.size() >= P.size(theirs)


@SETTINGS
@given(ordered_layouts(zeros=False))
def test_left_inverse(lay):
    ours = fl.left_inverse(lay)
    theirs = P.left_inverse(to_pycute(lay))
    assert all(ours(lay(i)) == i for i in domain(lay.size()))
    assert all(theirs(lay(i)) == i for i in domain(lay.size()))
    assert all(ours(j) == theirs(j) for j in set(values(lay)))


# ---------------------------------------------------------------------------------------------
# divide and product families
# ---------------------------------------------------------------------------------------------


@st.composite
def divide_cases(draw):
    """(layout, tiler): a Layout tiler, or a tuple of Layouts/ints/None with rank <= rank(layout)."""
    lay = draw(ordered_layouts(gaps=draw(st.booleans())))
    if draw(st.booleans()):
        n = lay.size()
        tshape = draw(shapes(max_depth=2, max_rank=2))
        assume(n % fl.product(tshape) == 0)
        return lay, draw(ordered_layouts(shape=tshape, zeros=False))
    modes = list(lay)
    k = draw(st.integers(1, len(modes)))
    tiler = []
    for m in modes[:k]:
        kind = draw(st.sampled_from(["int", "layout", "none"]))
        if kind == "none":
            tiler.append(None)
            continue
        divs = [d for d in (1, 2, 3, 4, 8) if m.size() % d == 0]
        d = draw(st.sampled_from(divs))
        if kind == "int":
            tiler.append(d)
        else:
            tiler.append(
                fl.Layout(d, draw(st.sampled_from([1, 1, 2])))
                if m.size() % (d * 2) == 0
                else fl.Layout(d)
            )
    return lay, tuple(tiler)


@SETTINGS
@given(divide_cases())
def test_divides(case):
    lay, tiler = case
    pl, pt = to_pycute(lay), to_pycute(tiler)
    for ours_fn, theirs_fn in [
        (fl.logical_divide, P.logical_divide),
        (fl.zipped_divide, P.zipped_divide),
        (fl.tiled_divide, P.tiled_divide),
    ]:
        ours, theirs = both(lambda f=ours_fn: f(lay, tiler), lambda f=theirs_fn: f(pl, pt))
        if isinstance(theirs, Exception) and not isinstance(ours, Exception):
            # pycute refuses (it checks divisibility even for an extent-1 tiler mode, and has
            # no weak stride condition) where CuTe answers; there is no pycute answer to compare,
            # and fastswz's is held to compiled CuTe by tests/test_golden_algebra.py (e.g.
            # logical_divide(((2,(3,2,2))):((1,(2,12,6))), (4)) is ((4,(2,2,2))):((1,(4,12,6)))
            # in both, size 32: CuTe's weak condition, docs/CUTE_COMPARISON.md section 8)
            continue
        if isinstance(ours, Exception) and "left whole by the tiler _" in str(ours):
            # C++ CuTe refuses a _ on a mode without two sub-modes (zip2_by: Mismatched ranks);
            # pycute gives that mode an empty tile
            continue
        if isinstance(ours, Exception):
            # a tiler whose stride does not fit the layout: CuTe refuses (divisibility); pycute
            # refuses too or answers with a layout of the wrong size
            assert isinstance(theirs, Exception) or pycute_is_wrong(theirs, lay.size()), (
                ours,
                theirs,
            )
            continue
        if _has_none(tiler) and not isinstance(theirs, Exception):
            # CuTe's zip2_by splits a mode that _ leaves whole into its two sub-modes; pycute
            # gives it an empty tile, so the two disagree by design (compiled CuTe decides:
            # the *_divide vectors with _ in tests/test_golden_algebra.py)
            continue
        if ours_fn is fl.tiled_divide and len(ours[1:]) == 1 and isinstance(ours.shape[1], tuple):
            # CuTe keeps a rank-1 rest mode whole; pycute unpacks its 1-tuple
            assert values(ours) == values(theirs, P.size(theirs))
            continue
        same(ours, theirs)


@st.composite
def product_cases(draw):
    block = draw(ordered_layouts(shape=draw(shapes(max_depth=2, max_rank=3)), gaps=False))
    if draw(st.booleans()):
        tiler = draw(
            ordered_layouts(shape=draw(shapes(max_depth=2, max_rank=2)), zeros=False, gaps=False)
        )
    else:
        k = draw(st.integers(1, len(block)))
        tiler = tuple(fl.Layout(draw(st.sampled_from([1, 2, 3, 4]))) for _ in range(k))
    total = block.size() * (
        tiler.size() if isinstance(tiler, fl.Layout) else fl.product(tuple(t.size() for t in tiler))
    )
    assume(total <= MAX_SIZE)
    return block, tiler


@SETTINGS
@given(product_cases())
def test_products(case):
    block, tiler = case
    pb, pt = to_pycute(block), to_pycute(tiler)
    expected = block.size() * (
        tiler.size() if isinstance(tiler, fl.Layout) else fl.product(tuple(t.size() for t in tiler))
    )
    for ours_fn, theirs_fn in [
        (fl.logical_product, P.logical_product),
        (fl.zipped_product, P.zipped_product),
        (fl.tiled_product, P.tiled_product),
    ]:
        ours, theirs = both(lambda f=ours_fn: f(block, tiler), lambda f=theirs_fn: f(pb, pt))
        if isinstance(ours, Exception) or isinstance(theirs, Exception):
            # a tiler the block's complement cannot be composed with: CuTe refuses (shape
            # divisibility); pycute may answer with a layout of the wrong size
            assert isinstance(ours, Exception), (ours, theirs)
            assert isinstance(theirs, Exception) or pycute_is_wrong(theirs, expected), (
                ours,
                theirs,
            )
            continue
        if ours_fn is fl.tiled_product and len(ours[1:]) == 1 and isinstance(ours.shape[1], tuple):
            assert values(ours) == values(theirs, P.size(theirs))
            continue
        same(ours, theirs)


@SETTINGS
@given(ordered_layouts(gaps=False), st.sampled_from([1, 2, 3, 4]))
def test_logical_product_by_int_is_by_int_colon_1(block, n):
    # pycute's logical_product(L, int) calls logical_divide by mistake; compare with n:1 instead
    ours = fl.logical_product(block, n)
    # n is the layout n:1 (CuTe's make_layout(n), whose stride is 0 when n == 1)
    assert values(ours) == values(fl.logical_product(block, fl.Layout(n, 1)))
    same(ours, P.logical_product(to_pycute(block), P.Layout(n, 1)))


# ---------------------------------------------------------------------------------------------
# pycute on the compiled-CuTe vectors: where it differs from C++, the list says so
# ---------------------------------------------------------------------------------------------

import json  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

_DATA = Path(__file__).parent / "data"
_VECTORS = json.loads((_DATA / "golden_cute_algebra.json").read_text())["cases"]
_PYCUTE_DIFFERS = {
    d["id"]: d for d in json.loads((_DATA / "pycute_vs_cute.json").read_text())["differs"]
}
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools" / "golden"))
import pycute_vs_cute  # noqa: E402

_PYCUTE_CASES = [c for c in _VECTORS if c["op"] in pycute_vs_cute.calls()]


@pytest.mark.parametrize("case", _PYCUTE_CASES, ids=lambda c: f"{c['op']}-{c['id']}")
def test_pycute_on_compiled_cute_vectors(case):
    got = pycute_vs_cute.run(case)
    cpp = pycute_vs_cute.cute_answer(case)
    if case["id"] in _PYCUTE_DIFFERS:
        # an expected difference: pycute gives this, C++ CuTe gives `cpp`
        assert got == _PYCUTE_DIFFERS[case["id"]]["pycute"] != cpp
    else:
        assert got == cpp
