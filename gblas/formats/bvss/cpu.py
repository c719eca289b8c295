"""CPU (Numba) emulation of the BVSS pull of Blest (Elbek & Kaya, arXiv 2512.21967, §3-§4),
step by step as the GPU kernels (cuda.py and its .cu sources) run it, so CI tests the data structure
and the algorithm without a GPU.

y = M ⊕.⊗ x for a pattern semiring, M in BVSS (see container.py for the layout), in five
steps; every function below is one step and takes the arrays the CUDA kernel takes:

1. ``pack_bits`` / ``pack_indices``: the operand's present bits, one byte per column block
   b (``xbyte[b]`` bit t = x present at stored position 8b+t, i.e. original id
   ``perm[8b+t]``).
2. ``active_queue``: every VSS v of every set b with ``xbyte[b] != 0``; no warp ever works
   on a zero frontier byte.
3. ``process_queue``: one warp per active VSS. Lane L loads 32-bit word L of the VSS's mask
   slots (A word L&3 of A-row L>>2; slots past the VSS's end read as 0) and builds the B
   fragments of two ``mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.and.popc``
   (``b_fragment``: the operand byte F at byte j of B-column j, then at byte 8+j);
   ``mma_m8n8k128_and_popc`` computes D[r][c] = Σ_w popc(A[r][w] & B[c][w]) from the 32
   lanes' fragments and hands lane L D[L>>2][2(L&3)], D[L>>2][2(L&3)+1]. Lane L's four
   outputs are the VSS's slices k = 4L+t (t = 0, 1 from MMA 1, t = 2, 3 from MMA 2), which
   is what the thread-order mask layout guarantees. The CUDA-core variant ("popcount")
   computes the same four values as popc(mask byte & F) at slot offsets ``lane_slot(L, t)``
   = 16(L>>2) + 2(L&3) + {0, 1, 8, 9}.
4. Lazy vertex updates (in ``process_queue``): a slice with a nonzero output and a real row
   does a plain byte store ``touched[row] = 1``; racing stores write the same value, so no
   atomics (the parallel CPU loop races the same way).
5. ``finalise``: one pass over all rows: output present = touched[p] and the mask allows
   original row ``perm[p]``; touched is reset to 0 for the next call.

``bfs`` runs the whole pull-only BFS level by level, as the fused GPU kernel will: frontier
bytes -> active queue -> the two-MMA warp -> lazy touched bytes -> finalisation
(new = touched & ~visited) which also packs the next frontier bytes.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import numba
import numpy as np
from numba import prange

from ...backend.threads import num_threads
from ...backend.threads import threads_for as csr_threads_for
from ...exceptions import DimensionMismatch, IndexOutOfBound, InvalidValue
from .container import BVSS, SIGMA, TAU

VARIANTS = ("mma", "popcount")
WARP = 32
_PARALLEL_WORK = 1 << 18
_JIT = {"cache": True, "nogil": True, "error_model": "numpy"}
_STATE: dict[str, Any] = {"variant": "mma"}
# counters of the last mxv / bfs call (tests and benchmarks read them)
LAST_RUN: dict[str, Any] = {"variant": "mma", "active_vss": 0, "active_sets": 0}


# ------------------------------------------------------------------------ the switch
def check_variant(variant: Any) -> str:
    if variant not in VARIANTS:
        raise InvalidValue(f"BVSS warp variant must be one of {', '.join(map(repr, VARIANTS))}"
                           f", got {variant!r}")
    return str(variant)


@contextmanager
def use_variant(variant: str) -> Iterator[None]:
    """Run the BVSS mxv kernel with ``variant`` ("mma": two emulated 1-bit MMAs per VSS;
    "popcount": the CUDA-core fallback) inside the block."""
    check_variant(variant)
    prev = _STATE["variant"]
    _STATE["variant"] = variant
    try:
        yield
    finally:
        _STATE["variant"] = prev


def current_variant() -> str:
    return str(_STATE["variant"])


# ------------------------------------------------------------------ bit primitives
@numba.njit(inline="always", **_JIT)
def popc32(x: Any) -> int:
    """Population count of a 32-bit word (SWAR, as __popc)."""
    v = np.int64(x) & 0xFFFFFFFF
    v = v - ((v >> 1) & 0x55555555)
    v = (v & 0x33333333) + ((v >> 2) & 0x33333333)
    v = (v + (v >> 4)) & 0x0F0F0F0F
    return ((v * 0x01010101) & 0xFFFFFFFF) >> 24


@numba.njit(inline="always", **_JIT)
def lowest_bit(byte: Any) -> int:
    """Index of the lowest set bit of a nonzero byte (__ffs - 1)."""
    t = 0
    while not (byte >> t) & 1:
        t += 1
    return t


@numba.njit(inline="always", **_JIT)
def lane_slot(lane: int, t: int) -> int:
    """Slot offset (inside its VSS) of the mask whose result lane ``lane`` receives as its
    output t: byte 2c + (t & 1) + 8 (t >> 1) of A-row lane >> 2, c = lane & 3; it holds the
    VSS's slice 4 lane + t (container.POS16)."""
    return 16 * (lane >> 2) + 2 * (lane & 3) + (t & 1) + 8 * (t >> 1)


