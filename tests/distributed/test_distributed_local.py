"""gblas.distributed in one process (no MPI needed): the API, its errors, and the one-part
results (equal to plain gblas)."""

from __future__ import annotations

import numpy as np
import pytest

import gblas as gb
import gblas.distributed as gd
from gblas import INT64, binary, semiring
from gblas.algorithms import bfs, connected_components, validate_bfs
from gblas.algorithms.validate import BFSValidationError
from gblas.exceptions import (
    DimensionMismatch,
    IndexOutOfBound,
    InvalidObject,
    InvalidValue,
    NotImplementedForFormat,
)


@pytest.fixture(scope="module")
def graph() -> tuple[gd.DistMatrix, gb.Matrix]:
    comm = gd.local_comm()
    return gd.kronecker(8, edge_factor=4, seed=2, comm=comm), \
        gd.kronecker_serial(8, edge_factor=4, seed=2)


def test_one_part_equals_serial_and_bfs(graph) -> None:
    A, S = graph  # noqa: N806
    assert A.gather().isequal(S) and A.nvals == S.nvals and A.shape == S.shape
    assert A.is_symmetric() and A.layout.n_local == S.nrows
    lv, pi = bfs(A, 5, parents=True)
    assert isinstance(lv, gd.DistVector) and lv.device is A.layout
    validate_bfs(S, 5, lv.gather(), pi.gather())
    assert gd.validate_bfs(A, 5, lv, pi)


def test_kronecker_parts_do_not_depend_on_the_chunking() -> None:
    # the serial build is the same for any seed-compatible call; the sample differs from
    # generators.kronecker (one stream) but has its size
    S = gd.kronecker_serial(9, edge_factor=8, seed=1)  # noqa: N806
    K = gb.generators.kronecker(9, edge_factor=8, seed=1)  # noqa: N806
    assert S.is_symmetric() and not S.isequal(K)
    assert abs(S.nvals - K.nvals) < 0.1 * K.nvals
    with pytest.raises(InvalidValue, match="scale"):
        gd.kronecker_serial(-1)


def test_validate_rejects_wrong_results(graph) -> None:
    A, S = graph  # noqa: N806
    lv, pi = bfs(A, 0, parents=True)
    bad = lv.dup()
    far = int(np.flatnonzero(lv.to_dense(-1) == lv.to_dense(-1).max())[0])
    bad[far] << 99
    with pytest.raises(BFSValidationError, match="spans levels|no in-neighbour"):
        gd.validate_bfs(A, 0, bad, None)
    wrong = pi.dup()
    child = int(np.flatnonzero(lv.to_dense(-1) == 2)[0])
    wrong[child] << child  # not an edge (no self-loops) and not one level up
    with pytest.raises(BFSValidationError, match="parent"):
        gd.validate_bfs(A, 0, lv, wrong)
    with pytest.raises(BFSValidationError, match="size"):
        gd.validate_bfs(A, 0, gd.DistVector(INT64, gd.Layout(A.layout.comm, 3)))
    # a parent one level up that is not a neighbour: only the edge search catches it
    lvd = lv.to_dense(-1)
    rows, cols, _ = S.to_coo()
    for child in np.flatnonzero(lvd == 2):
        adjacent = set(cols[rows == child].tolist())
        others = [int(w) for w in np.flatnonzero(lvd == 1) if int(w) not in adjacent]
        if others:
            break
    wrong = pi.dup()
    wrong[int(child)] << others[0]
    with pytest.raises(BFSValidationError, match="parent edge does not exist"):
        gd.validate_bfs(A, 0, lv, wrong)


@pytest.mark.parametrize("seed", range(4))
def test_validate_edge_search_matches_a_set(seed: int) -> None:
    from gblas.distributed.validate import _edge_exists  # noqa: PLC0415

    rng = np.random.default_rng(seed)
    n = 40
    dense = rng.random((n, n)) < rng.choice([0.0, 0.05, 0.3, 1.0])
    M = gb.Matrix.from_dense(dense.astype(np.int8), missing_value=0)  # noqa: N806
    indptr, indices, _ = M.to_csr()
    rows = rng.integers(0, n, 500)
    cols = rng.integers(0, n, 500)
    got = _edge_exists(indptr, indices, rows, cols)
    assert np.array_equal(got, dense[rows, cols])


