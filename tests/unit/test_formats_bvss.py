"""BVSS (Blest's bitmap format): layout by hand, exact round trips, stats, parameter
checks, the warp emulation (two 1-bit MMAs and the CUDA-core popcount variant agree with a
direct reading of the masks), the pattern / pattern_bool dispatch traits, the CPU mxv
kernel against CSR, and the CSR fallback for other semirings."""

from __future__ import annotations

import numpy as np
import pytest

from gblas import BOOL, FP64, INT64, Descriptor, Matrix, Vector, binary, generators, semiring
from gblas.dtypes import lookup_dtype
from gblas.exceptions import DimensionMismatch, IndexOutOfBound, InvalidValue
from gblas.formats.bvss import cpu
from gblas.formats.bvss.container import POS16, TAU, build, slot_position, to_csr
from gblas.ops.dispatch import Registration, find_kernel, registrations, semiring_traits
from gblas.ops.plan import last_plan
from gblas.semirings.model import resolve_semiring


def random_matrix(nrows: int, ncols: int, nnz: int, seed: int, *, dense_block: int = 0,
                  dtype: object = INT64) -> Matrix:
    """Random entries; ``dense_block`` > 0 adds column 3 on that many rows (one column
    block with many slices: several VSSs in one set)."""
    rng = np.random.default_rng(seed)
    r = rng.integers(0, max(nrows, 1), nnz)
    c = rng.integers(0, max(ncols, 1), nnz)
    if dense_block and nrows and ncols > 3:
        rows = np.arange(min(dense_block, nrows))
        r, c = np.concatenate([r, rows]), np.concatenate([c, np.full(rows.size, 3)])
    if not (nrows and ncols):
        r = c = np.zeros(0, dtype=np.int64)
    if lookup_dtype(dtype) == BOOL:
        return Matrix.from_coo(r, c, True, BOOL, nrows=nrows, ncols=ncols, dup_op=binary.lor)
    v = rng.integers(-3, 6, r.shape[0]).astype(np.int64)
    return Matrix.from_coo(r, c, v, INT64, nrows=nrows, ncols=ncols, dup_op=binary.plus)


def same_structure(a, b) -> None:  # noqa: ANN001
    np.testing.assert_array_equal(a.indptr, b.indptr)
    np.testing.assert_array_equal(a.indices, b.indices)


# ------------------------------------------------------------------- layout by hand
def tiny() -> Matrix:
    # row 0: cols 0, 3, 9; row 1: cols 1, 2; row 2: empty; row 3: cols 0, 8
    r = [0, 0, 0, 1, 1, 3, 3]
    c = [0, 3, 9, 1, 2, 0, 8]
    return Matrix.from_coo(r, c, True, BOOL, nrows=4, ncols=10)


def test_layout_by_hand():
    b = build(tiny()._csr())
    # slices: (0,b0)=0b1001, (1,b0)=0b0110, (3,b0)=0b0001 | (0,b1)=0b10 (col 9), (3,b1)=1
    assert (b.nsets, b.nvss, b.slots, b.slices, b.nnz) == (2, 2, 32, 5, 7)
    assert b.set_ptr.tolist() == [0, 1, 2]
    assert b.vss_set.tolist() == [0, 1]
    assert b.vss_ptr.tolist() == [0, 16, 32]
    assert b.row_ids.tolist() == [0, 1, 3] + [-1] * 13 + [0, 3] + [-1] * 14
    masks = np.zeros(32, dtype=np.uint8)
    masks[[0, 1, 8]] = [0b1001, 0b0110, 0b0001]  # slice k at POS16[k]: 0, 1, 8
    masks[[16, 17]] = [0b10, 0b01]
    assert b.masks.tolist() == masks.tolist()
    assert b.perm is None and b.reorder == "none"


