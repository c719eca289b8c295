"""Numba side of the operator model: opcodes, scalar switch functions, user-defined ops.

Built-in operators are compiled once per dtype into the kernels, which switch on the
opcode (a runtime value; the branch is predictable) so that every kernel is cached on disk
(``cache=True``) instead of being compiled per semiring. Kernels call ``mult_op`` and
``add_op``. User-defined operators are
compiled from Python with Numba and reach kernels as first-class functions.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from numba import types
from numba.extending import overload
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
    "truediv": 63,
}
# truediv: float division of any type; FLIP + op: op with its operands swapped (the flipped
# form of a built-in that has no named flip, e.g. pow: vxm(u, A) runs as mxv(Aᵀ, u)).
TRUEDIV = 63
FLIP = 64


_JIT_OPTS: dict[str, Any] = {"error_model": "numpy", "nogil": True}


# ================================================================ typed scalar operators
# Kernels call ``_MUL(op, a, b, i, k, j, like)`` and ``_ADD(op, x, y)``. Built-in operators
# are computed in a wide type (int64; uint64 for uint64; float64 for floats: exact for the
# integer ring operations after wrap-around, and correctly rounded for float32 + - * /
# since 53 >= 2*24 + 2) and cast to the result type, so the opcode switch is compiled
# only three times in all, and each kernel once per dtype (the opcode is a runtime value).
# Overloads pick code by type at compile time: no bitwise ops on floats, integer division
# stays integer.
def cast_to(x: Any, like: Any) -> Any:
    """``x`` converted to the type of ``like`` (NumPy ``astype`` rules; bool is ``!= 0``)."""
    return np.asarray(x).astype(np.asarray(like).dtype)[()]


@overload(cast_to)
def _ol_cast_to(x, like):  # noqa: ANN001, ANN202
    target = types.unliteral(like)
    if isinstance(target, types.Boolean):
        if isinstance(types.unliteral(x), types.Boolean):
            return lambda x, like: x
        return lambda x, like: x != 0
    if types.unliteral(x) == target:
        return lambda x, like: x
    return lambda x, like: target(x)


def _typed(op: int, a: Any, b: Any) -> Any:
    """div, rdiv, pow, bor, band, bxor: the operators whose code depends on the type.
    Floats: IEEE division, bitwise ops return a. Integers: division truncates toward zero
    with x / 0 = 0 and wraps on INT_MIN / -1 (no trap); pow is a ** max(b, 0), wrapping."""
    raise NotImplementedError("only callable from Numba code")


@overload(_typed)
def _ol_typed(op, a, b):  # noqa: ANN001, ANN202, C901
    if isinstance(a, types.Float):
        return lambda op, a, b: (a / b if op == DIV else b / a if op == RDIV
                                 else a**b if op == POW else a)
    signed = a.signed

    def impl(op, a, b):  # noqa: ANN001, ANN202
        if op == BOR or op == BAND or op == BXOR:
            return a | b if op == BOR else (a & b if op == BAND else a ^ b)
        if op == POW:
            r = cast_to(1, a)
            e = b
            while e > 0:
                if e & 1:
                    r = r * a
                a = a * a
                e = e >> 1
            return r
        x, y = (a, b) if op == DIV else (b, a)
        if y == 0:
            return x - x
        if signed and y == cast_to(-1, y):
            return -x
        q = x // y
        return q + 1 if signed and (x % y != 0) and ((x < 0) != (y < 0)) else q

    return impl


def wide(x: Any) -> Any:
    """``x`` as int64 (bool and integers up to 32 bits, int64), uint64 or float64."""
    raise NotImplementedError("wide is only callable from Numba code")


@overload(wide)
def _ol_wide(x):  # noqa: ANN001, ANN202
    x = types.unliteral(x)
    if isinstance(x, types.Float):
        return lambda x: np.float64(x)
    if isinstance(x, types.Integer) and not x.signed and x.bitwidth == 64:
        return lambda x: x
    return lambda x: np.int64(x)


@numba.njit(cache=True, **_JIT_OPTS)
def binop(op, a, b, i, k, j):  # noqa: ANN001, ANN201, C901, PLR0911, PLR0912
    """Built-in binary operator ``op`` on wide (a, b) at position (i, k, j); type of a."""
    if op == FIRST or op == ANY:
        return a
    if op == SECOND:
        return b
    if op == PAIR:
        return cast_to(1, a)
    if op == PLUS:
        return a + b
    if op == TIMES:
        return a * b
    if op == MIN:
        return a if (a < b or b != b) else b
    if op == MAX:
        return a if (a > b or b != b) else b
    if op == MINUS or op == RMINUS:
        return a - b if op == MINUS else b - a
    if op == DIV or op == RDIV or op == POW or (op >= BOR and op <= BXOR):
        return _typed(op, a, b)
    if op == LOR:
        return cast_to((a != 0) or (b != 0), a)
    if op == LAND:
        return cast_to((a != 0) and (b != 0), a)
    if op == LXOR or op == LXNOR:
        return cast_to(((a != 0) != (b != 0)) == (op == LXOR), a)
    if op == EQ or op == ISEQ:
        return cast_to(a == b, a)
    if op == NE or op == ISNE:
        return cast_to(a != b, a)
    if op == GT or op == ISGT:
        return cast_to(a > b, a)
    if op == LT or op == ISLT:
        return cast_to(a < b, a)
    if op == GE or op == ISGE:
        return cast_to(a >= b, a)
    if op == LE or op == ISLE:
        return cast_to(a <= b, a)
    if op == FIRSTI or op == FIRSTI1:
        return cast_to(i + (op == FIRSTI1), a)
    if op == FIRSTJ or op == SECONDI or op == FIRSTJ1 or op == SECONDI1:
        return cast_to(k + (op == FIRSTJ1 or op == SECONDI1), a)
    if op == SECONDJ or op == SECONDJ1:
        return cast_to(j + (op == SECONDJ1), a)
    return a


@numba.njit(cache=True, **_JIT_OPTS)
def monoid(op, a, b):  # noqa: ANN001, ANN201, PLR0911
    """Built-in monoid ``op``: a ⊕ b on wide values of one type."""
    if op == PLUS:
        return a + b
    if op == TIMES:
        return a * b
    if op == MIN:
        return a if (a < b or b != b) else b
    if op == MAX:
        return a if (a > b or b != b) else b
    if op == LOR:
        return cast_to((a != 0) or (b != 0), a)
    if op == LAND:
        return cast_to((a != 0) and (b != 0), a)
    if op == LXOR:
        return cast_to((a != 0) != (b != 0), a)
    if op == LXNOR or op == EQ:
        return cast_to((a != 0) == (b != 0), a)
    if op == BOR or op == BAND or op == BXOR:
        return _typed(op, a, b)
    return a  # ANY / FIRST: keep the value already there


@numba.njit(cache=True, **_JIT_OPTS)
def mult_op(op, a, b, i, k, j, like):  # noqa: ANN001, ANN201
    """mult(a, b) at (i, k, j) of built-in ``op``, cast to the type of ``like``."""
    if op >= FLIP:
        op -= FLIP
        a, b = b, a
    if op == TRUEDIV:
        return cast_to(np.float64(a) / np.float64(b), like)
    return cast_to(binop(op, wide(a), wide(b), i, k, j), like)


@numba.njit(cache=True, **_JIT_OPTS)
def add_op(op, x, y):  # noqa: ANN001, ANN201
    """x ⊕ y of built-in monoid ``op`` in the type of x (and y)."""
    return cast_to(monoid(op, wide(x), wide(y)), x)


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


def _is_device_array(a: Any) -> bool:
    return type(a).__module__.startswith("cupy")


def on_host(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` (a CPU-compiled, NumPy-callable user-defined operator) made callable on CuPy
    arrays by an explicit host round trip: a user's Python function has no CUDA form, so its
    operands are copied to the host, evaluated there, and the result copied back."""
    def call(*arrays: Any) -> Any:
        dev = next((a for a in arrays if _is_device_array(a)), None)
        if dev is None:
            return fn(*arrays)
        import cupy  # noqa: PLC0415 - only with device arrays

        host = [a.get() if _is_device_array(a) else a for a in arrays]
        with cupy.cuda.Device(dev.device.id):
            return cupy.asarray(fn(*host))

    call.__name__ = getattr(fn, "__name__", "udf")
    return call


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
    return on_host(call)


def _result_dtype(func: Callable[..., Any], arrays: tuple[Any, ...]) -> np.dtype:
    return np.asarray(func(*(np.asarray(a).dtype.type(1) for a in arrays))).dtype


@functools.cache
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

    return on_host(call)


@numba.njit
def segment_reduce(f, values, starts, ends, out):  # noqa: ANN001, ANN201
    """out[s] = f-reduction of values[starts[s]:ends[s]] (user-defined monoids)."""
    for s in range(starts.shape[0]):
        acc = values[starts[s]]
        for p in range(starts[s] + 1, ends[s]):
            acc = f(acc, values[p])
        out[s] = acc
    return out
