"""assign (GrB_assign): ``C(mask, accum, replace)[I] << u`` / ``[I, J] << A`` / ``<< s``.

T is C with the region I (× J) replaced by the operand (accumulated into C's region when
``accum`` is given); the write-back then applies the mask over the whole of C. Duplicate
indices: the last one wins.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._device import move_array, same_device
from ..backend import keys as E
from ..core.base import index_array, is_scalar_index, normalize_index
from ..core.expr import Expression
from ..core.mask import Mask
from ..exceptions import DimensionMismatch, InvalidObject, InvalidValue
from ..formats.csr.convert import csr_from_keys, csr_keys
from ..formats.vector import SPARSE, VecData
from ..semirings.model import BinaryOp
from .plan import record
from .writeback import (
    fill_under_mask,
    vector_mask_bits,
    vector_mask_keys,
    writeback_matrix,
    writeback_vector,
)


class AssignTarget:
    """``out(mask, accum, replace)[index]``: the left side of an assign."""

    def __init__(self, parent: Any, index: Any, mask: Mask | None, accum: BinaryOp | None,
                 replace: bool, desc: Any) -> None:
        self.parent, self.index = parent, index
        self.mask, self.accum, self.replace, self.desc = mask, accum, replace, desc

    def __lshift__(self, value: Any) -> None:
        self.update(value)

    def update(self, value: Any) -> None:
        assign_expr(self.parent, self.index, value, self.mask, self.accum, self.replace,
                    self.desc)


def _operand(value: Any) -> tuple[str, Any]:
    """('scalar', python value) or ('vector'|'matrix', object)."""
    from ..core.scalar import Scalar  # noqa: PLC0415

    if isinstance(value, Expression):
        value = value.new()
    if isinstance(value, Scalar):
        if value.is_empty:
            raise InvalidValue("cannot assign an empty Scalar")
        return "scalar", value.value
    if getattr(value, "ndim", None) == 1:
        return "vector", value
    if getattr(value, "ndim", None) == 2:
        return "matrix", value
    if isinstance(value, (bool, int, float, np.generic)):
        return "scalar", value
    raise InvalidObject(f"cannot assign a {type(value).__name__}; expected a scalar, Vector "
                        "or Matrix")


def _last_wins(keys: Any, vals: Any) -> tuple[Any, Any]:
    xp = E.xp_of(keys)
    order = xp.argsort(keys, kind="stable")
    keys, vals = keys[order], vals[order]
    if keys.shape[0] > 1:
        last = xp.ones(keys.shape[0], dtype=bool)
        last[:-1] = keys[1:] != keys[:-1]
        keys, vals = keys[last], vals[last]
    return keys, vals


def _vector_index(parent: Any, index: Any) -> Any:
    if index is None:
        return None
    if is_scalar_index(index):
        return np.asarray([normalize_index(index, parent.size)], dtype=np.int64)
    if isinstance(index, np.ndarray) and index.dtype == np.int64:
        return index
    return index_array(index, parent.size)


def _matrix_index(parent: Any, index: Any) -> tuple[Any, Any, str]:
    if index is None:
        return (np.arange(parent.nrows, dtype=np.int64),
                np.arange(parent.ncols, dtype=np.int64), "sub")
    if not isinstance(index, tuple) or len(index) != 2:
        raise InvalidValue("matrix assign needs two indices: A[i, j], A[I, J], A[i, J]")
    ri, ci = index
    kind = "sub"
    if is_scalar_index(ri) and is_scalar_index(ci):
        kind = "elem"
    elif is_scalar_index(ri):
        kind = "row"
    elif is_scalar_index(ci):
        kind = "col"
    I = (np.asarray([normalize_index(ri, parent.nrows, "row")]) if is_scalar_index(ri)  # noqa: N806
         else index_array(ri, parent.nrows, "row")).astype(np.int64)
    J = (np.asarray([normalize_index(ci, parent.ncols, "column")]) if is_scalar_index(ci)  # noqa: N806
         else index_array(ci, parent.ncols, "column")).astype(np.int64)
    return I, J, kind


def assign_expr(parent: Any, index: Any, value: Any, mask: Mask | None,
                accum: BinaryOp | None, replace: bool, desc: Any) -> None:
    kind, operand = _operand(value)
    if kind != "scalar":
        same_device(parent, operand, what="output and assigned operand")
    if parent.ndim == 1:
        _assign_vector(parent, _vector_index(parent, index), kind, operand, mask, accum,
                       replace)
    elif index is None and kind == "scalar" and mask is not None and not mask.complement:
        _assign_matrix_masked_scalar(parent, operand, mask, accum, replace)
    else:
        I, J, region = _matrix_index(parent, index)  # noqa: N806
        _assign_matrix(parent, I, J, region, kind, operand, mask, accum, replace)
    record(desc, "assign", f"assign_{kind}")


def _region_update(ck: Any, cv: Any, in_region: Any, nk: Any, nv: Any,
                   accum: BinaryOp | None, out: Any, ncols: int | None) -> tuple[Any, Any]:
    """T: C outside the region, the new entries (accumulated into C's) inside it."""
    if accum is not None:
        nk, nv = E.union(ck[in_region], cv[in_region], nk, nv, accum, out, ncols)
    return E.merge_disjoint(ck[~in_region], cv[~in_region].astype(out.np_type, copy=False),
                            nk, nv.astype(out.np_type, copy=False))


def _assign_vector(v: Any, I: Any, kind: str, operand: Any, mask: Mask | None,  # noqa: N803
                   accum: BinaryOp | None, replace: bool) -> None:
    xp = E.xp_of(v._data.values)
    out = v.dtype
    data: VecData = v._data
    if kind == "matrix":
        raise DimensionMismatch("cannot assign a Matrix into a Vector")
    if I is None and kind == "scalar" and mask is not None and not mask.complement:
        if accum is None and not replace and mask.parent._data.kind != SPARSE:
            v._data = fill_under_mask(data, vector_mask_bits(mask), out.cast(operand))
            return
        # every masked-in position gets the scalar: build T on the mask's keys only
        keys = vector_mask_keys(mask)
        vals = xp.full(keys.shape[0], operand, dtype=out.np_type)
        T = VecData.sparse(v.size, out, keys, vals)  # noqa: N806
        v._data = writeback_vector(data, T, mask, accum, replace, mask_applied=True)
        return
    if I is None:
        I = np.arange(v.size, dtype=np.int64)  # noqa: N806
    Id = move_array(I, v.device)  # noqa: N806
    if kind == "scalar":
        nk = E.sorted_unique(Id)
        nv = xp.full(nk.shape[0], out.cast(operand), dtype=out.np_type)
    else:
        if operand.size != I.shape[0]:
            raise DimensionMismatch(
                f"assign: {I.shape[0]} indices but the vector operand has size {operand.size}"
            )
        uk, uv = operand._data.as_sparse()
        nk, nv = _last_wins(Id[uk], uv)
    region = E.sorted_unique(Id)
    ck, cv = data.as_sparse()
    in_region = E.match_sorted(region, ck)[0]
    tk, tv = _region_update(ck, cv, in_region, nk, nv, accum, out, None)
    T = VecData.sparse(v.size, out, tk, tv)  # noqa: N806
    v._data = writeback_vector(data, T, mask, None, replace)


def _assign_matrix_masked_scalar(A: Any, value: Any, mask: Mask,  # noqa: N803
                                 accum: BinaryOp | None, replace: bool) -> None:
    """``A(M) << s``: T holds s on the mask's entries only (not on all of A)."""
    from .mxm import mask_pattern  # noqa: PLC0415

    pattern = mask_pattern(mask)
    keys = csr_keys(pattern)
    vals = pattern.xp.full(keys.shape[0], A.dtype.cast(value), dtype=A.dtype.np_type)
    T = csr_from_keys(A.nrows, A.ncols, keys, vals, A.dtype)  # noqa: N806
    A._set(writeback_matrix(A._csr(), T, mask, accum, replace, mask_applied=True))


def _assign_matrix(A: Any, I: Any, J: Any, region: str, kind: str,  # noqa: N803
                   operand: Any, mask: Mask | None, accum: BinaryOp | None,
                   replace: bool) -> None:
    csr = A._csr()
    xp = csr.xp
    out = A.dtype
    nc = np.int64(max(A.ncols, 1))
    Id, Jd = move_array(I, A.device), move_array(J, A.device)  # noqa: N806
    if kind == "scalar":
        if Id.shape[0] * Jd.shape[0] > 0:
            rr = xp.repeat(E.sorted_unique(Id), E.sorted_unique(Jd).shape[0])
            cc = xp.tile(E.sorted_unique(Jd), E.sorted_unique(Id).shape[0])
            nk = rr * nc + cc
        else:
            nk = xp.empty(0, dtype=np.int64)
        nv = xp.full(nk.shape[0], out.cast(operand), dtype=out.np_type)
    elif operand.ndim == 1:
        if region not in ("row", "col"):
            raise DimensionMismatch(
                "assign a Vector into a matrix row A[i, J] or column A[I, j]"
            )
        along = Jd if region == "row" else Id
        if operand.size != along.shape[0]:
            raise DimensionMismatch(
                f"assign: {along.shape[0]} indices but the vector operand has size "
                f"{operand.size}"
            )
        uk, uv = operand._data.as_sparse()
        keys = Id[0] * nc + Jd[uk] if region == "row" else Id[uk] * nc + Jd[0]
        nk, nv = _last_wins(keys, uv)
    else:
        if operand.shape != (I.shape[0], J.shape[0]):
            raise DimensionMismatch(
                f"assign: region is {I.shape[0]}x{J.shape[0]} but the matrix operand is "
                f"{operand.shape[0]}x{operand.shape[1]}"
            )
        oc = operand._csr()
        keys = Id[oc.row_ids()] * nc + Jd[oc.indices]
        nk, nv = _last_wins(keys, oc.full_values())
    in_i = xp.zeros(A.nrows, dtype=bool)
    in_j = xp.zeros(A.ncols, dtype=bool)
    in_i[Id] = True
    in_j[Jd] = True
    ck, cv = csr_keys(csr), csr.full_values()
    in_region = in_i[csr.row_ids()] & in_j[csr.indices]
    tk, tv = _region_update(ck, cv, in_region, nk, nv, accum, out, A.ncols)
    T = csr_from_keys(A.nrows, A.ncols, tk, tv, out)  # noqa: N806
    A._set(writeback_matrix(csr, T, mask, None, replace))


def delete_element(obj: Any, pos: tuple[int, ...]) -> None:
    """``del v[i]`` / ``del A[i, j]`` (no-op when absent)."""
    if obj.ndim == 1:
        data: VecData = obj._data
        if data.kind != SPARSE:
            bits, vals = data.as_bitmap()
            bits = bits.copy()
            bits[pos[0]] = False
            obj._data = VecData.bitmap(data.size, data.dtype, bits, vals).normalized()
            return
        keep = data.indices != pos[0]
        obj._data = VecData.sparse(data.size, data.dtype, data.indices[keep],
                                   data.values[keep])
        return
    csr = obj._csr()
    keys = csr_keys(csr)
    keep = keys != pos[0] * max(obj.ncols, 1) + pos[1]
    obj._set(csr_from_keys(obj.nrows, obj.ncols, keys[keep], csr.full_values()[keep],
                             obj.dtype))
