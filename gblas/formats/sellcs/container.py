"""Sell-C-σ and SlimSell containers and their builders from CSR (Kreutzer et al., SIAM
J. Sci. Comput. 2014; Besta et al., "SlimSell", IPDPS'17).

Layout. Rows are sorted by length (longest first, stable) within windows of ``sigma``
consecutive rows; ``perm[r]`` is the original row at sorted position ``r`` (``None`` when
σ = 1: no sorting). Sorted rows are cut into chunks of ``C`` rows; chunk ``c`` is
``cl[c]`` columns wide (its longest row) and starts at cell ``cs[c]``. Inside a chunk the
cells are column-major: slot ``j`` of lane ``l`` is cell ``cs[c] + j*C + l``, so the C
lanes of one slot are adjacent (SIMD lanes on the CPU, warp threads on the GPU).

Padding cells hold column ``-1`` in both formats. The paper pads Sell-C-σ values with the
semiring's identity, but a stored matrix serves every semiring, and a padded product
would still make an output present under GraphBLAS semantics; so the kernels skip cells
by their column and padding values are 0 (never read). SlimSell has no value array:
every stored entry is 1 of the semiring's domain (``true`` for boolean semirings).

SlimChunk: with ``slimchunk=w > 0`` a chunk wider than ``w`` is split into pieces of at
most ``w`` slots; the kernels run the pieces in parallel and fold the partial results of
a chunk with the monoid. The builders use only vectorised operations of ``csr.xp`` (no
Python loop over rows), so they run on NumPy or CuPy arrays alike.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...dtypes import DataType
from ...exceptions import InvalidValue
from ..csr.container import CSR, _xp_of

DEFAULT_C = {"cpu": 8, "cuda": 32}
PARAMS = ("C", "sigma", "slimchunk")


@dataclass
class SellCS:
    nrows: int
    ncols: int
    C: int
    sigma: int
    cs: Any  # int64[nchunks + 1]: first cell of each chunk
    cl: Any  # int64[nchunks]: width (slots) of each chunk
    cols: Any  # int64[cs[-1]]: column of each cell, -1 for padding
    values: Any | None  # dtype[cs[-1]], or None (iso, and always for SlimSell)
    perm: Any | None  # int64[nrows]: original row at sorted position r; None if identity
    dtype: DataType
    iso: Any = None
    nnz: int = 0
    slimchunk: int = 0
    # SlimChunk pieces (pstart[nchunks+1], chunk, lo, hi); stored (and counted) only
    # when slimchunk > 0, derived and cached otherwise
    pieces_: tuple[Any, Any, Any, Any] | None = None
    _derived: dict[str, Any] = field(default_factory=dict, repr=False)

    name = "sellcs"

    @property
    def xp(self) -> Any:
        return _xp_of(self.cols)

    @property
    def nchunks(self) -> int:
        return int(self.cl.shape[0])

    @property
    def cells(self) -> int:
        return int(self.cols.shape[0])

    @property
    def is_iso(self) -> bool:
        return self.values is None

    def pieces(self) -> tuple[Any, Any, Any, Any]:
        """(pstart, chunk, lo, hi): piece q covers slots [lo[q], hi[q]) of chunk[q];
        the pieces of chunk c are pstart[c] .. pstart[c+1]-1."""
        if self.pieces_ is not None:
            return self.pieces_
        if "pieces" not in self._derived:
            xp, nc = self.xp, self.nchunks
            self._derived["pieces"] = (xp.arange(nc + 1, dtype=np.int64),
                                       xp.arange(nc, dtype=np.int64),
                                       xp.zeros(nc, dtype=np.int64), self.cl)
        return self._derived["pieces"]

    def split(self, width: int) -> tuple[Any, Any, Any, Any]:
        """Pieces as ``pieces()``, every chunk cut at ``width`` slots (derived, cached):
        the GPU kernel spreads a wide chunk over many threads this way when the matrix
        was built without a SlimChunk width."""
        key = f"split{width}"
        if key not in self._derived:
            self._derived[key] = _split(self.xp, self.cl, width)
        return self._derived[key]

    def max_width(self) -> int:
        """The widest chunk's slots (cached: one device read)."""
        if "max_width" not in self._derived:
            self._derived["max_width"] = int(self.cl.max()) if self.nchunks else 0
        return self._derived["max_width"]

    def nbytes(self) -> int:
        """Bytes of every array of the format (cs, cl, cols, values, perm, pieces)."""
        arrays = [self.cs, self.cl, self.cols, self.values, self.perm]
        if self.pieces_ is not None:
            arrays += list(self.pieces_[:3])  # hi is lo + width: kept for the kernels
        n = sum(a.nbytes for a in arrays if a is not None)
        return n + (self.dtype.itemsize if self.values is None and self.name == "sellcs" else 0)

    def stats(self) -> dict[str, Any]:
        nb = self.nbytes()
        return {"format": self.name, "C": self.C, "sigma": self.sigma,
                "slimchunk": self.slimchunk, "chunks": self.nchunks,
                "pieces": int(self.pieces()[1].shape[0]), "nnz": self.nnz,
                "cells": self.cells, "padding": self.cells - self.nnz, "nbytes": nb,
                "bytes_per_edge": nb / max(self.nnz, 1)}

    def to(self, device: str) -> SellCS:
        from ..._device import move_array  # noqa: PLC0415

        pcs = None if self.pieces_ is None else tuple(move_array(a, device)
                                                      for a in self.pieces_)
        return type(self)(self.nrows, self.ncols, self.C, self.sigma,
                          move_array(self.cs, device), move_array(self.cl, device),
                          move_array(self.cols, device), move_array(self.values, device),
                          move_array(self.perm, device), self.dtype, self.iso, self.nnz,
                          self.slimchunk, pcs)  # type: ignore[arg-type]


