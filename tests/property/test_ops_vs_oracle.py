"""Property tests: every operation against the dense NumPy oracle (gblas.ops.reference).

Random shapes (0 and 1 included), densities, dtypes, masks (none, structural, value with
explicit zeros, complemented), accumulators and replace; for mxv/vxm also every direction
(push, pull, auto) and matrix format (csr, coo), which must all agree with the oracle (for
``any_*`` semirings: with one of the candidates; for float sums: up to rounding).
"""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from gblas import Descriptor, Scalar, binary, monoid, select, semiring, unary
from gblas.ops import reference as ref

from .strategies import (
    MATRIX_FORMATS,
    accums,
    assert_matches,
    assert_same_object,
    assume_accum_ok,
    candidate_layers,
    dense_arrays,
    dtype_pairs,
    dtypes,
    elements,
    from_matrix,
    from_vector,
    masks,
    out_dtypes,
    restrict,
    scalar_of,
    sizes,
    small_sizes,
    to_gblas,
    to_matrix,
    to_vector,
    tolerance,
    vector_storages,
)

MXV_SEMIRINGS = (
    "lor_land", "any_pair", "plus_times", "min_plus", "max_times", "max_second", "max_first",
    "min_first", "any_secondi", "any_firsti", "plus_pair", "min_max", "max_min", "land_lor",
    "lxor_land",
)
DIRECTIONS = ("push", "pull", "auto")


def _summing(monoid_name: str, dtype: np.dtype) -> bool:
    """The result's float value depends on the fold order (plus on a float type)."""
    return monoid_name == "plus" and np.dtype(dtype).kind == "f"


# =============================================================================== mxv/vxm
def _check_mxv(data: st.DataObject, which: str) -> None:
    d = data.draw
    name = d(st.sampled_from(MXV_SEMIRINGS), label="semiring")
    sr = getattr(semiring, name)
    m, n = d(sizes, label="nrows"), d(sizes, label="ncols")
    adt, udt = d(dtype_pairs(), label="A, u dtypes")
    A = d(dense_arrays((m, n), adt), label="A")
    ulen, wlen = (n, m) if which == "mxv" else (m, n)
    u = d(dense_arrays((ulen,), udt), label="u")
    T = ref.mxv(A, u, sr) if which == "mxv" else ref.vxm(u, A, sr)
    tdt = T[0].dtype
    summing = _summing(sr.monoid.name, tdt)
    odt = d(out_dtypes(tdt, rounding=summing), label="w dtype")
    C0 = d(dense_arrays((wlen,), odt), label="w")
    mask = d(masks((wlen,)), label="mask")
    accum = d(accums, label="accum")
    assume_accum_ok(accum, odt, tdt, rounding=summing)
    replace = d(st.booleans(), label="replace") if mask.kind else False
    ustore = d(vector_storages, label="u storage")
    wstore = d(vector_storages, label="w storage")

    if sr.monoid.is_any:  # any value of the contributing products is a valid result
        if which == "mxv":
            pieces = [ref.mxv(restrict(A, 1, k), u, sr) for k in range(n)]
        else:
            pieces = [ref.vxm(u, restrict(A, 0, k), sr) for k in range(m)]
        Ts = candidate_layers(pieces, T)
    else:
        Ts = [T]
    expected = [ref.writeback(C0, t, mask.spec(), accum, replace) for t in Ts]
    tol = tolerance(odt, summing)

    early_exit = d(st.booleans(), label="early_exit")
    via_desc = d(st.booleans(), label="format via Descriptor(format=)")
    for fmt in MATRIX_FORMATS:
        for direction in DIRECTIONS:
            what = f"{which} {name} format={fmt} direction={direction}"
            Ag = to_matrix(A, None if via_desc else fmt)
            ug, w = to_vector(u, ustore), to_vector(C0, wstore)
            desc = Descriptor(direction=direction, early_exit=early_exit,
                              format=fmt if via_desc else None)
            expr = Ag.mxv(ug, sr) if which == "mxv" else ug.vxm(Ag, sr)
            w(mask=mask.build(), accum=accum, replace=replace, desc=desc) << expr
            assert_matches(from_vector(w), expected, tol=tol, what=what)
            assert_same_object(Ag, A, what + ": A was modified")
            assert_same_object(ug, u, what + ": u was modified")

    # .new(): the bare T, typed by the semiring
    fmt = d(st.sampled_from(MATRIX_FORMATS), label="new: format")
    direction = d(st.sampled_from(DIRECTIONS), label="new: direction")
    Ag, ug = to_matrix(A, fmt), to_vector(u, ustore)
    expr = Ag.mxv(ug, sr) if which == "mxv" else ug.vxm(Ag, sr)
    got = expr.new(desc=Descriptor(direction=direction))
    assert_matches(from_vector(got), Ts, tol=tolerance(tdt, summing),
                   what=f"{which} {name} .new() {fmt}/{direction}")


