"""Breadth-first search on the public gblas API: direction-optimising push-pull.

Sources: LAGraph's ``LG_BreadthFirstSearch_SSGrB`` (Davis et al.; switch rule with
α = 8, β₁ = 8, β₂ = 512), GraphBLAST push-pull with masking and operand reuse (Yang, Buluç,
Owens, ICPP'18), Beamer's direction-optimising BFS (GAP). The pull step passes the visited
vector itself as the operand (operand reuse): an unvisited vertex's visited in-neighbours
all sit on the previous level, so pulling from ``visited`` equals pulling from the frontier
and one bitmap serves as operand and mask.

On a CPU matrix the search runs by default as one call into Numba code instead
(``gblas.backend.bfs_fused``: Beamer's direction-optimising BFS as GAPBS writes it, with the
same LAGraph rule, levels, parents and directions); the config key ``bfs_cpu = "ops"`` runs
the level loop below, the GraphBLAS idiom and the reference the fused path is tested against.
"""

from __future__ import annotations

import numbers
from typing import Any

from gblas import (
    BOOL,
    INT64,
    Descriptor,
    Matrix,
    Vector,
    config,
    semiring,
)
from gblas.backend.bfs_rule import direction_rule, rule_reads_scout
from gblas.exceptions import DimensionMismatch, IndexOutOfBound, InvalidObject, InvalidValue


def check_graph(A: Any, source: Any = None) -> int:  # noqa: N803
    """Validate ``A`` (square Matrix) and ``source``; returns the source as an int."""
    # a distributed matrix (gblas.distributed.DistMatrix) has the API the algorithms use
    if not isinstance(A, Matrix) and not getattr(getattr(A, "device", None), "distributed",
                                                 False):
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


def pull_ready(A: Any) -> bool:  # noqa: N803
    """Whether a search of ``A`` with ``direction="auto"`` may pull: A is not a CSR matrix
    on the CPU (a GPU builds a transpose in a few sorts), or it is known to be structurally
    symmetric (A is its own transpose), or its transpose is cached, or it was searched
    before (the transpose is then built and cached).

    LAGraph's BFS pushes at every level when the graph has no cached ``G->AT`` (and is not
    known symmetric): the transpose costs more than a push-only search (kron:18 from a SciPy
    matrix: 287 ms for Aᵀ, ~70 ms for the whole push-only search, SciPy's
    ``breadth_first_order`` ~80-110 ms). gblas builds it from a matrix's second search on,
    so a graph searched once is searched at SciPy's speed and one searched often pays for
    Aᵀ once. The levels and parents are the same either way; the directions differ."""
    if not isinstance(A, Matrix) or A.format != "csr" or A.device != "cpu":
        return True
    props = A._props
    if props.get("symmetric_True") or "csr_T" in A._reps:
        return True
    searched = props.get("bfs_searched", False)
    props["bfs_searched"] = True
    return searched


def fused_cpu_applies(A: Matrix, parents: bool, *thresholds: Any) -> bool:  # noqa: N803
    """Whether :func:`bfs` runs the fused CPU search on ``A`` (a CPU matrix): the config key
    ``bfs_cpu`` is ``"fused"``, the thresholds are positive real numbers (anything else
    takes the level loop, which fails or behaves on them as it always has), and ``A`` is not
    a BVSS matrix searched for levels only (that search runs the BVSS pull kernel, the reason
    to store A as BVSS; with parents the level loop would read CSR anyway)."""
    if config.get("bfs_cpu") != "fused":
        return False
    for t in thresholds:
        if isinstance(t, bool) or not isinstance(t, numbers.Real) or not t > 0:
            return False
    return parents or not A.format.startswith("bvss")


def fused_cpu_bfs(A: Matrix, source: int, *, parents: bool, direction: str,  # noqa: N803
                  alpha: float, beta1: float, beta2: float
                  ) -> tuple[Vector, Vector | None, dict[str, Any]]:
    """The whole search in one call into Numba code (``gblas.backend.bfs_fused``): the same
    levels, parents (smallest-index vertex one level up) and directions as the level loop.
    Reads A's CSR (any format converts to it, cached) and, unless it only pushes, the cached
    CSR of Aᵀ, or A's own when A is known to be structurally symmetric. The result Vectors
    wrap the kernel's arrays as bitmaps (sparse or full when the density says so)."""
    from gblas.backend.bfs_fused import KERNEL_NAME, bfs_csr  # noqa: PLC0415
    from gblas.formats.vector import VecData  # noqa: PLC0415
    from gblas.ops.plan import record  # noqa: PLC0415 - gb.last_plan() names the search

    csr = A._csr()
    if direction == "push" or A._props.get("symmetric_True"):
        csr_t = csr  # never read, or A = Aᵀ in structure (cached property): pull reads A
    else:
        csr_t = A._csr_T()  # cached on A, as the level loop's A.T view builds it
    # 32-bit column ids from a matrix's second search on (a copy kept on its CSR, as the
    # GPU pull keeps one): a graph searched once pays no copy
    ind = csr.indices32(min_uses=2)
    ind_t = ind if csr_t is csr else csr_t.indices32(min_uses=2)
    if ind is None or ind_t is None:
        ind, ind_t = csr.indices, csr_t.indices
    bits, lv, pi, info = bfs_csr(csr.indptr, ind, csr_t.indptr, ind_t, source,
                                 parents=parents, direction=direction, alpha=alpha,
                                 beta1=beta1, beta2=beta2)
    n, reached = A.nrows, info["reached"]
    levels = Vector._from_data(VecData.bitmap(n, INT64, bits, lv, reached).normalized(), "cpu")
    pvec = None
    if pi is not None:
        pvec = Vector._from_data(VecData.bitmap(n, INT64, bits.copy(), pi, reached).normalized(),
                                 "cpu")
    kinds = sorted(set(info["directions"]))
    info["kernels"] = [KERNEL_NAME] + [f"{KERNEL_NAME}_{d}" for d in kinds]
    record(None, "bfs", KERNEL_NAME, None if direction == "auto" else direction, "csr")
    return levels, pvec, info


