"""The CPU row kernels behind matrix ewise_add / ewise_mult (a merge of each row pair) and
select (the kept entries compacted row by row), against SciPy and the key algebra."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from gblas import BOOL, FP64, Descriptor, Matrix, binary, select
from gblas.backend import keys as E
from gblas.formats.csr.convert import csr_keys, kept_row_pointers
from gblas.semirings.model import BinaryOp

_halfsum = BinaryOp.register_anonymous(lambda x, y: x + y / 2, "row_kernels_halfsum")


def _random(rng: np.random.Generator, n: int, m: int, nnz: int, iso: bool = False) -> Matrix:
    vals = 1.0 if iso else rng.integers(-5, 6, nnz).astype(np.float64)
    return Matrix.from_coo(rng.integers(0, n, nnz), rng.integers(0, m, nnz), vals, FP64,
                           nrows=n, ncols=m, dup_op=binary.second)


@pytest.mark.parametrize("op", [binary.plus, binary.minus, binary.gt, binary.firsti,
                                binary.secondj, _halfsum])
@pytest.mark.parametrize("name", ["ewise_add", "ewise_mult"])
def test_row_merge_equals_the_key_algebra(op: BinaryOp, name: str) -> None:
    rng = np.random.default_rng(11)
    A, B = _random(rng, 70, 90, 900), _random(rng, 70, 90, 900, iso=True)  # noqa: N806
    desc = Descriptor()
    got = getattr(A, name)(B, op).new(desc=desc)
    assert desc.last_kernel == f"{name}_row_merge"
    ca, cb = A._csr(), B._csr()
    fn = E.union if name == "ewise_add" else E.intersect
    keys, vals = fn(csr_keys(ca), ca.full_values(), csr_keys(cb), cb.full_values(), op,
                    got.dtype, A.ncols)
    r, c, v = got.to_coo()
    np.testing.assert_array_equal(r * A.ncols + c, keys)
    np.testing.assert_array_equal(v, vals)


def test_row_merge_of_empty_and_mixed_types() -> None:
    rng = np.random.default_rng(12)
    A = _random(rng, 30, 40, 200)  # noqa: N806
    E0 = Matrix(BOOL, 30, 40)  # noqa: N806
    assert A.ewise_mult(E0, binary.times).new().nvals == 0
    u = A.ewise_add(E0, binary.plus).new()
    assert u.dtype == FP64 and u.isequal(A)
    Z = Matrix(FP64, 0, 40)  # noqa: N806
    assert Z.ewise_add(Z, binary.plus).new().nvals == 0
    S = sp.random(30, 40, density=0.2, random_state=3, format="csr")  # noqa: N806
    T = sp.random(30, 40, density=0.2, random_state=4, format="csr")  # noqa: N806
    from gblas.io import from_scipy_sparse  # noqa: PLC0415

    got = from_scipy_sparse(S).ewise_add(from_scipy_sparse(T), binary.plus).new()
    np.testing.assert_allclose(got.to_scipy_sparse().toarray(), (S + T).toarray())


@pytest.mark.parametrize("iso", [False, True])
def test_select_keeps_entries_row_by_row(iso: bool) -> None:
    rng = np.random.default_rng(13)
    A = _random(rng, 50, 60, 1500, iso=iso)  # noqa: N806
    thunk = 0.5 if iso else 1.0
    got = A.select(select.valuegt, thunk).new()
    r, c, v = A.to_coo()
    keep = v > thunk
    gr, gc, gv = got.to_coo()
    np.testing.assert_array_equal(gr, r[keep])
    np.testing.assert_array_equal(gc, c[keep])
    np.testing.assert_array_equal(gv, v[keep])
    assert got._csr().is_iso == iso
    # the GPU's row pointers (a running count of the kept), computed here on NumPy
    np.testing.assert_array_equal(kept_row_pointers(A._csr().indptr, keep), got._csr().indptr)
    assert A.select(select.valueeq, 99.0).new().nvals == 0
