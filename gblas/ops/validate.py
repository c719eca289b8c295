"""Argument checks shared by the operations (raised before any kernel runs)."""

from __future__ import annotations

from typing import Any

from ..dtypes import DataType
from ..exceptions import DomainMismatch, InvalidObject
from ..semirings.model import BinaryOp, Monoid, Semiring, UnaryOp, semiring


def as_semiring(op: Any, what: str) -> Semiring:
    if op is None:
        return semiring.plus_times
    if isinstance(op, Semiring):
        return op
    if isinstance(op, str):
        try:
            return getattr(semiring, op)
        except AttributeError as e:
            raise InvalidObject(str(e)) from None
    raise DomainMismatch(
        f"{what} needs a Semiring (e.g. gblas.semiring.plus_times), got {op!r}"
    )


def as_monoid(op: Any, what: str, default: Monoid) -> Monoid:
    if op is None:
        return default
    if isinstance(op, Monoid):
        return op
    if isinstance(op, BinaryOp) and op.monoid is not None:
        return op.monoid if op.fixed_type is None else op.monoid[op.fixed_type]
    raise DomainMismatch(
        f"{what} needs a Monoid (e.g. gblas.monoid.plus), got {op!r}"
        + ("; this BinaryOp has no monoid" if isinstance(op, BinaryOp) else "")
    )


_CLASSES: dict[str, type] = {}


def require(obj: Any, kind: str, what: str) -> None:
    """``kind``: 'vector' or 'matrix'."""
    if not _CLASSES:
        from ..core.matrix import MatrixLike  # noqa: PLC0415
        from ..core.vector import Vector  # noqa: PLC0415

        _CLASSES.update(vector=Vector, matrix=MatrixLike)
    cls = _CLASSES[kind]
    if not isinstance(obj, cls):
        raise InvalidObject(f"{what} expects a {kind}, got {type(obj).__name__}")


# (operator, input types) -> (domain, result type): typing an operator walks its rules
# (unify, bool aliases, return rules); an operation on small operands should not redo that
_TYPES: dict[tuple[Any, ...], tuple[DataType, DataType]] = {}


def binary_types(op: BinaryOp, left: DataType, right: DataType) -> tuple[DataType, DataType]:
    """(domain, result type) of ``op`` on (left, right), memoised (DomainMismatch if the
    operator refuses the types)."""
    key = (op, left, right)
    res = _TYPES.get(key)
    if res is None:
        res = _TYPES[key] = (op.domain(left, right), op.return_type(left, right))
    return res


def unary_types(op: UnaryOp, dtype: DataType) -> tuple[DataType, DataType]:
    """(domain, result type) of a unary operator on ``dtype``, memoised."""
    key = (op, dtype)
    res = _TYPES.get(key)
    if res is None:
        res = _TYPES[key] = (op.domain(dtype), op.return_type(dtype))
    return res
