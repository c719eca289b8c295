"""Public API of gblas.Scalar (python-graphblas compatible)."""

from __future__ import annotations

import numpy as np
import pytest

import gblas as gb
from gblas import Scalar, Vector, binary, monoid
from gblas.exceptions import EmptyObject, InvalidValue

DTYPE_NAMES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
               "uint64", "float32", "float64"]


class TestConstruction:
    def test_empty(self):
        s = Scalar(int)
        assert s.value is None
        assert s.is_empty
        assert s.nvals == 0
        assert s.dtype == gb.INT64
        assert s.device == "cpu"
        assert s.shape == ()
        assert s.ndim == 0

    def test_default_dtype(self):
        assert Scalar().dtype == gb.FP64

    @pytest.mark.parametrize("value,dtype,pytype", [
        (5, gb.INT64, int), (2.5, gb.FP64, float), (True, gb.BOOL, bool),
        (np.int8(3), gb.INT8, int), (np.float32(1.5), gb.FP32, float),
        (np.uint16(7), gb.UINT16, int),
    ])
    def test_from_value_infers_dtype(self, value, dtype, pytype):
        s = Scalar.from_value(value)
        assert s.dtype == dtype
        assert s.value == value
        assert type(s.value) is pytype
        assert not s.is_empty and s.nvals == 1

    def test_from_value_dtype(self):
        s = Scalar.from_value(3.7, dtype=int)
        assert s.dtype == gb.INT64 and s.value == 3
        t = Scalar.from_value(1, dtype="float32", name="t")
        assert t.dtype == gb.FP32 and t.value == 1.0 and t.name == "t"

    @pytest.mark.parametrize("name", DTYPE_NAMES)
    def test_dtypes(self, name):
        dt = gb.dtypes.lookup_dtype(name)
        s = Scalar(name)
        assert s.dtype == dt
        s.value = 1
        assert s.value == 1
        assert s.value == np.asarray(1, dtype=dt.np_type).item()
        assert type(s.value) is type(np.asarray(1, dtype=dt.np_type).item())

    def test_value_setter_casts(self):
        s = Scalar(gb.INT8)
        s.value = 3.9
        assert s.value == 3
        b = Scalar(bool)
        b.value = 2
        assert b.value is True
        f = Scalar(float)
        f.value = 2
        assert f.value == 2.0 and isinstance(f.value, float)
        f.value = None
        assert f.is_empty

    def test_value_from_scalar(self):
        s = Scalar(float)
        s.value = Scalar.from_value(4)
        assert s.value == 4.0

    def test_bad_value(self):
        s = Scalar(int)
        with pytest.raises(InvalidValue):
            s.value = "not a number"
        assert s.is_empty


class TestUpdate:
    def test_lshift_value(self):
        s = Scalar(int)
        s << 7
        assert s.value == 7
        s << 2.0
        assert s.value == 2 and s.dtype == gb.INT64

    def test_lshift_scalar(self):
        s = Scalar(float)
        s << Scalar.from_value(3)
        assert s.value == 3.0
        s << Scalar(int)  # empty -> empty
        assert s.is_empty

    def test_update_method(self):
        s = Scalar(int)
        s.update(5)
        assert s.value == 5

    def test_accum(self):
        s = Scalar.from_value(10)
        s(accum=binary.plus) << 3
        assert s.value == 13
        s(binary.times) << 2
        assert s.value == 26
        s(accum=monoid.max) << 100
        assert s.value == 100

    def test_accum_into_empty(self):
        s = Scalar(int)
        s(accum=binary.plus) << 4
        assert s.value == 4

    def test_accum_with_empty_input_keeps_value(self):
        s = Scalar.from_value(5)
        s(accum=binary.plus) << Scalar(int)
        assert s.value == 5

    def test_reduce_into_scalar(self):
        v = Vector.from_coo([0, 2, 3], [1, 2, 3], size=5)
        s = Scalar(int)
        s << v.reduce(monoid.plus)
        assert s.value == 6
        s(accum=binary.plus) << v.reduce(monoid.max)
        assert s.value == 9
        r = v.reduce().new()
        assert isinstance(r, Scalar) and r.value == 6 and r.dtype == gb.INT64
        e = Vector(int, 3).reduce().new()
        assert e.is_empty

    def test_expression_new_dtype(self):
        v = Vector.from_coo([0, 1], [1, 2], size=2)
        r = v.reduce().new(dtype=float)
        assert r.dtype == gb.FP64 and r.value == 3.0

    def test_element_into_scalar(self):
        v = Vector.from_coo([1], [42], size=3)
        s = Scalar(int)
        s << v[1]
        assert s.value == 42
        s << v[0]
        assert s.is_empty

    def test_scalar_assign_into_vector(self):
        v = Vector(int, 3)
        v[1] = Scalar.from_value(9)
        assert v[1].value == 9


class TestWholeObject:
    def test_clear(self):
        s = Scalar.from_value(3)
        s.clear()
        assert s.is_empty and s.dtype == gb.INT64

    def test_dup_independent(self):
        s = Scalar.from_value(3)
        d = s.dup()
        assert d.value == 3 and d.dtype == s.dtype and d is not s
        d.value = 4
        assert s.value == 3
        s.clear()
        assert d.value == 4

    def test_dup_dtype(self):
        d = Scalar.from_value(3).dup(float, name="d")
        assert d.dtype == gb.FP64 and d.value == 3.0 and d.name == "d"

    def test_to_cpu(self):
        s = Scalar.from_value(3)
        t = s.to("cpu")
        assert t.device == "cpu" and t.value == 3


class TestConversions:
    def test_int_float_bool(self):
        s = Scalar.from_value(3.5)
        assert int(s) == 3
        assert float(s) == 3.5
        assert bool(s) is True
        assert bool(Scalar.from_value(0)) is False

    def test_index(self):
        s = Scalar.from_value(2)
        assert [10, 20, 30][s] == 30
        assert range(5)[s] == 2
        with pytest.raises(InvalidValue):
            [1, 2][Scalar.from_value(1.0)]

    def test_empty_int_raises(self):
        with pytest.raises(EmptyObject):
            int(Scalar(int))
        with pytest.raises(EmptyObject):
            float(Scalar(float))


class TestCompare:
    def test_isequal(self):
        a = Scalar.from_value(3)
        assert a.isequal(Scalar.from_value(3))
        assert a.isequal(Scalar.from_value(3.0))
        assert not a.isequal(Scalar.from_value(3.0), check_dtype=True)
        assert not a.isequal(Scalar.from_value(4))
        assert not a.isequal(Scalar(int))
        assert Scalar(int).isequal(Scalar(int))
        assert a.isequal(3)
        assert a == 3 and a == Scalar.from_value(3)
        assert not (a == 4)

    def test_isclose(self):
        a = Scalar.from_value(1.0)
        assert a.isclose(Scalar.from_value(1.0 + 1e-10))
        assert not a.isclose(Scalar.from_value(1.1))
        assert a.isclose(Scalar.from_value(1.1), rel_tol=0.2)
        assert a.isclose(1.05, abs_tol=0.1)
        assert Scalar(float).isclose(Scalar(float))
        assert not a.isclose(Scalar(float))
        assert not a.isclose(Scalar.from_value(1.0, dtype="float32"), check_dtype=True)


def test_repr():
    s = Scalar.from_value(42, name="answer")
    r = repr(s)
    assert "answer" in r and "42" in r and "INT64" in r
    e = Scalar(float, name="nothing")
    r = repr(e)
    assert "nothing" in r and "FP64" in r and "None" in r
