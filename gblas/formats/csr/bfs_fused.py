"""The whole direction-optimising BFS in one persistent cooperative CUDA kernel.

``fused_bfs(A, source, ...)`` runs ``bfs_fused`` from ``bfs_fused.cu`` (beside this file):
all levels, push and pull, with LAGraph's switch rule evaluated on the device and a
grid-wide barrier between levels, so the host neither launches nor synchronises per level;
one launch, or on graphs of average degree 16 or more three launched back to back (the
pull levels by a build of more resident blocks, :func:`_launch_plan`).
The results stay on the device: the level and parent Vectors are built from the kernel's
int64 outputs without a host copy of the dense arrays; one small array (number of levels,
vertices reached, and one word per level: frontier size and direction) is read back at the
end (a search that reaches under ``bitmap_density`` of the vertices costs one more sync: the
sparse Vector's index compaction).

``gblas.cuda.bfs(..., method="fused")`` runs it (and ``gblas.algorithms.bfs`` on a CUDA
matrix when the config key ``bfs_gpu`` is ``"fused"``, the default, and :func:`applies`
says yes); the levels and parents are the same as the CPU's (parent = smallest-index
vertex one level up), and so is the sequence of directions. Kernel design and the bytes it
moves: ``bfs_common.cuh`` (the device code shared with the level kernels of
``bfs_levels.py``), ``bfs_fused.cu`` and ``docs/gpu_bfs_notes.md``. The helpers below
(validation, work buffers, results) serve both paths.
"""

from __future__ import annotations

import functools
import inspect
import math
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from ...backend.cuda import inline_includes
from ...dtypes import INT64
from ...exceptions import IndexOutOfBound, InvalidObject, InvalidValue, NotImplementedForFormat
from ..vector import VecData
from . import bfs_async
from .container import CSR
from .coop_launch import OUTPUTS, SOURCE, CoopLaunch, PackedLaunch

KERNEL_NAME = "cuda_csr_bfs_fused"
_HERE = Path(__file__).parent
_COMMON = "bfs_common.cuh"
_BLOCK = 256  # FB_BLOCK in the .cu
_BIG, _CHUNK = 256, 256  # FB_BIG, FB_CHUNK: hubs are split into chunks of _CHUNK edges
_HEAVY, _HCHUNK = 1024, 512  # FB_HEAVY, FB_HCHUNK: the same for the pull's in-rows
_TLOG = 4096  # FB_TLOG: steps whose duration the kernel logs
_MAX_N = 2**31 - 2  # int32 vertex ids and levels inside the kernel; INT_MAX marks "no parent"
_LOG_HEAD = 4096  # per-level words read back with the header (more levels: a second read)
_MODES = {"auto": 0, "push": 1, "pull": 2}
_CTR_WORDS = 36  # the fused kernel's counters (20) and the loop state block 0 publishes (16)
_MAX_PREPARED = 32  # knob sets whose launches a scratch keeps prepared (Work.prepared)
# Block levels: a push over at most this many frontier edges runs in block 0 alone, with a
# __syncthreads instead of a grid sync (bfs_fused.cu); 8 warps take 64 edges a round each.
SMALL_EDGES = 1024
# Eager grid levels: a push of the whole grid over at most this many frontier edges claims
# without probing lvl first (bfs_fused.cu), one dependent L2 access fewer. H200, 8 sources,
# 2026-11-29, kernel µs, 0 -> 32768 in one run: grid 2048² 15355 -> 14670, grid 4096² 22995
# -> 22176, road-usroads 1783 -> 1753; luxembourg_osm (block levels only), kron:22, urand:22,
# kron:24 and urand:24 within 1 % (their wide pushes are far over it; the push after their
# pulls, eager in that run, takes the probe since: its frontier's edges are not counted).
EAGER_EDGES = 32768
# Scratch kept on a matrix between searches: up to this size, or up to this share of the
# bytes the matrix's CSRs (A and its transpose) already hold on the device. It saves a
# search its allocations: ~30 µs at kron:22, 80 µs at kron:24 and 140 µs at kron:26
# (H200, 2026-11-28: setup 118 and 177 µs there, 36 at kron:22). Scratch larger than the
# graph's share (a graph of many vertices and few edges) would hold memory other work needs.
KEEP_SCRATCH_BYTES = 256 << 20
KEEP_SCRATCH_SHARE = 1 / 8
# Pull: in-neighbours a lane checks alone before the warp takes the rest of its row (8 -> 16:
# urand:22 kernel 0.594 -> 0.525 ms, kron:22/24 and urand:24 unchanged; H100, 2026-11-27).
PULL_SERIAL = 16
# Marked push levels: a push of the whole grid from a queue over at least this many frontier
# edges per vertex of the graph marks its targets (a byte a vertex, plain stores) and claims
# them in a second pass over the marks (bfs_common.cuh's fb_push_mark). Kernel µs, H200, 16
# sources, 2026-11-29, against none: kron:22 336 -> 305 at 1/8 (307 at 1, 304 at 1/4),
# urand:22 361 -> 354 at 1/8 (362 at 1: none of its levels is that wide), urand:24 1934 ->
# 1133, kron:24 938 -> 922; on another H200, whose claiming push ran kron's hub level faster,
# kron:22 292 -> 306 (docs/gpu_bfs_notes.md §11). Every push level from a queue marked (a
# share near 0): kron:22's second level 24 -> 30 µs.
MARK_SHARE = 0.125


def mark_edges_for(n: int) -> int:
    """fused_bfs's default ``mark_edges`` for a graph of ``n`` vertices (MARK_SHARE)."""
    return max(1, int(MARK_SHARE * n))


