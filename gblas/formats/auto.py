"""``A.to_format("auto")``: the storage format picked per matrix from cheap statistics.

Two statistics, each one O(nnz) pass over A's CSR where A lives (NumPy or CuPy; no host
copy of a device matrix beyond a few scalars):

- ``compression``: edges / (8 × slices) of A's BVSS without reordering, where a slice is a
  row's entries in one block of 8 columns (docs/bvss.md). 1 means full slices; Kronecker
  and uniform graphs have 0.125 (one edge a slice), a directed web graph (cnr-2000) 0.41.
- ``top1_share``: the share of the stored entries held by the 1 % of rows with the most
  (Blest's degree-skew test; reported, it does not decide anything yet).

The rule, from the GPU measurements in docs/benchmarks.md: a BVSS pull reads every slice
of an active slice set, so it pays only where slices hold several edges (cnr-2000 at 0.41:
BVSS 1.23 ms against the CSR kernel's 1.46 ms, H100, 2026-11-23); at about one edge a slice
the CSR pull with early exit reads a few edges per vertex and wins by 2-5×. So: on a CUDA
device, a square matrix with ``compression >= BVSS_COMPRESSION`` becomes ``bvss`` (natural
order: a reordering costs seconds to minutes on the host and did not lift Kronecker or
uniform graphs above 0.15, docs/bvss_reorder.md), anything else stays ``csr``. On the CPU
it is always ``csr``: the fused CPU BFS and every CPU kernel read CSR, BVSS runs emulated
there. The threshold predates the CSR kernel's block levels and short-queue pushes
(2026-11-27), which made the CSR search faster; it is to be re-measured.
"""

from __future__ import annotations

from typing import Any

from ..backend.keys import xp_of
from ..exceptions import InvalidValue

BVSS_COMPRESSION = 0.35


def slice_compression(csr: Any) -> float:
    """edges / (8 × slices) of A's BVSS in natural order, from the CSR's sorted rows: a new
    slice starts at every entry whose 8-column block differs from the previous entry's, or
    that opens a row. 0.0 for an empty matrix."""
    nnz = int(csr.indices.shape[0])
    if nnz == 0:
        return 0.0
    xp = xp_of(csr.indices)
    blk = csr.indices >> 3
    new = xp.ones(nnz, dtype=bool)
    new[1:] = blk[1:] != blk[:-1]
    starts = csr.indptr[:-1]
    new[starts[starts < nnz]] = True  # a row's first entry opens a slice
    slices = int(xp.count_nonzero(new))
    return nnz / (8.0 * slices)


def top_share(csr: Any, frac: float = 0.01) -> float:
    """The share of the entries held by the ``frac`` of rows with the most (at least one
    row); 0.0 for an empty matrix."""
    nnz = int(csr.indices.shape[0])
    if nnz == 0:
        return 0.0
    xp = xp_of(csr.indptr)
    deg = xp.diff(csr.indptr)
    k = max(1, int(frac * deg.shape[0]))
    top = xp.partition(deg, deg.shape[0] - k)[deg.shape[0] - k:]
    return float(top.sum()) / nnz


def choose(csr: Any, device: str) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """(format name, its parameters, the statistics and the reason) for a matrix with this
    CSR on ``device``."""
    square = csr.nrows == csr.ncols
    stats: dict[str, Any] = {"compression": slice_compression(csr) if square else None,
                             "top1_share": top_share(csr),
                             "threshold": BVSS_COMPRESSION}
    if device == "cpu":
        name, why = "csr", "CPU: the fused BFS and every CPU kernel read CSR"
    elif not square:
        name, why = "csr", "not square: BVSS serves graph adjacency matrices"
    elif stats["compression"] >= BVSS_COMPRESSION:
        name, why = "bvss", (f"slices hold {8 * stats['compression']:.1f} edges on average "
                             f"(compression {stats['compression']:.3f} >= {BVSS_COMPRESSION})")
    else:
        name, why = "csr", (f"slices hold {8 * stats['compression']:.1f} edges on average "
                            f"(compression {stats['compression']:.3f} < {BVSS_COMPRESSION}): "
                            f"the CSR pull with early exit reads fewer bytes")
    params: dict[str, Any] = {"reorder": "none"} if name == "bvss" else {}
    stats.update(chosen=name, params=dict(params), reason=why)
    return name, params, stats


def check_no_params(params: dict[str, Any]) -> None:
    if params:
        raise InvalidValue(f"to_format('auto') takes no parameters (it picks them), got "
                           f"{sorted(params)}")


__all__ = ["BVSS_COMPRESSION", "check_no_params", "choose", "slice_compression", "top_share"]
