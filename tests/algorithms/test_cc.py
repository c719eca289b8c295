"""connected_components (FastSV) against SciPy csgraph and NetworkX."""

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
from gblas.algorithms.cc import connected_components
from gblas.exceptions import DimensionMismatch, InvalidObject


@st.composite
def digraphs(draw, max_n: int = 40):
    """(n, rows, cols): a random directed graph (self-loops allowed)."""
    n = draw(st.integers(1, max_n))
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)),
                          max_size=2 * n, unique=True))
    r = np.array([p[0] for p in pairs], dtype=np.int64)
    c = np.array([p[1] for p in pairs], dtype=np.int64)
    return n, r, c


def min_labels(n: int, r: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Expected labels: the smallest vertex id of each weak component (SciPy)."""
    S = sp.coo_matrix((np.ones(r.size), (r, c)), shape=(n, n))
    _, comp = csgraph.connected_components(S, directed=True, connection="weak")
    smallest = np.full(comp.max() + 1 if n else 0, n, dtype=np.int64)
    np.minimum.at(smallest, comp, np.arange(n))
    return smallest[comp]


def labels_of(A: Matrix) -> np.ndarray:
    v = connected_components(A)
    assert v.dtype == INT64 and v.size == A.nrows and v.nvals == A.nrows
    return v.to_dense()


@given(digraphs())
def test_directed_input_gives_weak_components(g):
    n, r, c = g
    A = Matrix.from_coo(r, c, True, BOOL, nrows=n, ncols=n)
    assert np.array_equal(labels_of(A), min_labels(n, r, c))


@given(digraphs())
def test_undirected_matches_networkx(g):
    n, r, c = g
    G = nx.Graph()
    G.add_nodes_from(range(n))
    G.add_edges_from(zip(r.tolist(), c.tolist(), strict=True))
    rr, cc = np.concatenate([r, c]), np.concatenate([c, r])
    keys = np.unique(rr * n + cc)
    A = Matrix.from_coo(keys // n, keys % n, 1.0, FP64, nrows=n, ncols=n)
    expected = np.empty(n, dtype=np.int64)
    for comp in nx.connected_components(G):
        expected[list(comp)] = min(comp)
    assert np.array_equal(labels_of(A), expected)


@given(st.integers(1, 40), st.integers(0, 10**6))
def test_relabelled_path_is_one_component(n, seed):
    """A path through a random permutation: long chains stress hooking and shortcutting."""
    perm = np.random.default_rng(seed).permutation(n)
    A = Matrix.from_coo(perm[:-1], perm[1:], True, BOOL, nrows=n, ncols=n)
    assert np.array_equal(labels_of(A), np.zeros(n, dtype=np.int64))


# ---------------------------------------------------------------- edge cases
def test_empty_graph():
    assert labels_of(Matrix(BOOL, 0, 0)).size == 0
    assert np.array_equal(labels_of(Matrix(BOOL, 5, 5)), np.arange(5))


def test_single_vertex_and_self_loops():
    assert np.array_equal(labels_of(Matrix(BOOL, 1, 1)), [0])
    A = Matrix.from_coo([0, 1, 2, 2], [0, 1, 2, 1], True, BOOL, nrows=4, ncols=4)
    assert np.array_equal(labels_of(A), [0, 1, 1, 3])


def test_disconnected_with_isolated_vertices():
    A = Matrix.from_coo([5, 6, 1, 9], [6, 8, 4, 2], True, BOOL, nrows=10, ncols=10)
    assert np.array_equal(labels_of(A), [0, 1, 2, 3, 1, 5, 5, 7, 5, 2])


def test_directed_chain_pointing_down():
    n = 12
    A = Matrix.from_coo(np.arange(1, n), np.arange(n - 1), True, BOOL, nrows=n, ncols=n)
    assert np.array_equal(labels_of(A), np.zeros(n, dtype=np.int64))
    A = Matrix.from_coo(np.arange(n - 1), np.arange(1, n), True, BOOL, nrows=n, ncols=n)
    assert np.array_equal(labels_of(A), np.zeros(n, dtype=np.int64))


def test_values_are_ignored():
    A = Matrix.from_coo([0, 2], [1, 3], [0, -5], INT64, nrows=4, ncols=4)
    assert np.array_equal(labels_of(A), [0, 0, 2, 2])


def test_errors():
    with pytest.raises(DimensionMismatch):
        connected_components(Matrix(BOOL, 3, 4))
    with pytest.raises(InvalidObject):
        connected_components(np.eye(3))


# ---------------------------------------------------------------- a real graph
def test_facebook(graphs_path):
    path = graphs_path / "snap_ego-Facebook.mtx.gz"
    if not path.exists():
        pytest.skip("snap_ego-Facebook.mtx.gz not in the graphs folder")
    with gzip.open(path) as f:
        S = sp.coo_matrix(scipy.io.mmread(f))
    n = S.shape[0]
    A = Matrix.from_scipy_sparse(S)
    assert np.array_equal(labels_of(A), np.zeros(n, dtype=np.int64))  # one component
    # cut it into pieces: drop every edge that touches a random third of the vertices
    cut = np.random.default_rng(3).random(n) < 1 / 3
    keep = ~cut[S.row] & ~cut[S.col]
    r, c = S.row[keep].astype(np.int64), S.col[keep].astype(np.int64)
    B = Matrix.from_coo(r, c, True, BOOL, nrows=n, ncols=n)
    expected = min_labels(n, r, c)
    assert np.unique(expected).size > 100
    assert np.array_equal(labels_of(B), expected)
