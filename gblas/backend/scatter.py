"""Scatter with duplicates: ``w(accum)[I] << u`` on dense storage (GrB_assign's region
update, SuiteSparse semantics).

For each position p of the index list in order, target ``I[p]`` receives ``u(p)``:

- without an accumulator the last occurrence of a target decides (its entry, or none when
  ``u(p)`` is absent);
- with an accumulator every present ``u(p)`` is folded in turn into the target:
  ``z = accum(z, u(p))`` computed in the accumulator's domain and cast to the output type,
  starting from the target's entry (or from ``u(p)`` when it has none).

This is what LAGraph's FastSV needs for its stochastic hooking, ``f(min)[parents] <<
mngf``: a min over every vertex that shares a parent. The CPU runs one sequential Numba
loop (the order is the semantics); the GPU folds with atomics when the accumulator is a
monoid (order-free) and the types agree, and takes the largest position per target with an
atomic max for the last-wins case (:mod:`gblas.backend.scatter_cuda`). ``bits`` / ``vals``
are updated in place: the caller passes arrays it owns.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from ..dtypes import DataType
from ..semirings.codegen_numba import MAX, MIN, PLUS, TIMES, cast_to, mult_op
from ..semirings.model import BinaryOp
from . import keys as E

_JIT = {"cache": True, "nogil": True, "error_model": "numpy"}


@numba.njit(**_JIT)
def _last_cpu(bits, vals, idx, ub, uv, u_full):  # noqa: ANN001, ANN202
    for p in range(idx.shape[0]):
        i = idx[p]
        present = u_full or ub[p]
        bits[i] = present
        if present:
            vals[i] = uv[p]


@numba.njit(**_JIT)
def _replace_in_mask(bits, vals, mk, tk, tv):  # noqa: ANN001, ANN202
    """Clear the present entries at the mask's positions ``mk``, then write T (``tk``,
    ``tv``, inside the mask) into them; returns how many present entries were cleared."""
    cleared = 0
    for p in range(mk.shape[0]):
        i = mk[p]
        if bits[i]:
            cleared += 1
            bits[i] = False
    for p in range(tk.shape[0]):
        i = tk[p]
        bits[i] = True
        vals[i] = tv[p]
    return cleared


def replace_in_mask(bits: Any, vals: Any, mk: Any, tk: Any, tv: Any) -> int:
    """``C⟨M⟩ = T`` on the CPU arrays of a dense C (updated in place): the entries of C at
    the mask's positions ``mk`` are replaced by T's (``tk`` sorted, inside the mask; ``tv``
    cast to C's type). Returns C's change in entry count. One compiled pass instead of
    five NumPy calls: the write-back of every masked assignment on small frontiers."""
    cleared = _replace_in_mask(bits, vals, np.ascontiguousarray(mk, dtype=np.int64),
                               np.ascontiguousarray(tk, dtype=np.int64),
                               np.ascontiguousarray(tv.astype(vals.dtype, copy=False)))
    return int(tk.shape[0]) - int(cleared)


@numba.njit(**_JIT)
def _fill_at_keys(bits, vals, keys, value):  # noqa: ANN001, ANN202
    """Set ``bits`` and store ``value`` at ``keys`` (in place); returns the bits newly set."""
    added = 0
    for p in range(keys.shape[0]):
        i = keys[p]
        if not bits[i]:
            bits[i] = True
            added += 1
        vals[i] = value
    return added


@numba.njit(**_JIT)
def _merge_fill(ck, cv, keys, value):  # noqa: ANN001, ANN202
    """Sorted unique ``ck`` (values ``cv``) ∪ sorted unique ``keys``, ``value`` at ``keys``
    (over C's value there): one merge pass."""
    out_k = np.empty(ck.shape[0] + keys.shape[0], dtype=np.int64)
    out_v = np.empty(out_k.shape[0], dtype=cv.dtype)
    a = b = c = 0
    while a < ck.shape[0] or b < keys.shape[0]:
        if b == keys.shape[0] or (a < ck.shape[0] and ck[a] < keys[b]):
            out_k[c] = ck[a]
            out_v[c] = cv[a]
            a += 1
        else:
            if a < ck.shape[0] and ck[a] == keys[b]:
                a += 1
            out_k[c] = keys[b]
            out_v[c] = value
            b += 1
        c += 1
    return out_k[:c], out_v[:c]


def fill_at_keys(bits: Any, vals: Any, keys: Any, value: Any) -> int:
    """``C⟨M⟩ = s`` on the CPU arrays of a dense C (in place) with M as its sorted keys:
    O(nnz(M)), one compiled pass. Returns the number of entries added."""
    return int(_fill_at_keys(bits, vals, np.ascontiguousarray(keys, dtype=np.int64),
                             np.asarray(value, dtype=vals.dtype)[()]))


def merge_fill(ck: Any, cv: Any, keys: Any, value: Any) -> tuple[Any, Any]:
    """``C⟨M⟩ = s`` for a sparse C on the CPU: (keys, values) of C with ``value`` at M's
    sorted keys, in one merge pass (O(nnz(C) + nnz(M)))."""
    return _merge_fill(np.ascontiguousarray(ck, dtype=np.int64), np.ascontiguousarray(cv),
                       np.ascontiguousarray(keys, dtype=np.int64),
                       np.asarray(value, dtype=cv.dtype)[()])


@numba.njit(**_JIT)
def _fold_cpu(bits, vals, idx, ub, uv, uo, u_full, op, pos, offset, dom):  # noqa: ANN001, ANN202
    """uv holds u in the accumulator's domain, uo in the output type; ``dom`` a value of
    the domain's type; ``pos`` >= 0: a positional accumulator (0: the value is offset, 1:
    i + offset)."""
    for p in range(idx.shape[0]):
        if not (u_full or ub[p]):
            continue
        i = idx[p]
        if bits[i]:
            if pos >= 0:
                vals[i] = cast_to(offset + (i if pos == 1 else 0), vals[i])
            else:
                vals[i] = mult_op(op, cast_to(vals[i], dom), uv[p], i, 0, 0, vals[i])
        else:
            vals[i] = uo[p]
            bits[i] = True


@numba.njit(inline="always")
def _fold1(op, a, b):  # noqa: ANN001, ANN202
    """a ⊕ b for min/max/plus/times on one type: binop's formulas (NaN: min/max keep a)."""
    if op == MIN:
        return a if (a < b or b != b) else b
    if op == MAX:
        return a if (a > b or b != b) else b
    if op == PLUS:
        return a + b
    return a * b


@numba.njit(**_JIT)
def _fold_arith(bits, vals, idx, ub, uv, u_full, c_full, op):  # noqa: ANN001, ANN202
    """_fold_cpu for min/max/plus/times when output, domain and u share one type: no
    opcode switch or casts per entry (FastSV's ``f(min)[parents] << mngf`` on 115 K
    entries: 270 µs in _fold_cpu, 120 µs here). ``c_full``: every target has an entry
    (``bits`` is not read)."""
    for p in range(idx.shape[0]):
        if u_full or ub[p]:
            i = idx[p]
            if c_full or bits[i]:
                vals[i] = _fold1(op, vals[i], uv[p])
            else:
                vals[i] = uv[p]
                bits[i] = True


# types whose +, * in the wide type cast back equal the type's own (binop computes int32 in
# int64 and wraps, float32 in float64 and rounds: correctly rounded, 53 >= 2*24 + 2)
_ARITH_TYPES = frozenset(np.dtype(t) for t in (np.float64, np.float32, np.int64, np.int32,
                                                np.int16, np.int8, np.uint64, np.uint32,
                                                np.uint16, np.uint8))
_ARITH_OPS = frozenset((MIN, MAX, PLUS, TIMES))


@numba.njit(nogil=True)
def _fold_udf(f, bits, vals, idx, ub, uv, uo, u_full, dom):  # noqa: ANN001, ANN202
    for p in range(idx.shape[0]):
        if not (u_full or ub[p]):
            continue
        i = idx[p]
        if bits[i]:
            vals[i] = cast_to(f(cast_to(vals[i], dom), uv[p]), vals[i])
        else:
            vals[i] = uo[p]
            bits[i] = True


def _fold_arith_applies(op: BinaryOp, out: Any, domain: Any) -> bool:
    return (not op.positional and not op.is_udf and op.opcode in _ARITH_OPS
            and out == domain and out in _ARITH_TYPES)


def scatter_into_full(vals: Any, idx: Any, u: tuple[Any, Any], accum: BinaryOp,
                      out: DataType, u_dtype: DataType) -> bool:
    """``scatter`` into a full output on the CPU (every target has an entry, so with an
    accumulator it stays full: no presence array is built or counted) when the
    accumulator is min/max/plus/times of the output's type; False (nothing done) else."""
    domain = accum.domain(out, u_dtype)
    op = accum.for_domain(domain)
    if E.xp_of(vals) is not np or not _fold_arith_applies(op, vals.dtype,
                                                            np.dtype(domain.np_type)):
        return False
    ub, uv = u
    if idx.shape[0] == 0:
        return True
    full = ub is None
    ubits = np.zeros(1, dtype=np.bool_) if full else np.ascontiguousarray(ub, dtype=np.bool_)
    with np.errstate(all="ignore"):
        ud = np.ascontiguousarray(uv.astype(domain.np_type, copy=False))
    _fold_arith(np.zeros(1, dtype=np.bool_), vals, np.ascontiguousarray(idx, dtype=np.int64),
                ubits, ud, full, True, int(op.opcode))
    return True


def scatter(bits: Any, vals: Any, idx: Any, u: tuple[Any, Any], accum: BinaryOp | None,
            out: DataType, u_dtype: DataType) -> None:
    """Update (bits, vals) (the output's dense arrays, ``out`` typed) in place with u at the
    positions ``idx`` (int64, in range), duplicates as the module says. ``u`` is (bits or
    None when full, values) of length ``len(idx)``."""
    ub, uv = u
    if idx.shape[0] == 0:
        return
    if E.xp_of(vals) is not np:
        from .scatter_cuda import scatter as scatter_gpu  # noqa: PLC0415

        if scatter_gpu(bits, vals, idx, u, accum, out, u_dtype):
            return
        # an order-dependent accumulator on the GPU: the sequential loop on the host
        hb, hv = bits.get(), vals.get()
        scatter(hb, hv, idx.get(), (None if ub is None else ub.get(), uv.get()), accum, out,
                u_dtype)
        bits[...] = E.xp_of(vals).asarray(hb)
        vals[...] = E.xp_of(vals).asarray(hv)
        return
    full = ub is None
    ubits = np.zeros(1, dtype=np.bool_) if full else np.ascontiguousarray(ub, dtype=np.bool_)
    idx = np.ascontiguousarray(idx, dtype=np.int64)
    if accum is None:
        with np.errstate(all="ignore"):
            _last_cpu(bits, vals, idx, ubits, uv.astype(out.np_type, copy=False), full)
        return
    domain = accum.domain(out, u_dtype)
    op = accum.for_domain(domain)
    with np.errstate(all="ignore"):
        ud = np.ascontiguousarray(uv.astype(domain.np_type, copy=False))
        uo = np.ascontiguousarray(uv.astype(out.np_type, copy=False))
    dom = np.zeros(1, dtype=domain.np_type)[0]
    if op.is_udf:
        _fold_udf(op.nb_func, bits, vals, idx, ubits, ud, uo, full, dom)
        return
    if _fold_arith_applies(op, vals.dtype, ud.dtype):
        _fold_arith(bits, vals, idx, ubits, ud, full, False, int(op.opcode))
        return
    pos, offset = -1, 0
    if op.positional:
        pos, offset = (1 if op.positional in ("firsti", "secondi") else 0), int(op.offset)
    _fold_cpu(bits, vals, idx, ubits, ud, uo, full, int(op.opcode), pos, offset, dom)


__all__ = ["replace_in_mask", "scatter", "scatter_into_full"]
