"""BVSS on ``cuda:0`` against the CPU: the device builder gives the CPU build's arrays, the
CUDA mxv (Tensor Core and popcount slice tests) gives the CSR results for the pattern
semirings under every mask kind, and the fused BVSS BFS gives the CPU's levels and valid
parents for every direction, variant and reordering, with the kernel recorded."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp

import gblas as gb
from gblas import BOOL, Descriptor, Matrix, Vector, generators, semiring
from gblas.algorithms import bfs, validate_bfs
from gblas.formats.bvss import cuda as bv_cuda

pytestmark = pytest.mark.gpu
GPU = "cuda:0"
VARIANTS = ("tc", "popcount")
REORDERS = ("none", "rcm", "degree", "jaccard", "auto")
MASKS = (None, "S", "~S", "V", "~V")


def _np(a: Any) -> Any:
    return a.get() if hasattr(a, "get") else np.asarray(a)


def _directed(n: int, density: float, seed: int) -> Matrix:
    S = sp.random(n, n, density=density, random_state=seed, format="coo")  # noqa: N806
    keep = S.row != S.col
    return Matrix.from_coo(S.row[keep], S.col[keep], True, nrows=n, ncols=n,
                           dup_op=gb.binary.first)


def _hub(n_leaves: int) -> Matrix:
    """A star (one column block in 1000+ rows: many VSSs in one set) plus a chain."""
    r = [0] * n_leaves + list(range(n_leaves, n_leaves + 30))
    c = list(range(1, n_leaves + 1)) + list(range(n_leaves + 1, n_leaves + 31))
    n = n_leaves + 31
    rr, cc = np.array(r + c), np.array(c + r)
    return Matrix.from_coo(rr, cc, True, nrows=n, ncols=n)


GRAPHS = {
    "kron12": lambda: generators.kronecker(12, seed=3),
    "urand11": lambda: generators.urand(11, seed=2),
    "grid30x41": lambda: generators.grid2d(30, 41),
    "road2000": lambda: generators.road_like(2000, seed=1),
    "directed700": lambda: _directed(700, 0.005, 5),
    "hub": lambda: _hub(1300),
}


@pytest.fixture(params=VARIANTS)
def variant(request: pytest.FixtureRequest) -> Any:
    with gb.config.override(bvss_variant=request.param):
        yield request.param


def _arrays(rep: Any) -> list[np.ndarray]:
    return [_np(a) for a in (rep.set_ptr, rep.vss_set, rep.vss_ptr, rep.row_ids, rep.masks)]


@pytest.mark.parametrize("name", ["kron12", "grid30x41", "directed700", "hub"])
@pytest.mark.parametrize("reorder", ["none", "rcm"])
def test_device_builder_equals_cpu(name: str, reorder: str) -> None:
    A = GRAPHS[name]()  # noqa: N806
    cpu = A._rep("bvss", transposed=True, reorder=reorder)
    dev = A.to(GPU)._rep("bvss", transposed=True, reorder=reorder)
    for a, b in zip(_arrays(cpu), _arrays(dev)):
        np.testing.assert_array_equal(a, b)
    assert (cpu.perm is None) == (dev.perm is None)
    if cpu.perm is not None:
        np.testing.assert_array_equal(_np(cpu.perm), _np(dev.perm))
    assert dev.stats()["slices"] == cpu.stats()["slices"]


def _operand(n: int, seed: int, falses: bool) -> Vector:
    rng = np.random.default_rng(seed)
    idx = np.flatnonzero(rng.random(n) < 0.2)
    vals = rng.random(idx.shape[0]) < 0.6 if falses else np.ones(idx.shape[0], bool)
    return Vector.from_coo(idx, vals, BOOL, size=n)


def _mask(kind: str | None, n: int, seed: int, device: str) -> Any:
    if kind is None:
        return None
    rng = np.random.default_rng(seed)
    idx = np.flatnonzero(rng.random(n) < 0.5)
    m = Vector.from_coo(idx, rng.integers(0, 2, idx.shape[0]).astype(bool), BOOL, size=n,
                        device=device)
    return {"S": m.S, "~S": ~m.S, "V": m.V, "~V": ~m.V}[kind]


@pytest.mark.parametrize("name", ["kron12", "directed700", "hub"])
@pytest.mark.parametrize("sr", ["any_pair", "lor_land", "lor_pair"])
@pytest.mark.parametrize("mask", MASKS)
@pytest.mark.parametrize("reorder", ["none", "degree"])
def test_mxv_equals_csr(name: str, sr: str, mask: str | None, reorder: str,
                        variant: str) -> None:
    A = GRAPHS[name]()  # noqa: N806
    n = A.nrows
    x = _operand(n, 7, falses=sr == "lor_land")
    want = Vector(BOOL, n)
    want(mask=_mask(mask, n, 3, "cpu"), replace=mask is not None) << A.T.mxv(
        x, getattr(semiring, sr))
    Ad = A.to(GPU)  # noqa: N806
    Ad.to_format("bvss", reorder=reorder)
    got = Vector(BOOL, n, device=GPU)
    d = Descriptor()
    got(mask=_mask(mask, n, 3, GPU), replace=mask is not None, desc=d) << Ad.T.mxv(
        x.to(GPU), getattr(semiring, sr))
    assert d.last_kernel == "cuda_bvss_pull"
    assert bv_cuda.LAST_VARIANT[0] == variant
    gi, gv = got.to("cpu").to_coo()
    wi, wv = want.to_coo()
    np.testing.assert_array_equal(gi, wi)
    np.testing.assert_array_equal(gv, wv)


def test_non_pattern_semiring_falls_back() -> None:
    A = GRAPHS["kron12"]()  # noqa: N806
    x = _operand(A.nrows, 1, falses=False)
    xi = x.apply(gb.unary.one[gb.INT64]).new()  # INT64: plus_pair counts, not a pattern
    Ad = A.to(GPU)  # noqa: N806
    Ad.to_format("bvss")
    d = Descriptor()
    got = Ad.T.mxv(xi.to(GPU), semiring.plus_pair).new(desc=d)
    assert "bvss" not in (d.last_kernel or "")
    want = A.T.mxv(xi, semiring.plus_pair).new()
    assert got.to("cpu").isequal(want)


def _cpu_levels(A: Matrix, s: int) -> np.ndarray:  # noqa: N803
    lv = bfs(A, s)
    out = np.full(A.nrows, -1, dtype=np.int64)
    i, v = lv.to_coo()
    out[i] = v
    return out


@pytest.mark.parametrize("name", sorted(GRAPHS))
@pytest.mark.parametrize("direction", ["auto", "pull", "push"])
def test_bfs_levels_and_parents(name: str, direction: str, variant: str) -> None:
    A = GRAPHS[name]()  # noqa: N806
    Ad = A.to(GPU)  # noqa: N806
    Ad.to_format("bvss")
    for s in (0, A.nrows // 2, A.nrows - 1):
        want = _cpu_levels(A, s)
        st: dict[str, Any] = {}
        lv, pi = bfs(Ad, s, parents=True, direction=direction, stats=st)
        kernel = "cuda_bvss_bfs_tc" if variant == "tc" else "cuda_bvss_bfs_popcount"
        assert st["kernels"] == [kernel]
        got = np.full(A.nrows, -1, dtype=np.int64)
        i, v = lv.to("cpu").to_coo()
        got[i] = v
        np.testing.assert_array_equal(got, want)
        assert validate_bfs(A, s, lv.to("cpu"), pi.to("cpu"))
        if direction == "pull":
            assert set(st["directions"]) == {"pull"}


@pytest.mark.parametrize("reorder", REORDERS)
@pytest.mark.parametrize("name", ["kron12", "grid30x41", "directed700"])
def test_bfs_reordered_in_caller_ids(name: str, reorder: str) -> None:
    A = GRAPHS[name]()  # noqa: N806
    Ad = A.to(GPU)  # noqa: N806
    Ad.to_format("bvss", reorder=reorder)
    for s in (1, A.nrows // 3):
        for parents in (False, True):
            d = Descriptor()
            levels, pi, info = gb.cuda.bfs(Ad, s, parents=parents, desc=d)
            assert d.last_kernel == info["kernel"]
            assert info["reorder"] in {"none", "rcm", "degree", "jaccard"}
            got = np.full(A.nrows, -1, dtype=np.int64)
            i, v = levels.to("cpu").to_coo()
            got[i] = v
            np.testing.assert_array_equal(got, _cpu_levels(A, s))
            if parents:
                assert validate_bfs(A, s, levels.to("cpu"), pi.to("cpu"))


def test_csr_matrix_keeps_csr_kernel() -> None:
    A = GRAPHS["kron12"]().to(GPU)  # noqa: N806
    st: dict[str, Any] = {}
    bfs(A, 0, stats=st)
    assert st["kernels"] == ["cuda_csr_bfs_fused"]


def test_to_format_auto_on_the_device() -> None:
    """to_format("auto") on CUDA matrices: BVSS where slices are dense (the BVSS search
    runs, same levels as the CPU), CSR on a Kronecker graph; the statistics are computed
    on the device and equal the CPU's."""
    n = 2048
    r = np.repeat(np.arange(n), 8)
    c = (r // 8) * 8 + np.tile(np.arange(8), n)
    extra = np.arange(0, n - 8, 8)  # chain the blocks so one search crosses them all
    A = Matrix.from_coo(np.concatenate([r, extra, extra + 8]),  # noqa: N806
                        np.concatenate([c, extra + 8, extra]), True, nrows=n, ncols=n,
                        dup_op=gb.binary.first)
    Ag = A.to(GPU).to_format("auto")  # noqa: N806
    assert Ag.format.startswith("bvss")
    info = Ag.format_info("auto")["auto"]
    assert info["compression"] == pytest.approx(A.format_info("auto")["auto"]["compression"])
    st: dict = {}
    lv = bfs(Ag, 3, stats=st)
    assert st["kernels"][0].startswith("cuda_bvss_bfs")
    ic, vc = bfs(A, 3).to_coo()
    ig, vg = lv.to_coo()
    np.testing.assert_array_equal(ic, ig)
    np.testing.assert_array_equal(vc, vg)
    K = generators.kronecker(12, seed=2).to(GPU).to_format("auto")  # noqa: N806
    assert K.format == "csr"
