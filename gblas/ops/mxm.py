"""mxm: C = A ⊕.⊗ B, masked (dot products at the mask's entries) or Gustavson (saxpy).

A non-complemented mask makes the product a choice, as in SuiteSparse:GraphBLAS' dot3 vs
saxpy3: dot products at the mask's entries (pull) cost the merge of row i of A with row j
of Bᵀ per mask entry; a masked saxpy (push, Gustavson with the mask as a filter) costs the
rows of B that A's entries in the mask's rows select. The planner estimates both from the
row lengths, O(nnz(A) + nnz(M)), and takes the cheaper; ``Descriptor(direction="pull")``
forces dot products, ``"push"`` the saxpy. Neither forms the unmasked product.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from .. import _config
from .._device import device_kind, same_device
from ..core.expr import Expression, Result
from ..core.mask import Mask
from ..exceptions import DimensionMismatch, NotImplementedForFormat
from ..formats.csr.convert import csr_from_keys, csr_keys
from ..formats.csr.masked import count_bounds, masked_product_work
from ..semirings.model import resolve_semiring
from .dispatch import MxmCall, find_kernel, semiring_traits
from .plan import record
from .validate import as_semiring, require


def mask_pattern(mask: Mask) -> Any:
    """CSR pattern of the mask's true entries (complement not applied)."""

    csr = mask.parent._csr()
    if mask.structure:
        return csr
    keys = csr_keys(csr)
    vals = csr.full_values()
    keep = vals != 0
    return csr_from_keys(csr.nrows, csr.ncols, keys[keep], vals[keep], csr.dtype)


def _row_counts(X: Any) -> Any:  # noqa: N803
    indptr = X._csr().indptr
    return indptr[1:] - indptr[:-1]


def _col_counts(X: Any) -> Any:  # noqa: N803
    deg = X._props.get("in_degree")  # the same counts, as a vector: O(n) to spread out
    if deg is not None:
        bits, vals = deg.as_bitmap()
        return deg.xp.where(bits, vals, 0).astype(np.int64)
    csr = X._csr()
    return csr.xp.bincount(csr.indices, minlength=X.ncols)


def line_counts(B: Any, columns: bool) -> Any:  # noqa: N803
    """Entries per row (or per column) of the matrix or view B, from its own CSR or, for a
    view X.T, from X's (no transpose built); cached on the matrix until it changes."""
    owner = getattr(B, "_matrix", None)
    if owner is not None:
        columns = not columns
        B = owner  # noqa: N806
    if columns:
        return B._prop("column_counts", lambda: _col_counts(B))
    return B._prop("row_counts", lambda: _row_counts(B))


def _cached_line_counts(X: Any, columns: bool) -> Any | None:  # noqa: N803
    """line_counts(X, columns) when it costs nothing: row counts (the indptr), or column
    counts already cached on the matrix; else None."""
    owner = getattr(X, "_matrix", None)
    if owner is not None:
        X, columns = owner, not columns  # noqa: N806
    if not columns:
        return line_counts(X, False)
    return X._props.get("column_counts")


def _dot_surely_cheaper(A: Any, mask: Mask, len_b: Any, len_bt: Any) -> bool:  # noqa: N803
    """Whether bounds from row and column counts alone (O(n), when they are cached) settle
    the choice for dot products: the merge estimate Σ over M's entries of la + lb, which
    bounds the dot work from above, is Σ_i |M(i,:)|·la_i + Σ_j |M(:,j)|·lb_j; the saxpy
    work is at least nnz(M), and exactly Σ_k |A(:,k)|·|B(k,:)| + nnz(M) when every row of
    A with entries has a mask row. Triangle counting's operands are all L, whose counts
    the estimate reads anyway: this skips the O(nnz) pass (urand:16: 6 of ~60 ms)."""
    if not mask.structure:
        return False
    la, a_cols = line_counts(A, False), _cached_line_counts(A, True)
    m_rows, m_cols = line_counts(mask.parent, False), _cached_line_counts(mask.parent, True)
    if a_cols is None or m_cols is None:
        return False
    if la.__class__ is np.ndarray:  # one compiled pass (small graphs: ~1 ms of 10 in TC)
        dot_bound, saxpy_bound = count_bounds(m_rows, la, m_cols, len_bt, a_cols, len_b)
    else:
        f64 = np.float64
        dot_bound = float((m_rows * la.astype(f64)).sum()
                          + (m_cols * len_bt.astype(f64)).sum())
        saxpy_bound = float(m_rows.sum())
        if bool(((la == 0) | (m_rows > 0)).all()):
            saxpy_bound += float((a_cols * len_b.astype(f64)).sum())
    return dot_bound <= float(_config.get("mxm_saxpy_weight")) * saxpy_bound


