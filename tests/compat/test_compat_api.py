"""gblas's python-graphblas spellings on their own: results against NumPy, error paths, and
that the composed operations honour masks and accumulators."""

from __future__ import annotations

import numpy as np
import pytest

import gblas as gb
from gblas import Matrix, Vector, agg, binary, monoid, semiring, unary
from gblas.exceptions import (
    DimensionMismatch,
    DomainMismatch,
    InvalidObject,
    InvalidValue,
)


def dense(A: Matrix) -> np.ndarray:
    return A.to_dense(fill_value=0)


@pytest.fixture
def A() -> Matrix:  # noqa: N802
    return Matrix.from_coo([0, 0, 1, 2], [1, 2, 2, 0], [1, 2, 3, 4], nrows=3, ncols=3)


def test_ewise_union_against_numpy(A: Matrix) -> None:  # noqa: N803
    B = Matrix.from_coo([0, 1], [1, 1], [10, 20], nrows=3, ncols=3)  # noqa: N806
    got = A.ewise_union(B, binary.minus, 100, 1000).new()
    pa, pb = dense(A) != 0, dense(B) != 0
    want = np.where(pa & pb, dense(A) - dense(B),
                    np.where(pa, dense(A) - 1000, np.where(pb, 100 - dense(B), 0)))
    assert got.nvals == (pa | pb).sum()
    assert (dense(got) == want).all()


def test_ewise_union_masked_and_accumulated(A: Matrix) -> None:  # noqa: N803
    B = Matrix.from_coo([0, 1], [1, 1], [10, 20], nrows=3, ncols=3)  # noqa: N806
    M = Matrix.from_coo([0, 1], [1, 1], True, nrows=3, ncols=3)  # noqa: N806
    C = A.dup()  # noqa: N806
    C(M.S, accum=binary.plus) << A.ewise_union(B, binary.plus, 0, 0)
    assert C.to_dicts() == {0: {1: 12, 2: 2}, 1: {1: 20, 2: 3}, 2: {0: 4}}


def test_ewise_union_errors(A: Matrix) -> None:  # noqa: N803
    with pytest.raises(InvalidValue, match="left_default and right_default"):
        A.ewise_union(A, binary.plus, None, 0)
    with pytest.raises(DimensionMismatch, match="shapes"):
        A.ewise_union(Matrix(int, 2, 2), binary.plus, 0, 0)
    with pytest.raises(DomainMismatch, match="BinaryOp or Monoid"):
        A.ewise_union(A, semiring.plus_times, 0, 0)
    with pytest.raises(DomainMismatch, match="unknown operator name 'nosuch'"):
        A.ewise_union(A, "nosuch", 0, 0)


def test_kronecker_against_numpy(A: Matrix) -> None:  # noqa: N803
    B = Matrix.from_coo([0, 1, 1], [0, 0, 1], [3, 4, 5], nrows=2, ncols=2)  # noqa: N806
    assert (dense(A.kronecker(B).new()) == np.kron(dense(A), dense(B))).all()
    with pytest.raises(DimensionMismatch):
        A.kronecker(Vector(int, 3))


def test_power_against_numpy(A: Matrix) -> None:  # noqa: N803
    for n in (1, 2, 3, 5, 8):
        assert (dense(A.power(n).new()) == np.linalg.matrix_power(dense(A), n)).all()
    with pytest.raises(InvalidValue, match="n >= 1"):
        A.power(0)
    with pytest.raises(DimensionMismatch, match="square"):
        Matrix(int, 2, 3).power(2)


def test_diag_round_trip(A: Matrix) -> None:  # noqa: N803
    for k in (-2, -1, 0, 1, 2, 5):
        d = A.diag(k)
        assert (d.to_dense(fill_value=0) == np.diag(dense(A), k)).all()
        assert (dense(d.diag(k)) == np.diag(np.diag(dense(A), k), k)).all()
    assert A.T.diag(1).isequal(A.diag(-1))
    with pytest.raises(InvalidValue, match="integer"):
        A.diag(1.5)


def test_outer_masked(A: Matrix) -> None:  # noqa: N803
    u = Vector.from_coo([0, 2], [2, 3], size=3)
    w = Vector.from_coo([1, 2], [5, 7], size=3)
    C = Matrix(int, 3, 3)  # noqa: N806
    C(A.S) << u.outer(w)
    assert C.to_dicts() == {0: {1: 10, 2: 14}}
    with pytest.raises(DimensionMismatch, match="two vectors"):
        u.outer(A)


def test_replace_sentinel(A: Matrix) -> None:  # noqa: N803
    M = Matrix.from_coo([0], [1], True, nrows=3, ncols=3)  # noqa: N806
    C = A.dup()  # noqa: N806
    C(M.S, gb.replace) << A.apply(unary.ainv)
    assert C.to_dicts() == {0: {1: -1}}
    with pytest.raises(InvalidValue, match="needs a mask"):
        A(gb.replace)


