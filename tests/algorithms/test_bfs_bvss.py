"""BFS on BVSS: the public ``bfs`` on a BVSS matrix (every step runs the emulated Tensor
Core kernel) equals the CSR BFS, and the CPU reference of the fused GPU kernel,
``gblas.formats.bvss.cpu.bfs``, gives SciPy's levels and Graph500-valid parents on
generated and real graphs for every reordering and both warp variants, with per-level
active VSS counts that match an independent count."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
from hypothesis import given
from hypothesis import strategies as st

from gblas import BOOL, INT64, Matrix, Vector, generators, io
from gblas.algorithms import bfs, validate_bfs
from gblas.formats.bvss import cpu
from gblas.formats.bvss.container import BVSS, build

REORDERS = ("none", "rcm", "degree", "jaccard", "auto")
GENERATORS = {
    "kron": lambda: generators.kronecker(9, seed=2),
    "urand": lambda: generators.urand(9, 4, seed=3),
    "grid": lambda: generators.grid2d(13, 21),
    "road": lambda: generators.road_like(700, seed=4),
}
REAL = ("snap_ego-Facebook", "dimacs10_delaunay_n16", "dimacs10_luxembourg_osm",
        "metis_copter2", "netrepo_road-usroads", "snap_cit-HepPh", "snap_email-Enron",
        "snap_com-DBLP", "snap_ego-Twitter_undirected", "law_cnr-2000")


def scipy_levels(A: Matrix, source: int) -> np.ndarray:  # noqa: N803
    """Levels along A's out-edges (-1 unreachable), from SciPy."""
    c = A._csr()
    S = sp.csr_matrix((np.ones(c.nnz), c.indices, c.indptr), shape=A.shape)  # noqa: N806
    d = csgraph.shortest_path(S, unweighted=True, directed=True, indices=source)
    return np.where(np.isfinite(d), d, -1).astype(np.int64)


def as_vectors(levels: np.ndarray, parents: np.ndarray | None) -> tuple[Vector, Vector | None]:
    idx = np.flatnonzero(levels >= 0)
    lv = Vector.from_coo(idx, levels[idx], INT64, size=levels.shape[0])
    if parents is None:
        return lv, None
    return lv, Vector.from_coo(idx, parents[idx], INT64, size=levels.shape[0])


def expected_active(rep: BVSS, levels: np.ndarray, k: int) -> int:
    """VSSs of the column blocks holding a level-k vertex (stored positions)."""
    verts = np.flatnonzero(levels == k)
    pos = rep.inverse_perm()[verts] if rep.perm is not None else verts
    blocks = np.unique(pos >> 3)
    return int((rep.set_ptr[blocks + 1] - rep.set_ptr[blocks]).sum())


def check_emulated_bfs(A: Matrix, source: int, reorder: str, variant: str,  # noqa: N803
                       want: np.ndarray | None = None) -> dict:
    rep = build(A._csr_T(), reorder=reorder)  # pull reads Aᵀ: row i = in-neighbours of i
    levels, parents, info = cpu.bfs(rep, source, parents=True, variant=variant)
    want = scipy_levels(A, source) if want is None else want
    np.testing.assert_array_equal(levels, want)
    assert validate_bfs(A, source, *as_vectors(levels, parents)) is True
    lv_only, none, info2 = cpu.bfs(rep, source, variant=variant)
    assert none is None and np.array_equal(lv_only, levels)
    # per level: frontier size, and the VSSs that expanded it
    depth = int(levels.max()) + 1
    assert info["levels"] == depth == len(info["frontier"]) == len(info["active_vss"])
    assert info["frontier"] == np.bincount(levels[levels >= 0]).tolist()
    for k in range(depth):
        assert info["active_vss"][k] == expected_active(rep, levels, k)
    if 0 in info["active_vss"]:  # no VSS ran: nothing can be found after it
        assert info["active_vss"].index(0) == depth - 1
    assert info["active_vss"] == info2["active_vss"] and info["variant"] == variant
    return info


