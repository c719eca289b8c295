"""The kernels of the distributed BFS level (``bfs_levels.py``) for CPU processes, in Numba.

The same four steps, arguments and results as the CUDA kernels of ``bfs_levels.cu``
(whose header describes the state and the level): ``start``, ``expand``, ``claim`` and
``unpack``. They run serially: the processes are the parallelism of a CPU run (each
``mpiexec`` rank one share of the rows), and a serial claim appends to the queue in vertex
order without atomics. A CPU process queues every vertex it finds (no chunks of hubs: a
serial loop balances nothing), so ``cnt[3]`` stays 0.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

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
def claim(t_ptr: Any, t_idx: Any, a_ptr: Any, lo: int, hi: int, span: int, k: int,
          push: bool, vis: Any, cand: Any, nparts: int, want_par: bool, lvl: Any, par: Any,
          newbits: Any, tail: Any, q_out: Any, cnt: Any) -> None:
    w0 = lo >> 5
    nfound = 0
    fedges = 0
    nq = 0
    for w in range(span):
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
                q_out[nq] = i
                nq += 1
        newbits[w] = word
    tail[0] = nfound
    tail[1] = fedges
    cnt[2] = nq


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
