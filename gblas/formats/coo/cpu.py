"""CPU helpers over COO: building from (row, col, value) triples, and an edge-parallel mxv.

- ``build``/``build_vector`` follow ``GrB_Matrix_build``/``GrB_Vector_build``: the triples
  are sorted row-major (stable), duplicates are combined with ``dup_op`` from left to
  right in input order (NumPy ``ufunc.reduceat`` for built-ins that have a ufunc, a Numba
  fold otherwise), and duplicates without a ``dup_op`` are an error.
- ``mxv_coo`` is the edge-centric SpMV (edge-parallel GraphBLAST/Gunrock style): the
  sorted entries are split into chunks of about equal size aligned to row boundaries,
  one chunk per parallel iteration, folding each row run with the semiring (early exit
  on the terminal value, mask checked before a row's entries are read).
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
from numba import prange

from ...backend.threads import num_threads
from ...dtypes import DataType
from ...exceptions import InvalidValue
from ...semirings.codegen_numba import segment_reduce
from ...semirings.model import BinaryOp, KernelSemiring
from ..csr.cpu import _J0, SemiringKernel, add_op, mask_args, mult_op, operand_values, sr_args
from .container import COO

# names the semiring kernels call (replaced for user-defined operators, see SemiringKernel)
_MUL = mult_op
_ADD = add_op

_KEEP_FIRST = frozenset({"first", "any"})
_KEEP_LAST = frozenset({"second"})
_ONE = frozenset({"pair", "oneb"})


# =========================================================================== build
@numba.njit(cache=True, nogil=True, error_model="numpy")
def _fold_builtin(op, vals, starts, ends, rows, cols, out):  # noqa: ANN001, ANN202
    """out[s] = left-to-right fold of vals[starts[s]:ends[s]] with built-in ``op``."""
    for s in range(starts.shape[0]):
        p = starts[s]
        acc = vals[p]
        for q in range(p + 1, ends[s]):
            acc = mult_op(op, acc, vals[q], rows[q], cols[q], cols[q], acc)
        out[s] = acc
    return out


def _combine(op: BinaryOp, vals: Any, starts: Any, ends: Any, rows: Any, cols: Any,
             dtype: DataType) -> Any:
    """Fold each segment vals[starts[s]:ends[s]] with ``op`` left to right, as ``dtype``
    (a segment of one entry keeps its value: the operator is not applied to it)."""
    npt = dtype.np_type
    out = None
    if op.is_udf:
        out = segment_reduce(op.nb_func, vals, starts, ends, np.empty(starts.shape[0], npt))
    elif op.name in _KEEP_FIRST:
        return vals[starts]
    elif op.name in _KEEP_LAST:
        return vals[ends - 1]
    elif op.name in _ONE:
        out = np.ones(starts.shape[0], dtype=npt)
    elif op.ufunc is not None and not op.positional:
        try:
            with np.errstate(all="ignore"):
                out = np.asarray(op.ufunc.reduceat(vals, starts)).astype(npt)
        except (TypeError, ValueError):
            out = None
    if out is None:
        return _fold_builtin(int(op.opcode), vals, starts, ends, rows, cols,
                             np.empty(starts.shape[0], dtype=npt))
    single = (ends - starts) == 1
    out[single] = vals[starts[single]]
    return out


@numba.njit(cache=True, nogil=True)
def _radix_perm(rows, cols, nrows, ncols):  # noqa: ANN001, ANN202
    """Stable row-major sort permutation: LSD counting sort by column, then by row."""
    n = rows.shape[0]
    pos = np.zeros(max(nrows, ncols) + 1, dtype=np.int64)
    for p in range(n):
        pos[cols[p] + 1] += 1
    for j in range(ncols):
        pos[j + 1] += pos[j]
    by_col = np.empty(n, dtype=np.int64)
    for p in range(n):
        by_col[pos[cols[p]]] = p
        pos[cols[p]] += 1
    pos[:] = 0
    for p in range(n):
        pos[rows[p] + 1] += 1
    for i in range(nrows):
        pos[i + 1] += pos[i]
    perm = np.empty(n, dtype=np.int64)
    for q in range(n):
        p = by_col[q]
        perm[pos[rows[p]]] = p
        pos[rows[p]] += 1
    return perm


def _sort_perm(rows: Any, cols: Any, nrows: int, ncols: int) -> Any | None:
    """Stable row-major permutation of the triples, or None when already sorted."""
    n = rows.shape[0]
    if nrows * max(ncols, 1) < 2**62:
        keys = rows * np.int64(max(ncols, 1)) + cols
        if n < 2 or bool(np.all(keys[1:] >= keys[:-1])):
            return None
        if nrows + ncols <= 8 * n + 4096:  # count arrays no larger than the input
            return _radix_perm(rows, cols, nrows, ncols)
        return np.argsort(keys, kind="stable")
    return np.lexsort((cols, rows))  # huge shapes: keys would overflow


def _build_sorted(rows: Any, cols: Any, values: Any, nrows: int, ncols: int,
                  dtype: DataType, dup_op: BinaryOp | None, what: str
                  ) -> tuple[Any, Any, Any | None, Any]:
    """Shared by build/build_vector: (rows, cols, values or None, iso) canonical."""
    npt = dtype.np_type
    scalar = np.ndim(values) == 0
    iso = dtype.cast(values) if scalar else None
    n = rows.shape[0]
    if n == 0:
        return rows, cols, (None if scalar else np.empty(0, dtype=npt)), iso
    perm = _sort_perm(rows, cols, nrows, ncols)
    if perm is not None:
        rows, cols = rows[perm], cols[perm]
    dup = (rows[1:] == rows[:-1]) & (cols[1:] == cols[:-1])
    vals = None
    if not scalar:
        vals = np.asarray(values).astype(npt, copy=False)
        if perm is not None:
            vals = vals[perm]
    if not dup.any():
        return rows, cols, vals, iso
    keep = np.empty(n, dtype=np.bool_)
    keep[0] = True
    np.logical_not(dup, out=keep[1:])
    starts = np.flatnonzero(keep)
    if dup_op is None:
        if scalar:
            return rows[starts], cols[starts], None, iso
        later = np.flatnonzero(dup) + 1  # sorted positions repeating the previous entry
        first = int(later[0]) if perm is None else int(later[np.argmin(perm[later])])
        at = f"({int(rows[first])}, {int(cols[first])})" if what == "matrix" else \
            f"index {int(rows[first])}"
        raise InvalidValue(
            f"duplicate {what} entry at {at} and no dup_op was given; pass dup_op= "
            "(e.g. binary.plus to sum duplicates, binary.first or binary.second to keep "
            "one) to combine duplicates"
        )
    if scalar:
        vals = np.full(n, iso, dtype=npt)
    ends = np.empty_like(starts)
    ends[:-1] = starts[1:]
    ends[-1] = n
    op = getattr(dup_op, "binaryop", dup_op).for_domain(dtype)  # a Monoid: its operator
    out = np.ascontiguousarray(_combine(op, vals, starts, ends, rows, cols, dtype))
    rows, cols = rows[starts], cols[starts]
    if scalar and bool(np.all(out == np.asarray(iso, dtype=npt))):
        return rows, cols, None, iso  # e.g. lor/min/first of one value: still iso
    return rows, cols, out, None


def _as_index(a: Any) -> Any:
    return np.ascontiguousarray(np.asarray(a).ravel(), dtype=np.int64)


def build(rows: Any, cols: Any, values: Any, nrows: int, ncols: int, dtype: DataType,
          dup_op: BinaryOp | None) -> COO:
    """Canonical COO (sorted row-major, unique) from triples; ``values`` may be a scalar
    (iso). Duplicates are combined with ``dup_op``; without one they raise InvalidValue,
    except for a scalar value, where they are dropped. Bounds are not checked here."""
    r, c, v, iso = _build_sorted(_as_index(rows), _as_index(cols), values, int(nrows),
                                 int(ncols), dtype, dup_op, "matrix")
    return COO(int(nrows), int(ncols), r, c, v, dtype, iso)


def build_vector(indices: Any, values: Any, size: int, dtype: DataType,
                 dup_op: BinaryOp | None) -> tuple[Any, Any | None, Any]:
    """(sorted unique indices, values or None, iso value or None): ``build`` for a vector."""
    idx = _as_index(indices)
    r, _c, v, iso = _build_sorted(idx, np.zeros_like(idx), values, int(size), 1, dtype,
                                  dup_op, "vector")
    return r, v, iso


# ============================================================================= mxv
def _coo_mxv_impl(bounds, rows, cols, mvals, m_iso, xpres, xvals, x_iso, mask, use_mask,  # noqa: ANN001, ANN202
                  mcomp, mop, aop, ident, term, has_term, is_any, out_pres, out_vals):
    for c in prange(bounds.shape[0] - 1):
        p = bounds[c]
        end = bounds[c + 1]
        while p < end:
            i = rows[p]
            e = p + 1
            while e < end and rows[e] == i:
                e += 1
            if not (use_mask and mask[i] == mcomp):
                found = False
                acc = ident
                for q in range(p, e):
                    k = cols[q]
                    if not xpres[k]:
                        continue
                    t = _MUL(mop, mvals[0] if m_iso else mvals[q],
                             xvals[0] if x_iso else xvals[k], i, k, _J0, ident)
                    acc = _ADD(aop, acc, t) if found else t
                    found = True
                    if is_any or (has_term and acc == term):
                        break
                out_pres[i] = found
                out_vals[i] = acc
            p = e


_coo_mxv = SemiringKernel(_coo_mxv_impl, parallel=True)


def _chunk_bounds(rows: Any) -> Any:
    """Chunk boundaries over the entries, about equal sized, each at a row start."""
    nnz = rows.shape[0]
    nchunks = max(1, min(num_threads() * 8, nnz // 4096))
    cand = np.linspace(0, nnz, nchunks + 1).astype(np.int64)[1:-1]
    inner = np.searchsorted(rows, rows[cand], side="left") if cand.size else cand
    return np.unique(np.concatenate(([0], inner, [nnz]))).astype(np.int64)


def mxv_coo(M: COO, x_present: Any, x_values: Any | None, mask_bits: Any | None,
            mask_comp: bool, ks: KernelSemiring) -> tuple[Any, Any]:
    """T = M ⊕.⊗ x over the COO entries (x as a bitmap): edge-balanced chunks, each folding
    whole row runs. Returns (present: bool[nrows], values: out_type[nrows])."""
    out_pres = np.zeros(M.nrows, dtype=np.bool_)
    out_vals = np.empty(M.nrows, dtype=ks.out_type.np_type)
    if M.nnz == 0 or M.nrows == 0:
        return out_pres, out_vals
    rows = np.ascontiguousarray(M.rows, dtype=np.int64)
    mb, use_mask = mask_args(mask_bits)
    _coo_mxv.for_semiring(ks)(
        _chunk_bounds(rows), rows, np.ascontiguousarray(M.cols, dtype=np.int64),
        *operand_values(M.values, M.iso, ks.uses_left, ks),
        np.ascontiguousarray(x_present, dtype=np.bool_),
        *operand_values(x_values, None, ks.uses_right, ks), mb, use_mask, bool(mask_comp),
        *sr_args(ks), out_pres, out_vals)
    return out_pres, out_vals


__all__ = ["build", "build_vector", "mxv_coo"]