@dataclass
class SlimSell(SellCS):
    """Sell-C-σ without the value array: every stored entry is 1 (true) of the domain."""

    name = "slimsell"


# ============================================================================ builders
def _int_param(params: dict[str, Any], key: str, default: int, lo: int, fmt: str) -> int:
    v = params.get(key, default)
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or int(v) < lo:
        raise InvalidValue(f"format {fmt!r}: {key} must be an integer >= {lo}, got {v!r}")
    return int(v)


def check_params(fmt: str, params: dict[str, Any], device: str) -> tuple[int, int, int]:
    """(C, sigma, slimchunk) from a format's parameters, with the device's defaults."""
    unknown = sorted(set(params) - set(PARAMS))
    if unknown:
        raise InvalidValue(f"format {fmt!r} takes parameters {', '.join(PARAMS)}; "
                           f"got unknown {', '.join(unknown)}")
    C = _int_param(params, "C", DEFAULT_C[device], 1, fmt)  # noqa: N806
    sigma = _int_param(params, "sigma", 1, 1, fmt)
    slimchunk = _int_param(params, "slimchunk", 0, 0, fmt)
    return C, sigma, slimchunk


def _ids(xp: Any, ptr: Any, total: int) -> Any:
    """Segment id of every position 0..total-1 for segment starts ``ptr`` (len k+1);
    a repeat with counts that CuPy can run too."""
    pos = xp.arange(total, dtype=np.int64)
    return xp.searchsorted(ptr[1:], pos, side="right").astype(np.int64)


