"""betweenness_centrality (batched Brandes) against NetworkX and a plain Brandes reference."""

from __future__ import annotations

import gzip
import math
from collections import deque

import networkx as nx
import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

from gblas import BOOL, FP64, INT64, Matrix
from gblas.algorithms.betweenness import betweenness_centrality
from gblas.exceptions import DimensionMismatch, IndexOutOfBound, InvalidObject, InvalidValue


@st.composite
def graphs(draw, max_n: int = 40):
    """(n, [(u, v)], directed): distinct edges, self-loops allowed."""
    n = draw(st.integers(1, max_n))
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)),
                          max_size=3 * n, unique=True))
    return n, pairs, draw(st.booleans())


def build(n: int, pairs, directed: bool):
    """(NetworkX graph with nodes 0..n-1 in order, gblas BOOL adjacency)."""
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from(range(n))
    G.add_edges_from(pairs)
    keys = {(u, v) for u, v in G.edges()}
    if not directed:
        keys |= {(v, u) for u, v in keys}
    if not keys:
        return G, Matrix(BOOL, n, n)
    r, c = (np.array(x, dtype=np.int64) for x in zip(*sorted(keys), strict=True))
    return G, Matrix.from_coo(r, c, True, BOOL, nrows=n, ncols=n)


def as_array(d: dict, n: int) -> np.ndarray:
    return np.array([d[i] for i in range(n)], dtype=np.float64)


def brandes_raw(n: int, adj: list[list[int]], sources) -> np.ndarray:
    """Σ_{s ∈ sources} δ_s(v) by Brandes' algorithm (one BFS per source, in Python)."""
    bc = np.zeros(n)
    for s in sources:
        sigma = np.zeros(n)
        sigma[s] = 1.0
        dist = np.full(n, -1)
        dist[s] = 0
        preds: list[list[int]] = [[] for _ in range(n)]
        order = []
        q = deque([s])
        while q:
            v = q.popleft()
            order.append(v)
            for w in adj[v]:
                if dist[w] < 0:
                    dist[w] = dist[v] + 1
                    q.append(w)
                if dist[w] == dist[v] + 1:
                    sigma[w] += sigma[v]
                    preds[w].append(v)
        delta = np.zeros(n)
        for w in reversed(order):
            for v in preds[w]:
                delta[v] += sigma[v] / sigma[w] * (1.0 + delta[w])
            if w != s:
                bc[w] += delta[w]
    return bc


def rescaled(raw: np.ndarray, sources, directed: bool, normalized: bool) -> np.ndarray:
    """The estimate of a source sample, scaled as NetworkX 3.x does (endpoints excluded)."""
    n = raw.size
    big_n = n - 1
    if big_n < 2:
        return raw
    k = len(sources)
    corr = 1.0 if directed else 2.0
    if k == n:
        return raw / (big_n * (big_n - 1)) if normalized else raw / corr
    out = raw.copy()
    is_src = np.zeros(n, dtype=bool)
    is_src[list(sources)] = True
    if normalized:
        s_src = 1 / ((k - 1) * (big_n - 1)) if k > 1 else math.nan
        s_other = 1 / (k * (big_n - 1))
    else:
        s_src = big_n / ((k - 1) * corr) if k > 1 else math.nan
        s_other = big_n / (k * corr)
    out[is_src] *= s_src
    out[~is_src] *= s_other
    return out


def adjacency(G) -> list[list[int]]:
    return [[w for w in G.successors(v)] if G.is_directed() else list(G.neighbors(v))
            for v in range(len(G))]


def bc(A, **kw) -> np.ndarray:
    """gblas' betweenness as a dense array. The NetworkX comparisons pass ``directed``: a
    symmetric DiGraph (a 2-cycle, say) counts both directions of every pair, a Graph once,
    and a symmetric matrix alone cannot say which was meant (``directed=None`` reads it as
    undirected)."""
    v = betweenness_centrality(A, **kw)
    assert v.dtype == FP64 and v.nvals == A.nrows
    return v.to_dense()


