"""Graph500 validation of a distributed BFS result, each process checking its vertices.

The checks of gblas.algorithms.validate_bfs (Graph500 specification, "Validation"), split
by vertex: the levels (and parents) are gathered whole, and each process checks the
in-edges u → v of the vertices v it owns (its rows of Aᵀ), so every edge is checked once
and no process reads another's rows. The verdicts are gathered, so every process raises
the same error (the lowest failing rank's).
"""

from __future__ import annotations

import numpy as np

from ..algorithms.validate import BFSValidationError
from .matrix import DistMatrix
from .vector import DistVector


def _dense(vec: DistVector, n: int) -> tuple[np.ndarray, np.ndarray]:
    idx, vals = vec.to_coo()
    out = np.full(n, -1, dtype=np.int64)
    out[idx] = vals
    return out, idx


def _check(A: DistMatrix, source: int, lv: np.ndarray, lidx: np.ndarray,  # noqa: N803
           pv: np.ndarray | None, pidx: np.ndarray | None) -> str | None:
    """The first failure among this process's vertices (None: all pass)."""
    lay, n = A.layout, A.nrows
    if lv[source] != 0:
        return f"root {source} has level {lv[source]}, expected 0"
    if (lv == 0).sum() != 1:
        return "more than one vertex has level 0"
    if (lv[lidx] < 0).any():
        return "negative level stored"
    v_loc, u, _ = A.local_T.to_coo(values=False)  # in-edges u -> v of the owned v
    v = v_loc + lay.lo
    reached_u = lv[u] >= 0
    bad = reached_u & (lv[v] < 0)
    if bad.any():
        e = int(np.flatnonzero(bad)[0])
        return f"edge {u[e]}->{v[e]}: {u[e]} is reached but {v[e]} is not"
    too_far = reached_u & (lv[v] > lv[u] + 1)
    if too_far.any():
        e = int(np.flatnonzero(too_far)[0])
        return f"edge {u[e]}->{v[e]} spans levels {lv[u[e]]} -> {lv[v[e]]}"
    has_parent = np.zeros(lay.n_local, dtype=bool)
    has_parent[v_loc[reached_u & (lv[v] == lv[u] + 1)]] = True
    orphans = (lv[lay.lo:lay.hi] > 0) & ~has_parent
    if orphans.any():
        w = int(np.flatnonzero(orphans)[0]) + lay.lo
        return f"vertex {w} at level {lv[w]} has no in-neighbour one level up"
    if pv is None:
        return None
    if not np.array_equal(pidx, lidx):
        return "parents and levels cover different vertices"
    if pv[source] != source:
        return f"root's parent is {pv[source]}, expected {source}"
    mine = np.arange(lay.lo, lay.hi)
    child = mine[(pv[lay.lo:lay.hi] >= 0) & (mine != source)]
    par = pv[child]
    if ((par < 0) | (par >= n)).any():
        return "parent id out of range"
    keys = v.astype(np.int64) * n + u  # sorted: rows of Aᵀ, then columns
    want = child.astype(np.int64) * n + par
    pos = np.minimum(np.searchsorted(keys, want), max(keys.shape[0] - 1, 0))
    if child.size and (keys.shape[0] == 0 or (keys[pos] != want).any()):
        return "a parent edge does not exist in the graph"
    if (lv[par] != lv[child] - 1).any():
        return "a parent is not one level above its child"
    return None


def validate_bfs(A: DistMatrix, source: int, levels: DistVector,  # noqa: N803
                 parents: DistVector | None = None) -> bool:
    """True if the distributed BFS result is valid; raises BFSValidationError (on every
    process) naming the failure."""
    n = A.nrows
    if levels.size != n or (parents is not None and parents.size != n):
        raise BFSValidationError(
            f"result vectors have size {levels.size}, the graph has {n} vertices")
    lv, lidx = _dense(levels, n)
    pv, pidx = _dense(parents, n) if parents is not None else (None, None)
    verdicts = A.layout.comm.allgather(_check(A, int(source), lv, lidx, pv, pidx))
    for rank, why in enumerate(verdicts):
        if why is not None:
            raise BFSValidationError(f"{why} (found by process {rank})")
    return True
