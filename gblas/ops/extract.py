"""extract: ``v[I]``, ``A[I, J]``, ``A[i, J]``, ``A[I, j]`` and single elements."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._device import move_array
from ..backend import keys as E
from ..core.expr import Expression, Result
from ..formats.csr.container import CSR
from ..formats.csr.convert import csr_from_keys, kept_row_pointers
from ..formats.vector import VecData
from .plan import record


class _AssignableMixin:
    """Index expressions are also assignment targets: ``v[I] << u``."""

    _target: Any
    _index: Any

    def __lshift__(self, value: Any) -> None:
        self.update(value)

    def update(self, value: Any) -> None:
        from .assign import assign_expr  # noqa: PLC0415

        assign_expr(self._target, self._index, value, None, None, False, None)


class ScalarIndexExpr(_AssignableMixin, Expression):
    """``v[i]`` / ``A[i, j]``: read with ``.value``/``.new()``, write with ``<<``."""

    def __init__(self, obj: Any, pos: tuple[int, ...]) -> None:
        self._target = obj
        self._index = pos if len(pos) > 1 else pos[0]
        super().__init__("extract_element", 0, (), obj.dtype, obj.device,
                         lambda mask, desc: Result(element(obj, pos)), (obj,))

    @property
    def value(self) -> Any:
        v, present = element(self._target, (self._index,) if self._target.ndim == 1
                             else self._index)
        return v if present else None

    @property
    def is_empty(self) -> bool:
        return self.value is None


def element(obj: Any, pos: tuple[int, ...]) -> tuple[Any, bool]:
    """(value, present) of one element."""
    if obj.ndim == 1:
        data: VecData = obj._data
        if data.kind != "sparse":
            bits, vals = data.as_bitmap()
            i = pos[0]
            if not bool(bits[i]):
                return None, False
            return vals[i].item(), True
        idx, vals = data.as_sparse()
        keys = idx
        key = pos[0]
    else:
        csr = obj._csr()
        i, j = pos
        lo, hi = int(csr.indptr[i]), int(csr.indptr[i + 1])
        cols = csr.indices[lo:hi]
        p = int(cols.searchsorted(j))
        if p < cols.shape[0] and int(cols[p]) == j:
            return (csr.iso if csr.values is None else csr.values[lo + p].item()), True
        return None, False
    p = int(keys.searchsorted(key))
    if p < keys.shape[0] and int(keys[p]) == key:
        return vals[p].item(), True
    return None, False


class VectorIndexExpr(_AssignableMixin, Expression):
    pass


class MatrixIndexExpr(_AssignableMixin, Expression):
    pass


def vector_extract(v: Any, I: Any) -> VectorIndexExpr:  # noqa: N803
    def compute(mask: Any, desc: Any) -> Result:
        data: VecData = v._data
        if data.on_device or data.kind != "sparse":
            # a gather from the dense view: O(len(I)), no count (nothing read on a GPU)
            from .writeback import dense_operand  # noqa: PLC0415

            Id = move_array(I, v.device)  # noqa: N806
            bits, vals = dense_operand(data)
            record(desc, "extract", "extract_gather")
            if bits is None and not data.on_device:
                # np.take: the same gather as vals[Id], a third faster for int64 indices
                # (FastSV's gf << f[parents], 115 K entries: 44 against 65 µs)
                res = VecData.full(len(I), v.dtype, np.take(vals, Id))
            elif bits is None:
                res = VecData.full(len(I), v.dtype, vals[Id])
            else:
                res = VecData.bitmap(len(I), v.dtype, bits[Id], vals[Id])
            res.exclusive = True
            return Result(res.normalized())
        idx, vals = data.as_sparse()
        Id = move_array(I, v.device)  # noqa: N806
        found, pos = E.match(idx, Id)
        xp = E.xp_of(idx)
        keys = xp.flatnonzero(found).astype(np.int64)
        record(desc, "extract", "extract_lookup")
        return Result(VecData.sparse(len(I), v.dtype, keys, vals[pos[found]]).normalized())

    e = VectorIndexExpr("extract", 1, (len(I),), v.dtype, v.device, compute, (v,))
    e._target, e._index = v, I
    return e


def submatrix(csr: CSR, I: Any, J: Any) -> tuple[Any, Any]:  # noqa: N803
    """Entries of csr[I, J] as (row-major keys over len(I) x len(J), values)."""
    xp = csr.xp
    Id, Jd = move_array(I, "cpu"), move_array(J, "cpu")  # noqa: N806
    Id, Jd = xp.asarray(Id), xp.asarray(Jd)  # noqa: N806
    counts = csr.indptr[Id + 1] - csr.indptr[Id]
    total = int(counts.sum()) if counts.shape[0] else 0
    t = xp.repeat(xp.arange(Id.shape[0], dtype=np.int64), counts)
    offs = xp.arange(total, dtype=np.int64) - xp.repeat(xp.cumsum(counts) - counts, counts)
    p = csr.indptr[Id][t] + offs
    cols = csr.indices[p]
    order = xp.argsort(Jd, kind="stable")
    js = Jd[order]
    lo = xp.searchsorted(js, cols, "left")
    hi = xp.searchsorted(js, cols, "right")
    mult = hi - lo
    total2 = int(mult.sum()) if mult.shape[0] else 0
    e = xp.repeat(xp.arange(cols.shape[0], dtype=np.int64), mult)
    offs2 = xp.arange(total2, dtype=np.int64) - xp.repeat(xp.cumsum(mult) - mult, mult)
    newcol = order[lo[e] + offs2]
    keys = t[e] * np.int64(max(Jd.shape[0], 1)) + newcol
    vals = csr.full_values()[p[e]]
    srt = xp.argsort(keys, kind="stable")
    return keys[srt], vals[srt]


def distinct_submatrix(csr: CSR, I: Any, J: Any) -> CSR | None:  # noqa: N803
    """csr[I, J] when J names each column at most once (a permutation, a subset): each
    taken entry's new column is one lookup in a map of J, O(nnz(A[I, :]) + ncols) instead
    of a binary search and a sort of keys; None when J repeats a column."""
    xp = csr.xp
    if xp is not np:
        return _distinct_submatrix_device(csr, I, J)
    Jh = np.asarray(move_array(J, "cpu"), dtype=np.int64)  # noqa: N806
    # an increasing J is distinct without a count over all columns (a few rows of a large
    # graph: connected components' subgraph of the small components)
    increasing = Jh.shape[0] <= 1 or bool(np.all(Jh[1:] > Jh[:-1]))
    if not increasing and Jh.shape[0] and np.bincount(Jh, minlength=csr.ncols).max() > 1:
        return None
    # the map in int32 when it fits: the gather reads it so (no second pass to narrow it)
    inv = np.full(csr.ncols, -1, dtype=np.int32 if csr.ncols < 2**31 else np.int64)
    inv[Jh] = np.arange(Jh.shape[0], dtype=inv.dtype)
    Id = np.asarray(move_array(I, "cpu")).astype(np.int64, copy=False)  # noqa: N806
    from ..formats.csr.rows_cpu import gather  # noqa: PLC0415

    # rows gathered and sorted each in place, in parallel (Numba)
    return gather(csr, Id, inv, Jh.shape[0], not increasing)


def _distinct_submatrix_device(csr: CSR, I: Any, J: Any) -> CSR | None:  # noqa: N803
    """:func:`distinct_submatrix` on a GPU, J's map built there (a host J is uploaded
    once): the entries of the rows I in order, their columns mapped, and when J is not
    increasing one sort by (new row, new column) of the kept entries."""
    xp = csr.xp
    Jd = xp.asarray(J, dtype=np.int64)  # noqa: N806
    Id = xp.asarray(I, dtype=np.int64)  # noqa: N806
    nj = int(Jd.shape[0])
    if nj and int(xp.bincount(Jd, minlength=csr.ncols).max()) > 1:  # one read
        return None
    inv = xp.full(csr.ncols, -1, dtype=np.int64)
    inv[Jd] = xp.arange(nj, dtype=np.int64)
    increasing = nj <= 1 or bool((Jd[1:] > Jd[:-1]).all())
    starts = csr.indptr[Id]
    counts = csr.indptr[Id + 1] - starts
    indptr = xp.zeros(Id.shape[0] + 1, dtype=np.int64)
    xp.cumsum(counts, out=indptr[1:])
    t = E.repeat(xp.arange(Id.shape[0], dtype=np.int64), counts)  # new row of each entry
    p = starts[t] + (xp.arange(t.shape[0], dtype=np.int64) - indptr[t])
    cols = inv[csr.indices[p]]
    if nj < csr.ncols:  # columns J leaves out: each row keeps the count of its kept
        keep = cols >= 0
        indptr = kept_row_pointers(indptr, keep)
        t, p, cols = t[keep], p[keep], cols[keep]
    if not increasing:  # t is sorted already: this sorts the columns within each row
        order = xp.argsort(t * np.int64(max(nj, 1)) + cols)
        p, cols = p[order], cols[order]
    return CSR(Id.shape[0], nj, indptr, cols,
               None if csr.values is None else csr.values[p], csr.dtype, csr.iso)


def matrix_extract(A: Any, I: Any, J: Any) -> MatrixIndexExpr:  # noqa: N803
    def compute(mask: Any, desc: Any) -> Result:
        out = distinct_submatrix(A._csr(), I, J)
        if out is not None:
            record(desc, "extract", "extract_distinct_columns")
            return Result(out)
        keys, vals = submatrix(A._csr(), I, J)
        record(desc, "extract", "extract_submatrix")
        return Result(csr_from_keys(len(I), len(J), keys, vals, A.dtype))

    e = MatrixIndexExpr("extract", 2, (len(I), len(J)), A.dtype, A.device, compute, (A,))
    e._target, e._index = A, (I, J)
    return e


def matrix_extract_row(A: Any, i: int, J: Any) -> VectorIndexExpr:  # noqa: N803
    def compute(mask: Any, desc: Any) -> Result:
        keys, vals = submatrix(A._csr(), np.asarray([i], dtype=np.int64), J)
        record(desc, "extract", "extract_row")
        return Result(VecData.sparse(len(J), A.dtype, keys, vals).normalized())

    e = VectorIndexExpr("extract_row", 1, (len(J),), A.dtype, A.device, compute, (A,))
    e._target, e._index = A, (i, J)
    return e


def matrix_extract_col(A: Any, I: Any, j: int) -> VectorIndexExpr:  # noqa: N803
    def compute(mask: Any, desc: Any) -> Result:
        keys, vals = submatrix(A._csr_T(), np.asarray([j], dtype=np.int64), I)
        record(desc, "extract", "extract_col")
        return Result(VecData.sparse(len(I), A.dtype, keys, vals).normalized())

    e = VectorIndexExpr("extract_col", 1, (len(I),), A.dtype, A.device, compute, (A,))
    e._target, e._index = A, (I, j)
    return e
