"""reduce: vector -> scalar, matrix -> vector (rows/columns) or scalar."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _config
from ..backend import keys as E
from ..core.expr import Expression, Result
from ..exceptions import EmptyObject
from ..formats.vector import BITMAP, FULL, VecData
from ..semirings.model import monoid
from .plan import record
from .validate import as_monoid


def reduce_dense_values(m: Any, bits: Any, vals: Any, out: Any) -> Result | None:
    """A GPU reduction left on the device (no read); None where the monoid has no CUDA
    form or the arrays are on the host."""
    if E.xp_of(vals) is np:
        return None
    from ..backend.reduce_cuda import reduce_dense  # noqa: PLC0415

    ds = reduce_dense(m, bits, vals, out)
    return None if ds is None else Result(ds)


def reduce_vector_expr(v: Any, op: Any, allow_empty: bool = True) -> Expression:
    m = as_monoid(op, "reduce", monoid.plus)
    out = m.fixed_type or v.dtype
    m = m.for_domain(out)

    def compute(mask: Any, desc: Any) -> Result:
        data: VecData = v._data
        if data.on_device and (allow_empty or data.nvals):
            # sparse: every stored value is present; else the bitmap's bits
            bits = data.bits if data.kind == BITMAP else None
            res = reduce_dense_values(m, bits, data.values, out)
            if res is not None:
                record(desc, "reduce", "reduce_dense")
                return res
        if data.kind == FULL:
            vals = data.values  # every value: no index list to build
        else:
            vals = data.as_sparse()[1]
        record(desc, "reduce", "reduce_values")
        if vals.shape[0] == 0:
            if not allow_empty:
                raise EmptyObject(f"reduce of the empty vector {v.name}")
            return Result((None, False))
        return Result((E.reduce_all(m, vals, out), True))

    return Expression("reduce", 0, (), out, v.device, compute, (v,))


# a column reduce of a matrix with fewer than ncols / this many entries (and no cached
# transpose) sorts its entries by column instead of transposing it
_SORT_COLUMNS = 16


def _reduce_columns_sorted(csr: Any, m: Any, out: Any, size: int) -> VecData:
    """⊕ of each column's entries: a stable sort of the column indices keeps every column's
    entries in row order, the order of the transposed CSR (same results)."""
    xp = csr.xp
    order = xp.argsort(csr.indices, kind="stable")
    cols = csr.indices[order]
    starts = E.run_starts(cols)
    keys = cols[starts].astype(np.int64, copy=False)
    if csr.is_iso and (m.idempotent or m.binaryop.name == "plus"):
        iso = xp.asarray(out.cast(csr.iso), dtype=out.np_type)
        if m.idempotent:
            vals = xp.full(keys.shape[0], iso, dtype=out.np_type)
        else:
            ends = xp.concatenate([starts[1:], xp.asarray([cols.shape[0]], dtype=np.int64)])
            vals = (ends - starts).astype(out.np_type) * iso
    else:
        vals = E.segment_reduce(m, csr.full_values()[order], starts, out)
    return VecData.sparse(size, out, keys, vals.astype(out.np_type)).normalized()


def reduce_matrix_expr(A: Any, op: Any, axis: str) -> Expression:  # noqa: N803
    m = as_monoid(op, f"reduce_{axis}", monoid.plus)
    out = m.fixed_type or A.dtype
    m = m.for_domain(out)
    if axis == "scalar":
        def compute_s(mask: Any, desc: Any) -> Result:
            vals = A._csr().full_values()
            # on a GPU: every block folds a share, left on the device (no read); a
            # segmented reduction of one segment would fold nnz values on one thread
            res = reduce_dense_values(m, None, vals, out)
            if res is not None:
                record(desc, "reduce", "reduce_dense")
                return res
            record(desc, "reduce", "reduce_values")
            if vals.shape[0] == 0:
                return Result((None, False))
            return Result((E.reduce_all(m, vals, out), True))

        return Expression("reduce_scalar", 0, (), out, A.device, compute_s, (A,))
    size = A.nrows if axis == "rows" else A.ncols

    def compute(mask: Any, desc: Any) -> Result:
        reps = getattr(A, "_reps", None)  # a Matrix (a transposed view has both CSRs)
        if axis == "columns" and reps is not None and "csr_T" not in reps:
            csr = A._csr()
            # (CPU only until the GPU has run it: the same code would serve CuPy arrays)
            if csr.nnz * _SORT_COLUMNS < size and csr.xp is np:
                # few entries in many columns (betweenness' k × n level, each level): sort
                # them by column, O(nnz log nnz), rather than transpose, O(n + nnz)
                record(desc, "reduce", "reduce_columns_sorted")
                return Result(_reduce_columns_sorted(csr, m, out, size))
        csr = A._csr() if axis == "rows" else A._csr_T()
        xp = csr.xp
        counts = xp.diff(csr.indptr)
        if csr.is_iso and m.binaryop.name == "plus" and (
                csr.nnz > _config.get("bitmap_density") * size):
            # a dense result (e.g. out-degrees): count * value built in place, O(n)
            iso = out.cast(csr.iso)
            vals = counts.astype(out.np_type)
            if iso != 1:
                vals *= xp.asarray(iso, dtype=out.np_type)
            record(desc, "reduce", f"reduce_{axis}_iso")
            res = VecData.bitmap(size, out, counts > 0, vals)
            return Result(res.normalized())
        rows = xp.flatnonzero(counts).astype(np.int64)
        if csr.is_iso and (m.idempotent or m.binaryop.name == "plus"):
            # iso matrix: a row's sum is count * value, an idempotent fold is the value
            iso = xp.asarray(out.cast(csr.iso), dtype=out.np_type)
            vals = counts[rows].astype(out.np_type) * iso if not m.idempotent else \
                xp.full(rows.shape[0], iso, dtype=out.np_type)
            kernel = f"reduce_{axis}_iso"
        else:
            vals = E.segment_reduce(m, csr.full_values(), csr.indptr[rows], out)
            kernel = f"reduce_{axis}_segments"
        record(desc, "reduce", kernel)
        return Result(VecData.sparse(size, out, rows, vals.astype(out.np_type)).normalized())

    name = "reduce_rowwise" if axis == "rows" else "reduce_columnwise"
    return Expression(name, 1, (size,), out, A.device, compute, (A,))
