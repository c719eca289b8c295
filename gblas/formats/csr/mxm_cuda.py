"""CUDA (CuPy) mxm over CSR: masked dot products and a memory-bounded masked saxpy.

Neither forms the unmasked product (docs/mxm.md has the byte counts):

- **dot** (a non-complemented mask, SuiteSparse's dot3): T(i,j) for each entry (i, j) of
  the mask only, intersecting row i of A with row j of Bᵀ. One thread per entry (a sorted
  merge, or galloping through the longer row) unless both rows are longer than
  ``DOT_WARP_MIN``; those entries (hub rows of skewed graphs) go to a second kernel, one
  warp per entry, whose lanes gallop for 32 keys of the shorter row at a time. A per-entry
  (state, value) pair is compacted into CSR with one scan. Memory: O(nnz(M)).
- **saxpy** (a complemented mask, no mask, or the planner's choice): A's entries are cut
  into chunks of at most ``budget`` products (gblas.formats.chunks); a kernel expands a
  chunk's products with the mask as a filter (a bitmap of the chunk's mask rows when it is
  no larger than the products' buffers, else a binary search in the mask row), the kept
  products are sorted by (i, j) (stable: k order within a key, so ``any``/``first`` keep
  the CPU's first product) and folded with the segmented reduction; rows cut across chunks
  are folded in k order (chunks.ChunkMerger). Memory: O(budget) + the output.

Registered for ``device="cuda"``, built-in semirings (the structure-only traits widen to
them); user-defined ones take the generic kernel (gblas/formats/generic.py), which chunks
the same way.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import numpy as np

from ...backend import keys as E
from ...backend.cuda import BLOCK, _b, _cp, _dev_id, _grid, module_kernel
from ...backend.registry import MxmCall, register_kernel
from ...semirings import codegen_numba as cg
from ...semirings.codegen_cuda import c_type
from ...semirings.model import KernelSemiring
from .. import chunks
from .container import CSR

_SOURCE = Path(__file__).with_name("mxm.cu")
# an entry goes to the warp kernel when both of its rows are longer than this
DOT_WARP_MIN = 32
_KEEPS_FIRST = {cg.FIRST, cg.ANY}
_BITWISE = {cg.BOR, cg.BAND, cg.BXOR}
# working bytes per product of a saxpy chunk (keys, values, compaction, argsort, gathers)
_BYTES_PER_PRODUCT = 96


def _kernel(dev: int, expr: str) -> Any:
    return module_kernel(dev, expr, _SOURCE)


def _first_wins(ks: KernelSemiring) -> bool:
    """The monoid keeps its first operand (any, first; bitwise ops on floats): the first
    product in k order is the result, as the CPU's sequential fold gives."""
    aop = int(ks.add_op)
    return bool(ks.is_any or aop in _KEEPS_FIRST or (ks.out_type.is_float and aop in _BITWISE))


def _domain(ks: KernelSemiring) -> np.dtype:
    return np.dtype(np.bool_) if ks.structural else np.dtype(ks.domain.np_type)


@functools.cache
def _dummy(dtype: str, device_id: int) -> Any:
    cp = _cp()
    with cp.cuda.Device(device_id):
        return cp.zeros(1, dtype=np.dtype(dtype))


def _operand(csr: CSR, used: bool, dom: np.dtype, dev: int) -> tuple[Any, int]:
    """(device values cast to the domain, is_iso); a 1-element dummy when not read."""
    cp = _cp()
    if not used:
        return _dummy(dom.str, dev), 1
    if csr.values is None:
        host = np.empty(1, dtype=dom)
        host[0] = np.asarray(csr.iso).astype(dom)
        return cp.asarray(host), 1
    return cp.ascontiguousarray(csr.values.astype(dom, copy=False)), 0


def _params(ks: KernelSemiring) -> Any:
    host = np.empty(2, dtype=ks.out_type.np_type)
    host[0], host[1] = ks.identity, ks.terminal  # element-wise: no float round trip
    return _cp().asarray(host)


def _idx(a: Any) -> Any:
    return _cp().ascontiguousarray(a, dtype=np.int64)


def _empty(nrows: int, ncols: int, ks: KernelSemiring) -> CSR:
    cp = _cp()
    return CSR(nrows, ncols, cp.zeros(nrows + 1, dtype=np.int64), cp.empty(0, dtype=np.int64),
               cp.empty(0, dtype=ks.out_type.np_type), ks.out_type)


def _read(count: Any) -> int:
    return int(count.get()[0])


