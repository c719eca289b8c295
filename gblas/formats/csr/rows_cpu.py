"""CPU (Numba) kernels that take whole runs of CSR rows: ``select`` by a positional
operator (each sorted row keeps one run of its entries) and ``A[I, J]`` for distinct J
(rows gathered, renamed and sorted each in place).
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
from numba import prange

from ...backend.threads import chunksize, num_threads, threads_for
from .container import CSR
from .cpu import _JIT_OPTS, _idx, balanced_bounds

# ====================================================================== positional select
# select operators whose kept entries of row i are the columns in [lo, hi] (minus one
# column for offdiag): a contiguous run of the sorted row, found by two binary searches.
SELECT_RANGE_OPS = ("tril", "triu", "diag", "offdiag", "rowle", "rowgt", "colle", "colgt")
_NO_COL = np.int64(-(2**62))


@numba.njit(cache=True, inline="always", **_JIT_OPTS)
def _select_bounds(op, i, t, ncols):  # noqa: ANN001, ANN202
    """(lo, hi, excluded column) that row i keeps under SELECT_RANGE_OPS[op], thunk t."""
    lo = np.int64(0)
    hi = np.int64(ncols - 1)
    if op == 0:
        hi = i + t
    elif op == 1:
        lo = i + t
    elif op == 2:
        lo = i + t
        hi = i + t
    elif op == 3:
        return lo, hi, i + t
    elif (op == 4 and i > t) or (op == 5 and i <= t):
        hi = np.int64(-1)
    elif op == 6:
        hi = t
    elif op == 7:
        lo = t + 1
    return lo, hi, _NO_COL


@numba.njit(cache=True, inline="always", **_JIT_OPTS)
def first_ge(a, lo, hi, x):  # noqa: ANN001, ANN202
    """First position in the sorted a[lo:hi] whose value is >= x."""
    while lo < hi:
        mid = (lo + hi) >> 1
        if a[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


@numba.njit(cache=True, inline="always", **_JIT_OPTS)
def _first_ge_u(a, lo, hi, x):  # noqa: ANN001, ANN202
    """first_ge over unsigned positions (no wrap-around test per read: backend/spmv.py)."""
    while lo < hi:
        mid = (lo + hi) >> np.uint64(1)
        if a[mid] < x:
            lo = mid + np.uint64(1)
        else:
            hi = mid
    return lo


@numba.njit(cache=True, parallel=True, **_JIT_OPTS)
def _select_runs(indptr, indices, op, t, ncols, start, skip, o_ptr):  # noqa: ANN001, ANN202
    """Per row: the start of its kept run, the position of the excluded column in it (-1
    if none), and its count of kept entries in o_ptr[i + 1] (two binary searches a row;
    the caller scans the counts)."""
    for i in prange(indptr.shape[0] - 1):
        lo, hi, ex = _select_bounds(op, i, t, ncols)
        s = np.uint64(indptr[i])
        e = np.uint64(indptr[i + 1])
        p = q = s
        x = np.int64(-1)
        if lo <= hi and s < e:
            p = _first_ge_u(indices, s, e, lo)
            q = _first_ge_u(indices, p, e, hi + 1)
            if ex != _NO_COL:
                k = _first_ge_u(indices, p, q, ex)
                if k < q and indices[k] == ex:
                    x = np.int64(k)
        start[i] = p
        skip[i] = x
        o_ptr[i + 1] = np.int64(q - p) - (x >= 0)


@numba.njit(cache=True, parallel=True, **_JIT_OPTS)
def _select_fill(indices, start, skip, o_ptr, bounds, o_idx, pos, with_pos):  # noqa: ANN001, ANN202
    one = np.uint64(1)
    for b in prange(bounds.shape[0] - 1):
        # unsigned positions; the row's excluded position in a local (the stores into
        # o_idx could alias skip, so it was read again for every entry)
        for i in range(np.uint64(bounds[b]), np.uint64(bounds[b + 1])):
            p = np.uint64(start[i])
            o = np.uint64(o_ptr[i])
            x = skip[i]
            e = p + np.uint64(o_ptr[i + one]) - o + np.uint64(x >= 0)
            for r in range(p, e):
                if np.int64(r) != x:
                    o_idx[o] = indices[r]
                    if with_pos:
                        pos[o] = r
                    o += one


def select_range(A: CSR, name: str, thunk: int) -> CSR:
    """``select`` of a positional operator in SELECT_RANGE_OPS (tril, triu, diag, ...) in
    O(rows · log + kept entries): rows are sorted, so each keeps one run of its entries,
    found in parallel over the rows, then copied in parallel blocks of equal output
    (small matrices on one thread). An iso matrix stays iso."""
    indptr, indices = _idx(A.indptr), _idx(A.indices)
    m = A.nrows
    start = np.empty(m, dtype=np.int64)
    skip = np.empty(m, dtype=np.int64)
    o_ptr = np.zeros(m + 1, dtype=np.int64)
    with threads_for(m + A.nnz):
        _select_runs(indptr, indices, SELECT_RANGE_OPS.index(name), np.int64(thunk),
                     np.int64(A.ncols), start, skip, o_ptr)
        np.cumsum(o_ptr, out=o_ptr)
        nnz = int(o_ptr[-1])
        nb = max(1, min(m, 4 * num_threads()))
        bounds = balanced_bounds(o_ptr, nb)
        iso = A.values is None
        o_idx = np.empty(nnz, dtype=np.int64)
        pos = np.empty(0 if iso else nnz, dtype=np.int64)
        _select_fill(indices, start, skip, o_ptr, bounds, o_idx, pos, not iso)
    if iso:
        return CSR(A.nrows, A.ncols, o_ptr, o_idx, None, A.dtype, A.iso)
    return CSR(A.nrows, A.ncols, o_ptr, o_idx, A.values[pos], A.dtype)


# ====================================================================== kept entries
@numba.njit(cache=True, parallel=True, **_JIT_OPTS)
def _kept_counts(indptr, keep, o_ptr):  # noqa: ANN001, ANN202
    for i in prange(indptr.shape[0] - 1):
        c = 0
        for p in range(indptr[i], indptr[i + 1]):
            c += keep[p]
        o_ptr[i + 1] = c


@numba.njit(cache=True, parallel=True, **_JIT_OPTS)
def _kept_fill(indptr, keep, indices, values, with_vals, o_ptr, o_idx, o_vals):  # noqa: ANN001, ANN202
    for i in prange(indptr.shape[0] - 1):
        o = o_ptr[i]
        for p in range(indptr[i], indptr[i + 1]):
            if keep[p]:
                o_idx[o] = indices[p]
                if with_vals:
                    o_vals[o] = values[p]
                o += 1


def keep_entries(A: CSR, keep: np.ndarray) -> CSR:  # noqa: N803
    """The entries of A where ``keep`` (one flag an entry) holds, with their values (an
    iso matrix stays iso): a count pass and a fill pass over the rows
    in parallel (small inputs on one thread), where NumPy's boolean indexing makes a pass
    per array (``select(">", 0.5)`` of 1 M entries: 20 -> 7 ms on the 2-core machine)."""
    indptr = _idx(A.indptr)
    keep = np.ascontiguousarray(keep, dtype=np.bool_)
    o_ptr = np.zeros(A.nrows + 1, dtype=np.int64)
    values = A.values
    with_vals = values is not None
    with threads_for(A.nrows + A.nnz):
        _kept_counts(indptr, keep, o_ptr)
        np.cumsum(o_ptr, out=o_ptr)
        nnz = int(o_ptr[-1])
        o_idx = np.empty(nnz, dtype=np.int64)
        o_vals = np.empty(nnz if with_vals else 0,
                          dtype=values.dtype if with_vals else np.bool_)
        _kept_fill(indptr, keep, _idx(A.indices), values if with_vals else o_vals,
                   with_vals, o_ptr, o_idx, o_vals)
    if not with_vals:
        return CSR(A.nrows, A.ncols, o_ptr, o_idx, None, A.dtype, A.iso)
    return CSR(A.nrows, A.ncols, o_ptr, o_idx, o_vals, A.dtype)


# ====================================================================== row/column gather
@numba.njit(cache=True, inline="always", **_JIT_OPTS)
def _insertion_sort(keys, vals, lo, hi, with_vals):  # noqa: ANN001, ANN202
    # unsigned positions here and in the gather below: Numba tests a signed index for
    # wrap-around at every read (see backend/spmv.py)
    one = np.uint64(1)
    ulo = np.uint64(lo)
    for p in range(ulo + one, np.uint64(hi)):
        k = keys[p]
        v = vals[p] if with_vals else 0
        q = p
        while q > ulo and keys[q - one] > k:
            keys[q] = keys[q - one]
            if with_vals:
                vals[q] = vals[q - one]
            q -= one
        keys[q] = k
        if with_vals:
            vals[q] = v


@numba.njit(cache=True, **_JIT_OPTS)
def _bit_length(x):  # noqa: ANN001, ANN202
    n = 0
    while x > 0:
        x >>= 1
        n += 1
    return n


@numba.njit(cache=True, inline="always", **_JIT_OPTS)
def _sort_run(keys, vals, lo, hi, nbits, with_vals, sk, sv, count):  # noqa: ANN001, ANN202
    """Sort keys[lo:hi] (distinct, below 2**nbits) in place, carrying vals along when
    ``with_vals``; sk/sv: scratch of 256 entries, count: of 2049. Up to 16 entries:
    insertion sort; up to 256: one counting pass into buckets of the row's key range (a
    shift, no division), then insertion sort of the nearly sorted result; longer: an LSD
    radix sort, 8-bit digits (11 from 2048 entries). All O(d) a pass, where Numba's
    argsort took 0.13 s on kron:16's permuted rows and plain insertion sort 20M moves on
    law_cnr-2000's rows of 16-64 entries."""
    d = hi - lo
    if d <= 16:
        _insertion_sort(keys, vals, lo, hi, with_vals)
        return
    if d <= 256:
        kmin = keys[lo]
        kmax = keys[lo]
        for q in range(lo + 1, hi):
            kmin = min(kmin, keys[q])
            kmax = max(kmax, keys[q])
        lg = _bit_length(d - 1)  # 2**lg >= d buckets
        sh = max(0, _bit_length(kmax - kmin) - lg)
        nb = ((kmax - kmin) >> sh) + 1
        count[: nb + 1] = 0
        one = np.uint64(1)
        for q in range(np.uint64(lo), np.uint64(hi)):
            count[np.uint64((keys[q] - kmin) >> sh) + one] += 1
        for b in range(nb):
            count[b + 1] += count[b]
        for q in range(np.uint64(lo), np.uint64(hi)):
            b = np.uint64((keys[q] - kmin) >> sh)
            c = np.uint64(count[b])
            sk[c] = keys[q]
            if with_vals:
                sv[c] = vals[q]
            count[b] += 1
        keys[lo:hi] = sk[:d]
        if with_vals:
            vals[lo:hi] = sv[:d]
        _insertion_sort(keys, vals, lo, hi, with_vals)
        return
    digit = 11 if d >= 2048 else 8
    mask = (1 << digit) - 1
    src_k = keys[lo:hi]
    dst_k = np.empty(d, dtype=keys.dtype)
    src_v = vals[lo:hi] if with_vals else vals[:0]
    dst_v = np.empty(d if with_vals else 0, dtype=vals.dtype)
    passes = 0
    shift = 0
    while shift < nbits:
        count[: mask + 2] = 0
        for q in range(np.uint64(d)):
            count[np.uint64((src_k[q] >> shift) & mask) + np.uint64(1)] += 1
        for b in range(mask + 1):
            count[b + 1] += count[b]
        for q in range(np.uint64(d)):
            b = np.uint64((src_k[q] >> shift) & mask)
            c = np.uint64(count[b])
            dst_k[c] = src_k[q]
            if with_vals:
                dst_v[c] = src_v[q]
            count[b] += 1
        src_k, dst_k = dst_k, src_k
        src_v, dst_v = dst_v, src_v
        shift += digit
        passes += 1
    if passes % 2:  # an odd number of passes left the result in the scratch
        keys[lo:hi] = src_k
        if with_vals:
            vals[lo:hi] = src_v


