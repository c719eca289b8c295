"""The one place gblas talks to MPI (mpi4py) and NCCL (CuPy): collectives on arrays.

A :class:`Comm` is a group of processes (an MPI communicator, or one process alone) plus
the device each process computes on. Host arrays (NumPy) travel through MPI; device arrays
(CuPy) through an NCCL communicator built over the same processes (one GPU per process),
so device buffers never pass through the host. Small control values (counts, flags,
reduced scalars) always go through MPI, on the host.

NCCL has no variable-size all-to-all or all-gather: ``alltoallv`` is a group of
point-to-point send/recv pairs and ``allgatherv`` an all-gather of buffers padded to the
largest part (the sizes are exchanged first through MPI). Set ``NCCL_NVLS_ENABLE=0`` in
the environment of every process (NVLink multicast is off on the machines gblas is tested
on); :func:`world` sets it when it is unset.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._device import get_array_module, normalize_device
from ..exceptions import InvalidValue


def mpi_available() -> bool:
    """True when mpi4py imports (an MPI library is installed)."""
    try:
        import mpi4py  # noqa: F401, PLC0415 - optional dependency
    except ImportError:
        return False
    return True


def _is_device_array(arr: Any) -> bool:
    return type(arr).__module__.startswith("cupy")


class Comm:
    """Collectives over ``size`` processes, this one being ``rank``; arrays live on ``device``.

    ``mpi_comm`` is an ``mpi4py.MPI.Comm`` or None for a single process without MPI.
    """

    def __init__(self, mpi_comm: Any = None, device: str = "cpu") -> None:
        self.mpi = mpi_comm
        self.rank = 0 if mpi_comm is None else int(mpi_comm.Get_rank())
        self.size = 1 if mpi_comm is None else int(mpi_comm.Get_size())
        self.device = normalize_device(device)
        self.xp = get_array_module(self.device)
        self._nccl: Any = None
        if self.device != "cpu":
            self._nccl = _NcclGroup(self)

    def __repr__(self) -> str:
        kind = "MPI" if self.mpi is not None else "self"
        nccl = "+NCCL" if self._nccl is not None else ""
        return f"Comm({kind}{nccl}, rank {self.rank} of {self.size}, {self.device})"

    # ---------------------------------------------------------------- small host values
    def allreduce(self, value: Any, op: str = "sum") -> Any:
        """A host number reduced over the processes (``op``: sum, max, min, land, lor)."""
        if self.mpi is None:
            return value
        from mpi4py import MPI  # noqa: PLC0415

        ops = {"sum": MPI.SUM, "max": MPI.MAX, "min": MPI.MIN, "land": MPI.LAND,
               "lor": MPI.LOR}
        return self.mpi.allreduce(value, op=ops[op])

    def allgather(self, obj: Any) -> list[Any]:
        """Every process's ``obj`` (any picklable value), in rank order."""
        return [obj] if self.mpi is None else self.mpi.allgather(obj)

    def bcast(self, obj: Any, root: int = 0) -> Any:
        return obj if self.mpi is None else self.mpi.bcast(obj, root=root)

    def exscan(self, value: int) -> int:
        """Sum of ``value`` over the lower ranks (0 on rank 0)."""
        if self.mpi is None:
            return 0
        from mpi4py import MPI  # noqa: PLC0415

        out = self.mpi.exscan(int(value), op=MPI.SUM)
        return 0 if out is None else int(out)

    def barrier(self) -> None:
        if self.mpi is not None:
            self.mpi.Barrier()

    # ---------------------------------------------------------------- array collectives
    def allreduce_array(self, arr: Any, op: str = "sum") -> Any:
        """Element-wise reduction of equal-shape arrays (host or device) over processes."""
        if _is_device_array(arr) and self._nccl is not None:
            return self._nccl.allreduce(arr, op)  # NCCL even alone: one GPU tests the path
        if self.size == 1:
            return arr.copy()
        from mpi4py import MPI  # noqa: PLC0415

        ops = {"sum": MPI.SUM, "max": MPI.MAX, "min": MPI.MIN, "lor": MPI.LOR,
               "land": MPI.LAND, "bor": MPI.BOR}
        send = np.ascontiguousarray(arr)
        out = np.empty_like(send)
        self.mpi.Allreduce(send, out, op=ops[op])
        return out

    def allgatherv(self, arr: Any) -> tuple[Any, list[int]]:
        """Every process's 1-D ``arr`` concatenated in rank order, and the part sizes."""
        counts = [int(c) for c in self.allgather(int(arr.shape[0]))]
        if _is_device_array(arr) and self._nccl is not None:
            return self._nccl.allgatherv(arr, counts), counts
        if self.size == 1:
            return arr.copy(), counts
        send = np.ascontiguousarray(arr)
        out = np.empty(sum(counts), dtype=send.dtype)
        self.mpi.Allgatherv(_buf(send), [_buf(out), counts])
        return out, counts

    def allgather_equal(self, arr: Any, out: Any = None) -> Any:
        """Every process's 1-D ``arr``, all of one size known to every process (no sizes are
        exchanged), concatenated in rank order; into ``out`` when given (contiguous, of
        ``arr``'s dtype and size times the processes), a buffer reused level after level."""
        if _is_device_array(arr) and self._nccl is not None:
            return self._nccl.allgather_equal(arr, out)
        send = np.ascontiguousarray(arr)
        if out is None:
            out = np.empty(send.shape[0] * self.size, dtype=send.dtype)
        if self.size == 1:
            out[:] = send
        else:
            self.mpi.Allgather(_buf(send), _buf(out))
        return out

    def alltoallv(self, arr: Any, send_counts: Sequence[int],
                  recv_counts: Sequence[int] | None = None, *,
                  send_offsets: Sequence[int] | None = None) -> tuple[Any, list[int]]:
        """Send ``arr[offsets[p]:offsets[p+1]]`` to process p (parts in rank order);
        returns what arrived, in rank order of the senders, and the received sizes.
        ``recv_counts``: the sizes this process receives when already known (a second
        array beside the first, a reply), which saves the exchange of the counts.
        ``send_offsets``: where each process's part starts in ``arr`` when the parts are
        not consecutive (they may overlap), instead of the running sum of the counts."""
        send_counts = [int(c) for c in send_counts]
        if len(send_counts) != self.size or (send_offsets is not None
                                             and len(send_offsets) != self.size):
            what = "" if send_offsets is None else f" and {len(send_offsets)} offsets"
            raise InvalidValue(f"alltoallv needs one count (and offset) per process "
                               f"({self.size}), got {len(send_counts)} counts{what}")
        recv_counts = (self.alltoall_counts(send_counts) if recv_counts is None
                       else [int(c) for c in recv_counts])
        soff = (np.concatenate([[0], np.cumsum(send_counts)[:-1]]) if send_offsets is None
                else np.asarray(send_offsets)).astype(np.int64)
        if _is_device_array(arr) and self._nccl is not None:
            return self._nccl.alltoallv(arr, send_counts, recv_counts, soff), recv_counts
        if self.size == 1:
            return arr[int(soff[0]):int(soff[0]) + send_counts[0]].copy(), recv_counts
        send = np.ascontiguousarray(arr)
        out = np.empty(sum(recv_counts), dtype=send.dtype)
        self.mpi.Alltoallv([_buf(send), (send_counts, soff.tolist())], [_buf(out), recv_counts])
        return out, recv_counts

    def alltoall_counts(self, send_counts: Sequence[int]) -> list[int]:
        """How many elements every process sends to this one (one small MPI alltoall)."""
        if self.mpi is None:
            return [int(c) for c in send_counts]
        counts = np.asarray(send_counts, dtype=np.int64)
        recv = np.empty(self.size, dtype=np.int64)
        self.mpi.Alltoall(counts, recv)
        return recv.tolist()


