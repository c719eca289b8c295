"""Hypothesis strategies and conversions between gblas objects and the oracle's dense pairs.

The oracle (``gblas.ops.reference``) works on ``(values, present)`` pairs; these helpers
draw random pairs (shapes including 0 and 1, any density, explicit zeros), turn them into
gblas objects (``Vector.from_coo`` / ``Matrix.from_coo``, in a chosen storage or format),
read gblas objects back (``to_coo``), and compare a result with one or several acceptable
expected pairs (several when an ``any`` monoid may pick any candidate).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from gblas import Matrix, Vector, binary
from gblas.dtypes import lookup_dtype
from gblas.ops import reference as ref

Dense = tuple[np.ndarray, np.ndarray]

# The dtypes the suite draws from. Numba compiles each kernel once per dtype (seconds on
# a cold cache), so the list is the one the brief names and no longer.
DTYPES: tuple[np.dtype, ...] = tuple(np.dtype(t) for t in (
    np.bool_, np.int8, np.int32, np.int64, np.uint8, np.uint64, np.float32, np.float64))

dtypes = st.sampled_from(DTYPES)
# mostly tiny (0 and 1 included), sometimes past the storage/direction thresholds (a
# vector of density <= 5% is stored sparse, "auto" picks push below 4% density)
sizes = st.one_of(st.integers(min_value=0, max_value=9), st.integers(min_value=10, max_value=40))
small_sizes = st.integers(min_value=0, max_value=6)

ACCUMS = (None, binary.plus, binary.min, binary.max, binary.second, binary.first,
          binary.minus, binary.times)
accums = st.sampled_from(ACCUMS)


@st.composite
def dtype_pairs(draw: Any) -> tuple[np.dtype, np.dtype]:
    """Two operand dtypes: usually equal (few JIT specialisations), sometimes mixed."""
    a = draw(dtypes)
    b = draw(st.one_of(st.just(a), st.just(a), dtypes))
    return a, b


# ---------------------------------------------------------------------------- values
def elements(dtype: np.dtype) -> st.SearchStrategy[Any]:
    """Small values (explicit zeros included): sums and products stay far from overflow
    for the wide types, and floats are float32-exact so float32/float64 agree."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return st.booleans()
    if dtype.kind == "u":
        return st.integers(0, 7)
    if dtype.kind == "i":
        return st.integers(-4, 4)
    return st.one_of(st.integers(-4, 4).map(float),
                     st.floats(-8, 8, width=32, allow_nan=False, allow_subnormal=False))


