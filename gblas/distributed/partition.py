"""1D block partition of the vertices and the placement ("device") of distributed objects.

Process p owns the vertices ``offsets[p] <= v < offsets[p + 1]`` (``offsets[p] = p·n // P``,
blocks differ by at most one vertex), the rows of A for those vertices, the same rows of
Aᵀ (A's columns), and the entries of every vector at those indices.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..exceptions import DimensionMismatch, InvalidValue
from .comm import Comm


class BlockPartition:
    """``n`` indices in ``nparts`` contiguous blocks of sizes differing by at most one."""

    def __init__(self, n: int, nparts: int) -> None:
        if int(n) < 0 or int(nparts) < 1:
            raise InvalidValue(f"a partition needs n >= 0 and nparts >= 1, got {n}, {nparts}")
        self.n, self.nparts = int(n), int(nparts)
        self.offsets = np.array([p * self.n // self.nparts for p in range(self.nparts + 1)],
                                dtype=np.int64)

    def range(self, part: int) -> tuple[int, int]:
        return int(self.offsets[part]), int(self.offsets[part + 1])

    def owner(self, idx: Any) -> Any:
        """The part of every index (an array of the same module as ``idx``)."""
        if type(idx).__module__.startswith("cupy"):
            import cupy  # noqa: PLC0415

            return cupy.searchsorted(cupy.asarray(self.offsets), idx, side="right") - 1
        return np.searchsorted(self.offsets, idx, side="right") - 1

    def order_by_owner(self, owners: Any) -> Any:
        """A stable order of the entries whose parts are ``owners`` that groups them by
        part, in rank order. On the host the parts are sorted as 16-bit keys while they fit:
        NumPy's stable sort of those is a radix sort, one of int64 a merge sort."""
        if isinstance(owners, np.ndarray) and self.nparts <= np.iinfo(np.int16).max:
            owners = owners.astype(np.int16)
        return owners.argsort(kind="stable")

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, BlockPartition) and other.n == self.n
                and other.nparts == self.nparts)

    def __hash__(self) -> int:
        return hash((self.n, self.nparts))


class Layout:
    """Where a distributed object lives: its processes (:class:`Comm`), the partition of its
    ``n`` indices, and the device of each process's part.

    A Layout is the ``device`` attribute of DistMatrix and DistVector, so code written as
    ``Vector(INT64, n, device=A.device)`` (the algorithms of gblas.algorithms) creates a
    DistVector partitioned like A.
    """

    distributed = True

    def __init__(self, comm: Comm, n: int) -> None:
        self.comm = comm
        self.part = BlockPartition(n, comm.size)
        self.n = int(n)
        self.rank = comm.rank
        self.lo, self.hi = self.part.range(comm.rank)
        self.n_local = self.hi - self.lo
        self.local_device = comm.device
        # what the last exchanges sent from this process: "bytes" (running total) and
        # "encoding" (sparse, bitmap or routed), for benchmarks and tests
        self.comm_stats: dict[str, Any] = {}

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Layout) and other.comm is self.comm
                and other.part == self.part)

    def __hash__(self) -> int:
        return hash((id(self.comm), self.part))

    def __str__(self) -> str:
        return f"mpi[{self.comm.size}]:{self.local_device}"

    __repr__ = __str__

    def check_size(self, size: int, what: str = "vector") -> None:
        if int(size) != self.n:
            raise DimensionMismatch(
                f"a distributed {what} of size {size} cannot use a layout of {self.n} "
                "indices; make it from a DistMatrix of that many rows")

    # the hooks gblas.Vector calls when given a Layout as its device
    def new_vector(self, dtype: Any, size: int, *, name: str | None = None) -> Any:
        from .vector import DistVector  # noqa: PLC0415

        self.check_size(size)
        return DistVector(dtype, self, name=name)

    def vector_from_dense(self, values: Any, missing_value: Any = None, *,
                          dtype: Any = None, name: str | None = None) -> Any:
        """A DistVector from a full-length array every process holds (each keeps its part)."""
        from .. import Vector  # noqa: PLC0415
        from .vector import DistVector  # noqa: PLC0415

        arr = np.asarray(values.get() if hasattr(values, "get") else values)
        if arr.ndim != 1:
            raise DimensionMismatch(f"from_dense needs a 1-D array, got shape {arr.shape}")
        self.check_size(arr.shape[0])
        local = Vector.from_dense(arr[self.lo:self.hi], missing_value, dtype=dtype,
                                  device=self.local_device)
        return DistVector._wrap(local, self, name)
