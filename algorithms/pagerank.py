"""PageRank by power iteration over the (+, ×) semiring.

Sources: L. Page, S. Brin, R. Motwani, T. Winograd, "The PageRank citation ranking:
bringing order to the Web" (1999); the GraphBLAS formulation follows LAGraph's
``LAGr_PageRank`` (Davis et al.; dangling vertices handled as in ``LAGr_PageRankGX``, the
variant that matches the Graphalytics/NetworkX definition). With ``d`` the damping factor
and ``outdeg`` the out-degree of every vertex, one iteration is

    w    = d · r / outdeg                     (non-dangling vertices only)
    r'   = wᵀ +.× A  +  (d · Σ_dangling r + 1 − d) / n

i.e. a dangling vertex (no out-edge) spreads its rank uniformly over all vertices, as
``networkx.pagerank`` does. The iteration stops when the L1 change ``Σ |r' − r|`` drops
below ``n · tol`` (NetworkX's test), or after ``max_iters`` iterations.

What does not change between iterations is computed once, as LAGraph does: ``d / outdeg``
(the matrix's cached out-degree for the structure; 0 on dangling vertices, so that
``w = r .* scale`` is a full vector), and the dangling vertices as a vector ``sink`` of
``d / n`` so that their share is one inner product ``r ⋅ sink``. Unweighted,
the product is ``w plus.first A``: A's values are never read and never copied. One
iteration is an element-wise product, the vxm, two scalar accumulations, and the L1
change (on a GPU: kernels only, and the one read of the change, after which the host has
only the product to issue).

NetworkX's options are Vectors here: a ``personalization`` p replaces the uniform jump
``(1 − d)/n`` by ``(1 − d)·p``, and dangling vertices then spread their rank by p (or by a
``dangling`` distribution) instead of uniformly, ``r' += d·(Σ_dangling r)·p``; ``nstart``
replaces the uniform start.
"""

from __future__ import annotations

import math

import numpy as np

from gblas import FP64, Matrix, Vector, binary, monoid, semiring, unary
from gblas.exceptions import DeviceMismatch, DimensionMismatch, InvalidObject, InvalidValue

from .bfs import check_graph


