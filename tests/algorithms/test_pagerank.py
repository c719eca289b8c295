"""pagerank (power iteration over plus_times) against networkx.pagerank."""

from __future__ import annotations

import gzip

import networkx as nx
import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
from hypothesis import assume, given
from hypothesis import strategies as st

from gblas import BOOL, FP64, INT64, Matrix, Vector
from gblas.algorithms.pagerank import pagerank
from gblas.exceptions import DimensionMismatch, InvalidObject, InvalidValue


@st.composite
def graphs(draw, max_n: int = 40):
    """(n, [(u, v)], directed): distinct edges, self-loops allowed."""
    n = draw(st.integers(1, max_n))
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)),
                          max_size=3 * n, unique=True))
    return n, pairs, draw(st.booleans())


def build(n: int, pairs, directed: bool, weights=None):
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from(range(n))
    w = weights if weights is not None else [1.0] * len(pairs)
    G.add_weighted_edges_from((u, v, x) for (u, v), x in zip(pairs, w, strict=True))
    S = nx.to_scipy_sparse_array(G, nodelist=range(n), format="csr").tocoo()
    return G, Matrix.from_coo(S.row, S.col, S.data.astype(np.float64), FP64, nrows=n, ncols=n)


def nx_vector(G, n: int, **kw) -> np.ndarray:
    pr = nx.pagerank(G, **kw)
    return np.array([pr[i] for i in range(n)])


@given(graphs(), st.sampled_from([0.85, 0.5, 0.7]), st.sampled_from([1e-4, 1e-6]))
def test_matches_networkx(g, damping, tol):
    n, pairs, directed = g
    G, A = build(n, pairs, directed)
    try:
        expected = nx_vector(G, n, alpha=damping, tol=tol)
    except nx.PowerIterationFailedConvergence:
        assume(False)
    r = pagerank(A, damping=damping, tol=tol)
    assert r.dtype == FP64 and r.nvals == n
    got = r.to_dense()
    assert abs(got.sum() - 1.0) < 1e-9
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9)


@given(graphs(), st.data())
def test_weighted_matches_networkx(g, data):
    n, pairs, directed = g
    w = data.draw(st.lists(st.integers(1, 9), min_size=len(pairs), max_size=len(pairs)))
    G, A = build(n, pairs, directed, [float(x) for x in w])
    expected = nx_vector(G, n, tol=1e-4)
    got = pagerank(A, weighted=True).to_dense()
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9)
    # unweighted ignores the values: same as networkx with weight=None
    np.testing.assert_allclose(pagerank(A).to_dense(),
                               nx_vector(G, n, tol=1e-4, weight=None), rtol=0, atol=1e-9)


def dist(d: dict, n: int, dtype=FP64) -> Vector:
    return Vector.from_coo(list(d), list(d.values()), dtype, size=n)


@given(graphs(), st.data())
def test_personalization_nstart_dangling_match_networkx(g, data):
    """The three optional distributions (each a sparse Vector: absent = 0), alone and
    together, as networkx.pagerank's dicts."""
    n, pairs, directed = g
    G, A = build(n, pairs, directed)
    weights = st.dictionaries(st.integers(0, n - 1), st.integers(1, 9), min_size=1)
    chosen = data.draw(st.sets(st.sampled_from(["personalization", "nstart", "dangling"])))
    kw = {name: data.draw(weights) for name in chosen}
    try:
        expected = nx_vector(G, n, tol=1e-10, **kw)
    except nx.PowerIterationFailedConvergence:
        assume(False)
    # integer Vectors: the division by the sum is a float division
    got = pagerank(A, tol=1e-10, **{k: dist(v, n, INT64) for k, v in kw.items()}).to_dense()
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9)


def test_personalization_concentrates_the_jump():
    """A personalization on one vertex of a graph without edges: all the rank is there."""
    r = pagerank(Matrix(BOOL, 4, 4), personalization=dist({2: 5.0}, 4)).to_dense()
    np.testing.assert_allclose(r, [0.0, 0.0, 1.0, 0.0], atol=1e-12)


