"""Graph500-style validation of a BFS result, independent of the BFS code.

Checks (Graph500 specification §"Validation"): the root has level 0 (and is its own
parent); every edge u→v with u reached has v reached with level[v] ≤ level[u] + 1; every
reached vertex other than the root has an in-neighbour one level up; each parent edge
exists and joins consecutive levels; levels and parents cover the same vertices. Together
these imply the levels are exact BFS distances and every reachable vertex is found.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gblas.exceptions import InvalidValue


class BFSValidationError(InvalidValue):
    """A BFS result failed validation."""


def _dense_levels(levels: Any, n: int) -> np.ndarray:
    idx, vals = levels.to_coo()
    lv = np.full(n, -1, dtype=np.int64)
    lv[idx] = vals
    if (vals < 0).any():
        raise BFSValidationError("negative level stored")
    return lv


def validate_bfs(A: Any, source: int, levels: Any, parents: Any = None) -> bool:  # noqa: N803
    """True if the BFS result is valid; raises BFSValidationError naming the failure."""
    n = A.nrows
    if levels.size != n or (parents is not None and parents.size != n):
        raise BFSValidationError(
            f"result vectors have size {levels.size}, the graph has {n} vertices"
        )
    rows, cols, _ = A.to_coo()
    lv = _dense_levels(levels, n)
    if lv[source] != 0:
        raise BFSValidationError(f"root {source} has level {lv[source]}, expected 0")
    if ((lv == 0).sum()) != 1:
        raise BFSValidationError("more than one vertex has level 0")
    reached_u = lv[rows] >= 0
    if (lv[cols][reached_u] < 0).any():
        e = int(np.flatnonzero(reached_u & (lv[cols] < 0))[0])
        raise BFSValidationError(
            f"edge {rows[e]}->{cols[e]}: {rows[e]} is reached but {cols[e]} is not"
        )
    too_far = reached_u & (lv[cols] > lv[rows] + 1)
    if too_far.any():
        e = int(np.flatnonzero(too_far)[0])
        raise BFSValidationError(
            f"edge {rows[e]}->{cols[e]} spans levels {lv[rows[e]]} -> {lv[cols[e]]}"
        )
    # every reached non-root vertex needs an in-neighbour exactly one level up
    good = reached_u & (lv[cols] == lv[rows] + 1)
    has_parent = np.zeros(n, dtype=bool)
    has_parent[cols[good]] = True
    orphans = (lv > 0) & ~has_parent
    if orphans.any():
        v = int(np.flatnonzero(orphans)[0])
        raise BFSValidationError(f"vertex {v} at level {lv[v]} has no in-neighbour one level up")
    if parents is not None:
        pidx, pvals = parents.to_coo()
        lidx, _ = levels.to_coo()
        if not np.array_equal(pidx, lidx):
            raise BFSValidationError("parents and levels cover different vertices")
        pv = np.full(n, -1, dtype=np.int64)
        pv[pidx] = pvals
        if pv[source] != source:
            raise BFSValidationError(f"root's parent is {pv[source]}, expected {source}")
        child = pidx[pidx != source]
        par = pv[child]
        if ((par < 0) | (par >= n)).any():
            raise BFSValidationError("parent id out of range")
        keys = rows.astype(np.int64) * n + cols
        order = np.argsort(keys)
        want = par.astype(np.int64) * n + child
        pos = np.searchsorted(keys[order], want)
        pos = np.minimum(pos, max(keys.shape[0] - 1, 0))
        if child.size and (keys.shape[0] == 0 or (keys[order][pos] != want).any()):
            raise BFSValidationError("a parent edge does not exist in the graph")
        if (lv[par] != lv[child] - 1).any():
            raise BFSValidationError("a parent is not one level above its child")
    return True