def test_stats_by_hand():
    s = build(tiny()._csr()).stats()
    assert s["slices"] == 5 and s["vss"] == 2 and s["sets"] == 2 and s["slots"] == 32
    assert s["padding"] == 27
    assert s["compression_ratio"] == pytest.approx(7 / 40)  # 7 bits used of 5 bytes
    assert s["update_divergence"] == 1.0  # each VSS writes rows of one 128-vertex line
    # set_ptr 3*8 + vss_set 2*4 + vss_ptr 3*8 + row_ids 32*4 + masks 32
    assert s["nbytes"] == 24 + 8 + 24 + 128 + 32 == 216
    assert s["bytes_per_edge"] == pytest.approx(216 / 7)
    assert s["nnz"] == 7 and s["sigma"] == 8 and s["tau"] == TAU and s["reorder"] == "none"
    # rows 0 and 200 in one VSS: two 128-vertex lines
    far = Matrix.from_coo([0, 200], [0, 0], True, BOOL, nrows=201, ncols=8)
    assert build(far._csr()).stats()["update_divergence"] == 2.0


def test_big_block_makes_several_vss():
    A = random_matrix(300, 20, 0, 1, dense_block=300)
    b = build(A._csr())
    assert b.nsets == 3 and b.set_ptr.tolist() == [0, 3, 3, 3]  # 300 = 128 + 128 + 44
    assert b.vss_ptr.tolist() == [0, 128, 256, 256 + 48]
    assert b.stats()["padding"] == 4
    same_structure(to_csr(b), A._csr())


@pytest.mark.parametrize("shape", [(0, 0), (0, 5), (5, 0), (1, 1), (7, 13), (13, 7), (40, 40),
                                   (9, 300), (300, 9), (130, 17)])
