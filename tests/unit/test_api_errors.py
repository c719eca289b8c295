"""Error paths: GraphBLAS exception names, informative messages, outputs left unchanged.

For every error: the exception class (from gblas.exceptions), a message that names what was
expected and what was given (key words or the numbers involved), and the output object is
unchanged after the failed operation (compared with a dup taken before). Errors must be
raised before any kernel runs, so gblas.last_plan() is unchanged too where an operation was
involved.
"""

from __future__ import annotations

import numpy as np
import pytest

import gblas as gb
from gblas import Descriptor, Matrix, Scalar, Vector, binary, monoid, semiring
from gblas.exceptions import (
    DimensionMismatch,
    DomainMismatch,
    EmptyObject,
    GraphblasException,
    IndexOutOfBound,
    InvalidObject,
    InvalidValue,
    NotImplementedForFormat,
    NoValue,
    OutputNotEmpty,
)


def vec(n=5, idx=(0, 2), vals=(1, 2), name=None):
    return Vector.from_coo(list(idx), list(vals), size=n, name=name)


def mat(nr=3, nc=4):
    return Matrix.from_coo([0, 1, 2], [0, 1, nc - 1], [1, 2, 3], nrows=nr, ncols=nc, name="A")


class Unchanged:
    """Context manager: the objects equal a dup taken before (structure, values, dtype)."""

    def __init__(self, *objs):
        self.objs = objs
        self.copies = [o.dup() for o in objs]
        self.meta = [(o.shape, o.dtype, o.nvals) for o in objs]
        self.plan = gb.last_plan()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for o, c, m in zip(self.objs, self.copies, self.meta, strict=True):
            assert (o.shape, o.dtype, o.nvals) == m
            assert o.isequal(c, check_dtype=True), f"{o.name} changed by a failed operation"
        return False


def test_hierarchy():
    for cls in (DimensionMismatch, DomainMismatch, IndexOutOfBound, InvalidValue,
                InvalidObject, EmptyObject, NoValue, OutputNotEmpty, NotImplementedForFormat):
        assert issubclass(cls, GraphblasException)
    assert issubclass(NoValue, EmptyObject)
    # usable with the built-in Python exception idioms too
    assert issubclass(IndexOutOfBound, IndexError)
    assert issubclass(DimensionMismatch, ValueError)


