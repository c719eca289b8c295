"""mxm on ``cuda:0`` (gblas/formats/csr/mxm_cuda.py): masked dot products and the chunked
masked saxpy against the CPU kernels and the dense oracle, on random matrices of several
dtypes (iso and valued), many semirings (positional ones too), structural/value masks,
complemented masks, replace, accumulators and transposed operands; the chunked saxpy with a
tiny budget against one chunk; triangle counting and betweenness against the CPU, at a size
whose masked product used to be formed unmasked (kron:18).

Floating-point sums and products may fold in another order on the GPU (allclose); every
other result must be identical, ``any`` monoids included (both take the first product in k
order)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import gblas as gb
from gblas import Descriptor, Matrix, binary, semiring
from gblas import _config as config
from gblas.algorithms import betweenness_centrality, triangle_count
from gblas.exceptions import DomainMismatch
from gblas.ops import reference as ref

pytestmark = pytest.mark.gpu
GPU = "cuda:0"
FEW = settings(max_examples=30, deadline=None)

DTYPES = (np.bool_, np.int8, np.int32, np.int64, np.uint8, np.uint64, np.float32, np.float64)
SEMIRINGS = ("plus_times", "plus_pair", "min_plus", "max_times", "any_pair", "lor_land",
             "plus_firsti", "any_secondi", "max_first", "times_plus", "min_secondj",
             "any_first", "plus_min", "max_second", "bor_band")
MASKS = ("none", "S", "V", "~S", "~V")
ACCUMS = (None, binary.plus, binary.second, binary.min)
GPU_KERNELS = ("cuda_csr_masked_dot", "cuda_csr_saxpy")


def _values(rng: np.random.Generator, dtype: Any, n: int) -> np.ndarray:
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.random(n) < 0.7
    if dt.kind == "u":
        return rng.integers(0, 6, n).astype(dt)
    if dt.kind == "i":
        return rng.integers(-3, 4, n).astype(dt)
    return (rng.integers(-6, 7, n) / 2).astype(dt)  # float32-exact halves


def _matrix(rng: np.random.Generator, m: int, n: int, density: float, dtype: Any,
            iso: bool = False) -> Matrix:
    cells = rng.random((m, n)) < density
    r, c = np.nonzero(cells)
    vals: Any = dtype(1) if iso else _values(rng, dtype, r.size)
    return Matrix.from_coo(r, c, vals, dtype=dtype, nrows=m, ncols=n)


def _with_hub(A: Matrix, row: int, value: Any) -> Matrix:  # noqa: N803
    """A with row ``row`` full (a hub: longer than any small budget or warp threshold)."""
    r, c, v = A.to_coo()
    keep = r != row
    cols = np.arange(A.ncols)
    return Matrix.from_coo(np.concatenate([r[keep], np.full(A.ncols, row)]),
                           np.concatenate([c[keep], cols]),
                           np.concatenate([v[keep], np.full(A.ncols, value, dtype=v.dtype)]),
                           dtype=A.dtype.np_type, nrows=A.nrows, ncols=A.ncols)


def _inexact(sr: Any, dtype: Any) -> bool:
    return np.dtype(dtype).kind == "f" and sr.monoid.name in ("plus", "times")


def _same(cpu: Matrix, gpu: Matrix, inexact: bool) -> None:
    assert gpu.device == GPU, gpu.device
    assert cpu.dtype == gpu.dtype and cpu.shape == gpu.shape
    c, g = cpu.to_coo(), gpu.to_coo()
    np.testing.assert_array_equal(c[0], g[0])
    np.testing.assert_array_equal(c[1], g[1])
    if inexact:
        np.testing.assert_allclose(g[2], c[2], rtol=1e-5, atol=1e-6)
    else:
        np.testing.assert_array_equal(g[2], c[2])


def _dense(M: Matrix) -> tuple[np.ndarray, np.ndarray]:  # noqa: N803
    r, c, v = M.to_coo()
    vals = np.zeros(M.shape, dtype=M.dtype.np_type)
    pres = np.zeros(M.shape, dtype=bool)
    vals[r, c], pres[r, c] = v, True
    return vals, pres


def _mask(M: Matrix, kind: str) -> Any:  # noqa: N803
    return {"none": None, "S": M.S, "V": M.V, "~S": ~M.S, "~V": ~M.V}[kind]


# --------------------------------------------------------------------------- vs the CPU
@FEW
@given(seed=st.integers(0, 2**31), sr=st.sampled_from(SEMIRINGS), dt=st.sampled_from(DTYPES),
       masked=st.sampled_from(MASKS), direction=st.sampled_from(["auto", "pull", "push"]),
       accum=st.sampled_from(ACCUMS), replace=st.booleans(), iso=st.booleans(),
       transpose=st.sampled_from(["none", "desc", "view"]), hub=st.booleans())
def test_mxm_same_as_cpu(seed: int, sr: str, dt: Any, masked: str, direction: str,
                         accum: Any, replace: bool, iso: bool, transpose: str,
                         hub: bool) -> None:
    rng = np.random.default_rng(seed)
    m, k, n = (int(x) for x in rng.integers(1, 60, 3))
    if transpose == "desc":  # ops/mxm.py checks and shapes the output before it applies
        k = n = m  # the descriptor's transposes: square operands only
    replace = replace and masked != "none"
    dens = 0.7 if hub else 0.15  # dense rows: the dot product's warp kernel
    A = _matrix(rng, m, k, dens, dt, iso)  # noqa: N806
    B = _matrix(rng, k, n, dens, dt)  # noqa: N806
    M = _matrix(rng, m, n, 0.3, dt)  # noqa: N806 - valued: ~V and V differ from S
    C0 = _matrix(rng, m, n, 0.2, dt)  # noqa: N806
    op = getattr(semiring, sr)
    res = []
    for dev in ("cpu", GPU):
        a, b, mm, c = (x.to(dev) for x in (A, B, M, C0.dup()))
        desc = Descriptor(direction=direction, replace=replace)
        if transpose == "desc":  # C = Aᵀᵀ ⊕.⊗ Bᵀᵀ through the descriptor
            a, b = a.T.new(), b.T.new()
            desc = Descriptor(direction=direction, replace=replace, transpose_first=True,
                              transpose_second=True)
        elif transpose == "view":
            a, b = a.T.new().T, b.T.new().T
        mask = _mask(mm, masked)
        try:
            c(mask=mask, accum=accum, desc=desc) << a.mxm(b, op)
        except DomainMismatch:  # the semiring or accumulator refuses the types (on both)
            assert dev == "cpu"
            assume(False)
        if dev == GPU:
            assert desc.last_kernel in GPU_KERNELS, desc.last_kernel
            if masked in ("S", "V") and direction != "auto":
                assert desc.last_kernel == GPU_KERNELS[direction == "push"]
        res.append(c)
    _same(*res, _inexact(op, A.mxm(B, op).new().dtype.np_type) or (
        accum is binary.plus and np.dtype(dt).kind == "f"))


@FEW
@given(seed=st.integers(0, 2**31), sr=st.sampled_from(["plus_times", "min_plus",
                                                       "plus_firsti", "max_first",
                                                       "lor_land", "times_plus"]),
       dt=st.sampled_from([np.int64, np.int8, np.float64, np.bool_]),
       masked=st.sampled_from(MASKS), direction=st.sampled_from(["pull", "push"]))
def test_mxm_vs_oracle(seed: int, sr: str, dt: Any, masked: str, direction: str) -> None:
    rng = np.random.default_rng(seed)
    m, k, n = (int(x) for x in rng.integers(1, 25, 3))
    A, B = _matrix(rng, m, k, 0.3, dt), _matrix(rng, k, n, 0.3, dt)  # noqa: N806
    M = _matrix(rng, m, n, 0.4, dt)  # noqa: N806
    op = getattr(semiring, sr)
    try:
        tv, tp = ref.mxm(_dense(A), _dense(B), op)
    except DomainMismatch:
        assume(False)
    got = A.to(GPU).mxm(B.to(GPU), op).new(mask=_mask(M.to(GPU), masked),
                                           desc=Descriptor(direction=direction))
    mv, mp = _dense(M)
    allowed = {"none": np.ones_like(mp), "S": mp, "V": mp & (mv != 0)}.get(masked)
    if allowed is None:
        allowed = ~(mp if masked == "~S" else mp & (mv != 0))
    gv, gp = _dense(got)
    np.testing.assert_array_equal(gp, tp & allowed)
    if _inexact(op, tv.dtype):
        np.testing.assert_allclose(gv[gp], tv[gp], rtol=1e-5)
    else:
        np.testing.assert_array_equal(gv[gp], tv[gp])


# ---------------------------------------------------------------- chunks and work split
@pytest.mark.parametrize("masked", ["none", "S", "~S"])
@pytest.mark.parametrize("sr", ["plus_times", "any_secondi", "min_plus", "plus_pair"])
def test_saxpy_tiny_budget_equals_one_chunk(masked: str, sr: str) -> None:
    """A budget of a few products (many chunks, rows cut inside) gives the one-chunk result;
    a hub row makes cut rows certain."""
    rng = np.random.default_rng(11)
    A = _with_hub(_matrix(rng, 40, 70, 0.15, np.int64), 3, 2).to(GPU)  # noqa: N806
    B = _matrix(rng, 70, 50, 0.2, np.int64).to(GPU)  # noqa: N806
    M = _matrix(rng, 40, 50, 0.4, np.bool_, iso=True).to(GPU)  # noqa: N806
    op = getattr(semiring, sr)
    res = []
    for limit in (0, 1, 7, 300):
        desc = Descriptor(direction="push")
        with config.override(mxm_chunk_products=limit):
            res.append(A.mxm(B, op).new(mask=_mask(M, masked), desc=desc))
        assert desc.last_kernel == "cuda_csr_saxpy"
    for r in res[1:]:
        _same(res[0], r, False)
    a, b, mm = A.to("cpu"), B.to("cpu"), M.to("cpu")
    _same(a.mxm(b, op).new(mask=_mask(mm, masked)), res[0], False)


@pytest.mark.parametrize("sr", ["plus_times", "any_secondi", "max_first", "min_plus"])
@pytest.mark.parametrize("warp_min", [0, 4, 32, 10**9])
def test_dot_thread_and_warp_kernels_agree(sr: str, warp_min: int,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Every entry by one thread, every entry by a warp, and the default split agree with
    the CPU (rows of 0 to 300 entries; lanes past the row ends)."""
    from gblas.formats.csr import mxm_cuda  # noqa: PLC0415

    rng = np.random.default_rng(3)
    A = _with_hub(_matrix(rng, 50, 300, 0.5, np.int32), 7, 1)  # noqa: N806
    B = _matrix(rng, 300, 40, 0.5, np.int32)  # noqa: N806
    M = _matrix(rng, 50, 40, 0.5, np.bool_, iso=True)  # noqa: N806
    op = getattr(semiring, sr)
    monkeypatch.setattr(mxm_cuda, "DOT_WARP_MIN", warp_min)
    desc = Descriptor(direction="pull")
    got = A.to(GPU).mxm(B.to(GPU), op).new(mask=M.to(GPU).S, desc=desc)
    assert desc.last_kernel == "cuda_csr_masked_dot"
    _same(A.mxm(B, op).new(mask=M.S), got, False)


