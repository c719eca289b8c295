"""Scalar: one value of a GraphBLAS type, or empty.

A Scalar that a GPU kernel produced (``v.reduce(...).new()`` on a CUDA vector) keeps its
value and presence on the device until the host asks for them (``.value``, ``bool``,
``int``, ``==``, ...): an operation that takes it as an operand on the same device reads it
there, so a loop of GraphBLAS operations need not wait for the device."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._device import normalize_device
from ..backend.dense import DeviceScalar
from ..dtypes import FP64, DataType, dtype_of_value, lookup_dtype
from ..exceptions import EmptyObject, InvalidValue
from .base import auto_name
from .expr import Expression, Result, Updater, parse_call_args


class Scalar:
    """A GraphBLAS scalar (``value`` is None when empty)."""

    ndim = 0
    shape: tuple[()] = ()

    def __init__(self, dtype: Any = FP64, *, name: str | None = None,
                 device: str | None = None) -> None:
        self.dtype: DataType = lookup_dtype(dtype)
        self.device = normalize_device(device)
        self.name = name or auto_name("s")
        self._value: Any = None
        self._dev: DeviceScalar | None = None  # a value still on the GPU (read lazily)

    @classmethod
    def from_value(cls, value: Any, dtype: Any = None, *, name: str | None = None,
                   device: str | None = None) -> Scalar:
        s = cls(lookup_dtype(dtype) if dtype is not None else dtype_of_value(value), name=name,
                device=device)
        s.value = value
        return s

    def _host(self) -> Any:
        """The value on the host (reads a device value once: the synchronisation point)."""
        if self._dev is not None:
            v, present = self._dev.read()
            self._dev = None
            self._value = self.dtype.cast(v) if present else None
        return self._value

    def _device_value(self) -> DeviceScalar | None:
        """The value as a device scalar, when it is still on the GPU (not read yet)."""
        return self._dev

    @property
    def value(self) -> Any:
        """The Python value, or None when empty."""
        return self._host()

    @value.setter
    def value(self, x: Any) -> None:
        self._dev = None
        if x is None:
            self._value = None
            return
        if isinstance(x, Scalar):
            x = x.value
        try:
            self._value = self.dtype.cast(x)
        except (TypeError, ValueError) as e:
            raise InvalidValue(f"cannot store {x!r} in a {self.dtype} scalar: {e}") from None

    @property
    def is_empty(self) -> bool:
        return self._host() is None

    @property
    def nvals(self) -> int:
        return 0 if self._host() is None else 1

    def clear(self) -> None:
        self._value = None
        self._dev = None

    def dup(self, dtype: Any = None, *, name: str | None = None) -> Scalar:
        s = Scalar(dtype if dtype is not None else self.dtype, name=name, device=self.device)
        if self._dev is not None and s.dtype == self.dtype:
            s._dev = self._dev  # device arrays are never written in place: shared safely
        else:
            s.value = self._host()
        return s

    def to(self, device: str) -> Scalar:
        dev = normalize_device(device)
        s = self.dup()
        if dev == "cpu":
            s._host()
        s.device = dev
        return s

    def isequal(self, other: Any, *, check_dtype: bool = False) -> bool:
        if isinstance(other, Scalar):
            if check_dtype and other.dtype != self.dtype:
                return False
            return self._host() == other._host()
        return self._host() == other

    def isclose(self, other: Any, *, rel_tol: float = 1e-7, abs_tol: float = 0.0,
                check_dtype: bool = False) -> bool:
        ov = other.value if isinstance(other, Scalar) else other
        if check_dtype and isinstance(other, Scalar) and other.dtype != self.dtype:
            return False
        mine = self._host()
        if mine is None or ov is None:
            return mine is None and ov is None
        return bool(np.isclose(mine, ov, rtol=rel_tol, atol=abs_tol))

    def __call__(self, *args: Any, accum: Any = None, desc: Any = None) -> Updater:
        _, accum = parse_call_args(args, None, accum)
        return Updater(self, None, accum, False, desc)

    def __lshift__(self, rhs: Any) -> None:
        Updater(self).update(rhs)

    def update(self, rhs: Any) -> None:
        Updater(self).update(rhs)

    def _write(self, res: Result, mask: Any, accum: Any, replace: bool) -> None:
        data = res.data
        if isinstance(data, DeviceScalar):
            if accum is None or (self._dev is None and self._value is None):
                if data.dtype != self.dtype:  # cast on the device: no read
                    data = DeviceScalar(data.buf.astype(self.dtype.np_type), self.dtype,
                                        data.surely_present)
                self._value, self._dev = None, data
                return
        if accum is not None and (self._dev is not None or isinstance(data, DeviceScalar)) \
                and self._accumulate_on_device(data, accum):
            return
        if isinstance(data, DeviceScalar):
            data = data.read()  # an accumulator without a CUDA form: on the host
        value, present = data
        self._host()
        if not present:
            if accum is None:
                self._value = None
            return
        if accum is not None and self._value is not None:
            from ..backend.keys import binary_values  # noqa: PLC0415

            a = np.asarray([self._value], dtype=self.dtype.np_type)
            b = np.asarray([value])
            domain = accum.domain(self.dtype, lookup_dtype(b.dtype))
            value = binary_values(accum, a, b, domain, self.dtype)[0]
        self.value = value.item() if hasattr(value, "item") else value

    def _accumulate_on_device(self, data: Any, accum: Any) -> bool:
        """self = self accum data with a value on the GPU, computed there (no read);
        False when the accumulator has no CUDA form."""
        from ..backend.scalar_cuda import accumulate_scalar  # noqa: PLC0415

        if isinstance(data, DeviceScalar):
            t_dtype = data.dtype
        else:
            t_dtype = lookup_dtype(np.asarray([data[0]]).dtype if data[1] else self.dtype)
        mine = self._dev if self._dev is not None else (self._value, self._value is not None)
        dev = self._dev.buf.device.id if self._dev is not None else data.buf.device.id
        out = accumulate_scalar(accum, mine, self.dtype, data, t_dtype, int(dev))
        if out is None:
            return False
        self._value, self._dev = None, out
        return True

    def _as_expression(self) -> Expression:
        data: Any = self._dev if self._dev is not None else (self._value,
                                                             self._value is not None)
        return Expression("identity", 0, (), self.dtype, self.device,
                          lambda mask, desc: Result(data), (self,))

    def _require(self) -> Any:
        if self._host() is None:
            raise EmptyObject(f"scalar {self.name} is empty")
        return self._value

    def __int__(self) -> int:
        return int(self._require())

    def __float__(self) -> float:
        return float(self._require())

    def __index__(self) -> int:
        if not (self.dtype.is_integer or self.dtype.is_bool):
            raise InvalidValue(f"a {self.dtype} scalar is not an index")
        return int(self._require())

    def __bool__(self) -> bool:
        v = self._host()
        return bool(v) if v is not None else False

    def __eq__(self, other: object) -> bool:  # type: ignore[override]
        return self.isequal(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f'gblas.Scalar("{self.name}" value={self._host()!r} dtype={self.dtype})'


def scalar_value_expression(value: Any, device: str) -> Expression:
    """``s << 5``: the identity expression of a Python value."""
    if isinstance(value, Scalar):
        return value._as_expression()
    dt = dtype_of_value(value)
    return Expression("identity", 0, (), dt, device,
                      lambda mask, desc: Result((value, True)), ())
