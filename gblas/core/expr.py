"""Lazy expressions and the ``out(mask=…, accum=…, replace=…) << expr`` protocol.

An expression holds its operands and a compute function; nothing runs until it meets an
output, so the planner sees the mask (and can fuse it) before it picks a kernel.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._device import same_device
from ..dtypes import DataType, dtype_of_value, lookup_dtype
from ..exceptions import DimensionMismatch, DomainMismatch, InvalidObject, InvalidValue
from ..semirings.model import BinaryOp, Monoid
from ._lazy import ops
from .descriptor import Descriptor, as_descriptor
from .mask import Mask


@dataclass
class Result:
    """What a compute function returns: T's data and whether the mask is already applied."""

    data: Any  # VecData, CSR, or (value, present) for scalars
    mask_applied: bool = False
    # data is the output's new content: the kernel applied the accumulator (and the mask)
    accum_applied: bool = False


ComputeFn = Callable[[Mask | None, Descriptor | None], Result]
_OUTPUT_TYPES: dict[int, type] = {}  # ndim -> the class of its results (filled on first use)


class Expression:
    """A lazy GraphBLAS operation producing a Vector (ndim 1), Matrix (2) or Scalar (0)."""

    def __init__(self, op: str, ndim: int, shape: tuple[int, ...], dtype: DataType,
                 device: str, compute: ComputeFn, args: tuple[Any, ...] = ()) -> None:
        self.op = op
        self.ndim = ndim
        self.shape = shape
        self.dtype = dtype
        self.device = device
        self._compute = compute
        self.args = args
        # ops with transposable operands (mxm, mxv, vxm): rebuilds the expression on
        # transposed operands for a descriptor's transpose_first / transpose_second
        self._transposed: Callable[[bool, bool], Expression] | None = None
        # why the operands do not fit without a transposing descriptor (None: they do)
        self._mismatch: str | None = None
        # ops whose kernels can fold their result into a vector output with an accumulator
        # (mxv, vxm): (C's data, accum, mask, replace, desc) -> Result (accum_applied when
        # the kernel did)
        self._into: Callable[..., Result] | None = None

    def for_descriptor(self, desc: Descriptor | None) -> Expression:
        """The expression a descriptor's transposes turn this one into (GrB_INP0/GrB_INP1
        of the C API); raises DimensionMismatch when the operands do not fit."""
        t0 = bool(desc is not None and desc.transpose_first)
        t1 = bool(desc is not None and desc.transpose_second)
        if self._transposed is not None and (t0 or t1):
            out = self._transposed(t0, t1)
            out._transposed = None  # its operands are transposed already
            return out
        if self._mismatch is not None:
            raise DimensionMismatch(self._mismatch)
        return self

    @property
    def output_type(self) -> type:
        return _output_types()[self.ndim]

    def new(self, dtype: Any = None, *, mask: Mask | None = None, name: str | None = None,
            desc: Descriptor | None = None) -> Any:
        """Materialise into a new object (of ``dtype``, default the expression's)."""
        expr = self.for_descriptor(as_descriptor(desc))
        dt = expr.dtype if dtype is None else lookup_dtype(dtype)
        cls = expr.output_type
        if expr.ndim == 0:
            out = cls(dt, name=name, device=expr.device)
        elif expr.ndim == 1:
            out = cls(dt, expr.shape[0], name=name, device=expr.device)
        else:
            out = cls(dt, *expr.shape, name=name, device=expr.device)
        if expr.ndim == 0 and mask is not None:
            raise InvalidValue("a Scalar result takes no mask")
        if mask is None and desc is None:
            # a fresh output of the expression's own shape and device, no mask, accumulator
            # or descriptor: the updater's checks hold by construction (a loop of small
            # ``.new()`` calls pays for every line here)
            out._write(expr._run(None, None), None, None, False)
        elif expr.ndim == 0:
            out(desc=desc).update(expr)
        else:
            out(mask=mask, desc=desc).update(expr)
        return out

    def _run(self, mask: Mask | None, desc: Descriptor | None) -> Result:
        return self._compute(mask, desc)

    # scalar expressions read like scalars
    @property
    def value(self) -> Any:
        if self.ndim != 0:
            raise InvalidObject(f"{self.op} gives a {self.output_type.__name__}; use .new()")
        return self.new().value

    def __int__(self) -> int:
        return int(self.new())

    def __float__(self) -> float:
        return float(self.new())

    def __bool__(self) -> bool:
        if self.ndim != 0:
            raise InvalidValue("an expression has no truth value; materialise it with .new()")
        return bool(self.new())

    def __eq__(self, other: object) -> bool:  # type: ignore[override]
        if self.ndim != 0:
            return NotImplemented
        return self.new() == other

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        shape = "x".join(map(str, self.shape)) if self.shape else "scalar"
        return f"<{self.output_type.__name__}Expression {self.op}: {shape}, {self.dtype}>"


# ----------------------------------------------------------------------- the updater
def _as_accum(accum: Any) -> BinaryOp | None:
    if accum is None:
        return None
    if isinstance(accum, Monoid):
        return accum.binaryop
    if isinstance(accum, BinaryOp):
        return accum
    raise InvalidObject(f"accum must be a BinaryOp (e.g. gblas.binary.plus), got {accum!r}")


