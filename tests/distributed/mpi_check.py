"""Run under ``mpiexec -n P``: distributed results against one-process gblas on each rank.

Usage: ``mpi_check.py CASE [MTX_PATH] [DEVICE]``; every rank prints ``rank R ok CASE`` on
success, and any failure raises (a non-zero exit of mpiexec). ``DEVICE`` is ``cpu``
(default) or ``cuda`` (one GPU per process, NCCL for device buffers).
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
from scipy.sparse import csgraph

import gblas as gb
import gblas.distributed as gd
from gblas import binary, monoid, semiring
from gblas.algorithms import bfs, connected_components, pagerank, sssp, validate_bfs
from gblas.exceptions import (
    DimensionMismatch,
    DomainMismatch,
    IndexOutOfBound,
    InvalidValue,
)


def _serial_bfs(S, src, **kw):  # noqa: N803
    with gb.config.override(bfs_cpu="ops"):  # the level loop, the reference of the fused one
        return bfs(S, src, **kw)


def check_bfs(comm: gd.Comm) -> None:
    A = gd.kronecker(9, edge_factor=8, seed=5, comm=comm)  # noqa: N806
    S = gd.kronecker_serial(9, edge_factor=8, seed=5)  # noqa: N806
    assert A.gather().to("cpu").isequal(S), "the union of the parts is not the serial graph"
    assert A.nvals == S.nvals
    if A.layout.local_device != "cpu":  # the same graph drawn on the GPUs (two chunks)
        for scale, ef, noise in ((9, 8, 0.0), (14, 16, 0.1)):
            D = gd.kronecker(scale, edge_factor=ef, seed=5, noise=noise, comm=comm,  # noqa: N806
                             generate="device")
            H = gd.kronecker(scale, edge_factor=ef, seed=5, noise=noise, comm=comm)  # noqa: N806
            assert D.local.isequal(H.local), f"device-drawn kron:{scale} differs"
    rng = np.random.default_rng(1)
    # "fused": the level loop of local kernels and fixed-size collectives
    # (gblas.distributed.bfs_levels); "ops": the GraphBLAS level loop on DistMatrix
    for method in ("fused", "ops"):
        with gb.config.override(bfs_cpu=method, bfs_gpu=method):
            for src in rng.choice(S.nrows, 3, replace=False).tolist():
                for direction in ("auto", "push", "pull"):
                    stats: dict = {}
                    lv, pi = bfs(A, src, parents=True, direction=direction, stats=stats)
                    ref: dict = {}
                    rl, rp = _serial_bfs(S, src, parents=True, direction=direction, stats=ref)
                    what = f"from {src} ({direction}, {method})"
                    assert lv.gather().to("cpu").isequal(rl), f"levels differ {what}"
                    assert pi.gather().to("cpu").isequal(rp), f"parents differ {what}"
                    assert stats["directions"] == ref["directions"], what
                    assert stats["levels"] == ref["levels"], what
                    assert (stats["kernels"] == ["dist_bfs_levels"]) == (method == "fused")
                    gd.validate_bfs(A, src, lv, pi)
                    validate_bfs(S, src, lv.gather().to("cpu"), pi.gather().to("cpu"))
                    assert bfs(A, src, direction=direction).gather().to("cpu").isequal(rl)
                    if method == "fused":
                        _check_lookahead(A, src, direction, rl, rp, stats)
    # a vertex of no edges as the source, and a graph whose blocks are shorter than a
    # bitmap word (P > 1 processes share words)
    for n in (2, 5, 70):  # n = 2 on 3 processes: one block is empty
        rows = np.arange(n - 2)  # a directed path; vertex n - 1 has no edges
        S = gb.Matrix.from_coo(rows, rows + 1, True, nrows=n, ncols=n)  # noqa: N806
        A = gd.from_matrix(S, gd.Layout(comm, n))  # noqa: N806
        for src in sorted({0, n - 1, n // 2}):
            for direction in ("auto", "push", "pull"):
                lv, pi = bfs(A, src, parents=True, direction=direction)
                rl, rp = _serial_bfs(S, src, parents=True, direction=direction)
                what = f"path of {n}, from {src} ({direction})"
                assert lv.gather().to("cpu").isequal(rl), what
                assert pi.gather().to("cpu").isequal(rp), what
                if direction == "auto":
                    ref = {}
                    _serial_bfs(S, src, direction=direction, stats=ref)
                    _check_lookahead(A, src, direction, rl, rp, ref)


def _check_lookahead(A: Any, src: int, direction: str, rl: Any, rp: Any,  # noqa: N803
                     ref: dict) -> None:
    """The level loop with the host reading the state 0 to 3 levels behind (the levels
    launched after the end do nothing), and on GPUs with the words all-gathered by NCCL or
    read in place from the peers (the default where it works): the same results and info.
    Set GBLAS_EXPECT_PEER=1 where the GPUs can read each other's memory (one node, a GPU
    a process) to fail when the default falls back to NCCL."""
    import os  # noqa: PLC0415

    from gblas.distributed import bfs_levels  # noqa: PLC0415

    gpus = A.layout.local_device != "cpu"
    for ahead, exchange in [(0, "auto"), (1, "auto"), (3, "auto")] + (
            [(0, "nccl"), (1, "nccl")] if gpus else []):
        lv, pi, info = bfs_levels.dist_bfs(A, src, parents=True, direction=direction,
                                           lookahead=ahead, exchange=exchange,
                                           timing=ahead == 1)
        what = f"from {src} ({direction}, lookahead {ahead}, {info['exchange']})"
        if gpus and ahead == 1:  # device times: events a level, clock stamps in order
            ran = len(info["level_parts_ms"])
            assert ran >= len(info["directions"]) and len(info["level_clock_ns"]) == ran + 1
            assert all(len(s) == 6 and [s[0], s[5], *s[1:5]] == sorted(s) and s[0] > 0
                       for s in info["level_clock_ns"]), what
            assert all(len(row) == 6 for row in info["level_clock_us"]), what
            assert all(x >= 0 for row in info["level_clock_us"] for x in row), what
        if os.environ.get("GBLAS_EXPECT_PEER") == "1" and exchange == "auto" \
                and A.layout.comm.size > 1:
            assert info["exchange"] == "peer", what
        assert lv.gather().to("cpu").isequal(rl), what
        assert pi.gather().to("cpu").isequal(rp), what
        assert info["directions"] == ref["directions"], what
        found = np.bincount(rl.to_coo()[1], minlength=len(info["directions"]) + 1)
        assert info["frontier"] == found[1:len(info["directions"]) + 1].tolist(), what
        assert info["levels"] == ref["levels"] and info["lookahead"] == ahead, what
        assert info["reached"] == rl.nvals, what


def check_algorithms(comm: gd.Comm) -> None:
    # a directed weighted graph: A != Aᵀ, so pulls read the routed transpose
    n = 150
    rng = np.random.default_rng(7)  # the same graph on every rank
    r, c = rng.integers(0, n, 900), rng.integers(0, n, 900)
    w = rng.uniform(0.5, 4.0, 900)
    S = gb.Matrix.from_coo(r, c, w, nrows=n, ncols=n, dup_op=binary.min)  # noqa: N806
    lay = gd.Layout(comm, n)
    mine = np.arange(900) % comm.size == comm.rank  # each rank holds a share of the edges
    A = gd.from_edges(r[mine], c[mine], w[mine], lay, dup_op=binary.min)  # noqa: N806
    assert A.gather().isequal(S)
    assert gd.from_matrix(S, lay).isequal(A)
    assert not A.is_symmetric()
    assert sssp(A, 4).gather().isclose(sssp(S, 4), rel_tol=1e-12)
    assert pagerank(A).gather().isclose(pagerank(S), rel_tol=1e-9)
    assert pagerank(A, weighted=True).gather().isclose(pagerank(S, weighted=True),
                                                        rel_tol=1e-9)
    for src in (0, 17):
        lv, pi = bfs(A, src, parents=True)
        rl, rp = _serial_bfs(S, src, parents=True)
        assert lv.gather().isequal(rl) and pi.gather().isequal(rp)
        gd.validate_bfs(A, src, lv, pi)
    # mxv / vxm over several semirings, with masks and accumulators, both directions
    x_dense = rng.uniform(-1, 1, n)
    keep = rng.random(n) < 0.3
    xs = gb.Vector.from_coo(np.flatnonzero(keep), x_dense[keep], size=n)
    xd = gd.DistVector(gb.FP64, lay)
    for i in np.flatnonzero(keep).tolist():
        xd[i] << float(x_dense[i])
    assert xd.nvals == xs.nvals and xd.gather().isequal(xs)
    for sr in (semiring.plus_times, semiring.min_plus, semiring.max_times,
               semiring.any_secondi, semiring.min_firsti, semiring.max_secondj):
        assert A.mxv(xd, sr).new().gather().isclose(S.mxv(xs, sr).new()), f"mxv {sr.name}"
        assert A.T.mxv(xd, sr).new().gather().isclose(S.T.mxv(xs, sr).new()), sr.name
        for d in ("push", "pull"):
            got = xd.vxm(A, sr).new(desc=gb.Descriptor(direction=d)).gather()
            assert got.isclose(xs.vxm(S, sr).new()), f"vxm {sr.name} {d}"
            got = xd.vxm(A.T, sr).new(desc=gb.Descriptor(direction=d)).gather()
            assert got.isclose(xs.vxm(S.T, sr).new()), f"vxm A.T {sr.name} {d}"
    m_s = gb.Vector.from_coo(np.arange(0, n, 3), True, size=n)
    m_d = gd.DistVector(gb.BOOL, lay)
    m_d << m_d.ewise_add(m_d)  # empty stays empty
    for i in range(0, n, 3):
        m_d[i] << True
    ys, yd = xs.dup(), xd.dup()
    ys(~m_s.S, binary.plus, replace=True) << S.mxv(xs, semiring.plus_times)
    yd(~m_d.S, binary.plus, replace=True) << A.mxv(xd, semiring.plus_times)
    assert yd.gather().isclose(ys)
    assert abs(yd.reduce(monoid.plus).new().value - ys.reduce(monoid.plus).new().value) < 1e-9
    assert yd.reduce(monoid.max).value == ys.reduce(monoid.max).value
    assert A.reduce_scalar(monoid.min).new().value == S.reduce_scalar(monoid.min).new().value
    assert A.reduce_rowwise(monoid.plus).new().gather().isclose(
        S.reduce_rowwise(monoid.plus).new())
    assert xd.ewise_mult(yd, binary.times).new().gather().isclose(
        xs.ewise_mult(ys, binary.times).new())
    assert abs(xd.inner(yd).new().value - xs.inner(ys).new().value) < 1e-9
    assert xd.select(">", 0.0).new().gather().isequal(xs.select(">", 0.0).new())
    assert xd[int(np.flatnonzero(keep)[0])].value == x_dense[keep][0]


def check_mmread(comm: gd.Comm, path: str) -> None:
    S = gb.io.mmread(path)  # noqa: N806
    A = gd.mmread(path, comm=comm)  # noqa: N806
    assert A.gather().isequal(S, check_dtype=True)
    src = 0
    with gb.config.override(bfs_cpu="ops"):
        ref = bfs(S, src)
    assert bfs(A, src).gather().isequal(ref)


def check_exchange(comm: gd.Comm) -> None:
    """Both encodings of the gathered vector, chosen by size, give the same vector."""
    n = 4000
    lay = gd.Layout(comm, n)
    for k in (3, 1500):
        idx = np.arange(0, n, n // k)[:k]
        v = gd.Layout.vector_from_dense(lay, np.where(np.isin(np.arange(n), idx), 2, 0),
                                        missing_value=0)
        stats: dict = {}
        from gblas.distributed.exchange import gather_full

        full = gather_full(v.local, lay, stats=stats)
        want = "sparse" if k == 3 else "bitmap"
        assert stats["encoding"] == want, (k, stats)
        assert full.isequal(gb.Vector.from_coo(idx, 2, size=n)), k
    # the fixed-size collectives of the BFS level loop: an all-gather of equal parts, and an
    # all-to-all whose parts start at given offsets and overlap (a boundary word goes to two)
    xp, r, p = comm.xp, comm.rank, comm.size
    mine = xp.arange(3, dtype=np.uint32) + 10 * r
    got = comm.allgather_equal(mine)
    want_all = np.concatenate([np.arange(3) + 10 * q for q in range(p)])
    assert np.array_equal(_host(got), want_all), (_host(got), want_all)
    words = xp.arange(p + 1, dtype=np.uint32) + 100 * r  # process q gets words q and q + 1
    out, counts = comm.alltoallv(words, [2] * p, [2] * p, send_offsets=list(range(p)))
    assert counts == [2] * p
    expect = np.concatenate([[r + 100 * q, r + 1 + 100 * q] for q in range(p)])
    assert np.array_equal(_host(out), expect), (_host(out), expect)


def _host(arr):  # noqa: ANN001, ANN202
    return arr.get() if hasattr(arr, "get") else np.asarray(arr)


def _dist(vs: gb.Vector, lay: gd.Layout) -> gd.DistVector:
    """Each rank's block of a Vector every rank holds."""
    idx, vals = vs.to_coo()
    sel = (idx >= lay.lo) & (idx < lay.hi)
    local = gb.Vector.from_coo(idx[sel] - lay.lo, vals[sel], vs.dtype, size=lay.n_local)
    return gd.DistVector._wrap(local, lay)


