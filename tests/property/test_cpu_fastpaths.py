"""The CPU fast paths under FastSV and PageRank against the oracle (gblas.ops.reference):

- ``w(accum)[I] << u`` into a full w (``scatter_into_full``) and into a bitmap w
  (``_fold_arith``): min/max/plus/times folded over duplicate indices, u with absent
  entries, every dtype of the suite, NaN among float values;
- the pull for a full x and no mask (``spmv._pull_full``);
- ``isequal`` of two dense CPU vectors (full or bitmap, without index lists).
"""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from gblas import Matrix, Vector, binary, semiring
from gblas.ops import reference as ref

from .strategies import DTYPES, assert_matches, dense_arrays, elements, from_vector, to_vector

ARITH = (binary.min, binary.max, binary.plus, binary.times)
NUMERIC = tuple(t for t in DTYPES if t.kind != "b")


@st.composite
def _values(draw: st.DrawFn, n: int, dtype: np.dtype) -> np.ndarray:
    """Values with NaN sometimes among floats (min/max keep the entry already there)."""
    el = elements(dtype)
    if dtype.kind == "f":
        el = st.one_of(el, st.just(float("nan")))
    return draw(arrays(dtype, (n,), elements=el))


@given(data=st.data())
def test_accumulated_scatter_with_duplicates_vs_oracle(data: st.DataObject) -> None:
    """``w(op)[I] << u`` with many duplicates: full or bitmap w, u full or with holes."""
    d = data.draw
    n = d(st.integers(0, 30), label="n")
    dt = d(st.sampled_from(NUMERIC), label="dtype")
    op = d(st.sampled_from(ARITH + (binary.first, binary.minus)), label="accum")
    k = d(st.integers(0, 3 * n + 2) if n else st.just(0), label="len(I)")
    I = d(arrays(np.int64, (k,), elements=st.integers(0, max(n - 1, 0))), label="I")  # noqa: N806
    w0 = (d(_values(n, dt), label="w"), np.ones(n, bool))
    if d(st.booleans(), label="w has holes") and n:
        w0 = (w0[0], d(arrays(np.bool_, (n,)), label="w present"))
    uv = d(_values(k, dt), label="u")
    up = np.ones(k, bool) if d(st.booleans(), label="u full") else \
        d(arrays(np.bool_, (k,)), label="u present")
    w = to_vector(w0, "full" if w0[1].all() else "bitmap")
    u = to_vector((uv, up), "full" if up.all() else "bitmap")
    w(op)[I] << u
    expected = ref.assign_vector(w0, I, (uv, up), accum=op)
    assert_matches(from_vector(w), expected, what=f"w({op.name})[{list(I)}] << u")


def test_scatter_into_full_empty_and_int_types() -> None:
    """No index (nothing changes), isolated targets, and int types that wrap."""
    w = Vector.from_dense(np.arange(5, dtype=np.int64))
    w(binary.min)[np.empty(0, np.int64)] << Vector.from_dense(np.empty(0, np.int64))
    assert w.isequal(Vector.from_dense(np.arange(5, dtype=np.int64)))
    w8 = Vector.from_dense(np.array([100, 1, 2], dtype=np.int8))
    w8(binary.plus)[[0, 0, 0]] << Vector.from_dense(np.array([100, 100, 1], dtype=np.int8))
    assert w8.to_dense().tolist() == [45, 1, 2]  # 100 + 100 + 100 + 1 wraps to 45
    assert w8.nvals == 3 and w8._data.kind == "full"


@given(data=st.data())
def test_pull_full_x_vs_oracle(data: st.DataObject) -> None:
    """A ⊕.⊗ x with x full and no mask, for the semirings of the specialised pull."""
    d = data.draw
    n = d(st.integers(0, 25), label="n")
    dt = d(st.sampled_from((np.dtype(np.int64), np.dtype(np.int32), np.dtype(np.float64),
                            np.dtype(np.float32))), label="dtype")
    sr = d(st.sampled_from((semiring.min_second, semiring.plus_first, semiring.plus_times,
                            semiring.max_plus, semiring.min_plus, semiring.plus_pair)),
           label="semiring")
    A = d(dense_arrays((n, n), dt), label="A")  # noqa: N806
    x = (d(arrays(dt, (n,), elements=elements(dt)), label="x"), np.ones(n, bool))
    rows, cols = np.nonzero(A[1])
    M = Matrix.from_coo(rows, cols, A[0][rows, cols], dtype=dt, nrows=n, ncols=n)  # noqa: N806
    xv = Vector.from_dense(x[0])
    got = M.mxv(xv, sr[dt.type]).new()
    expected = ref.mxv(A, x, sr[dt.type])
    assert_matches(from_vector(got), expected, tol=(1e-6, 1e-6) if dt.kind == "f" else None,
                   what=f"A {sr.name} x")


@given(data=st.data())
def test_isequal_dense_cpu_vs_entries(data: st.DataObject) -> None:
    """isequal on full/bitmap vectors agrees with comparing their entries."""
    d = data.draw
    n = d(st.integers(0, 20), label="n")
    dt = d(st.sampled_from(DTYPES), label="dtype")
    a = d(dense_arrays((n,), dt), label="a")
    same = d(st.booleans(), label="same")
    b = (a[0].copy(), a[1].copy()) if same else d(dense_arrays((n,), dt), label="b")
    if same and n and d(st.booleans(), label="perturb absent value"):
        b[0][~b[1]] = b[0][~b[1]][::-1] if dt.kind != "b" else ~b[0][~b[1]]
    va = to_vector(a, d(st.sampled_from(["full", "bitmap"]), label="a storage"))
    vb = to_vector(b, d(st.sampled_from(["full", "bitmap"]), label="b storage"))
    expected = bool(np.array_equal(a[1], b[1]) and np.array_equal(
        a[0][a[1]], b[0][b[1]], equal_nan=dt.kind == "f"))
    assert va.isequal(vb) is expected
    assert vb.isequal(va) is expected
