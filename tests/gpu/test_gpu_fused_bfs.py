"""The fused cooperative BFS kernel (gblas/formats/csr/bfs_fused.py) against the CPU BFS:
identical levels, parents (smallest-index parent one level up) and sequence of directions,
on generated, real-like, directed and degenerate graphs; plus the GPU graph generators of
benchmarks/bfs_gpu.py against gblas.generators."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp

import gblas as gb
from gblas import Matrix, generators
from gblas.algorithms import bfs, validate_bfs
from gblas.exceptions import IndexOutOfBound, InvalidValue
from gblas.formats.vector import VecData

pytestmark = pytest.mark.gpu
GPU = "cuda:0"
FUSED = "cuda_csr_bfs_fused"
ROOT = Path(__file__).resolve().parents[2]


def _star_chain(n_leaves: int, chain: int) -> Matrix:
    """Vertex 0 joined to n_leaves leaves (a hub split into several chunks), one leaf
    continuing as a chain, and a second hub of medium degree at the chain's end."""
    r = [0] * n_leaves
    c = list(range(1, n_leaves + 1))
    last = n_leaves
    for i in range(chain):
        r.append(last)
        c.append(n_leaves + 1 + i)
        last = n_leaves + 1 + i
    base = n_leaves + chain + 1
    for i in range(100):  # a warp-tier vertex (32 <= degree < 256)
        r.append(last)
        c.append(base + i)
    n = base + 100
    rr, cc = np.array(r + c), np.array(c + r)
    return Matrix.from_coo(rr, cc, True, nrows=n, ncols=n)


def _many_hubs(n_first: int, n_hubs: int, leaves: int) -> Matrix:
    """Vertex 0 joined to vertices 1 .. n_first, of which 1 .. n_hubs have ``leaves`` leaves
    each (their own, above FB_BIG): one push level claims n_hubs hubs at once, several in
    one warp, whose chunk lists the next push reads; hub i's leaves also reach hub i + 1."""
    r = list(range(1, n_first + 1))
    c = [0] * n_first
    nxt = n_first + 1
    for h in range(1, n_hubs + 1):
        r += [h] * leaves
        c += list(range(nxt, nxt + leaves))
        if h < n_hubs:
            r.append(nxt)
            c.append(h + 1)
        nxt += leaves
    rr, cc = np.array(r + c), np.array(c + r)
    return Matrix.from_coo(rr, cc, True, nrows=nxt, ncols=nxt, dup_op=gb.binary.first)


def _directed(n: int, density: float, seed: int) -> Matrix:
    S = sp.random(n, n, density=density, random_state=seed, format="coo")  # noqa: N806
    keep = S.row != S.col
    return Matrix.from_coo(S.row[keep], S.col[keep], True, nrows=n, ncols=n,
                           dup_op=gb.binary.first)


def _heavy_in(n: int, seed: int) -> Matrix:
    """Directed: a sparse random graph plus 2500 in-edges into vertex 7 (a pull row split
    into chunks that the whole grid shares)."""
    rng = np.random.default_rng(seed)
    r = rng.integers(0, n, 3 * n)
    c = rng.integers(0, n, 3 * n)
    src = rng.choice(np.arange(8, n), 2500, replace=False)
    r, c = np.concatenate([r, src]), np.concatenate([c, np.full(2500, 7)])
    keep = r != c
    return Matrix.from_coo(r[keep], c[keep], True, nrows=n, ncols=n, dup_op=gb.binary.first)


GRAPHS = {
    "kron12": lambda: generators.kronecker(12, seed=3),
    "urand11": lambda: generators.urand(11, seed=2),
    "grid40x70": lambda: generators.grid2d(40, 70),
    "road3000": lambda: generators.road_like(3000, seed=1),
    "directed800": lambda: _directed(800, 0.004, 5),
    "directed_dense300": lambda: _directed(300, 0.05, 9),
    "hub": lambda: _star_chain(1500, 40),
    "many_hubs": lambda: _many_hubs(1200, 150, 300),
    "heavy_in": lambda: _heavy_in(6000, 3),
}


