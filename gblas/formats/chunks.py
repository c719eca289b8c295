"""Memory-bounded saxpy (Gustavson) products: A's entries are cut into chunks whose product
count, Σ over A(i,k) in the chunk of nnz(B(k,:)), fits a budget, so that a kernel which
expands a chunk's products, drops those the mask forbids and folds the duplicates of (i, j)
never holds more than the budget's products (plus the output). Shared by the generic
array-primitive mxm (NumPy or CuPy, any semiring) and the CUDA saxpy.

A chunk is a range of A's entries, usually whole rows; a row whose own products exceed the
budget is cut inside the row (then the row's partial results are folded across chunks in
k order, see :class:`ChunkMerger`). Arrays are NumPy or CuPy; the chunk boundaries are
planned on the host from one read of the per-row product counts (nrows + 1 integers).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import _config
from ..backend.keys import xp_of

# auto budget on the CPU: 2**24 products (about 1 GiB of working arrays in the generic kernel)
CPU_BUDGET = 1 << 24
GPU_BUDGET_MAX = 1 << 28


def to_host(arr: Any) -> np.ndarray:
    return arr.get() if hasattr(arr, "get") else np.asarray(arr)


def budget(xp: Any, bytes_per_product: int = 128) -> int:
    """Products per chunk: the config key ``mxm_chunk_products`` when > 0; otherwise 2**24
    on the CPU and, on a GPU, what ``bytes_per_product`` bytes each of the free device
    memory (driver + CuPy pool) allows, between 2**20 and 2**28."""
    cfg = int(_config.get("mxm_chunk_products"))
    if cfg > 0:
        return cfg
    if xp is np:
        return CPU_BUDGET
    free, _ = xp.cuda.Device().mem_info
    free += xp.get_default_memory_pool().free_bytes()
    return int(min(max(free // bytes_per_product, 1 << 20), GPU_BUDGET_MAX))


def entry_products(a_indptr: Any, a_indices: Any, b_indptr: Any, mask_indptr: Any = None,
                   mask_comp: bool = False) -> Any:
    """Products of each entry A(i,k): nnz(B(k,:)), and 0 in the rows where a
    non-complemented mask has no entry (nothing there can be kept)."""
    xp = xp_of(a_indices)
    len_b = b_indptr[1:] - b_indptr[:-1]
    counts = len_b[a_indices].astype(np.int64, copy=False)
    if mask_indptr is not None and not mask_comp:
        empty = (mask_indptr[1:] - mask_indptr[:-1]) == 0
        if bool(empty.any()):
            lens = a_indptr[1:] - a_indptr[:-1]
            rows = xp.searchsorted(a_indptr[1:], xp.arange(counts.shape[0], dtype=np.int64),
                                   side="right") if xp is not np else np.repeat(
                                       np.arange(lens.shape[0]), lens)
            counts = xp.where(empty[rows], 0, counts)
    return counts


@dataclass(frozen=True)
class Chunk:
    """A's entries [e0, e1), in rows [r0, r1); ``p0`` products before e0, ``nprod`` in it.
    ``cont_first``: row r0 began in an earlier chunk; ``cont_last``: row r1 - 1 goes on in
    the next chunk."""

    e0: int
    e1: int
    r0: int
    r1: int
    p0: int
    nprod: int
    cont_first: bool
    cont_last: bool


def plan(a_indptr: Any, counts: Any, limit: int) -> tuple[Any, list[Chunk]]:
    """(prefix, chunks): ``prefix`` (on the arrays' device, nnz + 1 int64) counts the products
    before each entry; chunks of at most ``limit`` products each (whole rows, greedily; a
    row over the limit is cut between its entries; an entry over the limit is a chunk alone).
    Chunks with no products are left out."""
    xp = xp_of(counts)
    limit = max(int(limit), 1)
    nnz = int(counts.shape[0])
    prefix = xp.zeros(nnz + 1, dtype=np.int64)
    if nnz:
        prefix[1:] = xp.cumsum(counts)
    row_cum = to_host(prefix[a_indptr])  # products before each row
    indptr = to_host(a_indptr).astype(np.int64, copy=False)
    total = int(row_cum[-1])
    out: list[Chunk] = []
    r0, nrows = 0, indptr.shape[0] - 1
    while r0 < nrows and row_cum[r0] < total:
        base = int(row_cum[r0])
        r0 = int(np.searchsorted(row_cum, base, side="right")) - 1  # skip rows of no products
        r1 = int(np.searchsorted(row_cum, base + limit, side="right")) - 1
        r1 = min(r1, nrows)
        if r1 > r0:
            out.append(Chunk(int(indptr[r0]), int(indptr[r1]), r0, r1, base,
                             int(row_cum[r1]) - base, False, False))
            r0 = r1
            continue
        out.extend(_split_row(prefix, indptr, r0, limit))  # row r0 alone is over the limit
        r0 += 1
    return prefix, out


def _split_row(prefix: Any, indptr: np.ndarray, r: int, limit: int) -> Iterator[Chunk]:
    lo, hi = int(indptr[r]), int(indptr[r + 1])
    p = to_host(prefix[lo:hi + 1])  # this row's entries only
    e, first = lo, True
    while e < hi:
        e1 = lo + int(np.searchsorted(p, p[e - lo] + limit, side="right")) - 1
        e1 = min(max(e1, e + 1), hi)
        n = int(p[e1 - lo] - p[e - lo])
        if n:  # cont_last: products remain in the row after this piece
            yield Chunk(e, e1, r, r + 1, int(p[e - lo]), n, not first,
                        bool(p[hi - lo] > p[e1 - lo]))
            first = False
        e = e1


Fold = Callable[[Any, Any], tuple[Any, Any]]


class ChunkMerger:
    """Collects the chunks' results (sorted unique row-major keys i * ncols + j, values) and
    folds a row cut across chunks: its partial results are kept back (the carry) until the
    row's last chunk, each time concatenated in k order, stably sorted by key and folded
    with ``fold(sorted keys, values) -> (unique keys, values)``."""

    def __init__(self, xp: Any, ncols: int, fold: Fold) -> None:
        self.xp, self.nc, self.fold = xp, np.int64(max(ncols, 1)), fold
        self.keys: list[Any] = []
        self.vals: list[Any] = []
        self.carry: tuple[Any, Any] | None = None

    def add(self, chunk: Chunk, keys: Any, vals: Any) -> None:
        xp = self.xp
        if self.carry is not None:  # the carry's row is this chunk's first row
            cut = self._cut(keys, chunk.r0 + 1)
            ck = xp.concatenate([self.carry[0], keys[:cut]])
            cv = xp.concatenate([self.carry[1], vals[:cut].astype(self.carry[1].dtype,
                                                                    copy=False)])
            order = xp.argsort(ck, kind="stable")
            fk, fv = self.fold(ck[order], cv[order])
            keys = xp.concatenate([fk, keys[cut:]])
            vals = xp.concatenate([fv, vals[cut:].astype(fv.dtype, copy=False)])
            self.carry = None
        if chunk.cont_last:
            cut = self._cut(keys, chunk.r1 - 1)
            self.carry = (keys[cut:], vals[cut:])
            keys, vals = keys[:cut], vals[:cut]
        if keys.shape[0]:
            self.keys.append(keys)
            self.vals.append(vals)

    def _cut(self, keys: Any, row: int) -> int:
        """Position of row ``row``'s first key in ``keys`` (an array query: CuPy's
        searchsorted takes arrays)."""
        at = self.xp.searchsorted(keys, self.xp.asarray([np.int64(row) * self.nc]))
        return int(at[0])

    def skip(self, chunk: Chunk) -> None:
        """A chunk that kept no product (the carry, if any, goes on unchanged)."""
        if self.carry is not None and not chunk.cont_last:
            self.add(chunk, self.xp.empty(0, dtype=np.int64), self.carry[1][:0])

    def result(self, dtype: Any) -> tuple[Any, Any]:
        xp = self.xp
        if self.carry is not None:
            self.keys.append(self.carry[0])
            self.vals.append(self.carry[1])
            self.carry = None
        if not self.keys:
            return xp.empty(0, dtype=np.int64), xp.empty(0, dtype=dtype)
        if len(self.keys) == 1:
            return self.keys[0], self.vals[0].astype(dtype, copy=False)
        return (xp.concatenate(self.keys),
                xp.concatenate([v.astype(dtype, copy=False) for v in self.vals]))


__all__ = ["Chunk", "ChunkMerger", "budget", "entry_products", "plan", "to_host"]
