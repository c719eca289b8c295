"""Breadth-first search on the public gblas API: direction-optimising push-pull.

Sources: LAGraph's ``LG_BreadthFirstSearch_SSGrB`` (Davis et al.; switch rule with
α = 8, β₁ = 8, β₂ = 512), GraphBLAST push-pull with masking and operand reuse (Yang, Buluç,
Owens, ICPP'18), Beamer's direction-optimising BFS (GAP). The pull step passes the visited
vector itself as the operand (operand reuse): an unvisited vertex's visited in-neighbours
all sit on the previous level, so pulling from ``visited`` equals pulling from the frontier
and one bitmap serves as operand and mask.
"""

from __future__ import annotations

from typing import Any

from gblas import (
    BOOL,
    INT64,
    Descriptor,
    Matrix,
    Vector,
    binary,
    config,
    monoid,
    semiring,
)
from gblas.exceptions import DimensionMismatch, IndexOutOfBound, InvalidObject, InvalidValue


def check_graph(A: Any, source: Any = None) -> int:  # noqa: N803
    """Validate ``A`` (square Matrix) and ``source``; returns the source as an int."""
    if not isinstance(A, Matrix):
        raise InvalidObject(f"expected a gblas.Matrix adjacency matrix, got {type(A).__name__}")
    if A.nrows != A.ncols:
        raise DimensionMismatch(f"a graph's adjacency matrix must be square, got {A.shape}")
    if source is None:
        return -1
    try:
        s = int(source)
    except (TypeError, ValueError):
        raise InvalidValue(f"source must be a vertex id, got {source!r}") from None
    if s < 0 or s >= A.nrows:
        raise IndexOutOfBound(f"source {s} is out of range for a graph of {A.nrows} vertices")
    return s


def out_degree(A: Matrix) -> Vector:  # noqa: N803
    """Number of stored entries per row (INT64): A's cached property (computed once per
    matrix, as LAGraph caches ``G->out_degree``)."""
    return A.out_degree()


def bfs(A: Matrix, source: int, *, parents: bool = False, direction: str = "auto",  # noqa: N803
        alpha: float | None = None, beta1: float | None = None, beta2: float | None = None,
        stats: dict[str, Any] | None = None) -> Vector | tuple[Vector, Vector]:
    """Levels (INT64; unreachable vertices absent) of a BFS from ``source``.

    ``parents=True`` also returns the BFS tree (parent of the source is itself).
    ``direction``: ``"auto"`` (push-pull by LAGraph's rule), ``"push"`` or ``"pull"``.
    Directed graphs push along A's rows and pull along Aᵀ's. ``stats`` (a dict) receives
    the number of levels, the direction of each level and the kernels that ran.
    ``alpha``, ``beta1``, ``beta2`` default to the config keys ``bfs_alpha`` (8),
    ``bfs_beta1`` (8) and ``bfs_beta2`` (512).
    """
    src = check_graph(A, source)
    alpha = config.get("bfs_alpha") if alpha is None else alpha
    beta1 = config.get("bfs_beta1") if beta1 is None else beta1
    beta2 = config.get("bfs_beta2") if beta2 is None else beta2
    if direction not in ("auto", "push", "pull"):
        raise InvalidValue(f"direction must be 'auto', 'push' or 'pull', got {direction!r}")
    method = config.get("bfs_gpu")  # "fused" / "levels": the whole search in gblas.cuda
    if A.device != "cpu" and method != "ops":
        from gblas import cuda  # noqa: PLC0415

        kw = dict(parents=parents, direction=direction, alpha=alpha, beta1=beta1, beta2=beta2,
                  method=method)
        if cuda.bfs_applies(A, **kw):
            lv, pi, info = cuda.bfs(A, src, **kw)
            if stats is not None:
                stats.update(levels=info["levels"], directions=info["directions"],
                             kernels=[info["kernel"]], reached=info["reached"],
                             host_syncs=info["host_syncs"])
            return (lv, pi) if parents else lv
    n = A.nrows
    dev = A.device
    AT = A.T  # noqa: N806 - a view: pull reads A's cached transpose
    push_desc, pull_desc = Descriptor(direction="push"), Descriptor(direction="pull")

    levels = Vector(INT64, n, device=dev)
    levels[src] << 0
    if parents:
        pi = Vector(INT64, n, device=dev)
        pi[src] << src
        q = Vector(INT64, n, device=dev)
        q[src] << src
        sr, visited = semiring.any_secondi, pi
    else:
        q = Vector(BOOL, n, device=dev)
        q[src] << True
        sr, visited = semiring.any_pair, levels

    push_pull = direction == "auto"
    do_push = direction != "pull"
    degree = out_degree(A) if push_pull else None
    w = Vector(INT64, n, device=dev) if push_pull else None
    n_over_beta1, n_over_beta2 = n / beta1, n / beta2
    edges_unexplored = A.nvals
    any_pull = False
    nq, last_nq = 1, 0
    directions: list[str] = []
    kernels: set[str] = set()
    k, nvisited = 1, 1
    while nvisited < n:
        if push_pull:
            if do_push:
                growing = nq > last_nq
                if edges_unexplored < n:
                    push_pull = False  # little is left: stay push
                    switch = False
                elif any_pull:
                    switch = growing and nq > n_over_beta1
                else:
                    # edges leaving the frontier: the degrees at q's entries
                    w << q.ewise_mult(degree, binary.second)
                    frontier_edges = w.reduce(monoid.plus).new().value or 0
                    edges_unexplored -= frontier_edges
                    switch = growing and frontier_edges > edges_unexplored / alpha
                do_push = not switch
            elif nq < last_nq and nq <= n_over_beta2:
                do_push = True
            any_pull = any_pull or not do_push
        if do_push:
            q(~visited.S, replace=True, desc=push_desc) << q.vxm(A, sr)
            desc = push_desc
        else:
            q(~visited.S, replace=True, desc=pull_desc) << AT.mxv(visited, sr)
            desc = pull_desc
        directions.append(desc.last_direction or "")
        kernels.add(desc.last_kernel or "")
        last_nq, nq = nq, q.nvals
        if nq == 0:
            break
        if parents:
            pi(q.S) << q
        levels(q.S) << k
        nvisited += nq
        k += 1
    if stats is not None:
        stats.update(levels=k, directions=directions, kernels=sorted(kernels),
                     reached=levels.nvals)
    return (levels, pi) if parents else levels
