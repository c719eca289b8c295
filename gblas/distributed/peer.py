"""Device words shared in place by the GPU processes of one node (CUDA IPC over NVLink).

``PeerWords`` is one allocation per process: ``nbuf`` arrays of ``words`` uint32 and P int64
flags after them (flag p: what process p last published to this one). Every process maps
every other process's allocation (``cudaIpcGetMemHandle`` / ``cudaIpcOpenMemHandle``, peer
access enabled by the open), so a kernel reads the peers' arrays in place: the distributed
BFS reads the peers' new frontier words this way instead of all-gathering them through
NCCL, and orders the reads by the flags (``bfs_levels.cu``: a level's sequence number
written into every peer's flag of this process after its kernels, waited for before the
reads; docs/distributed.md). A process signals by remote stores and waits on its own
memory, not by polling a peer's flag over NVLink from every block of a kernel.
``peer_words`` decides together with the other processes whether this works here: more
than one process, GPUs, one node, a distinct GPU for each process (a process waiting on a
GPU it shares with its peer could hold the kernel the peer needs), and the IPC calls
succeed everywhere; otherwise every process gets None and the caller keeps its collectives.
"""

from __future__ import annotations

from typing import Any

import numpy as np


class PeerWords:
    """This process's arrays (``arrays[b]``) and the device addresses of every process's,
    by rank (``parts(b)``), and ``flags`` for the kernels (uint64 device array of 2P
    addresses: [0, P) this process's flag on process q, written to signal; [P, 2P) process
    p's flag here, read to wait)."""

    def __init__(self, words: int, nbuf: int, mem: Any, bases: list[int],
                 opened: list[int], rank: int) -> None:
        import cupy as cp  # noqa: PLC0415

        self.words, self.nbuf, self.mem, self._opened = words, nbuf, mem, opened
        nbytes = 4 * words
        self.arrays = tuple(cp.ndarray((words,), dtype=np.uint32,
                                       memptr=cp.cuda.MemoryPointer(mem, b * nbytes))
                            for b in range(nbuf))
        self._parts = [cp.asarray(np.array([x + b * nbytes for x in bases], dtype=np.uint64))
                       for b in range(nbuf)]
        flag0 = [x + nbuf * nbytes for x in bases]  # every process's flags, by rank
        self.flags = cp.asarray(np.array([f + 8 * rank for f in flag0]
                                         + [flag0[rank] + 8 * p for p in range(len(bases))],
                                         dtype=np.uint64))

    def parts(self, b: int) -> Any:
        """The addresses of every process's array ``b``, by rank."""
        return self._parts[b]

    def close(self) -> None:
        """Unmap the peers' allocations (this process's own is freed with ``mem``)."""
        import cupy as cp  # noqa: PLC0415

        for ptr in self._opened:
            try:
                cp.cuda.runtime.ipcCloseMemHandle(ptr)
            except Exception:  # noqa: BLE001, S110 - at exit the context may be gone
                pass
        self._opened = []

    def __del__(self) -> None:
        self.close()


def _one_node_distinct_gpus(comm: Any) -> bool:
    """Whether every process runs on this node and on a GPU of its own (collective)."""
    import cupy as cp  # noqa: PLC0415
    from mpi4py import MPI  # noqa: PLC0415

    local = comm.mpi.Split_type(MPI.COMM_TYPE_SHARED)
    try:
        same_node = int(local.Get_size()) == comm.size
    finally:
        local.Free()
    buses = comm.allgather(str(cp.cuda.Device().pci_bus_id))
    return same_node and len(set(buses)) == comm.size


def peer_words(comm: Any, words: int, nbuf: int = 2) -> PeerWords | None:
    """Shared arrays for the processes of ``comm`` (zeroed; collective: every process calls
    it with the same sizes), or None on every process when any of them cannot have them."""
    if comm.size == 1 or comm.device == "cpu" or comm.mpi is None:
        return None
    import cupy as cp  # noqa: PLC0415

    if not _one_node_distinct_gpus(comm):
        return None
    mem, handle = None, None
    try:
        size = nbuf * 4 * words + 8 * comm.size
        mem = cp.cuda.Memory(size)  # its own cudaMalloc: the IPC handle maps exactly it
        cp.cuda.runtime.memset(mem.ptr, 0, size)
        handle = bytes(cp.cuda.runtime.ipcGetMemHandle(mem.ptr))
    except Exception:  # noqa: BLE001 - no IPC here: the collectives instead
        handle = None
    handles = comm.allgather(handle)
    if any(h is None for h in handles):
        return None
    bases, opened, ok = [], [], True
    for p, h in enumerate(handles):
        if p == comm.rank:
            bases.append(int(mem.ptr))
            continue
        try:
            ptr = int(cp.cuda.runtime.ipcOpenMemHandle(h))
        except Exception:  # noqa: BLE001
            ok = False
            break
        bases.append(ptr)
        opened.append(ptr)
    cp.cuda.Device().synchronize()  # the zeroing before any peer's first write
    if not comm.allreduce(int(ok), "min"):
        for ptr in opened:
            cp.cuda.runtime.ipcCloseMemHandle(ptr)
        return None
    return PeerWords(words, nbuf, mem, bases, opened, comm.rank)


__all__ = ["PeerWords", "peer_words"]
