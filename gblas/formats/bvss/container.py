"""BVSS: binarised virtual slice sets, the bitmap format of Blest (Elbek & Kaya, "BLEST:
Blazingly Efficient BFS using Tensor Cores", arXiv 2512.21967, §3).

The container holds a matrix M (for a BFS pull, M = Aᵀ: row i lists the in-neighbours of
vertex i) as 8-bit column slices, grouped so that one byte of the operand vector serves a
whole group:

- **slice** (i, b): row i restricted to the σ = 8 columns 8b .. 8b+7, one byte whose bit t
  says whether M[i, 8b+t] is stored; only nonzero slices exist.
- **slice set** b: every slice of column block b, in increasing row order. All its slices
  are ANDed with the same operand byte x[8b .. 8b+7] (the "frontier word").
- **virtual slice set** (VSS): a slice set cut into pieces of at most τ = 128 slices, the
  work of one warp: two 1-bit MMAs m8n8k128 (or 32 lanes × 4 slices on CUDA cores).
  ``set_ptr[b] .. set_ptr[b+1]-1`` are the VSSs of set b (Blest's realPtrs) and
  ``vss_set[v]`` is the set of VSS v (virtualToReal).
- **slots**: VSS v owns slots ``vss_ptr[v] .. vss_ptr[v+1]-1``; a VSS of c slices is padded to
  a multiple of 16 slots (one MMA A-row of 128 bits), so only the last VSS of a set has
  padding. ``row_ids[vss_ptr[v] + k]`` is the row of the VSS's k-th slice (-1 for padding):
  lane L of a warp reads rows 4L .. 4L+3 as one 16-byte load and writes those rows.
- **masks, in thread order** (Blest §3.1.2's slice-to-thread layout, re-derived for the MMA
  fragments): the A tile of one VSS is 8 rows × 16 bytes, lane L holds 32-bit word L&3 of
  A-row L>>2, and the MMA delivers to lane L the outputs of A-row L>>2, bytes
  {2c, 2c+1, 8+2c, 9+2c} with c = L&3 (the first MMA puts the operand byte at B-column
  byte j, the second at byte 8+j). So the mask of slice k sits at slot position
  ``16*(k//16) + POS16[k % 16]`` with POS16 = [0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6,
  7, 14, 15]: every output of both MMAs is used, and lane L's four outputs are its four
  consecutive rows.

With a reordering (``reorder=``), the matrix stored is P M Pᵀ (``perm[p]`` = original id of
position p) and the kernels translate operand and result ids, so results are always in the
caller's ids. BVSS stores no values: every stored entry is 1 (true) of the matrix's type,
as in SlimSell; the format serves boolean "pattern" semirings (any_pair, lor_land, ...).
On the GPU the builder uses only CuPy array operations (sorts and scans); on the CPU two
O(nnz) Numba passes give the same arrays.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numba
import numpy as np

from ...dtypes import DataType
from ...exceptions import InvalidValue
from ..csr.container import CSR, _xp_of

SIGMA = 8  # bits of a slice (columns per block)
TAU = 128  # slices of a full VSS: one 8x128-bit MMA tile
ROW = 16  # slices of one MMA A-row; a VSS is padded to a multiple of this
POS16 = np.array([0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15], dtype=np.int64)
_POS16 = tuple(int(p) for p in POS16)  # a constant inside the Numba builder
PARAMS = ("reorder", "tau")


@dataclass
class BVSS:
    nrows: int
    ncols: int
    set_ptr: Any  # int64[nsets + 1]: first VSS of each column block (realPtrs)
    vss_set: Any  # int32[nvss]: column block of each VSS (virtualToReal)
    vss_ptr: Any  # int64[nvss + 1]: first slot of each VSS (multiples of 16)
    row_ids: Any  # int32[slots]: row of the k-th slice of a VSS, -1 for padding
    masks: Any  # uint8[slots]: slice bytes in thread order (see the module docstring)
    perm: Any | None  # int64[n]: original id at position p (square matrices), or None
    dtype: DataType
    nnz: int = 0
    slices: int = 0
    reorder: str = "none"
    reorder_info: dict[str, Any] = field(default_factory=dict)
    _derived: dict[str, Any] = field(default_factory=dict, repr=False)

    name = "bvss"
    tau = TAU

    @property
    def xp(self) -> Any:
        return _xp_of(self.masks)

    @property
    def nsets(self) -> int:
        return int(self.set_ptr.shape[0]) - 1

    @property
    def nvss(self) -> int:
        return int(self.vss_set.shape[0])

    @property
    def slots(self) -> int:
        return int(self.masks.shape[0])

    @property
    def iso(self) -> Any:
        return self.dtype.cast(1)

    @property
    def is_iso(self) -> bool:
        return True

    def inverse_perm(self) -> Any:
        """``iperm[v]`` = position of original vertex v (cached); None without a reordering."""
        if self.perm is None:
            return None
        if "iperm" not in self._derived:
            xp = self.xp
            inv = xp.empty_like(self.perm)
            inv[self.perm] = xp.arange(self.perm.shape[0], dtype=np.int64)
            self._derived["iperm"] = inv
        return self._derived["iperm"]

    def nbytes(self) -> int:
        """Bytes of every array of the format (set_ptr, vss_set, vss_ptr, row_ids, masks,
        perm)."""
        arrays = (self.set_ptr, self.vss_set, self.vss_ptr, self.row_ids, self.masks,
                  self.perm)
        return sum(int(a.nbytes) for a in arrays if a is not None)

    def update_divergence(self) -> float:
        """Mean number of distinct 128-vertex lines (one 128-byte line of a byte-per-vertex
        update array) that one VSS writes: 1 when a VSS's rows are close, up to 128."""
        if "update_divergence" not in self._derived:
            xp = self.xp
            real = xp.nonzero(self.row_ids >= 0)[0]
            if real.shape[0] == 0:
                self._derived["update_divergence"] = 0.0
            else:
                v = _segment_of(xp, self.vss_ptr, self.slots)[real]
                line = self.row_ids[real].astype(np.int64) >> 7
                new = xp.ones(real.shape[0], dtype=bool)
                new[1:] = (v[1:] != v[:-1]) | (line[1:] != line[:-1])
                self._derived["update_divergence"] = int(new.sum()) / max(self.nvss, 1)
        return self._derived["update_divergence"]

    def stats(self) -> dict[str, Any]:
        nb = self.nbytes()
        return {"format": self.name, "sigma": SIGMA, "tau": TAU, "nnz": self.nnz,
                "slices": self.slices, "vss": self.nvss, "sets": self.nsets,
                "slots": self.slots, "padding": self.slots - self.slices,
                "compression_ratio": self.nnz / max(self.slices * SIGMA, 1),
                "update_divergence": self.update_divergence(), "nbytes": nb,
                "bytes_per_edge": nb / max(self.nnz, 1), "reorder": self.reorder,
                "reorder_seconds": self.reorder_info.get("seconds", 0.0),
                "build_seconds": self.reorder_info.get("build_seconds", 0.0)}

    def to(self, device: str) -> BVSS:
        from ..._device import move_array  # noqa: PLC0415

        m = [move_array(a, device) for a in (self.set_ptr, self.vss_set, self.vss_ptr,
                                             self.row_ids, self.masks, self.perm)]
        return BVSS(self.nrows, self.ncols, *m, self.dtype, self.nnz, self.slices,
                    self.reorder, dict(self.reorder_info))


