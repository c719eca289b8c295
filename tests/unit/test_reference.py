"""Hand-computed cases for the reference oracle (gblas.ops.reference)."""

from __future__ import annotations

import numpy as np
import pytest

from gblas.exceptions import DimensionMismatch, IndexOutOfBound
from gblas.ops import reference as ref
from gblas.ops.reference import assert_equal, dense
from gblas.semirings import binary, monoid, select, semiring, unary

_ = False  # absent marker in `present` arrays


def D(values, present=None, dtype=None):
    return dense(values, present, dtype)


# A = [[1, ., 2],
#      [., ., .],
#      [3, 4, .]]
A = D([[1, 0, 2], [0, 0, 0], [3, 4, 0]], [[1, _, 1], [_, _, _], [1, 1, _]], "int64")
X = D([10, 20, 30], [1, 1, _], "int64")


# ---------------------------------------------------------------------------- mxv, vxm
def test_mxv_plus_times():
    assert_equal(ref.mxv(A, X, semiring.plus_times), D([10, 0, 110], [1, _, 1], "int64"))


def test_mxv_min_plus_and_float_promotion():
    x = D([0.5, 1.5, 2.5], [1, 1, 1], "float64")
    assert_equal(ref.mxv(A, x, semiring.min_plus), D([1.5, 0, 3.5], [1, _, 1], "float64"))


def test_mxv_bool_plus_is_lor():
    B = D([[True, True], [False, True]], [[1, 1], [_, 1]], bool)
    x = D([True, True], dtype=bool)
    # plus_times on BOOL is lor_land: 1 + 1 is True, not 2, and the type stays BOOL
    assert_equal(ref.mxv(B, x, semiring.plus_times), D([True, True], dtype=bool))
    assert_equal(ref.mxv(B, x, semiring.plus_pair), D([True, True], dtype=bool))


def test_mxv_positional():
    # any_secondi: secondi is k (the index of x); any keeps the first k in the oracle
    assert_equal(ref.mxv(A, X, semiring.any_secondi), D([0, 0, 0], [1, _, 1], "int64"))
    assert_equal(ref.mxv(A, X, semiring.max_secondi), D([0, 0, 1], [1, _, 1], "int64"))
    assert_equal(ref.mxv(A, X, semiring.min_firsti), D([0, 0, 2], [1, _, 1], "int64"))
    assert_equal(ref.mxv(A, X, semiring.max_firstj), D([0, 0, 1], [1, _, 1], "int64"))
    assert_equal(ref.mxv(A, X, semiring.min_secondj), D([0, 0, 0], [1, _, 1], "int64"))
    assert_equal(ref.mxv(A, X, semiring.min_secondi1), D([1, 0, 1], [1, _, 1], "int64"))


def test_vxm():
    x = D([1, 2, 3], [1, _, 1], "int64")
    assert_equal(ref.vxm(x, A, semiring.plus_times), D([10, 12, 2], dtype="int64"))
    assert_equal(ref.vxm(x, A, semiring.any_secondi), D([0, 2, 0], dtype="int64"))
    assert_equal(ref.vxm(x, A, semiring.min_firsti), D([0, 0, 0], dtype="int64"))
    assert_equal(ref.vxm(x, A, semiring.max_secondj), D([0, 1, 2], dtype="int64"))
    # the vector value is the multiply's first argument
    assert_equal(ref.vxm(x, A, semiring.max_first), D([3, 3, 1], dtype="int64"))


def test_mxm():
    B = D([[1, 2], [3, 4], [5, 6]], [[1, 1], [_, 1], [1, _]], "int64")
    assert_equal(ref.mxm(A, B, semiring.plus_times), D([[11, 2], [0, 0], [3, 22]],
                                                       [[1, 1], [_, _], [1, 1]], "int64"))
    assert_equal(ref.mxm(A, B, semiring.min_firstj), D([[0, 0], [0, 0], [0, 0]],
                                                       [[1, 1], [_, _], [1, 1]], "int64"))
    assert_equal(ref.mxm(A, B, semiring.max_secondi), D([[2, 0], [0, 0], [0, 1]],
                                                        [[1, 1], [_, _], [1, 1]], "int64"))
    full = np.arange(6.0).reshape(2, 3)
    got = ref.mxm(D(full), D(full.T), semiring.plus_times)
    assert_equal(got, D(full @ full.T))


def test_semiring_zero_length():
    e = D(np.zeros((0, 3), np.int64))
    assert_equal(ref.mxv(e, X, semiring.plus_times), D(np.zeros(0, np.int64)))
    z = D(np.zeros((3, 0), np.int64))
    assert_equal(ref.mxv(z, D(np.zeros(0, np.int64)), semiring.plus_times),
                 D([0, 0, 0], [_, _, _], "int64"))
    assert_equal(ref.mxm(z, D(np.zeros((0, 2), np.int64)), semiring.min_plus),
                 D(np.zeros((3, 2), np.int64), np.zeros((3, 2), bool)))
    empty = D([0, 0, 0], [_, _, _], "int64")
    assert_equal(ref.mxv(A, empty, semiring.plus_times), empty)


