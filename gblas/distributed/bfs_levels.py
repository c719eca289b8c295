"""The distributed direction-optimising BFS as a level loop of local kernels and collectives.

``dist_bfs(A, source, ...)`` searches a DistMatrix with the levels, parents and directions
of the one-process search (``gblas.algorithms.bfs``), but where the GraphBLAS level loop
runs about ten distributed operations a level, each with its own host reads and exchanges
(2.5-2.8 ms a level on two H100s, docs/distributed.md), a level here is one or two kernels
on the process's block and one collective of fixed size:

* push (top-down): every process holds the whole last frontier (the words all-gathered
  after the last level) and C, the edges into its block by source (Aᵀ's block transposed,
  built on the first search). It queues the frontier and walks its rows of C: every
  unvisited out-neighbour in its block is on level k, its parent the smallest frontier
  in-neighbour. Nothing is routed: the edges of a frontier vertex into each block are at
  that block's owner;
* pull (bottom-up): every unvisited vertex of the block scans its in-row for the first
  vertex of the visited bitmap: its level is k, that vertex its parent (the smallest one
  level up, as the one-process search's);
* the block's words of the new frontier are all-gathered (GPU processes of one node, a GPU
  each, read each other's words in place instead: CUDA IPC over NVLink, ``peer.py``) and
  ORed into the visited bitmap,
  which every process keeps whole (n/8 bytes); the level's two counts (vertices found and
  their out-edges) ride after the words and are summed by every process into the loop
  state on its device, which takes the next direction there by LAGraph's rule (the
  one-process loop's, ``gblas.backend.bfs_rule``; ``bfs_rule.cuh`` on GPUs).

The host launches a level's kernels (the push's and the pull's: the one the state does not
pick returns at once) and its collective without waiting for the last level: it reads a
copy of the state ``lookahead`` levels behind (1 on GPUs, 0 on CPU processes), so the
device never idles for the host's read and launches, and stops launching when the state it
reads says the search is over (the levels launched beyond it do nothing but their
exchange). Every process reads the same state, so all launch the same collectives.

The frontier always travels as bitmap words here (the GraphBLAS loop picks bitmap or id
list by size). With ``timing`` (``bfs(..., stats=)``) on GPUs the info also gives each
level's device time of its push or claim and of its exchange (CUDA events).

Kernels: ``bfs_levels.cu`` on GPUs (its header has the state and the byte counts), the
Numba functions of ``bfs_levels_cpu.py`` on CPU processes. ``gblas.algorithms.bfs`` runs
this for a DistMatrix unless the config key of the processes' device (``bfs_gpu`` or
``bfs_cpu``) is ``"ops"``, which keeps the GraphBLAS level loop: the reference the results
are tested against.

Source: the level structure of Graph500's reference MPI BFS and of Buluç and Madduri,
"Parallel breadth-first search on distributed memory systems", SC'11 (1D partition,
bitmap frontier exchange); the direction switch of Beamer, Buluç, Asanović, Patterson,
"Distributed memory breadth-first search revisited", IPDPSW'13; LAGraph's rule.
"""

from __future__ import annotations

import functools
import numbers
import time
from pathlib import Path
from typing import Any

import numpy as np

from .. import Vector, config
from ..backend.cuda import inline_includes
from ..backend.keys import bincount, xp_of
from ..backend.threads import num_threads
from ..dtypes import BOOL, INT64
from ..exceptions import InvalidValue
from ..formats.csr.container import CSR, row_chunk_list
from ..formats.vector import VecData
from . import bfs_levels_cpu as cpu_kernels
from .bfs_levels_cpu import (
    DS_DO_PUSH,
    DS_DONE,
    DS_LAST_DIR,
    DS_LEVELS,
    DS_NQ,
    DS_NVISITED,
    DS_RAN,
    DS_STALLED,
    DS_STAMP,
)
from .peer import peer_words
from .vector import DistVector

