"""Graph properties of a Matrix, as LAGraph caches them on its graph object (out-degree,
in-degree, structural symmetry; the transpose is the cached ``csr_T`` representation).

Sources: LAGraph's ``LAGraph_Cached_OutDegree``, ``LAGraph_Cached_InDegree``,
``LAGraph_Cached_IsSymmetricStructure`` (Davis et al.). Each is computed once, from the
CSR arrays (no rebuild of the matrix), and kept on the Matrix until it changes
(``Matrix._set`` drops them with the representations).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import INT64
from ..formats.csr.container import CSR
from ..formats.vector import VecData


def _counts_vector(counts: Any) -> VecData:
    """Degrees as vector data: an entry where the degree is non-zero (LAGraph's convention:
    a vertex of degree 0 has no entry)."""
    counts = counts.astype(np.int64, copy=False)
    bits = counts > 0
    # the count is read here, once per matrix (on a GPU: one wait for the device), so that
    # the cached degrees know their nvals and take the storage their density calls for:
    # PageRank's ``outw.nvals < n`` and a full degree vector then cost no read per call
    nv = int(np.count_nonzero(bits)) if isinstance(bits, np.ndarray) else int(
        bits.sum())
    return VecData.bitmap(counts.shape[0], INT64, bits, counts, nv).normalized()


def out_degree(csr: CSR) -> VecData:
    """Entries per row: one pass over ``indptr``."""
    return _counts_vector(csr.indptr[1:] - csr.indptr[:-1])


def in_degree(csr: CSR, csr_t: CSR | None) -> VecData:
    """Entries per column: from the cached transpose when there is one, else a count of the
    column indices (O(nnz), no transpose built)."""
    if csr_t is not None:
        return out_degree(csr_t)
    xp = csr.xp
    return _counts_vector(xp.bincount(csr.indices, minlength=csr.ncols))


def is_symmetric(csr: CSR, csr_t: CSR, structure: bool) -> bool:
    """A equals Aᵀ (pattern only when ``structure``); both CSRs have sorted rows."""
    if csr.nrows != csr.ncols or csr.nnz != csr_t.nnz:
        return False
    xp = csr.xp
    same = xp.array_equal(csr.indptr, csr_t.indptr) and xp.array_equal(csr.indices,
                                                                        csr_t.indices)
    if not bool(same) or structure or (csr.is_iso and csr_t.is_iso):
        return bool(same)
    return bool(xp.array_equal(csr.full_values(), csr_t.full_values()))


__all__ = ["in_degree", "is_symmetric", "out_degree"]
