"""Public API of gblas.Matrix and its transposed view (python-graphblas compatible)."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import gblas as gb
from gblas import Descriptor, Matrix, Scalar, TransposedMatrix, Vector, binary, monoid, semiring
from gblas.core.mask import Mask
from gblas.exceptions import EmptyObject, InvalidValue, NotImplementedForFormat, NoValue

DTYPE_NAMES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
               "uint64", "float32", "float64"]


def entries(A) -> dict[tuple[int, int], object]:
    r, c, v = A.to_coo()
    return {(i, j): x for i, j, x in zip(r.tolist(), c.tolist(), v.tolist(), strict=True)}


def small() -> Matrix:
    # [[1, 2, .],
    #  [., ., 3],
    #  [4, ., .],
    #  [., 5, 6]]
    return Matrix.from_coo([0, 0, 1, 2, 3, 3], [0, 1, 2, 0, 1, 2], [1, 2, 3, 4, 5, 6],
                           nrows=4, ncols=3, name="small")


DENSE = np.array([[1, 2, 0], [0, 0, 3], [4, 0, 0], [0, 5, 6]])


# ----------------------------------------------------------------------------- construction
class TestConstruction:
    def test_empty(self):
        A = Matrix(int, 3, 4)
        assert A.shape == (3, 4) and A.nrows == 3 and A.ncols == 4
        assert A.nvals == 0
        assert A.dtype == gb.INT64
        assert A.device == "cpu"
        assert entries(A) == {}

    def test_default_dtype(self):
        assert Matrix().dtype == gb.FP64
        assert Matrix().shape == (0, 0)

    def test_from_coo(self):
        A = small()
        assert A.shape == (4, 3) and A.nvals == 6 and A.dtype == gb.INT64
        np.testing.assert_array_equal(A.to_dense(fill_value=0), DENSE)

    def test_from_coo_unsorted_and_infers_shape(self):
        A = Matrix.from_coo([3, 0, 1], [0, 4, 2], [1.0, 2.0, 3.0])
        assert A.shape == (4, 5)
        assert entries(A) == {(0, 4): 2.0, (1, 2): 3.0, (3, 0): 1.0}
        r, c, _ = A.to_coo()
        assert r.tolist() == [0, 1, 3] and c.tolist() == [4, 2, 0]  # row-major order

    def test_from_coo_scalar_is_iso(self):
        A = Matrix.from_coo([0, 1, 2], [1, 2, 0], True, nrows=3, ncols=3)
        assert A.dtype == gb.BOOL
        assert A.is_iso
        assert entries(A) == {(0, 1): True, (1, 2): True, (2, 0): True}
        B = Matrix.from_coo([0, 1], [0, 0], 2.5, nrows=2, ncols=1)
        assert B.is_iso and B.dtype == gb.FP64
        assert entries(B) == {(0, 0): 2.5, (1, 0): 2.5}
        C = Matrix.from_coo([0, 1], [0, 0], 3, dtype="int16", nrows=2, ncols=1)
        assert C.is_iso and C.dtype == gb.INT16
        assert C.to_coo()[2].dtype == np.int16

    def test_from_coo_array_values_not_iso(self):
        A = Matrix.from_coo([0, 1], [0, 0], [1, 2], nrows=2, ncols=1)
        assert not A.is_iso

    def test_from_coo_dtype_casts(self):
        A = Matrix.from_coo([0], [0], [2.9], dtype="int32", nrows=1, ncols=1)
        assert A.dtype == gb.INT32 and A[0, 0].value == 2

    def test_from_coo_duplicates_without_dup_op_raise(self):
        with pytest.raises(InvalidValue):
            Matrix.from_coo([0, 0], [1, 1], [1, 2], nrows=2, ncols=2)

    @pytest.mark.parametrize("op,expected", [
        (binary.plus, 5), (binary.times, 6), (binary.min, 2), (binary.max, 3),
        (binary.first, 2), (binary.second, 3), (monoid.times, 6),
    ])
    def test_from_coo_dup_op(self, op, expected):
        A = Matrix.from_coo([1, 0, 1], [1, 0, 1], [2, 7, 3], nrows=2, ncols=2, dup_op=op)
        assert entries(A) == {(0, 0): 7, (1, 1): expected}

    def test_from_coo_dup_op_iso(self):
        A = Matrix.from_coo([0, 0, 1], [1, 1, 0], 1, nrows=2, ncols=2, dup_op=binary.plus)
        assert entries(A) == {(0, 1): 2, (1, 0): 1}

    def test_from_dense(self):
        A = Matrix.from_dense(DENSE)
        assert A.nvals == 12
        np.testing.assert_array_equal(A.to_dense(), DENSE)
        B = Matrix.from_dense(DENSE, missing_value=0)
        assert B.isequal(small())
        C = Matrix.from_dense(DENSE, dtype=float)
        assert C.dtype == gb.FP64

    def test_from_csr(self):
        indptr = [0, 2, 3, 4, 6]
        cols = [0, 1, 2, 0, 1, 2]
        A = Matrix.from_csr(indptr, cols, [1, 2, 3, 4, 5, 6], ncols=3)
        assert A.isequal(small(), check_dtype=True)
        B = Matrix.from_csr(np.array(indptr), np.array(cols), True, ncols=3)
        assert B.dtype == gb.BOOL and B.nvals == 6

    def test_from_csr_unsorted_columns(self):
        A = Matrix.from_csr([0, 2, 2], [2, 0], [20, 0], ncols=3)
        assert entries(A) == {(0, 0): 0, (0, 2): 20}
        assert A.shape == (2, 3)

    def test_from_scipy_sparse(self):
        S = sp.csr_matrix(DENSE)
        A = Matrix.from_scipy_sparse(S)
        assert A.isequal(small())
        assert A.dtype == gb.dtypes.lookup_dtype(S.dtype)
        Sa = sp.csr_array(DENSE.astype(np.float32))
        B = Matrix.from_scipy_sparse(Sa)
        assert B.dtype == gb.FP32 and B.nvals == 6
        C = Matrix.from_scipy_sparse(S.tocsc(), dtype=float)
        assert C.dtype == gb.FP64 and C.isequal(small())

    def test_from_scipy_sparse_duplicates(self):
        S = sp.coo_matrix(([1, 2, 3], ([0, 0, 1], [1, 1, 0])), shape=(2, 2))
        with pytest.raises(InvalidValue):
            Matrix.from_scipy_sparse(S)
        A = Matrix.from_scipy_sparse(S, dup_op=binary.plus)
        assert entries(A) == {(0, 1): 3, (1, 0): 3}

    def test_from_scipy_sparse_canonical_copied_as_is(self):
        """A canonical CSR/CSC matrix skips the COO build: same matrix as the COO path,
        arrays copied (changing the SciPy matrix afterwards changes nothing), the dtype
        asked for; a non-canonical one (unsorted rows, duplicates) still goes through the
        build; column ids outside the shape raise before anything is built."""
        from gblas.ops import build

        rng = np.random.default_rng(3)
        S = sp.random(40, 30, density=0.2, format="csr", random_state=rng)
        assert S.has_canonical_format
        ref = Matrix.from_coo(*(lambda c: (c.row, c.col, c.data))(S.tocoo()), nrows=40,
                              ncols=30)
        for src in (S, S.tocsc(), sp.csr_array(S)):
            assert build.csr_from_scipy(src, None, "cpu") is not None
            assert Matrix.from_scipy_sparse(src).isequal(ref)
        A = Matrix.from_scipy_sparse(S, dtype=np.float32)
        assert A.dtype == gb.FP32 and A.nvals == S.nnz
        keep = S.copy()
        S.data[:] = 7.0
        S.indices[:] = 0
        assert A.isequal(Matrix.from_scipy_sparse(keep, dtype=np.float32))
        # unsorted columns in a row: not canonical, the build sorts them
        U = sp.csr_matrix((np.array([2.0, 1.0]), np.array([2, 0]), np.array([0, 2, 2])),
                          shape=(2, 3))
        assert build.csr_from_scipy(U, None, "cpu") is None
        assert entries(Matrix.from_scipy_sparse(U)) == {(0, 0): 1.0, (0, 2): 2.0}
        # duplicates in CSR: the build asks for dup_op
        D = sp.csr_matrix((np.array([1.0, 2.0]), np.array([1, 1]), np.array([0, 2])),
                          shape=(1, 2))
        with pytest.raises(InvalidValue, match="dup_op"):
            Matrix.from_scipy_sparse(D)
        assert entries(Matrix.from_scipy_sparse(D, dup_op=binary.plus)) == {(0, 1): 3.0}
        # a column id beyond the shape (SciPy checks it only on request)
        B = sp.csr_matrix((np.array([1.0]), np.array([5]), np.array([0, 1])), shape=(1, 3))
        with pytest.raises(gb.exceptions.IndexOutOfBound,
                           match="column index 5 is out of range for size 3"):
            Matrix.from_scipy_sparse(B)

    def test_from_networkx(self):
        G = nx.DiGraph()
        G.add_edge(0, 1, weight=2.5)
        G.add_edge(1, 2, weight=1.5)
        G.add_node(3)
        A = Matrix.from_networkx(G)
        assert A.shape == (4, 4)
        assert entries(A) == {(0, 1): 2.5, (1, 2): 1.5}
        B = Matrix.from_networkx(G, weight=None)
        assert B.dtype == gb.BOOL
        assert entries(B) == {(0, 1): True, (1, 2): True}
        U = Matrix.from_networkx(nx.path_graph(3), weight=None)
        assert entries(U) == {(0, 1): True, (1, 0): True, (1, 2): True, (2, 1): True}
        P = Matrix.from_networkx(G, nodelist=[3, 2, 1, 0])
        assert entries(P) == {(3, 2): 2.5, (2, 1): 1.5}

    def test_build_and_clear(self):
        A = Matrix(float, 3, 3)
        A.build([2, 0], [1, 2], [5.0, 6.0])
        assert entries(A) == {(0, 2): 6.0, (2, 1): 5.0}
        A.build([1], [1], [1.0], clear=True)
        assert entries(A) == {(1, 1): 1.0}
        A.build([0, 0], [0, 0], [1.0, 2.0], dup_op=binary.max, clear=True)
        assert entries(A) == {(0, 0): 2.0}
        A.clear()
        assert A.nvals == 0 and A.shape == (3, 3) and A.dtype == gb.FP64


# ----------------------------------------------------------------------------- export
class TestExport:
    def test_to_coo(self):
        r, c, v = small().to_coo()
        assert r.tolist() == [0, 0, 1, 2, 3, 3]
        assert c.tolist() == [0, 1, 2, 0, 1, 2]
        assert v.tolist() == [1, 2, 3, 4, 5, 6]
        _, _, vf = small().to_coo(dtype=float)
        assert vf.dtype == np.float64
        r2, none_c, none_v = small().to_coo(columns=False, values=False)
        assert none_c is None and none_v is None and r2.tolist() == r.tolist()

    def test_to_coo_returns_copies(self):
        A = small()
        r, c, v = A.to_coo()
        r[:] = 0
        v[:] = 0
        assert A.isequal(small())

    def test_to_csr(self):
        indptr, cols, vals = small().to_csr()
        assert indptr.tolist() == [0, 2, 3, 4, 6]
        assert cols.tolist() == [0, 1, 2, 0, 1, 2]
        assert vals.tolist() == [1, 2, 3, 4, 5, 6]
        _, _, iso_vals = Matrix.from_coo([0, 1], [1, 0], 7, nrows=2, ncols=2).to_csr()
        assert iso_vals.tolist() == [7, 7]

    def test_to_dense(self):
        np.testing.assert_array_equal(small().to_dense(fill_value=0), DENSE)
        d = small().to_dense(fill_value=-1)
        assert d[1, 0] == -1 and d[0, 0] == 1
        assert small().to_dense(fill_value=0, dtype=float).dtype == np.float64
        with pytest.raises(NoValue):
            small().to_dense()
        with pytest.raises(EmptyObject):
            small().to_dense()

    @pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
    def test_to_scipy_sparse(self, fmt):
        S = small().to_scipy_sparse(fmt)
        assert sp.issparse(S)
        assert S.format == fmt
        assert S.shape == (4, 3)
        np.testing.assert_array_equal(S.toarray(), DENSE)
        assert S.dtype == np.int64

    def test_to_scipy_sparse_default_csr(self):
        S = small().to_scipy_sparse()
        assert S.format == "csr"

    def test_scipy_roundtrip_random(self):
        rng = np.random.default_rng(0)
        S = sp.random(30, 20, density=0.2, format="csr", random_state=rng)
        A = Matrix.from_scipy_sparse(S)
        assert (A.to_scipy_sparse() != S).nnz == 0


# ----------------------------------------------------------------------------- dtypes
@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_dtypes_roundtrip(name):
    dt = gb.dtypes.lookup_dtype(name)
    vals = np.array([1, 0, 1], dtype=dt.np_type) if dt.is_bool else \
        np.array([1, 2, 3], dtype=dt.np_type)
    A = Matrix.from_coo([0, 1, 2], [2, 0, 1], vals, nrows=3, ncols=3)
    assert A.dtype == dt
    r, c, v = A.to_coo()
    assert v.dtype == dt.np_type
    np.testing.assert_array_equal(v, vals)
    assert A.to_dense(fill_value=0).dtype == dt.np_type
    assert A.to_csr()[2].dtype == dt.np_type
    assert A[1, 0].value == vals[1].item()
    assert A.T.new().dtype == dt
    assert Matrix(name, 2, 2).dtype == dt
    B = Matrix.from_coo([0], [0], [1], dtype=name, nrows=1, ncols=1)
    assert B.dtype == dt and B.to_coo()[2].dtype == dt.np_type
    assert A.dup(dtype=gb.FP64).dtype == gb.FP64


# ----------------------------------------------------------------------------- properties
def test_shape_properties():
    A = small()
    assert A.shape == (4, 3)
    assert (A.nrows, A.ncols, A.nvals) == (4, 3, 6)
    assert A.dtype == gb.INT64
    assert A.device == "cpu"
    assert A.to("cpu") is A
    assert A.name == "small"
    A.name = "renamed"
    assert A.name == "renamed"


# ----------------------------------------------------------------------------- elements
class TestElements:
    def test_get(self):
        A = small()
        assert A[0, 1].value == 2
        assert A[3, 2].value == 6
        assert A[1, 0].value is None
        assert A[-1, -1].value == 6
        s = A[2, 0].new()
        assert isinstance(s, Scalar) and s.value == 4 and s.dtype == gb.INT64
        assert A[1, 1].new().is_empty
        assert int(A[2, 0]) == 4

    def test_set_setitem(self):
        A = Matrix(int, 3, 3)
        A[0, 1] = 2
        A[2, 0] = 5
        assert entries(A) == {(0, 1): 2, (2, 0): 5}
        A[0, 1] = 7  # overwrite
        assert entries(A) == {(0, 1): 7, (2, 0): 5}

    def test_set_lshift(self):
        A = Matrix(float, 2, 2)
        A[1, 1] << 3.5
        assert entries(A) == {(1, 1): 3.5}

    def test_set_negative_and_cast(self):
        A = Matrix(gb.INT8, 2, 3)
        A[-1, -1] = 4.0
        assert entries(A) == {(1, 2): 4}
        assert isinstance(A[1, 2].value, int)

    def test_set_on_existing_matrix(self):
        A = small()
        A[1, 1] = 99
        expected = DENSE.copy()
        expected[1, 1] = 99
        np.testing.assert_array_equal(A.to_dense(fill_value=0), expected)
        assert A.nvals == 7

    def test_delete(self):
        A = small()
        del A[0, 1]
        assert A.nvals == 5 and A[0, 1].value is None
        del A[1, 1]  # absent: no-op
        assert A.nvals == 5
        del A[-1, -1]
        assert A[3, 2].value is None and A.nvals == 4

    def test_extract(self):
        A = small()
        row = A[3, :].new()
        assert isinstance(row, Vector) and row.size == 3
        assert dict(zip(*[x.tolist() for x in row.to_coo()], strict=True)) == {1: 5, 2: 6}
        col = A[:, 0].new()
        assert col.size == 4
        assert dict(zip(*[x.tolist() for x in col.to_coo()], strict=True)) == {0: 1, 2: 4}
        sub = A[[0, 3], [1, 2]].new()
        assert sub.shape == (2, 2)
        assert entries(sub) == {(0, 0): 2, (1, 0): 5, (1, 1): 6}

    def test_assign_submatrix(self):
        A = Matrix(int, 3, 3)
        A[[0, 2], [0, 2]] << Matrix.from_coo([0, 1], [1, 0], [7, 8], nrows=2, ncols=2)
        assert entries(A) == {(0, 2): 7, (2, 0): 8}

    def test_assign_row(self):
        A = Matrix(int, 2, 3)
        A[1, :] << Vector.from_coo([0, 2], [4, 5], size=3)
        assert entries(A) == {(1, 0): 4, (1, 2): 5}


# ----------------------------------------------------------------------------- masks
class TestMasks:
    def test_mask_objects(self):
        A = small()
        assert isinstance(A.S, Mask) and A.S.structure and not A.S.complement
        assert isinstance(A.V, Mask) and not A.V.structure
        assert (~A.S).complement
        assert A.S.shape == (4, 3)

    def test_masked_ewise(self):
        A = small()
        M = Matrix.from_coo([0, 1, 3], [0, 2, 1], [True, False, True], nrows=4, ncols=3)
        assert entries(A.ewise_add(A).new(mask=M.S)) == {(0, 0): 2, (1, 2): 6, (3, 1): 10}
        assert entries(A.ewise_add(A).new(mask=M.V)) == {(0, 0): 2, (3, 1): 10}
        assert entries(A.apply(gb.unary.identity).new(mask=~M.S)) == \
            {(0, 1): 2, (2, 0): 4, (3, 2): 6}

    def test_masked_scalar_assign(self):
        A = small()
        M = Matrix.from_coo([0, 1], [2, 1], True, nrows=4, ncols=3)
        A(M.S) << 0
        assert A[0, 2].value == 0 and A[1, 1].value == 0
        assert A.nvals == 8

    def test_mask_replace(self):
        A = small()
        M = Matrix.from_coo([0], [0], True, nrows=4, ncols=3)
        A(M.S, replace=True) << A.apply(gb.unary.ainv)
        assert entries(A) == {(0, 0): -1}

    def test_masked_mxm(self):
        A = Matrix.from_coo([0, 1], [1, 2], [2, 3], nrows=3, ncols=3)
        M = Matrix.from_coo([0, 0], [0, 2], True, nrows=3, ncols=3)
        C = A.mxm(A).new(mask=M.S)
        assert entries(C) == {(0, 2): 6}
        C2 = A.mxm(A).new(mask=~M.S)
        assert entries(C2) == {}

    def test_transposed_view_has_no_mask(self):
        with pytest.raises(InvalidValue):
            _ = small().T.S


# ----------------------------------------------------------------------------- transpose
class TestTranspose:
    def test_T_view(self):
        A = small()
        T = A.T
        assert isinstance(T, TransposedMatrix)
        assert T.shape == (3, 4) and T.nrows == 3 and T.ncols == 4
        assert T.nvals == 6 and T.dtype == gb.INT64
        assert A.T.T is A
        assert T[1, 3].value == 5

    def test_T_new(self):
        B = small().T.new()
        assert isinstance(B, Matrix)
        np.testing.assert_array_equal(B.to_dense(fill_value=0), DENSE.T)
        B2 = small().T.new(dtype=float)
        assert B2.dtype == gb.FP64
        assert small().T.dup().isequal(B)
        r, c, _ = B.to_coo()
        pairs = list(zip(r.tolist(), c.tolist(), strict=True))
        assert pairs == sorted(pairs)

    def test_T_is_a_view(self):
        A = small()
        T = A.T
        A[1, 1] = 50
        assert T[1, 1].value == 50

    def test_T_new_independent(self):
        A = small()
        B = A.T.new()
        B[0, 0] = 100
        assert A[0, 0].value == 1

    def test_T_assign(self):
        C = Matrix(int, 3, 4)
        C << small().T
        np.testing.assert_array_equal(C.to_dense(fill_value=0), DENSE.T)

    def test_T_export(self):
        np.testing.assert_array_equal(small().T.to_dense(fill_value=0), DENSE.T)
        np.testing.assert_array_equal(small().T.to_scipy_sparse().toarray(), DENSE.T)

    def test_T_operations(self):
        A = small()
        u = Vector.from_coo([0, 1, 2, 3], [1, 1, 1, 1], size=4)
        w = A.T.mxv(u).new()
        assert w.isequal(u.vxm(A).new())
        np.testing.assert_array_equal(w.to_dense(), DENSE.sum(axis=0))
        C = A.T.mxm(A).new()
        np.testing.assert_array_equal(C.to_dense(fill_value=0), DENSE.T @ DENSE)
        assert A.T.isequal(A.T.new())


# ----------------------------------------------------------------------------- whole object
class TestWholeObject:
    def test_dup_is_independent(self):
        A = small()
        B = A.dup()
        assert B.isequal(A, check_dtype=True) and B is not A
        B[1, 1] = 9
        del B[0, 0]
        assert A.isequal(small())
        A[2, 2] = 1
        assert B[2, 2].value is None

    def test_dup_iso_independent(self):
        A = Matrix.from_coo([0, 1], [1, 0], True, nrows=2, ncols=2)
        B = A.dup()
        B[0, 0] = False
        assert A.nvals == 2 and A[0, 0].value is None

    def test_dup_dtype_name(self):
        B = small().dup(float, name="copy")
        assert B.dtype == gb.FP64 and B.name == "copy"

    def test_clear(self):
        A = small()
        A.clear()
        assert A.nvals == 0 and A.shape == (4, 3) and A.dtype == gb.INT64

    def test_resize(self):
        A = small()
        A.resize(6, 5)
        assert A.shape == (6, 5) and A.nvals == 6
        np.testing.assert_array_equal(A.to_dense(fill_value=0)[:4, :3], DENSE)
        A[5, 4] = 1
        assert A[5, 4].value == 1
        A.resize(2, 2)
        assert A.shape == (2, 2)
        assert entries(A) == {(0, 0): 1, (0, 1): 2}
        A.resize(0, 0)
        assert A.shape == (0, 0) and A.nvals == 0

    def test_resize_only_columns(self):
        A = small()
        A.resize(4, 1)
        assert entries(A) == {(0, 0): 1, (2, 0): 4}


# ----------------------------------------------------------------------------- comparison
class TestCompare:
    def test_isequal(self):
        A = small()
        assert A.isequal(small())
        B = small()
        B[1, 1] = 0
        assert not A.isequal(B)  # structure
        C = Matrix.from_coo([0, 0, 1, 2, 3, 3], [0, 1, 2, 0, 1, 2], [1, 2, 3, 4, 5, 7],
                            nrows=4, ncols=3)
        assert not A.isequal(C)  # values
        D = small()
        D.resize(4, 4)
        assert not A.isequal(D)  # shape
        # same entries on a different shape (keys would collide if only flattened)
        E = Matrix.from_coo([0], [1], [1], nrows=2, ncols=2)
        F = Matrix.from_coo([0], [1], [1], nrows=2, ncols=3)
        assert not E.isequal(F)

    def test_isequal_check_dtype(self):
        A = small()
        B = small().dup(float)
        assert A.isequal(B)
        assert not A.isequal(B, check_dtype=True)

    def test_isclose(self):
        A = small().dup(float)
        B = A.apply(binary.plus, right=1e-9).new()
        assert not A.isequal(B)
        assert A.isclose(B)
        C = A.apply(binary.times, right=1.5).new()
        assert not A.isclose(C)
        assert A.isclose(C, rel_tol=0.5)
        assert not A.isclose(small(), check_dtype=True)


# ----------------------------------------------------------------------------- display
def test_repr():
    A = small()
    r = repr(A)
    assert "small" in r
    assert "nvals=6" in r
    assert "nrows=4" in r and "ncols=3" in r
    assert "INT64" in r
    n = 500
    big = Matrix.from_coo(np.arange(n), np.arange(n), 1.0, nrows=n, ncols=n, name="big")
    rb = repr(big)
    assert "big" in rb and "nvals=500" in rb and "FP64" in rb
    assert len(rb) < 2000
    assert "small" in repr(A.T)


# ----------------------------------------------------------------------------- formats
class TestFormats:
    def test_default_format(self):
        A = small()
        assert A.format == "csr"
        assert "csr" in A.formats

    def test_to_format_coo(self):
        A = small()
        out = A.to_format("coo")
        assert out is A
        assert A.format == "coo"
        assert "coo" in A.formats and "csr" in A.formats
        assert A.isequal(small())
        np.testing.assert_array_equal(A.to_dense(fill_value=0), DENSE)
        assert A[3, 1].value == 5

    def test_coo_format_operations(self):
        A = small().to_format("coo")
        u = Vector.from_coo([0, 1, 2], [1, 10, 100], size=3)
        for direction in ("push", "pull"):
            d = Descriptor(direction=direction)
            w = A.mxv(u).new(desc=d)
            np.testing.assert_array_equal(w.to_dense(fill_value=0), DENSE @ [1, 10, 100])

    def test_format_info(self):
        A = small()
        info = A.format_info()
        assert info["format"] == "csr" and info["nnz"] == A.nvals and info["device"] == "cpu"
        assert info["nbytes"] > 0 and info["bytes_per_edge"] == info["nbytes"] / A.nvals
        # another format: built and cached, the primary one unchanged
        sell = A.format_info("sellcs", C=2, sigma=1)
        assert sell["format"] == "sellcs" and (sell["C"], sell["sigma"]) == (2, 1)
        assert sell["padding"] == sell["cells"] - sell["nnz"] >= 0
        assert A.format == "csr" and "sellcs(C=2,sigma=1)" in A.formats
        # the primary format's parameters are the default
        A.to_format("slimsell", C=4)
        assert A.format_info()["format"] == "slimsell" and A.format_info()["C"] == 4
        bv = A.format_info("bvss", reorder="none")
        assert bv["nnz"] == A.nvals and 0 < bv["compression_ratio"] <= 1
        with pytest.raises(NotImplementedForFormat, match="unknown format 'nope'"):
            A.format_info("nope")
        with pytest.raises(InvalidValue):
            A.format_info("sellcs", C=0)

    def test_transpose_cached(self):
        A = small()
        A.T.new()
        assert "csr_T" in A.formats

    def test_cache_dropped_on_write(self):
        A = small()
        A.to_format("coo")
        A.T.new()
        A[1, 1] = 1
        assert A.nvals == 7
        np.testing.assert_array_equal(A.T.to_dense(fill_value=0)[1, 1], 1)
        A.to_format("coo")
        assert A[1, 1].value == 1

    def test_is_iso(self):
        assert Matrix.from_coo([0, 1], [1, 0], True, nrows=2, ncols=2).is_iso
        assert not small().is_iso


# ----------------------------------------------------------------------------- operations
class TestOperations:
    def test_mxv_expression_new(self):
        A = small()
        u = Vector.from_coo([0, 1, 2], [1, 10, 100], size=3)
        e = A.mxv(u)
        assert e.shape == (4,) and e.dtype == gb.INT64
        w = e.new()
        np.testing.assert_array_equal(w.to_dense(fill_value=0), DENSE @ [1, 10, 100])
        wf = A.mxv(u).new(dtype="float32")
        assert wf.dtype == gb.FP32
        m = Vector.from_coo([1, 3], True, size=4)
        wm = A.mxv(u).new(mask=m.S)
        assert wm.nvals == 2 and wm[1].value == 300 and wm[3].value == 650

    def test_mxm(self):
        A = small()
        C = A.mxm(A.T).new()
        np.testing.assert_array_equal(C.to_dense(fill_value=0), DENSE @ DENSE.T)
        C2 = (A @ A.T).new()
        assert C2.isequal(C)
        Cm = A.mxm(A.T, semiring.min_plus).new()
        assert Cm[0, 0].value == 2  # min(1+1, 2+2)

    def test_reduce(self):
        A = small()
        rows = A.reduce_rowwise().new()
        np.testing.assert_array_equal(rows.to_dense(), DENSE.sum(axis=1))
        cols = A.reduce_columnwise(monoid.max).new()
        np.testing.assert_array_equal(cols.to_dense(), DENSE.max(axis=0))
        assert A.reduce_scalar().value == 21
        assert A.reduce_scalar(monoid.min).new().value == 1

    @pytest.mark.parametrize("value,dtype", [(1, "INT64"), (3, "INT32"), (0.5, "FP64"),
                                             (True, "BOOL"), (False, "BOOL")])
    @pytest.mark.parametrize("sparse_rows", [False, True])
    def test_reduce_iso(self, value, dtype, sparse_rows):
        # dense results (out-degrees) take the count * value path, sparse ones the row list
        rng = np.random.default_rng(3)
        n = 200
        keep = rng.random((n, n)) < (0.002 if sparse_rows else 0.3)
        r, c = np.nonzero(keep)
        A = Matrix.from_coo(r, c, value, getattr(gb, dtype), nrows=n, ncols=n)
        assert A.is_iso
        dense = np.where(keep, value, 0).astype(A.dtype.np_type)
        for axis, summed in (("rowwise", keep.sum(axis=1)), ("columnwise", keep.sum(axis=0))):
            v = getattr(A, f"reduce_{axis}")(monoid.plus).new()
            idx, vals = v.to_coo()
            np.testing.assert_array_equal(idx, np.flatnonzero(summed))
            want = dense.sum(axis=1 if axis == "rowwise" else 0, dtype=A.dtype.np_type)
            if dtype == "BOOL":
                want = want.astype(bool)
            np.testing.assert_array_equal(vals, want[idx])

    def test_apply_select(self):
        A = small()
        assert entries(A.select("tril").new()) == {(0, 0): 1, (2, 0): 4, (3, 1): 5, (3, 2): 6}
        assert entries(A.select(gb.select.triu, 1).new()) == {(0, 1): 2, (1, 2): 3}
        assert entries(A.select(">=", 5).new()) == {(3, 1): 5, (3, 2): 6}
        B = A.apply(gb.unary.ainv).new()
        np.testing.assert_array_equal(B.to_dense(fill_value=0), -DENSE)
        P = A.apply(gb.unary.positioni).new()
        assert entries(P)[(3, 2)] == 3

    def test_ewise(self):
        A = small()
        B = Matrix.from_coo([0, 1], [0, 1], [10, 20], nrows=4, ncols=3)
        assert entries(A.ewise_mult(B).new()) == {(0, 0): 10}
        S = A.ewise_add(B).new()
        assert S.nvals == 7 and S[0, 0].value == 11 and S[1, 1].value == 20

    def test_accum_into_matrix(self):
        A = small()
        A(accum=binary.plus) << small()
        np.testing.assert_array_equal(A.to_dense(fill_value=0), 2 * DENSE)


def test_format_keys_keep_transpose_and_parameters():
    """The representation cache keys a format by its parameters and by Aᵀ vs A."""
    from gblas.formats import _FORMATS, FormatSpec, format_key, register_format
    from gblas.formats.csr.container import CSR

    built: list[tuple[bool, dict]] = []

    def from_csr(csr: CSR, **params):
        built.append((csr, params))
        return ("blocked", csr, params)

    register_format(FormatSpec("blocked_test", from_csr, lambda c: c[1]))
    try:
        assert format_key("blocked_test", False, {}) == "blocked_test"
        assert format_key("blocked_test", True, {}) == "blocked_test_T"
        assert format_key("blocked_test", False, {"C": 4, "a": 1}) == "blocked_test(C=4,a=1)"
        assert format_key("blocked_test", True, {"C": 4}) == "blocked_test(C=4)_T"
        A = Matrix.from_coo([0, 1], [1, 2], [1.0, 2.0], nrows=3, ncols=3)
        plain, trans = A._rep("blocked_test", C=4), A._rep("blocked_test", True, C=4)
        assert plain is not trans and trans[1].indices.tolist() == [0, 1]  # built from Aᵀ
        assert A._rep("blocked_test", True, C=4) is trans and len(built) == 2  # cached
    finally:
        _FORMATS.pop("blocked_test")
