"""A round-based grouping for the BVSS reordering, against ``reorder="jaccard"``: compression
only (slices / identity), a prototype toward a reordering on the device (issue 12, item 4).

    GBLAS_GRAPHS=../shared/graphs python3 benchmarks/reorder_matching.py \
        snap_email-Enron snap_com-DBLP kron:16 [--rounds 4] [--cap 64] [--window 16]

BVSS stores a column block of 8 vertices as one slice per row that has an entry in it, so
the order should put vertices with similar neighbourhoods into the same block of 8. The
shipped greedy (``gblas.formats.bvss.reorder``) grows one window at a time. Here every
group (at first every vertex) proposes, in the same round, its best partner: the group whose
neighbour union has the largest Jaccard similarity with its own, counted through at most
``--cap`` entries of each neighbour's row. The proposals are then taken in decreasing score,
a group merging with its proposal when neither was taken yet (a locally-dominant matching
would give the same in parallel rounds). ``--rounds`` rounds merge groups up to 2 vertices,
as many up to 4, then up to 8; the groups left below 8 are packed into blocks of 8 by first
fit in the order of their highest degree (partial blocks last, so every block stays
aligned). The counting runs in Numba, the
grouping bookkeeping in Python: the times printed say nothing about a device version.

``--window W`` bounds the work for a device: each round every row lists its distinct open
groups in the order of a hash of the group (new each round), and only groups at most W
apart in that order are candidates, their shared rows counted over the rows where they
were (``_propose_sampled``: sorts, unique and segment maxima only, at most m·W pairs a
round for m entries). ``--all-pairs`` then matches greedily over every candidate pair,
which is what a locally-dominant matching computes in parallel rounds. Results are in
docs/bvss_reorder.md.
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

import numba
import numpy as np
from reorder_device import _candidates

import gblas as gb
from gblas.formats.bvss import reorder as R  # noqa: N812
from gblas.io import mmread


@numba.njit(cache=True)
def _propose(gptr: Any, gidx: Any, gsize: Any, member_of: Any, sptr: Any, sidx: Any,
             cap: int, maxsize: int, open_: Any) -> tuple[Any, Any]:
    """For every open group g: (its best partner h or -1, the score): the Jaccard similarity
    of the two neighbour unions, shared rows counted once each through at most ``cap``
    eligible entries of every row of g's union (entries of open groups h with gsize[g] +
    gsize[h] <= maxsize; ties: the smaller h)."""
    ng = gsize.shape[0]
    best = np.full(ng, -1, np.int64)
    score = np.zeros(ng)
    cnt = np.zeros(ng, np.int64)
    last_row = np.full(ng, -1, np.int64)
    stamp = np.full(ng, -1, np.int64)
    cand = np.empty(ng, np.int64)
    for g in range(ng):
        if not open_[g]:
            continue
        nc = 0
        for a in range(gptr[g], gptr[g + 1]):
            r = gidx[a]
            seen = 0
            for b in range(sptr[r], sptr[r + 1]):
                h = member_of[sidx[b]]
                if h == g or not open_[h] or gsize[g] + gsize[h] > maxsize:
                    continue
                if stamp[h] != g:
                    stamp[h], cnt[h], last_row[h] = g, 0, -1
                    cand[nc] = h
                    nc += 1
                if last_row[h] != r:
                    last_row[h] = r
                    cnt[h] += 1
                seen += 1
                if seen >= cap:
                    break
        width = gptr[g + 1] - gptr[g]
        for q in range(nc):
            h = cand[q]
            s = cnt[h] / (width + gptr[h + 1] - gptr[h] - cnt[h])
            if s > score[g] or (s == score[g] and best[g] >= 0 and h < best[g]):
                score[g], best[g] = s, h
    return best, score


def _propose_sampled(gsize: Any, member_of: Any, sptr: Any, sidx: Any,
                     maxsize: int, open_: Any, window: int, seed: int,
                     all_pairs: bool = False) -> tuple[Any, ...]:
    """The proposals of :func:`_propose` from a bounded sample of the pairs, in array
    operations only (reorder_device._candidates: what a device does with CuPy): each
    row lists its distinct open groups in the order of a hash of the group (a new hash
    every round), and only groups at most ``window`` apart in that order become
    candidates; a pair's shared rows are counted over the rows where it was a candidate
    (an undercount), its score the Jaccard similarity of the unions with that count. At
    most n·window pairs a round, whatever the degrees. ``all_pairs``: (a, b, score) of
    every candidate pair instead of each group's best."""
    n, ng = sptr.shape[0] - 1, gsize.shape[0]
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(sptr))
    a, b, sc = _candidates(np, rows, sidx.astype(np.int64), member_of, ng, open_, gsize,
                           maxsize, window, seed, n)
    best = np.full(ng, -1, np.int64)
    score = np.zeros(ng)
    if a.shape[0] == 0 and not all_pairs:
        return best, score
    if all_pairs:
        return a, b, sc
    # every group's best partner: its pairs by (group, score descending, partner)
    g = np.concatenate([a, b])
    other = np.concatenate([b, a])
    s2 = np.concatenate([sc, sc])
    o = np.lexsort((other, -s2, g))
    g, other, s2 = g[o], other[o], s2[o]
    lead = np.ones(g.shape[0], bool)
    lead[1:] = g[1:] != g[:-1]
    best[g[lead]], score[g[lead]] = other[lead], s2[lead]
    return best, score


