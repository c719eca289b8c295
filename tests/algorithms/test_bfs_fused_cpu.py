"""The fused CPU BFS (``gblas.backend.bfs_fused``, config ``bfs_cpu="fused"``, the default)
against the level loop of GraphBLAS operations (``bfs_cpu="ops"``) and SciPy.

Levels must equal the ops path's and SciPy's exactly; parents must equal the ops path's
(both take the smallest-index vertex one level up) and pass an independent tree check; the
per-step directions, number of levels and reached count must equal the ops path's. The
backend's tuning knobs (``serial_edges=0``: every push parallel; a small ``segment``: the
frontier segments spill into the overflow) are turned so that every code path runs on
these small graphs.
"""

from __future__ import annotations

import numba
import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
from graphs_for_algorithms import named_graphs
from hypothesis import given, note
from hypothesis import strategies as st

import gblas as gb
from gblas import BOOL, FP64, INT64, Matrix, generators
from gblas.algorithms import bfs, validate_bfs
from gblas.backend.bfs_fused import KERNEL_NAME, bfs_csr
from gblas.exceptions import DimensionMismatch, IndexOutOfBound, InvalidObject, InvalidValue

DIRECTIONS = ("auto", "push", "pull")


# ---------------------------------------------------------------- helpers
def dense(v, n: int) -> np.ndarray:
    """An INT64 Vector of size n as an array with -1 where absent."""
    assert v.dtype == INT64 and v.size == n
    idx, vals = v.to_coo()
    out = np.full(n, -1, dtype=np.int64)
    out[idx] = vals
    return out


def ops_bfs(A, source, **kw):  # noqa: N803
    with gb.config.override(bfs_cpu="ops"):
        return bfs(A, source, **kw)


def scipy_levels(A, source: int) -> np.ndarray:  # noqa: N803
    """Levels (-1 unreachable) from breadth_first_order's predecessor tree (out-edges)."""
    r, c, _ = A.to_coo()
    S = sp.csr_matrix((np.ones(r.size), (r, c)), shape=A.shape)  # noqa: N806
    order, pred = csgraph.breadth_first_order(S, source, directed=True,
                                              return_predecessors=True)
    lv = np.full(A.nrows, -1, dtype=np.int64)
    lv[source] = 0
    for v in order[1:]:
        lv[v] = lv[pred[v]] + 1
    return lv


def check_tree(A, source: int, lv: np.ndarray, pi: np.ndarray) -> None:  # noqa: N803
    """Every reached v != source has a parent p with A[p, v] stored and lv[p] = lv[v] - 1."""
    assert pi[source] == source
    assert np.array_equal(pi >= 0, lv >= 0), "parents cover exactly the reached vertices"
    r, c, _ = A.to_coo()
    edges = set(zip(r.tolist(), c.tolist(), strict=True))
    for v in np.flatnonzero(lv > 0).tolist():
        p = int(pi[v])
        assert (p, v) in edges, f"parent edge {p}->{v} is not in the graph"
        assert lv[p] == lv[v] - 1


def transpose_at_hand(A) -> bool:  # noqa: N803
    """pull_ready(A) without its side effect: may an "auto" search of A pull?"""
    return (A.format != "csr" or A.device != "cpu" or bool(A._props.get("symmetric_True"))
            or "csr_T" in A._reps or bool(A._props.get("bfs_searched")))


