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


def _skewed_csr(seed: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """CSR arrays of a random n×n pattern with hub rows, empty rows and rows of one entry."""
    rng = np.random.default_rng(seed)
    deg = rng.choice([0, 1, 2, 3, 40], size=n, p=[0.2, 0.3, 0.2, 0.2, 0.1])
    deg[rng.integers(0, n, size=2)] = n // 2  # two hubs
    indptr = np.concatenate(([0], np.cumsum(deg))).astype(np.int64)
    indices = np.concatenate([np.sort(rng.choice(n, size=int(k), replace=False))
                              for k in deg]).astype(np.int64)
    return indptr, indices


def test_pull_pieces_cover_every_row_once() -> None:
    """The specialised pull cut into any number of pieces of equal work (``_row_cut``)
    gives the result of one piece, and SciPy's: every row folded once, by one thread."""
    import scipy.sparse as sp  # noqa: PLC0415

    from gblas.backend import spmv  # noqa: PLC0415
    from gblas.semirings.codegen_numba import PLUS, SECOND  # noqa: PLC0415
    for seed, n in ((1, 5000), (2, 777), (3, 1)):
        indptr, indices = _skewed_csr(seed, n)
        cuts = [spmv._row_cut(indptr, t, 7) for t in range(8)]
        assert cuts[0] == 0 and cuts[-1] == n and cuts == sorted(cuts)
        x = np.random.default_rng(seed).random(n)
        expected = sp.csr_matrix((np.ones(indices.size), indices, indptr), shape=(n, n)) @ x
        results = []
        for parts in (1, 2, 3, 7, 64, n + 5):
            out, pres = np.full(n, np.nan), np.zeros(n, np.bool_)
            spmv._pull_full(indptr, indices, np.zeros(1), True, x, PLUS, SECOND, out, pres,
                            parts)
            np.testing.assert_array_equal(pres, np.diff(indptr) > 0)
            results.append(out[pres])
            bout, bpres = np.full(n, np.nan), np.zeros(n, np.bool_)
            xpres = np.arange(n) % 3 != 0
            mask = np.arange(n) % 5 != 0
            spmv._pull(indptr, indices, np.zeros(1), True, x, xpres, False, mask, True,
                       False, PLUS, SECOND, bout, bpres, parts)
            masked = sp.csr_matrix((np.ones(indices.size), indices, indptr), shape=(n, n))
            want_pres = (masked @ xpres.astype(float) > 0) & mask
            np.testing.assert_array_equal(bpres, want_pres)
            np.testing.assert_allclose(bout[bpres], (masked @ np.where(xpres, x, 0))[bpres])
        for r in results[1:]:
            np.testing.assert_array_equal(r, results[0])  # the same sums, bit for bit
        np.testing.assert_allclose(results[0], expected[np.diff(indptr) > 0])


def test_pull_operator_copies_match_a_row_fold() -> None:
    """The kernels with their operators fixed (min_plus, plus_times) and the shared ones
    (min_second, plus_second, max_times, plus_first) against a plain per-row fold, with
    matrix values, a full or a partial x, a mask, and several pieces."""
    from gblas.backend import spmv  # noqa: PLC0415
    from gblas.semirings.codegen_numba import FIRST, MAX, MIN, PLUS, SECOND, TIMES  # noqa: PLC0415
    fold = {PLUS: lambda a, b: a + b, MIN: min, MAX: max}
    prod = {SECOND: lambda a, x: x, FIRST: lambda a, x: a, TIMES: lambda a, x: a * x,
            PLUS: lambda a, x: a + x}
    indptr, indices = _skewed_csr(4, 300)
    rng = np.random.default_rng(4)
    vals = rng.integers(1, 9, indices.size).astype(np.float64)
    x = rng.integers(-5, 6, 300).astype(np.float64)
    xpres = rng.random(300) < 0.6
    mask = rng.random(300) < 0.7
    for aop, mop in ((MIN, PLUS), (PLUS, TIMES), (MIN, SECOND), (PLUS, SECOND), (MAX, TIMES),
                     (PLUS, FIRST)):
        for full in (True, False):
            out, pres = np.zeros(300), np.zeros(300, np.bool_)
            if full:  # the kernel pull() picks for a matrix with values
                kernel = spmv._OWN_FULL.get((aop, mop), spmv._pull_full)
                kernel(indptr, indices, vals, False, x, aop, mop, out, pres, 5)
            else:
                kernel = spmv._OWN.get((aop, mop), spmv._pull)
                kernel(indptr, indices, vals, False, x, xpres, False, mask, True, False, aop,
                       mop, out, pres, 5)
            for i in range(300):
                ks = [p for p in range(indptr[i], indptr[i + 1])
                      if full or (mask[i] and xpres[indices[p]])]
                assert pres[i] == bool(ks), (aop, mop, full, i)
                if ks:
                    acc = prod[mop](vals[ks[0]], x[indices[ks[0]]])
                    for p in ks[1:]:
                        acc = fold[aop](acc, prod[mop](vals[p], x[indices[p]]))
                    assert out[i] == acc, (aop, mop, full, i)
