"""DistMatrix: a square matrix split by rows over processes (1D partition), with the
subset of gblas.Matrix's API that BFS, SSSP, PageRank and connected components use.

Process p holds its rows of A (``.local``: an ``n_local × n`` gblas Matrix, global column
ids) and, built on first use, the same rows of Aᵀ (``.local_T``; A itself when A is known
to be symmetric, as the generated graphs are). With rows(M) the local rows of an operand M
(A or Aᵀ) and rowsT(M) those of Mᵀ, each product runs as one exchange plus gblas' own
kernel on the local block:

* ``mxv(M, x)`` (pull): x gathered whole (bitmap or sparse list, whichever is smaller),
  then ``rows(M).mxv(x)`` with the output's block of the mask fused by the local planner;
* ``vxm(u, M)``, push (the default): ``u.local.vxm(rows(M))`` gives contributions to any
  column, routed to their owners with one all-to-all and combined there with the
  semiring's monoid, then masked;
* ``vxm(u, M)``, pull (descriptor ``direction="pull"``): u gathered whole, then
  ``u.vxm(rowsT(M)ᵀ)`` on the local columns.

Positional multiplies (``any_secondi`` for BFS parents) see local row numbers where the
local block numbers rows from 0; the result is shifted back to global ids, which is exact
for the monoids any, min and max (the others raise).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import Matrix, Scalar, Vector, binary, unary
from ..core.base import auto_name
from ..dtypes import BOOL, DataType
from ..exceptions import DimensionMismatch, InvalidObject, NotImplementedForFormat
from ..ops.validate import as_monoid, as_semiring
from ..semirings import monoid
from .exchange import gather_full, route_entries, route_to_owners
from .partition import Layout
from .vector import DistExpression, DistVector, _not_distributed, fold_scalars

# positional multiplies whose index is a local row number, per form of the product
_LOCAL_INDEX = {"mxv": ("firsti",), "push": ("firstj", "secondi"), "pull": ("secondj",)}


def _shift_positional(res: Any, sr: Any, form: str, lo: int) -> Any:
    """Shift a positional product's values from local to global row ids."""
    pos = sr.binaryop.positional
    if not pos or pos not in _LOCAL_INDEX[form]:
        return res
    if sr.monoid.name not in ("any", "min", "max"):  # raised for any P, one included
        raise NotImplementedForFormat(
            f"semiring {sr.name}: a positional multiply on a distributed matrix needs the "
            "monoid any, min or max (its indices are shifted to global ids after the "
            "local product)")
    return res if lo == 0 else res.apply(binary.plus, right=lo).new()


