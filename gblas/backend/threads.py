"""How many Numba threads a CPU kernel call gets: small inputs run on one."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numba

SERIAL_WORK = 1 << 15  # entries + rows below which a kernel runs on one thread


@contextmanager
def threads_for(work: int, serial_below: int = SERIAL_WORK) -> Iterator[None]:
    """Run small inputs (``work`` < ``serial_below``) on one thread: waking the pool costs
    more than the work, and on a loaded machine a parallel region over a tiny input can
    stall for milliseconds (a woken OpenMP thread waits for a core)."""
    if work >= serial_below:
        yield
        return
    prev = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        yield
    finally:
        numba.set_num_threads(prev)


__all__ = ["SERIAL_WORK", "threads_for"]
