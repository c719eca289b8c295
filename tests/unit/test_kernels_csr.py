"""CSR CPU kernels (gblas.formats.csr.cpu) against plain Python loops on small inputs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gblas.dtypes import BOOL, FP32, FP64, INT8, INT64, UINT8, DataType
from gblas.formats.coo.container import COO
from gblas.formats.csr import cpu, mxm_cpu, rows_cpu
from gblas.formats.csr.container import CSR
from gblas.semirings import BinaryOp, Monoid, Semiring, binary, monoid, select, semiring
from gblas.semirings.model import KernelSemiring, resolve_semiring

# ------------------------------------------------------------------ user-defined semirings
_twice_plus = BinaryOp.register_anonymous(lambda x, y: x * 2.0 + y, "twice_plus")
UDF_MULT = Semiring.register_anonymous(monoid.plus, _twice_plus, name="plus_twice_plus")
_udf_max = BinaryOp.register_anonymous(lambda x, y: x if x > y else y, "udf_max")
UDF_ADD = Semiring.register_anonymous(Monoid.register_anonymous(_udf_max, -np.inf),
                                      binary.times, name="udfmax_times")

POSITIONAL = {
    "firsti": lambda i, k, j: i, "firsti1": lambda i, k, j: i + 1,
    "firstj": lambda i, k, j: k, "firstj1": lambda i, k, j: k + 1,
    "secondi": lambda i, k, j: k, "secondi1": lambda i, k, j: k + 1,
    "secondj": lambda i, k, j: j, "secondj1": lambda i, k, j: j + 1,
}


# ------------------------------------------------------------------------ random inputs
def rand_values(rng: np.random.Generator, n: int, dt: DataType) -> np.ndarray:
    t = dt.np_type
    if dt == BOOL:
        return rng.random(n) < 0.6
    if dt == INT8:
        return rng.integers(-100, 100, n).astype(t)  # products and sums overflow: wrap
    if dt == UINT8:
        return rng.integers(0, 40, n).astype(t)
    if dt.is_integer:
        return rng.integers(-6, 7, n).astype(t)
    return (rng.normal(size=n) * 3).astype(t)


def rand_pattern(rng: np.random.Generator, nrows: int, ncols: int,
                 density: float) -> np.ndarray:
    pres = rng.random((nrows, ncols)) < density
    if nrows > 2:
        pres[rng.integers(0, nrows, max(1, nrows // 4))] = False  # empty rows
    return pres


def csr_from_dense(pres: np.ndarray, vals: np.ndarray, dt: DataType, iso: bool) -> CSR:
    nrows, ncols = pres.shape
    r, c = np.nonzero(pres)
    indptr = np.zeros(nrows + 1, dtype=np.int64)
    np.cumsum(pres.sum(axis=1), out=indptr[1:])
    if iso:
        iso_value = dt.cast(vals.flat[0]) if vals.size else dt.cast(1)
        return CSR(nrows, ncols, indptr, c.astype(np.int64), None, dt, iso_value)
    return CSR(nrows, ncols, indptr, c.astype(np.int64), vals[r, c].astype(dt.np_type), dt)


def rand_matrix(rng: np.random.Generator, nrows: int, ncols: int, dt: DataType,
                density: float = 0.3, iso: bool = False) -> tuple[CSR, Any, Any]:
    pres = rand_pattern(rng, nrows, ncols, density)
    vals = rand_values(rng, nrows * ncols, dt).reshape(nrows, ncols)
    if iso and vals.size:
        vals[:] = vals.flat[0]
    return csr_from_dense(pres, vals, dt, iso), pres, vals


def dense(A: CSR) -> tuple[np.ndarray, np.ndarray]:
    pres = np.zeros((A.nrows, A.ncols), dtype=bool)
    vals = np.zeros((A.nrows, A.ncols), dtype=A.dtype.np_type)
    rows = np.repeat(np.arange(A.nrows), np.diff(A.indptr))
    pres[rows, A.indices] = True
    vals[rows, A.indices] = A.full_values()
    return pres, vals


SHAPES = [(0, 0), (1, 1), (7, 5), (13, 17)]


def instances(seed: int, dt: DataType, shapes: list[tuple[int, int]] = SHAPES):
    """(matrix, dense presence, dense values, mask bits | None, mask_comp) to test."""
    rng = np.random.default_rng(seed)
    for nrows, ncols in shapes:
        for iso in (False, True):
            A, pres, vals = rand_matrix(rng, nrows, ncols, dt, iso=iso)
            for comp in (None, False, True):
                mask = None if comp is None else rng.random(nrows) < 0.6
                yield rng, A, pres, vals, mask, bool(comp)


# ---------------------------------------------------------------------- scalar reference
def ref_mult(ks: KernelSemiring, a: Any, b: Any, i: int, k: int, j: int) -> Any:
    out = ks.out_type.np_type
    if ks.mult.positional:
        return np.asarray(POSITIONAL[ks.mult.name](i, k, j)).astype(out)[()]
    dom = ks.domain.np_type
    with np.errstate(all="ignore"):
        r = ks.mult.np_func(np.asarray([a]).astype(dom), np.asarray([b]).astype(dom))
    return np.asarray(r).astype(out)[0]


def ref_fold(ks: KernelSemiring, prods: list[Any]) -> Any:
    """None (absent), a value, or ("any", candidates) for the any monoid."""
    if not prods:
        return None
    if ks.is_any:
        return ("any", prods)
    out = ks.out_type.np_type
    acc = prods[0]
    for t in prods[1:]:
        with np.errstate(all="ignore"):
            r = ks.add.binaryop.np_func(np.asarray([acc], dtype=out), np.asarray([t], dtype=out))
        acc = np.asarray(r).astype(out)[0]
    return acc


def same(got: Any, want: Any, dt: DataType) -> bool:
    if dt.is_float:
        return bool(np.isclose(got, want, rtol=1e-5, atol=1e-6, equal_nan=True))
    return bool(got == want)


def check_entry(got: Any, want: Any, ks: KernelSemiring, where: Any) -> None:
    if isinstance(want, tuple):
        assert any(same(got, c, ks.out_type) for c in want[1]), (where, got, want)
    else:
        assert same(got, want, ks.out_type), (where, got, want)


def check_dense_result(pres: np.ndarray, vals: np.ndarray, ref: list[Any],
                       ks: KernelSemiring) -> None:
    assert pres.dtype == np.bool_ and vals.dtype == ks.out_type.np_type
    assert pres.shape == (len(ref),) and vals.shape == (len(ref),)
    for i, want in enumerate(ref):
        assert bool(pres[i]) == (want is not None), (i, pres[i], want)
        if want is not None:
            check_entry(vals[i], want, ks, i)


def ref_mxv(pres: np.ndarray, vals: np.ndarray, xp: np.ndarray, xv: np.ndarray, mask: Any,
            comp: bool, ks: KernelSemiring) -> list[Any]:
    ref = []
    for i in range(pres.shape[0]):
        if mask is not None and mask[i] == comp:
            ref.append(None)
            continue
        prods = [ref_mult(ks, vals[i, k], xv[k], i, k, 0)
                 for k in range(pres.shape[1]) if pres[i, k] and xp[k]]
        ref.append(ref_fold(ks, prods))
    return ref


def ref_mxm(ap: np.ndarray, av: np.ndarray, bp: np.ndarray, bv: np.ndarray, allowed: Any,
            ks: KernelSemiring) -> dict[tuple[int, int], Any]:
    ref = {}
    for i in range(ap.shape[0]):
        for j in range(bp.shape[1]):
            if allowed is not None and not allowed[i, j]:
                continue
            prods = [ref_mult(ks, av[i, k], bv[k, j], i, k, j)
                     for k in range(ap.shape[1]) if ap[i, k] and bp[k, j]]
            r = ref_fold(ks, prods)
            if r is not None:
                ref[(i, j)] = r
    return ref


def check_csr(C: CSR, ref: dict[tuple[int, int], Any], shape: tuple[int, int],
              ks: KernelSemiring) -> None:
    assert (C.nrows, C.ncols) == shape
    assert C.indptr.dtype == np.int64 and C.indices.dtype == np.int64
    assert C.indptr.shape == (shape[0] + 1,) and C.indptr[0] == 0
    assert C.dtype == ks.out_type and C.values.dtype == ks.out_type.np_type
    got = {}
    for i in range(C.nrows):
        cols = C.indices[C.indptr[i]:C.indptr[i + 1]]
        assert np.all(np.diff(cols) > 0), f"row {i} not sorted/unique: {cols}"
        for p in range(C.indptr[i], C.indptr[i + 1]):
            got[(i, int(C.indices[p]))] = C.values[p]
    assert set(got) == set(ref)
    for key, want in ref.items():
        check_entry(got[key], want, ks, key)


def resolve(sr: Any, left: DataType, right: DataType) -> KernelSemiring:
    if isinstance(sr, str):
        sr = getattr(semiring, sr)
    return resolve_semiring(sr, left, right)


def x_args(rng: np.random.Generator, n: int, dt: DataType, ks: KernelSemiring):
    xp = rng.random(n) < 0.6
    xv = rand_values(rng, n, dt)
    return xp, xv, (xv if ks.uses_right else None)


# (semiring, matrix dtype, vector dtype): built-ins over every dtype, positional, mixed
# types, terminal/any monoids, user-defined multiply and monoid.
MXV_CASES = [
    ("plus_times", FP64, FP64), ("plus_times", FP32, FP32), ("plus_times", INT8, INT8),
    ("max_times", UINT8, UINT8), ("min_plus", INT64, INT64), ("plus_div", INT64, INT64),
    ("times_plus", INT64, INT64), ("lor_land", BOOL, BOOL), ("any_pair", FP64, FP64),
    ("any_secondi", BOOL, BOOL), ("min_firsti", INT8, INT8), ("plus_pair", INT64, INT64),
    ("any_first", INT64, INT64), ("lor_eq", INT64, INT64), ("plus_times", INT8, FP32),
    ("max_second", UINT8, UINT8), ("land_lor", BOOL, BOOL), ("plus_minus", UINT8, UINT8),
    ("plus_truediv", FP64, FP64), (semiring.plus_pow.flipped, INT64, INT64),
    (semiring.min_truediv.flipped, FP64, FP64), (UDF_MULT, FP64, FP64),
    (UDF_ADD, FP64, FP64),
]
# The other kernels share the scalar operators with pull: a few dtypes each (every new
# dtype costs a JIT compile of about a second).
PUSH_CASES = [
    ("plus_times", FP64, FP64), ("min_plus", INT64, INT64), ("any_pair", BOOL, BOOL),
    ("any_secondi", INT64, INT64), ("lor_land", BOOL, BOOL), ("max_first", INT64, INT64),
]
MXM_CASES = [
    ("plus_times", FP64, FP64), ("min_plus", INT64, INT64), ("plus_pair", INT64, INT64),
    ("any_pair", INT64, INT64), ("min_secondj", FP64, FP64), ("any_firstj", BOOL, BOOL),
    ("max_plus", INT64, INT64), (UDF_MULT, FP64, FP64),
]
DOT_CASES = [
    ("plus_pair", BOOL, BOOL), ("plus_times", FP64, FP64), ("max_times", FP64, FP64),
    ("any_secondi", BOOL, BOOL), ("lor_land", BOOL, BOOL), ("max_firsti", INT64, INT64),
]


def _id(case: tuple[Any, DataType, DataType]) -> str:
    sr, a, b = case
    return f"{sr if isinstance(sr, str) else sr.name}-{a}-{b}"


# ================================================================================ mxv
@pytest.mark.parametrize("case", MXV_CASES, ids=_id)
def test_mxv_pull(case: tuple[Any, DataType, DataType]) -> None:
    sr, mdt, xdt = case
    ks = resolve(sr, mdt, xdt)
    for rng, A, pres, vals, mask, comp in instances(1, mdt):
        xp, xv, xarg = x_args(rng, A.ncols, xdt, ks)
        got_p, got_v = cpu.mxv_pull(A, xp, xarg, mask, comp, ks)
        check_dense_result(got_p, got_v, ref_mxv(pres, vals, xp, xv, mask, comp, ks), ks)


@pytest.mark.parametrize("case", PUSH_CASES, ids=_id)
def test_mxv_push(case: tuple[Any, DataType, DataType]) -> None:
    sr, mdt, xdt = case
    ks = resolve(sr, mdt, xdt)
    for rng, A, pres, vals, mask, comp in instances(2, mdt):
        MT = csr_from_dense(pres.T, vals.T, mdt, A.values is None)
        xp, xv, _ = x_args(rng, A.ncols, xdt, ks)
        xi = np.flatnonzero(xp).astype(np.int64)
        xvals = xv[xi] if ks.uses_right else None
        idx, got = cpu.mxv_push(MT, xi, xvals, A.nrows, mask, comp, ks)
        assert idx.dtype == np.int64 and got.dtype == ks.out_type.np_type
        assert np.all(np.diff(idx) > 0)
        if mask is not None:  # the same mask as its sorted keys (a sparse structural mask)
            kidx, kgot = cpu.mxv_push(MT, xi, xvals, A.nrows, None, comp, ks,
                                      mask_keys=np.flatnonzero(mask))
            np.testing.assert_array_equal(kidx, idx)
            np.testing.assert_array_equal(kgot, got)
        dp = np.zeros(A.nrows, dtype=bool)
        dv = np.zeros(A.nrows, dtype=got.dtype)
        dp[idx] = True
        dv[idx] = got
        check_dense_result(dp, dv, ref_mxv(pres, vals, xp, xv, mask, comp, ks), ks)


def test_mxv_push_dense_frontier_and_workspace_reuse() -> None:
    """Many touched rows (flag scan instead of sort), then reuse of the cached workspace."""
    rng = np.random.default_rng(3)
    ks = resolve("plus_times", FP64, FP64)
    A, pres, vals = rand_matrix(rng, 300, 40, FP64, density=0.2)
    MT = csr_from_dense(pres.T, vals.T, FP64, False)
    for density in (1.0, 0.05, 0.5):
        xp = rng.random(40) < density
        xv = rand_values(rng, 40, FP64)
        xi = np.flatnonzero(xp)
        idx, got = cpu.mxv_push(MT, xi, xv[xi], 300, None, False, ks)
        dp = np.zeros(300, dtype=bool)
        dv = np.zeros(300)
        dp[idx] = True
        dv[idx] = got
        check_dense_result(dp, dv, ref_mxv(pres, vals, xp, xv, None, False, ks), ks)


@pytest.mark.skipif(__import__("numba").config.NUMBA_NUM_THREADS < 2,
                    reason="the parallel push needs 2 Numba threads")
def test_mxv_push_parallel_equals_sequential(monkeypatch: pytest.MonkeyPatch) -> None:
    """any_pair / any_firsti push in parallel (mark flags) gives the sequential result;
    any_secondi (the product depends on k) and small frontiers keep the sequential push."""
    monkeypatch.setattr(cpu, "_PARALLEL_PUSH_EDGES", 50)
    rng = np.random.default_rng(8)
    A, pres, vals = rand_matrix(rng, 400, 400, FP64, density=0.05)
    MT = csr_from_dense(pres.T, vals.T, FP64, False)
    for name in ("any_pair", "any_firsti", "any_firsti1"):
        ks = resolve(name, BOOL, BOOL)
        for mask, comp in ((None, False), (rng.random(400) < 0.5, False),
                           (rng.random(400) < 0.5, True)):
            xi = np.flatnonzero(rng.random(400) < 0.2).astype(np.int64)
            got = cpu.mxv_push_parallel(MT, xi, 400, mask, comp, ks)
            assert got is not None
            idx, want = cpu.mxv_push(MT, xi, None, 400, mask, comp, ks)
            np.testing.assert_array_equal(np.flatnonzero(got[0]), idx)
            np.testing.assert_array_equal(got[1][idx], want)
        assert cpu.mxv_push_parallel(MT, xi[:1], 400, None, False, ks) is None  # few edges
    ks = resolve("any_secondi", BOOL, BOOL)
    assert cpu.mxv_push_parallel(MT, np.arange(400), 400, None, False, ks) is None


def test_mxv_pull_bfs_step_reads_no_values() -> None:
    """any_pair / any_secondi: structure only (x_values None, values never read)."""
    rng = np.random.default_rng(4)
    A, pres, _ = rand_matrix(rng, 30, 30, FP64, density=0.1)
    A.values = None  # an iso matrix with no value at all: the kernel must not need one
    A.iso = None
    visited = rng.random(30) < 0.3
    first = {"any_pair": lambda i, k: 1, "any_secondi": lambda i, k: k,
             "any_secondi1": lambda i, k: k + 1, "any_firsti": lambda i, k: i}
    for name, want in first.items():
        ks = resolve(name, BOOL, BOOL)
        assert ks.structural and cpu.pull_first_applies(ks)  # the bit-packed kernel
        p, v = cpu.mxv_pull(A, visited, None, visited, True, ks)
        assert v.dtype == ks.out_type.np_type
        for i in range(30):
            nb = [k for k in range(30) if pres[i, k] and visited[k]]
            assert bool(p[i]) == (bool(nb) and not visited[i])
            if p[i]:  # the first product in row order (BFS parents: the smallest)
                assert v[i] == want(i, nb[0])
        p2, _ = cpu.mxv_pull(A, visited, None, None, False, ks)  # no mask
        assert [bool(b) for b in p2] == [bool(pres[i] @ visited) for i in range(30)]


# ================================================================================ mxm
@pytest.mark.parametrize("case", MXM_CASES, ids=_id)
def test_mxm_gustavson(case: tuple[Any, DataType, DataType]) -> None:
    sr, adt, bdt = case
    ks = resolve(sr, adt, bdt)
    rng = np.random.default_rng(5)
    # (4, 300, 400): rows of ~16 products under mask rows of ~240 entries, which are
    # searched rather than scattered, and outputs sorted rather than scanned (wide rows)
    for m, n, p in ((0, 0, 0), (1, 1, 1), (6, 4, 5), (12, 9, 14), (4, 300, 400)):
        wide = p == 400
        for iso in (False, True):
            A, ap, av = rand_matrix(rng, m, n, adt, iso=iso, density=0.006 if wide else 0.3)
            B, bp, bv = rand_matrix(rng, n, p, bdt, density=0.02 if wide else 0.35)
            for comp in (None, False, True):
                if comp is None:
                    M, allowed = None, None
                else:
                    M, mp, _ = rand_matrix(rng, m, p, BOOL, density=0.6 if wide else 0.5,
                                           iso=True)
                    allowed = mp != comp
                C = mxm_cpu.mxm_gustavson(A, B, M, bool(comp), ks)
                check_csr(C, ref_mxm(ap, av, bp, bv, allowed, ks), (m, p), ks)


@pytest.mark.parametrize("case", DOT_CASES, ids=_id)
def test_mxm_masked_dot(case: tuple[Any, DataType, DataType]) -> None:
    sr, adt, bdt = case
    ks = resolve(sr, adt, bdt)
    rng = np.random.default_rng(6)
    for m, n, p in ((0, 0, 0), (1, 1, 1), (6, 4, 5), (12, 9, 14), (3, 200, 4)):
        for iso in (False, True):
            A, ap, av = rand_matrix(rng, m, n, adt, iso=iso)
            B, bp, bv = rand_matrix(rng, n, p, bdt, density=0.35)
            if n == 200:  # lopsided rows exercise the galloping intersection
                A, ap, av = rand_matrix(rng, m, n, adt, density=0.01, iso=iso)
            BT = csr_from_dense(bp.T, bv.T, bdt, False)
            M, mp, _ = rand_matrix(rng, m, p, BOOL, density=0.6, iso=True)
            C = mxm_cpu.mxm_masked_dot(A, BT, M, ks)
            check_csr(C, ref_mxm(ap, av, bp, bv, mp, ks), (m, p), ks)


def test_triangle_count_masked_dot() -> None:
    """plus_pair with mask L on L·Lᵀ counts each triangle once (Azad et al.)."""
    rng = np.random.default_rng(7)
    n = 60
    up = np.triu(rng.random((n, n)) < 0.15, 1)
    adj = up | up.T
    L = csr_from_dense(np.tril(adj, -1), np.ones((n, n), bool), BOOL, True)
    ks = resolve("plus_pair", INT64, INT64)
    C = mxm_cpu.mxm_masked_dot(L, L, L, ks)  # BT = (Lᵀ)ᵀ = L
    a = adj.astype(np.int64)
    assert int(C.values.sum()) == int(np.trace(a @ a @ a)) // 6


def _sparse_rows(rows: list[list[int]], ncols: int) -> CSR:
    """An iso BOOL CSR whose row i holds the sorted columns ``rows[i]``."""
    indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum([len(r) for r in rows], out=indptr[1:])
    idx = np.asarray([c for r in rows for c in sorted(r)], dtype=np.int64)
    return CSR(len(rows), ncols, indptr, idx, None, BOOL, True)


@pytest.mark.parametrize("out", [INT8, UINT8, INT64, BOOL, FP32, FP64])
def test_masked_dot_counts_intersections(out: DataType) -> None:
    """plus_pair's dot products are intersection sizes (the branch-free count; FP32 and
    BOOL go through the general kernel): rows 32x longer or shorter than the other (galloping),
    long rows (bitmap probe), empty rows, counts that wrap in int8/uint8, with and without
    the bitmap (the merge), with and without prefetching."""
    rng = np.random.default_rng(11)
    n = 700
    a_rows = [[], list(range(0, 600, 2)), [5, 6], list(range(n)), list(range(3, 700, 7)),
              sorted(rng.choice(n, 40, replace=False).tolist()), [699]]
    b_rows = [list(range(n)), [], [6, 7, 8], list(range(1, 700, 3)), [699],
              sorted(rng.choice(n, 300, replace=False).tolist()), list(range(0, 700, 2))]
    A, BT = _sparse_rows(a_rows, n), _sparse_rows(b_rows, n)
    M = _sparse_rows([list(range(len(b_rows)))] * len(a_rows), len(b_rows))
    ks = resolve_semiring(semiring.plus_pair[out], BOOL, BOOL)
    assert ks.out_type == out
    assert mxm_cpu._counts_intersection(ks) == (out not in (FP32, BOOL))  # BOOL: lor_pair
    saved = mxm_cpu._DOT_BITMAP_WORDS, mxm_cpu._PREFETCH_BYTES
    for bitmap, prefetch in ((True, False), (False, True), (True, True)):
        mxm_cpu._DOT_BITMAP_WORDS = saved[0] if bitmap else -1
        mxm_cpu._PREFETCH_BYTES = 0 if prefetch else saved[1]
        try:
            C = mxm_cpu.mxm_masked_dot(A, BT, M, ks)
        finally:
            mxm_cpu._DOT_BITMAP_WORDS, mxm_cpu._PREFETCH_BYTES = saved
        pres, vals = dense(C)
        for i, ra in enumerate(a_rows):
            for j, rb in enumerate(b_rows):
                c = len(set(ra) & set(rb))
                assert pres[i, j] == (c > 0), (i, j)
                if c:
                    want = np.asarray(c).astype(out.np_type) if out != BOOL else True
                    assert vals[i, j] == want, (i, j, vals[i, j], c)


def test_masked_dot_int64_indices() -> None:
    """An inner dimension past 2**31 keeps the indices int64 (no int32 copy) and the
    product has no bitmap: the count and the general kernel both merge or gallop."""
    big = 2**31 + 10
    a_rows = [[1, 2**31 + 3, 2**31 + 9], [], [5] + list(range(2**31, 2**31 + 80))]
    b_rows = [[2**31 + 3, 2**31 + 9], [1, 5], list(range(2**31 + 40, 2**31 + 45))]
    A, BT = _sparse_rows(a_rows, big), _sparse_rows(b_rows, big)
    M = _sparse_rows([[0, 1, 2]] * 3, 3)
    saved = mxm_cpu._PREFETCH_BYTES
    for sr, prefetch in (("plus_pair", False), ("plus_times", False), ("plus_pair", True)):
        ks = resolve(sr, INT64, INT64)
        mxm_cpu._PREFETCH_BYTES = 0 if prefetch else saved
        try:
            C = mxm_cpu.mxm_masked_dot(A, BT, M, ks)
        finally:
            mxm_cpu._PREFETCH_BYTES = saved
        pres, vals = dense(C)
        for i, ra in enumerate(a_rows):
            for j, rb in enumerate(b_rows):
                c = len(set(ra) & set(rb))
                assert pres[i, j] == (c > 0) and (not c or vals[i, j] == c), (sr, i, j)
    assert A.__dict__.get("_indices32") is None


# ======================================================================== conversions
@pytest.mark.parametrize("name", rows_cpu.SELECT_RANGE_OPS)
def test_select_range(name: str) -> None:
    """Positional select by one run per row against the operator's definition: iso and
    valued matrices, thunks past either end, empty rows and matrices."""
    op = getattr(select, name)
    rng = np.random.default_rng(12)
    for nrows, ncols in ((0, 0), (1, 1), (3, 0), (9, 13), (20, 6)):
        for iso in (False, True):
            A, pres, vals = rand_matrix(rng, nrows, ncols, INT8, iso=iso, density=0.5)
            r, c = np.nonzero(pres)
            for t in (-30, -2, -1, 0, 1, 4, 30):
                C = rows_cpu.select_range(A, name, t)
                keep = np.asarray(op.np_func(vals[r, c], r, c, t), dtype=bool)
                got_p, got_v = dense(C)
                want_p = np.zeros_like(pres)
                want_p[r[keep], c[keep]] = True
                assert np.array_equal(got_p, want_p), (name, t)
                assert np.array_equal(got_v[want_p], vals[want_p]), (name, t)
                assert (C.values is None) == iso


@pytest.mark.parametrize("ncols", [200, 5000, 70000, 2**21 + 3])
def test_gather_sorts_renamed_rows(ncols: int) -> None:
    """A[rows, J] by a column map: rows of every sort regime (insertion up to 16 entries,
    buckets up to 256, radix beyond: 8-bit digits in 2 or 3 passes, 11-bit digits from
    2048 entries), J a permutation or a subset, rows repeated, values carried or iso."""
    rng = np.random.default_rng(13)
    lengths = [0, 1, 5, 16, 17, 100, 256, 257, 1500, 3000]
    rows_cols = [np.sort(rng.choice(ncols, min(d, ncols), replace=False)) for d in lengths]
    indptr = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum([r.size for r in rows_cols], out=indptr[1:])
    idx = np.concatenate(rows_cols).astype(np.int64)
    vals = rng.integers(-100, 100, idx.size).astype(np.int64)
    take = np.array([9, 3, 0, 8, 9, 5, 7, 6, 1, 2, 4], dtype=np.int64)
    for subset in (False, True):
        J = rng.permutation(ncols)[: ncols // 2 if subset else ncols]  # noqa: N806
        colmap = np.full(ncols, -1, dtype=np.int64)
        colmap[J] = np.arange(J.size)
        for iso in (False, True):
            A = CSR(len(lengths), ncols, indptr, idx, None if iso else vals, INT64,
                    np.int64(7) if iso else None)
            C = rows_cpu.gather(A, take, colmap, J.size, True)
            assert (C.values is None) == iso and C.ncols == J.size
            for r, src in enumerate(take):
                s, e = indptr[src], indptr[src + 1]
                new = colmap[idx[s:e]]
                keep = new >= 0
                order = np.argsort(new[keep])
                got = slice(C.indptr[r], C.indptr[r + 1])
                assert np.array_equal(C.indices[got], new[keep][order]), (r, src)
                if not iso:
                    assert np.array_equal(C.values[got], vals[s:e][keep][order])


@pytest.mark.parametrize("dt", [BOOL, INT8, FP64])
def test_transpose_and_coo_round_trip(dt: DataType) -> None:
    rng = np.random.default_rng(8)
    for nrows, ncols in ((0, 0), (1, 1), (0, 3), (3, 0), (9, 13)):
        for iso in (False, True):
            A, pres, vals = rand_matrix(rng, nrows, ncols, dt, iso=iso)
            T = cpu.transpose(A)
            assert (T.nrows, T.ncols) == (ncols, nrows) and T.dtype == dt
            assert (T.values is None) == iso
            if iso:
                assert T.iso == A.iso
            tp, tv = dense(T)
            assert np.array_equal(tp, pres.T)
            assert np.array_equal(tv[tp], vals.T[pres.T])
            for i in range(T.nrows):
                assert np.all(np.diff(T.indices[T.indptr[i]:T.indptr[i + 1]]) > 0)
            coo = cpu.coo_from_csr(A)
            assert isinstance(coo, COO) and coo.nnz == A.nnz
            keys = coo.rows * max(ncols, 1) + coo.cols
            assert np.all(np.diff(keys) > 0)
            B = cpu.csr_from_coo(coo)
            assert np.array_equal(B.indptr, A.indptr)
            assert np.array_equal(B.indices, A.indices)
            assert (B.values is None) == iso and B.iso == A.iso


@pytest.mark.parametrize("parallel", [False, True])
def test_transpose_large_matches_scipy(parallel: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    sp = pytest.importorskip("scipy.sparse")
    if parallel:  # several row blocks (one count array each) on a small matrix
        monkeypatch.setattr(cpu.numba, "get_num_threads", lambda: 3)
    S = sp.random(2000, 1500, density=0.1 if parallel else 0.01, format="csr",
                  random_state=9)
    S.indices[:40] = np.sort(S.indices[:40])  # a few skewed rows
    A = CSR(2000, 1500, S.indptr.astype(np.int64), S.indices.astype(np.int64), S.data, FP64)
    ST = S.T.tocsr()
    ST.sort_indices()
    for iso in (False, True):
        T = cpu.transpose(A if not iso else CSR(2000, 1500, A.indptr, A.indices, None, FP64,
                                                2.0))
        assert np.array_equal(T.indptr, ST.indptr)
        assert np.array_equal(T.indices, ST.indices)
        assert np.array_equal(T.values, ST.data) if not iso else T.values is None


# ============================================================================ caching
def test_builtin_kernels_are_cached_on_disk(tmp_path: Path) -> None:
    """A second process loads the built-in pull kernel from Numba's on-disk cache."""
    ks = resolve("min_plus", FP64, FP64)
    A = CSR(2, 2, np.array([0, 1, 2]), np.array([1, 0]), np.array([1.0, 2.0]), FP64)
    cpu.mxv_pull(A, np.ones(2, bool), np.ones(2), None, False, ks)  # compiled and saved here
    code = (
        "import numpy as np\n"
        "from gblas.dtypes import FP64\n"
        "from gblas.formats.csr import cpu\n"
        "from gblas.formats.csr.container import CSR\n"
        "from gblas.semirings import semiring\n"
        "from gblas.semirings.model import resolve_semiring\n"
        "ks = resolve_semiring(semiring.min_plus, FP64, FP64)\n"
        "A = CSR(2, 2, np.array([0, 1, 2]), np.array([1, 0]), np.array([1.0, 2.0]), FP64)\n"
        "cpu.mxv_pull(A, np.ones(2, bool), np.ones(2), None, False, ks)\n"
        "print(cpu.__file__)\n"
        "print(sum(cpu._pull.stats.cache_hits.values()))\n"
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = str(Path(cpu.__file__).resolve().parents[3]) + os.pathsep + \
        env.get("PYTHONPATH", "")
    # `python -c` puts its working directory first on sys.path: run it elsewhere, or a
    # source checkout's gblas (another cache directory) shadows the installed one
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=300, check=True, cwd=tmp_path)
    child_file, hits = run.stdout.strip().splitlines()[-2:]
    assert Path(child_file).resolve() == Path(cpu.__file__).resolve()
    assert int(hits) >= 1, run.stderr


