"""DistVector: a vector split in blocks over processes, with gblas.Vector's API subset.

Each process holds its block as a plain :class:`gblas.Vector` (``.local``, local indices
``0 .. n_local - 1`` for the global ``lo .. hi - 1``). Operations build
:class:`DistExpression` objects that, like gblas expressions, run at
``out(mask, accum, replace) << expr``: each process then computes its block of T with
gblas' own kernels (exchanging what the operation needs first) and writes it through
gblas' own write-back with its block of the mask, so masks, accumulators and ``replace``
mean exactly what they mean on one process.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import Scalar, Vector
from ..core.base import Writable, auto_name
from ..core.descriptor import Descriptor, as_descriptor
from ..core.expr import _is_scalar_like
from ..core.mask import Mask
from ..dtypes import FP64, DataType, lookup_dtype
from ..exceptions import (
    DimensionMismatch,
    InvalidObject,
    InvalidValue,
    NotImplementedForFormat,
)
from ..semirings.model import IndexUnaryOp, Monoid, monoid
from ..semirings.model import semiring as semiring_ns
from .partition import Layout

LocalFn = Callable[[Mask | None, Descriptor | None], Any]


# index-unary operators a part computes from its local position i: the value at global
# position lo + i is the local value with the thunk raised by this factor times lo
_INDEX_SHIFT = {"rowindex": 1, "colindex": 0, "diagindex": 1}


def _not_distributed(what: str) -> NotImplementedForFormat:
    return NotImplementedForFormat(
        f"{what} is not available on distributed objects (gblas.distributed supports mxv, "
        "vxm, ewise_add/ewise_mult, apply (of the index-unary operators rowindex, colindex "
        "and diagindex too), value select, reduce, inner, masked assign and index-list "
        "extract/assign); "
        "gather() the object to one process for the rest")


def fold_scalars(values: list[Any], op: Monoid, dtype: DataType, device: str) -> Scalar:
    """⊕ of the processes' partial results (None: empty) with gblas' own reduction."""
    present = [v for v in values if v is not None]
    if not present:
        return Scalar(dtype, device=device)
    if len(present) == 1:  # one part (one process, or the others empty): nothing to fold
        return Scalar.from_value(present[0], dtype, device=device)
    vec = Vector.from_coo(np.arange(len(present)), np.asarray(present, dtype=dtype.np_type),
                          dtype, size=len(present), device=device)
    return vec.reduce(op).new()


class DistExpression:
    """A lazy distributed operation giving a DistVector (``ndim`` 1) or a Scalar (0).

    ``local(mask, desc)`` computes this process's block of the result: a gblas Expression,
    Vector or scalar that the output's block receives through ``<<`` (``ndim`` 1); for
    ``ndim`` 0 it returns the replicated Scalar."""

    def __init__(self, op: str, ndim: int, layout: Layout, dtype: DataType,
                 local: LocalFn) -> None:
        self.op, self.ndim, self.layout, self.dtype = op, ndim, layout, dtype
        self.shape: tuple[int, ...] = (layout.n,) if ndim == 1 else ()
        self.device = layout
        self._local = local

    def new(self, dtype: Any = None, *, mask: Mask | None = None, name: str | None = None,
            desc: Descriptor | None = None) -> Any:
        if self.ndim == 0:
            if mask is not None:
                raise InvalidValue("a Scalar result takes no mask")
            s = self._local(None, as_descriptor(desc))
            return s if dtype is None else Scalar.from_value(s.value, dtype)
        out = DistVector(self.dtype if dtype is None else dtype, self.layout, name=name)
        out(mask=mask, desc=desc).update(self)
        return out

    @property
    def value(self) -> Any:
        if self.ndim != 0:
            raise InvalidObject(f"{self.op} gives a DistVector; use .new()")
        return self.new().value

    def __repr__(self) -> str:
        kind = "DistVector" if self.ndim else "Scalar"
        return f"<{kind}Expression {self.op}: {self.layout.n}, {self.dtype}>"


class DistElement:
    """``v[i]``: one element; ``v[i] << x`` sets it on its owner, ``.value`` reads it."""

    def __init__(self, vec: DistVector, index: int) -> None:
        self.vec, self.index = vec, index

    def _owner_local(self) -> int | None:
        lay = self.vec.layout
        return self.index - lay.lo if lay.lo <= self.index < lay.hi else None

    def update(self, value: Any, mask: Any = None, accum: Any = None) -> None:
        k = self._owner_local()
        if k is not None:
            self.vec.local(accum=accum)[k] << value
        self.vec._changed()

    __lshift__ = update

    @property
    def value(self) -> Any:
        k = self._owner_local()
        mine = self.vec.local[k].value if k is not None else None
        owner = int(self.vec.layout.part.owner(np.array([self.index]))[0])
        return self.vec.layout.comm.bcast(mine, root=owner)

    def new(self) -> Scalar:
        return Scalar.from_value(self.value, self.vec.dtype) if self.value is not None \
            else Scalar(self.vec.dtype)


class DistUpdater:
    """``out(mask, accum, replace)`` of a DistVector: the left-hand side of ``<<``."""

    def __init__(self, parent: DistVector, mask: Any = None, accum: Any = None,
                 replace: bool = False, desc: Any = None) -> None:
        from ..core.expr import _as_accum  # noqa: PLC0415 - gblas' own accum check

        self.parent, self.desc = parent, as_descriptor(desc)
        if self.desc is not None and (self.desc.transpose_first or self.desc.transpose_second):
            raise _not_distributed("a transposing descriptor")
        self.accum = _as_accum(accum)
        self.replace = bool(replace) or bool(self.desc is not None and self.desc.replace)
        if self.replace and mask is None:
            raise InvalidValue("replace=True needs a mask (it clears what the mask excludes)")
        self.local_mask = None
        if mask is not None:
            if not isinstance(mask, Mask):
                raise InvalidObject(f"a mask must be given as v.S or v.V, got "
                                    f"{type(mask).__name__}")
            mp = mask.parent
            if not isinstance(mp, DistVector) or mp.layout != parent.layout:
                raise DimensionMismatch(
                    f"the mask of a DistVector must be a DistVector of the same layout "
                    f"({parent.layout}, size {parent.size}), got {type(mp).__name__} "
                    f"on {mp.device}")
            # the block of the mask as given: the descriptor's mask flags travel with the
            # descriptor into the block's own operations, which apply them (once)
            self.local_mask = Mask(mp.local, structure=mask.structure,
                                   complement=mask.complement)

    def __lshift__(self, rhs: Any) -> None:
        self.update(rhs)

    def update(self, rhs: Any) -> None:
        parent = self.parent
        if isinstance(rhs, DistExpression):
            if rhs.ndim != 1:
                raise InvalidObject(f"{rhs.op} gives a Scalar but the output is a DistVector")
            _same_layout(parent, rhs, "output and expression")
            local = rhs._local(self.local_mask, self.desc)
        elif isinstance(rhs, DistVector):
            _same_layout(parent, rhs, "output and input")
            local = rhs.local
        elif _is_scalar_like(rhs) and not isinstance(rhs, (Vector, DistVector)):
            local = rhs
        else:
            raise InvalidObject(
                f"cannot assign a {type(rhs).__name__} to a DistVector; expected a "
                "distributed expression, a DistVector of the same layout or a scalar")
        parent.local(mask=self.local_mask, accum=self.accum, replace=self.replace,
                     desc=self.desc) << local
        parent._changed()

    def __getitem__(self, index: Any) -> Any:
        """``out(mask, accum, replace)[I]``: an assign to the index list I (a DistArray,
        or a list every process holds whole; gblas.distributed.indexing)."""
        from .indexing import AssignTarget, as_index  # noqa: PLC0415

        return AssignTarget(self, as_index(index, self.parent.size, self.parent.layout.comm))

    def __setitem__(self, index: Any, value: Any) -> None:
        self[index].update(value)


def _same_layout(a: Any, b: Any, what: str) -> None:
    if a.layout != b.layout:
        raise DimensionMismatch(f"{what} are partitioned differently ({a.layout}, size "
                                f"{a.layout.n} vs {b.layout}, size {b.layout.n})")


class DistVector(Writable):
    """A vector of ``layout.n`` elements, each process holding its block as ``.local``."""

    ndim = 1
    _updater = DistUpdater

    def __init__(self, dtype: Any = FP64, layout: Layout | None = None, *,
                 name: str | None = None) -> None:
        if not isinstance(layout, Layout):
            raise InvalidObject(f"a DistVector needs a Layout (A.device of a DistMatrix), "
                                f"got {type(layout).__name__}")
        self.layout = layout
        self._name = name or auto_name("dv")
        self.local = Vector(lookup_dtype(dtype), layout.n_local, device=layout.local_device)
        self._nvals: int | None = 0

    @classmethod
    def _wrap(cls, local: Vector, layout: Layout, name: str | None = None) -> DistVector:
        if local.size != layout.n_local:
            raise DimensionMismatch(f"process {layout.rank} owns {layout.n_local} elements, "
                                    f"its block has {local.size}")
        v = cls.__new__(cls)
        v.layout, v._name, v.local, v._nvals = layout, name or auto_name("dv"), local, None
        return v

    def _changed(self) -> None:
        self._nvals = None

    # ---------------------------------------------------------------- properties
    name = property(lambda self: self._name)
    device = property(lambda self: self.layout)
    size = property(lambda self: self.layout.n)
    shape = property(lambda self: (self.layout.n,))
    dtype = property(lambda self: self.local.dtype)
    format = property(lambda self: self.local.format)

    @property
    def nvals(self) -> int:
        """The global number of entries (one allreduce, then cached until a write)."""
        if self._nvals is None:
            self._nvals = int(self.layout.comm.allreduce(int(self.local.nvals)))
        return self._nvals

    def __len__(self) -> int:
        return self.size

    def __bool__(self) -> bool:
        raise InvalidValue("the truth value of a DistVector is ambiguous; use .nvals")

    # ---------------------------------------------------------------- elements
    def __getitem__(self, index: Any) -> Any:
        """``v[i]``: one element; ``v[I]``: the extract at the index list I (a DistArray,
        or a list every process holds whole), also the target of ``v[I] << u``."""
        from ..core.base import is_scalar_index, normalize_index  # noqa: PLC0415

        if is_scalar_index(index):
            return DistElement(self, normalize_index(index, self.size))
        from .indexing import DistIndexExpr, as_index  # noqa: PLC0415

        return DistIndexExpr(self, as_index(index, self.size, self.layout.comm))

    def __setitem__(self, index: Any, value: Any) -> None:
        self[index].update(value)

    def get(self, index: int, default: Any = None) -> Any:
        v = self[index].value
        return default if v is None else v

    # ---------------------------------------------------------------- whole object
    def dup(self, dtype: Any = None, *, name: str | None = None) -> DistVector:
        out = DistVector._wrap(self.local.dup(dtype), self.layout, name)
        out._nvals = self._nvals
        return out

    def clear(self) -> None:
        self.local.clear()
        self._nvals = 0

    def gather(self) -> Vector:
        """The whole vector as a gblas.Vector on every process (an allgather)."""
        from .exchange import gather_full  # noqa: PLC0415

        return gather_full(self.local, self.layout)

    def to_coo(self, dtype: Any = None, *, indices: bool = True, values: bool = True,
               device: Any = "cpu") -> tuple[Any, Any]:
        """(global indices, values) of every entry in index order: arrays on every process
        (gathered), or with ``device=<a Layout>`` (``v.device``) DistArrays of length
        nvals that stay split over the processes, usable as index lists (FastSV's
        ``f[parents]``)."""
        if isinstance(device, Layout):
            from .indexing import coo_arrays  # noqa: PLC0415

            return coo_arrays(self, dtype, indices, values, device)
        return self.gather().to_coo(dtype, indices=indices, values=values, device=device)

    def to_dense(self, fill_value: Any = None, dtype: Any = None) -> np.ndarray:
        return self.gather().to_dense(fill_value, dtype)

    def isequal(self, other: Any, *, check_dtype: bool = False) -> bool:
        if not isinstance(other, DistVector) or other.layout != self.layout:
            return False
        same = self.local.isequal(other.local, check_dtype=check_dtype)
        return bool(self.layout.comm.allreduce(bool(same), "land"))

    def isclose(self, other: Any, *, rel_tol: float = 1e-7, abs_tol: float = 0.0,
                check_dtype: bool = False) -> bool:
        if not isinstance(other, DistVector) or other.layout != self.layout:
            return False
        same = self.local.isclose(other.local, rel_tol=rel_tol, abs_tol=abs_tol,
                                  check_dtype=check_dtype)
        return bool(self.layout.comm.allreduce(bool(same), "land"))

    # ---------------------------------------------------------------- operations
    def _local_expr(self, op: str, dtype: DataType, fn: LocalFn) -> DistExpression:
        return DistExpression(op, 1, self.layout, dtype, fn)

    def vxm(self, other: Any, op: Any = None) -> DistExpression:
        """u ⊕.⊗ A (default plus_times)."""
        from .matrix import vxm_expr  # noqa: PLC0415

        return vxm_expr(self, other, op)

    def ewise_add(self, other: DistVector, op: Any = None) -> DistExpression:
        return self._ewise("ewise_add", other, op)

    def ewise_mult(self, other: DistVector, op: Any = None) -> DistExpression:
        return self._ewise("ewise_mult", other, op)

    def _ewise(self, name: str, other: Any, op: Any) -> DistExpression:
        if not isinstance(other, DistVector):
            raise InvalidObject(f"{name} of a DistVector needs a DistVector, got "
                                f"{type(other).__name__}")
        _same_layout(self, other, f"the operands of {name}")
        probe = getattr(self.local, name)(other.local, op)  # gblas checks op and types
        return self._local_expr(name, probe.dtype, lambda m, d: getattr(self.local, name)(
            other.local, op))

    def apply(self, op: Any, right: Any = None, *, left: Any = None) -> DistExpression:
        if isinstance(op, IndexUnaryOp) and op.name in _INDEX_SHIFT and left is None:
            # rowindex / colindex / diagindex: i + t, j + t, j − (i + t) with j = 0: each part
            # applies them to its local positions, i + t kept global by adding its first
            # global position to the thunk
            t = right.value if hasattr(right, "value") else right
            try:
                t = 0 if t is None else int(t)
            except (TypeError, ValueError):
                raise InvalidValue(f"the thunk of {op!r} must be an integer, got {right!r}") \
                    from None
            right = t + _INDEX_SHIFT[op.name] * self.layout.lo
        elif isinstance(op, IndexUnaryOp) or getattr(op, "positional", None):
            raise _not_distributed(f"the positional operator {op!r}")
        probe = self.local.apply(op, right, left=left)
        return self._local_expr("apply", probe.dtype,
                                lambda m, d: self.local.apply(op, right, left=left))

    def select(self, op: Any, thunk: Any = None) -> DistExpression:
        name = op if isinstance(op, str) else getattr(op, "name", "")
        if name not in ("==", "!=", "<", "<=", ">", ">=", "valueeq", "valuene", "valuelt",
                        "valuele", "valuegt", "valuege"):
            raise _not_distributed(f"select with {op!r} (only value comparisons are)")
        probe = self.local.select(op, thunk)
        return self._local_expr("select", probe.dtype,
                                lambda m, d: self.local.select(op, thunk))

    def reduce(self, op: Any = None, *, allow_empty: bool = True) -> DistExpression:
        """⊕ of all values (default plus): local reductions folded over processes."""
        from ..ops.validate import as_monoid  # noqa: PLC0415

        m = as_monoid(op, "reduce", monoid.plus)
        probe = self.local.reduce(op, allow_empty=True)

        def run(mask: Any, desc: Any) -> Scalar:
            part = self.local.reduce(op, allow_empty=True).new(desc=desc).value
            out = fold_scalars(self.layout.comm.allgather(part), m, probe.dtype, "cpu")
            if out.value is None and not allow_empty:
                from ..exceptions import EmptyObject  # noqa: PLC0415

                raise EmptyObject(f"reduce of the empty vector {self.name}")
            return out

        return DistExpression("reduce", 0, self.layout, probe.dtype, run)

    def inner(self, other: DistVector, op: Any = None) -> DistExpression:
        """⊕_i u_i ⊗ v_i over all processes (default plus_times)."""
        if not isinstance(other, DistVector):
            raise InvalidObject(f"inner of a DistVector needs a DistVector, got "
                                f"{type(other).__name__}")
        _same_layout(self, other, "the operands of inner")
        sr = semiring_ns.plus_times if op is None else op
        probe = self.local.inner(other.local, sr)

        def run(mask: Any, desc: Any) -> Scalar:
            part = self.local.inner(other.local, sr).new(desc=desc).value
            return fold_scalars(self.layout.comm.allgather(part), sr.monoid, probe.dtype,
                                "cpu")

        return DistExpression("inner", 0, self.layout, probe.dtype, run)

    def __repr__(self) -> str:
        return (f'gblas.distributed.DistVector("{self.name}" size={self.size} '
                f"dtype={self.dtype} layout={self.layout}, local nvals={self.local.nvals})")
