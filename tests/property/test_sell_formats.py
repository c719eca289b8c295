"""Property: Sell-C-σ / SlimSell round-trip to CSR exactly and their mxv equals the CSR
mxv for any shape, C, σ, SlimChunk width, semiring, mask kind and replace flag, with
SlimWork on and off; with it on exactly the pieces whose rows the mask all forbids are
skipped (and only allowed rows read), with it off nothing is skipped and every row read."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from gblas import BOOL, INT64, Descriptor, Matrix, Vector, semiring, unary
from gblas.formats.sellcs import cpu as sell_cpu
from gblas.formats.sellcs.container import build, to_csr
from gblas.ops.plan import last_plan

SEMIRINGS = ("plus_times", "min_plus", "max_times", "lor_land", "any_pair", "any_secondi",
             "max_second", "plus_pair", "min_first")
MASKS = (None, "S", "~S", "V", "~V")


@st.composite
def cases(draw):  # noqa: ANN001, ANN201
    nrows = draw(st.integers(0, 40))
    ncols = draw(st.integers(0, 40))
    density = draw(st.sampled_from([0.0, 0.05, 0.2, 0.6]))
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    present = rng.random((nrows, ncols)) < density
    if nrows and ncols and draw(st.booleans()):
        present[rng.integers(nrows)] = True  # one long row
    r, c = np.nonzero(present)
    A = Matrix.from_coo(r, c, rng.integers(-3, 5, r.shape[0]).astype(np.int64), INT64,
                        nrows=nrows, ncols=ncols)
    xp = rng.random(ncols) < draw(st.sampled_from([0.1, 0.5, 1.0]))
    xi = np.flatnonzero(xp)
    x = Vector.from_coo(xi, rng.integers(-2, 4, xi.shape[0]).astype(np.int64), INT64,
                        size=ncols)
    C = draw(st.sampled_from([1, 2, 4, 8, 32]))  # noqa: N806
    sigma = draw(st.sampled_from([1, C, max(nrows, 1)]))
    params = {"C": C, "sigma": sigma, "slimchunk": draw(st.sampled_from([0, 1, 3]))}
    mi = np.flatnonzero(rng.random(nrows) < 0.5)
    m = Vector.from_coo(mi, rng.integers(0, 2, mi.shape[0]).astype(bool), BOOL, size=nrows)
    return A, x, params, m


@given(case=cases(), fmt=st.sampled_from(["sellcs", "slimsell"]),
       name=st.sampled_from(SEMIRINGS), kind=st.sampled_from(MASKS), replace=st.booleans())
def test_sell_mxv_equals_csr(case, fmt, name, kind, replace):  # noqa: ANN001
    A, x, params, m = case
    csr = A._csr()
    back = to_csr(build(csr, fmt, **params))
    np.testing.assert_array_equal(back.indptr, csr.indptr)
    np.testing.assert_array_equal(back.indices, csr.indices)
    if fmt == "sellcs":
        np.testing.assert_array_equal(back.full_values(), csr.full_values())
    sr = getattr(semiring, name)
    mask = None if kind is None else {"S": m.S, "~S": ~m.S, "V": m.V, "~V": ~m.V}[kind]
    replace = replace and mask is not None  # replace needs a mask
    out0 = Vector.from_coo([0], [7], INT64, size=A.nrows) if A.nrows else Vector(INT64, 0)
    if fmt == "slimsell":
        # SlimSell stores no values: a valued matrix runs on its CSR (same result as CSR)
        valued = A.dup()
        valued.to_format(fmt, **params)
        got = out0.dup()
        got(mask=mask, replace=replace) << valued.mxv(x, sr)
        want = out0.dup()
        want(mask=mask, replace=replace, desc=Descriptor(format="csr")) << A.mxv(x, sr)
        assert got.isequal(want)
        A = A.apply(unary.one).new()  # noqa: N806 - the unit-valued graph SlimSell serves
    want = out0.dup()
    want(mask=mask, replace=replace, desc=Descriptor(format="csr")) << A.mxv(x, sr)
    B = A.dup()
    B.to_format(fmt, **params)
    work = expected_work(B._rep(fmt, **params), m, kind)
    for on in (True, False):
        with sell_cpu.slimwork(on):
            got = out0.dup()
            got(mask=mask, replace=replace) << B.mxv(x, sr)
        assert last_plan().format == fmt
        assert got.isequal(want), (got, want)
        if A.nrows:
            run = sell_cpu.LAST_RUN
            assert run["rows"] == work["rows"]
            if on:
                assert (run["skipped"], run["rows_read"]) == (work["skipped"],
                                                              work["rows_read"])
            else:
                assert (run["skipped"], run["rows_read"]) == (0, work["rows"])


def expected_work(S, m: Vector, kind: str | None) -> dict[str, int]:  # noqa: ANN001
    """SlimWork's pieces to skip and (piece, lane) rows to read, from the mask by hand."""
    n, C = S.nrows, S.C  # noqa: N806
    ok = np.ones(n, dtype=bool)
    if kind is not None:
        idx, vals = m.to_coo()
        bits = np.zeros(n, dtype=bool)
        bits[idx] = True if kind in ("S", "~S") else vals
        ok = bits != kind.startswith("~")
    if S.perm is not None:
        ok = ok[np.asarray(S.perm)]
    pad = np.zeros(S.nchunks * C, dtype=bool)
    pad[:n] = ok
    real = np.zeros(S.nchunks * C, dtype=bool)
    real[:n] = True
    pc = np.asarray(S.pieces()[1])
    live = pad.reshape(-1, C).sum(axis=1)[pc]
    return {"skipped": int((live == 0).sum()), "rows_read": int(live.sum()),
            "rows": int(real.reshape(-1, C).sum(axis=1)[pc].sum())}
