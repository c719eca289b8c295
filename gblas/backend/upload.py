"""Host-to-GPU copies of large NumPy arrays through page-locked staging buffers.

``cupy.asarray(numpy_array)`` copies from pageable host memory: the CUDA driver stages it
through page-locked memory with one host thread, ~10 GB/s on the H200 machines' hosts
(urand:22's 1.6 GB of CSR arrays took 160 ms; docs/benchmarks.md, "The first BFS on a new
graph"). Here the host's threads copy slices of the array into a ring of page-locked
buffers (NumPy's copy releases the GIL) while the copy engine moves the buffers filled
before; the ring (64 MB of page-locked memory) is allocated once per device, on the first
large copy, and kept; copies through it from several threads take turns.

Arrays below ``MIN_BYTES`` (and non-contiguous ones) go through ``cupy.asarray``: page
locking and the thread pool only pay on large copies. The result is ordered on the current
stream like ``cupy.asarray``'s (kernels launched after it on that stream see the data);
the host array may change as soon as this returns.
"""

from __future__ import annotations

import functools
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

MIN_BYTES = 64 << 20  # smaller copies go through cupy.asarray
CHUNK = 16 << 20  # bytes a staging buffer holds
NBUF = 4  # staging buffers in the ring: the host fills one while the others travel
_SLICE = 4 << 20  # bytes a host thread copies at once


class _Ring:
    """Page-locked staging buffers of one device, an event each (its last copy's end), and
    the threads that fill them."""

    def __init__(self, cp: Any) -> None:
        self.cp = cp
        self.mem = [cp.cuda.alloc_pinned_memory(CHUNK) for _ in range(NBUF)]
        self.bufs = [np.frombuffer(m, dtype=np.uint8, count=CHUNK) for m in self.mem]
        self.done = [cp.cuda.Event(block=False, disable_timing=True) for _ in range(NBUF)]
        for ev in self.done:
            ev.record()
        self.pool = ThreadPoolExecutor(max_workers=max(1, min(8, os.cpu_count() or 1)),
                                       thread_name_prefix="gblas-upload")
        self.lock = threading.Lock()  # one copy at a time through the buffers

    def copy(self, src: np.ndarray, dst_ptr: int) -> None:
        """Copy the bytes ``src`` (uint8, contiguous) to device address ``dst_ptr``."""
        with self.lock:
            self._copy(src, dst_ptr)

    def _copy(self, src: np.ndarray, dst_ptr: int) -> None:
        rt, stream = self.cp.cuda.runtime, self.cp.cuda.get_current_stream()
        for i, off in enumerate(range(0, src.shape[0], CHUNK)):
            b, n = i % NBUF, min(CHUNK, src.shape[0] - off)
            self.done[b].synchronize()  # the buffer's last copy has left it
            buf, part = self.bufs[b][:n], src[off:off + n]
            list(self.pool.map(_copy_slice, [(buf, part, a) for a in range(0, n, _SLICE)]))
            rt.memcpyAsync(dst_ptr + off, buf.ctypes.data, n,
                           rt.memcpyHostToDevice, stream.ptr)
            self.done[b].record(stream)


def _copy_slice(job: tuple[np.ndarray, np.ndarray, int]) -> None:
    """Copy bytes a:a + _SLICE of the chunk into the staging buffer (GIL released)."""
    buf, part, a = job
    np.copyto(buf[a:a + _SLICE], part[a:a + _SLICE])


@functools.cache
def _ring(cp: Any, device_id: int) -> _Ring:
    with cp.cuda.Device(device_id):
        return _Ring(cp)


def to_device(arr: Any, cp: Any) -> Any:
    """``cupy.asarray(arr)`` on the current device, staged through page-locked buffers by
    several host threads when ``arr`` is a large contiguous NumPy array."""
    if (not isinstance(arr, np.ndarray) or arr.nbytes < MIN_BYTES
            or not arr.flags.c_contiguous or arr.dtype.hasobject or not arr.dtype.isnative):
        return cp.asarray(arr)
    out = cp.empty(arr.shape, dtype=arr.dtype)
    _ring(cp, cp.cuda.Device().id).copy(arr.reshape(-1).view(np.uint8), out.data.ptr)
    return out


__all__ = ["CHUNK", "MIN_BYTES", "NBUF", "to_device"]
