"""The barrier-free BFS (gblas/formats/csr/bfs_async.cu, through fused_bfs) against the CPU
BFS: the same levels and parents (smallest-index parent one level up) on every graph of the
fused kernel's tests, hubs and directed graphs included, at scale on grids and road-like
graphs (where levels are corrected when a longer path arrives first), the step log's
frontier sizes, the fallback to the fused kernel when the queue overflows, and the knobs'
errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from test_gpu_fused_bfs import GPU, GRAPHS, _same, _sources

import gblas as gb
from gblas import Matrix, generators
from gblas.algorithms import bfs, validate_bfs
from gblas.exceptions import InvalidValue

pytestmark = pytest.mark.gpu


def _fused_bfs(*args: Any, **kw: Any) -> Any:
    from gblas.formats.csr.bfs_fused import fused_bfs  # noqa: PLC0415

    return fused_bfs(*args, **kw)


def _level_counts(levels: Any, n: int) -> list[int]:
    """The frontier after each step as the fused kernel logs it: the vertices of levels 1,
    2, ...; one 0 more when some vertex is unreached (the step that found nothing)."""
    idx, val = levels.to_coo()
    counts = np.bincount(val.astype(np.int64)).tolist()[1:]
    return counts + ([0] if len(idx) < n else [])


def _what_pushes(info: dict) -> str:
    return f"{info['async_pushes']} pushes for {info['reached']} vertices reached"


def _check(A: Matrix, Ag: Matrix, src: int, what: str, **knobs: Any) -> dict:  # noqa: N803
    lc, pc = bfs(A, src, parents=True)
    lg, pg, info = _fused_bfs(Ag, src, parents=True, **knobs)
    _same(lc, lg, what + " levels")
    _same(pc, pg, what + " parents")
    assert info["levels"] == int(lc.to_coo()[1].max()) + 1, what
    assert info["reached"] == lc.nvals, what
    assert info["frontier"] == _level_counts(lc, A.nrows), what
    assert set(info["directions"]) <= {"push"}, what
    return info


@pytest.mark.parametrize("name", sorted(GRAPHS))
@pytest.mark.parametrize(("direction", "claim", "look"), [
    ("auto", 32, True), ("push", 1, True), ("push", 5, False), ("auto", 32, False)])
def test_async_same_as_cpu(name: str, direction: str, claim: int, look: bool) -> None:
    """Every test graph, the barrier-free kernel asked for (hubs and dense graphs too), warps
    claiming 32, 5 or 1 slots at once, its look build (the default) and the build without:
    the CPU's levels and parents, the step log's level sizes; no fallback."""
    A = GRAPHS[name]()  # noqa: N806
    Ag = A.to(GPU)  # noqa: N806
    for src in _sources(A, 4, 13):
        info = _check(A, Ag, src, f"{name} source {src} {direction} claim {claim} look {look}",
                      direction=direction, async_bfs=True, async_claim=claim, async_look=look)
        assert info["async_grid"] and info["async_fallback"] is False
        assert info["async_look"] is look
        assert info["async_pushes"] >= info["reached"] - 1, _what_pushes(info)


@pytest.mark.parametrize("make", [lambda: generators.grid2d(300, 301),
                                  lambda: generators.road_like(60000, seed=4),
                                  lambda: generators.grid2d(2000, 40)],
                         ids=["grid300", "road60k", "strip2000x40"])
@pytest.mark.parametrize("look", [True, False])
def test_async_at_scale(make: Any, look: bool) -> None:
    """Thousands of levels and tens of thousands of vertices in flight (tentative levels
    corrected), with the look build and without: the CPU's levels and parents; the validator
    on the default path."""
    A = make()  # noqa: N806
    Ag = A.to(GPU)  # noqa: N806
    for src in _sources(A, 3, 2):
        info = _check(A, Ag, src, f"source {src} look {look}", async_bfs=True,
                      async_look=look)
        assert info["async_grid"] and not info["async_fallback"]
        lv, pi = (v.to("cpu") for v in bfs(Ag, src, parents=True))
        assert validate_bfs(A, src, lv, pi)


@pytest.mark.parametrize("name", ["grid40x70", "road3000", "hub", "directed800", "kron12"])
@pytest.mark.parametrize("claim", [1, 32])
def test_async_without_look_same_as_cpu(name: str, claim: int) -> None:
    """The build without the look (async_look=False: every relaxation CASes) on test graphs
    and at scale (road-like, where levels are corrected): the CPU's levels and parents; its
    profile build too."""
    A = GRAPHS[name]()  # noqa: N806
    Ag = A.to(GPU)  # noqa: N806
    for src in _sources(A, 3, 17):
        info = _check(A, Ag, src, f"no look {name} source {src} claim {claim}",
                      async_bfs=True, async_claim=claim, async_look=False)
        assert info["async_grid"] and info["async_fallback"] is False
        assert info["async_look"] is False
    R = generators.road_like(60000, seed=9)  # noqa: N806
    Rg = R.to(GPU)  # noqa: N806
    for src in _sources(R, 2, 5):
        _check(R, Rg, src, f"no look road source {src}", async_bfs=True, async_claim=claim,
               async_look=False, async_profile=claim == 1)


@pytest.mark.parametrize("make", [
    lambda: Matrix.from_coo(np.arange(8999), np.arange(1, 9000), True, nrows=9000, ncols=9000),
    lambda: generators.grid2d(3, 5000)], ids=["path9000", "strip3x5000"])
def test_async_deep_search(make: Any) -> None:
    """More levels than the step log's first read (4096) and than the level histogram's
    shared-memory bins: those levels counted in global memory, the log read twice."""
    A = make()  # noqa: N806
    Ag = A.to(GPU)  # noqa: N806
    for src in (0, 4000):
        info = _check(A, Ag, src, f"deep source {src}", async_bfs=True, async_claim=1)
        if src == 0:
            assert info["levels"] > 4096, info["levels"]
        assert info["host_syncs"] == (2 if len(info["frontier"]) > 4096 else 1)


@pytest.mark.parametrize("claim", [1, 32])
def test_async_profile_counts(claim: int) -> None:
    """The profile build: every vertex expanded came from a slot of the queue or was handed
    to a free lane, one per push and the source's slot; the segments' cycles within the
    busy passes'; the CPU's results."""
    A = generators.grid2d(200, 230)  # noqa: N806
    Ag = A.to(GPU)  # noqa: N806
    for src in (0, 23115):
        info = _check(A, Ag, src, f"profile source {src}", async_bfs=True, async_claim=claim,
                      async_profile=True)
        prof = info["async_profile"]
        assert prof["pushes"] == info["async_pushes"] >= info["reached"] - 1
        assert prof["slots_taken"] + prof["handed_locally"] == prof["pushes"] + 1, prof
        assert prof["busy_passes"] >= 1 and prof["busy_cycles"] > 0, prof
        # the busy passes' six segments (AB_SEG) lie inside them
        segments = [v for k, v in prof.items() if k.endswith("_cycles")
                    and k not in ("busy_cycles", "idle_cycles")]
        assert len(segments) == 6 and 0 < sum(segments) <= prof["busy_cycles"], prof


@pytest.mark.parametrize("cap", [1, 2])
def test_async_queue_overflow_falls_back(cap: int) -> None:
    """A queue too small for the search (most pushes go to the finding warp's free lanes,
    not the queue: only a few slots surely overflow): the fused kernel launched after it
    runs the search (info['async_fallback']), with the CPU's results and LAGraph's
    directions."""
    A = generators.grid2d(30, 40)  # noqa: N806
    Ag = A.to(GPU)  # noqa: N806
    for src in (0, 617):
        st: dict = {}
        lc, pc = bfs(A, src, parents=True, stats=st)
        lg, pg, info = _fused_bfs(Ag, src, parents=True, async_bfs=True, async_cap=cap)
        _same(lc, lg, f"cap {cap} levels")
        _same(pc, pg, f"cap {cap} parents")
        assert info["async_fallback"] is True
        assert info["directions"] == st["directions"]


def test_async_default_choice() -> None:
    """The default (async_bfs=None): a mesh or a road network of 65536 vertices or more
    barrier-free, its look build (async_look=True by default), through
    gblas.algorithms.bfs too; a small grid, a Kronecker graph, pull-only searches and
    async_bfs=False the fused kernel alone. The levels equal the CPU's every way."""
    cpu = (generators.grid2d(300, 301), generators.grid2d(20, 30),
           generators.road_like(70000, seed=2), generators.kronecker(11, seed=1))
    grid, small, road, kron = (g.to(GPU) for g in cpu)
    info = _fused_bfs(grid, 0)[2]
    assert info["async_grid"] and info["async_look"] is True
    for look in (True, False):
        lv, _, info = _fused_bfs(road, 3, async_look=look)
        assert info["async_grid"] and info["async_look"] is look
        _same(bfs(cpu[2], 3), lv, f"road levels, async_look={look}")
    for g in (small, kron):
        assert _fused_bfs(g, 0)[2]["async_grid"] is None
    assert _fused_bfs(grid, 0, direction="pull")[2]["async_grid"] is None
    assert _fused_bfs(grid, 0, async_bfs=False)[2]["async_grid"] is None
    st: dict = {}
    lv, pi = bfs(grid, 7, parents=True, stats=st)
    assert validate_bfs(grid.to("cpu"), 7, lv.to("cpu"), pi.to("cpu"))
    assert st["kernels"] == ["cuda_csr_bfs_async"] == [gb.last_plan().kernel]
    bfs(kron, 0, stats=st)
    assert st["kernels"] == ["cuda_csr_bfs_fused"] == [gb.last_plan().kernel]