_MAX_N = 2**31 - 2  # int32 vertex ids and levels in the kernels
_BLOCK = 256
_BIG = 256  # DB_BIG of the .cu: a frontier vertex of this C-degree is queued as chunks
_MIN_CHUNK = 128  # DB_MIN_CHUNK: the fewest edges a chunk holds
_HEAVY, _HCHUNK = 1024, 512  # DB_HEAVY, DB_HCHUNK: a long in-row is scanned in chunks
_MODES = {"auto": 0, "push": 1, "pull": 2}  # dbfs_start's mode
_RING = 4  # copies of the state in flight to the host: lookahead + 1 at most
_HOST_WAIT_S = 120.0  # the host's wait for a level's state (a peer's stall is 60 s)
_CLOCKS = 6  # device clock stamps a level (with timing): see _Level.stamp
_CLOCK_LEVELS = 256  # levels a buffer of stamps holds
KERNEL_NAME = "dist_bfs_levels"


def applies(A: Any, parents: bool, *thresholds: Any) -> bool:  # noqa: N803
    """Whether :func:`dist_bfs` runs this search: the config key of the processes' device is
    not ``"ops"``, the thresholds are positive real numbers, and the ids fit int32."""
    dev = A.layout.local_device
    key = "bfs_cpu" if dev == "cpu" else "bfs_gpu"
    if config.get(key) == "ops" or A.nrows > _MAX_N:
        return False
    return all(not isinstance(t, bool) and isinstance(t, numbers.Real) and t > 0
               for t in thresholds)


@functools.cache
def _cuda_kernels(device_id: int) -> tuple[dict[str, Any], dict[str, int]]:
    """(kernels of bfs_levels.cu by name, their grids) for a device. A grid is the blocks
    that stay resident at once (occupancy API × SMs): a grid-stride kernel given more
    blocks runs a second, partial wave after the first."""
    import cupy as cp  # noqa: PLC0415

    from ..formats.csr.bfs_fused import occupancy  # noqa: PLC0415

    with cp.cuda.Device(device_id):
        src = inline_includes(Path(__file__).parent / "bfs_levels.cu")
        mod = cp.RawModule(code=src, options=("-std=c++17",))
        kerns = {k: mod.get_function(f"dbfs_{k}")
                 for k in ("block_keys", "start", "queue", "push", "claim", "unpack", "stamp")}
        grids = {}
        for name, kern in kerns.items():
            per_sm, sms = occupancy(kern, device_id)
            grids[name] = per_sm * sms
    return kerns, grids


