"""python-graphblas snippets (see pgb_corpus.py): reductions and aggregators,
masks/accum/replace, operators, types, transpose and the other matrix operations."""

from __future__ import annotations

import numpy as np
from pgb_corpus import _c, _m, _t, mat_a, mat_b, mat_bool, mat_f, out, snippet, vec_f, vec_u, vec_w


# ================================================================= reduce and agg
@snippet
def reduce_rowwise(gb):
    A = mat_a(gb)
    return out(A.reduce_rowwise().new()), out(A.reduce_rowwise(gb.monoid.max).new())


@snippet
def reduce_columnwise(gb):
    A = mat_a(gb)
    return out(A.reduce_columnwise(gb.monoid.min).new()), out(A.T.reduce_rowwise().new())


@snippet
def reduce_by_name(gb):
    return out(mat_a(gb).reduce_rowwise("max").new())


@snippet
def reduce_binaryop(gb):
    return out(mat_a(gb).reduce_rowwise(gb.binary.plus).new())


@snippet
def reduce_scalar(gb):
    A = mat_a(gb)
    return out(A.reduce_scalar().new()), out(A.reduce_scalar(gb.monoid.max).new())


@snippet
def reduce_vector(gb):
    v = vec_u(gb)
    return v.reduce().value, v.reduce(gb.monoid.min).value, out(v.reduce(gb.monoid.times).new())


@snippet
def reduce_empty(gb):
    v = gb.Vector(int, 3)
    return v.reduce().new().is_empty, v.reduce(gb.monoid.max).value


@snippet
def reduce_bool(gb):
    A = mat_bool(gb)
    return out(A.reduce_rowwise(gb.monoid.lor).new()), out(A.reduce_scalar(gb.monoid.lor).new())


@snippet
def reduce_into_scalar(gb):
    s = gb.Scalar(int)
    s << vec_u(gb).reduce()
    t = gb.Scalar(float)
    t << mat_f(gb).reduce_scalar(gb.monoid.max)
    return out(s), out(t)


@snippet
def reduce_float(gb):
    return out(mat_f(gb).reduce_rowwise().new()), out(vec_f(gb).reduce(gb.monoid.min).new())


@snippet
def reduce_masked(gb):
    w = gb.Vector(int, 4)
    m = gb.Vector.from_coo([0, 3], True, size=4)
    w(m.S) << mat_a(gb).reduce_rowwise()
    return out(w)


@snippet
def agg_count(gb):
    A = mat_a(gb)
    return (out(A.reduce_rowwise(gb.agg.count).new()),
            out(A.reduce_columnwise(gb.agg.count).new()),
            out(A.reduce_scalar(gb.agg.count).new()))


@snippet
def agg_by_name(gb):
    return out(mat_a(gb).reduce_rowwise("count").new())


@snippet
def agg_basic(gb):
    A = mat_a(gb)
    return [out(A.reduce_rowwise(a).new())
            for a in (gb.agg.sum, gb.agg.prod, gb.agg.min, gb.agg.max, gb.agg.any_value)]


@snippet
def agg_mean(gb):
    return (out(mat_a(gb).reduce_rowwise(gb.agg.mean).new()),
            out(mat_f(gb).reduce_scalar(gb.agg.mean).new()),
            out(vec_u(gb).reduce(gb.agg.mean).new()))


@snippet
def agg_logical(gb):
    F = mat_f(gb)
    return (out(F.reduce_rowwise(gb.agg.any).new()), out(F.reduce_rowwise(gb.agg.all).new()),
            out(F.reduce_scalar(gb.agg.all).new()))


@snippet
def agg_counts(gb):
    F = mat_f(gb)
    A = mat_a(gb)
    return [out(M.reduce_rowwise(a).new()) for M in (A, F)
            for a in (gb.agg.count_nonzero, gb.agg.count_zero, gb.agg.exists)]


