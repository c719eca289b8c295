"""sssp (Bellman-Ford over min_plus) against NetworkX and SciPy."""

from __future__ import annotations

import gzip

import networkx as nx
import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
from hypothesis import given
from hypothesis import strategies as st

from gblas import BOOL, FP64, INT64, Matrix
from gblas.algorithms.sssp import sssp
from gblas.exceptions import DimensionMismatch, IndexOutOfBound, InvalidObject, InvalidValue


@st.composite
def weighted_digraphs(draw, max_n: int = 40, low: int = 0, high: int = 10):
    """(n, [(u, v, w)], source): distinct directed edges with integer-valued weights."""
    n = draw(st.integers(1, max_n))
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)),
                          max_size=4 * n, unique=True))
    weights = draw(st.lists(st.integers(low, high), min_size=len(pairs),
                            max_size=len(pairs)))
    source = draw(st.integers(0, n - 1))
    return n, [(u, v, float(w)) for (u, v), w in zip(pairs, weights, strict=True)], source


def to_matrix(n: int, edges: list[tuple[int, int, float]], dtype=FP64) -> Matrix:
    if not edges:
        return Matrix(dtype, n, n)
    r, c, w = (np.array(x) for x in zip(*edges, strict=True))
    return Matrix.from_coo(r, c, w.astype(np.float64), dtype, nrows=n, ncols=n)


def to_nx(n: int, edges: list[tuple[int, int, float]]) -> nx.DiGraph:
    G = nx.DiGraph()
    G.add_nodes_from(range(n))
    G.add_weighted_edges_from(edges)
    return G


def as_dict(v) -> dict[int, float]:
    idx, vals = v.to_coo()
    return dict(zip(idx.tolist(), vals.tolist(), strict=True))


# ---------------------------------------------------------------- random graphs
@given(weighted_digraphs())
def test_nonnegative_weights_match_dijkstra(g):
    n, edges, s = g
    d = sssp(to_matrix(n, edges), s)
    assert d.dtype == FP64 and d.size == n
    assert as_dict(d) == nx.single_source_dijkstra_path_length(to_nx(n, edges), s)


@given(weighted_digraphs(low=-5, high=10))
def test_negative_weights_match_bellman_ford(g):
    n, edges, s = g
    G = to_nx(n, edges)
    try:
        expected = nx.single_source_bellman_ford_path_length(G, s)
    except nx.NetworkXUnbounded:
        with pytest.raises(InvalidValue, match="negative cycle"):
            sssp(to_matrix(n, edges), s)
        return
    assert as_dict(sssp(to_matrix(n, edges), s)) == expected


@given(weighted_digraphs(low=-5, high=10))
def test_negative_dag_weights(g):
    """Edges only go up (u < v): no cycle, negative weights everywhere allowed."""
    n, edges, s = g
    dag = [(min(u, v), max(u, v), w) for u, v, w in edges if u != v]
    dag = list({(u, v): (u, v, w) for u, v, w in dag}.values())
    expected = nx.single_source_bellman_ford_path_length(to_nx(n, dag), s)
    assert as_dict(sssp(to_matrix(n, dag), s)) == expected


@given(weighted_digraphs())
def test_bool_matrix_gives_hop_counts(g):
    n, edges, s = g
    A = to_matrix(n, edges, BOOL)
    hops = csgraph.shortest_path(A.to_scipy_sparse().astype(np.float64), unweighted=True,
                                 indices=s)
    d = sssp(A, s)
    assert d.dtype == FP64
    assert np.array_equal(d.to_dense(fill_value=np.inf), hops)


@given(weighted_digraphs(), st.integers(0, 5))
def test_max_iters_bounds_path_length(g, k):
    """k rounds give the shortest paths of at most k edges."""
    n, edges, s = g
    dist = np.full(n, np.inf)
    dist[s] = 0.0
    for _ in range(k):  # k synchronous Bellman-Ford rounds
        new = dist.copy()
        for u, v, w in edges:
            new[v] = min(new[v], dist[u] + w)
        dist = new
    got = sssp(to_matrix(n, edges), s, max_iters=k).to_dense(fill_value=np.inf)
    # the frontier variant may see a shorter path sooner, never a longer one
    assert np.all(got <= dist)
    exact = sssp(to_matrix(n, edges), s).to_dense(fill_value=np.inf)
    assert np.all(got >= exact)
    assert np.array_equal(np.isinf(got), np.isinf(dist))


# ---------------------------------------------------------------- edge cases
def test_single_vertex():
    d = sssp(Matrix(FP64, 1, 1), 0)
    assert as_dict(d) == {0: 0.0}


