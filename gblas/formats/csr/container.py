"""CSR container: indptr, indices (sorted within rows, no duplicates), values or iso value.

Arrays live on the container's device (NumPy or CuPy). A structure-only or iso-valued
matrix keeps ``values=None`` and one ``iso`` value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...dtypes import DataType


@dataclass
class CSR:
    nrows: int
    ncols: int
    indptr: Any  # int64[nrows + 1]
    indices: Any  # int64[nnz]
    values: Any | None  # dtype[nnz], or None when iso
    dtype: DataType
    iso: Any = None  # the single value of an iso-valued matrix

    name = "csr"

    @property
    def nnz(self) -> int:
        return int(self.indices.shape[0])

    @property
    def is_iso(self) -> bool:
        return self.values is None

    @property
    def xp(self) -> Any:
        return _xp_of(self.indptr)

    def full_values(self) -> Any:
        """Values as an array (materialised for iso matrices)."""
        if self.values is not None:
            return self.values
        return self.xp.full(self.nnz, self.iso, dtype=self.dtype.np_type)

    def indices32(self, min_uses: int = 1, wide_entries: bool = False) -> Any | None:
        """The column indices as int32 when they fit (ncols below 2**31; and nnz below
        2**31 unless the caller indexes entries with int64: ``wide_entries``), made once
        the caller has asked ``min_uses`` times (a matrix read once pays no copy) and kept
        on this representation, whose arrays are not changed in place; else None. The GPU
        pull reads these: half the bytes of the largest array it streams."""
        d = self.__dict__
        if "_indices32" not in d:
            d["_indices32_asked"] = asked = d.get("_indices32_asked", 0) + 1
            if asked < min_uses:
                return None
            d["_indices32"] = self.indices.astype(np.int32) if self.ncols < 2**31 else None
        if self.nnz >= 2**31 and not wide_entries:
            return None
        return d["_indices32"]

    def empty_rows_bits(self) -> Any:
        """Bit r of uint32 word r // 32 set where row r holds no entries (the last word's
        bits past ``nrows`` clear). On the pull's Aᵀ these are the vertices without
        in-edges, which no pull level can find: the GPU pull skips the words whose
        unvisited vertices are all such (on Kronecker graphs over a third of the vertices).
        Made once and kept on this representation (its arrays are not changed in place)."""
        d = self.__dict__
        if "_empty_rows_bits" not in d:
            xp, n = self.xp, self.nrows
            nw = (n + 31) // 32
            empty = xp.zeros(nw * 32, dtype=np.uint32)
            empty[:n] = self.indptr[1:] == self.indptr[:-1]
            shifts = xp.arange(32, dtype=np.uint32)
            d["_empty_rows_bits"] = (empty.reshape(nw, 32) << shifts).sum(axis=1,
                                                                           dtype=np.uint32)
        return d["_empty_rows_bits"]

    def row_chunks(self, min_len: int, chunk: int) -> Any:
        """:func:`row_chunk_list` of this representation's rows (the GPU pull's heavy in-rows
        on Aᵀ), made once per (min_len, chunk) and kept (its arrays are not changed in
        place): a search then skips the scan of every row's length."""
        lists = self.__dict__.setdefault("_row_chunks", {})
        if (min_len, chunk) not in lists:
            out = row_chunk_list(self.indptr, min_len, chunk)
            if self.xp is not np:  # finished before it is shared: a search on another
                self.xp.cuda.get_current_stream().synchronize()  # stream may read it next
            lists[min_len, chunk] = out
        return lists[min_len, chunk]

    def row_tiles(self, tile: int) -> Any:
        """First row of every tile, then ``nrows``: tile t holds the rows r whose
        ``indptr[r] + r`` (entries and rows before r) lies in [t·tile, (t+1)·tile), so a
        tile starts fewer than ``tile`` entries and fewer than ``tile`` rows (empty rows
        count: a block never walks a long run of them alone). The GPU pull's split of the
        work, made once and kept on this representation (its arrays are not changed in
        place)."""
        tiles = self.__dict__.setdefault("_row_tiles", {})
        if tile not in tiles:
            xp = self.xp
            count = max(1, -(-(self.nnz + self.nrows) // tile))
            bounds = xp.arange(count + 1, dtype=np.int64) * tile
            work = self.indptr[:-1] + xp.arange(self.nrows, dtype=np.int64)
            first = xp.searchsorted(work, bounds, side="left").astype(np.int64)
            first[-1] = self.nrows
            tiles[tile] = first
        return tiles[tile]

    def hub_segments(self, long_row: int, seg: int) -> tuple[Any, ...]:
        """The rows longer than ``long_row`` cut into segments of at most ``seg`` entries:
        (seg_row, seg_lo, seg_hi, hub_row, hub_seg), the segments of hub row r being
        hub_seg[r]:hub_seg[r + 1], in row order. The GPU pull's split of the hub rows
        (mxv_pull_segs), made once and kept on this representation."""
        segs = self.__dict__.setdefault("_hub_segments", {})
        key = (long_row, seg)
        if key not in segs:
            xp = self.xp
            hub = xp.flatnonzero(self.indptr[1:] - self.indptr[:-1] > long_row)
            # a few thousand rows: their bounds are cut on the host
            rows = np.asarray(hub.get() if xp is not np else hub, dtype=np.int64)
            bounds = self.indptr[hub], self.indptr[hub + 1]
            lo, hi = (np.asarray(b.get() if xp is not np else b, dtype=np.int64)
                      for b in bounds)
            nseg = -(-(hi - lo) // seg)
            hub_seg = np.zeros(rows.shape[0] + 1, dtype=np.int64)
            np.cumsum(nseg, out=hub_seg[1:])
            first = np.repeat(hub_seg[:-1], nseg)
            seg_lo = np.repeat(lo, nseg) + (np.arange(first.shape[0]) - first) * seg
            seg_hi = np.minimum(seg_lo + seg, np.repeat(hi, nseg))
            arrays = (np.repeat(rows, nseg), seg_lo, seg_hi, rows, hub_seg)
            segs[key] = tuple(xp.asarray(a) for a in arrays)
        return segs[key]

    def row_ids(self) -> Any:
        """Row index of every stored entry (COO rows)."""
        xp = self.xp
        if xp is np:
            return np.repeat(np.arange(self.nrows, dtype=np.int64), np.diff(self.indptr))
        # CuPy's repeat takes no array of counts: search each entry's row in indptr
        pos = xp.arange(self.nnz, dtype=np.int64)
        return xp.searchsorted(self.indptr[1:], pos, side="right").astype(np.int64)

    def nbytes(self) -> int:
        n = self.indptr.nbytes + self.indices.nbytes
        return n + (self.values.nbytes if self.values is not None else self.dtype.itemsize)

    def stats(self) -> dict[str, Any]:
        nnz = self.nnz
        return {"format": "csr", "nnz": nnz, "nbytes": self.nbytes(),
                "bytes_per_edge": self.nbytes() / max(nnz, 1)}

    def astype(self, dtype: DataType) -> CSR:
        if dtype == self.dtype:
            return self
        if self.values is None:
            return CSR(self.nrows, self.ncols, self.indptr, self.indices, None, dtype,
                       dtype.cast(self.iso))
        return CSR(self.nrows, self.ncols, self.indptr, self.indices,
                   self.values.astype(dtype.np_type), dtype)

    def to(self, device: str) -> CSR:
        """A copy on ``device``. The int32 ids, when this representation keeps them, travel
        instead of the int64 ones (half the bytes) and are widened on the GPU."""
        from ..._device import move_array  # noqa: PLC0415

        narrow = self.__dict__.get("_indices32")
        if device == "cpu" or narrow is None:
            indices, narrow = move_array(self.indices, device), None
        else:
            narrow = move_array(narrow, device)
            indices = narrow.astype(np.int64)
        out = CSR(self.nrows, self.ncols, move_array(self.indptr, device), indices,
                  move_array(self.values, device), self.dtype, self.iso)
        if narrow is not None:
            out.__dict__["_indices32"] = narrow
        return out


def _xp_of(arr: Any) -> Any:
    if type(arr).__module__.startswith("cupy"):
        import cupy  # noqa: PLC0415

        return cupy
    return np


def row_chunk_list(indptr: Any, min_len: int, chunk: int) -> Any:
    """int64 ``r << 32 | j`` for every chunk j of ``chunk`` entries of every row r of at
    least ``min_len`` entries, in row order, on ``indptr``'s device (NumPy or CuPy): the
    work list by which any warp takes any chunk of a long row."""
    xp = _xp_of(indptr)
    lens = indptr[1:] - indptr[:-1]
    rows = xp.flatnonzero(lens >= min_len).astype(np.int64)
    nch = (lens[rows] + chunk - 1) // chunk
    ends = xp.cumsum(nch)  # ends[i]: the entries of rows[0] .. rows[i]
    total = int(ends[-1]) if rows.shape[0] else 0
    t = xp.arange(total, dtype=np.int64)
    at = xp.searchsorted(ends, t, side="right")  # entry t's row: the first end above t
    return (rows[at] << 32) | (t - (ends[at] - nch[at]))