# =========================================================================== dot
def mxm_dot(call: MxmCall) -> CSR:
    """C⟨M⟩ = A ⊕.⊗ B by dot products at the mask's entries (M: CSR pattern)."""
    cp = _cp()
    A, BT, M, ks = call.a, call.b_t(), call.mask, call.ks  # noqa: N806
    m, p = A.nrows, BT.nrows
    if m == 0 or p == 0 or M.nnz == 0 or A.nnz == 0 or BT.nnz == 0:
        return _empty(m, p, ks)
    dev = _dev_id(A.indptr)
    out = np.dtype(ks.out_type.np_type)
    with cp.cuda.Device(dev):
        dom = _domain(ks)
        ul, ur = bool(ks.uses_left), bool(ks.uses_right)
        avals, a_iso = _operand(A, ul, dom, dev)
        bvals, b_iso = _operand(BT, ur, dom, dev)
        a_ptr, a_idx, bt_ptr, bt_idx = _idx(A.indptr), _idx(A.indices), _idx(BT.indptr), \
            _idx(BT.indices)
        m_ptr, m_idx = _idx(M.indptr), _idx(M.indices)
        params = _params(ks)
        nnz = M.nnz
        state = cp.empty(nnz, dtype=np.int8)
        vals = cp.empty(nnz, dtype=out)
        targs = f"{int(ks.mult_op)}, {int(ks.add_op)}, {c_type(dom)}, {c_type(out)}, " \
                f"{_b(ul)}, {_b(ur)}"
        flags = (np.int32(bool(ks.has_terminal)), np.int32(_first_wins(ks)))
        k1 = _kernel(dev, f"mxm_dot_thread<{targs}>")
        k1((_grid(nnz, dev),), (BLOCK,), (
            a_ptr, a_idx, avals, np.int32(a_iso), bt_ptr, bt_idx, bvals, np.int32(b_iso),
            m_ptr, m_idx, np.int64(m), np.int64(nnz), params, *flags,
            np.int64(DOT_WARP_MIN), state, vals))
        heavy = cp.flatnonzero(state == 2)
        if heavy.shape[0]:
            k2 = _kernel(dev, f"mxm_dot_warp<{targs}>")
            nh = int(heavy.shape[0])
            k2((_grid(nh, dev, per_thread=32),), (BLOCK,), (
                a_ptr, a_idx, avals, np.int32(a_iso), bt_ptr, bt_idx, bvals, np.int32(b_iso),
                m_ptr, m_idx, np.int64(m), heavy, np.int64(nh), params, *flags, state, vals))
        del heavy
        pres = state.view(np.bool_)  # 0 / 1 now
        cs = cp.zeros(nnz + 1, dtype=np.int64)
        cs[1:] = cp.cumsum(pres, dtype=np.int64)
        indptr = cs[m_ptr]
        del cs
        return CSR(m, p, indptr, m_idx[pres], vals[pres], ks.out_type)


# =========================================================================== saxpy
def mxm_saxpy(call: MxmCall) -> CSR:
    """C = A ⊕.⊗ B (masked or not, complemented or not) in chunks of bounded products."""
    cp = _cp()
    A, B, M, ks = call.a, call.b, call.mask, call.ks  # noqa: N806
    m, p = A.nrows, B.ncols
    if m == 0 or p == 0 or A.nnz == 0 or B.nnz == 0 or (M is not None and M.nnz == 0
                                                        and not call.mask_comp):
        return _empty(m, p, ks)
    if M is not None and M.nnz == 0:  # an empty complemented mask allows everything
        M = None  # noqa: N806
    dev = _dev_id(A.indptr)
    out = np.dtype(ks.out_type.np_type)
    with cp.cuda.Device(dev):
        dom = _domain(ks)
        ul, ur = bool(ks.uses_left), bool(ks.uses_right)
        avals, a_iso = _operand(A, ul, dom, dev)
        bvals, b_iso = _operand(B, ur, dom, dev)
        a_ptr, a_idx, b_ptr, b_idx = _idx(A.indptr), _idx(A.indices), _idx(B.indptr), \
            _idx(B.indices)
        m_ptr = _idx(M.indptr) if M is not None else _dummy("<i8", dev)
        m_idx = _idx(M.indices) if M is not None else _dummy("<i8", dev)
        counts = chunks.entry_products(a_ptr, a_idx, b_ptr, None if M is None else m_ptr,
                                       call.mask_comp)
        prefix, plan = chunks.plan(a_ptr, counts, chunks.budget(cp, _BYTES_PER_PRODUCT))
        del counts
        merger = chunks.ChunkMerger(cp, p, lambda k, v: _fold(ks, k, v))
        count = cp.zeros(1, dtype=np.uint64)
        nc = np.int64(p)
        for c in plan:
            small = (c.r1 - c.r0) * p < 2**31 - 1
            tk = np.dtype(np.int32 if small else np.int64)
            mode, bits = 0, _dummy("<u4", dev)
            if M is not None:
                words = ((c.r1 - c.r0) * p + 31) // 32
                mode = 2 if words * 4 <= max(8 * c.nprod, 1 << 26) else 1
                if mode == 2:
                    bits = cp.zeros(words, dtype=np.uint32)
                    nm = int(M.indptr[c.r1]) - int(M.indptr[c.r0])
                    if nm:
                        kb = _kernel(dev, "mxm_mask_bitmap")
                        kb((_grid(nm, dev),), (BLOCK,), (m_ptr, m_idx, np.int64(c.r0),
                                                         np.int64(c.r1), nc, bits))
            keys = cp.empty(c.nprod, dtype=tk)
            vals = cp.empty(c.nprod, dtype=out)
            count.fill(0)
            k = _kernel(dev, f"mxm_saxpy_expand<{int(ks.mult_op)}, {c_type(dom)}, "
                             f"{c_type(out)}, {_b(ul)}, {_b(ur)}, {c_type(tk)}>")
            k((_grid(c.nprod, dev),), (BLOCK,), (
                a_ptr, a_idx, avals, np.int32(a_iso), b_ptr, b_idx, bvals, np.int32(b_iso),
                prefix, np.int64(c.e0), np.int64(c.e1), np.int64(c.r0), np.int64(c.r1),
                np.int64(c.p0), np.int64(c.nprod), nc, m_ptr, m_idx, bits, np.int32(mode),
                np.int32(bool(call.mask_comp)), keys, vals, count))
            del bits
            kept = _read(count)
            if kept == 0:
                merger.skip(c)
                continue
            if kept < c.nprod:  # drop the masked-out products (order kept)
                sel = keys != np.iinfo(tk).max
                keys, vals = keys[sel], vals[sel]
                del sel
            order = cp.argsort(keys, kind="stable")
            keys, vals = keys[order], vals[order]
            del order
            ukeys, uvals = _fold(ks, keys, vals)
            del keys, vals
            merger.add(c, ukeys.astype(np.int64) + np.int64(c.r0) * nc, uvals)
        keys, vals = merger.result(out)
        return _csr_from_keys(m, p, keys, vals, ks)


