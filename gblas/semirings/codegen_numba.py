"""Numba side of the operator model: opcodes, scalar switch functions, user-defined ops.

Built-in operators are compiled once per dtype into the kernels, which switch on the
opcode (kept in a register; the branch is predictable) so that every kernel is cached on
disk (``cache=True``) instead of being compiled per semiring. User-defined operators are
compiled from Python with Numba and reach kernels as first-class functions.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from numba.np.numpy_support import as_dtype

from ..dtypes import DataType, lookup_dtype
from ..exceptions import DomainMismatch

# Opcodes of the built-in binary operators (also the switch values of the CUDA functors).
(
    FIRST, SECOND, PAIR, ANY, PLUS, MINUS, RMINUS, TIMES, DIV, RDIV, MIN, MAX,
    LOR, LAND, LXOR, LXNOR, EQ, NE, GT, LT, GE, LE, BOR, BAND, BXOR, POW,
    FIRSTI, FIRSTI1, FIRSTJ, FIRSTJ1, SECONDI, SECONDI1, SECONDJ, SECONDJ1,
    ISEQ, ISNE, ISGT, ISLT, ISGE, ISLE,
) = range(40)

OPCODES: dict[str, int] = {
    "first": FIRST, "second": SECOND, "pair": PAIR, "oneb": PAIR, "any": ANY,
    "plus": PLUS, "minus": MINUS, "rminus": RMINUS, "times": TIMES, "div": DIV,
    "rdiv": RDIV, "min": MIN, "max": MAX, "lor": LOR, "land": LAND, "lxor": LXOR,
    "lxnor": LXNOR, "eq": EQ, "ne": NE, "gt": GT, "lt": LT, "ge": GE, "le": LE,
    "bor": BOR, "band": BAND, "bxor": BXOR, "pow": POW,
    "firsti": FIRSTI, "firsti1": FIRSTI1, "firstj": FIRSTJ, "firstj1": FIRSTJ1,
    "secondi": SECONDI, "secondi1": SECONDI1, "secondj": SECONDJ, "secondj1": SECONDJ1,
    "iseq": ISEQ, "isne": ISNE, "isgt": ISGT, "islt": ISLT, "isge": ISGE, "isle": ISLE,
}


@numba.njit(inline="always", cache=True)
def int_div(a, b):  # noqa: ANN001, ANN202
    """Integer division truncating toward zero, x/0 = 0 (matches ops_numpy.int_div)."""
    if b == 0:
        return a - a
    q = a // b
    if (a % b != 0) and ((a < 0) != (b < 0)):
        q += 1
    return q


@numba.njit(inline="always", cache=True)
def apply_binop(op, a, b, i, k, j, is_float):  # noqa: ANN001, ANN201, C901, PLR0911, PLR0912
    """f(a, b) of a built-in operator; (i, k, j) are the positions for positional ones."""
    if op == FIRST or op == ANY:
        return a
    if op == SECOND:
        return b
    if op == PAIR:
        return 1
    if op == PLUS:
        return a + b
    if op == MINUS:
        return a - b
    if op == RMINUS:
        return b - a
    if op == TIMES:
        return a * b
    if op == DIV:
        if is_float:
            return a / b
        return int_div(a, b)
    if op == RDIV:
        if is_float:
            return b / a
        return int_div(b, a)
    if op == MIN:
        return a if (a < b or b != b) else b
    if op == MAX:
        return a if (a > b or b != b) else b
    if op == LOR:
        return (a != 0) or (b != 0)
    if op == LAND:
        return (a != 0) and (b != 0)
    if op == LXOR:
        return (a != 0) != (b != 0)
    if op == LXNOR:
        return (a != 0) == (b != 0)
    if op == EQ or op == ISEQ:
        return a == b
    if op == NE or op == ISNE:
        return a != b
    if op == GT or op == ISGT:
        return a > b
    if op == LT or op == ISLT:
        return a < b
    if op == GE or op == ISGE:
        return a >= b
    if op == LE or op == ISLE:
        return a <= b
    if op == BOR:
        return a | b
    if op == BAND:
        return a & b
    if op == BXOR:
        return a ^ b
    if op == POW:
        return a**b
    if op == FIRSTI:
        return i
    if op == FIRSTI1:
        return i + 1
    if op == FIRSTJ or op == SECONDI:
        return k
    if op == FIRSTJ1 or op == SECONDI1:
        return k + 1
    if op == SECONDJ:
        return j
    if op == SECONDJ1:
        return j + 1
    return a


@numba.njit(inline="always", cache=True)
def apply_monoid(op, a, b):  # noqa: ANN001, ANN201, PLR0911
    """a ⊕ b of a built-in monoid."""
    if op == PLUS:
        return a + b
    if op == TIMES:
        return a * b
    if op == MIN:
        return a if (a < b or b != b) else b
    if op == MAX:
        return a if (a > b or b != b) else b
    if op == LOR:
        return (a != 0) or (b != 0)
    if op == LAND:
        return (a != 0) and (b != 0)
    if op == LXOR:
        return (a != 0) != (b != 0)
    if op == LXNOR or op == EQ:
        return (a != 0) == (b != 0)
    if op == BOR:
        return a | b
    if op == BAND:
        return a & b
    if op == BXOR:
        return a ^ b
    return a  # ANY (and FIRST): keep the value already there


# ------------------------------------------------------------------ user-defined operators
def compile_udf(func: Callable[..., Any], nargs: int) -> tuple[Any, Any]:
    """(Numba scalar function, NumPy-callable vectorised form) of a Python function."""
    if not callable(func):
        raise DomainMismatch(f"expected a Python function, got {type(func).__name__}")
    try:
        nb = numba.njit(func)
        vec = numba.vectorize(func)
    except Exception as e:  # noqa: BLE001 - Numba raises many kinds
        raise DomainMismatch(f"cannot compile {func!r} with Numba: {e}") from e
    return nb, _checked_vectorized(vec, func, nargs)


def _checked_vectorized(vec: Any, func: Callable[..., Any], nargs: int) -> Callable[..., Any]:
    def call(*arrays: Any) -> Any:
        arrays = arrays[:nargs]
        if any(np.asarray(a).size == 0 for a in arrays):
            return np.zeros(np.broadcast(*arrays).shape, dtype=_result_dtype(func, arrays))
        try:
            return vec(*arrays)
        except Exception as e:  # noqa: BLE001
            raise DomainMismatch(f"user-defined operator {func.__name__} failed: {e}") from e

    call.__name__ = getattr(func, "__name__", "udf")
    return call


def _result_dtype(func: Callable[..., Any], arrays: tuple[Any, ...]) -> np.dtype:
    return np.asarray(func(*(np.asarray(a).dtype.type(1) for a in arrays))).dtype


@functools.lru_cache(maxsize=None)
def _nb_type(dtype: np.dtype) -> Any:
    return numba.from_dtype(dtype)


def udf_return_type(nb_func: Any, args: tuple[DataType, ...]) -> DataType:
    """The GraphBLAS type a user-defined function returns for ``args`` (Numba inference)."""
    sig = tuple(_nb_type(a.np_type) for a in args)
    try:
        cres = nb_func.get_compile_result(nb_func.compile(sig) or sig)
        ret = cres.signature.return_type
    except Exception:  # noqa: BLE001
        nb_func.compile(sig)
        ret = nb_func.overloads[sig].signature.return_type
    try:
        return lookup_dtype(as_dtype(ret))
    except Exception as e:  # noqa: BLE001
        raise DomainMismatch(
            f"user-defined operator returns {ret}, which is not a GraphBLAS type"
        ) from e


def flip_udf(nb_func: Any) -> tuple[Any, Any]:
    f = nb_func  # a Numba dispatcher: callable from the compiled wrapper

    def flipped(y: Any, x: Any) -> Any:
        return f(x, y)

    return compile_udf(flipped, 2)


def vectorize_indexunary(func: Callable[..., Any]) -> Callable[..., Any]:
    """NumPy-callable ``f(values, rows, cols, thunk)`` from a scalar Python function."""
    vec = numba.vectorize(func)

    def call(values: Any, rows: Any, cols: Any, thunk: Any) -> Any:
        if np.asarray(values).size == 0:
            return np.zeros(0, dtype=bool)
        return vec(values, rows, cols, thunk)

    return call


@numba.njit
def segment_reduce(f, values, starts, ends, out):  # noqa: ANN001, ANN201
    """out[s] = f-reduction of values[starts[s]:ends[s]] (user-defined monoids)."""
    for s in range(starts.shape[0]):
        acc = values[starts[s]]
        for p in range(starts[s] + 1, ends[s]):
            acc = f(acc, values[p])
        out[s] = acc
    return out
