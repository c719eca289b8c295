"""The CUDA side of :mod:`gblas.backend.dense`: one generated kernel per element-wise
operation that computes T and writes it back (mask, accumulator, replace) in one pass.

The kernel source is generated from the operator model (the opcode functors of
``gblas.semirings.codegen_cuda`` for binary operators and accumulators; small tables here
for unary and index-unary operators) with the element types as ``typedef``s; the storage of
each operand (bitmap or full), the mask kind, complement and replace are run-time flags, so
one compiled kernel serves every storage combination. Kernels are compiled once per device
and source (``cupy.RawModule``, which also caches the binary on disk) and memoised, as
cupyx.scipy.sparse does. A launch reads no count and copies nothing to the host: scalars go
by value, or as device pointers when a kernel produced them (:class:`DeviceScalar`).

``run`` returns None where an operator has no CUDA form (user-defined operators, positional
accumulators, bitwise negation of floats); :mod:`gblas.backend.dense` then computes T with
array operations and writes it back with a ``copy`` kernel.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ..dtypes import DataType
from ..semirings.codegen_cuda import c_type, functor_source
from ..semirings.model import BinaryOp, IndexUnaryOp, UnaryOp
from .cuda import BLOCK, _cp, _grid
from .dense import DenseT, DeviceScalar, MaskView, Operand, result_full

# run-time flags of gb_dense
A_FULL, B_FULL, C_FULL, MASK, M_VALUE, M_COMP, M_FULL, REPLACE, W_BITS, S_DEV = (
    1 << k for k in range(10))

_KERNEL = r"""
extern "C" __global__ void gb_dense(
    const long long n, const int flags,
    const bool* ab, const TA* av, const bool* bb, const TB* bv,
    const TS s_host, const TS* s_dev,
    const bool* cb, const TC* cv, const bool* mb, const TM* mv,
    bool* rb, TC* rv) {
  // no __restrict__: the output may be C's own arrays (updated in place), and A's
  // a device scalar is [value, present]
  const TS s = (flags & GB_S_DEV) ? s_dev[0] : s_host;
  const bool sp = (flags & GB_S_DEV) ? (s_dev[1] != (TS)0) : true;
  (void)s; (void)sp;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const bool pa = (flags & GB_A_FULL) || ab[i];
    const bool pb = (flags & GB_B_FULL) || bb[i];
    (void)pa; (void)pb;
    bool tb;
    TZ tv;
    GB_T_CODE
    bool zb;
    TC zv;
#if GB_HAS_ACC
    const bool pc = (flags & GB_C_FULL) || cb[i];
    if (tb && pc) { zb = true; zv = GB_ACC_EXPR; }
    else if (tb) { zb = true; zv = (TC)tv; }
    else { zb = pc; zv = cv[i]; }
#else
    zb = tb;
    zv = (TC)tv;
#endif
    if (flags & GB_MASK) {
      bool m = (flags & GB_M_FULL) || mb[i];
      if (m && (flags & GB_M_VALUE)) m = (mv[i] != (TM)0);
      if (flags & GB_M_COMP) m = !m;
      if (!m) {
        zb = !(flags & GB_REPLACE) && ((flags & GB_C_FULL) || cb[i]);
        zv = cv[i];
      }
    }
    if (flags & GB_W_BITS) rb[i] = zb;
    rv[i] = zv;
  }
}
"""


# ------------------------------------------------------------------- operator source
def _binary_expr(op: BinaryOp, domain: DataType, x: str, y: str) -> str | None:
    """C expression of op(x, y) in the domain, of type TZ; None if it has no CUDA form."""
    op = op.for_domain(domain)
    if op.positional:
        pos = "i" if op.positional in ("firsti", "secondi") else "0LL"
        return f"(TZ)({pos} + {int(op.offset)}LL)"
    if op.opcode < 0 or op.is_udf:
        return None
    return f"gb_mult<{int(op.opcode)}, TD, TZ>((TD)({x}), (TD)({y}), i, 0LL, 0LL)"


_FLOAT_FN = {"sqrt": "sqrt", "exp": "exp", "log": "log", "log2": "log2", "log10": "log10",
             "sin": "sin", "cos": "cos", "tan": "tan", "floor": "floor", "ceil": "ceil",
             "trunc": "trunc", "round": "rint"}


def _unary_expr(op: UnaryOp, domain: DataType) -> str | None:
    """C expression of f(x) for x of type TD, cast to TZ."""
    if op.positional:
        pos = "i" if op.positional == "i" else "0LL"
        return f"(TZ)({pos} + {int(op.offset)}LL)"
    if op.is_udf or op.fixed_type is not None and op.fixed_type != domain:
        return None
    name, kind = op.name, domain.np_type.kind
    x = "((TD)av[i])"
    if name == "identity":
        e = x
    elif name == "ainv":
        e = x if kind == "b" else f"-{x}"
    elif name == "abs":
        e = x if kind in "bu" else (f"fabs({x})" if kind == "f" else f"({x} < 0 ? -{x} : {x})")
    elif name == "one":
        e = "1"
    elif name == "lnot":
        e = f"({x} == (TD)0)"
    elif name == "bnot":
        if kind == "f":
            return None
        e = f"!{x}" if kind == "b" else f"~{x}"
    elif name == "minv":
        if kind == "b":
            e = x
        elif kind == "f":
            e = f"((TD)1 / {x})"
        else:
            e = f"gb_div<typename gb_wide<TD>::type>(1, (typename gb_wide<TD>::type){x})"
    elif name in _FLOAT_FN and kind == "f":
        e = f"{_FLOAT_FN[name]}({x})"
    else:
        return None
    return f"(TZ)({e})"


_INDEX_EXPR = {
    "tril": "(0LL <= i + s)", "triu": "(0LL >= i + s)", "diag": "(0LL == i + s)",
    "offdiag": "(0LL != i + s)", "rowle": "(i <= s)", "rowgt": "(i > s)",
    "colle": "(0LL <= s)", "colgt": "(0LL > s)",
    "valueeq": "(x == s)", "valuene": "(x != s)", "valuegt": "(x > s)",
    "valuege": "(x >= s)", "valuelt": "(x < s)", "valuele": "(x <= s)",
    "rowindex": "(i + s)", "colindex": "(0LL + s)", "diagindex": "(0LL - (i + s))",
}


def _t_code(t: DenseT) -> str | None:
    """The statements computing (tb, tv) at position i; None if T has no CUDA form."""
    k = t.kind
    if k == "copy":
        return "tb = pa; tv = (TZ)av[i];"
    if k == "scalar":
        return "tb = sp; tv = (TZ)s;"
    if k in ("add", "mult"):
        e = _binary_expr(t.op, t.domain, "av[i]", "bv[i]")  # type: ignore[arg-type]
        if e is None:
            return None
        if k == "mult":
            return f"tb = pa && pb; tv = tb ? {e} : TZ();"
        return (f"tb = pa || pb; if (pa && pb) tv = {e}; else if (pa) tv = (TZ)av[i]; "
                "else tv = (TZ)bv[i];")
    if k in ("bind1st", "bind2nd"):
        x, y = ("s", "av[i]") if k == "bind1st" else ("av[i]", "s")
        e = _binary_expr(t.op, t.domain, x, y)  # type: ignore[arg-type]
        return None if e is None else f"tb = pa && sp; tv = {e};"
    if k == "unary":
        e = _unary_expr(t.op, t.domain)  # type: ignore[arg-type]
        return None if e is None else f"tb = pa; tv = {e};"
    op: IndexUnaryOp = t.op
    if op.is_udf or op.name not in _INDEX_EXPR:
        return None
    e = _INDEX_EXPR[op.name]
    if k == "index":
        return f"const TA x = av[i]; (void)x; tb = pa && sp; tv = (TZ){e};"
    return f"const TA x = av[i]; (void)x; tb = pa && sp && {e}; tv = (TZ)x;"


def _scalar_type(t: DenseT) -> np.dtype | None:
    """The C-side type of T's scalar, as NumPy would compare or cast it (a Python scalar
    takes the array's type when that is a float, NEP 50); None to refuse. Depends on the
    scalar's Python type only (part of the launch key)."""
    s = t.scalar
    if t.kind in ("add", "mult", "copy", "unary"):
        return np.dtype(np.int64)  # no scalar
    if isinstance(s, DeviceScalar):
        return np.dtype(s.dtype.np_type)
    if t.kind in ("bind1st", "bind2nd"):
        return np.dtype(t.domain.np_type)  # type: ignore[union-attr]
    if t.kind == "scalar":
        return np.dtype(t.dtype.np_type)
    a_dt = np.dtype(t.a[1].dtype)  # type: ignore[index]
    if a_dt.kind == "f" and t.op.name.startswith("value"):
        return a_dt
    if isinstance(s, (float, np.floating)):
        return np.dtype(np.float64)
    return np.dtype(np.int64)


