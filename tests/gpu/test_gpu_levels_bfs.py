"""The level-kernel BFS (gblas/formats/csr/bfs_levels.py, ``gblas.cuda.bfs(method="levels")``)
against the CPU BFS and the fused kernel: identical levels, parents and per-step directions
on the graphs of test_gpu_fused_bfs.py, for several levels-per-sync K; at most
ceil(levels / K) + 2 host reads; the kernel recorded in last_plan / desc.last_kernel; the
config key ``bfs_gpu`` selecting each of the three GPU paths of ``bfs()``."""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_gpu_fused_bfs import GRAPHS, _same, _sources

import gblas as gb
from gblas import Matrix, generators
from gblas.algorithms import bfs, validate_bfs
from gblas.exceptions import IndexOutOfBound, InvalidValue

pytestmark = pytest.mark.gpu
GPU = "cuda:0"
LEVELS = "cuda_csr_bfs_levels"
FUSED = "cuda_csr_bfs_fused"


@pytest.fixture(scope="module", params=sorted(GRAPHS))
def graph(request: pytest.FixtureRequest) -> tuple[str, Matrix, Matrix]:
    A = GRAPHS[request.param]()  # noqa: N806
    A.is_symmetric()  # Aᵀ at hand: the CPU reference's first search may pull (pull_ready)
    return request.param, A, A.to(GPU)


def _check_syncs(info: dict, k: int) -> None:
    assert info["levels_per_sync"] == k
    assert info["host_syncs"] <= math.ceil(info["levels"] / k) + 2, info
    assert info["bodies"] >= len(info["directions"])


@pytest.mark.parametrize("k", [1, 3, 8])
@pytest.mark.parametrize("direction", ["auto", "push", "pull"])
def test_levels_same_as_cpu(graph: tuple[str, Matrix, Matrix], direction: str, k: int) -> None:
    name, A, Ag = graph  # noqa: N806
    for src in _sources(A, 3, 11):
        st_c: dict = {}
        lc, pc = bfs(A, src, parents=True, direction=direction, stats=st_c)
        lg, pg, info = gb.cuda.bfs(Ag, src, parents=True, direction=direction, method="levels",
                                   levels_per_sync=k)
        what = f"{name} source {src} {direction} K={k}"
        _same(lc, lg, what + " levels")
        _same(pc, pg, what + " parents")
        assert info["levels"] == st_c["levels"], what
        assert info["reached"] == st_c["reached"], what
        assert info["directions"] == st_c["directions"], what
        assert info["kernel"] == LEVELS and info["graph"]
        _check_syncs(info, k)


@pytest.mark.parametrize("direction", ["auto", "push", "pull"])
def test_levels_same_as_fused_levels_only(graph: tuple[str, Matrix, Matrix],
                                          direction: str) -> None:
    """Without parents (no atomicMin pass): the same levels and per-step frontier sizes as
    the fused kernel."""
    name, A, Ag = graph  # noqa: N806
    for src in _sources(A, 2, 5):
        lf, _, fi = gb.cuda.bfs(Ag, src, direction=direction, method="fused")
        lv, pv, li = gb.cuda.bfs(Ag, src, direction=direction, method="levels")
        assert pv is None
        _same(lf, lv, f"{name} source {src} {direction}")
        assert li["frontier"] == fi["frontier"] and li["directions"] == fi["directions"]
        assert len(li["step_us"]) == len(li["directions"]) and li["kernel_us"] > 0


def test_levels_long_search_many_syncs() -> None:
    """A grid of ~130 levels: several batches (pipelined), syncs bounded by ceil(L/K) + 2,
    and the no-op replays after the end change nothing."""
    A = generators.grid2d(40, 90)  # noqa: N806
    Ag = A.to(GPU)  # noqa: N806
    lc, pc = bfs(A, 0, parents=True)
    for k in (1, 3, 8, 64):
        lg, pg, info = gb.cuda.bfs(Ag, 0, parents=True, method="levels", levels_per_sync=k)
        _same(lc, lg, f"K={k}")
        _same(pc, pg, f"K={k}")
        assert validate_bfs(A, 0, lg.to("cpu"), pg.to("cpu"))
        _check_syncs(info, k)
        if k == 1:
            assert info["host_syncs"] >= info["levels"] - 1  # one read per level


def test_levels_without_graph() -> None:
    """The direct-launch fallback (no CUDA graph): same results, same sync bound."""
    from gblas.formats.csr.bfs_levels import levels_bfs  # noqa: PLC0415

    A = generators.road_like(2000, seed=4)  # noqa: N806
    Ag = A.to(GPU)  # noqa: N806
    for src in _sources(A, 2, 3):
        lc, pc = bfs(A, src, parents=True)
        lg, pg, info = levels_bfs(Ag, src, parents=True, levels_per_sync=5, use_graph=False)
        _same(lc, lg, "levels")
        _same(pc, pg, "parents")
        assert not info["graph"]
        _check_syncs(info, 5)