def _scipy_labels(S: gb.Matrix) -> np.ndarray:  # noqa: N803
    """SciPy's weakly connected components, each labelled by its smallest vertex."""
    r, c, _ = S.to_coo()
    from scipy.sparse import coo_matrix  # noqa: PLC0415

    n = S.nrows
    k, comp = csgraph.connected_components(coo_matrix((np.ones(r.shape[0]), (r, c)),
                                                      shape=(n, n)), directed=True,
                                           connection="weak")
    smallest = np.full(k, n, dtype=np.int64)
    np.minimum.at(smallest, comp, np.arange(n))
    return smallest[comp]


def check_cc(comm: gd.Comm) -> None:
    """FastSV on a DistMatrix: the one-process labels and SciPy's components."""
    rng = np.random.default_rng(17)
    graphs: list[tuple[str, gb.Matrix, gd.DistMatrix | None]] = [
        ("kron", gd.kronecker_serial(9, edge_factor=8, seed=5),
         gd.kronecker(9, edge_factor=8, seed=5, comm=comm)),
        ("urand", gb.generators.urand(9, edge_factor=1, seed=3), None)]
    n = 400  # 120 edges: many small components and isolated vertices
    r, c = rng.integers(0, n, 120), rng.integers(0, n, 120)
    graphs.append(("many", gb.Matrix.from_coo(np.concatenate([r, c]), np.concatenate([c, r]),
                                              True, nrows=n, ncols=n), None))
    perm = rng.permutation(n)  # one path through every vertex: many FastSV iterations
    graphs.append(("path", gb.Matrix.from_coo(perm[:-1], perm[1:], 1.0, nrows=n, ncols=n),
                   None))
    r, c = rng.integers(0, n, 300), rng.integers(0, n, 300)  # directed: weak components
    graphs.append(("directed", gb.Matrix.from_coo(r, c, rng.uniform(0, 1, 300), nrows=n,
                                                  ncols=n, dup_op=binary.max), None))
    graphs.append(("empty", gb.Matrix(gb.BOOL, 50, 50), None))
    for name, S, A in graphs:  # noqa: N806
        A = gd.distribute(S, comm) if A is None else A  # noqa: N806
        assert A.gather().isequal(S), name
        labels = connected_components(A)
        assert isinstance(labels, gd.DistVector) and labels.nvals == S.nrows, name
        ref = connected_components(S)
        assert labels.gather().isequal(ref, check_dtype=True), f"{name}: not one process's"
        assert np.array_equal(labels.to_dense(), _scipy_labels(S)), f"{name}: not SciPy's"
    # the index-unary applies FastSV starts from, on parts that do not start at 0: global
    # positions (sparse and full vectors, thunks of both signs)
    n = 37
    lay = gd.Layout(comm, n)
    for vs in (gb.Vector.from_dense(np.arange(n) % 5), gb.Vector.from_coo([0, 4, 20, 36], 1,
                                                                          size=n)):
        for op, t in (("rowindex", 0), ("rowindex", 7), ("colindex", 3), ("diagindex", -2),
                      ("diagindex", 4)):
            got = _dist(vs, lay).apply(getattr(gb.indexunary, op), t).new().gather()
            assert got.isequal(vs.apply(getattr(gb.indexunary, op), t).new(),
                               check_dtype=True), (op, t)