def test_op_namespace_and_strings() -> None:
    assert gb.op.plus is binary.plus and gb.op.abs is unary.abs
    assert gb.op.min_plus is semiring.min_plus and "tril" in gb.op
    with pytest.raises(AttributeError, match="no operator"):
        gb.op.nosuch  # noqa: B018
    v = Vector.from_coo([0, 1], [3, 4], size=2)
    assert v.reduce("+").value == 7 and v.reduce("max").value == 4
    assert v.reduce("count").value == 2
    assert v.apply("-").new().to_dict() == {0: -3, 1: -4}
    assert v.apply("*", right=2).new().to_dict() == {0: 6, 1: 8}
    with pytest.raises(DomainMismatch, match="unknown operator name"):
        v.reduce("nosuch")


def test_operator_calls_and_infix_errors(A: Matrix) -> None:  # noqa: N803
    v = Vector(int, 3)
    with pytest.raises(DimensionMismatch, match="shapes"):
        A | Matrix(int, 2, 2)  # noqa: B015
    with pytest.raises(DomainMismatch, match="two Vectors or two Matrices"):
        A | 1  # noqa: B015
    with pytest.raises(InvalidObject, match="left_default"):
        binary.minus(A | A, left_default=0)
    with pytest.raises(InvalidObject, match="infix expression"):
        monoid.plus(v)
    with pytest.raises(DomainMismatch, match="BOOL"):
        A ^ A  # noqa: B015
    # identity still hashes: a collection may be a dict key
    assert {A: 1}[A] == 1


def test_agg_against_numpy() -> None:
    rng = np.random.default_rng(0)
    vals = rng.normal(size=40)
    rows = np.repeat(np.arange(8), 5)
    cols = np.tile(np.arange(5), 8)
    M = Matrix.from_coo(rows, cols, vals, nrows=9, ncols=5)  # noqa: N806
    table = vals.reshape(8, 5)
    checks = {agg.mean: table.mean(1), agg.varp: table.var(1), agg.vars: table.var(1, ddof=1),
              agg.stdp: table.std(1), agg.L2norm: np.linalg.norm(table, axis=1),
              agg.L1norm: np.abs(table).sum(1), agg.peak_to_peak: np.ptp(table, 1),
              agg.count: np.full(8, 5)}
    for a, want in checks.items():
        got = M.reduce_rowwise(a).new()
        assert got.nvals == 8, a  # row 8 has no entries: no result
        assert np.allclose(got.to_coo()[1], want), a
    assert np.isclose(M.reduce_scalar(agg.varp).new().value, vals.var())
    assert M.T.reduce_columnwise(agg.count).new().to_coo()[1].tolist() == [5] * 8


def test_agg_errors() -> None:
    B = Matrix.from_coo([0], [0], True, nrows=1, ncols=1)  # noqa: N806
    with pytest.raises(DomainMismatch, match="agg.mean does not work on BOOL"):
        B.reduce_rowwise(agg.mean)
    with pytest.raises(AttributeError, match="no aggregator 'argmax'"):
        agg.argmax  # noqa: B018
    with pytest.raises(DomainMismatch, match="Semiring"):
        B.mxm(B, agg.count)


def test_conversions_round_trip(A: Matrix) -> None:  # noqa: N803
    assert Matrix.from_dicts(A.to_dicts(), nrows=3, ncols=3).isequal(A)
    assert Matrix.from_dicts(A.T.to_dicts(), order="columnwise").isequal(A)
    assert Matrix.from_csc(*A.to_csc(), nrows=3).isequal(A)
    edges, vals = A.to_edgelist()
    assert Matrix.from_edgelist(edges, vals, nrows=3, ncols=3).isequal(A)
    with pytest.raises(DimensionMismatch, match=r"\(n, 2\)"):
        Matrix.from_edgelist([[0, 1, 2]])
    with pytest.raises(InvalidValue, match="rowwise"):
        A.to_dicts(order="diagonal")
    v = Vector.from_dict({3: 1.5, 0: 2.5}, size=5)
    assert v.to_dict() == {0: 2.5, 3: 1.5}
    assert Vector.from_scalar(2, 3).to_dense().tolist() == [2, 2, 2]
    assert Matrix.from_scalar(True, 2, 2).nvals == 4
    with pytest.raises(InvalidValue, match="size"):
        Vector.from_scalar(1, -1)


def test_dup_clear_and_mask(A: Matrix) -> None:  # noqa: N803
    M = Matrix.from_coo([0, 2], [2, 0], True, nrows=3, ncols=3)  # noqa: N806
    assert A.dup(clear=True).nvals == 0 and A.dup(clear=True).shape == A.shape
    assert A.dup(float, mask=M.S).to_dicts() == {0: {2: 2.0}, 2: {0: 4.0}}
    assert A.wait() is A