# ---------------------------------------------------------------- exact
@given(graphs(), st.booleans(), st.sampled_from([16, 64]))
def test_exact_matches_networkx(g, normalized, batch):
    n, pairs, directed = g
    G, A = build(n, pairs, directed)
    expected = as_array(nx.betweenness_centrality(G, normalized=normalized), n)
    np.testing.assert_allclose(bc(A, normalized=normalized, batch_size=batch, directed=directed),
                               expected,
                               rtol=0, atol=1e-9)


@given(graphs(), st.booleans())
def test_all_sources_sampled_is_exact(g, normalized):
    n, pairs, directed = g
    G, A = build(n, pairs, directed)
    exact = bc(A, normalized=normalized)
    np.testing.assert_allclose(bc(A, normalized=normalized, samples=n), exact, atol=1e-12)
    perm = np.random.default_rng(n).permutation(n)
    np.testing.assert_allclose(bc(A, normalized=normalized, sources=perm), exact, atol=1e-12)


# ---------------------------------------------------------------- sampled
@given(graphs(), st.booleans(), st.data())
def test_explicit_sources_match_reference(g, normalized, data):
    n, pairs, directed = g
    G, A = build(n, pairs, directed)
    k = data.draw(st.integers(1, n))
    sources = data.draw(st.permutations(range(n)))[:k]
    expected = rescaled(brandes_raw(n, adjacency(G), sources), sources, directed, normalized)
    got = bc(A, normalized=normalized, sources=sources, batch_size=4, directed=directed)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9)
    if normalized is False and directed:
        # the raw sums agree with NetworkX's subset betweenness (directed: no halving)
        sub = nx.betweenness_centrality_subset(G, sources, list(range(n)), normalized=False)
        np.testing.assert_allclose(brandes_raw(n, adjacency(G), sources),
                                   as_array(sub, n), atol=1e-9)


@given(graphs(), st.booleans(), st.data())
def test_samples_match_networkx_k_seed(g, normalized, data):
    """samples=k draws what networkx draws for k=k, seed=seed on nodes 0..n-1."""
    n, pairs, directed = g
    G, A = build(n, pairs, directed)
    k = data.draw(st.integers(1, n))
    seed = data.draw(st.integers(0, 1000))
    expected = as_array(nx.betweenness_centrality(G, k=k, normalized=normalized, seed=seed), n)
    got = bc(A, samples=k, seed=seed, normalized=normalized, directed=directed)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9, equal_nan=True)


@given(graphs(), st.booleans(), st.data())
def test_endpoints_match_networkx(g, normalized, data):
    """endpoints=True, exact and with a k-sample, as networkx counts and rescales it."""
    n, pairs, directed = g
    G, A = build(n, pairs, directed)
    expected = nx.betweenness_centrality(G, normalized=normalized, endpoints=True)
    got = bc(A, normalized=normalized, endpoints=True, batch_size=4, directed=directed)
    np.testing.assert_allclose(got, as_array(expected, n), rtol=0, atol=1e-9)
    k = data.draw(st.integers(1, n))
    seed = data.draw(st.integers(0, 1000))
    expected = nx.betweenness_centrality(G, k=k, normalized=normalized, endpoints=True,
                                         seed=seed)
    got = bc(A, samples=k, seed=seed, normalized=normalized, endpoints=True,
             directed=directed)
    np.testing.assert_allclose(got, as_array(expected, n), rtol=0, atol=1e-9)


def test_same_seed_same_sample():
    G, A = build(30, [(i, (3 * i + 1) % 30) for i in range(30)] + [(0, 15)], False)
    a = bc(A, samples=5, seed=11)
    assert np.array_equal(a, bc(A, samples=5, seed=11))


# ---------------------------------------------------------------- edge cases
def test_empty_and_tiny_graphs():
    assert betweenness_centrality(Matrix(BOOL, 0, 0)).size == 0
    for n in (1, 2, 5):
        for norm in (True, False):
            assert np.array_equal(bc(Matrix(BOOL, n, n), normalized=norm), np.zeros(n))


