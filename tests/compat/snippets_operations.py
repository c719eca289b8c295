"""python-graphblas snippets (see pgb_corpus.py): mxm/mxv/vxm, element-wise and infix,
extract, assign, apply, select."""

from __future__ import annotations

import numpy as np
from pgb_corpus import mat_a, mat_b, mat_bool, mat_f, out, snippet, vec_f, vec_u, vec_w


# ================================================================= operations: mxm, mxv, vxm
@snippet
def mxm_default(gb):
    return out(mat_a(gb).mxm(mat_b(gb)).new())


@snippet
def mxm_min_plus(gb):
    C = gb.Matrix(int, 4, 4)
    C << mat_a(gb).mxm(mat_b(gb), gb.semiring.min_plus)
    return out(C)


@snippet
def mxm_by_name(gb):
    return out(mat_a(gb).mxm(mat_b(gb), "max_times").new())


@snippet
def mxm_matmul_infix(gb):
    return out((mat_a(gb) @ mat_b(gb)).new())


@snippet
def mxm_semiring_call(gb):
    A, B = mat_a(gb), mat_b(gb)
    return out(gb.semiring.max_plus(A @ B).new())


@snippet
def mxm_transpose(gb):
    A, B = mat_a(gb), mat_b(gb)
    return out(A.T.mxm(B).new()), out(A.mxm(B.T, gb.semiring.plus_times).new())


@snippet
def mxm_any_pair_bool(gb):
    A = mat_bool(gb)  # the result type differs (gblas BOOL, python-graphblas INT64)
    return out(A.mxm(A, gb.semiring.any_pair).new(dtype=bool))


@snippet
def mxm_lor_land(gb):
    A = mat_bool(gb)
    return out(A.mxm(A.T, gb.semiring.lor_land).new())


@snippet
def mxm_float(gb):
    F = mat_f(gb)
    return out(F.mxm(F).new())


@snippet
def mxm_typed_semiring(gb):
    return out(mat_a(gb).mxm(mat_b(gb), gb.semiring.plus_times[float]).new())


@snippet
def mxm_new_dtype(gb):
    return out(mat_a(gb).mxm(mat_b(gb)).new(dtype=float))


@snippet
def mxv_default(gb):
    return out(mat_a(gb).mxv(vec_u(gb)).new())


@snippet
def mxv_min_plus(gb):
    w = gb.Vector(int, 4)
    w << mat_a(gb).mxv(vec_u(gb), gb.semiring.min_plus)
    return out(w)


@snippet
def mxv_matmul_infix(gb):
    return out((mat_a(gb) @ vec_u(gb)).new())


@snippet
def mxv_transposed(gb):
    return out(mat_a(gb).T.mxv(vec_u(gb)).new()), out((mat_a(gb).T @ vec_w(gb)).new())


@snippet
def vxm_default(gb):
    return out(vec_u(gb).vxm(mat_a(gb)).new())


@snippet
def vxm_matmul_infix(gb):
    return out((vec_u(gb) @ mat_a(gb)).new())


@snippet
def vxm_semiring_call(gb):
    u, A = vec_u(gb), mat_a(gb)
    return out(gb.semiring.min_first(u @ A).new())


@snippet
def vxm_any_secondi(gb):
    q = gb.Vector.from_coo([0], True, size=4)
    return out(q.vxm(mat_bool(gb), gb.semiring.any_secondi).new())


@snippet
def inner(gb):
    return out(vec_u(gb).inner(vec_w(gb)).new()), (vec_u(gb) @ vec_u(gb)).new().value


@snippet
def inner_semiring(gb):
    return out(vec_u(gb).inner(vec_u(gb), gb.semiring.max_plus).new())


@snippet
def outer(gb):
    return out(vec_u(gb).outer(vec_w(gb)).new())


@snippet
def outer_op(gb):
    return out(vec_u(gb).outer(vec_w(gb), gb.binary.plus).new())