def test_empty_and_degenerate_shapes() -> None:
    for m, k, n in ((0, 3, 4), (3, 0, 4), (3, 4, 0), (1, 1, 1)):
        A = Matrix(gb.INT64, m, k, device=GPU)  # noqa: N806
        B = Matrix(gb.INT64, k, n, device=GPU)  # noqa: N806
        M = Matrix(gb.BOOL, m, n, device=GPU)  # noqa: N806
        for mask in (None, M.S, ~M.S):
            C = A.mxm(B, semiring.plus_times).new(mask=mask)  # noqa: N806
            assert C.nvals == 0 and C.shape == (m, n) and C.device == GPU


# ------------------------------------------------------------------------- algorithms
@pytest.mark.parametrize("scale", [8, 12])
def test_triangle_count_and_betweenness_same_as_cpu(scale: int) -> None:
    A = gb.generators.kronecker(scale, seed=1)  # noqa: N806
    G = A.to(GPU)  # noqa: N806
    assert triangle_count(G) == triangle_count(A)
    src = list(range(0, A.nrows, max(1, A.nrows // 70)))[:70]  # two batches
    c, g = betweenness_centrality(A, sources=src), betweenness_centrality(G, sources=src)
    (ic, vc), (ig, vg) = c.to_coo(), g.to_coo()
    np.testing.assert_array_equal(ic, ig)
    np.testing.assert_allclose(vg, vc, rtol=1e-9, atol=1e-12)


def test_triangle_count_kron18_used_to_crash() -> None:
    """kron:18 (3.8 M entries in L): the unmasked L·Lᵀ would hold ~3.5e9 products; the dot
    kernel holds O(nnz(L)). 82 530 361 is the CPU kernels' count (tests/gpu/
    test_gpu_algorithms.py recomputes it; the generator is deterministic)."""
    A = gb.generators.kronecker(18, seed=1)  # noqa: N806
    assert triangle_count(A.to(GPU)) == 82530361
