"""Single-source shortest paths: frontier-based Bellman-Ford over the (min, +) semiring.

Sources: Bellman (1958) / Ford (1956); the GraphBLAS formulation is LAGraph's
``LAGraph_BF_basic`` / ``LAGraph_BF_full`` (Davis et al.), here in its frontier form as
in LAGraph's ``LAGr_SingleSourceShortestPath`` driver: each round relaxes only the
out-edges of the vertices whose distance improved in the previous round,

    f = f min.+ A                       (candidate distances through changed vertices)
    s = f ≥ d                           (true where a candidate does not improve d)
    f⟨¬s.V⟩ = f, replace                (keep the candidates that improve d)
    d⟨f.S⟩ = f

and stops when no distance changes. Without a negative cycle every shortest path has at
most n − 1 edges, so a round n that still improves a distance proves that a negative
cycle is reachable from the source (Bellman-Ford's classical test).
"""

from __future__ import annotations

from gblas import BOOL, FP64, Matrix, Vector, binary, semiring
from gblas.exceptions import InvalidValue

from .bfs import check_graph


def sssp(A: Matrix, source: int, *, max_iters: int | None = None) -> Vector:  # noqa: N803
    """Shortest-path distances (FP64) from ``source``; unreachable vertices are absent.

    Edge weights are A's values cast to FP64 (a stored zero is an edge of weight 0); a
    BOOL matrix is an unweighted graph: every stored entry, even False, has weight 1.
    Negative weights are allowed; a negative cycle reachable from ``source`` raises
    :class:`~gblas.exceptions.InvalidValue`.

    ``max_iters`` caps the number of relaxation rounds (paths of at most ``max_iters``
    edges); when the cap stops the iteration early, the distances are upper bounds and no
    negative-cycle check is made. ``None`` iterates until nothing changes.
    """
    src = check_graph(A, source)
    if max_iters is not None:
        max_iters = _count(max_iters, "max_iters")
    n = A.nrows
    dev = A.device
    # an unweighted graph (BOOL: every stored entry is an edge of weight 1) relaxes with
    # min.first and adds 1 after the product: A itself, its cached transpose included, is
    # read (a weighted copy would be a new matrix, and a new transpose, every call)
    unweighted = A.dtype == BOOL
    W = A if unweighted or A.dtype == FP64 else A.dup(FP64)  # noqa: N806 - edge weights
    relax = semiring.min_first if unweighted else semiring.min_plus

    dist = Vector(FP64, n, device=dev)
    dist[src] << 0.0
    frontier = dist.dup()  # the vertices whose distance changed in the last round
    stale = Vector(BOOL, n, device=dev)
    rounds = 0
    while frontier.nvals and (max_iters is None or rounds < max_iters):
        if rounds == n:
            raise InvalidValue(
                f"a negative cycle is reachable from source {src}: distances still improve "
                f"after {n} rounds of Bellman-Ford; shortest paths are undefined"
            )
        rounds += 1
        frontier << frontier.vxm(W, relax)
        if unweighted:
            frontier << frontier.apply(binary.plus, right=1.0)
        # true where a candidate does not improve a known distance (cand ≥ dist)
        stale << frontier.ewise_mult(dist, binary.ge)
        frontier(~stale.V, replace=True) << frontier
        dist(frontier.S) << frontier
    return dist


def _count(x: object, what: str) -> int:
    """``x`` as a non-negative int, else InvalidValue."""
    try:
        ok = not isinstance(x, bool) and int(x) == x and int(x) >= 0  # type: ignore[call-overload]
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise InvalidValue(f"{what} must be a non-negative integer, got {x!r}")
    return int(x)  # type: ignore[call-overload]


__all__ = ["sssp"]
