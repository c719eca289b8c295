"""Vector: a sparse vector stored ``sparse``, ``bitmap`` or ``full`` on a device."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._device import device_index, get_array_module, move_array, normalize_device
from ..dtypes import FP64, DataType, lookup_dtype
from ..exceptions import DimensionMismatch, InvalidValue, NoValue
from ..formats.vector import FULL, VecData
from ..semirings.model import BinaryOp, IndexUnaryOp, Monoid, Semiring, UnaryOp
from ._lazy import ops
from .base import (
    Collection,
    ElementwiseMethods,
    auto_name,
    index_array,
    is_scalar_index,
    normalize_index,
)
from .expr import Expression, Result
from .infix import InfixMethods
from .op_args import apply_op, ewise_op, reduce_op


def _writeback() -> Any:
    """ops.writeback.writeback_vector (imported on first use: the objects layer reaches the
    operations lazily)."""
    global _WRITEBACK
    if _WRITEBACK is None:
        _WRITEBACK = ops.writeback.writeback_vector
    return _WRITEBACK


_WRITEBACK: Any = None


class Vector(InfixMethods, ElementwiseMethods, Collection):
    """A GraphBLAS vector of ``size`` elements of ``dtype`` living on ``device``."""

    ndim = 1

    def __new__(cls, dtype: Any = FP64, size: int = 0, *, name: str | None = None,
                device: Any = None) -> Any:
        # a distributed placement (gblas.distributed's Layout, the device of a DistMatrix)
        # makes its own vector: algorithms that write Vector(t, n, device=A.device) then run
        # unchanged on a distributed matrix
        if getattr(device, "distributed", False):
            return device.new_vector(dtype, size, name=name)
        return super().__new__(cls)

    def __init__(self, dtype: Any = FP64, size: int = 0, *, name: str | None = None,
                 device: str | None = None) -> None:
        if int(size) < 0:
            raise InvalidValue(f"size must be >= 0, got {size}")
        self.device = normalize_device(device)
        self._name = name or auto_name("v")
        dt = lookup_dtype(dtype)
        self._data = VecData.empty(int(size), dt, get_array_module(self.device))

    # ------------------------------------------------------------------ construction
    @classmethod
    def _from_data(cls, data: VecData, device: str, name: str | None = None) -> Vector:
        v = cls.__new__(cls)
        v.device = device
        v._name = name or auto_name("v")
        v._data = data
        return v

    @classmethod
    def from_coo(cls, indices: Any, values: Any = 1.0, dtype: Any = None, *,
                 size: int | None = None, dup_op: BinaryOp | Monoid | None = None,
                 name: str | None = None, device: str | None = None) -> Vector:
        """Build from indices and values (a scalar value makes an iso vector)."""
        dev = normalize_device(device)
        data = ops.build.build_vector_data(indices, values, dtype, size, dup_op)
        return cls._from_data(data.to(dev) if dev != "cpu" else data, dev, name)

    @classmethod
    def from_dense(cls, values: Any, missing_value: Any = None, *, dtype: Any = None,
                   name: str | None = None, device: str | None = None) -> Vector:
        """Every element present, except those equal to ``missing_value``."""
        if getattr(device, "distributed", False):  # a Layout: see __new__
            return device.vector_from_dense(values, missing_value, dtype=dtype, name=name)
        dev = normalize_device(device)
        on_gpu = type(values).__module__.startswith("cupy")
        if on_gpu and dev != "cpu":  # a CuPy array for a GPU vector: copied there, no detour
            xp = get_array_module(dev)
            dt = lookup_dtype(dtype if dtype is not None else values.dtype)
            with xp.cuda.Device(device_index(dev)):
                # one pass onto this device: the copy (the caller keeps its array) casts
                arr = xp.array(values, dtype=dt.np_type, copy=True)
        else:
            xp, arr = np, np.asarray(values.get() if on_gpu else values)
            dt = lookup_dtype(dtype if dtype is not None else arr.dtype)
            arr = arr.astype(dt.np_type, copy=True)  # a copy: the caller keeps its array
        if arr.ndim != 1:
            raise DimensionMismatch(f"from_dense needs a 1-D array, got shape {arr.shape}")
        if missing_value is None:
            data = VecData.full(arr.shape[0], dt, arr)
        else:
            bits = arr != missing_value
            data = VecData.bitmap(arr.shape[0], dt, bits, arr)
            data = data.normalized() if xp is np else data
        if dev != "cpu" and xp is np:
            data = data.to(dev)
        return cls._from_data(data, dev, name)

    @classmethod
    def from_scalar(cls, value: Any, size: int, dtype: Any = None, *, name: str | None = None,
                    device: str | None = None) -> Vector:
        """Every element present and equal to ``value``."""
        from ..dtypes import dtype_of_value  # noqa: PLC0415

        dt = lookup_dtype(dtype) if dtype is not None else dtype_of_value(value)
        if int(size) < 0:
            raise InvalidValue(f"size must be >= 0, got {size}")
        if getattr(device, "distributed", False) or normalize_device(device) == "cpu":
            return cls.from_dense(np.full(int(size), value, dtype=dt.np_type), name=name,
                                  device=device)
        dev = normalize_device(device)
        # filled on the device (no host array of size n to upload)
        fill = np.full(1, value, dtype=dt.np_type)[0]
        xp = get_array_module(dev)
        with xp.cuda.Device(device_index(dev)):
            vals = xp.full(int(size), fill, dtype=dt.np_type)
        return cls._from_data(VecData.full(int(size), dt, vals), dev, name)

    @classmethod
    def from_dict(cls, d: Any, dtype: Any = None, *, size: int | None = None,
                  name: str | None = None, device: str | None = None) -> Vector:
        """From ``{index: value}``."""
        return cls.from_coo(np.fromiter(d.keys(), dtype=np.int64, count=len(d)),
                            list(d.values()), dtype, size=size, name=name, device=device)

    def to_dict(self) -> dict[int, Any]:
        """``{index: value}`` of the entries."""
        idx, vals = self.to_coo()
        return dict(zip(idx.tolist(), vals.tolist()))

    def build(self, indices: Any, values: Any, *, dup_op: Any = None,
              clear: bool = False) -> None:
        """Insert entries (the vector must be empty unless ``clear``)."""
        from ..exceptions import OutputNotEmpty  # noqa: PLC0415
        if self.nvals and not clear:
            raise OutputNotEmpty(f"{self.name} has {self.nvals} values; pass clear=True")
        data = ops.build.build_vector_data(indices, values, self.dtype, self.size, dup_op)
        self._data = data.to(self.device) if self.device != "cpu" else data

    # ------------------------------------------------------------------ properties
    @property
    def size(self) -> int:
        return self._data.size

    @property
    def shape(self) -> tuple[int]:
        return (self._data.size,)

    @property
    def nvals(self) -> int:
        return self._data.nvals

    @property
    def dtype(self) -> DataType:
        return self._data.dtype

    @property
    def format(self) -> str:
        """Storage: ``sparse``, ``bitmap`` or ``full``."""
        return self._data.kind

    def to_format(self, kind: str) -> Vector:
        """Store as ``sparse``, ``bitmap`` or ``full`` (in place; returns self)."""
        if kind not in ("sparse", "bitmap", "full"):
            raise InvalidValue(f"vector storage must be sparse, bitmap or full, got {kind!r}")
        self._data = self._data.to_kind(kind)
        return self

    def __len__(self) -> int:
        return self.size

    # ------------------------------------------------------------------ export
    def to_coo(self, dtype: Any = None, *, indices: bool = True, values: bool = True,
               sort: bool = True, device: str = "cpu") -> tuple[Any, Any]:
        """(indices, values) sorted by index: NumPy arrays, or with ``device`` (gblas)
        arrays on that device, e.g. ``device=v.device``: a GPU vector's arrays then stay
        on the GPU (no copy to the host; usable as an index list: ``w << u[values]``)."""
        dev = normalize_device(device)
        data = self._data
        if data.kind == FULL and not indices:
            idx, vals = None, data.values  # no index list to build
        else:
            idx, vals = data.as_sparse()
        idx, vals = move_array(idx, dev), move_array(vals, dev)
        if dtype is not None:
            vals = vals.astype(lookup_dtype(dtype).np_type)
        return (idx.copy() if indices else None, vals.copy() if values else None)

    def to_dense(self, fill_value: Any = None, dtype: Any = None) -> np.ndarray:
        """A NumPy array; missing elements get ``fill_value`` (required if any are missing)."""
        dt = lookup_dtype(dtype) if dtype is not None else self.dtype
        bits, vals = self._data.as_bitmap()
        bits, vals = move_array(bits, "cpu"), move_array(vals, "cpu")
        if fill_value is None and not bits.all():
            raise NoValue(
                f"{self.name} has {self.size - self.nvals} missing values; pass fill_value"
            )
        out = vals.astype(dt.np_type, copy=True)
        if fill_value is not None:
            out[~bits] = fill_value
        return out

    # ------------------------------------------------------------------ elements
    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, tuple) and len(index) == 1:
            index = index[0]
        if is_scalar_index(index):
            return ops.extract.ScalarIndexExpr(self, (normalize_index(index, self.size),))
        return ops.extract.vector_extract(self, index_array(index, self.size))

    def __setitem__(self, index: Any, value: Any) -> None:
        self()[index].update(value)

    def __delitem__(self, index: Any) -> None:
        if not is_scalar_index(index):
            raise InvalidValue("del v[i] takes one integer index")
        ops.assign.delete_element(self, (normalize_index(index, self.size),))

    def __contains__(self, index: Any) -> bool:
        i = normalize_index(index, self.size)
        return bool(self._data.present_bits()[i])

    def __iter__(self):
        return iter(self.to_coo(values=False)[0].tolist())

    def get(self, index: int, default: Any = None) -> Any:
        v = self[index].value
        return default if v is None else v

    # ------------------------------------------------------------------ whole-object
    def dup(self, dtype: Any = None, *, clear: bool = False, mask: Any = None,
            name: str | None = None) -> Vector:
        """A copy (cast to ``dtype``); ``clear=True``: empty, same size; ``mask``: only the
        entries the mask allows."""
        if clear or mask is not None:
            out = Vector(self.dtype if dtype is None else dtype, self.size, name=name,
                         device=self.device)
            if not clear:
                out(mask) << self
            return out
        data = self._data
        data = VecData(data.size, data.dtype, data.kind, data.values.copy(),
                       None if data.indices is None else data.indices.copy(),
                       None if data.bits is None else data.bits.copy(), data._nvals)
        if dtype is not None:
            data = data.astype(lookup_dtype(dtype))
        return Vector._from_data(data, self.device, name)

    def clear(self) -> None:
        self._data = VecData.empty(self.size, self.dtype, get_array_module(self.device))

    def resize(self, size: int) -> None:
        """Grow or shrink; entries past the new size are dropped."""
        if int(size) < 0:
            raise InvalidValue(f"size must be >= 0, got {size}")
        idx, vals = self._data.as_sparse()
        keep = idx < size
        self._data = VecData.sparse(int(size), self.dtype, idx[keep], vals[keep]).normalized()

    def to(self, device: str) -> Vector:
        """A copy on ``device`` ("cpu", "cuda", "cuda:N"); self if already there."""
        dev = normalize_device(device)
        if dev == self.device:
            return self
        return Vector._from_data(self._data.to(dev), dev, self.name)

    def isequal(self, other: Vector, *, check_dtype: bool = False) -> bool:
        """Same size, same structure and equal values (and dtype if ``check_dtype``)."""
        return ops.compare.isequal(self, other, check_dtype=check_dtype)

    def isclose(self, other: Vector, *, rel_tol: float = 1e-7, abs_tol: float = 0.0,
                check_dtype: bool = False) -> bool:
        return ops.compare.isequal(self, other, check_dtype=check_dtype, rel_tol=rel_tol,
                                   abs_tol=abs_tol)

    def _write(self, res: Result, mask: Any, accum: Any, replace: bool) -> None:
        if res.accum_applied:  # the kernel wrote C(mask, accum) << T into C's data
            self._data = res.data
            return
        self._data = ops.writeback.writeback_vector(self._data, res.data, mask, accum,
                                                    replace, res.mask_applied)

    # ------------------------------------------------------------------ operations
    def vxm(self, other: Any, op: Semiring | None = None) -> Expression:
        """u ⊕.⊗ A (default plus_times)."""
        return ops.mxv.vxm_expr(self, other, op)

    def __matmul__(self, other: Any) -> Expression:
        if isinstance(other, Vector):
            e = ops.mxv.inner_expr(self, other, None)
            e._matmul = ("inner", self, other)  # semiring.min_plus(u @ v) reruns it
        else:
            e = ops.mxv.vxm_expr(self, other, None)
            e._matmul = ("vxm", self, other)
        return e

    def outer(self, other: Vector, op: Any = None) -> Expression:
        """The matrix op(self_i, other_j) over the pairs of entries (default times)."""
        return ops.compose.outer_expr(self, other, ewise_op(op, "outer"))

    def diag(self, k: int = 0) -> Any:
        """The square Matrix with this vector on its k-th diagonal."""
        return ops.compose.vector_diag(self, k)

    def wait(self) -> Vector:
        """Wait for the work queued on the vector's device (see Matrix.wait)."""
        from .._device import synchronize  # noqa: PLC0415

        synchronize(self.device)
        return self

    def inner(self, other: Vector, op: Semiring | None = None) -> Expression:
        """The scalar ⊕_i u_i ⊗ v_i."""
        return ops.mxv.inner_expr(self, other, op)

    def apply(self, op: UnaryOp | BinaryOp | IndexUnaryOp | Monoid, right: Any = None, *,
              left: Any = None) -> Expression:
        """f(x), f(x, right), f(left, x) or an index-unary f(x, i, 0, thunk=right)."""
        return ops.apply.apply_expr(self, apply_op(op, left, right), left=left, right=right)

    def select(self, op: IndexUnaryOp | str, thunk: Any = None) -> Expression:
        """Keep the entries where op(x, i, 0, thunk) holds (``"tril"``, ``">"``, ...)."""
        return ops.select.select_expr(self, op, thunk)

    def reduce(self, op: Monoid | BinaryOp | None = None, *, allow_empty: bool = True
               ) -> Expression:
        """⊕ of all values (default plus) as a Scalar expression."""
        op = reduce_op(op, "reduce")
        if hasattr(op, "_reduce"):
            return op._reduce(self, "vector")
        return ops.reduce.reduce_vector_expr(self, op, allow_empty)

    # ------------------------------------------------------------------ display
    def __repr__(self) -> str:
        head = (f'"{self.name}" nvals={self.nvals} size={self.size} dtype={self.dtype} '
                f"format={self.format} device={self.device}")
        if self.size <= 16 or self.nvals <= 16:
            idx, vals = self.to_coo()
            shown = ", ".join(f"{i}: {v}" for i, v in zip(idx[:16].tolist(),
                                                           vals[:16].tolist()))
            more = ", ..." if self.nvals > 16 else ""
            return f"gblas.Vector({head})\n  {{{shown}{more}}}"
        return f"gblas.Vector({head})"
