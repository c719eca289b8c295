"""The dense (bitmap/full) element-wise paths and the scatter with duplicate indices.

- ``w(accum)[I] << u`` with duplicate indices folds every occurrence in turn (SuiteSparse's
  reading, which FastSV needs), without accum the last occurrence wins;
- a vector assigned into itself through a permutation reads its old values;
- the planner picks the dense kernels for dense operands and the arithmetic pull for the
  plus/min/max semirings, and both agree with the sorted-merge / opcode paths;
- every built-in operator has a CUDA form in the fused kernel's generator (so a GPU never
  falls back to array operations for them), checked without a GPU.
"""

from __future__ import annotations

import numpy as np
import pytest

import gblas as gb
from gblas import FP64, INT64, Descriptor, Matrix, Vector, binary, monoid, semiring, unary
from gblas.backend import dense_cuda
from gblas.backend.dense import DenseT
from gblas.ops.writeback import fresh_bitmap


def _fold(c: dict[int, float], idx: list[int], vals: list[float], op) -> dict[int, float]:
    out = dict(c)
    for i, v in zip(idx, vals, strict=True):
        out[i] = op(out[i], v) if i in out else v
    return out


@pytest.mark.parametrize("accum, f", [
    (binary.min, min), (binary.plus, lambda a, b: a + b), (binary.minus, lambda a, b: a - b),
    (binary.second, lambda a, b: b), (binary.first, lambda a, b: a)])
@pytest.mark.parametrize("storage", ["sparse", "bitmap", "full"])
def test_duplicates_fold_with_accum(accum, f, storage: str) -> None:
    rng = np.random.default_rng(3)
    n = 12
    c_idx = [0, 2, 3, 5, 8] if storage != "full" else list(range(n))
    c_val = rng.integers(-9, 9, len(c_idx)).astype(float)
    w = Vector.from_coo(c_idx, c_val, size=n).to_format(storage)
    idx = rng.integers(0, n, 30)
    u = rng.integers(-9, 9, 30).astype(float)
    w(accum)[idx] << Vector.from_dense(u)
    want = _fold(dict(zip(c_idx, c_val, strict=True)), idx.tolist(), u.tolist(), f)
    got_i, got_v = w.to_coo()
    assert dict(zip(got_i.tolist(), got_v.tolist(), strict=True)) == want


def test_duplicates_without_accum_last_wins() -> None:
    w = Vector.from_coo([1, 2], [10.0, 20.0], size=5)
    u = Vector.from_coo([0, 1, 3], [1.0, 2.0, 4.0], size=4)  # position 2 absent
    w[[1, 1, 2, 2]] << u  # target 1: last is position 1 (2.0); target 2: position 3 (4.0)
    assert w.to_coo()[0].tolist() == [1, 2] and w.to_coo()[1].tolist() == [2.0, 4.0]
    w[[4, 4]] << Vector.from_coo([0], [7.0], size=2)  # the last occurrence is absent
    assert 4 not in w


def test_self_assign_through_a_permutation_reads_old_values() -> None:
    n = 50
    v = Vector.from_dense(np.arange(n, dtype=np.float64))
    v._data = fresh_bitmap(v._data)  # owns its arrays: the scatter may work in place
    perm = np.random.default_rng(1).permutation(n)
    v[perm] << v
    got = v.to_dense()
    want = np.empty(n)
    want[perm] = np.arange(n, dtype=np.float64)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("storage", ["sparse", "bitmap", "full"])
