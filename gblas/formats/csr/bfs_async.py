"""The barrier-free BFS of ``bfs_async.cu``: for road networks and meshes (grids,
triangulations), whose hundreds to thousands of levels of a few to a few thousand vertices
each cost the fused kernel a grid barrier (or a block level) and a chain of L2 round trips
(docs/gpu_bfs_notes.md §7-§9). By default its look build runs (a neighbour's word read
before its CAS: most of a road vertex's neighbours are reached before it relaxes them).

:func:`gblas.formats.csr.bfs_fused.fused_bfs` launches it (``async_bfs``: by default where
:func:`prefers_async` says so) and then the fused kernel with stop 3, which runs the search
only where this kernel's queue overflowed; both write the same outputs, so the results and
the host's reads are the fused path's.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ...exceptions import InvalidValue
from .coop_launch import OUTPUTS, PROFILE, SOURCE, CoopLaunch, PackedLaunch

# The default picks the barrier-free kernel (its look build: a read before each CAS) for
# road networks and meshes: average out-degree from ASYNC_MIN_DEGREE to below ASYNC_DEGREE
# (roads 2-3, grids 4, triangulations 6) and at least ASYNC_MIN_N vertices. H200, 8
# sources, 2026-11-29 (trees of 58217be-c9eab59), kernel µs fused -> async -> async with
# the look: luxembourg_osm 3084 -> 2156 -> 2069, road-usroads 1737 -> 1216 -> 945, road:4M
# 15051 -> 13059 -> 7887, delaunay_n16 438 -> 512 -> 451, com-DBLP 184 -> 175 -> 162,
# urand:20,ef=1 519 -> 306 -> 309; grid 2048² ~14400 with the fused kernel, 7000-7350
# without the look and 7280-7330 with it (+0-4 %). Not Kronecker or uniform graphs of
# degree 16-32 and more (a few wide levels that want the direction switch and the balanced
# push; urand:20,ef=2, degree 4, is such a graph the rule takes: 281 -> 427), not small
# graphs (two launches).
# what stats, gb.last_plan() and info["kernel"] name where this kernel ran the search
KERNEL_NAME = "cuda_csr_bfs_async"
ASYNC_DEGREE = 8.0
ASYNC_MIN_DEGREE = 1.5
ASYNC_MIN_N = 1 << 16
# Longest row the default accepts: a lane takes AB_ROUND (1024) edges of a row a pass, so a
# hub's row is a chain of passes of one warp (the fused kernel splits hubs over the grid).
# The kernel compares it with the graph's longest row on the device and hands a graph over
# it to the fused kernel (no host read to decide).
ASYNC_MAX_ROW = 4096
# ns a warp with nothing to do sleeps before it polls its slots again (__nanosleep)
ASYNC_SLEEP_NS = 0
# slots of the queue an idle warp claims at once (one a lane): its other lanes take the
# vertices its own passes push (local continuation), so fewer claims keep more pushes local
ASYNC_CLAIM = 32
# kernel parameters, one letter each (coop_launch.CoopLaunch): a_ptr, a_idx; n, source;
# want_parents, log_steps, claim_lanes, sleep_ns; lw, par, aq; cap; max_row, row_limit; prof;
# ctr; the outputs; meta
_ASYNC_ARGS = "pp" + "qq" + "iiii" + "ppp" + "q" + "pq" + "p" + "p" + "ppppp"
# the profile build's counters (fused_bfs(async_profile=True)), in the kernel's order
PROFILE_KEYS = ("busy_passes", "idle_passes", "busy_cycles", "idle_cycles", "slots_taken",
                "handed_locally", "pushes", "take_cycles", "level_cycles", "cols_cycles",
                "cas_cycles", "place_cycles", "handover_cycles")


def _fused() -> Any:
    from . import bfs_fused  # (bfs_fused imports this module)

    return bfs_fused


@functools.cache
def get_kernel(device_id: int, idx32: bool, profile: bool = False,
               look: bool = False) -> tuple[Any, int, int]:
    """(kernel, blocks per SM, SMs): bfs_async compiled for ``device_id`` (int32 column ids
    where ``idx32``; the profile build, which counts its passes, where ``profile``; the look
    build, whose relaxations read a neighbour's word before its CAS, where ``look``),
    memoised per device, id width and build."""
    bf = _fused()
    cp = bf._cp()
    options = (("-std=c++17",) + (("-DFB_IDX32",) if idx32 else ())
               + (("-DAB_PROFILE",) if profile else ()) + (("-DAB_LOOK",) if look else ()))
    with cp.cuda.Device(device_id):
        mod = cp.RawModule(code=bf.module_source("bfs_async.cu"), options=options,
                           enable_cooperative_groups=True)
        kern = mod.get_function("bfs_async")
        return (kern, *bf.occupancy(kern, device_id))


@functools.cache
def _launcher(device_id: int, idx32: bool, profile: bool, look: bool) -> Any:
    return CoopLaunch(get_kernel(device_id, idx32, profile, look)[0], _ASYNC_ARGS)


def prefers_async(csr: Any, direction: str) -> bool:
    """The default of ``fused_bfs`` (``async_bfs=None``), from what the host knows: a push
    or auto search over a graph of at least ASYNC_MIN_N vertices and average out-degree
    from ASYNC_MIN_DEGREE to below ASYNC_DEGREE: road networks and meshes (the kernel itself
    hands a graph with a row over ASYNC_MAX_ROW to the fused kernel)."""
    n = csr.nrows
    if direction == "pull" or n < ASYNC_MIN_N:
        return False
    return ASYNC_MIN_DEGREE * n <= csr.nnz < ASYNC_DEGREE * n


def max_row_length(csr: Any) -> Any:
    """The longest row of ``csr`` as a one-element int64 array on its device (made once and
    kept on the CSR, whose arrays are not changed in place; nothing is read back)."""
    d = csr.__dict__
    if "_max_row_length" not in d:
        xp = csr.xp
        lens = csr.indptr[1:] - csr.indptr[:-1]
        d["_max_row_length"] = (lens.max(keepdims=True) if csr.nrows
                                else xp.zeros(1, dtype=lens.dtype))
        if xp is not np:  # a search on another stream waits for it there, not on the host
            d["_max_row_ready"] = xp.cuda.Event(block=False, disable_timing=True)
            d["_max_row_ready"].record()
    return d["_max_row_length"]


def _max_row_on_stream(csr: Any) -> Any:
    """max_row_length(csr), ordered before the current stream's next work (an event wait on
    the device where another stream made it)."""
    out = max_row_length(csr)
    ready = csr.__dict__.get("_max_row_ready")
    if ready is not None:
        csr.xp.cuda.get_current_stream().wait_event(ready)
    return out


def check_knobs(async_bfs: Any, async_cap: Any, sleep_ns: Any, claim: Any,
                profile: Any = False, look: Any = False) -> None:
    """InvalidValue unless ``async_bfs`` is None or a bool, ``async_cap`` None or a positive
    int, ``sleep_ns`` an int from 0 to 10**6, ``claim`` an int from 1 to 32 and ``profile``
    and ``look`` (fused_bfs's async_profile and async_look) bools."""
    if isinstance(claim, bool) or not isinstance(claim, int) or not 1 <= claim <= 32:
        raise InvalidValue(f"async_claim must be an int from 1 to 32, got {claim!r}")
    if async_bfs is not None and not isinstance(async_bfs, bool):
        raise InvalidValue(f"async_bfs must be None, True or False, got {async_bfs!r}")
    if async_cap is not None and (isinstance(async_cap, bool) or not isinstance(async_cap, int)
                                  or async_cap < 1):
        raise InvalidValue(f"async_cap must be a positive int or None, got {async_cap!r}")
    if isinstance(sleep_ns, bool) or not isinstance(sleep_ns, int) or not 0 <= sleep_ns <= 10**6:
        raise InvalidValue(f"async_sleep_ns must be an int from 0 to 1000000, got {sleep_ns!r}")
    for name, v in (("async_profile", profile), ("async_look", look)):
        if not isinstance(v, bool):
            raise InvalidValue(f"{name} must be True or False, got {v!r}")


def prepare(w: Any, graph: tuple[int, ...], idx32: bool, dev: int, parents: bool,
            log_steps: bool, grid: int, cap: int | None, sleep_ns: int, claim: int,
            row_limit: int, profile: bool = False, look: bool = False) -> PackedLaunch:
    """The launch of bfs_async over the scratch ``w`` (bfs_fused.Work; ``graph``: its
    pointers, A's CSR first), packed once: a call gives the source, the outputs and (the
    profile build, ``profile``) len(PROFILE_KEYS) zero uint64 counters on the device
    (coop_launch.SLOTS). The queue is the scratch's two frontier queues (2n slots, one
    allocation) unless ``cap`` asks fewer; a graph whose longest row is over ``row_limit``
    is left to the fused kernel launched next. The counters must be zero at launch (the
    kernel leaves them zero); ``look``: the look build (get_kernel). Its grid: at most
    ``grid`` blocks, at most those resident at once."""
    _, per_sm, sms = get_kernel(dev, idx32, profile, look)
    grid = min(grid, per_sm * sms)
    n = w.n
    slots = min(2 * n, cap) if cap is not None else 2 * n
    args = (graph[0], graph[1], n, SOURCE, int(bool(parents)), int(bool(log_steps)), claim,
            sleep_ns,
            w.lvl.data.ptr, w.par.data.ptr, w.q0.data.ptr, slots,
            _max_row_on_stream(w.csr).data.ptr, min(row_limit, 2**62),
            PROFILE if profile else 0, w.ctr.data.ptr,
            *OUTPUTS, w.meta.data.ptr)
    return PackedLaunch(_launcher(dev, idx32, profile, look), grid, _fused()._BLOCK, args)


__all__ = ["ASYNC_CLAIM", "ASYNC_DEGREE", "ASYNC_MAX_ROW", "ASYNC_MIN_DEGREE", "ASYNC_MIN_N",
           "ASYNC_SLEEP_NS", "KERNEL_NAME", "PROFILE_KEYS", "check_knobs", "get_kernel",
           "max_row_length", "prefers_async", "prepare"]