@snippet
def bfs_push_loop(gb):
    A = mat_bool(gb)
    levels = gb.Vector(int, 4)
    q = gb.Vector(bool, 4)
    q[0] << True
    levels[0] << 0
    k = 1
    while q.nvals:
        q(~levels.S, replace=True) << q.vxm(A, gb.semiring.any_pair)
        levels(q.S) << k
        k += 1
    return out(levels)


# ================================================================= element-wise
@snippet
def ewise_add_default(gb):
    return out(mat_a(gb).ewise_add(mat_b(gb)).new())


@snippet
def ewise_add_monoid(gb):
    return out(mat_a(gb).ewise_add(mat_b(gb), gb.monoid.max).new())


@snippet
def ewise_add_binary_minus(gb):
    return out(vec_u(gb).ewise_add(vec_w(gb), gb.binary.minus).new())


@snippet
def ewise_add_by_name(gb):
    return out(mat_a(gb).ewise_add(mat_b(gb), "min").new())


@snippet
def ewise_add_by_symbol(gb):
    return out(vec_u(gb).ewise_add(vec_w(gb), "+").new())


@snippet
def ewise_mult_default(gb):
    return out(mat_a(gb).ewise_mult(mat_b(gb)).new())


@snippet
def ewise_mult_op(gb):
    return out(vec_u(gb).ewise_mult(vec_w(gb), gb.binary.first).new())


@snippet
def ewise_mult_compare(gb):
    return out(mat_a(gb).ewise_mult(mat_b(gb), gb.binary.lt).new())


@snippet
def ewise_mult_truediv(gb):
    return out(mat_b(gb).ewise_mult(mat_a(gb), gb.binary.truediv).new())


@snippet
def ewise_mult_mixed_dtypes(gb):
    return out(mat_a(gb).ewise_mult(mat_f(gb), gb.binary.plus).new())


@snippet
def ewise_union(gb):
    A, B = mat_a(gb), mat_b(gb)
    return out(A.ewise_union(B, gb.binary.minus, left_default=0, right_default=100).new())


@snippet
def ewise_union_vector(gb):
    return out(vec_u(gb).ewise_union(vec_w(gb), gb.binary.max, -1, -2).new())


@snippet
def ewise_union_infix_call(gb):
    u, w = vec_u(gb), vec_w(gb)
    return out(gb.binary.minus(u | w, left_default=0, right_default=0).new())


@snippet
def infix_or_op(gb):
    A, B = mat_a(gb), mat_b(gb)
    return out(gb.binary.plus(A | B).new()), out(gb.monoid.max(A | B).new())


@snippet
def infix_and_op(gb):
    u, w = vec_u(gb), vec_w(gb)
    return out(gb.binary.times(u & w).new()), out(gb.binary.first(u & w).new())


@snippet
def infix_or_bool(gb):
    A = mat_bool(gb)
    return out((A | A.T.new()).new()), out((A & A.T.new()).new())


@snippet
def infix_arithmetic(gb):
    A, B = mat_a(gb), mat_b(gb)
    return out((A + B).new()), out((A * B).new()), out((A - B).new())


@snippet
def infix_truediv(gb):
    return out((mat_b(gb) / mat_a(gb)).new())


@snippet
def infix_scalar(gb):
    A = mat_a(gb)
    return out((A + 1).new()), out((2 * A).new()), out((A - 1).new()), out((10 - A).new())


@snippet
def infix_compare_scalar(gb):
    v = vec_u(gb)
    return out((v > 1).new()), out((v == 2).new()), out((v <= 2).new())


@snippet
def infix_compare_collections(gb):
    return out((mat_a(gb) == mat_b(gb)).new()), out((vec_u(gb) < vec_w(gb)).new())


@snippet
def infix_unary(gb):
    v = vec_f(gb)
    return out((-v).new()), out(abs(v).new())


@snippet
def infix_invert_bool(gb):
    return out((~mat_bool(gb)).new())


@snippet
def infix_inplace(gb):
    A = mat_a(gb)
    A += mat_b(gb)
    v = vec_u(gb)
    v *= 3
    return out(A), out(v)


