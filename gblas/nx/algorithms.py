"""The backend's other algorithms: weighted path lengths, PageRank, components, triangles,
transitivity and betweenness, each as NetworkX defines it, on ``gblas.algorithms``.

Every function takes a :class:`~gblas.nx.convert.GblasGraph` and the arguments of the
NetworkX function of the same name, and returns what NetworkX returns, keyed by the
caller's node labels. NetworkX's own exceptions are raised where NetworkX raises them;
:class:`NotImplementedError` means "not here": NetworkX then runs its own code
(``nx.config.fallback_to_nx``) or reports that the backend cannot run the call.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import networkx as nx
import numpy as np

from gblas import FP64, INT64, Matrix, Vector, binary, monoid, select, semiring
from gblas import algorithms as alg
from gblas.exceptions import InvalidValue

from .convert import GblasGraph
from .device import graph_device


def _all_nodes(G: GblasGraph, v: Vector) -> dict[Any, Any]:  # noqa: N803
    """{label: value} of a Vector with an entry at every node, in node order."""
    return dict(zip(G.nodelist, v.to_dense().tolist()))


# ---------------------------------------------------------------- weighted path lengths
def single_source_bellman_ford_path_length(G: GblasGraph, source: Any,  # noqa: N803
                                           weight: Any = "weight") -> dict[Any, Any]:
    """``networkx.single_source_bellman_ford_path_length``: {node: distance} of the reached
    nodes (Bellman-Ford over (min, +); the lightest of parallel edges)."""
    if callable(weight):
        raise NotImplementedError("gblas reads weights from an edge attribute, not a function")
    src = G.id_of(source)
    if src is None:
        raise nx.NodeNotFound(f"Source {source} not in G")
    dev = graph_device()
    W = G.structure(dev) if weight is None else G.weights(weight, "min", dev)  # noqa: N806
    try:
        dist = alg.sssp(W, src)
    except InvalidValue as err:  # sssp's negative-cycle report
        raise nx.NetworkXUnbounded("Negative cycle detected.") from err
    ids, d = dist.to_coo()
    if W.dtype.is_integer or W.dtype.is_bool:  # integer weights add up to integers
        out = dict(zip(G.labels(ids), d.astype(np.int64).tolist()))
    else:
        out = dict(zip(G.labels(ids), d.tolist()))
    out[source] = 0  # NetworkX's distance of the source is the int 0 whatever the weights
    return out


# ---------------------------------------------------------------- PageRank
def _node_distribution(G: GblasGraph, values: dict[Any, Any], what: str,  # noqa: N803
                       device: str) -> Vector:
    """A dict over nodes as a Vector (labels that are not nodes are ignored, as NetworkX
    ignores them). NetworkX divides by its sum: when that is 0, ``personalization`` raises
    ZeroDivisionError there (so here) and the others give NaN ranks (left to NetworkX)."""
    ids, vals = [], []
    for node, x in values.items():
        i = G.id_of(node)
        if i is not None:
            ids.append(i)
            vals.append(x)
    arr = np.asarray(vals, dtype=np.float64) if vals else np.zeros(0)
    total = arr.sum()
    if total == 0 and what == "personalization":
        raise ZeroDivisionError
    if total == 0 or not np.isfinite(total):
        raise NotImplementedError(f"{what} sums to {total} (NetworkX divides by it)")
    return Vector.from_coo(np.asarray(ids, np.int64), arr, FP64, size=len(G), device=device)


def pagerank(G: GblasGraph, alpha: float = 0.85, personalization: Any = None,  # noqa: N803
             max_iter: int = 100, tol: float = 1e-06, nstart: Any = None,
             weight: Any = "weight", dangling: Any = None) -> dict[Any, float]:
    """``networkx.pagerank`` (power iteration; raises
    :class:`networkx.PowerIterationFailedConvergence` after ``max_iter`` iterations)."""
    if callable(weight):
        raise NotImplementedError("gblas reads weights from an edge attribute, not a function")
    n = len(G)
    if n == 0:
        return {}
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)):
        raise NotImplementedError(f"max_iter {max_iter!r} is not an integer")
    if not 0.0 <= float(alpha) <= 1.0:
        raise NotImplementedError(f"gblas' PageRank takes alpha in [0, 1], got {alpha}")
    if max_iter < 1 or not float(tol) > 0.0:  # NetworkX cannot converge either
        raise nx.PowerIterationFailedConvergence(max_iter)
    dev = graph_device()
    dists: dict[str, Vector | None] = {}
    for what, given in (("personalization", personalization), ("nstart", nstart),
                        ("dangling", dangling)):
        if given is None:
            continue
        dists[what] = _node_distribution(G, given, what, dev)
    if weight is None and not G.multigraph:
        A, weighted = G.structure(dev), False  # noqa: N806
    else:  # edge weights, or a multigraph's parallel edges counted (NetworkX sums them)
        A, weighted = G.weights(weight, "plus", dev), True  # noqa: N806
        low = A.reduce_scalar(monoid.min).new().value
        if low is not None and low < 0:
            raise NotImplementedError("gblas' PageRank needs non-negative edge weights")
    stats: dict[str, Any] = {}
    rank = alg.pagerank(A, damping=float(alpha), tol=float(tol), max_iters=int(max_iter),
                        weighted=weighted, stats=stats, **dists)
    if not stats["converged"]:
        raise nx.PowerIterationFailedConvergence(max_iter)
    return _all_nodes(G, rank)


# ---------------------------------------------------------------- components
def _component_labels(G: GblasGraph) -> np.ndarray:  # noqa: N803
    """Each node's component label: the smallest id in its component (FastSV)."""
    return alg.connected_components(G.structure(graph_device())).to_dense()


