"""select: keep the entries where an index-unary predicate holds."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..backend import keys as E
from ..backend.dense import DenseT
from ..core.expr import Expression, Result
from ..dtypes import BOOL
from ..exceptions import DomainMismatch, InvalidValue
from ..semirings.model import IndexUnaryOp, select
from .apply import _host, _scalar, _values_and_positions
from .plan import record

_SHORTHAND = {"==": "valueeq", "!=": "valuene", ">": "valuegt", ">=": "valuege",
              "<": "valuelt", "<=": "valuele"}


def select_expr(obj: Any, op: Any, thunk: Any = None) -> Expression:
    if isinstance(op, str):
        name = _SHORTHAND.get(op, op)
        if name not in select:
            raise InvalidValue(
                f"unknown select operator {op!r}; use tril, triu, diag, offdiag, rowle, "
                "rowgt, colle, colgt, valueeq/ne/gt/ge/lt/le or ==, !=, >, >=, <, <="
            )
        op = getattr(select, name)
    if not isinstance(op, IndexUnaryOp):
        raise DomainMismatch(f"select needs an IndexUnaryOp (gblas.select.tril ...), got {op!r}")
    if op.return_type(obj.dtype) != BOOL:
        raise DomainMismatch(f"select operator {op!r} does not return bool")
    if op.uses_values and thunk is None:
        raise InvalidValue(f"select operator {op!r} compares values and needs a thunk")
    t = 0 if thunk is None else _scalar(thunk, obj.device)[0]

    def compute(mask: Any, desc: Any) -> Result:
        if obj.ndim == 1 and (obj._data.kind != "sparse" or obj._data.on_device):
            from .writeback import dense_operand  # noqa: PLC0415

            record(desc, "select", "select_dense")
            return Result(DenseT(obj.size, obj.dtype, "select", a=dense_operand(obj._data),
                                 op=op, scalar=t))
        if obj.ndim == 2 and not op.is_udf and isinstance(t, int | np.integer):
            csr = obj._csr()
            if csr.xp is np:
                from ..formats.csr.rows_cpu import SELECT_RANGE_OPS, select_range  # noqa: PLC0415

                if op.name in SELECT_RANGE_OPS:  # each row keeps one run: no key pass
                    record(desc, "select", "select_range")
                    return Result(select_range(csr, op.name, int(t)))
        vals, i, j, rebuild = _values_and_positions(obj, positions=op.uses_positions)
        keep = E.xp_of(vals).asarray(op.np_func(vals, i, j, _host(t))).astype(bool)
        record(desc, "select", "select_filter")
        return Result(rebuild(None, obj.dtype, keep))

    return Expression("select", obj.ndim, obj.shape, obj.dtype, obj.device, compute, (obj,))
