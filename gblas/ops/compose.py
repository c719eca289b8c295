"""Operations of python-graphblas built from the others: ewise_union, outer, kronecker,
diag (matrix -> vector and vector -> matrix) and power.

ewise_union, outer and power are lazy expressions whose last step runs through the ordinary
operation (ewise_mult, mxm) with the output's mask, so the write-back is the usual one.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._device import same_device
from ..backend import keys as E
from ..core.expr import Expression, Result
from ..exceptions import DimensionMismatch, DomainMismatch, InvalidValue
from ..formats.csr.convert import csr_from_keys
from ..formats.vector import VecData
from ..semirings.model import BinaryOp, Monoid, Semiring, binary, monoid
from .ewise import same_kind
from .plan import record
from .validate import as_semiring, binary_types


def _binary(op: Any, what: str, default: BinaryOp) -> BinaryOp:
    if op is None:
        return default
    if isinstance(op, Monoid):
        return op.binaryop
    if isinstance(op, BinaryOp):
        return op
    raise DomainMismatch(f"{what} needs a BinaryOp or Monoid (e.g. binary.plus), got {op!r}")


def ewise_union_expr(a: Any, b: Any, op: Any, left_default: Any,
                     right_default: Any) -> Expression:
    """Union of a and b: op(a, b) where both have an entry, op(a, right_default) where only
    a has one, op(left_default, b) where only b has one (GxB_eWiseUnion)."""
    from .ewise import ewise_expr  # noqa: PLC0415

    bop = _binary(op, "ewise_union", binary.plus)
    if left_default is None or right_default is None:
        raise InvalidValue("ewise_union needs both left_default and right_default scalars")
    dev = same_kind(a, b, "ewise_union")
    out = binary_types(bop, a.dtype, b.dtype)[1]

    def compute(mask: Any, desc: Any) -> Result:
        # each side filled with its default where only the other side has an entry: both
        # then have the union's structure, and their intersection is the union
        a_fill = b.apply(binary.first[a.dtype], left=left_default).new()
        b_fill = a.apply(binary.first[b.dtype], left=right_default).new()
        a_full = a.ewise_add(a_fill, binary.first).new()
        b_full = b.ewise_add(b_fill, binary.first).new()
        res = ewise_expr("ewise_mult", a_full, b_full, bop)._run(mask, desc)
        record(desc, "ewise_union", "ewise_union_filled")
        return res

    return Expression("ewise_union", a.ndim, a.shape, out, dev, compute, (a, b))


def outer_expr(u: Any, v: Any, op: Any) -> Expression:
    """The matrix op(u_i, v_j) over the pairs of entries (default times): the product of u
    as one column and v as one row, over the semiring any.op (one term per entry)."""
    from ..core.matrix import Matrix  # noqa: PLC0415
    from ..core.vector import Vector  # noqa: PLC0415
    from .mxm import mxm_expr  # noqa: PLC0415

    bop = _binary(op, "outer", binary.times)
    if not isinstance(v, Vector):
        raise DimensionMismatch(f"outer needs two vectors, got {type(v).__name__}")
    dev = u.device if u.device == v.device else same_device(u, v)
    sr = Semiring.register_anonymous(monoid.any, bop)
    out = sr.types(u.dtype, v.dtype)[1]

    def compute(mask: Any, desc: Any) -> Result:
        ui, uv = u.to_coo()
        vi, vv = v.to_coo()
        col = Matrix.from_coo(ui, np.zeros_like(ui), uv, u.dtype, nrows=u.size, ncols=1,
                              device=dev)
        row = Matrix.from_coo(np.zeros_like(vi), vi, vv, v.dtype, nrows=1, ncols=v.size,
                              device=dev)
        return mxm_expr(col, row, sr)._run(mask, desc)

    return Expression("outer", 2, (u.size, v.size), out, dev, compute, (u, v))


def kronecker_expr(A: Any, B: Any, op: Any) -> Expression:  # noqa: N803
    """Kronecker product: entry (ia·mB + ib, ja·nB + jb) = op(A[ia, ja], B[ib, jb])."""
    bop = _binary(op, "kronecker", binary.times)
    if getattr(B, "ndim", None) != 2:
        raise DimensionMismatch(f"kronecker needs two matrices, got {type(B).__name__}")
    dev = A.device if A.device == B.device else same_device(A, B)
    domain, out = binary_types(bop, A.dtype, B.dtype)
    nrows, ncols = A.nrows * B.nrows, A.ncols * B.ncols

    def compute(mask: Any, desc: Any) -> Result:
        ca, cb = A._csr(), B._csr()
        ra, ja, va = ca.row_ids(), ca.indices, ca.full_values()
        rb, jb, vb = cb.row_ids(), cb.indices, cb.full_values()
        rows = (ra[:, None] * B.nrows + rb[None, :]).ravel()
        cols = (ja[:, None] * B.ncols + jb[None, :]).ravel()
        xp = E.xp_of(rows)
        na, nb = va.shape[0], vb.shape[0]
        x = xp.repeat(va, nb)
        y = xp.tile(vb, na)
        vals = E.binary_values(bop, x, y, domain, out, rows, cols)
        keys = rows * max(ncols, 1) + cols
        order = xp.argsort(keys, kind="stable")
        record(desc, "kronecker", "kronecker_expand")
        return Result(csr_from_keys(nrows, ncols, keys[order], vals[order], out))

    return Expression("kronecker", 2, (nrows, ncols), out, dev, compute, (A, B))


def power_expr(A: Any, n: int, op: Any) -> Expression:  # noqa: N803
    """A ⊕.⊗ A ⊕.⊗ ... (n factors, n >= 1) by repeated squaring (default plus_times)."""
    sr = as_semiring(op, "power")
    if A.nrows != A.ncols:
        raise DimensionMismatch(f"power needs a square matrix, got shape {A.shape}")
    if isinstance(n, bool) or int(n) != n or n < 1:
        raise InvalidValue(f"power needs an integer n >= 1, got {n!r}")
    n = int(n)
    out = sr.types(A.dtype, A.dtype)[1]

    def compute(mask: Any, desc: Any) -> Result:
        from .mxm import mxm_expr  # noqa: PLC0415

        result, square, k = None, A, n
        while k > 1:
            if k & 1:
                result = square if result is None else mxm_expr(result, square, sr).new()
            square = mxm_expr(square, square, sr).new()
            k >>= 1
        if result is None:
            # n = 1: A itself; n a power of two: the last square
            return A._as_expression()._run(mask, desc) if square is A else Result(square._csr())
        return mxm_expr(result, square, sr)._run(mask, desc)  # the last product is masked

    return Expression("power", 2, A.shape, out, A.device, compute, (A,))


def matrix_diag(A: Any, k: int = 0) -> Any:  # noqa: N803
    """The k-th diagonal of A as a Vector (k > 0 above the main diagonal, k < 0 below)."""
    from ..core.vector import Vector  # noqa: PLC0415

    k = _offset(k)
    size = min(A.nrows, A.ncols - k) if k >= 0 else min(A.nrows + k, A.ncols)
    size = max(size, 0)
    D = A.select("diag", k).new()  # noqa: N806
    csr = D._csr()
    idx = csr.row_ids() if k >= 0 else csr.indices
    data = VecData.sparse(size, A.dtype, idx.astype(np.int64), csr.full_values())
    return Vector._from_data(data.normalized(), A.device)


def vector_diag(v: Any, k: int = 0) -> Any:
    """The square matrix with v on its k-th diagonal (size + |k| rows)."""
    from ..core.matrix import Matrix  # noqa: PLC0415

    k = _offset(k)
    n = v.size + abs(k)
    idx, vals = v._data.as_sparse()
    rows, cols = idx + max(-k, 0), idx + max(k, 0)
    keys = rows * max(n, 1) + cols
    return Matrix._from_csr(csr_from_keys(n, n, keys, vals, v.dtype), v.device)


def _offset(k: Any) -> int:
    if isinstance(k, bool) or int(k) != k:
        raise InvalidValue(f"diagonal offset k must be an integer, got {k!r}")
    return int(k)


__all__ = ["ewise_union_expr", "outer_expr", "kronecker_expr", "power_expr", "matrix_diag",
           "vector_diag"]