# The kernel's __launch_bounds__ minimum of resident blocks per SM (FB_MIN_BLOCKS): 4 lets
# ptxas use 64 registers without spills; 6 (40 registers) and 8 (32) spill a little.
MIN_BLOCKS = 4
# The pull levels' build (a launch of its own between the push levels' launches, where it
# fits more blocks than MIN_BLOCKS's: graphs of average degree 16 or more). 6 (40 registers)
# against one launch at 4, kernel µs, H200, 8 sources: kron:24 1434 -> 1209, urand:24 2163
# -> 2108, kron:22 516 -> 502, urand:22 458 -> 479 (the long scans of late pulls gain most
# from more warps, a first pull whose vertices find a parent in a few reads loses). Tried:
# the first pull in the first build, the later ones at 6: 516, 472, 1303, 2175 (each launch
# boundary costs ~7 µs). Since the pull launch's build has no push code (FB_PULL_ONLY: 40 B
# of spills at 6 blocks, 56 at 8, where the whole kernel spilled 172 and more), 8 (32
# registers) against 6, H200, 8 sources, 2026-11-28: kron:22 386 -> 380, kron:24 1089 ->
# 1021, kron:26 5177 -> 4842, urand:24 2088 -> 2072, urand:22 454 -> 459.
PULL_MIN_BLOCKS = 8


def _cp() -> Any:
    import cupy  # noqa: PLC0415 - only imported when the GPU path runs

    return cupy


@functools.cache
def _device_id(device: str) -> int:
    return int(device.split(":", 1)[1]) if ":" in device else 0


@functools.cache
def _device_ok(device_id: int) -> bool:
    """Compute capability >= 7.0 (independent thread scheduling, warp intrinsics with masks)
    and cooperative launch."""
    cp = _cp()
    props = cp.cuda.runtime.getDeviceProperties(device_id)
    return int(props.get("major", 0)) >= 7 and bool(props.get("cooperativeLaunch", 1))


def module_source(name: str) -> str:
    """The text of the .cu file ``name`` beside this module with its headers inlined
    (``bfs_common.cuh``, which it must include, and what that includes)."""
    if f'#include "{_COMMON}"' not in (_HERE / name).read_text():
        raise InvalidValue(f"{name} does not include {_COMMON}")
    return inline_includes(_HERE / name)