def test_vector_hook_makes_distributed_vectors(graph) -> None:
    A, _ = graph  # noqa: N806
    v = gb.Vector(INT64, A.nrows, device=A.device)
    assert isinstance(v, gd.DistVector) and v.size == A.nrows and v.nvals == 0
    f = gb.Vector.from_dense(np.arange(A.nrows), dtype=INT64, device=A.device)
    assert isinstance(f, gd.DistVector) and f.nvals == A.nrows and f[7].value == 7
    s = gb.Vector.from_scalar(2.5, A.nrows, device=A.device)
    assert isinstance(s, gd.DistVector) and s.gather().isequal(
        gb.Vector.from_scalar(2.5, A.nrows))
    with pytest.raises(DimensionMismatch, match="layout"):
        gb.Vector(INT64, A.nrows + 1, device=A.device)
    assert type(gb.Vector(INT64, 4)) is gb.Vector  # ordinary vectors are untouched


def test_errors(graph) -> None:
    A, S = graph  # noqa: N806
    lay = A.layout
    other = gd.Layout(lay.comm, 10)
    x = gd.DistVector(gb.FP64, lay)
    y = gd.DistVector(gb.FP64, other)
    with pytest.raises(InvalidObject, match="DistVector"):
        A.mxv(gb.Vector(gb.FP64, A.nrows))
    with pytest.raises(DimensionMismatch, match="same size and partition"):
        A.mxv(y)
    with pytest.raises(DimensionMismatch, match="mask"):
        x(y.S) << 1.0
    with pytest.raises(DimensionMismatch, match="partitioned differently"):
        x << y
    with pytest.raises(InvalidValue, match="replace"):
        x(replace=True) << 1.0
    with pytest.raises(InvalidObject, match="cannot assign"):
        x << gb.Vector(gb.FP64, A.nrows)
    with pytest.raises(NotImplementedForFormat, match="Matrix.mxm"):
        A.mxm(A)
    with pytest.raises(NotImplementedForFormat, match="transposing"):
        x(desc=gb.Descriptor(transpose_first=True)) << A.mxv(x)
    with pytest.raises(NotImplementedForFormat, match="monoid any, min or max"):
        v = gd.DistVector(gb.BOOL, lay)
        v[0] << True
        v.vxm(gd.from_matrix(S, gd.Layout(lay.comm, S.nrows)), semiring.plus_secondi).new()
    with pytest.raises(IndexOutOfBound):
        x[A.nrows] << 1.0
    with pytest.raises(IndexOutOfBound):
        gd.from_edges([0, A.nrows], [1, 2], 1.0, lay)
    with pytest.raises(DimensionMismatch, match="square"):
        gd.from_matrix(gb.Matrix(gb.FP64, 3, 4), gd.Layout(lay.comm, 3))
    with pytest.raises(DimensionMismatch, match="block must be"):
        gd.DistMatrix(gb.Matrix(gb.BOOL, 2, 2), lay)
    with pytest.raises(InvalidValue, match="alltoallv"):
        lay.comm.alltoallv(np.zeros(2), [1, 1])
    with pytest.raises(InvalidValue, match="alltoallv"):
        lay.comm.alltoallv(np.zeros(2), [1], send_offsets=[0, 1])
    with pytest.raises(InvalidValue):
        gd.BlockPartition(-1, 2)
    with pytest.raises(IndexOutOfBound, match="out of range for size"):
        x[[1, A.nrows]]
    with pytest.raises(DimensionMismatch, match="indices but the vector operand"):
        x[[1, 2]] << x
    with pytest.raises(InvalidObject, match="index list"):
        x[[1, 2]] << gb.Vector(gb.FP64, 2)


def test_exchange_picks_the_smaller_encoding(graph) -> None:
    from gblas.distributed.exchange import gather_full  # noqa: PLC0415

    A, _ = graph  # noqa: N806
    lay = A.layout
    for k, want in ((2, "sparse"), (200, "bitmap")):
        v = gd.DistVector(INT64, lay)
        for i in range(k):
            v[i] << i
        stats: dict = {}
        full = gather_full(v.local, lay, stats=stats)
        assert stats["encoding"] == want and full.isequal(v.local)


def test_mmread_errors(tmp_path) -> None:
    comm = gd.local_comm()
    rect = tmp_path / "rect.mtx"
    rect.write_text("%%MatrixMarket matrix coordinate pattern general\n3 4 1\n1 2\n")
    with pytest.raises(InvalidValue, match="square"):
        gd.mmread(rect, comm=comm)
    short = tmp_path / "short.mtx"
    short.write_text("%%MatrixMarket matrix coordinate real general\n3 3 3\n1 2 1.0\n2 3 2\n")
    with pytest.raises(InvalidValue, match="announces 3"):
        gd.mmread(short, comm=comm)
    bad = tmp_path / "bad.mtx"
    bad.write_text("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 1.0\n9 3 2\n")
    with pytest.raises(InvalidValue, match="bad.mtx:4: row index 9"):
        gd.mmread(bad, comm=comm)
    dense = tmp_path / "dense.mtx"
    dense.write_text("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n")
    with pytest.raises(InvalidValue, match="coordinate"):
        gd.mmread(dense, comm=comm)
    good = tmp_path / "good.mtx"
    good.write_text("%%MatrixMarket matrix coordinate integer symmetric\n% c\n3 3 2\n"
                    "2 1 5\n3 3 7\n")
    A = gd.mmread(good, comm=comm)  # noqa: N806
    assert A.gather().isequal(gb.io.mmread(good), check_dtype=True)
    assert A.is_symmetric() and A.nvals == 3


