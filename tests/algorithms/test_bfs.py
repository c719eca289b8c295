"""bfs (direction-optimising push-pull) against SciPy csgraph, and Graph500 validation.

Levels are compared with ``scipy.sparse.csgraph.shortest_path(unweighted=True)`` and with
the levels implied by ``breadth_first_order``'s predecessors; parents are checked both by
``validate_bfs`` and by an independent tree check written here.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
from hypothesis import given, note
from hypothesis import strategies as st

from gblas import BOOL, FP64, INT64, Matrix, generators, io
from gblas.algorithms import bfs, validate_bfs
from gblas.exceptions import DimensionMismatch, IndexOutOfBound, InvalidObject, InvalidValue

DIRECTIONS = ("auto", "push", "pull")


# ---------------------------------------------------------------- helpers
@dataclass
class Graph:
    n: int
    rows: np.ndarray  # every stored entry of A (both directions when undirected)
    cols: np.ndarray
    edges_r: np.ndarray  # what SciPy gets (one direction only when undirected)
    edges_c: np.ndarray
    directed: bool
    A: Matrix

    def scipy(self) -> sp.csr_matrix:
        return sp.csr_matrix((np.ones(self.edges_r.size), (self.edges_r, self.edges_c)),
                             shape=(self.n, self.n))


def make_matrix(n, r, c, kind, rng, fmt="csr"):
    """A with the structure (r, c) and values of ``kind`` (structure counts, not values)."""
    if kind == "bool":
        A = Matrix.from_coo(r, c, True, BOOL, nrows=n, ncols=n)
    elif kind == "int64":  # explicit zeros and negative values included
        A = Matrix.from_coo(r, c, rng.integers(-2, 3, r.size).astype(np.int64), INT64,
                            nrows=n, ncols=n)
    elif kind == "fp64":
        vals = rng.choice([0.0, -1.5, 0.25, 3.0], size=r.size)
        A = Matrix.from_coo(r, c, vals, FP64, nrows=n, ncols=n)
    else:  # iso zero: every stored value is 0
        A = Matrix.from_coo(r, c, 0, INT64, nrows=n, ncols=n)
    assert A.nvals == r.size
    A.to_format(fmt)
    return A


@st.composite
def graphs(draw, max_n: int = 60, directed: bool | None = None,
           kinds=("bool", "int64", "fp64", "zero"), formats=("csr", "coo")):
    """Random graphs from very sparse (long paths) to complete, self-loops allowed."""
    n = draw(st.integers(1, max_n))
    is_directed = draw(st.booleans()) if directed is None else directed
    avg_degree = draw(st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0, 30.0, 60.0]))
    loops = draw(st.booleans())
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    p = min(1.0, avg_degree / n)
    mask = rng.random((n, n)) < p
    if not loops:
        np.fill_diagonal(mask, False)
    if is_directed:
        er, ec = np.nonzero(mask)
        r, c = er, ec
    else:
        mask = np.triu(mask)
        er, ec = np.nonzero(mask)
        r, c = np.nonzero(mask | mask.T)
    kind = draw(st.sampled_from(kinds))
    fmt = draw(st.sampled_from(formats))
    A = make_matrix(n, r.astype(np.int64), c.astype(np.int64), kind, rng, fmt)
    note(f"n={n} directed={is_directed} nvals={A.nvals} kind={kind} format={fmt}")
    return Graph(n, r, c, er, ec, is_directed, A)


def scipy_levels(g: Graph, source: int) -> np.ndarray:
    """BFS levels (-1 = unreachable) from shortest_path(unweighted=True)."""
    d = csgraph.shortest_path(g.scipy(), unweighted=True, directed=g.directed,
                              indices=source)
    lv = np.full(g.n, -1, dtype=np.int64)
    fin = np.isfinite(d)
    lv[fin] = d[fin].astype(np.int64)
    return lv


def bfo_levels(g: Graph, source: int) -> np.ndarray:
    """BFS levels (-1 = unreachable) from breadth_first_order's predecessors."""
    order, pred = csgraph.breadth_first_order(g.scipy(), source, directed=g.directed,
                                              return_predecessors=True)
    lv = np.full(g.n, -1, dtype=np.int64)
    lv[source] = 0
    for v in order[1:]:
        lv[v] = lv[pred[v]] + 1
    return lv


