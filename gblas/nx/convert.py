"""The backend's graph: a NetworkX graph's nodes, adjacency and numeric edge attributes as
arrays, converted once, and the gblas matrices built from them on first use.

Nodes get the ids 0 … n − 1 in the graph's node order (``list(G)``), so results map back
to the caller's labels by position, and the smallest id of a component is its node that
NetworkX meets first. Each row keeps the neighbours in the order of ``G._adj[u]`` (and of
``G._pred[v]`` for a directed graph): the breadth-first searches that must yield nodes in
NetworkX's order read it from a matrix of positions (:meth:`GblasGraph.positions`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from gblas import BOOL, INT64, Matrix, binary

# what combines the values of parallel edges of a multigraph: shortest paths take the
# lightest edge (NetworkX's weight function does), sums (PageRank's adjacency) add them
COMBINE: dict[str, Any] = {"min": binary.min, "plus": binary.plus}


class GblasGraph:
    """A graph of the ``gblas`` NetworkX backend (``nx.pagerank(G, backend="gblas")``).

    Made by :func:`from_networkx`; NetworkX makes and caches one per graph and set of edge
    attributes when it dispatches to the backend. ``nodelist`` is the node labels in id
    order; ``edge_values`` maps each converted edge attribute to its values, one per entry
    of the adjacency (per parallel edge of a multigraph). Matrices are built on first use
    and cached per kind and device.
    """

    __networkx_backend__ = "gblas"

    def __init__(self, nodelist: list[Any], indptr: np.ndarray, indices: np.ndarray, *,
                 directed: bool, multigraph: bool,
                 edge_values: dict[str, np.ndarray] | None = None,
                 multiplicity: np.ndarray | None = None,
                 pred_indptr: np.ndarray | None = None, pred_indices: np.ndarray | None = None,
                 graph_attrs: dict[str, Any] | None = None) -> None:
        self.nodelist = nodelist
        self.indptr = indptr
        self.indices = indices
        self.directed = directed
        self.multigraph = multigraph
        self.edge_values = edge_values or {}
        self.multiplicity = multiplicity
        self.pred_indptr = pred_indptr
        self.pred_indices = pred_indices
        self.graph = graph_attrs if graph_attrs is not None else {}
        self.__networkx_cache__: dict[str, Any] = {}
        self._ids: dict[Any, int] | None = None
        self._matrices: dict[tuple[Any, ...], Matrix] = {}

    # ------------------------------------------------------------------ NetworkX protocol
    def is_directed(self) -> bool:
        return self.directed

    def is_multigraph(self) -> bool:
        return self.multigraph

    def __len__(self) -> int:
        return len(self.nodelist)

    def __iter__(self) -> Iterator[Any]:
        return iter(self.nodelist)

    def __contains__(self, node: Any) -> bool:
        try:
            return node in self.ids
        except TypeError:  # an unhashable object is no node (as nx.Graph answers)
            return False

    def number_of_nodes(self) -> int:
        return len(self.nodelist)

    def number_of_edges(self) -> int:
        """As NetworkX counts: parallel edges each, an undirected edge once."""
        stored = int(self.indices.size if self.multiplicity is None else self.multiplicity.sum())
        if self.directed:
            return stored
        rows = np.repeat(np.arange(len(self.nodelist)), np.diff(self.indptr))
        loops = rows == self.indices
        if self.multiplicity is not None:
            n_loops = int(self.multiplicity[loops].sum())
        else:
            n_loops = int(np.count_nonzero(loops))
        return (stored - n_loops) // 2 + n_loops

    def __repr__(self) -> str:
        kind = ("Multi" if self.multigraph else "") + ("DiGraph" if self.directed else "Graph")
        attrs = f", edge attributes {sorted(self.edge_values)}" if self.edge_values else ""
        return (f"<gblas.nx.GblasGraph ({kind}) with {len(self.nodelist)} nodes and "
                f"{self.number_of_edges()} edges{attrs}>")

    # ------------------------------------------------------------------ node labels
    @property
    def ids(self) -> dict[Any, int]:
        """Node label → id (built once)."""
        if self._ids is None:
            self._ids = {node: i for i, node in enumerate(self.nodelist)}
        return self._ids

    def id_of(self, node: Any) -> int | None:
        """The id of ``node``, or None when it is not a node (or unhashable)."""
        try:
            return self.ids.get(node)
        except TypeError:
            return None

    def labels(self, ids: np.ndarray) -> list[Any]:
        """Node labels of an array of ids."""
        return list(map(self.nodelist.__getitem__, ids.tolist()))

    # ------------------------------------------------------------------ matrices
    def _rows(self, indptr: np.ndarray) -> np.ndarray:
        return np.repeat(np.arange(len(self.nodelist), dtype=np.int64), np.diff(indptr))

    def _cached(self, key: tuple[Any, ...], device: str,
                build: Callable[[], Matrix]) -> Matrix:
        """The matrix ``key`` on ``device``: built on the CPU once, copied once per device."""
        host = self._matrices.get((*key, "cpu"))
        if host is None:
            host = self._matrices[(*key, "cpu")] = build()
        if device == "cpu":
            return host
        on_device = self._matrices.get((*key, device))
        if on_device is None:
            on_device = self._matrices[(*key, device)] = host.to(device)
        return on_device

    def structure(self, device: str = "cpu") -> Matrix:
        """The adjacency pattern (BOOL, iso): ``A[u, v]`` for an edge u → v (both ways for
        an undirected edge; parallel edges once)."""
        n = len(self.nodelist)
        return self._cached(("structure",), device, lambda: Matrix.from_coo(
            self._rows(self.indptr), self.indices, True, BOOL, nrows=n, ncols=n))

    def weights(self, attr: str | None, combine: str, device: str = "cpu") -> Matrix:
        """Edge attribute ``attr`` as a matrix (its NumPy dtype: int64, float64, ...);
        ``attr=None`` gives 1 per edge. Parallel edges of a multigraph combine with
        ``combine`` (``"min"`` or ``"plus"``: with ``attr=None`` a multigraph's ``"plus"``
        counts its parallel edges)."""
        if attr is not None and attr not in self.edge_values:
            raise NotImplementedError(
                f"edge attribute {attr!r} was not converted to gblas (converted: "
                f"{sorted(self.edge_values) or 'none'})")
        n = len(self.nodelist)

        def build() -> Matrix:
            rows, cols = self._rows(self.indptr), self.indices
            if self.multiplicity is not None:
                rows, cols = np.repeat(rows, self.multiplicity), np.repeat(cols, self.multiplicity)
            vals = self.edge_values[attr] if attr is not None else np.ones(rows.size, np.int64)
            dup = COMBINE[combine] if self.multiplicity is not None else None
            return Matrix.from_coo(rows, cols, vals, nrows=n, ncols=n, dup_op=dup)

        key = ("weights", attr, combine if self.multiplicity is not None else "")
        return self._cached(key, device, build)

    def positions(self, reverse: bool = False, device: str = "cpu") -> Matrix:
        """INT64 ``P[u, v]``: the position of v among u's neighbours in NetworkX's order
        (``G._adj[u]``; ``reverse`` on a directed graph: ``P[v, u]`` in ``G._pred[v]``)."""
        reverse = reverse and self.directed
        indptr = self.pred_indptr if reverse else self.indptr
        indices = self.pred_indices if reverse else self.indices
        assert indptr is not None and indices is not None
        n = len(self.nodelist)

        def build() -> Matrix:
            rows = self._rows(indptr)
            pos = np.arange(indices.size, dtype=np.int64) - indptr[rows]
            return Matrix.from_coo(rows, indices, pos, INT64, nrows=n, ncols=n)

        return self._cached(("positions", reverse), device, build)

    def neighbor_lists(self, reverse: bool = False) -> Iterator[tuple[int, list[Any]]]:
        """(id, neighbour labels in NetworkX's order) of every node."""
        reverse = reverse and self.directed
        indptr = self.pred_indptr if reverse else self.indptr
        indices = self.pred_indices if reverse else self.indices
        assert indptr is not None and indices is not None
        labels = self.labels(indices)
        bounds = indptr.tolist()
        for u in range(len(self.nodelist)):
            yield u, labels[bounds[u]:bounds[u + 1]]


# ---------------------------------------------------------------------------- conversion
def _edge_values(values: list[Any], attr: str) -> np.ndarray:
    """Attribute values as a numeric array; anything else is left to NetworkX."""
    arr = np.asarray(values) if values else np.zeros(0, np.int64)
    if arr.dtype.kind == "b":
        arr = arr.astype(np.int64)
    if arr.dtype.kind not in "iuf":
        raise NotImplementedError(
            f"edge attribute {attr!r} has values that are not all real numbers "
            f"(NumPy makes them {arr.dtype}); gblas converts numeric attributes only")
    return arr


def from_networkx(G: Any, edge_attrs: dict[str, Any] | None = None, *,  # noqa: N803
                  preserve_graph_attrs: bool = False) -> GblasGraph:
    """Convert a NetworkX graph (any of the four classes, or a view of one).

    ``edge_attrs`` maps each numeric edge attribute to keep to its default (the value of an
    edge that lacks it), as NetworkX's dispatcher passes them: ``{"weight": 1}``. One pass
    over the adjacency (and one over the predecessors of a directed graph) in NetworkX's
    order; no matrix is built until an algorithm asks for one.
    """
    nodelist = list(G)
    ids = {node: i for i, node in enumerate(nodelist)}
    n = len(nodelist)
    adj = G._adj
    degrees = np.fromiter(map(len, adj.values()), np.int64, count=n)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(degrees, out=indptr[1:])
    m = int(indptr[-1])
    lookup = ids.__getitem__
    indices = np.fromiter(map(lookup, itertools.chain.from_iterable(adj.values())), np.int64,
                          count=m)
    multigraph = G.is_multigraph()
    multiplicity = None
    if multigraph:
        multiplicity = np.fromiter((len(keys) for nbrs in adj.values() for keys in nbrs.values()),
                                   np.int64, count=m)
    edge_values: dict[str, np.ndarray] = {}
    for attr, default in (edge_attrs or {}).items():
        if multigraph:
            vals = [d.get(attr, default) for nbrs in adj.values() for keys in nbrs.values()
                    for d in keys.values()]
        else:
            vals = [d.get(attr, default) for nbrs in adj.values() for d in nbrs.values()]
        edge_values[attr] = _edge_values(vals, attr)
    pred_indptr = pred_indices = None
    if G.is_directed():
        pred = G._pred
        pred_indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.fromiter(map(len, pred.values()), np.int64, count=n), out=pred_indptr[1:])
        pred_indices = np.fromiter(map(lookup, itertools.chain.from_iterable(pred.values())),
                                   np.int64, count=int(pred_indptr[-1]))
    graph = GblasGraph(nodelist, indptr, indices, directed=G.is_directed(),
                       multigraph=multigraph, edge_values=edge_values,
                       multiplicity=multiplicity, pred_indptr=pred_indptr,
                       pred_indices=pred_indices,
                       graph_attrs=dict(G.graph) if preserve_graph_attrs else None)
    graph._ids = ids
    return graph


