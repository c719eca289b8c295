"""CPU mxm pieces: chunk planning (gblas.formats.chunks), the
generic array-primitive mxm (gblas.formats.generic.mxm_generic, what user-defined semirings
run on any device) with budgets from one product per chunk to one chunk, against the
Numba Gustavson kernel and the dense oracle; and the dot kernel's intersection paths."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from gblas import BinaryOp, Descriptor, Matrix, Semiring, monoid, semiring
from gblas import _config as config
from gblas.exceptions import DomainMismatch
from gblas.formats import chunks
from gblas.formats.csr import mxm_cpu
from gblas.formats.generic import mxm_generic
from gblas.ops import reference as ref
from gblas.semirings.model import resolve_semiring

SEMIRINGS = ("plus_times", "plus_pair", "min_plus", "max_times", "any_pair", "lor_land",
             "plus_firsti", "any_secondi", "max_first", "times_plus", "min_secondj",
             "any_first")
DTYPES = (np.bool_, np.int8, np.int64, np.uint8, np.float32, np.float64)
BUDGETS = (1, 2, 3, 7, 40, 0)  # 0: auto (one chunk here)


def _values(rng: np.random.Generator, dtype: Any, n: int) -> np.ndarray:
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.random(n) < 0.7
    if dt.kind == "u":
        return rng.integers(0, 6, n).astype(dt)
    if dt.kind == "i":
        return rng.integers(-3, 4, n).astype(dt)
    return (rng.integers(-6, 7, n) / 2).astype(dt)


def _matrix(rng: np.random.Generator, m: int, n: int, density: float, dtype: Any,
            iso: bool) -> Matrix:
    cells = rng.random((m, n)) < density
    r, c = np.nonzero(cells)
    vals: Any = dtype(1) if iso else _values(rng, dtype, r.size)
    return Matrix.from_coo(r, c, vals, dtype=dtype, nrows=m, ncols=n)


def _dense(M: Matrix) -> tuple[np.ndarray, np.ndarray]:  # noqa: N803
    r, c, v = M.to_coo()
    vals = np.zeros(M.shape, dtype=M.dtype.np_type)
    pres = np.zeros(M.shape, dtype=bool)
    vals[r, c], pres[r, c] = v, True
    return vals, pres


def _same_csr(got: Any, want: Any, inexact: bool) -> None:
    np.testing.assert_array_equal(np.asarray(got.indptr), np.asarray(want.indptr))
    np.testing.assert_array_equal(np.asarray(got.indices), np.asarray(want.indices))
    gv, wv = got.full_values(), want.full_values()
    assert gv.dtype == wv.dtype
    if inexact:
        np.testing.assert_allclose(gv, wv, rtol=1e-5)
    else:
        np.testing.assert_array_equal(gv, wv)


@given(seed=st.integers(0, 2**31), sr=st.sampled_from(SEMIRINGS), dt=st.sampled_from(DTYPES),
       masked=st.sampled_from(["none", "S", "~S"]), limit=st.sampled_from(BUDGETS),
       iso=st.booleans(), shape=st.tuples(*(st.integers(0, 9),) * 3))
def test_generic_chunked_equals_gustavson_and_oracle(seed: int, sr: str, dt: Any, masked: str,
                                                     limit: int, iso: bool,
                                                     shape: tuple[int, int, int]) -> None:
    rng = np.random.default_rng(seed)
    m, k, n = shape
    A = _matrix(rng, m, k, rng.uniform(0.1, 0.9), dt, iso)  # noqa: N806
    B = _matrix(rng, k, n, rng.uniform(0.1, 0.9), dt, False)  # noqa: N806
    M = _matrix(rng, m, n, rng.uniform(0.0, 0.8), np.bool_, True)  # noqa: N806
    op = getattr(semiring, sr)
    try:
        ks = resolve_semiring(op, A.dtype, B.dtype)
    except DomainMismatch:
        assume(False)
    mask = None if masked == "none" else M._csr()
    comp = masked == "~S"
    with config.override(mxm_chunk_products=limit):
        got = mxm_generic(A._csr(), B._csr(), ks, mask, comp)
    want = mxm_cpu.mxm_gustavson(A._csr(), B._csr(), mask, comp, ks)
    inexact = ks.out_type.is_float and ks.add.binaryop.name in ("plus", "times")
    _same_csr(got, want, inexact)
    if not ks.is_any:  # the oracle (any: the CPU's first product is one valid answer)
        tv, tp = ref.mxm(_dense(A), _dense(B), op)
        if mask is not None:
            allowed = _dense(M)[1] != comp
            tp = tp & allowed
        gv, gp = _dense(Matrix._from_csr(got, "cpu"))
        np.testing.assert_array_equal(gp, tp)
        if inexact:
            np.testing.assert_allclose(gv[gp], tv[tp], rtol=1e-5)
        else:
            np.testing.assert_array_equal(gv[gp], tv[tp].astype(gv.dtype))


@given(lens=st.lists(st.integers(0, 6), min_size=0, max_size=12),
       seed=st.integers(0, 2**31), limit=st.integers(1, 30))
def test_plan_covers_every_product_once(lens: list[int], seed: int, limit: int) -> None:
    rng = np.random.default_rng(seed)
    indptr = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
    counts = rng.integers(0, 9, int(indptr[-1])).astype(np.int64)
    prefix, plan = chunks.plan(indptr, counts, limit)
    np.testing.assert_array_equal(prefix, np.concatenate([[0], np.cumsum(counts)]))
    covered = np.zeros(counts.shape[0], dtype=np.int64)
    prev: chunks.Chunk | None = None
    for c in plan:
        assert c.nprod == counts[c.e0:c.e1].sum() > 0
        assert c.nprod <= limit or c.e1 - c.e0 == 1  # one entry over the limit is alone
        assert c.p0 == prefix[c.e0]
        assert indptr[c.r0] <= c.e0 < c.e1 <= indptr[c.r1]
        # a row cut across chunks: flagged on both sides, and nothing between them
        assert c.cont_last == bool(counts[c.e1:indptr[c.r1]].sum() > 0)
        assert c.cont_first == (prev is not None and prev.cont_last)
        if c.cont_first:
            assert prev.r0 == c.r0 and counts[prev.e1:c.e0].sum() == 0
        covered[c.e0:c.e1] += 1
        prev = c
    assert np.all(covered[counts > 0] == 1)


def test_chunks_stay_within_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 3 x 400 all-ones row block times a dense 400 x 300 B: 360 000 products, folded
    from chunks of at most 1000 (a row is cut inside it) into the same result."""
    rng = np.random.default_rng(5)
    A = _matrix(rng, 3, 400, 1.0, np.int64, True)  # noqa: N806
    B = _matrix(rng, 400, 300, 0.9, np.int64, False)  # noqa: N806
    M = _matrix(rng, 3, 300, 0.5, np.bool_, True)  # noqa: N806
    ks = resolve_semiring(semiring.plus_times, A.dtype, B.dtype)
    seen: list[int] = []
    orig = chunks.plan

    def spy(*args: Any) -> Any:
        prefix, plan = orig(*args)
        seen.extend(c.nprod for c in plan)
        return prefix, plan

    monkeypatch.setattr(chunks, "plan", spy)
    for comp in (False, True):
        with config.override(mxm_chunk_products=1000):
            got = mxm_generic(A._csr(), B._csr(), ks, M._csr(), comp)
        _same_csr(got, mxm_cpu.mxm_gustavson(A._csr(), B._csr(), M._csr(), comp, ks), False)
    assert seen and max(seen) <= 1000 and len(seen) > 100


