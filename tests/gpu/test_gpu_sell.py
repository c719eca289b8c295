"""Sell-C-σ / SlimSell on ``cuda:0`` against the CPU: the device builder gives the CPU's
arrays, the CUDA mxv kernels give the CPU kernels' results (semirings × masks × replace ×
formats × C × σ, SlimChunk and SlimWork), the kernel names are the CUDA ones, SlimWork
off (its own kernel instantiation) reads every row of every chunk while SlimWork on skips
the rows and warps the mask forbids (work counters against the CPU kernel's), and
bfs_semiring's four families give the CPU's levels on every format, SlimWork on or off."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from gblas import (
    BOOL,
    INT64,
    BinaryOp,
    Descriptor,
    Matrix,
    Monoid,
    Semiring,
    Vector,
    binary,
    generators,
    semiring,
    unary,
)
from gblas.algorithms import bfs_semiring
from gblas.formats.sellcs import cpu as sell_cpu
from gblas.formats.sellcs import cuda as sell_cuda
from gblas.formats.sellcs.container import to_csr

pytestmark = pytest.mark.gpu
GPU = "cuda:0"
FORMATS = ("sellcs", "slimsell")
MASKS = (None, "S", "~S", "V", "~V")
SEMIRINGS = ("plus_times", "min_plus", "max_times", "lor_land", "any_pair", "any_secondi",
             "max_second", "plus_pair")
N = 75  # rows: chunks of 8 and 32 with a partial last chunk


def _np(a: Any) -> Any:
    return None if a is None else (a.get() if hasattr(a, "get") else np.asarray(a))


def random_matrix(nrows: int, ncols: int, nnz: int, seed: int) -> Matrix:
    """Random INT64 matrix with one dense row (a wide chunk) and some empty rows."""
    rng = np.random.default_rng(seed)
    r = np.concatenate([rng.integers(0, nrows, nnz), np.full(ncols, nrows // 2)])
    c = np.concatenate([rng.integers(0, ncols, nnz), np.arange(ncols)])
    v = rng.integers(-3, 6, r.shape[0]).astype(np.int64)
    return Matrix.from_coo(r, c, v, INT64, nrows=nrows, ncols=ncols, dup_op=binary.plus)


def served(A: Matrix, fmt: str) -> Matrix:  # noqa: N803
    """The matrix a format's kernels serve: SlimSell keeps no values, so its kernels run on
    unit-valued graphs (a valued SlimSell matrix runs on its CSR)."""
    return A.apply(unary.one).new() if fmt == "slimsell" else A


def mask_of(kind: str | None, n: int, seed: int, device: str) -> Any:
    if kind is None:
        return None
    rng = np.random.default_rng(seed)
    idx = np.flatnonzero(rng.random(n) < 0.5)
    m = Vector.from_coo(idx, rng.integers(0, 2, idx.shape[0]).astype(bool), BOOL, size=n,
                        device=device)
    return {"S": m.S, "~S": ~m.S, "V": m.V, "~V": ~m.V}[kind]


def same_vector(cpu: Vector, gpu: Vector) -> None:
    assert gpu.device == GPU and cpu.dtype == gpu.dtype and cpu.size == gpu.size
    ci, cv = cpu.to_coo()
    gi, gv = gpu.to_coo()
    np.testing.assert_array_equal(ci, gi)
    np.testing.assert_array_equal(cv, gv)  # per-row fold in the CPU's order: exact


# ---------------------------------------------------------------- builder on the device
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("C", [8, 32])
@pytest.mark.parametrize("sigma", [1, 32, N])
@pytest.mark.parametrize("slimchunk", [0, 3])
def test_device_builder_equals_cpu(fmt: str, C: int, sigma: int, slimchunk: int) -> None:  # noqa: N803
    A = random_matrix(N, 40, 200, seed=C + sigma)
    Ag = A.to(GPU)
    S = A._rep(fmt, C=C, sigma=sigma, slimchunk=slimchunk)
    G = Ag._rep(fmt, C=C, sigma=sigma, slimchunk=slimchunk)
    assert type(S) is type(G) and G.xp is not np
    for name in ("cs", "cl", "cols", "values", "perm"):
        a, b = getattr(S, name), getattr(G, name)
        assert (a is None) == (b is None), name
        if a is not None:
            np.testing.assert_array_equal(a, _np(b), err_msg=name)
    for a, b in zip(S.pieces(), G.pieces(), strict=True):
        np.testing.assert_array_equal(a, _np(b))
    assert S.stats() == G.stats()
    back, cback = to_csr(G), to_csr(S)
    np.testing.assert_array_equal(cback.indptr, _np(back.indptr))
    np.testing.assert_array_equal(cback.indices, _np(back.indices))
    np.testing.assert_array_equal(cback.full_values(), _np(back.full_values()))


def test_device_defaults_and_to_format() -> None:
    Ag = random_matrix(N, 40, 200, seed=1).to(GPU)
    Ag.to_format("sellcs", C=32, sigma=N)
    G = Ag._rep("sellcs", C=32, sigma=N)
    assert G.C == 32 and G.sigma == N and G.xp is not np
    Ag.to_format("slimsell")
    assert Ag._rep("slimsell").C == 32  # the device's default C
    S = G.to("cpu")
    assert S.xp is np and S.stats() == G.stats()


# ---------------------------------------------------------------- mxv against the CPU
def _mxv(A: Matrix, x: Vector, sr: Any, mask: Any, replace: bool, out0: Vector,
         desc: Descriptor) -> Vector:
    out = out0.dup()
    out(mask=mask, replace=replace, desc=desc) << A.mxv(x, sr)
    return out


def _check_valued_slimsell_runs_csr(A: Matrix, sr: Any) -> None:  # noqa: N803
    """A SlimSell matrix with values other than 1 gives CSR's result: a semiring that reads
    the matrix's values runs the CSR kernel, one that reads only the pattern SlimSell's."""
    x = Vector.from_dense(np.arange(A.ncols, dtype=np.int64) % 4 - 1)
    want = A.mxv(x, sr).new()
    B = A.to(GPU)
    B.to_format("slimsell")
    d = Descriptor()
    got = B.mxv(x.to(GPU), sr).new(desc=d)
    assert d.last_kernel.startswith("cuda_csr_" if sr.uses_left else "cuda_slimsell_")
    same_vector(want, got)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", SEMIRINGS)
def test_mxv_matches_cpu(fmt: str, name: str) -> None:
    sr = getattr(semiring, name)
    A = random_matrix(N, 50, 300, seed=7)
    if fmt == "slimsell":  # SlimSell serves unit-valued graphs (a valued one runs on CSR)
        _check_valued_slimsell_runs_csr(A, sr)
    A = served(A, fmt)  # noqa: N806
    rng = np.random.default_rng(3)
    xi = np.flatnonzero(rng.random(50) < 0.5)
    x = Vector.from_coo(xi, rng.integers(-2, 5, xi.shape[0]).astype(np.int64), INT64, size=50)
    oi = np.flatnonzero(rng.random(N) < 0.3)
    out0 = Vector.from_coo(oi, np.ones(oi.shape[0], dtype=np.int64), INT64, size=N)
    Ag, xg, out0g = A.to(GPU), x.to(GPU), out0.to(GPU)
    names = {f"cuda_{fmt}_pull_spmv", f"cuda_{fmt}_pull_structural"}
    for C in (8, 32):
        for sigma in (1, 32, N):
            B, Bg = A.dup(), Ag.dup()
            B.to_format(fmt, C=C, sigma=sigma)
            Bg.to_format(fmt, C=C, sigma=sigma)
            for k, kind in enumerate(MASKS):
                for replace in ((False, True) if kind else (False,)):
                    want = _mxv(B, x, sr, mask_of(kind, N, k, "cpu"), replace, out0,
                                Descriptor())
                    d = Descriptor()
                    got = _mxv(Bg, xg, sr, mask_of(kind, N, k, GPU), replace, out0g, d)
                    assert d.last_kernel in names, d.last_kernel
                    same_vector(want, got)


@pytest.mark.parametrize("fmt", FORMATS)
def test_kernel_names(fmt: str) -> None:
    Ag = served(random_matrix(N, 50, 300, seed=2), fmt).to(GPU)
    Ag.to_format(fmt, C=32, sigma=N)
    x = Vector.from_dense(np.ones(50, dtype=np.int64), device=GPU)
    for sr, name in ((semiring.plus_times, "spmv"), (semiring.any_pair, "structural")):
        d = Descriptor()
        w = Vector(sr.monoid.fixed_type or INT64, N, device=GPU)
        w(desc=d) << Ag.mxv(x, sr)
        assert d.last_kernel == f"cuda_{fmt}_pull_{name}", d.last_kernel
        assert w.device == GPU


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", ["plus_times", "min_plus", "any_secondi", "lor_land"])
def test_slimchunk_and_slimwork(fmt: str, name: str) -> None:
    """SlimChunk (partials per piece, folded per chunk) and SlimWork on/off: the CPU's
    results on the device, including a row wider than many pieces."""
    sr = getattr(semiring, name)
    A = served(random_matrix(N, 120, 400, seed=11), fmt)
    x = Vector.from_dense(np.arange(120, dtype=np.int64) % 7 - 2)
    xg = x.to(GPU)
    for params in ({"C": 8, "sigma": N, "slimchunk": 2}, {"C": 32, "sigma": 32, "slimchunk": 5},
                   {"C": 4, "sigma": 1}, {"C": 64, "sigma": N}):
        B = A.dup()
        B.to_format(fmt, **params)
        Bg = A.to(GPU)
        Bg.to_format(fmt, **params)
        for kind in MASKS:
            want = B.mxv(x, sr).new(mask=mask_of(kind, N, 5, "cpu"))
            for on in (True, False):
                with sell_cpu.slimwork(on):
                    got = Bg.mxv(xg, sr).new(mask=mask_of(kind, N, 5, GPU))
                same_vector(want, got)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("params", [{"C": 32, "sigma": N}, {"C": 32, "sigma": 1, "slimchunk": 3},
                                    {"C": 8, "sigma": 32}])
def test_slimwork_off_reads_every_row(fmt: str, params: dict[str, Any]) -> None:
    """The two kernel variants against the CPU kernel, counter by counter: SlimWork on
    reads only the rows the mask allows and (C = 32: warp = piece) leaves exactly the
    pieces the CPU skips after the mask loads; SlimWork off reads every row of every
    chunk (no warp idle) and applies the mask on write; all results equal."""
    A = served(random_matrix(N, 50, 300, seed=21), fmt)
    x = Vector.from_dense(np.arange(50, dtype=np.int64) % 5)
    B, Bg = A.dup(), A.to(GPU)
    B.to_format(fmt, **params)
    Bg.to_format(fmt, **params)
    # structure on rows 0..69 (~S forbids whole chunks, sorted or not), true values on
    # rows 0..29 (V forbids chunk 1 when unsorted)
    m = Vector.from_coo(np.arange(70), np.arange(70) < 30, BOOL, size=N)
    mg = m.to(GPU)
    skipped = []
    for kind in MASKS:
        mk = None if kind is None else {"S": m.S, "~S": ~m.S, "V": m.V, "~V": ~m.V}[kind]
        mkg = None if kind is None else {"S": mg.S, "~S": ~mg.S, "V": mg.V, "~V": ~mg.V}[kind]
        for name in ("lor_land", "plus_times", "any_secondi", "min_plus"):
            sr = getattr(semiring, name)
            outs = []
            for on in (True, False):
                with sell_cpu.slimwork(on):
                    want = B.mxv(x, sr).new(mask=mk)
                    cpu_run = dict(sell_cpu.LAST_RUN)
                    got = Bg.mxv(x.to(GPU), sr).new(mask=mkg)
                    run = dict(sell_cuda.LAST_RUN)
                same_vector(want, got)
                outs.append(got)
                assert run["slimwork"] == on and run["pieces"] == cpu_run["pieces"]
                if on:
                    assert run["rows_read"] == cpu_run["rows_read"], (kind, name)
                    if params["C"] == 32:
                        assert run["warps_idle"] == cpu_run["skipped"], (kind, name)
                    skipped.append(cpu_run["skipped"])
                else:
                    assert cpu_run["skipped"] == 0
                    assert run["rows_read"] == cpu_run["rows"] == cpu_run["rows_read"]
                    assert run["warps_idle"] == 0
            assert outs[0].isequal(outs[1])
    assert max(skipped) > 0


def test_slimwork_argument_of_the_device_kernel() -> None:
    """cuda.mxv_pull(call, slimwork=...) overrides the switch: the benchmark times both
    variants of the same call."""
    from gblas.ops import dispatch  # noqa: PLC0415

    seen: list[dict[str, int]] = []

    def both(call: Any) -> Any:
        outs = []
        for on in (False, True):
            with sell_cpu.slimwork(not on):
                outs.append(sell_cuda.mxv_pull(call, slimwork=on))
            seen.append(dict(sell_cuda.LAST_RUN))
        (pa, va), (pb, vb) = (o.as_bitmap() for o in outs)
        assert outs[0].nvals == outs[1].nvals
        assert bool((pa == pb).all()) and bool((va[pa] == vb[pb]).all())
        return outs[1]

    register = dispatch.register_kernel
    try:
        for fmt in FORMATS:
            for traits, tag in (("structural", "structural"), ("builtin", "spmv")):
                register("mxv", f"cuda_{fmt}_pull_{tag}", device="cuda", format=fmt,
                         traits=traits, fuses_mask=True)(both)
        G = generators.grid2d(40, 40)
        src = 0
        want = bfs_semiring(G, src, "boolean")
        Gg = G.to(GPU)
        Gg.to_format("slimsell", C=32, sigma=1600)
        got = bfs_semiring(Gg, src, "boolean")
    finally:
        for fmt in FORMATS:
            for traits, tag in (("structural", "structural"), ("builtin", "spmv")):
                register("mxv", f"cuda_{fmt}_pull_{tag}", device="cuda", format=fmt,
                         traits=traits, fuses_mask=True)(sell_cuda.mxv_pull)
    same_vector(want, got)
    offs, ons = seen[0::2], seen[1::2]
    assert all(r["slimwork"] == 0 and r["warps_idle"] == 0 and r["rows_read"] == 1600
               for r in offs)
    assert all(r["slimwork"] == 1 for r in ons)
    assert ons[-1]["warps_idle"] > ons[0]["warps_idle"]
    assert ons[-1]["rows_read"] < 1600


@pytest.mark.parametrize("fmt", FORMATS)
def test_wide_chunks_split_on_the_device(fmt: str) -> None:
    """Rows wider than cuda.SPLIT slots: the device cuts their chunks into pieces even
    without SlimChunk; every monoid gives the CPU's result (float sums: allclose)."""
    from gblas.formats.sellcs.cuda import SPLIT  # noqa: PLC0415

    m = 3 * SPLIT + 17
    A = random_matrix(N, m, 900, seed=13)
    x = Vector.from_dense(np.arange(m, dtype=np.int64) % 11 - 3)
    Af = A.apply(binary.truediv, right=4.0).new()  # FP64 quarters: exact, but order-free
    xf = Vector.from_dense((np.arange(m) % 9 - 4) / 8.0)
    for C, sigma in ((32, N), (8, 1)):
        B, Bg = A.dup(), A.to(GPU)
        B.to_format(fmt, C=C, sigma=sigma)
        Bg.to_format(fmt, C=C, sigma=sigma)
        assert Bg._rep(fmt, C=C, sigma=sigma).max_width() > SPLIT
        for name in SEMIRINGS:
            sr = getattr(semiring, name)
            for kind in (None, "~V"):
                same_vector(B.mxv(x, sr).new(mask=mask_of(kind, N, 2, "cpu")),
                            Bg.mxv(x.to(GPU), sr).new(mask=mask_of(kind, N, 2, GPU)))
        Fc, Fg = Af.dup(), Af.to(GPU)
        Fc.to_format(fmt, C=C, sigma=sigma)
        Fg.to_format(fmt, C=C, sigma=sigma)
        want = Fc.mxv(xf, semiring.plus_times).new()
        got = Fg.mxv(xf.to(GPU), semiring.plus_times).new()
        np.testing.assert_array_equal(want.to_coo()[0], got.to_coo()[0])
        np.testing.assert_allclose(want.to_coo()[1], got.to_coo()[1], rtol=1e-12)