def to_networkx(graph: GblasGraph) -> Any:
    """A NetworkX graph of the same class with the same nodes (in order), edges and
    converted edge attributes (a multigraph's parallel edges get keys 0, 1, ...)."""
    import networkx as nx  # noqa: PLC0415

    cls = {(False, False): nx.Graph, (True, False): nx.DiGraph,
           (False, True): nx.MultiGraph, (True, True): nx.MultiDiGraph}
    G = cls[graph.directed, graph.multigraph]()  # noqa: N806
    G.graph.update(graph.graph)
    G.add_nodes_from(graph.nodelist)
    rows = graph._rows(graph.indptr)
    cols = graph.indices
    counts = graph.multiplicity if graph.multiplicity is not None else np.ones_like(cols)
    rows, cols = np.repeat(rows, counts), np.repeat(cols, counts)
    keep = np.ones(rows.size, dtype=bool) if graph.directed else rows <= cols
    names = list(graph.edge_values)
    columns = [graph.edge_values[a][keep].tolist() for a in names]
    us, vs = graph.labels(rows[keep]), graph.labels(cols[keep])
    attrs = ({a: c[i] for a, c in zip(names, columns)} for i in range(len(us)))
    G.add_edges_from(zip(us, vs, attrs))
    return G


__all__ = ["GblasGraph", "from_networkx", "to_networkx"]
