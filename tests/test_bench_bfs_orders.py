"""benchmarks/bfs_orders.py: its numberings are permutations that keep a grid a grid (the
same BFS levels, mapped through them); the timings themselves run on a GPU machine."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import bfs_orders as bo  # noqa: E402

from gblas import Matrix, generators  # noqa: E402
from gblas.algorithms import bfs  # noqa: E402
from gblas.formats.bvss.reorder import permute_csr  # noqa: E402


@pytest.mark.parametrize("order", [bo.tile_order, bo.morton_order])
def test_orders_are_permutations_with_the_same_levels(order) -> None:  # noqa: ANN001
    rows = 16
    perm = order(rows)
    assert sorted(perm.tolist()) == list(range(rows * rows))
    A = generators.grid2d(rows, rows)  # noqa: N806
    P = Matrix._from_csr(permute_csr(A._csr(), perm), "cpu")  # noqa: N806
    position = np.empty_like(perm)
    position[perm] = np.arange(len(perm))
    for src in (0, 37, rows * rows - 1):
        iv, lv = bfs(A, src).to_coo()[:2]
        ip, lp = bfs(P, int(position[src])).to_coo()[:2]
        got = np.empty(rows * rows, dtype=np.int64)
        got[perm[ip]] = lp  # back to the grid's own ids
        np.testing.assert_array_equal(got[iv], lv)


def test_tiles_and_morton_keep_blocks_together() -> None:
    tiles = bo.tile_order(16)
    assert tiles[:8].tolist() == list(range(8)) and tiles[8] == 16  # a tile's rows in turn
    morton = bo.morton_order(16)
    assert morton[:4].tolist() == [0, 16, 1, 17]  # a 2x2 block first
    i, j = np.divmod(morton[:64], 16)
    assert i.max() == 7 and j.max() == 7  # the first 64: the 8x8 corner


def test_rows_must_fit_the_tiles() -> None:
    with pytest.raises(SystemExit):
        bo.main(["--rows", "100"])
