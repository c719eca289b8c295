"""A NetworkX backend: ``nx.pagerank(G, backend="gblas")`` runs on gblas.

Installed with gblas (entry points ``networkx.backends`` and ``networkx.backend_info``,
name ``gblas``; NetworkX itself is the ``nx`` extra). The implemented functions are
``bfs_edges``, ``bfs_layers``, ``single_source_shortest_path_length``,
``single_source_bellman_ford_path_length``, ``pagerank``, ``connected_components``,
``number_connected_components``, ``triangles``, ``transitivity`` and
``betweenness_centrality``; ``docs/networkx.md`` says what each supports. The device is
``nx.config.backends.gblas.device`` (``"cpu"``, ``"cuda"``, ...).

``from_networkx(G)`` converts a graph once by hand; NetworkX's functions take the result
(a :class:`GblasGraph`) and run on gblas without converting again.
"""

from .convert import GblasGraph, from_networkx, to_networkx
from .device import graph_device
from .interface import backend_interface, dispatch_counts, get_info, reset_dispatch_counts

__all__ = ["GblasGraph", "backend_interface", "dispatch_counts", "from_networkx",
           "get_info", "graph_device", "reset_dispatch_counts", "to_networkx"]