def compare(A, source: int, direction: str = "auto", **kw) -> dict:  # noqa: N803
    """Fused vs ops (levels, parents, stats) vs SciPy; returns the fused stats. The first
    search of a matrix without its transpose at hand pushes only (LAGraph's rule): it is
    then run once more, so that both paths compare with the transpose built."""
    n = A.nrows
    want = scipy_levels(A, source)
    if direction == "auto" and not transpose_at_hand(A):
        s0: dict = {}
        assert np.array_equal(dense(bfs(A, source, stats=s0, **kw), n), want)
        assert set(s0["directions"]) <= {"push"}, "a first search without Aᵀ pushes only"
        assert "csr_T" not in A._reps, "the first search built the transpose"
    sf: dict = {}
    so: dict = {}
    lf, pf = bfs(A, source, parents=True, direction=direction, stats=sf, **kw)
    lo, po = ops_bfs(A, source, parents=True, direction=direction, stats=so, **kw)
    assert np.array_equal(dense(lf, n), want)
    assert np.array_equal(dense(lo, n), want)
    assert np.array_equal(dense(pf, n), dense(po, n)), "parents differ from the ops path"
    check_tree(A, source, want, dense(pf, n))
    # the op loop on a COO matrix runs the edge-parallel kernel, which has no push or
    # pull and records "pull" whatever the rule chose: directions compare on CSR only
    keys = ("levels", "reached") + (("directions",) if A.format == "csr" else ())
    for key in keys:
        assert sf[key] == so[key], key
    assert sf["kernels"][0] == KERNEL_NAME and KERNEL_NAME not in so["kernels"]
    s2: dict = {}
    lv2 = bfs(A, source, direction=direction, stats=s2, **kw)
    assert np.array_equal(dense(lv2, n), want)
    assert s2["directions"] == sf["directions"]
    if A.format == "csr":  # from the second search on, the search reads 32-bit ids
        assert A._csr().__dict__.get("_indices32") is not None
    return sf


def backend_paths(A, source: int, direction: str, parents: bool = True) -> None:  # noqa: N803
    """bfs_csr with every push parallel and with tiny frontier segments, against ops."""
    n = A.nrows
    c, t = A._csr(), A._csr_T()
    lo = ops_bfs(A, source, parents=parents, direction=direction)
    want_lv = dense(lo[0] if parents else lo, n)
    knobs = ((0, None), (0, 1), (0, 3), (2**62, 2), (1, 5))
    for (serial_edges, segment), ids in zip(knobs * 2, [np.int64] * 5 + [np.int32] * 5,
                                            strict=True):
        bits, lv, pi, info = bfs_csr(c.indptr, c.indices.astype(ids), t.indptr,
                                     t.indices.astype(ids), source,
                                     parents=parents, direction=direction,
                                     serial_edges=serial_edges, segment=segment)
        assert np.array_equal(np.where(bits, lv, -1), want_lv), (serial_edges, segment, ids)
        assert info["reached"] == int(bits.sum())
        if parents:
            assert np.array_equal(np.where(bits, pi, -1), dense(lo[1], n))
        else:
            assert pi is None


def sources(A, k: int = 3, seed: int = 0) -> list[int]:  # noqa: N803
    deg = np.diff(A._csr().indptr)
    rng = np.random.default_rng(seed)
    picks = {int(np.argmax(deg)), 0, A.nrows - 1}
    picks |= set(rng.integers(0, A.nrows, k).tolist())
    return sorted(picks)


# ---------------------------------------------------------------- generator graphs
SPECS = ["kron:10", "urand:9", "grid:20x30", "road:1500", "kron:9,ef=4"]


@pytest.fixture(scope="module", params=SPECS)
def gen_graph(request):
    return generators.parse_spec(request.param)


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_generators_equal_ops_and_scipy(gen_graph, direction):
    for s in sources(gen_graph):
        compare(gen_graph, s, direction)


def test_generators_every_backend_path(gen_graph):
    for s in sources(gen_graph, 1, seed=5):
        for direction in DIRECTIONS:
            backend_paths(gen_graph, s, direction, parents=direction != "pull")


def test_auto_switches_both_ways_on_kronecker():
    A = generators.kronecker(12, seed=1)  # noqa: N806
    seen = []
    for s in sources(A, 4, seed=2):
        seen += compare(A, s)["directions"]
    assert {"push", "pull"} <= set(seen)


@pytest.mark.parametrize("thresholds", [(1.0, 2.0, 4.0), (64.0, 1.5, 2.0), (0.5, 100.0, 1e4),
                                        (1e-12, 8.0, 512.0), (1e12, 1e12, 512.0),
                                        (3, 8, 512), (float("inf"), 8.0, 512.0)])
def test_thresholds_give_the_ops_directions(thresholds):
    alpha, beta1, beta2 = thresholds
    for A in (generators.kronecker(11, seed=4), generators.road_like(2000, seed=3)):  # noqa: N806
        for s in sources(A, 2, seed=1):
            compare(A, s, alpha=alpha, beta1=beta1, beta2=beta2)