def _buf(arr: np.ndarray) -> np.ndarray:
    """A buffer MPI can type: bool travels as uint8 (same bytes)."""
    return arr.view(np.uint8) if arr.dtype == np.bool_ else arr


class _NcclGroup:
    """An NCCL communicator over the processes of an MPI communicator, one GPU each."""

    def __init__(self, comm: Comm) -> None:
        import cupy  # noqa: PLC0415
        from cupy.cuda import nccl  # noqa: PLC0415

        self.cp, self.nccl, self.comm = cupy, nccl, comm
        self.device_id = int(comm.device.split(":")[1])
        uid = nccl.get_unique_id() if comm.rank == 0 else None
        uid = comm.bcast(uid, root=0)
        with cupy.cuda.Device(self.device_id):
            self.nc = nccl.NcclCommunicator(comm.size, uid, comm.rank)
        self._types = {
            np.dtype(np.int8): nccl.NCCL_INT8, np.dtype(np.uint8): nccl.NCCL_UINT8,
            np.dtype(np.bool_): nccl.NCCL_UINT8, np.dtype(np.int32): nccl.NCCL_INT32,
            np.dtype(np.uint32): nccl.NCCL_UINT32, np.dtype(np.int64): nccl.NCCL_INT64,
            np.dtype(np.uint64): nccl.NCCL_UINT64, np.dtype(np.float32): nccl.NCCL_FLOAT32,
            np.dtype(np.float64): nccl.NCCL_FLOAT64,
        }
        self._ops = {"sum": nccl.NCCL_SUM, "max": nccl.NCCL_MAX, "min": nccl.NCCL_MIN,
                     "lor": nccl.NCCL_MAX, "land": nccl.NCCL_MIN}

    def _type(self, arr: Any) -> Any:
        try:
            return self._types[np.dtype(arr.dtype)]
        except KeyError:
            raise InvalidValue(f"NCCL cannot send arrays of dtype {arr.dtype}") from None

    def _stream(self) -> int:
        return self.cp.cuda.get_current_stream().ptr

    def allreduce(self, arr: Any, op: str) -> Any:
        if op == "bor":
            raise InvalidValue("NCCL has no bitwise-or reduction; reduce bool arrays with lor")
        send = self.cp.ascontiguousarray(arr)
        out = self.cp.empty_like(send)
        self.nc.allReduce(send.data.ptr, out.data.ptr, send.size, self._type(send),
                          self._ops[op], self._stream())
        return out

    def allgatherv(self, arr: Any, counts: list[int]) -> Any:
        cp, width = self.cp, max(counts)
        send = cp.zeros(width, dtype=arr.dtype)
        send[:arr.shape[0]] = arr
        padded = cp.empty(width * len(counts), dtype=arr.dtype)
        if width:
            self.nc.allGather(send.data.ptr, padded.data.ptr, width, self._type(send),
                              self._stream())
        parts = [padded[p * width:p * width + c] for p, c in enumerate(counts)]
        return cp.concatenate(parts) if parts else padded[:0]

    def allgather_equal(self, arr: Any, out: Any = None) -> Any:
        send = self.cp.ascontiguousarray(arr)
        if out is None:
            out = self.cp.empty(send.shape[0] * self.comm.size, dtype=send.dtype)
        if send.shape[0]:
            self.nc.allGather(send.data.ptr, out.data.ptr, send.shape[0], self._type(send),
                              self._stream())
        return out

    def alltoallv(self, arr: Any, send_counts: list[int], recv_counts: list[int],
                  soff: np.ndarray) -> Any:
        cp = self.cp
        send = cp.ascontiguousarray(arr)
        out = cp.empty(sum(recv_counts), dtype=send.dtype)
        roff = np.concatenate([[0], np.cumsum(recv_counts)]).astype(np.int64)
        dt, stream, item = self._type(send), self._stream(), send.itemsize
        self.nccl.groupStart()
        for p in range(self.comm.size):
            if send_counts[p]:
                self.nc.send(send.data.ptr + int(soff[p]) * item, send_counts[p], dt, p, stream)
            if recv_counts[p]:
                self.nc.recv(out.data.ptr + int(roff[p]) * item, recv_counts[p], dt, p, stream)
        self.nccl.groupEnd()
        return out


