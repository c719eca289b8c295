"""The GPU pull gives rows longer than ``LONG_ROW`` a block each (``mxv_pull_long``), and a
full x is pulled by tiles of entries staged in shared memory (``mxv_pull_tiles``): their
results equal the CPU's for folding monoids, first-wins (``any``), terminal values (early
exit) and masks, on a matrix with a few hub rows among short ones, and on row lengths
around the tile kernel's boundaries (32 entries a thread, TILE entries a tile)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from gblas import Descriptor, Matrix, Vector, semiring
from gblas.formats.csr import cuda as csr_cuda
from gblas.formats.csr.container import CSR
from gblas.formats.csr.cuda import LONG_ROW, TILE

pytestmark = pytest.mark.gpu
GPU = "cuda:0"


def _hub_matrix(rng: np.random.Generator, n: int, dtype: Any) -> Matrix:
    r = [rng.integers(0, n, 6 * n)]
    c = [rng.integers(0, n, 6 * n)]
    for hub, width in ((3, 5 * LONG_ROW), (n - 2, LONG_ROW + 1), (n // 2, 3 * LONG_ROW)):
        r.append(np.full(width, hub))
        c.append(rng.choice(n, width, replace=False))
    rows, cols = np.concatenate(r), np.concatenate(c)
    vals = rng.integers(-8, 9, rows.shape[0]).astype(dtype)
    return Matrix.from_coo(rows, cols, vals, dtype=dtype, nrows=n, ncols=n,
                           dup_op=semiring.plus_times.monoid.binaryop)


@pytest.mark.parametrize("wide", [False, True], ids=["int32_indices", "int64_indices"])
@pytest.mark.parametrize("sr", ["plus_times", "min_plus", "max_times", "any_pair",
                                "any_secondi", "lor_land", "plus_pair", "min_second"])
@pytest.mark.parametrize("mask", ["none", "S", "~S"])
@pytest.mark.parametrize("xkind", ["sparse", "full"])
def test_hub_rows_match_cpu(sr: str, mask: str, wide: bool, xkind: str,
                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Both index widths of the pull, forced here: int32 copies (made from a matrix's second
    pull on), int64 (a representation that reports no 32-bit copy: nnz or ncols >= 2**31)."""
    narrow = CSR.indices32
    monkeypatch.setattr(CSR, "indices32", (lambda self, min_uses=1: None) if wide else
                        (lambda self, min_uses=1: narrow(self)))
    rng = np.random.default_rng(11)
    n = 8 * LONG_ROW
    dtype = np.bool_ if sr == "lor_land" else np.float64
    A = _hub_matrix(rng, n, dtype)  # noqa: N806
    idx = np.sort(rng.choice(n, n // 3, replace=False)) if xkind == "sparse" else np.arange(n)
    xv = rng.random(idx.shape[0]) < 0.8 if dtype is np.bool_ else \
        rng.integers(-4, 5, idx.shape[0]).astype(dtype)
    x = Vector.from_coo(idx, xv, dtype=dtype, size=n)
    m = Vector.from_coo(np.sort(rng.choice(n, n // 2, replace=False)), True, size=n)
    m[3] = True  # two hub rows inside the mask
    m[n - 2] = True
    s = getattr(semiring, sr)
    out = []
    for dev in ("cpu", GPU):
        Ad, xd, md = A.to(dev), x.to(dev), m.to(dev)  # noqa: N806
        w = Vector(s.monoid.fixed_type or (bool if dtype is np.bool_ else float), n,
                   device=dev)
        d = Descriptor(direction="pull")
        mk = None if mask == "none" else (md.S if mask == "S" else ~md.S)
        w(mask=mk, desc=d) << Ad.mxv(xd, s)
        out.append(w.to("cpu").to_coo())
    np.testing.assert_array_equal(out[0][0], out[1][0])
    np.testing.assert_allclose(out[0][1], out[1][1], rtol=1e-12)


def _lengths_matrix(rng: np.random.Generator, lengths: list[int], n: int,
                    dtype: Any) -> Matrix:
    """Rows of the given lengths (distinct random columns, integer or bool values)."""
    rows = np.repeat(np.arange(len(lengths)), lengths)
    cols = np.concatenate([rng.choice(n, k, replace=False) for k in lengths]) \
        if rows.shape[0] else np.zeros(0, np.int64)
    vals = rng.integers(-8, 9, rows.shape[0])
    vals = vals > 0 if dtype is np.bool_ else vals.astype(dtype)
    return Matrix.from_coo(rows, cols, vals, dtype=dtype, nrows=len(lengths), ncols=n)


@pytest.mark.parametrize("case", ["boundaries", "exact_tiles", "empty", "hubs_in_tiles"])
@pytest.mark.parametrize("sr", ["plus_times", "min_second", "max_plus", "lor_land"])
@pytest.mark.parametrize("masked", [False, True])
def test_tiles_match_cpu_and_warp_kernel(case: str, sr: str, masked: bool,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The tile kernel against the CPU and against the warp-per-row kernel, full x: row
    lengths 0, 1, 31, 32, 33 (thread / warp fold), up to LONG_ROW and past it (hub rows
    leave a tile to be folded from memory), nnz a multiple of TILE, no entries at all."""
    rng = np.random.default_rng(5)
    n = 4 * LONG_ROW
    if case == "boundaries":
        lengths = list(rng.choice([0, 1, 2, 31, 32, 33, 64, 200, LONG_ROW - 1, LONG_ROW],
                                  size=300))
    elif case == "exact_tiles":
        lengths = [32] * (4 * TILE // 32) + [0] * 5  # nnz = 4 tiles; trailing empty rows
    elif case == "empty":
        lengths = [0] * 40
    else:
        lengths = list(rng.choice([0, 3, 33], size=400)) + [LONG_ROW + 7, 5, 2 * LONG_ROW] \
            + list(rng.choice([1, 40], size=200))
    dtype = np.bool_ if sr == "lor_land" else np.float64
    A = _lengths_matrix(rng, lengths, n, dtype)  # noqa: N806
    xv = rng.random(n) < 0.7 if dtype is np.bool_ else rng.integers(-4, 5, n).astype(dtype)
    x = Vector.from_dense(xv)
    m = Vector.from_coo(np.sort(rng.choice(A.nrows, A.nrows // 2, replace=False)), True,
                        size=A.nrows)
    s = getattr(semiring, sr)
    out = []
    for dev, tiles in (("cpu", True), (GPU, True), (GPU, False)):
        monkeypatch.setattr(csr_cuda, "PULL_TILES", tiles)
        Ad, xd, md = A.to(dev), x.to(dev), m.to(dev)  # noqa: N806
        w = Vector(bool if dtype is np.bool_ else float, A.nrows, device=dev)
        w(mask=md.S if masked else None, desc=Descriptor(direction="pull")) << Ad.mxv(xd, s)
        out.append(w.to("cpu").to_coo())
    for got in out[1:]:
        np.testing.assert_array_equal(out[0][0], got[0])
        np.testing.assert_array_equal(out[0][1], got[1])
