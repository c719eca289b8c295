"""Generic kernels on CSR written with array primitives (NumPy or CuPy): expand the
products, then fold them per output with the monoid. Any semiring, user-defined ones too;
the end of the dispatch fallback chain. mxm expands bounded chunks of products at a time
(gblas.formats.chunks), so a masked product never forms the unmasked one."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..backend import keys as E
from ..backend.registry import MxmCall, MxvCall, register_kernel
from ..semirings.model import KernelSemiring
from . import chunks
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


def rows_of_entries(indptr: Any, e0: int, e1: int, r0: int, r1: int) -> Any:
    """Row of each entry in [e0, e1), which lies in rows [r0, r1)."""
    xp = E.xp_of(indptr)
    pos = xp.arange(e0, e1, dtype=np.int64)
    return xp.searchsorted(indptr[r0 + 1:r1 + 1], pos, side="right").astype(np.int64) + r0


def _chunk_products(A: CSR, B: CSR, ks: KernelSemiring, c: chunks.Chunk, counts: Any,  # noqa: N803
                    prefix: Any, mask: CSR | None, mkeys: Any, mask_comp: bool,
                    a_vals: Any, b_vals: Any) -> tuple[Any, Any]:
    """One chunk: expand its products in (i, k, j) order, drop those the mask forbids,
    sort by (i, j) (stable: k order within a key) and fold each key's run."""
    xp = A.xp
    nc = np.int64(max(B.ncols, 1))
    local = E.repeat(xp.arange(c.e1 - c.e0, dtype=np.int64), counts[c.e0:c.e1])
    a_pos = local + c.e0
    offs = xp.arange(local.shape[0], dtype=np.int64) - (prefix[a_pos] - c.p0)
    i = rows_of_entries(A.indptr, c.e0, c.e1, c.r0, c.r1)[local]
    k = A.indices[a_pos]
    b_pos = B.indptr[k] + offs
    j = B.indices[b_pos]
    keys = i * nc + j
    if mask is not None:  # the chunk's rows of the mask: a sorted slice of its keys
        rows = mkeys[int(mask.indptr[c.r0]):int(mask.indptr[c.r1])]
        keep = E.match(rows, keys)[0] != mask_comp
        keys, i, k, j, a_pos, b_pos = (x[keep] for x in (keys, i, k, j, a_pos, b_pos))
    if keys.shape[0] == 0:
        return keys, xp.empty(0, dtype=ks.out_type.np_type)
    t = products(ks, None if a_vals is None else a_vals[a_pos],
                 None if b_vals is None else b_vals[b_pos], i, k, j)
    order = xp.argsort(keys, kind="stable")
    return fold(ks, keys[order], t[order])


def mxm_generic(A: CSR, B: CSR, ks: KernelSemiring, mask: CSR | None = None,  # noqa: N803
                mask_comp: bool = False) -> CSR:
    """C = A ⊕.⊗ B (only where ``mask``, a CSR pattern, allows: (j in row i) != mask_comp)
    by expanding the products of bounded chunks of A's entries (Gustavson's order, see
    gblas.formats.chunks): the working arrays hold at most the budget's products."""
    xp = A.xp
    ncols = B.ncols
    counts = chunks.entry_products(A.indptr, A.indices, B.indptr,
                                   None if mask is None else mask.indptr, mask_comp)
    prefix, plan = chunks.plan(A.indptr, counts, chunks.budget(xp))
    mkeys = None if mask is None else csr_keys(mask)
    a_vals = A.full_values() if ks.uses_left else None
    b_vals = B.full_values() if ks.uses_right else None
    merger = chunks.ChunkMerger(xp, ncols, lambda kk, vv: fold(ks, kk, vv))
    for c in plan:
        keys, vals = _chunk_products(A, B, ks, c, counts, prefix, mask, mkeys, mask_comp,
                                     a_vals, b_vals)
        if keys.shape[0]:
            merger.add(c, keys, vals)
        else:
            merger.skip(c)
    keys, vals = merger.result(ks.out_type.np_type)
    return csr_from_keys(A.nrows, ncols, keys, vals, ks.out_type)


@register_kernel("mxm", "generic_expand_reduce", device="*", format="csr", traits="*",
                 fuses_mask=True, priority=-10)
def mxm_generic_kernel(call: MxmCall) -> CSR:
    return mxm_generic(call.a, call.b, call.ks, call.mask, call.mask_comp)