def _fold(ks: KernelSemiring, keys: Any, vals: Any) -> tuple[Any, Any]:
    starts = E.run_starts(keys)
    return keys[starts], E.segment_reduce(ks.add, vals, starts, ks.out_type)


def _csr_from_keys(m: int, p: int, keys: Any, vals: Any, ks: KernelSemiring) -> CSR:
    cp = _cp()
    nc = np.int64(max(p, 1))
    indptr = cp.zeros(m + 1, dtype=np.int64)
    if keys.shape[0]:
        indptr[1:] = cp.cumsum(cp.bincount(keys // nc, minlength=m))
    return CSR(m, p, indptr, keys % nc, vals.astype(ks.out_type.np_type, copy=False),
               ks.out_type)


# Instantiations compiled by scripts/check_cuda.sh (nvcc -Xptxas -v: errors and spills):
# the shapes the functions above produce for the common semirings.
_DOT = [
    "2, 4, bool, long long, false, false",  # plus_pair[INT64] (triangle counting)
    "2, 3, bool, bool, false, false",  # any_pair
    "7, 4, double, double, true, true",  # plus_times fp64
    "7, 4, float, float, true, true",  # plus_times fp32
    "7, 4, long long, long long, true, true",  # plus_times int64
    "4, 10, double, double, true, true",  # min_plus
    "13, 12, bool, bool, true, true",  # lor_land
    "0, 11, signed char, signed char, true, false",  # max_first int8
    "30, 3, bool, long long, false, false",  # any_secondi
    "7, 7, unsigned char, unsigned char, true, true",  # times_times uint8
]
CHECK_INSTANCES: dict[str, list[str]] = {"mxm.cu": [
    *(f"mxm_dot_thread<{t}>" for t in _DOT),
    *(f"mxm_dot_warp<{t}>" for t in _DOT),
    "mxm_mask_bitmap",
    "mxm_saxpy_expand<0, double, double, true, false, int>",  # plus_first (betweenness)
    "mxm_saxpy_expand<0, double, double, true, false, long long>",
    "mxm_saxpy_expand<2, bool, long long, false, false, int>",  # plus_pair
    "mxm_saxpy_expand<7, float, float, true, true, long long>",
    "mxm_saxpy_expand<26, bool, long long, false, false, int>",  # plus_firsti
    "mxm_saxpy_expand<13, bool, bool, true, true, int>",  # lor_land
    "mxm_saxpy_expand<4, unsigned short, unsigned short, true, true, int>",
]}


# ====================================================================== registrations
register_kernel("mxm", "cuda_csr_masked_dot", device="cuda", format="csr", direction="dot",
                mask="structural|value", traits="builtin", fuses_mask=True)(mxm_dot)
register_kernel("mxm", "cuda_csr_saxpy", device="cuda", format="csr", direction="gustavson",
                traits="builtin", fuses_mask=True)(mxm_saxpy)


__all__ = ["CHECK_INSTANCES", "DOT_WARP_MIN", "mxm_dot", "mxm_saxpy"]