@pytest.mark.parametrize("shared", [False, True])
def test_scalar_under_a_sparse_mask(storage: str, shared: bool) -> None:
    """``w(m.S) << s`` / ``w(m.V) << s`` with a sparse mask (the BFS idiom
    ``levels(q.S) << k``): s at the mask's entries, w's entries elsewhere, whatever w's
    storage; a w whose arrays another vector holds too leaves that vector as it was."""
    rng = np.random.default_rng(11)
    n = 300
    for trial in range(20):
        c_idx = (np.arange(n) if storage == "full" else
                 np.sort(rng.choice(n, int(rng.integers(0, n)), replace=False)))
        w = Vector.from_coo(c_idx, rng.integers(-50, 50, len(c_idx)), size=n, dtype=INT64)
        w = w.to_format(storage)
        if storage == "bitmap" and not shared:
            w._data = fresh_bitmap(w._data)  # owns its arrays: filled in place
        other = w.dup() if not shared else None
        if shared:
            other = Vector(INT64, n)
            other << w  # the identity expression: other shares w's arrays
        before = dict(zip(*map(np.ndarray.tolist, w.to_coo()), strict=True))
        m_idx = np.sort(rng.choice(n, int(rng.integers(0, 12)), replace=False))
        m_val = rng.integers(0, 2, len(m_idx))
        m = Vector.from_coo(m_idx, m_val, size=n, dtype=INT64)
        assert m.format == "sparse"
        structure = trial % 2 == 0
        w(m.S if structure else m.V) << 99
        want = dict(before)
        for i, v in zip(m_idx.tolist(), m_val.tolist(), strict=True):
            if structure or v != 0:
                want[i] = 99
        got_i, got_v = w.to_coo()
        assert dict(zip(got_i.tolist(), got_v.tolist(), strict=True)) == want
        assert w.nvals == len(want)
        got_o = dict(zip(*map(np.ndarray.tolist, other.to_coo()), strict=True))
        assert got_o == before  # the other holder of the arrays is untouched


def test_fastsv_hooking_idiom_matches_a_loop() -> None:
    rng = np.random.default_rng(5)
    n = 200
    f = Vector.from_dense(rng.integers(0, n, n), dtype=INT64)
    mngf = Vector.from_dense(rng.integers(0, n, n), dtype=INT64)
    fv, mv = f.to_dense(), mngf.to_dense()
    want = fv.copy()
    for u in range(n):
        want[fv[u]] = min(want[fv[u]], mv[u])
    parents = f.to_coo(indices=False, device=f.device)[1]
    f(binary.min)[parents] << mngf
    np.testing.assert_array_equal(f.to_dense(), want)