@pytest.fixture(scope="module", params=sorted(GRAPHS))
def graph(request: pytest.FixtureRequest) -> tuple[str, Matrix, Matrix]:
    A = GRAPHS[request.param]()  # noqa: N806
    A.is_symmetric()  # Aᵀ at hand: the CPU reference's first search may pull (pull_ready)
    return request.param, A, A.to(GPU)


def _coo(v: Any) -> tuple[np.ndarray, np.ndarray]:
    return v.to_coo()


def _same(cpu: Any, gpu: Any, what: str) -> None:
    if isinstance(gpu, VecData):  # the formats layer's BFS entry points return vector data
        gpu = gb.Vector._from_data(gpu, GPU)
    assert gpu.device == GPU
    assert gpu.dtype == gb.INT64
    (ic, vc), (ig, vg) = _coo(cpu), _coo(gpu)
    np.testing.assert_array_equal(ic, ig, err_msg=f"{what}: vertices differ")
    np.testing.assert_array_equal(vc, vg, err_msg=f"{what}: values differ")


def _sources(A: Matrix, k: int, seed: int) -> list[int]:
    deg = np.diff(A.to_csr()[0])
    rng = np.random.default_rng(seed)
    pick = rng.choice(A.nrows, size=min(k, A.nrows), replace=False).tolist()
    return sorted(set(pick + [int(np.argmax(deg))]))  # and the largest hub


@pytest.mark.parametrize("direction", ["auto", "push", "pull"])
@pytest.mark.parametrize("parents", [False, True])
def test_fused_same_as_cpu(graph: tuple[str, Matrix, Matrix], direction: str,
                           parents: bool) -> None:
    name, A, Ag = graph  # noqa: N806
    for src in _sources(A, 4, 11):
        st_c: dict = {}
        st_g: dict = {}
        cpu = bfs(A, src, parents=parents, direction=direction, stats=st_c)
        gpu = bfs(Ag, src, parents=parents, direction=direction, stats=st_g)
        what = f"{name} source {src} {direction}"
        if parents:
            _same(cpu[0], gpu[0], what + " levels")
            _same(cpu[1], gpu[1], what + " parents")
            assert validate_bfs(A, src, gpu[0].to("cpu"), gpu[1].to("cpu"))
        else:
            _same(cpu, gpu, what + " levels")
        assert st_g["kernels"] == [FUSED]
        assert st_g["levels"] == st_c["levels"], what
        assert st_g["reached"] == st_c["reached"], what
        assert st_g["directions"] == st_c["directions"], what


@pytest.mark.parametrize("thresholds", [(1.0, 2.0, 4.0), (64.0, 1.5, 2.0), (0.5, 100.0, 1e4)])
def test_fused_switch_rule_thresholds(thresholds: tuple[float, float, float]) -> None:
    """Other alpha / beta1 / beta2: the same directions as the CPU rule, step by step."""
    alpha, beta1, beta2 = thresholds
    for A in (generators.kronecker(11, seed=4), generators.road_like(2000, seed=3)):  # noqa: N806
        Ag = A.to(GPU)  # noqa: N806
        for src in _sources(A, 3, 2):
            st_c: dict = {}
            st_g: dict = {}
            lc, pc = bfs(A, src, parents=True, alpha=alpha, beta1=beta1, beta2=beta2,
                         stats=st_c)
            lg, pg = bfs(Ag, src, parents=True, alpha=alpha, beta1=beta1, beta2=beta2,
                         stats=st_g)
            _same(lc, lg, "levels")
            _same(pc, pg, "parents")
            assert st_g["directions"] == st_c["directions"]
            assert st_g["kernels"] == [FUSED]


@pytest.mark.parametrize("blocks_per_sm", [1, 2])
def test_fused_small_grids(blocks_per_sm: int) -> None:
    """Fewer resident blocks: every loop is grid-stride, so the results do not change."""
    for info in _fused_like_cpu((generators.kronecker(12, seed=5), _heavy_in(6000, 4)), 3, 8,
                                blocks_per_sm=blocks_per_sm):
        assert info["grid"] % blocks_per_sm == 0


