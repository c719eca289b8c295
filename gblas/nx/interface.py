"""What NetworkX loads through the entry points ``networkx.backends`` (``backend_interface``)
and ``networkx.backend_info`` (``get_info``).

NetworkX's dispatcher asks ``can_run`` before it converts anything, converts a NetworkX
graph with ``convert_from_nx`` (once per graph and set of edge attributes: it caches the
result in ``G.__networkx_cache__``), calls the function of the same name here, and turns a
returned graph back with ``convert_to_nx``. ``dispatch_counts()`` tells how many calls ran
on gblas and how many were declined (left to NetworkX).
"""

from __future__ import annotations

import functools
import inspect
from collections import Counter
from collections.abc import Callable
from typing import Any

from . import algorithms, traversal
from .convert import GblasGraph, from_networkx, to_networkx
from .device import DEFAULT_CONFIG

# the functions the backend implements, by NetworkX's dispatch name
FUNCTIONS: dict[str, Callable[..., Any]] = {
    "bfs_edges": traversal.bfs_edges,
    "bfs_layers": traversal.bfs_layers,
    "single_source_shortest_path_length": traversal.single_source_shortest_path_length,
    "single_source_bellman_ford_path_length":
        algorithms.single_source_bellman_ford_path_length,
    "pagerank": algorithms.pagerank,
    "connected_components": algorithms.connected_components,
    "number_connected_components": algorithms.number_connected_components,
    "triangles": algorithms.triangles,
    "transitivity": algorithms.transitivity,
    "betweenness_centrality": algorithms.betweenness_centrality,
}

# what each function leaves to NetworkX (the dispatcher reads it from backend_info: docs)
LIMITS: dict[str, str] = {
    "bfs_edges": "",
    "bfs_layers": "",
    "single_source_shortest_path_length": "",
    "single_source_bellman_ford_path_length":
        "A weight function (a callable ``weight``) runs on NetworkX.",
    "pagerank": "A weight function, negative weights, ``alpha`` outside [0, 1] and "
                "``nstart``/``dangling`` that sum to 0 run on NetworkX.",
    "connected_components": "",
    "number_connected_components": "",
    "triangles": "A multigraph with ``nodes`` given runs on NetworkX (which refuses it).",
    "transitivity": "Multigraphs run on NetworkX (which refuses them).",
    "betweenness_centrality": "Weighted paths (``weight`` not None) and ``k=0`` run on "
                              "NetworkX.",
}

_counts: Counter[tuple[str, str]] = Counter()


def dispatch_counts() -> dict[str, dict[str, int]]:
    """{function: {"gblas": calls that ran here, "declined": calls left to NetworkX}}
    since the process started (or :func:`reset_dispatch_counts`)."""
    out: dict[str, dict[str, int]] = {}
    for (name, outcome), count in sorted(_counts.items()):
        out.setdefault(name, {"gblas": 0, "declined": 0})[outcome] = count
    return out


def reset_dispatch_counts() -> None:
    _counts.clear()


def _declined_reason(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
    """Why the call cannot run here (NetworkX then runs it), or None. Only what is known
    before converting the graph; the functions raise NotImplementedError for the rest."""
    try:
        bound = inspect.signature(FUNCTIONS[name]).bind(*args, **kwargs)
    except TypeError:
        return None  # let the call raise NetworkX's TypeError
    bound.apply_defaults()
    a = bound.arguments
    if callable(a.get("weight")):
        return "edge weights given as a function"
    G = a["G"]  # noqa: N806
    multigraph = bool(getattr(G, "is_multigraph", lambda: False)())
    if name == "betweenness_centrality":
        if a["weight"] is not None:
            return "weighted shortest paths"
        if a["k"] is not None and not isinstance(a["k"], bool) and a["k"] == 0:
            return "k=0 sources"
    if name == "triangles" and multigraph and a["nodes"] is not None:
        return "triangles of chosen nodes of a multigraph"
    if name == "transitivity" and multigraph:
        return "a multigraph"
    return None


class BackendInterface:
    """The ``gblas`` backend: one attribute per implemented NetworkX function."""

    @staticmethod
    def convert_from_nx(G: Any, edge_attrs: dict[str, Any] | None = None,  # noqa: N803
                        node_attrs: dict[str, Any] | None = None,
                        preserve_edge_attrs: Any = False, preserve_node_attrs: Any = False,
                        preserve_graph_attrs: Any = False, name: str | None = None,
                        graph_name: str | None = None) -> GblasGraph:
        """A :class:`GblasGraph` of ``G`` with the numeric edge attributes ``edge_attrs``
        ({name: default}). Node attributes are never read by the implemented functions."""
        if isinstance(G, GblasGraph):
            return G
        if preserve_edge_attrs is True or isinstance(preserve_edge_attrs, dict):
            raise NotImplementedError("gblas converts named numeric edge attributes only")
        return from_networkx(G, edge_attrs, preserve_graph_attrs=bool(preserve_graph_attrs))

    @staticmethod
    def convert_to_nx(obj: Any, *, name: str | None = None) -> Any:
        """A NetworkX graph for a :class:`GblasGraph`; any other result as it is."""
        return to_networkx(obj) if isinstance(obj, GblasGraph) else obj

    @staticmethod
    def can_run(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool | str:
        if name not in FUNCTIONS:
            return False
        reason = _declined_reason(name, args, kwargs)
        if reason is None:
            return True
        _counts[name, "declined"] += 1
        return reason

    @staticmethod
    def should_run(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
        return True


def _counted(name: str, func: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(func)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            result = func(*args, **kwargs)
        except NotImplementedError:
            _counts[name, "declined"] += 1
            raise
        _counts[name, "gblas"] += 1
        return result

    return staticmethod(run)


for _name, _func in FUNCTIONS.items():
    setattr(BackendInterface, _name, _counted(_name, _func))

backend_interface = BackendInterface()


def get_info() -> dict[str, Any]:
    """``networkx.backend_info``: the backend's description, functions and config."""
    return {
        "backend_name": "gblas",
        "project": "gblas",
        "package": "gblas",
        "short_summary": "GraphBLAS on the CPU (NumPy/SciPy/Numba) and NVIDIA GPUs (CuPy).",
        "default_config": dict(DEFAULT_CONFIG),
        "functions": {
            name: ({"additional_docs": LIMITS[name]} if LIMITS[name] else {})
            for name in FUNCTIONS
        },
    }


__all__ = ["BackendInterface", "backend_interface", "dispatch_counts", "get_info",
           "reset_dispatch_counts"]