def _scalar_value(t: DenseT, s_type: np.dtype) -> Any:
    """The host scalar as a NumPy scalar of ``s_type`` (passed by value); None to refuse
    (a negative or huge thunk against unsigned 64-bit values: no common C type)."""
    s = t.scalar
    if s is None or isinstance(s, DeviceScalar):
        return s_type.type(0)
    if (t.kind in ("select", "index") and s_type.kind == "i"
            and np.dtype(t.a[1].dtype) == np.uint64 and not 0 <= int(s) < 2**63):  # type: ignore[index]
        return None
    return np.asarray(s).astype(s_type)[()]


def _acc_expr(accum: BinaryOp | None, out: DataType, t_dtype: DataType
              ) -> tuple[str, str] | None:
    """(accumulator expression, its domain's C type); ("", "bool") without one; None when
    the accumulator has no CUDA form."""
    if accum is None:
        return "", "bool"
    domain = accum.domain(out, t_dtype)
    op = accum.for_domain(domain)
    if op.positional or op.opcode < 0 or op.is_udf:
        return None
    return f"gb_mult<{int(op.opcode)}, TDA, TC>((TDA)cv[i], (TDA)tv, i, 0LL, 0LL)", \
        c_type(domain)


@functools.cache
def _kernel(device_id: int, types: tuple[str, ...], t_code: str, acc: str) -> Any:
    cp = _cp()
    with cp.cuda.Device(device_id):
        mod = cp.RawModule(code=source(types, t_code, acc), options=("-std=c++17",))
        return mod.get_function("gb_dense")


