"""CSR <-> COO and transpose, for NumPy (Numba kernels) and CuPy (array primitives)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...backend.keys import bincount, xp_of
from ..coo.container import COO
from .container import CSR


def transpose(A: CSR) -> CSR:  # noqa: N803
    """CSR of Aᵀ (a stable counting sort by column; iso stays iso)."""
    xp = A.xp
    if xp is np:
        from . import cpu  # noqa: PLC0415

        return cpu.transpose(A)
    order = xp.argsort(A.indices, kind="stable")
    indptr = xp.zeros(A.ncols + 1, dtype=np.int64)
    xp.cumsum(bincount(A.indices, A.ncols), out=indptr[1:])
    vals = None if A.values is None else A.values[order]
    return CSR(A.ncols, A.nrows, indptr, A.row_ids()[order], vals, A.dtype, A.iso)


def kept_row_pointers(indptr: Any, keep: Any) -> Any:
    """Row pointers once the entries where ``keep`` is False are dropped (each row keeps a
    sub-run of its entries): the running count of kept entries read at the old row
    starts. NumPy or CuPy."""
    xp = xp_of(keep)
    kept = xp.zeros(keep.shape[0] + 1, dtype=np.int64)
    xp.cumsum(keep, out=kept[1:])
    return kept[indptr]


def keep_entries(A: CSR, keep: Any) -> CSR:  # noqa: N803
    """A's entries where ``keep`` (a flag an entry) holds; an iso matrix stays iso. On the
    CPU one count and one fill pass over the rows in parallel (Numba); on a GPU array
    primitives."""
    if A.xp is np:
        from .rows_cpu import keep_entries as keep_entries_cpu  # noqa: PLC0415

        return keep_entries_cpu(A, keep)
    return CSR(A.nrows, A.ncols, kept_row_pointers(A.indptr, keep), A.indices[keep],
               None if A.values is None else A.values[keep], A.dtype, A.iso)


def coo_from_csr(A: CSR) -> COO:  # noqa: N803
    return COO(A.nrows, A.ncols, A.row_ids(), A.indices, A.values, A.dtype, A.iso)


def csr_from_coo(C: COO) -> CSR:  # noqa: N803
    xp = C.xp
    indptr = xp.zeros(C.nrows + 1, dtype=np.int64)
    if C.nnz:
        xp.cumsum(bincount(C.rows, C.nrows), out=indptr[1:])
    return CSR(C.nrows, C.ncols, indptr, C.cols, C.values, C.dtype, C.iso)


def empty_like_shape(nrows: int, ncols: int, dtype: Any, xp: Any = np) -> CSR:
    return CSR(nrows, ncols, xp.zeros(nrows + 1, dtype=np.int64), xp.empty(0, dtype=np.int64),
               xp.empty(0, dtype=dtype.np_type), dtype)


def csr_keys(csr: Any) -> Any:
    """Row-major keys of a CSR container's entries."""
    return csr.row_ids() * np.int64(max(csr.ncols, 1)) + csr.indices


def csr_from_keys(nrows: int, ncols: int, keys: Any, values: Any, dtype: Any) -> CSR:
    """CSR container from sorted unique row-major keys."""
    xp = xp_of(keys)
    nc = np.int64(max(ncols, 1))
    rows = keys // nc
    indptr = xp.zeros(nrows + 1, dtype=np.int64)
    if keys.shape[0]:
        xp.cumsum(bincount(rows, nrows), out=indptr[1:])
    return CSR(nrows, ncols, indptr, (keys % nc).astype(np.int64),
               values.astype(dtype.np_type, copy=False), dtype)
