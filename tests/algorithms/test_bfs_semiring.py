"""bfs_semiring: the four SlimSell BFS formulations give the levels of bfs (DESIGN §6).

Every call runs under a guard: a BFS from s needs at most ecc(s) + 2 products (the last
ones find nothing new / confirm the distances are stable), so a formulation that loops
forever fails at once instead of hanging the test run. A wall-clock alarm backs it up.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
from hypothesis import given, note
from hypothesis import strategies as st

from gblas import BOOL, FP64, INT64, Matrix, Vector, generators, io
from gblas.algorithms import bfs, bfs_semiring, validate_bfs
from gblas.core.matrix import MatrixLike
from gblas.exceptions import DimensionMismatch, IndexOutOfBound, InvalidObject, InvalidValue

FAMILIES = ("boolean", "real", "tropical", "selmax")


# ---------------------------------------------------------------- guard against hangs
class DidNotTerminate(AssertionError):
    pass


@contextlib.contextmanager
def product_budget(limit: int, seconds: float) -> Iterator[None]:
    """Fail if more than ``limit`` mxv/vxm/mxm products run, or after ``seconds``."""
    count = [0]
    saved = {(MatrixLike, "mxv"): MatrixLike.mxv, (MatrixLike, "mxm"): MatrixLike.mxm,
             (Vector, "vxm"): Vector.vxm}

    def counting(orig):
        def wrapper(self, *args, **kwargs):
            count[0] += 1
            if count[0] > limit:
                raise DidNotTerminate(
                    f"more than {limit} matrix-vector products for a BFS that needs at most "
                    f"{limit}: the iteration does not terminate")
            return orig(self, *args, **kwargs)
        return wrapper

    def on_alarm(signum, frame):
        raise DidNotTerminate(f"BFS still running after {seconds} s")

    use_alarm = hasattr(signal, "SIGALRM")
    if use_alarm:
        old_handler = signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, seconds)
    for (cls, name), orig in saved.items():
        setattr(cls, name, counting(orig))
    try:
        yield
    finally:
        for (cls, name), orig in saved.items():
            setattr(cls, name, orig)
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old_handler)


def eccentricity(A: Matrix, source: int) -> int:
    r, c, _ = A.to_coo()
    S = sp.csr_matrix((np.ones(r.size), (r, c)), shape=A.shape)
    d = csgraph.shortest_path(S, unweighted=True, directed=True, indices=source)
    return int(d[np.isfinite(d)].max())


def run(A: Matrix, source: int, family: str, *, ecc: int | None = None,
        seconds: float = 30.0, **kw):
    ecc = eccentricity(A, source) if ecc is None else ecc
    with product_budget(ecc + 3, seconds):
        return bfs_semiring(A, source, family, **kw)


def as_dict(v) -> dict[int, int]:
    assert v.dtype == INT64
    idx, vals = v.to_coo()
    return dict(zip(idx.tolist(), vals.tolist(), strict=True))


def check_family(A: Matrix, source: int, family: str, **kw) -> None:
    expected = as_dict(bfs(A, source))
    levels = run(A, source, family, **kw)
    assert levels.size == A.nrows
    assert as_dict(levels) == expected, family
    if family == "selmax":
        lv, parents = run(A, source, family, return_parents=True, **kw)
        assert as_dict(lv) == expected
        assert validate_bfs(A, source, lv, parents) is True


# ---------------------------------------------------------------- random graphs
@st.composite
def graphs(draw, max_n: int = 60):
    """BOOL or positive-valued graphs, directed or not, sparse to dense, some self loops."""
    n = draw(st.integers(1, max_n))
    directed = draw(st.booleans())
    avg_degree = draw(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0, 6.0, 15.0, 60.0]))
    loops = draw(st.booleans())
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    mask = rng.random((n, n)) < min(1.0, avg_degree / n)
    if not loops:
        np.fill_diagonal(mask, False)
    if not directed:
        mask = mask | mask.T
    r, c = np.nonzero(mask)
    kind = draw(st.sampled_from(["bool", "int64", "fp64"]))
    if kind == "bool":
        A = Matrix.from_coo(r, c, True, BOOL, nrows=n, ncols=n)
    elif kind == "int64":
        A = Matrix.from_coo(r, c, rng.integers(1, 5, r.size), INT64, nrows=n, ncols=n)
    else:
        A = Matrix.from_coo(r, c, rng.uniform(0.5, 2.0, r.size), FP64, nrows=n, ncols=n)
    A.to_format(draw(st.sampled_from(["csr", "coo"])))
    note(f"n={n} directed={directed} nvals={A.nvals} kind={kind} format={A.format}")
    return A


@pytest.mark.parametrize("family", FAMILIES)
@given(A=graphs(), data=st.data())
def test_family_levels_equal_bfs(family, A, data):
    source = data.draw(st.integers(0, A.nrows - 1), label="source")
    check_family(A, source, family, seconds=20.0)


@given(A=graphs(max_n=30), data=st.data())
def test_four_families_agree(A, data):
    source = data.draw(st.integers(0, A.nrows - 1), label="source")
    ecc = eccentricity(A, source)
    results = [as_dict(run(A, source, f, ecc=ecc, seconds=20.0)) for f in FAMILIES]
    assert all(r == results[0] for r in results[1:])


# ---------------------------------------------------------------- fixed graphs
@pytest.mark.parametrize("family", FAMILIES)
def test_grid(family):
    A = generators.grid2d(6, 7)
    for s in (0, 20, 41):
        check_family(A, s, family)


@pytest.mark.parametrize("family", FAMILIES)
def test_kronecker(family):
    A = generators.kronecker(8, seed=1)
    deg = np.diff(A.to_csr()[0])
    check_family(A, int(np.argmax(deg)), family)


@pytest.mark.parametrize("family", FAMILIES)
def test_directed_path_and_dag(family):
    path = Matrix.from_coo([0, 1, 2, 3], [1, 2, 3, 4], True, BOOL, nrows=6, ncols=6)
    assert as_dict(run(path, 0, family)) == {0: 0, 1: 1, 2: 2, 3: 3, 4: 4}
    assert as_dict(run(path, 3, family)) == {3: 0, 4: 1}
    diamond = Matrix.from_coo([0, 0, 1, 2], [1, 2, 3, 3], True, BOOL, nrows=4, ncols=4)
    check_family(diamond, 0, family)


def test_selmax_parent_is_largest_frontier_in_neighbour():
    """Sel-max picks 1 + the largest frontier in-neighbour (SlimSell), i.e. the max id."""
    diamond = Matrix.from_coo([0, 0, 1, 2], [1, 2, 3, 3], True, BOOL, nrows=4, ncols=4)
    _, parents = run(diamond, 0, "selmax", return_parents=True)
    assert as_dict(parents) == {0: 0, 1: 0, 2: 0, 3: 2}


def test_selmax_parents_on_undirected_graph():
    """An undirected edge leads back to the visited source: the filter must drop it."""
    A = Matrix.from_coo([0, 1], [1, 0], True, BOOL, nrows=2, ncols=2)
    lv, parents = run(A, 0, "selmax", return_parents=True, seconds=10.0)
    assert as_dict(lv) == {0: 0, 1: 1}
    assert as_dict(parents) == {0: 0, 1: 0}


@pytest.mark.parametrize("family", FAMILIES)
def test_single_vertex_isolated_source_and_self_loop(family):
    assert as_dict(run(Matrix(BOOL, 1, 1), 0, family)) == {0: 0}
    loop = Matrix.from_coo([0, 1, 2], [0, 2, 1], True, BOOL, nrows=3, ncols=3)
    assert as_dict(run(loop, 0, family)) == {0: 0}
    assert as_dict(run(loop, 1, family)) == {1: 0, 2: 1}


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("case", ["int64-zeros", "fp64-zeros", "fp64-cancelling"])
def test_values_do_not_matter(family, case):
    """An adjacency matrix's structure is the graph: stored zeros and weights of either
    sign are edges, as for bfs (and msbfs, and the tropical family's unit weights)."""
    #  0 -> 1 -> 3 -> 4     and 0 -> 2 -> 3
    r = np.array([0, 1, 3, 0, 2])
    c = np.array([1, 3, 4, 2, 3])
    if case == "int64-zeros":
        A = Matrix.from_coo(r, c, np.zeros(5, dtype=np.int64), INT64, nrows=5, ncols=5)
    elif case == "fp64-zeros":
        A = Matrix.from_coo(r, c, np.zeros(5), FP64, nrows=5, ncols=5)
    else:  # 1·x(1) + (-1)·x(2) = 0 at vertex 3 if values were used
        A = Matrix.from_coo(r, c, np.array([1.0, 1.0, 1.0, 1.0, -1.0]), FP64, nrows=5, ncols=5)
    assert as_dict(bfs(A, 0)) == {0: 0, 1: 1, 2: 1, 3: 2, 4: 3}
    check_family(A, 0, family)


# ---------------------------------------------------------------- real graphs
REAL = ["snap_ego-Facebook.mtx.gz", "snap_email-Enron.mtx.gz", "dimacs10_delaunay_n16.mtx.gz"]


@pytest.fixture(scope="module")
def real_graphs(graphs_path):
    cache: dict[str, Matrix] = {}

    def load(name: str) -> Matrix:
        if name not in cache:
            path = graphs_path / name
            if not path.exists():
                pytest.skip(f"{name} is not in {graphs_path}")
            cache[name] = io.mmread(path)
        return cache[name]
    return load


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("name", REAL)
def test_real_graph(real_graphs, name, family):
    A = real_graphs(name)
    source = int(np.argmax(np.diff(A.to_csr()[0])))
    check_family(A, source, family, seconds=60.0)


# ---------------------------------------------------------------- errors
def test_unknown_family():
    A = generators.grid2d(2, 2)
    for fam in ("bool", "Boolean", "minplus", "", None, "plus_times"):
        with pytest.raises(InvalidValue):
            bfs_semiring(A, 0, fam)


@pytest.mark.parametrize("family", ["boolean", "real", "tropical"])
def test_parents_only_from_selmax(family):
    with pytest.raises(InvalidValue):
        bfs_semiring(generators.grid2d(2, 2), 0, family, return_parents=True)


@pytest.mark.parametrize("family", FAMILIES)
def test_bad_graph_and_source(family):
    A = generators.grid2d(2, 2)
    for s in (4, -1, 100):
        with pytest.raises(IndexOutOfBound):
            bfs_semiring(A, s, family)
    with pytest.raises(IndexOutOfBound):
        bfs_semiring(Matrix(BOOL, 0, 0), 0, family)
    with pytest.raises(DimensionMismatch):
        bfs_semiring(Matrix.from_coo([0], [2], True, BOOL, nrows=2, ncols=3), 0, family)
    with pytest.raises(InvalidObject):
        bfs_semiring(np.eye(2), 0, family)


def test_guard_counts_products():
    """The guard itself must be able to fail (and must not break a correct run)."""
    A = generators.grid2d(3, 3)
    with pytest.raises(DidNotTerminate):
        with product_budget(1, 10.0):
            bfs_semiring(A, 0, "boolean")
    assert as_dict(run(A, 0, "boolean")) == as_dict(bfs(A, 0))