def test_sum_and_masks_on_one_part(graph) -> None:
    A, S = graph  # noqa: N806
    x = gb.Vector.from_dense(np.arange(A.nrows, dtype=float), device=A.device)
    xs = gb.Vector.from_dense(np.arange(S.nrows, dtype=float))
    y = A.mxv(x, semiring.plus_times).new()
    assert y.gather().isclose(S.mxv(xs, semiring.plus_times).new())
    y(x.V, binary.plus, replace=True) << x
    ys = S.mxv(xs, semiring.plus_times).new()
    ys(xs.V, binary.plus, replace=True) << xs
    assert y.gather().isclose(ys) and y.nvals == ys.nvals


def test_index_lists_on_one_part(graph) -> None:
    A, S = graph  # noqa: N806
    lay = A.layout
    f = gb.Vector.from_dense(np.arange(A.nrows)[::-1].copy(), dtype=INT64, device=A.device)
    fs = f.gather()
    idx, parents = f.to_coo(device=lay)
    assert isinstance(parents, gd.DistArray) and parents.layout is lay
    assert np.array_equal(idx.gather(), np.arange(A.nrows)) and len(parents) == A.nrows
    _, ps = fs.to_coo()
    assert f[parents].new().gather().isequal(fs[ps].new())
    g, gs = f.dup(), fs.dup()
    g(binary.min)[parents] << f
    gs(binary.min)[ps] << fs
    assert g.gather().isequal(gs)
    assert connected_components(A).gather().isequal(connected_components(S))
    with pytest.raises(DimensionMismatch, match="block must be"):
        gd.DistArray(np.arange(3), lay)
    with pytest.raises(InvalidObject, match="Layout"):
        gd.DistArray(np.arange(3), "cpu")
    other = gd.Layout(gd.local_comm(), A.nrows)
    with pytest.raises(InvalidValue, match="other processes"):
        f.to_coo(device=other)
    with pytest.raises(DimensionMismatch, match="other processes"):
        f[gd.DistArray(np.arange(A.nrows), other)]
    with pytest.raises(InvalidValue, match="integers"):
        f[gd.DistArray.from_array(np.zeros(4), lay.comm)]
    assert "DistArray(size=4" in repr(gd.DistArray.from_array(np.zeros(4), lay.comm))


@pytest.mark.parametrize("seed", range(3))
def test_fold_by_index_is_from_coo(seed: int) -> None:
    # the device combine of routed push contributions, run here on NumPy arrays, against
    # the host builder it replaces on GPUs (duplicates folded in arrival order)
    from gblas import BOOL, FP64, monoid  # noqa: PLC0415
    from gblas.distributed.matrix import fold_by_index  # noqa: PLC0415

    rng = np.random.default_rng(seed)
    for mon, dt in [(monoid.min, INT64), (monoid.plus, FP64), (monoid.any, INT64),
                    (monoid.max, INT64), (monoid.lor, BOOL)]:
        k = int(rng.integers(0, 60))
        idx = rng.integers(0, 25, k)
        vals = rng.integers(0, 9, k).astype(dt.np_type)
        got = fold_by_index(idx, vals, dt, mon)
        want = gb.Vector.from_coo(idx, vals, dt, size=25, dup_op=mon).to_coo()
        assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


@pytest.mark.parametrize("flags", [dict(mask_complement=True), dict(mask_structure=True),
                                   dict(mask_complement=True, mask_structure=True)])