@st.composite
def dense_arrays(draw: Any, shape: tuple[int, ...], dtype: Any) -> Dense:
    """A random dense pair of ``shape``: empty, full, sparse or half-full."""
    dtype = np.dtype(dtype)
    values = draw(arrays(dtype, shape, elements=elements(dtype)))
    mode = draw(st.sampled_from(["random", "random", "sparse", "hypersparse", "full",
                                 "empty"]))
    if mode == "full":
        present = np.ones(shape, bool)
    elif mode == "empty":
        present = np.zeros(shape, bool)
    elif mode == "sparse":
        present = draw(arrays(np.bool_, shape)) & draw(arrays(np.bool_, shape))
    elif mode == "hypersparse":  # about one entry in 16 (or a single one)
        present = np.zeros(shape, bool)
        if present.size:
            spots = draw(st.lists(st.integers(0, present.size - 1), min_size=1,
                                  max_size=max(1, present.size // 16)))
            present.reshape(-1)[spots] = True
    else:
        present = draw(arrays(np.bool_, shape))
    return ref.dense(values, present, dtype)


def scalar_of(dtype: Any) -> st.SearchStrategy[Any]:
    """A scalar whose type the oracle and the library both read as ``dtype``: a NumPy
    scalar of that dtype, or a Python scalar of the same kind (values in range)."""
    dtype = np.dtype(dtype)
    np_scalar = elements(dtype).map(lambda x: dtype.type(x))
    if dtype.kind == "b":
        return st.one_of(np_scalar, st.booleans())
    if dtype.kind in "iu":
        return st.one_of(np_scalar, st.integers(0, 5))
    return st.one_of(np_scalar, st.sampled_from([0.0, 1.5, -2.25, 3.0]))


# ---------------------------------------------------------------------------- storage
VECTOR_STORAGES = (None, "sparse", "bitmap", "full")
MATRIX_FORMATS = ("csr", "coo")
vector_storages = st.sampled_from(VECTOR_STORAGES)
matrix_formats = st.sampled_from(MATRIX_FORMATS)


def to_vector(pair: Dense, storage: str | None = None) -> Vector:
    """A gblas Vector from a dense pair (``from_coo``), stored as ``storage`` if possible."""
    values, present = pair
    idx = np.flatnonzero(present).astype(np.int64)
    v = Vector.from_coo(idx, values[idx], dtype=values.dtype, size=values.shape[0])
    if storage == "full" and not present.all():
        storage = "bitmap"
    if storage is not None:
        v.to_format(storage)
    return v


def from_vector(v: Vector) -> Dense:
    """The dense pair of a gblas Vector (through ``to_coo``), checking the export."""
    idx, vals = v.to_coo()
    n = v.size
    assert vals.dtype == v.dtype.np_type, f"to_coo values {vals.dtype}, vector {v.dtype}"
    assert idx.shape == vals.shape
    assert np.all(np.diff(idx) > 0), f"to_coo indices not sorted/unique: {idx}"
    assert idx.size == 0 or (idx.min() >= 0 and idx.max() < n), f"index out of range: {idx}"
    assert v.nvals == idx.size, f"nvals {v.nvals} but to_coo gives {idx.size} entries"
    values = np.zeros(n, v.dtype.np_type)
    present = np.zeros(n, bool)
    values[idx] = vals
    present[idx] = True
    return values, present


def to_matrix(pair: Dense, fmt: str | None = None) -> Matrix:
    """A gblas Matrix from a dense pair (``from_coo``), in primary format ``fmt``."""
    values, present = pair
    r, c = np.nonzero(present)
    A = Matrix.from_coo(r.astype(np.int64), c.astype(np.int64), values[r, c],
                        dtype=values.dtype, nrows=values.shape[0], ncols=values.shape[1])
    if fmt is not None:
        A.to_format(fmt)
    return A


def from_matrix(A: Any) -> Dense:
    """The dense pair of a gblas Matrix (through ``to_coo``), checking the export."""
    r, c, vals = A.to_coo()
    m, n = A.shape
    assert vals.dtype == A.dtype.np_type, f"to_coo values {vals.dtype}, matrix {A.dtype}"
    keys = r.astype(np.int64) * max(n, 1) + c
    assert np.all(np.diff(keys) > 0), "to_coo entries not sorted row-major / not unique"
    assert A.nvals == r.size
    values = np.zeros((m, n), A.dtype.np_type)
    present = np.zeros((m, n), bool)
    values[r, c] = vals
    present[r, c] = True
    return values, present


def to_gblas(pair: Dense, storage: str | None = None) -> Any:
    return to_vector(pair, storage) if pair[0].ndim == 1 else to_matrix(pair, storage)


def from_gblas(obj: Any) -> Dense:
    return from_vector(obj) if obj.ndim == 1 else from_matrix(obj)


# ---------------------------------------------------------------------------- masks
MASK_KINDS = (None, "S", "V", "~S", "~V")


@dataclass
class MaskCase:
    """A drawn mask: its kind, its parent's dense pair and storage."""

    kind: str | None
    pair: Dense | None = None
    storage: str | None = None

    @property
    def structure(self) -> bool:
        return self.kind is not None and "S" in self.kind

    @property
    def complement(self) -> bool:
        return self.kind is not None and self.kind.startswith("~")

    def spec(self) -> ref.MaskSpec | None:
        """The oracle's mask tuple."""
        if self.kind is None:
            return None
        return (self.pair[0], self.pair[1], self.structure, self.complement)

    def build(self) -> Any:
        """A fresh gblas Mask (its parent object is referenced by the Mask)."""
        if self.kind is None:
            return None
        parent = to_gblas(self.pair, self.storage if self.pair[0].ndim == 1 else None)
        m = parent.S if self.structure else parent.V
        return ~m if self.complement else m

    def __repr__(self) -> str:
        if self.kind is None:
            return "MaskCase(None)"
        v, p = self.pair
        return (f"MaskCase({self.kind}, dtype={v.dtype}, storage={self.storage},\n"
                f"  values={v.tolist()},\n  present={p.astype(int).tolist()})")


@st.composite
def masks(draw: Any, shape: tuple[int, ...], kinds: tuple[str | None, ...] = MASK_KINDS
          ) -> MaskCase:
    kind = draw(st.sampled_from(kinds))
    if kind is None:
        return MaskCase(None)
    mdt = np.dtype(draw(st.sampled_from([np.bool_, np.int32, np.float64, np.uint8])))
    # values 0/1/2: a value mask sees many explicit zeros
    vals = draw(arrays(mdt, shape, elements=st.sampled_from([0, 1, 2]).map(mdt.type)))
    mode = draw(st.sampled_from(["random", "random", "full", "empty"]))
    if mode == "full":
        present = np.ones(shape, bool)
    elif mode == "empty":
        present = np.zeros(shape, bool)
    else:
        present = draw(arrays(np.bool_, shape))
    storage = draw(vector_storages)
    return MaskCase(kind, ref.dense(vals, present, mdt), storage)


# ---------------------------------------------------------------------------- casting
def cast_is_exact(src: Any, dst: Any, *, rounding: bool = False) -> bool:
    """Whether casting values of ``src`` (as the suite draws and combines them) to ``dst``
    is well defined in NumPy and Numba alike.

    Float -> unsigned of a negative value and float -> narrow int out of range are
    undefined behaviour in C (NumPy and LLVM may differ), so those casts are avoided; a
    float that may carry rounding (``rounding``) is only cast to a float type.
    """
    src, dst = np.dtype(src), np.dtype(dst)
    if src.kind != "f" or dst.kind == "f":
        return True
    if rounding:
        return False
    return dst.kind == "b" or dst in (np.dtype(np.int32), np.dtype(np.int64))


def accum_ok(accum: Any, out: Any, t: Any, *, rounding: bool = False) -> bool:
    """Whether ``out(accum=accum) << T`` (T of dtype t) stays within well-defined casts."""
    out, t = np.dtype(out), np.dtype(t)
    if not cast_is_exact(t, out, rounding=rounding):
        return False
    if accum is None:
        return True
    d = accum.domain(lookup_dtype(out), lookup_dtype(t)).np_type
    if d.kind == "f" and out.kind == "u":
        return False
    return cast_is_exact(d, out, rounding=rounding)


@st.composite
def out_dtypes(draw: Any, t: Any, *, rounding: bool = False) -> np.dtype:
    """The dtype of an existing output receiving a result of dtype ``t``."""
    t = np.dtype(t)
    d = np.dtype(draw(st.one_of(st.just(t), st.just(t), dtypes)))
    return d if cast_is_exact(t, d, rounding=rounding) else t


def assume_accum_ok(accum: Any, out: Any, t: Any, *, rounding: bool = False) -> None:
    assume(accum_ok(accum, out, t, rounding=rounding))


# ---------------------------------------------------------------------------- comparing
def tolerance(dtype: Any, summing: bool) -> tuple[float, float] | None:
    """(rtol, atol) for float results whose value depends on the order of a sum."""
    dtype = np.dtype(dtype)
    if not summing or dtype.kind != "f":
        return None
    return (1e-4, 1e-3) if dtype == np.float32 else (1e-9, 1e-9)


def _fmt(pair: Dense) -> str:
    v, p = pair
    shown = np.where(p, v.astype(object), ".")
    return str(shown.tolist())


def assert_matches(actual: Dense, expected: Dense | list[Dense], *,
                   tol: tuple[float, float] | None = None, what: str = "") -> None:
    """``actual`` equals ``expected`` (or, per position, one of a list of expected pairs
    that share one structure: the ``any`` candidates). Checks dtype and structure exactly,
    values exactly (NaN equals NaN) or, with ``tol``, with ``isclose``."""
    layers = expected if isinstance(expected, list) else [expected]
    av, ap = actual
    ev0, ep0 = layers[0]
    head = f"[{what}] " if what else ""
    assert av.shape == ev0.shape, f"{head}shape {av.shape} != expected {ev0.shape}"
    assert av.dtype == ev0.dtype, f"{head}dtype {av.dtype} != expected {ev0.dtype}"
    assert np.array_equal(ap, ep0), (
        f"{head}structure differs\n  actual:   {_fmt(actual)}\n  expected: {_fmt(layers[0])}")
    a = av[ap]
    ok = np.zeros(a.shape, bool)
    for ev, ep in layers:
        assert np.array_equal(ep, ep0)
        e = ev[ap]
        if tol is not None:
            ok |= np.isclose(a.astype(np.float64), e.astype(np.float64), rtol=tol[0],
                             atol=tol[1], equal_nan=True)
        elif a.dtype.kind == "f":
            ok |= (a == e) | (np.isnan(a) & np.isnan(e))
        else:
            ok |= a == e
    if not ok.all():
        alts = "\n".join(f"  expected: {_fmt(L)}" for L in layers[:6])
        raise AssertionError(f"{head}values differ\n  actual:   {_fmt(actual)}\n{alts}")


def assert_same_object(obj: Any, pair: Dense, what: str = "") -> None:
    """A gblas object still holds exactly ``pair`` (dtype, structure, values)."""
    assert_matches(from_gblas(obj), pair, what=what)


# ---------------------------------------------------------------------------- any_*
def candidate_layers(pieces: list[Dense], fallback: Dense) -> list[Dense]:
    """Acceptable results of an ``any`` reduction, as layers sharing one structure.

    ``pieces[k]`` is the result computed from the k-th contribution alone; position p may
    hold any of the values the pieces have there. Layer t takes the t-th candidate at each
    position (cycling), so every candidate appears in some layer; the write-back is applied
    per layer afterwards, which is exact because it works position by position.
    """
    if not pieces:
        return [fallback]
    shape = pieces[0][0].shape
    dtype = pieces[0][0].dtype
    flat_vals = [p[0].ravel() for p in pieces]
    flat_pres = [p[1].ravel() for p in pieces]
    size = int(np.prod(shape))
    cands: list[list[Any]] = [[v[q] for v, pr in zip(flat_vals, flat_pres, strict=True) if pr[q]]
                              for q in range(size)]
    depth = max([len(c) for c in cands] + [1])
    layers = []
    for t in range(depth):
        vals = np.zeros(size, dtype)
        pres = np.zeros(size, bool)
        for q, c in enumerate(cands):
            if c:
                vals[q] = c[t % len(c)]
                pres[q] = True
        layers.append((vals.reshape(shape), pres.reshape(shape)))
    assert np.array_equal(layers[0][1], fallback[1])
    return layers


def restrict(pair: Dense, axis: int, k: int) -> Dense:
    """Keep only row (axis 0) or column (axis 1) k of a matrix (or entry k of a vector)."""
    v, p = pair
    keep = np.zeros(p.shape, bool)
    if p.ndim == 1:
        keep[k] = True
    elif axis == 0:
        keep[k, :] = True
    else:
        keep[:, k] = True
    return v, p & keep


# ---------------------------------------------------------------------------- assign
def last_occurrence_present(pair: Dense, index_lists: list[Any]) -> Dense:
    """Make the assign operand unambiguous under duplicate indices.

    With duplicate indices the C API leaves GrB_assign undefined. The oracle lets the last
    occurrence win, *present or not* (an absent last occurrence deletes C(i) / keeps it
    under accum); the library lets the last *present* entry win. Both read "last wins";
    they differ only when a duplicated target's last occurrence is absent while an earlier
    one is present. This marks that last occurrence present (value 0 where it was absent),
    so both readings agree and the test checks the defined part.
    """
    v, p = pair
    p = p.copy()
    if p.size == 0:
        return v, p
    idx = [np.asarray(ix, dtype=np.int64).reshape(-1) for ix in index_lists]
    grids = np.meshgrid(*idx, indexing="ij")
    dims = tuple(int(ix.max()) + 1 if ix.size else 1 for ix in idx)
    targets = np.ravel_multi_index(tuple(g.ravel() for g in grids), dims)
    flat = p.reshape(-1)
    for t in np.unique(targets):
        occ = np.flatnonzero(targets == t)
        if occ.size > 1 and flat[occ].any():
            flat[occ[-1]] = True
    return v, flat.reshape(p.shape)
