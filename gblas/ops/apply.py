"""apply: unary operators, binary operators with a bound scalar, index-unary operators."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..backend import keys as E
from ..backend.dense import DenseT, DeviceScalar
from ..core.expr import Expression, Result
from ..dtypes import DataType, dtype_of_value
from ..exceptions import DomainMismatch, InvalidValue
from ..formats.csr.container import CSR
from ..formats.csr.convert import keep_entries
from ..formats.vector import VecData
from ..semirings.model import BinaryOp, IndexUnaryOp, Monoid, UnaryOp
from .plan import record
from .validate import binary_types, unary_types


def _scalar(x: Any, device: str = "cpu") -> tuple[Any, DataType]:
    """(value, type) of a bound scalar. A Scalar that a GPU kernel produced stays on the
    device (a :class:`DeviceScalar`, read by the kernel) when the operand is on it too."""
    from ..core.scalar import Scalar  # noqa: PLC0415

    if isinstance(x, Scalar):
        dev = x._device_value()
        if dev is not None and device != "cpu":
            return dev, x.dtype
        if x.is_empty:
            raise InvalidValue("cannot bind an empty Scalar")
        return x.value, x.dtype
    return x, dtype_of_value(x)


def _values_and_positions(obj: Any, positions: bool = True) -> tuple[Any, Any, Any, Any]:
    """(values, i, j, rebuild) of a vector or matrix's entries (a matrix's i and j None
    unless ``positions``)."""
    if obj.ndim == 1:
        idx, vals = obj._data.as_sparse()
        xp = E.xp_of(idx)

        def rebuild(new_vals: Any, dt: DataType, keep: Any = None) -> Any:
            """New values on the same indices, or (``new_vals`` None) the entries
            ``keep`` holds."""
            if new_vals is None:
                new_vals = vals[keep]
            k = idx if keep is None else idx[keep]
            return VecData.sparse(obj.size, dt, k, new_vals).normalized()

        return vals, idx, xp.zeros_like(idx), rebuild
    csr = obj._csr()

    def rebuild_m(new_vals: Any, dt: DataType, keep: Any = None) -> Any:
        """New values on the same structure (apply), or (``new_vals`` None) the entries
        ``keep`` holds with A's own values (select); no keys, no sort."""
        if keep is None:
            new_vals = new_vals.astype(dt.np_type, copy=False)
            return CSR(csr.nrows, csr.ncols, csr.indptr, csr.indices, new_vals, dt)
        return keep_entries(csr, keep).astype(dt)

    if not positions:
        return csr.full_values(), None, None, rebuild_m
    return csr.full_values(), csr.row_ids(), csr.indices, rebuild_m


def apply_expr(obj: Any, op: Any, *, left: Any = None, right: Any = None) -> Expression:
    if isinstance(op, Monoid):
        op = op.binaryop
    kind: str
    s: Any = None
    domain: DataType | None = None
    if isinstance(op, UnaryOp):
        if left is not None or right is not None:
            raise InvalidValue(f"unary operator {op!r} takes no left=/right= scalar")
        domain, out = unary_types(op, obj.dtype)
        kind = "unary"

        def fn(vals: Any, i: Any, j: Any) -> Any:
            if op.positional:
                return ((i if op.positional == "i" else j) + op.offset).astype(out.np_type)
            return E.xp_of(vals).asarray(op.np_func(vals.astype(domain.np_type))).astype(
                out.np_type, copy=False)
    elif isinstance(op, BinaryOp):
        if (left is None) == (right is None):
            raise InvalidValue(
                f"binary operator {op!r} needs exactly one bound scalar: left= or right="
            )
        s, sdt = _scalar(left if left is not None else right, obj.device)
        domain = binary_types(op, sdt, obj.dtype)[0] if left is not None else \
            binary_types(op, obj.dtype, sdt)[0]
        out = binary_types(op, domain, domain)[1]
        kind = "bind1st" if left is not None else "bind2nd"

        def fn(vals: Any, i: Any, j: Any) -> Any:
            xp = E.xp_of(vals)
            sv = xp.full(vals.shape[0], _host(s), dtype=domain.np_type)
            a, b = (sv, vals) if left is not None else (vals, sv)
            return E.binary_values(op, a, b, domain, out, i, j)
    elif isinstance(op, IndexUnaryOp):
        s = 0 if right is None else _scalar(right, obj.device)[0]
        out = op.return_type(obj.dtype)
        kind = "index"

        def fn(vals: Any, i: Any, j: Any) -> Any:
            return E.xp_of(vals).asarray(op.np_func(vals, i, j, _host(s))).astype(out.np_type)
    else:
        raise DomainMismatch(
            f"apply needs a UnaryOp, BinaryOp (with left=/right=) or IndexUnaryOp, got {op!r}"
        )

    value_only = not (getattr(op, "positional", None)
                      or (isinstance(op, IndexUnaryOp) and op.uses_positions))

    def compute(mask: Any, desc: Any) -> Result:
        if obj.ndim == 1 and (obj._data.kind != "sparse" or obj._data.on_device):
            from .writeback import dense_operand  # noqa: PLC0415

            record(desc, "apply", "apply_dense")
            return Result(DenseT(obj.size, out, kind, a=dense_operand(obj._data), op=op,
                                 domain=domain, scalar=s))
        if obj.ndim == 2 and value_only and obj._csr().is_iso:
            # iso matrix: f of the one value; the structure is shared, not copied
            csr = obj._csr()
            one = E.xp_of(csr.indptr).asarray([csr.iso], dtype=csr.dtype.np_type)
            zero = E.xp_of(csr.indptr).zeros(1, dtype=np.int64)
            iso = fn(one, zero, zero)[0].item()
            record(desc, "apply", "apply_iso")
            return Result(CSR(csr.nrows, csr.ncols, csr.indptr, csr.indices, None, out, iso))
        vals, i, j, rebuild = _values_and_positions(obj, positions=not value_only)
        record(desc, "apply", "apply_values")
        return Result(rebuild(fn(vals, i, j), out))

    return Expression("apply", obj.ndim, obj.shape, out, obj.device, compute, (obj,))


def _host(s: Any) -> Any:
    """A bound scalar as a host value (a device scalar is read: array-primitive paths)."""
    if isinstance(s, DeviceScalar):
        v, present = s.read()
        if not present:
            raise InvalidValue("cannot bind an empty Scalar")
        return v
    return s
