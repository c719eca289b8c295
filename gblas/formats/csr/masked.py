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

from ...backend.threads import num_threads
from .container import CSR
from .cpu import balanced_bounds
from .mxm_cpu import _lower_bound


def _idx(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.int64)


# ------------------------------------------------------------------------- restrict
@numba.njit(cache=True, nogil=True)
def _find(idx, lo, hi, j):  # noqa: ANN001, ANN202
    """Position of j in the sorted idx[lo:hi], galloping from lo; -1 when absent."""
    p = _lower_bound(idx, lo, hi, j)
    return p if p < hi and idx[p] == j else -1


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
def _merge_row(i, c_ptr, c_idx, c_vals, c_iso, t_ptr, t_idx, t_vals, t_iso, m_ptr, m_idx,  # noqa: ANN001, ANN202
               m_true, structure, trust_t, out_idx, out_vals, base, fill):
    """Row i of C⟨M⟩ = T; with ``fill`` writes its columns and values from ``base``;
    returns the row's entry count. Only the columns of M's and T's rows (the events) can
    change anything: C's entries between two events are kept as a run, found by a gallop
    and copied (counted) whole, so a row costs O(events · log) plus the copy."""
    pc, ec = c_ptr[i], c_ptr[i + 1]
    pt, et = t_ptr[i], t_ptr[i + 1]
    pm, em = m_ptr[i], m_ptr[i + 1]
    n = 0
    big = np.int64(1) << 62
    while pm < em or pt < et:
        jm = m_idx[pm] if pm < em else big
        jt = t_idx[pt] if pt < et else big
        j = min(jm, jt)
        allowed = jm == j and (structure or m_true[pm])
        p = _lower_bound(c_idx, pc, ec, j)  # C's run [pc, p) lies between events: kept
        if fill:
            _copy_run(c_idx, c_vals, c_iso, pc, p, out_idx, out_vals, base + n)
        n += p - pc
        here = p < ec and c_idx[p] == j
        if jt == j and (allowed or trust_t):
            if fill:
                out_idx[base + n] = j
                out_vals[base + n] = t_vals[0] if t_iso else t_vals[pt]
            n += 1
        elif here and not allowed:
            if fill:
                out_idx[base + n] = j
                out_vals[base + n] = c_vals[0] if c_iso else c_vals[p]
            n += 1
        pc = p + 1 if here else p
        if jm == j:
            pm += 1
        if jt == j:
            pt += 1
    if fill:
        _copy_run(c_idx, c_vals, c_iso, pc, ec, out_idx, out_vals, base + n)
    return n + ec - pc


@numba.njit(cache=True, nogil=True)
def _copy_run(c_idx, c_vals, c_iso, lo, hi, out_idx, out_vals, at):  # noqa: ANN001, ANN202
    """C's entries [lo, hi) to the output from ``at`` (slice copies: memcpy speed)."""
    k = hi - lo
    if k <= 0:
        return
    out_idx[at:at + k] = c_idx[lo:hi]
    if c_iso:
        out_vals[at:at + k] = c_vals[0]
    else:
        out_vals[at:at + k] = c_vals[lo:hi]


@numba.njit(cache=True, parallel=True, nogil=True)
def _merge_count(c_ptr, c_idx, c_vals, c_iso, t_ptr, t_idx, t_vals, t_iso, m_ptr, m_idx,  # noqa: ANN001, ANN202
                 m_true, structure, trust_t, counts):
    no_idx = np.empty(0, dtype=np.int64)
    no_vals = c_vals[:0].copy()
    for i in prange(c_ptr.shape[0] - 1):
        counts[i] = _merge_row(i, c_ptr, c_idx, c_vals, c_iso, t_ptr, t_idx, t_vals, t_iso,
                               m_ptr, m_idx, m_true, structure, trust_t, no_idx, no_vals, 0,
                               False)


@numba.njit(cache=True, parallel=True, nogil=True)
def _merge_fill(c_ptr, c_idx, c_vals, c_iso, t_ptr, t_idx, t_vals, t_iso, m_ptr, m_idx,  # noqa: ANN001, ANN202
                m_true, structure, trust_t, o_ptr, out_idx, out_vals):
    for i in prange(c_ptr.shape[0] - 1):
        _merge_row(i, c_ptr, c_idx, c_vals, c_iso, t_ptr, t_idx, t_vals, t_iso, m_ptr, m_idx,
                   m_true, structure, trust_t, out_idx, out_vals, o_ptr[i], True)


def _values(A: CSR, out: np.dtype) -> tuple[np.ndarray, bool]:  # noqa: N803
    """(values cast to ``out``, iso): an iso matrix passes its one value."""
    if A.values is None:
        return np.asarray([A.iso]).astype(out), True
    return np.ascontiguousarray(A.values.astype(out, copy=False)), False


