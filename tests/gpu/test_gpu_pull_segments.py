"""After the tiles (a full x) or the warp kernel (a bitmap x), a pull folds its hub rows
(longer than ``LONG_ROW``) by segments
of at most ``SEG`` entries, a block each (``mxv_pull_segs``), then each row's segments in
order (``mxv_pull_seg_fold``). Its results equal the CPU's and the block-per-row kernel's
on row lengths around the segment boundaries, under masks (masked-out hub rows absent,
with and without replace), accumulators and empty hub rows' neighbours. Values are small
integers, so that every fold order gives the same sums."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from gblas import Descriptor, Matrix, Vector, binary, semiring
from gblas.formats.csr import cuda as csr_cuda
from gblas.formats.csr.cuda import LONG_ROW, SEG

pytestmark = pytest.mark.gpu
GPU = "cuda:0"
HUBS = [LONG_ROW + 1, SEG - 1, SEG, SEG + 1, 2 * SEG, 3 * SEG + 17]


def _matrix(rng: np.random.Generator, dtype: Any, hubs: list[int] = HUBS) -> Matrix:  # noqa: B006
    """Short rows (0..40 entries) with hub rows of these lengths spread among them (small
    integer values: every fold order gives the same sums)."""
    lengths = list(rng.choice([0, 1, 5, 33, 40], size=300))
    for k, h in enumerate(hubs):
        lengths.insert(37 * (k + 1), h)
    n = 4 * SEG
    rows = np.repeat(np.arange(len(lengths)), lengths)
    cols = np.concatenate([rng.choice(n, k, replace=False) for k in lengths])
    vals = rng.integers(-8, 9, rows.shape[0])
    vals = vals > 0 if dtype is np.bool_ else vals.astype(dtype)
    return Matrix.from_coo(rows, cols, vals, dtype=dtype, nrows=len(lengths), ncols=n)


def _hub_rows(A: Matrix) -> np.ndarray:  # noqa: N803
    S = A.to_scipy_sparse()  # noqa: N806
    return np.flatnonzero(np.diff(S.indptr) > LONG_ROW)


@pytest.mark.parametrize("sr", ["plus_times", "min_plus", "max_times", "lor_land",
                                "plus_second", "min_second"])
@pytest.mark.parametrize(("mask", "replace"),  # replace only means something under a mask
                         [("none", False), ("S", False), ("S", True), ("~S", False),
                          ("~S", True)])
@pytest.mark.parametrize("x_kind", ["full", "bitmap"])
def test_segments_match_cpu_and_block_kernel(sr: str, mask: str, replace: bool, x_kind: str,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(21)
    dtype = np.bool_ if sr == "lor_land" else (np.int64 if sr == "min_second" else np.float64)
    A = _matrix(rng, dtype)  # noqa: N806
    hubs = _hub_rows(A)
    assert hubs.shape[0] == len(HUBS)
    n = A.ncols
    xv = rng.random(n) < 0.7 if dtype is np.bool_ else rng.integers(-4, 5, n).astype(dtype)
    x = Vector.from_dense(xv)
    if x_kind == "bitmap":  # 70 % of x present: the warp kernel, hub rows by segments
        have = np.flatnonzero(rng.random(n) < 0.7)
        x = Vector.from_coo(have, xv[have], size=n)
    # every other hub row masked out, short rows at random
    keep = rng.random(A.nrows) < 0.5
    keep[hubs[::2]], keep[hubs[1::2]] = True, False
    m = Vector.from_coo(np.flatnonzero(keep), True, size=A.nrows)
    c0 = Vector.from_coo(np.arange(0, A.nrows, 3), 7, dtype=dtype, size=A.nrows)
    s = getattr(semiring, sr)
    out = []
    for dev, segments in (("cpu", True), (GPU, True), (GPU, False)):
        monkeypatch.setattr(csr_cuda, "PULL_SEGMENTS", segments)
        Ad, xd, md = A.to(dev), x.to(dev), m.to(dev)  # noqa: N806
        w = c0.to(dev).dup()
        mk = None if mask == "none" else (md.S if mask == "S" else ~md.S)
        # twice: the first pull reads int64 indices (its plan is not kept), the second the
        # int32 copy; C<M> = T is idempotent
        for _ in range(2 if dev != "cpu" else 1):
            w(mask=mk, replace=replace, desc=Descriptor(direction="pull")) << Ad.mxv(xd, s)
        if dev != "cpu":
            plans = Ad._csr().__dict__["_pull_plans"].values()
            assert [p.segs is not None for p in plans] == [segments]
        out.append(w.to("cpu").to_coo())
    for got in out[1:]:
        np.testing.assert_array_equal(out[0][0], got[0])
        np.testing.assert_array_equal(out[0][1], got[1])


@pytest.mark.parametrize("sr", ["plus_times", "min_plus"])
def test_segments_accumulate_and_repeat(sr: str) -> None:
    """w(plus) << A.mxv(x) three times in a row (the segments' scratch is reused by every
    call) equals the CPU's."""
    rng = np.random.default_rng(3)
    A = _matrix(rng, np.float64)  # noqa: N806
    x = Vector.from_dense(rng.integers(-4, 5, A.ncols).astype(np.float64))
    s = getattr(semiring, sr)
    out = []
    for dev in ("cpu", GPU):
        Ad, xd = A.to(dev), x.to(dev)  # noqa: N806
        w = Vector(float, A.nrows, device=dev)
        for _ in range(3):
            w(binary.plus) << Ad.mxv(xd, s)
        out.append(w.to("cpu").to_coo())
    np.testing.assert_array_equal(out[0][0], out[1][0])
    np.testing.assert_array_equal(out[0][1], out[1][1])


def test_segment_list_covers_the_hub_rows() -> None:
    """CSR.hub_segments: consecutive segments of at most SEG entries that cover each hub
    row exactly, in row order."""
    rng = np.random.default_rng(8)
    A = _matrix(rng, np.float64).to(GPU)  # noqa: N806
    csr = A._csr()
    seg_row, seg_lo, seg_hi, hub_row, hub_seg = (a.get() for a in csr.hub_segments(LONG_ROW,
                                                                                    SEG))
    ptr = csr.indptr.get()
    np.testing.assert_array_equal(hub_row, np.flatnonzero(np.diff(ptr) > LONG_ROW))
    assert np.all(seg_hi - seg_lo <= SEG) and np.all(seg_hi > seg_lo)
    for r, row in enumerate(hub_row):
        sl = slice(hub_seg[r], hub_seg[r + 1])
        assert np.all(seg_row[sl] == row)
        assert seg_lo[sl][0] == ptr[row] and seg_hi[sl][-1] == ptr[row + 1]
        np.testing.assert_array_equal(seg_lo[sl][1:], seg_hi[sl][:-1])
