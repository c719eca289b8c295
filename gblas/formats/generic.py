"""Generic kernels on CSR written with array primitives (NumPy or CuPy): expand the
products, then fold them per output with the monoid. Any semiring, user-defined ones too;
the end of the dispatch fallback chain."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..backend import keys as E
from ..backend.registry import MxmCall, MxvCall, register_kernel
from ..semirings.model import KernelSemiring
from .coo.container import COO
from .csr.container import CSR
from .csr.convert import csr_from_keys, csr_keys
from .vector import VecData


def products(ks: KernelSemiring, a: Any, b: Any, i: Any, k: Any, j: Any) -> Any:
    """mult(a, b) for every product; positional multiplies read (i, k, j)."""
    mult = ks.mult
    if mult.positional:
        pos = {"firsti": i, "firstj": k, "secondi": k, "secondj": j}[mult.positional]
        return (pos + mult.offset).astype(ks.out_type.np_type)
    xp = E.xp_of(i)
    n = i.shape[0]
    if a is None:
        a = xp.ones(n, dtype=ks.domain.np_type)
    if b is None:
        b = xp.ones(n, dtype=ks.domain.np_type)
    res = mult.np_func(a.astype(ks.domain.np_type, copy=False),
                       b.astype(ks.domain.np_type, copy=False))
    return xp.asarray(res).astype(ks.out_type.np_type, copy=False)


def fold(ks: KernelSemiring, keys: Any, values: Any) -> tuple[Any, Any]:
    """Fold values that share a (sorted) key with the semiring's monoid."""
    starts = E.run_starts(keys)
    return keys[starts], E.segment_reduce(ks.add, values, starts, ks.out_type)


def _mxv_expand_reduce(call: MxvCall, rows: Any, cols: Any, values: Any) -> VecData:
    """T = M ⊕.⊗ x from M's entries as (rows sorted, cols, values()): expand the products
    whose x(k) is present and whose row the mask allows, fold each row's run."""
    xp = E.xp_of(rows)
    xb, xv = call.x.as_bitmap()
    sel = xb[cols]
    if call.mask_bits is not None:
        allowed = call.mask_bits != call.mask_comp
        sel &= allowed[rows]
    r, c = rows[sel], cols[sel]
    a = values()[sel] if call.ks.uses_left else None
    b = xv[c] if call.ks.uses_right else None
    t = products(call.ks, a, b, r, c, xp.zeros_like(r))
    keys, vals = fold(call.ks, r, t)
    return VecData.sparse(call.nrows, call.ks.out_type, keys, vals)


@register_kernel("mxv", "generic_expand_reduce", device="*", format="csr", traits="*",
                 fuses_mask=True, priority=-10)
def mxv_generic(call: MxvCall) -> VecData:
    csr: CSR = call.rep
    return _mxv_expand_reduce(call, csr.row_ids(), csr.indices, csr.full_values)


@register_kernel("mxv", "coo_expand_reduce", device="*", format="coo", traits="*",
                 fuses_mask=True, priority=-5)
def mxv_coo(call: MxvCall) -> VecData:
    """COO on any device (the GPU's COO kernel; on the CPU the Numba edge kernel comes
    first): edge-parallel over the row-sorted entries, folded by the segmented reduce."""
    coo: COO = call.rep
    return _mxv_expand_reduce(call, coo.rows, coo.cols, coo.full_values)


def mxm_generic(A: CSR, B: CSR, ks: KernelSemiring, allowed: Any = None) -> CSR:  # noqa: N803
    """C = A ⊕.⊗ B by expanding every product (Gustavson's row-by-row order)."""
    xp = A.xp
    counts = (B.indptr[1:] - B.indptr[:-1])[A.indices]
    total = int(counts.sum()) if counts.shape[0] else 0
    ncols = B.ncols
    if total == 0:
        from .csr.convert import empty_like_shape  # noqa: PLC0415

        return empty_like_shape(A.nrows, ncols, ks.out_type, xp)
    a_pos = E.repeat(xp.arange(A.nnz, dtype=np.int64), counts)
    offs = xp.arange(total, dtype=np.int64) - E.repeat(xp.cumsum(counts) - counts, counts)
    b_pos = B.indptr[A.indices[a_pos]] + offs
    i = A.row_ids()[a_pos]
    k = A.indices[a_pos]
    j = B.indices[b_pos]
    keys = i * np.int64(max(ncols, 1)) + j
    if allowed is not None:
        keep = allowed(keys)
        keys, i, k, j, a_pos, b_pos = keys[keep], i[keep], k[keep], j[keep], a_pos[keep], \
            b_pos[keep]
    a = A.full_values()[a_pos] if ks.uses_left else None
    b = B.full_values()[b_pos] if ks.uses_right else None
    t = products(ks, a, b, i, k, j)
    order = xp.argsort(keys, kind="stable")
    keys, vals = fold(ks, keys[order], t[order])
    return csr_from_keys(A.nrows, ncols, keys, vals, ks.out_type)


@register_kernel("mxm", "generic_expand_reduce", device="*", format="csr", traits="*",
                 fuses_mask=True, priority=-10)
def mxm_generic_kernel(call: MxmCall) -> CSR:
    allowed = None
    if call.mask is not None:
        mkeys = csr_keys(call.mask)

        def allowed(keys: Any) -> Any:
            return E.match_sorted(mkeys, keys)[0] != call.mask_comp

    return mxm_generic(call.a, call.b, call.ks, allowed)