# -------------------------------------------------------------------------- element-wise
U = D([1, 2, 0, 4], [1, 1, _, _], "int32")
V = D([10.0, 0, 30.0, 0], [1, _, 1, _], "float64")


def test_ewise_add_mult():
    assert_equal(ref.ewise_add(U, V, binary.plus), D([11.0, 2, 30, 0], [1, 1, 1, _]))
    assert_equal(ref.ewise_mult(U, V, binary.plus), D([11.0, 0, 0, 0], [1, _, _, _]))
    # non-commutative op: where only one side is present, that value is taken as is
    assert_equal(ref.ewise_add(U, V, binary.minus), D([-9.0, 2, 30, 0], [1, 1, 1, _]))
    assert_equal(ref.ewise_add(U, V, monoid.max), D([10.0, 2, 30, 0], [1, 1, 1, _]))
    # a comparison returns BOOL; a lone value is cast to BOOL
    assert_equal(ref.ewise_add(U, V, binary.gt), D([False, True, True, False], [1, 1, 1, _]))


def test_ewise_bool_and_positional():
    a = D([True, True, False], dtype=bool)
    b = D([True, False, False], [1, 1, _], bool)
    assert_equal(ref.ewise_mult(a, b, binary.plus), D([True, True, False], [1, 1, _]))
    assert_equal(ref.ewise_mult(a, b, binary.minus), D([False, True, False], [1, 1, _]))
    M = D([[1, 2], [3, 4]], [[1, _], [1, 1]], "int64")
    assert_equal(ref.ewise_mult(M, M, binary.firsti), D([[0, 0], [1, 1]], [[1, _], [1, 1]]))
    assert_equal(ref.ewise_mult(M, M, binary.secondj1), D([[1, 0], [1, 2]], [[1, _], [1, 1]]))
    assert_equal(ref.ewise_mult(U, U, binary.firstj), D([0, 0, 0, 0], [1, 1, _, _], "int64"))


def test_ewise_union_and_empty():
    got = ref.ewise_union(U, V, binary.minus, 100, 1000)
    assert_equal(got, D([-9.0, -998, 70, 0], [1, 1, 1, _]))
    e = D(np.zeros(0, np.int64))
    assert_equal(ref.ewise_add(e, e, binary.plus), e)
    with pytest.raises(DimensionMismatch):
        ref.ewise_add(U, D([1, 2]), binary.plus)


# ------------------------------------------------------------------------- apply, select
def test_apply_unary():
    assert_equal(ref.apply(U, unary.ainv), D([-1, -2, 0, 0], [1, 1, _, _], "int32"))
    assert_equal(ref.apply(U, unary.sqrt), D([1.0, np.sqrt(2), 0, 0], [1, 1, _, _]))
    assert_equal(ref.apply(U, unary.positioni1), D([1, 2, 0, 0], [1, 1, _, _], "int64"))
    assert_equal(ref.apply(U, unary.positionj), D([0, 0, 0, 0], [1, 1, _, _], "int64"))
    assert_equal(ref.apply(A, unary.positionj), D([[0, 0, 2], [0] * 3, [0, 1, 0]],
                                                  A[1], "int64"))


def test_apply_binary_bound():
    assert_equal(ref.apply(U, binary.minus, left=10), D([9, 8, 0, 0], [1, 1, _, _], "int64"))
    assert_equal(ref.apply(U, binary.minus, right=np.int32(1)),
                 D([0, 1, 0, 0], [1, 1, _, _], "int32"))
    assert_equal(ref.apply(U, binary.truediv, right=2), D([0.5, 1, 0, 0], [1, 1, _, _]))
    assert_equal(ref.apply(U, binary.gt, right=1.5), D([False, True, False, False], [1, 1, _, _]))
    assert_equal(ref.apply(A, binary.secondi, left=0), D([[0, 0, 0], [0] * 3, [2, 2, 0]],
                                                         A[1], "int64"))


