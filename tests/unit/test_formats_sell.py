"""Sell-C-σ and SlimSell: builders, exact round trips, stats, the CPU mxv kernel against
the CSR kernels (semirings × masks × replace × formats), SlimWork/SlimChunk on and off,
parameter pass-through from to_format, and bfs_semiring on every format."""

from __future__ import annotations

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
    io,
    semiring,
    unary,
)
from gblas.algorithms import bfs_semiring
from gblas.exceptions import InvalidValue
from gblas.formats.csr.container import CSR
from gblas.formats.sellcs import cpu as sell_cpu
from gblas.formats.sellcs.container import build, to_csr
from gblas.ops.plan import last_plan
from gblas.semirings.model import resolve_semiring

FORMATS = ("sellcs", "slimsell")
_udf_max = BinaryOp.register_anonymous(lambda x, y: x if x > y else y, "sell_udf_max")
UDF = Semiring.register_anonymous(Monoid.register_anonymous(_udf_max, -(2**62)),
                                  binary.times, name="sell_udfmax_times")
SEMIRINGS = {
    "plus_times": semiring.plus_times, "min_plus": semiring.min_plus,
    "max_times": semiring.max_times, "lor_land": semiring.lor_land,
    "any_pair": semiring.any_pair, "any_secondi": semiring.any_secondi,
    "max_second": semiring.max_second, "plus_pair": semiring.plus_pair, "udf": UDF,
}