@given(data=st.data())
def test_mxv_vs_oracle(data: st.DataObject) -> None:
    _check_mxv(data, "mxv")


@given(data=st.data())
def test_vxm_vs_oracle(data: st.DataObject) -> None:
    _check_mxv(data, "vxm")


@given(data=st.data())
def test_mxv_transposed_view_vs_oracle(data: st.DataObject) -> None:
    """``A.T.mxv(u)`` (the pull form of BFS) equals ``u.vxm(A)`` equals the oracle, and so
    do ``A.mxv(u)`` with ``transpose_first`` and ``u.vxm(Aᵀ)`` with ``transpose_second``
    (the matrix is GrB_INP0 of mxv and GrB_INP1 of vxm)."""
    d = data.draw
    name = d(st.sampled_from(MXV_SEMIRINGS), label="semiring")
    sr = getattr(semiring, name)
    m, n = d(sizes), d(sizes)
    dt = d(dtypes, label="dtype")
    A = d(dense_arrays((m, n), dt), label="A")
    u = d(dense_arrays((m,), dt), label="u")
    mask = d(masks((n,)), label="mask")
    replace = d(st.booleans()) if mask.kind else False
    # A.T.mxv(u) multiplies A.T[j, k] (left) by u[k]; the oracle's mxv on the transpose
    T = ref.mxv(ref.transpose(A), u, sr)
    if sr.monoid.is_any:
        Ts = candidate_layers([ref.mxv(restrict(ref.transpose(A), 1, k), u, sr)
                               for k in range(m)], T)
    else:
        Ts = [T]
    C0 = ref.dense(np.zeros(n, T[0].dtype), np.zeros(n, bool))
    expected = [ref.writeback(C0, t, mask.spec(), None, replace) for t in Ts]
    tol = tolerance(T[0].dtype, _summing(sr.monoid.name, T[0].dtype))
    for fmt in MATRIX_FORMATS:
        for direction in DIRECTIONS:
            Ag, ug, w = to_matrix(A, fmt), to_vector(u), to_vector(C0)
            w(mask=mask.build(), replace=replace, desc=Descriptor(direction=direction)) << (
                Ag.T.mxv(ug, sr))
            assert_matches(from_vector(w), expected, tol=tol,
                           what=f"A.T.mxv {name} {fmt}/{direction}")
            w = to_vector(C0)
            w(mask=mask.build(), replace=replace, desc=Descriptor(
                direction=direction, transpose_first=True)) << Ag.mxv(ug, sr)
            assert_matches(from_vector(w), expected, tol=tol,
                           what=f"A.mxv transpose_first {name} {fmt}/{direction}")
    if sr.monoid.is_any:  # several right answers: the loop above covers any_* semirings
        return
    ATg = to_matrix(ref.transpose(A))  # noqa: N806
    got = to_vector(u).vxm(ATg, sr).new(desc=Descriptor(transpose_second=True))
    assert_matches(from_vector(got), [ref.vxm(u, A, sr)], tol=tol,
                   what=f"u.vxm(AT) transpose_second {name}")


# =================================================================================== mxm
MXM_SEMIRINGS = ("plus_times", "min_plus", "plus_pair", "any_pair")


