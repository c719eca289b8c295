"""The built-in operators with python-graphblas names, registered into the namespaces."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import BOOL, INT64, DataType
from .codegen_numba import OPCODES
from .model import (
    SAME,
    BinaryOp,
    IndexUnaryOp,
    Monoid,
    Semiring,
    UnaryOp,
    binary,
    monoid,
    select,
    semiring,
    unary,
)


def _xp(a: Any) -> Any:
    """NumPy or CuPy, whichever owns ``a``."""
    mod = type(a).__module__
    if mod.startswith("cupy"):
        import cupy  # noqa: PLC0415

        return cupy
    return np


def int_div(a: Any, b: Any) -> Any:
    """Division: IEEE for floats; for integers truncation toward zero with x / 0 = 0."""
    xp = _xp(a)
    a = xp.asarray(a)
    b = xp.asarray(b)
    if a.dtype.kind == "f":
        with np.errstate(all="ignore"):
            return a / b
    dtype = np.result_type(a, b)
    zero = b == 0
    safe = xp.where(zero, 1, b).astype(dtype)
    q = a // safe
    if dtype.kind == "i":
        r = a - q * safe
        q = q + ((r != 0) & ((a < 0) != (safe < 0))).astype(dtype)
    return xp.where(zero, 0, q).astype(dtype)


def _pow(a: Any, b: Any) -> Any:
    with np.errstate(all="ignore"):
        if np.asarray(b).dtype.kind in "iu" and np.asarray(a).dtype.kind in "iu":
            return _xp(a).power(a, _xp(a).maximum(b, 0))
        return _xp(a).power(a, b)


def _logical(f: Any) -> Any:
    def g(a: Any, b: Any) -> Any:
        return f(a != 0, b != 0)

    return g


def _pair(a: Any, b: Any) -> Any:
    xp = _xp(a)
    shape = np.broadcast_shapes(np.shape(a), np.shape(b))
    return xp.ones(shape, dtype=np.result_type(a, b))


def _first(a: Any, b: Any) -> Any:
    if np.shape(a) == np.shape(b):  # the element-wise case: no broadcast view to build
        return a
    xp = _xp(a)
    return xp.broadcast_to(xp.asarray(a), np.broadcast_shapes(np.shape(a), np.shape(b)))


def _second(a: Any, b: Any) -> Any:
    if np.shape(a) == np.shape(b):
        return b
    xp = _xp(b)
    return xp.broadcast_to(xp.asarray(b), np.broadcast_shapes(np.shape(a), np.shape(b)))


def _b(name: str, f: Any, *, ret: Any = SAME, commutative: bool = False,
       associative: bool = False, flip: str | None = None, uses: tuple[bool, bool] = (True, True),
       positional: str | None = None, offset: int = 0, bool_alias: str | None = None,
       ufunc: Any = None, input_rule: str | None = None) -> BinaryOp:
    return binary._register(BinaryOp(
        name, OPCODES.get(name, -1), f, return_rule=ret, uses_left=uses[0],
        uses_right=uses[1], commutative=commutative, associative=associative, flip_name=flip,
        positional=positional, offset=offset, bool_alias=bool_alias, ufunc=ufunc,
        input_rule=input_rule,
    ))


def _register_binary() -> None:
    _b("first", _first, flip="second", uses=(True, False), associative=True)
    _b("second", _second, flip="first", uses=(False, True), associative=True)
    _b("any", _first, commutative=True, associative=True)
    _b("pair", _pair, commutative=True, associative=True, uses=(False, False))
    _b("oneb", _pair, commutative=True, associative=True, uses=(False, False))
    _b("plus", np.add, commutative=True, associative=True, bool_alias="lor", ufunc=np.add)
    _b("minus", np.subtract, flip="rminus", bool_alias="lxor")
    _b("rminus", lambda a, b: np.subtract(b, a), flip="minus", bool_alias="lxor")
    _b("times", np.multiply, commutative=True, associative=True, bool_alias="land",
       ufunc=np.multiply)
    _b("div", int_div, flip="rdiv", bool_alias="first")
    _b("rdiv", lambda a, b: int_div(b, a), flip="div", bool_alias="second")
    _b("truediv", lambda a, b: int_div(a.astype(np.float64) if a.dtype.kind != "f" else a, b),
       ret="float")
    _b("pow", _pow, bool_alias="first")
    _b("min", np.fmin, commutative=True, associative=True, ufunc=np.fmin)
    _b("max", np.fmax, commutative=True, associative=True, ufunc=np.fmax)
    _b("lor", _logical(np.logical_or), commutative=True, associative=True,
       ufunc=np.logical_or)
    _b("land", _logical(np.logical_and), commutative=True, associative=True,
       ufunc=np.logical_and)
    _b("lxor", _logical(np.logical_xor), commutative=True, associative=True,
       ufunc=np.logical_xor)
    _b("lxnor", _logical(np.equal), commutative=True, associative=True, ufunc=np.equal)
    for name, f, flip in (("eq", np.equal, None), ("ne", np.not_equal, None),
                          ("gt", np.greater, "lt"), ("lt", np.less, "gt"),
                          ("ge", np.greater_equal, "le"), ("le", np.less_equal, "ge")):
        _b(name, f, ret=BOOL, commutative=flip is None, flip=flip)
        _b("is" + name, f, commutative=flip is None, flip=flip and "is" + flip)
    _b("bor", np.bitwise_or, commutative=True, associative=True, ufunc=np.bitwise_or,
       input_rule="integer")
    _b("band", np.bitwise_and, commutative=True, associative=True, ufunc=np.bitwise_and,
       input_rule="integer")
    _b("bxor", np.bitwise_xor, commutative=True, associative=True, ufunc=np.bitwise_xor,
       input_rule="integer")
    flips = {"firsti": "secondj", "firstj": "secondi", "secondi": "firstj", "secondj": "firsti"}
    for base, flip in flips.items():
        for off in (0, 1):
            suffix = "1" if off else ""
            _b(base + suffix, None, ret=INT64, uses=(False, False), positional=base,
               offset=off, flip=flip + suffix)


def _iinfo(dtype: DataType, which: str) -> Any:
    if dtype.is_bool:
        return which == "max"
    if dtype.is_float:
        return np.inf if which == "max" else -np.inf
    info = np.iinfo(dtype.np_type)
    return info.max if which == "max" else info.min


def _all_ones(dtype: DataType) -> Any:
    if dtype.is_bool:
        return True
    if dtype.is_signed:
        return -1
    return np.iinfo(dtype.np_type).max


def _m(name: str, identity: Any, terminal: Any = None, *, idempotent: bool = False,
       is_any: bool = False) -> None:
    monoid._register(Monoid(name, getattr(binary, name), identity, terminal,
                            idempotent=idempotent, is_any=is_any))


def _register_monoids() -> None:
    _m("plus", lambda dt: 0)
    _m("times", lambda dt: 1, lambda dt: 0 if not dt.is_float else None)
    _m("min", lambda dt: _iinfo(dt, "max"), lambda dt: _iinfo(dt, "min"), idempotent=True)
    _m("max", lambda dt: _iinfo(dt, "min"), lambda dt: _iinfo(dt, "max"), idempotent=True)
    _m("lor", lambda dt: False, lambda dt: True, idempotent=True)
    _m("land", lambda dt: True, lambda dt: False, idempotent=True)
    _m("lxor", lambda dt: False)
    _m("lxnor", lambda dt: True)
    _m("any", lambda dt: 0, None, idempotent=True, is_any=True)
    _m("bor", lambda dt: 0, _all_ones, idempotent=True)
    _m("band", _all_ones, lambda dt: 0, idempotent=True)
    _m("bxor", lambda dt: 0)
    # eq on BOOL is lxnor (python-graphblas has monoid.eq)
    monoid._register(Monoid("eq", binary.lxnor, lambda dt: True))


def _float_fn(f: Any) -> Any:
    def g(x: Any) -> Any:
        with np.errstate(all="ignore"):
            return f(x)

    return g


def _u(name: str, f: Any, *, ret: Any = SAME, positional: str | None = None, offset: int = 0,
       input_rule: str | None = None) -> None:
    unary._register(UnaryOp(name, f, return_rule=ret, positional=positional, offset=offset,
                            input_rule=input_rule))


def _register_unary() -> None:
    _u("identity", lambda x: x.copy())
    _u("ainv", lambda x: x.copy() if x.dtype == np.bool_ else np.negative(x))
    _u("minv", lambda x: x.copy() if x.dtype == np.bool_ else int_div(
        _xp(x).ones_like(x), x))
    _u("abs", lambda x: x.copy() if x.dtype.kind in "bu" else np.abs(x))
    _u("lnot", lambda x: (x == 0).astype(x.dtype))
    _u("bnot", lambda x: np.invert(x))
    _u("one", lambda x: _xp(x).ones_like(x))
    for name in ("sqrt", "exp", "log", "log2", "log10", "sin", "cos", "tan", "floor", "ceil",
                 "trunc"):
        _u(name, _float_fn(getattr(np, name)), input_rule="float")
    _u("round", _float_fn(np.rint), input_rule="float")
    for axis in ("i", "j"):
        for off in (0, 1):
            _u(f"position{axis}{'1' if off else ''}", None, ret=INT64, positional=axis,
               offset=off)


def _s(name: str, f: Any, *, ret: Any = BOOL, uses_values: bool = False) -> None:
    # the built-in operators read either the values (valueeq ...) or the positions
    select._register(IndexUnaryOp(name, f, return_rule=ret, uses_values=uses_values,
                                  uses_positions=not uses_values))


def _register_select() -> None:
    _s("tril", lambda x, i, j, t: j <= i + t)
    _s("triu", lambda x, i, j, t: j >= i + t)
    _s("diag", lambda x, i, j, t: j == i + t)
    _s("offdiag", lambda x, i, j, t: j != i + t)
    _s("rowle", lambda x, i, j, t: i <= t)
    _s("rowgt", lambda x, i, j, t: i > t)
    _s("colle", lambda x, i, j, t: j <= t)
    _s("colgt", lambda x, i, j, t: j > t)
    for name, f in (("eq", np.equal), ("ne", np.not_equal), ("gt", np.greater),
                    ("ge", np.greater_equal), ("lt", np.less), ("le", np.less_equal)):
        _s("value" + name, (lambda g: lambda x, i, j, t: g(x, t))(f), uses_values=True)
    _s("rowindex", lambda x, i, j, t: (i + t).astype(np.int64, copy=False), ret=INT64)
    _s("colindex", lambda x, i, j, t: (j + t).astype(np.int64, copy=False), ret=INT64)
    _s("diagindex", lambda x, i, j, t: (j - (i + t)).astype(np.int64, copy=False), ret=INT64)


_register_binary()
_register_monoids()
_register_unary()
_register_select()

# The semirings named in the API; any other <monoid>_<binop> pair is made on first use.
SEMIRING_NAMES = (
    "lor_land", "land_lor", "lxor_land", "lor_pair", "any_pair", "any_first", "any_second",
    "any_firsti", "any_secondi", "any_firstj", "any_secondj", "min_plus", "max_plus",
    "min_first", "min_second", "max_first", "max_second", "max_times", "min_times",
    "plus_times", "plus_pair", "plus_min", "min_max", "max_min", "plus_first", "plus_second",
    "min_firsti", "min_secondi", "max_firsti", "max_secondi",
)
for _name in SEMIRING_NAMES:
    getattr(semiring, _name)

__all__ = ["Semiring", "SEMIRING_NAMES", "int_div"]