# ============================================================================ builders
def check_params(params: dict[str, Any]) -> tuple[str, int]:
    """(reorder, tau) from the format's parameters; InvalidValue before anything is built."""
    from .reorder import METHODS  # noqa: PLC0415

    unknown = sorted(set(params) - set(PARAMS))
    if unknown:
        raise InvalidValue(f"format 'bvss' takes parameters {', '.join(PARAMS)}; got unknown "
                           f"{', '.join(unknown)}")
    reorder = params.get("reorder", "none")
    if reorder not in METHODS:
        raise InvalidValue(f"format 'bvss': reorder must be one of {', '.join(METHODS)}, "
                           f"got {reorder!r}")
    tau = params.get("tau", TAU)
    if isinstance(tau, bool) or tau != TAU:
        raise InvalidValue(f"format 'bvss': tau is fixed at {TAU} slices (one 8x128-bit MMA "
                           f"tile), got {tau!r}")
    return reorder, TAU


def _segment_of(xp: Any, ptr: Any, total: int) -> Any:
    """Segment id of every position 0..total-1 for segment starts ``ptr`` (len k+1)."""
    pos = xp.arange(total, dtype=np.int64)
    return xp.searchsorted(ptr[1:], pos, side="right").astype(np.int64)


def slot_position(xp: Any, k: Any) -> Any:
    """Slot offset (inside its VSS) of the mask of the VSS's k-th slice."""
    return (k & ~15) | xp.asarray(POS16)[k & 15]


def build(csr: CSR, **params: Any) -> BVSS:
    """BVSS of ``csr`` (NumPy or CuPy arrays), optionally reordered (``reorder=``)."""
    reorder, tau = check_params(params)
    info: dict[str, Any] = {"seconds": 0.0, "method": reorder}
    perm = None
    if reorder != "none":
        from .reorder import reorder_permutation  # noqa: PLC0415

        perm_host, got = reorder_permutation(csr, reorder)
        info = dict(got)
        if perm_host is not None:
            perm = csr.xp.asarray(perm_host, dtype=np.int64)
    return build_permuted(csr, perm, info, tau)