@given(data=st.data())
def test_mxm_vs_oracle(data: st.DataObject) -> None:
    d = data.draw
    name = d(st.sampled_from(MXM_SEMIRINGS), label="semiring")
    sr = getattr(semiring, name)
    m, k, n = d(small_sizes), d(small_sizes), d(small_sizes)
    adt, bdt = d(dtype_pairs(), label="A, B dtypes")
    A = d(dense_arrays((m, k), adt), label="A")
    B = d(dense_arrays((k, n), bdt), label="B")
    T = ref.mxm(A, B, sr)
    tdt = T[0].dtype
    summing = _summing(sr.monoid.name, tdt)
    mask = d(masks((m, n), kinds=(None, "S", "~S", "V", "~V")), label="mask")
    accum = d(st.sampled_from([None, binary.plus, binary.second]), label="accum")
    odt = d(out_dtypes(tdt, rounding=summing), label="C dtype")
    assume_accum_ok(accum, odt, tdt, rounding=summing)
    replace = d(st.booleans(), label="replace") if mask.kind else False
    C0 = d(dense_arrays((m, n), odt), label="C")
    if sr.monoid.is_any:
        Ts = candidate_layers([ref.mxm(restrict(A, 1, q), B, sr) for q in range(k)], T)
    else:
        Ts = [T]

    # operands given directly, as transposed views (A = X.T reads X's cached transpose), or
    # stored transposed and turned back by the descriptor (GrB_INP0/GrB_INP1: non-square
    # shapes that fit only once transposed)
    Ag = to_matrix(A, d(st.sampled_from(MATRIX_FORMATS)))
    Bg = to_matrix(B)
    how = st.sampled_from(["direct", "view", "descriptor"])
    a_how, b_how = d(how, label="A given"), d(how, label="B given")
    if a_how != "direct":
        Ag = to_matrix(ref.transpose(A))
        Ag = Ag.T if a_how == "view" else Ag
    if b_how != "direct":
        Bg = to_matrix(ref.transpose(B))
        Bg = Bg.T if b_how == "view" else Bg
    Cg = to_matrix(C0)
    # a non-complemented mask: dot products at its entries (pull), a masked saxpy (push),
    # or the planner's estimate (auto)
    direction = d(st.sampled_from(["auto", "push", "pull"]), label="direction")
    desc = Descriptor(direction=direction, transpose_first=a_how == "descriptor",
                      transpose_second=b_how == "descriptor")
    Cg(mask=mask.build(), accum=accum, replace=replace, desc=desc) << Ag.mxm(Bg, sr)
    if mask.kind in ("S", "V") and direction != "auto":
        assert desc.last_direction == {"pull": "dot", "push": "gustavson"}[direction]
    assert_matches(from_matrix(Cg), [ref.writeback(C0, t, mask.spec(), accum, replace)
                                     for t in Ts],
                   tol=tolerance(odt, summing), what=f"mxm {name} mask={mask.kind}")
    assert_same_object(Ag, ref.transpose(A) if a_how == "descriptor" else A,
                       "mxm: A was modified")
    assert_same_object(Bg, ref.transpose(B) if b_how == "descriptor" else B,
                       "mxm: B was modified")

    # .new(mask=...): an empty output of the semiring's type
    got = Ag.mxm(Bg, sr).new(mask=mask.build(), desc=Descriptor(
        transpose_first=desc.transpose_first, transpose_second=desc.transpose_second))
    empty = (np.zeros((m, n), tdt), np.zeros((m, n), bool))
    assert_matches(from_matrix(got), [ref.writeback(empty, t, mask.spec()) for t in Ts],
                   tol=tolerance(tdt, summing), what=f"mxm {name} .new(mask={mask.kind})")


# ============================================================================ element-wise
EWISE_OPS = ("plus", "times", "min", "minus", "first", "second", "firsti", "secondj", "eq",
             "div", "gt", "lor")


@st.composite
def shapes(draw: st.DrawFn, ndim: int | None = None) -> tuple[int, ...]:
    ndim = draw(st.sampled_from([1, 2])) if ndim is None else ndim
    return tuple(draw(sizes) for _ in range(ndim))