# ----------------------------------------------------------------------------- DimensionMismatch
class TestDimensionMismatch:
    def test_mxv(self):
        A = mat(3, 4)
        u = vec(5)
        w = vec(3, (1,), (7,))
        with Unchanged(w, A, u):
            with pytest.raises(DimensionMismatch) as ei:
                w << A.mxv(u)
        msg = str(ei.value)
        assert "4" in msg and "5" in msg
        assert "column" in msg and "size" in msg

    def test_vxm(self):
        A = mat(3, 4)
        u = vec(5)
        w = vec(4, (1,), (7,))
        with Unchanged(w, A, u):
            with pytest.raises(DimensionMismatch) as ei:
                w << u.vxm(A)
        msg = str(ei.value)
        assert "5" in msg and "3" in msg and "row" in msg

    def test_mxv_output_size(self):
        A = mat(3, 4)
        u = vec(4)
        w = vec(5, (1,), (7,))
        with Unchanged(w):
            with pytest.raises(DimensionMismatch) as ei:
                w << A.mxv(u)
        msg = str(ei.value)
        assert "(3,)" in msg and "(5,)" in msg

    def test_mxm(self):
        A = mat(3, 4)
        C = Matrix.from_coo([0], [0], [1], nrows=3, ncols=3)
        with Unchanged(C, A):
            with pytest.raises(DimensionMismatch) as ei:
                C << A.mxm(A)
        msg = str(ei.value)
        assert "3x4" in msg and "inner" in msg

    def test_mxm_that_fits_only_transposed(self):
        """A (3x4) times A fits only with a descriptor transposing one side (GrB_INP0/1):
        without it, or with the other one, the update raises and changes nothing."""
        A = mat(3, 4)
        C = Matrix.from_coo([0], [0], [1], nrows=4, ncols=4)
        with Unchanged(C, A):
            with pytest.raises(DimensionMismatch, match="3x4.*inner"):
                C << A.mxm(A)
            with pytest.raises(DimensionMismatch, match=r"\(3, 3\).*\(4, 4\)"):
                C(desc=Descriptor(transpose_second=True)) << A.mxm(A)  # A·Aᵀ is 3x3
            with pytest.raises(DimensionMismatch, match="inner"):
                A.mxm(A).new()
        C(desc=Descriptor(transpose_first=True)) << A.mxm(A)  # Aᵀ·A
        assert C.isequal(A.T.mxm(A).new())
        with pytest.raises(DimensionMismatch, match="inner"):  # no transpose fits: at once
            A.mxm(mat(5, 6))
        u = vec(3)
        w = A.mxv(u).new(desc=Descriptor(transpose_first=True))  # Aᵀu
        assert w.isequal(A.T.mxv(u).new())
        with pytest.raises(DimensionMismatch, match="columns"):
            A.mxv(u).new()
        with pytest.raises(DimensionMismatch, match="rows"):
            vec(4).vxm(A).new()

    @pytest.mark.parametrize("name", ["ewise_add", "ewise_mult"])
    def test_ewise_vector(self, name):
        a, b = vec(5), vec(6)
        w = vec(5, (4,), (1,))
        with Unchanged(w, a, b):
            with pytest.raises(DimensionMismatch) as ei:
                w << getattr(a, name)(b)
        msg = str(ei.value)
        assert "5" in msg and "6" in msg

    def test_ewise_matrix(self):
        A = mat(3, 4)
        B = mat(4, 4)
        with Unchanged(A, B):
            with pytest.raises(DimensionMismatch) as ei:
                A << A.ewise_add(B)
        assert "(3, 4)" in str(ei.value) and "(4, 4)" in str(ei.value)

    def test_ewise_vector_with_matrix(self):
        with pytest.raises(DimensionMismatch) as ei:
            vec(3).ewise_add(mat(3, 3))
        assert "Matrix" in str(ei.value)

    def test_mask_shape(self):
        A = mat(3, 4)
        u = vec(4)
        w = vec(3, (1,), (7,))
        m = vec(4)
        with Unchanged(w):
            with pytest.raises(DimensionMismatch) as ei:
                w(m.S) << A.mxv(u)
        msg = str(ei.value)
        assert "mask" in msg and "(4,)" in msg and "(3,)" in msg

    def test_mask_shape_matrix(self):
        A = mat(3, 4)
        M = Matrix(bool, 4, 3)
        with Unchanged(A):
            with pytest.raises(DimensionMismatch) as ei:
                A(M.S) << A.apply(gb.unary.ainv)
        assert "(4, 3)" in str(ei.value) and "(3, 4)" in str(ei.value)

    def test_mask_shape_scalar_assign(self):
        w = vec(3, (1,), (7,))
        with Unchanged(w):
            with pytest.raises(DimensionMismatch):
                w(vec(4).S) << 1

    def test_assign_operand_size(self):
        w = vec(5, (0,), (9,))
        u = vec(3, (0, 1), (1, 2))
        with Unchanged(w, u):
            with pytest.raises(DimensionMismatch) as ei:
                w[[1, 2]] << u
        msg = str(ei.value)
        assert "2" in msg and "3" in msg and "indices" in msg

    def test_assign_matrix_region_size(self):
        A = mat(3, 4)
        B = Matrix.from_coo([0], [0], [5], nrows=3, ncols=3)
        with Unchanged(A, B):
            with pytest.raises(DimensionMismatch) as ei:
                A[[0, 1], [0, 1]] << B
        msg = str(ei.value)
        assert "2x2" in msg and "3x3" in msg

    def test_from_coo_lengths(self):
        with pytest.raises(DimensionMismatch) as ei:
            Vector.from_coo([0, 1, 2], [1, 2], size=4)
        assert "3" in str(ei.value) and "2" in str(ei.value)
        with pytest.raises(DimensionMismatch) as ei:
            Matrix.from_coo([0, 1], [0], [1, 2], nrows=2, ncols=2)
        assert "2" in str(ei.value) and "1" in str(ei.value)

    def test_from_dense_ndim(self):
        with pytest.raises(DimensionMismatch):
            Vector.from_dense(np.zeros((2, 2)))
        with pytest.raises(DimensionMismatch):
            Matrix.from_dense(np.zeros(3))

    def test_inner(self):
        with pytest.raises(DimensionMismatch) as ei:
            vec(3).inner(vec(4))
        assert "3" in str(ei.value) and "4" in str(ei.value)