@numba.njit(cache=True, parallel=True, nogil=True)
def _gather_counts(indptr, indices, rows, colmap, o_ptr):  # noqa: ANN001, ANN202
    for r in prange(rows.shape[0]):
        c = 0
        for p in range(indptr[rows[r]], indptr[rows[r] + 1]):
            c += colmap[indices[p]] >= 0
        o_ptr[r + 1] = c


@numba.njit(cache=True, nogil=True)
def _gather_rows(r0, r1, indptr, indices, rows, colmap, nbits, o_ptr, o_idx, pos, with_pos):  # noqa: ANN001, ANN202
    """Rows [r0, r1): copy row rows[r] renamed (and its source positions when
    ``with_pos``), sort it when nbits > 0 (scratch allocated here, once per block)."""
    sk = np.empty(256, dtype=o_idx.dtype)
    sv = np.empty(256, dtype=pos.dtype)
    count = np.empty(2050, dtype=np.int64)
    one = np.uint64(1)
    for r in range(r0, r1):
        o = np.uint64(o_ptr[r])
        u = np.uint64(rows[r])
        for p in range(np.uint64(indptr[u]), np.uint64(indptr[u + one])):
            c = colmap[np.uint64(indices[p])]
            if c >= 0:
                o_idx[o] = c
                if with_pos:
                    pos[o] = p
                o += one
        if nbits > 0:
            _sort_run(o_idx, pos, o_ptr[r], np.int64(o), nbits, with_pos, sk, sv, count)