def test_empty_and_padding_only() -> None:
    """No rows, rows without entries, padding lanes: nothing leaks into the output."""
    A = Matrix.from_coo([3] * 20 + [5], list(range(20)) + [0], 1, INT64, nrows=9, ncols=20)
    x = Vector.from_dense(np.arange(20, dtype=np.int64))
    for fmt in FORMATS:
        for C in (1, 8, 32):
            for sr in (semiring.min_plus, semiring.any_secondi, semiring.plus_pair):
                B = A.to(GPU)
                B.to_format(fmt, C=C, sigma=9, slimchunk=3)
                y = B.mxv(x.to(GPU), sr).new()
                assert y.to_coo()[0].tolist() == [3, 5]
                same_vector(A.mxv(x, sr).new(), y)
    E = Matrix(INT64, 0, 4, device=GPU)
    E.to_format("sellcs")
    assert E.mxv(Vector(INT64, 4, device=GPU), semiring.plus_times).new().nvals == 0
    Z = Matrix(INT64, 40, 4, device=GPU)
    Z.to_format("slimsell", sigma=40)
    assert Z.mxv(Vector.from_dense(np.ones(4, np.int64), device=GPU),
                 semiring.plus_times).new().nvals == 0


_udf_max = BinaryOp.register_anonymous(lambda x, y: x if x > y else y, "gpu_sell_udf_max")
UDF = Semiring.register_anonymous(Monoid.register_anonymous(_udf_max, -(2**62)),
                                  binary.times, name="gpu_sell_udfmax_times")