class _Level:
    """The arrays of the searches on this process (kept on the DistMatrix and reused by its
    next search) and the steps of a level on them (CUDA kernels or their Numba twins)."""

    def __init__(self, A: Any, exchange: str) -> None:  # noqa: N803
        lay = self.lay = A.layout
        self.comm, self.xp = lay.comm, lay.comm.xp
        self.n, self.lo, self.hi = lay.n, lay.lo, lay.hi
        self.gpu = lay.local_device != "cpu"
        csr, csr_t = A.local._csr(), A.local_T._csr()
        self.key = (id(csr), id(csr_t), exchange)
        self.a = (csr.indptr, _ids32(csr))
        self.t = self.a if csr_t is csr else (csr_t.indptr, _ids32(csr_t))
        if self.gpu:
            self.kerns, self.grid = _cuda_kernels(int(lay.local_device.split(":")[1]))
        # C, the edges into the block by source: A's block itself with one process
        self.c = self.a if self.comm.size == 1 else _edges_into_block(
            self.t, self.n, (self.kerns, self.grid) if self.gpu else None)
        xp, nl = self.xp, self.hi - self.lo
        self.nwords = (self.n + 31) >> 5
        offs = lay.part.offsets
        # the global words each block spans (a word at a block boundary belongs to two)
        w0 = [int(offs[p]) >> 5 for p in range(self.comm.size)]
        spans = [((int(offs[p + 1]) - 1) >> 5) - w0[p] + 1 if offs[p + 1] > offs[p] else 0
                 for p in range(self.comm.size)]
        self.span = spans[self.comm.rank]
        # the words all-gathered a level: the block's words padded to a multiple of four
        # alike on every process (the unpack reads them 16 bytes at a time), then the two
        # uint64 counts of the level (the tail)
        self.wtot = (max(spans) + 3) // 4 * 4 + 4
        self.offsets = xp.asarray(offs)
        self.par = xp.empty(nl, dtype=np.int32)
        self.vis = xp.empty(self.nwords, dtype=np.uint32)
        # the level of sequence number s (counted over all searches) writes newbits[s & 1];
        # its unpack zeroes the other one. Peer mode: they are read by the peers in place,
        # after waiting for the peers' flags to reach s (zero at first, so s starts at 1)
        self.seq = 1
        self.peer = None if exchange == "nccl" or not self.gpu else peer_words(
            self.comm, self.wtot)
        self.mode = ("peer" if self.peer is not None else "local" if self.comm.size == 1
                     else "nccl" if self.gpu else "mpi")
        self.newbits = self.peer.arrays if self.peer is not None else (
            xp.zeros(self.wtot, dtype=np.uint32), xp.zeros(self.wtot, dtype=np.uint32))
        self.gathered = (xp.empty(self.wtot * self.comm.size, dtype=np.uint32)
                         if self.mode in ("nccl", "mpi") else None)
        self.last = self.newbits[0]  # the last level's words of every process (CPU)
        if self.gpu:  # the same as the address of each part, by parity of the level
            self.parts = self._part_addresses()
            self.last = self.parts[0]
        self.clocks: list[Any] | None = None  # device clock stamps (timing)
        self.st = xp.zeros(cpu_kernels.DS_WORDS, dtype=np.int64)  # the loop state
        self.queue = xp.empty(max(self.n, 1), dtype=np.int32)  # the whole frontier
        # chunks of >= DB_MIN_CHUNK edges of rows of >= DB_BIG: at most nnz / 128 + nnz / 256
        nnz_c = int(self.c[1].shape[0])
        nch = nnz_c // _MIN_CHUNK + nnz_c // _BIG + 1 if self.gpu else 1
        self.chunks = xp.empty(nch, dtype=np.int64)
        self.cnt = xp.zeros(4, dtype=np.uint64)
        self.ring_seq = [0] * _RING  # the sequence number of the level in each slot
        if self.gpu:  # the host's copies of the state, written by the unpack
            self.heavy = _heavy_chunks(self.t[0])
            self.mapped = _MappedRing(_RING * cpu_kernels.DS_WORDS)
            self.ring = self.mapped.array.reshape(_RING, -1)
        else:
            self.ring = np.zeros((_RING, cpu_kernels.DS_WORDS), dtype=np.int64)

    def _part_addresses(self) -> tuple[Any, Any]:
        """For each parity of a level, the device addresses of the P parts its unpack and
        the next level's queue read: the processes' own newbits (peer mode; this one's
        alone with one process) or the slices of the all-gather's buffer."""
        if self.peer is not None:
            return self.peer.parts(0), self.peer.parts(1)
        if self.mode == "local":
            return tuple(self.xp.asarray(np.array([nb.data.ptr], dtype=np.uint64))
                         for nb in self.newbits)
        base, step = self.gathered.data.ptr, 4 * self.wtot
        parts = self.xp.asarray(np.array([base + p * step for p in range(self.comm.size)],
                                         dtype=np.uint64))
        return parts, parts

    @classmethod
    def of(cls, A: Any, exchange: str = "auto") -> _Level:  # noqa: N803
        """The matrix's arrays, made on its first search (again if its blocks changed or
        another exchange is asked for); collective."""
        lv = getattr(A, "_bfs_levels", None)
        if lv is None or lv.key != (id(A.local._csr()), id(A.local_T._csr()), exchange):
            A._bfs_levels = None  # the old arrays (and peer mappings) go first
            lv = A._bfs_levels = cls(A, exchange)
            lv.comm.barrier()  # every process ready: a peer-mode wait is for device work
        return lv

    def clocks_on(self) -> None:
        """Device clock stamps for every level of the next search (GPUs; ``timing``)."""
        self.clocks = []

    def stamp(self, k: int, i: int) -> None:
        """Device clock (ns) of level k's step i (with timing): 0 before its kernels, 5
        after the push's queue (level 0: before its kernel), 1 after the push or claim
        (before the unpack), 4 after the unpack; the unpack itself writes 2 as it starts
        and 3 after its signal and wait for the peers."""
        if self.clocks is None:
            return
        chunk, row = divmod(k, _CLOCK_LEVELS)
        while len(self.clocks) <= chunk:
            self.clocks.append(self.xp.zeros((_CLOCK_LEVELS, _CLOCKS), dtype=np.int64))
        self.kerns["stamp"]((1,), (1,), (self.clocks[chunk], np.int64(row * _CLOCKS + i)))

    def clock_at(self, k: int) -> np.uint64:
        """The address of level k's unpack stamps (2 and 3), or 0 without timing."""
        if self.clocks is None:
            return np.uint64(0)
        chunk, row = divmod(k, _CLOCK_LEVELS)
        return np.uint64(self.clocks[chunk].data.ptr + 8 * (row * _CLOCKS + 2))

    def clocks_off(self, levels: int) -> list[list[int]]:
        """The stamps of the search's levels 0..levels (ns, rows of _CLOCKS), and no more
        stamps."""
        got = self.xp.concatenate(self.clocks).get()[:levels + 1] if self.clocks else []
        self.clocks = None
        return [[int(x) for x in row] for row in got]

    def event(self) -> Any:
        """A CUDA event recorded on the current stream (None on CPU processes)."""
        if not self.gpu:
            return None
        import cupy as cp  # noqa: PLC0415

        return cp.cuda.get_current_stream().record()

    def start(self, source: int, parents: bool, mode: int, nvals: int,
              rule: tuple[float, float, float]) -> None:
        """Level 0 and fresh result arrays (the levels Vector's storage: the kernels write
        them as they find vertices), then its exchange, which takes level 1's direction."""
        nl = self.hi - self.lo
        # (NumPy: zeros, whose pages come zeroed, so absent entries hold 0 as from_dense's)
        alloc = self.xp.empty if self.gpu else self.xp.zeros
        self.out = (alloc(nl, dtype=np.int64), self.xp.empty(nl, dtype=np.bool_))
        self.rule = tuple(np.float64(x) for x in rule)
        args = (np.int64(self.lo), np.int64(self.hi))
        nb = self.newbits[self.seq & 1]
        if self.gpu:
            self.stamp(0, 5)
            self.kerns["start"]((self.grid["start"],), (_BLOCK,), (
                self.c[0], *args, np.int64(self.nwords), np.int64(self.wtot),
                np.int64(source), np.int32(parents), np.int32(mode), np.int64(nvals),
                self.par, self.vis, nb, self.st, *self.out))
        else:
            cpu_kernels.start(self.c[0], *args, self.wtot, source, parents, mode, nvals,
                              self.par, self.vis, nb, self.st, *self.out)
        self.stamp(0, 1)
        self.exchange(0)

    def level(self, k: int, parents: bool) -> None:
        """Level k's push (the last frontier of every process queued, then the walk of its
        rows of C, the edges into the block) or pull (every unvisited vertex of the block
        scans its in-row), as the state says: on GPUs both are launched and one returns."""
        nb = self.newbits[self.seq & 1]
        push = pull = True
        if not self.gpu:
            st = self.st
            push, pull = not st[DS_DONE] and st[DS_DO_PUSH], not st[DS_DONE] and not st[DS_DO_PUSH]
        if push and self.gpu:
            args = (np.int64(self.wtot), self.offsets, np.int32(self.comm.size))
            self.kerns["queue"]((self.grid["queue"],), (_BLOCK,), (
                self.c[0], self.last, *args, self.queue, self.chunks, self.cnt, self.st,
                np.int64(self.grid["push"] * _BLOCK // 32)))
            self.stamp(k, 5)
            self.kerns["push"]((self.grid["push"],), (_BLOCK,), (
                *self.c, self.a[0], np.int64(self.lo), np.int32(k), np.int32(parents),
                self.queue, self.chunks, self.cnt, self.vis, self.par, nb,
                np.int64(self.wtot), self.st, *self.out, np.int32(self.comm.size)))
        elif push:
            cpu_kernels.queue_frontier(self.c[0], self.last, self.wtot, self.offsets,
                                       self.comm.size, self.queue, self.cnt)
            cpu_kernels.push(*self.c, self.a[0], self.lo, k, parents, self.queue, self.cnt,
                             self.vis, self.par, nb, self.wtot, *self.out,
                             8 * num_threads())
        if pull and self.gpu:
            self.kerns["claim"]((self.grid["claim"],), (_BLOCK,), (
                *self.t, np.int64(self.lo), np.int64(self.hi), np.int64(self.span),
                np.int32(k), self.vis, np.int32(parents), self.heavy,
                np.int64(self.heavy.shape[0]), self.par, nb, np.int64(self.wtot), self.st,
                *self.out))
        elif pull:
            cpu_kernels.claim(*self.t, self.lo, self.hi, self.span, k, self.vis, self.par,
                              nb, self.wtot, *self.out,
                              max(1, min(self.span, 8 * num_threads())))

    def exchange(self, k: int) -> None:
        """Level k's words (and counts) exchanged (all-gathered, or published to the peers
        that read them in place) and ORed into every process's visited bitmap; the counts
        summed into the state, which takes level k + 1's direction or ends the search; a
        copy of the state sent to the host (slot k of the ring)."""
        comm, b = self.comm, self.seq & 1
        nb, nxt = self.newbits[b], self.newbits[b ^ 1]
        if self.mode in ("nccl", "mpi"):
            comm.allgather_equal(nb, self.gathered)
        common = (np.int64(self.wtot), self.offsets, np.int32(comm.size), np.int64(self.n),
                  self.vis, self.cnt, nxt, self.st, np.int64(k), *self.rule)
        slot = k % _RING
        if self.gpu:  # (flags none: the words came by the collective or are ours)
            flags = np.uint64(0) if self.peer is None else self.peer.flags
            self.last = self.parts[b]
            self.ring_seq[slot] = self.seq
            self.kerns["unpack"]((self.grid["unpack"],), (_BLOCK,), (
                self.last, *common, flags, np.int64(self.seq), np.int32(comm.rank),
                np.uint64(self.mapped.dev), np.int32(_RING), self.clock_at(k)))
            self.stamp(k, 4)
            self.seq += 1
        else:
            self.last = nb if self.gathered is None else self.gathered
            cpu_kernels.unpack(self.last, *common)
            self.seq += 1
            self.ring[slot] = self.st

    def state(self, k: int) -> np.ndarray:
        """The loop state after level k (a copy). On GPUs the host polls the slot's stamp
        until the unpack has written level k's state there, asking the stream now and
        then whether a kernel failed."""
        row = self.ring[k % _RING]
        if self.gpu:
            import cupy as cp  # noqa: PLC0415

            want, polls, t0 = self.ring_seq[k % _RING], 0, time.perf_counter()
            while row[DS_STAMP] != want:
                polls += 1
                if polls % 4096 == 0:
                    cp.cuda.get_current_stream().done  # noqa: B018 - raises on a failure
                    if time.perf_counter() - t0 > _HOST_WAIT_S:
                        raise RuntimeError(f"distributed BFS: level {k}'s state did not "
                                           f"arrive within {_HOST_WAIT_S:.0f} s")
        return row.copy()

    def results(self, parents: bool) -> tuple[DistVector, DistVector | None]:
        """The search's vectors on the arrays the kernels wrote (bitmap storage, no pass
        over them; the parents' values one int64 copy of par); their counts are read
        when asked."""
        dev, (vals, bits) = self.lay.local_device, self.out
        nl = self.hi - self.lo
        lv = Vector._from_data(VecData.bitmap(nl, INT64, bits, vals), dev)
        pi = None
        if parents:  # par beyond the reached entries is ignored (absent)
            data = VecData.bitmap(nl, INT64, bits.copy(), self.par.astype(np.int64))
            pi = DistVector._wrap(Vector._from_data(data, dev), self.lay)
        return DistVector._wrap(lv, self.lay), pi


def dist_bfs(A: Any, source: int, *, parents: bool = False, direction: str = "auto",  # noqa: N803
             alpha: float = 8.0, beta1: float = 8.0, beta2: float = 512.0,
             timing: bool = False, lookahead: int | None = None, exchange: str = "auto",
             ) -> tuple[DistVector, DistVector | None, dict[str, Any]]:
    """BFS from ``source`` (already checked) over the DistMatrix ``A``: (levels, parents or
    None, info with ``levels``, ``directions``, ``frontier`` (the vertices found at each of
    those levels), ``reached``, ``host_syncs`` (the host's waits
    for a level's state), ``lookahead``, and the host ms until level 0's state
    (``start_ms``) and between the states of consecutive levels (``level_ms``)), every
    process calling it with the same arguments. ``lookahead``: levels launched beyond the
    last state read (default 1 on GPUs, 0 on CPU processes; at most 3). ``exchange``:
    ``"auto"`` lets GPU processes of one node read each other's words in place (CUDA IPC;
    ``info["exchange"]`` says ``"peer"``) where they can, ``"nccl"`` keeps the all-gather.
    With ``timing`` on GPUs also ``level_parts_ms``: each level's device ms of its push or
    claim and of its exchange (CUDA events)."""
    t0 = time.perf_counter()
    ahead = lookahead
    if ahead is None:
        ahead = 0 if A.layout.local_device == "cpu" else 1
    if isinstance(ahead, bool) or not isinstance(ahead, numbers.Integral) \
            or not 0 <= ahead < _RING:
        raise InvalidValue(f"lookahead must be 0 to {_RING - 1}, got {lookahead!r}")
    if exchange not in ("auto", "nccl"):
        raise InvalidValue(f"exchange must be 'auto' or 'nccl', got {exchange!r}")
    lv = _Level.of(A, exchange)
    timing = timing and lv.gpu
    try:
        with _on_device(lv):
            state, marks, events, directions, frontier, syncs = _levels(
                lv, source, parents, direction, ahead, timing, (alpha, beta1, beta2),
                A.nvals, t0)
            if state[DS_STALLED]:
                raise RuntimeError("distributed BFS: a peer process's level did not arrive "
                                   "within 60 s (a process stopped or stalled)")
            levels, pi = lv.results(parents)
    except BaseException:
        _drop(A)  # a search cut short may leave a level's words in its buffers
        raise
    ran = int(state[DS_RAN])
    ms = np.diff(marks) * 1e3
    info = {"levels": int(state[DS_LEVELS]), "directions": directions, "frontier": frontier,
            "reached": int(state[DS_NVISITED]), "host_syncs": syncs, "lookahead": ahead,
            "exchange": lv.mode,
            "kernel": KERNEL_NAME, "start_ms": float(ms[0]),
            "level_ms": [float(x) for x in ms[1:]]}
    if timing:  # device ms of the push or claim, and of the exchange
        events[-1][-1].synchronize()
        info["level_parts_ms"] = [[round(_elapsed(a, b), 3) for a, b in zip(ev, ev[1:])]
                                  for ev in events[:ran]]
        info["level_clock_ns"] = lv.clocks_off(ran)
        info["level_clock_us"] = _clock_split(info["level_clock_ns"])
    return levels, pi, info


def _levels(lv: _Level, source: int, parents: bool, direction: str, ahead: int,
            timing: bool, rule: tuple[float, float, float], nvals: int,
            t0: float) -> tuple[np.ndarray, list[float], list[Any], list[str], list[int], int]:
    """Level 0 and the levels of one search, launched ``ahead`` levels beyond the last
    state read: (the final state, the host times of the reads, the CUDA events of each
    level (with ``timing``), the directions, the vertices found a level, the host's
    waits)."""
    if timing:
        lv.clocks_on()
    lv.stamp(0, 0)
    lv.start(source, parents, _MODES[direction], nvals, rule)
    marks, events, directions, frontier = [t0], [], [], []
    k, read, syncs, state = 0, -1, 0, None
    while True:
        while read < k - ahead:  # the states due: launched more than `ahead` levels ago
            read += 1
            state = lv.state(read)
            syncs += lv.gpu
            marks.append(time.perf_counter())
            if read:
                directions.append("push" if state[DS_LAST_DIR] else "pull")
                frontier.append(int(state[DS_NQ]))
            if state[DS_DONE]:
                break
        if state is not None and state[DS_DONE]:
            return state, marks, events, directions, frontier, syncs
        k += 1
        ev = [lv.event()] if timing else []
        lv.stamp(k, 0)
        lv.level(k, parents)
        lv.stamp(k, 1)
        if timing:
            ev.append(lv.event())
        lv.exchange(k)
        if timing:
            ev.append(lv.event())
            events.append(ev)


_ABANDONED: list[Any] = []  # the peer buffers of searches cut short (_drop)


def _drop(A: Any) -> None:  # noqa: N803
    """Forget the matrix's search arrays after a search cut short. In peer mode the shared
    allocation (and this process's mappings of the peers') stays alive for the rest of the
    process instead of being freed: a peer may still run that search's unpacks, which
    store their signal into it, and CUDA leaves memory written after its cudaFree to
    whoever gets it next. The cost is that allocation (two n / 8P-byte buffers) a search
    that failed."""
    lv = getattr(A, "_bfs_levels", None)
    if lv is not None and lv.peer is not None:
        _ABANDONED.append(lv.peer)
    A._bfs_levels = None


def _clock_split(stamps: list[list[int]]) -> list[list[float]]:
    """Each level's device µs from its stamps (``_Level.stamp``): [idle before it (since
    the last level's unpack ended: the host's launches), the push's queue (level 0: 0), its
    push or claim (level 0: its kernel), until the unpack starts, the unpack's signal and
    wait for the peers, the rest of the unpack]."""
    out, end = [], None
    for s in stamps:
        seq = [s[0], s[5], s[1], s[2], s[3], s[4]]  # in the order they are taken
        steps = [(s[0] - end) if end is not None else 0] + [b - a for a, b in zip(seq, seq[1:])]
        out.append([round(x / 1e3, 1) for x in steps])
        end = s[4]
    return out


def _edges_into_block(t: tuple[Any, Any], n: int, kernels: Any) -> tuple[Any, Any]:
    """(row pointers, int32 local ids) of C = the process's rows of Aᵀ, ``t`` (pointers,
    int32 ids), transposed: row u of C lists u's out-neighbours in the block as local ids.
    On a GPU one radix sort of 64-bit keys (u << 32 | local id; 8 bytes an entry beside the
    block: rows come out sorted); on the CPU gblas' transpose."""
    t_ptr, t_idx = t
    xp = xp_of(t_ptr)
    nl = int(t_ptr.shape[0]) - 1
    if kernels is None:
        from ..formats.csr.convert import transpose  # noqa: PLC0415

        c = transpose(CSR(nl, n, t_ptr, t_idx.astype(np.int64), None, BOOL, True))
        return c.indptr, c.indices.astype(np.int32)
    kerns, grid = kernels
    keys = xp.empty(int(t_idx.shape[0]), dtype=np.uint64)
    kerns["block_keys"]((grid["block_keys"],), (_BLOCK,), (t_ptr, t_idx, np.int64(nl), keys))
    keys.sort()
    ptr = xp.zeros(n + 1, dtype=np.int64)
    xp.cumsum(bincount(t_idx, n), out=ptr[1:])
    return ptr, (keys & np.uint64(0xFFFFFFFF)).astype(np.int32)


def _ids32(csr: CSR) -> Any:
    """The block's column ids as int32 (the copy kept on the CSR): the ids are below
    n < 2³¹ (``applies``), and the kernels index entries with int64."""
    return csr.indices32(min_uses=1, wide_entries=True)


def _heavy_chunks(t_ptr: Any) -> Any:
    """The chunk list of the rows of DB_HEAVY entries or more (``i << 32 | j`` for chunk j of
    DB_HCHUNK entries of local row i), scanned by any warp in the claim's phase A."""
    return row_chunk_list(t_ptr, _HEAVY, _HCHUNK)


def _elapsed(a: Any, b: Any) -> float:
    import cupy as cp  # noqa: PLC0415

    return float(cp.cuda.get_elapsed_time(a, b))


class _MappedRing:
    """int64 words of page-locked host memory mapped into the GPU's address space: the
    unpack writes the loop state there (``dev``, its device address) and the host polls it
    (``array``)."""

    def __init__(self, words: int) -> None:
        import ctypes  # noqa: PLC0415

        import cupy as cp  # noqa: PLC0415

        rt = self._rt = cp.cuda.runtime
        self.ptr = int(rt.hostAlloc(8 * words, getattr(rt, "hostAllocMapped", 2)))
        self.array = np.ctypeslib.as_array(
            ctypes.cast(self.ptr, ctypes.POINTER(ctypes.c_int64)), shape=(words,))
        self.array[:] = 0
        get = getattr(rt, "hostGetDevicePointer", None)  # with UVA the same address
        self.dev = int(get(self.ptr, 0)) if get is not None else self.ptr

    def __del__(self) -> None:
        try:
            self._rt.freeHost(self.ptr)
        except Exception:  # noqa: BLE001, S110 - at exit the context may be gone
            pass


def _on_device(lv: _Level) -> Any:
    """The process's GPU as the current device (a no-op context on CPU processes)."""
    import contextlib  # noqa: PLC0415

    if not lv.gpu:
        return contextlib.nullcontext()
    import cupy as cp  # noqa: PLC0415

    return cp.cuda.Device(int(lv.lay.local_device.split(":")[1]))


__all__ = ["KERNEL_NAME", "applies", "dist_bfs"]
