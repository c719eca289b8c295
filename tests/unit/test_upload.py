"""The staged host-to-GPU copy (gblas.backend.upload) on the CPU, through a stand-in for
CuPy whose "device" memory is host memory: the chunking of the ring (several chunks, a
partial last one, slices per thread, buffers reused) and which arrays take which path. The
real copies are tested on GPUs (tests/gpu/test_gpu_ops.py)."""

from __future__ import annotations

import ctypes
import threading
from types import SimpleNamespace

import numpy as np
import pytest

from gblas.backend import upload


class _DevArray(np.ndarray):
    """A host array with CuPy's ``.data.ptr``."""

    @property
    def data(self):  # noqa: ANN202
        return SimpleNamespace(ptr=self.ctypes.data)


class _Event:
    def __init__(self, **_: object) -> None:
        self.records = 0

    def record(self, stream: object = None) -> None:
        self.records += 1

    def synchronize(self) -> None:
        pass


class _Device:
    def __init__(self, i: int = 0) -> None:
        self.id = i

    def __enter__(self) -> _Device:
        return self

    def __exit__(self, *exc: object) -> None:
        pass


class _FakeCupy:
    """What upload uses of CuPy; records the bytes of each host-to-device copy."""

    def __init__(self) -> None:
        self.copies: list[int] = []
        runtime = SimpleNamespace(memcpyAsync=self._memcpy, memcpyHostToDevice=1)
        self.cuda = SimpleNamespace(alloc_pinned_memory=bytearray, Event=_Event,
                                    runtime=runtime, Device=_Device,
                                    get_current_stream=lambda: SimpleNamespace(ptr=0))

    def _memcpy(self, dst: int, src: int, n: int, kind: int, stream: int) -> None:
        assert kind == 1 and n > 0
        self.copies.append(n)
        ctypes.memmove(dst, src, n)

    @staticmethod
    def empty(shape: tuple[int, ...], dtype: object) -> np.ndarray:
        return np.empty(shape, dtype=dtype).view(_DevArray)

    @staticmethod
    def asarray(a: np.ndarray) -> np.ndarray:
        return np.array(a).view(_DevArray)


@pytest.fixture
def small_ring(monkeypatch):  # noqa: ANN001, ANN201
    """Thresholds small enough for test arrays: 1 KiB copies staged, 256-byte buffers,
    64-byte slices."""
    monkeypatch.setattr(upload, "MIN_BYTES", 1024)
    monkeypatch.setattr(upload, "CHUNK", 256)
    monkeypatch.setattr(upload, "_SLICE", 64)
    upload._ring.cache_clear()
    yield _FakeCupy()
    upload._ring.cache_clear()


@pytest.mark.parametrize("nbytes", [1024, 1024 + 8, 4 * 256, 11 * 256 + 40, 5000 * 8])
def test_staged_copy_equals_the_source(small_ring, nbytes) -> None:  # noqa: ANN001
    cp = small_ring
    rng = np.random.default_rng(nbytes)
    src = rng.integers(0, 2**62, size=nbytes // 8)
    out = upload.to_device(src, cp)
    np.testing.assert_array_equal(np.asarray(out), src)
    assert cp.copies == [min(256, src.nbytes - o) for o in range(0, src.nbytes, 256)]
    again = upload.to_device(src[::-1].copy(), cp)  # the buffers reused
    np.testing.assert_array_equal(np.asarray(again), src[::-1])


def test_which_arrays_are_staged(small_ring) -> None:  # noqa: ANN001
    cp = small_ring
    grid = np.arange(60 * 7, dtype=np.float32).reshape(60, 7)  # 2-D, 1680 bytes
    np.testing.assert_array_equal(np.asarray(upload.to_device(grid, cp)), grid)
    assert sum(cp.copies) == grid.nbytes
    cp.copies.clear()
    for direct in (np.arange(10), grid[:, ::2], grid.T, np.arange(300, dtype=">i8"),
                   np.array([object()] * 200)):
        out = upload.to_device(direct, cp)  # small, strided, byte-swapped, objects
        assert np.asarray(out).shape == direct.shape
    assert cp.copies == []


def test_copies_from_threads_take_turns(small_ring) -> None:  # noqa: ANN001
    cp = small_ring
    arrays = [np.full(700, i, dtype=np.int64) for i in range(6)]
    outs: list[object] = [None] * len(arrays)

    def run(i: int) -> None:
        outs[i] = upload.to_device(arrays[i], cp)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(arrays))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for a, o in zip(arrays, outs):
        np.testing.assert_array_equal(np.asarray(o), a)