class DistMatrix:
    """An ``n × n`` matrix whose rows are split over the processes of ``layout``."""

    ndim = 2

    def __init__(self, local: Matrix, layout: Layout, *, name: str | None = None,
                 symmetric: bool | None = None, nvals: int | None = None) -> None:
        if not isinstance(local, Matrix) or not isinstance(layout, Layout):
            raise InvalidObject("DistMatrix(local, layout) needs a gblas.Matrix block and a "
                                f"Layout, got {type(local).__name__}, {type(layout).__name__}")
        if local.shape != (layout.n_local, layout.n):
            raise DimensionMismatch(
                f"process {layout.rank} owns rows {layout.lo}..{layout.hi - 1} of an "
                f"{layout.n} x {layout.n} matrix: its block must be {layout.n_local} x "
                f"{layout.n}, got {local.shape[0]} x {local.shape[1]}")
        self.layout, self.local = layout, local
        self._name = name or auto_name("DM")
        self._symmetric = symmetric
        self._local_T: Matrix | None = local if symmetric else None
        self._nvals = int(layout.comm.allreduce(int(local.nvals))) if nvals is None else nvals

    # ---------------------------------------------------------------- properties
    name = property(lambda self: self._name)
    device = property(lambda self: self.layout)
    nrows = property(lambda self: self.layout.n)
    ncols = property(lambda self: self.layout.n)
    shape = property(lambda self: (self.layout.n, self.layout.n))
    dtype = property(lambda self: self.local.dtype)
    format = property(lambda self: "dist-" + self.local.format)
    nvals = property(lambda self: self._nvals)

    @property
    def T(self) -> DistTransposed:  # noqa: N802 - GraphBLAS name
        return DistTransposed(self)

    @property
    def local_T(self) -> Matrix:  # noqa: N802
        """This process's rows of Aᵀ (built once with one all-to-all of the entries)."""
        if self._local_T is None:
            lay = self.layout
            r, c, v = self.local.to_coo()
            rows, cols, vals = route_entries(c, r + lay.lo, v, lay)
            self._local_T = Matrix.from_coo(rows - lay.lo, cols, vals, self.dtype,
                                            nrows=lay.n_local, ncols=lay.n,
                                            device=lay.local_device)
        return self._local_T

    def _rows(self, transposed: bool) -> Matrix:
        return self.local_T if transposed else self.local

    # ---------------------------------------------------------------- operations
    def mxv(self, other: Any, op: Any = None) -> DistExpression:
        """A ⊕.⊗ x (default plus_times)."""
        return mxv_expr(self, False, other, op)

    def out_degree(self) -> DistVector:
        """Stored entries per row (INT64), from the local rows (cached by the block)."""
        return DistVector._wrap(self.local.out_degree(), self.layout, f"{self.name}.out_degree")

    def in_degree(self) -> DistVector:
        return DistVector._wrap(self.local_T.out_degree(), self.layout, f"{self.name}.in_degree")

    def is_symmetric(self, *, structure: bool = True) -> bool:
        """Whether A equals Aᵀ (its pattern only with ``structure``): each process compares
        its rows of A and of Aᵀ; one allreduce."""
        if self._symmetric:
            return True
        a, t = self.local, self.local_T
        if structure:
            a, t = a.apply(unary.one[BOOL]).new(), t.apply(unary.one[BOOL]).new()
        same = bool(self.layout.comm.allreduce(bool(a.isequal(t)), "land"))
        if same:
            self._symmetric = True
        return same

    def dup(self, dtype: Any = None, *, name: str | None = None) -> DistMatrix:
        return DistMatrix(self.local.dup(dtype), self.layout, name=name,
                          symmetric=self._symmetric, nvals=self._nvals)

    def apply(self, op: Any, right: Any = None, *, left: Any = None) -> DistMatrixExpression:
        if getattr(op, "positional", None):
            raise _not_distributed(f"the positional operator {op!r}")
        return DistMatrixExpression(self, lambda: self.local.apply(op, right, left=left).new())

    def ewise_add(self, other: Any, op: Any = None) -> DistMatrixExpression:
        """A ∪ B (B a DistMatrix or its .T, e.g. A ∪ Aᵀ): the local rows of both."""
        return self._ewise("ewise_add", other, op)

    def ewise_mult(self, other: Any, op: Any = None) -> DistMatrixExpression:
        return self._ewise("ewise_mult", other, op)

    def _ewise(self, name: str, other: Any, op: Any) -> DistMatrixExpression:
        B, transposed = _operand(other, name)  # noqa: N806
        if B.layout != self.layout:
            raise DimensionMismatch(f"{name}: {self.name} and {B.name} are partitioned "
                                    f"differently ({self.layout} vs {B.layout})")
        expr = getattr(self.local, name)(B._rows(transposed), op)  # gblas checks op, types
        return DistMatrixExpression(self, expr.new, same_pattern=False)

    def reduce_rowwise(self, op: Any = None) -> DistExpression:
        probe = self.local.reduce_rowwise(op)
        return DistExpression("reduce_rowwise", 1, self.layout, probe.dtype,
                              lambda m, d: self.local.reduce_rowwise(op))

    def reduce_scalar(self, op: Any = None, *, allow_empty: bool = True) -> DistExpression:
        m = as_monoid(op, "reduce_scalar", monoid.plus)
        probe = self.local.reduce_scalar(op)

        def run(mask: Any, desc: Any) -> Scalar:
            part = self.local.reduce_scalar(op).new(desc=desc).value
            return fold_scalars(self.layout.comm.allgather(part), m, probe.dtype, "cpu")

        return DistExpression("reduce_scalar", 0, self.layout, probe.dtype, run)

    def to_coo(self, dtype: Any = None) -> tuple[Any, Any, Any]:
        """(rows, cols, values) of the whole matrix on every process, row-major (gathered:
        for tests and small graphs)."""
        r, c, v = self.local.to_coo(dtype)
        comm = self.layout.comm
        return (comm.allgatherv(r + self.layout.lo)[0], comm.allgatherv(c)[0],
                comm.allgatherv(v)[0])

    def gather(self) -> Matrix:
        """The whole matrix as a gblas.Matrix on every process."""
        r, c, v = self.to_coo()
        return Matrix.from_coo(r, c, v, self.dtype, nrows=self.nrows, ncols=self.ncols)

    def isequal(self, other: Any, *, check_dtype: bool = False) -> bool:
        if not isinstance(other, DistMatrix) or other.layout != self.layout:
            return False
        same = self.local.isequal(other.local, check_dtype=check_dtype)
        return bool(self.layout.comm.allreduce(bool(same), "land"))

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        if hasattr(Matrix, name):
            raise _not_distributed(f"Matrix.{name}")
        raise AttributeError(f"'DistMatrix' object has no attribute {name!r}")

    def __repr__(self) -> str:
        return (f'gblas.distributed.DistMatrix("{self.name}" {self.nrows}x{self.ncols} '
                f"nvals={self.nvals} dtype={self.dtype} layout={self.layout})")