@functools.cache
def _ctype(dtype: Any) -> str:
    return c_type(dtype)


def source(types: tuple[str, ...], t_code: str, acc: str) -> str:
    """The kernel source for element types (TA, TB, TZ, TD, TS, TC, TM, TDA)."""
    names = ("TA", "TB", "TZ", "TD", "TS", "TC", "TM", "TDA")
    head = "".join(f"typedef {c} {n};\n" for n, c in zip(names, types, strict=True))
    flags = ("A_FULL", "B_FULL", "C_FULL", "MASK", "M_VALUE", "M_COMP", "M_FULL", "REPLACE",
             "W_BITS", "S_DEV")
    head += "".join(f"#define GB_{f} {1 << k}\n" for k, f in enumerate(flags))
    head += f"#define GB_HAS_ACC {1 if acc else 0}\n#define GB_ACC_EXPR {acc or '0'}\n"
    head += f"#define GB_T_CODE {t_code}\n"
    return functor_source() + head + _KERNEL


@functools.cache
def _dummy(dtype: str, device_id: int) -> Any:
    cp = _cp()
    with cp.cuda.Device(device_id):
        return cp.zeros(1, dtype=np.dtype(dtype))


class _Launch:
    """What one (operation, operator, types) needs at each call: the generated source's
    parts (compiled per device on first use) and the scalar's C type."""

    __slots__ = ("types", "code", "acc", "s_type")

    def __init__(self, types: tuple[str, ...], code: str, acc: str, s_type: np.dtype) -> None:
        self.types, self.code, self.acc, self.s_type = types, code, acc, s_type


