"""User-defined operators on ``cuda:0`` give the CPU's result. A user's Python function has no
CUDA form: its values make an explicit host round trip (``codegen_numba.on_host``), and the
results live on the device again."""

from __future__ import annotations

import numpy as np
import pytest

import gblas as gb
from gblas import BinaryOp, IndexUnaryOp, Matrix, Monoid, Semiring, UnaryOp, Vector, monoid

pytestmark = pytest.mark.gpu
GPU = "cuda:0"

TWICE_PLUS = BinaryOp.register_anonymous(lambda x, y: x * 2.0 + y, "gpu_twice_plus")
BIGGER = BinaryOp.register_anonymous(lambda x, y: x if x > y else y, "gpu_bigger")
BIGGER_MONOID = Monoid.register_anonymous(BIGGER, -np.inf)
PLUS_TWICE = Semiring.register_anonymous(monoid.plus, TWICE_PLUS, name="gpu_plus_twice_plus")
BIGGER_TIMES = Semiring.register_anonymous(BIGGER_MONOID, gb.binary.times,
                                           name="gpu_bigger_times")
CUBE = UnaryOp.register_anonymous(lambda x: x * x * x, "gpu_cube")
BELOW_DIAG = IndexUnaryOp.register_new("gpu_below_diag_pos",
                                       lambda v, i, j, t: i > j and v > t)


def _pair(rng: np.random.Generator) -> tuple[Matrix, Vector]:
    n = 40
    keep = rng.random((n, n)) < 0.15
    r, c = np.nonzero(keep)
    A = Matrix.from_coo(r, c, rng.integers(-5, 6, r.size).astype(float), nrows=n, ncols=n)
    idx = np.flatnonzero(rng.random(n) < 0.6)
    x = Vector.from_coo(idx, rng.integers(-5, 6, idx.size).astype(float), size=n)
    return A, x


def _same(cpu, gpu) -> None:  # noqa: ANN001
    assert gpu.device == GPU
    for a, b in zip(cpu.to_coo(), gpu.to_coo(), strict=True):
        np.testing.assert_allclose(a, b)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_udf_operations_match_cpu(seed: int) -> None:
    A, x = _pair(np.random.default_rng(seed))
    Ag, xg = A.to(GPU), x.to(GPU)
    _same(A.mxv(x, PLUS_TWICE).new(), Ag.mxv(xg, PLUS_TWICE).new())
    _same(A.mxv(x, BIGGER_TIMES).new(), Ag.mxv(xg, BIGGER_TIMES).new())
    _same(x.ewise_mult(x, TWICE_PLUS).new(), xg.ewise_mult(xg, TWICE_PLUS).new())
    _same(x.ewise_add(x, BIGGER).new(), xg.ewise_add(xg, BIGGER).new())
    _same(A.apply(CUBE).new(), Ag.apply(CUBE).new())
    _same(A.select(BELOW_DIAG, 0.0).new(), Ag.select(BELOW_DIAG, 0.0).new())
    _same(A.reduce_rowwise(BIGGER_MONOID).new(), Ag.reduce_rowwise(BIGGER_MONOID).new())
    assert x.reduce(BIGGER_MONOID).new().value == xg.reduce(BIGGER_MONOID).new().value