def _as_mask(mask: Any, shape: tuple[int, ...], desc: Descriptor | None) -> Mask | None:
    if mask is None:
        return None
    if not isinstance(mask, Mask):
        raise InvalidObject(
            f"a mask must be given as v.S (structure) or v.V (values), got "
            f"{type(mask).__name__}; write out(mask=v.S) or out(~v.S)"
        )
    if mask.shape != shape:
        raise DimensionMismatch(
            f"mask has shape {mask.shape} but the output has shape {shape}; "
            "use a mask of the output's shape"
        )
    if desc is not None and (desc.mask_structure or desc.mask_complement):
        mask = Mask(mask.parent, structure=mask.structure or desc.mask_structure,
                    complement=mask.complement != desc.mask_complement)
    return mask


class Updater:
    """``out(mask, accum, replace)``: the left-hand side of ``<<``."""

    def __init__(self, parent: Any, mask: Any = None, accum: Any = None,
                 replace: bool = False, desc: Any = None) -> None:
        self.desc = as_descriptor(desc)
        self.parent = parent
        self.mask = _as_mask(mask, parent.shape, self.desc)
        self.accum = _as_accum(accum)
        self.replace = bool(replace) or bool(self.desc is not None and self.desc.replace)
        if self.replace and self.mask is None:
            raise InvalidValue("replace=True needs a mask (it clears what the mask excludes)")
        if self.mask is not None and self.mask.parent.device != parent.device:
            same_device(parent, self.mask, what="output and mask")

    def __lshift__(self, rhs: Any) -> None:
        self.update(rhs)

    def __ilshift__(self, rhs: Any) -> Updater:
        self.update(rhs)
        return self

    def update(self, rhs: Any) -> None:
        """Run ``rhs`` (expression, collection or scalar) into the output."""
        update(self.parent, rhs, self.mask, self.accum, self.replace, self.desc)

    def __getitem__(self, index: Any) -> Any:
        return ops.assign.AssignTarget(self.parent, index, self.mask, self.accum, self.replace,
                                       self.desc)

    def __setitem__(self, index: Any, value: Any) -> None:
        self[index].update(value)


def update(parent: Any, rhs: Any, mask: Mask | None = None, accum: BinaryOp | None = None,
           replace: bool = False, desc: Descriptor | None = None) -> None:
    """``parent(mask, accum, replace, desc) << rhs`` with the updater's arguments already
    checked (Updater.__init__); ``parent << rhs`` calls it directly, with no updater object
    (a loop of small operations pays for every line)."""
    if isinstance(rhs, Expression):
        expr = rhs
    elif parent.ndim > 0 and _is_scalar_like(rhs):
        ops.assign.assign_expr(parent, None, rhs, mask, accum, replace, desc)
        return
    elif hasattr(rhs, "_as_expression"):
        expr = rhs._as_expression()
    elif parent.ndim == 0:
        from .scalar import scalar_value_expression  # noqa: PLC0415

        expr = scalar_value_expression(rhs, parent.device)
    else:
        raise InvalidObject(
            f"cannot assign a {type(rhs).__name__} to a {type(parent).__name__}; "
            "expected an expression, a collection of the same kind or a scalar"
        )
    if desc is not None or expr._mismatch is not None:  # (else the expression as it is)
        expr = expr.for_descriptor(desc)
    if expr.ndim != parent.ndim:
        raise InvalidObject(
            f"{expr.op} gives a {expr.output_type.__name__} but the output is a "
            f"{type(parent).__name__}"
        )
    if expr.shape != parent.shape:
        raise DimensionMismatch(
            f"{expr.op} gives shape {expr.shape} but the output {parent.name} has shape "
            f"{parent.shape}; resize the output or fix the operands"
        )
    if parent.device != expr.device:
        same_device(parent, expr, what="output and expression")
    if accum is not None:
        accum.domain(parent.dtype, expr.dtype)
        if expr._into is not None:  # the kernel may write C accum T into C directly
            parent._write(expr._into(parent._data, accum, mask, replace, desc), mask, accum,
                          replace)
            return
    res = expr._run(mask, desc)
    parent._write(res, mask, accum, replace)


def _output_types() -> dict[int, type]:
    """ndim -> Scalar, Vector, Matrix (imported on first use: they import this module)."""
    if not _OUTPUT_TYPES:
        from .matrix import Matrix  # noqa: PLC0415
        from .scalar import Scalar  # noqa: PLC0415
        from .vector import Vector  # noqa: PLC0415

        _OUTPUT_TYPES.update({0: Scalar, 1: Vector, 2: Matrix})
    return _OUTPUT_TYPES


def _is_scalar_like(x: Any) -> bool:
    if isinstance(x, (bool, int, float, np.generic)):
        return True
    if isinstance(x, _output_types()[0]):  # a Scalar (no import statement per call)
        return True
    if hasattr(x, "_as_expression"):  # a collection: no scalar test (it raises and catches)
        return False
    try:
        dtype_of_value(x)
    except DomainMismatch:
        return False
    return True


def parse_call_args(args: tuple[Any, ...], mask: Any, accum: Any) -> tuple[Any, Any]:
    """``out(m, accum)`` positional form of python-graphblas: a Mask and/or an operator."""
    for a in args:
        if isinstance(a, Mask):
            if mask is not None:
                raise InvalidValue("mask given twice")
            mask = a
        elif isinstance(a, (BinaryOp, Monoid)):
            if accum is not None:
                raise InvalidValue("accum given twice")
            accum = a
        elif a is None:
            continue
        else:
            raise InvalidObject(
                f"out(...) takes a mask (v.S, v.V, ~v.S) and/or an accumulator (binary.plus); "
                f"got {type(a).__name__}. Masks must be given as .S or .V"
            )
    return mask, accum