class DistTransposed:
    """``A.T`` of a DistMatrix: products read the local rows of Aᵀ."""

    ndim = 2

    def __init__(self, parent: DistMatrix) -> None:
        self.parent = parent

    layout = property(lambda self: self.parent.layout)
    device = property(lambda self: self.parent.layout)
    nrows = property(lambda self: self.parent.ncols)
    ncols = property(lambda self: self.parent.nrows)
    shape = property(lambda self: (self.parent.ncols, self.parent.nrows))
    dtype = property(lambda self: self.parent.dtype)
    nvals = property(lambda self: self.parent.nvals)
    name = property(lambda self: self.parent.name + ".T")
    T = property(lambda self: self.parent)  # noqa: N802 - GraphBLAS name

    def mxv(self, other: Any, op: Any = None) -> DistExpression:
        return mxv_expr(self.parent, True, other, op)


class DistMatrixExpression:
    """A lazy DistMatrix result (``A.apply(op)``, ``A.ewise_add(B)``): ``.new()`` runs it
    on every block. ``same_pattern``: the result has the parent's entries (its nvals)."""

    def __init__(self, parent: DistMatrix, local: Any, *, same_pattern: bool = True) -> None:
        self.parent, self._local, self._same_pattern = parent, local, same_pattern

    def new(self, dtype: Any = None, *, name: str | None = None) -> DistMatrix:
        block = self._local()
        if dtype is not None:
            block = block.dup(dtype)
        p = self.parent
        return DistMatrix(block, p.layout, name=name,
                          nvals=p._nvals if self._same_pattern else None)


# -------------------------------------------------------------------------- products
def _operand(M: Any, what: str) -> tuple[DistMatrix, bool]:  # noqa: N803
    if isinstance(M, DistTransposed):
        return M.parent, True
    if isinstance(M, DistMatrix):
        return M, False
    raise InvalidObject(f"{what} of a distributed operand needs a DistMatrix (or its .T), got "
                        f"{type(M).__name__}")


def _check_vector(x: Any, A: DistMatrix, what: str) -> DistVector:  # noqa: N803
    if not isinstance(x, DistVector):
        raise InvalidObject(f"{what} with a DistMatrix needs a DistVector, got "
                            f"{type(x).__name__}; distribute it with the matrix's layout")
    if x.layout != A.layout:
        raise DimensionMismatch(f"{what}: vector {x.name} (size {x.size}, {x.layout}) and "
                                f"matrix {A.name} ({A.nrows} x {A.ncols}, {A.layout}) must "
                                "have the same size and partition")
    return x


def _out_type(sr: Any, left: DataType, right: DataType) -> DataType:
    from ..ops.mxv import resolve_semiring  # noqa: PLC0415

    return resolve_semiring(sr, left, right).out_type


def mxv_expr(A: DistMatrix, transposed: bool, x: Any, op: Any) -> DistExpression:  # noqa: N803
    """M ⊕.⊗ x with M = A or Aᵀ: x gathered, the local rows of M times it."""
    x = _check_vector(x, A, "mxv")
    sr = as_semiring(op, "mxv")
    lay = A.layout

    def local(mask: Any, desc: Any) -> Any:
        full = gather_full(x.local, lay, values=sr.uses_right, stats=lay.comm_stats)
        expr = A._rows(transposed).mxv(full, sr)
        if sr.binaryop.positional in _LOCAL_INDEX["mxv"]:
            return _shift_positional(expr.new(mask=mask, desc=desc), sr, "mxv", lay.lo)
        return expr

    return DistExpression("mxv", 1, lay, _out_type(sr, A.dtype, x.dtype), local)


def vxm_expr(u: DistVector, M: Any, op: Any) -> DistExpression:  # noqa: N803
    """u ⊕.⊗ M with M = A or Aᵀ: push (contributions routed to their owners) unless the
    descriptor asks for pull (u gathered, the local columns)."""
    A, transposed = _operand(M, "vxm")  # noqa: N806
    u = _check_vector(u, A, "vxm")
    sr = as_semiring(op, "vxm")
    lay = A.layout
    out_type = _out_type(sr.flipped, A.dtype, u.dtype)

    def local(mask: Any, desc: Any) -> Any:
        if desc is not None and desc.direction == "pull":
            full = gather_full(u.local, lay, values=sr.uses_left, stats=lay.comm_stats)
            res = full.vxm(A._rows(not transposed).T, sr).new(mask=mask, desc=desc)
            return _shift_positional(res, sr, "pull", lay.lo)
        if lay.comm.size == 1:  # one process: its product is the whole one, and the
            # output's mask (all of it) can filter the push as it runs
            part = u.local.vxm(A._rows(transposed), sr).new(mask=mask, desc=desc)
            return _shift_positional(part, sr, "push", lay.lo)
        part = u.local.vxm(A._rows(transposed), sr).new(desc=desc)
        part = _shift_positional(part, sr, "push", lay.lo)
        idx, vals = part.to_coo(device=lay.local_device)
        got = route_to_owners(idx, [vals], lay, stats=lay.comm_stats)
        return combine_routed(got.idx, got.payload[0], out_type, lay.n_local, sr.monoid,
                              lay.local_device)

    return DistExpression("vxm", 1, lay, out_type, local)


