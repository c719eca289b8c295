"""The one place where GraphBLAS output semantics live: C⟨M, replace⟩ = C ⊙ T.

A kernel computes T (and may declare that it already applied the mask); this module applies
the accumulator, the mask (structural/value, complemented) and replace, as the GraphBLAS C
API §3.5.4 defines them, so a new kernel is correct from its first day.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _config
from ..backend import keys as E
from ..core.mask import Mask
from ..dtypes import DataType
from ..formats.csr.container import CSR
from ..formats.csr.convert import csr_from_keys, csr_keys
from ..formats.vector import BITMAP, SPARSE, VecData
from ..semirings.model import BinaryOp


# ---------------------------------------------------------------- mask evaluation
def vector_mask_bits(mask: Mask) -> Any:
    """The mask's raw bits (before complement) as bool[size]."""
    data: VecData = mask.parent._data
    return data.present_bits() if mask.structure else data.truthy_bits()


def vector_mask_keys(mask: Mask) -> Any:
    """Indices where the (non-complemented) mask is true."""
    data: VecData = mask.parent._data
    idx, vals = data.as_sparse()
    return idx if mask.structure else idx[vals != 0]


def mask_allowed(mask: Mask, keys: Any) -> Any:
    """For each key: may the output be written there (complement applied)?"""
    parent = mask.parent
    if parent.ndim == 1:
        data: VecData = parent._data
        if data.kind != SPARSE:
            allowed = vector_mask_bits(mask)[keys]
        else:
            allowed = _present_and_true(data.indices, data.values, keys, mask.structure)
    else:
        mkeys, mvals = parent._keys()
        allowed = _present_and_true(mkeys, mvals, keys, mask.structure)
    return ~allowed if mask.complement else allowed


def _present_and_true(mkeys: Any, mvals: Any, keys: Any, structure: bool) -> Any:
    found, pos = E.match_sorted(mkeys, keys)
    if structure or mkeys.shape[0] == 0:
        return found
    return found & (mvals[pos] != 0)


# ---------------------------------------------------------------- the write-back
def writeback_entries(ck: Any, cv: Any, tk: Any, tv: Any, mask: Mask | None,
                      accum: BinaryOp | None, replace: bool, mask_applied: bool,
                      out: DataType, ncols: int | None) -> tuple[Any, Any]:
    """C⟨M, replace⟩ = accum(C, T) on sorted keys; returns the new (keys, values)."""
    if accum is not None:
        zk, zv = E.union(ck, cv, tk, tv, accum, out, ncols)
        z_masked = False
    else:
        zk, zv = tk, tv.astype(out.np_type, copy=False)
        z_masked = mask_applied
    if mask is None:
        return zk, zv
    if not z_masked:
        keep = mask_allowed(mask, zk)
        zk, zv = zk[keep], zv[keep]
    if replace or ck.shape[0] == 0:
        return zk, zv
    outside = ~mask_allowed(mask, ck)
    return E.merge_disjoint(zk, zv, ck[outside], cv[outside].astype(out.np_type, copy=False))


def writeback_vector(C: VecData, T: VecData, mask: Mask | None, accum: BinaryOp | None,
                     replace: bool, mask_applied: bool = False) -> VecData:
    """The new data of vector C after ``C(mask, accum, replace) << T``."""
    out = C.dtype
    if accum is None and (mask is None or (mask_applied and replace)):
        return T.astype(out).normalized()
    if T.kind != SPARSE:
        return _writeback_dense(C, T, mask, accum, replace, mask_applied)
    if accum is None and not replace and mask is not None and not mask.complement:
        if C.kind != SPARSE:
            return _writeback_scatter(C, T, mask, mask_applied)
        if C.nvals + T.nvals > _config.get("bitmap_density") * C.size:
            # the result will be a bitmap: scatter into a fresh one rather than merge lists
            return _writeback_scatter(fresh_bitmap(C), T, mask, mask_applied)
    ck, cv = C.as_sparse()
    tk, tv = T.as_sparse()
    keys, vals = writeback_entries(ck, cv, tk, tv, mask, accum, replace, mask_applied, out,
                                   None)
    return VecData.sparse(C.size, out, keys, vals).normalized()