def test_descriptor_mask_flags_apply_once(flags) -> None:
    # a descriptor's mask_complement / mask_structure on a DistVector output, as on one
    # process (they were applied twice: once to the block of the mask, once by the block's
    # own write)
    from gblas import Descriptor, semiring  # noqa: PLC0415

    comm = gd.local_comm()
    A = gd.kronecker(8, comm=comm)  # noqa: N806
    lay, n = A.layout, A.nrows
    rng = np.random.default_rng(3)
    xd = np.zeros(n, np.int64)
    xd[rng.choice(n, 30, replace=False)] = 1
    md = np.zeros(n, np.int64)
    md[rng.choice(n, 100, replace=False)] = rng.integers(0, 2, 100)  # values 0 and 1
    x, m = gb.Vector.from_dense(xd, missing_value=0), gb.Vector.from_dense(md, missing_value=-1)
    dx = gb.Vector.from_dense(xd, missing_value=0, device=lay)
    dm = gb.Vector.from_dense(md, missing_value=-1, device=lay)
    d = Descriptor(**flags)
    cases = [
        (lambda o: o(m.V, desc=d) << A.local.mxv(x, semiring.plus_times),
         lambda o: o(dm.V, desc=d) << A.mxv(dx, semiring.plus_times)),
        (lambda o: o(m.V, desc=d) << x.vxm(A.local, semiring.plus_times),
         lambda o: o(dm.V, desc=d) << dx.vxm(A, semiring.plus_times)),
        (lambda o: o(m.V, desc=d) << 7, lambda o: o(dm.V, desc=d) << 7),
    ]
    for ref_op, dist_op in cases:
        ref, out = gb.Vector(INT64, n), gb.Vector(INT64, n, device=lay)
        ref[0] << 1
        out[0] << 1
        ref_op(ref)
        dist_op(out)
        assert out.gather().isequal(ref), flags


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_edges_into_block_is_the_block_transposed(seed: int) -> None:
    """C of a process (bfs_levels' push): row u lists u's out-neighbours in the block
    lo..hi-1 as local ids, sorted, from the block's rows of Aᵀ: SciPy's transpose."""
    import scipy.sparse as sp  # noqa: PLC0415

    from gblas.distributed.bfs_levels import _edges_into_block  # noqa: PLC0415

    rng = np.random.default_rng(seed)
    n = int(rng.integers(40, 120))
    A = sp.random(n, n, density=0.08, random_state=seed, format="csr")  # noqa: N806
    A.data[:] = 1
    lo, hi = sorted(int(x) for x in rng.integers(0, n + 1, 2))
    rows_t = A.T.tocsr()[lo:hi]  # the block's rows of Aᵀ: in-neighbours, global ids
    rows_t.sort_indices()
    ptr, idx = _edges_into_block((rows_t.indptr.astype(np.int64),
                                  rows_t.indices.astype(np.int32)), n, None)
    want = rows_t.T.tocsr()  # n x (hi - lo): row u, the local ids i with u -> lo + i
    want.sort_indices()
    assert idx.dtype == np.int32
    assert np.array_equal(ptr, want.indptr) and np.array_equal(idx, want.indices)


def test_level_loop_stats_and_result_storage(graph) -> None:
    """bfs() on a DistMatrix through the level loop: the level vector is bitmap storage
    the kernels wrote (absent entries hold 0, as from_dense's), the parents Vector has its
    own presence array, and the CPU search reports host times but no device split."""
    A, S = graph  # noqa: N806
    st: dict = {}
    lv, pi = bfs(A, 3, parents=True, stats=st)
    assert st["kernels"] == ["dist_bfs_levels"] and "level_parts_ms" not in st
    assert len(st["level_ms"]) == len(st["directions"]) and st["start_ms"] >= 0
    with gb.config.override(bfs_cpu="ops"):
        rl, rp = bfs(S, 3, parents=True)
    assert lv.gather().isequal(rl) and pi.gather().isequal(rp)
    data = lv.local._data
    assert data.kind == "bitmap" and data.bits is not pi.local._data.bits
    assert not data.values[~data.bits].any()
    lv.local[0] << 99  # writing one result leaves the other alone
    assert pi.gather().isequal(rp)


def test_clock_split() -> None:
    """The device stamps of each level (ns, in _Level.stamp's slots: 0 before, 5 after the
    queue, 1 after the push or claim, 2 and 3 in the unpack, 4 after it) as µs steps, the
    idle time measured from the last level's unpack."""
    from gblas.distributed.bfs_levels import _clock_split  # noqa: PLC0415

    stamps = [[1000, 9000, 10000, 12000, 13000, 1000],
              [15000, 20000, 21000, 25000, 29000, 17000]]
    assert _clock_split(stamps) == [[0.0, 0.0, 8.0, 1.0, 2.0, 1.0],
                                    [2.0, 2.0, 3.0, 1.0, 4.0, 4.0]]


