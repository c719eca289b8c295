"""Aggregators (python-graphblas's ``gb.agg``): reductions that are not one monoid.

``A.reduce_rowwise(agg.mean)``, ``A.reduce_columnwise(agg.count)``, ``v.reduce(agg.L2norm)``,
``A.reduce_scalar(agg.varp)``. An aggregator is one or more monoid reductions of transformed
values (the values, 1 per entry, x², |x|, x ≠ 0, ...) and a final element-wise step over
the partial results (``mean = sum / count``). Rows (or columns) without entries get no
entry, and an empty object reduces to an empty Scalar, as with a monoid.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .core.expr import Expression, Result
from .dtypes import BOOL, FP64, INT64, DataType
from .exceptions import DomainMismatch
from .formats.vector import VecData
from .semirings.model import binary, monoid, unary

# the transforms applied to the values before a reduction: (collection) -> collection
_TRANSFORMS: dict[str, Callable[[Any], Any]] = {
    "value": lambda x: x,
    "float": lambda x: x.apply(unary.identity).new(_float(x.dtype)),
    "one": lambda x: x.apply(unary.one).new(INT64),
    "bool": lambda x: x.apply(binary.ne, right=0).new(),
    "nonzero": lambda x: x.apply(binary.ne, right=0).new(x.dtype),
    "zero": lambda x: x.apply(binary.eq, right=0).new(x.dtype),
    "square": lambda x: x.ewise_mult(x, binary.times).new(),
    "float_square": lambda x: _TRANSFORMS["square"](_TRANSFORMS["float"](x)),
    "abs": lambda x: x.apply(unary.abs).new(),
    "inverse": lambda x: _TRANSFORMS["float"](x).apply(unary.minv).new(),
    "log": lambda x: x.apply(unary.log).new(_float(x.dtype)),
    "exp": lambda x: x.apply(unary.exp).new(_float(x.dtype)),
}


def _float(dt: DataType) -> DataType:
    return dt if dt.is_float else FP64


@dataclass(frozen=True)
class Aggregator:
    """``parts``: (transform, monoid name) pairs, reduced alike; ``finish(xp, *partials)``
    combines them (None: the one partial is the result); ``out(dtype)``: the result type."""

    name: str
    parts: tuple[tuple[str, str], ...]
    out: Callable[[DataType], DataType]
    finish: Callable[..., Any] | None = None
    bool_ok: bool = True

    def __repr__(self) -> str:
        return f"agg.{self.name}"

    def _reduce(self, obj: Any, axis: str) -> Expression:
        """The aggregation of ``obj`` (a Vector: axis ``"vector"``; a Matrix: ``"rows"``,
        ``"columns"`` or ``"scalar"``) as an expression."""
        if obj.dtype == BOOL and not self.bool_ok:
            raise DomainMismatch(f"agg.{self.name} does not work on BOOL values")
        out = self.out(obj.dtype)
        if axis in ("vector", "scalar"):
            return Expression(f"reduce_{self.name}", 0, (), out, obj.device,
                              lambda mask, desc: Result(self._scalar(obj, axis, out)), (obj,))
        size = obj.nrows if axis == "rows" else obj.ncols
        return Expression(f"reduce_{axis}_{self.name}", 1, (size,), out, obj.device,
                          lambda mask, desc: Result(self._vector(obj, axis, out, size)),
                          (obj,))

    def _partials(self, obj: Any, axis: str) -> list[Any]:
        res = []
        for transform, mname in self.parts:
            x = _TRANSFORMS[transform](obj)
            m = getattr(monoid, mname)
            if axis == "vector":
                res.append(x.reduce(m).new())
            elif axis == "scalar":
                res.append(x.reduce_scalar(m).new())
            else:
                res.append((x.reduce_rowwise(m) if axis == "rows" else
                            x.reduce_columnwise(m)).new())
        return res

    def _scalar(self, obj: Any, axis: str, out: DataType) -> tuple[Any, bool]:
        partials = self._partials(obj, axis)
        if partials[0].is_empty:
            return None, False
        vals = [np.asarray([p.value], dtype=p.dtype.np_type) for p in partials]
        with np.errstate(all="ignore"):
            v = vals[0] if self.finish is None else self.finish(np, *vals)
        return out.cast(np.asarray(v)[0]), True

    def _vector(self, obj: Any, axis: str, out: DataType, size: int) -> VecData:
        partials = [p._data.as_sparse() for p in self._partials(obj, axis)]
        idx = partials[0][0]
        vals = [p[1] for p in partials]  # every partial has the same structure
        xp = np if isinstance(vals[0], np.ndarray) else _array_module(vals[0])
        with np.errstate(all="ignore"):
            v = vals[0] if self.finish is None else self.finish(xp, *vals)
        return VecData.sparse(size, out, idx, v.astype(out.np_type)).normalized()


def _array_module(arr: Any) -> Any:
    from .backend.keys import xp_of  # noqa: PLC0415

    return xp_of(arr)


def _same(dt: DataType) -> DataType:
    return dt


def _variance(ddof: int) -> Callable[..., Any]:
    def f(xp: Any, s: Any, ss: Any, c: Any) -> Any:
        return (ss - s * s / c) / (c - ddof)

    return f


def _ptp(xp: Any, hi: Any, lo: Any) -> Any:
    return hi != lo if hi.dtype == np.bool_ else hi - lo


def _a(name: str, parts: list[tuple[str, str]], out: Callable[[DataType], DataType],
       finish: Callable[..., Any] | None = None, *, bool_ok: bool = True) -> Aggregator:
    return Aggregator(name, tuple(parts), out, finish, bool_ok)


_S, _SS, _C = ("float", "plus"), ("float_square", "plus"), ("one", "plus")
_ALL = [
    _a("sum", [("value", "plus")], _same, bool_ok=False),
    _a("prod", [("value", "times")], _same),
    _a("min", [("value", "min")], _same),
    _a("max", [("value", "max")], _same),
    _a("any_value", [("value", "any")], _same),
    _a("any", [("bool", "lor")], lambda dt: BOOL),
    _a("all", [("bool", "land")], lambda dt: BOOL),
    _a("count", [_C], lambda dt: INT64),
    _a("exists", [_C], lambda dt: INT64, lambda xp, c: xp.ones_like(c)),
    _a("count_nonzero", [("nonzero", "plus")], _same, bool_ok=False),
    _a("L0norm", [("nonzero", "plus")], _same, bool_ok=False),
    _a("count_zero", [("zero", "plus")], _same, bool_ok=False),
    _a("sum_of_squares", [("square", "plus")], _same, bool_ok=False),
    _a("sum_of_inverses", [("inverse", "plus")], _float, bool_ok=False),
    _a("L1norm", [("abs", "plus")], _same, bool_ok=False),
    _a("Linfnorm", [("abs", "max")], _same),
    _a("L2norm", [_SS], _float, lambda xp, ss: xp.sqrt(ss), bool_ok=False),
    _a("hypot", [_SS], _float, lambda xp, ss: xp.sqrt(ss), bool_ok=False),
    _a("mean", [_S, _C], _float, lambda xp, s, c: s / c, bool_ok=False),
    _a("root_mean_square", [_SS, _C], _float, lambda xp, ss, c: xp.sqrt(ss / c),
       bool_ok=False),
    _a("varp", [_S, _SS, _C], _float, _variance(0), bool_ok=False),
    _a("vars", [_S, _SS, _C], _float, _variance(1), bool_ok=False),
    _a("stdp", [_S, _SS, _C], _float, lambda xp, *p: xp.sqrt(_variance(0)(xp, *p)),
       bool_ok=False),
    _a("stds", [_S, _SS, _C], _float, lambda xp, *p: xp.sqrt(_variance(1)(xp, *p)),
       bool_ok=False),
    _a("peak_to_peak", [("value", "max"), ("value", "min")], _same, _ptp),
    _a("geometric_mean", [("log", "plus"), _C], _float, lambda xp, s, c: xp.exp(s / c)),
    _a("harmonic_mean", [("inverse", "plus"), _C], _float, lambda xp, s, c: c / s,
       bool_ok=False),
    _a("logaddexp", [("exp", "plus")], _float, lambda xp, s: xp.log(s), bool_ok=False),
]
_BY_NAME = {a.name: a for a in _ALL}

# python-graphblas's symbols for aggregators in strings
_SYMBOLS = {"+": "sum", "*": "prod", "&": "all", "|": "any"}


def lookup(name: str) -> Aggregator | None:
    """The aggregator called ``name`` (or python-graphblas's symbol for it), else None."""
    return _BY_NAME.get(_SYMBOLS.get(name, name))


def __getattr__(name: str) -> Aggregator:
    """``agg.mean`` ...: the aggregators by name."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise AttributeError(
            f"gblas.agg has no aggregator {name!r}; known: {', '.join(sorted(_BY_NAME))}"
        ) from None


def __dir__() -> list[str]:
    return sorted([*_BY_NAME, "Aggregator", "lookup"])


__all__ = ["Aggregator", "lookup"]
