"""Public API of gblas.Vector (python-graphblas compatible), plus Descriptor / plan / config.

Every public method and property of Vector is exercised: construction, export, dtypes,
element access, masks, whole-object operations, comparison, display, storage formats,
lazy expressions and what the planner records.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import gblas as gb
from gblas import Descriptor, Matrix, Scalar, Vector, binary, monoid, semiring
from gblas.core.mask import Mask
from gblas.exceptions import EmptyObject, InvalidValue, NoValue

ALL_DTYPES = [gb.BOOL, gb.INT8, gb.INT16, gb.INT32, gb.INT64, gb.UINT8, gb.UINT16, gb.UINT32,
              gb.UINT64, gb.FP32, gb.FP64]
DTYPE_NAMES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
               "uint64", "float32", "float64"]


def entries(v: Vector) -> dict[int, object]:
    idx, vals = v.to_coo()
    return dict(zip(idx.tolist(), vals.tolist(), strict=True))


# ----------------------------------------------------------------------------- construction
class TestConstruction:
    def test_empty(self):
        v = Vector(int, 5)
        assert v.size == 5 and len(v) == 5
        assert v.shape == (5,)
        assert v.nvals == 0
        assert v.dtype == gb.INT64
        assert v.device == "cpu"
        assert entries(v) == {}

    def test_default_dtype_is_fp64(self):
        assert Vector().dtype == gb.FP64
        assert Vector(size=3).size == 3

    @pytest.mark.parametrize("dtype", [int, float, bool, "int32", np.uint16, gb.FP32])
    def test_dtype_spellings(self, dtype):
        v = Vector(dtype, 2)
        assert v.dtype == gb.dtypes.lookup_dtype(dtype)

    def test_from_coo_basic(self):
        v = Vector.from_coo([3, 0, 5], [30, 0, 50], size=8)
        assert v.size == 8
        assert v.nvals == 3
        assert v.dtype == gb.INT64
        assert entries(v) == {0: 0, 3: 30, 5: 50}

    def test_from_coo_infers_size(self):
        v = Vector.from_coo([1, 4], [1.5, 2.5])
        assert v.size == 5
        assert v.dtype == gb.FP64

    def test_from_coo_numpy_arrays(self):
        v = Vector.from_coo(np.array([2, 1], dtype=np.int32), np.array([7, 8], np.int16),
                            size=3)
        assert v.dtype == gb.INT16
        assert entries(v) == {1: 8, 2: 7}

    def test_from_coo_dtype_argument_casts(self):
        v = Vector.from_coo([0, 1], [1.9, 2.2], dtype=int, size=2)
        assert v.dtype == gb.INT64
        assert entries(v) == {0: 1, 1: 2}

    def test_from_coo_scalar_value_is_iso(self):
        v = Vector.from_coo([0, 3, 6], True, size=7)
        assert v.dtype == gb.BOOL
        assert v.nvals == 3
        assert entries(v) == {0: True, 3: True, 6: True}
        w = Vector.from_coo([1, 2], 2.5, size=4)
        assert w.dtype == gb.FP64
        assert entries(w) == {1: 2.5, 2: 2.5}
        x = Vector.from_coo([1, 2], 7, dtype="uint8", size=4)
        assert x.dtype == gb.UINT8
        assert x.to_coo()[1].dtype == np.uint8
        assert entries(x) == {1: 7, 2: 7}

    def test_from_coo_default_values_one(self):
        v = Vector.from_coo([0, 2], size=3)
        assert entries(v) == {0: 1.0, 2: 1.0}

    def test_from_coo_duplicates_without_dup_op_raise(self):
        with pytest.raises(InvalidValue):
            Vector.from_coo([1, 1, 2], [1, 2, 3], size=3)

    @pytest.mark.parametrize("op,expected", [
        (binary.plus, 3), (binary.times, 2), (binary.min, 1), (binary.max, 2),
        (binary.first, 1), (binary.second, 2), (monoid.plus, 3), (monoid.max, 2),
    ])
    def test_from_coo_dup_op(self, op, expected):
        v = Vector.from_coo([1, 0, 1], [1, 9, 2], size=3, dup_op=op)
        assert entries(v) == {0: 9, 1: expected}

    def test_from_coo_dup_op_three_way(self):
        v = Vector.from_coo([2, 2, 2, 0], [1, 2, 3, 4], size=3, dup_op=binary.plus)
        assert entries(v) == {0: 4, 2: 6}
        w = Vector.from_coo([2, 2, 2], [5, 2, 3], size=3, dup_op=binary.minus)
        # dups combine in the order given: (5 - 2) - 3
        assert entries(w) == {2: 0}

    def test_from_coo_empty(self):
        v = Vector.from_coo([], [], dtype=int, size=4)
        assert v.size == 4 and v.nvals == 0 and v.dtype == gb.INT64

    def test_from_dense_full(self):
        v = Vector.from_dense([1, 0, 3])
        assert v.nvals == 3
        assert entries(v) == {0: 1, 1: 0, 2: 3}
        assert v.format == "full"

    def test_from_dense_missing_value(self):
        v = Vector.from_dense(np.array([1.0, 0.0, 3.0, 0.0]), missing_value=0)
        assert v.nvals == 2
        assert entries(v) == {0: 1.0, 2: 3.0}

    def test_from_dense_dtype(self):
        v = Vector.from_dense([1, 2, 3], dtype="float32")
        assert v.dtype == gb.FP32
        assert v.to_dense().dtype == np.float32

    def test_build_and_clear(self):
        v = Vector(int, 6)
        v.build([4, 1], [40, 10])
        assert entries(v) == {1: 10, 4: 40}
        v.build([0], [5], clear=True)
        assert entries(v) == {0: 5}
        v.clear()
        assert v.nvals == 0 and v.size == 6 and v.dtype == gb.INT64

    def test_build_dup_op(self):
        v = Vector(int, 3)
        v.build([1, 1], [2, 3], dup_op=binary.plus)
        assert entries(v) == {1: 5}

    def test_build_casts_to_own_dtype(self):
        v = Vector(gb.INT8, 3)
        v.build([0, 2], [1.0, 2.0])
        assert v.dtype == gb.INT8
        assert v.to_coo()[1].dtype == np.int8
        assert entries(v) == {0: 1, 2: 2}

    def test_build_duplicates_without_dup_op_raise(self):
        v = Vector(int, 3)
        with pytest.raises(InvalidValue):
            v.build([0, 0], [1, 2])
        assert v.nvals == 0


# ----------------------------------------------------------------------------- export
class TestExport:
    def test_to_coo_sorted_and_copies(self):
        v = Vector.from_coo([5, 1, 3], [50, 10, 30], size=6)
        idx, vals = v.to_coo()
        assert idx.tolist() == [1, 3, 5]
        assert vals.tolist() == [10, 30, 50]
        assert isinstance(idx, np.ndarray) and idx.dtype.kind in "iu"
        idx[0] = 99
        vals[0] = 99
        assert entries(v) == {1: 10, 3: 30, 5: 50}

    def test_to_coo_dtype_and_flags(self):
        v = Vector.from_coo([0, 1], [1, 2], size=2)
        _, vals = v.to_coo(dtype=float)
        assert vals.dtype == np.float64
        idx, none = v.to_coo(values=False)
        assert none is None and idx.tolist() == [0, 1]
        none, vals = v.to_coo(indices=False)
        assert none is None and vals.tolist() == [1, 2]

    def test_to_dense_fill_value(self):
        v = Vector.from_coo([1, 3], [2.5, 4.5], size=5)
        np.testing.assert_array_equal(v.to_dense(fill_value=0), [0, 2.5, 0, 4.5, 0])
        np.testing.assert_array_equal(v.to_dense(fill_value=-1.0), [-1, 2.5, -1, 4.5, -1])

    def test_to_dense_dtype(self):
        v = Vector.from_coo([0, 1], [1.7, 2.2], size=2)
        out = v.to_dense(dtype=int)
        assert out.dtype == np.int64
        assert out.tolist() == [1, 2]

    def test_to_dense_full_needs_no_fill(self):
        v = Vector.from_dense([3, 4])
        assert v.to_dense().tolist() == [3, 4]

    def test_to_dense_missing_needs_fill(self):
        v = Vector.from_coo([0], [1], size=3)
        with pytest.raises(NoValue):
            v.to_dense()
        with pytest.raises(EmptyObject):  # NoValue is an EmptyObject
            v.to_dense()

    def test_to_dense_returns_copy(self):
        v = Vector.from_dense([1, 2, 3])
        d = v.to_dense()
        d[0] = 100
        assert entries(v) == {0: 1, 1: 2, 2: 3}

    def test_iteration_and_contains(self):
        v = Vector.from_coo([4, 1], [1, 1], size=6)
        assert list(v) == [1, 4]
        assert 1 in v and 4 in v and 0 not in v


# ----------------------------------------------------------------------------- dtypes
@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_dtypes_roundtrip(name):
    dt = gb.dtypes.lookup_dtype(name)
    assert dt in ALL_DTYPES
    vals = np.array([1, 0, 1], dtype=dt.np_type) if dt.is_bool else \
        np.array([1, 2, 3], dtype=dt.np_type)
    v = Vector.from_coo([0, 2, 4], vals, size=5)
    assert v.dtype == dt
    idx, out = v.to_coo()
    assert out.dtype == dt.np_type
    np.testing.assert_array_equal(out, vals)
    dense = v.to_dense(fill_value=0)
    assert dense.dtype == dt.np_type
    assert v[2].value == vals[1].item()
    assert type(v[2].value) is type(vals[1].item())
    e = Vector(name, 3)
    assert e.dtype == dt
    e[1] = 1
    assert e[1].value == dt.cast(1)
    # dtype= on from_coo casts
    w = Vector.from_coo([0], [1], dtype=name, size=1)
    assert w.dtype == dt and w.to_coo()[1].dtype == dt.np_type
    # dup(dtype) casts
    assert v.dup(dtype=gb.FP64).dtype == gb.FP64


def test_dtype_names():
    assert gb.INT64.name == "INT64"
    assert str(gb.FP32) == "FP32"
    assert gb.INT8 == "int8" and gb.INT8 == np.int8
    assert gb.dtypes.lookup_dtype(bool) is gb.BOOL
    assert gb.dtypes.lookup_dtype(float) is gb.FP64
    assert gb.dtypes.lookup_dtype(int) is gb.INT64
    assert gb.UINT64.np_type == np.uint64


# ----------------------------------------------------------------------------- elements
class TestElements:
    def test_get_value(self):
        v = Vector.from_coo([1, 3], [10, 30], size=5)
        assert v[1].value == 10
        assert v[3].value == 30
        assert v[0].value is None
        assert v[-2].value == 30  # negative counts from the end
        assert v.get(1) == 10 and v.get(0) is None and v.get(0, 7) == 7

    def test_get_element_new_is_scalar(self):
        v = Vector.from_coo([1], [10], size=3)
        s = v[1].new()
        assert isinstance(s, Scalar)
        assert s.value == 10 and s.dtype == gb.INT64
        e = v[0].new()
        assert e.is_empty and e.nvals == 0 and e.dtype == gb.INT64

    def test_scalar_conversions(self):
        v = Vector.from_coo([0], [3], size=2)
        assert int(v[0]) == 3
        assert float(v[0]) == 3.0

    def test_set_lshift_and_setitem(self):
        v = Vector(int, 4)
        v[1] << 5
        v[2] = 6
        v[-1] = 9
        assert entries(v) == {1: 5, 2: 6, 3: 9}
        v[1] = 7  # overwrite
        assert entries(v) == {1: 7, 2: 6, 3: 9}

    def test_set_casts_to_dtype(self):
        v = Vector(gb.INT8, 2)
        v[0] = 3.0
        assert v[0].value == 3 and isinstance(v[0].value, int)
        b = Vector(bool, 2)
        b[1] = 1
        assert b[1].value is True

    def test_set_from_scalar(self):
        v = Vector(float, 3)
        v[2] = Scalar.from_value(2.5)
        assert v[2].value == 2.5

    def test_delete(self):
        v = Vector.from_coo([0, 1, 2], [1, 2, 3], size=3)
        del v[1]
        assert entries(v) == {0: 1, 2: 3}
        assert v.nvals == 2
        del v[1]  # deleting an absent element is a no-op
        assert entries(v) == {0: 1, 2: 3}
        del v[-1]
        assert entries(v) == {0: 1}

    def test_extract_list_and_slice(self):
        v = Vector.from_coo([0, 2, 4], [1, 2, 3], size=5)
        w = v[[4, 0, 1]].new()
        assert w.size == 3
        assert entries(w) == {0: 3, 1: 1}
        s = v[1:5].new()
        assert s.size == 4 and entries(s) == {1: 2, 3: 3}

    def test_assign_vector_into_indices(self):
        v = Vector(int, 5)
        v[[1, 3]] << Vector.from_coo([0, 1], [7, 8], size=2)
        assert entries(v) == {1: 7, 3: 8}

    def test_assign_scalar_everywhere(self):
        v = Vector(int, 3)
        v << 4
        assert entries(v) == {0: 4, 1: 4, 2: 4}


# ----------------------------------------------------------------------------- masks
class TestMasks:
    def test_mask_objects(self):
        v = Vector.from_coo([0, 1], [0, 5], size=3)
        s, val = v.S, v.V
        assert isinstance(s, Mask) and isinstance(val, Mask)
        assert s.structure and not s.complement
        assert not val.structure and not val.complement
        c = ~v.S
        assert c.complement and c.structure
        assert (~~v.S).complement is False
        assert s.shape == (3,)
        assert s.parent is v

    def test_structural_vs_value_mask(self):
        m = Vector.from_coo([0, 1], [0, 5], size=4)  # entry 0 holds a zero
        w = Vector(int, 4)
        w(m.S) << 1
        assert entries(w) == {0: 1, 1: 1}
        w = Vector(int, 4)
        w(m.V) << 1
        assert entries(w) == {1: 1}
        w = Vector(int, 4)
        w(~m.S) << 1
        assert entries(w) == {2: 1, 3: 1}
        w = Vector(int, 4)
        w(~m.V) << 1
        assert entries(w) == {0: 1, 2: 1, 3: 1}

    def test_mask_keyword_and_replace(self):
        w = Vector.from_coo([0, 1, 2, 3], [9, 9, 9, 9], size=4)
        m = Vector.from_coo([1], [True], size=4)
        u = Vector.from_coo([0, 1, 2, 3], [1, 2, 3, 4], size=4)
        w2 = w.dup()
        w2(mask=m.S) << u
        assert entries(w2) == {0: 9, 1: 2, 2: 9, 3: 9}
        w3 = w.dup()
        w3(mask=m.S, replace=True) << u
        assert entries(w3) == {1: 2}

    def test_mask_bool_is_ambiguous(self):
        v = Vector(int, 2)
        with pytest.raises(InvalidValue):
            bool(v.S)
        with pytest.raises(InvalidValue):
            bool(v)


# ----------------------------------------------------------------------------- whole object
class TestWholeObject:
    def test_dup_is_independent(self):
        v = Vector.from_coo([0, 2], [1, 2], size=3)
        d = v.dup()
        assert d.isequal(v, check_dtype=True)
        assert d is not v and d.name != v.name
        d[1] = 5
        del d[0]
        assert entries(v) == {0: 1, 2: 2}
        v[0] = 100
        assert entries(d) == {1: 5, 2: 2}

    def test_dup_dense_storage_independent(self):
        v = Vector.from_dense([1, 2, 3])
        d = v.dup()
        d[0] = 10
        assert v[0].value == 1

    def test_dup_dtype_and_name(self):
        v = Vector.from_coo([0], [1.7], size=2)
        d = v.dup(int, name="copy")
        assert d.dtype == gb.INT64 and d.name == "copy" and d[0].value == 1

    def test_clear(self):
        v = Vector.from_dense([1, 2, 3])
        v.clear()
        assert v.nvals == 0 and v.size == 3 and v.dtype == gb.INT64

    def test_resize_grow_and_shrink(self):
        v = Vector.from_coo([0, 2, 4], [1, 2, 3], size=5)
        v.resize(8)
        assert v.size == 8 and entries(v) == {0: 1, 2: 2, 4: 3}
        v[7] = 4
        assert v[7].value == 4
        v.resize(3)
        assert v.size == 3 and entries(v) == {0: 1, 2: 2}
        v.resize(0)
        assert v.size == 0 and v.nvals == 0

    def test_resize_full_vector(self):
        v = Vector.from_dense([1, 2, 3])
        v.resize(5)
        assert v.size == 5 and v.nvals == 3 and entries(v) == {0: 1, 1: 2, 2: 3}

    def test_to_cpu_and_device(self):
        v = Vector.from_coo([0], [1], size=2)
        assert v.device == "cpu"
        assert v.to("cpu") is v
        assert Vector(int, 2, device="cpu").device == "cpu"

    def test_name(self):
        v = Vector(int, 2, name="frontier")
        assert v.name == "frontier"
        v.name = "visited"
        assert v.name == "visited"


# ----------------------------------------------------------------------------- comparison
class TestCompare:
    def test_isequal_structure_and_values(self):
        a = Vector.from_coo([0, 2], [1, 2], size=4)
        assert a.isequal(Vector.from_coo([2, 0], [2, 1], size=4))
        assert not a.isequal(Vector.from_coo([0, 3], [1, 2], size=4))  # structure
        assert not a.isequal(Vector.from_coo([0, 2], [1, 3], size=4))  # values
        assert not a.isequal(Vector.from_coo([0, 2], [1, 2], size=5))  # size
        assert not a.isequal(Vector.from_coo([0], [1], size=4))  # nvals

    def test_isequal_check_dtype(self):
        a = Vector.from_coo([0, 2], [1, 2], size=4)
        b = Vector.from_coo([0, 2], [1.0, 2.0], size=4)
        assert a.isequal(b)
        assert not a.isequal(b, check_dtype=True)
        assert a.isequal(a.dup(), check_dtype=True)

    def test_isequal_independent_of_storage(self):
        a = Vector.from_dense([1, 2, 3, 4])
        b = a.dup().to_format("sparse")
        assert a.format == "full" and b.format == "sparse"
        assert a.isequal(b) and b.isequal(a)

    def test_isclose(self):
        a = Vector.from_coo([0, 1], [1.0, 2.0], size=2)
        b = Vector.from_coo([0, 1], [1.0 + 1e-9, 2.0], size=2)
        c = Vector.from_coo([0, 1], [1.1, 2.0], size=2)
        assert not a.isequal(b)
        assert a.isclose(b)
        assert not a.isclose(c)
        assert a.isclose(c, rel_tol=0.2)
        assert a.isclose(c, abs_tol=0.2)
        assert not a.isclose(Vector.from_coo([0], [1.0], size=2))  # structure
        assert not a.isclose(a.dup(gb.FP32), check_dtype=True)


# ----------------------------------------------------------------------------- display
def test_repr_readable():
    v = Vector.from_coo([1, 3], [10, 30], size=6, name="myvec")
    r = repr(v)
    assert "myvec" in r
    assert "nvals=2" in r
    assert "size=6" in r
    assert "INT64" in r
    assert "10" in r and "30" in r
    big = Vector.from_coo(np.arange(0, 1000, 2), 1, size=1000, name="big")
    rb = repr(big)
    assert "big" in rb and "nvals=500" in rb and "size=1000" in rb
    assert len(rb) < 2000


# ----------------------------------------------------------------------------- storage formats
class TestStorage:
    def test_formats_by_density(self):
        sparse = Vector.from_coo([3], [1], size=1000)
        assert sparse.format == "sparse"
        bitmap = Vector.from_coo(np.arange(0, 1000, 2), 1, size=1000)
        assert bitmap.format == "bitmap"
        full = Vector.from_dense(np.ones(100))
        assert full.format == "full"

    @pytest.mark.parametrize("target", ["sparse", "bitmap"])
    @pytest.mark.parametrize("start", ["sparse", "bitmap", "full"])
    def test_to_format_keeps_values(self, start, target):
        if start == "full":
            v = Vector.from_dense(np.arange(10, 20))
        elif start == "bitmap":
            v = Vector.from_coo([1, 4, 7, 8], [1, 4, 7, 8], size=10)
        else:
            v = Vector.from_coo([5], [5], size=1000)
        ref = v.dup()
        out = v.to_format(target)
        assert out is v
        assert v.format == target
        assert v.isequal(ref, check_dtype=True)
        assert v.nvals == ref.nvals
        assert entries(v) == entries(ref)

    def test_to_format_full(self):
        v = Vector.from_coo([0, 1, 2], [1, 2, 3], size=3).to_format("sparse")
        assert v.format == "sparse"
        v.to_format("full")
        assert v.format == "full" and entries(v) == {0: 1, 1: 2, 2: 3}
        w = Vector.from_coo([0], [1], size=3)
        with pytest.raises(InvalidValue):
            w.to_format("full")
        assert w.nvals == 1

    def test_element_access_in_every_storage(self):
        for kind in ("sparse", "bitmap"):
            v = Vector.from_coo([1, 3], [10, 30], size=5).to_format(kind)
            assert v[1].value == 10 and v[0].value is None
            v[0] = 5
            assert entries(v) == {0: 5, 1: 10, 3: 30}
            del v[1]
            assert entries(v) == {0: 5, 3: 30}

    def test_automatic_conversion_keeps_values(self):
        v = Vector(int, 100)
        assert v.format == "sparse"
        v[3] = 3
        assert v.format == "sparse"
        v[np.arange(0, 100, 3).tolist()] << 7  # dense enough for a bitmap
        assert v.format == "bitmap"
        assert v.nvals == 34 and v[3].value == 7 and v[1].value is None
        v << 1  # every element
        assert v.format == "full" and v.nvals == 100
        v.to_format("sparse")
        v2 = Vector.from_dense(np.arange(100))
        v2(mask=Vector.from_coo([5], [True], size=100).S, replace=True) << v2
        assert v2.format == "sparse" and entries(v2) == {5: 5}

    def test_bitmap_density_config(self):
        with gb.config.override(bitmap_density=0.9):
            v = Vector.from_coo([0, 1, 2], [1, 2, 3], size=10)
            assert v.format == "sparse"
        v = Vector.from_coo([0, 1, 2], [1, 2, 3], size=10)
        assert v.format == "bitmap"


# ----------------------------------------------------------------------------- expressions
class TestExpressions:
    def setup_method(self):
        # A = [[1, 2, .], [., 3, .], [4, ., 5]]
        self.A = Matrix.from_coo([0, 0, 1, 2, 2], [0, 1, 1, 0, 2], [1, 2, 3, 4, 5],
                                 nrows=3, ncols=3)
        self.u = Vector.from_coo([0, 1, 2], [1, 10, 100], size=3)

    def test_lazy_until_new(self):
        e = self.A.mxv(self.u)
        assert isinstance(e, gb.Expression)
        assert e.shape == (3,) and e.dtype == gb.INT64 and e.ndim == 1
        w = e.new()
        assert isinstance(w, Vector)
        assert entries(w) == {0: 21, 1: 30, 2: 504}
        assert "mxv" in repr(e)

    def test_new_dtype(self):
        w = self.A.mxv(self.u).new(dtype=float)
        assert w.dtype == gb.FP64 and entries(w) == {0: 21.0, 1: 30.0, 2: 504.0}

    def test_new_mask(self):
        m = Vector.from_coo([0, 2], [True, False], size=3)
        assert entries(self.A.mxv(self.u).new(mask=m.S)) == {0: 21, 2: 504}
        assert entries(self.A.mxv(self.u).new(mask=m.V)) == {0: 21}
        assert entries(self.A.mxv(self.u).new(mask=~m.S)) == {1: 30}
        w = self.A.mxv(self.u).new(float, mask=m.S, name="w")
        assert w.name == "w" and w.dtype == gb.FP64 and entries(w) == {0: 21.0, 2: 504.0}

    def test_vxm_and_matmul(self):
        w = self.u.vxm(self.A).new()
        assert entries(w) == {0: 401, 1: 32, 2: 500}
        assert (self.u @ self.A).new().isequal(w)
        assert (self.A @ self.u).new().isequal(self.A.mxv(self.u).new())

    def test_accumulate(self):
        w = Vector.from_coo([0, 1], [1000, 1000], size=3)
        w(accum=binary.plus) << self.A.mxv(self.u)
        assert entries(w) == {0: 1021, 1: 1030, 2: 504}
        w(binary.times) << self.u
        assert entries(w) == {0: 1021, 1: 10300, 2: 50400}

    def test_ewise(self):
        a = Vector.from_coo([0, 1], [1, 2], size=3)
        b = Vector.from_coo([1, 2], [10, 20], size=3)
        assert entries(a.ewise_add(b).new()) == {0: 1, 1: 12, 2: 20}
        assert entries(a.ewise_mult(b).new()) == {1: 20}
        assert entries(a.ewise_add(b, binary.max).new()) == {0: 1, 1: 10, 2: 20}
        assert entries(a.ewise_mult(b, monoid.plus).new()) == {1: 12}
        assert entries(a.ewise_mult(b, binary.minus).new()) == {1: -8}

    def test_apply_select_reduce(self):
        a = Vector.from_coo([0, 1, 3], [-1, 2, 3], size=4)
        assert entries(a.apply(gb.unary.ainv).new()) == {0: 1, 1: -2, 3: -3}
        assert entries(a.apply(binary.plus, right=10).new()) == {0: 9, 1: 12, 3: 13}
        assert entries(a.apply(binary.minus, left=10).new()) == {0: 11, 1: 8, 3: 7}
        assert entries(a.select(">", 0).new()) == {1: 2, 3: 3}
        assert entries(a.select(gb.select.valuele, 2).new()) == {0: -1, 1: 2}
        assert a.reduce().new().value == 4
        assert a.reduce(monoid.max).value == 3
        assert a.reduce(binary.min).new().value == -1
        assert Vector(int, 3).reduce().new().is_empty

    def test_inner(self):
        a = Vector.from_coo([0, 1], [2, 3], size=3)
        b = Vector.from_coo([1, 2], [4, 5], size=3)
        assert a.inner(b).new().value == 12
        assert (a @ b).value == 12
        assert a.inner(b, semiring.max_plus).value == 7

    def test_self_aliasing(self):
        v = Vector.from_coo([0, 1], [1, 2], size=3)
        v << v.ewise_add(v)
        assert entries(v) == {0: 2, 1: 4}
        v(accum=binary.plus) << v
        assert entries(v) == {0: 4, 1: 8}


# ----------------------------------------------------------------------------- descriptor / plan
class TestDescriptorAndPlan:
    def setup_method(self):
        n = 6
        r = np.arange(n - 1)
        self.A = Matrix.from_coo(r, r + 1, True, nrows=n, ncols=n)  # path 0 -> 1 -> ... -> 5
        self.u = Vector.from_coo([1], [True], size=n)

    def test_descriptor_defaults(self):
        d = Descriptor()
        assert d.replace is False
        assert d.mask_complement is False
        assert d.mask_structure is False
        assert d.transpose_first is False
        assert d.transpose_second is False
        assert d.direction == "auto"
        assert d.format is None
        assert d.early_exit is True
        assert d.last_direction is None
        assert d.last_kernel is None

    @pytest.mark.parametrize("direction", ["push", "pull"])
    def test_forced_direction_recorded(self, direction):
        d = Descriptor(direction=direction)
        w = Vector(bool, 6)
        w(desc=d) << self.A.mxv(self.u, semiring.any_pair)
        assert d.last_direction == direction
        assert isinstance(d.last_kernel, str) and d.last_kernel
        assert entries(w) == {0: True}
        plan = gb.last_plan()
        assert plan is not None
        assert plan.op == "mxv"
        assert plan.kernel == d.last_kernel
        assert plan.direction == direction

    def test_push_pull_same_result(self):
        u = Vector.from_coo([1, 2, 4], [1, 2, 4], size=6)
        A = Matrix.from_coo([0, 1, 1, 3, 4], [1, 2, 4, 4, 5], [1, 2, 3, 4, 5],
                            nrows=6, ncols=6)
        res = {}
        for direction in ("push", "pull"):
            d = Descriptor(direction=direction)
            w = Vector(int, 6)
            w(desc=d) << A.mxv(u, semiring.plus_times)
            res[direction] = w
            assert d.last_direction == direction
        assert res["push"].isequal(res["pull"])
        assert entries(res["push"]) == {0: 1, 1: 16, 3: 16}

    def test_vxm_plan_recorded(self):
        d = Descriptor(direction="pull")
        w = Vector(bool, 6)
        w(desc=d) << self.u.vxm(self.A, semiring.any_pair)
        assert entries(w) == {2: True}
        assert d.last_direction == "pull"
        assert gb.last_plan().op == "vxm"

    def test_descriptor_mask_fields(self):
        m = Vector.from_coo([0], [True], size=6)
        u = Vector.from_dense(np.ones(6, dtype=bool))
        w = Vector(bool, 6)
        w(m.S, desc=Descriptor(mask_complement=True)) << self.A.mxv(u, semiring.lor_land)
        expected = Vector(bool, 6)
        expected(~m.S) << self.A.mxv(u, semiring.lor_land)
        assert w.isequal(expected)
        assert entries(w) == {1: True, 2: True, 3: True, 4: True}

    def test_descriptor_replace(self):
        m = Vector.from_coo([0], [True], size=6)
        w = Vector.from_coo([3], [True], size=6)
        w(m.S, desc=Descriptor(replace=True)) << self.A.mxv(self.u, semiring.any_pair)
        assert entries(w) == {0: True}

    def test_descriptor_transpose_first(self):
        w = Vector(bool, 6)
        w(desc=Descriptor(transpose_first=True)) << self.A.mxv(self.u, semiring.any_pair)
        assert w.isequal(self.A.T.mxv(self.u, semiring.any_pair).new())
        assert entries(w) == {2: True}

    def test_early_exit_off_same_result(self):
        u = Vector.from_dense(np.ones(6, dtype=bool))
        a = self.A.mxv(u, semiring.lor_land).new(desc=Descriptor(early_exit=False))
        b = self.A.mxv(u, semiring.lor_land).new(desc=Descriptor(early_exit=True))
        assert a.isequal(b)

    def test_auto_direction_recorded(self):
        d = Descriptor()
        Vector(bool, 6)(desc=d) << self.A.mxv(self.u, semiring.any_pair)
        assert d.last_direction in ("push", "pull")
        assert d.direction == "auto"

    def test_last_plan_other_ops(self):
        a = Vector.from_coo([0], [1], size=2)
        a.ewise_add(a).new()
        assert gb.last_plan().op == "ewise_add"


# ----------------------------------------------------------------------------- config
class TestConfig:
    def test_get_set_override(self):
        old = gb.config.get("push_to_pull")
        assert isinstance(old, float)
        try:
            gb.config.set(push_to_pull=0.5)
            assert gb.config.get("push_to_pull") == 0.5
            with gb.config.override(push_to_pull=0.25, pull_to_push=0.125):
                assert gb.config.get("push_to_pull") == 0.25
                assert gb.config.get("pull_to_push") == 0.125
            assert gb.config.get("push_to_pull") == 0.5
        finally:
            gb.config.set(push_to_pull=old)
        assert gb.config.get("push_to_pull") == old

    def test_override_restores_on_error(self):
        old = gb.config.get("bfs_alpha")
        with pytest.raises(RuntimeError):
            with gb.config.override(bfs_alpha=1.0):
                raise RuntimeError("boom")
        assert gb.config.get("bfs_alpha") == old

    def test_unknown_key(self):
        with pytest.raises(InvalidValue, match="no_such_key"):
            gb.config.get("no_such_key")
        before = gb.config.as_dict()
        with pytest.raises(InvalidValue, match="no_such_key"):
            gb.config.set(push_to_pull=0.3, no_such_key=1)
        assert gb.config.as_dict() == before  # nothing was half-applied
        with pytest.raises(InvalidValue):
            with gb.config.override(no_such_key=1):
                pass
        assert gb.config.as_dict() == before

    def test_as_dict_known_keys(self):
        d = gb.config.as_dict()
        for key in ("push_to_pull", "pull_to_push", "bitmap_density", "bfs_alpha",
                    "bfs_beta1", "bfs_beta2", "default_device"):
            assert key in d
        d["push_to_pull"] = -1  # a copy
        assert gb.config.get("push_to_pull") != -1

    def test_direction_thresholds_are_used(self):
        n = 100
        r = np.arange(n - 1)
        A = Matrix.from_coo(r, r + 1, True, nrows=n, ncols=n)
        u = Vector.from_coo(np.arange(50), True, size=n)  # density 0.5
        with gb.config.override(push_to_pull=0.9, pull_to_push=0.8):
            d = Descriptor()
            Vector(bool, n)(desc=d) << A.mxv(u, semiring.any_pair)
            assert d.last_direction == "push"
        B = Matrix.from_coo(r, r + 1, True, nrows=n, ncols=n)
        with gb.config.override(push_to_pull=0.1, pull_to_push=0.05):
            d = Descriptor()
            Vector(bool, n)(desc=d) << B.mxv(u, semiring.any_pair)
            assert d.last_direction == "pull"


@pytest.mark.parametrize("c_density", [0.0, 0.01, 0.5, 1.0])
@pytest.mark.parametrize("m_density", [0.2, 0.7])
@pytest.mark.parametrize("structure", [True, False])
def test_scalar_assign_under_dense_mask(c_density, m_density, structure):
    """``w(m.S) << s`` with a bitmap mask fills in one pass (BFS's ``levels(q.S) << k``);
    same entries as the definition, for every storage of w, and the mask is untouched."""
    rng = np.random.default_rng(11)
    n = 500
    c_has = rng.random(n) < c_density
    w = Vector.from_coo(np.flatnonzero(c_has), np.arange(c_has.sum()), gb.INT64, size=n)
    m_has = rng.random(n) < m_density
    m_val = rng.integers(0, 2, n)
    m = Vector.from_coo(np.flatnonzero(m_has), m_val[m_has], gb.INT64, size=n)
    m_before = m.dup()
    other = w.dup()
    want = dict(entries(w))
    allowed = m_has if structure else m_has & (m_val != 0)
    for i in np.flatnonzero(allowed):
        want[int(i)] = 7
    w(m.S if structure else m.V) << 7
    assert entries(w) == want
    assert m.isequal(m_before) and other.nvals == c_has.sum()
    w(w.S) << 9  # the mask is the output itself
    assert entries(w) == dict.fromkeys(want, 9)


@pytest.mark.parametrize("da,db", [(0.01, 0.6), (0.6, 0.01), (0.6, 0.7), (1.0, 0.02),
                                   (0.01, 0.02)])
@pytest.mark.parametrize("op", [binary.minus, binary.first, binary.second, binary.times])
def test_ewise_mult_any_storage(da, db, op):
    """a ∩ b is the same whether an operand is sparse (sorted merge) or a bitmap/full
    (lookup in its bits); operand order is kept for non-commutative operators."""
    rng = np.random.default_rng(5)
    n = 1000
    ha, hb = rng.random(n) < da, rng.random(n) < db
    va, vb = rng.integers(1, 50, n), rng.integers(1, 50, n)
    a = Vector.from_coo(np.flatnonzero(ha), va[ha], gb.INT64, size=n)
    b = Vector.from_coo(np.flatnonzero(hb), vb[hb], gb.INT64, size=n)
    got = a.ewise_mult(b, op).new()
    both = np.flatnonzero(ha & hb)
    want = {"minus": va - vb, "first": va, "second": vb, "times": va * vb}[op.name]
    assert entries(got) == {int(i): int(want[i]) for i in both}


@given(st.lists(st.sampled_from([0.0, -0.0, 1.5, np.nan, np.inf, -2.0]), max_size=30),
       st.data())
def test_isequal_of_dense_vectors_is_numpys_equal_nan(vals: list, data: st.DataObject) -> None:
    """isequal of two full float vectors: NumPy's array_equal with equal_nan (NaN equals
    NaN, -0.0 equals 0.0), computed in one pass; an integer vector against its float
    twin compares by value."""
    from gblas.backend.keys import equal_values  # noqa: PLC0415

    a = np.array(vals, dtype=np.float64)
    b = a.copy()
    if a.size and data.draw(st.booleans()):
        b[data.draw(st.integers(0, a.size - 1))] = data.draw(
            st.sampled_from([0.0, 7.0, np.nan, -np.inf]))
    want = bool(np.array_equal(a, b, equal_nan=True))
    assert equal_values(a, b) is want
    if a.size:
        assert Vector.from_dense(a).isequal(Vector.from_dense(b)) is want
    ints = np.arange(len(vals), dtype=np.int64)
    assert Vector.from_dense(ints).isequal(Vector.from_dense(ints.astype(np.float64)))
