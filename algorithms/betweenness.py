"""Betweenness centrality: Brandes' algorithm with batched BFS, as masked SpGEMM.

Sources: U. Brandes, "A faster algorithm for betweenness centrality", J. Math. Sociol. 2001;
the batched linear-algebra form of A. Buluç and J. Gilbert (Combinatorial BLAS, 2011) as
written in LAGraph's ``LAGr_Betweenness`` (S. Kolodziej, T. Davis). For a batch of k
sources, row s of the k × n matrices below belongs to source s:

forward sweep (one BFS per row, all rows at once; Σ = path counts σ):
    F = e_s (σ = 1 at the source);  Σ = F
    repeat:  F⟨¬Σ.S, replace⟩ = F +.first A;  S_d = F;  Σ⟨F.S⟩ = F      until F is empty

backward sweep (dependencies δ; B = 1 + δ on every reached vertex):
    for d = D … 2:
        W⟨S_d.S⟩     = B ./ Σ               ((1 + δ(w)) / σ(w) on level d)
        W⟨S_{d-1}.S⟩ = W +.first Aᵀ         (summed over the successors of level d − 1)
        B⟨W.S⟩       = 1 + W .* Σ           (σ(v) · Σ_w (1 + δ(w)) / σ(w); levels are
                                             disjoint, so this is B += W .* Σ)
    centrality += Σ_s (B − 1)               (column sums; the source's own δ stays 0)

LAGraph keeps B dense; here B lives only on the reached (source, vertex) pairs. Sources
are processed in batches of ``batch_size`` rows. The result is rescaled exactly as
``networkx.betweenness_centrality`` (endpoints excluded) does, including its rescaling of
a source sample of k < n vertices; sampling uses ``random.Random(seed).sample(range(n), k)``,
the same draw NetworkX makes for a graph whose nodes are 0 … n − 1 in order, so
``betweenness_centrality(A, samples=k, seed=s)`` equals
``networkx.betweenness_centrality(G, k=k, seed=s)`` on such a graph.
"""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np

from gblas import BOOL, FP64, Matrix, Vector, binary, monoid, semiring, unary
from gblas.exceptions import IndexOutOfBound, InvalidValue

from .bfs import check_graph


def _choose_sources(n: int, samples: Any, sources: Any, seed: Any) -> np.ndarray | None:
    """The source vertices, or None for all of them (exact centrality)."""
    if samples is not None and sources is not None:
        raise InvalidValue("give either samples= (random sources) or sources=, not both")
    if sources is not None:
        try:
            src = np.asarray(sources)
        except (TypeError, ValueError):
            raise InvalidValue(f"sources must be a list of vertex ids, got {sources!r}") \
                from None
        if src.ndim != 1 or (src.size and src.dtype.kind not in "iu"):
            raise InvalidValue(f"sources must be a 1-D list of integer vertex ids, got "
                               f"{sources!r}")
        src = src.astype(np.int64)
        if src.size == 0:
            raise InvalidValue("sources is empty; give at least one source vertex")
        bad = (src < 0) | (src >= n)
        if bad.any():
            raise IndexOutOfBound(f"source {int(src[bad][0])} is out of range for a graph of "
                                  f"{n} vertices")
        if np.unique(src).size != src.size:
            raise InvalidValue("sources has duplicate vertices; give each source once")
        return None if src.size == n else src
    if samples is None:
        return None
    if isinstance(samples, bool) or not isinstance(samples, (int, np.integer)):
        raise InvalidValue(f"samples must be a positive integer, got {samples!r}")
    k = int(samples)
    if k < 1 or k > n:
        raise InvalidValue(f"samples must be between 1 and the number of vertices ({n}), "
                           f"got {k}")
    if k == n:
        return None
    return np.asarray(random.Random(seed).sample(range(n), k), dtype=np.int64)


def _dependencies(A: Matrix, AT: Any, src: np.ndarray,  # noqa: N803
                  endpoints: bool = False, undirected: bool = False) -> Vector:
    """Σ over the sources ``src`` of the Brandes dependencies δ_s(v) (FP64, may be sparse).
    ``endpoints``: count the path ends too (NetworkX's ``endpoints=True``): every vertex
    t ≠ s that s reaches gets δ_s(t) + 1, and s gets the number of other vertices it
    reaches. ``undirected``: A is symmetric (an edge joins levels d and d ± 1 or d only),
    so the forward mask needs the last two levels, not every visited pair."""
    k, n = src.size, A.nrows
    dev = A.device
    rows = np.arange(k, dtype=np.int64)
    # levels[d]: the path counts σ of the pairs (source, vertex) at distance d; each step
    # works on one or two levels, never on all the pairs reached so far (a road graph has
    # a thousand levels: Σ grown and merged at every one of them was O(levels · reached))
    levels = [Matrix.from_coo(rows, src, 1.0, FP64, nrows=k, ncols=n, device=dev)]
    visited = None if undirected else levels[0].dup()
    seen = levels[0]
    while True:
        frontier = levels[-1].mxm(A, semiring.plus_first).new(
            mask=~(seen if undirected else visited).S)
        if frontier.nvals == 0:
            break
        if undirected:  # the next step's neighbours not in levels d − 1 or d are new
            seen = levels[-1].ewise_add(frontier, binary.first).new()
        else:
            visited(frontier.S) << frontier
        levels.append(frontier)
    # backward: W_d = (1 + δ) / σ on level d, pulled back over Aᵀ onto level d − 1, where
    # δ = σ · Σ_w W (levels are disjoint: each level's δ is made once, from the next)
    total = Vector(FP64, n, device=dev)
    delta = None
    for d in range(len(levels) - 1, 0, -1):
        level = levels[d]
        b = level.apply(unary.one[FP64]).new()  # 1 + δ on level d
        if delta is not None:
            b(binary.plus) << delta
        w = b.ewise_mult(level, binary.truediv).new()
        w = w.mxm(AT, semiring.plus_first).new(mask=levels[d - 1].S)
        delta = w.ewise_mult(levels[d - 1], binary.times).new()  # δ on level d − 1
        if d > 1:  # the sources' own δ (level 0) is not counted
            total(binary.plus) << delta.reduce_columnwise(monoid.plus)
    if not endpoints:
        return total
    # every reached t ≠ s counts δ_s(t) + 1; the source s counts the others it reaches
    reached = Vector(FP64, k, device=dev)
    reached << 0.0
    for level in levels[1:]:
        ones = level.apply(unary.one[FP64]).new()
        total(binary.plus) << ones.reduce_columnwise(monoid.plus)
        reached(binary.plus) << ones.reduce_rowwise(monoid.plus)
    total(binary.plus) << Vector.from_coo(src, reached.to_coo(indices=False)[1], FP64,
                                          size=n, device=dev)
    return total


