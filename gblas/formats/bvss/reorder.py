"""Vertex reorderings for the BVSS bitmap format (Blest, Elbek & Kaya, arXiv 2512.21967).

BVSS stores M = Aᵀ as 8-bit column slices: one slice per nonzero (row i, column block
j // 8). A symmetric renumbering P A Pᵀ only renames rows, so the number of slices
(``count_slices``) depends on how the vertices are grouped into consecutive blocks of 8:
a block of columns c1..c8 costs |N(c1) ∪ ... ∪ N(c8)| slices. Fewer slices mean fewer
bytes and fewer MMA tiles. Every method orders the symmetrised pattern S = A + Aᵀ without
its diagonal (directed graphs are ordered by their undirected structure), on the host:

- ``"none"``: the identity (``perm`` is None).
- ``"rcm"``: SciPy's reverse Cuthill-McKee on S (``symmetric_mode=True``): bandwidth
  reduction, neighbours get nearby ids; the right order for meshes and road networks.
- ``"degree"``: descending degree in S, ties by id (stable sort).
- ``"jaccard"``: greedy windows, the idea of Blest's Algorithm 1 (place next the vertex
  whose neighbourhood is most Jaccard-similar to the current window), made O(m + n·budget):

  1. Seed order: descending degree (``"degree"``). S is renumbered in that order, so
     rows list their neighbours highest-degree first and the hot state of the hubs is
     contiguous in memory.
  2. New ids are handed out in windows of ``window`` vertices (a multiple of 8; the
     default 8 makes a window exactly one column block). A window opens with the first
     unplaced vertex of the seed order. Its row set U is the union of the neighbourhoods
     of the window's vertices; candidate c carries cnt[c] = |N(c) ∩ U| (as sampled).
  3. Placing v: every row r ∈ N(v) not yet in U joins U, and its first ``capv``
     unplaced entries ("heads", cached per row; a cursor skips placed entries for good)
     get cnt += 1, with capv = clamp(budget // deg(v), 1, 8). A placement costs
     O(deg(v) + budget). The budget is the largest of 64, 256, 1024, ... (or no limit)
     whose predicted counter updates fit 5·10^7, and at least 64: small graphs get the
     full search, big ones O(m + 64 n) work (hubs then count one head per row).
  4. The next vertex is the candidate with the largest Jaccard similarity
     cnt[c] / (deg(c) + |U| - cnt[c]) among the K = 8 best kept while counting; if
     no candidate shares a row with U, the next unplaced seed vertex.
  5. When the window is full (its last vertex starts no search), U and the counters
     are dropped.

  The loop is one Numba function; a placed vertex is never revisited. It runs on one
  core and is bound by memory latency, so its state is packed per vertex and per row.
- ``"auto"``: ``classify_social``: social graphs get ``"jaccard"`` (compression),
  the others ``"rcm"`` (locality), as Blest does.

The reordering is a preprocessing cost the user sees: ``info["seconds"]`` reports it.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numba
import numpy as np

from ...exceptions import InvalidValue
from ..csr.container import CSR

METHODS = ("none", "rcm", "degree", "jaccard", "auto")
SOCIAL_TOP1 = 0.05  # social: the top 1% of vertices by degree hold > 5% of the edge ends
SOCIAL_TOP10 = 0.40  # or the top 10% hold > 40%
JACCARD_CAP = 8  # most heads of one row counted per visit
JACCARD_WORK = 50_000_000  # counter updates allowed for one ordering (a few seconds)
JACCARD_MIN_BUDGET = 64  # heads counted per placement at least (and one per row)
JACCARD_TOPK = 8  # best candidates kept while counting


# ------------------------------------------------------------------------- validation
def _check_square(csr: CSR, what: str) -> None:
    if csr.nrows != csr.ncols:
        raise InvalidValue(
            f"{what} needs the CSR of a square (adjacency) matrix, got {csr.nrows} x "
            f"{csr.ncols}; pass the n x n adjacency matrix of the graph")


def _check_method(method: Any) -> None:
    if not isinstance(method, str) or method not in METHODS:
        raise InvalidValue(f"unknown reordering method {method!r}; expected one of "
                           f"{', '.join(repr(m) for m in METHODS)}")


def _check_window(window: Any) -> int:
    if (isinstance(window, bool) or not isinstance(window, (int, np.integer))
            or window < 8 or window % 8):
        raise InvalidValue(f"window must be a positive multiple of 8 (the slice width), "
                           f"got {window!r}")
    return int(window)


def _host(a: Any) -> np.ndarray:
    return np.ascontiguousarray(a.get() if hasattr(a, "get") else a, dtype=np.int64)


# ----------------------------------------------------------------- symmetrised pattern
@numba.njit(cache=True, parallel=True)
def _looks_symmetric(indptr: np.ndarray, indices: np.ndarray) -> tuple[bool, Any]:
    """(symmetric, self-loops per row). Symmetric: out-degree = in-degree everywhere and
    equal 64-bit hashes of {(i, j)} and {(j, i)}: exact for symmetric patterns; another
    passes with probability ~2⁻⁶⁴, and then only the ordering heuristic sees it."""
    n = indptr.shape[0] - 1
    indeg = np.zeros(n, dtype=np.int64)
    for k in range(indices.shape[0]):
        indeg[indices[k]] += 1
    loops = np.zeros(n, dtype=np.int64)
    fwd = np.uint64(0)
    bwd = np.uint64(0)
    for i in numba.prange(n):
        hi = _mix(np.uint64(i))
        gi = _mix(np.uint64(i) ^ np.uint64(0x9E3779B97F4A7C15))
        for k in range(indptr[i], indptr[i + 1]):
            j = np.uint64(indices[k])
            fwd += hi * _mix(j ^ np.uint64(0x9E3779B97F4A7C15))
            bwd += gi * _mix(j)
            loops[i] += indices[k] == i
    return bool(np.all(indeg == indptr[1:] - indptr[:-1]) and fwd == bwd), loops


@numba.njit(cache=True)
def _mix(x: np.uint64) -> np.uint64:  # splitmix64 finaliser
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@numba.njit(cache=True)
def _transpose(indptr: np.ndarray, indices: np.ndarray, n: int) -> tuple[Any, Any]:
    """Pattern of Aᵀ; rows come out sorted because the rows of A are scanned in order."""
    tptr = np.zeros(n + 1, dtype=np.int64)
    for k in range(indices.shape[0]):
        tptr[indices[k] + 1] += 1
    for i in range(n):
        tptr[i + 1] += tptr[i]
    tidx = np.empty(indices.shape[0], dtype=np.int64)
    fill = tptr[:-1].copy()
    for i in range(n):
        for k in range(indptr[i], indptr[i + 1]):
            j = indices[k]
            tidx[fill[j]] = i
            fill[j] += 1
    return tptr, tidx


@numba.njit(cache=True)
def _merge_row(indptr: np.ndarray, indices: np.ndarray, tptr: np.ndarray, tidx: np.ndarray,
               i: int, out: np.ndarray, w: int, write: bool) -> int:
    """Sorted union of row i of A and of Aᵀ without i itself; returns its length."""
    a, ae, b, be = indptr[i], indptr[i + 1], tptr[i], tptr[i + 1]
    cnt = 0
    while a < ae or b < be:
        if b >= be or (a < ae and indices[a] < tidx[b]):
            j = indices[a]
            a += 1
        elif a >= ae or tidx[b] < indices[a]:
            j = tidx[b]
            b += 1
        else:
            j = indices[a]
            a += 1
            b += 1
        if j != i:
            if write:
                out[w + cnt] = j
            cnt += 1
    return cnt


@numba.njit(cache=True, parallel=True)
def _merge_all(indptr: np.ndarray, indices: np.ndarray, tptr: np.ndarray,
               tidx: np.ndarray) -> tuple[Any, Any]:
    """S = A + Aᵀ without the diagonal, rows sorted: a count pass and a write pass."""
    n = indptr.shape[0] - 1
    sptr = np.zeros(n + 1, dtype=np.int64)
    for i in numba.prange(n):
        sptr[i + 1] = _merge_row(indptr, indices, tptr, tidx, i, indices, 0, False)
    for i in range(n):
        sptr[i + 1] += sptr[i]
    sidx = np.empty(sptr[n], dtype=np.int64)
    for i in numba.prange(n):
        _merge_row(indptr, indices, tptr, tidx, i, sidx, sptr[i], True)
    return sptr, sidx


@numba.njit(cache=True)
def _relabel(sptr: np.ndarray, sidx: np.ndarray, order: np.ndarray, nptr: np.ndarray,
             out: np.ndarray) -> None:
    """Symmetric S renumbered so that new vertex p is old order[p], self-loops dropped,
    rows sorted (scattering the rows in the new order appends in increasing new id)."""
    n = order.shape[0]
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    fill = nptr[:-1].copy()
    for p in range(n):  # serial: a split by destination rows did not scale on 2 cores
        i = order[p]
        for k in range(sptr[i], sptr[i + 1]):
            j = sidx[k]
            if j != i:
                q = rank[j]
                out[fill[q]] = p
                fill[q] += 1


class _Sym:
    """The symmetrised pattern S = A + Aᵀ (host arrays; the diagonal is ignored) and the
    degrees of S. A symmetric A is used as it is: no transpose, no merge."""

    def __init__(self, csr: CSR) -> None:
        self.n = n = csr.nrows
        indptr, indices = _host(csr.indptr), _host(csr.indices)
        symmetric, loops = _looks_symmetric(indptr, indices)
        if symmetric:
            self.sptr, self.sidx = indptr, indices  # may hold self-loops
            self.deg = np.diff(indptr) - loops
        else:
            self.sptr, self.sidx = _merge_all(indptr, indices, *_transpose(indptr, indices, n))
            self.deg = np.diff(self.sptr)

    def relabelled(self, order: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        nptr = np.concatenate([[0], np.cumsum(self.deg[order])]).astype(np.int64)
        m = int(nptr[-1])  # int32 entries halve the greedy's memory traffic
        out = np.empty(m, dtype=np.int32 if max(m, self.n) < 2**31 - 1 else np.int64)
        _relabel(self.sptr, self.sidx, order, nptr, out)
        return nptr, out


# ---------------------------------------------------------------------- jaccard greedy
@numba.njit(cache=True)
def _jaccard_windows(sptr: np.ndarray, sidx: np.ndarray, window: int, budget: int,
                     topk: int, vs: np.ndarray, rs: np.ndarray) -> np.ndarray:
    """The greedy of the module docstring on S renumbered by the seed order (so the seed
    order is 0, 1, 2, ...). Returns the new order as ids of that renumbering.

    State (int32 when the ids fit: the state of a vertex or a row is one cache line):
    vs[n, 4] per vertex: stamp (window that set cnt; -1 once placed), cnt, top slot;
    rs[n, 2 + cap] per row: window that put it in U, cursor, cached heads (-1: none)."""
    n = sptr.shape[0] - 1
    cap = rs.shape[1] - 2
    topc = np.empty(topk, dtype=np.int64)
    tops = np.empty(topk, dtype=np.float64)
    order = np.empty(n, dtype=np.int64)
    pos = 0
    next_seed = 0
    wid = 0
    while pos < n:
        wid += 1
        usize = 0
        ktop = 0
        tmin = 0.0  # a lower bound of the kept scores: most candidates skip the min search
        while vs[next_seed, 0] < 0:
            next_seed += 1
        v = next_seed
        for step in range(window):
            order[pos] = v
            pos += 1
            vs[v, 0] = -1
            if pos == n or step == window - 1:  # the window is full: no next candidate
                break
            dv = sptr[v + 1] - sptr[v]
            capv = min(cap, max(1, budget // max(dv, 1)))
            for k in range(sptr[v], sptr[v + 1]):
                r = sidx[k]
                if rs[r, 0] == wid:
                    continue
                rs[r, 0] = wid
                usize += 1
                # the first capv unplaced heads: check cached heads in order (dropping
                # placed ones) only until capv are found, then refill from the cursor
                nh = 0
                h = 2
                while h < 2 + cap and nh < capv and rs[r, h] >= 0:
                    c = rs[r, h]
                    h += 1
                    if vs[c, 0] >= 0:
                        rs[r, 2 + nh] = c
                        nh += 1
                if h > 2 + nh:  # close the gap left by dropped heads
                    t = 2 + nh
                    while h < 2 + cap and rs[r, h] >= 0:
                        rs[r, t] = rs[r, h]
                        t += 1
                        h += 1
                    for h in range(t, 2 + cap):
                        rs[r, h] = -1
                nvalid = nh
                if nh < capv:
                    # every cached head was checked: refill all slots from the row in one
                    # visit (one miss), validating only the heads counted now
                    p, end = rs[r, 1], sptr[r + 1]
                    while p < end and nh < cap:
                        c = sidx[p]
                        p += 1
                        if nvalid < capv:
                            if vs[c, 0] < 0:
                                continue
                            nvalid += 1
                        rs[r, 2 + nh] = c
                        nh += 1
                    rs[r, 1] = p
                for h in range(2, 2 + nvalid):
                    c = rs[r, h]
                    if vs[c, 0] != wid:
                        vs[c, 0] = wid
                        vs[c, 1] = 0
                        vs[c, 2] = -1
                    vs[c, 1] += 1
                    cc = vs[c, 1]
                    s = cc / (sptr[c + 1] - sptr[c] + usize - cc)
                    q = vs[c, 2]
                    if q >= 0:
                        tops[q] = s
                        tmin = min(tmin, s)
                    elif ktop < topk:
                        topc[ktop] = c
                        tops[ktop] = s
                        vs[c, 2] = ktop
                        ktop += 1
                        tmin = min(tmin, s)
                    elif s > tmin:
                        mq = np.argmin(tops)
                        if s > tops[mq]:  # replace the weakest kept candidate
                            vs[topc[mq], 2] = -1
                            topc[mq] = c
                            tops[mq] = s
                            vs[c, 2] = mq
                        tmin = tops.min()
            best = -1
            best_s = 0.0
            bq = -1
            tmin = np.inf
            for t in range(ktop):  # rescore with the final |U| of this step
                c = topc[t]
                cc = vs[c, 1]
                s = cc / (sptr[c + 1] - sptr[c] + usize - cc)
                tops[t] = s
                tmin = min(tmin, s)
                if s > best_s:
                    best_s, best, bq = s, c, t
            if best < 0:
                while vs[next_seed, 0] < 0:
                    next_seed += 1
                best = next_seed
            else:  # drop it from the kept candidates
                ktop -= 1
                vs[best, 2] = -1
                if bq != ktop:
                    topc[bq], tops[bq] = topc[ktop], tops[ktop]
                    vs[topc[bq], 2] = bq
            v = best
    return order


def _degree_order(deg: np.ndarray) -> np.ndarray:
    return np.argsort(-deg, kind="stable").astype(np.int64)


def _rcm_order(sym: _Sym) -> np.ndarray:
    import scipy.sparse as sp  # noqa: PLC0415
    from scipy.sparse.csgraph import reverse_cuthill_mckee  # noqa: PLC0415

    n = sym.n  # self-loops of a symmetric A stay: they do not change a BFS
    S = sp.csr_matrix((np.ones(sym.sidx.shape[0], dtype=np.int8), sym.sidx, sym.sptr),  # noqa: N806
                      shape=(n, n))
    return np.asarray(reverse_cuthill_mckee(S, symmetric_mode=True), dtype=np.int64)


def _jaccard_budget(deg: np.ndarray) -> int:
    """Largest per-placement budget (64 · 4^k, or unlimited) whose counter updates
    sum(deg · clamp(budget // deg, 1, cap)) fit JACCARD_WORK, but at least 64: small
    graphs get the full search, large ones keep O(m + 64 n) work."""
    d = deg[deg > 0]
    unlimited = int(d.max()) * JACCARD_CAP if d.size else JACCARD_MIN_BUDGET
    budget = JACCARD_MIN_BUDGET
    while budget < unlimited:
        nxt = min(budget * 4, unlimited)
        work = int((d * np.clip(nxt // d, 1, JACCARD_CAP)).sum())
        if work > JACCARD_WORK:
            break
        budget = nxt
    return budget


def _jaccard_order(sym: _Sym, window: int) -> tuple[np.ndarray, int]:
    seed_order = _degree_order(sym.deg)
    nptr, nidx = sym.relabelled(seed_order)
    n = sym.n
    budget = _jaccard_budget(sym.deg)
    dtype = np.int32 if max(n, nidx.shape[0]) < 2**31 - 1 else np.int64
    vs = np.zeros((n, 4), dtype=dtype)
    vs[:, 2] = -1
    rs = np.full((n, 2 + JACCARD_CAP), -1, dtype=dtype)
    rs[:, 0], rs[:, 1] = 0, nptr[:-1]
    order = _jaccard_windows(nptr, nidx, window, budget, JACCARD_TOPK, vs, rs)
    return seed_order[order], budget


# ------------------------------------------------------------------------ public API
def classify_social(csr: CSR) -> tuple[bool, dict[str, float]]:
    """Blest's social/non-social rule, on the degrees d of S = A + Aᵀ (no diagonal):
    social if the top 1% of the vertices by degree (at least one vertex) hold more than
    5% of the edge ends sum(d), or the top 10% hold more than 40%. The exponent of a
    power-law fit (discrete MLE of Clauset, Shalizi & Newman with d_min = max(1, median
    degree)) is reported as a diagnostic only; it takes no part in the decision.

    Returns (social, {"top1_share", "top10_share", "powerlaw_alpha", "max_degree",
    "mean_degree"}).
    """
    _check_square(csr, "classify_social")
    return _classify(_Sym(csr).deg)


def _classify(deg: np.ndarray) -> tuple[bool, dict[str, float]]:
    n = deg.shape[0]
    total = float(deg.sum())
    csum = np.cumsum(np.sort(deg)[::-1], dtype=np.float64)

    def share(frac: float) -> float:
        k = min(n, max(1, math.ceil(frac * n)))
        return float(csum[k - 1] / total) if total > 0 else 0.0

    dmin = max(1.0, float(np.median(deg))) if n else 1.0
    tail = deg[deg >= dmin].astype(np.float64)
    log_sum = float(np.log(tail / (dmin - 0.5)).sum())
    alpha = 1.0 + tail.size / log_sum if tail.size > 1 and log_sum > 0 else math.nan
    info = {"top1_share": share(0.01), "top10_share": share(0.10), "powerlaw_alpha": alpha,
            "max_degree": float(csum[0]) if n else 0.0, "mean_degree": total / max(n, 1)}
    social = info["top1_share"] > SOCIAL_TOP1 or info["top10_share"] > SOCIAL_TOP10
    return bool(social), info


def reorder_permutation(csr: CSR, method: str = "none", *, window: int = 8,
                        seed: int = 0) -> tuple[Any | None, dict[str, Any]]:
    """Vertex permutation for BVSS: ``perm[p]`` is the original id of new position p.

    Returns (perm, info): perm is an int64 NumPy array (computed on the host, also for
    a matrix on the GPU) or None for ``"none"``. info: "method" (the one applied; "auto"
    resolves to "jaccard" or "rcm"), "seconds" (wall time of the whole computation,
    symmetrisation included), "social" (bool for "auto", else None; "auto" adds the
    ``classify_social`` statistics), and for "jaccard" its parameters. ``window`` (a
    multiple of 8) is the Jaccard window. ``seed`` is accepted so that call sites can
    pin one: every method is deterministic, so it does not change the result.
    """
    _check_method(method)
    _check_square(csr, "reorder_permutation")
    window = _check_window(window)
    del seed  # deterministic methods: nothing to seed
    t0 = time.perf_counter()
    info: dict[str, Any] = {"method": method, "social": None}
    if method == "none":
        info["seconds"] = time.perf_counter() - t0
        return None, info
    sym = _Sym(csr)
    if method == "auto":
        social, stats = _classify(sym.deg)
        method = "jaccard" if social else "rcm"
        info.update(stats, social=social, method=method)
    if sym.n == 0:
        perm = np.zeros(0, dtype=np.int64)
    elif method == "rcm":
        perm = _rcm_order(sym)
    elif method == "degree":
        perm = _degree_order(sym.deg)
    else:
        perm, budget = _jaccard_order(sym, window)
        info.update(window=window, cap=JACCARD_CAP, budget=budget,
                    topk=JACCARD_TOPK, seed_order="degree")
    info["seconds"] = time.perf_counter() - t0
    return perm, info


def count_slices(csr: CSR) -> int:
    """Number of BVSS slices: distinct (row, column // 8) pairs of the stored entries."""
    xp = csr.xp
    if csr.nnz == 0:
        return 0
    blk = csr.indices // 8
    new = xp.ones(csr.nnz, dtype=bool)
    new[1:] = blk[1:] != blk[:-1]  # columns are sorted within a row
    starts = csr.indptr[:-1][csr.indptr[:-1] < csr.indptr[1:]]
    new[starts] = True  # the first entry of every nonempty row opens a slice
    return int(xp.count_nonzero(new))


def permute_csr(csr: CSR, perm: Any) -> CSR:
    """P A Pᵀ: new vertex p is original ``perm[p]`` (rows and columns), columns sorted
    within rows, values (or the iso value) carried along. NumPy or CuPy, as ``csr``."""
    _check_square(csr, "permute_csr")
    xp = csr.xp
    n = csr.nrows
    perm = xp.asarray(perm)
    if perm.shape != (n,) or perm.dtype.kind not in "iu":
        raise InvalidValue(f"perm must be an integer array of length {n} (one entry per "
                           f"vertex), got shape {perm.shape} and dtype {perm.dtype}")
    perm = perm.astype(np.int64, copy=False)
    if n and (int(perm.min()) < 0 or int(perm.max()) >= n
              or int(xp.count_nonzero(xp.bincount(perm, minlength=n))) != n):
        raise InvalidValue(f"perm must be a permutation of 0..{n - 1} (every vertex once)")
    inv = xp.empty(n, dtype=np.int64)
    inv[perm] = xp.arange(n, dtype=np.int64)
    lens = (csr.indptr[1:] - csr.indptr[:-1])[perm]
    indptr = xp.concatenate([xp.zeros(1, dtype=np.int64), xp.cumsum(lens)])
    if xp is np:
        cols, src = _permute_rows(csr.indptr.astype(np.int64, copy=False),
                                  csr.indices.astype(np.int64, copy=False), perm, inv, indptr)
    else:
        cols, src = _permute_generic(xp, csr, perm, inv, indptr)
    values = None if csr.values is None else csr.values[src]
    return CSR(n, n, indptr, cols, values, csr.dtype, csr.iso)


def _permute_generic(xp: Any, csr: CSR, perm: Any, inv: Any, indptr: Any) -> tuple[Any, Any]:
    """Array-library version (CuPy): gather, then one sort by (new row, new column)."""
    n, nnz = csr.nrows, csr.nnz
    pos = xp.arange(nnz, dtype=np.int64)
    rows = xp.searchsorted(indptr[1:], pos, side="right").astype(np.int64)
    # old position of every new entry: start of the old row + offset within the row
    src = csr.indptr[:-1][perm][rows] + (pos - indptr[rows])
    cols = inv[csr.indices[src]]
    order = xp.argsort(rows * n + cols)
    return cols[order], src[order]


@numba.njit(cache=True, parallel=True)
def _permute_rows(indptr: np.ndarray, indices: np.ndarray, perm: np.ndarray, inv: np.ndarray,
                  nptr: np.ndarray) -> tuple[Any, Any]:
    n = perm.shape[0]
    cols = np.empty(nptr[n], dtype=np.int64)
    src = np.empty(nptr[n], dtype=np.int64)
    for p in numba.prange(n):
        a, b, w = indptr[perm[p]], indptr[perm[p] + 1], nptr[p]
        row = inv[indices[a:b]]
        o = np.argsort(row)
        for t in range(b - a):
            cols[w + t] = row[o[t]]
            src[w + t] = a + o[t]
    return cols, src