_WORLD: dict[str, Comm] = {}


def world(device: str = "cpu") -> Comm:
    """The processes started together (``mpiexec -n P``): MPI's COMM_WORLD when mpi4py is
    installed, else this process alone. ``device="cuda"`` gives each process the GPU
    ``rank % number of GPUs`` and an NCCL communicator for device buffers. Cached per
    device name."""
    os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
    mpi_comm = None
    if mpi_available():
        from mpi4py import MPI  # noqa: PLC0415

        mpi_comm = MPI.COMM_WORLD
    if device not in ("cpu", None) and str(device).strip().lower() in ("cuda", "gpu", "auto"):
        from .._device import cuda_available  # noqa: PLC0415

        if str(device).strip().lower() == "auto" and not cuda_available():
            device = "cpu"
        else:
            rank = 0 if mpi_comm is None else mpi_comm.Get_rank()
            ngpu = get_array_module("cuda:0").cuda.runtime.getDeviceCount()
            device = f"cuda:{rank % ngpu}"
            # the process's GPU becomes its current device, so that CuPy calls made
            # outside a ``with Device(...)`` block (in gblas or the user's code) run there
            get_array_module(device).cuda.Device(rank % ngpu).use()
    dev = normalize_device(device)
    if dev not in _WORLD:
        _WORLD[dev] = Comm(mpi_comm, dev)
    return _WORLD[dev]


def local_comm(device: str = "cpu") -> Comm:
    """This process alone (no MPI): distributed objects of one part, for tests and for
    running distributed code without ``mpiexec``."""
    return Comm(None, device)