@snippet
def infix_xor_bool(gb):
    A = mat_bool(gb)
    return out((A ^ A.T.new()).new())


@snippet
def infix_pow(gb):
    return out((vec_u(gb) ** 2).new())


# ================================================================= extract
@snippet
def extract_submatrix(gb):
    return out(mat_a(gb)[1:3, [0, 2]].new())


@snippet
def extract_row(gb):
    return out(mat_a(gb)[0, :].new())


@snippet
def extract_column(gb):
    return out(mat_a(gb)[:, 2].new())


@snippet
def extract_lists(gb):
    return out(mat_a(gb)[[3, 0], [3, 1, 2]].new())


@snippet
def extract_vector(gb):
    return out(vec_u(gb)[[0, 3, 1]].new()), out(vec_u(gb)[1:].new())


@snippet
def extract_into_output(gb):
    w = gb.Vector(int, 2)
    w << vec_u(gb)[[2, 3]]
    return out(w)


@snippet
def extract_transposed(gb):
    return out(mat_a(gb).T[0:2, :].new())


@snippet
def extract_masked(gb):
    w = gb.Vector(int, 3)
    m = gb.Vector.from_coo([0, 2], True, size=3)
    w(m.S) << vec_u(gb)[[0, 2, 3]]
    return out(w)


@snippet
def extract_numpy_index(gb):
    return out(vec_u(gb)[np.array([3, 2])].new())


# ================================================================= assign
@snippet
def assign_scalar_to_index(gb):
    v = gb.Vector(int, 5)
    v[[1, 3]] << 5
    return out(v)


@snippet
def assign_scalar_slice(gb):
    v = vec_u(gb)
    v[1:3] << 7
    return out(v)


@snippet
def assign_all(gb):
    v = gb.Vector(int, 3)
    v[:] << 4
    return out(v)


@snippet
def assign_vector(gb):
    v = gb.Vector(int, 5)
    v[[0, 2, 4]] << gb.Vector.from_coo([0, 2], [10, 30], size=3)
    return out(v)


@snippet
def assign_matrix_region(gb):
    A = mat_a(gb)
    A[0:2, [1, 3]] << gb.Matrix.from_coo([0, 1], [0, 1], [-1, -2], nrows=2, ncols=2)
    return out(A)


@snippet
def assign_row(gb):
    A = mat_a(gb)
    A[2, :] << gb.Vector.from_coo([1, 2], [8, 9], size=4)
    return out(A)


@snippet
def assign_column_scalar(gb):
    A = mat_a(gb)
    A[:, 0] << 0
    return out(A)


@snippet
def assign_accum(gb):
    v = vec_u(gb)
    v(accum=gb.binary.plus)[[0, 1]] << 10
    return out(v)


@snippet
def assign_masked(gb):
    v = vec_u(gb)
    m = gb.Vector.from_coo([1, 2], True, size=4)
    v(m.S)[:] << 0
    return out(v)


@snippet
def assign_scalar_object(gb):
    v = gb.Vector(float, 3)
    v[1] << gb.Scalar.from_value(2.5)
    return out(v)


@snippet
def assign_whole_masked_scalar(gb):
    A = mat_a(gb)
    A(mat_b(gb).S) << 0
    return out(A)


@snippet
def assign_setitem(gb):
    v = gb.Vector(int, 4)
    v[[0, 1]] = 3
    return out(v)


# ================================================================= apply
@snippet
def apply_unary(gb):
    return out(vec_f(gb).apply(gb.unary.abs).new()), out(vec_f(gb).apply(gb.unary.ainv).new())


@snippet
def apply_unary_by_name(gb):
    return out(mat_f(gb).apply("abs").new())


@snippet
def apply_unary_call(gb):
    return out(gb.unary.minv(mat_f(gb)).new())


@snippet
def apply_unary_float_fns(gb):
    v = gb.Vector.from_coo([0, 1], [1.0, 4.0], size=2)
    return [out(v.apply(op).new()) for op in (gb.unary.sqrt, gb.unary.exp, gb.unary.log)]


