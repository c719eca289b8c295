"""How many Numba threads a CPU kernel call gets: small inputs run on one; and how the
OpenMP pool behind Numba's parallel kernels waits between and inside parallel regions."""

from __future__ import annotations

import os
from collections.abc import Callable

import numba

SERIAL_WORK = 1 << 15  # entries + rows below which a kernel runs on one thread

# GNU OpenMP's barrier spins GOMP_SPINCOUNT times before it sleeps; its default (300 000,
# about 7 ms on the 2-core EPYC VM) is what a thread that finished its share burns while
# the other waits for a core. With another process on the second core, every parallel
# region of gblas then lasted ~8 ms whatever its work (a 0.44 ms min.second pull took 8.0
# ms with 2 threads; PageRank on luxembourg_osm 296 ms against 27 ms on one thread,
# 2026-11-26): the spinning master holds the core its own worker is waiting for. A short
# spin keeps back-to-back regions on an idle machine from sleeping, and yields the core
# within tens of microseconds on a loaded one.
GOMP_SPIN = "1000"


def start_pool() -> str | None:
    """Start Numba's thread pool now, with libgomp's spin count short unless the user set
    ``GOMP_SPINCOUNT`` or ``OMP_WAIT_POLICY``. libgomp reads its environment once, when it
    is loaded (by the pool's start), so the variable is set only around that start and
    removed again: an OpenMP runtime loaded later (SuiteSparse's own copy, say) keeps its
    defaults. Returns the threading layer (None when the pool cannot start)."""
    user = "GOMP_SPINCOUNT" in os.environ or "OMP_WAIT_POLICY" in os.environ
    if not user:
        os.environ["GOMP_SPINCOUNT"] = GOMP_SPIN
    try:
        numba.get_num_threads()  # launches the pool (loads libgomp) on the first call
        return str(numba.threading_layer())
    except (ValueError, RuntimeError, ImportError):  # no threading layer: serial kernels
        return None
    finally:
        if not user:
            del os.environ["GOMP_SPINCOUNT"]


# Numba's public get/set_num_threads take a lock and re-check the pool on every call (2-3
# µs each on the 2-core VM: a tiny mxv asked for the count three times and set it twice);
# once the pool runs, the threading layer's own functions answer in ~0.3 µs. Bound by
# _bind_fast below; the public ones where Numba has no such functions.
_GET: list[Callable[[], int]] = [numba.get_num_threads]
_SET: list[Callable[[int], None]] = [numba.set_num_threads]


def num_threads() -> int:
    """Numba's thread count for the calling thread (numba.get_num_threads, cheaper)."""
    return _GET[0]()


class threads_for:  # noqa: N801 - used as ``with threads_for(work):``, like a function
    """Run small inputs (``work`` < ``serial_below``) on one thread: waking the pool costs
    more than the work, and on a loaded machine a parallel region over a tiny input can
    stall for milliseconds (a woken OpenMP thread waits for a core). A class rather than a
    generator context manager: ~0.5 µs a use instead of ~2 (every small operation uses
    one)."""

    __slots__ = ("prev", "serial")

    def __init__(self, work: int, serial_below: int = SERIAL_WORK) -> None:
        self.serial = work < serial_below
        self.prev = 0

    def __enter__(self) -> None:
        if self.serial:
            prev = _GET[0]()
            if prev != 1:
                _SET[0](1)
                self.prev = prev

    def __exit__(self, *exc: object) -> None:
        if self.prev:
            _SET[0](self.prev)
            self.prev = 0


def _set_chunksize(n: int) -> int:
    """Set the chunk size of the parallel loops; returns the previous one."""
    prev = numba.get_parallel_chunksize()
    numba.set_parallel_chunksize(n)
    return int(prev)


_CHUNK: list[Callable[[int], int]] = [_set_chunksize]


class chunksize:  # noqa: N801 - used as ``with chunksize(n):``, like numba's
    """``numba.parallel_chunksize(n)`` without its cost (~9 µs: two locked calls of the
    public API each way; here ~1 µs through the threading layer)."""

    __slots__ = ("n", "prev")

    def __init__(self, n: int) -> None:
        self.n = n
        self.prev = 0

    def __enter__(self) -> None:
        self.prev = _CHUNK[0](self.n)

    def __exit__(self, *exc: object) -> None:
        _CHUNK[0](self.prev)


def _bind_fast() -> None:
    """Use the threading layer's get/set functions once the pool has started."""
    try:
        from numba.np.ufunc import parallel  # noqa: PLC0415

        get, put = parallel._get_num_threads, parallel._set_num_threads
        chunk = parallel._set_parallel_chunksize
    except (ImportError, AttributeError):
        return
    if callable(get) and callable(put) and get() == numba.get_num_threads():
        _GET[0], _SET[0] = get, put
    if callable(chunk):
        _CHUNK[0] = chunk


if start_pool() is not None:
    _bind_fast()

__all__ = ["GOMP_SPIN", "SERIAL_WORK", "chunksize", "num_threads", "start_pool", "threads_for"]