# ----------------------------------------------------------------------------- DomainMismatch
class TestDomainMismatch:
    def test_monoid_as_semiring(self):
        A = mat(3, 4)
        u = vec(4)
        w = vec(3, (1,), (7,))
        with Unchanged(w):
            with pytest.raises(DomainMismatch) as ei:
                w << A.mxv(u, monoid.plus)
        msg = str(ei.value)
        assert "Semiring" in msg and "plus" in msg

    @pytest.mark.parametrize("op", [monoid.min, binary.plus, gb.unary.ainv])
    def test_wrong_operator_kind_mxm_vxm(self, op):
        A = mat(3, 3)
        with pytest.raises(DomainMismatch) as ei:
            A.mxm(A, op)
        assert "Semiring" in str(ei.value)
        with pytest.raises(DomainMismatch):
            vec(3).vxm(A, op)

    def test_semiring_as_reduce_monoid(self):
        with pytest.raises(DomainMismatch) as ei:
            vec(3).reduce(semiring.plus_times)
        assert "Monoid" in str(ei.value)

    def test_bitwise_operators_refuse_floats(self):
        v = Vector.from_coo([0, 1], [1.5, 2.5])
        A = Matrix.from_coo([0], [1], [1.0], nrows=2, ncols=2)
        w = Vector.from_coo([0], [7.0], size=2)
        before = w.dup()
        for call in (lambda: v.reduce(monoid.band).new(),
                     lambda: A.reduce_rowwise(monoid.bor).new(),
                     lambda: v.ewise_mult(v, binary.bxor).new(),
                     lambda: A.mxv(v, semiring.bor_band).new(),
                     lambda: monoid.band[gb.FP64],
                     lambda: binary.bor["FP32"]):
            with pytest.raises(DomainMismatch, match="integer and boolean types, got FP"):
                call()
        with pytest.raises(DomainMismatch):
            w << A.mxv(v, semiring.bor_band)
        assert w.isequal(before)  # a failed operation leaves its output unchanged
        iv = Vector.from_coo([0, 1], [6, 3])
        assert iv.reduce(monoid.band).new().value == 2 and monoid.band[gb.UINT8]

    def test_binaryop_without_monoid_in_reduce(self):
        with pytest.raises(DomainMismatch) as ei:
            vec(3).reduce(binary.minus)
        assert "Monoid" in str(ei.value) and "minus" in str(ei.value)

    def test_bad_apply_operator(self):
        with pytest.raises(DomainMismatch) as ei:
            vec(3).apply(semiring.plus_times)
        assert "UnaryOp" in str(ei.value)

    def test_bad_select_operator(self):
        with pytest.raises(DomainMismatch) as ei:
            vec(3).select(gb.unary.abs)
        assert "IndexUnaryOp" in str(ei.value)

    def test_bad_ewise_operator(self):
        with pytest.raises(DomainMismatch) as ei:
            vec(3).ewise_add(vec(3), gb.unary.abs)
        assert "BinaryOp" in str(ei.value)

    @pytest.mark.parametrize("bad", ["foo", "complex128", np.complex64, object, "int128"])
    def test_unknown_dtype(self, bad):
        with pytest.raises(DomainMismatch) as ei:
            Vector(bad, 3)
        msg = str(ei.value)
        assert str(getattr(bad, "__name__", bad)) in msg or repr(bad) in msg
        assert "int64" in msg.lower() or "float64" in msg.lower()

    def test_unknown_dtype_everywhere(self):
        with pytest.raises(DomainMismatch):
            Matrix("foo", 2, 2)
        with pytest.raises(DomainMismatch):
            Scalar("foo")
        with pytest.raises(DomainMismatch):
            Vector.from_coo([0], [1], dtype="foo", size=2)
        v = vec(3)
        with Unchanged(v):
            with pytest.raises(DomainMismatch):
                v.dup(dtype="foo")
        with pytest.raises(DomainMismatch):
            v.apply(gb.unary.ainv).new(dtype="foo")

    def test_positional_monoid(self):
        with pytest.raises(DomainMismatch):
            gb.Monoid.register_anonymous(binary.firsti, 0)


