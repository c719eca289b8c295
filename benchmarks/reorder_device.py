"""The round-based BVSS grouping in array operations, on NumPy or CuPy: its time on a device.

    python3 benchmarks/reorder_device.py kron:24 ../shared/graphs/snap_com-DBLP.mtx.gz \
        [--device cuda] [--window 16] [--rounds 4] [--jaccard] \
        [--hashes 16 --oph --window 4 --rounds 2 --exact | --probe 4 --probe-share 0]

Issue 12 asks for BVSS build + reordering in at most 1 s at scale 24 on the GPU. The
grouping of ``reorder_matching.py --window W --all-pairs`` (docs/bvss_reorder.md, "Bounded
candidates") stated with whole-array operations only, so that CuPy runs it as it is:

* a vertex's group is ``member[v]``; groups start as single vertices and merge in rounds,
  ``--rounds`` for each largest size 2, 4, 8;
* a round: the distinct (row, open group) entries of the symmetric pattern (one sort), in
  each row ordered by a hash of the group (a new hash each round), the groups at most W
  apart in a row as candidate pairs (at most m·W for m entries: too many at kron:24, where
  the GPU's memory runs out), their shared rows counted (a sort and a run-length count),
  each scored by the Jaccard similarity of the two groups' rows; or (``--hashes K``) the
  pairs from MinHash signatures of the groups' rows, at most n·W·K (``--oph``: the K words
  in one pass; ``--exact``: scored by their exact similarity, docs/bvss_reorder.md;
  ``--probe C``: exact similarities for the pairs that C lookups an entry afford, in a
  hash set of the entries, the others dropped);
* a locally-dominant matching: the pairs ranked once (score, then their ids), then rounds
  in which every group takes the best rank among its pairs left (a scatter-min) and a
  pair best at both ends merges; it takes the pairs the greedy in rank order would;
* the groups below 8 are packed into blocks of 8 on the host (first fit, in the order of
  their highest degree; a loop over the groups), and the order lists every block's vertices.

Prints, per graph, the slices of the identity, the shipped Jaccard greedy (``--jaccard``,
on the host) and this grouping, this grouping's time with the device synchronised, and
from a second run its split into candidates, matching, merges and packing, the candidate
pairs of the largest round per vertex and the row-list entries its exact scores read per
entry of the pattern.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import common
import numba
import numpy as np

from gblas.formats.bvss import reorder as R  # noqa: N812

_mix = R._mix.py_func  # splitmix64's finaliser, here on NumPy or CuPy arrays


def _by(xp: Any, *keys: Any) -> Any:
    """The permutation sorting by ``keys`` (the first the most significant)."""
    return xp.lexsort(xp.stack(keys[::-1]))


def _repeat_ids(xp: Any, counts: Any) -> Any:
    """``i`` repeated ``counts[i]`` times, in order (``np.repeat(arange, counts)``; CuPy's
    repeat takes no array of counts: a binary search of each position in their sums)."""
    if xp is np:
        return np.repeat(np.arange(counts.shape[0]), counts)
    ends = xp.cumsum(counts)
    total = int(ends[-1]) if counts.shape[0] else 0
    return xp.searchsorted(ends, xp.arange(total, dtype=ends.dtype), side="right")


def _window_pairs(xp: Any, key: Any, g: Any, gsize: Any, maxsize: int, window: int,
                  ng: int) -> Any:
    """The pairs (as min · ng + max) of groups ``g`` at most ``window`` apart in a list
    sorted by ``key`` whose keys are equal and whose sizes fit ``maxsize`` together, once
    for every such position (repeats kept: they count shared rows)."""
    out = []
    for d in range(1, window + 1):
        same = key[d:] == key[:-d]
        a, b = g[:-d][same], g[d:][same]
        fits = gsize[a] + gsize[b] <= maxsize
        out.append((xp.minimum(a, b) * ng + xp.maximum(a, b))[fits])
    return xp.concatenate(out)


def _candidates(xp: Any, rows: Any, cols: Any, member: Any, ng: int, open_: Any,
                gsize: Any, maxsize: int, window: int, seed: int,
                n_rows: int) -> tuple[Any, Any, Any]:
    """(a, b, score) of the round's candidate pairs, a < b."""
    grp = member[cols]
    keep = open_[grp]
    key = xp.unique(rows[keep] * ng + grp[keep])  # distinct (row, group), by row
    r, g = key // ng, key % ng
    width = xp.bincount(g, minlength=ng)  # the rows of each open group
    h = _mix(g.astype(np.uint64) ^ np.uint64(seed * 0x9E3779B97F4A7C15 % 2**64))
    shift = np.uint64(64 - max(1, int(n_rows).bit_length()))  # row in the high bits
    o = xp.argsort((r.astype(np.uint64) << shift) | (h >> (np.uint64(64) - shift)))
    pairs = _window_pairs(xp, r[o], g[o], gsize, maxsize, window, ng)
    if pairs.shape[0] == 0:
        return pairs, pairs, xp.zeros(0)
    key, cnt = xp.unique(pairs, return_counts=True)
    a, b = key // ng, key % ng
    return a, b, cnt / (width[a] + width[b] - cnt)


