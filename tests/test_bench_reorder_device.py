"""benchmarks/reorder_device.py (the BVSS grouping in array operations) on NumPy: a
permutation, twins in one block, and the greedy's matching from the locally-dominant one."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import gblas as gb
from gblas.formats.bvss import reorder as R  # noqa: N812

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import reorder_device  # noqa: E402


def _order(A: gb.Matrix, window: int = 16) -> np.ndarray:  # noqa: N803
    sym = R._Sym(A._csr())
    return reorder_device.grouping_order(sym.sptr, sym.sidx, sym.deg, np, window)


@pytest.mark.parametrize("seed", [1, 2])
def test_a_permutation_with_fewer_slices(seed: int) -> None:
    A = gb.generators.kronecker(10, seed=seed)  # noqa: N806
    order = _order(A)
    assert np.array_equal(np.sort(order), np.arange(A.nrows))
    csr = A._csr()
    assert R.count_slices(R.permute_csr(csr, order)) < 0.9 * R.count_slices(csr)


def test_twins_share_a_block() -> None:
    """Groups of 8 vertices with one neighbourhood each (scattered ids), a few hubs each:
    every group ends up in one block of 8."""
    rng = np.random.default_rng(0)
    ngroups, hubs_per = 12, 5
    n = ngroups * 8 + ngroups * hubs_per
    ids = rng.permutation(n)
    rows, cols = [], []
    for g in range(ngroups):
        hubs = ids[ngroups * 8 + g * hubs_per:ngroups * 8 + (g + 1) * hubs_per]
        for m in ids[g * 8:(g + 1) * 8]:
            for h in hubs:
                rows += [m, h]
                cols += [h, m]
    A = gb.Matrix.from_coo(rows, cols, True, nrows=n, ncols=n)  # noqa: N806
    pos = np.empty(n, np.int64)
    pos[_order(A)] = np.arange(n)
    for g in range(ngroups):
        assert len({int(pos[m]) // 8 for m in ids[g * 8:(g + 1) * 8]}) == 1, g


@pytest.mark.parametrize("seed", range(4))
def test_locally_dominant_matching_is_the_greedy(seed: int) -> None:
    """The rounds of best-at-both-ends take the pairs the greedy takes in decreasing score
    (ties: the smaller ids first), scores with many ties included."""
    rng = np.random.default_rng(seed)
    ng, npairs = 60, 400
    a = rng.integers(0, ng, npairs)
    b = rng.integers(0, ng, npairs)
    keep = a != b
    a, b = np.minimum(a, b)[keep], np.maximum(a, b)[keep]
    key = np.unique(a * ng + b)
    a, b = key // ng, key % ng
    sc = rng.integers(0, 5, a.shape[0]) / 4.0
    ma, mb = reorder_device._match(np, a, b, sc, ng)
    taken = np.zeros(ng, bool)
    want = set()
    for i in np.lexsort((b, a, -sc)):
        if not taken[a[i]] and not taken[b[i]]:
            want.add((int(a[i]), int(b[i])))
            taken[a[i]] = taken[b[i]] = True
    assert set(zip(ma.tolist(), mb.tolist())) == want
