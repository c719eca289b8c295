"""triangle_count (masked L·Lᵀ, Sandia) against NetworkX."""

from __future__ import annotations

import gzip
import importlib
from math import comb

import networkx as nx
import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

from gblas import BOOL, FP64, INT64, Matrix
from gblas.algorithms.triangle_count import triangle_count
from gblas.exceptions import DimensionMismatch, InvalidObject

# the module (gblas.algorithms re-exports the function under the same name)
tc_module = importlib.import_module("gblas.algorithms.triangle_count")


@st.composite
def graphs(draw, max_n: int = 40):
    """(n, [(u, v)]): random undirected edges given once each, self-loops allowed."""
    n = draw(st.integers(1, max_n))
    density = draw(st.sampled_from([0.05, 0.2, 0.5]))
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)),
                          max_size=int(density * n * n) + 1, unique=True))
    return n, pairs


def nx_triangles(n: int, pairs) -> int:
    G = nx.Graph()
    G.add_nodes_from(range(n))
    G.add_edges_from((u, v) for u, v in pairs if u != v)
    return sum(nx.triangles(G).values()) // 3


def symmetric(n: int, pairs, dtype=BOOL, value=True) -> Matrix:
    keys = {(u, v) for u, v in pairs} | {(v, u) for u, v in pairs}
    if not keys:
        return Matrix(dtype, n, n)
    r, c = (np.array(x, dtype=np.int64) for x in zip(*sorted(keys), strict=True))
    return Matrix.from_coo(r, c, value, dtype, nrows=n, ncols=n)


@given(graphs())
def test_matches_networkx(g):
    n, pairs = g
    expected = nx_triangles(n, pairs)
    A = symmetric(n, pairs)
    assert triangle_count(A) == expected
    assert triangle_count(A, symmetrize=False) == expected


@given(graphs())
def test_directed_input_is_read_as_undirected(g):
    """Each edge stored in one direction only (either one) counts as an undirected edge."""
    n, pairs = g
    expected = nx_triangles(n, pairs)
    if pairs:
        r, c = (np.array(x, dtype=np.int64) for x in zip(*pairs, strict=True))
        keys = np.unique(r * n + c)
        A = Matrix.from_coo(keys // n, keys % n, 1.0, FP64, nrows=n, ncols=n)
    else:
        A = Matrix(FP64, n, n)
    assert triangle_count(A) == expected


# ---------------------------------------------------------------- edge cases
def test_empty_and_tiny_graphs():
    assert triangle_count(Matrix(BOOL, 0, 0)) == 0
    assert triangle_count(Matrix(BOOL, 1, 1)) == 0
    assert triangle_count(Matrix(BOOL, 5, 5)) == 0
    assert triangle_count(symmetric(2, [(0, 1)])) == 0


@pytest.mark.parametrize("n", [3, 4, 7, 12])
def test_complete_graphs(n):
    pairs = [(i, j) for i in range(n) for j in range(i)]
    assert triangle_count(symmetric(n, pairs)) == comb(n, 3)


def test_self_loops_are_ignored():
    pairs = [(0, 1), (1, 2), (2, 0), (0, 0), (1, 1), (2, 2), (3, 3)]
    assert triangle_count(symmetric(4, pairs)) == 1
    assert triangle_count(symmetric(4, pairs), symmetrize=False) == 1


def test_disconnected_pieces_add_up():
    tri = [(0, 1), (1, 2), (2, 0)]
    k4 = [(3 + i, 3 + j) for i in range(4) for j in range(i)]
    assert triangle_count(symmetric(10, tri + k4)) == 1 + 4


def test_values_are_ignored():
    pairs = [(0, 1), (1, 2), (2, 0)]
    assert triangle_count(symmetric(3, pairs, INT64, 0)) == 1
    assert triangle_count(symmetric(3, pairs, FP64, -2.5)) == 1
    assert triangle_count(symmetric(3, pairs, BOOL, False)) == 1


def test_result_is_python_int():
    assert type(triangle_count(symmetric(3, [(0, 1), (1, 2), (2, 0)]))) is int


def test_errors():
    with pytest.raises(DimensionMismatch):
        triangle_count(Matrix(BOOL, 3, 2))
    with pytest.raises(InvalidObject):
        triangle_count([[0, 1], [1, 0]])


# ---------------------------------------------------------------- a real graph
def test_facebook(graphs_path):
    path = graphs_path / "snap_ego-Facebook.mtx.gz"
    if not path.exists():
        pytest.skip("snap_ego-Facebook.mtx.gz not in the graphs folder")
    with gzip.open(path) as f:
        S = sp.coo_matrix(scipy.io.mmread(f))
    A = Matrix.from_scipy_sparse(S)
    assert triangle_count(A) == 1612010  # SNAP's published count for ego-Facebook
    assert triangle_count(A, symmetrize=False) == 1612010
    # the lower triangle alone (a "directed" copy) has the same triangles
    L = sp.tril(S, -1).tocoo()
    assert triangle_count(Matrix.from_scipy_sparse(L)) == 1612010


# ---------------------------------------------------------------- degree renumbering
@given(graphs())
def test_renumbered_by_degree_matches_networkx(g):
    with pytest.MonkeyPatch.context() as mp:  # renumber every graph, however small or regular
        mp.setattr(tc_module, "PRESORT_MIN_VERTICES", 0)
        mp.setattr(tc_module, "PRESORT_MIN_MEAN_DEGREE", 0)
        mp.setattr(tc_module, "PRESORT_SKEW", -1)
        renumbered_matches_networkx(*g)


def renumbered_matches_networkx(n, pairs):
    expected = nx_triangles(n, pairs)
    A = symmetric(n, pairs, FP64, 2.5)
    L = A.select("tril", -1).new()
    if L.nvals:
        order = tc_module.degree_order(L)
        assert sorted(order.tolist()) == list(range(n))
        deg = np.zeros(n, dtype=np.int64)
        for u, v in {(min(u, v), max(u, v)) for u, v in pairs if u != v}:
            deg[u] += 1
            deg[v] += 1
        assert np.all(np.diff(deg[order]) <= 0)  # decreasing degree
    assert triangle_count(A) == expected
    assert triangle_count(A, symmetrize=False) == expected
    if pairs:  # one direction per edge, read as undirected
        r, c = (np.array(x, dtype=np.int64) for x in zip(*pairs, strict=True))
        keys = np.unique(r * n + c)
        D = Matrix.from_coo(keys // n, keys % n, 1, INT64, nrows=n, ncols=n)
        assert triangle_count(D) == expected


def test_skewed_graphs_are_renumbered_regular_ones_not():
    """LAGraph's rule: kron (hubs, mean degree >> median) is renumbered, urand is not; the
    count is NetworkX's either way."""
    from gblas import generators

    for make, skewed in ((generators.kronecker, True), (generators.urand, False)):
        A = make(12, seed=4)
        L = A.select("tril", -1).new()
        assert (tc_module.degree_order(L) is not None) == skewed
        S = A.to_scipy_sparse()
        G = nx.from_scipy_sparse_array(S)
        G.remove_edges_from(nx.selfloop_edges(G))
        assert triangle_count(A) == sum(nx.triangles(G).values()) // 3