_NO_ROW = np.int64(2**63 - 1)  # a signature word of a group with no rows


def _signatures(xp: Any, r: Any, g: Any, ng: int, hashes: int, seed: int) -> Any:
    """(hashes, ng) MinHash signatures of the groups' row sets: word k of group g is the
    smallest hash_k(r) over the entries (r, g) (a scatter-min per hash; _NO_ROW for a group
    without entries). Two groups' words agree with probability their rows' Jaccard
    similarity."""
    sig = xp.full((hashes, ng), _NO_ROW, dtype=np.int64)
    ru = r.astype(np.uint64)
    for k in range(hashes):
        salt = np.uint64((seed * 1000003 + k + 1) * 0x9E3779B97F4A7C15 % 2**64)
        _scatter_min(xp, sig[k], g, (_mix(ru ^ salt) >> np.uint64(1)).astype(np.int64))
    return sig


def _signatures_oph(xp: Any, r: Any, g: Any, ng: int, hashes: int, seed: int) -> Any:
    """The same signatures by one permutation hashing (Li, Owen, Zhang, NIPS'12): one hash
    a row, its top bits pick one of the ``hashes`` bins (a power of two), word k of group g
    the smallest rest of the hashes of g's rows in bin k: one scatter-min over the entries
    for all the words. A bin without rows borrows the next non-empty bin's word (circular,
    plus a distinct offset per distance: the rotation of Shrivastava and Li, ICML'14)."""
    bits = hashes.bit_length() - 1
    if 1 << bits != hashes:
        raise ValueError(f"one permutation hashing needs a power of two, got {hashes}")
    salt = np.uint64((seed * 1000003 + 1) * 0x9E3779B97F4A7C15 % 2**64)
    h = _mix(r.astype(np.uint64) ^ salt)
    low = np.uint64((1 << (61 - bits)) - 1)  # the rest, below the offsets' bits
    sig = xp.full(ng * hashes, _NO_ROW, dtype=np.int64)
    _scatter_min(xp, sig, g * hashes + (h >> np.uint64(64 - bits)).astype(np.int64),
                 ((h >> np.uint64(3)) & low).astype(np.int64))
    sig = sig.reshape(ng, hashes)
    out = sig.copy()
    for t in range(1, hashes):  # the nearest non-empty bin to the right, t bins away
        moved = xp.roll(sig, -t, axis=1)
        take = (out == _NO_ROW) & (moved != _NO_ROW)
        out[take] = moved[take] + (t << (61 - bits))
    return out.T.copy()