def dense_levels(levels, n: int) -> np.ndarray:
    """Levels as a dense array with -1 for absent entries; checks dtype and size."""
    assert levels.dtype == INT64
    assert levels.size == n
    idx, vals = levels.to_coo()
    assert (vals >= 0).all(), "unreachable vertices must be absent, not stored"
    lv = np.full(n, -1, dtype=np.int64)
    lv[idx] = vals
    return lv


def check_tree(rows, cols, n, source, lv, parents) -> None:
    """Independent parent check: parent edge exists and is one level up; root is its own."""
    assert parents.dtype == INT64 and parents.size == n
    pidx, pvals = parents.to_coo()
    assert np.array_equal(np.sort(pidx), np.flatnonzero(lv >= 0)), \
        "parents must cover exactly the reached vertices"
    pv = dict(zip(pidx.tolist(), pvals.tolist(), strict=True))
    assert pv[source] == source
    edges = set(zip(rows.tolist(), cols.tolist(), strict=True))
    for v, p in pv.items():
        if v == source:
            continue
        assert (p, v) in edges, f"parent edge {p}->{v} is not in the graph"
        assert lv[p] == lv[v] - 1, f"parent {p} of {v} is on level {lv[p]}, not {lv[v] - 1}"


def check_all(g: Graph, source: int, direction: str) -> np.ndarray:
    expected = scipy_levels(g, source)
    stats: dict = {}
    levels = bfs(g.A, source, direction=direction, stats=stats)
    lv = dense_levels(levels, g.n)
    assert np.array_equal(lv, expected), f"direction={direction}"
    assert stats["levels"] == expected.max() + 1
    assert stats["reached"] == (expected >= 0).sum()
    lv2, parents = bfs(g.A, source, parents=True, direction=direction)
    assert np.array_equal(dense_levels(lv2, g.n), expected), f"parents=True, {direction}"
    check_tree(g.rows, g.cols, g.n, source, expected, parents)
    assert validate_bfs(g.A, source, levels) is True
    assert validate_bfs(g.A, source, lv2, parents) is True
    return lv


# ---------------------------------------------------------------- random graphs
@given(graphs(directed=False), st.data())
def test_undirected_levels_match_scipy_all_directions(g, data):
    source = data.draw(st.integers(0, g.n - 1), label="source")
    results = [check_all(g, source, d) for d in DIRECTIONS]
    assert all(np.array_equal(results[0], r) for r in results[1:])


@given(graphs(directed=True), st.data())
def test_directed_levels_follow_out_edges(g, data):
    source = data.draw(st.integers(0, g.n - 1), label="source")
    results = [check_all(g, source, d) for d in DIRECTIONS]
    assert all(np.array_equal(results[0], r) for r in results[1:])


@given(graphs(), st.data())
def test_levels_match_breadth_first_order(g, data):
    source = data.draw(st.integers(0, g.n - 1), label="source")
    lv = dense_levels(bfs(g.A, source), g.n)
    assert np.array_equal(lv, bfo_levels(g, source))


@given(graphs(max_n=60, kinds=("bool",)), st.data())
def test_format_invariance(g, data):
    """The same graph in CSR and COO gives the same levels in every direction."""
    source = data.draw(st.integers(0, g.n - 1), label="source")
    other = "coo" if g.A.format == "csr" else "csr"
    B = Matrix.from_coo(g.rows, g.cols, True, BOOL, nrows=g.n, ncols=g.n).to_format(other)
    expected = scipy_levels(g, source)
    for d in DIRECTIONS:
        assert np.array_equal(dense_levels(bfs(B, source, direction=d), g.n), expected)


# ---------------------------------------------------------------- direction switching
@pytest.fixture(scope="module")
def kron10():
    return generators.kronecker(10, seed=0)


def kron_graph(A: Matrix) -> Graph:
    r, c, _ = A.to_coo()
    return Graph(A.nrows, r, c, r, c, True, A)


