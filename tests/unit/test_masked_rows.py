"""Row-wise masked kernels (gblas/formats/csr/masked.py) against dense references, and the
operations that use them: a masked ewise over a sparse mask, ``C⟨M⟩ = T`` write-backs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gblas as gb
from gblas import Descriptor, Matrix, binary
from gblas.dtypes import BOOL, FP64, INT64
from gblas.formats.csr.container import CSR
from gblas.formats.csr.masked import masked_product_work, merge_under_mask, restrict
from gblas.ops.mxm import _dot_is_cheaper, _dot_surely_cheaper, line_counts, mask_pattern


def csr_of(pres: np.ndarray, vals: np.ndarray | None, dt, iso=None) -> CSR:
    indptr = np.concatenate(([0], np.cumsum(pres.sum(axis=1)))).astype(np.int64)
    _, cols = np.nonzero(pres)
    return CSR(pres.shape[0], pres.shape[1], indptr, cols.astype(np.int64),
               None if vals is None else vals[pres].astype(dt.np_type), dt, iso)


def dense_of(A: CSR) -> tuple[np.ndarray, np.ndarray]:  # noqa: N803
    pres = np.zeros((A.nrows, A.ncols), bool)
    vals = np.zeros((A.nrows, A.ncols), A.dtype.np_type)
    rows = np.repeat(np.arange(A.nrows), np.diff(A.indptr))
    pres[rows, A.indices] = True
    vals[rows, A.indices] = A.full_values()
    for i in range(A.nrows):  # canonical: sorted, unique columns per row
        assert np.all(np.diff(A.indices[A.indptr[i]:A.indptr[i + 1]]) > 0)
    return pres, vals


shapes = st.tuples(st.integers(0, 9), st.integers(0, 70))


@settings(max_examples=60, deadline=None)
@given(shape=shapes, seed=st.integers(0, 2**32 - 1), iso=st.booleans())
def test_restrict_matches_dense(shape, seed, iso):
    rng = np.random.default_rng(seed)
    m, n = shape
    ap, pp = rng.random((m, n)) < rng.random(), rng.random((m, n)) < rng.random()
    av = rng.integers(-5, 5, (m, n)).astype(np.float64)
    A = csr_of(ap, None if iso else av, FP64, 2.5 if iso else None)  # noqa: N806
    R = restrict(A, csr_of(pp, None, BOOL, True))  # noqa: N806
    rp, rv = dense_of(R)
    assert np.array_equal(rp, ap & pp)
    assert R.is_iso == iso
    assert np.array_equal(rv[rp], (np.full((m, n), 2.5) if iso else av)[rp])


@settings(max_examples=80, deadline=None)
@given(shape=shapes, seed=st.integers(0, 2**32 - 1), structure=st.booleans(),
       mask_applied=st.booleans(), c_iso=st.booleans(), t_iso=st.booleans())
def test_merge_under_mask_matches_dense(shape, seed, structure, mask_applied, c_iso, t_iso):
    rng = np.random.default_rng(seed)
    m, n = shape
    cp_, tp, mp = (rng.random((m, n)) < rng.random() for _ in range(3))
    mv = rng.integers(0, 2, (m, n)).astype(np.int64)  # value mask: zeros forbid
    allowed = mp if structure else mp & (mv != 0)
    if mask_applied:
        tp &= allowed  # T lies inside the mask, as a kernel that applied it promises
    cv = rng.integers(-9, 9, (m, n)).astype(np.int64)
    tv = rng.random((m, n)) * 10  # FP64 into an INT64 C: cast as GraphBLAS casts
    C = csr_of(cp_, None if c_iso else cv, INT64, 3 if c_iso else None)  # noqa: N806
    T = csr_of(tp, None if t_iso else tv, FP64, 3.0 if t_iso else None)  # noqa: N806
    M = csr_of(mp, mv, INT64)  # noqa: N806
    out = merge_under_mask(C, T, M, structure, mask_applied)
    op, ov = dense_of(out)
    c_full = np.full((m, n), 3) if c_iso else cv
    t_full = np.full((m, n), 3.0) if t_iso else tv
    want_p = (cp_ & ~allowed) | (tp & allowed)
    want_v = np.where(tp & allowed, t_full.astype(np.int64), c_full)
    assert np.array_equal(op, want_p)
    assert np.array_equal(ov[op], want_v[op])
    assert out.dtype == INT64
    assert out.is_iso == (c_iso and t_iso)  # both 3: the result keeps one value


def test_ops_take_the_row_wise_paths():
    """A masked ewise over a mask much sparser than its operands merges only at the mask's
    positions, and a masked update merges rows: same results as without the mask."""
    rng = np.random.default_rng(3)
    n = 200
    dense_a = (rng.random((8, n)) < 0.5) * rng.integers(1, 9, (8, n))
    dense_b = (rng.random((8, n)) < 0.5) * rng.integers(1, 9, (8, n))
    A = Matrix.from_dense(dense_a.astype(float), missing_value=0)  # noqa: N806
    B = Matrix.from_dense(dense_b.astype(float), missing_value=0)  # noqa: N806
    r, c = np.nonzero(rng.random((8, n)) < 0.05)
    M = Matrix.from_coo(r, c, True, nrows=8, ncols=n)  # noqa: N806
    desc = Descriptor()
    got = A.ewise_mult(B, binary.truediv).new(mask=M.S, desc=desc)
    assert desc.last_kernel == "ewise_mult_restricted_row_merge"
    full = A.ewise_mult(B, binary.truediv).new()
    want = Matrix(gb.FP64, 8, n)
    want(M.S) << full
    assert got.isequal(want)
    C = A.dup()  # noqa: N806
    C(M.S) << B
    expect = np.where(np.isin(np.arange(8 * n), r * n + c).reshape(8, n), dense_b, dense_a)
    assert C.isequal(Matrix.from_dense(expect.astype(float), missing_value=0))


@pytest.mark.parametrize("structure", [True, False])
def test_value_mask_with_explicit_zeros(structure):
    M = Matrix.from_coo([0, 0, 1], [0, 1, 1], [1, 0, 2], nrows=2, ncols=2)  # noqa: N806
    C = Matrix.from_coo([0, 0, 1], [0, 1, 0], [7, 8, 9], nrows=2, ncols=2)  # noqa: N806
    T = Matrix.from_coo([0, 0, 1], [0, 1, 1], [1, 2, 3], nrows=2, ncols=2)  # noqa: N806
    C(M.S if structure else M.V) << T
    got = dict(zip(zip(*C.to_coo()[:2], strict=True), C.to_coo()[2], strict=True))
    want = {(0, 0): 1, (0, 1): 2 if structure else 8, (1, 0): 9, (1, 1): 3}
    assert {(int(i), int(j)): int(v) for (i, j), v in got.items()} == want


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), m=st.integers(0, 12), k=st.integers(0, 90),
       n=st.integers(0, 12))
def test_masked_product_work_matches_its_definition(seed, m, k, n):
    """dot: Σ over M's entries of a merge (la + lb) or a gallop (lo·(log2(hi+1)+1) when
    hi > 32·lo); saxpy: Σ over A's entries in M's non-empty rows of |B(k,:)|, + nnz(M)."""
    rng = np.random.default_rng(seed)
    ap, bp, mp = (rng.random(s) < rng.random() for s in ((m, k), (k, n), (m, n)))
    A, M = (csr_of(p, None, BOOL, True) for p in (ap, mp))  # noqa: N806
    len_bt = bp.sum(axis=0)
    dot = 0.0
    for i, j in zip(*np.nonzero(mp), strict=True):
        la, lb = ap[i].sum(), len_bt[j]
        lo, hi = min(la, lb), max(la, lb)
        dot += lo * (np.log2(hi + 1.0) + 1.0) if hi > 32 * lo else lo + hi
    saxpy = sum(bp[kk].sum() for i in range(m) if mp[i].any() for kk in np.flatnonzero(ap[i]))
    got = masked_product_work(A, M, bp.sum(axis=1), len_bt)
    assert got[0] == pytest.approx(dot) and got[1] == saxpy + mp.sum()


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), m=st.integers(0, 12), k=st.integers(0, 90),
       n=st.integers(0, 12), same=st.booleans(), transposed=st.booleans())
def test_dot_bound_never_overrules_the_estimate(seed, m, k, n, same, transposed):
    """mxm's O(n) shortcut picks dot products only where the exact work estimate would:
    its merge bound is at least the dot estimate and its saxpy bound at most the saxpy
    estimate. ``same``: triangle counting's shape (A, B = A.T and the mask all one L)."""
    rng = np.random.default_rng(seed)
    if same:
        m = n = k
    dens = rng.random(3) ** 2

    def mat(r: int, c: int, d: float) -> Matrix:
        rows, cols = np.nonzero(rng.random((r, c)) < d)
        return Matrix.from_coo(rows, cols, True, nrows=r, ncols=c)

    A = mat(m, k, dens[0])  # noqa: N806
    B = A.T if same else (mat(n, k, dens[1]).T if transposed else mat(k, n, dens[1]))  # noqa: N806
    M = A if same else mat(m, n, dens[2])  # noqa: N806
    for X, cols in ((A, True), (M, True), (B, False), (B, True)):  # noqa: N806
        line_counts(X, cols)  # cache the counts the shortcut reads
    mask = M.S
    len_b, len_bt = line_counts(B, False), line_counts(B, True)
    if _dot_surely_cheaper(A, mask, len_b, len_bt):
        assert _dot_is_cheaper(A._csr(), mask_pattern(mask), len_b, len_bt)
    assert not _dot_surely_cheaper(A, M.V, len_b, len_bt)  # value masks: no shortcut
