"""Operators named by strings (``A.ewise_add(B, "plus")``, ``"+"``, ``"min_plus"``) and the
``gblas.op`` namespace, as python-graphblas accepts them."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from ..exceptions import DomainMismatch
from .model import ByName, IndexUnaryOp, Semiring, binary, monoid, select
from .model import semiring as semiring_ns
from .model import unary as unary_ns

# python-graphblas's symbols for its operators
BINARY_SYMBOLS = {"+": "plus", "-": "minus", "*": "times", "/": "truediv", "**": "pow",
                  "==": "eq", "!=": "ne", "<": "lt", "<=": "le", ">": "gt", ">=": "ge",
                  "&": "land", "|": "lor", "^": "lxor"}
MONOID_SYMBOLS = {"+": "plus", "*": "times", "==": "eq", "&": "land", "|": "lor", "^": "lxor"}
UNARY_SYMBOLS = {"-": "ainv", "~": "lnot"}

def _find(namespace: Any, symbols: dict[str, str], name: str) -> Any:
    name = symbols.get(name, name)
    return getattr(namespace, name) if name in namespace else None


def _semiring(name: str) -> Semiring | None:
    """``"min_plus"`` or python-graphblas's ``"min.plus"`` / ``"min.+"``."""
    if "." in name:
        add, _, mult = name.partition(".")
        name = f"{MONOID_SYMBOLS.get(add, add)}_{BINARY_SYMBOLS.get(mult, mult)}"
    return getattr(semiring_ns, name) if name in semiring_ns else None


def from_string(op: Any, *kinds: str, what: str = "operation") -> Any:
    """``op`` itself unless it is a string; a string is looked up in ``kinds`` in order
    (``"binary"``, ``"monoid"``, ``"semiring"``, ``"unary"``, ``"select"``, ``"agg"``)."""
    if not isinstance(op, str):
        return op
    for kind in kinds:
        if kind == "binary":
            found = _find(binary, BINARY_SYMBOLS, op)
        elif kind == "monoid":
            found = _find(monoid, MONOID_SYMBOLS, op)
        elif kind == "unary":
            found = _find(unary_ns, UNARY_SYMBOLS, op)
        elif kind == "select":
            found = getattr(select, op) if op in select else None
        elif kind == "semiring":
            found = _semiring(op)
        elif kind == "agg":
            from .. import agg  # noqa: PLC0415

            found = agg.lookup(op)
        else:  # pragma: no cover - a caller's typo
            raise ValueError(f"unknown operator kind {kind!r}")
        if found is not None:
            return found
    raise DomainMismatch(
        f"{what}: unknown operator name {op!r}; expected the name of a "
        f"{' or '.join(kinds)} operator (e.g. 'plus', '+', 'min_plus')"
    )


class OperatorNamespace(ByName):
    """``gblas.op``: every operator by name, looked up as python-graphblas's ``op`` does:
    binary operators first, then unary operators, semirings and index-unary operators."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        for ns in (binary, unary_ns, semiring_ns, select):
            if name in ns:
                return getattr(ns, name)
        raise AttributeError(f"gblas.op has no operator {name!r}")

    def __dir__(self) -> list[str]:
        return sorted({*dir(binary), *dir(unary_ns), *dir(semiring_ns), *dir(select)})

    def __repr__(self) -> str:
        return "<gblas.op: binary, unary, semiring and select operators>"


op = OperatorNamespace()


class _ApplyingIndexUnaryOp(IndexUnaryOp):
    """An index-unary operator reached through ``gblas.indexunary``: calling it applies
    (``indexunary.tril(A)`` gives A's entries as True/False), where the same operator
    reached through ``gblas.select`` selects, as in python-graphblas."""

    def __call__(self, obj: Any, thunk: Any = None) -> Any:
        return obj.apply(self, right=thunk)

    def __repr__(self) -> str:
        return f"indexunary.{self.name}"


class IndexUnaryNamespace(ByName):
    """``gblas.indexunary``: the operators of ``gblas.select`` (built-in and registered),
    whose call form is apply rather than select."""

    def __init__(self) -> None:
        self._wrapped: dict[int, IndexUnaryOp] = {}

    def __getattr__(self, name: str) -> IndexUnaryOp:
        if name.startswith("_"):
            raise AttributeError(name)
        base = getattr(select, name)
        key = id(base)
        if key not in self._wrapped:
            self._wrapped[key] = _ApplyingIndexUnaryOp(
                **{f.name: getattr(base, f.name) for f in fields(base)})
        return self._wrapped[key]

    def __dir__(self) -> list[str]:
        return dir(select)

    def __repr__(self) -> str:
        return "<gblas.indexunary: the select operators, applied when called>"


indexunary = IndexUnaryNamespace()

__all__ = ["from_string", "op", "indexunary", "OperatorNamespace", "IndexUnaryNamespace",
           "BINARY_SYMBOLS", "MONOID_SYMBOLS", "UNARY_SYMBOLS"]
