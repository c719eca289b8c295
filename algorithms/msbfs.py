"""Multi-source BFS: one BFS per source at once, as masked SpMM with a frontier matrix.

Row s of the frontier F holds source s's current level; ``F⟨¬L.S, replace⟩ = F ⊕.⊗ A``
advances all of them (GraphBLAS formulation of MS-BFS; Then et al., VLDB'14, batched).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gblas import BOOL, INT64, Matrix, semiring
from gblas.exceptions import IndexOutOfBound, InvalidValue

from .bfs import check_graph


def msbfs(A: Matrix, sources: Any) -> Matrix:  # noqa: N803
    """Levels matrix L (len(sources) × n, INT64): L[s, v] = level of v from sources[s]."""
    check_graph(A)
    src = np.asarray(sources, dtype=np.int64).reshape(-1)
    if src.size == 0:
        raise InvalidValue("msbfs needs at least one source")
    n = A.nrows
    if (src < 0).any() or (src >= n).any():
        bad = int(src[(src < 0) | (src >= n)][0])
        raise IndexOutOfBound(f"source {bad} is out of range for a graph of {n} vertices")
    k = src.size
    rows = np.arange(k, dtype=np.int64)
    levels = Matrix.from_coo(rows, src, 0, INT64, nrows=k, ncols=n, device=A.device)
    frontier = Matrix.from_coo(rows, src, True, BOOL, nrows=k, ncols=n, device=A.device)
    depth = 1
    while frontier.nvals:
        frontier(~levels.S, replace=True) << frontier.mxm(A, semiring.any_pair)
        levels(frontier.S) << depth
        depth += 1
    return levels
