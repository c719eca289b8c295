"""benchmarks/bfs_first_gpu.py on the CPU: its naive BFS (the loop a CuPy user writes, run
with SciPy here) against SciPy's own BFS, and the user-shaped host matrix."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.sparse import csgraph

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import bfs_first_gpu  # noqa: E402


@pytest.mark.parametrize("spec", ["kron:8", "grid:12x9"])
def test_naive_bfs_levels_are_scipy_distances(spec: str) -> None:
    S = bfs_first_gpu.host_matrix(spec)  # noqa: N806
    assert S.dtype == np.float64 and ((S.data >= 1) & (S.data < 2)).all()
    src = int(np.flatnonzero(np.diff(S.indptr))[0])
    got = bfs_first_gpu.naive_bfs(S.T.tocsr(), src)
    dist = csgraph.shortest_path(S, unweighted=True, indices=src)
    want = np.where(np.isinf(dist), -1, dist).astype(np.int64)
    assert np.array_equal(got, want)


def test_directed_graph_follows_out_edges() -> None:
    from scipy.sparse import csr_matrix  # noqa: PLC0415

    S = csr_matrix((np.ones(3), ([0, 1, 3], [1, 2, 2])), shape=(4, 4))  # noqa: N806
    assert bfs_first_gpu.naive_bfs(S.T.tocsr(), 0).tolist() == [0, 1, 2, -1]
