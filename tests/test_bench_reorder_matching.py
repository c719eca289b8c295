"""benchmarks/reorder_matching.py (the round-based grouping prototype for BVSS): it returns
a permutation, finds blocks of vertices with identical neighbourhoods, and never stores
more slices than the identity on a graph made of such blocks."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import gblas as gb
from gblas.formats.bvss import reorder as R  # noqa: N812

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import reorder_matching  # noqa: E402


def _order(A: gb.Matrix) -> tuple[np.ndarray, R._Sym]:  # noqa: N803
    sym = R._Sym(A._csr())
    return reorder_matching.matching_order(sym.sptr, sym.sidx, sym.deg, 4, 64), sym


def test_a_permutation_on_kronecker() -> None:
    order, sym = _order(gb.generators.kronecker(9, seed=3))
    assert np.array_equal(np.sort(order), np.arange(sym.n))


def test_twins_share_a_block() -> None:
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
    order, _ = _order(A)
    pos = np.empty(n, np.int64)
    pos[order] = np.arange(n)
    for g in range(ngroups):
        blocks = {int(pos[m]) // 8 for m in ids[g * 8:(g + 1) * 8]}
        assert len(blocks) == 1, f"group {g} split over blocks {sorted(blocks)}"
    csr = A._csr()
    assert R.count_slices(R.permute_csr(csr, order)) <= R.count_slices(csr)
