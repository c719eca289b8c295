"""Data types: the GraphBLAS built-in types, with python-graphblas names."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .exceptions import DomainMismatch


@dataclass(frozen=True, eq=False)
class DataType:
    """A GraphBLAS type: a name (``INT64``) and its NumPy dtype."""

    name: str
    np_type: np.dtype

    def __post_init__(self) -> None:
        # types key the kernel and plan caches of every operation: the hash is computed once
        object.__setattr__(self, "_hash", hash(self.np_type))

    def __repr__(self) -> str:
        return self.name

    def __str__(self) -> str:
        return self.name

    @property
    def is_bool(self) -> bool:
        return self.np_type.kind == "b"

    @property
    def is_integer(self) -> bool:
        return self.np_type.kind in "iu"

    @property
    def is_signed(self) -> bool:
        return self.np_type.kind == "i"

    @property
    def is_float(self) -> bool:
        return self.np_type.kind == "f"

    @property
    def itemsize(self) -> int:
        return self.np_type.itemsize

    def cast(self, value: Any) -> Any:
        """A Python scalar of this type (NumPy casting rules)."""
        return np.asarray(value).astype(self.np_type).item()

    def __eq__(self, other: object) -> bool:
        if self is other:  # the common case: the module's type objects
            return True
        if isinstance(other, DataType):
            return self.np_type == other.np_type
        if isinstance(other, str) and other not in _BY_NAME:
            return False  # (lookup_dtype would build an error message to be caught)
        try:
            return self.np_type == lookup_dtype(other).np_type  # type: ignore[arg-type]
        except (DomainMismatch, TypeError):
            return False

    def __hash__(self) -> int:
        return self._hash  # type: ignore[attr-defined, no-any-return]


BOOL = DataType("BOOL", np.dtype(np.bool_))
INT8 = DataType("INT8", np.dtype(np.int8))
INT16 = DataType("INT16", np.dtype(np.int16))
INT32 = DataType("INT32", np.dtype(np.int32))
INT64 = DataType("INT64", np.dtype(np.int64))
UINT8 = DataType("UINT8", np.dtype(np.uint8))
UINT16 = DataType("UINT16", np.dtype(np.uint16))
UINT32 = DataType("UINT32", np.dtype(np.uint32))
UINT64 = DataType("UINT64", np.dtype(np.uint64))
FP32 = DataType("FP32", np.dtype(np.float32))
FP64 = DataType("FP64", np.dtype(np.float64))

ALL_TYPES: tuple[DataType, ...] = (
    BOOL, INT8, INT16, INT32, INT64, UINT8, UINT16, UINT32, UINT64, FP32, FP64,
)
_BY_NP = {t.np_type: t for t in ALL_TYPES}
_BY_NAME: dict[str, DataType] = {}
for _t in ALL_TYPES:
    _BY_NAME[_t.name] = _t
    _BY_NAME[_t.name.lower()] = _t
    _BY_NAME[_t.np_type.name] = _t
_BY_NAME.update({"float32": FP32, "float64": FP64, "float": FP64, "int": INT64, "bool_": BOOL})


def lookup_dtype(dtype: Any) -> DataType:
    """Turn ``bool``/``int``/``float``, a NumPy dtype, a name or a DataType into a DataType."""
    if isinstance(dtype, DataType):
        return dtype
    if dtype is bool:
        return BOOL
    if dtype is int:
        return INT64
    if dtype is float:
        return FP64
    if isinstance(dtype, str):
        if dtype in _BY_NAME:
            return _BY_NAME[dtype]
        raise DomainMismatch(
            f"unknown dtype name {dtype!r}; expected one of "
            f"{', '.join(t.name for t in ALL_TYPES)} (or NumPy names such as 'int64')"
        )
    try:
        npd = np.dtype(dtype)
    except TypeError:
        npd = None
    if npd is not None and npd in _BY_NP:
        return _BY_NP[npd]
    raise DomainMismatch(
        f"dtype {dtype!r} is not a GraphBLAS type; use bool, int8..int64, uint8..uint64, "
        "float32 or float64"
    )


_UNIFIED: dict[tuple[int, int], tuple[DataType, DataType, DataType]] = {}


def unify(a: DataType, b: DataType) -> DataType:
    """The type both operands are computed in (NumPy promotion; int64 with uint64 -> FP64).
    Memoised per pair of type objects (every element-wise operation asks)."""
    if a is b:
        return a
    hit = _UNIFIED.get((id(a), id(b)))
    if hit is not None and hit[0] is a and hit[1] is b:
        return hit[2]
    d = a if a == b else lookup_dtype(np.promote_types(a.np_type, b.np_type))
    _UNIFIED[(id(a), id(b))] = (a, b, d)
    return d


def dtype_of_value(value: Any) -> DataType:
    """The natural type of a Python or NumPy scalar."""
    if isinstance(value, (bool, np.bool_)):
        return BOOL
    if isinstance(value, np.generic):
        return lookup_dtype(value.dtype)
    if isinstance(value, int):
        return INT64
    if isinstance(value, float):
        return FP64
    raise DomainMismatch(f"expected a bool, int or float scalar, got {type(value).__name__}")


__all__ = [
    "DataType", "lookup_dtype", "unify", "dtype_of_value", "ALL_TYPES",
    "BOOL", "INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32", "UINT64",
    "FP32", "FP64",
]
