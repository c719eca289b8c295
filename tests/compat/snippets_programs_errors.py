"""python-graphblas snippets (see pgb_corpus.py): short algorithms as users write them,
bad input both libraries refuse, and what gblas does not support."""

from __future__ import annotations

import numpy as np
from pgb_corpus import (
    _c,
    _m,
    _t,
    mat_a,
    mat_b,
    mat_bool,
    out,
    raises,
    snippet,
    unsupported,
    vec_u,
    vec_w,
)


# ================================================================= algorithms as users write them
@snippet
def triangle_count(gb):
    A = gb.Matrix.from_coo([0, 0, 1, 1, 2, 2, 2, 3], [1, 2, 0, 2, 0, 1, 3, 2], True,
                           nrows=4, ncols=4)
    L = A.select("tril", -1).new()
    C = gb.Matrix(int, 4, 4)
    C(L.S) << L.mxm(L.T, gb.semiring.plus_pair)
    return C.reduce_scalar().value


@snippet
def sssp_bellman_ford(gb):
    W = gb.Matrix.from_coo([0, 0, 1, 2, 3], [1, 2, 3, 3, 4], [1.0, 4.0, 2.0, 1.0, 3.0],
                           nrows=5, ncols=5)
    d = gb.Vector(float, 5)
    d[0] << 0.0
    for _ in range(4):
        d(gb.binary.min) << d.vxm(W, gb.semiring.min_plus)
    return out(d)


@snippet
def pagerank_step(gb):
    A = mat_bool(gb).dup(float)
    deg = A.reduce_rowwise(gb.agg.count).new()
    r = gb.Vector.from_scalar(0.25, 4)
    w = r.ewise_mult(deg, gb.binary.truediv).new()
    r2 = gb.Vector(float, 4)
    r2 << w.vxm(A, gb.semiring.plus_second)
    r2 << r2.apply(gb.binary.times, right=0.85)
    r2(gb.binary.plus) << 0.15 / 4
    return out(r2)


@snippet
def degrees(gb):
    A = mat_bool(gb)
    return out(A.reduce_rowwise(gb.agg.count).new()), out(A.reduce_columnwise(gb.agg.count).new())


@snippet
def connected_components_labels(gb):
    A = gb.Matrix.from_coo([0, 1, 2, 3], [1, 0, 3, 2], True, nrows=5, ncols=5)
    f = gb.Vector.from_dense(np.arange(5))
    for _ in range(3):
        f(gb.binary.min) << f.vxm(A, gb.semiring.min_second)
    return out(f)


# ================================================================= errors both libraries raise
@raises("DimensionMismatch")
def error_dimension_mismatch_mxv(gb):
    return mat_a(gb).mxv(gb.Vector(int, 3)).new()


@raises("DimensionMismatch")
def error_dimension_mismatch_ewise(gb):
    return vec_u(gb).ewise_add(gb.Vector(int, 3)).new()


@raises("DimensionMismatch")
def error_dimension_mismatch_mxm(gb):
    return mat_a(gb).mxm(gb.Matrix(int, 3, 2)).new()


@raises("DimensionMismatch")
def error_output_shape(gb):
    w = gb.Vector(int, 3)
    w << mat_a(gb).mxv(vec_u(gb))


@raises("DimensionMismatch")
def error_mask_shape(gb):
    w = gb.Vector(int, 4)
    w(gb.Vector(bool, 3).S) << vec_u(gb)


@raises("IndexOutOfBound")
def error_index_out_of_bound(gb):
    return vec_u(gb)[7].value


@raises("IndexOutOfBound")
def error_matrix_index_out_of_bound(gb):
    return mat_a(gb)[0, 9].new()


@raises("IndexOutOfBound")
def error_from_coo_size(gb):
    return gb.Vector.from_coo([5], [1], size=3)


@raises("NoValue")
def error_no_value(gb):
    return vec_u(gb).to_dense()


@raises("InvalidValue")
def error_from_coo_duplicates(gb):
    return gb.Vector.from_coo([1, 1], [2, 3], size=3)


@raises("OutputNotEmpty")
def error_output_not_empty(gb):
    v = vec_u(gb)
    v.build([0], [1])


@raises("DomainMismatch")
def error_reduce_no_monoid(gb):
    return mat_a(gb).reduce_rowwise(gb.binary.minus).new()


@raises("DomainMismatch")
def error_infix_or_needs_op(gb):
    return (mat_a(gb) | mat_b(gb)).new()


@raises("InvalidObject")
def error_semiring_call_needs_matmul(gb):
    return gb.semiring.plus_times(mat_a(gb))


@raises("DomainMismatch")
def error_invert_non_bool(gb):
    return ~mat_a(gb)


@raises("InvalidValue")
def error_truth_value(gb):
    return bool(vec_u(gb))


@raises("DomainMismatch")
def error_agg_sum_bool(gb):
    return mat_bool(gb).reduce_rowwise(gb.agg.sum).new()


@raises("DomainMismatch")
def error_unknown_dtype(gb):
    return gb.Vector("complex99", 3)


@raises("DomainMismatch")
def error_mxm_not_semiring(gb):
    return mat_a(gb).mxm(mat_b(gb), gb.binary.plus).new()


# ================================================================= deliberately not supported
@unsupported("AttributeError", "ss")
def ss_namespace(gb):
    return mat_a(gb).ss.format


@unsupported("AttributeError", "Recorder")
def recorder(gb):
    with gb.Recorder() as rec:
        mat_a(gb).mxm(mat_b(gb)).new()
    return len(rec.data)


@unsupported("AttributeError", "argmax")
def agg_argmax(gb):
    return vec_u(gb).reduce(gb.agg.argmax).new().value


@unsupported("AttributeError", "first")
def agg_first(gb):
    return vec_u(gb).reduce(gb.agg.first).new().value


@unsupported("AttributeError", "from_pairs")
def vector_from_pairs(gb):
    return out(gb.Vector.from_pairs([(0, 1), (2, 3)]))


@unsupported("TypeError", "'VectorIndexExpr' object is not callable")
def subassign_with_mask(gb):
    v = vec_u(gb)
    v[[0, 1]](gb.Vector.from_coo([0], True, size=2).S) << 9
    return out(v)


@unsupported("TypeError", "method")
def monoid_identity_property(gb):
    return gb.monoid.plus[int].identity + 0


@unsupported("AttributeError", "reposition")
def reposition(gb):
    return out(vec_u(gb).reposition(1).new())


@unsupported("AttributeError", "numpy")
def binary_numpy_namespace(gb):
    return out(vec_u(gb).ewise_mult(vec_w(gb), gb.binary.numpy.mod).new())


@unsupported("InvalidObject", "mask")
def mask_bare_collection(gb):
    C = _c(gb)
    C(_m(gb)) << _t(gb)  # python-graphblas reads a bare collection as its value mask
    return out(C)


@unsupported("EmptyObject", "empty")
def reduce_empty_not_allowed(gb):
    return gb.Vector(int, 3).reduce(allow_empty=False).new().value


@unsupported("AttributeError", "apply")
def scalar_apply(gb):
    return out(gb.Scalar.from_value(-3).apply(gb.unary.abs).new())


@unsupported("InvalidObject", "a Vector or Matrix and a scalar")
def binary_call_two_scalars(gb):
    return gb.binary.plus(1, 2).new().value


@unsupported("AttributeError", "ewise_add")
def scalar_ewise(gb):
    return out(gb.Scalar.from_value(3).ewise_add(gb.Scalar.from_value(4)).new())
