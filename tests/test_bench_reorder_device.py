"""benchmarks/reorder_device.py (the BVSS grouping in array operations) on NumPy: a
permutation, twins in one block, the greedy's matching from the locally-dominant one, and
MinHash signatures that estimate the Jaccard similarity (both ways of computing them)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import gblas as gb
from gblas.formats.bvss import reorder as R  # noqa: N812

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import reorder_device  # noqa: E402

# (window, MinHash words, one permutation hashing, exact scores): the row windows, both
# signatures, and MinHash candidates scored exactly
WAYS = [(16, 0, False, False), (4, 32, False, False), (4, 32, True, False),
        (4, 8, True, True)]


def _order(A: gb.Matrix, window: int = 16, hashes: int = 0,  # noqa: N803
           oph: bool = False, exact: bool = False) -> np.ndarray:
    sym = R._Sym(A._csr())
    return reorder_device.grouping_order(sym.sptr, sym.sidx, sym.deg, np, window,
                                         hashes=hashes, oph=oph, exact=exact)


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("seed", [1, 2])
def test_a_permutation_with_fewer_slices(seed: int, way: tuple) -> None:
    A = gb.generators.kronecker(10, seed=seed)  # noqa: N806
    order = _order(A, *way)
    assert np.array_equal(np.sort(order), np.arange(A.nrows))
    csr = A._csr()
    assert R.count_slices(R.permute_csr(csr, order)) < 0.9 * R.count_slices(csr)


@pytest.mark.parametrize("way", WAYS)
def test_twins_share_a_block(way: tuple) -> None:
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
    pos[_order(A, *way)] = np.arange(n)
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


@pytest.mark.parametrize("oph", [False, True])
def test_signatures_estimate_jaccard(oph: bool) -> None:
    """Pairs of row sets of known Jaccard similarity: the share of signature words two
    groups agree on is within 0.2 of it, 0.06 on average (64 words; fixed seeds: the
    rotation's borrowed words make one permutation hashing noisier), a group without rows has
    the empty word everywhere, equal sets agree everywhere."""
    rng = np.random.default_rng(7)
    rows, grps, want = [], [], []
    for pair in range(12):
        shared = rng.choice(10_000, 40, replace=False) + pair * 10_000
        only = rng.choice(10_000, 2 * pair * 5, replace=False) + 200_000 + pair * 10_000
        a, b = np.concatenate([shared, only[: pair * 5]]), np.concatenate(
            [shared, only[pair * 5:]])
        rows += [a, b]
        grps += [np.full(a.shape[0], 2 * pair), np.full(b.shape[0], 2 * pair + 1)]
        want.append(40 / (40 + 2 * pair * 5))
    r, g = np.concatenate(rows), np.concatenate(grps)
    ng = 2 * len(want) + 1  # the last group has no rows
    fn = reorder_device._signatures_oph if oph else reorder_device._signatures
    sig = fn(np, r, g, ng, 64, seed=3)
    assert sig.shape == (64, ng)
    assert (sig[:, -1] == reorder_device._NO_ROW).all()
    assert (sig[:, :-1] != reorder_device._NO_ROW).all()
    err = [abs((sig[:, 2 * p] == sig[:, 2 * p + 1]).mean() - j) for p, j in enumerate(want)]
    assert max(err) <= 0.2 and np.mean(err) <= 0.06, err
    same = fn(np, np.array([5, 9, 5, 9]), np.array([0, 0, 1, 1]), 2, 64, seed=1)
    assert (same[:, 0] == same[:, 1]).all()
    with pytest.raises(ValueError, match="power of two"):
        reorder_device._signatures_oph(np, r, g, ng, 48, seed=3)


def test_exact_jaccard_of_candidate_pairs() -> None:
    """The exact scores: |rows(a) ∩ rows(b)| / |rows(a) ∪ rows(b)| of the groups' row sets
    (entries (row, col) with col in the group), against Python sets; a group without rows
    scores 0."""
    rng = np.random.default_rng(11)
    n, m, ng = 50, 400, 12
    rows = rng.integers(0, n, m)
    cols = rng.integers(0, n, m)
    member = rng.integers(0, ng - 1, n)  # group ng - 1 has no member
    sets = [set() for _ in range(ng)]
    for r, c in zip(rows.tolist(), cols.tolist(), strict=True):
        sets[member[c]].add(r)
    a = np.array([0, 1, 2, 3, 0, 4])
    b = np.array([5, 6, 7, 8, ng - 1, 4 + 1])
    got, work = reorder_device._exact_jaccard(np, rows, cols, member, ng, a, b)
    want = [len(sets[x] & sets[y]) / max(len(sets[x] | sets[y]), 1)
            for x, y in zip(a.tolist(), b.tolist(), strict=True)]
    np.testing.assert_allclose(got, want)
    assert work == sum(len(sets[x]) + len(sets[y])
                       for x, y in zip(a.tolist(), b.tolist(), strict=True))
    assert got[4] == 0.0 and (got[:4] > 0).any()


def test_exact_scores_capped_keep_the_estimate() -> None:
    """With a cap, the pairs whose row lists hold more entries together keep the given
    estimate and are not merged (their entries are not counted as work)."""
    rows = np.array([0, 1, 2, 0, 1, 5, 6, 7, 8])
    cols = np.array([0, 0, 0, 1, 1, 2, 2, 2, 3])
    member = np.arange(4)
    a, b = np.array([0, 2]), np.array([1, 3])
    est = np.array([0.25, 0.5])
    full, work = reorder_device._exact_jaccard(np, rows, cols, member, 4, a, b)
    np.testing.assert_allclose(full, [2 / 3, 0.0])
    assert work == 5 + 4
    capped, work = reorder_device._exact_jaccard(np, rows, cols, member, 4, a, b, est, 4)
    np.testing.assert_allclose(capped, [0.25, 0.0])
    assert work == 4


def test_bottom_k_sketch_scores() -> None:
    """Bottom-k sketches give the exact similarity when the two groups' rows number at most
    k together, and an estimate within 0.15 of it for larger groups (k = 256; fixed seed)."""
    rows_l, cols_l = [], []
    for g, rs in enumerate(([0, 1, 2], [1, 2, 3], list(range(0, 3000)),
                            list(range(1000, 4000)))):
        rows_l += rs
        cols_l += [g] * len(rs)
    rows, cols, member = np.array(rows_l), np.array(cols_l), np.arange(4)
    a, b = np.array([0, 2]), np.array([1, 3])
    got, work = reorder_device._sketch_jaccard(np, rows, cols, member, 4, a, b, 256, seed=9)
    assert got[0] == 0.5 and work == 3 + 3 + 256 + 256
    assert abs(got[1] - 2000 / 4000) <= 0.15


@pytest.mark.parametrize("budget", [1, 4, 10**9])
def test_probed_scores_are_exact_within_budget(budget: int) -> None:
    """Probing the entries: the kept pairs' scores equal the exact merge's, the probes are
    at most budget · the distinct (row, group) entries, and without a binding budget every
    pair is kept, probed from its group with fewer rows (Σ min of the widths)."""
    sym = R._Sym(gb.generators.kronecker(10, seed=3)._csr())
    n = sym.n
    rows = np.repeat(np.arange(n), np.diff(sym.sptr))
    cols = sym.sidx.astype(np.int64)
    ng = n // 3
    member = np.random.default_rng(5).integers(0, ng, n)
    gsize = np.bincount(member, minlength=ng)
    a, b, est = reorder_device._candidates_minhash(np, rows, cols, member, ng,
                                                   np.ones(ng, bool), gsize, 100, 4, 5, 16,
                                                   True)
    exact, _ = reorder_device._exact_jaccard(np, rows, cols, member, ng, a, b)
    pa, pb, got, probes, reads = reorder_device._probe_jaccard(np, rows, cols, member, ng,
                                                               a, b, est, budget, seed=5,
                                                               chunk=1000)
    want = dict(zip((a * ng + b).tolist(), exact.tolist(), strict=True))
    assert (pa < pb).all() and pa.shape[0] > 0
    np.testing.assert_allclose(got, [want[k] for k in (pa * ng + pb).tolist()])
    key = np.unique(rows * ng + member[cols])
    width = np.bincount(key % ng, minlength=ng)
    assert probes == np.minimum(width[pa], width[pb]).sum() <= budget * key.shape[0]
    assert probes <= reads <= 3 * probes  # the hash set's slots: few a probe
    if budget == 10**9:
        assert pa.shape[0] == a.shape[0]
    else:
        assert pa.shape[0] < a.shape[0]


def test_probed_rows_sampled_scale_the_count() -> None:
    """With a sample of T rows, a pair whose smaller group has at most T rows is exact; a
    larger one probes T rows and scales its count (here: all of s's rows in l)."""
    rows = np.array(list(range(10)) + list(range(20)) + [0, 1] + [0, 1, 2])
    cols = np.array([0] * 10 + [1] * 20 + [2] * 2 + [3] * 3)
    a, b = np.array([0, 2]), np.array([1, 3])
    pa, pb, got, probes, _ = reorder_device._probe_jaccard(
        np, rows, cols, np.arange(4), 4, a, b, np.array([0.5, 0.5]), 10**9, seed=1,
        sample=4)
    np.testing.assert_allclose(got, [10 / 20, 2 / 3])
    assert probes == 4 + 2


@pytest.mark.parametrize(("budget", "share"), [(1, 0.5), (4, 0.5), (4, 0.0), (2, 1.0)])
def test_probed_grouping_is_a_permutation(budget: int, share: float) -> None:
    A = gb.generators.kronecker(10, seed=1)  # noqa: N806
    sym = R._Sym(A._csr())
    order = reorder_device.grouping_order(sym.sptr, sym.sidx, sym.deg, np, 4, 2, hashes=16,
                                          oph=True, probe=budget, probe_share=share)
    assert np.array_equal(np.sort(order), np.arange(A.nrows))
    csr = A._csr()
    assert R.count_slices(R.permute_csr(csr, order)) < 0.9 * R.count_slices(csr)


def test_hash_set_of_array_rounds() -> None:
    """The hash set built in array rounds holds each key once (repeats included), finds
    exactly the keys given, and reads few slots a lookup (load at most 1/2)."""
    rng = np.random.default_rng(2)
    keys = rng.integers(0, 10**12, 5000)
    keys = np.concatenate([keys, keys[:1000]])  # repeats
    table = reorder_device._hash_set(np, keys)
    held = table[table != reorder_device._EMPTY]
    assert np.array_equal(np.sort(held), np.unique(keys))
    q = np.concatenate([keys[:3000], rng.integers(10**12, 2 * 10**12, 3000)])
    found, reads = reorder_device._in_set(np, table, q)
    assert found[:3000].all() and not found[3000:].any()
    assert q.shape[0] <= reads <= 3 * q.shape[0]