def build_permuted(csr: CSR, perm: Any | None, info: dict[str, Any], tau: int = TAU) -> BVSS:
    """BVSS of P ``csr`` Pᵀ for a given permutation (``perm[p]`` = original id of p, an
    array on csr's device, or None) computed by a reordering that ``info`` describes. The
    permutation of a reordering depends only on the symmetrised structure, so the BVSS of
    Aᵀ can reuse the one computed for A (see bfs_tc.pull_rep)."""
    t1 = time.perf_counter()
    if perm is not None:
        from .reorder import permute_csr  # noqa: PLC0415

        csr = permute_csr(csr, perm)
    out = _build_slices(csr, tau)
    if out.xp is not np:
        out.xp.cuda.get_current_stream().synchronize()
    info = dict(info)
    info["build_seconds"] = time.perf_counter() - t1
    info.setdefault("seconds", 0.0)
    out.perm = perm
    out.reorder = info.get("method", "none")
    out.reorder_info = info
    return out


def _vss_layout(xp: Any, cnt: Any, tau: int) -> tuple[Any, Any, Any]:
    """(set_ptr, vss_set, vss_ptr) from the slices per set: ceil(cnt / tau) VSSs a set, a
    VSS of c slices padded to a multiple of ROW slots."""
    nsets = int(cnt.shape[0])
    set_ptr = xp.zeros(nsets + 1, dtype=np.int64)
    xp.cumsum(-(-cnt // tau), out=set_ptr[1:])
    nvss = int(set_ptr[-1])
    vss_set = _segment_of(xp, set_ptr, nvss)
    q = xp.arange(nvss, dtype=np.int64) - set_ptr[vss_set]  # VSS index inside its set
    size = xp.minimum(cnt[vss_set] - q * tau, tau)
    vss_ptr = xp.zeros(nvss + 1, dtype=np.int64)
    xp.cumsum(-(-size // ROW) * ROW, out=vss_ptr[1:])
    return set_ptr, vss_set, vss_ptr


def _build_slices(csr: CSR, tau: int) -> BVSS:
    """The slices of ``csr`` in BVSS layout: two O(nnz) Numba passes on the CPU, sorts and
    scans (``_build_slices_xp``) on the GPU; the same arrays either way."""
    if csr.xp is not np or csr.nnz == 0:
        return _build_slices_xp(csr, tau)
    indptr = csr.indptr.astype(np.int64, copy=False)
    indices = csr.indices.astype(np.int64, copy=False)
    nsets = -(-csr.ncols // SIGMA)
    cnt, nslices = _count_slices(indptr, indices, nsets)
    set_ptr, vss_set, vss_ptr = _vss_layout(np, cnt, tau)
    slots = int(vss_ptr[-1])
    row_ids = np.full(slots, -1, dtype=np.int32)
    masks = np.zeros(slots, dtype=np.uint8)
    _fill_slices(indptr, indices, set_ptr, vss_ptr, tau, row_ids, masks)
    return BVSS(csr.nrows, csr.ncols, set_ptr, vss_set.astype(np.int32), vss_ptr, row_ids,
                masks, None, csr.dtype, csr.nnz, int(nslices))


@numba.njit(cache=True)
def _count_slices(indptr: Any, indices: Any, nsets: int) -> tuple[Any, int]:
    """Slices per column block, and in all (a slice: a run of one block in a sorted row)."""
    cnt = np.zeros(nsets, dtype=np.int64)
    total = 0
    for i in range(indptr.shape[0] - 1):
        last = -1
        for p in range(indptr[i], indptr[i + 1]):
            b = indices[p] >> 3
            if b != last:
                cnt[b] += 1
                total += 1
                last = b
    return cnt, total


@numba.njit(cache=True)
def _fill_slices(indptr: Any, indices: Any, set_ptr: Any, vss_ptr: Any, tau: int,
                 row_ids: Any, masks: Any) -> None:
    """Rows in increasing order, so each set receives its slices in row order: the r-th
    slice of set b is slice r % tau of VSS set_ptr[b] + r // tau."""
    fill = np.zeros(set_ptr.shape[0] - 1, dtype=np.int64)
    for i in range(indptr.shape[0] - 1):
        p, e = indptr[i], indptr[i + 1]
        while p < e:
            b = indices[p] >> 3
            mask = 0
            while p < e and (indices[p] >> 3) == b:
                mask |= 1 << (indices[p] & 7)
                p += 1
            r = fill[b]
            fill[b] = r + 1
            base = vss_ptr[set_ptr[b] + r // tau]
            k = r % tau
            row_ids[base + k] = i
            masks[base + (k & ~15) + _POS16[k & 15]] = mask


def _build_slices_xp(csr: CSR, tau: int) -> BVSS:
    xp = csr.xp
    n, m, nnz = csr.nrows, csr.ncols, csr.nnz
    nsets = -(-m // SIGMA)
    if nnz == 0:
        z64 = xp.zeros(nsets + 1, dtype=np.int64)
        return BVSS(n, m, z64, xp.zeros(0, dtype=np.int32), xp.zeros(1, dtype=np.int64),
                    xp.zeros(0, dtype=np.int32), xp.zeros(0, dtype=np.uint8), None,
                    csr.dtype, 0, 0)
    # Memory: kron:24 has 5.2e8 entries, so every nnz-long int64 temporary is 4.2 GB on a
    # GPU of 80; the per-entry work keeps one int64 array (the run prefix sum) and frees
    # each temporary as soon as it is read, and per-slice ids are int32.
    cols = csr.indices
    blk = cols >> 3
    # entries are sorted by (row, col): a slice is a run of equal (row, block), so a run
    # starts where the block changes or a nonempty row starts
    first = xp.empty(nnz, dtype=bool)
    first[0] = True
    xp.not_equal(blk[1:], blk[:-1], out=first[1:])
    ptr = csr.indptr
    first[ptr[:-1][ptr[:-1] < ptr[1:]]] = True
    starts = xp.nonzero(first)[0]
    del first
    nslices = int(starts.shape[0])
    sblk = blk[starts].astype(np.int32)
    del blk
    # OR of the run's bits = sum (columns are distinct): a prefix sum read at run ends
    bits = cols.astype(np.uint8)
    bits &= 7
    csum = xp.cumsum(xp.left_shift(np.uint8(1), bits), dtype=np.int64)
    del bits
    ends = xp.empty(nslices, dtype=np.int64)
    ends[:-1] = starts[1:] - 1
    ends[-1] = nnz - 1
    smask = csum[ends]
    del ends
    smask[1:] -= csum[starts[1:] - 1]
    del csum
    smask = smask.astype(np.uint8)
    srow = (xp.searchsorted(ptr[1:], starts, side="right")).astype(np.int32)
    del starts
    # slice sets: order slices by (block, row); the key is unique, so any sort will do
    key = sblk.astype(np.int64) * max(n, 1) + srow
    order = xp.argsort(key)
    del key
    srow, sblk, smask = srow[order], sblk[order], smask[order]
    del order
    cnt = xp.bincount(sblk, minlength=nsets)
    set_ptr, vss_set, vss_ptr = _vss_layout(xp, cnt, tau)
    slots = int(vss_ptr[-1])
    sstart = xp.zeros(nsets + 1, dtype=np.int64)
    xp.cumsum(cnt, out=sstart[1:])
    rank = xp.arange(nslices, dtype=np.int64) - sstart[sblk]
    del sstart
    base = vss_ptr[set_ptr[sblk] + rank // tau]  # first slot of the slice's VSS
    del sblk
    k = rank % tau
    del rank
    row_ids = xp.full(slots, -1, dtype=np.int32)
    row_ids[base + k] = srow
    del srow
    masks = xp.zeros(slots, dtype=np.uint8)
    masks[base + slot_position(xp, k)] = smask
    return BVSS(n, m, set_ptr, vss_set.astype(np.int32), vss_ptr, row_ids, masks, None,
                csr.dtype, nnz, nslices)


def slices_of(b: BVSS) -> tuple[Any, Any, Any]:
    """(row, block, mask) of every real slice, in slot order (row ids in stored positions)."""
    xp = b.xp
    real = xp.nonzero(b.row_ids >= 0)[0].astype(np.int64)
    v = _segment_of(xp, b.vss_ptr, b.slots)[real]
    k = real - b.vss_ptr[v]
    mask = b.masks[b.vss_ptr[v] + slot_position(xp, k)]
    return b.row_ids[real].astype(np.int64), b.vss_set[v].astype(np.int64), mask


def to_csr(b: BVSS) -> CSR:
    """The exact structure back (iso 1 of the matrix's type), in the caller's ids."""
    xp = b.xp
    row, blk, mask = slices_of(b)
    bits = ((mask[:, None].astype(np.int64) >> xp.arange(SIGMA, dtype=np.int64)) & 1) > 0
    r = xp.broadcast_to(row[:, None], bits.shape)[bits]
    c = (blk[:, None] * SIGMA + xp.arange(SIGMA, dtype=np.int64))[bits]
    if b.perm is not None:
        r, c = b.perm[r], b.perm[c]
    order = xp.argsort(r * max(b.ncols, 1) + c)
    r, c = r[order], c[order]
    indptr = xp.zeros(b.nrows + 1, dtype=np.int64)
    xp.cumsum(xp.bincount(r, minlength=b.nrows), out=indptr[1:])
    return CSR(b.nrows, b.ncols, indptr, c.astype(np.int64), None, b.dtype, b.iso)