def random_csr(nrows: int, ncols: int, nnz: int, seed: int, *, long_row: bool = False,
               iso: bool = False) -> Matrix:
    rng = np.random.default_rng(seed)
    r = rng.integers(0, max(nrows, 1), nnz)
    c = rng.integers(0, max(ncols, 1), nnz)
    if long_row and nrows and ncols:
        r = np.concatenate([r, np.full(ncols, nrows // 2)])
        c = np.concatenate([c, np.arange(ncols)])
    if not (nrows and ncols):
        r = c = np.zeros(0, dtype=np.int64)
    if iso:
        return Matrix.from_coo(r, c, True, BOOL, nrows=nrows, ncols=ncols,
                               dup_op=binary.lor)
    v = rng.integers(-3, 6, r.shape[0]).astype(np.int64)
    return Matrix.from_coo(r, c, v, INT64, nrows=nrows, ncols=ncols, dup_op=binary.plus)


def same_csr(a: CSR, b: CSR, values: bool = True) -> None:
    assert (a.nrows, a.ncols) == (b.nrows, b.ncols)
    np.testing.assert_array_equal(a.indptr, b.indptr)
    np.testing.assert_array_equal(a.indices, b.indices)
    if values:
        np.testing.assert_array_equal(a.full_values(), b.full_values())


# ---------------------------------------------------------------- round trips
SHAPES = [(0, 0, 0), (0, 5, 0), (5, 0, 0), (1, 1, 1), (17, 11, 40), (40, 33, 120),
          (9, 64, 20)]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("C", [1, 2, 4, 8, 32])
@pytest.mark.parametrize("shape", SHAPES)
def test_round_trip(fmt, C, shape):  # noqa: N803
    nrows, ncols, nnz = shape
    for long_row in (False, True):
        A = random_csr(nrows, ncols, nnz, seed=C + nrows, long_row=long_row)
        csr = A._csr()
        for sigma in sorted({1, C, max(nrows, 1)}):
            for slimchunk in (0, 3):
                S = build(csr, fmt, C=C, sigma=sigma, slimchunk=slimchunk)
                assert S.name == fmt and S.nnz == csr.nnz
                back = to_csr(S)
                same_csr(back, csr, values=fmt == "sellcs")
                if fmt == "slimsell":
                    assert back.is_iso and back.iso == 1 and S.values is None
                # padding holds -1; every chunk is C * its longest row
                assert int((S.cols >= 0).sum()) == csr.nnz
                np.testing.assert_array_equal(np.diff(S.cs), S.cl * C)


def test_sorting_undone_and_iso_kept():
    A = random_csr(30, 30, 90, seed=3, long_row=True, iso=True)
    S = build(A._csr(), "sellcs", C=4, sigma=30)
    assert S.perm is not None and S.values is None and S.iso
    same_csr(to_csr(S), A._csr())
    # the sorted lengths descend within the window
    lens = np.diff(A._csr().indptr)[S.perm]
    assert (np.diff(lens) <= 0).all()


def test_stats_by_hand():
    """4 rows of lengths 1, 3, 0, 2 (3 columns), C=2, σ=4: sorted 3, 2, 1, 0."""
    r = [0, 1, 1, 1, 3, 3]
    c = [2, 0, 1, 2, 0, 1]
    A = Matrix.from_coo(r, c, [1, 2, 3, 4, 5, 6], INT64, nrows=4, ncols=3)
    S = build(A._csr(), "sellcs", C=2, sigma=4)
    np.testing.assert_array_equal(S.perm, [1, 3, 0, 2])
    np.testing.assert_array_equal(S.cl, [3, 1])
    np.testing.assert_array_equal(S.cs, [0, 6, 8])
    # chunk 0 column-major: slot 0 of rows 1, 3; slot 1; slot 2 (row 3 padded)
    np.testing.assert_array_equal(S.cols, [0, 0, 1, 1, 2, -1, 2, -1])
    np.testing.assert_array_equal(S.values, [2, 5, 3, 6, 4, 0, 1, 0])
    st = S.stats()
    # cs 3*8 + cl 2*8 + cols 8*8 + values 8*8 + perm 4*8
    assert st["nbytes"] == 24 + 16 + 64 + 64 + 32 == S.nbytes()
    assert (st["padding"], st["cells"], st["chunks"], st["C"], st["sigma"]) == (2, 8, 2, 2, 4)
    assert st["bytes_per_edge"] == pytest.approx(200 / 6)
    slim = build(A._csr(), "slimsell", C=2, sigma=4).stats()
    assert slim["nbytes"] == 200 - 64 and slim["padding"] == 2
    # without sorting: chunks (1, 3) and (0, 2) -> widths 3 and 2, 10 cells, no perm
    S1 = build(A._csr(), "slimsell", C=2, sigma=1)
    assert S1.perm is None and S1.stats()["padding"] == 4
    assert S1.nbytes() == 24 + 16 + 80
    # SlimChunk of width 2: chunk 0 (3 slots) in 2 pieces, chunk 1 (1 slot) in 1
    S2 = build(A._csr(), "slimsell", C=2, sigma=4, slimchunk=2)
    pstart, pc, lo, hi = S2.pieces()
    np.testing.assert_array_equal(pstart, [0, 2, 3])
    np.testing.assert_array_equal(pc, [0, 0, 1])
    np.testing.assert_array_equal(lo, [0, 2, 0])
    np.testing.assert_array_equal(hi, [2, 3, 1])
    assert S2.stats()["pieces"] == 3 and S2.nbytes() == slim["nbytes"] + 3 * 8 + 3 * 8 * 2


@pytest.mark.parametrize("params", [{"C": 0}, {"sigma": 0}, {"C": "8"}, {"C": True},
                                    {"slimchunk": -1}, {"c": 8}])
@pytest.mark.parametrize("fmt", FORMATS)
def test_bad_parameters(fmt, params):
    A = random_csr(5, 5, 10, seed=1)
    with pytest.raises(InvalidValue, match=fmt):
        A.to_format(fmt, **params)
    assert A.format == "csr"


def test_defaults_and_to_device():
    A = random_csr(20, 20, 50, seed=2)
    A.to_format("slimsell")
    S = A._rep("slimsell")
    assert (S.C, S.sigma, S.slimchunk) == (8, 1, 0)
    S2 = S.to("cpu")
    assert type(S2) is type(S) and S2.stats() == S.stats()


# ---------------------------------------------------------------- mxv against CSR
def expected(A: Matrix, fmt: str, x: Vector, sr, mask, replace, out0, T: bool) -> Vector:  # noqa: ANN001, N803
    """The CSR result (SlimSell: of A with every entry 1)."""
    B = A if fmt == "sellcs" else A.apply(unary.one).new()
    out = out0.dup()
    d = Descriptor(format="csr")
    out(mask=mask, replace=replace, desc=d) << (x.vxm(B, sr) if T else B.mxv(x, sr))
    return out


def check_mxv(A: Matrix, fmt: str, params: dict, x: Vector, sr, mask, replace: bool,  # noqa: ANN001
              T: bool = False) -> None:  # noqa: N803
    if fmt == "slimsell":  # the unit-valued graph SlimSell serves (a valued one runs on CSR)
        A = A.apply(unary.one).new()  # noqa: N806
    n = A.ncols if T else A.nrows
    rng = np.random.default_rng(n)
    idx = np.flatnonzero(rng.random(n) < 0.3)
    out0 = Vector.from_coo(idx, np.ones(idx.shape[0], dtype=np.int64), INT64, size=n)
    want = expected(A, fmt, x, sr, mask, replace, out0, T)
    B = A.dup()
    B.to_format(fmt, **params)
    for on in (True, False):
        with sell_cpu.slimwork(on):
            got = out0.dup()
            got(mask=mask, replace=replace) << (x.vxm(B, sr) if T else B.mxv(x, sr))
            assert last_plan().format == fmt
            assert got.isequal(want), (fmt, params, on, got, want)


def _mask(kind: str | None, n: int, seed: int):  # noqa: ANN202
    if kind is None:
        return None
    rng = np.random.default_rng(seed)
    idx = np.flatnonzero(rng.random(n) < 0.5)
    m = Vector.from_coo(idx, rng.integers(0, 2, idx.shape[0]).astype(bool), BOOL, size=n)
    return {"S": m.S, "~S": ~m.S, "V": m.V, "~V": ~m.V}[kind]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", list(SEMIRINGS))
def test_mxv_matches_csr(fmt, name):
    sr = SEMIRINGS[name]
    A = random_csr(45, 37, 160, seed=7, long_row=True)
    rng = np.random.default_rng(1)
    xi = np.flatnonzero(rng.random(37) < 0.5)
    x = Vector.from_coo(xi, rng.integers(-2, 5, xi.shape[0]).astype(np.int64), INT64, size=37)
    for k, kind in enumerate([None, "S", "~S", "V", "~V"]):
        for params in ({"C": 4, "sigma": 16}, {"C": 8, "sigma": 45, "slimchunk": 2},
                       {"C": 1}):
            check_mxv(A, fmt, params, x, sr, _mask(kind, 45, k), replace=bool(k % 2))


@pytest.mark.parametrize("fmt", FORMATS)
def test_vxm_reads_the_transposed_representation(fmt):
    A = random_csr(23, 31, 90, seed=4)
    x = Vector.from_coo([0, 3, 5, 22], [1, 2, 3, 4], INT64, size=23)
    check_mxv(A, fmt, {"C": 4, "sigma": 16}, x, semiring.plus_times, None, False, T=True)
    check_mxv(A, fmt, {"C": 4, "sigma": 16}, x, semiring.min_plus, _mask("~V", 31, 2),
              True, T=True)


def test_parameters_pass_through_to_the_kernel():
    A = random_csr(40, 40, 120, seed=5)
    A.to_format("sellcs", C=4, sigma=16)
    x = Vector.from_coo([1, 2, 3], [1, 1, 1], INT64, size=40)
    d = Descriptor(direction="push")
    y = Vector(INT64, 40)
    y(desc=d) << A.mxv(x, semiring.plus_times)
    assert d.last_kernel == "sellcs_pull_spmv"
    assert A.formats == ["csr", "sellcs(C=4,sigma=16)"]
    y(desc=d) << x.vxm(A, semiring.plus_times)
    assert A.formats[-1] == "sellcs(C=4,sigma=16)_T"
    y(desc=d) << A.mxv(x, semiring.any_pair)
    assert d.last_kernel == "sellcs_pull_structural"
    # a format named by the descriptor only takes its defaults
    d2 = Descriptor(format="slimsell")
    y(desc=d2) << A.mxv(x, semiring.any_pair)
    assert d2.last_kernel == "slimsell_pull_structural" and "slimsell" in A.formats


def test_padding_never_leaks():
    """Empty rows, a chunk of one long row, padding lanes: absent rows stay absent even
    for semirings whose identity would be a valid product (min_plus: ∞ + x)."""
    A = Matrix.from_coo([3] * 20 + [5], list(range(20)) + [0], 1, INT64, nrows=9, ncols=20)
    x = Vector.from_dense(np.arange(20, dtype=np.int64))
    for fmt in FORMATS:
        for C in (1, 4, 32):
            for sr in (semiring.min_plus, semiring.any_secondi, semiring.plus_pair,
                       semiring.max_times):
                B = A.dup()
                B.to_format(fmt, C=C, sigma=9, slimchunk=3)
                y = B.mxv(x, sr).new()
                idx, _ = y.to_coo()
                assert idx.tolist() == [3, 5]
                assert y.isequal(A.mxv(x, sr).new())


def test_slimwork_skips_settled_chunks_and_changes_nothing():
    A = generators.grid2d(16, 16)
    A.to_format("slimsell", C=8)
    x = Vector.from_dense(np.ones(256, dtype=bool))
    settled = Vector.from_coo(np.arange(128), True, size=256)  # rows 0..127: 16 chunks
    outs = []
    for on in (True, False):
        with sell_cpu.slimwork(on):
            outs.append(A.mxv(x, semiring.lor_land).new(mask=~settled.S))
            run = dict(sell_cpu.LAST_RUN)
        assert run["skipped"] == (16 if on else 0) and run["pieces"] == 32
        # off: every row of every chunk is read, the mask only filters the writes
        assert run["rows"] == 256 and run["rows_read"] == (128 if on else 256)
        assert run["slimwork"] == on
    assert outs[0].isequal(outs[1]) and outs[0].nvals == 128


def expected_work(S, mask_bits, mask_comp: bool) -> dict:  # noqa: ANN001
    """Pieces whose rows the mask all forbids, and the (piece, lane) rows it allows."""
    n, C = S.nrows, S.C  # noqa: N806
    _, pc, _, _ = S.pieces()
    rows = np.arange(n) if S.perm is None else np.asarray(S.perm)
    ok = np.ones(n, dtype=bool) if mask_bits is None else mask_bits[rows] != mask_comp
    pad = np.zeros(S.nchunks * C, dtype=bool)
    pad[:n] = ok
    per_chunk = pad.reshape(-1, C).sum(axis=1)[np.asarray(pc)]
    return {"skipped": int((per_chunk == 0).sum()), "rows_read": int(per_chunk.sum())}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("params", [{"C": 8, "sigma": 45}, {"C": 4, "sigma": 1, "slimchunk": 2},
                                    {"C": 32, "sigma": 16}])
def test_slimwork_off_reads_every_chunk(fmt, params):
    """Counters of both variants under every mask kind, terminal monoids included: on,
    exactly the chunks whose rows the mask all forbids are skipped and only allowed rows
    are read; off, nothing is skipped and every row is read; same results."""
    A = random_csr(45, 37, 160, seed=3, long_row=True)
    if fmt == "slimsell":
        A = A.apply(unary.one).new()  # noqa: N806 - SlimSell serves unit-valued graphs
    A.to_format(fmt, **params)
    S = A._rep(fmt, **params)
    x = Vector.from_dense(np.arange(37, dtype=np.int64) % 5)
    n_rows = int(sum(min(S.C, S.nrows - c * S.C) for c in np.asarray(S.pieces()[1])))
    # structure on rows 0..35 (~S forbids most chunks), true values on rows 0..19
    m = Vector.from_coo(np.arange(36), np.arange(36) < 20, BOOL, size=45)
    skips = []
    for kind in (None, "S", "~S", "V", "~V"):
        mask = None if kind is None else {"S": m.S, "~S": ~m.S, "V": m.V, "~V": ~m.V}[kind]
        bits, comp = None, False
        if kind is not None:
            idx, vals = m.to_coo()
            bits = np.zeros(45, dtype=bool)
            bits[idx] = True if kind in ("S", "~S") else vals.astype(bool)
            comp = kind.startswith("~")
        for sr in (semiring.lor_land, semiring.plus_times, semiring.any_secondi):
            outs = []
            for on in (True, False):
                with sell_cpu.slimwork(on):
                    outs.append(A.mxv(x, sr).new(mask=mask))
                run = dict(sell_cpu.LAST_RUN)
                assert run["rows"] == n_rows and run["slimwork"] == on
                if on:
                    want = expected_work(S, bits, comp)
                    assert (run["skipped"], run["rows_read"]) == (want["skipped"],
                                                                  want["rows_read"])
                    skips.append(run["skipped"])
                else:
                    assert run["skipped"] == 0 and run["rows_read"] == n_rows
            assert outs[0].isequal(outs[1]), (kind, sr)
    assert max(skips) > 0 and min(skips) == 0


def test_slimwork_argument_of_the_kernel():
    """cpu.mxv_pull(slimwork=...) overrides the switch (the benchmark times both)."""
    A = generators.grid2d(8, 8)
    A.to_format("sellcs", C=8)
    S = A._rep("sellcs", C=8)
    ks = resolve_semiring(semiring.lor_land, BOOL, BOOL)
    xb = np.ones(64, dtype=bool)
    mb = np.zeros(64, dtype=bool)
    mb[:32] = True  # rows 0..31 settled (complemented mask: forbidden)
    outs = []
    for on in (True, False):
        with sell_cpu.slimwork(not on):  # the argument wins over the switch
            outs.append(sell_cpu.mxv_pull(S, xb, xb, mb, True, ks, slimwork=on))
        assert sell_cpu.LAST_RUN["skipped"] == (4 if on else 0)
    np.testing.assert_array_equal(outs[0][0], outs[1][0])
    assert outs[0][0][32:].all() and not outs[0][0][:32].any()


# ---------------------------------------------------------------- bfs_semiring
FAMILIES = ("boolean", "real", "tropical", "selmax")


def bfs_all(A: Matrix, src: int, fmt: str, params: dict) -> list:  # noqa: ANN001
    B = A.dup()
    if fmt != "csr":
        B.to_format(fmt, **params)
    out = []
    for fam in FAMILIES:
        r = bfs_semiring(B, src, fam, return_parents=fam == "selmax")
        if fam == "selmax":
            lv, parents = r
            # a valid parent: one level up, and an edge parent -> v
            pi, pv = parents.to_coo()
            li = dict(zip(*lv.to_coo()))
            csr = A._csr()
            for v, p in zip(pi.tolist(), pv.tolist()):
                if v != src:
                    assert li[p] == li[v] - 1
                    assert v in csr.indices[csr.indptr[p]:csr.indptr[p + 1]]
            r = lv
        out.append(dict(zip(*(a.tolist() for a in r.to_coo()))))
    return out


CASES = [("csr", {}), ("sellcs", {"C": 8, "sigma": 64}),
         ("slimsell", {"C": 4, "sigma": 1 << 20, "slimchunk": 4}), ("slimsell", {})]


@pytest.mark.parametrize("gen", ["grid", "kron", "urand"])
def test_bfs_semiring_same_levels_on_every_format(gen):
    A = {"grid": lambda: generators.grid2d(12, 17),
         "kron": lambda: generators.kronecker(9, seed=2),
         "urand": lambda: generators.urand(8, 4, seed=3)}[gen]()
    src = int(np.argmax(np.diff(A._csr().indptr)))
    results = [bfs_all(A, src, fmt, p) for fmt, p in CASES]
    for res in results:
        assert all(r == results[0][0] for r in res)
        assert res == results[0]


@pytest.mark.parametrize("family", FAMILIES)
def test_bfs_semiring_slimwork_off_reads_everything(monkeypatch, family):
    """Every SpMV of a BFS: with SlimWork off no chunk is skipped and every row is read;
    with it on, the late levels skip chunks; the levels are the same."""
    A = generators.kronecker(9, seed=2)
    A.to_format("slimsell", C=8, sigma=512)
    src = int(np.argmax(np.diff(A._csr().indptr)))
    runs: list[dict] = []
    orig = sell_cpu.mxv_pull

    def recorded(*args, **kw):  # noqa: ANN002, ANN003, ANN202
        out = orig(*args, **kw)
        runs.append(dict(sell_cpu.LAST_RUN))
        return out

    monkeypatch.setattr(sell_cpu, "mxv_pull", recorded)
    levels = {}
    for on in (True, False):
        runs.clear()
        with sell_cpu.slimwork(on):
            levels[on] = bfs_semiring(A, src, family)
        assert len(runs) >= 3
        if on:
            assert runs[0]["skipped"] == 0 and runs[-1]["skipped"] > runs[0]["skipped"]
            assert all(r["rows_read"] < r["rows"] for r in runs)
        else:
            assert all(r["skipped"] == 0 and r["rows_read"] == r["rows"] for r in runs)
    assert levels[True].isequal(levels[False])


@pytest.mark.parametrize("name", ["snap_ego-Facebook.mtx.gz", "dimacs10_delaunay_n16.mtx.gz"])
def test_bfs_semiring_real_graphs(graphs_path, name):
    path = graphs_path / name
    if not path.exists():
        pytest.skip(f"{name} is not in {graphs_path}")
    A = io.mmread(path)
    results = [bfs_all(A, 0, fmt, p) for fmt, p in CASES[:3]]
    assert results[1] == results[0] and results[2] == results[0]
