"""msbfs (multi-source BFS as masked SpMM): row s equals bfs(A, sources[s])."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
from hypothesis import given, note
from hypothesis import strategies as st

from gblas import BOOL, FP64, INT64, Matrix, generators
from gblas.algorithms import bfs, msbfs
from gblas.exceptions import DimensionMismatch, IndexOutOfBound, InvalidObject, InvalidValue


@st.composite
def graphs(draw, max_n: int = 50):
    n = draw(st.integers(1, max_n))
    directed = draw(st.booleans())
    avg_degree = draw(st.sampled_from([0.0, 0.7, 1.5, 3.0, 8.0, 30.0]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    mask = rng.random((n, n)) < min(1.0, avg_degree / n)
    if not directed:
        mask = mask | mask.T
    r, c = np.nonzero(mask)
    kind = draw(st.sampled_from(["bool", "int64-zeros", "fp64"]))
    if kind == "bool":
        A = Matrix.from_coo(r, c, True, BOOL, nrows=n, ncols=n)
    elif kind == "int64-zeros":
        A = Matrix.from_coo(r, c, rng.integers(0, 2, r.size), INT64, nrows=n, ncols=n)
    else:
        A = Matrix.from_coo(r, c, rng.standard_normal(r.size), FP64, nrows=n, ncols=n)
    A.to_format(draw(st.sampled_from(["csr", "coo"])))
    note(f"n={n} directed={directed} nvals={A.nvals} kind={kind} format={A.format}")
    return A, r, c


def rows_of(L: Matrix) -> list[dict[int, int]]:
    r, c, v = L.to_coo()
    out: list[dict[int, int]] = [{} for _ in range(L.nrows)]
    for i, j, x in zip(r.tolist(), c.tolist(), v.tolist(), strict=True):
        out[i][j] = x
    return out


def as_dict(v) -> dict[int, int]:
    idx, vals = v.to_coo()
    return dict(zip(idx.tolist(), vals.tolist(), strict=True))


def scipy_rows(n, r, c, sources) -> list[dict[int, int]]:
    S = sp.csr_matrix((np.ones(r.size), (r, c)), shape=(n, n))
    d = csgraph.shortest_path(S, unweighted=True, directed=True, indices=list(sources))
    d = d.reshape(len(sources), n)
    return [{int(j): int(row[j]) for j in np.flatnonzero(np.isfinite(row))} for row in d]


@given(graphs(), st.data())
def test_rows_equal_single_source_bfs(g, data):
    A, r, c = g
    n = A.nrows
    sources = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=8),
                        label="sources")
    L = msbfs(A, sources)
    assert L.dtype == INT64
    assert L.shape == (len(sources), n)
    rows = rows_of(L)
    for s, row in zip(sources, rows, strict=True):
        assert row == as_dict(bfs(A, s))
    assert rows == scipy_rows(n, r, c, sources)


@given(graphs(max_n=30), st.data())
def test_all_sources_give_distance_matrix(g, data):
    A, r, c = g
    n = A.nrows
    L = msbfs(A, np.arange(n))
    assert rows_of(L) == scipy_rows(n, r, c, range(n))


def test_duplicate_and_unsorted_sources():
    A = generators.grid2d(3, 4)
    sources = [5, 0, 5, 11, 0]
    rows = rows_of(msbfs(A, sources))
    assert rows[0] == rows[2] and rows[1] == rows[4]
    for s, row in zip(sources, rows, strict=True):
        assert row == as_dict(bfs(A, s))


def test_source_types():
    A = generators.grid2d(3, 3)
    expected = as_dict(bfs(A, 4))
    for src in (4, [4], (4,), np.array([4]), np.array([4], dtype=np.int32), np.int64(4)):
        L = msbfs(A, src)
        assert L.shape == (1, 9)
        assert rows_of(L)[0] == expected


def test_directed_and_disconnected():
    # 0 -> 1 -> 2, 3 <-> 4, 5 isolated
    A = Matrix.from_coo([0, 1, 3, 4], [1, 2, 4, 3], True, BOOL, nrows=6, ncols=6)
    rows = rows_of(msbfs(A, [0, 2, 3, 5]))
    assert rows == [{0: 0, 1: 1, 2: 2}, {2: 0}, {3: 0, 4: 1}, {5: 0}]


def test_self_loops_and_single_vertex():
    A = Matrix.from_coo([0], [0], True, BOOL, nrows=1, ncols=1)
    assert rows_of(msbfs(A, [0, 0])) == [{0: 0}, {0: 0}]
    assert rows_of(msbfs(Matrix(BOOL, 1, 1), [0])) == [{0: 0}]


def test_kronecker_rows_equal_bfs():
    A = generators.kronecker(9, seed=2)
    deg = np.diff(A.to_csr()[0])
    sources = [int(np.argmax(deg)), int(np.flatnonzero(deg)[0]), int(np.flatnonzero(deg == 0)[0])
               if (deg == 0).any() else 1]
    rows = rows_of(msbfs(A, sources))
    for s, row in zip(sources, rows, strict=True):
        assert row == as_dict(bfs(A, s))


def test_does_not_modify_graph():
    A = generators.grid2d(4, 4)
    before = A.dup()
    msbfs(A, [0, 15])
    assert A.isequal(before)


# ---------------------------------------------------------------- errors
def test_empty_sources():
    A = generators.grid2d(2, 2)
    for src in ([], np.array([], dtype=np.int64), ()):
        with pytest.raises(InvalidValue):
            msbfs(A, src)


@pytest.mark.parametrize("sources", [[4], [0, 4], [-1], [0, 1, -3], [100], 4, -1])
def test_source_out_of_range(sources):
    with pytest.raises(IndexOutOfBound):
        msbfs(generators.grid2d(2, 2), sources)


def test_empty_graph():
    with pytest.raises(IndexOutOfBound):
        msbfs(Matrix(BOOL, 0, 0), [0])


def test_non_square():
    A = Matrix.from_coo([0, 1], [1, 2], True, BOOL, nrows=2, ncols=3)
    with pytest.raises(DimensionMismatch):
        msbfs(A, [0])


def test_not_a_matrix():
    with pytest.raises(InvalidObject):
        msbfs(np.eye(3), [0])