@numba.njit(cache=True, parallel=True, nogil=True)
def _gather_fill(indptr, indices, rows, colmap, nbits, bounds, o_ptr, o_idx, pos, with_pos):  # noqa: ANN001, ANN202
    """Blocks of rows of equal output entries (the rows of a degree-ordered matrix are
    longest first)."""
    for b in prange(bounds.shape[0] - 1):
        _gather_rows(bounds[b], bounds[b + 1], indptr, indices, rows, colmap, nbits, o_ptr,
                     o_idx, pos, with_pos)


def gather(A: CSR, rows: Any, colmap: Any, ncols: int, sort: bool) -> CSR:
    """A[rows, J] given J as a column map (int32 or int64; colmap[c]: the new column of
    column c, -1 if J leaves it out; J names each column at most once): rows copied in
    parallel, each sorted by its new columns in place, instead of two counting-sort
    transposes of the whole matrix. An iso matrix stays iso (and no positions are kept for
    its values)."""
    rows = _idx(rows)
    colmap = np.ascontiguousarray(colmap, np.int32 if colmap.dtype == np.int32 else np.int64)
    indptr, indices = _idx(A.indptr), _idx(A.indices)
    idx32 = A.indices32(min_uses=2)  # a matrix renumbered again (triangle counts) keeps one
    if idx32 is not None and colmap.dtype == np.int32:
        # the reads at random (the map, the rows in their new order) in half the bytes:
        # law_cnr-2000 renumbered 150 -> 98-124 ms with 2 threads
        indices = idx32
    m = int(rows.shape[0])
    # the rows' share of A's entries, expected: a few rows of a large graph (connected
    # components' small subgraph of a road network: 3 K of 129 K rows) run on one thread,
    # where two parallel regions cost ~1.2 of 1.4 ms on the 2-core VM
    work = m + A.nnz * m // max(A.nrows, 1)
    o_ptr = np.zeros(m + 1, dtype=np.int64)
    with threads_for(work):
        if ncols == A.ncols:  # J is a permutation: rows keep their lengths
            o_ptr[1:] = indptr[rows + 1] - indptr[rows]
        else:
            _gather_counts(indptr, indices, rows, colmap, o_ptr)
        np.cumsum(o_ptr, out=o_ptr)
        nnz = int(o_ptr[-1])
        nb = max(1, min(m, 8 * num_threads()))
        bounds = balanced_bounds(o_ptr, nb)
        with_pos = A.values is not None
        o_idx = np.empty(nnz, dtype=np.int64)
        pos = np.empty(nnz if with_pos else 0, dtype=np.int64)
        nbits = max(1, int(ncols - 1).bit_length()) if sort else 0
        with chunksize(1):
            _gather_fill(indptr, indices, rows, colmap, np.int64(nbits), bounds, o_ptr, o_idx,
                         pos, with_pos)
    vals = A.values[pos] if with_pos else None
    return CSR(m, ncols, o_ptr, o_idx, vals, A.dtype, A.iso)


__all__ = ["SELECT_RANGE_OPS", "first_ge", "gather", "keep_entries", "select_range"]
