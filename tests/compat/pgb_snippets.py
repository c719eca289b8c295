"""A corpus of python-graphblas usage, written the way its User Guide writes it.

Every snippet is a function of the library module (``graphblas`` or ``gblas``) that returns
plain Python / NumPy results; tests/compat/test_pgb_corpus.py runs each one on both
libraries and compares. Snippets registered with ``@unsupported(...)`` are valid
python-graphblas code that gblas deliberately does not run: gblas must raise the named
error there (docs/compat.md lists them with the reason).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

SNIPPETS: dict[str, Callable[[Any], Any]] = {}
UNSUPPORTED: dict[str, tuple[Callable[[Any], Any], str, str]] = {}
RAISES: dict[str, tuple[Callable[[Any], Any], str]] = {}


def snippet(f: Callable[[Any], Any]) -> Callable[[Any], Any]:
    SNIPPETS[f.__name__] = f
    return f


def unsupported(error: str, match: str) -> Callable[[Callable[[Any], Any]], Any]:
    """gblas raises gblas.exceptions.<error> (or AttributeError / TypeError, by name) with a
    message that contains ``match``."""
    def deco(f: Callable[[Any], Any]) -> Callable[[Any], Any]:
        UNSUPPORTED[f.__name__] = (f, error, match)
        return f

    return deco


def raises(error: str) -> Callable[[Callable[[Any], Any]], Any]:
    """Bad input that both libraries refuse: python-graphblas raises some exception, gblas
    raises gblas.exceptions.<error> (python-graphblas raises built-in ones in places)."""
    def deco(f: Callable[[Any], Any]) -> Callable[[Any], Any]:
        RAISES[f.__name__] = (f, error)
        return f

    return deco


def out(x: Any) -> Any:
    """A Matrix, Vector or Scalar as plain data, through the API both libraries share
    (entries sorted row-major: python-graphblas lists a column-stored matrix by column)."""
    if hasattr(x, "nrows"):
        r, c, v = x.to_coo()
        order = np.lexsort((c, r))
        return ("Matrix", x.dtype.name, tuple(x.shape), r[order].tolist(), c[order].tolist(),
                v[order].tolist())
    if hasattr(x, "size") and hasattr(x, "to_coo"):
        i, v = x.to_coo()
        return ("Vector", x.dtype.name, x.size, i.tolist(), v.tolist())
    if hasattr(x, "is_empty"):
        return ("Scalar", x.dtype.name, x.value)
    raise TypeError(f"not a collection: {type(x).__name__}")


def error_name(f: Callable[[], Any]) -> str:
    """The class name of the exception f raises (both libraries use GraphBLAS names)."""
    try:
        f()
    except Exception as e:  # noqa: BLE001 - the name is the result
        return type(e).__name__
    return "no error"


# ---------------------------------------------------------------- shared operands
def mat_a(gb: Any) -> Any:
    return gb.Matrix.from_coo([0, 0, 1, 2, 3, 3], [1, 2, 2, 0, 1, 3],
                              [1, 2, 3, 4, 5, 6], nrows=4, ncols=4)


def mat_b(gb: Any) -> Any:
    return gb.Matrix.from_coo([0, 1, 1, 2, 3], [1, 1, 3, 0, 0], [10, 20, 30, 40, 50],
                              nrows=4, ncols=4)


def mat_f(gb: Any) -> Any:
    return gb.Matrix.from_coo([0, 0, 1, 2, 3], [0, 2, 1, 3, 2], [1.5, -2.0, 0.25, 4.0, 0.0],
                              nrows=4, ncols=4)


def mat_bool(gb: Any) -> Any:
    return gb.Matrix.from_coo([0, 1, 2, 2, 3], [1, 2, 0, 3, 0], True, nrows=4, ncols=4)


def vec_u(gb: Any) -> Any:
    return gb.Vector.from_coo([0, 2, 3], [1, 2, 3], size=4)


def vec_w(gb: Any) -> Any:
    return gb.Vector.from_coo([1, 2], [10, 20], size=4)


def vec_f(gb: Any) -> Any:
    return gb.Vector.from_coo([0, 1, 3], [0.5, -1.5, 2.0], size=4)


# ================================================================= collections
@snippet
def matrix_empty(gb):
    A = gb.Matrix(int, 3, 4)
    return A.nvals, A.nrows, A.ncols, A.shape, A.dtype.name


@snippet
def matrix_empty_keywords(gb):
    A = gb.Matrix(dtype=gb.dtypes.FP32, nrows=2, ncols=5)
    return out(A)


@snippet
def matrix_dtype_by_name(gb):
    return gb.Matrix("INT32", 2, 2).dtype.name, gb.Matrix("float32", 2, 2).dtype.name


@snippet
def matrix_dtype_by_numpy(gb):
    return [gb.Matrix(t, 1, 1).dtype.name for t in (np.int8, np.uint16, np.float64, np.bool_)]


@snippet
def vector_empty(gb):
    v = gb.Vector(float, 5)
    return v.nvals, v.size, v.shape, v.dtype.name


@snippet
def vector_dtype_bool(gb):
    return gb.Vector(bool, size=3).dtype.name


@snippet
def scalar_empty(gb):
    s = gb.Scalar(int)
    return s.is_empty, s.value, s.nvals, s.dtype.name


@snippet
def scalar_from_value(gb):
    s = gb.Scalar.from_value(3)
    t = gb.Scalar.from_value(2.5)
    u = gb.Scalar.from_value(True)
    return [(x.dtype.name, x.value) for x in (s, t, u)]


@snippet
def scalar_from_value_dtype(gb):
    return out(gb.Scalar.from_value(3, dtype="FP32"))


@snippet
def scalar_set_value(gb):
    s = gb.Scalar(int)
    s.value = 7
    t = s.dup()
    s.clear()
    return s.is_empty, t.value


@snippet
def scalar_lshift(gb):
    s = gb.Scalar(float)
    s << 4
    return out(s)


@snippet
def from_coo_basic(gb):
    return out(mat_a(gb))


@snippet
def from_coo_dtype(gb):
    A = gb.Matrix.from_coo([0, 1], [1, 0], [1, 2], dtype=gb.dtypes.FP64, nrows=2, ncols=2)
    return out(A)


@snippet
def from_coo_iso(gb):
    A = gb.Matrix.from_coo([0, 1, 2], [1, 2, 0], 1.0, nrows=3, ncols=3)
    return out(A)


@snippet
def from_coo_infers_shape(gb):
    A = gb.Matrix.from_coo([0, 4], [1, 2], [1, 2])
    return A.shape


@snippet
def from_coo_dup_op(gb):
    A = gb.Matrix.from_coo([0, 0, 1], [1, 1, 0], [1, 2, 5], dup_op=gb.binary.plus)
    return out(A)


@snippet
def from_coo_dup_op_max(gb):
    v = gb.Vector.from_coo([1, 1, 3], [4, 9, 2], size=5, dup_op=gb.monoid.max)
    return out(v)


@snippet
def vector_from_coo(gb):
    return out(gb.Vector.from_coo([0, 3], [1.5, 2.5], size=6))


@snippet
def vector_from_coo_iso_bool(gb):
    return out(gb.Vector.from_coo([1, 2], True, size=4))


@snippet
def from_dense_matrix(gb):
    return out(gb.Matrix.from_dense(np.array([[1, 0], [0, 2]])))


@snippet
def from_dense_missing(gb):
    return out(gb.Matrix.from_dense([[1, 0, 3], [0, 2, 0]], missing_value=0))


@snippet
def from_dense_vector(gb):
    return out(gb.Vector.from_dense([0.0, 1.5, 0.0, 2.0], missing_value=0.0))


@snippet
def from_dense_vector_full(gb):
    return out(gb.Vector.from_dense(np.arange(4, dtype=np.int32)))


@snippet
def from_dense_dtype(gb):
    return out(gb.Matrix.from_dense([[1, 2], [3, 4]], dtype="FP32"))


@snippet
def from_csr(gb):
    A = gb.Matrix.from_csr([0, 2, 3, 3], [0, 2, 1], [1, 2, 3], ncols=3)
    return out(A)


@snippet
def from_csc(gb):
    A = gb.Matrix.from_csc([0, 1, 1, 3], [2, 0, 1], [1, 2, 3], nrows=3)
    return out(A)


@snippet
def from_scalar_matrix(gb):
    return out(gb.Matrix.from_scalar(2, 2, 3))


@snippet
def from_scalar_vector(gb):
    return out(gb.Vector.from_scalar(1.5, 3))


@snippet
def from_dict_vector(gb):
    return out(gb.Vector.from_dict({0: 10, 3: 30}, size=5))


@snippet
def from_dicts_matrix(gb):
    return out(gb.Matrix.from_dicts({0: {1: 2.0}, 2: {0: 3.0, 2: 4.0}}, nrows=3, ncols=3))


@snippet
def from_edgelist(gb):
    A = gb.Matrix.from_edgelist([[0, 1], [1, 2], [2, 0]], [1, 2, 3], nrows=3, ncols=3)
    return out(A)


@snippet
def io_from_scipy_sparse(gb):
    import scipy.sparse as sp

    S = sp.csr_array(np.array([[0, 1.5], [2.5, 0]]))
    return out(gb.io.from_scipy_sparse(S))


@snippet
def io_from_scipy_coo(gb):
    import scipy.sparse as sp

    S = sp.coo_matrix(([1, 2, 3], ([0, 1, 2], [2, 1, 0])), shape=(3, 3))
    return out(gb.io.from_scipy_sparse(S))


@snippet
def io_to_scipy_sparse(gb):
    S = gb.io.to_scipy_sparse(mat_a(gb))
    return S.format, S.toarray().tolist()


@snippet
def io_to_scipy_csc(gb):
    S = gb.io.to_scipy_sparse(mat_f(gb), format="csc")
    return S.format, S.toarray().tolist()


@snippet
def io_from_networkx(gb):
    import networkx as nx

    G = nx.path_graph(4)
    A = gb.io.from_networkx(G)
    return A.shape, A.nvals


@snippet
def io_mmwrite_mmread(gb):
    import io

    f = io.BytesIO()
    gb.io.mmwrite(f, mat_a(gb))
    f.seek(0)
    return out(gb.io.mmread(f))


@snippet
def to_coo(gb):
    r, c, v = mat_a(gb).to_coo()
    return r.tolist(), c.tolist(), v.tolist(), v.dtype.name


@snippet
def to_coo_parts(gb):
    r, c, v = mat_a(gb).to_coo(values=False)
    return r.tolist(), c.tolist(), v


@snippet
def to_coo_dtype(gb):
    return mat_a(gb).to_coo(dtype=float)[2].tolist()


@snippet
def vector_to_coo(gb):
    i, v = vec_u(gb).to_coo()
    return i.tolist(), v.tolist()


@snippet
def to_dense_fill(gb):
    return mat_a(gb).to_dense(fill_value=0).tolist()


@snippet
def to_dense_vector(gb):
    d = vec_f(gb).to_dense(fill_value=-1)
    return d.tolist(), d.dtype.name


@snippet
def to_dense_full_no_fill(gb):
    return gb.Vector.from_dense([1, 2, 3]).to_dense().tolist()


@snippet
def to_csr(gb):
    return [a.tolist() for a in mat_a(gb).to_csr()]


@snippet
def to_csc(gb):
    return [a.tolist() for a in mat_a(gb).to_csc()]


@snippet
def to_dicts(gb):
    return mat_a(gb).to_dicts()


@snippet
def to_dict_vector(gb):
    return vec_u(gb).to_dict()


@snippet
def to_edgelist(gb):
    edges, vals = mat_a(gb).to_edgelist()
    return edges.tolist(), vals.tolist()


@snippet
def properties(gb):
    A = mat_a(gb)
    return A.nvals, A.nrows, A.ncols, A.shape, A.dtype.name, A.T.shape


@snippet
def dtype_compare(gb):
    A = mat_a(gb)
    return A.dtype == "INT64", A.dtype == np.int64, A.dtype == gb.dtypes.INT64, str(A.dtype)


@snippet
def dtype_np_type(gb):
    return str(np.dtype(mat_f(gb).dtype.np_type))


@snippet
def dtypes_lookup(gb):
    lk = gb.dtypes.lookup_dtype
    return [lk(x).name for x in ("int32", "INT8", int, float, bool, np.uint16, np.float32)]


@snippet
def dup(gb):
    A = mat_a(gb)
    C = A.dup()
    C[0, 0] << 100
    return out(A), out(C)


@snippet
def dup_dtype(gb):
    return out(mat_a(gb).dup(dtype=float)), out(vec_f(gb).dup(bool))


@snippet
def dup_clear(gb):
    return out(mat_a(gb).dup(clear=True))


@snippet
def dup_mask(gb):
    A = mat_a(gb)
    return out(A.dup(mask=mat_b(gb).S))


@snippet
def clear(gb):
    A = mat_a(gb)
    A.clear()
    v = vec_u(gb)
    v.clear()
    return out(A), out(v)


@snippet
def resize_matrix(gb):
    A = mat_a(gb)
    A.resize(3, 5)
    return out(A)


@snippet
def resize_vector(gb):
    v = vec_u(gb)
    v.resize(3)
    w = vec_u(gb)
    w.resize(7)
    return out(v), out(w)


@snippet
def build_matrix(gb):
    A = gb.Matrix(int, 3, 3)
    A.build([0, 1, 1], [2, 0, 0], [1, 2, 3], dup_op=gb.binary.plus)
    return out(A)


@snippet
def build_vector_clear(gb):
    v = vec_u(gb)
    v.build([1], [9], clear=True)
    return out(v)


@snippet
def element_read(gb):
    A = mat_a(gb)
    return A[0, 1].value, A[0, 0].value, A[3, 3].new().value


@snippet
def element_get(gb):
    A = mat_a(gb)
    v = vec_u(gb)
    return A.get(0, 1), A.get(0, 0), A.get(0, 0, -1), v.get(2), v.get(1, 0)


@snippet
def element_write(gb):
    A = mat_a(gb)
    A[0, 0] << 9
    A[1, 2] = 7
    return out(A)


@snippet
def element_delete(gb):
    A = mat_a(gb)
    del A[0, 1]
    v = vec_u(gb)
    del v[2]
    return out(A), out(v)


@snippet
def element_negative_index(gb):
    return vec_u(gb)[-1].value, mat_a(gb)[-1, -1].value


@snippet
def vector_element_write(gb):
    v = gb.Vector(int, 4)
    v[2] << 5
    v[0] = 1
    return out(v)


@snippet
def isequal(gb):
    A = mat_a(gb)
    return A.isequal(A.dup()), A.isequal(mat_b(gb)), A.isequal(A.dup(float))


@snippet
def isequal_check_dtype(gb):
    A = mat_a(gb)
    return A.isequal(A.dup(float), check_dtype=True)


@snippet
def isclose(gb):
    v = gb.Vector.from_coo([0, 1], [1.0, 2.0], size=3)
    w = gb.Vector.from_coo([0, 1], [1.0 + 1e-9, 2.0], size=3)
    x = gb.Vector.from_coo([0, 1], [1.1, 2.0], size=3)
    return v.isclose(w), v.isclose(x), v.isclose(x, rel_tol=0.2), v.isequal(w)


@snippet
def isclose_abs_tol(gb):
    A = gb.Matrix.from_coo([0], [0], [0.0], nrows=1, ncols=1)
    B = gb.Matrix.from_coo([0], [0], [1e-9], nrows=1, ncols=1)
    return A.isclose(B), A.isclose(B, abs_tol=1e-8)


@snippet
def scalar_isequal(gb):
    s = gb.Scalar.from_value(3)
    return s.isequal(gb.Scalar.from_value(3)), s == 3, s.isclose(3.0000000001)


@snippet
def iso_values(gb):
    A = gb.Matrix.from_coo([0, 1], [1, 0], 2.5, nrows=2, ncols=2)
    return out(A)


@snippet
def name(gb):
    A = gb.Matrix(int, 2, 2, name="adj")
    v = gb.Vector(int, 2, name="frontier")
    return A.name, v.name


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
def _c(gb):
    return gb.Vector.from_coo([0, 1, 2, 3], [1, 1, 1, 1], size=5)


def _m(gb):
    return gb.Vector.from_coo([1, 2, 4], [True, False, True], size=5)


def _t(gb):
    return gb.Vector.from_coo([0, 1, 2, 4], [5, 5, 5, 5], size=5)


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
