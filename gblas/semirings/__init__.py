"""Operator model (L0): operators, monoids, semirings and their code generators."""

from . import builtins as _builtins  # noqa: F401 - registers the built-in operators
from . import families
from .model import (
    BinaryOp,
    IndexUnaryOp,
    Monoid,
    OpNamespace,
    Semiring,
    UnaryOp,
    binary,
    monoid,
    select,
    semiring,
    unary,
)

__all__ = [
    "BinaryOp", "IndexUnaryOp", "Monoid", "OpNamespace", "Semiring", "UnaryOp", "binary",
    "monoid", "select", "semiring", "unary", "families",
]
