"""Graph algorithms written only on gblas' public API (installed as ``gblas.algorithms``)."""

from .betweenness import betweenness_centrality
from .bfs import bfs
from .bfs_semiring import bfs_semiring
from .cc import connected_components
from .msbfs import msbfs
from .pagerank import pagerank
from .sssp import sssp
from .triangle_count import triangle_count
from .validate import BFSValidationError, validate_bfs

__all__ = [
    "bfs", "bfs_semiring", "msbfs", "validate_bfs", "BFSValidationError", "sssp",
    "connected_components", "pagerank", "triangle_count", "betweenness_centrality",
]