def test_config_thresholds_are_read():
    A = generators.kronecker(10, seed=0)  # noqa: N806
    s = sources(A)[0]
    with gb.config.override(bfs_alpha=1e-12):
        st1: dict = {}
        bfs(A, s, stats=st1)
    assert set(st1["directions"]) == {"push"}  # frontier edges never exceed huge/α


# ---------------------------------------------------------------- user-shaped graphs
@pytest.mark.parametrize("name", sorted(named_graphs()))
def test_user_graphs(name):
    A = named_graphs()[name]  # noqa: N806
    for s in sources(A, 2, seed=3):
        for direction in DIRECTIONS:
            compare(A, s, direction)
        backend_paths(A, s, "auto")


@pytest.mark.parametrize("fmt", ["coo", "sellcs", "slimsell", "bvss"])
def test_other_formats(fmt):
    base = generators.kronecker(9, seed=6)
    A = base.dup()  # noqa: N806
    A.to_format(fmt)
    for s in sources(base, 2):
        want = dense(ops_bfs(base, s), base.nrows)
        st1: dict = {}
        lv, pi = bfs(A, s, parents=True, stats=st1)
        assert np.array_equal(dense(lv, A.nrows), want)
        assert st1["kernels"][0] == KERNEL_NAME  # parents: fused for every format
        assert validate_bfs(A, s, lv, pi) is True
        st2: dict = {}
        assert np.array_equal(dense(bfs(A, s, stats=st2), A.nrows), want)
        # levels only: a BVSS matrix runs its BVSS pull kernel, the others the fused search
        assert (st2["kernels"][0] == KERNEL_NAME) == (fmt != "bvss")


def test_values_of_any_dtype_are_ignored():
    r = np.array([0, 1, 1, 2, 2, 3, 4])
    c = np.array([1, 0, 2, 1, 3, 2, 4])
    for dtype, vals in ((BOOL, np.zeros(7, bool)), (INT64, np.array([0, -5, 0, 3, 0, 0, 9])),
                        (FP64, np.array([0.0, np.nan, -0.0, 1e-300, np.inf, 2.0, 0.0]))):
        A = Matrix.from_coo(r, c, vals, dtype, nrows=6, ncols=6)  # noqa: N806
        for direction in DIRECTIONS:
            compare(A, 0, direction)
            compare(A, 4, direction)


def test_symmetric_matrix_pulls_from_its_own_rows():
    A = generators.urand(9, seed=8)  # noqa: N806
    assert A.is_symmetric()  # cached: the fused path then pulls from A's CSR
    for s in sources(A, 2):
        compare(A, s, "pull")


