"""python-graphblas's infix notation on Vectors and Matrices.

``x | y`` and ``x & y`` are element-wise union and intersection waiting for an operator
(``binary.plus(x | y)``, ``monoid.max(x | y)``); on two BOOL operands they run as ``lor`` /
``land``. Arithmetic and comparisons are ``ewise_add`` (``+``), ``ewise_union`` (``-``, with
defaults 0), ``ewise_mult`` (``*``, ``/``, ``**``, comparisons) between two collections, and
``apply`` with a bound scalar otherwise (``A + 1``, ``v > 0``), as python-graphblas defines
them.
"""

from __future__ import annotations

from typing import Any

from ..dtypes import BOOL
from ..exceptions import DimensionMismatch, DomainMismatch
from ..semirings.model import binary, unary


def _is_collection(x: Any) -> bool:
    return getattr(x, "ndim", 0) in (1, 2) and hasattr(x, "ewise_add")


class EwiseInfix:
    """``x | y`` (``method`` ewise_add) or ``x & y`` (ewise_mult) before its operator."""

    def __init__(self, method: str, left: Any, right: Any) -> None:
        symbol = "|" if method == "ewise_add" else "&"
        if not _is_collection(right):
            raise DomainMismatch(
                f"x {symbol} y needs two Vectors or two Matrices; got {type(left).__name__} "
                f"and {type(right).__name__}"
            )
        if left.ndim != right.ndim or left.shape != right.shape:
            raise DimensionMismatch(
                f"x {symbol} y: shapes {left.shape} and {right.shape} differ"
            )
        self._ewise_infix = (method, left, right)
        self.ndim, self.shape = left.ndim, left.shape

    def _as_expression(self) -> Any:
        method, a, b = self._ewise_infix
        if a.dtype != BOOL or b.dtype != BOOL:
            sym, op = ("|", "binary.plus") if method == "ewise_add" else ("&", "binary.times")
            raise DomainMismatch(
                f"x {sym} y runs by itself only on BOOL operands (as lor / land); the operands "
                f"are {a.dtype} and {b.dtype}: name the operator, e.g. {op}(x {sym} y)"
            )
        return getattr(a, method)(b, binary.lor if method == "ewise_add" else binary.land)

    def new(self, dtype: Any = None, *, mask: Any = None, name: str | None = None) -> Any:
        return self._as_expression().new(dtype, mask=mask, name=name)

    def __repr__(self) -> str:
        method, a, b = self._ewise_infix
        return f"<infix {a.name} {'|' if method == 'ewise_add' else '&'} {b.name}>"


def _call(x: Any, y: Any, op: Any, how: str = "mult") -> Any:
    """``x op y`` for a collection x: element-wise with a collection, else apply."""
    if _is_collection(y):
        if how == "add":
            return x.ewise_add(y, op)
        if how == "union":
            return x.ewise_union(y, op, False, False)
        return x.ewise_mult(y, op)
    return x.apply(op, right=y)


def _rcall(x: Any, y: Any, op: Any) -> Any:
    """``y op x`` for a scalar y (Python tried y's method first)."""
    return x.apply(op, left=y)


def _bool_only(expr: Any, symbol: str) -> Any:
    if expr.dtype != BOOL:
        raise DomainMismatch(f"x {symbol} y is defined on BOOL values only, got {expr.dtype}")
    return expr


class InfixMethods:
    """The operators of python-graphblas's infix notation (mixed into Vector and Matrix)."""

    __hash__ = object.__hash__  # __eq__ builds an expression; identity still hashes

    def __or__(self, other: Any) -> EwiseInfix:
        return EwiseInfix("ewise_add", self, other)

    def __and__(self, other: Any) -> EwiseInfix:
        return EwiseInfix("ewise_mult", self, other)

    def __xor__(self, other: Any) -> Any:
        return _bool_only(_call(self, other, binary.lxor, "add"), "^")

    def __add__(self, other: Any) -> Any:
        return _call(self, other, binary.plus, "add")

    def __radd__(self, other: Any) -> Any:
        return _rcall(self, other, binary.plus)

    def __sub__(self, other: Any) -> Any:
        return _call(self, other, binary.minus, "union")

    def __rsub__(self, other: Any) -> Any:
        return _rcall(self, other, binary.minus)

    def __mul__(self, other: Any) -> Any:
        return _call(self, other, binary.times)

    def __rmul__(self, other: Any) -> Any:
        return _rcall(self, other, binary.times)

    def __truediv__(self, other: Any) -> Any:
        return _call(self, other, binary.truediv)

    def __rtruediv__(self, other: Any) -> Any:
        return _rcall(self, other, binary.truediv)

    def __pow__(self, other: Any) -> Any:
        return _call(self, other, binary.pow)

    def __rpow__(self, other: Any) -> Any:
        return _rcall(self, other, binary.pow)

    def __eq__(self, other: Any) -> Any:  # type: ignore[override]
        return _call(self, other, binary.eq)

    def __ne__(self, other: Any) -> Any:  # type: ignore[override]
        return _call(self, other, binary.ne)

    def __lt__(self, other: Any) -> Any:
        return _call(self, other, binary.lt)

    def __le__(self, other: Any) -> Any:
        return _call(self, other, binary.le)

    def __gt__(self, other: Any) -> Any:
        return _call(self, other, binary.gt)

    def __ge__(self, other: Any) -> Any:
        return _call(self, other, binary.ge)

    def __neg__(self) -> Any:
        return self.apply(unary.ainv)

    def __abs__(self) -> Any:
        return self.apply(unary.abs)

    def __invert__(self) -> Any:
        if self.dtype != BOOL:
            raise DomainMismatch(f"~x is defined on BOOL values only (lnot), got {self.dtype}")
        return self.apply(unary.lnot)

    # in place: x op= y is x << x op y
    def __iadd__(self, other: Any) -> Any:
        self << self + other
        return self

    def __isub__(self, other: Any) -> Any:
        self << self - other
        return self

    def __imul__(self, other: Any) -> Any:
        self << self * other
        return self

    def __itruediv__(self, other: Any) -> Any:
        self << self / other
        return self

    def __ior__(self, other: Any) -> Any:
        self << (self | other)
        return self

    def __iand__(self, other: Any) -> Any:
        self << (self & other)
        return self

    def __ixor__(self, other: Any) -> Any:
        self << (self ^ other)
        return self