def _update_or_new(data: st.DataObject, expr_of: callable, T: ref.Dense, *,
                   tol_summing: bool = False, layers: list | None = None,
                   what: str = "") -> None:
    """Materialise ``expr_of()`` with ``.new()`` or into an existing output with a random
    mask/accum/replace, and compare with the oracle's write-back of T."""
    d = data.draw
    Ts = layers if layers is not None else [T]
    tdt = T[0].dtype
    shape = T[0].shape
    if d(st.booleans(), label="use .new()"):
        got = expr_of().new()
        assert_matches(from_vector(got) if got.ndim == 1 else from_matrix(got), Ts,
                       tol=tolerance(tdt, tol_summing), what=what + " .new()")
        return
    odt = d(out_dtypes(tdt, rounding=tol_summing), label="out dtype")
    C0 = d(dense_arrays(shape, odt), label="out")
    mask = d(masks(shape), label="mask")
    accum = d(accums, label="accum")
    assume_accum_ok(accum, odt, tdt, rounding=tol_summing)
    replace = d(st.booleans(), label="replace") if mask.kind else False
    out = to_gblas(C0, d(vector_storages) if len(shape) == 1 else None)
    out(mask=mask.build(), accum=accum, replace=replace) << expr_of()
    expected = [ref.writeback(C0, t, mask.spec(), accum, replace) for t in Ts]
    got = from_vector(out) if out.ndim == 1 else from_matrix(out)
    assert_matches(got, expected, tol=tolerance(odt, tol_summing),
                   what=f"{what} mask={mask.kind} accum={accum} replace={replace}")


@given(data=st.data())
def test_ewise_vs_oracle(data: st.DataObject) -> None:
    d = data.draw
    kind = d(st.sampled_from(["ewise_add", "ewise_mult"]), label="kind")
    opname = d(st.sampled_from(EWISE_OPS), label="op")
    op = getattr(binary, opname)
    shape = d(shapes(), label="shape")
    adt, bdt = d(dtype_pairs(), label="dtypes")
    a = d(dense_arrays(shape, adt), label="a")
    b = d(dense_arrays(shape, bdt), label="b")
    storage_a, storage_b = d(vector_storages), d(vector_storages)
    ag = to_gblas(a, storage_a if len(shape) == 1 else d(st.sampled_from(MATRIX_FORMATS)))
    bg = to_gblas(b, storage_b if len(shape) == 1 else None)
    T = getattr(ref, kind)(a, b, op)
    _update_or_new(data, lambda: getattr(ag, kind)(bg, op), T, what=f"{kind} {opname}")
    assert_same_object(ag, a, "ewise: a was modified")
    assert_same_object(bg, b, "ewise: b was modified")


# ================================================================================= apply
UNARY_OPS = ("ainv", "abs", "lnot", "one", "positioni", "positionj", "identity")
BOUND_OPS = ("plus", "minus", "times", "first", "second", "min", "max", "gt", "eq")


@given(data=st.data())
def test_apply_unary_vs_oracle(data: st.DataObject) -> None:
    d = data.draw
    opname = d(st.sampled_from(UNARY_OPS), label="op")
    op = getattr(unary, opname)
    shape = d(shapes(), label="shape")
    a = d(dense_arrays(shape, d(dtypes)), label="a")
    ag = to_gblas(a, d(vector_storages) if len(shape) == 1 else None)
    T = ref.apply(a, op)
    _update_or_new(data, lambda: ag.apply(op), T, what=f"apply {opname}")
    assert_same_object(ag, a, "apply: input was modified")


@given(data=st.data())
def test_apply_bound_scalar_vs_oracle(data: st.DataObject) -> None:
    d = data.draw
    opname = d(st.sampled_from(BOUND_OPS), label="op")
    op = getattr(binary, opname)
    shape = d(shapes(), label="shape")
    adt = d(dtypes, label="dtype")
    a = d(dense_arrays(shape, adt), label="a")
    s = d(scalar_of(d(st.one_of(st.just(adt), dtypes), label="scalar dtype")), label="s")
    side = d(st.sampled_from(["left", "right"]), label="side")
    ag = to_gblas(a, d(vector_storages) if len(shape) == 1 else None)
    T = ref.apply(a, op, **{side: s})
    _update_or_new(data, lambda: ag.apply(op, **{side: s}), T,
                   what=f"apply {opname} {side}={s!r}")