# ------------------------------------------------------------ one warp, two MMAs
@numba.njit(**_JIT)
def load_a_fragment(masks: Any, base: int, end: int, a_frag: Any) -> None:
    """Lane L's A register: 32-bit word L of the VSS's slots (bytes 4L .. 4L+3, little
    endian), i.e. word L & 3 of A-row L >> 2; slots at or past ``end`` read as 0."""
    for lane in range(WARP):
        word = np.uint32(0)
        for q in range(4):
            s = base + 4 * lane + q
            if s < end:
                word |= np.uint32(masks[s]) << np.uint32(8 * q)
        a_frag[lane] = word


@numba.njit(**_JIT)
def b_fragment(f: int, second: bool, b_frag: Any) -> None:
    """Lane L's B register: word L & 3 of B-column j = L >> 2. MMA 1 puts the operand byte
    F at byte j of column j (word j >> 2), MMA 2 at byte 8 + j (word 2 + (j >> 2))."""
    for lane in range(WARP):
        j = lane >> 2
        word = (2 if second else 0) + (j >> 2)
        if (lane & 3) == word:
            b_frag[lane] = np.uint32(f) << np.uint32(8 * (j & 3))
        else:
            b_frag[lane] = np.uint32(0)


@numba.njit(**_JIT)
def mma_m8n8k128_and_popc(a_frag: Any, b_frag: Any, c_frag: Any, d_frag: Any) -> None:
    """``mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.and.popc`` from the 32 lanes'
    fragments: A-row r word w is lane 4r+w's register, B-column c word w is lane 4c+w's;
    D[r][c] = C[r][c] + Σ_w popc(A[r][w] & B[c][w]); lane L holds D[L>>2][2(L&3) + i] in
    ``d_frag[L, i]`` (and C likewise in ``c_frag``)."""
    for lane in range(WARP):
        r = lane >> 2
        for i in range(2):
            col = 2 * (lane & 3) + i
            acc = np.int64(c_frag[lane, i])
            for w in range(4):
                acc += popc32(a_frag[4 * r + w] & b_frag[4 * col + w])
            d_frag[lane, i] = acc


@numba.njit(**_JIT)
def warp_vss_mma(masks: Any, base: int, end: int, f: int, a_frag: Any, b_frag: Any,
                 c_frag: Any, d_frag: Any, out: Any) -> None:
    """One warp on the VSS of slots [base, end) with operand byte ``f``: two MMAs; lane L's
    outputs t = 0, 1 (MMA 1) and t = 2, 3 (MMA 2) go to ``out[L, t]`` (int32[32, 4])."""
    load_a_fragment(masks, base, end, a_frag)
    for half in range(2):
        b_fragment(f, half == 1, b_frag)
        mma_m8n8k128_and_popc(a_frag, b_frag, c_frag, d_frag)
        for lane in range(WARP):
            out[lane, 2 * half] = d_frag[lane, 0]
            out[lane, 2 * half + 1] = d_frag[lane, 1]


@numba.njit(**_JIT)
def warp_vss_popcount(masks: Any, base: int, end: int, f: int, out: Any) -> None:
    """The CUDA-core variant: lane L computes popc(mask & F) of its four slices directly
    from the mask bytes at ``base + lane_slot(L, t)``; same ``out`` as ``warp_vss_mma``."""
    for lane in range(WARP):
        for t in range(4):
            s = base + lane_slot(lane, t)
            out[lane, t] = popc32(np.int64(masks[s]) & f) if s < end else 0


