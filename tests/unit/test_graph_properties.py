"""Graph properties cached on the Matrix (out-degree, in-degree, symmetry), as LAGraph caches
them: equal to SciPy's counts, computed once, dropped when the matrix changes."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import gblas as gb
from gblas import Matrix, binary
from gblas.algorithms import betweenness_centrality, bfs, triangle_count
from gblas.ops import properties


def _degrees(v: gb.Vector, n: int) -> np.ndarray:
    idx, vals = v.to_coo()
    assert (vals > 0).all()  # degree 0 has no entry (LAGraph's convention)
    out = np.zeros(n, dtype=np.int64)
    out[idx] = vals
    return out


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 30), st.integers(1, 30), st.floats(0.0, 0.5), st.integers(0, 2**16))
def test_degrees_match_scipy(nrows: int, ncols: int, density: float, seed: int) -> None:
    S = sp.random(nrows, ncols, density, format="csr", random_state=seed,  # noqa: N806
                  data_rvs=lambda k: np.arange(1, k + 1))
    A = gb.io.from_scipy_sparse(S)  # noqa: N806
    assert A.out_degree().dtype == gb.INT64
    np.testing.assert_array_equal(_degrees(A.out_degree(), nrows), np.diff(S.indptr))
    np.testing.assert_array_equal(_degrees(A.in_degree(), ncols),
                                  np.bincount(S.indices, minlength=ncols))
    np.testing.assert_array_equal(_degrees(A.T.out_degree(), ncols),
                                  _degrees(A.in_degree(), ncols))
    _ = A.T.new()  # in-degree from the cached transpose gives the same counts
    fresh = gb.io.from_scipy_sparse(S)
    fresh._csr_T()
    np.testing.assert_array_equal(_degrees(fresh.in_degree(), ncols),
                                  np.bincount(S.indices, minlength=ncols))


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 12), st.floats(0.0, 0.6), st.integers(0, 2**16), st.booleans())
def test_symmetry_matches_scipy(n: int, density: float, seed: int, symmetrize: bool) -> None:
    rng = np.random.default_rng(seed)
    S = sp.random(n, n, density, format="csr", random_state=seed,  # noqa: N806
                  data_rvs=lambda k: rng.integers(1, 3, k).astype(float))
    if symmetrize:
        S = (S + S.T).tocsr()  # noqa: N806
    A = gb.io.from_scipy_sparse(S)  # noqa: N806
    pattern = S.astype(bool)
    assert A.is_symmetric() == ((pattern != pattern.T).nnz == 0)
    assert A.is_symmetric(structure=False) == (abs(S - S.T).sum() == 0)
    assert A.T.is_symmetric() == A.is_symmetric()


def test_not_square_is_not_symmetric() -> None:
    A = Matrix.from_coo([0], [1], 1, nrows=2, ncols=3)  # noqa: N806
    assert not A.is_symmetric()


def _counting(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    calls = {"out": 0, "in": 0, "sym": 0}
    originals = (properties.out_degree, properties.in_degree, properties.is_symmetric)

    def out(*a: Any) -> Any:
        calls["out"] += 1
        return originals[0](*a)

    def in_(*a: Any) -> Any:
        calls["in"] += 1
        return originals[1](*a)

    def sym(*a: Any) -> Any:
        calls["sym"] += 1
        return originals[2](*a)

    monkeypatch.setattr(properties, "out_degree", out)
    monkeypatch.setattr(properties, "in_degree", in_)
    monkeypatch.setattr(properties, "is_symmetric", sym)
    return calls


def test_computed_once_and_dropped_on_change(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _counting(monkeypatch)
    A = Matrix.from_coo([0, 1, 2], [1, 2, 0], [1.0, 2.0, 3.0], nrows=4, ncols=4)  # noqa: N806
    for _ in range(3):
        A.out_degree()
        A.in_degree()
        A.is_symmetric()
    assert calls == {"out": 1, "in": 1, "sym": 1}
    A[3, 0] << 5.0  # a write drops every cached property
    assert _degrees(A.out_degree(), 4).tolist() == [1, 1, 1, 1]
    assert _degrees(A.in_degree(), 4).tolist() == [2, 1, 1, 0]
    assert not A.is_symmetric()
    assert calls == {"out": 2, "in": 2, "sym": 2}
    A << A.ewise_add(A.T.new(), binary.plus)
    assert A.is_symmetric() and A.is_symmetric(structure=False)
    A.clear()
    assert A.out_degree().nvals == 0
    A.build([0], [3], [1.0], clear=True)
    assert _degrees(A.out_degree(), 4).tolist() == [1, 0, 0, 0]
    A.resize(2, 2)
    assert A.out_degree().nvals == 0 and A.out_degree().size == 2


def test_returned_vector_does_not_alias_the_cache() -> None:
    A = gb.generators.kronecker(8, seed=3)  # noqa: N806
    d = A.out_degree()
    before = _degrees(A.out_degree(), A.nrows)
    d[0] << 10**6
    d(accum=binary.plus) << d
    np.testing.assert_array_equal(_degrees(A.out_degree(), A.nrows), before)


def test_algorithms_use_the_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bool SciPy matrix (not iso): the out-degree is computed once over many BFS calls,
    symmetry once over triangle counting and betweenness."""
    S = gb.generators.kronecker(9, seed=2).to_scipy_sparse().astype(bool)  # noqa: N806
    A = gb.io.from_scipy_sparse(S)  # noqa: N806
    assert not A.is_iso
    calls = _counting(monkeypatch)
    with gb.config.override(bfs_cpu="ops"):  # the level loop reads the cached out-degree
        for s in range(4):
            bfs(A, s)
    bfs(A, 0)  # the fused search counts a row's edges from the row pointers themselves
    triangle_count(A)
    triangle_count(A)
    betweenness_centrality(A, sources=[0, 1])
    assert calls["out"] == 1 and calls["sym"] == 1


def test_triangle_count_skips_the_union_on_a_symmetric_matrix(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A symmetric A is counted from tril(A) directly (no A ∪ Aᵀ); a directed one still
    gets the union, and both count the same triangles."""
    S = gb.generators.kronecker(8, seed=3).to_scipy_sparse()  # noqa: N806
    A = gb.io.from_scipy_sparse(S)  # noqa: N806
    D = gb.io.from_scipy_sparse(sp.tril(S, -1).tocsr())  # noqa: N806  one direction per edge
    unions = []
    original = Matrix.ewise_add

    def ewise_add(self: Matrix, *a: Any, **k: Any) -> Any:
        unions.append(self.nrows)
        return original(self, *a, **k)

    monkeypatch.setattr(Matrix, "ewise_add", ewise_add)
    expected = triangle_count(A)
    assert unions == []
    assert triangle_count(D) == expected and len(unions) == 1
    B = (S.toarray() != 0).astype(np.float64)  # noqa: N806
    np.fill_diagonal(B, 0.0)
    assert expected == round(np.trace(B @ B @ B) / 6)
