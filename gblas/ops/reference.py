"""Reference oracle: every GraphBLAS operation in plain NumPy on dense operands.

**Used by the tests only**; the library never calls it. It is written for obvious
correctness, not speed (loops over the inner index k, small inputs), and shares nothing
with the kernels but the operator model (``np_func``, ``domain``, ``return_type``,
``for_domain``, monoid identities).

Representation
--------------
A *dense operand* is a pair ``(values, present)``: ``values`` an ndarray (1-D for a vector,
2-D for a matrix) whose dtype is the object's dtype, ``present`` a bool ndarray of the same
shape. Values where ``present`` is False are ignored on input; on output they are 0. A
*mask* is ``(mask_values, mask_present, structure, complement)`` with the shape of the
output. A reduction to a scalar returns ``(value, present)`` with ``value`` a NumPy scalar
of the result type (the monoid identity when absent).

Conventions (GraphBLAS C API unless noted)
------------------------------------------
- Semiring ``domain, out = semiring.types(left, right)``: operands are cast to ``domain``,
  the multiply is ``semiring.binaryop.for_domain(domain)`` (its left argument is the
  matrix entry in mxv, the vector entry in vxm), products are cast to ``out`` and folded
  with ``semiring.monoid.for_domain(out)`` in ascending k, starting from the first
  product. Positional multiplies give an index (+offset): firsti/firstj are the row/col
  of the left entry, secondi/secondj those of the right entry, a vector being a column
  (mxv: x[k] is at (k, 0)) or a row (vxm: x[k] is at (0, k)).
- The ``any`` monoid keeps the first value in fold order (smallest k, or row-major for a
  matrix reduction). A kernel may return any of the candidates, so tests of ``any_*``
  results must check membership rather than equality.
- Element-wise positional operators see (i, j) = (row, col), or (index, 0) for vectors.
- ``assign``: Z = C with Z(I, J) = A (or accum(C(I, J), A)), then the mask over the whole
  of C. Duplicate indices in I or J (the C API leaves them undefined; this is
  SuiteSparse's reading, which LAGraph's FastSV relies on): without accum the *last*
  occurrence wins; with accum every present occurrence is folded in turn into the target,
  z = accum(z, a) cast to the output type, starting from C's entry (or from a). A scalar
  operand is one occurrence per position of the region.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import DataType, dtype_of_value, lookup_dtype
from ..exceptions import DimensionMismatch, IndexOutOfBound, InvalidObject, InvalidValue
from ..semirings.model import BinaryOp, IndexUnaryOp, Monoid, Semiring, UnaryOp

Dense = tuple[np.ndarray, np.ndarray]
MaskSpec = tuple[np.ndarray, np.ndarray, bool, bool]

__all__ = [
    "Dense", "MaskSpec", "dense", "assert_equal",
    "mxv", "vxm", "mxm", "ewise_add", "ewise_mult", "ewise_union",
    "apply", "apply_index", "select",
    "reduce_vector", "reduce_rows", "reduce_cols", "reduce_scalar",
    "extract_vector", "extract_matrix", "extract_row", "extract_col",
    "assign_vector", "assign_matrix", "assign_row", "assign_col",
    "subassign_vector", "subassign_matrix", "transpose", "writeback",
]


# ------------------------------------------------------------------------------ helpers
def dense(values: Any, present: Any = None, dtype: Any = None) -> Dense:
    """Build a dense pair; ``present`` defaults to all True. Absent values are zeroed."""
    v = np.array(values, dtype=lookup_dtype(dtype).np_type if dtype is not None else None)
    p = np.ones(v.shape, bool) if present is None else np.array(present, dtype=bool)
    if p.shape != v.shape:
        raise DimensionMismatch(f"present has shape {p.shape}, values {v.shape}")
    v = v.copy()
    v[~p] = 0
    return v, p


def assert_equal(actual: Dense, expected: Dense, *, rtol: float = 0.0,
                 check_dtype: bool = True) -> None:
    """Assert two dense pairs hold the same entries (NaN equals NaN; absent values ignored)."""
    av, ap = _check(actual)
    ev, ep = _check(expected)
    assert av.shape == ev.shape, f"shape {av.shape} != {ev.shape}"
    if check_dtype:
        assert av.dtype == ev.dtype, f"dtype {av.dtype} != {ev.dtype}"
    assert np.array_equal(ap, ep), f"structure differs:\n{ap.astype(int)}\n{ep.astype(int)}"
    a, e = av[ap], ev[ep]
    if a.dtype.kind == "f" or e.dtype.kind == "f":
        ok = np.allclose(a, e, rtol=rtol, atol=0.0, equal_nan=True)
    else:
        ok = np.array_equal(a, e)
    assert ok, f"values differ:\n{a}\n{e}"


def _dt(values: np.ndarray) -> DataType:
    return lookup_dtype(values.dtype)


def _cast(x: Any, dt: DataType) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.asarray(x).astype(dt.np_type)


def _check(x: Dense, ndim: int | None = None) -> Dense:
    """Validate a dense pair; returns (values, present) as arrays."""
    if not (isinstance(x, tuple) and len(x) == 2):
        raise InvalidObject(f"expected a dense pair (values, present), got {type(x).__name__}")
    v, p = np.asarray(x[0]), np.asarray(x[1], dtype=bool)
    if v.shape != p.shape:
        raise DimensionMismatch(f"values have shape {v.shape}, present {p.shape}")
    if ndim is not None and v.ndim != ndim:
        raise DimensionMismatch(f"expected a {ndim}-D operand, got shape {v.shape}")
    return v, p


def _is_dense(x: Any) -> bool:
    return isinstance(x, tuple) and len(x) == 2 and isinstance(x[0], np.ndarray)


def _empty(shape: tuple[int, ...], dt: DataType) -> Dense:
    return np.zeros(shape, dt.np_type), np.zeros(shape, bool)


def _finish(values: np.ndarray, present: np.ndarray) -> Dense:
    """Zero the absent values (so results are deterministic) and return the pair."""
    values = values.copy()
    values[~present] = 0
    return values, present.copy()


def _coords(shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """(row, col) of every position; a vector's entry k is at (k, 0)."""
    if len(shape) == 1:
        return np.arange(shape[0], dtype=np.int64), np.zeros(shape[0], np.int64)
    r, c = np.indices(shape, dtype=np.int64)
    return r, c


