"""Distributed gblas: matrices and vectors split over processes (MPI, and NCCL between GPUs).

    mpiexec -n 4 python -c '
    import gblas.distributed as gd
    from gblas.algorithms import bfs
    comm = gd.world()                        # MPI.COMM_WORLD; gd.world("cuda"): a GPU each
    A = gd.kronecker(20, comm=comm)          # each process generates and keeps its rows
    levels = bfs(A, 0)                       # the same gblas.algorithms.bfs, run on every rank
    print(comm.rank, levels.nvals)'

1D row partition (docs/distributed.md): process p owns a block of vertices, their rows of
A and of Aᵀ, and their entries of every vector (and their block of every index list, a
DistArray); local work runs on gblas' own kernels.
"""

from .comm import Comm, local_comm, mpi_available, world
from .indexing import DistArray
from .loader import kronecker, kronecker_serial, mmread
from .matrix import DistMatrix, DistTransposed, from_edges, from_matrix
from .partition import BlockPartition, Layout
from .validate import validate_bfs
from .vector import DistExpression, DistVector

__all__ = [
    "Comm", "local_comm", "mpi_available", "world", "kronecker", "kronecker_serial", "mmread",
    "DistMatrix", "DistTransposed", "from_edges", "from_matrix", "BlockPartition", "Layout",
    "validate_bfs", "DistExpression", "DistVector", "DistArray", "distribute",
]


def distribute(A, comm=None, *, name=None):  # noqa: N803
    """A DistMatrix from a gblas Matrix every process holds (each keeps its rows)."""
    return from_matrix(A, Layout(world() if comm is None else comm, A.nrows), name=name)