def test_generic_mxm_through_the_api_with_a_numpy_only_semiring() -> None:
    """A multiply with a NumPy form only (no opcode, no Numba function) runs the generic
    kernel, chunked, and gives the built-in semiring's result."""
    rng = np.random.default_rng(3)
    A = _matrix(rng, 12, 9, 0.4, np.float64, False)  # noqa: N806
    B = _matrix(rng, 9, 14, 0.4, np.float64, False)  # noqa: N806
    M = _matrix(rng, 12, 14, 0.5, np.bool_, True)  # noqa: N806
    np_plus = BinaryOp("chunk_test_np_plus", -1, np.add)  # no opcode, no Numba form
    sr = Semiring.register_anonymous(monoid.min, np_plus, name="chunk_test_min_np_plus")
    desc = Descriptor()
    for mask in (None, M.S, ~M.S):
        with config.override(mxm_chunk_products=5):
            got = A.mxm(B, sr).new(mask=mask, desc=desc)
        assert desc.last_kernel == "generic_expand_reduce"
        want = A.mxm(B, semiring.min_plus).new(mask=mask)
        for a, b in zip(got.to_coo(), want.to_coo(), strict=True):
            np.testing.assert_array_equal(a, b)


@given(seed=st.integers(0, 2**31), sr=st.sampled_from(SEMIRINGS), dt=st.sampled_from(DTYPES),
       iso=st.booleans(), bitmap=st.booleans(), prefetch=st.booleans())
