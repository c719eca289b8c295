"""The one place where GraphBLAS output semantics live: C⟨M, replace⟩ = C ⊙ T.

A kernel computes T (and may declare that it already applied the mask); this module applies
the accumulator, the mask (structural/value, complemented) and replace, as the GraphBLAS C
API §3.5.4 defines them, so a new kernel is correct from its first day.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _config
from ..backend import dense
from ..backend import keys as E
from ..backend.dense import DenseT, MaskView
from ..backend.scatter import fill_at_keys as scatter_fill_at_keys
from ..backend.scatter import merge_fill, replace_in_mask, scatter, scatter_into_full
from ..core.mask import Mask
from ..dtypes import DataType
from ..formats.csr.container import CSR
from ..formats.csr.convert import csr_from_keys, csr_keys
from ..formats.csr.masked import merge_under_mask
from ..formats.vector import BITMAP, FULL, SPARSE, VecData
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


def dense_operand(data: VecData) -> dense.Operand:
    """(bits or None when full, values) of a vector: the dense view element-wise kernels
    read (a sparse vector's bitmap is built once and cached)."""
    if data.kind == FULL:
        return None, data.values
    return data.as_bitmap()


def mask_view(mask: Mask) -> MaskView:
    """A vector mask as the arrays the fused kernels read."""
    data: VecData = mask.parent._data
    if data.kind == FULL:
        return MaskView(None, None if mask.structure else data.values, mask.complement)
    if mask.structure:
        return MaskView(data.present_bits(), None, mask.complement)
    bits, vals = data.as_bitmap()
    return MaskView(bits, vals, mask.complement)


def writeback_fused(C: VecData, T: DenseT, mask: Mask | None, accum: BinaryOp | None,
                    replace: bool) -> VecData:
    """``C⟨mask, replace⟩ = accum(C, T)`` for an element-wise T, computed with its
    write-back in one pass (one CUDA kernel on a GPU). On a GPU C's arrays are updated in
    place when nothing else holds them, and the result's count stays unknown (no read)."""
    on_device = C.on_device
    need_c = mask is not None or accum is not None
    inplace = on_device and C.exclusive and C.kind != SPARSE
    c = dense_operand(C) if need_c or inplace else None
    bits, vals = dense.run(T, c, C.dtype, mask_view(mask) if mask is not None else None,
                           accum, replace, inplace, C.values)
    if bits is None:
        res = VecData.full(C.size, C.dtype, vals)
    else:
        res = VecData.bitmap(C.size, C.dtype, bits, vals)
    res.exclusive = on_device  # the kernel's own arrays (CPU: may be an operand's)
    return res.normalized()


def copy_of(T: VecData) -> DenseT:
    """T (already computed) as the element-wise operand of a fused write-back."""
    return DenseT(T.size, T.dtype, "copy", a=dense_operand(T))


def writeback_vector(C: VecData, T: VecData | DenseT, mask: Mask | None,
                     accum: BinaryOp | None, replace: bool,
                     mask_applied: bool = False) -> VecData:
    """The new data of vector C after ``C(mask, accum, replace) << T``."""
    out = C.dtype
    if isinstance(T, DenseT):
        return writeback_fused(C, T, mask, accum, replace)
    if accum is None and (mask is None or (mask_applied and replace)):
        return T.astype(out).normalized()
    if T.kind != SPARSE or C.on_device:
        # dense T, or a GPU (no sorted merges: they need counts on the host)
        return writeback_fused(C, copy_of(T), mask, accum, replace)
    if accum is not None and (mask is None or not replace) and C.kind != SPARSE:
        # a sparse T into a dense C: T's entries folded in where the mask allows, O(nnz(T))
        # after the copy, no merge of key lists (betweenness' column sums, level by level,
        # into a full vector; FastSV's min under ~done). Outside the mask, and where T has
        # no entry, C keeps its own: exactly accum's write-back without replace.
        idx, tv = _entries_in_mask(T, mask, mask_applied)
        return scattered(C, idx, (None, tv), accum, T.dtype, C.exclusive).normalized()
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


def _entries_in_mask(T: VecData, mask: Mask | None, mask_applied: bool) -> tuple[Any, Any]:
    """(keys, values) of the sparse T where the mask allows a write (all of T without a
    mask, or when the kernel that made T applied it already)."""
    tk, tv = T.as_sparse()
    if mask is not None and not mask_applied:
        keep = mask_allowed(mask, tk)
        tk, tv = tk[keep], tv[keep]
    return tk, tv


def scattered(C: VecData, idx: Any, u: tuple[Any, Any], accum: BinaryOp | None,
              u_dtype: DataType, inplace: bool) -> VecData:
    """C with u scattered in at ``idx`` (folded into C's entries with ``accum``, duplicate
    indices as :func:`gblas.backend.scatter.scatter` says), as dense data that nothing
    else holds: C's own arrays when ``inplace`` (the caller knows nothing else holds them
    and u is not read from them), else copies. A full C under an accumulator stays full on
    the CPU (no presence array to build and count)."""
    out = C.dtype
    if C.kind == FULL and accum is not None and not C.on_device:
        vals = C.values if inplace else C.values.astype(out.np_type, copy=True)
        if scatter_into_full(vals, idx, u, accum, out, u_dtype):  # (else vals untouched)
            res = VecData.full(C.size, out, vals)
            res.exclusive = True
            return res
    if inplace and C.kind == BITMAP:
        tb, tv = C.bits, C.values
    else:
        cb, cv = dense_operand(C)
        tb = C.xp.ones(C.size, dtype=bool) if cb is None else cb.copy()
        tv = cv.astype(out.np_type, copy=True)
    scatter(tb, tv, idx, u, accum, out, u_dtype)
    res = VecData.bitmap(C.size, out, tb, tv)
    res.exclusive = True
    return res


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


def owned_bitmap(C: VecData) -> tuple[Any, Any]:
    """C as (bits, values) arrays the caller may update in place: C's own when C is a bitmap
    nothing else holds (``exclusive``), else new ones."""
    if C.kind == BITMAP and C.exclusive:
        return C.bits, C.values
    if C.kind == SPARSE:
        res = fresh_bitmap(C)
        return res.bits, res.values
    bits, vals = C.as_bitmap()
    return bits.copy(), vals.copy()


def fill_under_mask(C: VecData, mask_bits: Any, value: Any) -> VecData:
    """``C(mask) << value`` (no accum, no replace) with the mask as bool[size]: O(size)
    vectorised, in place when C holds its bitmap alone (BFS: ``levels(q.S) << k``)."""
    bits, vals = owned_bitmap(C)
    nvals = E.fill_masked(bits, vals, mask_bits, value)
    res = VecData.bitmap(C.size, C.dtype, bits, vals, nvals)
    res.exclusive = True
    return res.normalized()


def fill_at_keys(C: VecData, keys: Any, value: Any) -> VecData:
    """``C(mask) << value`` (no accum, no replace) on the CPU with a sparse structural mask
    given by its sorted ``keys``: O(nnz(mask)) in place when C holds its dense arrays alone,
    one merge when C is sparse (BFS: ``levels(q.S) << k``)."""
    if C.kind == SPARSE:
        ck, cv = merge_fill(C.indices, C.values, keys, value)
        return VecData.sparse(C.size, C.dtype, ck, cv).normalized()
    if C.kind == FULL:  # every key is present already: the values only
        vals = C.values if C.exclusive else C.values.copy()
        vals[keys] = value
        res = VecData.full(C.size, C.dtype, vals)
    else:
        bits, vals = owned_bitmap(C)
        added = scatter_fill_at_keys(bits, vals, keys, value)
        res = VecData.bitmap(C.size, C.dtype, bits, vals, C.nvals + added)
    res.exclusive = True
    return res.normalized()


def _writeback_scatter(C: VecData, T: VecData, mask: Mask, mask_applied: bool) -> VecData:
    """Dense C, sparse T, no accum/replace, non-complemented mask: O(nnz(mask)+nnz(T)).

    C's arrays are updated in place when C holds them alone (``exclusive``), else copied.
    """
    out = C.dtype
    bits, vals = owned_bitmap(C)
    tk, tv = _entries_in_mask(T, mask, mask_applied)
    mk = vector_mask_keys(mask)
    # entries the mask allows are replaced by T's (T lies inside the mask)
    if E.xp_of(bits) is np:
        nvals = C.nvals + replace_in_mask(bits, vals, mk, tk, tv)
    else:
        nvals = C.nvals - int(bits[mk].sum()) + int(tk.shape[0])
        bits[mk] = False
        bits[tk] = True
        vals[tk] = tv.astype(out.np_type, copy=False)
    res = VecData.bitmap(C.size, out, bits, vals, nvals)
    res.exclusive = True
    return res.normalized()


def writeback_matrix(C: CSR, T: CSR, mask: Mask | None, accum: BinaryOp | None,
                     replace: bool, mask_applied: bool = False) -> CSR:
    """The new CSR of matrix C after ``C(mask, accum, replace) << T``."""
    out = C.dtype
    if accum is None and (mask is None or (mask_applied and replace)):
        return T.astype(out)
    if accum is None and not mask.complement and C.nnz == 0 and mask_applied:
        return T.astype(out)  # nothing of C to keep: T, already inside the mask
    if accum is None and not replace and not mask.complement and C.xp is np:
        # C⟨M⟩ = T: one merge per row, no global keys (a small T into a big C)
        return merge_under_mask(C, T, mask.parent._csr(), mask.structure, mask_applied)
    ck, cv = csr_keys(C), C.full_values()
    tk, tv = csr_keys(T), T.full_values()
    keys, vals = writeback_entries(ck, cv, tk, tv, mask, accum, replace, mask_applied, out,
                                   C.ncols)
    return csr_from_keys(C.nrows, C.ncols, keys, vals, out)


__all__ = ["writeback_vector", "writeback_matrix", "writeback_entries", "writeback_fused",
           "scattered",
           "mask_allowed", "mask_view", "dense_operand", "copy_of", "vector_mask_bits",
           "vector_mask_keys", "fresh_bitmap", "owned_bitmap", "fill_under_mask", "fill_at_keys"]