@pytest.mark.parametrize("max_blocks", [1, 3, 16])
def test_fused_few_blocks(max_blocks: int) -> None:
    """A grid of a few blocks (one included): the same results."""
    graphs = (generators.kronecker(11, seed=5), _heavy_in(3000, 4), generators.grid2d(40, 50))
    for info in _fused_like_cpu(graphs, 2, 8, max_blocks=max_blocks):
        assert info["grid"] == max_blocks


def _no_in_edges(n: int, seed: int) -> Matrix:
    """Directed, n not a multiple of 32: vertices below n // 3 have out-edges but no
    in-edges (set in the pull's bitmap of empty rows of Aᵀ, yet sources), every seventh
    vertex above that none at all, the rest a sparse random graph."""
    rng = np.random.default_rng(seed)
    r = rng.integers(0, n, 4 * n)
    c = rng.integers(n // 3, n, 4 * n)
    keep = (r != c) & (r % 7 != 0) & (c % 7 != 0)
    return Matrix.from_coo(r[keep], c[keep], True, nrows=n, ncols=n, dup_op=gb.binary.first)


@pytest.mark.parametrize("max_blocks", [1, 3, None])
def test_fused_pull_words(max_blocks: int | None) -> None:
    """The pull loads 32 words a warp at once and skips the words with nothing to scan
    (visited, or vertices without in-edges: CSR.empty_rows_bits): graphs of more words
    than a warp's 32 times the grid's warps (one block: 256 words), with isolated vertices,
    vertices without in-edges (sources among them) and a last word cut short; the CPU's
    levels and parents from every source kind."""
    kron = generators.kronecker(14, seed=7)
    r, c, _ = kron.to_coo()
    padded = Matrix.from_coo(r, c, True, nrows=kron.nrows + 7, ncols=kron.nrows + 7)
    graphs = (padded, _no_in_edges(20011, 2))
    in_ptr = graphs[1].T.new().to_csr()[0]
    assert in_ptr[2] == in_ptr[1] and graphs[1][1, :].new().nvals  # 1: only out-edges
    _fused_like_cpu(graphs, 3, 4, max_blocks=max_blocks)
    from gblas.formats.csr.bfs_fused import fused_bfs  # noqa: PLC0415

    A = graphs[1]  # noqa: N806
    for src in (1, 5, A.nrows - 1):  # a source without in-edges, one in the last word
        lc, pc = bfs(A, src, parents=True)
        lg, pg, _ = fused_bfs(A.to(GPU), src, parents=True, direction="pull",
                              max_blocks=max_blocks)
        _same(lc, lg, f"source {src} levels")
        _same(pc, pg, f"source {src} parents")


@pytest.mark.parametrize("min_blocks", [1, 6, 8])
def test_fused_min_blocks(min_blocks: int) -> None:
    """The kernel compiled for more (fewer registers, spills) or fewer resident blocks per
    SM: the CPU's results; the occupancy the compiled kernel reports is at least that."""
    from gblas.formats.csr.bfs_fused import get_kernel  # noqa: PLC0415

    graphs = (generators.kronecker(11, seed=5), _heavy_in(3000, 4), generators.grid2d(40, 50))
    _fused_like_cpu(graphs, 2, 8, min_blocks=min_blocks)
    for idx32 in (False, True):
        assert get_kernel(0, idx32, min_blocks)[1] >= min_blocks


@pytest.mark.parametrize("pull_blocks", [None, 2, 6, 8])
def test_fused_pull_launch(pull_blocks: int | None) -> None:
    """The pull levels in a launch of their own (a build of more resident blocks, resuming
    the push launch's loop state), or not: the CPU's levels, parents and directions; three
    launches where the pull build fits more blocks, on graphs whose searches push, pull and
    push again, or pull from the start."""
    from gblas.formats.csr.bfs_fused import fused_bfs  # noqa: PLC0415

    graphs = (generators.kronecker(12, seed=5), _heavy_in(3000, 4),
              GRAPHS["directed_dense300"](), generators.grid2d(30, 40))
    infos = _fused_like_cpu(graphs, 3, 9, pull_blocks=pull_blocks)
    if pull_blocks is None:
        assert all(i["launches"] == 1 and i["pull_grid"] is None for i in infos)
    else:
        assert all(i["launches"] in (1, 3) for i in infos)
        assert all((i["pull_grid"] or 0) > i["grid"] for i in infos if i["launches"] == 3)
    A = generators.kronecker(12, seed=5)  # noqa: N806
    A.is_symmetric()
    for src in _sources(A, 3, 2):
        st: dict = {}
        lc = bfs(A, src, stats=st)
        lg, _, info = fused_bfs(A.to(GPU), src, pull_blocks=pull_blocks)
        _same(lc, lg, f"kron12 source {src} pull_blocks={pull_blocks}")
        assert info["directions"] == st["directions"]
        if pull_blocks == 8 and "pull" in st["directions"]:
            assert info["launches"] == 3 and info["pull_grid"] > info["grid"]


def _fused_like_cpu(graphs: Any, k: int, seed: int, **knobs: Any) -> list[dict[str, Any]]:
    """fused_bfs with ``knobs`` from k sources of each graph, auto and pull, with parents:
    the CPU's levels and parents; returns the infos."""
    from gblas.formats.csr.bfs_fused import fused_bfs  # noqa: PLC0415

    infos = []
    for A in graphs:  # noqa: N806
        A.is_symmetric()
        Ag = A.to(GPU)  # noqa: N806
        for src in _sources(A, k, seed):
            for direction in ("auto", "pull"):
                lc, pc = bfs(A, src, parents=True, direction=direction)
                lg, pg, info = fused_bfs(Ag, src, parents=True, direction=direction, **knobs)
                what = f"source {src} {direction} {knobs}"
                _same(lc, lg, what + " levels")
                _same(pc, pg, what + " parents")
                infos.append(info)
    return infos


def _push_knob_runs(name: str, seed: int, **knobs: int) -> Iterator[tuple[str, str, dict]]:
    """fused_bfs on GRAPHS[name] from 3 sources, directions auto and push, with the push
    knobs given: levels, parents and directions checked against the CPU's; yields (what,
    direction, info) for the test's own checks."""
    from gblas.formats.csr.bfs_fused import fused_bfs  # noqa: PLC0415

    A = GRAPHS[name]()  # noqa: N806
    A.is_symmetric()
    Ag = A.to(GPU)  # noqa: N806
    for src in _sources(A, 3, seed):
        for direction in ("auto", "push"):
            st_c: dict = {}
            lc, pc = bfs(A, src, parents=True, direction=direction, stats=st_c)
            lg, pg, info = fused_bfs(Ag, src, parents=True, direction=direction, **knobs)
            what = f"{name} source {src} {direction} {knobs}"
            _same(lc, lg, what + " levels")
            _same(pc, pg, what + " parents")
            assert info["directions"] == st_c["directions"], what
            yield what, direction, info


@pytest.mark.parametrize("small_edges", [0, 64, 1 << 40])
@pytest.mark.parametrize("name", ["road3000", "grid40x70", "hub", "directed800", "kron12",
                                  "many_hubs"])
def test_fused_block_levels(name: str, small_edges: int) -> None:
    """Block levels (small pushes in block 0 alone, no grid sync): off, for tiny frontiers
    only, and for every push level; the results and directions are the CPU's."""
    for what, direction, info in _push_knob_runs(name, 5, small_edges=small_edges):
        steps = len(info["directions"])
        if small_edges == 0:
            assert info["block_steps"] == 0, what
        elif small_edges == 1 << 40 and direction == "push":
            assert info["block_steps"] == steps, what  # every level in block 0
        assert 0 <= info["block_steps"] <= steps


@pytest.mark.parametrize("eager_edges", [0, 1 << 40])
@pytest.mark.parametrize("name", ["road3000", "grid40x70", "hub", "directed800", "kron12",
                                  "many_hubs"])
def test_fused_eager_levels(name: str, eager_edges: int) -> None:
    """Grid push levels that claim without probing (every one from a queue, or none), block
    levels off so that every push is a grid level: the CPU's levels, parents, directions."""
    for what, _, info in _push_knob_runs(name, 7, small_edges=0, eager_edges=eager_edges):
        assert info["block_steps"] == 0 and info["eager_edges"] == eager_edges, what


@pytest.mark.parametrize("mark_edges", [0, 1, 300])
@pytest.mark.parametrize("name", ["road3000", "grid40x70", "hub", "directed800", "kron12",
                                  "many_hubs", "heavy_in"])
def test_fused_marked_pushes(name: str, mark_edges: int) -> None:
    """Marked pushes (targets marked, a byte a vertex, claimed in a second pass): none, every
    grid push from a queue, and the wide ones; block and eager levels off so that the grid
    pushes are many. With parents (the pass that probes lvl first) and without (levels
    only: no probe), the CPU's results and directions."""
    from gblas.formats.csr.bfs_fused import fused_bfs  # noqa: PLC0415

    knobs = {"small_edges": 0, "eager_edges": 0, "mark_edges": mark_edges}
    marked = 0
    for what, direction, info in _push_knob_runs(name, 11, **knobs):
        assert info["mark_edges"] == mark_edges, what
        pushes = info["directions"].count("push")
        if mark_edges == 0:
            assert info["mark_steps"] == 0, what
        elif mark_edges == 1 and direction == "push":
            # every level from a queue but one whose frontier has no out-edges (it finds
            # nothing: the search's last)
            assert info["mark_steps"] >= pushes - 1, what
        assert 0 <= info["mark_steps"] <= pushes, what
        marked += info["mark_steps"]
    if mark_edges == 1:
        assert marked > 0
    A = GRAPHS[name]()  # noqa: N806
    Ag = A.to(GPU)  # noqa: N806
    for src in _sources(A, 2, 13):  # levels only, and the kept scratch searched again
        for direction in ("auto", "push"):
            lc = bfs(A, src, direction=direction)
            for _ in range(2):
                lg, pg, info = fused_bfs(Ag, src, direction=direction, **knobs)
                assert pg is None
                _same(lc, lg, f"{name} source {src} {direction} levels only {knobs}")


@pytest.mark.parametrize("pull_serial", [1, 3, 64])
def test_fused_pull_serial(pull_serial: int) -> None:
    """Any number of in-neighbours a lane checks alone before its warp helps: the parents
    are still the smallest visited in-neighbours, the levels the CPU's."""
    _fused_like_cpu([GRAPHS[name]() for name in ("kron12", "heavy_in", "directed_dense300",
                                                 "grid40x70")], 2, 4, pull_serial=pull_serial)


@pytest.mark.parametrize("wide_ids", [False, True])
def test_fused_id_widths(wide_ids: bool) -> None:
    """int32 column ids (the default where they fit) and int64 ones: the CPU's results."""
    graphs = [GRAPHS[name]() for name in ("kron12", "heavy_in", "directed_dense300")]
    infos = _fused_like_cpu(graphs, 2, 5, wide_ids=wide_ids)
    assert {info["id_bits"] for info in infos} == {64 if wide_ids else 32}


def test_fused_unread_results() -> None:
    """step_log=False: nothing read at the call, the count read when asked; searches
    queued back to back on one stream share the scratch and each keeps its own results;
    a search on another stream gets its own scratch."""
    import cupy as cp  # noqa: PLC0415

    from gblas.formats.csr.bfs_fused import fused_bfs  # noqa: PLC0415

    A = generators.kronecker(11, seed=4)  # noqa: N806
    A.is_symmetric()
    Ag = A.to(GPU)  # noqa: N806
    srcs = _sources(A, 4, 9)
    outs = []
    for s in srcs:  # queued, none read
        lv, pi, info = fused_bfs(Ag, s, parents=True, step_log=False)
        assert info["host_syncs"] == 0 and "levels" not in info
        assert lv._nvals is None and lv._count is not None
        outs.append((s, lv, pi))
    # another stream: CuPy's rule, the caller orders its streams (the int32 ids and the
    # transpose cached by the first search are made on the default stream); the queued
    # searches' scratch is then not shared (Work.reused's stream rule, tested on the CPU)
    cp.cuda.get_current_stream().synchronize()
    side = cp.cuda.Stream(non_blocking=True)
    with side:
        lv_side, _, _ = fused_bfs(Ag, srcs[0], step_log=False)
    side.synchronize()
    for s, lv, pi in outs:
        lc, pc = bfs(A, s, parents=True)
        _same(lc, lv, f"source {s} levels")
        _same(pc, pi, f"source {s} parents")
    _same(bfs(A, srcs[0]), lv_side, "side stream")


def test_fused_scratch_reused() -> None:
    """The scratch buffers stay on the matrix between searches (only the outputs are new),
    a busy scratch is not shared, and a changed matrix gets new ones; results stay right."""
    from gblas.formats.csr.bfs_fused import _CTR_WORDS, Work, fused_bfs  # noqa: PLC0415

    A = generators.kronecker(10, seed=2)  # noqa: N806
    Ag = A.to(GPU)  # noqa: N806
    l1, _, _ = fused_bfs(Ag, 3)
    w = Work.reused(Ag, "auto", _CTR_WORDS)  # the first search's, now busy again
    assert w.busy
    other = Work.reused(Ag, "auto", _CTR_WORDS)  # w is busy: a fresh one
    assert other is not w
    w.release()
    other.release()
    assert Work.reused(Ag, "auto", _CTR_WORDS) is w
    w.release()
    l2, p2, _ = fused_bfs(Ag, 5, parents=True)
    l1b, _, _ = fused_bfs(Ag, 3)
    _same(bfs(A, 3), l1, "first")  # later searches did not write into its outputs
    _same(bfs(A, 3), l1b, "again")
    lc, pc = bfs(A, 5, parents=True)
    _same(lc, l2, "levels")
    _same(pc, p2, "parents")
    Ag[0, 1] = False  # the matrix changes: its properties, the scratch included, go
    assert Work.reused(Ag, "auto", _CTR_WORDS) is not w


def test_fused_prepared_searches() -> None:
    """Searches on one scratch that switch knob sets (parents, step log, direction, the
    barrier-free kernel or not) each run their own prepared launches, take the outputs the
    search before made ahead only where parents match, find the counters zeroed behind the
    search before, and keep their own results while later searches run."""
    from gblas.formats.csr.bfs_fused import _CTR_WORDS, Work, fused_bfs  # noqa: PLC0415

    for A, kinds in ((generators.kronecker(11, seed=8), (None, False)),  # noqa: N806
                     (generators.grid2d(30, 40), (None, True))):
        A.is_symmetric()
        Ag = A.to(GPU)  # noqa: N806
        runs = []
        for i, s in enumerate(_sources(A, 6, 3) * 2):
            kw = dict(parents=bool(i % 2), step_log=i % 3 != 2, async_bfs=kinds[i % 2],
                      direction=("auto", "push")[(i // 2) % 2])
            lv, pi, info = fused_bfs(Ag, s, **kw)
            runs.append((s, kw, lv, pi))
            if kw["step_log"]:
                assert info["host_syncs"] >= 1
        w = Work.reused(Ag, "auto", _CTR_WORDS)
        w.release()
        assert w.kept and w.ctr_zero and w.spare is not None
        assert 2 <= len(w.prepared) <= 8  # one per knob set this scratch ran
        for s, kw, lv, pi in runs:
            lc, pc = bfs(A, s, parents=True)
            _same(lc, lv, f"source {s} levels {kw}")
            if kw["parents"]:
                _same(pc, pi, f"source {s} parents {kw}")
            else:
                assert pi is None


def test_fused_launch_paths() -> None:
    """The packed-argument cooperative launch and CuPy's own kernel call (the fallback for
    a CuPy without the driver entry point) give the same search."""
    from gblas.formats.csr import bfs_fused  # noqa: PLC0415
    from gblas.formats.csr.coop_launch import PackedLaunch  # noqa: PLC0415

    A = generators.kronecker(11, seed=6)  # noqa: N806
    Ag = A.to(GPU)  # noqa: N806
    builds = ((bfs_fused.MIN_BLOCKS, False), (bfs_fused.PULL_MIN_BLOCKS, False),
              (bfs_fused.PULL_MIN_BLOCKS, True))  # (the pull launch's build: pull_only)
    launches = [bfs_fused._fused_launch(0, idx32, mb, pull_only) for idx32 in (False, True)
                for mb, pull_only in builds]
    assert all(la.driver is not None for la in launches)  # CuPy 14: the packed path runs
    lv, pi, _ = bfs_fused.fused_bfs(Ag, 9, parents=True)
    saved = [la.driver for la in launches]
    try:
        for la in launches:
            la.driver = None
        lv2, pi2, _ = bfs_fused.fused_bfs(Ag, 9, parents=True)
    finally:
        for la, d in zip(launches, saved):
            la.driver = d
    lc, pc = bfs(A, 9, parents=True)
    for got in (lv, lv2):
        _same(lc, got, "levels")
    for got in (pi, pi2):
        _same(pc, got, "parents")
    with pytest.raises(InvalidValue, match=f"{len(bfs_fused._FUSED_ARGS)} kernel arguments"):
        PackedLaunch(launches[0], 1, 256, (0,) * 31)


def test_fused_edge_cases() -> None:
    # a single vertex, no edges
    one = Matrix(bool, 1, 1, device=GPU)
    st: dict = {}
    lv, pi = bfs(one, 0, parents=True, stats=st)
    assert _coo(lv)[0].tolist() == [0] and _coo(pi)[1].tolist() == [0]
    assert st["levels"] == 1 and st["directions"] == [] and st["kernels"] == [FUSED]
    # an isolated source, and a disconnected graph
    A = Matrix.from_coo([1, 2, 3, 5], [2, 3, 1, 6], True, nrows=8, ncols=8)  # noqa: N806
    A = A.ewise_add(A.T.new(), gb.binary.first).new()  # noqa: N806
    A.is_symmetric()  # Aᵀ at hand: the CPU reference's first search may pull (pull_ready)
    Ag = A.to(GPU)  # noqa: N806
    for src in range(8):
        for direction in ("auto", "push", "pull"):
            st_c: dict = {}
            st_g: dict = {}
            lc, pc = bfs(A, src, parents=True, direction=direction, stats=st_c)
            lg, pg = bfs(Ag, src, parents=True, direction=direction, stats=st_g)
            _same(lc, lg, f"source {src}")
            _same(pc, pg, f"source {src}")
            assert st_g["directions"] == st_c["directions"]
            assert st_g["levels"] == st_c["levels"]
    # an edgeless graph of several vertices
    E = Matrix(bool, 5, 5, device=GPU)  # noqa: N806
    lv = bfs(E, 3)
    assert _coo(lv)[0].tolist() == [3] and lv.nvals == 1


def test_fused_storage_kinds() -> None:
    """Full (every vertex reached), bitmap and sparse results are all valid Vectors: read
    back (stats) the result takes the storage its density calls for; unread, the kernel's
    bitmap with the count on the device."""
    A = generators.grid2d(30, 30)  # noqa: N806
    parts = Matrix.from_coo([0, 1], [1, 2], True, nrows=1000, ncols=1000)
    for stats in ({}, None):
        lv = bfs(A.to(GPU), 0, stats=stats)
        assert lv.nvals == 900 and lv.format == ("full" if stats is not None else "bitmap")
        assert lv.to_coo()[1].tolist() == bfs(A, 0).to_coo()[1].tolist()
        lv = bfs(parts.to(GPU), 0, stats=stats)
        assert lv.nvals == 3 and lv.format == ("sparse" if stats is not None else "bitmap")
        assert lv.apply(gb.binary.plus, right=1).new().to_coo()[1].tolist() == [1, 2, 3]


def test_config_switch_selects_the_loop() -> None:
    A = generators.kronecker(10, seed=1)  # noqa: N806
    Ag = A.to(GPU)  # noqa: N806
    st: dict = {}
    with gb.config.override(bfs_gpu="ops"):
        lv = bfs(Ag, 1, stats=st)
    assert FUSED not in st["kernels"] and all(k.startswith("cuda_") for k in st["kernels"])
    _same(bfs(A, 1), lv, "loop")
    assert gb.config.get("bfs_gpu") == "fused"


def test_fused_api_errors() -> None:
    from gblas.formats.csr import bfs_fused  # noqa: PLC0415

    A = generators.grid2d(4, 4)  # noqa: N806
    assert not bfs_fused.applies(A)
    assert bfs_fused.applies(A.to(GPU))
    assert not bfs_fused.applies(A.to(GPU), alpha=0)
    with pytest.raises(IndexOutOfBound):
        bfs_fused.fused_bfs(A.to(GPU), 16)
    with pytest.raises(InvalidValue):
        bfs_fused.fused_bfs(A.to(GPU), 0, direction="sideways")
    with pytest.raises(InvalidValue):
        bfs_fused.fused_bfs(A.to(GPU), 0, beta2=-1.0)
    for bad in (-1, True, 2.5):
        with pytest.raises(InvalidValue, match="small_edges"):
            bfs_fused.fused_bfs(A.to(GPU), 0, small_edges=bad)
        with pytest.raises(InvalidValue, match="eager_edges"):
            bfs_fused.fused_bfs(A.to(GPU), 0, eager_edges=bad)
        with pytest.raises(InvalidValue, match="mark_edges"):
            bfs_fused.fused_bfs(A.to(GPU), 0, mark_edges=bad)
    for bad in (0, True, 1.5):
        with pytest.raises(InvalidValue, match="pull_serial"):
            bfs_fused.fused_bfs(A.to(GPU), 0, pull_serial=bad)
        with pytest.raises(InvalidValue, match="max_blocks"):
            bfs_fused.fused_bfs(A.to(GPU), 0, max_blocks=bad)
    for bad in (0, 9, True, 4.0):
        with pytest.raises(InvalidValue, match="min_blocks"):
            bfs_fused.fused_bfs(A.to(GPU), 0, min_blocks=bad)
        with pytest.raises(InvalidValue, match="pull_blocks"):
            bfs_fused.fused_bfs(A.to(GPU), 0, pull_blocks=bad)
    # knob sets are checked once each (with their types): after good calls, a knob equal
    # to a good one but of another type, or unhashable, still fails, every time
    Ag = A.to(GPU)  # noqa: N806
    bfs_fused.fused_bfs(Ag, 0, async_look=True, small_edges=64)
    for _ in range(2):
        with pytest.raises(InvalidValue, match="async_look"):
            bfs_fused.fused_bfs(Ag, 0, async_look=1, small_edges=64)
        with pytest.raises(InvalidValue, match="small_edges"):
            bfs_fused.fused_bfs(Ag, 0, small_edges=[64])
        with pytest.raises(InvalidValue, match="async_cap"):
            bfs_fused.fused_bfs(Ag, 0, async_cap={})
    lv, pi, info = bfs_fused.fused_bfs(A.to(GPU), 5, parents=True)
    assert info["levels"] == 5 and info["reached"] == 16 and pi.nvals == 16
    assert info["host_syncs"] == 1 and info["levels_per_sync"] == 5
    assert len(info["directions"]) == len(info["frontier"]) and info["frontier"][0] == 4


# ---------------------------------------------------------------------------- generators
def _bench_module() -> Any:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    spec = importlib.util.spec_from_file_location("bfs_gpu", ROOT / "benchmarks" / "bfs_gpu.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _same_matrix(cpu: Matrix, gpu: Matrix) -> None:
    assert gpu.device == GPU and gpu.shape == cpu.shape and gpu.is_iso
    for a, b in zip(cpu.to_csr()[:2], gpu.to_csr()[:2], strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("scale,ef,seed", [(13, 17, 3), (10, 16, 0), (9, 5, 7), (0, 16, 1)])
def test_gpu_generators_identical(scale: int, ef: int, seed: int) -> None:
    """benchmarks/bfs_gpu.py replays gblas.generators' PCG64 stream on the device: the same
    graphs (several chunks of 2**17 edges, a partial last chunk, odd scales)."""
    mod = _bench_module()
    _same_matrix(generators.kronecker(scale, ef, seed=seed), mod.gpu_kronecker(scale, ef, seed))
    _same_matrix(generators.urand(scale, ef, seed), mod.gpu_urand(scale, ef, seed))
    _same_matrix(generators.grid2d(37, 53), mod.gpu_grid2d(37, 53))