def test_indices32_copy_is_kept_and_refused_when_too_wide() -> None:
    """CSR.indices32: an int32 copy equal to the indices, made once (on the min_uses-th
    request); None when a column index could exceed int32 (the GPU pull then reads the
    int64 indices), and for 2³¹ entries or more unless the caller indexes entries with
    int64 (``wide_entries``)."""
    csr = CSR(3, 5, np.array([0, 2, 2, 4]), np.array([0, 4, 1, 3]), None, BOOL, iso=True)
    assert csr.indices32(min_uses=2) is None  # asked once: no copy yet
    narrow = csr.indices32(min_uses=2)
    assert narrow.dtype == np.int32 and np.array_equal(narrow, csr.indices)
    assert csr.indices32() is narrow
    wide = CSR(3, 2**31, np.array([0, 1, 1, 1]), np.array([2**31 - 1]), None, BOOL, iso=True)
    assert wide.indices32() is None and wide.indices32(wide_entries=True) is None

    class Long(CSR):  # 2³¹ entries or more: only for callers that index entries in int64
        @property
        def nnz(self) -> int:
            return 2**31

    long = Long(3, 5, np.array([0, 2, 2, 4]), np.array([0, 4, 1, 3]), None, BOOL, iso=True)
    assert long.indices32() is None
    narrow = long.indices32(wide_entries=True)
    assert narrow.dtype == np.int32 and np.array_equal(narrow, long.indices)
    assert long.indices32() is None and long.indices32(wide_entries=True) is narrow