def _dot_is_cheaper(A: Any, M: Any, len_b: Any, len_bt: Any) -> bool:  # noqa: N803
    """Estimated work of the dot products at M's entries against the masked saxpy's
    (``len_b``, ``len_bt``: the row lengths of B and of Bᵀ)."""
    if M.nnz == 0 or A.nnz == 0:
        return True
    weight = float(_config.get("mxm_saxpy_weight"))
    xp = A.xp
    if xp is np:
        dot_work, saxpy_work = masked_product_work(A, M, len_b, len_bt)
        return bool(dot_work <= weight * saxpy_work)
    len_a = A.indptr[1:] - A.indptr[:-1]
    la, lb = len_a[M.row_ids()], len_bt[M.indices]
    lo, hi = xp.minimum(la, lb), xp.maximum(la, lb)
    # the dot kernels merge two sorted rows, or gallop through the longer when it is > 32x
    dot = xp.where(hi > 32 * lo, lo * (xp.log2(hi + 1.0) + 1.0), (lo + hi).astype(np.float64))
    in_mask_rows = (M.indptr[1:] - M.indptr[:-1]) > 0
    saxpy = (len_b[A.indices] * in_mask_rows[A.row_ids()]).sum() + M.nnz
    return bool(dot.sum() <= weight * saxpy)


def mxm_expr(A: Any, B: Any, op: Any) -> Expression:  # noqa: N803
    require(A, "matrix", "mxm")
    require(B, "matrix", "mxm")
    sr = as_semiring(op, "mxm")
    mismatch = None
    if A.ncols != B.nrows:
        mismatch = (f"mxm: {A.name} is {A.nrows}x{A.ncols} and {B.name} is "
                    f"{B.nrows}x{B.ncols}; the inner dimensions must agree")
        fits = (A.nrows == B.nrows, A.ncols == B.ncols, A.nrows == B.ncols)
        if not any(fits):  # no descriptor's transposes can make them fit either
            raise DimensionMismatch(mismatch)
    dev = same_device(A, B)
    ks = resolve_semiring(sr, A.dtype, B.dtype)

    def compute(mask: Mask | None, desc: Any) -> Result:
        # a descriptor's transposes were applied to the operands (Expression.for_descriptor)
        k = ks if desc is None or desc.early_exit else replace(ks, has_terminal=False)
        pattern = None if mask is None else mask_pattern(mask)
        a_csr = A._csr()
        strategy = "gustavson"
        if mask is not None and not mask.complement:
            forced = desc.direction if desc is not None else "auto"
            if forced == "auto":
                len_b, len_bt = line_counts(B, False), line_counts(B, True)
                if (_dot_surely_cheaper(A, mask, len_b, len_bt)
                        or _dot_is_cheaper(a_csr, pattern, len_b, len_bt)):
                    strategy = "dot"
            elif forced == "pull":
                strategy = "dot"
        key = {"device": device_kind(dev), "traits": semiring_traits(k),
               "mask": mask.kind if mask is not None else "none", "direction": strategy}
        reg = find_kernel("mxm", format="csr", **key)
        if reg is None:
            raise NotImplementedForFormat(f"no mxm kernel for {key}")
        call = MxmCall(a_csr, B._csr, B._csr_T, k, pattern,
                       bool(mask is not None and mask.complement))
        T = reg.func(call)  # noqa: N806
        record(desc, "mxm", reg.name, strategy, "csr")
        return Result(T, mask_applied=reg.fuses_mask and mask is not None)

    e = Expression("mxm", 2, (A.nrows, B.ncols), ks.out_type, dev, compute, (A, B))
    e._transposed = lambda t0, t1: mxm_expr(A.T if t0 else A, B.T if t1 else B, sr)
    e._mismatch = mismatch
    return e


__all__ = ["mxm_expr", "mask_pattern"]