def _writeback_dense(C: VecData, T: VecData, mask: Mask | None, accum: BinaryOp | None,
                     replace: bool, mask_applied: bool) -> VecData:
    xp = C.xp
    out = C.dtype
    cb, cv = C.as_bitmap()
    tb, tv = T.as_bitmap()
    if accum is not None:
        zb = cb | tb
        both = cb & tb
        domain = accum.domain(C.dtype, T.dtype)
        idx = xp.arange(C.size, dtype=np.int64)
        merged = E.binary_values(accum, cv, tv, domain, out, idx, xp.zeros_like(idx))
        zv = xp.where(both, merged, xp.where(tb, tv.astype(out.np_type), cv))
        mask_applied = False
    else:
        zb, zv = tb, tv.astype(out.np_type, copy=False)
    if mask is None:
        allowed = None
    else:
        bits = vector_mask_bits(mask)
        allowed = ~bits if mask.complement else bits
    if allowed is None or mask_applied and replace:
        rb, rv = zb, zv
    elif xp is not np:  # one fused CUDA pass
        from ..backend.elementwise_cuda import masked_merge_kernel  # noqa: PLC0415

        zv = zv.astype(out.np_type, copy=False)
        rb, rv = masked_merge_kernel()(allowed, zb, zv, cb, cv.astype(out.np_type, copy=False),
                                       not replace)
    else:
        keep_c = cb & ~allowed if not replace else xp.zeros_like(cb)
        rb = xp.where(allowed, zb, keep_c)
        rv = xp.where(allowed, zv, cv)
    return VecData.bitmap(C.size, out, rb, rv.astype(out.np_type, copy=False)).normalized()


def fresh_bitmap(C: VecData) -> VecData:
    """C as a bitmap in new arrays that nothing else holds (so they may be updated)."""
    xp = C.xp
    bits = xp.zeros(C.size, dtype=bool)
    vals = xp.zeros(C.size, dtype=C.dtype.np_type)
    idx, v = C.as_sparse()
    bits[idx] = True
    vals[idx] = v
    res = VecData.bitmap(C.size, C.dtype, bits, vals, C.nvals)
    res.exclusive = True
    return res


def fill_under_mask(C: VecData, mask_bits: Any, value: Any) -> VecData:
    """``C(mask) << value`` (no accum, no replace) with the mask as bool[size]: O(size)
    vectorised, in place when C holds its bitmap alone (BFS: ``levels(q.S) << k``)."""
    if C.kind == BITMAP and C.exclusive:
        res = C
    elif C.kind == SPARSE:
        res = fresh_bitmap(C)
    else:
        bits, vals = C.as_bitmap()
        res = VecData.bitmap(C.size, C.dtype, bits.copy(), vals.copy())
    nvals = E.fill_masked(res.bits, res.values, mask_bits, value)
    res = VecData.bitmap(C.size, C.dtype, res.bits, res.values, nvals)
    res.exclusive = True
    return res.normalized()


def _writeback_scatter(C: VecData, T: VecData, mask: Mask, mask_applied: bool) -> VecData:
    """Dense C, sparse T, no accum/replace, non-complemented mask: O(nnz(mask)+nnz(T)).

    C's arrays are updated in place when C holds them alone (``exclusive``), else copied.
    """
    out = C.dtype
    cb, cv = C.as_bitmap()
    if C.kind == BITMAP and C.exclusive:
        bits, vals = cb, cv
    else:
        bits, vals = cb.copy(), cv.copy()
    tk, tv = T.as_sparse()
    if not mask_applied:
        keep = mask_allowed(mask, tk)
        tk, tv = tk[keep], tv[keep]
    mk = vector_mask_keys(mask)
    nvals = C.nvals - int(bits[mk].sum())
    bits[mk] = False  # entries the mask allows are replaced by T's (T lies inside the mask)
    bits[tk] = True
    vals[tk] = tv.astype(out.np_type, copy=False)
    res = VecData.bitmap(C.size, out, bits, vals, nvals + int(tk.shape[0]))
    res.exclusive = True
    return res.normalized()


def writeback_matrix(C: CSR, T: CSR, mask: Mask | None, accum: BinaryOp | None,
                     replace: bool, mask_applied: bool = False) -> CSR:
    """The new CSR of matrix C after ``C(mask, accum, replace) << T``."""
    out = C.dtype
    if accum is None and (mask is None or (mask_applied and replace)):
        return T.astype(out)
    ck, cv = csr_keys(C), C.full_values()
    tk, tv = csr_keys(T), T.full_values()
    keys, vals = writeback_entries(ck, cv, tk, tv, mask, accum, replace, mask_applied, out,
                                   C.ncols)
    return csr_from_keys(C.nrows, C.ncols, keys, vals, out)


__all__ = ["writeback_vector", "writeback_matrix", "writeback_entries", "mask_allowed",
           "vector_mask_bits", "vector_mask_keys", "fresh_bitmap", "fill_under_mask"]