@pytest.mark.parametrize("nrows", [0, 1, 31, 32, 33, 64, 1000])
def test_empty_rows_bits(nrows: int) -> None:
    """CSR.empty_rows_bits: bit r of word r // 32 is set exactly where row r is empty, the
    bits past nrows clear (the GPU pull skips words by it); made once and kept."""
    rng = np.random.default_rng(nrows)
    lengths = rng.integers(0, 3, nrows) * (rng.random(nrows) < 0.6)
    indptr = np.r_[0, np.cumsum(lengths)].astype(np.int64)
    csr = CSR(nrows, 4, indptr, rng.integers(0, 4, int(indptr[-1])), None, BOOL, iso=True)
    bits = csr.empty_rows_bits()
    assert bits.dtype == np.uint32 and bits.shape == ((nrows + 31) // 32,)
    got = [(int(bits[r >> 5]) >> (r & 31)) & 1 for r in range(32 * bits.shape[0])]
    assert got == [int(r < nrows and lengths[r] == 0) for r in range(len(got))]
    assert csr.empty_rows_bits() is bits


@pytest.mark.parametrize("lengths", [[], [0, 1, 2], [5, 0, 15, 1, 19], [1024, 1023, 1025, 0, 4096],
                                     [0, 2000, 7, 513, 100000] * 30])
@pytest.mark.parametrize("min_len,chunk", [(5, 8), (1024, 512), (1, 1)])
def test_row_chunks(lengths: list[int], min_len: int, chunk: int) -> None:
    """CSR.row_chunks (the GPU pull's heavy in-rows as a work list, made once and kept):
    r << 32 | j for every chunk j of every row of at least min_len entries, in row order."""
    n = len(lengths)
    indptr = np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)]).astype(np.int64)
    csr = CSR(n, 4, indptr, np.zeros(int(indptr[-1]), np.int64), None, BOOL, iso=True)
    got = csr.row_chunks(min_len, chunk)
    want = [(r << 32) | j for r, ln in enumerate(lengths) if ln >= min_len
            for j in range(-(-ln // chunk))]
    assert got.dtype == np.int64 and got.tolist() == want
    assert csr.row_chunks(min_len, chunk) is got  # kept on the representation


@pytest.mark.parametrize("lengths", [[], [0] * 5000, [3] * 1000, [0, 2000, 0, 1, 1024] * 50,
                                     [1] * 1023 + [0] * 3000 + [700] * 4])
def test_row_tiles_cover_rows_with_bounded_work(lengths: list[int]) -> None:
    """CSR.row_tiles (the GPU pull's tiles): consecutive, covering every row once, each tile
    starting fewer than TILE entries and rows, so its span is < TILE + its last row."""
    from gblas.dtypes import FP64  # noqa: PLC0415
    from gblas.formats.csr.container import CSR  # noqa: PLC0415

    tile = 1024
    n = len(lengths)
    indptr = np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)]).astype(np.int64)
    csr = CSR(n, 4096, indptr, np.zeros(int(indptr[-1]), np.int64), None, FP64, 1.0)
    first = csr.row_tiles(tile)
    assert first[0] == 0 and first[-1] == n and np.all(np.diff(first) >= 0)
    assert csr.row_tiles(tile) is first  # kept on the representation
    for r0, r1 in zip(first[:-1], first[1:]):
        if r1 > r0:
            start_work = indptr[r0] + r0
            last_start = indptr[r1 - 1] + (r1 - 1)
            assert last_start - start_work < tile  # rows start inside one tile
            assert indptr[r1 - 1] - indptr[r0] < tile
