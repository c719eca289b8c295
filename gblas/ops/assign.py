"""assign (GrB_assign): ``C(mask, accum, replace)[I] << u`` / ``[I, J] << A`` / ``<< s``.

T is C with the region I (× J) replaced by the operand (accumulated into C's region when
``accum`` is given); the write-back then applies the mask over the whole of C. Duplicate
indices (SuiteSparse's semantics, which LAGraph's FastSV relies on): without ``accum`` the
last occurrence wins; with ``accum`` every occurrence is folded in turn into the target,
``z = accum(z, u(p))``. Vector assigns on dense storage or on a GPU scatter into C's bitmap
(:mod:`gblas.backend.scatter`); an index list may be a device array for a GPU vector (it
stays there; it is not bounds-checked, which would need a read).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._device import move_array, same_device
from ..backend import dense
from ..backend import keys as E
from ..backend.dense import DenseT, DeviceScalar
from ..backend.scatter import scatter
from ..core.base import index_array, is_scalar_index, normalize_index
from ..core.expr import Expression
from ..core.mask import Mask
from ..core.scalar import Scalar
from ..exceptions import DimensionMismatch, InvalidObject, InvalidValue
from ..formats.csr.convert import csr_from_keys, csr_keys
from ..formats.vector import SPARSE, VecData
from ..semirings.model import BinaryOp
from .plan import record
from .writeback import (
    dense_operand,
    fill_at_keys,
    fill_under_mask,
    mask_view,
    scattered,
    vector_mask_bits,
    vector_mask_keys,
    writeback_fused,
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


def _operand(value: Any, device: str = "cpu") -> tuple[str, Any]:
    """('scalar', python value or DeviceScalar) or ('vector'|'matrix', object). A Scalar
    still on the GPU stays there when the output is on a GPU (the kernel reads it; an empty
    one assigns no entries)."""
    if isinstance(value, Expression):
        value = value.new()
    if isinstance(value, Scalar):
        if value._device_value() is not None and device != "cpu":
            return "scalar", value._device_value()
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
    """None for the whole vector (``[:]``, ``[...]``), else int64 positions."""
    if index is None or index is Ellipsis or (
            isinstance(index, slice) and index == slice(None)):
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
    kind, operand = _operand(value, parent.device)
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
    out = v.dtype
    data: VecData = v._data
    if kind == "matrix":
        raise DimensionMismatch("cannot assign a Matrix into a Vector")
    if kind == "vector" and operand.size != (v.size if I is None else I.shape[0]):
        raise DimensionMismatch(
            f"assign: {v.size if I is None else I.shape[0]} indices but the vector operand "
            f"has size {operand.size}"
        )
    if I is None:
        v._data = _assign_all(data, kind, operand, mask, accum, replace)
        return
    Id = move_array(I, v.device)  # noqa: N806
    if kind == "scalar" and isinstance(operand, DeviceScalar):
        u: tuple[Any, Any] = (data.xp.broadcast_to(operand.present, Id.shape).copy(),
                              data.xp.broadcast_to(operand.value, Id.shape).copy())
        u_dtype = operand.dtype
    elif kind == "scalar":
        u, u_dtype = (None, data.xp.full(Id.shape[0], out.cast(operand), dtype=out.np_type)), out
    else:
        u, u_dtype = dense_operand(operand._data), operand.dtype
    region = None
    if not data.on_device and data.kind == SPARSE:
        region = E.sorted_unique(Id)
        if accum is None or region.shape[0] == Id.shape[0]:
            # few entries and no duplicate to fold: merge sorted lists, O(nnz)
            T = _region_sorted(data, Id, region, u, accum, out)  # noqa: N806
            v._data = writeback_vector(data, T, mask, None, replace)
            return
    # T = C with the region scattered in: C's own arrays when nothing else needs them
    # (and the operand is not C itself: the scatter would read what it already wrote)
    inplace = mask is None and data.exclusive and (
        kind == "scalar" or operand._data.values is not data.values)
    T = scattered(data, Id, u, accum, u_dtype, inplace)  # noqa: N806
    v._data = writeback_vector(data, T, mask, None, replace)


def _assign_all(data: VecData, kind: str, operand: Any, mask: Mask | None,
                accum: BinaryOp | None, replace: bool) -> VecData:
    """``w(mask, accum, replace)[:] << u`` / ``<< s``: the standard write-back of u, or of
    the scalar everywhere (one fused pass)."""
    out = data.dtype
    if kind == "vector":
        src: VecData = operand._data
        src.exclusive = False  # the result may share these arrays
        return writeback_vector(data, src, mask, accum, replace)
    if not data.on_device and mask is not None and mask.complement and accum is None \
            and data.kind == SPARSE and data.nvals == 0 and not isinstance(operand, DeviceScalar):
        # into an empty C (replace or not): the scalar where the mask allows, in two passes
        # (``rest(~done.S) << True``: the general write-back made seven over all positions)
        bits = dense.mask_allows(mask_view(mask), data.size, np)  # a new array: ~mask
        vals = np.full(data.size, out.cast(operand), dtype=out.np_type)
        return VecData.bitmap(data.size, out, bits, vals).normalized()
    if not data.on_device and mask is not None and not mask.complement \
            and not isinstance(operand, DeviceScalar):
        if accum is None and not replace and mask.parent._data.kind != SPARSE:
            return fill_under_mask(data, vector_mask_bits(mask), out.cast(operand))
        if mask.parent._data.kind == SPARSE:
            # every masked-in position gets the scalar: T on the mask's keys only
            keys = vector_mask_keys(mask)
            if accum is None and not replace:  # O(nnz(mask)) in place, or one merge
                return fill_at_keys(data, keys, out.cast(operand))
            vals = data.xp.full(keys.shape[0], operand, dtype=out.np_type)
            T = VecData.sparse(data.size, out, keys, vals)  # noqa: N806
            return writeback_vector(data, T, mask, accum, replace, mask_applied=True)
    s = operand if isinstance(operand, DeviceScalar) else out.cast(operand)
    return writeback_fused(data, DenseT(data.size, out, "scalar", scalar=s), mask, accum,
                           replace)


def _region_sorted(data: VecData, Id: Any, region: Any, u: tuple[Any, Any],  # noqa: N803
                   accum: BinaryOp | None, out: Any) -> VecData:
    """T for a sparse C (CPU) on sorted keys: C outside the region; inside it the last
    occurrence of each index (no accum), or C accumulated with the operand (no duplicates
    then)."""
    xp = data.xp
    ub, uv = u
    nk, pos = _last_wins(Id, xp.arange(Id.shape[0], dtype=np.int64))
    if ub is not None:
        keep = ub[pos]
        nk, pos = nk[keep], pos[keep]
    nv = uv[pos]
    ck, cv = data.as_sparse()
    in_region = E.match_sorted(region, ck)[0]
    tk, tv = _region_update(ck, cv, in_region, nk, nv, accum, out, None)
    return VecData.sparse(data.size, out, tk, tv)


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
        # one occurrence per position of the region, in its row-major order
        keys = xp.repeat(Id, Jd.shape[0]) * nc + xp.tile(Jd, Id.shape[0])
        uvals = xp.full(keys.shape[0], out.cast(operand), dtype=out.np_type)
        u_dtype = out
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
        uk, uvals = operand._data.as_sparse()
        keys = Id[0] * nc + Jd[uk] if region == "row" else Id[uk] * nc + Jd[0]
        u_dtype = operand.dtype
    else:
        if operand.shape != (I.shape[0], J.shape[0]):
            raise DimensionMismatch(
                f"assign: region is {I.shape[0]}x{J.shape[0]} but the matrix operand is "
                f"{operand.shape[0]}x{operand.shape[1]}"
            )
        oc = operand._csr()
        keys = Id[oc.row_ids()] * nc + Jd[oc.indices]
        uvals = oc.full_values()
        u_dtype = operand.dtype
    ck, cv = csr_keys(csr), csr.full_values()
    if accum is not None:
        nk = E.sorted_unique(keys)
        if nk.shape[0] < keys.shape[0]:
            # duplicate targets: fold each occurrence in turn, starting from C's entry
            A._set(writeback_matrix(csr, _fold_duplicates(ck, cv, keys, nk, uvals, accum,
                                                          out, u_dtype, A),
                                    mask, None, replace))
            return
    nk, nv = _last_wins(keys, uvals)
    in_i = xp.zeros(A.nrows, dtype=bool)
    in_j = xp.zeros(A.ncols, dtype=bool)
    in_i[Id] = True
    in_j[Jd] = True
    in_region = in_i[csr.row_ids()] & in_j[csr.indices]
    tk, tv = _region_update(ck, cv, in_region, nk, nv, accum, out, A.ncols)
    T = csr_from_keys(A.nrows, A.ncols, tk, tv, out)  # noqa: N806
    A._set(writeback_matrix(csr, T, mask, None, replace))


def _fold_duplicates(ck: Any, cv: Any, keys: Any, nk: Any, uvals: Any,  # noqa: PLR0913
                     accum: BinaryOp, out: Any, u_dtype: Any, A: Any) -> Any:  # noqa: N803
    """T of a matrix assign with accum and duplicate targets: the targets (sorted unique
    keys ``nk``) numbered densely, C's entries there loaded, every occurrence folded in
    order (:func:`scatter`), then merged with C's other entries (which accum keeps)."""
    xp = E.xp_of(keys)
    cid = xp.searchsorted(nk, keys)
    found, pos = E.match(ck, nk)
    bits = found.copy()
    vals = xp.zeros(nk.shape[0], dtype=out.np_type)
    vals[found] = cv[pos[found]].astype(out.np_type, copy=False)
    scatter(bits, vals, cid, (None, uvals), accum, out, u_dtype)
    untouched = ~E.match_sorted(nk, ck)[0]
    tk, tv = E.merge_disjoint(ck[untouched], cv[untouched].astype(out.np_type, copy=False),
                              nk, vals)
    return csr_from_keys(A.nrows, A.ncols, tk, tv, out)


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
