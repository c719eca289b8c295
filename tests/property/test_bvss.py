"""Property: BVSS round-trips to CSR exactly (any shape, reordering) and its emulated Tensor
Core mxv/vxm equals the CSR kernels for every pattern / pattern_bool semiring, mask kind,
replace flag, accumulator, operand storage, warp variant and reordering; results are in
the caller's ids."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from gblas import BOOL, INT64, Descriptor, Matrix, Vector, binary, semiring
from gblas.formats.bvss import cpu
from gblas.formats.bvss.container import build, to_csr
from gblas.ops.plan import last_plan

PATTERN = ("any_pair", "lor_pair", "max_pair", "min_pair", "any_oneb")
PATTERN_BOOL = ("lor_land", "lor_second", "lor_first", "max_min", "plus_times", "max_times")
MASKS = (None, "S", "~S", "V", "~V")
REORDERS = ("none", "rcm", "degree", "jaccard", "auto")
ACCUMS = {BOOL: (None, binary.lor, binary.land, binary.second, binary.first),
          INT64: (None, binary.plus, binary.max, binary.second, binary.minus)}


@st.composite
def matrices(draw, square: bool | None = None, dtype=INT64):  # noqa: ANN001, ANN201
    """A random matrix: small, empty rows/columns, sometimes one column block with more than
    128 rows (several VSSs in one set), n not a multiple of 8."""
    big = draw(st.integers(0, 9)) == 0
    nrows = draw(st.integers(0, 300 if big else 40))
    sq = draw(st.booleans()) if square is None else square
    ncols = nrows if sq else draw(st.integers(0, 40))
    density = draw(st.sampled_from([0.0, 0.02, 0.1, 0.4, 0.9]))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    present = rng.random((nrows, ncols)) < density
    if nrows and ncols and draw(st.booleans()):
        present[:, rng.integers(ncols)] = True  # one full column: a tall slice set
    r, c = np.nonzero(present)
    if dtype == BOOL:
        return Matrix.from_coo(r, c, True, BOOL, nrows=nrows, ncols=ncols)
    return Matrix.from_coo(r, c, rng.integers(-3, 5, r.shape[0]).astype(np.int64), INT64,
                           nrows=nrows, ncols=ncols)


@given(A=matrices(), reorder=st.sampled_from(REORDERS))
def test_round_trip(A, reorder):  # noqa: N803
    csr = A._csr()
    reorder = reorder if A.nrows == A.ncols and A.nrows else "none"  # see _reorder_params
    b = build(csr, reorder=reorder)
    back = to_csr(b)
    np.testing.assert_array_equal(back.indptr, csr.indptr)
    np.testing.assert_array_equal(back.indices, csr.indices)
    assert b.slices == int((b.row_ids >= 0).sum())
    assert b.stats()["padding"] == b.slots - b.slices
    assert np.all(np.diff(b.vss_ptr) % 16 == 0) and np.all(np.diff(b.vss_ptr) > 0)
    assert np.all(np.diff(b.vss_ptr) <= 128)


def _reorder_params(A: Matrix, reorder: str) -> dict[str, str]:  # noqa: N803
    """Reorderings need a square matrix; 0 x 0 is left out (SciPy's RCM fails on it)."""
    return {"reorder": reorder} if A.nrows == A.ncols and A.nrows and reorder != "none" \
        else {}


@st.composite
def operands(draw, n: int, dtype):  # noqa: ANN001, ANN201
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    keep = rng.random(n) < draw(st.sampled_from([0.0, 0.03, 0.3, 1.0]))
    idx = np.flatnonzero(keep)
    vals = rng.integers(0, 3, idx.shape[0])  # zeros: false operand values for lor_land
    x = Vector.from_coo(idx, vals.astype(dtype.np_type), dtype, size=n)
    storage = draw(st.sampled_from(["sparse", "bitmap", "full"]))
    if storage == "full" and x.nvals < n:
        storage = "bitmap"
    x.to_format(storage)
    return x


@st.composite
def mask_vectors(draw, n: int):  # noqa: ANN001, ANN201
    kind = draw(st.sampled_from(MASKS))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    mi = np.flatnonzero(rng.random(n) < 0.5)
    m = Vector.from_coo(mi, rng.integers(0, 2, mi.shape[0]).astype(bool), BOOL, size=n)
    return None if kind is None else {"S": m.S, "~S": ~m.S, "V": m.V, "~V": ~m.V}[kind]


@given(data=st.data(), pattern_bool=st.booleans(), op=st.sampled_from(["mxv", "vxm"]),
       variant=st.sampled_from(cpu.VARIANTS), reorder=st.sampled_from(REORDERS),
       replace=st.booleans())
def test_mxv_equals_csr(data, pattern_bool, op, variant, reorder, replace):  # noqa: ANN001
    A = data.draw(matrices(dtype=BOOL if pattern_bool else INT64), "A")
    name = data.draw(st.sampled_from(PATTERN_BOOL if pattern_bool else PATTERN), "semiring")
    sr = getattr(semiring, name)
    xdt = BOOL if pattern_bool else data.draw(st.sampled_from([BOOL, INT64]), "x dtype")
    x = data.draw(operands(A.ncols if op == "mxv" else A.nrows, xdt), "x")
    n_out = A.nrows if op == "mxv" else A.ncols
    mask = data.draw(mask_vectors(n_out), "mask")
    out_t = BOOL if pattern_bool else (INT64 if A.dtype == INT64 else BOOL)
    accum = data.draw(st.sampled_from(ACCUMS[out_t]), "accum")
    replace = replace and mask is not None
    params = _reorder_params(A, reorder)

    def expr(M):  # noqa: ANN001, ANN202, N803
        return M.mxv(x, sr) if op == "mxv" else x.vxm(M, sr)

    rng = np.random.default_rng(A.nvals)
    oi = np.flatnonzero(rng.random(n_out) < 0.3)
    out0 = Vector.from_coo(oi, np.ones(oi.shape[0], out_t.np_type), out_t, size=n_out)
    want = out0.dup()
    want(mask=mask, accum=accum, replace=replace, desc=Descriptor(format="csr")) << expr(A)
    B = A.dup()
    B.to_format("bvss", **params)
    got = out0.dup()
    with cpu.use_variant(variant):
        got(mask=mask, accum=accum, replace=replace) << expr(B)
    assert last_plan().kernel == "bvss_pull_emulated"
    assert cpu.LAST_RUN["variant"] == variant
    assert got.isequal(want), (got, want)