def test_distribution_errors():
    A = Matrix.from_coo([0], [1], True, BOOL, nrows=3, ncols=3)
    for name in ("personalization", "nstart", "dangling"):
        with pytest.raises(DimensionMismatch, match=name):
            pagerank(A, **{name: dist({0: 1.0}, 4)})
        with pytest.raises(InvalidObject, match=name):
            pagerank(A, **{name: {0: 1.0}})
        with pytest.raises(InvalidValue, match="nonzero sum"):
            pagerank(A, **{name: Vector(FP64, 3)})
        with pytest.raises(InvalidValue, match="nonzero sum"):
            pagerank(A, **{name: dist({0: 1.0, 1: -1.0}, 3)})


# ---------------------------------------------------------------- edge cases
def test_empty_and_single_vertex():
    assert pagerank(Matrix(BOOL, 0, 0)).size == 0
    assert pagerank(Matrix(BOOL, 1, 1)).to_dense().tolist() == [1.0]
    loop = Matrix.from_coo([0], [0], True, BOOL, nrows=1, ncols=1)
    assert pagerank(loop).to_dense().tolist() == pytest.approx([1.0])


def test_no_edges_is_uniform():
    r = pagerank(Matrix(BOOL, 7, 7)).to_dense()
    np.testing.assert_allclose(r, np.full(7, 1 / 7))


def test_damping_zero_is_uniform():
    A = Matrix.from_coo([0, 1, 2], [1, 2, 0], True, BOOL, nrows=4, ncols=4)
    np.testing.assert_allclose(pagerank(A, damping=0.0).to_dense(), np.full(4, 0.25))


def test_dangling_and_isolated_vertices():
    pairs = [(0, 1), (1, 2), (3, 2), (2, 2)]
    G, A = build(6, pairs, True)
    np.testing.assert_allclose(pagerank(A, tol=1e-8).to_dense(),
                               nx_vector(G, 6, tol=1e-8), rtol=0, atol=1e-12)


def test_bool_and_int_matrices():
    G, A = build(5, [(0, 1), (1, 2), (2, 0), (3, 4)], True)
    expected = nx_vector(G, 5, tol=1e-8)
    r, c, _ = A.to_coo()
    for dtype, vals in ((BOOL, True), (INT64, 3)):
        B = Matrix.from_coo(r, c, vals, dtype, nrows=5, ncols=5)
        np.testing.assert_allclose(pagerank(B, tol=1e-8).to_dense(), expected, atol=1e-12)


def test_max_iters_and_stats():
    G, A = build(30, [(i, (i * 7 + 3) % 30) for i in range(30)] + [(0, 5)], True)
    stats: dict = {}
    r = pagerank(A, tol=1e-12, max_iters=3, stats=stats)
    assert stats["iterations"] == 3 and stats["converged"] is False
    assert abs(r.to_dense().sum() - 1.0) < 1e-12
    stats = {}
    pagerank(A, tol=1e-6, stats=stats)
    assert stats["converged"] is True and stats["iterations"] < 100


def test_errors():
    A = Matrix.from_coo([0], [1], True, BOOL, nrows=2, ncols=2)
    with pytest.raises(DimensionMismatch):
        pagerank(Matrix(BOOL, 2, 3))
    with pytest.raises(InvalidObject):
        pagerank(np.eye(2))
    for kw in ({"damping": -0.1}, {"damping": 1.5}, {"damping": "x"}, {"tol": 0.0},
               {"tol": -1.0}, {"tol": float("nan")}, {"max_iters": 0}, {"max_iters": 2.5},
               {"max_iters": True}):
        with pytest.raises(InvalidValue):
            pagerank(A, **kw)
    W = Matrix.from_coo([0], [1], -1.0, FP64, nrows=2, ncols=2)
    with pytest.raises(InvalidValue):
        pagerank(W, weighted=True)


# ---------------------------------------------------------------- a real graph
def test_facebook(graphs_path):
    path = graphs_path / "snap_ego-Facebook.mtx.gz"
    if not path.exists():
        pytest.skip("snap_ego-Facebook.mtx.gz not in the graphs folder")
    with gzip.open(path) as f:
        S = sp.coo_matrix(scipy.io.mmread(f))
    n = S.shape[0]
    A = Matrix.from_scipy_sparse(S)
    G = nx.from_scipy_sparse_array(S)
    expected = nx_vector(G, n, tol=1e-4)
    got = pagerank(A).to_dense()
    assert abs(got.sum() - 1.0) < 1e-9
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-10)
    assert int(np.argmax(got)) == int(np.argmax(expected))
