"""The kernels of the distributed BFS level (``bfs_levels.py``) for CPU processes, in Numba.

The same four steps, arguments and results as the CUDA kernels of ``bfs_levels.cu``
(whose header describes the state and the level): ``start``, ``expand``, ``claim`` and
``unpack``. The claim (a pull level's whole work) runs on the process's Numba threads over
runs of words, and its queue is then read off the new words in vertex order; the push's
``expand`` is serial (its bitmap ORs would need atomics). A CPU process queues every vertex
it finds (no chunks of hubs: the queue is read serially), so ``cnt[3]`` stays 0.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
from numba import prange

from ..backend.bits import ctz as _ctz

_ONE = np.uint32(1)


@numba.njit(cache=True, inline="always")
def _seen(vis: Any, u: int) -> bool:
    return (vis[u >> 5] >> np.uint32(u & 31)) & _ONE != 0


@numba.njit(cache=True)
def start(a_ptr: Any, lo: int, hi: int, source: int, lvl: Any, par: Any, vis: Any,
          queue: Any, cnt: Any) -> None:
    lvl[:] = -1
    vis[:] = 0
    vis[source >> 5] = _ONE << np.uint32(source & 31)
    cnt[:] = 0
    if lo <= source < hi:
        i = source - lo
        lvl[i] = 0
        par[i] = source
        queue[0] = i
        cnt[2] = 1


@numba.njit(cache=True)
def expand(a_ptr: Any, a_idx: Any, queue: Any, cnt: Any, vis: Any, touched: Any) -> None:
    for j in range(cnt[2]):
        i = queue[j]
        for p in range(a_ptr[i], a_ptr[i + 1]):
            v = a_idx[p]
            if not _seen(vis, v):
                touched[v >> 5] |= _ONE << np.uint32(v & 31)


@numba.njit(cache=True)
def _claim_words(t_ptr: Any, t_idx: Any, a_ptr: Any, lo: int, hi: int, span: int, k: int,
                 push: bool, vis: Any, cand: Any, nparts: int, want_par: bool, lvl: Any,
                 par: Any, newbits: Any, w_from: int, w_to: int) -> tuple[int, int]:
    """Words w_from..w_to - 1 of the block: (vertices found, their out-edges)."""
    w0 = lo >> 5
    nfound = 0
    fedges = 0
    for w in range(w_from, w_to):
        c = np.uint32(0xFFFFFFFF)
        if push:
            c = np.uint32(0)
            for p in range(nparts):
                c |= cand[p * span + w]
        word = np.uint32(0)
        base = (w0 + w) * 32
        for b in range(32):
            v = base + b
            if v < lo or v >= hi or (c >> np.uint32(b)) & _ONE == 0:
                continue
            i = v - lo
            if lvl[i] >= 0:
                continue
            found = 0 if push and not want_par else -1  # a pushed candidate is on level k
            if found < 0:
                for p in range(t_ptr[i], t_ptr[i + 1]):
                    if _seen(vis, t_idx[p]):  # the first in row order: the smallest parent
                        found = t_idx[p]
                        break
            if found >= 0:
                lvl[i] = k
                par[i] = found
                word |= _ONE << np.uint32(b)
                nfound += 1
                fedges += a_ptr[i + 1] - a_ptr[i]
        newbits[w] = word
    return nfound, fedges


@numba.njit(cache=True, parallel=True)
def claim(t_ptr: Any, t_idx: Any, a_ptr: Any, lo: int, hi: int, span: int, k: int,
          push: bool, vis: Any, cand: Any, nparts: int, want_par: bool, lvl: Any, par: Any,
          newbits: Any, tail: Any, q_out: Any, cnt: Any, nchunks: int) -> None:
    """The claim over ``nchunks`` runs of words on the process's threads, then the queue
    (the found vertices in ascending order) from the new words, each run at its offset."""
    per = (span + nchunks - 1) // nchunks
    sums = np.zeros((nchunks, 2), np.int64)  # per run: no prange reduction (bfs_fused.py)
    for c in prange(nchunks):
        f, e = _claim_words(t_ptr, t_idx, a_ptr, lo, hi, span, k, push, vis, cand, nparts,
                            want_par, lvl, par, newbits, c * per, min(span, c * per + per))
        sums[c, 0] = f
        sums[c, 1] = e
    at = np.zeros(nchunks + 1, np.int64)
    for c in range(nchunks):
        at[c + 1] = at[c] + sums[c, 0]
    w0 = lo >> 5
    for c in prange(nchunks):
        pos = at[c]
        for w in range(c * per, min(span, c * per + per)):
            x = newbits[w]
            while x != 0:
                q_out[pos] = (w0 + w) * 32 + np.int64(_ctz(x)) - lo
                pos += 1
                x &= x - _ONE
    tail[0] = at[nchunks]
    tail[1] = sums[:, 1].sum()
    cnt[2] = at[nchunks]


@numba.njit(cache=True)
def unpack(gathered: Any, wmax: int, offsets: Any, nparts: int, n: int, vis: Any,
           clear: Any, tail: Any, counts: Any) -> None:
    counts[:] = 0
    for p in range(nparts):  # the parts' counts: two uint64 (little-endian word pairs)
        e = (p + 1) * wmax
        for j in range(2):
            counts[j] += np.uint64(gathered[e - 4 + 2 * j]) | (
                np.uint64(gathered[e - 3 + 2 * j]) << np.uint64(32))
    tail[:] = 0
    for p in range(nparts):
        lo, hi = offsets[p], offsets[p + 1]
        if hi <= lo:
            continue
        w0 = lo >> 5
        for j in range(((hi - 1) >> 5) - w0 + 1):
            vis[w0 + j] |= gathered[p * wmax + j]
    clear[:] = 0


__all__ = ["claim", "expand", "start", "unpack"]