def _candidates_minhash(xp: Any, rows: Any, cols: Any, member: Any, ng: int, open_: Any,
                        gsize: Any, maxsize: int, window: int, seed: int,
                        hashes: int, oph: bool = False,
                        pair_words: int = 0) -> tuple[Any, Any, Any]:
    """(a, b, score) of the round's candidate pairs, a < b, from MinHash signatures: for
    each hash the open groups sorted by their signature word (ties in the order of a hash
    of the group), groups at most W apart with equal words paired: at most ng·W·hashes
    pairs, whatever the number of entries (``pair_words``: only the first that many words
    pair, ng·W·pair_words). Score: the share of all the signature's words the two agree
    on (the estimate of their rows' Jaccard similarity)."""
    grp = member[cols]
    keep = open_[grp]
    sig = (_signatures_oph if oph else _signatures)(xp, rows[keep], grp[keep], ng, hashes,
                                                    seed)
    ids = xp.flatnonzero(open_ & (sig[0] != _NO_ROW))  # groups with rows
    tie = _mix(ids.astype(np.uint64) ^ np.uint64(seed + 0x5851F42D4C957F2D))
    keys = []  # a · ng + b, made unique word by word (memory: the distinct pairs)
    for k in range(pair_words or hashes):
        o = _by(xp, sig[k][ids], tie)
        keys.append(xp.unique(_window_pairs(xp, sig[k][ids[o]], ids[o], gsize, maxsize,
                                            window, ng)))
    key = xp.unique(xp.concatenate(keys))
    if key.shape[0] == 0:
        return key, key, xp.zeros(0)
    a, b = key // ng, key % ng
    return a, b, (sig[:, a] == sig[:, b]).mean(axis=0)


@numba.njit(cache=True)
def _shared_rows(gptr: Any, grow: Any, a: Any, b: Any) -> Any:
    """|rows(a) ∩ rows(b)| for each pair, by merging the two groups' sorted row lists (on a
    GPU: a warp a pair)."""
    out = np.zeros(a.shape[0], np.int64)
    for i in range(a.shape[0]):
        p, pe = gptr[a[i]], gptr[a[i] + 1]
        q, qe = gptr[b[i]], gptr[b[i] + 1]
        c = 0
        while p < pe and q < qe:
            if grow[p] == grow[q]:
                c += 1
                p += 1
                q += 1
            elif grow[p] < grow[q]:
                p += 1
            else:
                q += 1
        out[i] = c
    return out


def _offsets(counts: Any) -> np.ndarray:
    """Start offsets (length + 1) of runs of the given lengths."""
    out = np.zeros(counts.shape[0] + 1, np.int64)
    np.cumsum(counts, out=out[1:])
    return out


def _group_rows(xp: Any, rows: Any, cols: Any, member: Any) -> tuple[np.ndarray, np.ndarray]:
    """The distinct (group, row) pairs of the entries, sorted by group then row, on the
    host: (group, row) arrays."""
    span = int(rows.max()) + 1
    key = _host(xp.unique(member[cols] * span + rows))
    return key // span, key % span


@numba.njit(cache=True)
def _bottom_k_jaccard(gptr: Any, gh: Any, a: Any, b: Any, k: int) -> Any:
    """Each pair's Jaccard similarity from the groups' bottom-k sketches (their k smallest
    row hashes, ascending): among the k smallest hashes of the union (all within the two
    sketches), the share in both; exact when the union has at most k rows."""
    out = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        p, pe = gptr[a[i]], gptr[a[i] + 1]
        q, qe = gptr[b[i]], gptr[b[i] + 1]
        u = c = 0
        while u < k and (p < pe or q < qe):
            if q >= qe or (p < pe and gh[p] < gh[q]):
                p += 1
            elif p >= pe or gh[q] < gh[p]:
                q += 1
            else:
                c += 1
                p += 1
                q += 1
            u += 1
        out[i] = c / u if u else 0.0
    return out


def _sketch_jaccard(xp: Any, rows: Any, cols: Any, member: Any, ng: int, a: Any, b: Any,
                    k: int, seed: int) -> tuple[Any, int]:
    """The pairs' similarities from bottom-k sketches of the groups' rows (host: Numba), and
    the sketch entries the merges read (at most 2k a pair, whatever the groups' widths)."""
    grp, row = _group_rows(xp, rows, cols, member)
    h = (_mix(row.astype(np.uint64) ^ np.uint64(seed * 0x9E3779B97F4A7C15 % 2**64))
         >> np.uint64(1)).astype(np.int64)
    o = np.lexsort((h, grp))
    grp, h = grp[o], h[o]
    start = _offsets(np.bincount(grp, minlength=ng))
    keep = np.arange(grp.shape[0]) - start[grp] < k  # each group's k smallest hashes
    gptr = _offsets(np.bincount(grp[keep], minlength=ng))
    ah, bh = _host(a), _host(b)
    width = np.diff(gptr)
    return (xp.asarray(_bottom_k_jaccard(gptr, h[keep], ah, bh, k)),
            int((width[ah] + width[bh]).sum()))


