"""The kernels of the distributed BFS level (``bfs_levels.py``) for CPU processes, in Numba.

The same steps, arguments and results as the CUDA kernels of ``bfs_levels.cu`` (whose
header describes the state and the level): ``start``, ``queue_frontier``, ``push``,
``claim`` and ``unpack``, with the loop state ``st`` (the ``DS_*`` words, the .cu's) that
``unpack`` folds each level's counts into and takes the next direction in (LAGraph's rule,
``gblas.backend.bfs_rule``, compiled). The host calls the push or the pull as ``st`` says
(the CUDA kernels read it themselves). The pull claim runs on the process's Numba threads
over runs of words, the push on them over runs of equal numbers of edges (a hub's row split
among runs), claiming a vertex and lowering its parent as the GPU does (the old word of an
atomic OR, an atomic min). The queue lists whole rows: ``cnt[3]`` (the GPU's hub chunks)
stays 0.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
from numba import prange

from ..backend.atomics import atomic_min as _atomic_min
from ..backend.atomics import fetch_or as _fetch_or
from ..backend.atomics import prefetch as _prefetch
from ..backend.bfs_rule import direction_rule
from ..backend.bits import ctz as _ctz

_ONE = np.uint32(1)
_INT_MAX = 2**31 - 1
# the loop state's words (#define DS_* in bfs_levels.cu)
DS_DONE, DS_DO_PUSH, DS_PUSH_PULL, DS_ANY_PULL, DS_UNEXPLORED = 0, 1, 2, 3, 4
DS_NQ, DS_LAST_NQ, DS_NVISITED, DS_LEVELS, DS_RAN, DS_LAST_DIR = 5, 6, 7, 8, 9, 10
DS_STALLED, DS_SCOUT, DS_WORDS = 11, 12, 16  # DS_SCOUT: the GPUs size their push chunks by it
DS_STAMP = 15  # GPUs: the level's sequence number in the host's copy of the state
_rule = numba.njit(cache=True)(direction_rule)


@numba.njit(cache=True, inline="always")
def _seen(vis: Any, u: int) -> bool:
    return (vis[u >> 5] >> np.uint32(u & 31)) & _ONE != 0


@numba.njit(cache=True)
def start(c_ptr: Any, lo: int, hi: int, wtot: int, source: int, want_par: bool, mode: int,
          nvals: int, par: Any, vis: Any, nb: Any, st: Any, out_lv: Any,
          out_bits: Any) -> None:
    if want_par:  # the push lowers par by atomic min
        par[:] = np.int32(_INT_MAX)
    out_bits[:] = False
    vis[:] = 0
    vis[source >> 5] = _ONE << np.uint32(source & 31)
    nb[:] = 0  # (the last unpack zeroed it, as the GPU relies on; no peers read it here)
    owner = lo <= source < hi
    if owner:
        par[source - lo] = source
        out_lv[source - lo] = 0
        out_bits[source - lo] = True
        nb[(source >> 5) - (lo >> 5)] = _ONE << np.uint32(source & 31)
    _set_tail(nb, wtot, 1 if owner else 0, c_ptr[source + 1] - c_ptr[source])
    st[:] = 0
    st[DS_PUSH_PULL] = mode == 0
    st[DS_DO_PUSH] = mode != 2
    st[DS_UNEXPLORED] = nvals


@numba.njit(cache=True, inline="always")
def _set_tail(newbits: Any, wtot: int, found: int, edges: int) -> None:
    """The level's two counts as the uint64 pairs of words after the block's words."""
    for j, x in enumerate((found, edges)):
        newbits[wtot - 4 + 2 * j] = np.uint32(x & 0xFFFFFFFF)
        newbits[wtot - 3 + 2 * j] = np.uint32(x >> 32)


@numba.njit(cache=True)
def queue_frontier(c_ptr: Any, gathered: Any, wmax: int, offsets: Any, nparts: int,
                   queue: Any, cnt: Any) -> None:
    """The last frontier of every process (the gathered words), ascending, in ``queue``:
    the vertices with edges into the block."""
    nq = 0
    for p in range(nparts):
        w0 = offsets[p] >> 5
        for j in range(wmax - 4):
            x = gathered[p * wmax + j]
            while x != 0:
                u = (w0 + j) * 32 + np.int64(_ctz(x))
                if c_ptr[u + 1] > c_ptr[u]:
                    queue[nq] = u
                    nq += 1
                x &= x - _ONE
    cnt[2] = nq


@numba.njit(cache=True, parallel=True)
def push(c_ptr: Any, c_idx: Any, a_ptr: Any, lo: int, k: int, want_par: bool, queue: Any,
         cnt: Any, vis: Any, par: Any, newbits: Any, wtot: int, out_lv: Any, out_bits: Any,
         nchunks: int) -> None:
    """Push level k along the block's rows of C: every unvisited out-neighbour of the
    queued frontier is on level k. The queue's edges are cut into ``nchunks`` runs of equal
    length (a hub's row split among them) for the process's threads; the thread whose
    atomic OR sets a vertex's bit in newbits first claims it, and with parents every frontier
    in-neighbour lowers par by an atomic min (par holds INT_MAX until found)."""
    nq = cnt[2]
    pre = np.empty(nq + 1, np.int64)  # where each queued row starts in the edge list
    pre[0] = 0
    for j in range(nq):
        u = queue[j]
        pre[j + 1] = pre[j] + c_ptr[u + 1] - c_ptr[u]
    total = pre[nq]
    w0 = lo >> 5
    sums = np.zeros((nchunks, 2), np.int64)  # per run: no prange reduction (bfs_fused.py)
    for c in prange(nchunks):
        e0, e1 = total * c // nchunks, total * (c + 1) // nchunks
        if e0 >= e1:
            continue
        j = np.searchsorted(pre, e0, side="right") - 1
        pos, nfound, fedges = e0, 0, 0
        while pos < e1:
            u = queue[j]
            stop = min(pre[j + 1], e1)
            for p in range(c_ptr[u] + pos - pre[j], c_ptr[u] + stop - pre[j]):
                i = c_idx[p]
                v = lo + i
                if _seen(vis, v):
                    continue
                if want_par and par[i] > u:
                    _atomic_min(par, i, np.int32(u))
                w = (v >> 5) - w0
                bit = _ONE << np.uint32(v & 31)
                if newbits[w] & bit == 0 and _fetch_or(newbits, w, bit) & bit == 0:
                    out_lv[i] = k
                    out_bits[i] = True
                    nfound += 1
                    fedges += a_ptr[i + 1] - a_ptr[i]
            pos = stop
            j += 1
        sums[c, 0] = nfound
        sums[c, 1] = fedges
    _set_tail(newbits, wtot, sums[:, 0].sum(), sums[:, 1].sum())


@numba.njit(cache=True)
def _claim_words(t_ptr: Any, t_idx: Any, lo: int, hi: int, k: int, vis: Any, par: Any,
                 newbits: Any, out_lv: Any, out_bits: Any, w_from: int,
                 w_to: int) -> int:
    """Words w_from..w_to - 1 of the block: the vertices found. Only the unvisited bits of
    a word are visited (ctz), and the rows of the next word's are prefetched: a pull is
    bound by these misses, one a vertex in no order a hardware prefetcher sees."""
    w0 = lo >> 5
    nfound = 0
    nxt = _todo(vis, lo, hi, w0 + w_from) if w_from < w_to else np.uint32(0)
    for w in range(w_from, w_to):
        todo = nxt
        if w + 1 < w_to:
            nxt = _todo(vis, lo, hi, w0 + w + 1)
            _prefetch_rows(t_ptr, t_idx, (w0 + w + 1) * 32 - lo, nxt)
        word = np.uint32(0)
        base = (w0 + w) * 32
        while todo != 0:
            b = np.int64(_ctz(todo))
            todo &= todo - _ONE
            i = base + b - lo
            for p in range(t_ptr[i], t_ptr[i + 1]):
                if _seen(vis, t_idx[p]):  # the first in row order: the smallest parent
                    par[i] = t_idx[p]
                    out_lv[i] = k
                    out_bits[i] = True
                    word |= _ONE << np.uint32(b)
                    nfound += 1
                    break
        newbits[w] = word
    return nfound


@numba.njit(cache=True, inline="always")
def _todo(vis: Any, lo: int, hi: int, gw: int) -> Any:
    """The unvisited vertices of the block in global word gw, as bits."""
    todo = ~vis[gw]
    first = gw * 32
    if first < lo:
        todo &= np.uint32(0xFFFFFFFF) << np.uint32(lo - first)
    last = hi - first  # the block's vertices in this word end before bit `last`
    if last <= 0:
        return np.uint32(0)
    if last < 32:
        todo &= (_ONE << np.uint32(last)) - _ONE
    return todo


@numba.njit(cache=True, inline="always")
def _prefetch_rows(t_ptr: Any, t_idx: Any, i0: int, todo: Any) -> None:
    """Prefetch the head of the in-row of every vertex i0 + bit of todo."""
    while todo != 0:
        i = i0 + np.int64(_ctz(todo))
        todo &= todo - _ONE
        _prefetch(t_idx, t_ptr[i])


@numba.njit(cache=True, parallel=True)
def claim(t_ptr: Any, t_idx: Any, lo: int, hi: int, span: int, k: int, vis: Any, par: Any,
          newbits: Any, wtot: int, out_lv: Any, out_bits: Any,
          nchunks: int) -> None:
    """A pull level over ``nchunks`` runs of words on the process's threads."""
    per = (span + nchunks - 1) // nchunks
    found = np.zeros(nchunks, np.int64)  # per run: no prange reduction (bfs_fused.py)
    for c in prange(nchunks):
        found[c] = _claim_words(t_ptr, t_idx, lo, hi, k, vis, par, newbits, out_lv,
                                out_bits, c * per, min(span, c * per + per))
    _set_tail(newbits, wtot, found.sum(), 0)


@numba.njit(cache=True)
def unpack(gathered: Any, wmax: int, offsets: Any, nparts: int, n: int, vis: Any,
           clear: Any, nxt: Any, st: Any, k: int, alpha: float, beta1: float,
           beta2: float) -> None:
    """vis |= every process's words of level k; the summed counts into the loop state, and
    level k + 1's direction (or the end); ``nxt`` (level k + 1's newbits) and the queue's
    counters zeroed (also after the end, as on the GPU). Nothing else after the end."""
    nxt[:] = 0
    clear[:] = 0
    if st[DS_DONE]:
        return
    found, scout = 0, 0
    for p in range(nparts):  # the parts' counts: two uint64 (little-endian word pairs)
        e = (p + 1) * wmax
        found += np.int64(gathered[e - 4]) | (np.int64(gathered[e - 3]) << 32)
        scout += np.int64(gathered[e - 2]) | (np.int64(gathered[e - 1]) << 32)
    st[DS_LAST_DIR] = st[DS_DO_PUSH]
    st[DS_LAST_NQ] = st[DS_NQ]
    st[DS_NQ] = found
    st[DS_SCOUT] = scout
    st[DS_NVISITED] += found
    if found == 0 or st[DS_NVISITED] >= n:
        st[DS_RAN] = k
        st[DS_LEVELS] = k if found == 0 else k + 1
        st[DS_DONE] = 1
    else:
        do_push, push_pull, any_pull, unexplored = _rule(
            st[DS_DO_PUSH] != 0, st[DS_PUSH_PULL] != 0, st[DS_ANY_PULL] != 0, found,
            st[DS_LAST_NQ], scout, st[DS_UNEXPLORED], n, alpha, beta1, beta2)
        st[DS_DO_PUSH], st[DS_PUSH_PULL], st[DS_ANY_PULL] = do_push, push_pull, any_pull
        st[DS_UNEXPLORED] = unexplored
    for p in range(nparts):
        lo, hi = offsets[p], offsets[p + 1]
        if hi <= lo:
            continue
        w0 = lo >> 5
        for j in range(((hi - 1) >> 5) - w0 + 1):
            vis[w0 + j] |= gathered[p * wmax + j]


__all__ = ["DS_DONE", "DS_DO_PUSH", "DS_LAST_DIR", "DS_LEVELS", "DS_NVISITED", "DS_RAN",
           "DS_SCOUT", "DS_STALLED", "DS_STAMP", "DS_WORDS", "claim", "push", "queue_frontier",
           "start", "unpack"]