def connected_components(G: GblasGraph) -> Iterator[set[Any]]:  # noqa: N803
    """``networkx.connected_components``: a set of nodes per component, in the order
    NetworkX yields them (by the first node of each in the graph's node order)."""
    labels = _component_labels(G)

    def components() -> Iterator[set[Any]]:
        by_label = np.argsort(labels, kind="stable")
        cuts = np.flatnonzero(np.diff(labels[by_label])) + 1
        for members in np.split(by_label, cuts) if labels.size else []:
            yield set(G.labels(members))

    return components()


def number_connected_components(G: GblasGraph) -> int:  # noqa: N803
    """``networkx.number_connected_components``: the roots of FastSV's stars."""
    labels = _component_labels(G)
    return int(np.count_nonzero(labels == np.arange(labels.size)))


# ---------------------------------------------------------------- triangles
def _triangle_rows(G: GblasGraph) -> tuple[Vector, Vector]:  # noqa: N803
    """Per node v, with B the adjacency without self-loops: t(v) = Σ_w B[v, w]·(B Bᵀ)[v, w]
    (pairs of v's neighbours that are linked: twice v's triangles when undirected) and the
    number of neighbours d(v), both INT64 and full. This is what NetworkX's
    ``_triangles_and_degree_iter`` counts, directed or not."""
    A = G.structure(graph_device())  # noqa: N806
    n, dev = A.nrows, A.device
    B = A.select(select.offdiag).new()  # noqa: N806
    C = Matrix(INT64, n, n, device=dev)  # noqa: N806
    C(B.S) << B.mxm(B.T, semiring.plus_pair[INT64])
    t = Vector(INT64, n, device=dev)
    t << 0
    t(binary.plus) << C.reduce_rowwise(monoid.plus)
    d = Vector(INT64, n, device=dev)
    d << 0
    d(binary.plus) << B.out_degree()
    return t, d


def _nbunch_ids(G: GblasGraph, nodes: Any) -> list[int]:  # noqa: N803
    """The ids of ``nodes`` as ``G.nbunch_iter`` takes them: labels that are not nodes are
    skipped; a non-iterable or an unhashable member raises NetworkX's errors."""
    ids = G.ids
    out: list[int] = []
    try:
        for node in nodes:
            i = ids.get(node)
            if i is not None:
                out.append(i)
    except TypeError as err:
        message = err.args[0] if err.args else ""
        if "iter" in message:
            raise nx.NetworkXError("nbunch is not a node or a sequence of nodes.") from err
        if "hashable" in message:
            raise nx.NetworkXError(
                f"Node {node} in sequence nbunch is not a valid node.") from err
        raise
    return out


def triangles(G: GblasGraph, nodes: Any = None) -> int | dict[Any, int]:  # noqa: N803
    """``networkx.triangles``: per-node triangle counts (an int for a single node)."""
    if G.multigraph and nodes is not None:
        raise NotImplementedError("NetworkX counts a multigraph's triangles for all nodes only")
    single = nodes is not None and nodes in G
    ids = None if nodes is None or single else _nbunch_ids(G, nodes)
    t, _ = _triangle_rows(G)
    counts = t.to_dense() // 2
    if single:
        return int(counts[G.ids[nodes]])
    if ids is None:
        return dict(zip(G.nodelist, counts.tolist()))
    sel = np.asarray(ids, dtype=np.int64)
    return dict(zip(G.labels(sel), counts[sel].tolist()))


def transitivity(G: GblasGraph) -> float | int:  # noqa: N803
    """``networkx.transitivity``: 3·triangles / connected triples (0 without triangles)."""
    if G.multigraph:
        raise NotImplementedError("NetworkX's transitivity is not defined for multigraphs")
    if len(G) == 0:
        return 0
    t, d = _triangle_rows(G)
    linked = int(t.reduce(monoid.plus).new().value or 0)
    if linked == 0:
        return 0
    dd = d.to_dense()
    return linked / int((dd * (dd - 1)).sum())


# ---------------------------------------------------------------- betweenness
def betweenness_centrality(G: GblasGraph, k: Any = None, normalized: bool = True,  # noqa: N803
                           weight: Any = None, endpoints: bool = False,
                           seed: Any = None) -> dict[Any, float]:
    """``networkx.betweenness_centrality`` for unweighted paths, exact or from a sample of
    ``k`` sources drawn as NetworkX draws them (``seed.sample(list(G), k)``)."""
    if weight is not None:
        raise NotImplementedError("gblas' betweenness counts unweighted shortest paths")
    n = len(G)
    if k == n:
        k = None  # NetworkX: every source, no draw
    if k is not None and (isinstance(k, bool) or not isinstance(k, (int, np.integer))
                          or k < 1):
        raise NotImplementedError(f"k={k!r} is not a positive sample size")
    sources = None
    if k is not None:
        rng = seed if hasattr(seed, "sample") else nx.utils.create_py_random_state(seed)
        drawn = rng.sample(G.nodelist, k)  # raises as NetworkX does for k > n
        sources = np.asarray([G.ids[node] for node in drawn], dtype=np.int64)
    if n == 0:
        return {}
    A = G.structure(graph_device())  # noqa: N806
    bc = alg.betweenness_centrality(A, sources=sources, normalized=bool(normalized),
                                    directed=True if G.directed else None,
                                    endpoints=bool(endpoints))
    return _all_nodes(G, bc)


__all__ = [
    "betweenness_centrality", "connected_components", "number_connected_components",
    "pagerank", "single_source_bellman_ford_path_length", "transitivity", "triangles",
]