def build(csr: CSR, fmt: str, **params: Any) -> SellCS:
    """Sell-C-σ (``fmt="sellcs"``) or SlimSell (``"slimsell"``) of ``csr``."""
    xp = csr.xp
    device = "cpu" if xp is np else "cuda"
    C, sigma, slimchunk = check_params(fmt, params, device)  # noqa: N806
    n, nnz = csr.nrows, csr.nnz
    indptr = csr.indptr.astype(np.int64)
    deg = indptr[1:] - indptr[:-1]
    perm = None
    if sigma > 1 and n > 1:
        # sort by (window, -length); stable, so equal lengths keep their order
        maxd = int(deg.max()) + 1
        key = (xp.arange(n, dtype=np.int64) // sigma) * maxd + (maxd - 1 - deg)
        perm = xp.argsort(key, kind="stable").astype(np.int64)
        if bool((perm == xp.arange(n, dtype=np.int64)).all()):
            perm = None  # already sorted: keep the identity implicit
    sdeg = deg if perm is None else deg[perm]
    nchunks = -(-n // C)
    padded = xp.zeros(nchunks * C, dtype=np.int64)
    padded[:n] = sdeg
    cl = padded.reshape(nchunks, C).max(axis=1) if nchunks else xp.zeros(0, dtype=np.int64)
    cs = xp.zeros(nchunks + 1, dtype=np.int64)
    if nchunks:
        xp.cumsum(cl * C, out=cs[1:])
    total = int(cs[-1])
    cols = xp.full(total, -1, dtype=np.int64)
    vals = None
    slim = fmt == "slimsell"
    if not slim and csr.values is not None:
        vals = xp.zeros(total, dtype=csr.dtype.np_type)
    if nnz:
        rows = csr.row_ids()
        slot = xp.arange(nnz, dtype=np.int64) - indptr[rows]
        if perm is None:
            r = rows
        else:
            inv = xp.empty(n, dtype=np.int64)
            inv[perm] = xp.arange(n, dtype=np.int64)
            r = inv[rows]
        cell = cs[r // C] + slot * C + r % C
        cols[cell] = csr.indices
        if vals is not None:
            vals[cell] = csr.values
    pieces = _split(xp, cl, slimchunk) if slimchunk > 0 and nchunks else None
    cls = SlimSell if slim else SellCS
    iso = None if slim else csr.iso
    return cls(n, csr.ncols, C, sigma, cs, cl, cols, vals, perm, csr.dtype, iso, nnz,
               slimchunk, pieces)


def _split(xp: Any, cl: Any, width: int) -> tuple[Any, Any, Any, Any]:
    """(pstart, chunk, lo, hi): every chunk cut into pieces of at most ``width`` slots."""
    nchunks = int(cl.shape[0])
    npc = xp.maximum(-(-cl // width), 1)
    pstart = xp.zeros(nchunks + 1, dtype=np.int64)
    xp.cumsum(npc, out=pstart[1:])
    pc = _ids(xp, pstart, int(pstart[-1]))
    lo = (xp.arange(pc.shape[0], dtype=np.int64) - pstart[pc]) * width
    hi = xp.minimum(lo + width, cl[pc])
    return pstart, pc, lo, hi


def to_csr(s: SellCS) -> CSR:
    """The exact CSR back: the sorting permutation undone, slots in their row order.
    SlimSell keeps the structure only: its CSR is iso with value 1 of its dtype."""
    xp = s.xp
    n, C = s.nrows, s.C  # noqa: N806
    keep = xp.nonzero(s.cols >= 0)[0].astype(np.int64)
    indptr = xp.zeros(n + 1, dtype=np.int64)
    if keep.shape[0] == 0:
        vals = None if s.values is None else xp.empty(0, dtype=s.dtype.np_type)
        return CSR(n, s.ncols, indptr, xp.empty(0, dtype=np.int64), vals, s.dtype,
                   _iso_of(s))
    chunk = _ids(xp, s.cs, s.cells)[keep]
    off = keep - s.cs[chunk]
    r = chunk * C + off % C
    slot = off // C
    rows = r if s.perm is None else s.perm[r]
    deg = xp.bincount(rows, minlength=n)
    xp.cumsum(deg, out=indptr[1:])
    pos = indptr[rows] + slot
    indices = xp.empty(keep.shape[0], dtype=np.int64)
    indices[pos] = s.cols[keep]
    vals = None
    if s.values is not None:
        vals = xp.empty(keep.shape[0], dtype=s.dtype.np_type)
        vals[pos] = s.values[keep]
    return CSR(n, s.ncols, indptr, indices, vals, s.dtype, _iso_of(s))


def _iso_of(s: SellCS) -> Any:
    if s.values is not None:
        return None
    return s.dtype.cast(1) if s.name == "slimsell" else s.iso