def test_apply_index_and_select():
    assert_equal(ref.apply_index(A, select.rowindex, 1), D([[1, 0, 1], [0] * 3, [3, 3, 0]],
                                                           A[1], "int64"))
    assert_equal(ref.apply(A, select.diagindex, thunk=0),
                 D([[0, 0, 2], [0] * 3, [-2, -1, 0]], A[1], "int64"))
    assert_equal(ref.select(A, select.tril, 0), D([[1, 0, 0], [0] * 3, [3, 4, 0]],
                                                  [[1, _, _], [_] * 3, [1, 1, _]], "int64"))
    assert_equal(ref.select(A, select.valuegt, 2), D([[0] * 3, [0] * 3, [3, 4, 0]],
                                                     [[_] * 3, [_] * 3, [1, 1, _]], "int64"))
    assert_equal(ref.select(U, select.rowgt, 0), D([0, 2, 0, 0], [_, 1, _, _], "int32"))
    assert_equal(ref.select(U, select.colgt, 0), D([0, 0, 0, 0], [_] * 4, "int32"))


# ---------------------------------------------------------------------------- reductions
def test_reduce():
    assert ref.reduce_vector(U, monoid.plus) == (3, True)
    v, p = ref.reduce_vector(D([0, 0], [_, _], "int64"), monoid.min)
    assert (p, v) == (False, np.iinfo(np.int64).max)
    v, p = ref.reduce_vector(D(np.zeros(0, bool)), monoid.plus)  # plus on BOOL is lor
    assert (p, v, type(v)) == (False, False, np.bool_)
    assert ref.reduce_vector(D([True, True, False]), monoid.plus) == (True, True)
    assert ref.reduce_vector(D([True, True], dtype=bool), binary.times) == (True, True)
    assert_equal(ref.reduce_rows(A, monoid.min), D([1, 0, 3], [1, _, 1], "int64"))
    assert_equal(ref.reduce_cols(A, monoid.plus), D([4, 4, 2], dtype="int64"))
    assert_equal(ref.reduce_rows(A, monoid.any), D([1, 0, 3], [1, _, 1], "int64"))
    assert ref.reduce_scalar(A, monoid.max) == (4, True)
    assert ref.reduce_scalar(D(np.zeros((0, 4))), monoid.plus) == (0.0, False)
    assert_equal(ref.reduce_cols(D(np.zeros((0, 2))), monoid.plus), D([0.0, 0], [_, _]))


# ------------------------------------------------------------------ extract, transpose
def test_extract_and_transpose():
    assert_equal(ref.extract_vector(U, [3, 0, 0]), D([0, 1, 1], [_, 1, 1], "int32"))
    assert_equal(ref.extract_vector(U, []), D(np.zeros(0, np.int32)))
    assert_equal(ref.extract_matrix(A, [2, 0], [1, 0]), D([[4, 3], [0, 1]], [[1, 1], [_, 1]],
                                                          "int64"))
    assert_equal(ref.extract_matrix(A, None, [2]), D([[2], [0], [0]], [[1], [_], [_]], "int64"))
    assert_equal(ref.extract_row(A, 2, [1, 2]), D([4, 0], [1, _], "int64"))
    assert_equal(ref.extract_col(A, [0, 1], 2), D([2, 0], [1, _], "int64"))
    assert_equal(ref.transpose(A), D([[1, 0, 3], [0, 0, 4], [2, 0, 0]],
                                     [[1, _, 1], [_, _, 1], [1, _, _]], "int64"))
    with pytest.raises(IndexOutOfBound):
        ref.extract_vector(U, [4])
    with pytest.raises(IndexOutOfBound):
        ref.extract_row(A, -1, None)


# ---------------------------------------------------------------------------- write-back
C = D([1, 2, 3, 0], [1, 1, 1, _], "int64")
T = D([10, 0, 30, 40], [1, _, 1, 1], "int64")
M = (np.array([1, 0, 0, 1]), np.array([True, True, False, True]))  # explicit zero at 1


def test_writeback_no_mask_and_accum():
    assert_equal(ref.writeback(C, T), T)
    assert_equal(ref.writeback(C, T, accum=binary.plus), D([11, 2, 33, 40], dtype="int64"))
    assert_equal(ref.writeback(C, T, accum=binary.minus), D([-9, 2, -27, 40], dtype="int64"))
    got = ref.writeback(C, D([0.5, 0, 0, 0.25], [1, _, _, 1]), accum=monoid.plus,
                        out_dtype="float64")
    assert_equal(got, D([1.5, 2, 3, 0.25]))
    assert_equal(ref.writeback(C, D([1.9, 0, 0, 0], [1, _, _, _])), D([1, 0, 0, 0],
                                                                     [1, _, _, _], "int64"))