def test_level_loop_lookahead(graph) -> None:
    """The host may read the loop state up to three levels behind the launches: the same
    results and info for every lookahead; others are refused before anything runs."""
    from gblas.distributed.bfs_levels import dist_bfs  # noqa: PLC0415

    A, S = graph  # noqa: N806
    ref: dict = {}
    with gb.config.override(bfs_cpu="ops"):
        rl, rp = bfs(S, 7, parents=True, stats=ref)
    for ahead in (0, 1, 2, 3):
        lv, pi, info = dist_bfs(A, 7, parents=True, lookahead=ahead)
        assert lv.gather().isequal(rl) and pi.gather().isequal(rp)
        assert info["directions"] == ref["directions"] and info["levels"] == ref["levels"]
        assert info["reached"] == rl.nvals and info["lookahead"] == ahead
        found = np.bincount(rl.to_coo()[1], minlength=len(info["directions"]) + 1)
        assert info["frontier"] == found[1:len(info["directions"]) + 1].tolist()
    for bad in (-1, 4):
        with pytest.raises(InvalidValue, match="lookahead must be 0 to 3"):
            dist_bfs(A, 7, lookahead=bad)


def test_loop_state_words_match_the_cuda_kernels() -> None:
    """The CPU kernels and the host read the loop state by the .cu's DS_* word numbers."""
    import re  # noqa: PLC0415
    from pathlib import Path  # noqa: PLC0415

    from gblas.distributed import bfs_levels_cpu  # noqa: PLC0415

    src = (Path(bfs_levels_cpu.__file__).parent / "bfs_levels.cu").read_text()
    defs = dict(re.findall(r"^#define (DS_\w+) (\d+)", src, re.M))
    assert len(defs) == 15
    for name, value in defs.items():
        assert getattr(bfs_levels_cpu, name) == int(value), name


def test_level_loop_cut_short_starts_afresh(graph, monkeypatch) -> None:
    """A search that fails mid-way (here its third exchange raises) drops the matrix's
    search arrays, whose buffers may hold a level's words: the next search is right."""
    from gblas.distributed import bfs_levels  # noqa: PLC0415

    A, S = graph  # noqa: N806
    with gb.config.override(bfs_cpu="ops"):
        rl = bfs(S, 7)
    assert bfs(A, 7).gather().isequal(rl)
    lv = A._bfs_levels
    real = lv.exchange

    def failing(k: int) -> None:
        if k == 2:
            raise KeyboardInterrupt
        real(k)

    monkeypatch.setattr(lv, "exchange", failing)
    with pytest.raises(KeyboardInterrupt):
        bfs_levels.dist_bfs(A, 7)
    assert A._bfs_levels is None
    assert bfs(A, 7).gather().isequal(rl) and A._bfs_levels is not lv


def test_search_cut_short_in_peer_mode_keeps_the_shared_buffers(graph, monkeypatch) -> None:
    """A search cut short drops the matrix's search arrays, but in peer mode keeps their
    shared allocation alive (a peer's late unpack may still store into it): it goes to
    bfs_levels._ABANDONED, not to the allocator."""
    from types import SimpleNamespace  # noqa: PLC0415

    from gblas.distributed import bfs_levels  # noqa: PLC0415

    A, _ = graph  # noqa: N806
    shared = object()
    monkeypatch.setattr(bfs_levels, "_ABANDONED", [])
    A._bfs_levels = SimpleNamespace(peer=shared)
    bfs_levels._drop(A)
    assert A._bfs_levels is None and bfs_levels._ABANDONED == [shared]
    A._bfs_levels = SimpleNamespace(peer=None)  # collectives or one process: nothing kept
    bfs_levels._drop(A)
    assert A._bfs_levels is None and bfs_levels._ABANDONED == [shared]


def test_level_loop_reads_the_kept_int32_ids(graph, monkeypatch) -> None:
    """The level loop reads the int32 copy of the ids kept on the block's CSR, asking for
    it with ``wide_entries`` (its kernels index entries with int64, so a block of 2³¹
    entries or more has one too): the same levels."""
    from gblas.formats.csr.container import CSR  # noqa: PLC0415

    A, S = graph  # noqa: N806
    with gb.config.override(bfs_cpu="ops"):
        rl, rp = bfs(S, 11, parents=True)
    A._bfs_levels = None
    asked, original = [], CSR.indices32

    def spy(self, min_uses=1, wide_entries=False):  # noqa: ANN001, ANN202
        asked.append(wide_entries)
        return original(self, min_uses, wide_entries)

    monkeypatch.setattr(CSR, "indices32", spy)
    lv, pi = bfs(A, 11, parents=True)
    assert lv.gather().isequal(rl) and pi.gather().isequal(rp)
    assert asked and all(asked)
    assert A._bfs_levels.a[1] is A.local._csr().__dict__["_indices32"]
    A._bfs_levels = None