def _exact_jaccard(xp: Any, rows: Any, cols: Any, member: Any, ng: int, a: Any,
                   b: Any, estimate: Any = None, cap: int = 0) -> tuple[Any, int]:
    """The exact Jaccard similarity of the pairs' row sets (host: Numba), and the row-list
    entries the merges read (the work a GPU version would do). With ``cap``, only pairs
    whose two lists hold at most ``cap`` entries together are merged; the others keep
    ``estimate``."""
    grp, row = _group_rows(xp, rows, cols, member)
    gptr = _offsets(np.bincount(grp, minlength=ng))
    ah, bh = _host(a), _host(b)
    width = np.diff(gptr)
    both = width[ah] + width[bh]
    merge = both <= cap if cap else np.ones(ah.shape[0], bool)
    inter = _shared_rows(gptr, row, ah[merge], bh[merge])
    score = np.asarray(_host(estimate), np.float64).copy() if cap else np.zeros(ah.shape[0])
    score[merge] = inter / np.maximum(both[merge] - inter, 1)
    return xp.asarray(score), int(both[merge].sum())


_EMPTY = np.int64(-1)  # a free slot of the hash set


def _hash_set(xp: Any, keys: Any) -> Any:
    """An open-addressing hash set (linear probing, load at most 1/2) of the keys (>= 0),
    built in rounds of array operations: every key not yet placed reads its slot, writes
    itself where the slot is free (of several writers one wins: a GPU's atomicCAS), keeps
    its place if the slot now holds it (a repeat of a key stops there too) and moves on to
    the next slot otherwise."""
    size = 1 << max(4, (2 * int(keys.shape[0])).bit_length())
    table = xp.full(size, _EMPTY, dtype=np.int64)
    mask = np.uint64(size - 1)
    slot = (_mix(keys.astype(np.uint64)) & mask).astype(np.int64)
    while keys.shape[0]:
        free = table[slot] == _EMPTY
        table[slot[free]] = keys[free]
        left = table[slot] != keys
        keys, slot = keys[left], (slot[left] + 1) & (size - 1)
    return table


def _in_set(xp: Any, table: Any, q: Any) -> tuple[Any, int]:
    """Whether each of ``q`` is in the hash set, and the slots read (a thread a key on a
    GPU: its probe sequence)."""
    size = table.shape[0]
    slot = (_mix(q.astype(np.uint64)) & np.uint64(size - 1)).astype(np.int64)
    found = xp.zeros(q.shape[0], dtype=bool)
    todo = xp.arange(q.shape[0])
    reads = 0
    while todo.shape[0]:
        reads += int(todo.shape[0])
        cur = table[slot]
        found[todo[cur == q]] = True
        left = (cur != q) & (cur != _EMPTY)
        todo, q, slot = todo[left], q[left], (slot[left] + 1) & (size - 1)
    return found, reads


