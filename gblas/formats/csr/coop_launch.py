"""Cooperative kernel launches with argument buffers packed by ctypes (the GPU BFS kernels').

CuPy's kernel call converts every argument object at each call (30 for bfs_fused: ~20-35 µs
of a search's host time on the H100's host). :class:`CoopLaunch` hands the driver a
launch's values packed in a ctypes buffer; :class:`PackedLaunch` is such a buffer for a
search prepared once and repeated (bfs_fused.fused_bfs): every value fixed for the scratch
and the knobs is written once, and a call rewrites only the :data:`SLOTS` (the source, the
output arrays, the profile counters).
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from ...exceptions import InvalidValue


def _cp() -> Any:
    import cupy  # noqa: PLC0415 - only imported when the GPU path runs

    return cupy


_CTYPES = {"p": ctypes.c_uint64, "q": ctypes.c_int64, "i": ctypes.c_int32, "d": ctypes.c_double}
_NUMPY = {"p": np.uint64, "q": np.int64, "i": np.int32, "d": np.float64}


class CoopLaunch:
    """Cooperative launches of one kernel from argument buffers packed by ctypes
    (:class:`PackedLaunch`'s). ``types``: one letter per parameter, ``p`` a device pointer
    (give ``array.data.ptr``), ``q`` int64, ``i`` int32, ``d`` double. Without the driver
    entry point (older CuPy) it calls the kernel through CuPy."""

    def __init__(self, kern: Any, types: str) -> None:
        self.kern = kern
        self.types = types
        self.driver = getattr(_cp().cuda.driver, "launchCooperativeKernel", None)

    def launch(self, grid: int, block: int, vals: list[Any], ptrs: Any) -> None:
        """Launch on the current stream with the packed buffer ``vals`` (its pointer array
        ``ptrs``; the driver copies the values at launch)."""
        if self.driver is None:
            self.kern((grid,), (block,), tuple(_NUMPY[t](v.value) for t, v in
                                               zip(self.types, vals, strict=True)))
            return
        self.driver(self.kern.kernel.ptr, grid, 1, 1, block, 1, 1, 0,
                    _cp().cuda.get_current_stream().ptr, ctypes.addressof(ptrs))


class Slot:
    """An argument a prepared launch takes per call (:class:`PackedLaunch`): put in the
    argument tuple where the value goes; its place is found by identity."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"Slot({self.name!r})"


SOURCE = Slot("source")
# the output arrays, in the order the kernels take them (bfs_fused.Work.out_ptrs)
OUTPUTS = (Slot("levels"), Slot("bits"), Slot("parents"), Slot("count"))
PROFILE = Slot("profile")  # bfs_async's profile counters
# a call's values come in this order (PackedLaunch.__call__)
SLOTS = (SOURCE, *OUTPUTS, PROFILE)


class PackedLaunch:
    """One launch of a prepared search: ``launcher``'s kernel with ``grid`` x ``block``
    threads and ``args`` packed into a buffer of its own once; the :data:`SLOTS` among
    ``args`` are the values a call gives (in SLOTS order; a slot not among ``args`` is
    ignored). The buffer belongs to one scratch (bfs_fused.Work), which one search uses at
    a time, so a call takes no lock."""

    def __init__(self, launcher: CoopLaunch, grid: int, block: int,
                 args: tuple[Any, ...]) -> None:
        if len(args) != len(launcher.types):
            raise InvalidValue(f"{len(launcher.types)} kernel arguments expected, got "
                               f"{len(args)}")
        self.launcher, self.grid, self.block = launcher, grid, block
        self.vals = [_CTYPES[t](0 if isinstance(a, Slot) else a)
                     for t, a in zip(launcher.types, args, strict=True)]
        self.ptrs = (ctypes.c_void_p * len(args))(*(ctypes.addressof(v) for v in self.vals))
        # (argument index, index in SLOTS) of each slot the kernel takes
        self.places = tuple((i, SLOTS.index(a)) for i, a in enumerate(args)
                            if isinstance(a, Slot))

    def __call__(self, values: tuple[Any, ...]) -> None:
        vals = self.vals
        for i, k in self.places:
            vals[i].value = values[k]
        self.launcher.launch(self.grid, self.block, vals, self.ptrs)


__all__ = ["OUTPUTS", "PROFILE", "SLOTS", "SOURCE", "CoopLaunch", "PackedLaunch", "Slot"]