# ----------------------------------------------------------------------------- IndexOutOfBound
class TestIndexOutOfBound:
    def test_vector_get(self):
        v = vec(5)
        with pytest.raises(IndexOutOfBound) as ei:
            v[10]
        msg = str(ei.value)
        assert "10" in msg and "5" in msg
        with pytest.raises(IndexOutOfBound):
            v[-6]
        with pytest.raises(IndexOutOfBound):
            _ = v[5].value

    def test_vector_set(self):
        v = vec(5)
        with Unchanged(v):
            with pytest.raises(IndexOutOfBound) as ei:
                v[10] = 1
            assert "10" in str(ei.value) and "5" in str(ei.value)
            with pytest.raises(IndexOutOfBound):
                v[5] << 1

    def test_vector_delete(self):
        v = vec(5)
        with Unchanged(v):
            with pytest.raises(IndexOutOfBound):
                del v[5]

    def test_vector_index_list(self):
        v = vec(5)
        with Unchanged(v):
            with pytest.raises(IndexOutOfBound) as ei:
                v[[0, 7]] << 1
            assert "7" in str(ei.value)
            with pytest.raises(IndexOutOfBound):
                v[[1, 9]].new()

    def test_from_coo_index_too_large(self):
        with pytest.raises(IndexOutOfBound) as ei:
            Vector.from_coo([0, 7], [1, 2], size=5)
        msg = str(ei.value)
        assert "7" in msg and "5" in msg
        with pytest.raises(IndexOutOfBound) as ei:
            Vector.from_coo([0, 5], [1, 2], size=5)
        assert "5" in str(ei.value)

    def test_from_coo_negative(self):
        with pytest.raises(IndexOutOfBound) as ei:
            Vector.from_coo([0, -1], [1, 2], size=5)
        assert "-1" in str(ei.value) and "negative" in str(ei.value)
        with pytest.raises(IndexOutOfBound):
            Vector.from_coo([-3], [1])

    def test_matrix_from_coo(self):
        with pytest.raises(IndexOutOfBound) as ei:
            Matrix.from_coo([0, 3], [0, 0], [1, 2], nrows=3, ncols=3)
        assert "3" in str(ei.value) and "row" in str(ei.value)
        with pytest.raises(IndexOutOfBound) as ei:
            Matrix.from_coo([0], [9], [1], nrows=3, ncols=3)
        assert "9" in str(ei.value) and "column" in str(ei.value)
        with pytest.raises(IndexOutOfBound):
            Matrix.from_coo([0], [-1], [1], nrows=3, ncols=3)

    def test_matrix_element(self):
        A = mat(3, 4)
        with pytest.raises(IndexOutOfBound) as ei:
            A[3, 0]
        assert "row" in str(ei.value) and "3" in str(ei.value)
        with pytest.raises(IndexOutOfBound) as ei:
            A[0, 4]
        assert "column" in str(ei.value) and "4" in str(ei.value)
        with Unchanged(A):
            with pytest.raises(IndexOutOfBound):
                A[5, 5] = 1
            with pytest.raises(IndexOutOfBound):
                del A[0, 9]

    def test_build(self):
        v = Vector(int, 3)
        with Unchanged(v):
            with pytest.raises(IndexOutOfBound):
                v.build([0, 3], [1, 2])
        A = Matrix(int, 2, 2)
        with Unchanged(A):
            with pytest.raises(IndexOutOfBound):
                A.build([0, 2], [0, 0], [1, 2])


