"""Construction from coordinates: validation, then the COO builder (sort, combine dups)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import DataType, dtype_of_value, lookup_dtype
from ..exceptions import DimensionMismatch, IndexOutOfBound, InvalidValue
from ..formats.csr.container import CSR
from ..formats.vector import VecData
from ..semirings.model import BinaryOp, Monoid


def _host(a: Any) -> np.ndarray:
    return np.asarray(a.get() if hasattr(a, "get") else a)


def _indices(a: Any, what: str) -> np.ndarray:
    arr = _host(a)
    if arr.ndim != 1:
        raise InvalidValue(f"{what} must be one-dimensional, got shape {arr.shape}")
    if arr.size and arr.dtype.kind not in "iu":
        raise InvalidValue(f"{what} must be integers, got dtype {arr.dtype}")
    return arr.astype(np.int64, copy=False)


def _values(values: Any, n: int, dtype: Any) -> tuple[Any, DataType, bool]:
    """(values array or scalar, dtype, iso?)."""
    if np.ndim(values) == 0 and not hasattr(values, "__len__"):
        v = values.value if hasattr(values, "is_empty") else values
        dt = lookup_dtype(dtype) if dtype is not None else dtype_of_value(v)
        return dt.cast(v), dt, True
    arr = _host(values)
    if arr.ndim != 1 or arr.shape[0] != n:
        raise DimensionMismatch(
            f"got {n} indices but {arr.shape[0] if arr.ndim == 1 else arr.shape} values; "
            "pass one value per index or a single scalar"
        )
    dt = lookup_dtype(dtype if dtype is not None else arr.dtype)
    return arr.astype(dt.np_type, copy=False), dt, False


def _dup(dup_op: Any) -> BinaryOp | None:
    if dup_op is None or isinstance(dup_op, BinaryOp):
        return dup_op
    if isinstance(dup_op, Monoid):
        return dup_op.binaryop
    raise InvalidValue(f"dup_op must be a BinaryOp (e.g. binary.plus), got {dup_op!r}")


def _bound(arr: np.ndarray, size: int | None, what: str) -> int:
    lo, hi = (int(arr.min()), int(arr.max())) if arr.size else (0, -1)
    if size is None or lo < 0:  # a negative index first, whatever the size
        _in_range(what, lo, hi, hi + 1)
    if size is None:
        return hi + 1
    if size < 0:
        raise InvalidValue(f"size must be >= 0, got {size}")
    _in_range(what, lo, hi, size)
    return int(size)


def _in_range(what: str, lo: int, hi: int, size: int) -> None:
    """IndexOutOfBound unless the smallest index ``lo`` and the largest ``hi`` lie in
    [0, size)."""
    if lo < 0:
        raise IndexOutOfBound(f"{what} {lo} is negative")
    if hi >= size:
        raise IndexOutOfBound(
            f"{what} {hi} is out of range for size {size}; enlarge the size or fix the index")


def build_vector_data(indices: Any, values: Any, dtype: Any, size: int | None,
                      dup_op: Any) -> VecData:
    from ..formats.coo.cpu import build_vector  # noqa: PLC0415

    idx = _indices(indices, "indices")
    vals, dt, iso = _values(values, idx.shape[0], dtype)
    n = _bound(idx, size, "index")
    bidx, bvals, biso = build_vector(idx, vals, n, dt, _dup(dup_op))
    if bvals is None:
        bvals = np.full(bidx.shape[0], biso, dtype=dt.np_type)
    return VecData.sparse(n, dt, bidx, bvals).normalized()


def build_matrix_csr(rows: Any, cols: Any, values: Any, dtype: Any, nrows: int | None,
                     ncols: int | None, dup_op: Any) -> CSR:
    from ..formats.coo.cpu import build  # noqa: PLC0415
    from ..formats.csr.convert import csr_from_coo  # noqa: PLC0415

    r = _indices(rows, "rows")
    c = _indices(cols, "columns")
    if r.shape[0] != c.shape[0]:
        raise DimensionMismatch(f"got {r.shape[0]} rows but {c.shape[0]} columns")
    vals, dt, iso = _values(values, r.shape[0], dtype)
    nr = _bound(r, nrows, "row index")
    nc = _bound(c, ncols, "column index")
    return csr_from_coo(build(r, c, vals, nr, nc, dt, _dup(dup_op)))


def csr_from_scipy(S: Any, dtype: Any, device: str) -> CSR | None:  # noqa: N803
    """A SciPy CSR or CSC matrix in canonical form (rows sorted, no duplicates) as a CSR on
    ``device`` without the COO build's sort; None for anything else (the caller builds from
    COO, which applies ``dup_op``). The arrays are copied. On a GPU nothing is copied on the
    host (a fresh host copy of kron:22's values cost ~1 s in page faults): the arrays travel
    as SciPy holds them (column ids mostly int32, half the bytes of int64), and the form is
    checked, the ids widened and the values cast on the device; the int32 copy is kept as
    the CSR's ``indices32``, which the GPU kernels read."""
    if getattr(S, "format", None) not in ("csr", "csc") or S.ndim != 2:
        return None
    if S.format == "csc":
        S = S.tocsr()  # noqa: N806 - SciPy's O(nnz) pass; keeps duplicates, which fail below
    nrows, ncols = (int(x) for x in S.shape)
    ptr, idx = S.indptr, S.indices
    if idx.dtype.kind not in "iu" or ptr.shape[0] != nrows + 1:
        return None
    dt = lookup_dtype(dtype if dtype is not None else S.data.dtype)
    if ptr.shape[0] and (int(ptr[0]) != 0 or int(ptr[-1]) != idx.shape[0]):
        raise InvalidValue(f"the SciPy matrix's indptr runs from {int(ptr[0])} to "
                           f"{int(ptr[-1])}, expected 0 to its {idx.shape[0]} entries")
    if device == "cpu":
        if not S.has_canonical_format:  # (SciPy's one pass, remembered on S)
            return None
        indices = idx.astype(np.int64)
        _bound(indices, ncols, "column index")
        return CSR(nrows, ncols, ptr.astype(np.int64), indices, S.data.astype(dt.np_type),
                   dt)
    from .._device import move_array  # noqa: PLC0415
    from ..formats.csr.check_cuda import check_csr  # noqa: PLC0415

    dev_ptr = move_array(ptr, device).astype(np.int64, copy=False)
    dev_idx = move_array(idx, device)
    if dev_idx.dtype not in (np.int32, np.int64):
        dev_idx = dev_idx.astype(np.int64)
    canonical, lo, hi, indices = check_csr(dev_ptr, dev_idx)
    if not canonical:
        return None
    if indices.shape[0]:
        _in_range("column index", lo, hi, ncols)
    csr = CSR(nrows, ncols, dev_ptr, indices,
              move_array(S.data, device).astype(dt.np_type, copy=False), dt)
    if dev_idx.dtype == np.int32:  # (a fresh device copy: nothing else holds it)
        csr.__dict__["_indices32"] = dev_idx
    return csr


def csr_arrays_to_coo(indptr: Any, col_indices: Any, nrows: int | None
                      ) -> tuple[np.ndarray, np.ndarray, int]:
    ptr = _indices(indptr, "indptr")
    cols = _indices(col_indices, "col_indices")
    if ptr.shape[0] == 0 or ptr[0] != 0 or (np.diff(ptr) < 0).any() or ptr[-1] != cols.shape[0]:
        raise InvalidValue(
            "indptr must start at 0, never decrease and end at len(col_indices) "
            f"(got length {ptr.shape[0]}, last {int(ptr[-1]) if ptr.size else None}, "
            f"{cols.shape[0]} column indices)"
        )
    n = ptr.shape[0] - 1
    if nrows is not None and nrows != n:
        raise DimensionMismatch(f"indptr describes {n} rows but nrows={nrows}")
    return np.repeat(np.arange(n, dtype=np.int64), np.diff(ptr)), cols, n