def test_async_long_row_left_to_the_fused_kernel() -> None:
    """A mesh whose vertex 0 also reaches 4097 others: by default the barrier-free kernel
    sees the row over ASYNC_MAX_ROW on the device and the fused kernel runs the search
    (async_fallback); asked for explicitly it runs it itself. The CPU's results both ways."""
    r, c = generators.grid2d(300, 300).to_coo()[:2]
    far = np.arange(90000 - 4097, 90000)
    zeros = np.zeros_like(far)
    A = Matrix.from_coo(np.concatenate([r, zeros, far]), np.concatenate([c, far, zeros]),  # noqa: N806
                        True, nrows=90000, ncols=90000, dup_op=gb.binary.first)
    Ag = A.to(GPU)  # noqa: N806
    for src in (0, 45150):
        lc, pc = bfs(A, src, parents=True)
        for knob, fallback in ((None, True), (True, False)):
            lg, pg, info = _fused_bfs(Ag, src, parents=True, async_bfs=knob)
            what = f"source {src} async_bfs={knob}"
            _same(lc, lg, what + " levels")
            _same(pc, pg, what + " parents")
            assert info["async_grid"] and info["async_fallback"] is fallback, what
            assert info["kernel"] == ("cuda_csr_bfs_fused" if fallback
                                      else "cuda_csr_bfs_async"), what