def _probe_jaccard(xp: Any, rows: Any, cols: Any, member: Any, ng: int, a: Any, b: Any,
                   est: Any, budget: float, seed: int, sample: int = 0,
                   share: float = 0.5, chunk: int = 1 << 22) -> tuple[Any, Any, Any, int, int]:
    """Exact Jaccard similarities for the candidate pairs by probing, at most ``budget``
    probes per distinct (row, group) entry: a pair costs the rows of its group with fewer
    rows (s; ties: the smaller id); in the order of the estimate ``est`` (capped by the
    ratio of the widths, a bound on the similarity; best first, ties: a hash) the round
    takes its pairs while their costs add up to at most (1 - share) · budget · the distinct
    entries, and every group g its own pairs while they add up to share · budget · g's
    rows (a pair taken by either end is kept: charged to it); the others are dropped, and
    a kept pair (s, l) counts the rows r of s whose entry (r, l) exists. Returns (a, b,
    score) of the kept pairs, the probes (at most budget · the distinct entries, whatever the pairs'
    widths) and the hash set's slots they read (one sort of the pairs by estimate and one
    by group, prefix sums of their costs, then a thread a probe on a GPU: O(pairs +
    budget · m) a round, not the pairs' summed widths). With ``sample`` T, s
    probes only its T rows of the smallest hash when it has more (a pair costs min(rows of
    s, T)), the count scaled by s's rows / T: exact when the smaller group has at most T
    rows, else its share of s's rows in l estimated from T random ones. The entries are
    looked up in a hash set of row · ng + group (_hash_set); the groups' row lists come
    from a sort of the distinct entries here (on a GPU: the members' adjacency lists, an
    entry counted where the hash set's first insert of its key came from it), and a thread
    a pair would walk s's rows, one lookup each."""
    key = xp.unique(rows * ng + member[cols])  # the distinct (row, group), by row
    table = _hash_set(xp, key)
    g = key % ng
    width = xp.bincount(g, minlength=ng)
    r = key // ng
    if sample:  # each group's rows in the order of a hash of the row
        hr = _mix(r.astype(np.uint64) ^ np.uint64(seed * 0x9E3779B97F4A7C15 % 2**64))
        grow = r[_by(xp, g, (hr >> np.uint64(1)).astype(np.int64))]
    else:
        grow = r[xp.argsort(g, kind="stable")]  # each group's rows, ascending
    gptr = xp.asarray(_offsets(_host(width)))
    small = width[b] < width[a]  # a < b: a ties
    s, lg = xp.where(small, b, a), xp.where(small, a, b)
    probes = xp.minimum(width, sample) if sample else width
    cost = probes[s]  # a pair's probes: its shorter list (or its sample)
    tie = _mix((a * ng + b).astype(np.uint64) ^ np.uint64(seed + 0x2545F4914F6CDD1D))
    est = xp.minimum(est, width[s] / xp.maximum(width[lg], 1))  # J <= the widths' ratio
    o = _by(xp, -est, tie)  # the round's best estimates while they fit its share
    keep = xp.zeros(a.shape[0], dtype=bool)
    keep[o] = xp.cumsum(cost[o]) <= (1 - share) * budget * key.shape[0]
    end = xp.concatenate([a, b])  # and each group's best while they fit its share
    o = _by(xp, end, -xp.concatenate([est, est]), xp.concatenate([tie, tie]))
    spent = xp.cumsum(xp.concatenate([cost, cost])[o])  # the probes up to it, inclusive
    first = xp.asarray(_offsets(_host(xp.bincount(end, minlength=ng))))[:-1]
    base = xp.concatenate([xp.zeros(1, dtype=spent.dtype), spent])[first][end[o]]
    ok = xp.zeros(2 * a.shape[0], dtype=bool)
    ok[o] = spent - base <= share * budget * width[end[o]]
    keep |= ok[:a.shape[0]] | ok[a.shape[0]:]  # (charged to an end that took it)
    s, lg = s[keep], lg[keep]
    ws = probes[s]
    cum = _offsets(_host(ws))
    inter = xp.zeros(s.shape[0], dtype=np.int64)
    lo = reads = 0
    while lo < s.shape[0]:  # pairs in chunks of about ``chunk`` probes
        hi = max(lo + 1, int(np.searchsorted(cum, cum[lo] + chunk, "right")) - 1)
        idx = _repeat_ids(xp, ws[lo:hi])
        pos = gptr[s[lo:hi]][idx] + xp.arange(int(cum[hi] - cum[lo])) - \
            xp.asarray(cum[lo:hi] - cum[lo])[idx]
        probe = grow[pos] * ng + lg[lo:hi][idx]
        hit, n_read = _in_set(xp, table, probe)
        inter[lo:hi] = xp.bincount(idx, weights=hit.astype(np.float64), minlength=hi - lo)
        reads += n_read
        lo = hi
    inter = inter * (width[s] / xp.maximum(ws, 1))  # exact where s was probed in full
    a, b = xp.minimum(s, lg), xp.maximum(s, lg)
    return a, b, inter / xp.maximum(width[a] + width[b] - inter, 1), int(cum[-1]), reads


