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
from ..semirings.codegen_numba import cast_to, mult_op
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
    pos, offset = -1, 0
    if op.positional:
        pos, offset = (1 if op.positional in ("firsti", "secondi") else 0), int(op.offset)
    _fold_cpu(bits, vals, idx, ubits, ud, uo, full, int(op.opcode), pos, offset, dom)


__all__ = ["replace_in_mask", "scatter"]