# ----------------------------------------------------------------------------- InvalidValue
class TestInvalidValue:
    def test_replace_without_mask(self):
        A = mat(3, 4)
        u = vec(4)
        w = vec(3, (1,), (7,))
        with Unchanged(w):
            with pytest.raises(InvalidValue) as ei:
                w(replace=True) << A.mxv(u)
        msg = str(ei.value)
        assert "replace" in msg and "mask" in msg

    def test_replace_in_descriptor_without_mask(self):
        A = mat(3, 4)
        w = vec(3, (1,), (7,))
        with Unchanged(w):
            with pytest.raises(InvalidValue):
                w(desc=Descriptor(replace=True)) << A.mxv(vec(4))

    def test_bad_descriptor_direction(self):
        with pytest.raises(InvalidValue) as ei:
            Descriptor(direction="sideways")
        msg = str(ei.value)
        assert "sideways" in msg and "push" in msg and "pull" in msg

    def test_desc_not_a_descriptor(self):
        w = vec(3)
        with Unchanged(w):
            with pytest.raises(InvalidValue) as ei:
                w(desc={"direction": "push"}) << w
        assert "Descriptor" in str(ei.value)

    def test_duplicates_without_dup_op(self):
        with pytest.raises(InvalidValue) as ei:
            Vector.from_coo([1, 1], [1, 2], size=3)
        msg = str(ei.value)
        assert "dup" in msg.lower() and "1" in msg
        with pytest.raises(InvalidValue) as ei:
            Matrix.from_coo([0, 0], [1, 1], [1, 2], nrows=2, ncols=2)
        assert "dup" in str(ei.value).lower()

    def test_duplicates_build_unchanged(self):
        v = Vector.from_coo([0], [5], size=3)
        with Unchanged(v):
            with pytest.raises(InvalidValue):
                v.build([1, 1], [1, 2], clear=True)
        A = mat(3, 4)
        with Unchanged(A):
            with pytest.raises(InvalidValue):
                A.build([0, 0], [0, 0], [1, 2], clear=True)

    def test_bad_dup_op(self):
        with pytest.raises(InvalidValue) as ei:
            Vector.from_coo([1, 1], [1, 2], size=3, dup_op="plus")
        assert "dup_op" in str(ei.value)

    def test_negative_sizes(self):
        with pytest.raises(InvalidValue):
            Vector(int, -1)
        with pytest.raises(InvalidValue):
            Matrix(int, -1, 2)
        v = vec(5)
        with Unchanged(v):
            with pytest.raises(InvalidValue):
                v.resize(-1)
        A = mat()
        with Unchanged(A):
            with pytest.raises(InvalidValue):
                A.resize(2, -3)

    def test_unknown_config_key(self):
        with pytest.raises(InvalidValue) as ei:
            gb.config.get("no_such_key")
        assert "no_such_key" in str(ei.value) and "push_to_pull" in str(ei.value)
        before = gb.config.as_dict()
        with pytest.raises(InvalidValue):
            gb.config.set(no_such_key=3)
        assert gb.config.as_dict() == before

    def test_unknown_device(self):
        with pytest.raises(InvalidValue) as ei:
            Vector(int, 3, device="tpu")
        assert "tpu" in str(ei.value) and "cpu" in str(ei.value)

    def test_device_names_alike(self):
        """Every device function takes "cuda" as "cuda:0" (and "CPU" as "cpu")."""
        from gblas import _device

        assert _device.device_index("cpu") == -1 and _device.device_index("CPU") == -1
        _device.synchronize("cpu")
        _device.synchronize(" Cpu ")
        if gb.cuda_available():
            assert _device.device_index("cuda") == _device.device_index("cuda:0") == 0
            _device.synchronize("cuda")
            _device.synchronize("gpu")
        else:  # no GPU here: a clear error, the same for every spelling
            for name in ("cuda", "cuda:0", "gpu"):
                with pytest.raises(InvalidValue, match="no CUDA GPU"):
                    _device.synchronize(name)
            with pytest.raises(InvalidValue, match="no CUDA GPU"):
                _device.device_index("cuda")  # "cuda:N" is only parsed
        with pytest.raises(InvalidValue, match="unknown device 'tpu'"):
            _device.synchronize("tpu")

    def test_apply_binary_needs_one_scalar(self):
        v = vec(3)
        with pytest.raises(InvalidValue) as ei:
            v.apply(binary.plus)
        assert "left" in str(ei.value) and "right" in str(ei.value)

    def test_select_unknown_name_and_missing_thunk(self):
        with pytest.raises(InvalidValue) as ei:
            vec(3).select("nosuch")
        assert "nosuch" in str(ei.value) and "tril" in str(ei.value)
        with pytest.raises(InvalidValue) as ei:
            vec(3).select(">")
        assert "thunk" in str(ei.value)

    def test_index_must_be_integer(self):
        v = vec(3)
        with pytest.raises(InvalidValue):
            del v[1.5]
        with pytest.raises(InvalidValue):
            mat()[0]

    def test_to_format_full_with_missing(self):
        v = vec(5)
        with Unchanged(v):
            fmt = v.format
            with pytest.raises(InvalidValue) as ei:
                v.to_format("full")
            assert "2" in str(ei.value) and "5" in str(ei.value)
            assert v.format == fmt

    def test_from_csr_bad_indptr(self):
        with pytest.raises(InvalidValue) as ei:
            Matrix.from_csr([0, 3, 2], [0, 1], [1, 2])
        assert "indptr" in str(ei.value)