# ================================================================================ select
INDEX_SELECTS = ("tril", "triu", "diag", "offdiag", "rowle", "rowgt", "colle", "colgt")
VALUE_SELECTS = ("valuegt", "valueeq", "valuele")


@given(data=st.data())
def test_select_vs_oracle(data: st.DataObject) -> None:
    d = data.draw
    opname = d(st.sampled_from(INDEX_SELECTS + VALUE_SELECTS), label="op")
    op = getattr(select, opname)
    shape = d(shapes(), label="shape")
    dt = d(dtypes, label="dtype")
    a = d(dense_arrays(shape, dt), label="a")
    if opname in VALUE_SELECTS:
        thunk = d(st.one_of(elements(dt).map(np.dtype(dt).type), elements(dt)), label="thunk")
    else:
        thunk = d(st.integers(-2, 3), label="thunk")
    by_name = d(st.booleans(), label="op by name")
    ag = to_gblas(a, d(vector_storages) if len(shape) == 1 else None)
    T = ref.select(a, op, thunk)
    _update_or_new(data, lambda: ag.select(opname if by_name else op, thunk), T,
                   what=f"select {opname} thunk={thunk!r}")
    assert_same_object(ag, a, "select: input was modified")


# ================================================================================ reduce
REDUCE_MONOIDS = ("plus", "min", "max", "lor", "any")


def _reduce_input(a: ref.Dense, mname: str) -> tuple[ref.Dense, np.dtype]:
    """The operand the oracle should fold, and the dtype to cast its result to.

    LOR is a monoid on BOOL only (GrB_LOR_MONOID_BOOL; 0 is no identity of x || y on an
    integer type), so reducing a non-bool collection with it typecasts the entries to
    BOOL and the result back (C API typecasting): a single entry -4 reduces to 1, not -4.
    The oracle folds the raw values instead (it returns the lone entry unchanged), so the
    test feeds it the BOOL-cast operand.
    """
    v, p = a
    if mname == "lor" and v.dtype.kind != "b":
        return ((v != 0), p), v.dtype
    return a, v.dtype


def _cast_pair(pair: ref.Dense, dtype: np.dtype) -> ref.Dense:
    return pair[0].astype(dtype), pair[1]


def _check_scalar(s, expected: tuple, candidates: list, dtype: np.dtype, *, summing: bool,
                  what: str) -> None:
    value, present = expected
    assert s.dtype.np_type == np.dtype(dtype), f"[{what}] dtype {s.dtype} != {dtype}"
    if not present:
        assert s.value is None, f"[{what}] expected an empty scalar, got {s.value!r}"
        return
    assert s.value is not None, f"[{what}] expected {value!r}, got an empty scalar"
    tol = tolerance(dtype, summing)
    got = np.asarray(s.value).astype(dtype)
    if tol is not None:
        ok = any(np.isclose(float(got), float(c), rtol=tol[0], atol=tol[1]) for c in candidates)
    else:
        ok = any(got == np.asarray(c).astype(dtype) for c in candidates)
    assert ok, f"[{what}] got {s.value!r}, expected {value!r} (candidates {candidates})"


