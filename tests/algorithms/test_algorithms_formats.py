"""Every algorithm gives the same result whatever the matrix's primary format (CSR, COO,
Sell-C-σ, SlimSell, BVSS) on user-shaped graphs: a SciPy matrix with values, a NetworkX
graph, a directed graph with isolated vertices, and the generators' iso matrices."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from graphs_for_algorithms import named_graphs

from gblas import Matrix
from gblas.algorithms import (
    betweenness_centrality,
    bfs,
    connected_components,
    pagerank,
    sssp,
    triangle_count,
)

GRAPHS = named_graphs()
FORMATS: list[tuple[str, dict[str, Any]]] = [
    ("coo", {}), ("sellcs", {"C": 4, "sigma": 16}), ("slimsell", {"C": 8, "sigma": 1}),
    ("bvss", {}),
]


def _dense(v: Any) -> tuple[np.ndarray, np.ndarray]:
    idx, vals = v.to_coo()
    return idx, vals


ALGORITHMS: dict[str, Callable[[Matrix], Any]] = {
    "bfs": lambda A: _dense(bfs(A, 1)),
    "bfs_parents": lambda A: [_dense(x) for x in bfs(A, 1, parents=True)],
    "sssp": lambda A: _dense(sssp(A, 1)),
    "cc": lambda A: _dense(connected_components(A)),
    "pagerank": lambda A: _dense(pagerank(A)),
    "tc": lambda A: triangle_count(A),
    "bc": lambda A: _dense(betweenness_centrality(A, sources=[0, 1, 5])),
}


def _same(a: Any, b: Any) -> None:
    if isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    elif isinstance(a, np.ndarray) and a.dtype.kind == "f":
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15)
    elif isinstance(a, np.ndarray):
        np.testing.assert_array_equal(a, b)
    else:
        assert a == b


@pytest.mark.parametrize("graph", sorted(GRAPHS))
@pytest.mark.parametrize("algo", sorted(ALGORITHMS))
def test_same_result_in_every_format(graph: str, algo: str) -> None:
    A = GRAPHS[graph]  # noqa: N806
    expected = ALGORITHMS[algo](A)
    for fmt, params in FORMATS:
        r, c, v = A.to_coo()
        B = Matrix.from_coo(r, c, v, A.dtype, nrows=A.nrows, ncols=A.ncols)  # noqa: N806
        B.to_format(fmt, **params)
        assert B.format.startswith(fmt)
        _same(expected, ALGORITHMS[algo](B))