def test_async_unread_and_sleep() -> None:
    """step_log=False (nothing read back) and idle warps that sleep between polls: the same
    levels."""
    A = generators.road_like(5000, seed=9)  # noqa: N806
    Ag = A.to(GPU)  # noqa: N806
    ref = bfs(A, 17)
    lv, _, info = _fused_bfs(Ag, 17, step_log=False, async_bfs=True)
    assert info["host_syncs"] == 0
    _same(ref, lv, "unread")
    _check(A, Ag, 17, "sleep", async_bfs=True, async_sleep_ns=500)


def test_async_degenerate_graphs() -> None:
    """One vertex; an isolated source; a directed path read against its direction: the
    source alone or the path's levels, as the CPU."""
    one = Matrix.from_coo(np.array([], np.int64), np.array([], np.int64), True, nrows=1,
                          ncols=1)
    _check(one, one.to(GPU), 0, "one vertex", async_bfs=True)
    r, c = np.arange(99), np.arange(1, 100)
    path = Matrix.from_coo(r, c, True, nrows=120, ncols=120)
    for src in (0, 50, 99, 110):
        _check(path, path.to(GPU), src, f"path source {src}", async_bfs=True)


@pytest.mark.parametrize("knobs", [{"async_bfs": "yes"}, {"async_bfs": 1},
                                   {"async_cap": 0}, {"async_cap": True},
                                   {"async_sleep_ns": -1}, {"async_sleep_ns": 2.5},
                                   {"async_claim": 0}, {"async_claim": 33},
                                   {"async_bfs": True, "direction": "pull"},
                                   {"async_profile": 1}, {"async_look": 1}])
def test_async_knob_errors(knobs: dict) -> None:
    Ag = generators.grid2d(4, 4).to(GPU)  # noqa: N806
    with pytest.raises(InvalidValue):
        _fused_bfs(Ag, 0, **knobs)


def test_async_scipy_matrix_with_values() -> None:
    """A road-like graph with float values, made in SciPy and uploaded with
    from_scipy_sparse(device=...): the CPU's levels and parents from the same SciPy matrix."""
    import scipy.sparse as sp  # noqa: PLC0415

    A = generators.road_like(20000, seed=3)  # noqa: N806
    r, c = A.to_coo()[:2]
    S = sp.csr_matrix((np.random.default_rng(1).random(len(r)) + 1.0, (r, c)),  # noqa: N806
                      shape=A.shape)
    Ag = gb.Matrix.from_scipy_sparse(S, device=GPU)  # noqa: N806
    Ac = gb.Matrix.from_scipy_sparse(S)  # noqa: N806
    lc, pc = bfs(Ac, 5, parents=True)
    lg, pg, info = _fused_bfs(Ag, 5, parents=True, async_bfs=True)
    assert info["async_grid"] and not info["async_fallback"]
    _same(lc, lg, "scipy levels")
    _same(pc, pg, "scipy parents")