def betweenness_centrality(A: Matrix, *, samples: int | None = None,  # noqa: N803
                           sources: Any = None, seed: Any = 0, normalized: bool = True,
                           directed: bool | None = None, endpoints: bool = False,
                           batch_size: int = 64) -> Vector:
    """Shortest-path betweenness centrality of every vertex (FP64, all present).

    Unweighted (A's structure; edge ``u → v`` is ``A[u, v]``); path end points excluded
    unless ``endpoints=True``, as ``networkx.betweenness_centrality(G,
    normalized=normalized, endpoints=endpoints)``.

    - ``sources``: the source vertices to accumulate over (exact when they are all
      vertices); ``samples=k``: k distinct random sources drawn with ``seed``. A strict
      subset of k sources is an estimate, rescaled as NetworkX rescales its k-sample
      (by n/k, sources by the k − 1 other sources: NaN for the source when k = 1).
    - ``normalized``: divide by (n − 1)(n − 2), the number of ordered pairs that can pass
      through a vertex; otherwise an undirected graph's values count each unordered pair
      once (halved).
    - ``directed``: ``None`` reads a structurally symmetric A as undirected and any other A
      as directed; ``False`` reads A as undirected (the pattern of A ∪ Aᵀ); ``True`` reads
      A as directed even if it is symmetric (like a NetworkX DiGraph).
    - ``endpoints``: count the source and the target of every path as on it; the number
      of pairs is then n(n − 1), and a sample is rescaled by n/k for every vertex.
    - ``batch_size``: sources per batched BFS (rows of the frontier matrix).
    """
    check_graph(A)
    if endpoints not in (True, False):
        raise InvalidValue(f"endpoints must be True or False, got {endpoints!r}")
    if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) \
            or batch_size < 1:
        raise InvalidValue(f"batch_size must be a positive integer, got {batch_size!r}")
    if directed not in (None, True, False):
        raise InvalidValue(f"directed must be None, True or False, got {directed!r}")
    n = A.nrows
    dev = A.device
    chosen = _choose_sources(n, samples, sources, seed)
    if directed is False:
        P = A.apply(unary.one[BOOL]).new()  # noqa: N806
        G = P.ewise_add(P.T, binary.lor).new()  # noqa: N806
        is_directed = False
    else:
        G = A  # noqa: N806
        is_directed = True if directed else not A.is_symmetric()
    GT = G.T  # noqa: N806 - a view on the cached transpose
    src_all = np.arange(n, dtype=np.int64) if chosen is None else chosen

    centrality = Vector(FP64, n, device=dev)
    if n:
        centrality[:] << 0.0
    for start in range(0, src_all.size, int(batch_size)):
        batch = src_all[start:start + int(batch_size)]
        centrality(accum=binary.plus) << _dependencies(G, GT, batch, bool(endpoints),
                                                       undirected=not is_directed)

    # rescale as networkx: N pairs (s, t) per vertex v, N = n − 1 without the end points
    big_n = n if endpoints else n - 1
    if big_n < 2:
        return centrality
    correction = 1.0 if is_directed else 2.0
    if chosen is None or endpoints:
        k_src = big_n if chosen is None else chosen.size
        scale = 1.0 / (k_src * (big_n - 1)) if normalized else big_n / (k_src * correction)
        if scale != 1.0:
            centrality << centrality.apply(binary.times, right=scale)
        return centrality
    k = chosen.size
    if normalized:
        scale_source = 1.0 / ((k - 1) * (big_n - 1)) if k > 1 else math.nan
        scale_other = 1.0 / (k * (big_n - 1))
    else:
        scale_source = big_n / ((k - 1) * correction) if k > 1 else math.nan
        scale_other = big_n / (k * correction)
    is_source = Vector.from_coo(chosen, True, BOOL, size=n, device=dev)
    centrality(~is_source.S) << centrality.apply(binary.times, right=scale_other)
    centrality(is_source.S) << centrality.apply(binary.times, right=scale_source)
    return centrality


__all__ = ["betweenness_centrality"]