@snippet
def agg_norms(gb):
    F = mat_f(gb)
    return [out(F.reduce_rowwise(a).new())
            for a in (gb.agg.L0norm, gb.agg.L1norm, gb.agg.L2norm, gb.agg.Linfnorm)]


@snippet
def agg_norms_int(gb):
    v = gb.Vector.from_coo([0, 1, 2], [3, -4, 0], size=4)
    return [out(v.reduce(a).new())
            for a in (gb.agg.L1norm, gb.agg.L2norm, gb.agg.Linfnorm, gb.agg.hypot)]


@snippet
def agg_moments(gb):
    A = mat_a(gb)
    return [out(A.reduce_rowwise(a).new())
            for a in (gb.agg.sum_of_squares, gb.agg.varp, gb.agg.vars, gb.agg.stdp,
                      gb.agg.stds, gb.agg.root_mean_square)]


@snippet
def agg_scalar_moments(gb):
    F = mat_f(gb)
    return [out(F.reduce_scalar(a).new())
            for a in (gb.agg.varp, gb.agg.stds, gb.agg.peak_to_peak, gb.agg.sum_of_squares)]


@snippet
def agg_means(gb):
    v = gb.Vector.from_coo([0, 1, 3], [1.0, 4.0, 2.0], size=4)
    return [out(v.reduce(a).new())
            for a in (gb.agg.geometric_mean, gb.agg.harmonic_mean, gb.agg.sum_of_inverses,
                      gb.agg.logaddexp)]


@snippet
def agg_peak_to_peak(gb):
    return out(mat_a(gb).reduce_rowwise(gb.agg.peak_to_peak).new())


@snippet
def agg_bool(gb):
    B = mat_bool(gb)
    return (out(B.reduce_rowwise(gb.agg.count).new()), out(B.reduce_scalar(gb.agg.any).new()),
            out(B.reduce_columnwise(gb.agg.max).new()))


@snippet
def agg_empty(gb):
    v = gb.Vector(int, 3)
    return [v.reduce(a).new().is_empty for a in (gb.agg.count, gb.agg.mean, gb.agg.sum)]


@snippet
def agg_into_output(gb):
    w = gb.Vector(float, 4)
    w << mat_a(gb).reduce_columnwise(gb.agg.mean)
    return out(w)


# ================================================================= masks, accum, replace
@snippet
def mask_none(gb):
    C = _c(gb)
    C << _t(gb)
    return out(C)


@snippet
def mask_structure(gb):
    C = _c(gb)
    C(_m(gb).S) << _t(gb)
    return out(C)


@snippet
def mask_value(gb):
    C = _c(gb)
    C(_m(gb).V) << _t(gb)
    return out(C)


@snippet
def mask_complement(gb):
    C = _c(gb)
    C(~_m(gb).S) << _t(gb)
    D = _c(gb)
    D(~_m(gb).V) << _t(gb)
    return out(C), out(D)


@snippet
def mask_replace(gb):
    C = _c(gb)
    C(_m(gb).S, replace=True) << _t(gb)
    return out(C)


@snippet
def mask_replace_positional(gb):
    C = _c(gb)
    C(_m(gb).V, gb.replace) << _t(gb)
    return out(C)


@snippet
def mask_keyword(gb):
    C = _c(gb)
    C(mask=_m(gb).S) << _t(gb)
    return out(C)


@snippet
def accum_plus(gb):
    C = _c(gb)
    C(accum=gb.binary.plus) << _t(gb)
    return out(C)


@snippet
def accum_positional(gb):
    C = _c(gb)
    C(gb.binary.max) << _t(gb)
    D = _c(gb)
    D(gb.monoid.plus) << _t(gb)
    return out(C), out(D)


@snippet
def accum_with_mask(gb):
    C = _c(gb)
    C(_m(gb).V, accum=gb.binary.plus) << _t(gb)
    return out(C)