def _union_rows(groups: list[list[int]], sptr: Any, sidx: Any) -> tuple[Any, Any]:
    """(pointers, ids) of every group's neighbour union, sorted."""
    rows = [np.unique(np.concatenate([sidx[sptr[v]:sptr[v + 1]] for v in g])) for g in groups]
    ptr = np.zeros(len(rows) + 1, np.int64)
    ptr[1:] = np.cumsum([r.shape[0] for r in rows])
    ids = np.concatenate(rows).astype(np.int64) if rows else np.zeros(0, np.int64)
    return ptr, ids


def _pack(groups: list[list[int]], deg: Any) -> list[int]:
    """The groups as an order: full blocks of 8 first, then the rest, taken in the order of
    their highest degree, first fit (the tightest open block) into blocks of 8, the blocks
    left partial at the end."""
    full = [g for g in groups if len(g) == 8]
    bins: list[list[int]] = []
    room: dict[int, list[int]] = {r: [] for r in range(1, 8)}  # open bins by free room
    for g in sorted((g for g in groups if len(g) < 8), key=lambda g: -int(deg[g].max())):
        fit = next((r for r in range(len(g), 8) if room[r]), None)
        if fit is None:
            bins.append(list(g))
            at = len(bins) - 1
        else:
            at = room[fit].pop()
            bins[at].extend(g)
        if len(bins[at]) < 8:
            room[8 - len(bins[at])].append(at)
    bins.sort(key=lambda b: len(b) < 8)
    return [v for g in full + bins for v in g]


def matching_order(sptr: Any, sidx: Any, deg: Any, rounds: int, cap: int,
                   window: int = 0, all_pairs: bool = False) -> np.ndarray:
    """The vertex order (``perm[p]`` = vertex at position p) of the round-based grouping;
    ``window`` > 0 takes the proposals from :func:`_propose_sampled` instead, and with
    ``all_pairs`` matches over all its candidate pairs in decreasing score (what a
    locally-dominant matching on a device computes), not over each group's best."""
    n = deg.shape[0]
    groups = [[v] for v in range(n)]
    for maxsize in (2, 4, 8):
        for rnd in range(rounds):
            gsize = np.array([len(g) for g in groups], np.int64)
            member_of = np.empty(n, np.int64)
            for gi, g in enumerate(groups):
                member_of[g] = gi
            if window and all_pairs:  # the greedy matching over every candidate pair
                a, b, sc = _propose_sampled(gsize, member_of, sptr, sidx, maxsize,
                                            gsize < maxsize, window, maxsize * 16 + rnd, True)
                taken = np.zeros(len(groups), bool)
                merged = []
                for i in np.lexsort((b, a, -sc)):
                    if not taken[a[i]] and not taken[b[i]]:
                        merged.append(groups[a[i]] + groups[b[i]])
                        taken[a[i]] = taken[b[i]] = True
                groups = merged + [g for gi, g in enumerate(groups) if not taken[gi]]
                continue
            if window:
                best, score = _propose_sampled(gsize, member_of, sptr, sidx, maxsize,
                                               gsize < maxsize, window, maxsize * 16 + rnd)
            else:  # the exact counts read the groups' neighbour unions
                gptr, gidx = _union_rows(groups, sptr, sidx)
                best, score = _propose(gptr, gidx, gsize, member_of, sptr, sidx, cap,
                                       maxsize, gsize < maxsize)
            taken = np.zeros(len(groups), bool)
            merged = []
            for g in np.argsort(-score, kind="stable"):
                h = best[g]
                if h >= 0 and score[g] > 0 and not taken[g] and not taken[h]:
                    merged.append(groups[g] + groups[h])
                    taken[g] = taken[h] = True
            groups = merged + [g for gi, g in enumerate(groups) if not taken[gi]]
    return np.array(_pack(groups, deg), np.int64)


def _graph(name: str) -> gb.Matrix:
    if name.startswith("kron:"):
        return gb.generators.kronecker(int(name.split(":")[1]), seed=1)
    folder = os.environ.get("GBLAS_GRAPHS", "../shared/graphs")
    return mmread(os.path.join(folder, f"{name}.mtx.gz"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("graphs", nargs="+", help="kron:S or a file name in GBLAS_GRAPHS")
    ap.add_argument("--rounds", type=int, default=4, help="rounds per group size")
    ap.add_argument("--cap", type=int, default=64, help="entries of a row counted a visit")
    ap.add_argument("--window", type=int, default=0,
                    help="> 0: proposals from groups at most this far apart in a hashed "
                         "order of each row (bounded work), not the exact count")
    ap.add_argument("--all-pairs", action="store_true",
                    help="with --window: the greedy matching over every candidate pair")
    args = ap.parse_args()
    print("| graph | identity slices | jaccard | s | matching | s |")
    print("|---|--:|--:|--:|--:|--:|")
    for name in args.graphs:
        csr = _graph(name)._csr()
        base = R.count_slices(csr)
        sym = R._Sym(csr)
        t = time.perf_counter()
        perm, _ = R.reorder_permutation(csr, "jaccard")
        t_j = time.perf_counter() - t
        t = time.perf_counter()
        order = matching_order(sym.sptr, sym.sidx, sym.deg, args.rounds, args.cap,
                               args.window, args.all_pairs)
        t_m = time.perf_counter() - t
        if not np.array_equal(np.sort(order), np.arange(sym.n)):
            raise SystemExit(f"{name}: the grouping is not a permutation")
        ratio_j = R.count_slices(R.permute_csr(csr, perm)) / base
        ratio_m = R.count_slices(R.permute_csr(csr, order)) / base
        print(f"| {name} | {base} | {ratio_j:.3f} | {t_j:.2f} | {ratio_m:.3f} | {t_m:.1f} |",
              flush=True)


if __name__ == "__main__":
    main()
