"""The direction-optimising BFS as a device-driven level loop: ordinary kernel launches,
one CUDA graph per level body, one host read per K levels.

``levels_bfs(A, source, ...)`` runs the phases of the fused kernel (``bfs_common.cuh``) as
non-cooperative launches from ``bfs_levels.cu``: ``bfs_lv_init`` (level 0) and
``bfs_lv_begin`` (the loop state and level 1's direction, 1 block), then the level body
``bfs_lv_prep`` → ``bfs_lv_phase`` → ``bfs_lv_step`` (a 1-block kernel that folds the
level's counters into the loop state in device memory, sets the done flag and takes the
next level's direction by LAGraph's rule). The host never reads a count per level: it
captures the body once into a CUDA graph (CuPy stream capture) and replays it
``levels_per_sync`` (K) times, then reads the done flag (an async copy into pinned memory
and an event). A replay after the end is a no-op: every kernel reads the flag and returns.
From the second batch on, the next batch is enqueued before the host waits on the current
one, so the device does not idle during the host's read; a search of at most K levels (most
low-diameter graphs) enqueues one batch and reads once.

Without graph capture (``use_graph=False``, or a CuPy / driver that refuses it) the same K
bodies are launched directly on the stream: still one host read per K levels, with
3 launches per level issued by the host.

Results: the same as ``fused_bfs`` and the CPU ``bfs()``: levels, parents (smallest-index
vertex one level up) and the sequence of directions.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ...exceptions import InvalidValue
from .bfs_fused import (
    _BLOCK,
    _MODES,
    Work,
    _cp,
    _default_blocks_per_sm,
    _device_id,
    check_args,
    module_source,
    occupancy,
)

KERNEL_NAME = "cuda_csr_bfs_levels"
DEFAULT_LEVELS_PER_SYNC = 8
_STATE_WORDS = 16  # FB_LOOP_WORDS: the loop state, int64 words; word 0 is the done flag
_D2H = 2  # cudaMemcpyDeviceToHost


@functools.cache
def get_kernels(device_id: int) -> tuple[dict[str, Any], int, int]:
    """(kernels by name, blocks per SM of the phase kernel, SMs) for ``device_id``."""
    cp = _cp()
    with cp.cuda.Device(device_id):
        mod = cp.RawModule(code=module_source("bfs_levels.cu"), options=("-std=c++17",))
        kerns = {k: mod.get_function(f"bfs_lv_{k}")
                 for k in ("init", "begin", "prep", "phase", "step", "output")}
        return (kerns, *occupancy(kerns["phase"], device_id))


@functools.cache
def _stream(device_id: int) -> Any:
    """One non-blocking stream per device for the searches: graph capture needs a stream
    other than the legacy default one."""
    return _cp().cuda.Stream(non_blocking=True)


def levels_bfs(A: Any, source: int, *, parents: bool = False, direction: str = "auto",  # noqa: N803
               alpha: float = 8.0, beta1: float = 8.0, beta2: float = 512.0,
               levels_per_sync: int = DEFAULT_LEVELS_PER_SYNC,
               blocks_per_sm: int | None = None,
               use_graph: bool = True) -> tuple[Any, Any, dict[str, Any]]:
    """BFS from ``source`` over the CUDA matrix ``A`` by level kernels replayed from a CUDA
    graph, reading the done flag once per ``levels_per_sync`` levels.

    Returns ``(levels, parents, info)`` as :func:`~gblas.formats.csr.bfs_fused.fused_bfs`:
    ``info`` has ``levels``, ``reached``, ``directions``, ``frontier``, ``step_us`` (device
    time between the ends of consecutive levels: launch and graph overhead included),
    ``kernel_us`` (device time from the start of level 0 to the end of the output pass,
    host waits between batches included), ``grid``/``block``, ``host_syncs`` (host reads:
    the done flags and the final log), ``levels_per_sync`` (K), ``bodies`` (level bodies
    enqueued, the no-op replays after the end included), ``graph`` (whether the body ran
    from a CUDA graph) and ``kernel``.
    """
    src = check_args(A, source, parents=parents, direction=direction, alpha=alpha,
                     beta1=beta1, beta2=beta2, blocks_per_sm=blocks_per_sm,
                     what="level-kernel BFS")
    if (isinstance(levels_per_sync, bool) or not isinstance(levels_per_sync, int)
            or levels_per_sync < 1):
        raise InvalidValue(
            f"levels_per_sync must be a positive int, got {levels_per_sync!r}")
    cp = _cp()
    dev = _device_id(A.device)
    n = A.nrows
    with cp.cuda.Device(dev):
        kerns, per_sm, sms = get_kernels(dev)
        w = Work(A, parents, direction)
        nnz = w.csr.nnz
        per_sm = min(per_sm, blocks_per_sm or _default_blocks_per_sm(n, nnz, per_sm))
        grid = per_sm * sms
        state = cp.empty(_STATE_WORDS, dtype=np.int64)
        mode = _MODES[direction]
        gargs = (*w.graph_args(), np.int64(n), np.int32(bool(parents)),
                 np.int32(w.csr_t is w.csr), w.lvl, w.par, w.q0, w.q1, w.own0, w.own1,
                 w.vis0, w.vis1, w.heavy, w.ctr, state)
        th = (np.float64(alpha), np.float64(beta1), np.float64(beta2))
        stream = _stream(dev)
        # the stream starts after the work already queued on the caller's stream (A's
        # arrays, the zeroed counters)
        stream.wait_event(cp.cuda.get_current_stream().record())
        with stream:
            kerns["init"]((grid,), (_BLOCK,), (*gargs, np.int64(src), np.int64(w.nheavy)))
            kerns["begin"]((1,), (32,), (w.csr.indptr, np.int64(n), np.int64(nnz),
                                         np.int64(src), np.int32(mode), *th, state, w.meta))

            def body() -> None:
                kerns["prep"]((grid,), (_BLOCK,), gargs)
                kerns["phase"]((grid,), (_BLOCK,), gargs)
                kerns["step"]((1,), (32,), (np.int64(n), *th, w.ctr, state, w.meta))

            graph = _capture(stream, body) if use_graph else None
            run = (lambda: graph.launch(stream)) if graph is not None else body
            flags = cp.cuda.alloc_pinned_memory(16)  # two done flags, alternating batches
            flag = np.frombuffer(flags, dtype=np.int64, count=2)
            events = (cp.cuda.Event(), cp.cuda.Event())
            enqueued = 0

            def enqueue() -> None:
                nonlocal enqueued
                for _ in range(levels_per_sync):
                    run()
                slot = enqueued % 2
                cp.cuda.runtime.memcpyAsync(flags.ptr + 8 * slot, state.data.ptr, 8, _D2H,
                                            stream.ptr)
                events[slot].record(stream)
                enqueued += 1

            def done(batch: int) -> bool:
                events[batch % 2].synchronize()
                return bool(flag[batch % 2])

            # the first batch alone (most low-diameter searches end in it); then one batch
            # in flight while the host waits on the one before it
            enqueue()
            syncs, batch = 1, 0
            if not done(0):
                enqueue()
                batch = 1
                while True:
                    enqueue()
                    syncs += 1
                    if done(batch):
                        break
                    batch += 1
            kerns["output"]((grid,), (_BLOCK,), (*gargs, w.out_levels, w.out_bits,
                                                 w.out_parents, w.meta))
        # the log's read waits for the stream; the Vectors are built on the caller's stream
        levels, pi, info, reads = w.results(A, parents, stream=stream)
    info.update(grid=grid, block=_BLOCK, host_syncs=syncs + reads,
                levels_per_sync=levels_per_sync, bodies=enqueued * levels_per_sync,
                graph=graph is not None, kernel=KERNEL_NAME)
    return levels, pi, info


def _capture(stream: Any, body: Any) -> Any:
    """``body``'s launches on ``stream`` captured as a CUDA graph, or None where this CuPy
    or driver cannot capture (the caller then launches the bodies directly)."""
    try:
        stream.begin_capture()
    except (AttributeError, RuntimeError, _cp().cuda.runtime.CUDARuntimeError):
        return None
    try:
        body()
    finally:
        graph = stream.end_capture()  # ends the capture even when a launch failed
    return graph


__all__ = ["DEFAULT_LEVELS_PER_SYNC", "KERNEL_NAME", "get_kernels", "levels_bfs"]
