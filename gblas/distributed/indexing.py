"""Index lists on distributed vectors: the extract ``w << v[I]`` (a gather at any global
indices) and the assign ``w(mask, accum, replace)[I] << u`` (a scatter, duplicate indices
folded with the accumulator), each one all-to-all of requests and, for the extract, one
back.

A distributed index list is a :class:`DistArray`: an array of m elements split in blocks
like a DistVector of size m (process p holds positions ``p·m//P ≤ k < (p+1)·m//P``), so
that ``v[I]`` gives a DistVector of size m partitioned like I, and the operand u of
``w[I] << u`` is a DistVector of size m partitioned like I: position k of the list meets
element k of u on the same process. ``v.to_coo(device=layout)`` gives a DistVector's
indices and values as DistArrays, which is how FastSV's ``f[parents]`` keeps its parents
distributed. A list (or slice) that every process holds whole is read as that list, each
process taking its block of positions.

Semantics are one process's (SuiteSparse's): an assign without accumulator keeps the last
occurrence of a duplicate index (an absent u(k) deletes), one with accumulator folds every
present u(k) in turn, in the order of the positions k. The requests are stably grouped by
owner and the all-to-all delivers them in rank order of the senders, so every owner
receives its requests in the global order of positions and runs gblas' own assign on its
block. An index list is checked (integers, ``-n ≤ i < n``, negatives counted from the end)
on every process's block and the verdicts gathered before any exchange, so an error found
on one process raises the same exception on all of them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import Scalar, Vector
from ..backend.keys import xp_of
from ..core.base import index_array, is_scalar_index, normalize_index
from ..core.expr import _is_scalar_like
from ..core.mask import Mask
from ..exceptions import DimensionMismatch, IndexOutOfBound, InvalidObject, InvalidValue
from ..formats.vector import VecData
from ..semirings.model import BinaryOp
from .comm import Comm
from .exchange import route_to_owners
from .partition import Layout
from .vector import DistExpression, DistVector


class DistArray:
    """A 1-D array of ``layout.n`` elements in blocks over processes, partitioned like a
    DistVector of that size (every position holds a value): this process holds ``.local``
    (a NumPy or CuPy array), positions ``layout.lo .. layout.hi - 1``. Used as an index
    list: ``v[I]``, ``w(accum)[I] << u``."""

    ndim = 1

    def __init__(self, local: Any, layout: Layout) -> None:
        if not isinstance(layout, Layout):
            raise InvalidObject(f"a DistArray needs a Layout, got {type(layout).__name__}")
        if getattr(local, "ndim", None) != 1 or local.shape[0] != layout.n_local:
            raise DimensionMismatch(
                f"process {layout.rank} holds positions {layout.lo}..{layout.hi - 1} of a "
                f"DistArray of {layout.n}: its block must be a 1-D array of "
                f"{layout.n_local}, got shape {getattr(local, 'shape', None)}")
        self.local, self.layout = local, layout

    @classmethod
    def from_array(cls, arr: Any, comm: Comm) -> DistArray:
        """From an array that every process holds whole: each keeps its block."""
        layout = Layout(comm, arr.shape[0])
        return cls(arr[layout.lo:layout.hi], layout)

    device = property(lambda self: self.layout)
    size = property(lambda self: self.layout.n)
    shape = property(lambda self: (self.layout.n,))
    dtype = property(lambda self: self.local.dtype)

    def __len__(self) -> int:
        return self.layout.n

    def gather(self) -> Any:
        """The whole array on every process (an allgather)."""
        return self.layout.comm.allgatherv(self.local)[0]

    def __repr__(self) -> str:
        return (f"gblas.distributed.DistArray(size={self.size}, dtype={self.dtype}, "
                f"layout={self.layout}, local {self.layout.lo}..{self.layout.hi - 1})")


def coo_arrays(v: DistVector, dtype: Any, indices: bool, values: bool,
               device: Layout) -> tuple[DistArray | None, DistArray | None]:
    """``v.to_coo(device=layout)``: v's global indices and values in index order, as
    DistArrays of length ``v.nvals`` (blocks moved between neighbours when the processes'
    entry counts are not already that partition's: one all-to-all)."""
    lay = v.layout
    if device.comm is not lay.comm:
        raise InvalidValue("to_coo(device=<a Layout>) keeps the arrays on the vector's own "
                           f"processes; got a layout over other processes ({device})")
    idx, vals = v.local.to_coo(dtype, indices=indices, values=values,
                               device=lay.local_device)
    if idx is not None:
        idx += lay.lo
    parts = [a for a in (idx, vals) if a is not None]
    if v.nvals == v.size:  # full: the entries' partition is the vector's own
        out_layout = lay
    else:
        counts = lay.comm.allgather(int(v.local.nvals))
        out_layout = Layout(lay.comm, sum(counts))
        if counts != np.diff(out_layout.part.offsets).tolist():
            start = sum(counts[:lay.rank])
            xp = lay.comm.xp
            pos = xp.arange(start, start + counts[lay.rank], dtype=np.int64)
            parts = route_to_owners(pos, parts, out_layout).payload
    it = iter(parts)
    return (DistArray(next(it), out_layout) if indices else None,
            DistArray(next(it), out_layout) if values else None)


def checked_index(index: Any, size: int, comm: Comm) -> DistArray:
    """``index`` (a DistArray over ``comm``, or a list, array or slice every process holds
    whole) as a DistArray of int64 positions in ``[0, size)``. The checks of one process's
    ``index_array``, each process on its block; the verdicts are gathered (one allgather)
    and the same exception raised everywhere, with one process's message."""
    if not isinstance(index, DistArray):
        index = DistArray.from_array(index_array(index, size), comm)
    elif index.layout.comm is not comm:
        raise DimensionMismatch(f"the index list is distributed over other processes "
                                f"({index.layout}) than the vector ({comm.size} processes)")
    loc = index.local
    report: tuple[Any, ...] | None = None
    if loc.dtype.kind not in "iu":
        report = ("dtype", str(loc.dtype))
    elif loc.shape[0]:
        low, high = int(loc.min()), int(loc.max())
        if low < -size or high >= size:
            bad = (loc < -size) | (loc >= size)
            report = ("range", int(loc[bad][0]), int(bad.sum()))
    reports = [r for r in comm.allgather(report) if r is not None]
    dtypes = [r for r in reports if r[0] == "dtype"]
    if dtypes:
        raise InvalidValue(f"index list must hold integers, got dtype {dtypes[0][1]}")
    if reports:
        raise IndexOutOfBound(f"index {reports[0][1]} is out of range for size {size} "
                              f"({sum(r[2] for r in reports)} bad entries)")
    loc = loc.astype(np.int64, copy=False)
    if loc.shape[0] and int(loc.min()) < 0:
        loc = xp_of(loc).where(loc < 0, loc + size, loc)
    return DistArray(loc, index.layout)


def as_index(index: Any, size: int, comm: Comm) -> DistArray:
    """A scalar index as a one-element list (``w(accum)[i] << x``), else
    :func:`checked_index`."""
    if isinstance(index, tuple) and len(index) == 1:
        index = index[0]
    if is_scalar_index(index):
        index = np.asarray([normalize_index(index, size)], dtype=np.int64)
    return checked_index(index, size, comm)


def extract_block(v: DistVector, pos: Any) -> Vector:
    """This process's block of ``v[I]`` (``pos``: its block of the checked list): each
    distinct index asked once of its owner, which answers with gblas' extract of its
    block; presence bits travel back only when v is not full."""
    lay = v.layout
    full = v.nvals == v.size  # global: every process decides alike what travels back
    xp = xp_of(pos)
    uniq, inv = xp.unique(pos, return_inverse=True)
    asked = route_to_owners(uniq, [], lay, stats=lay.comm_stats)
    bits, vals = v.local[asked.idx].new()._data.as_bitmap()
    rvals = asked.reply(vals)[inv]
    if full:
        data = VecData.full(pos.shape[0], v.dtype, rvals)
    else:
        data = VecData.bitmap(pos.shape[0], v.dtype, asked.reply(bits)[inv], rvals)
    return Vector._from_data(data.normalized(), lay.local_device)


class DistIndexExpr(DistExpression):
    """``v[I]``: w(k) = v(I(k)) for the positions k of I, a DistVector partitioned like I;
    ``v[I] << u`` assigns (the region I of v)."""

    def __init__(self, vec: DistVector, index: DistArray) -> None:
        super().__init__("extract", 1, index.layout, vec.dtype,
                         lambda mask, desc: extract_block(vec, index.local))
        self.vec, self.index = vec, index

    def update(self, value: Any) -> None:
        assign(self.vec, self.index, value, None, None, False, None)

    __lshift__ = update


class AssignTarget:
    """``out(mask, accum, replace)[I]``: the left side of an index-list assign."""

    def __init__(self, updater: Any, index: DistArray) -> None:
        self.updater, self.index = updater, index

    def update(self, value: Any) -> None:
        up = self.updater
        assign(up.parent, self.index, value, up.local_mask, up.accum, up.replace, up.desc)

    __lshift__ = update


def _operand(value: Any, index: DistArray) -> tuple[DistVector | None, Any]:
    """(vector operand, None) or (None, scalar value), checked like one process's assign
    (alike on every process: sizes and dtypes are global)."""
    if isinstance(value, DistExpression):
        value = value.new()
    if isinstance(value, DistVector):
        if value.size != index.size:
            raise DimensionMismatch(f"assign: {index.size} indices but the vector operand "
                                    f"has size {value.size}")
        if value.layout != index.layout:
            raise DimensionMismatch("the assigned vector is partitioned differently from "
                                    f"the index list ({value.layout} vs {index.layout})")
        return value, None
    if isinstance(value, Scalar):
        if value.is_empty:
            raise InvalidValue("cannot assign an empty Scalar")
        return None, value.value
    if _is_scalar_like(value) and not isinstance(value, Vector):
        return None, value
    raise InvalidObject(f"cannot assign a {type(value).__name__} to a DistVector's index "
                        "list; expected a DistVector partitioned like the list or a scalar")


def assign(out: DistVector, index: DistArray, value: Any, mask: Mask | None,
           accum: BinaryOp | None, replace: bool, desc: Any) -> None:
    """``out(mask, accum, replace)[index] << value``, ``mask`` being out's block of the
    mask: the positions routed to their owners (with u's values, and its presence bits when
    absent entries matter: no accumulator and u not full), then gblas' assign on every
    block, so the owner folds duplicates in the global order of the positions."""
    lay = out.layout
    u, scalar = _operand(value, index)
    if accum is not None:  # the accumulator's types, checked on every process alike
        accum.domain(out.dtype, out.dtype if u is None else u.dtype)
    pos = index.local
    order = lay.part.order_by_owner(lay.part.owner(pos))
    payload: list[Any] = []
    with_bits = False
    if u is not None:
        bits, vals = u.local._data.as_bitmap()
        if accum is not None:  # an accumulator skips absent entries: send present ones
            keep = bits[order]
            order = order[keep]
            payload = [vals[order]]
        else:
            with_bits = u.nvals != u.size
            payload = [bits[order], vals[order]] if with_bits else [vals[order]]
    got = route_to_owners(pos[order], payload, lay, stats=lay.comm_stats)
    k = got.idx.shape[0]
    if u is None:
        operand: Any = scalar
    elif with_bits:
        operand = Vector._from_data(VecData.bitmap(k, u.dtype, got.payload[0],
                                                   got.payload[1]).normalized(),
                                    lay.local_device)
    else:
        operand = Vector._from_data(VecData.full(k, u.dtype, got.payload[0]),
                                    lay.local_device)
    out.local(mask=mask, accum=accum, replace=replace, desc=desc)[got.idx] << operand
    out._changed()