@snippet
def apply_unary_rounding(gb):
    v = gb.Vector.from_coo([0, 1, 2], [1.25, -2.75, 3.5], size=3)
    return [out(v.apply(op).new()) for op in (gb.unary.floor, gb.unary.ceil, gb.unary.trunc)]


@snippet
def apply_one(gb):
    return out(mat_a(gb).apply(gb.unary.one).new())


@snippet
def apply_positional(gb):
    A = mat_a(gb)
    return out(A.apply(gb.unary.positioni).new()), out(A.apply(gb.unary.positionj1).new())


@snippet
def apply_bind_right(gb):
    return out(vec_u(gb).apply(gb.binary.plus, right=1).new())


@snippet
def apply_bind_left(gb):
    return out(vec_u(gb).apply(gb.binary.minus, left=10).new())


@snippet
def apply_bind_positional_arg(gb):
    return out(vec_u(gb).apply(gb.binary.times, 3).new())


@snippet
def apply_monoid(gb):
    return out(mat_a(gb).apply(gb.monoid.max, right=3).new())


@snippet
def apply_binary_call(gb):
    A = mat_a(gb)
    return out(gb.binary.plus(A, 1).new()), out(gb.binary.minus(1, A).new())


@snippet
def apply_bind_scalar_object(gb):
    return out(vec_u(gb).apply(gb.binary.times, right=gb.Scalar.from_value(4)).new())


@snippet
def apply_compare(gb):
    return out(vec_u(gb).apply(gb.binary.ge, right=2).new())


@snippet
def apply_indexunary(gb):
    A = mat_a(gb)
    return (out(A.apply(gb.indexunary.rowindex).new()),
            out(A.apply(gb.indexunary.colindex, 1).new()))


@snippet
def indexunary_call_applies(gb):
    A = mat_a(gb)
    return (out(gb.indexunary.tril(A).new()), out(gb.select.tril(A).new()),
            out(A.select(gb.indexunary.triu).new()))


@snippet
def apply_typed_op(gb):
    return out(vec_f(gb).apply(gb.unary.identity[int]).new())


@snippet
def apply_new_dtype(gb):
    return out(vec_u(gb).apply(gb.binary.truediv, right=2).new(dtype="FP32"))


@snippet
def apply_masked_accum(gb):
    v = vec_u(gb)
    m = gb.Vector.from_coo([0, 3], True, size=4)
    v(m.S, accum=gb.binary.plus) << v.apply(gb.unary.ainv)
    return out(v)


# ================================================================= select
@snippet
def select_tril_triu(gb):
    A = mat_a(gb)
    return out(A.select("tril").new()), out(A.select("triu", 1).new())


@snippet
def select_op_objects(gb):
    A = mat_a(gb)
    return out(A.select(gb.select.tril).new()), out(A.select(gb.select.offdiag).new())


@snippet
def select_diag(gb):
    return out(mat_a(gb).select(gb.select.diag).new())


@snippet
def select_value_compare(gb):
    A = mat_a(gb)
    return out(A.select(">", 2).new()), out(A.select("==", 3).new())


@snippet
def select_value_ops(gb):
    A = mat_a(gb)
    return (out(A.select(gb.select.valuegt, 2).new()),
            out(A.select(gb.select.valuele, 2).new()))


@snippet
def select_row_col(gb):
    A = mat_a(gb)
    return (out(A.select(gb.select.rowle, 1).new()), out(A.select(gb.select.colgt, 1).new()))


@snippet
def select_call(gb):
    A = mat_a(gb)
    return out(gb.select.tril(A).new()), out(gb.select.valuene(A, 3).new())


@snippet
def select_vector(gb):
    return out(vec_u(gb).select("<", 3).new()), out(vec_u(gb).select(gb.select.valueeq, 2).new())


@snippet
def select_float_thunk(gb):
    return out(mat_f(gb).select(">=", 0.25).new())


@snippet
def select_masked(gb):
    C = mat_b(gb)
    C(mat_a(gb).S) << mat_a(gb).select("triu")
    return out(C)
