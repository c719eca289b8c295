"""CPU row-wise kernels for masked operations whose mask is much sparser than the matrices
they touch, so that the work is O(rows + touched entries) streamed per row instead of
global key arrays, searches and sorts over every entry.

* ``restrict``: the entries of A at the positions of a pattern P (``A⟨P.S⟩``), which a
  masked element-wise operation needs only (betweenness' ``B ./ Σ`` under one BFS level).
* ``merge_under_mask``: ``C⟨M⟩ = T`` without accumulator or replace: C keeps its entries
  the mask does not allow and takes T's where it does, a three-way merge per row
  (betweenness' ``Σ⟨F.S⟩ = F`` adds one level to the path counts every step).
"""

from __future__ import annotations

import numba
import numpy as np
from numba import prange

from .container import CSR


def _idx(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.int64)


# ------------------------------------------------------------------------- restrict
@numba.njit(cache=True, nogil=True)
def _find(idx, lo, hi, j):  # noqa: ANN001, ANN202
    """Position of j in the sorted idx[lo:hi], galloping from lo; -1 when absent."""
    step = 1
    while lo + step < hi and idx[lo + step] < j:
        lo += step
        step *= 2
    top = min(hi, lo + step + 1)
    while lo < top:
        mid = (lo + top) >> 1
        if idx[mid] < j:
            lo = mid + 1
        else:
            top = mid
    return lo if lo < hi and idx[lo] == j else -1


@numba.njit(cache=True, parallel=True, nogil=True)
def _restrict_positions(a_ptr, a_idx, p_ptr, p_idx, pos):  # noqa: ANN001, ANN202
    """pos[q] = the position in A of pattern entry q, or -1 (each row: a gallop through
    A's row from the previous match, so O(|P_i| log(|A_i| / |P_i|)))."""
    for i in prange(p_ptr.shape[0] - 1):
        lo, hi = a_ptr[i], a_ptr[i + 1]
        for q in range(p_ptr[i], p_ptr[i + 1]):
            p = _find(a_idx, lo, hi, p_idx[q])
            pos[q] = p
            if p >= 0:
                lo = p + 1


def restrict(A: CSR, P: CSR) -> CSR:  # noqa: N803
    """A's entries at P's positions (same shape, values and iso-ness as A)."""
    p_ptr, p_idx = _idx(P.indptr), _idx(P.indices)
    pos = np.empty(p_idx.shape[0], dtype=np.int64)
    _restrict_positions(_idx(A.indptr), _idx(A.indices), p_ptr, p_idx, pos)
    keep = pos >= 0
    rows = np.repeat(np.arange(P.nrows, dtype=np.int64), np.diff(p_ptr))
    indptr = np.zeros(A.nrows + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows[keep], minlength=A.nrows), out=indptr[1:])
    at = pos[keep]
    return CSR(A.nrows, A.ncols, indptr, p_idx[keep],
               None if A.values is None else A.values[at], A.dtype, A.iso)


# -------------------------------------------------------------- merge under a mask
@numba.njit(cache=True, nogil=True)
def _merge_row(i, c_ptr, c_idx, t_ptr, t_idx, m_ptr, m_idx, m_true, structure, trust_t,  # noqa: ANN001, ANN202
               out_idx, out_src, base, fill):
    """Row i of C⟨M⟩ = T; with ``fill`` writes columns and sources (>= 0: C's position,
    < 0: -1 - T's position) from ``base``; returns the row's entry count."""
    pc, ec = c_ptr[i], c_ptr[i + 1]
    pt, et = t_ptr[i], t_ptr[i + 1]
    pm, em = m_ptr[i], m_ptr[i + 1]
    n = 0
    big = np.int64(1) << 62
    while pc < ec or pt < et:
        jc = c_idx[pc] if pc < ec else big
        jt = t_idx[pt] if pt < et else big
        j = min(jc, jt)
        while pm < em and m_idx[pm] < j:
            pm += 1
        allowed = pm < em and m_idx[pm] == j and (structure or m_true[pm])
        src = np.int64(0)
        take = False
        if jt == j and (allowed or trust_t):
            src = -1 - pt
            take = True
        elif jc == j and not allowed:
            src = pc
            take = True
        if take:
            if fill:
                out_idx[base + n] = j
                out_src[base + n] = src
            n += 1
        if jc == j:
            pc += 1
        if jt == j:
            pt += 1
    return n


@numba.njit(cache=True, parallel=True, nogil=True)
def _merge_count(c_ptr, c_idx, t_ptr, t_idx, m_ptr, m_idx, m_true, structure, trust_t,  # noqa: ANN001, ANN202
                 counts):
    dummy = np.empty(0, dtype=np.int64)
    for i in prange(c_ptr.shape[0] - 1):
        counts[i] = _merge_row(i, c_ptr, c_idx, t_ptr, t_idx, m_ptr, m_idx, m_true,
                               structure, trust_t, dummy, dummy, 0, False)


@numba.njit(cache=True, parallel=True, nogil=True)
def _merge_fill(c_ptr, c_idx, t_ptr, t_idx, m_ptr, m_idx, m_true, structure, trust_t,  # noqa: ANN001, ANN202
                o_ptr, out_idx, out_src):
    for i in prange(c_ptr.shape[0] - 1):
        _merge_row(i, c_ptr, c_idx, t_ptr, t_idx, m_ptr, m_idx, m_true, structure, trust_t,
                   out_idx, out_src, o_ptr[i], True)


def merge_under_mask(C: CSR, T: CSR, M: CSR, structure: bool,  # noqa: N803
                     mask_applied: bool) -> CSR:
    """``C⟨M⟩ = T`` (no accumulator, no replace, mask not complemented): C's entries the
    mask does not allow, and T's it does (all of T's when ``mask_applied``). The result
    has C's type; a value mask allows where M's value is nonzero."""
    c_ptr, c_idx = _idx(C.indptr), _idx(C.indices)
    t_ptr, t_idx = _idx(T.indptr), _idx(T.indices)
    m_ptr, m_idx = _idx(M.indptr), _idx(M.indices)
    m_true = np.ones(1, dtype=bool) if structure else np.ascontiguousarray(
        M.full_values() != 0)
    counts = np.empty(C.nrows, dtype=np.int64)
    args = (c_ptr, c_idx, t_ptr, t_idx, m_ptr, m_idx, m_true, structure, mask_applied)
    _merge_count(*args, counts)
    o_ptr = np.zeros(C.nrows + 1, dtype=np.int64)
    np.cumsum(counts, out=o_ptr[1:])
    out_idx = np.empty(int(o_ptr[-1]), dtype=np.int64)
    src = np.empty(out_idx.shape[0], dtype=np.int64)
    _merge_fill(*args, o_ptr, out_idx, src)
    out = C.dtype.np_type
    from_t = src < 0
    if C.values is None and T.values is None and \
            np.asarray(T.iso).astype(out) == np.asarray(C.iso, dtype=out):
        return CSR(C.nrows, C.ncols, o_ptr, out_idx, None, C.dtype, C.iso)  # one value
    vals = np.empty(out_idx.shape[0], dtype=out)
    vals[~from_t] = C.full_values()[src[~from_t]]
    vals[from_t] = T.full_values()[-1 - src[from_t]].astype(out, copy=False)
    return CSR(C.nrows, C.ncols, o_ptr, out_idx, vals, C.dtype)


__all__ = ["merge_under_mask", "restrict"]
