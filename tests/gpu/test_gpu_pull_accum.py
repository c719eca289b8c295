"""``w(mask, accum) << A.mxv(x)`` on the GPU: the pull kernels fold T into w's own arrays as
they write (C = C accum T, one pass; ``MxvCall.accum_into``) instead of writing T and running
a separate write-back. The result equals the CPU's (which writes T, then merges) for every
pull kernel (tiles for a full x, the warp kernel for a bitmap x, hub rows by segments or a
block per row), a full or a bitmap w, w's own arrays or shared ones (then copied, the
sharer unchanged), non-commutative accumulators, and masks without replace; replace, an
output that is also the input and a sparse w take the unfused path, with the same results.
Values are small integers, so that every fold order gives the same sums."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from test_gpu_pull_segments import HUBS
from test_gpu_pull_segments import _matrix as segments_matrix

from gblas import Descriptor, Matrix, Vector, binary, semiring
from gblas.formats.csr import cuda as csr_cuda
from gblas.formats.csr.cuda import LONG_ROW
from gblas.formats.vector import BITMAP, FULL
from gblas.ops import writeback

pytestmark = pytest.mark.gpu
GPU = "cuda:0"
PULL = Descriptor(direction="pull")


def _matrix(rng: np.random.Generator, dtype: Any, hubs: bool) -> Matrix:
    """test_gpu_pull_segments' short rows, with its hub rows when ``hubs``."""
    return segments_matrix(rng, dtype, HUBS if hubs else [])


def _output(kind: str, A: Any, rng: np.random.Generator, dtype: Any, dev: str  # noqa: N803
            ) -> tuple[Vector, Vector | None]:
    """w of ``kind`` on ``dev`` and, for "shared", the Vector whose arrays it shares."""
    m = A.nrows
    if kind == "full_own":
        w = Vector(dtype, m, device=dev)
        w << (True if dtype is np.bool_ else 3)
        return w, None
    if kind == "bitmap_own":  # a pull's own result (its arrays belong to w alone)
        x = Vector.from_coo(np.arange(0, A.ncols, 5), True if dtype is np.bool_ else 2,
                            dtype=dtype, size=A.ncols, device=dev)
        w = Vector(dtype, m, device=dev)
        w(desc=PULL) << A.mxv(x, semiring.any_first if dtype is np.bool_ else
                              semiring.max_first)
        return w, None
    vals = rng.integers(-5, 6, m)
    src = Vector.from_dense(vals > 0 if dtype is np.bool_ else vals.astype(dtype), device=dev)
    w = Vector(dtype, m, device=dev)
    w << src  # "shared": w may hold src's arrays; the fused write must not change src
    return w, src


@pytest.mark.parametrize(("sr", "accum"), [
    ("plus_times", "plus"), ("plus_times", "minus"), ("min_plus", "min"),
    ("max_times", "rminus"), ("plus_second", "second"), ("plus_second", "first"),
    ("min_second", "max"), ("lor_land", "lor"), ("plus_times", "times"),
])
@pytest.mark.parametrize("mask", ["none", "S", "~S", "S_replace"])
@pytest.mark.parametrize("x_kind", ["full", "bitmap"])
@pytest.mark.parametrize("out_kind", ["full_own", "bitmap_own", "shared"])
@pytest.mark.parametrize("hubs", [False, True])
def test_accumulating_pull_matches_cpu(sr: str, accum: str, mask: str, x_kind: str,
                                       out_kind: str, hubs: bool,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(5)
    dtype = np.bool_ if sr == "lor_land" else (np.int64 if sr == "min_second" else np.float64)
    A = _matrix(rng, dtype, hubs)  # noqa: N806
    n = A.ncols
    xv = rng.random(n) < 0.7 if dtype is np.bool_ else rng.integers(-4, 5, n).astype(dtype)
    x = Vector.from_dense(xv)
    if x_kind == "bitmap":
        have = np.flatnonzero(rng.random(n) < 0.7)
        x = Vector.from_coo(have, xv[have], size=n)
    m = Vector.from_coo(np.flatnonzero(rng.random(A.nrows) < 0.5), True, size=A.nrows)
    calls: list[int] = []
    real = writeback.writeback_vector

    def spy(*args: Any, **kw: Any) -> Any:
        calls.append(1)
        return real(*args, **kw)

    got = {}
    for dev in ("cpu", GPU):
        Ad, xd, md = A.to(dev), x.to(dev), m.to(dev)  # noqa: N806
        w, src = _output(out_kind, Ad, np.random.default_rng(9), dtype, dev)
        before = None if src is None else src.to("cpu").dup()
        if dev != "cpu" and out_kind != "shared":
            assert w._data.kind == (FULL if out_kind == "full_own" else BITMAP)
        mk = {"none": None, "S": md.S, "~S": ~md.S, "S_replace": md.S}[mask]
        calls.clear()
        monkeypatch.setattr(writeback, "writeback_vector", spy)
        w(mask=mk, accum=getattr(binary, accum), replace=mask == "S_replace",
          desc=PULL) << Ad.mxv(xd, getattr(semiring, sr))
        monkeypatch.setattr(writeback, "writeback_vector", real)
        if dev != "cpu" and mask != "S_replace":
            assert not calls, "the GPU pull should have folded T into w itself"
        if src is not None:
            assert src.to("cpu").isequal(before), "the shared arrays were written"
        got[dev] = w.to("cpu")
    assert got[GPU].isequal(got["cpu"], check_dtype=True), (sr, accum, mask, x_kind, out_kind)


@pytest.mark.parametrize("segments", [True, False])
def test_hub_rows_folded_once(segments: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows a little longer than LONG_ROW inside a tile of at most GB_TILE_CAP entries are
    the hub kernels' alone: with ``plus`` accumulating, a row folded twice would show."""
    monkeypatch.setattr(csr_cuda, "PULL_SEGMENTS", segments)
    lengths = [3, LONG_ROW + 1, 2, LONG_ROW + 300, 0, 7]
    rows = np.repeat(np.arange(len(lengths)), lengths)
    cols = np.concatenate([np.arange(k) for k in lengths])
    A = Matrix.from_coo(rows, cols, 1.0, nrows=len(lengths), ncols=2 * LONG_ROW)  # noqa: N806
    x = Vector.from_dense(np.ones(2 * LONG_ROW))
    for dev in ("cpu", GPU):
        w = Vector.from_dense(np.full(len(lengths), 10.0), device=dev)
        w(binary.plus, desc=PULL) << A.to(dev).mxv(x.to(dev), semiring.plus_times)
        np.testing.assert_array_equal(w.to("cpu").to_dense(), 10.0 + np.array(lengths))


def test_output_also_the_input_is_not_fused() -> None:
    """w(plus) << A.mxv(w): the kernel reads w while it writes; the unfused path runs."""
    rng = np.random.default_rng(3)
    A = _matrix(rng, np.float64, False)  # noqa: N806
    A = A[:, : A.nrows].new()  # noqa: N806 - square
    vals = rng.integers(-3, 4, A.nrows).astype(np.float64)
    got = {}
    for dev in ("cpu", GPU):
        w = Vector.from_dense(vals, device=dev)
        for _ in range(3):
            w(binary.plus, desc=PULL) << A.to(dev).mxv(w, semiring.plus_times)
        got[dev] = w.to("cpu")
    assert got[GPU].isequal(got["cpu"])