def _scatter_min(xp: Any, out: Any, idx: Any, vals: Any) -> None:
    if xp is np:
        np.minimum.at(out, idx, vals)
    else:
        import cupyx  # noqa: PLC0415

        cupyx.scatter_min(out, idx, vals)


def _match(xp: Any, a: Any, b: Any, sc: Any, ng: int) -> tuple[Any, Any]:
    """The locally-dominant matching of the pairs (a, b): ranked once by score (ties: the
    smaller a, then b), then rounds in which every group takes the best rank among its
    pairs left (a scatter-min) and the pairs that are the best of both ends are matched:
    the pairs the greedy in rank order takes."""
    o = _by(xp, -sc, a, b)
    a, b = a[o], b[o]
    rank = xp.arange(a.shape[0], dtype=np.int64)
    ma, mb = [], []
    taken = xp.zeros(ng, dtype=bool)
    best = xp.empty(ng, dtype=np.int64)
    while a.shape[0]:
        best.fill(a.shape[0] + 2**40)
        _scatter_min(xp, best, a, rank)
        _scatter_min(xp, best, b, rank)
        mutual = (best[a] == rank) & (best[b] == rank)
        ma.append(a[mutual])
        mb.append(b[mutual])
        taken[a[mutual]] = True
        taken[b[mutual]] = True
        alive = ~(taken[a] | taken[b])
        a, b, rank = a[alive], b[alive], rank[alive]
    if not ma:
        return xp.zeros(0, dtype=np.int64), xp.zeros(0, dtype=np.int64)
    return xp.concatenate(ma), xp.concatenate(mb)


@numba.njit(cache=True)
def _pack(gsize: Any, gdeg: Any) -> Any:
    """The first position of every group: groups of 8 first, then the others in the order
    of their highest degree, each into the open block of 8 with the least room it fits
    (first fit), the blocks left partial last. Open blocks are kept in one stack per free
    room (linked through ``nxt``)."""
    ng = gsize.shape[0]
    head = np.full(8, -1, np.int64)  # the open blocks with 1..7 places free
    nxt = np.full(ng, -1, np.int64)
    bin_of = np.full(ng, -1, np.int64)
    off = np.zeros(ng, np.int64)
    fill = np.zeros(ng, np.int64)
    nbins = 0
    for g in np.argsort(-gdeg, kind="mergesort"):
        s = gsize[g]
        if s >= 8:
            continue
        at = -1
        for room in range(s, 8):
            if head[room] >= 0:
                at = head[room]
                head[room] = nxt[at]
                break
        if at < 0:
            at = nbins
            nbins += 1
        bin_of[g], off[g] = at, fill[at]
        fill[at] += s
        if fill[at] < 8:
            nxt[at] = head[8 - fill[at]]
            head[8 - fill[at]] = at
    start = np.full(ng, -1, np.int64)
    pos = 0
    for g in range(ng):  # the full groups' blocks first
        if gsize[g] >= 8:
            start[g] = pos
            pos += gsize[g]
    bin_start = np.zeros(nbins, np.int64)
    for want_full in (True, False):
        for bi in range(nbins):
            if (fill[bi] == 8) == want_full:
                bin_start[bi] = pos
                pos += fill[bi]
    for g in range(ng):
        if gsize[g] < 8:
            start[g] = bin_start[bin_of[g]] + off[g]
    return start


class _Phases:
    """Seconds spent in each named phase, the device synchronised at each boundary (only
    when asked: the syncs cost time of their own)."""

    def __init__(self, sync: Any = None) -> None:
        self.sync, self.secs = sync, {}
        self._t = time.perf_counter()
        self.pairs = 0  # the candidate pairs of the largest round (after their repeats merged)
        self.merged = 0  # the row-list entries the exact scores of the largest round read
        self.slots = 0  # the hash set's slots the probes of the largest round read

    def mark(self, name: str) -> None:
        if self.sync is None:
            return
        self.sync()
        t = time.perf_counter()
        self.secs[name] = self.secs.get(name, 0.0) + t - self._t
        self._t = t