# ------------------------------------------------------------- the public bfs on BVSS
@pytest.mark.parametrize("gen", sorted(GENERATORS))
@pytest.mark.parametrize("reorder", REORDERS)
def test_public_bfs_on_bvss_equals_csr(gen, reorder):
    A = GENERATORS[gen]()
    src = int(np.argmax(np.diff(A._csr().indptr)))
    want = bfs(A, src)
    for direction in ("auto", "pull", "push"):
        B = A.dup()
        B.to_format("bvss", reorder=reorder)
        stats: dict = {}
        got = bfs(B, src, direction=direction, stats=stats)
        assert got.isequal(want), direction
        assert stats["kernels"] == ["bvss_pull_emulated"]
    B = A.dup()
    B.to_format("bvss", reorder=reorder)
    lv, pi = bfs(B, src, parents=True)  # any_secondi: positional, falls back to CSR
    assert lv.isequal(want) and validate_bfs(A, src, lv, pi)


def test_public_bfs_on_a_directed_graph():
    rng = np.random.default_rng(7)
    n = 400
    keys = np.unique(rng.integers(0, n * n, 1200))
    A = Matrix.from_coo(keys // n, keys % n, True, BOOL, nrows=n, ncols=n)  # noqa: N806
    B = A.dup()
    B.to_format("bvss", reorder="rcm")
    for src in (0, 17, 399):
        got = bfs(B, src)
        lv = np.full(n, -1, dtype=np.int64)
        idx, vals = got.to_coo()
        lv[idx] = vals
        np.testing.assert_array_equal(lv, scipy_levels(A, src))


# ---------------------------------------------------------- the emulated fused BFS
@pytest.mark.parametrize("gen", sorted(GENERATORS))
@pytest.mark.parametrize("reorder", REORDERS)
@pytest.mark.parametrize("variant", cpu.VARIANTS)
def test_emulated_bfs_generators(gen, reorder, variant):
    A = GENERATORS[gen]()
    deg = np.diff(A._csr().indptr)
    for src in sorted({0, int(np.argmax(deg)), A.nrows - 1}):
        check_emulated_bfs(A, src, reorder, variant)


@given(n=st.integers(1, 90), p=st.sampled_from([0.0, 0.01, 0.03, 0.1, 0.5]),
       seed=st.integers(0, 2**16), reorder=st.sampled_from(REORDERS),
       variant=st.sampled_from(cpu.VARIANTS), directed=st.booleans())
def test_emulated_bfs_random(n, p, seed, reorder, variant, directed):
    rng = np.random.default_rng(seed)
    present = rng.random((n, n)) < p
    if not directed:
        present |= present.T
    r, c = np.nonzero(present)
    A = Matrix.from_coo(r, c, True, BOOL, nrows=n, ncols=n)
    check_emulated_bfs(A, int(rng.integers(n)), reorder, variant)


def test_isolated_source():
    A = Matrix.from_coo([1, 2], [2, 1], True, BOOL, nrows=12, ncols=12)
    info = check_emulated_bfs(A, 8, "none", "mma")  # block 1 has no out-edges: no VSS
    assert info["frontier"] == [1] and info["active_vss"] == [0]
    # vertex 3 shares block 0 with 1 and 2: one VSS runs, nothing new is found
    info = check_emulated_bfs(A, 3, "none", "mma")
    assert info["frontier"] == [1] and info["active_vss"] == [1]


# ----------------------------------------------------------------- real graphs
@lru_cache(maxsize=1)
def _load(path: Path) -> tuple[Matrix, int, np.ndarray]:
    A = io.mmread(path)  # noqa: N806
    src = int(np.argmax(np.diff(A._csr().indptr)))
    return A, src, scipy_levels(A, src)


@pytest.mark.parametrize("reorder", REORDERS)  # the first decorator varies fastest: one
@pytest.mark.parametrize("name", REAL)  # graph is read once for its five reorderings
def test_emulated_bfs_real_graphs(graphs_path, name, reorder):
    path = graphs_path / f"{name}.mtx.gz"
    if not path.exists():
        pytest.skip(f"{name} is not in {graphs_path}")
    A, src, want = _load(path)  # noqa: N806
    check_emulated_bfs(A, src, reorder, "popcount" if reorder == "degree" else "mma", want)