def test_unreachable_vertices_are_absent():
    A = to_matrix(5, [(0, 1, 2.0), (3, 4, 1.0)])
    assert as_dict(sssp(A, 0)) == {0: 0.0, 1: 2.0}
    assert as_dict(sssp(A, 2)) == {2: 0.0}
    assert as_dict(sssp(A, 3)) == {3: 0.0, 4: 1.0}


def test_directed_edges_followed_forward_only():
    A = to_matrix(3, [(0, 1, 1.0), (1, 2, 1.0)])
    assert as_dict(sssp(A, 2)) == {2: 0.0}
    assert as_dict(sssp(A, 0)) == {0: 0.0, 1: 1.0, 2: 2.0}


def test_self_loops():
    A = to_matrix(2, [(0, 0, 3.0), (0, 1, 1.0), (1, 1, 0.0)])
    assert as_dict(sssp(A, 0)) == {0: 0.0, 1: 1.0}
    with pytest.raises(InvalidValue, match="negative cycle"):
        sssp(to_matrix(2, [(0, 1, 1.0), (1, 1, -0.5)]), 0)


def test_stored_zero_is_an_edge_and_zero_cycle_is_fine():
    A = to_matrix(3, [(0, 1, 0.0), (1, 0, 0.0), (1, 2, 0.0)])
    assert as_dict(sssp(A, 0)) == {0: 0.0, 1: 0.0, 2: 0.0}


def test_negative_cycle_not_reachable_is_ignored():
    A = to_matrix(4, [(0, 1, 1.0), (2, 3, -2.0), (3, 2, 1.0)])
    assert as_dict(sssp(A, 0)) == {0: 0.0, 1: 1.0}
    with pytest.raises(InvalidValue, match="negative cycle"):
        sssp(A, 2)


def test_integer_weights_cast_to_fp64():
    A = Matrix.from_coo([0, 1, 0], [1, 2, 2], [2, 3, 9], INT64, nrows=3, ncols=3)
    d = sssp(A, 0)
    assert d.dtype == FP64 and as_dict(d) == {0: 0.0, 1: 2.0, 2: 5.0}


def test_max_iters_zero_and_one():
    A = to_matrix(3, [(0, 1, 5.0), (0, 2, 1.0), (2, 1, 1.0)])
    assert as_dict(sssp(A, 0, max_iters=0)) == {0: 0.0}
    assert as_dict(sssp(A, 0, max_iters=1)) == {0: 0.0, 1: 5.0, 2: 1.0}
    assert as_dict(sssp(A, 0, max_iters=2)) == {0: 0.0, 1: 2.0, 2: 1.0}


# ---------------------------------------------------------------- errors
def test_errors():
    A = to_matrix(3, [(0, 1, 1.0)])
    with pytest.raises(DimensionMismatch):
        sssp(Matrix(FP64, 2, 3), 0)
    with pytest.raises(IndexOutOfBound):
        sssp(A, 3)
    with pytest.raises(IndexOutOfBound):
        sssp(A, -1)
    with pytest.raises(IndexOutOfBound):
        sssp(Matrix(FP64, 0, 0), 0)
    with pytest.raises(InvalidValue):
        sssp(A, "a")
    for bad in (-1, 1.5, "x", True):
        with pytest.raises(InvalidValue):
            sssp(A, 0, max_iters=bad)
    with pytest.raises(InvalidObject):
        sssp(np.eye(3), 0)


# ---------------------------------------------------------------- a real graph
def test_facebook_weighted_matches_scipy_dijkstra(graphs_path):
    path = graphs_path / "snap_ego-Facebook.mtx.gz"
    if not path.exists():
        pytest.skip("snap_ego-Facebook.mtx.gz not in the graphs folder")
    with gzip.open(path) as f:
        S = sp.coo_matrix(scipy.io.mmread(f))
    rng = np.random.default_rng(7)
    W = sp.coo_matrix((rng.integers(1, 20, S.nnz).astype(np.float64), (S.row, S.col)),
                      shape=S.shape).tocsr()
    A = Matrix.from_scipy_sparse(W)
    for s in (0, 1912):
        expected = csgraph.dijkstra(W, indices=s)
        assert np.array_equal(sssp(A, s).to_dense(fill_value=np.inf), expected)
    hops = csgraph.shortest_path(W, unweighted=True, indices=0)
    pattern = Matrix.from_scipy_sparse(S.astype(bool))
    assert np.array_equal(sssp(pattern, 0).to_dense(fill_value=np.inf), hops)