# ------------------------------------------------------------- steps 1, 2, 3+4, 5
@numba.njit(parallel=True, **_JIT)
def pack_bits(present: Any, perm: Any, has_perm: bool, nsets: int) -> Any:
    """Step 1 from a bool[ncols] operand: ``xbyte[b]`` bit t = present[perm[8b+t]]."""
    ncols = present.shape[0]
    xbyte = np.zeros(nsets, dtype=np.uint8)
    for b in prange(nsets):
        byte = 0
        for t in range(SIGMA):
            p = SIGMA * b + t
            if p < ncols and present[perm[p] if has_perm else p]:
                byte |= 1 << t
        xbyte[b] = byte
    return xbyte


@numba.njit(**_JIT)
def pack_indices(indices: Any, iperm: Any, has_perm: bool, nsets: int) -> Any:
    """Step 1 from a sparse operand (original ids): an OR per entry (atomicOr on the GPU)."""
    xbyte = np.zeros(nsets, dtype=np.uint8)
    for q in range(indices.shape[0]):
        p = iperm[indices[q]] if has_perm else indices[q]
        xbyte[p >> 3] |= np.uint8(1 << (p & 7))
    return xbyte


@numba.njit(**_JIT)
def active_queue(xbyte: Any, set_ptr: Any) -> Any:
    """Step 2: the VSSs of every set with a nonzero operand byte, in set order (a count,
    an exclusive scan and a fill, as the GPU builds it; serial here: O(sets) is less than
    a parallel region costs)."""
    nsets = xbyte.shape[0]
    offs = np.zeros(nsets + 1, dtype=np.int64)
    for b in range(nsets):
        offs[b + 1] = set_ptr[b + 1] - set_ptr[b] if xbyte[b] != 0 else 0
    for b in range(nsets):
        offs[b + 1] += offs[b]
    queue = np.empty(offs[nsets], dtype=np.int64)
    for b in range(nsets):
        o = offs[b]
        for v in range(set_ptr[b], set_ptr[b] + offs[b + 1] - offs[b]):
            queue[o] = v
            o += 1
    return queue