@pytest.mark.parametrize("density", [0.0, 0.1, 0.7])
def test_round_trip(shape, density):
    nrows, ncols = shape
    A = random_matrix(nrows, ncols, int(density * nrows * ncols), nrows + 7 * ncols,
                      dense_block=nrows if density > 0.5 else 0)
    b = build(A._csr())
    back = to_csr(b)
    same_structure(back, A._csr())
    assert back.is_iso and back.iso == 1 and back.dtype == INT64
    assert b.nsets == -(-ncols // 8)
    assert b.stats()["padding"] == b.slots - b.slices
    assert int((b.row_ids >= 0).sum()) == b.slices
    assert np.all(b.vss_ptr % 16 == 0)


def test_all_empty_matrix():
    A = Matrix(BOOL, 20, 21)
    b = build(A._csr())
    assert (b.nvss, b.slots, b.slices) == (0, 0, 0) and b.nsets == 3
    same_structure(to_csr(b), A._csr())
    assert b.stats()["compression_ratio"] == 0.0 and b.update_divergence() == 0.0


@pytest.mark.parametrize("params", [{"C": 4}, {"tau": 64}, {"tau": True}, {"tau": "128"},
                                    {"reorder": "spectral"}, {"reorder": None}])
def test_bad_parameters(params):
    A = random_matrix(10, 10, 20, 3)
    with pytest.raises(InvalidValue, match="bvss"):
        build(A._csr(), **params)
    before = list(A.formats)
    with pytest.raises(InvalidValue):
        A.to_format("bvss", **params)
    assert A.formats == before and A.format == "csr"  # nothing built or cached


def test_explicit_defaults_and_to_device():
    A = random_matrix(30, 30, 90, 4)
    b = build(A._csr(), tau=128, reorder="none")
    c = b.to("cpu")
    assert c is not b and c.masks.tolist() == b.masks.tolist()
    same_structure(to_csr(c), A._csr())


# ------------------------------------------------------------- the warp emulation
def test_lane_slot_is_the_layout():
    for lane in range(32):
        for t in range(4):
            k = 4 * lane + t
            assert cpu.lane_slot(lane, t) == int(slot_position(np, np.int64(k)))
            assert cpu.lane_slot(lane, t) == 16 * (k // 16) + POS16[k % 16]


def test_b_fragment_places_the_byte():
    frag = np.empty(32, dtype=np.uint32)
    for second in (False, True):
        cpu.b_fragment(0xA5, second, frag)
        for lane in range(32):
            j = lane >> 2
            col = np.zeros(16, dtype=np.uint8)  # B-column j as 16 bytes
            col[(8 if second else 0) + j] = 0xA5
            word = int(col[4 * (lane & 3):4 * (lane & 3) + 4].view("<u4")[0])
            assert int(frag[lane]) == word


def test_mma_is_and_popc_of_the_tile():
    rng = np.random.default_rng(5)
    a = rng.integers(0, 2**32, 32, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, 2**32, 32, dtype=np.uint64).astype(np.uint32)
    c = rng.integers(0, 5, (32, 2)).astype(np.int32)
    d = np.empty((32, 2), dtype=np.int32)
    cpu.mma_m8n8k128_and_popc(a, b, c, d)
    A = a.reshape(8, 4)  # A-row r, word w is lane 4r+w
    B = b.reshape(8, 4)  # B-column c, word w is lane 4c+w
    full = np.array([[sum(bin(int(A[r, w]) & int(B[k, w])).count("1") for w in range(4))
                      for k in range(8)] for r in range(8)])
    for lane in range(32):
        for i in range(2):
            r, k = lane >> 2, 2 * (lane & 3) + i
            assert d[lane, i] == full[r, k] + c[lane, i]


@pytest.mark.parametrize("size", [16, 48, 128])
def test_both_warp_variants_read_the_right_slices(size):
    rng = np.random.default_rng(size)
    masks = np.zeros(200, dtype=np.uint8)
    base = 40
    masks[base:base + size] = rng.integers(0, 256, size)
    masks[base + size:] = 0xFF  # the next VSS: must not be read
    a, bf = np.empty(32, np.uint32), np.empty(32, np.uint32)
    c0, d = np.zeros((32, 2), np.int32), np.empty((32, 2), np.int32)
    for f in (0x01, 0x80, 0x5A, 0xFF):
        mma = np.empty((32, 4), np.int32)
        pop = np.empty((32, 4), np.int32)
        cpu.warp_vss_mma(masks, base, base + size, f, a, bf, c0, d, mma)
        cpu.warp_vss_popcount(masks, base, base + size, f, pop)
        np.testing.assert_array_equal(mma, pop)
        for lane in range(32):
            for t in range(4):
                k = 4 * lane + t
                want = 0
                if k < size:
                    byte = int(masks[base + 16 * (k // 16) + POS16[k % 16]])
                    want = bin(byte & f).count("1")
                assert mma[lane, t] == want


def test_variant_switch():
    with pytest.raises(InvalidValue, match="popcount"):
        with cpu.use_variant("tensor"):
            pass
    assert cpu.current_variant() == "mma"
    with cpu.use_variant("popcount"):
        assert cpu.current_variant() == "popcount"
    assert cpu.current_variant() == "mma"


def test_pipeline_steps_by_hand():
    b = build(tiny()._csr())
    x = np.zeros(10, dtype=bool)
    x[3] = True
    xbyte = cpu.operand_bytes(b, present=x)
    assert xbyte.tolist() == [0b1000, 0]
    assert cpu.operand_bytes(b, indices=np.array([3])).tolist() == [0b1000, 0]
    assert cpu.active_queue(xbyte, b.set_ptr).tolist() == [0]  # set 1 has a zero byte
    for variant in cpu.VARIANTS:
        assert cpu.mxv_bytes(b, xbyte, variant=variant).tolist() == [True, False, False,
                                                                     False]
        assert cpu.LAST_RUN["active_vss"] == 1 and cpu.LAST_RUN["variant"] == variant
    x[8] = True  # column 8: rows 3 through set 1
    got = cpu.mxv_pattern(b, present=x, mask_bits=np.array([1, 0, 0, 0], bool),
                          mask_comp=True)
    assert got.tolist() == [False, False, False, True]
    assert not b._derived["touched"].any()  # finalise resets the workspace
    with pytest.raises(DimensionMismatch):
        cpu.mxv_bytes(b, np.zeros(3, np.uint8))
    with pytest.raises(DimensionMismatch):
        cpu.operand_bytes(b, present=np.zeros(9, bool))


# ----------------------------------------------------------------- dispatch traits
TRAITS = {
    ("any_pair", BOOL, BOOL): "pattern", ("any_pair", INT64, FP64): "pattern",
    ("lor_pair", INT64, INT64): "pattern", ("max_pair", INT64, BOOL): "pattern",
    ("min_pair", BOOL, BOOL): "pattern", ("any_oneb", BOOL, BOOL): "pattern",
    ("plus_pair", INT64, INT64): "structural", ("plus_pair", BOOL, BOOL): "pattern",
    ("any_secondi", BOOL, BOOL): "structural", ("min_firsti", INT64, INT64): "structural",
    ("lor_land", BOOL, BOOL): "pattern_bool", ("lor_second", BOOL, BOOL): "pattern_bool",
    ("lor_first", BOOL, BOOL): "pattern_bool", ("max_min", BOOL, BOOL): "pattern_bool",
    ("any_second", BOOL, BOOL): "pattern_bool", ("plus_times", BOOL, BOOL): "pattern_bool",
    ("max_times", BOOL, BOOL): "pattern_bool",
    ("lor_land", INT64, BOOL): "builtin", ("plus_times", INT64, INT64): "builtin",
    ("min_second", BOOL, BOOL): "builtin", ("land_lor", BOOL, BOOL): "builtin",
    ("lxor_land", BOOL, BOOL): "builtin", ("min_plus", FP64, FP64): "builtin",
}


@pytest.mark.parametrize("case", sorted(TRAITS, key=str))
def test_semiring_traits(case):
    name, left, right = case
    assert semiring_traits(resolve_semiring(getattr(semiring, name), left, right)) == \
        TRAITS[case]


def test_vxm_flip_keeps_the_trait():
    ks = resolve_semiring(semiring.lor_second.flipped, BOOL, BOOL)  # second -> first
    assert ks.mult.name == "first" and semiring_traits(ks) == "pattern_bool"


def _old_matches(reg: Registration, key: dict[str, str]) -> bool:
    """The matching rule before the pattern traits (builtin also served structural)."""
    for f in ("device", "format", "storage", "direction", "traits", "mask"):
        want, have = getattr(reg, f), key.get(f, "*")
        if want == "*" or have == "*":
            continue
        allowed = want.split("|")
        if f == "traits" and "builtin" in allowed:
            allowed.append("structural")
        if have not in allowed:
            return False
    return True


def test_every_registration_keeps_what_it_matched():
    regs = registrations()
    assert any(r.name == "bvss_pull_emulated" for r in regs)
    for reg in regs:
        for traits in ("structural", "builtin", "udf", "numpy", "*"):
            for mask in ("none", "structural", "~value"):
                key = {"traits": traits, "mask": mask, "direction": "pull"}
                assert reg.matches(key) == _old_matches(reg, key), (reg.name, key)
        if "pattern" not in reg.traits.split("|"):
            for narrow, wide in (("pattern", "structural"), ("pattern_bool", "builtin")):
                assert reg.matches({"traits": narrow}) == reg.matches({"traits": wide}), \
                    (reg.name, narrow)


def test_narrow_traits_pick_the_same_kernels_elsewhere():
    for fmt in ("csr", "coo", "sellcs", "slimsell"):
        for device in ("cpu", "cuda"):
            for direction in ("push", "pull"):
                key = {"format": fmt, "device": device, "direction": direction,
                       "mask": "~structural", "storage": "bitmap"}
                assert find_kernel("mxv", traits="pattern", **key) is \
                    find_kernel("mxv", traits="structural", **key)
                assert find_kernel("mxv", traits="pattern_bool", **key) is \
                    find_kernel("mxv", traits="builtin", **key)


def test_registration_widening():
    f = Registration("mxv", "x", print, traits="builtin")
    assert all(f.matches({"traits": t}) for t in ("structural", "pattern", "pattern_bool"))
    s = Registration("mxv", "x", print, traits="structural")
    assert s.matches({"traits": "pattern"}) and not s.matches({"traits": "pattern_bool"})
    p = Registration("mxv", "x", print, traits="pattern|pattern_bool")
    assert not any(p.matches({"traits": t}) for t in ("structural", "builtin", "udf"))


# --------------------------------------------------------------- the mxv kernel
def frontier(n: int, seed: int, k: int, dtype: object = BOOL, falses: bool = False) -> Vector:
    """k random entries of value 1 (every third 0 with ``falses``)."""
    rng = np.random.default_rng(seed)
    idx = np.sort(rng.choice(n, size=min(k, n), replace=False))
    vals = np.ones(idx.size, dtype=lookup_dtype(dtype).np_type)
    if falses:
        vals[::3] = 0
    return Vector.from_coo(idx, vals, dtype, size=n)


def test_blest_pull_step_runs_the_emulation():
    A = random_matrix(500, 500, 3000, 11, dtype=BOOL)
    v = frontier(500, 1, 60)
    want = Vector(BOOL, 500)
    want(~v.S, replace=True, desc=Descriptor(format="csr")) << A.T.mxv(v, semiring.any_pair)
    A.to_format("bvss")
    q = Vector(BOOL, 500)
    d = Descriptor()
    q(~v.S, replace=True, desc=d) << A.T.mxv(v, semiring.any_pair)
    assert d.last_kernel == "bvss_pull_emulated" and last_plan().kernel == d.last_kernel
    assert last_plan().format == "bvss"
    assert q.isequal(want) and q.nvals > 0
    assert "bvss_T" in A.formats  # the pull read BVSS of Aᵀ


@pytest.mark.parametrize("name", ["plus_times", "any_secondi", "min_plus"])
def test_other_semirings_fall_back_to_csr(name):
    A = random_matrix(200, 200, 1500, 12)
    v = frontier(200, 2, 40, dtype=INT64)
    sr = getattr(semiring, name)
    want = A.T.mxv(v, sr).new(desc=Descriptor(format="csr"))
    A.to_format("bvss")
    got = A.T.mxv(v, sr).new()
    assert last_plan().format == "csr" and last_plan().kernel.startswith("csr_")
    assert got.isequal(want)


@pytest.mark.parametrize("variant", cpu.VARIANTS)
@pytest.mark.parametrize("storage", ["sparse", "bitmap", "full"])
def test_lor_land_values(variant, storage):
    A = random_matrix(300, 300, 900, 13, dtype=BOOL)
    n = 300
    idx = np.arange(n) if storage == "full" else np.arange(0, n, 3 if storage == "bitmap"
                                                          else 40)
    vals = (idx % 2 == 0)
    x = Vector.from_coo(idx, vals, BOOL, size=n)
    x.to_format(storage)
    assert x.format == storage
    for name in ("lor_land", "lor_second", "lor_first", "max_min", "plus_times"):
        sr = getattr(semiring, name)
        want = Vector(BOOL, n)
        want(desc=Descriptor(format="csr")) << A.mxv(x, sr)
        B = A.dup()
        B.to_format("bvss")
        got = Vector(BOOL, n)
        with cpu.use_variant(variant):
            got << B.mxv(x, sr)
        assert last_plan().kernel == "bvss_pull_emulated" and cpu.LAST_RUN["variant"] == \
            variant
        assert got.isequal(want), name


def test_any_second_gives_a_valid_candidate():
    A = random_matrix(200, 200, 900, 14, dtype=BOOL)
    x = frontier(200, 3, 120, falses=True)
    B = A.dup()
    B.to_format("bvss")
    got = B.mxv(x, semiring.any_second).new()
    assert last_plan().kernel == "bvss_pull_emulated"
    hi = A.mxv(x, semiring.lor_second).new(desc=Descriptor(format="csr"))
    lo = A.mxv(x, semiring.land_second).new(desc=Descriptor(format="csr"))
    gi, gv = got.to_coo()
    hi_i, hv = hi.to_coo()
    _, lv = lo.to_coo()
    assert np.array_equal(gi, hi_i)
    assert np.all((gv == hv) | (gv == lv))  # some in-neighbour has this value


def test_pattern_value_is_the_constant_product():
    A = random_matrix(100, 100, 500, 15)  # INT64: the product of pair is 1 of INT64
    x = frontier(100, 4, 30, dtype=FP64)
    A.to_format("bvss")
    for name in ("any_pair", "max_pair", "min_pair", "lor_pair", "any_oneb"):
        got = A.mxv(x, getattr(semiring, name)).new()
        assert last_plan().kernel == "bvss_pull_emulated"
        want = A.mxv(x, getattr(semiring, name)).new(desc=Descriptor(format="csr"))
        assert got.dtype == want.dtype and got.isequal(want), name


def test_reordered_results_in_caller_ids():
    A = random_matrix(257, 257, 2000, 16, dtype=BOOL)
    v = frontier(257, 5, 50)
    want = Vector(BOOL, 257)
    want(~v.S, replace=True, desc=Descriptor(format="csr")) << A.mxv(v, semiring.any_pair)
    for method in ("rcm", "degree", "jaccard", "auto"):
        B = A.dup()
        B.to_format("bvss", reorder=method)
        rep = B._rep("bvss", reorder=method)
        assert rep.perm is not None and sorted(rep.perm.tolist()) == list(range(257))
        same_structure(to_csr(rep), A._csr())
        q = Vector(BOOL, 257)
        q(~v.S, replace=True) << B.mxv(v, semiring.any_pair)
        assert last_plan().kernel == "bvss_pull_emulated" and q.isequal(want), method


def test_reorder_needs_a_square_matrix():
    A = random_matrix(10, 12, 30, 17)
    with pytest.raises(InvalidValue, match="square"):
        A.to_format("bvss", reorder="rcm")


def test_bfs_errors():
    b = build(random_matrix(10, 12, 30, 18)._csr())
    with pytest.raises(DimensionMismatch, match="square"):
        cpu.bfs(b, 0)
    sq = build(random_matrix(10, 10, 30, 18)._csr())
    with pytest.raises(IndexOutOfBound):
        cpu.bfs(sq, 10)
    with pytest.raises(InvalidValue):
        cpu.bfs(sq, "a")
    with pytest.raises(InvalidValue):
        cpu.bfs(sq, 0, variant="wmma")


def test_pull_rep_reuses_the_forward_reordering() -> None:
    """A.to_format("bvss", reorder=...) then the BFS's BVSS of Aᵀ: one reordering, the same
    arrays as a BVSS of Aᵀ built on its own (the permutation depends on A + Aᵀ only)."""
    from gblas.formats.bvss.bfs_tc import pull_rep

    A = generators.kronecker(10, seed=4)  # noqa: N806
    A.to_format("bvss", reorder="rcm")
    fwd = A._reps["bvss(reorder=rcm)"]
    got = pull_rep(A)
    assert got.perm is fwd.perm and got.reorder == "rcm"
    alone = generators.kronecker(10, seed=4)._rep("bvss", transposed=True, reorder="rcm")
    for a, b in zip((got.masks, got.row_ids, got.vss_ptr, got.perm),
                    (alone.masks, alone.row_ids, alone.vss_ptr, alone.perm)):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("shape", [(50, 61, 0.1), (300, 20, 0.5), (7, 3, 0.3), (1, 1, 1.0)])
def test_numba_builder_equals_the_sort_scan_builder(shape: tuple[int, int, float]) -> None:
    """The CPU builds with two Numba passes, the GPU with sorts and scans (here on NumPy):
    the same arrays, dtypes included."""
    import scipy.sparse as sp

    from gblas.formats.bvss import container as C
    from gblas.formats.csr.container import CSR

    n, m, d = shape
    S = sp.random(n, m, density=d, format="csr", random_state=3)  # noqa: N806
    S.sort_indices()
    csrs = [CSR(n, m, S.indptr.astype(np.int64), S.indices.astype(np.int64), None, BOOL, True),
            generators.kronecker(9, seed=2)._csr_T(), generators.grid2d(9, 13)._csr()]
    for c in csrs:
        a, b = C._build_slices_xp(c, TAU), C._build_slices(c, TAU)
        assert (a.slices, a.nnz) == (b.slices, b.nnz)
        for x, y in zip((a.set_ptr, a.vss_set, a.vss_ptr, a.row_ids, a.masks),
                        (b.set_ptr, b.vss_set, b.vss_ptr, b.row_ids, b.masks)):
            assert x.dtype == y.dtype
            np.testing.assert_array_equal(x, y)