def _errors_alike(fn: Any, exc: type[Exception], comm: gd.Comm) -> str:
    """``fn`` raises ``exc`` on this rank; every rank has the same message."""
    try:
        fn()
    except exc as e:
        msg = str(e)
    else:
        raise AssertionError(f"no {exc.__name__} on rank {comm.rank}")
    assert len(set(comm.allgather(msg))) == 1, comm.allgather(msg)
    return msg


def _random_vector(rng: np.random.Generator, k: int, density: float,
                   dt: gb.dtypes.DataType) -> gb.Vector:
    keep = rng.random(k) < density
    vals = rng.integers(-50, 50, k) if dt is gb.INT64 else rng.uniform(-1, 1, k)
    return gb.Vector.from_coo(np.flatnonzero(keep), vals[keep], dt, size=k)


def check_indexing(comm: gd.Comm) -> None:
    """v[I] and w(mask, accum, replace)[I] << u against one process: duplicates, negative
    indices, accumulators (order-dependent ones too), missing entries, masks; errors."""
    rng = np.random.default_rng(11)
    n, m = 37, 53  # blocks of unequal sizes for P = 2, 3
    lay, lay_m = gd.Layout(comm, n), gd.Layout(comm, m)
    for dt in (gb.INT64, gb.FP64):
        vs, us = _random_vector(rng, n, 0.6, dt), _random_vector(rng, m, 0.7, dt)
        vd, ud = _dist(vs, lay), _dist(us, lay_m)
        full_s = gb.Vector.from_dense(rng.uniform(-1, 1, m).astype(dt.np_type), dtype=dt)
        full_d = _dist(full_s, lay_m)
        I = rng.integers(-n, n, m)  # noqa: N806 - duplicates and negative indices
        assert vd[I].new().gather().isequal(vs[I].new(), check_dtype=True)
        assert vd[I.tolist()].new().gather().isequal(vs[I].new())
        assert vd[3:30:4].new().gather().isequal(vs[3:30:4].new())
        assert vd[np.empty(0, np.int64)].new().nvals == 0
        for acc in (None, binary.min, binary.plus, binary.minus, binary.first):
            for u_s, u_d in ((us, ud), (full_s, full_d), (7, 7), (gb.Scalar.from_value(
                    3, dt), gb.Scalar.from_value(3, dt))):
                ws, wd = vs.dup(), vd.dup()
                ws(acc)[I] << u_s
                wd(acc)[I] << u_d
                assert wd.gather().isequal(ws, check_dtype=True), (dt, acc, u_s)
                assert wd.nvals == ws.nvals
        # masks and replace: assign's mask is over the whole output
        ms = _random_vector(rng, n, 0.5, dt).apply(gb.unary.one[gb.BOOL]).new()
        md = _dist(ms, lay)
        for mask_s, mask_d, acc, rep in ((ms.S, md.S, binary.plus, True),
                                         (~ms.S, ~md.S, None, False),
                                         (ms.V, md.V, binary.min, False)):
            ws, wd = vs.dup(), vd.dup()
            ws(mask_s, acc, replace=rep)[I] << us
            wd(mask_d, acc, replace=rep)[I] << ud
            assert wd.gather().isequal(ws), (dt, acc, rep)
            xs, xd = us.dup(), ud.dup()  # extract into a masked, accumulated output
            xs(full_s.S, acc) << vs[I]
            xd(full_d.S, acc) << vd[I]
            assert xd.gather().isequal(xs), (dt, acc)
        # the list kept distributed: indices taken from a vector with missing entries,
        # so the blocks of the list are moved to its own partition
        at = np.flatnonzero(rng.random(m) < 0.6)
        Iv = gb.Vector.from_coo(at, rng.integers(-n, n, at.shape[0]), size=m)  # noqa: N806
        Ivd = _dist(Iv, lay_m)  # noqa: N806
        gi, gv = Ivd.to_coo(device=lay)
        si, sv = Iv.to_coo()
        assert np.array_equal(gi.gather(), si) and np.array_equal(gv.gather(), sv)
        assert len(gv) == Iv.nvals and gv.layout == gd.Layout(comm, Iv.nvals)
        assert vd[gv].new().gather().isequal(vs[sv].new())
        ws, wd = vs.dup(), vd.dup()
        ws(binary.plus)[sv] << vs[sv].new()
        wd(binary.plus)[gv] << vd[gv]
        assert wd.gather().isequal(ws)
    # without out(...): v[I] << u and v[I] = u; one element with an accumulator
    ws, wd = vs.dup(), vd.dup()
    ws[I] << us
    wd[I] << ud
    ws(binary.plus)[5] << 2.5
    wd(binary.plus)[5] << 2.5
    ws[[4, 0]] = ws[[0, 4]].new()
    wd[[4, 0]] = wd[[0, 4]].new()
    assert wd.gather().isequal(ws)
    _check_index_errors(comm, n, m)