def _index(I: Any, n: int) -> np.ndarray:
    """An index array (None means all of 0..n-1), bounds-checked."""
    if I is None:
        return np.arange(n, dtype=np.int64)
    idx = np.asarray(I, dtype=np.int64).reshape(-1)
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise IndexOutOfBound(f"indices {idx.tolist()} out of range 0..{n - 1}")
    return idx


def _as_binary(op: Any) -> BinaryOp:
    if isinstance(op, Monoid):
        return op.binaryop
    if isinstance(op, BinaryOp):
        return op
    raise InvalidObject(f"expected a BinaryOp or Monoid, got {op!r}")


def _as_monoid(op: Any) -> Monoid:
    if isinstance(op, Monoid):
        return op
    if isinstance(op, BinaryOp) and op.monoid is not None:
        m = op.monoid
        return m[op.fixed_type] if op.fixed_type is not None else m
    raise InvalidObject(f"expected a Monoid, got {op!r}")


def _binary(op: BinaryOp, x: np.ndarray, y: np.ndarray, xdt: DataType, ydt: DataType,
            first_pos: tuple[np.ndarray, np.ndarray],
            second_pos: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """op(x, y) on 1-D arrays of entries, typed ``op.return_type(xdt, ydt)``.

    ``first_pos``/``second_pos`` are the (rows, cols) of the x and y entries, read by
    positional operators: firsti -> first row, firstj -> first col, secondi -> second row,
    secondj -> second col, plus ``op.offset``.
    """
    if op.positional:
        which, axis = op.positional[:-1], op.positional[-1]
        pos = first_pos if which == "first" else second_pos
        idx = pos[0] if axis == "i" else pos[1]
        return np.asarray(idx, dtype=np.int64) + op.offset
    rt = op.return_type(xdt, ydt)
    if len(x) == 0:
        return np.zeros(0, rt.np_type)
    d = op.domain(xdt, ydt)
    with np.errstate(all="ignore"):
        z = op.for_domain(d).np_func(_cast(x, d), _cast(y, d))
    return _cast(z, rt)


def _fold_into(acc_v: np.ndarray, acc_p: np.ndarray, where: tuple[np.ndarray, ...],
               t: np.ndarray, add: BinaryOp, out: DataType) -> None:
    """acc[where] = t where acc is absent, else add(acc[where], t); in place."""
    first = ~acc_p[where]
    rest = ~first
    old = acc_v[where]
    new = old.copy()
    new[first] = t[first]
    if rest.any():
        with np.errstate(all="ignore"):
            new[rest] = _cast(add.np_func(old[rest], t[rest]), out)
    acc_v[where] = new
    acc_p[where] = True


def _mask_bits(mask: MaskSpec | None, shape: tuple[int, ...]) -> np.ndarray:
    """Where the mask lets a result through (no mask: everywhere)."""
    if mask is None:
        return np.ones(shape, bool)
    mv, mp, structure, complement = mask
    mv, mp = _check((mv, mp))
    if mp.shape != tuple(shape):
        raise DimensionMismatch(f"mask has shape {mp.shape}, output {tuple(shape)}")
    bits = mp.copy() if structure else mp & (mv != 0)
    return ~bits if complement else bits


# ----------------------------------------------------------------------- semiring ops
def mxm(A: Dense, B: Dense, semiring: Semiring) -> Dense:
    """C[i,j] = ⊕_k mult(A[i,k], B[k,j]) over the k where both are present."""
    Av, Ap = _check(A, 2)
    Bv, Bp = _check(B, 2)
    (m, n), (n2, p) = Av.shape, Bv.shape
    if n != n2:
        raise DimensionMismatch(f"mxm: A is {m}x{n}, B is {n2}x{p}")
    domain, out = semiring.types(_dt(Av), _dt(Bv))
    mult = semiring.binaryop.for_domain(domain)
    add = semiring.monoid.for_domain(out).binaryop
    Av, Bv = _cast(Av, domain), _cast(Bv, domain)
    Cv, Cp = _empty((m, p), out)
    for k in range(n):
        i, j = np.nonzero(Ap[:, k][:, None] & Bp[k, :][None, :])
        if len(i) == 0:
            continue
        kk = np.full(len(i), k, dtype=np.int64)
        t = _cast(_binary(mult, Av[i, k], Bv[k, j], domain, domain, (i, kk), (kk, j)), out)
        _fold_into(Cv, Cp, (i, j), t, add, out)
    return _finish(Cv, Cp)


def mxv(A: Dense, x: Dense, semiring: Semiring) -> Dense:
    """T[i] = ⊕_k mult(A[i,k], x[k]); x[k] sits at (k, 0) for positional multiplies."""
    xv, xp = _check(x, 1)
    Tv, Tp = mxm(A, (xv[:, None], xp[:, None]), semiring)
    return Tv[:, 0].copy(), Tp[:, 0].copy()


def vxm(x: Dense, A: Dense, semiring: Semiring) -> Dense:
    """T[j] = ⊕_k mult(x[k], A[k,j]); x[k] sits at (0, k) for positional multiplies."""
    xv, xp = _check(x, 1)
    Tv, Tp = mxm((xv[None, :], xp[None, :]), A, semiring)
    return Tv[0].copy(), Tp[0].copy()


# ------------------------------------------------------------------------ element-wise
def _ewise(a: Dense, b: Dense, op: Any, union: bool) -> Dense:
    av, ap = _check(a)
    bv, bp = _check(b)
    if av.shape != bv.shape:
        raise DimensionMismatch(f"element-wise: shapes {av.shape} and {bv.shape}")
    op = _as_binary(op)
    adt, bdt = _dt(av), _dt(bv)
    rt = op.return_type(adt, bdt)
    rows, cols = _coords(av.shape)
    both = ap & bp
    zv, zp = _empty(av.shape, rt)
    pos = (rows[both], cols[both])
    zv[both] = _binary(op, av[both], bv[both], adt, bdt, pos, pos)
    zp[both] = True
    if union:
        only_a, only_b = ap & ~bp, bp & ~ap
        zv[only_a] = _cast(av[only_a], rt)
        zv[only_b] = _cast(bv[only_b], rt)
        zp |= ap | bp
    return _finish(zv, zp)


def ewise_add(a: Dense, b: Dense, op: BinaryOp | Monoid) -> Dense:
    """Union: op(a, b) where both present, the one value (cast) where only one is."""
    return _ewise(a, b, op, union=True)


def ewise_mult(a: Dense, b: Dense, op: BinaryOp | Monoid) -> Dense:
    """Intersection: op(a, b) where both are present."""
    return _ewise(a, b, op, union=False)


def ewise_union(a: Dense, b: Dense, op: BinaryOp | Monoid, left_default: Any,
                right_default: Any) -> Dense:
    """GxB_eWiseUnion: op(a, b) on the union, a missing operand replaced by its default."""
    av, ap = _check(a)
    bv, bp = _check(b)
    if av.shape != bv.shape:
        raise DimensionMismatch(f"ewise_union: shapes {av.shape} and {bv.shape}")
    d = _as_binary(op).domain(_dt(av), _dt(bv))  # the defaults are cast to op's domain
    av2 = np.where(ap, _cast(av, d), _cast(left_default, d))
    bv2 = np.where(bp, _cast(bv, d), _cast(right_default, d))
    full = ap | bp
    return _ewise((av2, full), (bv2, full), op, union=False)


# ------------------------------------------------------------------------ apply, select
def apply(a: Dense, op: UnaryOp | BinaryOp | Monoid | IndexUnaryOp, *, left: Any = None,
          right: Any = None, thunk: Any = None) -> Dense:
    """f(a) for a UnaryOp; f(left, a) or f(a, right) for a BinaryOp with a bound scalar.

    A bound scalar has the type ``dtype_of_value`` gives it (pass a NumPy scalar to pin
    it), unified with a's dtype by ``op.domain``. An IndexUnaryOp goes to ``apply_index``.
    """
    if isinstance(op, IndexUnaryOp):
        return apply_index(a, op, thunk)
    av, ap = _check(a)
    dt = _dt(av)
    rows, cols = _coords(av.shape)
    if isinstance(op, UnaryOp):
        rt = op.return_type(dt)
        zv = np.zeros(av.shape, rt.np_type)
        if op.positional:
            zv[ap] = (rows if op.positional == "i" else cols)[ap] + op.offset
        elif ap.any():
            d = op.domain(dt)
            with np.errstate(all="ignore"):
                zv[ap] = _cast(op.np_func(_cast(av[ap], d)), rt)
        return _finish(zv, ap)
    op = _as_binary(op)
    if (left is None) == (right is None):
        raise InvalidValue("apply with a BinaryOp needs exactly one of left= or right=")
    s = left if left is not None else right
    sdt = dtype_of_value(s)
    x = av[ap]
    sv = np.full(x.shape, s, dtype=sdt.np_type)
    pos = (rows[ap], cols[ap])
    if left is not None:
        rt = op.return_type(sdt, dt)
        vals = _binary(op, sv, x, sdt, dt, pos, pos)
    else:
        rt = op.return_type(dt, sdt)
        vals = _binary(op, x, sv, dt, sdt, pos, pos)
    zv = np.zeros(av.shape, rt.np_type)
    zv[ap] = vals
    return _finish(zv, ap)


def apply_index(a: Dense, op: IndexUnaryOp, thunk: Any) -> Dense:
    """op.np_func(value, i, j, thunk) at each entry; typed ``op.return_type(a.dtype)``."""
    av, ap = _check(a)
    rt = op.return_type(_dt(av))
    rows, cols = _coords(av.shape)
    zv = np.zeros(av.shape, rt.np_type)
    if ap.any():
        zv[ap] = _cast(op.np_func(av[ap], rows[ap], cols[ap], thunk), rt)
    return _finish(zv, ap)


def select(a: Dense, op: IndexUnaryOp, thunk: Any = 0) -> Dense:
    """Keep the entries where op.np_func(value, i, j, thunk) is true (vectors: j = 0)."""
    av, ap = _check(a)
    rows, cols = _coords(av.shape)
    keep = ap.copy()
    if ap.any():
        keep[ap] = np.asarray(op.np_func(av[ap], rows[ap], cols[ap], thunk)).astype(bool)
    return _finish(av, keep)


# --------------------------------------------------------------------------- reductions
def _reduce_type(monoid: Monoid, dt: DataType) -> tuple[Monoid, DataType]:
    d = monoid.fixed_type if monoid.fixed_type is not None else dt
    return monoid.for_domain(d), d


def reduce_rows(A: Dense, monoid: Monoid | BinaryOp) -> Dense:
    """w[i] = ⊕_j A[i,j] (ascending j); a row with no entries is absent."""
    Av, Ap = _check(A, 2)
    m, d = _reduce_type(_as_monoid(monoid), _dt(Av))
    Av = _cast(Av, d)
    wv, wp = _empty((Av.shape[0],), d)
    for j in range(Av.shape[1]):
        (i,) = np.nonzero(Ap[:, j])
        _fold_into(wv, wp, (i,), Av[i, j], m.binaryop, d)
    return _finish(wv, wp)


def reduce_cols(A: Dense, monoid: Monoid | BinaryOp) -> Dense:
    """w[j] = ⊕_i A[i,j] (ascending i); a column with no entries is absent."""
    return reduce_rows(transpose(A), monoid)


def reduce_vector(a: Dense, monoid: Monoid | BinaryOp) -> tuple[Any, bool]:
    """(⊕_k a[k], True), or (identity, False) when a has no entries."""
    av, ap = _check(a, 1)
    mon = _as_monoid(monoid)
    wv, wp = reduce_rows((av[None, :], ap[None, :]), mon)
    m, d = _reduce_type(mon, _dt(av))
    if wp[0]:
        return wv[0], True
    return d.np_type.type(m.identity(d)), False


def reduce_scalar(A: Dense, monoid: Monoid | BinaryOp) -> tuple[Any, bool]:
    """⊕ of all entries in row-major order; (identity, False) when A is empty."""
    Av, Ap = _check(A, 2)
    return reduce_vector((Av.ravel(), Ap.ravel()), monoid)


# --------------------------------------------------------------------- extract, transpose
def transpose(A: Dense) -> Dense:
    Av, Ap = _check(A, 2)
    return Av.T.copy(), Ap.T.copy()


def extract_vector(a: Dense, I: Any) -> Dense:
    """w[t] = a[I[t]] (I None: all)."""
    av, ap = _check(a, 1)
    idx = _index(I, av.shape[0])
    return _finish(av[idx], ap[idx])


def extract_matrix(A: Dense, I: Any, J: Any) -> Dense:
    """C[s,t] = A[I[s], J[t]] (None: all)."""
    Av, Ap = _check(A, 2)
    ix = np.ix_(_index(I, Av.shape[0]), _index(J, Av.shape[1]))
    return _finish(Av[ix], Ap[ix])


def extract_row(A: Dense, i: int, J: Any) -> Dense:
    """w[t] = A[i, J[t]]."""
    Av, Ap = _check(A, 2)
    i = int(_index([i], Av.shape[0])[0])
    return extract_vector((Av[i], Ap[i]), J)


def extract_col(A: Dense, I: Any, j: int) -> Dense:
    """w[t] = A[I[t], j]."""
    Av, Ap = _check(A, 2)
    j = int(_index([j], Av.shape[1])[0])
    return extract_vector((Av[:, j], Ap[:, j]), I)


# ------------------------------------------------------------------------------ assign
def _operand(u: Any, shape: tuple[int, ...]) -> Dense:
    """A dense operand of ``shape``; a scalar fills every position (always present)."""
    if _is_dense(u):
        uv, up = _check(u)
        if uv.shape != shape:
            raise DimensionMismatch(f"assign: operand has shape {uv.shape}, region {shape}")
        return uv, up
    return np.full(shape, u, dtype=dtype_of_value(u).np_type), np.ones(shape, bool)


def _last_wins(flat: np.ndarray) -> np.ndarray:
    """Positions in ``flat`` of the last occurrence of each distinct value, in order."""
    _, first_in_reversed = np.unique(flat[::-1], return_index=True)
    return np.sort(len(flat) - 1 - first_in_reversed)


def _region(shape: tuple[int, ...], index_lists: list[np.ndarray]) -> np.ndarray:
    """Flat positions in C of the region, in the row-major order of the operand."""
    grids = np.meshgrid(*index_lists, indexing="ij")
    return np.ravel_multi_index(tuple(g.ravel() for g in grids), shape).astype(np.int64)


def _assign(C: Dense, index_lists: list[np.ndarray], u: Any, mask: MaskSpec | None,
            accum: Any, replace: bool, out_dtype: Any) -> Dense:
    Cv, Cp = _check(C)
    out = lookup_dtype(out_dtype) if out_dtype is not None else _dt(Cv)
    uv, up = _operand(u, tuple(len(ix) for ix in index_lists))
    tgt = _region(Cv.shape, index_lists)
    sv, sp = uv.ravel(), up.ravel()
    Zv, Zp = _cast(Cv, out).ravel(), Cp.ravel().copy()
    if accum is None:  # Z = C, with Z(region) = u (the last occurrence of a target wins)
        keep = _last_wins(tgt)
        Zv[tgt[keep]], Zp[tgt[keep]] = _cast(sv[keep], out), sp[keep]
    else:  # every present occurrence folded into its target in turn
        op = _as_binary(accum)
        rows, cols = _flat_coords(Cv.shape, tgt)
        for p in np.flatnonzero(sp):
            t = tgt[p]
            if Zp[t]:
                pos = (rows[p:p + 1], cols[p:p + 1])
                Zv[t] = _cast(_binary(op, Zv[t:t + 1], sv[p:p + 1], out, _dt(uv), pos, pos),
                              out)[0]
            else:
                Zv[t], Zp[t] = _cast(sv[p], out), True
    Z = (Zv.reshape(Cv.shape), Zp.reshape(Cv.shape))
    # then C<mask, replace> = Z over the whole of C
    return writeback(C, Z, mask, None, replace, out)


def _flat_coords(shape: tuple[int, ...], flat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    rows, cols = _coords(shape)
    return rows.ravel()[flat], cols.ravel()[flat]


def assign_vector(C: Dense, I: Any, u: Any, *, mask: MaskSpec | None = None, accum: Any = None,
                  replace: bool = False, out_dtype: Any = None) -> Dense:
    """GrB_Vector_assign: w<mask>(I) = accum(w(I), u); the mask has w's length.

    ``u`` is a dense pair of length len(I) (entries absent in u delete w(I) without accum)
    or a scalar. ``out_dtype`` defaults to C's dtype. Duplicates in I: the last wins.
    """
    Cv, _ = _check(C, 1)
    return _assign(C, [_index(I, Cv.shape[0])], u, mask, accum, replace, out_dtype)


def assign_matrix(C: Dense, I: Any, J: Any, A: Any, *, mask: MaskSpec | None = None,
                  accum: Any = None, replace: bool = False, out_dtype: Any = None) -> Dense:
    """GrB_Matrix_assign: C<mask>(I,J) = accum(C(I,J), A); the mask has C's shape."""
    Cv, _ = _check(C, 2)
    idx = [_index(I, Cv.shape[0]), _index(J, Cv.shape[1])]
    return _assign(C, idx, A, mask, accum, replace, out_dtype)


def assign_row(C: Dense, i: int, J: Any, u: Any, *, mask: MaskSpec | None = None,
               accum: Any = None, replace: bool = False, out_dtype: Any = None) -> Dense:
    """GrB_Row_assign: C<mask>(i,J) = accum(C(i,J), u); mask and replace act on row i only."""
    Cv, Cp = _check(C, 2)
    out = lookup_dtype(out_dtype) if out_dtype is not None else _dt(Cv)
    i = int(_index([i], Cv.shape[0])[0])
    rv, rp = assign_vector((Cv[i], Cp[i]), J, u, mask=mask, accum=accum, replace=replace,
                           out_dtype=out)
    Zv, Zp = _cast(Cv, out), Cp.copy()
    Zv[i], Zp[i] = rv, rp
    return _finish(Zv, Zp)


def assign_col(C: Dense, I: Any, j: int, u: Any, *, mask: MaskSpec | None = None,
               accum: Any = None, replace: bool = False, out_dtype: Any = None) -> Dense:
    """GrB_Col_assign: C<mask>(I,j) = accum(C(I,j), u); mask and replace act on column j."""
    Tv, Tp = assign_row(transpose(C), j, I, u, mask=mask, accum=accum, replace=replace,
                        out_dtype=out_dtype)
    return transpose((Tv, Tp))


def _subassign(C: Dense, index_lists: list[np.ndarray], u: Any, mask: MaskSpec | None,
               accum: Any, replace: bool, out_dtype: Any) -> Dense:
    Cv, Cp = _check(C)
    out = lookup_dtype(out_dtype) if out_dtype is not None else _dt(Cv)
    shape = tuple(len(ix) for ix in index_lists)
    ix = np.ix_(*index_lists)
    S = (Cv[ix], Cp[ix])
    Rv, Rp = writeback(S, _operand(u, shape), mask, accum, replace, out)
    tgt = _region(Cv.shape, index_lists)
    keep = _last_wins(tgt)
    Zv, Zp = _cast(Cv, out).ravel(), Cp.ravel().copy()
    Zv[tgt[keep]], Zp[tgt[keep]] = Rv.ravel()[keep], Rp.ravel()[keep]
    return _finish(Zv.reshape(Cv.shape), Zp.reshape(Cv.shape))


def subassign_vector(C: Dense, I: Any, u: Any, *, mask: MaskSpec | None = None,
                     accum: Any = None, replace: bool = False, out_dtype: Any = None) -> Dense:
    """GxB_Vector_subassign: w(I)<mask> = accum(w(I), u); the mask has length len(I) and
    mask/replace act inside the region only (entries outside I are never touched)."""
    Cv, _ = _check(C, 1)
    return _subassign(C, [_index(I, Cv.shape[0])], u, mask, accum, replace, out_dtype)


def subassign_matrix(C: Dense, I: Any, J: Any, A: Any, *, mask: MaskSpec | None = None,
                     accum: Any = None, replace: bool = False, out_dtype: Any = None) -> Dense:
    """GxB_Matrix_subassign: C(I,J)<mask> = accum(C(I,J), A); mask of shape (|I|, |J|)."""
    Cv, _ = _check(C, 2)
    idx = [_index(I, Cv.shape[0]), _index(J, Cv.shape[1])]
    return _subassign(C, idx, A, mask, accum, replace, out_dtype)


# --------------------------------------------------------------------------- write-back
def _accumulate(C: Dense, T: Dense, accum: Any, out: DataType,
                coords: tuple[np.ndarray, np.ndarray]) -> Dense:
    """Z = C ⊙ T (union): accum(C, T) in accum's domain where both are present, else the
    one present value; all cast to ``out``. ``coords`` are the (row, col) of the entries."""
    Cv, Cp = C
    Tv, Tp = T
    op = _as_binary(accum)
    both = Cp & Tp
    Zv = np.where(Cp, _cast(Cv, out), _cast(Tv, out))
    pos = (coords[0][both], coords[1][both])
    Zv[both] = _cast(_binary(op, Cv[both], Tv[both], _dt(Cv), _dt(Tv), pos, pos), out)
    return Zv, Cp | Tp


def writeback(C: Dense, T: Dense, mask: MaskSpec | None = None, accum: Any = None,
              replace: bool = False, out_dtype: Any = None) -> Dense:
    """C<mask, replace> = accum(C, T) as the GraphBLAS C API defines it.

    Z = T without accum, else the union C ⊙ T. Where the mask bit is true the result is
    Z's entry (present iff Z's is); elsewhere C's entry is kept, or deleted if ``replace``.
    Everything is cast to ``out_dtype`` (default: C's dtype).
    """
    Cv, Cp = _check(C)
    Tv, Tp = _check(T)
    if Cv.shape != Tv.shape:
        raise DimensionMismatch(f"write-back: output {Cv.shape}, result {Tv.shape}")
    out = lookup_dtype(out_dtype) if out_dtype is not None else _dt(Cv)
    if accum is None:
        Zv, Zp = _cast(Tv, out), Tp
    else:
        Zv, Zp = _accumulate((Cv, Cp), (Tv, Tp), accum, out, _coords(Cv.shape))
    bits = _mask_bits(mask, Cv.shape)
    Rp = np.where(bits, Zp, Cp & (not replace))
    Rv = np.where(bits, Zv, _cast(Cv, out))
    return _finish(Rv.astype(out.np_type, copy=False), Rp)
