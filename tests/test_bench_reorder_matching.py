"""benchmarks/reorder_matching.py (the round-based grouping prototype for BVSS): it returns
a permutation, finds blocks of vertices with identical neighbourhoods, and never stores
more slices than the identity on a graph made of such blocks."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import gblas as gb
from gblas.formats.bvss import reorder as R  # noqa: N812

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import reorder_matching  # noqa: E402

# the proposals: exact counts (window 0), or sampled from a hashed order of each row, with
# the greedy matching over each group's best or over every candidate pair
VARIANTS = pytest.mark.parametrize("window, all_pairs", [(0, False), (8, False), (8, True)])


def _order(A: gb.Matrix, window: int = 0,  # noqa: N803
           all_pairs: bool = False) -> tuple[np.ndarray, R._Sym]:
    sym = R._Sym(A._csr())
    return reorder_matching.matching_order(sym.sptr, sym.sidx, sym.deg, 4, 64, window,
                                           all_pairs), sym


@VARIANTS
def test_a_permutation_on_kronecker(window: int, all_pairs: bool) -> None:
    order, sym = _order(gb.generators.kronecker(9, seed=3), window, all_pairs)
    assert np.array_equal(np.sort(order), np.arange(sym.n))


@VARIANTS
def test_twins_share_a_block(window: int, all_pairs: bool) -> None:
    """Groups of 8 vertices with one neighbourhood each (scattered ids): each group must
    end up in one block of 8, so every row of a hub costs one slice per group."""
    rng = np.random.default_rng(0)
    ngroups, hubs_per = 12, 5
    n = ngroups * 8 + ngroups * hubs_per
    ids = rng.permutation(n)  # scatter the vertices
    rows, cols = [], []
    for g in range(ngroups):
        members = ids[g * 8:(g + 1) * 8]
        hubs = ids[ngroups * 8 + g * hubs_per:ngroups * 8 + (g + 1) * hubs_per]
        for m in members:
            for h in hubs:
                rows += [m, h]
                cols += [h, m]
    A = gb.Matrix.from_coo(rows, cols, True, nrows=n, ncols=n)  # noqa: N806
    order, _ = _order(A, window, all_pairs)
    pos = np.empty(n, np.int64)
    pos[order] = np.arange(n)
    for g in range(ngroups):
        blocks = {int(pos[m]) // 8 for m in ids[g * 8:(g + 1) * 8]}
        assert len(blocks) == 1, f"group {g} split over blocks {sorted(blocks)}"
    csr = A._csr()
    assert R.count_slices(R.permute_csr(csr, order)) <= R.count_slices(csr)