@numba.njit(parallel=True, **_JIT)
def process_queue(queue: Any, xbyte: Any, vss_set: Any, vss_ptr: Any, row_ids: Any,
                  masks: Any, use_mma: bool, touched: Any, want_parent: bool,
                  cand: Any, nchunks: int) -> None:
    """Steps 3-4: one emulated warp per queued VSS, then the lazy updates
    ``touched[row] = 1`` of every slice with a nonzero output. With ``want_parent`` the
    hit also stores ``cand[row] = 8 b + lowest bit of (mask & F)``: a frontier
    in-neighbour found in that slice (plain store; any racing writer is a valid parent).
    The queue is cut into ``nchunks`` contiguous pieces, one warp's registers each."""
    nq = queue.shape[0]
    nchunks = min(nq, nchunks)
    for c in prange(nchunks):
        a_frag = np.empty(WARP, dtype=np.uint32)
        b_frag = np.empty(WARP, dtype=np.uint32)
        c_frag = np.zeros((WARP, 2), dtype=np.int32)
        d_frag = np.empty((WARP, 2), dtype=np.int32)
        out = np.empty((WARP, 4), dtype=np.int32)
        for qi in range(c * nq // nchunks, (c + 1) * nq // nchunks):
            v = queue[qi]
            b = vss_set[v]
            f = np.int64(xbyte[b])
            base, end = vss_ptr[v], vss_ptr[v + 1]
            if use_mma:
                warp_vss_mma(masks, base, end, f, a_frag, b_frag, c_frag, d_frag, out)
            else:
                warp_vss_popcount(masks, base, end, f, out)
            for lane in range(WARP):
                for t in range(4):
                    if out[lane, t] == 0:
                        continue
                    s = base + 4 * lane + t  # row ids are in slice order: rows 4L .. 4L+3
                    if s >= end:
                        continue
                    row = row_ids[s]
                    if row < 0:
                        continue
                    touched[row] = 1
                    if want_parent:
                        hit = np.int64(masks[base + lane_slot(lane, t)]) & f
                        cand[row] = SIGMA * np.int64(b) + lowest_bit(hit)


@numba.njit(parallel=True, **_JIT)
def finalise(touched: Any, perm: Any, has_perm: bool, mask: Any, use_mask: bool,
             mcomp: bool, out_present: Any) -> None:
    """Step 5: output row ``perm[p]`` is present iff touched[p] and the mask allows it
    (raw mask bits in caller ids, as MxvCall); touched is reset to 0."""
    for pp in prange(touched.shape[0]):
        p = np.int64(pp)
        hit = touched[p] != 0
        touched[p] = 0
        i = perm[p] if has_perm else p
        out_present[i] = hit and not (use_mask and mask[i] == mcomp)


# ----------------------------------------------------------------- mxv driver
def _perm_args(rep: BVSS) -> tuple[Any, Any, bool]:
    if rep.perm is None:
        z = np.zeros(1, dtype=np.int64)
        return z, z, False
    return (np.ascontiguousarray(rep.perm, dtype=np.int64),
            np.ascontiguousarray(rep.inverse_perm(), dtype=np.int64), True)


def operand_bytes(rep: BVSS, present: Any = None, indices: Any = None) -> np.ndarray:
    """Step 1 for a bool[ncols] operand (``present``) or its sorted original ids
    (``indices``, the cheaper path for a sparse operand)."""
    perm, iperm, has_perm = _perm_args(rep)
    if indices is not None:
        return pack_indices(np.ascontiguousarray(indices, dtype=np.int64), iperm, has_perm,
                            rep.nsets)
    present = np.ascontiguousarray(present, dtype=np.bool_)
    if present.shape[0] != rep.ncols:
        raise DimensionMismatch(f"BVSS operand has {present.shape[0]} entries, the matrix "
                                f"has {rep.ncols} columns")
    return pack_bits(present, perm, has_perm, rep.nsets)


def _nchunks() -> int:
    return 8 * max(num_threads(), 1)


def threads_for(work: int) -> AbstractContextManager[None]:
    """One thread below ``_PARALLEL_WORK`` units of work (slots + rows), all above (the CSR
    kernels' switch, with this module's threshold)."""
    return csr_threads_for(work, _PARALLEL_WORK)


def _touched(rep: BVSS) -> np.ndarray:
    """The per-row byte workspace, all zero between calls (finalise resets it)."""
    ws = rep._derived.get("touched")
    if ws is None or ws.shape[0] != rep.nrows:
        ws = np.zeros(rep.nrows, dtype=np.uint8)
        rep._derived["touched"] = ws
    return ws


def mxv_bytes(rep: BVSS, xbyte: Any, mask_bits: Any | None = None, mask_comp: bool = False,
              variant: str | None = None) -> np.ndarray:
    """Steps 2-5 for operand bytes ``xbyte``: bool[nrows] presence of M ⊕.⊗ x, in caller
    ids, rows the mask forbids absent."""
    variant = check_variant(current_variant() if variant is None else variant)
    xbyte = np.ascontiguousarray(xbyte, dtype=np.uint8)
    if xbyte.shape[0] != rep.nsets:
        raise DimensionMismatch(f"BVSS operand bytes: expected {rep.nsets} (one per column "
                                f"block), got {xbyte.shape[0]}")
    queue = active_queue(xbyte, rep.set_ptr)
    touched = _touched(rep)
    process_queue(queue, xbyte, rep.vss_set, rep.vss_ptr, rep.row_ids, rep.masks,
                  variant == "mma", touched, False, np.zeros(1, dtype=np.int64), _nchunks())
    out = np.empty(rep.nrows, dtype=np.bool_)
    perm, _, has_perm = _perm_args(rep)
    if mask_bits is None:
        mb, use_mask = np.zeros(1, dtype=np.bool_), False
    else:
        mb, use_mask = np.ascontiguousarray(mask_bits, dtype=np.bool_), True
    finalise(touched, perm, has_perm, mb, use_mask, bool(mask_comp), out)
    LAST_RUN.update(variant=variant, active_vss=int(queue.shape[0]),
                    active_sets=int(np.count_nonzero(xbyte)))
    return out


def mxv_pattern(rep: BVSS, present: Any = None, indices: Any = None,
                mask_bits: Any | None = None, mask_comp: bool = False,
                variant: str | None = None) -> np.ndarray:
    """Presence of y = M ⊕.⊗ x for a pattern semiring (steps 1-5); x given as bool[ncols]
    ``present`` or as sorted original ``indices``."""
    return mxv_bytes(rep, operand_bytes(rep, present, indices), mask_bits, mask_comp,
                     variant)


# ------------------------------------------------------------------------- BFS
@numba.njit(parallel=True, **_JIT)
def bfs_finalise(touched: Any, visited: Any, level: Any, depth: int, cand: Any,
                 parent: Any, want_parent: bool, xbyte: Any, counts: Any) -> None:
    """The BFS form of step 5, one thread per column block's 8 rows: new = touched &
    ~visited gets level ``depth`` (and its candidate parent) and becomes bit p & 7 of the
    next frontier byte; touched is reset. ``counts[b]`` = new vertices of block b."""
    n = touched.shape[0]
    for b in prange(xbyte.shape[0]):
        byte = 0
        cnt = 0
        for t in range(SIGMA):
            p = SIGMA * b + t
            if p >= n:
                break
            if touched[p] != 0:
                touched[p] = 0
                if visited[p] == 0:
                    visited[p] = 1
                    level[p] = depth
                    if want_parent:
                        parent[p] = cand[p]
                    byte |= 1 << t
                    cnt += 1
        xbyte[b] = byte
        counts[b] = cnt


def bfs(rep: BVSS, source: int, parents: bool = False, *, variant: str = "mma"
        ) -> tuple[np.ndarray, np.ndarray | None, dict[str, Any]]:
    """Pull-only BFS over ``rep`` = the BVSS of Aᵀ (row i lists the in-neighbours of i; for
    a symmetric A the BVSS of A), level by level as the fused GPU kernel runs it.

    Returns (levels int64[n], -1 where unreached; parents int64[n] (-1 unreached, the
    source is its own parent) or None; info) in caller ids. ``info``: ``levels`` (number
    of non-empty frontiers), ``frontier`` (size of each), ``active_vss`` (VSSs run to expand
    each), ``variant``, ``reorder``."""
    variant = check_variant(variant)
    n = rep.nrows
    if rep.ncols != n:
        raise DimensionMismatch(f"BFS needs the BVSS of a square matrix, got {rep.nrows} x "
                                f"{rep.ncols}")
    try:
        src = int(source)
    except (TypeError, ValueError):
        raise InvalidValue(f"source must be a vertex id, got {source!r}") from None
    if src < 0 or src >= n:
        raise IndexOutOfBound(f"source {src} is out of range for a graph of {n} vertices")
    perm, iperm, has_perm = _perm_args(rep)
    s = int(iperm[src]) if has_perm else src
    nsets = rep.nsets
    visited = np.zeros(n, dtype=np.uint8)
    level = np.full(n, -1, dtype=np.int64)
    parent = np.full(n, -1, dtype=np.int64)
    cand = np.full(n if parents else 1, -1, dtype=np.int64)
    counts = np.zeros(nsets, dtype=np.int64)
    touched = _touched(rep)
    visited[s], level[s], parent[s] = 1, 0, s
    xbyte = np.zeros(nsets, dtype=np.uint8)
    xbyte[s >> 3] = 1 << (s & 7)
    nxt = np.empty(nsets, dtype=np.uint8)
    frontier, active = [1], []
    depth = 0
    while True:
        queue = active_queue(xbyte, rep.set_ptr)
        active.append(int(queue.shape[0]))
        # a road graph has ~1000 small levels: a parallel region costs more than one
        with threads_for(int(queue.shape[0]) * TAU + n):
            process_queue(queue, xbyte, rep.vss_set, rep.vss_ptr, rep.row_ids, rep.masks,
                          variant == "mma", touched, parents, cand, _nchunks())
            depth += 1
            bfs_finalise(touched, visited, level, depth, cand, parent, parents, nxt, counts)
        new = int(counts.sum())
        if new == 0:
            break
        frontier.append(new)
        xbyte, nxt = nxt, xbyte
    LAST_RUN.update(variant=variant, active_vss=sum(active), active_sets=None)
    if has_perm:  # stored positions -> caller ids
        lv = np.empty_like(level)
        lv[perm] = level
        level = lv
        if parents:
            pi = np.full(n, -1, dtype=np.int64)
            reached = parent >= 0
            pi[perm[reached]] = perm[parent[reached]]
            parent = pi
    info = {"levels": len(frontier), "frontier": frontier, "active_vss": active,
            "variant": variant, "reorder": rep.reorder}
    return level, (parent if parents else None), info