def test_path_and_star():
    _, P = build(3, [(0, 1), (1, 2)], False)
    assert bc(P).tolist() == [0.0, 1.0, 0.0]
    assert bc(P, normalized=False).tolist() == [0.0, 1.0, 0.0]
    G, S = build(6, [(0, i) for i in range(1, 6)], False)
    np.testing.assert_allclose(bc(S, normalized=False), [10.0, 0, 0, 0, 0, 0])
    np.testing.assert_allclose(bc(S), [1.0, 0, 0, 0, 0, 0])


def test_self_loops_and_isolated_vertices():
    pairs = [(0, 1), (1, 2), (1, 1), (2, 2), (4, 5), (5, 6)]
    G, A = build(8, pairs, False)
    expected = as_array(nx.betweenness_centrality(G), 8)
    np.testing.assert_allclose(bc(A), expected, atol=1e-12)


def test_directed_flag():
    """directed=True reads a symmetric A as a DiGraph; directed=False symmetrises."""
    pairs = [(0, 1), (1, 2), (2, 3), (1, 3), (3, 4)]
    G, A = build(5, pairs, False)
    D = nx.DiGraph(G)
    for norm in (True, False):
        np.testing.assert_allclose(bc(A, directed=True, normalized=norm),
                                   as_array(nx.betweenness_centrality(D, normalized=norm), 5))
    Gd, Ad = build(5, pairs, True)
    for norm in (True, False):
        np.testing.assert_allclose(
            bc(Ad, directed=False, normalized=norm),
            as_array(nx.betweenness_centrality(Gd.to_undirected(), normalized=norm), 5))


def test_values_and_dtypes_are_ignored():
    G, A = build(6, [(0, 1), (1, 2), (2, 3), (3, 4), (1, 5)], True)
    r, c, _ = A.to_coo()
    B = Matrix.from_coo(r, c, 7, INT64, nrows=6, ncols=6)
    np.testing.assert_allclose(bc(B), as_array(nx.betweenness_centrality(G), 6))


# ---------------------------------------------------------------- errors
def test_errors():
    _, A = build(4, [(0, 1), (1, 2)], False)
    with pytest.raises(DimensionMismatch):
        betweenness_centrality(Matrix(BOOL, 2, 3))
    with pytest.raises(InvalidObject):
        betweenness_centrality(np.eye(3))
    for kw in ({"samples": 0}, {"samples": 5}, {"samples": 2.5}, {"samples": True},
               {"samples": 2, "sources": [0]}, {"sources": []}, {"sources": [1, 1]},
               {"sources": [[0, 1]]}, {"sources": [0.5]}, {"batch_size": 0},
               {"directed": "yes"}, {"endpoints": "yes"}, {"endpoints": None}):
        with pytest.raises(InvalidValue):
            betweenness_centrality(A, **kw)
    with pytest.raises(IndexOutOfBound):
        betweenness_centrality(A, sources=[0, 4])
    with pytest.raises(IndexOutOfBound):
        betweenness_centrality(A, sources=[-1])


# ---------------------------------------------------------------- a real graph
def test_facebook_sources(graphs_path):
    path = graphs_path / "snap_ego-Facebook.mtx.gz"
    if not path.exists():
        pytest.skip("snap_ego-Facebook.mtx.gz not in the graphs folder")
    with gzip.open(path) as f:
        S = sp.csr_matrix(scipy.io.mmread(f))
    n = S.shape[0]
    A = Matrix.from_scipy_sparse(S)
    sources = np.random.default_rng(5).choice(n, 12, replace=False).tolist()
    adj = [S.indices[S.indptr[v]:S.indptr[v + 1]].tolist() for v in range(n)]
    raw = brandes_raw(n, adj, sources)
    got = bc(A, sources=sources, normalized=False, batch_size=8)
    np.testing.assert_allclose(got, rescaled(raw, sources, False, False), rtol=1e-12,
                               atol=1e-9)
    assert int(np.argmax(got)) == int(np.argmax(raw))
