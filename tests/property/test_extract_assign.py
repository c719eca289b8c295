"""Property tests: extract (v[I], A[I, J], A[i, J], A[I, j]) and assign (GrB_assign)
against the oracle, with duplicate indices, masks, accumulators and replace."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from gblas.ops import reference as ref

from .strategies import (
    MATRIX_FORMATS,
    accums,
    assert_matches,
    assert_same_object,
    assume_accum_ok,
    dense_arrays,
    dtypes,
    from_matrix,
    from_vector,
    last_occurrence_present,
    masks,
    out_dtypes,
    scalar_of,
    sizes,
    small_sizes,
    to_gblas,
    to_matrix,
    to_vector,
    vector_storages,
)


@st.composite
def index_lists(draw: st.DrawFn, n: int, max_len: int = 8) -> list[int] | np.ndarray:
    """Indices into 0..n-1 (duplicates likely, or none: a permuted subset, which
    A[I, J] takes by a column map), as a list or an int32/int64 array."""
    if n == 0:
        return []
    distinct = draw(st.booleans(), label="distinct")
    idx = draw(st.lists(st.integers(0, n - 1), max_size=min(max_len, n) if distinct else max_len,
                        unique=distinct))
    form = draw(st.sampled_from(["list", "int64", "int32"]))
    return idx if form == "list" else np.asarray(idx, dtype=form)


def _materialise(data: st.DataObject, expr_of, T: ref.Dense, what: str) -> None:
    """``expr.new()`` or ``out(mask, accum, replace) << expr`` against the oracle."""
    d = data.draw
    if d(st.booleans(), label="use .new()"):
        got = expr_of().new()
        assert_matches(from_vector(got) if got.ndim == 1 else from_matrix(got), T,
                       what=what + " .new()")
        return
    tdt = T[0].dtype
    shape = T[0].shape
    odt = d(out_dtypes(tdt), label="out dtype")
    C0 = d(dense_arrays(shape, odt), label="out")
    mask = d(masks(shape), label="mask")
    accum = d(accums, label="accum")
    assume_accum_ok(accum, odt, tdt)
    replace = d(st.booleans(), label="replace") if mask.kind else False
    out = to_gblas(C0, d(vector_storages) if len(shape) == 1 else None)
    out(mask=mask.build(), accum=accum, replace=replace) << expr_of()
    got = from_vector(out) if out.ndim == 1 else from_matrix(out)
    assert_matches(got, ref.writeback(C0, T, mask.spec(), accum, replace),
                   what=f"{what} mask={mask.kind} accum={accum} replace={replace}")


# =============================================================================== extract
@given(data=st.data())
def test_extract_vector_vs_oracle(data: st.DataObject) -> None:
    d = data.draw
    n = d(sizes, label="n")
    a = d(dense_arrays((n,), d(dtypes)), label="v")
    I = d(index_lists(n), label="I")  # noqa: N806
    vg = to_vector(a, d(vector_storages))
    _materialise(data, lambda: vg[I], ref.extract_vector(a, I), f"v[{list(I)}]")
    assert_same_object(vg, a, "extract: v was modified")


@given(data=st.data())
def test_extract_matrix_vs_oracle(data: st.DataObject) -> None:
    d = data.draw
    m, n = d(sizes), d(sizes)
    A = d(dense_arrays((m, n), d(dtypes)), label="A")
    Ag = to_matrix(A, d(st.sampled_from(MATRIX_FORMATS)))
    kind = d(st.sampled_from(["IJ", "iJ", "Ij"]), label="kind")
    if kind == "iJ" and m > 0:
        i = d(st.integers(0, m - 1), label="i")
        J = d(index_lists(n), label="J")  # noqa: N806
        _materialise(data, lambda: Ag[i, J], ref.extract_row(A, i, J), f"A[{i}, {list(J)}]")
    elif kind == "Ij" and n > 0:
        j = d(st.integers(0, n - 1), label="j")
        I = d(index_lists(m), label="I")  # noqa: N806
        _materialise(data, lambda: Ag[I, j], ref.extract_col(A, I, j), f"A[{list(I)}, {j}]")
    else:
        I = d(index_lists(m), label="I")  # noqa: N806
        J = d(index_lists(n), label="J")  # noqa: N806
        _materialise(data, lambda: Ag[I, J], ref.extract_matrix(A, I, J),
                     f"A[{list(I)}, {list(J)}]")
    assert_same_object(Ag, A, "extract: A was modified")


# ================================================================================ assign
def _assign_setup(data: st.DataObject, shape: tuple[int, ...], operand_dtype: np.dtype,
                  *, masked: bool = True, out_dtype: np.dtype | None = None):
    """Output, mask, accum, replace for an assign of values of ``operand_dtype``."""
    d = data.draw
    odt = out_dtype if out_dtype is not None else d(out_dtypes(operand_dtype),
                                                     label="out dtype")
    C0 = d(dense_arrays(shape, odt), label="C")
    mask = d(masks(shape), label="mask") if masked else d(masks(shape, kinds=(None,)))
    accum = d(accums, label="accum")
    assume_accum_ok(accum, odt, operand_dtype)
    replace = d(st.booleans(), label="replace") if mask.kind else False
    return C0, mask, accum, replace


@given(data=st.data())
def test_assign_vector_vs_oracle(data: st.DataObject) -> None:
    """``w(mask, accum, replace)[I] << u``: GrB_Vector_assign (mask over all of w)."""
    d = data.draw
    n = d(sizes, label="n")
    I = d(index_lists(n), label="I")  # noqa: N806
    udt = d(dtypes, label="u dtype")
    u = last_occurrence_present(d(dense_arrays((len(I),), udt), label="u"), [I])
    C0, mask, accum, replace = _assign_setup(data, (n,), u[0].dtype)
    w = to_vector(C0, d(vector_storages))
    ug = to_vector(u, d(vector_storages))
    w(mask=mask.build(), accum=accum, replace=replace)[I] << ug
    expected = ref.assign_vector(C0, I, u, mask=mask.spec(), accum=accum, replace=replace)
    assert_matches(from_vector(w), expected,
                   what=f"w[{list(I)}] << u mask={mask.kind} accum={accum} replace={replace}")
    assert_same_object(ug, u, "assign: u was modified")


@given(data=st.data())
def test_assign_vector_scalar_vs_oracle(data: st.DataObject) -> None:
    """``w(mask, accum, replace)[I] << s`` and ``w(mask, accum, replace) << s``."""
    d = data.draw
    n = d(sizes, label="n")
    whole = d(st.sampled_from(["I", "all", "slice"]), label="region")
    I = d(index_lists(n), label="I") if whole == "I" else None  # noqa: N806
    odt = d(dtypes, label="out dtype")
    s = d(scalar_of(odt), label="scalar")
    C0, mask, accum, replace = _assign_setup(data, (n,), np.dtype(odt), out_dtype=odt)
    w = to_vector(C0, d(vector_storages))
    target = w(mask=mask.build(), accum=accum, replace=replace)
    if whole == "all":
        target << s
    elif whole == "slice":
        target[:] << s
    else:
        target[I] << s
    expected = ref.assign_vector(C0, I, s, mask=mask.spec(), accum=accum, replace=replace)
    assert_matches(from_vector(w), expected,
                   what=f"w[{whole}:{I}] << {s!r} mask={mask.kind} accum={accum} "
                        f"replace={replace}")


@given(data=st.data())
def test_assign_matrix_vs_oracle(data: st.DataObject) -> None:
    """``C(mask, accum, replace)[I, J] << B`` and ``<< scalar`` (GrB_Matrix_assign)."""
    d = data.draw
    m, n = d(small_sizes), d(small_sizes)
    I = d(index_lists(m, 5), label="I")  # noqa: N806
    J = d(index_lists(n, 5), label="J")  # noqa: N806
    use_scalar = d(st.booleans(), label="scalar operand")
    if use_scalar:
        odt = d(dtypes, label="C dtype")
        B = d(scalar_of(odt), label="s")
        bdt = odt
    else:
        bdt = d(dtypes, label="B dtype")
        B = last_occurrence_present(d(dense_arrays((len(I), len(J)), bdt), label="B"),
                                    [I, J])
    C0, mask, accum, replace = _assign_setup(data, (m, n), np.dtype(bdt),
                                             out_dtype=bdt if use_scalar else None)
    Cg = to_matrix(C0, d(st.sampled_from(MATRIX_FORMATS)))
    Bg = B if use_scalar else to_matrix(B)
    Cg(mask=mask.build(), accum=accum, replace=replace)[I, J] << Bg
    expected = ref.assign_matrix(C0, I, J, B, mask=mask.spec(), accum=accum, replace=replace)
    assert_matches(from_matrix(Cg), expected,
                   what=f"C[{list(I)}, {list(J)}] << {'s' if use_scalar else 'B'} "
                        f"mask={mask.kind} accum={accum} replace={replace}")


@given(data=st.data())
def test_assign_row_col_vs_oracle(data: st.DataObject) -> None:
    """``C(accum)[i, J] << u`` (GrB_Row_assign) and ``C(accum)[I, j] << u`` (Col_assign)."""
    d = data.draw
    m, n = d(st.integers(1, 6)), d(st.integers(1, 6))
    kind = d(st.sampled_from(["row", "col"]), label="kind")
    udt = d(dtypes, label="u dtype")
    if kind == "row":
        i = d(st.integers(0, m - 1), label="i")
        J = d(index_lists(n, 6), label="J")  # noqa: N806
        u = last_occurrence_present(d(dense_arrays((len(J),), udt), label="u"), [J])
    else:
        j = d(st.integers(0, n - 1), label="j")
        I = d(index_lists(m, 6), label="I")  # noqa: N806
        u = last_occurrence_present(d(dense_arrays((len(I),), udt), label="u"), [I])
    C0, _, accum, _ = _assign_setup(data, (m, n), np.dtype(udt), masked=False)
    Cg = to_matrix(C0, d(st.sampled_from(MATRIX_FORMATS)))
    ug = to_vector(u, d(vector_storages))
    if kind == "row":
        Cg(accum=accum)[i, J] << ug
        expected = ref.assign_row(C0, i, J, u, accum=accum)
        what = f"C[{i}, {list(J)}] << u accum={accum}"
    else:
        Cg(accum=accum)[I, j] << ug
        expected = ref.assign_col(C0, I, j, u, accum=accum)
        what = f"C[{list(I)}, {j}] << u accum={accum}"
    assert_matches(from_matrix(Cg), expected, what=what)


@given(data=st.data())
def test_setitem_element_vs_oracle(data: st.DataObject) -> None:
    """``w[i] = s`` / ``A[i, j] = s`` and ``del`` on single elements."""
    d = data.draw
    shape = (d(st.integers(1, 6)),) if d(st.booleans()) else (d(st.integers(1, 5)),
                                                              d(st.integers(1, 5)))
    dt = d(dtypes, label="dtype")
    C0 = d(dense_arrays(shape, dt), label="C")
    pos = tuple(d(st.integers(0, k - 1)) for k in shape)
    s = d(scalar_of(dt), label="s")
    obj = to_gblas(C0, d(vector_storages) if len(shape) == 1 else None)
    v, p = C0[0].copy(), C0[1].copy()
    if d(st.booleans(), label="delete"):
        del obj[pos if len(shape) == 2 else pos[0]]
        p[pos] = False
        v[pos] = 0
    else:
        obj[pos if len(shape) == 2 else pos[0]] = s
        v[pos] = np.asarray(s).astype(dt)
        p[pos] = True
    assert_matches(from_vector(obj) if obj.ndim == 1 else from_matrix(obj), (v, p),
                   what=f"element {pos}")
    got = obj[pos if len(shape) == 2 else pos[0]].value
    if p[pos]:
        assert got is not None and np.asarray(got).astype(dt) == v[pos]
    else:
        assert got is None



@given(seed=st.integers(0, 2**31), nrows=st.integers(0, 40), ncols=st.integers(1, 40),
       subset=st.booleans(), iso=st.booleans())
def test_device_distinct_extract_logic_vs_numba(seed: int, nrows: int, ncols: int,
                                                subset: bool, iso: bool) -> None:
    """The GPU's A[I, J] for distinct J (array primitives and one composite-key sort) gives
    the Numba gather's CSR; run here on NumPy arrays, which the same code accepts."""
    from gblas import Matrix, binary  # noqa: PLC0415
    from gblas.ops.extract import _distinct_submatrix_device, distinct_submatrix  # noqa: PLC0415

    rng = np.random.default_rng(seed)
    nnz = int(rng.integers(0, 3 * max(nrows, 1) * 3))
    A = Matrix.from_coo(rng.integers(0, max(nrows, 1), nnz) if nrows else [],  # noqa: N806
                        rng.integers(0, ncols, nnz) if nrows else [],
                        1.0 if iso else rng.random(nnz if nrows else 0), nrows=nrows,
                        ncols=ncols, dup_op=binary.plus)
    csr = A._csr()
    I = rng.integers(0, nrows, int(rng.integers(0, 2 * nrows + 1))) if nrows else \
        np.zeros(0, np.int64)  # noqa: E741, N806
    J = rng.permutation(ncols)[: int(rng.integers(1, ncols + 1))] if subset else \
        rng.permutation(ncols)  # noqa: N806
    want = distinct_submatrix(csr, I, J)
    got = _distinct_submatrix_device(csr, I, J)
    for a, b in ((want.indptr, got.indptr), (want.indices, got.indices),
                 (want.full_values(), got.full_values())):
        np.testing.assert_array_equal(a, b)
    assert (want.nrows, want.ncols, want.is_iso) == (got.nrows, got.ncols, got.is_iso)
    assert _distinct_submatrix_device(csr, I, np.array([0, 0])) is None