@pytest.mark.parametrize("thresholds", [(1.0, 2.0, 4.0), (64.0, 1.5, 2.0), (0.5, 100.0, 1e4)])
def test_levels_switch_rule_thresholds(thresholds: tuple[float, float, float]) -> None:
    alpha, beta1, beta2 = thresholds
    for A in (generators.kronecker(11, seed=4), generators.road_like(2000, seed=3)):  # noqa: N806
        Ag = A.to(GPU)  # noqa: N806
        for src in _sources(A, 2, 2):
            st_c: dict = {}
            lc, pc = bfs(A, src, parents=True, alpha=alpha, beta1=beta1, beta2=beta2,
                         stats=st_c)
            lg, pg, info = gb.cuda.bfs(Ag, src, parents=True, alpha=alpha, beta1=beta1,
                                       beta2=beta2, method="levels", levels_per_sync=3)
            _same(lc, lg, "levels")
            _same(pc, pg, "parents")
            assert info["directions"] == st_c["directions"]


def test_levels_edge_cases() -> None:
    one = Matrix(bool, 1, 1, device=GPU)
    lv, pi, info = gb.cuda.bfs(one, 0, parents=True, method="levels")
    assert lv.to_coo()[0].tolist() == [0] and pi.to_coo()[1].tolist() == [0]
    assert info["levels"] == 1 and info["directions"] == [] and info["host_syncs"] <= 3
    A = Matrix.from_coo([1, 2, 3, 5], [2, 3, 1, 6], True, nrows=8, ncols=8)  # noqa: N806
    A = A.ewise_add(A.T.new(), gb.binary.first).new()  # noqa: N806
    A.is_symmetric()  # Aᵀ at hand: the CPU reference's first search may pull (pull_ready)
    Ag = A.to(GPU)  # noqa: N806
    for src in range(8):
        for direction in ("auto", "push", "pull"):
            st_c: dict = {}
            lc, pc = bfs(A, src, parents=True, direction=direction, stats=st_c)
            lg, pg, info = gb.cuda.bfs(Ag, src, parents=True, direction=direction,
                                       method="levels", levels_per_sync=2)
            _same(lc, lg, f"source {src}")
            _same(pc, pg, f"source {src}")
            assert info["directions"] == st_c["directions"]
            assert info["levels"] == st_c["levels"]
    E = Matrix(bool, 5, 5, device=GPU)  # noqa: N806
    lv, _, _ = gb.cuda.bfs(E, 3, method="levels")
    assert lv.to_coo()[0].tolist() == [3] and lv.nvals == 1


def test_cuda_bfs_records_plan() -> None:
    Ag = generators.grid2d(8, 8).to(GPU)  # noqa: N806
    for method, kernel in (("fused", FUSED), ("levels", LEVELS)):
        for direction in ("auto", "pull"):
            desc = gb.Descriptor()
            _, _, info = gb.cuda.bfs(Ag, 0, method=method, direction=direction, desc=desc)
            assert info["kernel"] == kernel
            assert desc.last_kernel == kernel
            assert desc.last_direction == (None if direction == "auto" else direction)
            plan = gb.last_plan()
            assert plan.kernel == kernel and plan.op == "bfs" and plan.format == "csr"
    assert gb.cuda.bfs_applies(Ag, method="levels")
    assert not gb.cuda.bfs_applies(Ag, method="sideways")
    with pytest.raises(InvalidValue):
        gb.cuda.bfs(Ag, 0, method="levels", levels_per_sync=0)
    with pytest.raises(IndexOutOfBound):
        gb.cuda.bfs(Ag, 64, method="levels")
    with pytest.raises(InvalidValue):
        gb.cuda.bfs(Ag, 0, method="levels", alpha=-1.0)


@pytest.mark.parametrize("method", ["fused", "levels", "ops"])
def test_config_bfs_gpu_selects_the_path(method: str) -> None:
    A = generators.kronecker(10, seed=1)  # noqa: N806
    Ag = A.to(GPU)  # noqa: N806
    for parents in (False, True):
        st: dict = {}
        with gb.config.override(bfs_gpu=method):
            out = bfs(Ag, 1, parents=parents, stats=st)
        ref = bfs(A, 1, parents=parents)
        if parents:
            _same(ref[0], out[0], method)
            _same(ref[1], out[1], method)
        else:
            _same(ref, out, method)
        if method == "ops":
            assert FUSED not in st["kernels"] and LEVELS not in st["kernels"]
            assert all(k.startswith("cuda_") for k in st["kernels"]), st["kernels"]
        else:
            assert st["kernels"] == [FUSED if method == "fused" else LEVELS]
            assert st["host_syncs"] >= 1
    assert gb.config.get("bfs_gpu") == "fused"


def test_levels_hub_source_big_chunks() -> None:
    """A hub source (its chunks queued at level 0) and a dense directed graph, K = 1."""
    for name in ("hub", "directed_dense300"):
        A = GRAPHS[name]()  # noqa: N806
        Ag = A.to(GPU)  # noqa: N806
        deg = np.diff(A.to_csr()[0])
        src = int(np.argmax(deg))
        lc, pc = bfs(A, src, parents=True)
        lg, pg, info = gb.cuda.bfs(Ag, src, parents=True, method="levels", levels_per_sync=1)
        _same(lc, lg, name)
        _same(pc, pg, name)
        _check_syncs(info, 1)