def grouping_order(sptr: Any, sidx: Any, deg: Any, xp: Any, window: int = 16,
                   rounds: int = 4, phases: _Phases | None = None,
                   hashes: int = 0, oph: bool = False, pair_words: int = 0,
                   exact: bool = False, cap: int = 0, sketch: int = 0,
                   probe: float = 0, probe_rows: int = 0,
                   probe_share: float = 0.5) -> np.ndarray:
    """The vertex order (``order[p]`` = the vertex at position p), as a host array, from
    the symmetric pattern (``sptr``, ``sidx``, ``deg``: arrays of ``xp``). ``phases``
    collects the time of the candidates, the matching, the merges and the packing.
    ``hashes``: candidates from MinHash signatures of that many words instead of the
    hashed order of each row (``oph``, ``pair_words``, ``exact``, ``cap``, ``sketch``,
    ``probe``, ``probe_rows``, ``probe_share``: as the options of the same names)."""
    ph = phases or _Phases()
    n = int(deg.shape[0])
    rows = _repeat_ids(xp, xp.diff(sptr).astype(np.int64))
    cols = sidx.astype(np.int64)
    member, ng = xp.arange(n, dtype=np.int64), n
    for maxsize in (2, 4, 8):
        for rnd in range(rounds):
            gsize = xp.bincount(member, minlength=ng)
            if hashes:
                a, b, sc = _candidates_minhash(xp, rows, cols, member, ng, gsize < maxsize,
                                               gsize, maxsize, window, maxsize * 16 + rnd,
                                               hashes, oph, pair_words)
                if probe and a.shape[0]:
                    a, b, sc, work, reads = _probe_jaccard(xp, rows, cols, member, ng, a, b, sc,
                                                    probe, maxsize * 16 + rnd,
                                                    probe_rows, probe_share)
                    ph.merged = max(ph.merged, work)
                    ph.slots = max(ph.slots, reads)
                elif sketch and a.shape[0]:
                    sc, work = _sketch_jaccard(xp, rows, cols, member, ng, a, b, sketch,
                                               maxsize * 16 + rnd)
                    ph.merged = max(ph.merged, work)
                elif exact and a.shape[0]:
                    sc, work = _exact_jaccard(xp, rows, cols, member, ng, a, b, sc, cap)
                    ph.merged = max(ph.merged, work)
            else:
                a, b, sc = _candidates(xp, rows, cols, member, ng, gsize < maxsize, gsize,
                                       maxsize, window, maxsize * 16 + rnd, n)
            ph.pairs = max(ph.pairs, int(a.shape[0]))
            ph.mark("candidates")
            ma, mb = _match(xp, a, b, sc, ng)
            ph.mark("matching")
            if ma.shape[0] == 0:
                continue
            newid = xp.arange(ng, dtype=np.int64)
            newid[mb] = ma
            used = xp.zeros(ng, dtype=np.int64)
            member = newid[member]
            used[member] = 1
            remap = xp.cumsum(used) - 1
            member, ng = remap[member], int(used.sum())
            ph.mark("merges")
    gsize = xp.bincount(member, minlength=ng)
    gdeg = xp.zeros(ng, dtype=np.int64)  # the largest degree of each group, by a sort
    d = deg.astype(np.int64)
    o = _by(xp, member, -d)
    first = xp.ones(n, dtype=bool)
    first[1:] = member[o][1:] != member[o][:-1]
    gdeg[member[o][first]] = d[o][first]
    start = _pack(_host(gsize), _host(gdeg))
    member_h = _host(member)
    order = np.lexsort((np.arange(n), start[member_h]))  # by block position, then by id
    ph.mark("packing")
    return order