@snippet
def accum_mask_replace(gb):
    C = _c(gb)
    C(_m(gb).S, gb.binary.minus, replace=True) << _t(gb)
    return out(C)


@snippet
def mask_matrix_mxm(gb):
    C = gb.Matrix(int, 4, 4)
    C(mat_b(gb).S) << mat_a(gb).mxm(mat_a(gb))
    return out(C)


@snippet
def mask_complement_mxm_replace(gb):
    C = mat_b(gb)
    C(~mat_a(gb).S, replace=True) << mat_a(gb).mxm(mat_b(gb), gb.semiring.plus_times)
    return out(C)


@snippet
def mask_accum_matrix(gb):
    C = mat_a(gb)
    C(accum=gb.binary.times) << mat_b(gb)
    return out(C)


@snippet
def mask_new(gb):
    return out(mat_a(gb).ewise_add(mat_b(gb)).new(mask=mat_bool(gb).S))


@snippet
def mask_value_float(gb):
    C = gb.Vector(float, 4)
    C(vec_f(gb).V) << gb.Vector.from_dense([1.0, 2.0, 3.0, 4.0])
    return out(C)


@snippet
def mask_scalar_assign(gb):
    levels = gb.Vector(int, 5)
    levels[0] << 0
    q = gb.Vector.from_coo([1, 3], True, size=5)
    levels(q.S) << 1
    return out(levels)


@snippet
def mask_scalar_accum(gb):
    C = _c(gb)
    C(_m(gb).S, accum=gb.binary.plus) << 10
    return out(C)


@snippet
def accum_scalar_output(gb):
    s = gb.Scalar.from_value(3)
    s(accum=gb.binary.plus) << vec_u(gb).reduce()
    return out(s)


@snippet
def self_update(gb):
    A = mat_a(gb)
    A << A.T
    return out(A)


@snippet
def update_method(gb):
    v = gb.Vector(int, 4)
    v.update(vec_u(gb).apply(gb.unary.ainv))
    return out(v)


# ================================================================= operators
@snippet
def operator_typed(gb):
    return out(vec_u(gb).ewise_mult(vec_f(gb), gb.binary.plus[gb.dtypes.INT64]).new())


@snippet
def operator_typed_monoid(gb):
    return out(vec_f(gb).reduce(gb.monoid.plus["FP32"]).new())


@snippet
def op_namespace(gb):
    u, w = vec_u(gb), vec_w(gb)
    return (out(u.ewise_add(w, gb.op.plus).new()),
            out(mat_a(gb).mxm(mat_b(gb), gb.op.min_plus).new()),
            out(u.apply(gb.op.ainv).new()))


@snippet
def semiring_names(gb):
    A, B = mat_a(gb), mat_b(gb)
    names = ["plus_times", "min_plus", "max_plus", "min_times", "max_min", "plus_min",
             "any_first", "plus_pair", "min_second", "max_first"]
    return [out(A.mxm(B, getattr(gb.semiring, n)).new()) for n in names]


@snippet
def semiring_positional(gb):
    A = mat_a(gb)
    return [out(A.mxm(A, getattr(gb.semiring, n)).new())
            for n in ("min_firsti", "max_secondj", "min_secondi")]


@snippet
def binary_ops_arith(gb):
    u, w = vec_u(gb), gb.Vector.from_coo([0, 2, 3], [4, 5, -2], size=4)
    names = ["plus", "minus", "rminus", "times", "first", "second", "min", "max", "pair",
             "iseq", "isne", "isgt"]
    return [out(u.ewise_mult(w, getattr(gb.binary, n)).new()) for n in names]


@snippet
def binary_ops_division(gb):
    u = gb.Vector.from_coo([0, 1, 2], [7, -7, 6], size=3)
    w = gb.Vector.from_coo([0, 1, 2], [2, 2, 3], size=3)
    return [out(u.ewise_mult(w, op).new())
            for op in (gb.binary.truediv, gb.binary.pow)]