def test_udf_falls_back_to_generic_csr() -> None:
    A = random_matrix(N, 50, 300, seed=9)
    x = Vector.from_dense(np.arange(50, dtype=np.int64) - 20)
    want = A.mxv(x, UDF).new()
    Ag = A.to(GPU)
    Ag.to_format("sellcs", C=32, sigma=N)
    d = Descriptor()
    got = Vector(INT64, N, device=GPU)
    got(desc=d) << Ag.mxv(x.to(GPU), UDF)
    assert not d.last_kernel.startswith("cuda_sellcs"), d.last_kernel
    same_vector(want, got)


# ---------------------------------------------------------------- bfs_semiring
FAMILIES = ("boolean", "real", "tropical", "selmax")
CASES = [("csr", {}), ("sellcs", {"C": 32, "sigma": 64}),
         ("slimsell", {"C": 8, "sigma": 1 << 20, "slimchunk": 4}), ("slimsell", {})]


def bfs_levels(A: Matrix, src: int, fmt: str, params: dict[str, Any]) -> list[dict]:
    B = A.dup()
    if fmt != "csr":
        B.to_format(fmt, **params)
    out = []
    csr = A.to("cpu")._csr()
    for fam in FAMILIES:
        r = bfs_semiring(B, src, fam, return_parents=fam == "selmax")
        if fam == "selmax":
            lv, parents = r
            li = dict(zip(*(a.tolist() for a in lv.to_coo())))
            for v, p in zip(*(a.tolist() for a in parents.to_coo())):
                if v != src:  # a valid parent: one level up, and an edge p -> v
                    assert li[p] == li[v] - 1
                    assert v in csr.indices[csr.indptr[p]:csr.indptr[p + 1]]
            r = lv
        assert r.device == A.device
        out.append(dict(zip(*(a.tolist() for a in r.to_coo()))))
    return out


@pytest.mark.parametrize("gen", ["kron", "grid"])
@pytest.mark.parametrize("slimwork", [True, False])
def test_bfs_semiring_levels_on_the_device(gen: str, slimwork: bool) -> None:
    A = {"kron": lambda: generators.kronecker(10, seed=2),
         "grid": lambda: generators.grid2d(20, 23)}[gen]()
    src = int(np.argmax(np.diff(A._csr().indptr)))
    want = bfs_levels(A, src, "csr", {})
    assert all(w == want[0] for w in want)
    Ag = A.to(GPU)
    with sell_cpu.slimwork(slimwork):
        for fmt, params in CASES:
            assert bfs_levels(Ag, src, fmt, params) == want, (fmt, params)