def combine_routed(idx: Any, vals: Any, out_type: DataType, size: int, fold: Any,
                   device: str) -> Vector:
    """The contributions that arrived (local indices, any order, duplicates) folded by index
    with the monoid ``fold``, in arrival order (``any``/``first`` keep the first to arrive,
    as Vector.from_coo does). On a GPU :func:`fold_by_index` runs where the arrays are;
    from_coo would build on the host."""
    if device == "cpu":
        return Vector.from_coo(idx, vals, out_type, size=size, dup_op=fold, device=device)
    from ..formats.vector import VecData  # noqa: PLC0415

    uniq, folded = fold_by_index(idx, vals, out_type, fold)
    return Vector._from_data(VecData.sparse(size, out_type, uniq, folded).normalized(), device)


def fold_by_index(idx: Any, vals: Any, out_type: DataType, fold: Any) -> tuple[Any, Any]:
    """(sorted distinct indices, values folded with the monoid ``fold`` in input order): a
    stable sort and a segmented reduction, on the arrays' device (NumPy or CuPy)."""
    from ..backend import keys as E  # noqa: PLC0415

    order = E.xp_of(idx).argsort(idx, kind="stable")
    sidx = idx[order]
    starts = E.run_starts(sidx)
    return sidx[starts].astype(np.int64), E.segment_reduce(fold, vals[order], starts,
                                                           out_type)


def from_matrix(A: Matrix, layout: Layout, *, name: str | None = None) -> DistMatrix:  # noqa: N803
    """Distribute a gblas Matrix that every process holds whole: each keeps its rows."""
    if A.nrows != A.ncols or A.nrows != layout.n:
        raise DimensionMismatch(f"a DistMatrix over {layout.n} vertices needs a square "
                                f"{layout.n} x {layout.n} matrix, got {A.nrows} x {A.ncols}")
    indptr, cols, vals = A.to_csr()
    lo, hi = layout.lo, layout.hi
    a, b = int(indptr[lo]), int(indptr[hi])
    local = Matrix.from_csr(indptr[lo:hi + 1] - a, cols[a:b], vals[a:b], A.dtype,
                            nrows=hi - lo, ncols=layout.n, device=layout.local_device)
    sym = True if A._props.get("symmetric_True") else None
    return DistMatrix(local, layout, name=name or A.name, symmetric=sym,
                      nvals=A.nvals)


def from_edges(rows: Any, cols: Any, values: Any, layout: Layout, *, dtype: Any = None,
               dup_op: Any = None, symmetric: bool | None = None,
               name: str | None = None) -> DistMatrix:
    """A DistMatrix from entries that each process holds some of (any rows): they are
    routed to their rows' owners (one all-to-all) and built there with gblas' own builder
    (duplicates combined with ``dup_op``)."""
    rows = np.asarray(rows, dtype=np.int64)
    cols = np.asarray(cols, dtype=np.int64)
    iso = np.ndim(values) == 0
    vals = None if iso else np.asarray(values)
    if vals is not None and vals.shape != rows.shape:
        raise DimensionMismatch(f"rows and values differ in length: {rows.shape[0]} vs "
                                f"{vals.shape[0]}")
    if rows.shape != cols.shape:
        raise DimensionMismatch(f"rows and cols differ in length: {rows.shape[0]} vs "
                                f"{cols.shape[0]}")
    for what, arr in (("row", rows), ("column", cols)):
        if arr.size and (arr.min() < 0 or arr.max() >= layout.n):
            from ..exceptions import IndexOutOfBound  # noqa: PLC0415

            raise IndexOutOfBound(f"a {what} index is out of range for {layout.n} vertices")
    r, c, v = route_entries(rows, cols, vals, layout)
    local = Matrix.from_coo(r - layout.lo, c, values if iso else v, dtype,
                            nrows=layout.n_local, ncols=layout.n, dup_op=dup_op,
                            device=layout.local_device)
    return DistMatrix(local, layout, name=name, symmetric=symmetric)