@snippet
def binary_ops_logical(gb):
    a = gb.Vector.from_coo([0, 1, 2, 3], [True, True, False, False], size=4)
    b = gb.Vector.from_coo([0, 1, 2, 3], [True, False, True, False], size=4)
    return [out(a.ewise_mult(b, op).new())
            for op in (gb.binary.lor, gb.binary.land, gb.binary.lxor, gb.binary.eq,
                       gb.binary.ne)]


@snippet
def binary_ops_bitwise(gb):
    a = gb.Vector.from_coo([0, 1], [12, 10], size=2)
    b = gb.Vector.from_coo([0, 1], [10, 6], size=2)
    return [out(a.ewise_mult(b, op).new()) for op in (gb.binary.band, gb.binary.bor,
                                                      gb.binary.bxor)]


@snippet
def binary_positional(gb):
    A, B = mat_a(gb), mat_b(gb)
    return [out(A.ewise_mult(B, op).new())
            for op in (gb.binary.firsti, gb.binary.secondj, gb.binary.firstj1)]


@snippet
def monoid_names(gb):
    v = gb.Vector.from_coo([0, 1, 3], [3, 5, 2], size=4)
    return [v.reduce(getattr(gb.monoid, n)).value for n in ("plus", "times", "min", "max")]


@snippet
def monoid_bool(gb):
    v = gb.Vector.from_coo([0, 1, 3], [True, False, True], size=4)
    return [v.reduce(getattr(gb.monoid, n)).value
            for n in ("lor", "land", "lxor", "eq", "any")]


@snippet
def bool_arithmetic(gb):
    A = mat_bool(gb)
    return out(A.ewise_add(A.T.new(), gb.binary.plus).new()), out(A.mxm(A, "lor_land").new())


@snippet
def dtype_promotion(gb):
    a = gb.Vector.from_coo([0], [3], dtype="INT8", size=1)
    b = gb.Vector.from_coo([0], [4], dtype="UINT8", size=1)
    c = gb.Vector.from_coo([0], [1.5], dtype="FP32", size=1)
    return out(a.ewise_mult(b).new()), out(a.ewise_mult(c).new())


@snippet
def int32_operands(gb):
    A = mat_a(gb).dup(dtype="INT32")
    return out(A.mxm(A).new()), out(A.reduce_rowwise().new())


@snippet
def float32_operands(gb):
    F = mat_f(gb).dup(dtype=np.float32)
    return out(F.ewise_add(F).new()), out(F.apply(gb.unary.abs).new())


@snippet
def transpose(gb):
    A = mat_a(gb)
    C = gb.Matrix(int, 4, 4)
    C << A.T
    return out(A.T.new()), out(C), A.T.T.isequal(A)


@snippet
def transpose_ops(gb):
    A = mat_a(gb)
    return out(A.T.ewise_add(A).new()), out(A.T.apply(gb.unary.ainv).new())


@snippet
def kronecker(gb):
    A = gb.Matrix.from_coo([0, 1], [1, 0], [1, 2], nrows=2, ncols=2)
    B = gb.Matrix.from_coo([0, 1, 1], [0, 0, 1], [3, 4, 5], nrows=2, ncols=2)
    return out(A.kronecker(B, gb.binary.times).new()), out(A.kronecker(B, "plus").new())


@snippet
def matrix_diag(gb):
    A = mat_a(gb)
    return out(A.diag()), out(A.diag(1)), out(A.diag(-1)), out(A.diag(3))


@snippet
def vector_diag(gb):
    v = vec_u(gb)
    return out(v.diag()), out(v.diag(2)), out(v.diag(-1))


@snippet
def power(gb):
    A = mat_a(gb)
    return (out(A.power(1).new()), out(A.power(3).new()),
            out(A.power(2, gb.semiring.min_plus).new()))


@snippet
def wait(gb):
    A = mat_a(gb)
    A.wait()
    return out(A)