def merge_under_mask(C: CSR, T: CSR, M: CSR, structure: bool,  # noqa: N803
                     mask_applied: bool) -> CSR:
    """``C⟨M⟩ = T`` (no accumulator, no replace, mask not complemented): C's entries the
    mask does not allow, and T's it does (all of T's when ``mask_applied``). The result
    has C's type; a value mask allows where M's value is nonzero."""
    out = C.dtype.np_type
    c_vals, c_iso = _values(C, out)
    t_vals, t_iso = _values(T, out)
    m_true = np.ones(1, dtype=bool) if structure else np.ascontiguousarray(
        M.full_values() != 0)
    args = (_idx(C.indptr), _idx(C.indices), c_vals, c_iso, _idx(T.indptr), _idx(T.indices),
            t_vals, t_iso, _idx(M.indptr), _idx(M.indices), m_true, structure, mask_applied)
    counts = np.empty(C.nrows, dtype=np.int64)
    _merge_count(*args, counts)
    o_ptr = np.zeros(C.nrows + 1, dtype=np.int64)
    np.cumsum(counts, out=o_ptr[1:])
    out_idx = np.empty(int(o_ptr[-1]), dtype=np.int64)
    vals = np.empty(out_idx.shape[0], dtype=out)
    _merge_fill(*args, o_ptr, out_idx, vals)
    if c_iso and t_iso and t_vals[0] == c_vals[0]:
        return CSR(C.nrows, C.ncols, o_ptr, out_idx, None, C.dtype, C.iso)  # one value
    return CSR(C.nrows, C.ncols, o_ptr, out_idx, vals, C.dtype)


# ------------------------------------------------------------------ work estimates
@numba.njit(cache=True, nogil=True)
def _rows_work(r0, r1, a_ptr, a_idx, len_b, len_bt, m_ptr, m_idx):  # noqa: ANN001, ANN202
    """(dot, saxpy) work of rows [r0, r1): merge lengths summed as integers, the gallop
    estimate (only for rows > 32x apart) in floats."""
    gallop = 0.0
    merge = 0
    saxpy = 0
    for i in range(r0, r1):
        if m_ptr[i] == m_ptr[i + 1]:
            continue
        la = a_ptr[i + 1] - a_ptr[i]
        for q in range(m_ptr[i], m_ptr[i + 1]):
            lb = len_bt[m_idx[q]]
            # a merge of two sorted rows, or a gallop through the longer when > 32x
            if lb > 32 * la:
                gallop += la * (np.log2(lb + 1.0) + 1.0)
            elif la > 32 * lb:
                gallop += lb * (np.log2(la + 1.0) + 1.0)
            else:
                merge += la + lb
        for pa in range(a_ptr[i], a_ptr[i + 1]):
            saxpy += len_b[a_idx[pa]]
    return gallop + merge, saxpy


@numba.njit(cache=True, parallel=True, nogil=True)
def _masked_product_work(a_ptr, a_idx, len_b, len_bt, m_ptr, m_idx, bounds):  # noqa: ANN001, ANN202
    """Blocks of rows sum into their own slots (a parfor reduction over the nested loops
    kept the sums in memory: 13 -> 8 ms for urand:16's triangle count, 1 thread)."""
    nb = bounds.shape[0] - 1
    dot = np.zeros(nb)
    saxpy = np.zeros(nb, dtype=np.int64)
    for b in prange(nb):
        dot[b], saxpy[b] = _rows_work(bounds[b], bounds[b + 1], a_ptr, a_idx, len_b, len_bt,
                                      m_ptr, m_idx)
    return dot.sum(), float(saxpy.sum() + (m_ptr[-1] - m_ptr[0]))


def masked_product_work(A: CSR, M: CSR, len_b: np.ndarray,  # noqa: N803
                        len_bt: np.ndarray) -> tuple[float, float]:
    """Estimated work of C⟨M⟩ = A·B as dot products at M's entries (A's row against
    B's column; ``len_bt``: B's column lengths) and as a masked saxpy (A's entries in M's
    rows times B's rows; ``len_b``: their lengths), in one parallel pass (CPU)."""
    m_ptr = _idx(M.indptr)
    nb = max(1, min(M.nrows, 8 * num_threads()))
    bounds = balanced_bounds(m_ptr, nb)
    return _masked_product_work(_idx(A.indptr), _idx(A.indices), _idx(len_b), _idx(len_bt),
                                m_ptr, _idx(M.indices), bounds)


@numba.njit(cache=True, nogil=True)
def _count_bounds(m_rows, la, m_cols, len_bt, a_cols, len_b):  # noqa: ANN001, ANN202
    dot = 0.0
    saxpy = 0.0
    every_row = True  # every row of A with entries has a mask row
    for i in range(m_rows.shape[0]):
        dot += float(m_rows[i]) * float(la[i])
        saxpy += float(m_rows[i])
        if la[i] != 0 and m_rows[i] == 0:
            every_row = False
    for j in range(m_cols.shape[0]):
        dot += float(m_cols[j]) * float(len_bt[j])
    if every_row:
        for k in range(a_cols.shape[0]):
            saxpy += float(a_cols[k]) * float(len_b[k])
    return dot, saxpy


def count_bounds(m_rows: np.ndarray, la: np.ndarray, m_cols: np.ndarray, len_bt: np.ndarray,
                 a_cols: np.ndarray, len_b: np.ndarray) -> tuple[float, float]:
    """(an upper bound of the dot products' work at M's entries, a lower bound of the masked
    saxpy's) from row and column counts alone: Σ_i |M(i,:)|·|A(i,:)| + Σ_j |M(:,j)|·|B(:,j)|,
    and nnz(M) plus, when every row of A with entries has a mask row, Σ_k |A(:,k)|·|B(k,:)|;
    one compiled pass (CPU arrays) instead of about ten array passes."""
    return _count_bounds(_idx(m_rows), _idx(la), _idx(m_cols), _idx(len_bt), _idx(a_cols),
                         _idx(len_b))


__all__ = ["count_bounds", "masked_product_work", "merge_under_mask", "restrict"]