def bfs(A: Matrix, source: int, *, parents: bool = False, direction: str = "auto",  # noqa: N803
        alpha: float | None = None, beta1: float | None = None, beta2: float | None = None,
        stats: dict[str, Any] | None = None) -> Vector | tuple[Vector, Vector]:
    """Levels (INT64; unreachable vertices absent) of a BFS from ``source``.

    ``parents=True`` also returns the BFS tree (parent of the source is itself).
    ``direction``: ``"auto"`` (push-pull by LAGraph's rule), ``"push"`` or ``"pull"``.
    As in LAGraph, ``"auto"`` pushes at every level while A's transpose is not at hand: the
    first search of a CPU CSR matrix that is neither known to be symmetric nor has a cached
    transpose pushes only, and later ones build the transpose once (:func:`pull_ready`).
    Directed graphs push along A's rows and pull along Aᵀ's. ``stats`` (a dict) receives
    the number of levels, the direction of each level and the kernels that ran.
    ``alpha``, ``beta1``, ``beta2`` default to the config keys ``bfs_alpha`` (8),
    ``bfs_beta1`` (8) and ``bfs_beta2`` (512). On the CPU the config key ``bfs_cpu``
    (``"fused"``, the default, or ``"ops"``) picks the fused search or the level loop; on a
    GPU ``bfs_gpu`` does.
    """
    src = check_graph(A, source)
    alpha = config.get("bfs_alpha") if alpha is None else alpha
    beta1 = config.get("bfs_beta1") if beta1 is None else beta1
    beta2 = config.get("bfs_beta2") if beta2 is None else beta2
    if direction not in ("auto", "push", "pull"):
        raise InvalidValue(f"direction must be 'auto', 'push' or 'pull', got {direction!r}")
    if direction == "auto" and not pull_ready(A):
        direction = "push"  # LAGraph: push-pull needs Aᵀ; a first search does not build it
    if getattr(A.device, "distributed", False):  # a DistMatrix: local kernels + collectives
        from gblas.distributed import bfs_levels  # noqa: PLC0415

        if bfs_levels.applies(A, parents, alpha, beta1, beta2):
            lv, pi, info = bfs_levels.dist_bfs(A, src, parents=parents, direction=direction,
                                               alpha=alpha, beta1=beta1, beta2=beta2,
                                               timing=stats is not None)
            if stats is not None:  # all of info, its kernel as the list other paths give
                stats.update({k: v for k, v in info.items() if k != "kernel"},
                             kernels=[info["kernel"]])
            return (lv, pi) if parents else lv
    method = config.get("bfs_gpu")  # "fused" / "levels": the whole search in gblas.cuda
    if A.device != "cpu" and method != "ops":
        from gblas import cuda  # noqa: PLC0415

        kw = dict(parents=parents, direction=direction, alpha=alpha, beta1=beta1, beta2=beta2,
                  method=method)
        if cuda.bfs_applies(A, **kw):
            # without stats nothing is read back: the call returns while the search runs
            lv, pi, info = cuda.bfs_checked(A, src, step_log=stats is not None, **kw)
            if stats is not None:
                stats.update(levels=info["levels"], directions=info["directions"],
                             kernels=[info["kernel"]], reached=info["reached"],
                             host_syncs=info["host_syncs"])
            return (lv, pi) if parents else lv
    if A.device == "cpu" and fused_cpu_applies(A, parents, alpha, beta1, beta2):
        lv, pi, info = fused_cpu_bfs(A, src, parents=parents, direction=direction,
                                     alpha=alpha, beta1=beta1, beta2=beta2)
        if stats is not None:
            stats.update(levels=info["levels"], directions=info["directions"],
                         kernels=info["kernels"], reached=info["reached"])
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
    edges_unexplored = A.nvals
    any_pull = False
    nq, last_nq = 1, 0
    directions: list[str] = []
    kernels: set[str] = set()
    k, nvisited = 1, 1
    while nvisited < n:
        frontier_edges = 0
        if rule_reads_scout(do_push, push_pull, any_pull, edges_unexplored, n):
            # edges leaving the frontier: the sum of the degrees at q's entries, one inner
            # product (q ⋅ degree over plus.second)
            frontier_edges = q.inner(degree, semiring.plus_second).new().value or 0
        do_push, push_pull, any_pull, edges_unexplored = direction_rule(
            do_push, push_pull, any_pull, nq, last_nq, frontier_edges, edges_unexplored, n,
            alpha, beta1, beta2)
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