_LAUNCH: dict[tuple[Any, ...], _Launch | None] = {}
_CP: list[Any] = []  # the cupy module, once imported


def _first_cupy() -> Any:
    _CP.append(_cp())
    return _CP[0]
_NONE = object()


def _prepare(t: DenseT, out: DataType, mask: MaskView | None, accum: BinaryOp | None
             ) -> _Launch | None:
    code = _t_code(t)
    acc = _acc_expr(accum, out, t.dtype)
    s_type = _scalar_type(t)
    if code is None or acc is None or s_type is None:
        return None
    av = t.a[1] if t.a is not None else None
    bv = t.b[1] if t.b is not None else None
    mv = mask.values if mask is not None else None
    types = (
        _ctype(av.dtype) if av is not None else "bool",
        _ctype(bv.dtype) if bv is not None else "bool",
        _ctype(t.dtype.np_type), _ctype(t.domain.np_type) if t.domain is not None else "bool",
        _ctype(s_type), _ctype(out.np_type),
        _ctype(mv.dtype) if mv is not None else "bool", acc[1],
    )
    return _Launch(types, code, acc[0], s_type)


def run(t: DenseT, c: Operand | None, out: DataType, mask: MaskView | None,
        accum: BinaryOp | None, replace: bool, inplace: bool,
        like: Any) -> tuple[Any, Any] | None:
    """The fused kernel's (bits or None, values); None where T or the accumulator has no
    CUDA form."""
    ab, av = t.a if t.a is not None else (None, None)
    bb, bv = t.b if t.b is not None else (None, None)
    cb, cv = c if c is not None else (None, None)
    mb, mv = (mask.bits, mask.values) if mask is not None else (None, None)
    s = t.scalar
    key = (t.kind, t.op, t.domain, t.dtype, out, accum,
           None if av is None else av.dtype, None if bv is None else bv.dtype,
           None if mv is None else mv.dtype,
           s.dtype if isinstance(s, DeviceScalar) else type(s))
    launch = _LAUNCH.get(key, _NONE)
    if launch is _NONE:
        if len(_LAUNCH) > 4096:  # operators made per call (binary.plus[FP64]): bounded
            _LAUNCH.clear()
        launch = _LAUNCH[key] = _prepare(t, out, mask, accum)
    if launch is None:
        return None
    s_host = _scalar_value(t, launch.s_type)  # type: ignore[union-attr]
    if s_host is None:
        return None
    cp = _CP[0] if _CP else _first_cupy()
    dev = like.device.id
    n = t.size
    flags = (A_FULL if ab is None else 0) | (B_FULL if bb is None else 0) | \
        (C_FULL if cb is None else 0)
    if mask is not None:
        flags |= MASK | (M_FULL if mb is None else 0) | (M_VALUE if mv is not None else 0) \
            | (M_COMP if mask.complement else 0) | (REPLACE if replace else 0)
    s_dev = None
    if isinstance(s, DeviceScalar):
        flags |= S_DEV
        s_dev = s.buf
    full = result_full(t, cb is None and c is not None, mask, accum, replace)
    if not full:
        flags |= W_BITS
    k = _kernel(dev, launch.types, launch.code, launch.acc)  # type: ignore[union-attr]
    d = _dummy("|b1", dev)
    with cp.cuda.Device(dev):
        if inplace and c is not None and cv.dtype == out.np_type:
            rv = cv
            rb = None if full else (cb if cb is not None else cp.empty(n, dtype=bool))
        else:
            rv = cp.empty(n, dtype=out.np_type)
            rb = None if full else cp.empty(n, dtype=bool)
        k((_grid(n, dev),), (BLOCK,), (
            np.int64(n), np.int32(flags),
            d if ab is None else ab, d if av is None else av,
            d if bb is None else bb, d if bv is None else bv,
            s_host, d if s_dev is None else s_dev,
            d if cb is None else cb, d if cv is None else cv,
            d if mb is None else mb, d if mv is None else mv,
            d if rb is None else rb, rv))
    return rb, rv


__all__ = ["run", "source"]
