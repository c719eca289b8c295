"""Element-wise vector operations on dense storage (bitmap or full), fused with the
write-back ``C⟨M, replace⟩ = accum(C, T)``.

An element-wise operation on vectors (ewise_add, ewise_mult, apply, select, assigning a
scalar or a vector, copying T) is described by a :class:`DenseT` and computed together with
its write-back in one pass over the positions: on a GPU one generated CUDA kernel
(:mod:`gblas.backend.dense_cuda`) that reads the operands, the output and the mask once and
never waits for the device, on the CPU vectorised NumPy (this module), which is also the
GPU's path for operators that have no CUDA form (user-defined ones). A sparse operand is
read through its bitmap; the result is a bitmap or, where the operands make it certain,
full. The number of entries is not counted here (on a GPU that would need a read).

Operands are ``(bits, values)`` pairs of arrays of the vector's size; ``bits`` is None when
every element is present (full storage). Values where ``bits`` is False are garbage and
never reach a present entry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..dtypes import DataType
from ..semirings.model import BinaryOp, IndexUnaryOp, UnaryOp
from . import keys as E

Operand = tuple[Any, Any]  # (bits or None when full, values)

# what T is: an element-wise function of A (and B, or a scalar s)
KINDS = ("add", "mult", "bind1st", "bind2nd", "unary", "index", "select", "copy", "scalar")


@dataclass(eq=False)
class DenseT:
    """T of an element-wise vector operation, described but not computed: the write-back
    computes it in the same pass (:func:`run`).

    ``kind``: ``add`` (A ∪ B with op where both), ``mult`` (A ∩ B), ``bind1st`` /
    ``bind2nd`` (op(s, a) / op(a, s)), ``unary`` (f(a)), ``index`` (an index-unary f(a, i,
    0, s)), ``select`` (a where the predicate f(a, i, 0, s) holds), ``copy`` (a), ``scalar``
    (s everywhere). ``scalar`` is a Python value, or a :class:`DeviceScalar` (a value that
    a GPU kernel produced and the host has not read).
    """

    size: int
    dtype: DataType  # T's type
    kind: str
    a: Operand | None = None
    b: Operand | None = None
    op: Any = None  # BinaryOp / UnaryOp / IndexUnaryOp
    domain: DataType | None = None  # the operator's input type
    scalar: Any = None
    scalar_dtype: DataType | None = None

    @property
    def full(self) -> bool:
        """Every element of T is present, whatever the values (known without a count)."""
        k = self.kind
        s = self.scalar
        if k == "scalar":
            return not isinstance(s, DeviceScalar) or s.surely_present
        if k == "select" or self.a is None:
            return False
        if isinstance(s, DeviceScalar) and not s.surely_present:  # may be empty: then T is
            return False
        a_full = self.a[0] is None
        if k == "add":
            return a_full or self.b[0] is None  # type: ignore[index]
        if k == "mult":
            return a_full and self.b[0] is None  # type: ignore[index]
        return a_full

    @property
    def xp(self) -> Any:
        if self.a is not None:
            return E.xp_of(self.a[1])
        return np


@dataclass(eq=False)
class DeviceScalar:
    """A scalar left on a GPU by a kernel: a 2-element device array of its type holding
    the value and whether it has one (non-zero: present), so that reading both is one copy
    to the host, the only thing that waits for the device."""

    buf: Any  # [value, present]
    dtype: DataType
    # present for certain, known on the host without a read (a reduction of a full
    # vector, an accumulation with a present operand): a fill with it is full
    surely_present: bool = False

    @property
    def value(self) -> Any:
        """The value as a 1-element device array (a view)."""
        return self.buf[0:1]

    @property
    def present(self) -> Any:
        """Whether there is a value, as a 1-element bool device array."""
        return self.buf[1:2] != 0

    def read(self) -> tuple[Any, bool]:
        """(Python value or None, present): one copy to the host."""
        host = self.buf.get()
        present = bool(host[1] != 0)
        return (host[0].item() if present else None), present


@dataclass(frozen=True)
class MaskView:
    """A vector mask as arrays: ``bits`` (None: the mask vector is full), ``values`` (a
    value mask: the mask vector's values, tested != 0; None for a structural mask)."""

    bits: Any
    values: Any
    complement: bool


# ---------------------------------------------------------------------------- T (NumPy)
def _and(x: Any, y: Any) -> Any:
    if x is None:
        return y
    if y is None:
        return x
    return x & y


def _or(x: Any, y: Any) -> Any:
    if x is None or y is None:
        return None
    return x | y


_IOTA_MAX = 1 << 22  # positions kept for vectors up to this size (32 MB)
_IOTA: list[Any] = [np.empty(0, dtype=np.int64)]
_ZEROS: list[Any] = [np.empty(0, dtype=np.int64)]


def _kept(cache: list[Any], n: int, make: Any) -> Any:
    """The first n elements of the read-only int64 array kept in ``cache`` (made anew by
    ``make(size, dtype=np.int64)``, at least doubled, when shorter than n; n <= _IOTA_MAX)."""
    if cache[0].shape[0] < n:
        a = make(min(max(n, 2 * cache[0].shape[0]), _IOTA_MAX), dtype=np.int64)
        a.flags.writeable = False
        cache[0] = a
    return cache[0][:n]


def _arange(xp: Any, n: int) -> Any:
    """0 .. n-1 as int64, read-only: on the CPU a view of one array kept for every call (a
    fresh ``np.arange`` of 10⁵ ids cost ~70 µs, several times per CC or PageRank call)."""
    if xp is not np or n > _IOTA_MAX:
        return xp.arange(n, dtype=np.int64)
    return _kept(_IOTA, n, np.arange)


def _zeros(xp: Any, n: int) -> Any:
    """n int64 zeros (a vector's column positions), read-only: on the CPU a view of one
    array kept like _arange's (np.broadcast_to cost ~5 µs a call: a select on a small
    vector paid it every time), a broadcast view beyond _IOTA_MAX."""
    if xp is not np:
        return xp.zeros(n, dtype=np.int64)
    if n > _IOTA_MAX:
        return np.broadcast_to(np.int64(0), (n,))
    return _kept(_ZEROS, n, np.zeros)


def _binary(op: BinaryOp, a: Any, b: Any, domain: DataType, out: DataType, n: int,
            xp: Any) -> Any:
    """op(a, b) element-wise (either may be a 0-d array) as an array of ``n`` that owns its
    data (first/second/pair give broadcast views: copied)."""
    i = _arange(xp, n) if op.positional else None
    j = _zeros(xp, n) if op.positional else None
    res = E.binary_values(op, a, b, domain, out, i, j)
    return _owned(res, n, out, xp)


def _owned(res: Any, n: int, out: DataType, xp: Any) -> Any:
    if res.shape != (n,):
        res = xp.broadcast_to(res, (n,))
    if not res.flags.owndata or res.dtype != out.np_type:
        return xp.array(res, dtype=out.np_type, copy=True)
    return res


def compute_t(t: DenseT, xp: Any = None) -> tuple[Any, Any]:
    """(bits or None, values) of T in the array module ``xp`` (default: its operands')."""
    xp = t.xp if xp is None else xp
    n, out = t.size, t.dtype
    k = t.kind
    if k == "scalar":
        if isinstance(t.scalar, DeviceScalar):
            vals = xp.empty(n, dtype=out.np_type)
            vals[...] = t.scalar.value.astype(out.np_type)[0]
            return xp.broadcast_to(t.scalar.present, (n,)).copy(), vals
        if xp is np:  # a read-only broadcast: the write-back owns what it keeps
            return None, np.broadcast_to(np.asarray(t.scalar, dtype=out.np_type), (n,))
        return None, xp.full(n, t.scalar, dtype=out.np_type)
    ab, av = t.a  # type: ignore[misc]
    if k == "copy":
        return ab, av.astype(out.np_type, copy=False)
    if k in ("add", "mult"):
        bb, bv = t.b  # type: ignore[misc]
        both = _binary(t.op, av, bv, t.domain, out, n, xp)  # type: ignore[arg-type]
        if k == "mult":
            return _and(ab, bb), both
        if ab is None and bb is None:
            return None, both
        if ab is None:  # A full: B alone never
            vals = xp.where(bb, both, av.astype(out.np_type, copy=False))
        elif bb is None:
            vals = xp.where(ab, both, bv.astype(out.np_type, copy=False))
        else:
            vals = xp.where(ab & bb, both, xp.where(ab, av.astype(out.np_type, copy=False),
                                                    bv.astype(out.np_type, copy=False)))
        return _or(ab, bb), vals
    s, present = _host_scalar(t, xp)
    if k in ("bind1st", "bind2nd"):
        sv = xp.asarray(s, dtype=t.domain.np_type)  # type: ignore[union-attr]
        x, y = (sv, av) if k == "bind1st" else (av, sv)
        vals = _binary(t.op, x, y, t.domain, out, n, xp)  # type: ignore[arg-type]
        return _present_if(ab, present, n, xp), vals
    if k == "unary":
        op: UnaryOp = t.op
        if op.positional:
            base = _arange(xp, n) if op.positional == "i" else _zeros(xp, n)
            return ab, (base + op.offset).astype(out.np_type, copy=False)
        vals = xp.asarray(op.np_func(av.astype(t.domain.np_type, copy=False)))  # type: ignore[union-attr]
        return ab, _owned(vals, n, out, xp)
    iop: IndexUnaryOp = t.op
    res = xp.asarray(iop.np_func(av, _arange(xp, n), _zeros(xp, n), s))
    if k == "index":
        return _present_if(ab, present, n, xp), _owned(res, n, out, xp)
    keep = res.astype(bool, copy=False)
    if not present:
        keep = xp.zeros(n, dtype=bool)
    return (keep if ab is None else ab & keep), av


def _host_scalar(t: DenseT, xp: Any) -> tuple[Any, bool]:
    """The scalar of T as a host value (a device scalar is read: the path of operators
    that have no CUDA form, which leave the device anyway) and whether it is present."""
    if isinstance(t.scalar, DeviceScalar):
        v, present = t.scalar.read()
        return (v if present else 0), present
    return t.scalar, True


def _present_if(bits: Any, present: bool, n: int, xp: Any) -> Any:
    """A's bits, or nothing present when the bound scalar is empty."""
    return bits if present else xp.zeros(n, dtype=bool)


# -------------------------------------------------------------------- the write-back
def mask_allows(m: MaskView, n: int, xp: Any) -> Any:
    """bool[n]: where the mask lets the output be written (complement applied)."""
    if m.bits is None:
        allowed = xp.ones(n, dtype=bool) if m.values is None else m.values != 0
    else:
        allowed = m.bits if m.values is None else m.bits & (m.values != 0)
    return ~allowed if m.complement else allowed


def writeback(tb: Any, tv: Any, t_dtype: DataType, c: Operand | None, out: DataType,
              mask: MaskView | None, accum: BinaryOp | None, replace: bool,
              xp: Any) -> tuple[Any, Any]:
    """(bits or None, values) of C⟨mask, replace⟩ = accum(C, T) from dense T and C
    (``c`` may be None when neither a mask nor an accumulator reads it)."""
    n = tv.shape[0]
    if accum is not None:
        cb, cv = c  # type: ignore[misc]
        domain = accum.domain(out, t_dtype)
        merged = _binary(accum, cv, tv, domain, out, n, xp)
        if cb is None and tb is None:
            zb, zv = None, merged
        else:
            both = _and(cb, tb)
            tz = tv.astype(out.np_type, copy=False)
            if tb is None:  # T full: where C is absent, T's value
                zv = xp.where(cb, merged, tz)
            elif cb is None:
                zv = xp.where(tb, merged, cv)
            else:
                zv = xp.where(both, merged, xp.where(tb, tz, cv))
            zb = _or(cb, tb)
    else:
        zb, zv = tb, tv.astype(out.np_type, copy=False)
    if mask is None:
        return zb, (zv if zv.flags.writeable else _owned(zv, n, out, xp))
    cb, cv = c  # type: ignore[misc]
    allowed = mask_allows(mask, n, xp)
    zv = xp.where(allowed, zv, cv)
    if zb is None and cb is None and not replace:
        return None, zv
    kept = (xp.ones(n, dtype=bool) if cb is None else cb) if not replace else \
        xp.zeros(n, dtype=bool)
    zb = xp.where(allowed, xp.ones(n, dtype=bool) if zb is None else zb, kept)
    return zb, zv


def result_full(t: DenseT, c_full: bool, mask: MaskView | None, accum: Any,
                replace: bool) -> bool:
    """The result is certainly full: T (or C ∪ T with an accumulator) is full and, under a
    mask, C is full and kept outside it."""
    z_full = t.full or (accum is not None and c_full)
    if mask is None:
        return z_full
    return z_full and c_full and not replace


def run(t: DenseT, c: Operand | None, out: DataType, mask: MaskView | None,
        accum: BinaryOp | None, replace: bool, inplace: bool = False,
        like: Any = None) -> tuple[Any, Any]:
    """(bits or None, values) of the output after ``C⟨mask, replace⟩ = accum(C, T)``: one
    fused CUDA kernel where the operators have a CUDA form, else array operations.

    ``inplace``: C's arrays may be overwritten (nothing else holds them); the result may
    then be those arrays. ``like``: an array of the output's device (T may have no
    operand array: a scalar)."""
    if like is None:
        like = t.a[1] if t.a is not None else (c[1] if c is not None else np.empty(0))
    xp = E.xp_of(like)
    if xp is not np:
        dense_cuda = _dense_cuda()
        res = dense_cuda.run(t, c, out, mask, accum, replace, inplace, like)
        if res is not None:
            return res
        # no CUDA form of T's operator: T by array operations, then the fused write-back
        tb, tv = compute_t(t, xp)
        copy = DenseT(t.size, t.dtype, "copy", a=(tb, tv))
        res = dense_cuda.run(copy, c, out, mask, accum, replace, inplace, like)
        if res is not None:
            return res
        return writeback(tb, tv, t.dtype, c, out, mask, accum, replace, xp)
    with np.errstate(all="ignore"):  # garbage slots of bitmaps may overflow or be NaN
        tb, tv = compute_t(t, xp)
        return writeback(tb, tv, t.dtype, c, out, mask, accum, replace, xp)


def _dense_cuda() -> Any:
    """gblas.backend.dense_cuda, imported on the first GPU operation."""
    if not _CUDA:
        from . import dense_cuda  # noqa: PLC0415

        _CUDA.append(dense_cuda)
    return _CUDA[0]


_CUDA: list[Any] = []


def scalar_dtype_of(value: Any) -> DataType:
    """The GraphBLAS type of a bound scalar (a DeviceScalar carries its own)."""
    if isinstance(value, DeviceScalar):
        return value.dtype
    from ..dtypes import dtype_of_value  # noqa: PLC0415

    return dtype_of_value(value)


__all__ = ["DenseT", "DeviceScalar", "KINDS", "MaskView", "Operand", "compute_t", "mask_allows",
           "result_full", "run", "scalar_dtype_of", "writeback"]