def test_auto_uses_both_directions_on_kronecker(kron10):
    g = kron_graph(kron10)
    deg = np.bincount(g.rows, minlength=g.n)
    seen: set[str] = set()
    for source in (int(np.argmax(deg)), int(np.flatnonzero(deg)[0])):
        stats: dict = {}
        lv = dense_levels(bfs(kron10, source, stats=stats), g.n)
        assert np.array_equal(lv, scipy_levels(g, source))
        assert set(stats["directions"]) <= {"push", "pull"}
        seen |= set(stats["directions"])
        assert stats["reached"] == (lv >= 0).sum()
        assert stats["levels"] == lv.max() + 1
        assert stats["kernels"] and all(isinstance(k, str) and k for k in stats["kernels"])
    assert seen == {"push", "pull"}, f"auto never switched direction: {seen}"


@pytest.mark.parametrize("direction", ["push", "pull"])
def test_forced_direction_is_used_on_every_level(kron10, direction):
    g = kron_graph(kron10)
    source = int(np.argmax(np.bincount(g.rows, minlength=g.n)))
    stats: dict = {}
    lv = dense_levels(bfs(kron10, source, direction=direction, stats=stats), g.n)
    assert np.array_equal(lv, scipy_levels(g, source))
    assert stats["directions"] and set(stats["directions"]) == {direction}


def bfs_stats(A, source: int, **kw) -> dict:  # noqa: N803
    stats: dict = {}
    bfs(A, source, stats=stats, **kw)
    return stats


def test_auto_on_dense_small_graph_pulls():
    """A dense random graph with n <= 60 is dense enough for the rule to pull."""
    rng = np.random.default_rng(3)
    n = 60
    mask = np.triu(rng.random((n, n)) < 0.3, 1)
    r, c = np.nonzero(mask | mask.T)
    g = Graph(n, r, c, r, c, True, Matrix.from_coo(r, c, True, BOOL, nrows=n, ncols=n))
    first: dict = {}
    lv = dense_levels(bfs(g.A, 0, stats=first), n)
    assert np.array_equal(lv, scipy_levels(g, 0))
    # LAGraph's rule: no transpose at hand (symmetry unknown, none cached), push only
    assert set(first["directions"]) == {"push"} and "csr_T" not in g.A._reps
    stats: dict = {}
    lv = dense_levels(bfs(g.A, 0, stats=stats), n)  # the second search builds Aᵀ
    assert np.array_equal(lv, scipy_levels(g, 0))
    assert "pull" in stats["directions"] and "csr_T" in g.A._reps
    h = Matrix.from_coo(r, c, True, BOOL, nrows=n, ncols=n)
    assert h.is_symmetric()  # a known symmetric A is its own transpose: pulls at once
    assert "pull" in bfs_stats(h, 0)["directions"]


def test_thresholds_change_the_switch_not_the_levels(kron10):
    g = kron_graph(kron10)
    source = int(np.argmax(np.bincount(g.rows, minlength=g.n)))
    expected = scipy_levels(g, source)
    never: dict = {}
    lv = dense_levels(bfs(kron10, source, alpha=1e-12, stats=never), g.n)
    assert np.array_equal(lv, expected)
    assert set(never["directions"]) == {"push"}  # frontier edges never exceed huge/α
    eager: dict = {}
    lv = dense_levels(bfs(kron10, source, alpha=1e12, beta1=1e12, stats=eager), g.n)
    assert np.array_equal(lv, expected)
    assert "pull" in eager["directions"]


# ---------------------------------------------------------------- real graphs
SMALL_GRAPHS = [
    "dimacs10_delaunay_n16.mtx.gz",
    "dimacs10_luxembourg_osm.mtx.gz",
    "metis_copter2.mtx.gz",
    "netrepo_road-usroads.mtx.gz",
    "snap_ego-Facebook.mtx.gz",
    "snap_email-Enron.mtx.gz",
]
BIG_DIRECTED = "law_cnr-2000.mtx.gz"


def load_real(graphs_path, name: str) -> Graph:
    path = graphs_path / name
    if not path.exists():
        pytest.skip(f"{name} is not in {graphs_path}")
    A = io.mmread(path)
    r, c, _ = A.to_coo()
    return Graph(A.nrows, r, c, r, c, True, A)  # scipy directed=True: follows out-edges


def check_real(g: Graph, source: int) -> None:
    expected = scipy_levels(g, source)
    lv = dense_levels(bfs(g.A, source), g.n)
    assert np.array_equal(lv, expected)
    lv2, parents = bfs(g.A, source, parents=True)
    assert np.array_equal(dense_levels(lv2, g.n), expected)
    assert validate_bfs(g.A, source, lv2, parents) is True


