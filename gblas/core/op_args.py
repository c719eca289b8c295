"""Operator arguments of the collection methods, which may be given by name (``"plus"``,
``"+"``, ``"abs"``, ``"count"``) as in python-graphblas."""

from __future__ import annotations

from typing import Any

from ..semirings.lookup import from_string


def ewise_op(op: Any, what: str) -> Any:
    """The operator of ewise_add / ewise_mult / ewise_union: a BinaryOp or Monoid."""
    return from_string(op, "binary", "monoid", what=what)


def apply_op(op: Any, left: Any, right: Any) -> Any:
    """apply's operator: a unary (or index-unary) name, or a binary one when a scalar is
    bound (``v.apply("+", right=1)``)."""
    if left is None and right is None:
        return from_string(op, "unary", "select", what="apply")
    return from_string(op, "binary", "monoid", "select", what="apply")


def reduce_op(op: Any, what: str) -> Any:
    """A reduction's operator: a Monoid, a BinaryOp that has one, or an Aggregator."""
    return from_string(op, "monoid", "binary", "agg", what=what)
