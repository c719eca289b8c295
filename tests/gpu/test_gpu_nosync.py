"""No GraphBLAS operation on CUDA objects waits for the device unless a value is read.

Each operation runs once behind a "spin" kernel that keeps the GPU busy for ~300 ms: an
operation that synchronises with the host (a count read back, a device-to-host copy, a
stream synchronisation) cannot return before the spin ends, one that only queues kernels
returns at once. CuPy's own detector (``cupyx.allow_synchronize(False)``, where this CuPy
still has it) is armed as well. The results are then checked against the CPU.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from gblas import FP64, INT64, Matrix, Vector, binary, monoid, semiring, unary

pytestmark = pytest.mark.gpu
GPU = "cuda:0"
SPIN_S = 0.3
# an operation that waited for the spin takes at least this long
WAITED_S = 0.15


def _cp() -> Any:
    import cupy  # noqa: PLC0415

    return cupy


def _spin() -> Callable[[], None]:
    cp = _cp()
    k = cp.RawKernel(r"""
extern "C" __global__ void gb_test_spin(long long cycles) {
  const long long t0 = clock64();
  while (clock64() - t0 < cycles) { }
}""", "gb_test_spin")
    khz = cp.cuda.runtime.getDeviceProperties(0)["clockRate"]
    cycles = np.int64(khz * 1000 * SPIN_S)
    return lambda: k((1,), (1,), (cycles,))


def _no_sync_guard() -> Any:
    """cupyx.allow_synchronize(False) when CuPy has it (deprecated since v10), else a
    null context."""
    import contextlib  # noqa: PLC0415

    import cupyx  # noqa: PLC0415

    guard = getattr(cupyx, "allow_synchronize", None)
    if guard is None:
        return contextlib.nullcontext()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return guard(False)


def host_seconds_behind_spin(op: Callable[[], Any]) -> float:
    """Host time of ``op`` started while the device is busy with the spin kernel."""
    cp = _cp()
    spin = _spin()
    for _ in range(2):  # compile and fill the memory pool first
        op()
    cp.cuda.get_current_stream().synchronize()
    spin()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with _no_sync_guard():
            t0 = time.perf_counter()
            op()
            dt = time.perf_counter() - t0
    cp.cuda.get_current_stream().synchronize()
    return dt


# ------------------------------------------------------------------------------ operands
N = 4096


def operands(device: str) -> dict[str, Any]:
    rng = np.random.default_rng(7)
    r, c = rng.integers(0, N, 8 * N), rng.integers(0, N, 8 * N)
    A = Matrix.from_coo(r, c, rng.random(r.shape[0]), nrows=N, ncols=N,  # noqa: N806
                        dup_op=binary.plus, device=device)
    return {
        "A": A,
        "u": Vector.from_dense(rng.random(N), device=device),
        "v": Vector.from_coo(np.sort(rng.choice(N, N // 3, replace=False)),
                             rng.random(N // 3), size=N, device=device),
        "m": Vector.from_coo(np.sort(rng.choice(N, N // 4, replace=False)), True, size=N,
                             device=device),
        "s": Vector.from_coo(np.sort(rng.choice(N, 40, replace=False)), 1.0, size=N,
                             device=device),
        "w": Vector.from_dense(rng.random(N), device=device),
        "f": Vector.from_dense(rng.integers(0, N, N), dtype=INT64, device=device),
        "g": Vector.from_dense(rng.integers(0, N, N), dtype=INT64, device=device),
        "idx": rng.permutation(N) if device == "cpu" else _cp().asarray(rng.permutation(N)),
    }


OPS: dict[str, Callable[[dict[str, Any], str], Any]] = {
    "ewise_add": lambda d, dev: d["w"].update(d["u"].ewise_add(d["v"], binary.plus)),
    "ewise_mult": lambda d, dev: d["w"].update(d["u"].ewise_mult(d["v"], binary.times)),
    "apply": lambda d, dev: d["w"].update(d["u"].apply(unary.abs)),
    "apply_bind": lambda d, dev: d["w"].update(d["u"].apply(binary.minus, right=0.5)),
    "select": lambda d, dev: d["w"].update(d["u"].select(">", 0.5)),
    "reduce_new": lambda d, dev: d.__setitem__("r", d["u"].reduce(monoid.plus).new()),
    "reduce_scalar_matrix": lambda d, dev: d.__setitem__(
        "r", d["A"].reduce_scalar(monoid.plus).new()),
    "masked_scalar_assign": lambda d, dev: d["w"](d["m"].S).update(2.5),
    "masked_vector_assign_accum": lambda d, dev: d["w"](d["m"].S, binary.plus)[:].update(
        d["u"]),
    "mxv": lambda d, dev: d["w"].update(d["A"].mxv(d["u"], semiring.plus_times)),
    "vxm_masked_replace": lambda d, dev: d["w"](~d["m"].S, replace=True).update(
        d["s"].vxm(d["A"], semiring.min_plus)),
    "vxm_any_push": lambda d, dev: d["w"](~d["m"].S, replace=True).update(
        d["s"].vxm(d["A"], semiring.any_pair)),
    "extract": lambda d, dev: d["w"].update(d["u"][d["idx"]]),
    "scatter_min_dup": lambda d, dev: d["f"](binary.min)[
        d["g"].to_coo(indices=False, device=dev)[1]].update(d["u"].apply(
            unary.identity[INT64]).new()),
    "gather_device_index": lambda d, dev: d["g"].update(
        d["f"][d["f"].to_coo(indices=False, device=dev)[1]]),
    "inner_then_accum": lambda d, dev: d["w"](binary.plus).update(
        d["u"].inner(d["v"], semiring.plus_times).new()),
    "pagerank_step": lambda d, dev: _pagerank_step(d),
    "scalar_accum_host_value": lambda d, dev: _scalar_accum(d, device_value=False),
    "scalar_accum_device_value": lambda d, dev: _scalar_accum(d, device_value=True),
    "mxv_accum_fused": lambda d, dev: _mxv_accum(d),
}


def _scalar_accum(d: dict[str, Any], device_value: bool) -> None:
    """A reduction's scalar, accumulated with a Python value and with another device
    scalar, then filled into w: PageRank's dangling mass plus its teleport."""
    r = d["u"].reduce(monoid.plus).new()
    r(binary.plus) << 0.25
    if device_value:
        r(binary.max) << d["v"].reduce(monoid.min).new()
    d["w"] << r
    d["r"] = r


