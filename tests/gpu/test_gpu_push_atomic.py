"""The GPU push that folds with atomics (min, max, integer plus: ``order_free`` monoids)
against the CPU: every type, masks, NaN, infinities, signed zeros and integer wrap-around,
and the direction rule that picks it for small frontiers."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_gpu_nosync import WAITED_S, host_seconds_behind_spin

import gblas.ops.mxv as mxv
from gblas import Descriptor, Matrix, Vector, binary, semiring
from gblas.semirings.model import resolve_semiring

pytestmark = pytest.mark.gpu
GPU = "cuda:0"

DTYPES = (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint32, np.uint64,
          np.float32, np.float64)
ORDER_FREE = ("min_plus", "max_plus", "min_times", "max_first", "min_second", "max_min",
              "min_max", "min_pair", "max_pair", "plus_times", "plus_pair", "plus_first")
MASKS = ("none", "S", "~S", "V", "~V")


def _values(rng: np.random.Generator, dtype: Any, n: int) -> np.ndarray:
    """Values with the edge cases of their type: NaN, ±inf and ±0 for floats, the ends of
    the range for integers (sums wrap)."""
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.random(n) < 0.5
    if dt.kind == "f":
        special = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5, -2.5], dtype=dt)
        v = (rng.integers(-8, 9, n) / 2).astype(dt)
        pick = rng.random(n) < 0.3
        v[pick] = special[rng.integers(0, special.shape[0], int(pick.sum()))]
        return v
    info = np.iinfo(dt)
    ends = np.array([info.min, info.max, info.min + 1, info.max - 1, 0, 1], dtype=dt)
    v = rng.integers(max(int(info.min), -5), min(int(info.max), 6), n).astype(dt)
    pick = rng.random(n) < 0.3
    v[pick] = ends[rng.integers(0, ends.shape[0], int(pick.sum()))]
    return v


def _equal(cpu: Vector, gpu: Vector) -> None:
    """Same entries, same values (NaN equals NaN; -0.0 equals +0.0: where both meet, the
    atomic fold keeps one of the two equal values)."""
    assert gpu.device == GPU and cpu.dtype == gpu.dtype
    ci, cv = cpu.to_coo()
    gi, gv = gpu.to("cpu").to_coo()
    np.testing.assert_array_equal(ci, gi)
    if cv.dtype.kind == "f":
        both_nan = np.isnan(cv) & np.isnan(gv)
        assert np.all(both_nan | (cv == gv)), (cv[~both_nan & (cv != gv)],
                                                gv[~both_nan & (cv != gv)])
    else:
        np.testing.assert_array_equal(cv, gv)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31), sr=st.sampled_from(ORDER_FREE), dt=st.sampled_from(DTYPES),
       mask=st.sampled_from(MASKS), vxm=st.booleans(), iso=st.booleans(),
       density=st.sampled_from([0.05, 0.4, 1.0]))
def test_forced_push_equals_cpu(seed: int, sr: str, dt: Any, mask: str, vxm: bool,
                                iso: bool, density: float) -> None:
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(1, 50)), int(rng.integers(1, 50))
    nnz = int(0.2 * n * m)
    r, c = rng.integers(0, n, nnz), rng.integers(0, m, nnz)
    vals: Any = dt(1) if iso else _values(rng, dt, nnz)
    A = Matrix.from_coo(r, c, vals, dtype=dt, nrows=n, ncols=m, dup_op=binary.first)
    size = n if vxm else m
    k = int(round(density * size))
    xi = np.sort(rng.choice(size, k, replace=False))
    x = Vector.from_coo(xi, _values(rng, dt, k), dtype=dt, size=size)
    out = m if vxm else n
    mk = np.sort(rng.choice(out, out // 2, replace=False))
    mv = Vector.from_coo(mk, _values(rng, dt, mk.shape[0]), dtype=dt, size=out)
    op = getattr(semiring, sr)
    results = []
    for AA, xx, mm in ((A, x, mv), (A.to(GPU), x.to(GPU), mv.to(GPU))):
        msk = {"none": None, "S": mm.S, "~S": ~mm.S, "V": mm.V, "~V": ~mm.V}[mask]
        d = Descriptor(direction="push")
        expr = xx.vxm(AA, op) if vxm else AA.mxv(xx, op)
        results.append(expr.new(mask=msk, desc=d))
        assert d.last_direction == "push"
    ks = resolve_semiring(op, A.dtype, x.dtype)
    assert ks.order_free == (sr.split("_")[0] in ("min", "max")
                             or np.dtype(ks.out_type.np_type).kind in "iu")
    _equal(*results)


def test_signed_zeros_and_nan() -> None:
    """min and max of products that are NaN, ±0 and ±inf: NaN only where every product is
    NaN, as the CPU's fold."""
    nan, inf = np.nan, np.inf
    # output j of x A gets the products of column j: (nan, 2), (nan, nan), (0, -0),
    # (-inf, nan), (inf)
    k = [0, 1, 0, 1, 0, 1, 0, 1, 0]
    j = [0, 0, 1, 1, 2, 2, 3, 3, 4]
    vals = [nan, 2.0, nan, nan, 0.0, -0.0, -inf, nan, inf]
    A = Matrix.from_coo(k, j, vals, nrows=3, ncols=5)  # noqa: N806
    x = Vector.from_coo([0, 1, 2], [1.0, 1.0, 1.0], size=3)
    for op in (semiring.min_times, semiring.max_times):
        want = x.vxm(A, op).new(desc=Descriptor(direction="pull"))
        got = x.to(GPU).vxm(A.to(GPU), op).new(desc=Descriptor(direction="push"))
        _equal(want, got)
        g = got.to("cpu").to_dense(fill_value=-1.0)
        assert g[0] == 2.0 and np.isnan(g[1]) and g[2] == 0.0
        assert g[3] == -inf
        assert g[4] == inf


