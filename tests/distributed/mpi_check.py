"""Run under ``mpiexec -n P``: distributed results against one-process gblas on each rank.

Usage: ``mpi_check.py CASE [MTX_PATH] [DEVICE]``; every rank prints ``rank R ok CASE`` on
success, and any failure raises (a non-zero exit of mpiexec). ``DEVICE`` is ``cpu``
(default) or ``cuda`` (one GPU per process, NCCL for device buffers).
"""

from __future__ import annotations

import sys

import numpy as np

import gblas as gb
import gblas.distributed as gd
from gblas import binary, monoid, semiring
from gblas.algorithms import bfs, pagerank, sssp, validate_bfs


def _serial_bfs(S, src, **kw):  # noqa: N803
    with gb.config.override(bfs_cpu="ops"):  # the level loop, the reference of the fused one
        return bfs(S, src, **kw)


def check_bfs(comm: gd.Comm) -> None:
    A = gd.kronecker(9, edge_factor=8, seed=5, comm=comm)  # noqa: N806
    S = gd.kronecker_serial(9, edge_factor=8, seed=5)  # noqa: N806
    assert A.gather().to("cpu").isequal(S), "the union of the parts is not the serial graph"
    assert A.nvals == S.nvals
    rng = np.random.default_rng(1)
    for src in rng.choice(S.nrows, 3, replace=False).tolist():
        for direction in ("auto", "push", "pull"):
            lv, pi = bfs(A, src, parents=True, direction=direction)
            rl, rp = _serial_bfs(S, src, parents=True, direction=direction)
            assert lv.gather().to("cpu").isequal(rl), f"levels differ from {src} ({direction})"
            assert pi.gather().to("cpu").isequal(rp), f"parents differ from {src} ({direction})"
            gd.validate_bfs(A, src, lv, pi)
            validate_bfs(S, src, lv.gather().to("cpu"), pi.gather().to("cpu"))
            assert bfs(A, src, direction=direction).gather().to("cpu").isequal(rl)


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
    else:
        raise SystemExit(f"unknown case {case!r}")
    print(f"rank {comm.rank} ok {case}", flush=True)


if __name__ == "__main__":
    main()