# ----------------------------------------------------------------------------- InvalidObject
class TestInvalidObject:
    def test_vector_as_mask_keyword(self):
        A = mat(3, 4)
        u = vec(4)
        m = vec(3)
        w = vec(3, (1,), (7,))
        with Unchanged(w):
            with pytest.raises(InvalidObject) as ei:
                w(mask=m) << A.mxv(u)
        msg = str(ei.value)
        assert ".S" in msg and "Vector" in msg

    def test_vector_as_mask_positional(self):
        A = mat(3, 4)
        m = vec(3)
        w = vec(3, (1,), (7,))
        with Unchanged(w):
            with pytest.raises(InvalidObject) as ei:
                w(m) << A.mxv(vec(4))
        msg = str(ei.value)
        assert ".S" in msg and "Vector" in msg

    def test_matrix_as_mask(self):
        A = mat(3, 4)
        with Unchanged(A):
            with pytest.raises(InvalidObject) as ei:
                A(mask=A) << A.apply(gb.unary.ainv)
        assert ".S" in str(ei.value)

    def test_bad_accum(self):
        w = vec(3)
        with Unchanged(w):
            with pytest.raises(InvalidObject) as ei:
                w(accum=semiring.plus_times) << w
        assert "BinaryOp" in str(ei.value)

    def test_vector_where_matrix_expected(self):
        u = vec(3)
        with pytest.raises(InvalidObject) as ei:
            u.vxm(u)
        assert "matrix" in str(ei.value) and "Vector" in str(ei.value)
        with pytest.raises(InvalidObject):
            mat(3, 3).mxv(mat(3, 3))

    def test_assign_wrong_kind(self):
        w = vec(3)
        with Unchanged(w):
            with pytest.raises(InvalidObject) as ei:
                w << "text"
        assert "str" in str(ei.value)
        A = mat(3, 3)
        with Unchanged(w):
            with pytest.raises(InvalidObject) as ei:
                w << A.reduce_scalar()
        assert "Scalar" in str(ei.value)

    def test_isequal_wrong_kind(self):
        with pytest.raises(InvalidObject):
            vec(3).isequal(mat(3, 3))

    def test_register_monoid_with_non_binaryop(self):
        with pytest.raises(InvalidObject):
            gb.Monoid.register_anonymous(monoid.plus, 0)
        with pytest.raises(InvalidObject):
            gb.Semiring.register_anonymous(binary.plus, binary.times)


