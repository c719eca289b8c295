"""What Vector and Matrix share: naming, devices, masks, ``<<``, indexing helpers."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from ..exceptions import IndexOutOfBound, InvalidValue
from ._lazy import ops
from .descriptor import Descriptor
from .expr import Expression, Result, Updater, parse_call_args, update
from .mask import Mask
from .op_args import ewise_op

_names = itertools.count()


def auto_name(prefix: str) -> str:
    return f"{prefix}_{next(_names)}"


class _Replace:
    """``gblas.replace``: python-graphblas's positional spelling of ``replace=True``,
    as in ``C(M.S, replace) << expr``."""

    def __repr__(self) -> str:
        return "replace"


replace = _Replace()
_REPLACE = replace  # (Collection.__call__'s keyword argument shadows the name)


class Writable:
    """The output side of GraphBLAS: masks ``.S``/``.V``, ``out(mask, accum, replace)`` and
    ``<<``, for any class whose ``_updater`` makes the updater (core's :class:`Updater`;
    gblas.distributed gives its vectors their own)."""

    _updater: Any = Updater

    @property
    def S(self) -> Mask:  # noqa: N802 - GraphBLAS name
        """Structural mask: true where an entry is present."""
        return Mask(self, structure=True)

    @property
    def V(self) -> Mask:  # noqa: N802 - GraphBLAS name
        """Value mask: true where an entry is present and nonzero."""
        return Mask(self, structure=False)

    def __call__(self, *args: Any, mask: Any = None, accum: Any = None, replace: bool = False,
                 desc: Descriptor | None = None) -> Any:
        """``out(mask, accum, replace=...)`` — the output side of ``<<``."""
        if any(a is _REPLACE for a in args):  # out(mask, replace): the positional form
            args = tuple(a for a in args if a is not _REPLACE)
            replace = True
        mask, accum = parse_call_args(args, mask, accum)
        return self._updater(self, mask, accum, replace, desc)

    def __lshift__(self, rhs: Any) -> None:
        self.update(rhs)

    def update(self, rhs: Any) -> None:
        if self._updater is Updater:  # no mask, accumulator or descriptor: no updater object
            update(self, rhs)
        else:
            self._updater(self).update(rhs)

    def __ilshift__(self, rhs: Any) -> Any:
        self.update(rhs)
        return self


class ElementwiseMethods:
    """``ewise_add`` / ``ewise_mult`` / ``ewise_union`` of vectors and matrices alike; the
    operator as an object or a name (``"plus"``, ``"+"``)."""

    def ewise_add(self, other: Any, op: Any = None) -> Expression:
        """Union: op where both are present, the present value elsewhere (default plus)."""
        return ops.ewise.ewise_expr("ewise_add", self, other, ewise_op(op, "ewise_add"))

    def ewise_mult(self, other: Any, op: Any = None) -> Expression:
        """Intersection with op (default times)."""
        return ops.ewise.ewise_expr("ewise_mult", self, other, ewise_op(op, "ewise_mult"))

    def ewise_union(self, other: Any, op: Any, left_default: Any,
                    right_default: Any) -> Expression:
        """Union with op everywhere: op(a, right_default) where only self has an entry,
        op(left_default, b) where only ``other`` has one (GxB_eWiseUnion)."""
        return ops.compose.ewise_union_expr(self, other, ewise_op(op, "ewise_union"),
                                            left_default, right_default)


class Collection(Writable):
    """Base of Vector and Matrix."""

    ndim: int = 0
    _name: str

    @property
    def name(self) -> str:
        return self._name

    @name.setter
    def name(self, value: str) -> None:
        self._name = str(value)

    def _as_expression(self) -> Expression:
        """The identity expression (``out << v`` copies v through the mask/accum)."""
        data = self._data
        data.exclusive = False  # the result may share these arrays: no in-place updates
        return Expression("identity", self.ndim, self.shape, self.dtype, self.device,
                          lambda mask, desc: Result(data), (self,))

    def __bool__(self) -> bool:
        raise InvalidValue(
            f"the truth value of a {type(self).__name__} is ambiguous; use .nvals or isequal"
        )


def normalize_index(i: Any, size: int, what: str = "index") -> int:
    """A Python int in [0, size) (negative counts from the end)."""
    try:
        j = int(i)
    except (TypeError, ValueError):
        raise InvalidValue(f"{what} must be an integer, got {type(i).__name__}") from None
    if isinstance(i, (bool, np.bool_)) or j != i:
        raise InvalidValue(f"{what} must be an integer, got {i!r}")
    if j < -size or j >= size:
        raise IndexOutOfBound(f"{what} {i} is out of range for size {size}")
    return j + size if j < 0 else j


def is_scalar_index(i: Any) -> bool:
    return isinstance(i, (int, np.integer)) and not isinstance(i, (bool, np.bool_))


def index_array(idx: Any, size: int, what: str = "index") -> Any:
    """Index list/slice/array -> int64 array of positions in [0, size): a NumPy array, or
    a CuPy array left on its device (not bounds-checked: that would wait for the device;
    its entries must lie in [0, size))."""
    if isinstance(idx, slice):
        return np.arange(size, dtype=np.int64)[idx]
    if idx is Ellipsis:
        return np.arange(size, dtype=np.int64)
    if type(idx).__module__.startswith("cupy"):
        if idx.ndim != 1:
            raise InvalidValue(f"{what} list must be one-dimensional, got shape {idx.shape}")
        if idx.dtype.kind not in "iu":
            raise InvalidValue(f"{what} list must hold integers, got dtype {idx.dtype}")
        return idx.astype(np.int64, copy=False)
    arr = np.asarray(idx)
    if arr.ndim != 1:
        raise InvalidValue(f"{what} list must be one-dimensional, got shape {arr.shape}")
    if arr.size == 0:
        return np.empty(0, dtype=np.int64)
    if arr.dtype.kind not in "iu":
        raise InvalidValue(f"{what} list must hold integers, got dtype {arr.dtype}")
    # a copy: a lazy expression keeps the list, and the caller may change theirs meanwhile
    arr = arr.astype(np.int64)
    lo, hi = int(arr.min()), int(arr.max())  # two passes, no temporaries: the usual case
    if lo < -size or hi >= size:
        bad = (arr < -size) | (arr >= size)
        raise IndexOutOfBound(
            f"{what} {int(arr[bad][0])} is out of range for size {size} "
            f"({int(bad.sum())} bad entries)"
        )
    return arr if lo >= 0 else np.where(arr < 0, arr + size, arr)
