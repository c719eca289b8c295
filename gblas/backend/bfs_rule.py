"""LAGraph's direction-switch rule for BFS, one level at a time, in plain Python.

Source: LAGraph ``LG_BreadthFirstSearch_SSGrB`` (Davis et al.), after Beamer, Asanović,
Patterson, "Direction-optimizing breadth-first search", SC'12 (α = 8, β₁ = 8, β₂ = 512 by
default). The level loop of ``algorithms/bfs.py`` calls it as it is; the fused CPU search
(``gblas.backend.bfs_fused``) compiles the same function with Numba, so both paths take the
same direction at every level. The CUDA kernels restate it in C
(``formats/csr/bfs_fused.cu``, ``bfs_levels.cu``).
"""

from __future__ import annotations


def direction_rule(do_push: bool, push_pull: bool, any_pull: bool, nq: int, last_nq: int,
                   scout: int, edges_unexplored: int, n: int, alpha: float, beta1: float,
                   beta2: float) -> tuple[bool, bool, bool, int]:
    """LAGraph's switch rule before a level: (do_push, push_pull, any_pull,
    edges_unexplored) from the frontier sizes of the last two levels and, only while
    :func:`rule_reads_scout` says so, the frontier's out-edge count ``scout``."""
    if push_pull:
        if do_push:
            growing = nq > last_nq
            if edges_unexplored < n:
                push_pull = False  # little is left: stay push
                switch = False
            elif any_pull:
                switch = growing and nq > n / beta1
            else:
                edges_unexplored -= scout
                switch = growing and scout > edges_unexplored / alpha
            do_push = not switch
        elif nq < last_nq and nq <= n / beta2:
            do_push = True
        any_pull = any_pull or not do_push
    return do_push, push_pull, any_pull, edges_unexplored


def rule_reads_scout(do_push: bool, push_pull: bool, any_pull: bool, edges_unexplored: int,
                     n: int) -> bool:
    """Whether :func:`direction_rule` reads ``scout`` this level (before the first pull)."""
    return push_pull and do_push and not any_pull and edges_unexplored >= n


__all__ = ["direction_rule", "rule_reads_scout"]