# ------------------------------------------------------------------- EmptyObject / NoValue
class TestEmpty:
    def test_vector_to_dense_missing(self):
        v = vec(5)
        with Unchanged(v):
            with pytest.raises(NoValue) as ei:
                v.to_dense()
        msg = str(ei.value)
        assert "fill_value" in msg and "3" in msg

    def test_matrix_to_dense_missing(self):
        A = mat()
        with Unchanged(A):
            with pytest.raises(EmptyObject) as ei:
                A.to_dense()
        assert "fill_value" in str(ei.value)

    def test_int_of_empty_scalar(self):
        s = Scalar(int, name="nothing")
        with pytest.raises(EmptyObject) as ei:
            int(s)
        assert "empty" in str(ei.value) and "nothing" in str(ei.value)
        assert s.is_empty
        with pytest.raises(EmptyObject):
            float(s)

    def test_int_of_missing_element(self):
        v = vec(5)
        with pytest.raises(EmptyObject):
            int(v[1])

    def test_reduce_not_allow_empty(self):
        with pytest.raises(EmptyObject):
            Vector(int, 3).reduce(allow_empty=False).new()

    def test_assign_empty_scalar(self):
        w = vec(3)
        with Unchanged(w):
            with pytest.raises(InvalidValue) as ei:
                w[1] << Scalar(int)
        assert "empty" in str(ei.value)


# ----------------------------------------------------------------------------- OutputNotEmpty
class TestOutputNotEmpty:
    def test_vector_build(self):
        v = vec(5)
        with Unchanged(v):
            with pytest.raises(OutputNotEmpty) as ei:
                v.build([1], [5])
        msg = str(ei.value)
        assert "clear" in msg and "2" in msg

    def test_matrix_build(self):
        A = mat()
        with Unchanged(A):
            with pytest.raises(OutputNotEmpty) as ei:
                A.build([1], [1], [5])
        assert "clear" in str(ei.value) and "3" in str(ei.value)

    def test_build_after_clear_ok(self):
        v = vec(5)
        v.clear()
        v.build([1], [5])
        assert v.nvals == 1


# ------------------------------------------------------------------ NotImplementedForFormat
class TestNotImplementedForFormat:
    def test_matrix_unknown_format(self):
        A = mat()
        fmt, formats = A.format, A.formats
        with Unchanged(A):
            with pytest.raises(NotImplementedForFormat) as ei:
                A.to_format("nosuchformat")
        msg = str(ei.value)
        assert "nosuchformat" in msg and "csr" in msg and "coo" in msg
        assert A.format == fmt and A.formats == formats

    def test_format_parameters_rejected(self):
        A = mat()
        with Unchanged(A):
            with pytest.raises(NotImplementedForFormat):
                A.to_format("coo", C=32)
        assert A.format == "csr"

    def test_descriptor_unknown_format(self):
        A = mat(3, 4)
        w = vec(3, (1,), (7,))
        with Unchanged(w):
            with pytest.raises(NotImplementedForFormat):
                w(desc=Descriptor(format="nosuchformat")) << A.mxv(vec(4))

    def test_vector_unknown_storage(self):
        v = vec(5)
        with Unchanged(v):
            fmt = v.format
            with pytest.raises((NotImplementedForFormat, InvalidValue)) as ei:
                v.to_format("nosuchformat")
            msg = str(ei.value)
            assert "nosuchformat" in msg and "sparse" in msg and "bitmap" in msg
            assert v.format == fmt


# ----------------------------------------------------------------------------- before any kernel
def test_errors_raised_before_any_kernel_runs():
    """A failed operation records no plan (it failed during validation)."""
    A = mat(3, 4)
    w = vec(3, (1,), (7,))
    w << A.mxv(vec(4))
    plan = gb.last_plan()
    for bad in (lambda: w << A.mxv(vec(5)),
                lambda: w(vec(4).S) << A.mxv(vec(4)),
                lambda: w << A.mxv(vec(4), monoid.plus),
                lambda: w(replace=True) << A.mxv(vec(4))):
        with pytest.raises(GraphblasException):
            bad()
        assert gb.last_plan() is plan