def _check_index_errors(comm: gd.Comm, n: int, m: int) -> None:
    lay, lay_m = gd.Layout(comm, n), gd.Layout(comm, m)
    v = lay.vector_from_dense(np.arange(n))
    one = gb.Vector.from_dense(np.arange(n))
    for bad_at in (0, m - 1):  # a bad index in the first rank's block, then the last's
        bad = np.arange(m) % n
        bad[bad_at] = n + 3
        listed = gd.DistArray.from_array(bad, comm)
        msg = _errors_alike(lambda: v[listed], IndexOutOfBound, comm)  # noqa: B023
        with_one = _errors_alike(lambda: one[bad], IndexOutOfBound, comm)  # noqa: B023
        assert msg == with_one, (msg, with_one)
        _errors_alike(lambda: v(binary.min)[listed] << 1, IndexOutOfBound, comm)  # noqa: B023
        assert v.isequal(lay.vector_from_dense(np.arange(n)))  # unchanged, ranks in step
    floats = gd.DistArray.from_array(np.linspace(0, 3, m), comm)
    _errors_alike(lambda: v[floats], InvalidValue, comm)
    u_short = gd.DistVector(gb.INT64, gd.Layout(comm, m - 1))
    listed = gd.DistArray.from_array(np.arange(m) % n, comm)
    _errors_alike(lambda: v[listed] << u_short, DimensionMismatch, comm)
    _errors_alike(lambda: v[listed] << gb.Scalar(gb.INT64), InvalidValue, comm)
    u_float = gd.DistVector(gb.FP64, lay_m)
    _errors_alike(lambda: v(binary.bor)[listed] << u_float, DomainMismatch, comm)
    _errors_alike(lambda: v[np.array([n])], IndexOutOfBound, comm)
    # the processes are still in step: a collective after the errors agrees
    assert v[listed].new().nvals == m and lay_m.n == m


def main() -> None:
    case = sys.argv[1]
    device = sys.argv[3] if len(sys.argv) > 3 else "cpu"
    comm = gd.world(device)
    if case == "bfs":
        check_bfs(comm)
    elif case == "algorithms":
        check_algorithms(comm)
    elif case == "mmread":
        check_mmread(comm, sys.argv[2])
    elif case == "exchange":
        check_exchange(comm)
    elif case == "cc":
        check_cc(comm)
    elif case == "indexing":
        check_indexing(comm)
    else:
        raise SystemExit(f"unknown case {case!r}")
    print(f"rank {comm.rank} ok {case}", flush=True)


if __name__ == "__main__":
    main()