def pagerank(A: Matrix, *, damping: float = 0.85, tol: float = 1e-4,  # noqa: N803
             max_iters: int = 100, weighted: bool = False,
             personalization: Vector | None = None, nstart: Vector | None = None,
             dangling: Vector | None = None,
             stats: dict[str, object] | None = None) -> Vector:
    """PageRank of every vertex (FP64, sums to 1) of the directed graph ``A``.

    Edge ``u → v`` is ``A[u, v]``; an undirected graph is a symmetric ``A``. By default the
    structure of ``A`` is used (every edge has weight 1, like an unweighted NetworkX graph);
    ``weighted=True`` uses A's values as edge weights (they must be non-negative), like
    ``networkx.pagerank(G, weight="weight")``. Returns the last iterate when ``max_iters``
    is reached before convergence (NetworkX raises instead); ``stats`` (a dict) receives
    ``iterations``, ``error`` and ``converged``.

    Optional Vectors of size n (absent entries are 0; each is divided by its sum, which must
    not be 0), as ``networkx.pagerank``'s dicts of the same names:

    - ``personalization``: where a random jump lands (default uniform);
    - ``nstart``: the starting ranks (default uniform);
    - ``dangling``: where the rank of a vertex without out-edges goes (default
      ``personalization``, or uniform).
    """
    check_graph(A)
    try:
        damping = float(damping)
        tol = float(tol)
    except (TypeError, ValueError):
        raise InvalidValue(f"damping and tol must be numbers, got {damping!r}, {tol!r}") \
            from None
    if not 0.0 <= damping <= 1.0:
        raise InvalidValue(f"damping must be in [0, 1], got {damping}")
    if not (tol > 0.0 and math.isfinite(tol)):
        raise InvalidValue(f"tol must be a positive finite number, got {tol}")
    if isinstance(max_iters, bool) or not isinstance(max_iters, (int, np.integer)) \
            or max_iters < 1:
        raise InvalidValue(f"max_iters must be a positive integer, got {max_iters!r}")
    max_iters = int(max_iters)
    n = A.nrows
    dev = A.device
    jump = _distribution(personalization, "personalization", n, dev)
    start = _distribution(nstart, "nstart", n, dev)
    spread = _distribution(dangling, "dangling", n, dev)
    if spread is None:
        spread = jump  # NetworkX: dangling vertices jump as the random surfer does
    rank = Vector(FP64, n, device=dev)
    if n == 0:
        return rank
    if weighted:
        W = A if A.dtype == FP64 else A.dup(FP64)  # noqa: N806
        low = W.reduce_scalar(monoid.min).new().value
        if low is not None and low < 0:
            raise InvalidValue("weighted PageRank needs non-negative edge weights")
        outw = W.reduce_rowwise(monoid.plus).new().select("!=", 0.0).new()
        sr = semiring.plus_times
    else:
        # the structure: every edge has weight 1, so w ⊕.⊗ A with plus_first reads only w
        # (no weighted copy of A), and the out-degrees are A's cached property
        W, outw, sr = A, A.out_degree(), semiring.plus_first  # noqa: N806
    # d / out-weight on the vertices that have one, 0 on the dangling ones: w = r .* scale
    # is then full, and the product reads no presence bits (a 0 adds nothing). Built as
    # 0 plus-accumulated with d / out-weight, so that its fullness is known without
    # counting (on a GPU the count stays on the device)
    scale = Vector(FP64, n, device=dev)
    scale << 0.0
    scale(binary.plus) << outw.apply(binary.truediv, left=damping)
    # the random jump: the scalar (1 − d)/n everywhere, or (1 − d)·p for a personalization p
    teleport: float | Vector = (1.0 - damping) / n
    if jump is not None:
        teleport = jump.apply(binary.times, right=1.0 - damping).new()
    sink = None
    if outw.nvals < n:
        # uniform: a dangling vertex spreads d·r/n to every vertex: Σ r(sinks)·d/n is r ⋅ sink;
        # else d·r to the distribution ``spread``: (r ⋅ sink) · spread with sink = d there
        sink = Vector(FP64, n, device=dev)
        sink(~outw.S) << (damping / n if spread is None else damping)

    if start is None:
        rank << 1.0 / n
    else:
        rank << start
    prev = Vector(FP64, n, device=dev)
    w = Vector(FP64, n, device=dev)
    err = math.inf
    it = 0
    w << rank.ewise_mult(scale, binary.times)
    while it < max_iters:
        it += 1
        rank, prev = prev, rank
        rank << w.vxm(W, sr)
        rank(binary.plus) << teleport
        if sink is not None:
            mass = prev.inner(sink, semiring.plus_times).new()
            if spread is None:
                rank(binary.plus) << mass
            else:
                rank(binary.plus) << spread.apply(binary.times, right=mass.value or 0.0)
        # the next iteration's w, issued before the read of the change below: on a GPU the
        # host then has only the product to issue after the read (one element-wise pass
        # too many when this was the last iteration)
        w << rank.ewise_mult(scale, binary.times)
        # the L1 change Σ |prev − rank|, in prev (its values are not needed any more)
        prev(binary.minus) << rank
        prev << prev.apply(unary.abs)
        err = prev.reduce(monoid.plus).new().value or 0.0
        if err < n * tol:
            break
    if stats is not None:
        stats.update(iterations=it, error=err, converged=err < n * tol)
    return rank


def _distribution(x: Vector | None, what: str, n: int, dev: str) -> Vector | None:
    """``x`` divided by its sum, as a full FP64 Vector on ``dev`` (absent entries 0)."""
    if x is None:
        return None
    if not isinstance(x, Vector):
        raise InvalidObject(f"{what} must be a gblas.Vector of size {n}, got "
                            f"{type(x).__name__}")
    if x.size != n:
        raise DimensionMismatch(f"{what} has size {x.size} but the graph has {n} vertices; "
                                "they must agree")
    if x.device != dev:
        raise DeviceMismatch(f"{what} is on {x.device} but the graph is on {dev}; move one "
                             "with .to()")
    xf = x if x.dtype == FP64 else x.dup(FP64)  # integer division would truncate
    total = xf.reduce(monoid.plus).new().value or 0.0
    if total == 0.0 or not math.isfinite(total):
        raise InvalidValue(f"{what} must have a finite, nonzero sum, got {total}")
    out = Vector(FP64, n, device=dev)
    out << 0.0
    out(binary.plus) << xf.apply(binary.truediv, right=total)
    return out


__all__ = ["pagerank"]
