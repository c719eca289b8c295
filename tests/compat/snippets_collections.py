"""python-graphblas snippets (see pgb_corpus.py): collections: construction, I/O,
export, properties, elements, isequal."""

from __future__ import annotations

import numpy as np
from pgb_corpus import mat_a, mat_b, mat_f, out, snippet, vec_f, vec_u


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