def test_directed_graph_follows_out_edges():
    rng = np.random.default_rng(11)
    n = 300
    keys = np.unique(rng.integers(0, n * n, 900))
    A = Matrix.from_coo(keys // n, keys % n, True, BOOL, nrows=n, ncols=n)  # noqa: N806
    for s in sources(A, 4, seed=4):
        for direction in DIRECTIONS:
            compare(A, s, direction)
    AT = A.T.new()  # noqa: N806
    s = int(keys[0] // n)
    assert not np.array_equal(dense(bfs(A, s), n), dense(bfs(AT, s), n))


def test_star_hub_row_longer_than_a_segment():
    """A hub whose row exceeds a worker's segment takes the spilling path."""
    n = 5000
    leaves = np.arange(1, n)
    r = np.concatenate([np.zeros(n - 1, np.int64), leaves, leaves[:-1]])
    c = np.concatenate([leaves, np.zeros(n - 1, np.int64), leaves[1:]])
    A = Matrix.from_coo(r, c, True, BOOL, nrows=n, ncols=n)  # noqa: N806
    for s in (0, 7, n - 1):
        for direction in DIRECTIONS:
            compare(A, s, direction)
            backend_paths(A, s, direction)


def test_one_thread_and_all_threads_agree():
    A = generators.kronecker(11, seed=9)  # noqa: N806
    s = sources(A)[0]
    want = ops_bfs(A, s, parents=True)
    prev = numba.get_num_threads()
    try:
        for t in sorted({1, numba.config.NUMBA_NUM_THREADS}):
            numba.set_num_threads(t)
            lv, pi = bfs(A, s, parents=True)
            assert lv.isequal(want[0]) and pi.isequal(want[1])
    finally:
        numba.set_num_threads(prev)


# ---------------------------------------------------------------- edge cases and errors
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_single_vertex_and_edgeless(direction):
    one = Matrix(BOOL, 1, 1)
    st1: dict = {}
    lv, pi = bfs(one, 0, parents=True, direction=direction, stats=st1)
    assert dense(lv, 1).tolist() == [0] and dense(pi, 1).tolist() == [0]
    assert st1 == {"levels": 1, "directions": [], "kernels": [KERNEL_NAME], "reached": 1}
    loop = Matrix.from_coo([0], [0], 1.5, FP64, nrows=1, ncols=1)
    assert dense(bfs(loop, 0, direction=direction), 1).tolist() == [0]
    E = Matrix(INT64, 5, 5)  # noqa: N806
    for s in range(5):
        st2: dict = {}
        lv = bfs(E, s, direction=direction, stats=st2)
        assert lv.nvals == 1 and dense(lv, 5)[s] == 0
        so: dict = {}
        ops_bfs(E, s, direction=direction, stats=so)
        assert st2["directions"] == so["directions"] and st2["levels"] == so["levels"] == 1


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_self_loops_and_isolated_source(direction):
    r = np.array([0, 1, 1, 2, 0, 1, 2, 3])
    c = np.array([1, 0, 2, 1, 0, 1, 2, 3])
    A = Matrix.from_coo(r, c, True, BOOL, nrows=6, ncols=6)  # noqa: N806
    for s in range(6):
        compare(A, s, direction)
    lv, pi = bfs(A, 0, parents=True, direction=direction)
    assert dense(lv, 6).tolist() == [0, 1, 2, -1, -1, -1]
    assert dense(pi, 6).tolist() == [0, 0, 1, -1, -1, -1]


def test_result_storage_kinds():
    A = generators.grid2d(30, 30)  # noqa: N806
    lv = bfs(A, 0)
    assert lv.nvals == 900 and lv.format == "full"
    parts = Matrix.from_coo([0, 1], [1, 2], True, nrows=1000, ncols=1000)
    lv, pi = bfs(parts, 0, parents=True)
    assert lv.nvals == 3 and lv.format == "sparse" and pi.format == "sparse"
    assert lv.apply(gb.binary.plus, right=1).new().to_coo()[1].tolist() == [1, 2, 3]
    half = Matrix.from_coo(np.arange(499), np.arange(1, 500), True, nrows=1000, ncols=1000)
    lv = bfs(half, 0)
    assert lv.nvals == 500 and lv.format == "bitmap"
    lv[999] << 7  # the result is an ordinary Vector: writable, and separate from parents
    assert lv.nvals == 501


def test_errors_are_the_ops_paths():
    grid = generators.grid2d(2, 2)
    cases = [
        (Matrix(BOOL, 0, 0), 0, {}, IndexOutOfBound),
        (grid, 4, {}, IndexOutOfBound),
        (grid, -1, {}, IndexOutOfBound),
        (grid, "zero", {}, InvalidValue),
        (grid, 0, {"direction": "sideways"}, InvalidValue),
        (Matrix.from_coo([0, 1], [1, 2], True, BOOL, nrows=2, ncols=3), 0, {},
         DimensionMismatch),
        (np.eye(3, dtype=bool), 0, {}, InvalidObject),
    ]
    for A, s, kw, exc in cases:  # noqa: N806
        for parents in (False, True):
            with pytest.raises(exc):
                bfs(A, s, parents=parents, **kw)
            with pytest.raises(exc):
                ops_bfs(A, s, parents=parents, **kw)


@pytest.mark.parametrize("alpha", [0, -1.0, float("nan"), True])
def test_unusual_thresholds_take_the_level_loop(alpha):
    """Non-positive, NaN or bool thresholds run the ops path, so results and errors are its
    own (alpha = 0 divides by zero there)."""
    A = generators.kronecker(8, seed=2)  # noqa: N806
    s = sources(A)[0]
    try:
        want = ops_bfs(A, s, alpha=alpha)
    except ZeroDivisionError:
        with pytest.raises(ZeroDivisionError):
            bfs(A, s, alpha=alpha)
        return
    st1: dict = {}
    assert bfs(A, s, alpha=alpha, stats=st1).isequal(want)
    assert KERNEL_NAME not in st1["kernels"]


def test_bfs_does_not_modify_the_graph():
    A = generators.kronecker(9, seed=3)  # noqa: N806
    before = A.dup()
    for direction in DIRECTIONS:
        bfs(A, 1, parents=True, direction=direction)
    assert A.isequal(before)


# ---------------------------------------------------------------- the config key
def test_config_key_selects_the_path():
    A = generators.kronecker(9, seed=1)  # noqa: N806
    s = sources(A)[0]
    assert gb.config.get("bfs_cpu") == "fused"
    fused: dict = {}
    ops: dict = {}
    lf = bfs(A, s, stats=fused)
    assert gb.last_plan().kernel == KERNEL_NAME
    with gb.config.override(bfs_cpu="ops"):
        lo = bfs(A, s, stats=ops)
    assert lf.isequal(lo)
    assert fused["kernels"][0] == KERNEL_NAME
    assert set(fused["kernels"]) <= {KERNEL_NAME, f"{KERNEL_NAME}_push",
                                     f"{KERNEL_NAME}_pull"}
    assert ops["kernels"] and not any(k.startswith(KERNEL_NAME) for k in ops["kernels"])
    assert fused["kernels"] != ops["kernels"]
    gb.config.set(bfs_cpu="ops")
    try:
        st1: dict = {}
        bfs(A, s, stats=st1)
        assert st1["kernels"] == ops["kernels"]
    finally:
        gb.config.set(bfs_cpu="fused")
    for bad in ("levels", "FUSED", None, 1):
        with pytest.raises(InvalidValue, match="bfs_cpu"):
            gb.config.set(bfs_cpu=bad)
    assert gb.config.get("bfs_cpu") == "fused"


# ---------------------------------------------------------------- property test
@st.composite
def small_graphs(draw):
    n = draw(st.integers(1, 40))
    directed = draw(st.booleans())
    avg = draw(st.sampled_from([0.0, 0.5, 1.0, 2.0, 4.0, 10.0, 40.0]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    mask = rng.random((n, n)) < min(1.0, avg / n)
    if not draw(st.booleans()):
        np.fill_diagonal(mask, False)
    if not directed:
        mask = mask | mask.T
    r, c = np.nonzero(mask)
    kind = draw(st.sampled_from(["bool", "int64", "fp64"]))
    if kind == "bool":
        A = Matrix.from_coo(r, c, True, BOOL, nrows=n, ncols=n)  # noqa: N806
    elif kind == "int64":
        A = Matrix.from_coo(r, c, rng.integers(-2, 3, r.size), INT64, nrows=n, ncols=n)  # noqa: N806
    else:
        A = Matrix.from_coo(r, c, rng.choice([0.0, -1.5, 2.0], r.size), FP64,  # noqa: N806
                            nrows=n, ncols=n)
    A.to_format(draw(st.sampled_from(["csr", "coo"])))
    note(f"n={n} directed={directed} nvals={A.nvals} kind={kind} format={A.format}")
    return A


@given(A=small_graphs(), data=st.data())
def test_property_random_graphs(A, data):  # noqa: N803
    s = data.draw(st.integers(0, A.nrows - 1), label="source")
    direction = data.draw(st.sampled_from(DIRECTIONS), label="direction")
    thresholds = data.draw(st.sampled_from([(8.0, 8.0, 512.0), (1.0, 2.0, 2.0),
                                            (100.0, 1.0, 1e6)]), label="thresholds")
    alpha, beta1, beta2 = thresholds
    compare(A, s, direction, alpha=alpha, beta1=beta1, beta2=beta2)
    c, t = A._csr(), A._csr_T()
    serial_edges = data.draw(st.sampled_from([0, 1, 2**62]), label="serial_edges")
    segment = data.draw(st.integers(1, max(1, A.nrows)), label="segment")
    bits, lv, pi, _ = bfs_csr(c.indptr, c.indices, t.indptr, t.indices, s, parents=True,
                              direction=direction, alpha=alpha, beta1=beta1, beta2=beta2,
                              serial_edges=serial_edges, segment=segment)
    assert np.array_equal(np.where(bits, lv, -1), scipy_levels(A, s))
    lo, po = ops_bfs(A, s, parents=True, direction=direction)
    assert np.array_equal(np.where(bits, pi, -1), dense(po, A.nrows))