def _mxv_accum(d: dict[str, Any]) -> None:
    """LAGraph's PageRank idiom: fill, then accumulate the product into the filled vector."""
    d["w"] << 0.5
    d["w"](binary.plus) << d["A"].mxv(d["u"], semiring.plus_times)
    d["u"](binary.min) << d["A"].mxv(d["w"], semiring.min_plus)


def _pagerank_step(d: dict[str, Any]) -> None:
    w, u, A = d["w"], d["u"], d["A"]  # noqa: N806
    w << u.ewise_mult(d["v"], binary.times)
    u << w.vxm(A, semiring.plus_first)
    u(binary.plus) << 0.01
    w(binary.minus) << u
    w << w.apply(unary.abs)
    d["r"] = w.reduce(monoid.plus).new()


@pytest.mark.parametrize("name", sorted(OPS))
def test_operation_does_not_synchronise(name: str) -> None:
    d = operands(GPU)
    dt = host_seconds_behind_spin(lambda: OPS[name](d, GPU))
    assert dt < WAITED_S, f"{name} waited for the device: {dt * 1e3:.0f} ms behind the spin"
    # the same operations on the CPU (same count: the warm-up ran the operation twice)
    c = operands("cpu")
    for _ in range(3):
        OPS[name](c, "cpu")
    for key in ("w", "u", "f", "g"):
        got, want = d[key].to("cpu"), c[key]
        assert got.nvals == want.nvals, (name, key)
        gi, gv = got.to_coo()
        wi, wv = want.to_coo()
        np.testing.assert_array_equal(gi, wi)
        np.testing.assert_allclose(gv, wv, rtol=1e-9, atol=1e-12)
    if "r" in d:
        assert abs(d["r"].value - c["r"].value) <= 1e-9 * max(1.0, abs(c["r"].value))


def test_reading_a_value_does_wait() -> None:
    """The detector detects: reading nvals behind the spin waits for it."""
    d = operands(GPU)
    w = d["w"]

    def op() -> None:
        w.update(d["u"].select(">", 0.5))
        _ = w.nvals

    cp = _cp()
    op()
    cp.cuda.get_current_stream().synchronize()
    _spin()()
    t0 = time.perf_counter()
    op()
    assert time.perf_counter() - t0 >= WAITED_S


def test_device_scalar_stays_until_read() -> None:
    u = Vector.from_dense(np.arange(10, dtype=np.float64), device=GPU)
    s = u.reduce(monoid.plus).new()
    assert s._device_value() is not None
    assert s.value == 45.0 and s._device_value() is None
    e = Vector(FP64, 10, device=GPU).reduce(monoid.max).new()
    assert e.is_empty and e.value is None


@pytest.mark.parametrize("parents", [False, True])
@pytest.mark.parametrize("mesh", [False, True], ids=["kron", "mesh"])
def test_bfs_does_not_synchronise(parents: bool, mesh: bool) -> None:
    """``bfs()`` without ``stats`` reads nothing back (the fused kernel leaves the count on
    the device; on a mesh the barrier-free kernel, whose row check is on the device too):
    it returns behind the spin, and its results equal the CPU's; with ``stats`` it reads
    the step log once."""
    from gblas import generators  # noqa: PLC0415
    from gblas.algorithms import bfs  # noqa: PLC0415

    A = generators.grid2d(260, 260) if mesh else generators.kronecker(10, seed=3)  # noqa: N806
    Ag = A.to(GPU)  # noqa: N806
    out: list[Any] = []
    dt = host_seconds_behind_spin(lambda: out.append(bfs(Ag, 5, parents=parents)))
    assert dt < WAITED_S, f"bfs waited for the device: {dt * 1e3:.0f} ms behind the spin"
    got, want = out[-1], bfs(A, 5, parents=parents)
    for g, w in zip(got if parents else (got,), want if parents else (want,), strict=True):
        assert g.nvals == w.nvals
        gi, gv = g.to_coo()
        wi, wv = w.to_coo()
        np.testing.assert_array_equal(gi, wi)
        np.testing.assert_array_equal(gv, wv)
    st: dict[str, Any] = {}
    bfs(Ag, 5, parents=parents, stats=st)  # the step log is read: one host read
    levels = out[-1][0] if parents else out[-1]
    assert st["host_syncs"] == 1 and st["reached"] == levels.nvals
