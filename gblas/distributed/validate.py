"""Graph500 validation of a distributed BFS result, each process checking its vertices.

The checks of gblas.algorithms.validate_bfs (Graph500 specification, "Validation"), split
by vertex: the levels (and parents) are gathered whole, and each process checks the
in-edges u → v of the vertices v it owns (its rows of Aᵀ), so every edge is checked once
and no process reads another's rows. The checks run where the graph lives (NumPy or
CuPy arrays) and read the in-edges in blocks of rows, so a GPU checks a kron:26 search in
passes over its own memory rather than copying the graph to the host. The verdicts are
gathered, so every process raises the same error (the lowest failing rank's).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..algorithms.validate import BFSValidationError
from ..backend.keys import repeat, xp_of
from .matrix import DistMatrix
from .vector import DistVector

_EDGE_BLOCK = 1 << 26  # in-edges checked per step: bounds the temporaries (GPU memory)


def _dense(vec: DistVector) -> tuple[Any, Any]:
    """(values with -1 where absent, presence) of the whole vector, on the local device."""
    bits, vals = vec.gather()._data.as_bitmap()
    return xp_of(bits).where(bits, vals.astype(np.int64), -1), bits


def _edge_exists(indptr: Any, indices: Any, rows: Any, cols: Any) -> Any:
    """Whether each (row, col) is stored in the CSR (columns sorted within rows): a binary
    search in every row at once."""
    xp = xp_of(indptr)
    if indices.shape[0] == 0:
        return xp.zeros(rows.shape[0], dtype=bool)
    lo, hi = indptr[rows].copy(), indptr[rows + 1].copy()
    while True:
        active = lo < hi
        if not bool(active.any()):
            break
        mid = (lo + hi) // 2
        less = active & (indices[xp.minimum(mid, indices.shape[0] - 1)] < cols)
        lo = xp.where(less, mid + 1, lo)
        hi = xp.where(active & ~less, mid, hi)
    found = lo < indptr[rows + 1]
    return found & (indices[xp.minimum(lo, indices.shape[0] - 1)] == cols)


def _check(A: DistMatrix, source: int, lv: Any, lbits: Any,  # noqa: N803
           pv: Any | None, pbits: Any | None) -> str | None:
    """The first failure among this process's vertices (None: all pass). Arrays on the
    process's device; the in-edges are read in blocks of rows of Aᵀ."""
    lay = A.layout
    if int(lv[source]) != 0:
        return f"root {source} has level {int(lv[source])}, expected 0"
    if int((lv == 0).sum()) != 1:
        return "more than one vertex has level 0"
    if bool((lbits & (lv < 0)).any()):
        return "negative level stored"
    csr = A.local_T._csr()  # in-edges u -> v of the owned v
    xp, indptr, nloc = csr.xp, csr.indptr, lay.n_local
    has_parent = xp.zeros(nloc, dtype=bool)
    r0 = 0
    while r0 < nloc:
        e0 = int(indptr[r0])
        r1 = int(xp.searchsorted(indptr, e0 + _EDGE_BLOCK, side="right")) - 1
        r1 = min(max(r1, r0 + 1), nloc)
        e1 = int(indptr[r1])
        v_loc = repeat(xp.arange(r0, r1, dtype=np.int64), xp.diff(indptr[r0:r1 + 1]))
        u = csr.indices[e0:e1]
        lu, lvv = lv[u], lv[v_loc + lay.lo]
        reached_u = lu >= 0
        bad = reached_u & (lvv < 0)
        if bool(bad.any()):
            e = int(xp.flatnonzero(bad)[0])
            return (f"edge {int(u[e])}->{int(v_loc[e]) + lay.lo}: {int(u[e])} is reached "
                    f"but {int(v_loc[e]) + lay.lo} is not")
        too_far = reached_u & (lvv > lu + 1)
        if bool(too_far.any()):
            e = int(xp.flatnonzero(too_far)[0])
            return (f"edge {int(u[e])}->{int(v_loc[e]) + lay.lo} spans levels "
                    f"{int(lu[e])} -> {int(lvv[e])}")
        has_parent[v_loc[reached_u & (lvv == lu + 1)]] = True
        r0 = r1
    orphans = (lv[lay.lo:lay.hi] > 0) & ~has_parent
    if bool(orphans.any()):
        w = int(xp.flatnonzero(orphans)[0]) + lay.lo
        return f"vertex {w} at level {int(lv[w])} has no in-neighbour one level up"
    if pv is None:
        return None
    if not bool((pbits == lbits).all()):
        return "parents and levels cover different vertices"
    if int(pv[source]) != source:
        return f"root's parent is {int(pv[source])}, expected {source}"
    mine = xp.arange(lay.lo, lay.hi, dtype=np.int64)
    child = mine[(pv[lay.lo:lay.hi] >= 0) & (mine != source)]
    par = pv[child]
    if bool(((par < 0) | (par >= A.nrows)).any()):
        return "parent id out of range"
    if child.size and not bool(_edge_exists(indptr, csr.indices, child - lay.lo, par).all()):
        return "a parent edge does not exist in the graph"
    if bool((lv[par] != lv[child] - 1).any()):
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
    lv, lbits = _dense(levels)
    pv, pbits = _dense(parents) if parents is not None else (None, None)
    verdicts = A.layout.comm.allgather(_check(A, int(source), lv, lbits, pv, pbits))
    for rank, why in enumerate(verdicts):
        if why is not None:
            raise BFSValidationError(f"{why} (found by process {rank})")
    return True