@given(data=st.data())
def test_reduce_vector_vs_oracle(data: st.DataObject) -> None:
    d = data.draw
    mname = d(st.sampled_from(REDUCE_MONOIDS), label="monoid")
    mon = getattr(monoid, mname)
    dt = d(dtypes, label="dtype")
    n = d(sizes, label="size")
    a = d(dense_arrays((n,), dt), label="a")
    ag = to_vector(a, d(vector_storages))
    a_in, rdt = _reduce_input(a, mname)
    value, present = ref.reduce_vector(a_in, mon)
    value = np.asarray(value).astype(rdt)[()]
    cands = list(a[0][a[1]].astype(rdt)) if mon.is_any else [value]
    s = ag.reduce(mon).new()
    _check_scalar(s, (value, present), cands, rdt, summing=_summing(mname, rdt),
                  what=f"reduce {mname}")
    assert_same_object(ag, a, "reduce: input was modified")

    # into an existing Scalar with an accumulator: the write-back of a 1-element vector
    summing = _summing(mname, rdt)
    odt = d(out_dtypes(rdt, rounding=summing), label="scalar dtype")
    accum = d(accums, label="accum")
    assume_accum_ok(accum, odt, rdt, rounding=summing)
    s0 = d(st.one_of(st.none(), elements(odt)), label="scalar value")
    out = Scalar(odt) if s0 is None else Scalar.from_value(s0, odt)
    out(accum=accum) << ag.reduce(mon)
    C0 = ref.dense(np.asarray([0 if s0 is None else s0], odt), [s0 is not None])
    layers = [ref.writeback(C0, (np.asarray([c], rdt), np.asarray([present])), None, accum)
              for c in cands] if present else [ref.writeback(
                  C0, (np.zeros(1, rdt), np.zeros(1, bool)), None, accum)]
    (ev, ep) = layers[0]
    _check_scalar(out, (ev[0], bool(ep[0])), [L[0][0] for L in layers], np.dtype(odt),
                  summing=summing, what=f"s(accum={accum}) << reduce {mname} (s was {s0!r})")


@given(data=st.data())
def test_reduce_matrix_vs_oracle(data: st.DataObject) -> None:
    d = data.draw
    mname = d(st.sampled_from(REDUCE_MONOIDS), label="monoid")
    mon = getattr(monoid, mname)
    dt = d(dtypes, label="dtype")
    m, n = d(sizes), d(sizes)
    A = d(dense_arrays((m, n), dt), label="A")
    Ag = to_matrix(A, d(st.sampled_from(MATRIX_FORMATS)))
    axis = d(st.sampled_from(["rowwise", "columnwise", "scalar"]), label="axis")
    A_in, rdt = _reduce_input(A, mname)
    if axis == "scalar":
        value, present = ref.reduce_scalar(A_in, mon)
        value = np.asarray(value).astype(rdt)[()]
        cands = list(A[0][A[1]].astype(rdt)) if mon.is_any else [value]
        _check_scalar(Ag.reduce_scalar(mon).new(), (value, present), cands, rdt,
                      summing=_summing(mname, rdt), what=f"reduce_scalar {mname}")
        return
    if axis == "rowwise":
        T = _cast_pair(ref.reduce_rows(A_in, mon), rdt)
        pieces = [_cast_pair(ref.reduce_rows(restrict(A_in, 1, j), mon), rdt)
                  for j in range(n)]
    else:
        T = _cast_pair(ref.reduce_cols(A_in, mon), rdt)
        pieces = [_cast_pair(ref.reduce_cols(restrict(A_in, 0, i), mon), rdt)
                  for i in range(m)]
    layers = candidate_layers(pieces, T) if mon.is_any else None
    _update_or_new(data, lambda: getattr(Ag, f"reduce_{axis}")(mon), T, layers=layers,
                   tol_summing=_summing(mname, T[0].dtype), what=f"reduce_{axis} {mname}")
    assert_same_object(Ag, A, "reduce: input was modified")


# ============================================================================= transpose
@given(data=st.data())
def test_transpose_vs_oracle(data: st.DataObject) -> None:
    d = data.draw
    m, n = d(sizes), d(sizes)
    A = d(dense_arrays((m, n), d(dtypes)), label="A")
    Ag = to_matrix(A, d(st.sampled_from(MATRIX_FORMATS)))
    T = ref.transpose(A)
    assert_matches(from_matrix(Ag.T.new()), T, what="A.T.new()")
    _update_or_new(data, lambda: Ag.T, T, what="C << A.T")
    assert_same_object(Ag, A, "transpose: A was modified")
    assert_matches(from_matrix(Ag.T.T.dup()), A, what="A.T.T.dup()")
