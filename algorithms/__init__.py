"""Graph algorithms written only on gblas' public API (installed as ``gblas.algorithms``)."""

from .bfs import bfs
from .bfs_semiring import bfs_semiring
from .msbfs import msbfs
from .validate import BFSValidationError, validate_bfs

__all__ = ["bfs", "bfs_semiring", "msbfs", "validate_bfs", "BFSValidationError"]