def test_masked_dot_paths_equal_gustavson(seed: int, sr: str, dt: Any, iso: bool,
                                          bitmap: bool, prefetch: bool) -> None:
    """The CPU dot kernel's three intersections (merge, galloping, bitmap probe) on rows of
    very different lengths (hub rows and columns) give the masked Gustavson result, with
    the bitmap allowed or not and the rows of Bᵀ prefetched or not."""
    rng = np.random.default_rng(seed)
    m, k, n = (int(x) for x in rng.integers(1, 90, 3))
    A = _matrix(rng, m, k, rng.uniform(0.01, 0.2), dt, iso)  # noqa: N806
    B = _matrix(rng, k, n, rng.uniform(0.01, 0.2), dt, False)  # noqa: N806
    hub_a, hub_b = int(rng.integers(m)), int(rng.integers(n))
    A = Matrix.from_coo(*_with(A, hub_a, None), dtype=dt, nrows=m, ncols=k)  # noqa: N806
    B = Matrix.from_coo(*_with(B, None, hub_b), dtype=dt, nrows=k, ncols=n)  # noqa: N806
    M = _matrix(rng, m, n, rng.uniform(0.05, 0.6), np.bool_, True)  # noqa: N806
    op = getattr(semiring, sr)
    try:
        ks = resolve_semiring(op, A.dtype, B.dtype)
    except DomainMismatch:
        assume(False)
    saved = mxm_cpu._DOT_BITMAP_WORDS, mxm_cpu._PREFETCH_BYTES
    mxm_cpu._DOT_BITMAP_WORDS = saved[0] if bitmap else -1
    mxm_cpu._PREFETCH_BYTES = 0 if prefetch else saved[1]
    try:
        got = mxm_cpu.mxm_masked_dot(A._csr(), B._csr_T(), M._csr(), ks)
    finally:
        mxm_cpu._DOT_BITMAP_WORDS, mxm_cpu._PREFETCH_BYTES = saved
    want = mxm_cpu.mxm_gustavson(A._csr(), B._csr(), M._csr(), False, ks)
    _same_csr(got, want, ks.out_type.is_float and ks.add.binaryop.name in ("plus", "times"))


def _with(X: Matrix, row: int | None, col: int | None) -> tuple[Any, Any, Any]:  # noqa: N803
    """X's (rows, cols, values) with row ``row`` or column ``col`` made full (value 1)."""
    r, c, v = X.to_coo()
    if row is not None:
        keep = r != row
        r, c, v = r[keep], c[keep], v[keep]
        r = np.concatenate([r, np.full(X.ncols, row)])
        c = np.concatenate([c, np.arange(X.ncols)])
    else:
        keep = c != col
        r, c, v = r[keep], c[keep], v[keep]
        r = np.concatenate([r, np.arange(X.nrows)])
        c = np.concatenate([c, np.full(X.nrows, col)])
    return r, c, np.concatenate([v, np.ones(r.shape[0] - v.shape[0], dtype=v.dtype)])