@pytest.mark.parametrize("name", SMALL_GRAPHS)
def test_real_graph_levels_match_scipy(graphs_path, name):
    g = load_real(graphs_path, name)
    deg = np.bincount(g.rows, minlength=g.n)
    for source in sorted({0, int(np.argmax(deg)), g.n // 2}):
        check_real(g, source)


def test_real_directed_cnr2000_one_source(graphs_path):
    g = load_real(graphs_path, BIG_DIRECTED)
    assert g.n == 325557 and g.A.nvals == 3128710
    assert not g.A.T.new().isequal(g.A), "cnr-2000 is directed"
    source = int(np.argmax(np.bincount(g.rows, minlength=g.n)))
    check_real(g, source)


def test_cnr2000_follows_out_edges_not_in_edges(graphs_path):
    """Directed BFS follows out-edges: on cnr-2000 the levels differ from in-edge BFS."""
    g = load_real(graphs_path, BIG_DIRECTED)
    source = int(np.argmax(np.bincount(g.rows, minlength=g.n)))
    lv = dense_levels(bfs(g.A, source), g.n)
    rev = Graph(g.n, g.cols, g.rows, g.cols, g.rows, True, g.A)
    assert not np.array_equal(lv, scipy_levels(rev, source))


# ---------------------------------------------------------------- edge cases
def test_empty_graph_source_out_of_range():
    A = Matrix(BOOL, 0, 0)
    for d in DIRECTIONS:
        with pytest.raises(IndexOutOfBound):
            bfs(A, 0, direction=d)
        with pytest.raises(IndexOutOfBound):
            bfs(A, 0, parents=True, direction=d)


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_single_vertex(direction):
    A = Matrix(BOOL, 1, 1)
    stats: dict = {}
    levels = bfs(A, 0, direction=direction, stats=stats)
    assert dense_levels(levels, 1).tolist() == [0]
    assert stats["levels"] == 1 and stats["reached"] == 1
    lv, parents = bfs(A, 0, parents=True, direction=direction)
    assert dense_levels(lv, 1).tolist() == [0]
    assert parents.to_coo()[0].tolist() == [0] and parents.to_coo()[1].tolist() == [0]


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_single_vertex_validates_with_parents(direction):
    A = Matrix(BOOL, 1, 1)
    lv, parents = bfs(A, 0, parents=True, direction=direction)
    assert validate_bfs(A, 0, lv, parents) is True


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_self_loops(direction):
    # 0 -- 1 -- 2 path with a self loop on every vertex; vertex 3 has only a self loop
    r = np.array([0, 1, 1, 2, 0, 1, 2, 3])
    c = np.array([1, 0, 2, 1, 0, 1, 2, 3])
    A = Matrix.from_coo(r, c, True, BOOL, nrows=4, ncols=4)
    lv, parents = bfs(A, 0, parents=True, direction=direction)
    assert dense_levels(lv, 4).tolist() == [0, 1, 2, -1]
    assert dict(zip(*(x.tolist() for x in parents.to_coo()), strict=True)) == {0: 0, 1: 0, 2: 1}
    assert validate_bfs(A, 0, lv, parents)
    lv3, p3 = bfs(A, 3, parents=True, direction=direction)
    assert dense_levels(lv3, 4).tolist() == [-1, -1, -1, 0]
    assert p3.to_coo()[1].tolist() == [3]  # the source stays its own parent
    assert validate_bfs(A, 3, lv3, p3)


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_isolated_source(direction):
    r = np.array([1, 2, 2, 3, 4, 1])
    c = np.array([2, 1, 3, 2, 1, 4])
    A = Matrix.from_coo(r, c, True, BOOL, nrows=6, ncols=6)
    for s in (0, 5):
        levels = bfs(A, s, direction=direction)
        assert levels.nvals == 1
        assert dict(zip(*(x.tolist() for x in levels.to_coo()), strict=True)) == {s: 0}
        lv, parents = bfs(A, s, parents=True, direction=direction)
        assert dict(zip(*(x.tolist() for x in parents.to_coo()), strict=True)) == {s: s}
        assert validate_bfs(A, s, lv, parents)


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_disconnected_components(direction):
    # a triangle {0,1,2}, a path {3,4,5,6}, an isolated vertex 7
    und = [(0, 1), (1, 2), (0, 2), (3, 4), (4, 5), (5, 6)]
    r = np.array([u for u, v in und] + [v for u, v in und])
    c = np.array([v for u, v in und] + [u for u, v in und])
    A = Matrix.from_coo(r, c, True, BOOL, nrows=8, ncols=8)
    assert dense_levels(bfs(A, 1, direction=direction), 8).tolist() == \
        [1, 0, 1, -1, -1, -1, -1, -1]
    lv, parents = bfs(A, 3, parents=True, direction=direction)
    assert dense_levels(lv, 8).tolist() == [-1, -1, -1, 0, 1, 2, 3, -1]
    assert validate_bfs(A, 3, lv, parents)


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_directed_path_is_one_way(direction):
    A = Matrix.from_coo([0, 1, 2], [1, 2, 3], True, BOOL, nrows=4, ncols=4)
    assert dense_levels(bfs(A, 0, direction=direction), 4).tolist() == [0, 1, 2, 3]
    assert dense_levels(bfs(A, 2, direction=direction), 4).tolist() == [-1, -1, 0, 1]
    lv, parents = bfs(A, 0, parents=True, direction=direction)
    assert parents.to_coo()[1].tolist() == [0, 0, 1, 2]


@pytest.mark.parametrize("source", [4, 5, 100, -1, -4])
def test_source_out_of_range(source):
    A = generators.grid2d(2, 2)
    for d in DIRECTIONS:
        with pytest.raises(IndexOutOfBound):
            bfs(A, source, direction=d)
        with pytest.raises(IndexOutOfBound):
            bfs(A, source, parents=True, direction=d)


def test_non_square_raises():
    A = Matrix.from_coo([0, 1], [1, 2], True, BOOL, nrows=2, ncols=3)
    for d in DIRECTIONS:
        with pytest.raises(DimensionMismatch):
            bfs(A, 0, direction=d)


@pytest.mark.parametrize("direction", ["sideways", "PUSH", "", None, "push-pull"])
def test_bad_direction(direction):
    with pytest.raises(InvalidValue):
        bfs(generators.grid2d(2, 2), 0, direction=direction)


def test_not_a_matrix_and_bad_source_type():
    with pytest.raises(InvalidObject):
        bfs(np.eye(3, dtype=bool), 0)
    with pytest.raises(InvalidValue):
        bfs(generators.grid2d(2, 2), "zero")


@pytest.mark.parametrize("dtype,values", [
    (INT64, np.zeros(6, dtype=np.int64)),
    (FP64, np.zeros(6)),
    (INT64, np.array([0, 5, 0, -3, 0, 1])),
    (FP64, np.array([0.0, -0.0, 1e-300, np.nan, -2.0, 0.0])),
])
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_explicit_zeros_are_edges(dtype, values, direction):
    """Structure counts, not values: a stored 0 is still an edge."""
    r = np.array([0, 1, 1, 2, 2, 3])
    c = np.array([1, 0, 2, 1, 3, 2])
    A = Matrix.from_coo(r, c, values, dtype, nrows=5, ncols=5)
    assert A.nvals == 6
    lv, parents = bfs(A, 0, parents=True, direction=direction)
    assert dense_levels(lv, 5).tolist() == [0, 1, 2, 3, -1]
    assert dense_levels(bfs(A, 3, direction=direction), 5).tolist() == [3, 2, 1, 0, -1]
    assert parents.to_coo()[1].tolist() == [0, 0, 1, 2]
    assert validate_bfs(A, 0, lv, parents)


def test_bfs_does_not_modify_the_graph(kron10):
    before = kron10.dup()
    bfs(kron10, 3, parents=True)
    bfs(kron10, 5, direction="pull")
    assert kron10.isequal(before)


def test_grid_corner_levels():
    A = generators.grid2d(8, 8)
    for d in DIRECTIONS:
        lv = dense_levels(bfs(A, 0, direction=d), 64)
        rr, cc = np.divmod(np.arange(64), 8)
        assert np.array_equal(lv, rr + cc)