def _host(x: Any) -> np.ndarray:
    return x.get() if hasattr(x, "get") else np.asarray(x)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("graphs", nargs="+", help="generator specs or graph files")
    ap.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    ap.add_argument("--window", type=int, default=16)
    ap.add_argument("--rounds", type=int, default=4, help="rounds per group size")
    ap.add_argument("--hashes", type=int, default=0,
                    help="MinHash candidates with signatures of this many words (0: pairs "
                         "from the hashed order of each row)")
    ap.add_argument("--oph", action="store_true",
                    help="the MinHash words by one permutation hashing (one pass)")
    ap.add_argument("--pair-words", type=int, default=0,
                    help="MinHash: pair by the first this many words only (0: all)")
    ap.add_argument("--exact", action="store_true",
                    help="MinHash: score the candidates by their exact Jaccard similarity")
    ap.add_argument("--cap", type=int, default=0,
                    help="--exact: merge only pairs of at most this many row entries together "
                         "(others keep the MinHash estimate; 0: all)")
    ap.add_argument("--sketch", type=int, default=0,
                    help="MinHash: score the candidates from bottom-k sketches of this size "
                         "(exact for small groups; at most 2k reads a pair)")
    ap.add_argument("--probe", type=float, default=0,
                    help="MinHash: exact scores by probing the entries for the best-estimated "
                         "pairs, at most this many probes an entry (the others dropped)")
    ap.add_argument("--probe-rows", type=int, default=0,
                    help="--probe: a group probes at most this many of its rows (the ones "
                         "of the smallest hash; the count scaled up; 0: all)")
    ap.add_argument("--probe-share", type=float, default=0.5,
                    help="--probe: the share of the budget for each group's own best pairs "
                         "(the rest: the round's best; 0: the round's only)")
    ap.add_argument("--jaccard", action="store_true", help="also the shipped greedy (CPU)")
    args = ap.parse_args()
    if args.device == "cuda":
        import cupy as xp  # noqa: PLC0415

        def sync() -> None:
            xp.cuda.Device().synchronize()
    else:
        xp = np

        def sync() -> None:
            return None
    warm = R._Sym(common.load_graph("kron:8")._csr())  # Numba's and CuPy's compilation
    opts = {"hashes": args.hashes, "oph": args.oph, "pair_words": args.pair_words,
            "exact": args.exact, "cap": args.cap, "sketch": args.sketch,
            "probe": args.probe, "probe_rows": args.probe_rows,
            "probe_share": args.probe_share}
    grouping_order(*(xp.asarray(x) for x in (warm.sptr, warm.sidx, warm.deg)), xp, **opts)
    print("| graph | n | identity slices | jaccard | grouping | s | s by phase | pairs / n | "
          "merged / m | slots / m |")
    print("|---|--:|--:|--:|--:|--:|---|--:|--:|--:|")
    for spec in args.graphs:
        A = common.load_graph(spec)  # noqa: N806
        csr = A._csr()
        sym = R._Sym(csr)
        sptr, sidx, deg = (xp.asarray(x) for x in (sym.sptr, sym.sidx, sym.deg))
        sync()
        t = time.perf_counter()
        order = grouping_order(sptr, sidx, deg, xp, args.window, args.rounds, **opts)
        sync()
        secs = time.perf_counter() - t
        phases = _Phases(sync)  # a second run for the split (synchronised at each phase)
        grouping_order(sptr, sidx, deg, xp, args.window, args.rounds, phases, **opts)
        split = ", ".join(f"{k} {v:.2f}" for k, v in phases.secs.items())
        base = R.count_slices(csr)
        ratio = R.count_slices(R.permute_csr(csr, order)) / base
        jac = "-"
        if args.jaccard:
            perm, _ = R.reorder_permutation(csr, "jaccard")
            jac = f"{R.count_slices(R.permute_csr(csr, perm)) / base:.3f}"
        print(f"| {common.graph_label(spec)} | {sym.n} | {base} | {jac} | {ratio:.3f} | "
              f"{secs:.2f} | {split} | {phases.pairs / sym.n:.1f} | "
              f"{phases.merged / max(int(sym.sidx.shape[0]), 1):.1f} | "
              f"{phases.slots / max(int(sym.sidx.shape[0]), 1):.1f} |", flush=True)


if __name__ == "__main__":
    main()
