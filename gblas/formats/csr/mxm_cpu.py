"""CPU (Numba) sparse-matrix products over CSR: C = A ⊕.⊗ B, optionally masked.

Techniques:

- **Gustavson's row-wise SpGEMM** (Gustavson, ACM TOMS 1978): two passes (symbolic
  count, numeric fill), per-worker bitmaps of the columns reached, optional
  (complemented) mask pattern.
- **masked dot products** only at the mask's entries (SuiteSparse ``dot3``, Azad et al.
  triangle counting): per entry the cheapest of a sorted merge of row i of A and row j of
  Bᵀ, a galloping search when one row is much shorter, or probing row j against a bitmap
  of row i (marked once per row); early exit on terminal. Rows of Bᵀ are prefetched a few
  mask entries ahead; plus_pair counts the intersection without a branch per candidate.

The kernels are written over ``_MUL``/``_ADD`` like those of ``cpu.py`` (built-in
operators as opcodes, user operators bound into clones by ``SemiringKernel``).
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
from llvmlite import ir
from numba import prange, types
from numba.core import cgutils
from numba.extending import intrinsic

from ...backend.threads import chunksize, num_threads
from ...semirings import codegen_numba as cg
from ...semirings.codegen_numba import add_op, cast_to, mult_op
from ...semirings.model import KernelSemiring
from .container import CSR
from .cpu import (
    _JIT_OPTS,
    SemiringKernel,
    _idx,
    balanced_bounds,
    kernel_opcodes,
    operand_values,
    sr_args,
)
from .rows_cpu import first_ge

# User-defined operators replace these two names in a clone of the kernel (SemiringKernel).
_MUL = mult_op
_ADD = add_op


# ====================================================================== mxm: Gustavson
@numba.njit(cache=True, nogil=True)
def _sort_range(a, lo, hi):  # noqa: ANN001, ANN202
    """Sort a[lo:hi] in place (Shell sort, gaps 3h+1: small code that compiles fast)."""
    h = 1
    while h < (hi - lo) // 3:
        h = 3 * h + 1
    while h >= 1:
        for p in range(lo + h, hi):
            v = a[p]
            q = p
            while q >= lo + h and a[q - h] > v:
                a[q] = a[q - h]
                q -= h
            a[q] = v
        h //= 3


@numba.njit(cache=True, nogil=True)
def _probe_mask(a_ptr, a_idx, b_ptr, m_ptr, i):  # noqa: ANN001, ANN202
    """Whether row i of a Gustavson product should search its mask row for each candidate
    column instead of scattering the whole row: the mask row is longer than 4x the row's
    products (betweenness' complemented mask ¬Σ grows to every reached vertex while the
    frontier stays small: on a road or mesh graph of hundreds of levels, scattering Σ each
    level cost O(n) per level and source)."""
    mlen = m_ptr[i + 1] - m_ptr[i]
    if mlen < 64:
        return False
    flops = 0
    for pa in range(a_ptr[i], a_ptr[i + 1]):
        k = a_idx[pa]
        flops += b_ptr[k + 1] - b_ptr[k]
        if 4 * flops >= mlen:
            return False
    return True


@numba.njit(cache=True, nogil=True, inline="always")
def _bit(bits, j):  # noqa: ANN001, ANN202
    return (bits[j >> 6] >> np.uint64(j & 63)) & np.uint64(1)


@numba.njit(cache=True, nogil=True, inline="always")
def _set_bit(bits, j):  # noqa: ANN001, ANN202
    bits[j >> 6] |= np.uint64(1) << np.uint64(j & 63)


@numba.njit(cache=True, nogil=True, inline="always")
def _in_mask(m_idx, m_ptr, mbits, probe, i, j):  # noqa: ANN001, ANN202
    """Whether column j is in row i of the mask pattern (its bits set, or searched)."""
    if not probe:
        return _bit(mbits, j) != 0
    p = _lower_bound(m_idx, m_ptr[i], m_ptr[i + 1], j)
    return p < m_ptr[i + 1] and m_idx[p] == j


@numba.njit(cache=True, nogil=True)
def _mask_row_bits(m_ptr, m_idx, mbits, i, on):  # noqa: ANN001, ANN202
    """Set (or clear, word by word) the bits of mask row i."""
    for pm in range(m_ptr[i], m_ptr[i + 1]):
        if on:
            _set_bit(mbits, m_idx[pm])
        else:
            mbits[m_idx[pm] >> 6] = 0


# The Gustavson passes mark a row's columns (and its mask row) in bitmaps of ncols/8 bytes
# a worker, cleared after each row through the columns it set: they stay in L1/L2 where
# int64 marker arrays (8 bytes a column) did not (BC at urand:16: 65 536 columns).
@numba.njit(cache=True, nogil=True)
def _gus_count_rows(t, nthr, a_ptr, a_idx, b_ptr, b_idx, ncols, m_ptr, m_idx, use_mask,  # noqa: ANN001, ANN202
                    mcomp, counts):
    nw = (ncols + 63) // 64
    mark = _bitmap(nw)
    mbits = _bitmap(nw if use_mask else 1)
    touched = np.empty(ncols, dtype=np.int64)
    for i in range(t, a_ptr.shape[0] - 1, nthr):
        c = 0
        probe = use_mask and _probe_mask(a_ptr, a_idx, b_ptr, m_ptr, i)
        if use_mask and not probe:
            _mask_row_bits(m_ptr, m_idx, mbits, i, True)
        if not (use_mask and not mcomp and m_ptr[i] == m_ptr[i + 1]):
            for pa in range(a_ptr[i], a_ptr[i + 1]):
                k = a_idx[pa]
                for pb in range(b_ptr[k], b_ptr[k + 1]):
                    j = b_idx[pb]
                    if _bit(mark, j):
                        continue
                    if use_mask and _in_mask(m_idx, m_ptr, mbits, probe, i, j) == mcomp:
                        continue
                    _set_bit(mark, j)
                    touched[c] = j
                    c += 1
        counts[i] = c
        for q in range(c):
            mark[touched[q] >> 6] = 0
        if use_mask and not probe:
            _mask_row_bits(m_ptr, m_idx, mbits, i, False)


@numba.njit(cache=True, parallel=True, nogil=True)
def _gus_count(a_ptr, a_idx, b_ptr, b_idx, ncols, m_ptr, m_idx, use_mask, mcomp, nthr,  # noqa: ANN001, ANN202
               counts):
    """Symbolic pass: entries of each row of C (rows interleaved over ``nthr`` workers)."""
    for t in prange(nthr):
        _gus_count_rows(np.int64(t), nthr, a_ptr, a_idx, b_ptr, b_idx, ncols, m_ptr, m_idx,
                        use_mask, mcomp, counts)


def _gus_fill_rows_impl(t, nthr, a_ptr, a_idx, avals, a_iso, b_ptr, b_idx, bvals, b_iso,  # noqa: ANN001, ANN202
                        ncols, m_ptr, m_idx, use_mask, mcomp, mop, aop, ident, term, has_term,
                        is_any, c_ptr, c_idx, c_vals):
    nw = (ncols + 63) // 64
    mark = _bitmap(nw)
    mbits = _bitmap(nw if use_mask else 1)
    acc = np.empty(ncols, dtype=c_vals.dtype)
    for i in range(t, a_ptr.shape[0] - 1, nthr):
        start = c_ptr[i]
        end = c_ptr[i + 1]
        if end == start:
            continue
        probe = use_mask and _probe_mask(a_ptr, a_idx, b_ptr, m_ptr, i)
        if use_mask and not probe:
            _mask_row_bits(m_ptr, m_idx, mbits, i, True)
        emit_mask_order = use_mask and not mcomp and not probe
        # a row reaching ncols/16 columns or more is emitted by one scan of the marks
        # (O(ncols / 64) words) rather than sorted (O(r log r)): the 8-64 wide frontier
        # rows of betweenness' forward sweep hold thousands to millions of columns
        scan = not emit_mask_order and (end - start) * 16 >= ncols
        emit_now = not emit_mask_order and not scan
        nz = start
        for pa in range(a_ptr[i], a_ptr[i + 1]):
            k = a_idx[pa]
            a = avals[0] if a_iso else avals[pa]
            for pb in range(b_ptr[k], b_ptr[k + 1]):
                j = b_idx[pb]
                if use_mask and _in_mask(m_idx, m_ptr, mbits, probe, i, j) == mcomp:
                    continue
                seen = _bit(mark, j) != 0
                if seen and (is_any or (has_term and acc[j] == term)):
                    continue
                v = _MUL(mop, a, bvals[0] if b_iso else bvals[pb], i, k, j, ident)
                if seen:
                    acc[j] = _ADD(aop, acc[j], v)
                else:
                    acc[j] = v
                    _set_bit(mark, j)
                    if emit_now:
                        c_idx[nz] = j
                        nz += 1
        if emit_mask_order:  # the mask row is sorted: emit its reached columns in order
            for pm in range(m_ptr[i], m_ptr[i + 1]):
                if _bit(mark, m_idx[pm]):
                    c_idx[nz] = m_idx[pm]
                    nz += 1
        elif scan:
            for w in range(nw):
                word = mark[w]
                if word:
                    for b in range(64):
                        if (word >> np.uint64(b)) & np.uint64(1):
                            c_idx[nz] = w * 64 + b
                            nz += 1
        else:
            _sort_range(c_idx, start, end)
        for q in range(start, end):  # every marked column was emitted: clear by them
            mark[c_idx[q] >> 6] = 0
        if use_mask and not probe:
            _mask_row_bits(m_ptr, m_idx, mbits, i, False)
        for q in range(start, end):
            c_vals[q] = acc[c_idx[q]]


_gus_fill_rows = numba.njit(cache=True, **_JIT_OPTS)(_gus_fill_rows_impl)


def _gus_fill_impl(a_ptr, a_idx, avals, a_iso, b_ptr, b_idx, bvals, b_iso, ncols, m_ptr,  # noqa: ANN001, ANN202
                   m_idx, use_mask, mcomp, mop, aop, ident, term, has_term, is_any, nthr,
                   c_ptr, c_idx, c_vals):
    """Numeric pass: rows interleaved over ``nthr`` workers, each with its accumulator."""
    for t in prange(nthr):
        _gus_fill_rows(np.int64(t), nthr, a_ptr, a_idx, avals, a_iso, b_ptr, b_idx, bvals,
                       b_iso, ncols, m_ptr, m_idx, use_mask, mcomp, mop, aop, ident, term,
                       has_term, is_any, c_ptr, c_idx, c_vals)


_gus_fill = SemiringKernel(_gus_fill_impl, parallel=True, bodies=("_gus_fill_rows",))


def _empty_csr(nrows: int, ncols: int, ks: KernelSemiring) -> CSR:
    return CSR(nrows, ncols, np.zeros(nrows + 1, dtype=np.int64), np.empty(0, dtype=np.int64),
               np.empty(0, dtype=ks.out_type.np_type), ks.out_type)


def mxm_gustavson(A: CSR, B: CSR, mask_bits_csr: CSR | None, mask_comp: bool,
                  ks: KernelSemiring) -> CSR:
    """C = A ⊕.⊗ B row by row (Gustavson), optionally restricted by a mask pattern:
    allowed(i, j) = (j in row i of the mask) != mask_comp. Canonical CSR of out_type."""
    m, p = A.nrows, B.ncols
    if m == 0 or p == 0 or A.nnz == 0 or B.nnz == 0:
        return _empty_csr(m, p, ks)
    # one dense accumulator (3 arrays of ncols) per worker: cap the workers' total at 2**26
    # columns (1.5 GiB); very wide products run on fewer threads
    nthr = max(1, min(num_threads(), m, (1 << 26) // max(p, 1)))
    use_mask = mask_bits_csr is not None
    if use_mask:
        m_ptr, m_idx = _idx(mask_bits_csr.indptr), _idx(mask_bits_csr.indices)
    else:
        m_ptr, m_idx = np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64)
    a_ptr, a_idx, b_ptr, b_idx = _idx(A.indptr), _idx(A.indices), _idx(B.indptr), _idx(B.indices)
    counts = np.empty(m, dtype=np.int64)
    _gus_count(a_ptr, a_idx, b_ptr, b_idx, p, m_ptr, m_idx, use_mask, bool(mask_comp), nthr,
               counts)
    c_ptr = np.zeros(m + 1, dtype=np.int64)
    np.cumsum(counts, out=c_ptr[1:])
    c_idx = np.empty(int(c_ptr[-1]), dtype=np.int64)
    c_vals = np.empty(int(c_ptr[-1]), dtype=ks.out_type.np_type)
    if c_idx.shape[0]:
        _gus_fill.for_semiring(ks)(
            a_ptr, a_idx, *operand_values(A.values, A.iso, ks.uses_left, ks), b_ptr, b_idx,
            *operand_values(B.values, B.iso, ks.uses_right, ks), p, m_ptr, m_idx, use_mask,
            bool(mask_comp), *sr_args(ks), nthr, c_ptr, c_idx, c_vals)
    return CSR(m, p, c_ptr, c_idx, c_vals, ks.out_type)


# ====================================================================== mxm: masked dot
@numba.njit(cache=True, nogil=True)
def _lower_bound(arr, lo, hi, x):  # noqa: ANN001, ANN202
    """First position in arr[lo:hi] (sorted) whose value is >= x (galloping search)."""
    step = 1
    while lo + step < hi and arr[lo + step] < x:
        lo += step
        step *= 2
    return first_ge(arr, lo, min(hi, lo + step + 1), x)


@numba.njit(cache=True, nogil=True)
def _next_match(ai, pa, ea, bi, pb, eb, mode):  # noqa: ANN001, ANN202
    """Positions of the next common index of ai[pa:ea] and bi[pb:eb], or (ea, eb).

    mode 0: linear merge; 1: ai is short, search in bi; 2: bi is short, search in ai.
    """
    while pa < ea and pb < eb:
        ka = ai[pa]
        kb = bi[pb]
        if ka == kb:
            return pa, pb
        if ka < kb:
            pa = _lower_bound(ai, pa + 1, ea, kb) if mode == 2 else pa + 1
        else:
            pb = _lower_bound(bi, pb + 1, eb, ka) if mode == 1 else pb + 1
    return ea, eb


@numba.njit(cache=True, nogil=True)
def _bitmap(nwords):  # noqa: ANN001, ANN202
    """A zeroed bitmap (allocated in a body, not the parfor: one per block of rows)."""
    return np.zeros(nwords, dtype=np.uint64)


@intrinsic
def _prefetch(typingctx, arr, idx):  # noqa: ANN001, ANN202, ARG001
    """Start loading the cache line of ``arr[idx]`` (``llvm.prefetch``: read, keep in all
    levels, data); a hint that never faults, so ``idx`` needs no bounds check."""
    def codegen(context, builder, signature, args):  # noqa: ANN001, ANN202, ARG001
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fn = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]),
            "llvm.prefetch.p0")
        ptr = builder.bitcast(builder.gep(ary.data, [args[1]]), i8p)
        builder.call(fn, [ptr, ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return types.void(arr, idx), codegen


# Mask entries ahead whose row of Bᵀ is prefetched (its indptr twice as far ahead). The
# rows j of Bᵀ that the mask names are scattered (triangle counting: L's rows in random
# order), so the dot products wait on memory, not on compares; the loop over one entry is
# too short for the core to run far enough ahead by itself. Triangle counting's product on
# urand:18 (L: 4.2M entries, 17 MB of int32 indices), 1 thread: 490-820 ms without, 200-230
# ms at 4 or 8 ahead, 320 ms at 16. urand:16's L (4 MB) fits the 32 MB L3 of a quiet
# machine (no change there) but not a shared one under load (1 thread: 99 -> 44 ms).
# Below _PREFETCH_BYTES of Bᵀ's indices (an L2) the rows stay cached and the prefetches
# only cost (delaunay_n16, 0.8 MB: 5.1 -> 4.0 ms without them).
_AHEAD = 8
_PREFETCH_BYTES = 1 << 20


@numba.njit(cache=True, nogil=True, inline="always")
def _prefetch_ahead(m_idx, pm, bt_ptr, bt_idx, bvals, b_iso):  # noqa: ANN001, ANN202
    """Prefetch what mask entry pm + _AHEAD reads of Bᵀ (first and last index of row j,
    its first value) and the indptr of entry pm + 2·_AHEAD."""
    nm = m_idx.shape[0]
    if pm + 2 * _AHEAD < nm:
        _prefetch(bt_ptr, m_idx[pm + 2 * _AHEAD])
    if pm + _AHEAD < nm:
        j = m_idx[pm + _AHEAD]
        s = bt_ptr[j]
        e = bt_ptr[j + 1]
        if s < e:
            _prefetch(bt_idx, s)
            _prefetch(bt_idx, e - 1)
            if not b_iso:
                _prefetch(bvals, s)


@numba.njit(cache=True, nogil=True)
def _count_rows(r0, r1, a_ptr, a_idx, bt_ptr, bt_idx, m_ptr, m_idx, nwords, pf, like,  # noqa: ANN001, ANN202
                out_pres, out_vals, row_nz):
    """Rows [r0, r1) of C⟨M⟩ = A +.pair Bᵀ: each entry is the size of the intersection of
    row i of A and row j of Bᵀ (cast to the type of ``like``), present when not empty.
    The products are all one and plus folds them into that count, so the intersection is
    counted without a branch per candidate: probing row j against a bitmap of row i
    adds the bit, a merge adds the comparison; a row i over 32x shorter than row j is
    searched for in it instead (galloping)."""
    one = np.uint64(1)
    bits = _bitmap(nwords if nwords > 0 else 1)
    dummy = np.zeros(1, dtype=np.bool_)
    # unsigned positions in the loops: Numba tests a signed index for wrap-around at every
    # read (backend/spmv.py); the galloping path keeps signed ones (_next_match)
    for i in range(np.uint64(r0), np.uint64(r1)):
        ms = np.uint64(m_ptr[i])
        me = np.uint64(m_ptr[i + one])
        pa0 = np.uint64(a_ptr[i])
        ea = np.uint64(a_ptr[i + one])
        la = ea - pa0
        marked = False
        nz = 0
        for pm in range(ms, me):
            if pf:
                _prefetch_ahead(m_idx, np.int64(pm), bt_ptr, bt_idx, dummy, True)
            j = np.uint64(m_idx[pm])
            pb = np.uint64(bt_ptr[j])
            eb = np.uint64(bt_ptr[j + one])
            lb = eb - pb
            c = 0
            if la == 0 or lb == 0:
                pass
            elif la * np.uint64(32) < lb or (nwords == 0 and lb * np.uint64(32) < la):
                mode = 1 if la < lb else 2
                spa = np.int64(pa0)
                spb = np.int64(pb)
                sea = np.int64(ea)
                seb = np.int64(eb)
                while True:
                    spa, spb = _next_match(a_idx, spa, sea, bt_idx, spb, seb, mode)
                    if spa >= sea:
                        break
                    c += 1
                    spa += 1
                    spb += 1
            elif nwords > 0:
                if not marked:
                    for p in range(pa0, ea):
                        k = np.uint64(a_idx[p])
                        bits[k >> np.uint64(6)] |= one << (k & np.uint64(63))
                    marked = True
                for q in range(pb, eb):
                    k = np.uint64(bt_idx[q])
                    c += np.int64((bits[k >> np.uint64(6)] >> (k & np.uint64(63))) & one)
            else:
                pa = pa0
                while pa < ea and pb < eb:
                    ka = a_idx[pa]
                    kb = bt_idx[pb]
                    c += ka == kb
                    pa += np.uint64(ka <= kb)
                    pb += np.uint64(kb <= ka)
            out_pres[pm] = c != 0
            out_vals[pm] = cast_to(c, like)
            nz += c != 0
        row_nz[i] = nz
        if marked:
            for p in range(pa0, ea):
                bits[np.uint64(a_idx[p]) >> np.uint64(6)] = 0


@numba.njit(cache=True, parallel=True, nogil=True)
def _count(bounds, a_ptr, a_idx, bt_ptr, bt_idx, m_ptr, m_idx, nwords, pf, like, out_pres,  # noqa: ANN001, ANN202
           out_vals, row_nz):
    for b in prange(bounds.shape[0] - 1):
        _count_rows(bounds[b], bounds[b + 1], a_ptr, a_idx, bt_ptr, bt_idx, m_ptr, m_idx,
                    nwords, pf, like, out_pres, out_vals, row_nz)


def _dot_rows_impl(r0, r1, a_ptr, a_idx, avals, a_iso, bt_ptr, bt_idx, bvals, b_iso,  # noqa: ANN001, ANN202
                   m_ptr, m_idx, nwords, pf, mop, aop, ident, term, has_term, is_any, out_pres,
                   out_vals, row_nz):
    """Rows [r0, r1) of the masked dot product. Per mask entry (i, j) the cheapest of: a
    sorted merge (la + lb steps), galloping in the longer row (min · log max), or probing
    row j of Bᵀ against a bitmap of row i's columns (lb bit tests; the bitmap is marked once
    per row i, on first use, and cleared after). All three meet the common k in increasing
    order, so the fold order (and the result) is the same."""
    one = np.uint64(1)
    bits = _bitmap(nwords if nwords > 0 else 1)
    for i in range(r0, r1):
        ms = m_ptr[i]
        me = m_ptr[i + 1]
        pa0 = a_ptr[i]
        ea = a_ptr[i + 1]
        la = ea - pa0
        row_nz[i] = 0
        if ms == me or la == 0:
            for pm in range(ms, me):
                out_pres[pm] = False
                out_vals[pm] = ident
            continue
        marked = False
        for pm in range(ms, me):
            if pf:
                _prefetch_ahead(m_idx, pm, bt_ptr, bt_idx, bvals, b_iso)
            j = m_idx[pm]
            pb = bt_ptr[j]
            eb = bt_ptr[j + 1]
            lb = eb - pb
            lo = min(la, lb)
            hi = max(la, lb)
            mode = 1 if la * 32 < lb else (2 if lb * 32 < la else 0)
            cost = la + lb if mode == 0 else lo * (np.log2(hi + 1.0) + 1.0)
            found = False
            acc = ident
            if nwords > 0 and lb < cost:
                if not marked:
                    for p in range(pa0, ea):
                        k = a_idx[p]
                        bits[k >> 6] |= one << np.uint64(k & 63)
                    marked = True
                pa = pa0
                for q in range(pb, eb):
                    k = bt_idx[q]
                    if (bits[k >> 6] >> np.uint64(k & 63)) & one:
                        if not a_iso:  # the position of k in row i, for A's value
                            pa = _lower_bound(a_idx, pa, ea, k)
                        t = _MUL(mop, avals[0] if a_iso else avals[pa],
                                 bvals[0] if b_iso else bvals[q], i, k, j, ident)
                        acc = _ADD(aop, acc, t) if found else t
                        found = True
                        if is_any or (has_term and acc == term):
                            break
            else:
                pa = pa0
                while True:
                    pa, pb = _next_match(a_idx, pa, ea, bt_idx, pb, eb, mode)
                    if pa >= ea:
                        break
                    t = _MUL(mop, avals[0] if a_iso else avals[pa],
                             bvals[0] if b_iso else bvals[pb], i, a_idx[pa], j, ident)
                    acc = _ADD(aop, acc, t) if found else t
                    found = True
                    if is_any or (has_term and acc == term):
                        break
                    pa += 1
                    pb += 1
            out_pres[pm] = found
            out_vals[pm] = acc
            row_nz[i] += found
        if marked:
            for p in range(pa0, ea):
                bits[a_idx[p] >> 6] = 0


_dot_rows = numba.njit(cache=True, **_JIT_OPTS)(_dot_rows_impl)


def _dot_impl(bounds, a_ptr, a_idx, avals, a_iso, bt_ptr, bt_idx, bvals, b_iso, m_ptr,  # noqa: ANN001, ANN202
              m_idx, nwords, pf, mop, aop, ident, term, has_term, is_any, out_pres, out_vals,
              row_nz):
    for b in prange(bounds.shape[0] - 1):
        _dot_rows(bounds[b], bounds[b + 1], a_ptr, a_idx, avals, a_iso, bt_ptr, bt_idx, bvals,
                  b_iso, m_ptr, m_idx, nwords, pf, mop, aop, ident, term, has_term, is_any,
                  out_pres, out_vals, row_nz)


_dot = SemiringKernel(_dot_impl, parallel=True, bodies=("_dot_rows",))
# the bitmap of a row's columns is used when the inner dimension has at most this many
# words (8 MiB a block of rows); wider products merge or gallop only
_DOT_BITMAP_WORDS = 1 << 20


@numba.njit(cache=True, parallel=True, nogil=True)
def _compact(bounds, m_ptr, m_idx, pres, vals, c_ptr):  # noqa: ANN001, ANN202
    """The present entries of a result laid out like the mask, at c_ptr (the running sum
    of the rows' present entries, which the dot kernels count): (indices, values)."""
    c_idx = np.empty(c_ptr[-1], dtype=np.int64)
    c_vals = np.empty(c_ptr[-1], dtype=vals.dtype)
    one = np.uint64(1)
    for b in prange(bounds.shape[0] - 1):
        for i in range(np.uint64(bounds[b]), np.uint64(bounds[b + 1])):
            q = np.uint64(c_ptr[i])
            for p in range(np.uint64(m_ptr[i]), np.uint64(m_ptr[i + one])):
                if pres[p]:
                    c_idx[q] = m_idx[p]
                    c_vals[q] = vals[p]
                    q += one
    return c_idx, c_vals


def _counts_intersection(ks: KernelSemiring) -> bool:
    """Whether every product is one and the monoid adds them: the dot product is the size
    of the intersection (plus_pair, triangle counting's semiring). Not float32/float16,
    whose running sum stops growing at 2**24 where the cast count would not."""
    mop, aop = kernel_opcodes(ks)
    out = ks.out_type.np_type
    return ((mop == cg.PAIR or mop == cg.FLIP + cg.PAIR) and aop == cg.PLUS
            and (out.kind in "biu" or out == np.float64))


def _index_arrays(mats: tuple[CSR, ...]) -> list[Any]:
    """The column indices of each matrix, all int32 when every one fits (half the bytes
    of the rows the dot products read at random; the copy is kept on each CSR), else all
    int64: one compiled variant per width."""
    if all(X.ncols < 2**31 and X.nnz < 2**31 for X in mats):
        return [X.indices32() for X in mats]
    return [_idx(X.indices) for X in mats]


def mxm_masked_dot(A: CSR, BT: CSR, mask: CSR, ks: KernelSemiring) -> CSR:
    """C<mask> = A ⊕.⊗ B by dot products at the mask's entries only (BT = Bᵀ as CSR):
    merge, galloping or bitmap intersection of row i of A and row j of BT (a branch-free
    count for plus_pair). Memory: a presence flag and a value per mask entry, int32 copies
    of the indices when they fit, and a bitmap of the inner dimension (n/8 bytes) per
    block of rows (16 blocks per thread, each takes rows of equal mask entries)."""
    m, p = A.nrows, BT.nrows
    if m == 0 or mask.nnz == 0 or A.nnz == 0 or BT.nnz == 0:
        return _empty_csr(m, p, ks)
    m_ptr = _idx(mask.indptr)
    a_idx, bt_idx, m_idx = _index_arrays((A, BT, mask))
    pres = np.empty(mask.nnz, dtype=np.bool_)
    vals = np.empty(mask.nnz, dtype=ks.out_type.np_type)
    nwords = (int(A.ncols) + 63) // 64
    nwords = np.int64(nwords if nwords <= _DOT_BITMAP_WORDS else 0)
    nblocks = max(1, min(m, 16 * num_threads()))
    bounds = balanced_bounds(m_ptr, nblocks)
    a_ptr, bt_ptr = _idx(A.indptr), _idx(BT.indptr)
    pf = bt_idx.nbytes >= _PREFETCH_BYTES
    c_ptr = np.zeros(m + 1, dtype=np.int64)
    row_nz = c_ptr[1:]
    with chunksize(1):
        if _counts_intersection(ks):
            _count(bounds, a_ptr, a_idx, bt_ptr, bt_idx, m_ptr, m_idx, nwords, pf,
                   sr_args(ks)[2], pres, vals, row_nz)
        else:
            _dot.for_semiring(ks)(
                bounds, a_ptr, a_idx, *operand_values(A.values, A.iso, ks.uses_left, ks),
                bt_ptr, bt_idx, *operand_values(BT.values, BT.iso, ks.uses_right, ks),
                m_ptr, m_idx, nwords, pf, *sr_args(ks), pres, vals, row_nz)
        np.cumsum(row_nz, out=row_nz)
        c_idx, c_vals = _compact(bounds, m_ptr, m_idx, pres, vals, c_ptr)
    return CSR(m, p, c_ptr, c_idx, c_vals, ks.out_type)


__all__ = ["mxm_gustavson", "mxm_masked_dot"]