def occupancy(kern: Any, device_id: int) -> tuple[int, int]:
    """(resident blocks of ``kern`` per SM at FB_BLOCK threads, SMs of the device)."""
    cp = _cp()
    sms = int(cp.cuda.runtime.getDeviceProperties(device_id)["multiProcessorCount"])
    try:
        per_sm = int(cp.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(
            kern.kernel.ptr, _BLOCK, 0))
    except AttributeError:  # older CuPy: from the register count (64K registers per SM)
        per_sm = max(1, min(2048 // _BLOCK, 65536 // max(1, kern.num_regs * _BLOCK)))
    return max(1, per_sm), sms


def _current_stream() -> int:
    """The handle of the caller's current CUDA stream (the one its launches go to)."""
    return _cp().cuda.get_current_stream().ptr


@functools.cache
def get_kernel(device_id: int, idx32: bool = False, min_blocks: int = MIN_BLOCKS,
               pull_only: bool = False) -> tuple[Any, int, int]:
    """(kernel, blocks per SM, SMs): the compiled cooperative kernel for ``device_id``
    reading int32 column ids (``idx32``) or int64 ones, compiled for at least
    ``min_blocks`` resident blocks per SM, and how many of its blocks stay resident per SM
    (occupancy API); memoised per device, id width, ``min_blocks`` and ``pull_only`` (the
    pull launch's build, without push code or level 0: it may only resume a search, and
    returns before any push level, so only launches with resume 1 and stop 2 may run it)."""
    cp = _cp()
    options = ("-std=c++17", f"-DFB_MIN_BLOCKS={min_blocks}") + (("-DFB_IDX32",) if idx32
                                                                  else ()) + (
        ("-DFB_PULL_ONLY",) if pull_only else ())
    with cp.cuda.Device(device_id):
        mod = cp.RawModule(code=module_source("bfs_fused.cu"), options=options,
                           enable_cooperative_groups=True)
        kern = mod.get_function("bfs_fused")
        return (kern, *occupancy(kern, device_id))


def _default_blocks_per_sm(n: int, nnz: int, fit: int) -> int:
    """Blocks per SM for a graph: a grid sync costs less with fewer blocks, and graphs of
    low average degree (road networks, meshes, grids) have many small levels where the sync
    dominates, while dense power-law graphs have few levels with huge frontiers that want
    every warp. Measured on an H100 (docs/gpu_bfs_notes.md): 1 block/SM is 10-20 % faster
    than 4 on road networks and grids, 4 is 2x faster than 1 on kron:22."""
    avg = nnz / max(n, 1)
    return 1 if avg < 8 else 2 if avg < 16 else fit


# bfs_fused's parameters: 4 CSR arrays and Aᵀ's empty rows; n, nnz, source; mode, parents,
# sym; alpha, beta1, beta2; small_edges, eager_edges, mark_edges, pull_serial, nheavy;
# resume, stop; 16 state and output arrays.
_FUSED_ARGS = "ppppp" + "qqq" + "iii" + "ddd" + "qqqiq" + "ii" + "p" * 16


@functools.cache
def _fused_launch(device_id: int, idx32: bool = False, min_blocks: int = MIN_BLOCKS,
                  pull_only: bool = False) -> CoopLaunch:
    return CoopLaunch(get_kernel(device_id, idx32, min_blocks, pull_only)[0], _FUSED_ARGS)


def is_matrix(A: Any) -> bool:  # noqa: N803
    """A gblas Matrix (not a transposed view), told by what it has: the formats layer does
    not import the objects layer."""
    return getattr(A, "ndim", None) == 2 and hasattr(A, "_set") and hasattr(A, "_csr_T")


def _thresholds_ok(alpha: Any, beta1: Any, beta2: Any) -> bool:
    return _positive(alpha) and _positive(beta1) and _positive(beta2)


def _positive(x: Any) -> bool:
    if type(x) is float:  # the usual case, without a conversion (NaN fails both tests)
        return 0.0 < x < math.inf
    try:
        v = float(x)
    except (TypeError, ValueError):
        return False
    return math.isfinite(v) and v > 0


def applies(A: Any, *, parents: bool = False, direction: str = "auto",  # noqa: N803
            alpha: Any = 8.0, beta1: Any = 8.0, beta2: Any = 512.0) -> bool:
    """Whether :func:`fused_bfs` can run this BFS: a square gblas Matrix on a CUDA device
    with at most 2³¹ - 2 vertices, a device of compute capability >= 7.0 with cooperative
    launch, a known direction and positive finite thresholds."""
    if not is_matrix(A) or direction not in _MODES:
        return False
    return _thresholds_ok(alpha, beta1, beta2) and _fits(A)


def _fits(A: Any) -> bool:  # noqa: N803
    """A (a gblas Matrix) is square with 1 to _MAX_N vertices on a CUDA device the kernel
    runs on. Kept with A's graph properties, which are dropped when A changes (its shape
    and device are the same until then)."""
    fits = A._props.get("bfs_fused_fits")
    if fits is None:
        fits = A._props["bfs_fused_fits"] = _fits_now(A)
    return fits


def _fits_now(A: Any) -> bool:  # noqa: N803
    device = A.device
    if not device.startswith("cuda"):
        return False
    n = A.nrows
    if A.ncols != n or not 0 < n <= _MAX_N:
        return False
    try:
        return _device_ok(_device_id(device))
    except Exception:  # noqa: BLE001 - no usable CUDA runtime: not for us
        return False


def check_args(A: Any, source: Any, *, parents: bool, direction: str, alpha: Any,  # noqa: N803
               beta1: Any, beta2: Any, blocks_per_sm: Any, what: str) -> int:
    """Validate a device BFS call (``what`` names the kernel in messages); the source id."""
    if not is_matrix(A):
        raise InvalidObject(f"expected a gblas.Matrix adjacency matrix, got {type(A).__name__}")
    if direction not in _MODES:
        raise InvalidValue(f"direction must be 'auto', 'push' or 'pull', got {direction!r}")
    if not _thresholds_ok(alpha, beta1, beta2):
        raise InvalidValue(f"alpha, beta1 and beta2 must be positive finite numbers, got "
                           f"{alpha!r}, {beta1!r}, {beta2!r}")
    if not _fits(A):
        raise NotImplementedForFormat(
            f"the {what} needs a square matrix on a CUDA device (compute capability >= 7.0, "
            f"cooperative launch) with 1 to {_MAX_N} vertices; got {A.shape} on {A.device}; "
            f"use gblas.algorithms.bfs, which falls back to the level loop")
    try:
        src = int(source)
    except (TypeError, ValueError):
        raise InvalidValue(f"source must be a vertex id, got {source!r}") from None
    if not 0 <= src < A.nrows:
        raise IndexOutOfBound(f"source {src} is out of range for a graph of {A.nrows} vertices")
    if blocks_per_sm is not None and (isinstance(blocks_per_sm, bool)
                                      or not isinstance(blocks_per_sm, int) or blocks_per_sm < 1):
        raise InvalidValue(f"blocks_per_sm must be a positive int, got {blocks_per_sm!r}")
    return src


def _chunk_cap(nnz: int) -> int:
    """Entries of one level's hub chunk list, at most (nnz push edges)."""
    return nnz // _CHUNK + nnz // _BIG + 2


def scratch_bytes(n: int, nnz: int) -> int:
    """Bytes of one search's scratch (Work.alloc_scratch): lvl, par and two queues (16 n),
    the step log (4 n + 32 KB), two bitmaps (n / 4), the marks (n) and two chunk lists (the
    heavy rows' chunk list is the transpose's, made once: CSR.row_chunks)."""
    return 21 * n + n // 4 + 16 * _chunk_cap(nnz) + 4 * (8 + _TLOG)


def keep_scratch(scratch: int, graph_bytes: int) -> bool:
    """Whether a search's scratch of ``scratch`` bytes stays on a matrix whose CSRs hold
    ``graph_bytes`` on the device (``KEEP_SCRATCH_BYTES``, ``KEEP_SCRATCH_SHARE``)."""
    return scratch <= max(KEEP_SCRATCH_BYTES, KEEP_SCRATCH_SHARE * graph_bytes)


# the output arrays' dtypes (Work.alloc_outputs)
_OUT_DTYPES = {"count": np.uint64, "levels": np.int64, "parents": np.int64, "bits": np.bool_}


class Work:
    """The device buffers of one search (both paths): int32 lvl / par / two queues, the hubs'
    chunk lists, the heavy in-rows' chunk list, two visited bitmaps, the counters (zero),
    the step log and the outputs. The pull's Aᵀ is A's cached transpose (push-only: A).
    A scratch kept on its matrix also keeps fused_bfs's launches prepared per knob set
    (``prepared``) and one set of outputs made ahead for its next search (``spare``)."""

    def __init__(self, A: Any, parents: bool, direction: str,  # noqa: N803
                 ctr_words: int = 20) -> None:
        self.alloc_scratch(A, direction, ctr_words)
        self.alloc_outputs(parents)

    def alloc_scratch(self, A: Any, direction: str, ctr_words: int) -> None:  # noqa: N803
        self.csr: CSR = A._csr()
        self.csr_t: CSR = A._csr_T() if direction != "push" else self.csr
        self.alloc_state(A.nrows, self.csr.nnz, None, ctr_words)
        # the pull's heavy in-rows as chunks, kept on Aᵀ (the same for every search)
        self.heavy = (_cp().empty(1, dtype=np.int64) if direction == "push"
                      else self.csr_t.row_chunks(_HEAVY, _HCHUNK))
        self.nheavy = 0 if direction == "push" else int(self.heavy.shape[0])

    @classmethod
    def reused(cls, A: Any, direction: str, ctr_words: int) -> Work:  # noqa: N803
        """The scratch buffers of A's previous search (kept on A until A changes, as its
        transpose is): a search on a warm matrix then allocates only its outputs. Scratch in
        use (a search still running on another thread) is not shared: a fresh one is made.
        Scratch too large for the graph is not kept (:func:`keep_scratch`). The caller
        zeroes the counters, allocates the outputs and calls :meth:`release`."""
        key = f"bfs_fused_scratch_{direction == 'push'}_{ctr_words}"
        w = A._props.get(key)
        # a search that read nothing back may still run on the stream it was launched on:
        # only that stream, which orders the next search after it, may take its scratch
        stream = _current_stream()
        if w is None or w.busy or w.csr is not A._csr() or w.stream != stream:
            w = cls.__new__(cls)
            w.alloc_scratch(A, direction, ctr_words)
            graph = w.csr.nbytes() + (w.csr_t.nbytes() if w.csr_t is not w.csr else 0)
            keep = keep_scratch(scratch_bytes(A.nrows, w.csr.nnz), graph)
            if keep and (key not in A._props or not A._props[key].busy):
                A._props[key] = w
            w.kept = A._props.get(key) is w
        w.busy = True
        w.stream = stream
        return w

    def release(self) -> None:
        self.busy = False

    def alloc_state(self, n: int, nnz: int, parents: bool | None, ctr_words: int = 20) -> None:
        """The search state over n vertices and nnz push edges (shared with kernels that
        pull another way, as BVSS's): lvl, par, the two queues, the hubs' chunk lists, two
        bitmaps, ``ctr_words`` zero counters, the step log and (unless ``parents`` is None)
        the outputs."""
        cp = _cp()
        self.n = n
        self.busy = False
        cap = _chunk_cap(nnz)
        nwords = (n + 31) // 32
        w32 = cp.empty(4 * n, dtype=np.int32)
        own = cp.empty(2 * cap, dtype=np.int64)
        vis = cp.empty(2 * nwords, dtype=np.uint32)
        # (q0 and q1 adjacent: bfs_async uses the two as one queue of 2n slots)
        self.lvl, self.par, self.q0, self.q1 = w32[:n], w32[n:2 * n], w32[2 * n:3 * n], w32[3 * n:]
        self.own0, self.own1 = own[:cap], own[cap:]
        self.vis0, self.vis1 = vis[:nwords], vis[nwords:]
        self.ctr = cp.zeros(ctr_words, dtype=np.uint64)
        # zero when the stream reaches the next search (Work.after_search zeroes them after
        # a search, off the next one's path to its launch)
        self.ctr_zero = True
        self.meta = cp.empty(8 + _TLOG + n, dtype=np.uint32)
        self.kept = False  # kept on its matrix (Work.reused): then it prepares ahead
        self.prepared: dict[Any, Prepared] = {}  # fused_bfs's launches per knob set
        self.spare: tuple[bool, Any] | None = None  # (parents, outputs) made ahead
        if parents is not None:
            self.alloc_outputs(parents)

    def alloc_outputs(self, parents: bool) -> None:
        """Fresh output storage (it becomes the result Vectors'), one allocation: the count
        of reached vertices (the fused kernel writes it), int64 levels, int64 parents (one
        word without), the reached bytes. ``out_ptrs`` (levels, bits, parents, count: the
        kernels' order) are ready at once; the arrays ``out_levels`` ... are made when first
        asked for, after the launch (four ndarrays cost ~10 µs of host time before it)."""
        self._out, self.out_ptrs = self._new_outputs(parents)

    def _new_outputs(self, parents: bool) -> tuple[tuple[Any, dict, dict], tuple[int, ...]]:
        n = self.n
        npar = n if parents else 1
        mem = _cp().cuda.alloc(8 * (1 + n + npar) + n)
        # (offset, length) of each array in the one allocation
        place = {"count": (0, 1), "levels": (8, n), "parents": (8 * (1 + n), npar),
                 "bits": (8 * (1 + n + npar), n)}
        return (mem, place, {}), tuple(mem.ptr + place[k][0] for k in ("levels", "bits",
                                                                       "parents", "count"))

    def take_outputs(self, parents: bool) -> None:
        """:meth:`alloc_outputs`, or the outputs the previous search made ahead for this one
        (:meth:`after_search`); and the counters zeroed unless they are (``ctr_zero``)."""
        spare, self.spare = self.spare, None
        if spare is not None and spare[0] == parents:
            self._out, self.out_ptrs = spare[1]
        else:
            self.alloc_outputs(parents)
        if not self.ctr_zero:
            self.ctr.data.memset_async(0, self.ctr.nbytes)
        self.ctr_zero = False  # the launches that follow use them

    def after_search(self, parents: bool) -> None:
        """After a search's launches (the kernels still running): zero the counters on the
        stream behind them and, on a scratch kept on its matrix, make the next search's
        outputs, so that the next search on this stream starts with neither (with the
        prepared launches, 10-15 µs less host time before its first launch on an H200's
        host)."""
        self.ctr.data.memset_async(0, self.ctr.nbytes)
        self.ctr_zero = True
        if self.kept:
            self.spare = (parents, self._new_outputs(parents))

    def _out_array(self, name: str) -> Any:
        mem, place, made = self._out
        if name not in made:  # arrays on offsets of the one allocation (each holds it)
            at, length = place[name]
            made[name] = _cp().ndarray((length,), _OUT_DTYPES[name], mem + at)
        return made[name]

    out_count = property(lambda self: self._out_array("count"))
    out_levels = property(lambda self: self._out_array("levels"))
    out_parents = property(lambda self: self._out_array("parents"))
    out_bits = property(lambda self: self._out_array("bits"))

    def graph_args(self) -> tuple[Any, ...]:
        """A's and Aᵀ's CSR arrays and the bitmap of Aᵀ's empty rows (vertices no pull
        finds)."""
        return (self.csr.indptr, self.csr.indices, self.csr_t.indptr, self.csr_t.indices,
                self.csr_t.empty_rows_bits())

    def fused_graph(self) -> tuple[tuple[Any, ...], bool]:
        """(the fused kernel's graph arrays, whether their column ids are int32): the int32
        copies kept on the CSRs where both have them (ids below 2³¹; half the bytes of every
        row a level reads), else :meth:`graph_args`."""
        # (the kernel indexes entries with int64: a matrix of 2³¹ entries or more too)
        a32 = self.csr.indices32(wide_entries=True)
        t32 = a32 if self.csr_t is self.csr else self.csr_t.indices32(wide_entries=True)
        if a32 is None or t32 is None:
            return self.graph_args(), False
        return (self.csr.indptr, a32, self.csr_t.indptr, t32,
                self.csr_t.empty_rows_bits()), True

    def pointers(self) -> tuple[tuple[int, ...], tuple[int, ...], bool]:
        """The device addresses of the fused kernel's graph arrays and of the search state
        (lvl ... ctr), and whether the ids are int32: taken once per scratch (they do not
        change while it lives)."""
        ptrs = self.__dict__.get("_pointers")
        if ptrs is None:
            graph, idx32 = self.fused_graph()
            # the marked push's byte a vertex (the fused kernel's alone): zero between
            # levels, its second pass clears what the first set
            self.mark = _cp().zeros(self.n, dtype=np.uint8)
            ptrs = self._pointers = (
                tuple(a.data.ptr for a in graph),
                tuple(a.data.ptr for a in (self.lvl, self.par, self.q0, self.q1, self.own0,
                                           self.own1, self.vis0, self.vis1, self.mark,
                                           self.heavy, self.ctr)),
                idx32)
        return ptrs

    def results(self, A: Any, parents: bool, stream: Any = None,  # noqa: N803
                block_steps: bool = False,
                async_search: bool = False) -> tuple[Any, Any, dict[str, Any], int]:
        """(levels, parents, info, host reads): the vector data built on the device from the
        outputs, and what the step log says; one host read of the log's head (two when the
        search took more than _LOG_HEAD steps). ``block_steps``: the kernel counted its
        block levels in meta[5] and its marked pushes in meta[6] (the fused kernel);
        ``async_search``: bfs_async ran first and set meta[7] where its queue overflowed."""
        n, meta = self.n, self.meta
        at = 8 + _TLOG  # the per-step words
        size = at + min(n, _LOG_HEAD)
        if getattr(self, "pinned", None) is None:  # page-locked: a DMA, no staging copy
            mem = _cp().cuda.alloc_pinned_memory(4 * (at + _LOG_HEAD))
            self.pinned = np.frombuffer(mem, np.uint32, at + _LOG_HEAD)
        head = meta[:size].get(stream=stream, out=self.pinned[:size])
        reads = 1
        nlev, reached, steps = int(head[0]), int(head[1]), int(head[2])
        log = head[at:at + steps]
        if steps > log.shape[0]:
            log = np.concatenate([log, meta[at + log.shape[0]:at + steps].get(stream=stream)])
            reads += 1
        levels = VecData.bitmap(n, INT64, self.out_bits, self.out_levels, reached).normalized()
        pi = None
        if parents:
            pi = VecData.bitmap(n, INT64, self.out_bits.copy(), self.out_parents,
                                reached).normalized()
        step_ns = head[8:8 + min(steps, _TLOG)].astype(np.int64)
        info = {"levels": nlev, "reached": reached,
                "directions": ["push" if w & 1 else "pull" for w in log.tolist()],
                "frontier": (log >> 1).astype(np.int64).tolist(),
                "step_us": (step_ns / 1e3).tolist(),
                "kernel_us": float(int(head[3]) + int(head[4]) + int(step_ns.sum())) / 1e3,
                "start_us": float(head[3]) / 1e3, "output_us": float(head[4]) / 1e3}
        if block_steps:  # (and marked pushes: the fused kernel's counts)
            info["block_steps"], info["mark_steps"] = int(head[5]), int(head[6])
        if async_search:  # the barrier-free kernel's queue overflowed: the fused one ran
            info["async_fallback"] = bool(head[7])
            if not info["async_fallback"]:  # levels lowered: reached - 1 and corrections
                info["async_pushes"] = int(head[6])
                info["mark_steps"] = 0
        return levels, pi, info, reads

    def launch_args(self, graph: tuple[int, ...], state: tuple[int, ...], src: Any,
                    mode: int, parents: bool,
                    tune: tuple[float, float, float, int, int, int, int],
                    resume: int, stop: int, out: tuple[Any, ...] | None = None
                    ) -> tuple[Any, ...]:
        """The fused kernel's arguments, in _FUSED_ARGS's order, for one launch over this
        scratch (``graph``, ``state``: :meth:`pointers`; ``tune``: alpha, beta1, beta2,
        small_edges, eager_edges, mark_edges, pull_serial; ``out``: the outputs, default
        ``out_ptrs``; ``src`` and ``out`` may be coop_launch slots)."""
        alpha, beta1, beta2, small_edges, eager_edges, mark_edges, pull_serial = tune
        return (*graph, self.n, self.csr.nnz, src, mode, int(bool(parents)),
                int(self.csr_t is self.csr), float(alpha), float(beta1), float(beta2),
                min(small_edges, 2**62), min(eager_edges, 2**62), min(mark_edges, 2**62),
                pull_serial, self.nheavy,
                resume, stop, *state, *(self.out_ptrs if out is None else out),
                self.meta.data.ptr)

    def results_unread(self, parents: bool) -> tuple[Any, Any]:
        """(levels, parents) as :meth:`results` gives them, read nothing: the vectors'
        count stays on the device (``out_count``, written by the fused kernel) until
        someone asks for ``nvals``, so the call returns while the kernel runs."""
        n = self.n
        levels = VecData.bitmap(n, INT64, self.out_bits, self.out_levels, count=self.out_count)
        pi = None
        if parents:
            pi = VecData.bitmap(n, INT64, self.out_bits.copy(), self.out_parents,
                                count=self.out_count)
        return levels, pi


def fused_bfs(A: Any, source: int, *, parents: bool = False, direction: str = "auto",  # noqa: N803
              alpha: float = 8.0, beta1: float = 8.0, beta2: float = 512.0,
              blocks_per_sm: int | None = None, small_edges: int = SMALL_EDGES,
              eager_edges: int = EAGER_EDGES, mark_edges: int | None = None,
              pull_serial: int = PULL_SERIAL,
              step_log: bool = True, wide_ids: bool = False,
              max_blocks: int | None = None, min_blocks: int = MIN_BLOCKS,
              pull_blocks: int | None = PULL_MIN_BLOCKS, async_bfs: bool | None = None,
              async_cap: int | None = None,
              async_sleep_ns: int = bfs_async.ASYNC_SLEEP_NS,
              async_claim: int = bfs_async.ASYNC_CLAIM,
              async_profile: bool = False,
              async_look: bool = True) -> tuple[Any, Any, dict[str, Any]]:
    """BFS from ``source`` over the CUDA matrix ``A`` by a persistent cooperative kernel:
    one launch, or three (the pull levels by a build of more blocks, ``pull_blocks``).

    Returns ``(levels, parents, info)``: ``levels`` INT64 vector data (``VecData``;
    gblas.cuda wraps it in a Vector) on A's device with an entry for every reached vertex,
    ``parents`` the INT64 parent data (the source is its own parent) or None, and ``info``
    with ``levels`` (number of levels), ``reached``, ``directions`` (one per step, as
    ``bfs(stats=...)`` reports), ``frontier`` (the frontier size after each step),
    ``step_us`` (device time of each of the first 4096 steps, grid sync included; with
    three launches the first step of the second and third includes the gap between them),
    ``kernel_us`` (device time of the start, of those steps and of the output pass: the
    whole kernel when it took at most 4096 steps; ``start_us`` and ``output_us`` the first
    and the last of the three), ``grid``/``block`` (launch shape: the
    first launch's), ``pull_grid`` (the pull levels' launch, or None), ``launches``,
    ``host_syncs`` (host reads: 1, 2 past 4096 steps), ``levels_per_sync`` (the levels:
    the host reads nothing between them), ``small_edges``, ``eager_edges`` and
    ``block_steps`` (the steps run as block levels), ``mark_edges`` and ``mark_steps`` (the
    steps run as marked pushes) and ``kernel``.
    ``direction``: ``"auto"`` (LAGraph's rule with ``alpha``, ``beta1``, ``beta2``),
    ``"push"`` or ``"pull"``. Pull reads the CSR of Aᵀ (A's cached transpose).
    ``blocks_per_sm`` (a tuning knob) caps the blocks launched per SM; by default
    :func:`_default_blocks_per_sm` picks it from the average degree. ``small_edges`` (a
    tuning knob; 0 turns it off): a push level whose frontier has at most that many
    out-edges runs in one block, without a grid-wide barrier. ``eager_edges`` (a tuning
    knob; 0 turns it off): a push level of the grid from a queue (not the first push after
    a pull) over at most that many frontier edges claims its targets without probing their
    levels first. ``mark_edges`` (a tuning knob; 0 turns it off, None:
    :func:`mark_edges_for` the graph): a push level of the grid from a queue over at least
    that many frontier edges marks its targets (a byte a vertex) and claims them in a second
    pass over the marks, not by a claim per edge (bfs_common.cuh's fb_push_mark). ``pull_serial`` (a
    tuning knob, >= 1): in-neighbours a lane of a pull level checks alone before its warp
    takes the rest of the row. The kernel reads int32
    column ids (copies kept on the CSRs) where they fit; ``wide_ids=True`` (a tuning knob)
    makes it read the int64 ones.
    ``max_blocks`` (a tuning knob) caps the blocks of the whole grid (every loop is
    grid-stride: fewer blocks only change the speed). ``min_blocks`` (a tuning knob, 1 to
    8) compiles the kernel for at least that many resident blocks per SM (fewer registers
    a thread, more warps). ``pull_blocks`` (a tuning knob, 1 to 8, or None): the same for
    the pull levels, run by a launch of their own between the push levels' (resuming the
    loop state) where that build fits more blocks (:func:`_launch_plan`); None: one launch.
    ``async_bfs``: run the search by the barrier-free kernel (bfs_async.cu: a FIFO work queue,
    levels corrected where a longer path came first, no barrier between levels), True or
    False; None (the default) where :func:`bfs_async.prefers_async` says so (push or auto
    over a road network or a mesh: at least 65536 vertices of average degree 1.5 to 8; a row
    over 4096 entries, found on the device, hands the search to the fused kernel:
    docs/gpu_bfs_notes.md §7-§9). Its levels and parents are the same; its ``directions``
    are all ``"push"`` (it pushes every level; LAGraph's rule is not asked), its
    ``step_us`` the whole search as the first step, and ``info["kernel"]`` is
    ``cuda_csr_bfs_async`` (``cuda_csr_bfs_fused`` where the fused kernel searched after it:
    a row over 4096 entries, or a queue that overflowed; ``step_log=False`` cannot tell).
    ``async_cap`` (a testing knob): the queue's slots (default 2n); a search that appends
    more is run by the fused kernel after it (``info["async_fallback"]``).
    ``async_sleep_ns`` (a tuning knob): how long an idle warp sleeps between polls;
    ``async_claim`` (a tuning knob, 1 to 32): the queue's slots an idle warp claims at once.
    ``async_profile`` (a measuring knob): the barrier-free kernel's profile build, whose
    counters (busy and idle passes of the warps, their clock cycles, slots taken from the
    queue, vertices handed to free lanes, pushes) are read back into
    ``info["async_profile"]`` (one more host read). ``async_look``: the barrier-free
    kernel's look build, which reads a neighbour's word before its CAS and skips the CAS
    where the level is no higher (fewer atomics where most neighbours are reached already,
    one more round trip where they are not: docs/gpu_bfs_notes.md §8-§9), True (the
    default) or False. ``info["async_look"]`` says which build ran (None where the fused
    kernel searched).

    ``step_log=False`` reads nothing back: the call returns once the kernel is launched,
    the vectors' count stays on the device until someone asks for ``nvals`` (one read
    then), and ``info`` holds only ``grid``/``block``, ``small_edges``, ``eager_edges``,
    ``host_syncs`` (0) and ``kernel`` (``gblas.algorithms.bfs`` does this unless ``stats``
    is asked for).
    """
    src = check_args(A, source, parents=parents, direction=direction, alpha=alpha,
                     beta1=beta1, beta2=beta2, blocks_per_sm=blocks_per_sm,
                     what="fused BFS kernel")
    # (the thresholds are checked numbers, parents, wide_ids and step_log truth values: as
    # floats and bools they are hashable whatever the caller gave)
    return search(A, src, knob_key(Knobs(
        direction, bool(parents), float(alpha), float(beta1), float(beta2), blocks_per_sm,
        small_edges, eager_edges, mark_edges, pull_serial, bool(wide_ids), max_blocks,
        min_blocks, pull_blocks, async_bfs, async_cap, async_sleep_ns, async_claim,
        async_profile, async_look, bool(step_log))))


def search(A: Any, src: int, key: tuple[Knobs, tuple[type, ...]]  # noqa: N803
           ) -> tuple[Any, Any, dict[str, Any]]:
    """:func:`fused_bfs` from the source id ``src`` with the knobs of ``key`` (from
    :func:`knob_key` or :func:`default_key`), for a call already validated: A, the
    source, the direction and the thresholds (check_args, or :func:`applies` and the
    caller's own check of the source). Checks nothing again: gblas.algorithms.bfs validates
    a search once, not in each of its three layers (~10-15 µs of host time before the
    launch)."""
    knobs = key[0]
    parents, direction, async_profile = knobs.parents, knobs.direction, knobs.async_profile
    cp = _cp()
    dev = _device_id(A.device)
    with cp.cuda.Device(dev):
        w = Work.reused(A, direction, _CTR_WORDS)
        try:
            prep = w.prepared.get(key)
            if prep is None:
                if len(w.prepared) >= _MAX_PREPARED:  # a sweep over knobs: start over
                    w.prepared.clear()
                prep = w.prepared[key] = Prepared(w, dev, knobs)
            w.take_outputs(parents)
            prof = (cp.zeros(len(bfs_async.PROFILE_KEYS), dtype=np.uint64)
                    if prep.use_async and async_profile else None)
            values = (src, *w.out_ptrs, 0 if prof is None else prof.data.ptr)
            for launch in prep.launches:
                launch(values)
            if knobs.step_log:
                levels, pi, info, reads = w.results(A, parents, block_steps=True,
                                                    async_search=prep.use_async)
                info["levels_per_sync"] = info["levels"]
            else:
                levels, pi = w.results_unread(parents)
                info, reads = {}, 0
            w.after_search(parents)
            if prof is not None:
                info["async_profile"] = dict(zip(bfs_async.PROFILE_KEYS,
                                                 (int(x) for x in prof.get()), strict=True))
                reads += 1
        finally:
            w.release()
    searched_async = prep.use_async and not info.get("async_fallback", False)
    info.update(grid=prep.grid, block=_BLOCK, small_edges=knobs.small_edges,
                eager_edges=knobs.eager_edges, mark_edges=prep.mark_edges, host_syncs=reads,
                kernel=bfs_async.KERNEL_NAME if searched_async else KERNEL_NAME,
                id_bits=32 if prep.idx32 else 64, launches=len(prep.launches),
                pull_grid=prep.pull_grid, async_grid=prep.async_grid,
                async_look=knobs.async_look if prep.use_async else None)
    return levels, pi, info


class Knobs(NamedTuple):
    """fused_bfs's arguments other than the matrix and the source (a prepared search's key)."""

    direction: str
    parents: bool
    alpha: float
    beta1: float
    beta2: float
    blocks_per_sm: int | None
    small_edges: int
    eager_edges: int
    mark_edges: int | None
    pull_serial: int
    wide_ids: bool
    max_blocks: int | None
    min_blocks: int
    pull_blocks: int | None
    async_bfs: bool | None
    async_cap: int | None
    async_sleep_ns: int
    async_claim: int
    async_profile: bool
    async_look: bool
    step_log: bool


def check_knobs(k: Knobs) -> None:
    """InvalidValue where a knob of fused_bfs is out of its range (check_args has checked
    the matrix, the source, the direction, the thresholds and blocks_per_sm)."""
    bfs_async.check_knobs(k.async_bfs, k.async_cap, k.async_sleep_ns, k.async_claim,
                          k.async_profile, k.async_look)
    if k.async_bfs and k.direction == "pull":
        raise InvalidValue("async_bfs=True pushes every level; it takes direction 'auto' or "
                           "'push', got 'pull'")
    for name, v in (("small_edges", k.small_edges), ("eager_edges", k.eager_edges),
                    ("mark_edges", k.mark_edges)):
        if name == "mark_edges" and v is None:
            continue
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise InvalidValue(f"{name} must be a non-negative int, got {v!r}")
    serial = k.pull_serial
    if isinstance(serial, bool) or not isinstance(serial, int) or serial < 1:
        raise InvalidValue(f"pull_serial must be a positive int, got {serial!r}")
    mb = k.max_blocks
    if mb is not None and (isinstance(mb, bool) or not isinstance(mb, int) or mb < 1):
        raise InvalidValue(f"max_blocks must be a positive int or None, got {mb!r}")
    for name, mb in (("min_blocks", k.min_blocks), ("pull_blocks", k.pull_blocks)):
        if (mb is not None or name == "min_blocks") and (
                isinstance(mb, bool) or not isinstance(mb, int) or not 1 <= mb <= 8):
            raise InvalidValue(f"{name} must be an int from 1 to 8, got {mb!r}")


@functools.lru_cache(maxsize=256)
def _checked(key: tuple[Knobs, tuple[type, ...]]) -> bool:
    """:func:`check_knobs` once per knob set (with its types): a call with the knobs of an
    earlier one costs a lookup (a failed check raises, and is not remembered)."""
    check_knobs(key[0])
    return True


def knob_key(knobs: Knobs) -> tuple[Knobs, tuple[type, ...]]:
    """The key of a prepared search (:func:`search`): the knobs and their types (True == 1,
    yet async_look=1 is an error), checked (InvalidValue) once per key."""
    key = (knobs, tuple(map(type, knobs)))
    try:
        _checked(key)
    except TypeError:  # an unhashable knob: check_knobs names it
        check_knobs(knobs)
        raise
    return key


@functools.lru_cache(maxsize=64)
def default_key(direction: str, parents: bool, alpha: float, beta1: float, beta2: float,
                step_log: bool) -> tuple[Knobs, tuple[type, ...]]:
    """:func:`knob_key` of fused_bfs's defaults with these arguments (gblas.cuda's call),
    made once per set: the same key object each time. Give float thresholds (the lookup
    takes 8 == 8.0 alike, the key holds floats either way)."""
    return knob_key(_DEFAULT_KNOBS._replace(
        direction=direction, parents=bool(parents), alpha=float(alpha), beta1=float(beta1),
        beta2=float(beta2), step_log=bool(step_log)))


# fused_bfs's defaults, read from its signature once (one place states them)
_DEFAULT_KNOBS = Knobs(**{f: p.default for f, p in inspect.signature(fused_bfs).parameters.items()
                          if f in Knobs._fields})


class Prepared:
    """A search over the scratch ``w`` with the knobs ``k``, prepared once and kept on the
    scratch (Work.prepared): which kernel searches (the barrier-free one where
    ``use_async``), the launch plan, and each launch's arguments packed
    (coop_launch.PackedLaunch): a search then writes its source and outputs and launches."""

    def __init__(self, w: Work, dev: int, k: Knobs) -> None:
        graph, state, idx32 = w.pointers()
        if k.wide_ids and idx32:
            graph, idx32 = tuple(a.data.ptr for a in w.graph_args()), False
        self.idx32 = idx32
        self.use_async = (bfs_async.prefers_async(w.csr, k.direction) if k.async_bfs is None
                          else k.async_bfs)
        plan = _launch_plan(dev, idx32, w.n, w.csr.nnz, k.direction, k.blocks_per_sm,
                            k.max_blocks, k.min_blocks, None if self.use_async else k.pull_blocks)
        self.launches: list[PackedLaunch] = []
        self.async_grid = None
        if self.use_async:  # then the fused kernel, which runs only if the queue overflowed
            first = bfs_async.prepare(w, graph, idx32, dev, k.parents, k.step_log, plan[0][1],
                                      k.async_cap, k.async_sleep_ns, k.async_claim,
                                      bfs_async.ASYNC_MAX_ROW if k.async_bfs is None
                                      else 2**62, k.async_profile, k.async_look)
            self.launches.append(first)
            self.async_grid = first.grid
            plan = [(plan[0][0], plan[0][1], 0, 3)]
        self.grid = plan[0][1]
        self.pull_grid = plan[1][1] if len(plan) > 1 else None
        self.mark_edges = mark_edges_for(w.n) if k.mark_edges is None else k.mark_edges
        tune = (k.alpha, k.beta1, k.beta2, k.small_edges, k.eager_edges, self.mark_edges,
                k.pull_serial)
        for mb, grid, resume, stop in plan:
            self.launches.append(PackedLaunch(
                _fused_launch(dev, idx32, mb, resume == 1 and stop == 2), grid, _BLOCK,
                w.launch_args(graph, state, SOURCE, _MODES[k.direction], k.parents, tune,
                              resume, stop, out=OUTPUTS)))


def _launch_plan(dev: int, idx32: bool, n: int, nnz: int, direction: str,
                 blocks_per_sm: int | None, max_blocks: int | None, min_blocks: int,
                 pull_blocks: int | None) -> list[tuple[int, int, int, int]]:
    """The launches of a search, (build's min_blocks, grid, resume, stop) each: the search
    in one launch, or, where the pull build fits more blocks than the push build (graphs of
    average degree >= 16: :func:`_default_blocks_per_sm`), the levels up to the first pull
    (stop 1), the pulls up to the next push (resume, stop 2: the build without push code),
    and the rest (resume) (PULL_MIN_BLOCKS has the measurements). A search that only pulls
    is one launch of the pull build."""
    def grid_of(mb: int, pull_only: bool = False) -> int:
        _, per_sm, sms = get_kernel(dev, idx32, mb, pull_only)
        per_sm = min(per_sm, blocks_per_sm or _default_blocks_per_sm(n, nnz, per_sm))
        return per_sm * sms if max_blocks is None else min(per_sm * sms, max_blocks)

    push = (min_blocks, grid_of(min_blocks))
    if pull_blocks is None or direction == "push":
        return [(*push, 0, 0)]
    # (only the build that runs is compiled: the pull launch's, or for "pull" the whole one)
    pull = (pull_blocks, grid_of(pull_blocks, direction != "pull"))
    if pull[1] <= push[1]:
        return [(*push, 0, 0)]
    if direction == "pull":
        return [(*pull, 0, 0)]
    return [(*push, 0, 1), (*pull, 1, 2), (*push, 1, 0)]


__all__ = ["KERNEL_NAME", "MIN_BLOCKS", "PULL_MIN_BLOCKS", "Work", "applies", "check_args",
           "default_key", "fused_bfs", "get_kernel", "knob_key", "module_source", "occupancy",
           "search"]