@pytest.mark.parametrize("sr", ["plus_times", "plus_first", "plus_second", "min_plus",
                                "max_times", "min_second", "max_plus"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
@pytest.mark.parametrize("xkind", ["full", "bitmap"])
def test_arithmetic_pull_matches_general_kernel(sr: str, dtype, xkind: str) -> None:
    rng = np.random.default_rng(2)
    n = 300
    r, c = rng.integers(0, n, 3000), rng.integers(0, n, 3000)
    A = Matrix.from_coo(r, c, rng.integers(-5, 6, 3000).astype(dtype), nrows=n, ncols=n,  # noqa: N806
                        dup_op=binary.plus)
    x = Vector.from_dense(rng.integers(-5, 6, n).astype(dtype))
    if xkind == "bitmap":
        x(Vector.from_coo(np.arange(0, n, 3), True, size=n).S, replace=True) << x
    s = getattr(semiring, sr)
    d = Descriptor(direction="pull")
    fast = Vector(A.dtype, n)
    fast(desc=d) << A.mxv(x, s)
    assert d.last_kernel == "csr_pull_arith"
    # the same product through another kernel: the COO edge-parallel one
    general = Vector(A.dtype, n)
    general(desc=Descriptor(direction="pull", format="coo")) << A.mxv(x, s)
    gi, gv = general.to_coo()
    fi, fv = fast.to_coo()
    np.testing.assert_array_equal(fi, gi)
    np.testing.assert_allclose(fv, gv, rtol=1e-6)


def test_dense_kernels_picked_for_dense_operands() -> None:
    u = Vector.from_dense(np.arange(10.0))
    v = Vector.from_coo([1, 4], [1.0, 2.0], size=10)
    d = Descriptor()
    w = Vector(FP64, 10)
    w(desc=d) << u.ewise_add(v, binary.plus)
    assert d.last_kernel == "ewise_add_dense" and w.format == "full"
    sparse = Vector.from_coo([1, 400], [1.0, 2.0], size=1000)
    z = Vector(FP64, 1000)
    z(desc=d) << sparse.apply(unary.ainv)
    assert d.last_kernel == "apply_values"  # a sparse operand keeps the O(nvals) path
    w(desc=d) << u.select(">", 4.0)
    assert d.last_kernel == "select_dense" and w.nvals == 5
    s = u.reduce(monoid.plus).new()
    assert s.value == 45.0


def test_every_builtin_operator_has_a_cuda_form() -> None:
    """The fused kernel's generator covers the built-in binary, unary and select operators
    (a GPU would otherwise compute T with array operations first)."""
    n = 4
    a = (None, np.zeros(n))
    for name in dir(binary):
        op = getattr(binary, name)
        if not isinstance(op, gb.BinaryOp) or op.is_udf:
            continue
        dt = gb.INT64 if op.input_rule == "integer" else FP64
        t = DenseT(n, op.return_type(dt, dt), "add", a=a, b=a, op=op, domain=op.domain(dt, dt))
        assert dense_cuda._t_code(t) is not None, name
    for name in ("identity", "ainv", "abs", "one", "lnot", "minv", "sqrt", "exp", "positioni"):
        op = getattr(unary, name)
        t = DenseT(n, op.return_type(FP64), "unary", a=a, op=op, domain=op.domain(FP64))
        assert dense_cuda._t_code(t) is not None, name
    for name in ("tril", "valuegt", "valueeq", "rowle", "colgt"):
        t = DenseT(n, FP64, "select", a=a, op=getattr(gb.select, name), scalar=0.5)
        assert dense_cuda._t_code(t) is not None, name


@pytest.mark.parametrize("storage", ["full", "bitmap"])
@pytest.mark.parametrize("complement", [False, True])
def test_sparse_result_accumulated_under_a_mask(storage: str, complement: bool) -> None:
    """``c(mask, min) << t`` with a sparse t and a dense c (FastSV's ``mngf(~done.S, min)``):
    t is scattered in where the mask allows, c keeps its value elsewhere. Both the assign
    form (the mask still to apply) and the masked mxv (the kernel applied it) are checked
    against a loop."""
    n = 40
    rng = np.random.default_rng(5)
    c0 = rng.integers(0, 100, n)
    c = Vector.from_coo(np.arange(n), c0, size=n)
    if storage == "bitmap":
        del c[3]  # one absent entry: stored as a bitmap
    c.to_format(storage)
    tidx = np.sort(rng.choice(n, 12, replace=False))
    tval = rng.integers(0, 100, 12)
    t = Vector.from_coo(tidx, tval, size=n).to_format("sparse")
    assert t.format == "sparse" and c.format == storage
    midx = np.arange(0, n, 3)
    m = Vector.from_coo(midx, True, size=n)
    mask = ~m.S if complement else m.S
    allowed = np.isin(np.arange(n), midx) != complement
    expect = {i: int(v) for i, v in zip(*c.to_coo(), strict=True)}
    for i, v in zip(tidx, tval, strict=True):
        if allowed[i]:
            expect[int(i)] = min(expect[int(i)], int(v)) if int(i) in expect else int(v)
    got = c.dup()
    got(mask, binary.min) << t
    assert dict(zip(*[a.tolist() for a in got.to_coo()], strict=True)) == expect
    # the same through a masked mxv: the identity matrix times t
    eye = Matrix.from_coo(np.arange(n), np.arange(n), 1, nrows=n, ncols=n)
    got2 = c.dup()
    got2(mask, binary.min) << eye.mxv(t, semiring.min_second)
    assert got2.isequal(got)