def test_integer_plus_wraps() -> None:
    A = Matrix.from_coo([0, 1, 2], [0, 0, 0], np.array([100, 100, 100], np.int8), nrows=3,
                        ncols=1)
    x = Vector.from_coo([0, 1, 2], np.array([1, 1, 1], np.int8), size=3)
    want = x.vxm(A, semiring.plus_times).new()
    got = x.to(GPU).vxm(A.to(GPU), semiring.plus_times).new(
        desc=Descriptor(direction="push"))
    assert want.to_dense()[0] == np.int8(44)  # 300 mod 256
    _equal(want, got)


@pytest.fixture(scope="module")
def large() -> tuple[Matrix, Matrix]:
    """A random matrix over the device push's size gate (integer weights: exact sums)."""
    rng = np.random.default_rng(3)
    n = 1 << 18
    r, c = rng.integers(0, n, 12 * n), rng.integers(0, n, 12 * n)
    A = Matrix.from_coo(r, c, rng.integers(1, 9, r.shape[0]).astype(np.int64), nrows=n,  # noqa: N806
                        ncols=n, dup_op=binary.min)
    assert A.nvals >= mxv._DEVICE_ATOMIC_MIN_NNZ
    return A, A.to(GPU)


@pytest.mark.parametrize("sr", ["min_plus", "max_first", "plus_times"])
def test_auto_direction_pushes_small_frontiers(sr: str, large: tuple[Matrix, Matrix]) -> None:
    """Under the device threshold of x's density the product pushes with atomics, above it
    pulls, and a small matrix pulls whatever x; the same values either way."""
    A, Ag = large  # noqa: N806
    n = A.nrows
    rng = np.random.default_rng(4)
    op = getattr(semiring, sr)
    small = Matrix.from_coo([0, 1], [1, 0], [1, 2], nrows=n, ncols=n)
    for M, Mg, k, direction in ((A, Ag, 200, "push"), (A, Ag, n // 2, "pull"),  # noqa: N806
                                (small, small.to(GPU), 200, "pull")):
        xi = np.sort(rng.choice(n, k, replace=False))
        x = Vector.from_coo(xi, rng.integers(0, 5, k), size=n)
        d = Descriptor()
        got = x.to(GPU).vxm(Mg, op).new(desc=d)
        assert d.last_direction == direction, (k, d.last_direction)
        assert d.last_kernel == ("cuda_csr_push_spmspv" if direction == "push"
                                 else "cuda_csr_pull_spmv")
        _equal(x.vxm(M, op).new(), got)


def test_push_does_not_synchronise(large: tuple[Matrix, Matrix]) -> None:
    """A min_plus push of a small sparse frontier queues its kernels and returns while the
    device is busy (test_gpu_nosync's spin); its values are the CPU's."""
    A, Ag = large  # noqa: N806
    n = A.nrows
    rng = np.random.default_rng(5)
    xi = np.sort(rng.choice(n, 300, replace=False))
    x = Vector.from_coo(xi, rng.random(300), size=n)
    xg = x.to(GPU)
    out = Vector(float, n, device=GPU)
    d = Descriptor()

    def op() -> None:
        out(desc=d) << xg.vxm(Ag, semiring.min_plus)

    dt = host_seconds_behind_spin(op)
    assert d.last_direction == "push"
    assert dt < WAITED_S, f"the push waited for the device: {dt * 1e3:.0f} ms behind the spin"
    _equal(x.vxm(A, semiring.min_plus).new(), out)
