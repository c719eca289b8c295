"""Breadth-first searches of the backend: ``bfs_edges``, ``bfs_layers``,
``single_source_shortest_path_length``.

NetworkX's searches yield nodes in queue order: a level lists the children of the previous
level's first node, in its adjacency order, then those of the second, and so on, and each
node's parent is the first node of the previous level that reaches it. In GraphBLAS that
order is one product per level over the (min, +) semiring (:func:`ordered_levels`): give
the frontier node of rank r the value r·s (s above every adjacency position) and multiply
by the matrix of positions ``P[u, v]`` (v's place in u's list). A new node v gets

    key(v) = min over frontier parents u of r(u)·s + P[u, v]

whose quotient by s is the rank of its first parent and whose remainder is its place in
that parent's list: sorting the level by key is NetworkX's queue order, and the parents
come with it. The masked product ``key⟨¬seen⟩`` keeps nodes already met out, as the
``seen`` set of NetworkX's loop does.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import networkx as nx
import numpy as np

from gblas import BOOL, INT64, Matrix, Vector, binary, monoid, semiring
from gblas.algorithms import bfs

from .convert import GblasGraph
from .device import graph_device


def ordered_levels(P: Matrix, first: np.ndarray, depth_limit: float  # noqa: N803
                   ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """(nodes, parents) of every level after ``first`` (ids in NetworkX's queue order), at
    most ``depth_limit`` levels, for the positions matrix ``P``."""
    n, dev = P.nrows, P.device
    stride = int(P.reduce_scalar(monoid.max).new().value or 0) + 1 if P.nvals else 1
    order = np.asarray(first, dtype=np.int64)
    seen = Vector.from_coo(order, True, BOOL, size=n, device=dev)
    key = Vector(INT64, n, device=dev)
    depth = 0
    while depth < depth_limit and order.size:
        rank = Vector.from_coo(order, np.arange(order.size, dtype=np.int64) * stride, INT64,
                               size=n, device=dev)
        key(~seen.S, replace=True) << rank.vxm(P, semiring.min_plus)
        if key.nvals == 0:
            return
        ids, keys = key.to_coo()
        by_key = np.argsort(keys, kind="stable")
        parents = order[keys[by_key] // stride]
        order = ids[by_key]
        yield order, parents
        seen(key.S) << True
        depth += 1


def _sorted_positions(graph: GblasGraph, reverse: bool, sort_neighbors: Any,
                      device: str) -> Matrix:
    """The positions matrix of the orders ``sort_neighbors`` gives each node's neighbours
    (NetworkX hands it an iterator of the neighbours and follows what it returns)."""
    rows: list[int] = []
    cols: list[int] = []
    pos: list[int] = []
    ids = graph.ids
    for u, nbrs in graph.neighbor_lists(reverse):
        for p, v in enumerate(sort_neighbors(iter(nbrs))):
            rows.append(u)
            cols.append(ids[v])
            pos.append(p)
    n = len(graph)
    # a node listed twice counts at its first place (the second is already seen)
    P = Matrix.from_coo(np.asarray(rows, np.int64), np.asarray(cols, np.int64),  # noqa: N806
                        np.asarray(pos, np.int64), INT64, nrows=n, ncols=n, dup_op=binary.min)
    return P.to(device)


def _missing_node(graph: GblasGraph, node: Any) -> nx.NetworkXError:
    where = "digraph" if graph.directed else "graph"
    return nx.NetworkXError(f"The node {node} is not in the {where}.")


def bfs_edges(G: GblasGraph, source: Any, reverse: bool = False,  # noqa: N803
              depth_limit: Any = None, sort_neighbors: Any = None) -> Iterator[tuple[Any, Any]]:
    """``networkx.bfs_edges``: the tree edges (parent, child) in NetworkX's order."""
    dev = graph_device()
    limit = len(G) if depth_limit is None else depth_limit
    src = G.id_of(source)
    if sort_neighbors is None:
        P = G.positions(bool(reverse), dev)  # noqa: N806
    else:
        P = _sorted_positions(G, bool(reverse), sort_neighbors, dev)  # noqa: N806

    def edges() -> Iterator[tuple[Any, Any]]:
        if src is None:
            raise _missing_node(G, source)
        for children, parents in ordered_levels(P, np.array([src]), limit):
            yield from zip(G.labels(parents), G.labels(children))

    return edges()


def bfs_layers(G: GblasGraph, sources: Any) -> Iterator[list[Any]]:  # noqa: N803
    """``networkx.bfs_layers``: the nodes of each level, in NetworkX's order."""
    P = G.positions(False, graph_device())  # noqa: N806

    def layers() -> Iterator[list[Any]]:
        starts = [sources] if sources in G else sources
        current = list(set(starts))  # NetworkX starts from the set of sources, in its order
        first = []
        for node in current:
            i = G.id_of(node)
            if i is None:
                raise nx.NetworkXError(f"The node {node} is not in the graph.")
            first.append(i)
        if not current:
            return
        yield current
        for level, _ in ordered_levels(P, np.asarray(first, np.int64), math.inf):
            yield G.labels(level)

    return layers()


def _last_level(cutoff: Any) -> float:
    """The deepest level NetworkX reports for ``cutoff``: it expands level L while
    L − 1 < cutoff, so L = ⌈cutoff⌉ (none past the source for cutoff ≤ 0 or NaN)."""
    if cutoff is None:
        return math.inf
    c = float(cutoff)
    if math.isnan(c):
        return 0
    return c if math.isinf(c) else max(math.ceil(c), 0)


def _levels_within(A: Matrix, src: int, last: float) -> Vector:  # noqa: N803
    """BFS levels from ``src`` up to level ``last`` (the level loop of README's BFS)."""
    n, dev = A.nrows, A.device
    levels = Vector(INT64, n, device=dev)
    levels[src] << 0
    q = Vector(BOOL, n, device=dev)
    q[src] << True
    k = 1
    while q.nvals and k <= last:
        q(~levels.S, replace=True) << q.vxm(A, semiring.any_pair)
        levels(q.S) << k
        k += 1
    return levels


def single_source_shortest_path_length(G: GblasGraph, source: Any,  # noqa: N803
                                       cutoff: Any = None) -> dict[Any, int]:
    """``networkx.single_source_shortest_path_length``: {node: hops} of the reached nodes
    (ordered by distance)."""
    src = G.id_of(source)
    if src is None:
        raise nx.NodeNotFound(f"Source {source} is not in G")
    last = _last_level(cutoff)
    A = G.structure(graph_device())  # noqa: N806
    if last >= len(G):
        levels = bfs(A, src)  # the library's (fused) search: every level
    else:
        levels = _levels_within(A, src, last)
    ids, hops = levels.to_coo()
    by_hops = np.argsort(hops, kind="stable")
    return dict(zip(G.labels(ids[by_hops]), hops[by_hops].tolist()))


__all__ = ["bfs_edges", "bfs_layers", "ordered_levels", "single_source_shortest_path_length"]
