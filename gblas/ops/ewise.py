"""Element-wise add (union) and multiply (intersection) of vectors or matrices."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _config
from .._device import same_device
from ..backend import keys as E
from ..backend.dense import DenseT
from ..core.expr import Expression, Result
from ..dtypes import DataType
from ..exceptions import DimensionMismatch, DomainMismatch
from ..formats.csr.container import CSR
from ..formats.csr.convert import csr_from_keys, csr_keys
from ..formats.csr.ewise_cpu import merge_rows
from ..formats.csr.masked import restrict
from ..formats.vector import FULL, SPARSE, VecData
from ..semirings.model import BinaryOp, Monoid, Semiring, binary, monoid
from .plan import record
from .validate import binary_types


def _as_binary(op: Any, name: str) -> BinaryOp:
    if op is None:
        return monoid.plus.binaryop if name == "ewise_add" else binary.times
    if isinstance(op, Monoid):
        return op.binaryop
    if isinstance(op, BinaryOp):
        return op
    if isinstance(op, Semiring):
        return op.monoid.binaryop if name == "ewise_add" else op.binaryop
    raise DomainMismatch(f"{name} needs a BinaryOp or Monoid (e.g. binary.plus), got {op!r}")


def _entries(obj: Any) -> tuple[Any, Any, int | None]:
    if obj.ndim == 1:
        idx, vals = obj._data.as_sparse()
        return idx, vals, None
    csr = obj._csr()
    return csr_keys(csr), csr.full_values(), obj.ncols


def _look_up(keys: Any, vals: Any, dense: VecData) -> tuple[Any, Any, Any]:
    """(keys, vals, dense's values) at the keys present in ``dense`` (bitmap or full: a
    full one has them all, and only its values are gathered)."""
    if dense.kind == FULL:
        return keys, vals, dense.values[keys]
    bits, dv = dense.as_bitmap()
    found = bits[keys]
    keys = keys[found]
    return keys, vals[found], dv[keys]


def _mult_by_lookup(a: Any, b: Any, op: BinaryOp, out: DataType) -> tuple[Any, Any] | None:
    """Vector a ∩ b when one side is a bitmap or full: look the other side's indices up in
    its bits (O(nvals + size)) instead of a sorted merge; None when both are sparse."""
    da, db = a._data, b._data
    if da.kind == SPARSE and db.kind == SPARSE:
        return None
    if da.kind != SPARSE and db.kind != SPARSE:
        xp = da.xp
        keys = xp.flatnonzero(da.present_bits() & db.present_bits()).astype(np.int64)
        x, y = da.as_bitmap()[1][keys], db.as_bitmap()[1][keys]
    elif da.kind == SPARSE:
        ka, va = da.as_sparse()
        keys, x, y = _look_up(ka, va, db)
    else:
        keys, y, x = _look_up(*db.as_sparse(), da)
    domain = op.domain(da.dtype, db.dtype)
    i, j = E.positions(keys, None) if op.positional else (None, None)
    return keys, E.binary_values(op, x, y, domain, out, i, j)


def ewise_values(name: str, a: Any, b: Any, op: BinaryOp, out: DataType) -> tuple[Any, Any]:
    if name == "ewise_mult" and a.ndim == 1:
        res = _mult_by_lookup(a, b, op, out)
        if res is not None:
            return res
    ka, va, ncols = _entries(a)
    kb, vb, _ = _entries(b)
    fn = E.union if name == "ewise_add" else E.intersect
    return fn(ka, va, kb, vb, op, out, ncols)


def use_dense(*datas: VecData) -> bool:
    """Element-wise work on vectors goes through the dense (bitmap/full) kernels on a GPU
    (sorted merges would need counts on the host) and on the CPU when an operand is dense
    or the operands together are (a sorted merge pays only below the bitmap density)."""
    for d in datas:
        if d.kind != SPARSE or d.on_device:
            return True
    return sum(d.nvals for d in datas) > _config.get("bitmap_density") * datas[0].size


def same_kind(a: Any, b: Any, what: str) -> str:
    """The device of two operands of an element-wise operation; DimensionMismatch unless
    both are vectors or both matrices, of one shape."""
    if getattr(b, "ndim", None) != a.ndim:
        raise DimensionMismatch(
            f"{what}: both operands must be {'vectors' if a.ndim == 1 else 'matrices'}, "
            f"got {type(b).__name__}"
        )
    if a.shape != b.shape:
        raise DimensionMismatch(f"{what}: shapes {a.shape} and {b.shape} differ")
    return a.device if a.device == b.device else same_device(a, b)


def ewise_expr(name: str, a: Any, b: Any, op: Any) -> Expression:
    bop = _as_binary(op, name)
    dev = same_kind(a, b, name)
    domain, out = binary_types(bop, a.dtype, b.dtype)
    if a.ndim == 1:
        kind = "add" if name == "ewise_add" else "mult"

        def compute_v(mask: Any, desc: Any) -> Result:
            da, db = a._data, b._data
            if da.on_device or (use_dense(da, db) if kind == "add" else
                                da.kind != SPARSE and db.kind != SPARSE):
                # (an intersection with a sparse operand on the CPU looks its entries up
                # in the other: O(nvals), not O(size))
                record(desc, name, f"{name}_dense")
                from .writeback import dense_operand  # noqa: PLC0415

                return Result(DenseT(da.size, out, kind, a=dense_operand(da),
                                     b=dense_operand(db), op=bop, domain=domain))
            keys, vals = ewise_values(name, a, b, bop, out)
            lookup = kind == "mult" and (da.kind != SPARSE or db.kind != SPARSE)
            record(desc, name, f"{name}_{'bitmap_lookup' if lookup else 'sorted_merge'}")
            return Result(VecData.sparse(a.size, out, keys, vals).normalized())

        return Expression(name, 1, a.shape, out, dev, compute_v, (a, b))

    def compute(mask: Any, desc: Any) -> Result:
        ca, cb = a._csr(), b._csr()
        how = "sorted_merge"
        if ca.xp is np:
            how = "row_merge"
            # the result can only hold the mask's positions, and an intersection only the
            # smaller operand's: merge the operands there only (betweenness' B ./ Σ under
            # one BFS level, W .* Σ, of a matrix of all reached pairs)
            P = None  # noqa: N806
            if mask is not None and not mask.complement:
                P = mask.parent._csr()  # noqa: N806
            if name == "ewise_mult":
                small = ca if ca.nnz <= cb.nnz else cb
                if P is None or small.nnz < P.nnz:
                    P = small  # noqa: N806
            if P is not None and 4 * P.nnz < ca.nnz + cb.nnz:
                ca = ca if ca is P else restrict(ca, P)
                cb = cb if cb is P else restrict(cb, P)
                how = "restricted_row_merge"
            record(desc, name, f"{name}_{how}")
            return Result(_merged_rows(ca, cb, name == "ewise_add", bop, out))
        from ..formats.csr.ewise_cuda import merge_rows as merge_rows_cuda  # noqa: PLC0415

        res = merge_rows_cuda(ca, cb, name == "ewise_add", bop, domain, out)
        if res is not None:
            record(desc, name, f"{name}_row_merge")
            return Result(res)
        fn = E.union if name == "ewise_add" else E.intersect
        keys, vals = fn(csr_keys(ca), ca.full_values(), csr_keys(cb), cb.full_values(), bop,
                        out, a.ncols)
        record(desc, name, f"{name}_{how}")
        return Result(csr_from_keys(a.nrows, a.ncols, keys, vals, out))

    return Expression(name, a.ndim, a.shape, out, dev, compute, (a, b))


def _merged_rows(ca: CSR, cb: CSR, union: bool, op: BinaryOp, out: DataType) -> CSR:
    """A ∪ B or A ∩ B of two CPU CSR matrices by a merge of each row pair (the structure
    and both source positions), then op over the entries both have."""
    va, vb = ca.full_values(), cb.full_values()
    domain = op.domain(ca.dtype, cb.dtype)
    opd = op.for_domain(domain)
    if opd.opcode >= 0 and not opd.positional and not opd.is_udf:
        # a built-in operator: computed inside the merge (no position arrays)
        indptr, cols, vals, _ = merge_rows(ca, cb, union, (
            opd.opcode, va, vb, np.dtype(domain.np_type), np.dtype(out.np_type)))
        return CSR(ca.nrows, ca.ncols, indptr, cols, vals, out)
    indptr, cols, pa, pb = merge_rows(ca, cb, union)
    vals = np.empty(cols.shape[0], dtype=out.np_type)
    both: Any = slice(None)
    if union:
        only_a, only_b = pb < 0, pa < 0
        vals[only_a] = va[pa[only_a]]
        vals[only_b] = vb[pb[only_b]]
        both = ~(only_a | only_b)
    i = j = None
    if op.positional:
        i = np.repeat(np.arange(ca.nrows, dtype=np.int64), np.diff(indptr))[both]
        j = cols[both]
    vals[both] = E.binary_values(op, va[pa[both]], vb[pb[both]], domain, out, i, j)
    return CSR(ca.nrows, ca.ncols, indptr, cols, vals, out)
