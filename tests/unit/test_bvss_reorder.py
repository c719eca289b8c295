"""BVSS reorderings (gblas.formats.bvss.reorder): every method is a bijection, permute_csr
round-trips exactly (NumPy kernel and the array-library path CuPy uses), the social rule,
Jaccard windows compress a shuffled Kronecker graph, RCM narrows a shuffled grid, the
symmetrisation of directed graphs, and the error paths."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from gblas import INT64, Matrix, binary, generators
from gblas.exceptions import InvalidValue
from gblas.formats.bvss import reorder as R
from gblas.formats.bvss.reorder import (
    METHODS,
    classify_social,
    count_slices,
    permute_csr,
    reorder_permutation,
)
from gblas.formats.csr.container import CSR


def csr_of(A: Matrix) -> CSR:  # noqa: N803
    return A._csr()


def shuffled(csr: CSR, seed: int) -> CSR:
    return permute_csr(csr, np.random.default_rng(seed).permutation(csr.nrows))


def directed(n: int, nnz: int, seed: int) -> CSR:
    """A directed graph with self-loops, isolated vertices and INT64 values."""
    rng = np.random.default_rng(seed)
    r, c = rng.integers(0, n, nnz), rng.integers(0, n // 2, nnz)  # upper half: no in-edges
    v = rng.integers(1, 100, nnz)
    return csr_of(Matrix.from_coo(r, c, v, INT64, nrows=n, ncols=n, dup_op=binary.plus))


def to_scipy(csr: CSR) -> sp.csr_matrix:
    return sp.csr_matrix((csr.full_values(), csr.indices, csr.indptr),
                         shape=(csr.nrows, csr.ncols))


def sym_scipy(csr: CSR) -> sp.csr_matrix:
    S = to_scipy(csr).astype(bool).astype(np.int8)  # noqa: N806
    S = (S + S.T).tolil()  # noqa: N806
    S.setdiag(0)
    S = S.tocsr()  # noqa: N806
    S.eliminate_zeros()
    S.sort_indices()
    return S


@pytest.fixture(scope="module")
def kron() -> CSR:
    return csr_of(generators.kronecker(11, seed=3))


@pytest.fixture(scope="module")
def grid() -> CSR:
    return csr_of(generators.grid2d(24, 24))


GRAPHS = ("kron", "grid", "directed", "isolated", "single", "empty")


def graph(name: str, request: pytest.FixtureRequest) -> CSR:
    if name in ("kron", "grid"):
        return request.getfixturevalue(name)
    if name == "directed":
        return directed(300, 2000, 1)
    if name == "isolated":  # symmetric, edges and a self-loop among the first vertices
        return csr_of(Matrix.from_coo([0, 1, 2, 3, 5], [1, 0, 3, 2, 5], True, nrows=40,
                                      ncols=40))
    n = 1 if name == "single" else 0
    return csr_of(Matrix.from_coo([], [], True, nrows=n, ncols=n))


# --------------------------------------------------------------------- permutations
@pytest.mark.parametrize("name", GRAPHS)
@pytest.mark.parametrize("method", METHODS)
def test_every_method_gives_a_permutation(name: str, method: str,
                                          request: pytest.FixtureRequest) -> None:
    csr = graph(name, request)
    perm, info = reorder_permutation(csr, method)
    assert info["seconds"] >= 0.0
    assert info["method"] == method or (method == "auto"
                                        and info["method"] in ("jaccard", "rcm"))
    if method == "none":
        assert perm is None
        return
    assert isinstance(perm, np.ndarray) and perm.dtype == np.int64
    assert np.array_equal(np.sort(perm), np.arange(csr.nrows))
    assert (info["social"] is None) == (method != "auto")
    # deterministic: the same call gives the same order (the seed changes nothing)
    again, _ = reorder_permutation(csr, method, seed=7)
    assert np.array_equal(perm, again)


def test_degree_is_descending_and_stable(kron: CSR) -> None:
    perm, _ = reorder_permutation(kron, "degree")
    deg = np.diff(sym_scipy(kron).indptr)
    assert np.all(np.diff(deg[perm]) <= 0)
    for d in np.unique(deg):  # ties keep increasing ids
        same = perm[deg[perm] == d]
        assert np.all(np.diff(same) > 0)


def test_jaccard_window_and_info(kron: CSR) -> None:
    perm8, info = reorder_permutation(kron, "jaccard")
    assert info["window"] == 8 and info["seed_order"] == "degree" and info["budget"] >= 64
    perm64, info64 = reorder_permutation(kron, "jaccard", window=64)
    assert info64["window"] == 64
    assert np.array_equal(np.sort(perm64), np.arange(kron.nrows))


def test_auto_follows_the_social_rule(kron: CSR, grid: CSR) -> None:
    perm, info = reorder_permutation(kron, "auto")
    assert info["social"] is True and info["method"] == "jaccard"
    assert info["top1_share"] > 0.05
    jac, _ = reorder_permutation(kron, "jaccard")
    assert np.array_equal(perm, jac)
    perm, info = reorder_permutation(grid, "auto")
    assert info["social"] is False and info["method"] == "rcm"
    assert np.array_equal(perm, reorder_permutation(grid, "rcm")[0])


# ---------------------------------------------------------------------- permute_csr
@pytest.mark.parametrize("iso", [False, True])
def test_permute_round_trip(iso: bool) -> None:
    csr = directed(200, 1500, 2)
    if iso:
        csr = CSR(csr.nrows, csr.ncols, csr.indptr, csr.indices, None, csr.dtype, 5)
    perm = np.random.default_rng(3).permutation(csr.nrows)
    P = permute_csr(csr, perm)  # noqa: N806
    # P[p, q] = A[perm[p], perm[q]], columns sorted within rows
    dense, pdense = to_scipy(csr).toarray(), to_scipy(P).toarray()
    assert np.array_equal(pdense, dense[np.ix_(perm, perm)])
    for p in range(P.nrows):
        assert np.all(np.diff(P.indices[P.indptr[p]:P.indptr[p + 1]]) > 0)
    inv = np.empty_like(perm)
    inv[perm] = np.arange(perm.shape[0])
    back = permute_csr(P, inv)
    assert np.array_equal(back.indptr, csr.indptr)
    assert np.array_equal(back.indices, csr.indices)
    if iso:
        assert back.values is None and back.iso == 5
    else:
        assert np.array_equal(back.values, csr.values)
    assert back.dtype == csr.dtype


def test_permute_generic_path_equals_kernel() -> None:
    """The array-library path (what runs on CuPy) gives the same CSR as the Numba one."""
    csr = directed(150, 900, 4)
    perm = np.random.default_rng(5).permutation(csr.nrows)
    inv = np.empty_like(perm)
    inv[perm] = np.arange(perm.shape[0])
    P = permute_csr(csr, perm)  # noqa: N806
    cols, src = R._permute_generic(np, csr, perm, inv, P.indptr)
    assert np.array_equal(cols, P.indices)
    assert np.array_equal(csr.values[src], P.values)


def test_permute_rejects_bad_permutations(kron: CSR) -> None:
    n = kron.nrows
    with pytest.raises(InvalidValue, match=f"length {n}"):
        permute_csr(kron, np.arange(n - 1))
    with pytest.raises(InvalidValue, match="integer array"):
        permute_csr(kron, np.arange(n, dtype=np.float64))
    bad = np.arange(n)
    bad[1] = 0
    with pytest.raises(InvalidValue, match="permutation of 0..2047"):
        permute_csr(kron, bad)
    with pytest.raises(InvalidValue, match="permutation"):
        permute_csr(kron, np.arange(1, n + 1))


# --------------------------------------------------------------- slices and quality
def test_count_slices_small() -> None:
    # row 0: columns 0, 7 (block 0) and 8 (block 1): 2 slices; row 1: empty;
    # row 2: columns 16..23 (block 2): 1 slice; row 3: column 9: 1 slice
    r = [0, 0, 0, *([2] * 8), 3]
    c = [0, 7, 8, *range(16, 24), 9]
    csr = csr_of(Matrix.from_coo(r, c, True, nrows=24, ncols=24))
    assert count_slices(csr) == 4
    assert count_slices(csr_of(Matrix.from_coo([], [], True, nrows=5, ncols=5))) == 0


def test_jaccard_compresses_shuffled_kron() -> None:
    A = shuffled(csr_of(generators.kronecker(12, seed=5)), 11)  # noqa: N806
    base = count_slices(A)
    got = {}
    for method in ("degree", "jaccard"):
        perm, _ = reorder_permutation(A, method)
        got[method] = count_slices(permute_csr(A, perm))
    assert got["jaccard"] < 0.85 * base  # measured: 0.77 of the identity
    assert got["jaccard"] < got["degree"]


def bandwidth(csr: CSR) -> int:
    return int(np.abs(csr.indices - csr.row_ids()).max())


def test_rcm_narrows_shuffled_grid(grid: CSR) -> None:
    A = shuffled(grid, 2)  # noqa: N806
    assert bandwidth(A) > 300
    perm, info = reorder_permutation(A, "rcm")
    assert info["method"] == "rcm"
    assert bandwidth(permute_csr(A, perm)) <= 2 * 24 + 2  # a 24 x 24 grid: about 24


# ---------------------------------------------------------------------- social rule
def test_classify_social() -> None:
    n = 400
    star = csr_of(Matrix.from_coo(np.zeros(n - 1, dtype=np.int64), np.arange(1, n), True,
                                  nrows=n, ncols=n))  # directed: symmetrised
    social, stats = classify_social(star)
    # the top 1% = 4 vertices: the centre (n - 1 edge ends) and 3 leaves, of 2 (n - 1)
    assert social and stats["top1_share"] == pytest.approx((n + 2) / (2 * (n - 1)))
    assert stats["max_degree"] == n - 1
    social, stats = classify_social(csr_of(generators.kronecker(11, seed=1)))
    assert social and stats["top10_share"] > 0.4
    social, stats = classify_social(csr_of(generators.grid2d(30, 30)))
    assert not social
    assert stats["top1_share"] < 0.05 and stats["top10_share"] < 0.4
    assert set(stats) == {"top1_share", "top10_share", "powerlaw_alpha", "max_degree",
                          "mean_degree"}


# ------------------------------------------------------------------- symmetrisation
@pytest.mark.parametrize("name", ["directed", "kron", "isolated"])
def test_symmetrised_pattern(name: str, request: pytest.FixtureRequest) -> None:
    csr = graph(name, request)
    S = sym_scipy(csr)  # noqa: N806
    sym = R._Sym(csr)
    symmetric, loops = R._looks_symmetric(csr.indptr, csr.indices)
    assert symmetric == (name != "directed")
    assert np.array_equal(loops, (to_scipy(csr).diagonal() != 0).astype(np.int64))
    assert np.array_equal(sym.deg, np.diff(S.indptr))
    order = np.random.default_rng(0).permutation(csr.nrows)
    nptr, nidx = sym.relabelled(order)
    expect = S[order][:, order]
    expect.sort_indices()
    assert np.array_equal(nptr, expect.indptr)
    assert np.array_equal(nidx, expect.indices)


# --------------------------------------------------------------------------- errors
def test_errors_before_any_work(kron: CSR) -> None:
    rect = csr_of(Matrix.from_coo([0], [3], True, nrows=3, ncols=4))
    for call in (lambda: reorder_permutation(rect, "rcm"), lambda: classify_social(rect),
                 lambda: permute_csr(rect, np.arange(3))):
        with pytest.raises(InvalidValue, match=r"square .*got 3 x 4"):
            call()
    with pytest.raises(InvalidValue, match=r"unknown reordering method 'metis'.*"
                       r"'none', 'rcm', 'degree', 'jaccard', 'auto'"):
        reorder_permutation(kron, "metis")
    with pytest.raises(InvalidValue, match="unknown reordering method"):
        reorder_permutation(rect, "metis")  # the method is checked first
    for window in (0, 12, -8, 8.0, True):
        with pytest.raises(InvalidValue, match="multiple of 8"):
            reorder_permutation(kron, "jaccard", window=window)