def test_writeback_masks():
    structural, value = (*M, True, False), (*M, False, False)
    assert_equal(ref.writeback(C, T, structural), D([10, 0, 3, 40], [1, _, 1, 1], "int64"))
    assert_equal(ref.writeback(C, T, value), D([10, 2, 3, 40], [1, 1, 1, 1], "int64"))
    assert_equal(ref.writeback(C, T, value, replace=True), D([10, 0, 0, 40], [1, _, _, 1],
                                                             "int64"))
    assert_equal(ref.writeback(C, T, (*M, False, True)), D([1, 0, 30, 0], [1, _, 1, _],
                                                           "int64"))
    assert_equal(ref.writeback(C, T, (*M, True, True), replace=True),
                 D([0, 0, 30, 0], [_, _, 1, _], "int64"))
    assert_equal(ref.writeback(C, T, value, accum=binary.plus),
                 D([11, 2, 3, 40], dtype="int64"))
    e = D(np.zeros(0, bool))
    assert_equal(ref.writeback(e, e, (np.zeros(0), np.zeros(0, bool), True, True)), e)
    with pytest.raises(DimensionMismatch):
        ref.writeback(C, T, (np.ones(3), np.ones(3, bool), True, False))


# -------------------------------------------------------------------------------- assign
def test_assign_vector():
    u = D([7, 0], [1, _], "int64")
    # C(I) replaced: C[2] becomes 7, C[0] is deleted since u[1] is absent
    assert_equal(ref.assign_vector(C, [2, 0], u), D([0, 2, 7, 0], [_, 1, 1, _], "int64"))
    # accum is applied inside I only; C[1] outside I is not doubled
    assert_equal(ref.assign_vector(C, [2, 0], u, accum=binary.plus),
                 D([1, 2, 10, 0], [1, 1, 1, _], "int64"))
    assert_equal(ref.assign_vector(C, [1, 3], 5), D([1, 5, 3, 5], dtype="int64"))
    # duplicates: the last occurrence wins
    assert_equal(ref.assign_vector(C, [3, 3], D([8, 9], dtype="int64")),
                 D([1, 2, 3, 9], dtype="int64"))
    assert_equal(ref.assign_vector(C, [], D(np.zeros(0, np.int64))), C)


def test_assign_vector_mask_replace():
    structural = (*M, True, False)  # mask {0, 1, 3}
    assert_equal(ref.assign_vector(C, [2, 3], 5, mask=structural), D([1, 2, 3, 5], dtype="int64"))
    # replace deletes C outside the mask everywhere, not only inside I
    assert_equal(ref.assign_vector(C, [0], 5, mask=(*M, False, False), replace=True),
                 D([5, 0, 0, 0], [1, _, _, _], "int64"))
    # the DESIGN's `visited(f.S) << level`: a masked scalar assign over all indices
    f = (np.array([0, 1, 1, 0], bool), np.array([_, 1, 1, _]), True, False)
    assert_equal(ref.assign_vector(C, None, 9, mask=f), D([1, 9, 9, 0], [1, 1, 1, _], "int64"))
    got = ref.assign_vector(C, [3], 2.5, out_dtype="float64")
    assert_equal(got, D([1.0, 2, 3, 2.5]))


def test_assign_matrix_row_col():
    Z = D(np.zeros((3, 3), np.int64), np.zeros((3, 3), bool))
    assert_equal(ref.assign_matrix(A, [0, 2], [2], D([[5], [6]], dtype="int64")),
                 D([[1, 0, 5], [0] * 3, [3, 4, 6]], [[1, _, 1], [_] * 3, [1, 1, 1]], "int64"))
    assert_equal(ref.assign_matrix(A, None, None, Z), Z)
    mask = (np.eye(3), np.ones((3, 3), bool), False, True)  # value mask, complemented
    got = ref.assign_matrix(A, [0, 1], [0, 1], 7, mask=mask, accum=binary.plus)
    assert_equal(got, D([[1, 7, 2], [7, 0, 0], [3, 4, 0]], [[1, 1, 1], [1, _, _], [1, 1, _]],
                        "int64"))
    assert_equal(ref.assign_row(A, 1, [0, 2], 9, mask=(np.ones(3), np.array([1, _, _]),
                                                       True, False), replace=True),
                 D([[1, 0, 2], [9, 0, 0], [3, 4, 0]], [[1, _, 1], [1, _, _], [1, 1, _]],
                   "int64"))
    assert_equal(ref.assign_col(A, [1, 2], 0, D([5, 0], [1, _], "int64")),
                 D([[1, 0, 2], [5, 0, 0], [0, 4, 0]], [[1, _, 1], [1, _, _], [_, 1, _]],
                   "int64"))


def test_subassign():
    # mask over the region; replace deletes inside I only
    mask = (np.array([1, 0]), np.array([True, True]), False, False)
    got = ref.subassign_vector(C, [0, 1], D([8, 9], dtype="int64"), mask=mask, replace=True)
    assert_equal(got, D([8, 0, 3, 0], [1, _, 1, _], "int64"))
    got = ref.subassign_matrix(A, [2], [0, 2], 1, accum=binary.plus)
    assert_equal(got, D([[1, 0, 2], [0] * 3, [4, 4, 1]], [[1, _, 1], [_] * 3, [1, 1, 1]],
                        "int64"))
