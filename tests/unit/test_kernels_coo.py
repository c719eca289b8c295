"""COO CPU helpers (gblas.formats.coo.cpu) against plain Python loops on small inputs."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from gblas.dtypes import BOOL, FP32, FP64, INT8, INT64, UINT8, DataType
from gblas.exceptions import InvalidValue
from gblas.formats import generic
from gblas.formats.coo import cpu
from gblas.formats.coo.container import COO
from gblas.formats.vector import VecData
from gblas.ops.dispatch import MxvCall
from gblas.semirings import BinaryOp, binary, semiring
from gblas.semirings.model import KernelSemiring, resolve_semiring

_udf_first_plus_half = BinaryOp.register_anonymous(lambda x, y: x + y / 2, "first_plus_half")
POSITIONAL = {"firsti": lambda i, k: i, "secondi": lambda i, k: k, "firstj": lambda i, k: k}


# =========================================================================== build
def ref_build(rows: Any, cols: Any, vals: Any, dt: DataType, op: BinaryOp | None
              ) -> dict[tuple[int, int], Any]:
    """(row, col) -> value, duplicates folded left to right in input order."""
    npt = dt.np_type
    out: dict[tuple[int, int], Any] = {}
    f = None if op is None else op.for_domain(dt).np_func
    for r, c, v in zip(rows, cols, np.asarray(vals).astype(npt), strict=True):
        key = (int(r), int(c))
        if key in out:
            with np.errstate(all="ignore"):
                res = f(np.asarray([out[key]], dtype=npt), np.asarray([v], dtype=npt))
            out[key] = np.asarray(res).astype(npt)[0]
        else:
            out[key] = v
    return out


def check_coo(C: COO, ref: dict[tuple[int, int], Any], dt: DataType, shape: tuple[int, int]
              ) -> None:
    assert (C.nrows, C.ncols) == shape and C.dtype == dt
    assert C.rows.dtype == np.int64 and C.cols.dtype == np.int64
    keys = C.rows * max(shape[1], 1) + C.cols
    assert np.all(np.diff(keys) > 0), "not sorted row-major / not unique"
    assert [(int(r), int(c)) for r, c in zip(C.rows, C.cols, strict=True)] == sorted(ref)
    vals = C.full_values()
    assert vals.dtype == dt.np_type
    for (r, c), v in zip(zip(C.rows, C.cols, strict=True), vals, strict=True):
        want = ref[(int(r), int(c))]
        if dt.is_float:
            assert np.isclose(v, want, rtol=1e-6), ((r, c), v, want)
        else:
            assert v == want, ((r, c), v, want)


def rand_triples(rng: np.random.Generator, n: int, nrows: int, ncols: int, dt: DataType):
    rows = rng.integers(0, nrows, n)
    cols = rng.integers(0, ncols, n)
    if dt == BOOL:
        vals = rng.random(n) < 0.5
    elif dt.is_float:
        vals = (rng.normal(size=n) * 4).astype(dt.np_type)
    else:
        vals = rng.integers(-9 if dt.is_signed else 0, 10, n).astype(dt.np_type)
    return rows, cols, vals


DUP_CASES = [
    (binary.plus, INT64), (binary.plus, INT8), (binary.plus, BOOL), (binary.first, FP64),
    (binary.second, FP32), (binary.any, UINT8), (binary.min, FP64), (binary.max, INT8),
    (binary.times, INT64), (binary.minus, INT64), (binary.div, INT64), (binary.lor, FP64),
    (binary.bxor, UINT8), (binary.pair, FP64), (binary.eq, INT64), (binary.lxnor, BOOL),
    (_udf_first_plus_half, FP64),
]


@pytest.mark.parametrize("case", DUP_CASES, ids=lambda c: f"{c[0].name}-{c[1]}")
def test_build_combines_duplicates_in_input_order(case: tuple[BinaryOp, DataType]) -> None:
    op, dt = case
    rng = np.random.default_rng(1)
    for n, nrows, ncols in ((0, 0, 0), (1, 1, 1), (5, 1, 1), (40, 4, 5), (200, 9, 7)):
        rows, cols, vals = rand_triples(rng, n, max(nrows, 1), max(ncols, 1), dt)
        C = cpu.build(rows, cols, vals, nrows, ncols, dt, op)
        check_coo(C, ref_build(rows, cols, vals, dt, op), dt, (nrows, ncols))
        assert C.values is not None


@pytest.mark.parametrize("dt", [BOOL, INT8, INT64, UINT8, FP32, FP64])
def test_build_without_duplicates_needs_no_dup_op(dt: DataType) -> None:
    rng = np.random.default_rng(2)
    for nrows, ncols in ((0, 0), (1, 1), (6, 9), (30, 2)):
        keys = rng.permutation(nrows * ncols)[: (nrows * ncols) // 2 + (nrows * ncols > 0)]
        rows, cols = keys // max(ncols, 1), keys % max(ncols, 1)
        _, _, vals = rand_triples(rng, keys.size, 1, 1, dt)
        C = cpu.build(rows, cols, vals, nrows, ncols, dt, None)
        check_coo(C, ref_build(rows, cols, vals, dt, None), dt, (nrows, ncols))


def test_build_duplicates_without_dup_op_raise() -> None:
    rows = np.array([3, 0, 1, 0, 3, 1])
    cols = np.array([1, 2, 0, 1, 1, 0])
    with pytest.raises(InvalidValue, match=r"\(3, 1\).*dup_op"):
        cpu.build(rows, cols, np.arange(6.0), 4, 3, FP64, None)
    with pytest.raises(InvalidValue, match="index 2"):
        cpu.build_vector([5, 2, 7, 2, 5], np.ones(5), 9, FP64, None)


def test_build_iso() -> None:
    rows = np.array([2, 0, 2, 1, 0, 2])
    cols = np.array([1, 3, 1, 0, 3, 1])
    C = cpu.build(rows, cols, 1, 3, 4, INT64, None)  # duplicates dropped, stays iso
    assert C.values is None and C.iso == 1
    assert list(zip(C.rows.tolist(), C.cols.tolist(), strict=True)) == [(0, 3), (1, 0), (2, 1)]
    C = cpu.build(rows, cols, 1, 3, 4, INT64, binary.plus)  # counts: not iso any more
    assert C.values.tolist() == [2, 1, 3] and C.values.dtype == np.int64
    C = cpu.build(rows, cols, True, 3, 4, BOOL, binary.lor)  # every value the same: iso
    assert C.values is None and C.iso is True
    C = cpu.build(np.array([1, 0]), np.array([0, 2]), 2.5, 2, 3, FP32, binary.plus)
    assert C.values is None and C.iso == 2.5 and C.rows.tolist() == [0, 1]
    C = cpu.build(np.array([], dtype=np.int64), np.array([], dtype=np.int64), 7, 5, 5, INT8,
                  None)
    assert C.nnz == 0 and C.values is None and C.iso == 7


def test_build_vector() -> None:
    rng = np.random.default_rng(3)
    idx = rng.integers(0, 30, 80)
    vals = rng.integers(-5, 5, 80)
    i, v, iso = cpu.build_vector(idx, vals, 30, INT64, binary.minus)
    ref = ref_build(idx, np.zeros_like(idx), vals, INT64, binary.minus)
    assert i.tolist() == [k[0] for k in sorted(ref)] and iso is None
    assert v.tolist() == [ref[k] for k in sorted(ref)]
    i, v, iso = cpu.build_vector(idx, 3.0, 30, FP64, None)
    assert v is None and iso == 3.0 and i.tolist() == sorted(set(idx.tolist()))
    i, v, iso = cpu.build_vector([], [], 4, BOOL, None)
    assert i.shape == (0,) and v.shape == (0,) and v.dtype == np.bool_ and iso is None


def test_build_huge_shape_uses_lexsort() -> None:
    n = 2**40
    rows = np.array([n - 1, 0, n - 1, 5])
    cols = np.array([n - 2, n - 1, n - 2, 0])
    C = cpu.build(rows, cols, np.array([1.0, 2.0, 3.0, 4.0]), n, n, FP64, binary.plus)
    assert C.rows.tolist() == [0, 5, n - 1] and C.cols.tolist() == [n - 1, 0, n - 2]
    assert C.values.tolist() == [2.0, 4.0, 4.0]
    # a wide shape with few entries: argsort instead of the counting sort
    C = cpu.build(rows % 10**6, cols % 10**6, np.array([1.0, 2.0, 3.0, 4.0]), 10**6, 10**6,
                  FP64, binary.minus)
    assert C.rows.tolist() == [0, 5, (n - 1) % 10**6] and C.values.tolist() == [2.0, 4.0, -2.0]


# ============================================================================= mxv
def ref_mxv(C: COO, xp: Any, xv: Any, mask: Any, comp: bool, ks: KernelSemiring
            ) -> list[Any]:
    out = ks.out_type.np_type
    rows: dict[int, list[Any]] = {}
    vals = C.full_values()
    for r, c, v in zip(C.rows.tolist(), C.cols.tolist(), vals, strict=True):
        if not xp[c] or (mask is not None and mask[r] == comp):
            continue
        if ks.mult.positional:
            t = np.asarray(POSITIONAL[ks.mult.name](r, c)).astype(out)[()]
        else:
            dom = ks.domain.np_type
            t = np.asarray(ks.mult.np_func(np.asarray([v], dom), np.asarray([xv[c]], dom)))
            t = t.astype(out)[0]
        rows.setdefault(r, []).append(t)
    ref: list[Any] = [None] * C.nrows
    for r, prods in rows.items():
        if ks.is_any:
            ref[r] = ("any", prods)
            continue
        acc = prods[0]
        for t in prods[1:]:
            acc = np.asarray(ks.add.binaryop.np_func(np.asarray([acc], out),
                                                     np.asarray([t], out))).astype(out)[0]
        ref[r] = acc
    return ref


def _check_expand_reduce(C: COO, xp: Any, xv: Any, xdt: DataType, mask: Any, comp: bool,
                         ks: KernelSemiring, ref: list[Any]) -> None:
    """The array-primitive COO kernel (the GPU's, run here on NumPy) against the loops."""
    x = VecData.bitmap(C.ncols, xdt, xp, np.asarray(xv, dtype=xdt.np_type))
    call = MxvCall(C, x, ks, C.nrows, mask, comp)
    got = generic.mxv_coo(call)
    idx, vals = got.as_sparse()
    assert idx.tolist() == [i for i, w in enumerate(ref) if w is not None]
    for i, v in zip(idx.tolist(), vals, strict=True):
        want = ref[i]
        if isinstance(want, tuple):
            assert v in want[1]
        else:
            assert np.isclose(v, want) if ks.out_type.is_float else v == want, (i, v, want)


MXV_CASES = [
    ("plus_times", FP64, FP64), ("any_secondi", BOOL, BOOL), ("any_pair", INT64, INT64),
    ("min_plus", INT64, INT64), ("lor_land", BOOL, BOOL), ("max_first", INT64, INT64),
]


@pytest.mark.parametrize("case", MXV_CASES, ids=lambda c: f"{c[0]}-{c[1]}")
def test_mxv_coo(case: tuple[str, DataType, DataType]) -> None:
    name, mdt, xdt = case
    ks = resolve_semiring(getattr(semiring, name), mdt, xdt)
    rng = np.random.default_rng(4)
    for nrows, ncols, n in ((0, 0, 0), (1, 1, 1), (9, 7, 30), (40, 30, 300), (3000, 50, 9000)):
        for iso in (False, True):
            rows, cols, vals = rand_triples(rng, n, max(nrows, 1), max(ncols, 1), mdt)
            C = cpu.build(rows, cols, vals[0] if (iso and n) else vals, nrows, ncols, mdt,
                          binary.first)
            for comp in (None, False, True):
                mask = None if comp is None else rng.random(nrows) < 0.5
                xp = rng.random(ncols) < 0.6
                _, _, xv = rand_triples(rng, ncols, 1, 1, xdt)
                p, v = cpu.mxv_coo(C, xp, xv if ks.uses_right else None, mask, bool(comp), ks)
                assert p.dtype == np.bool_ and v.dtype == ks.out_type.np_type
                ref = ref_mxv(C, xp, xv, mask, bool(comp), ks)
                _check_expand_reduce(C, xp, xv, xdt, mask, bool(comp), ks, ref)
                for i, want in enumerate(ref):
                    assert bool(p[i]) == (want is not None), (i, want)
                    if isinstance(want, tuple):
                        assert v[i] in want[1]
                    elif want is not None:
                        assert np.isclose(v[i], want) if ks.out_type.is_float else \
                            v[i] == want, (i, v[i], want)
