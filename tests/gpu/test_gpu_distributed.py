"""gblas.distributed with one GPU per process: device buffers exchanged through NCCL.

In one process: the NCCL communicator of one rank (every exchange still goes through
NCCL). With two or more GPUs and mpiexec: ``mpiexec -n 2`` runs the BFS check of
tests/distributed/mpi_check.py on ``cuda`` (one GPU per rank). Keep NCCL_NVLS_ENABLE=0.
"""

from __future__ import annotations

import os

import pytest

import gblas as gb
import gblas.distributed as gd
from gblas.algorithms import bfs, validate_bfs

os.environ.setdefault("NCCL_NVLS_ENABLE", "0")


def _nccl_comm() -> gd.Comm:
    pytest.importorskip("cupy.cuda.nccl", reason="CuPy was built without NCCL")
    return gd.local_comm("cuda:0")


def test_single_rank_nccl_collectives() -> None:
    import cupy as cp  # noqa: PLC0415

    comm = _nccl_comm()
    a = cp.arange(10, dtype=cp.int64)
    assert (comm.allreduce_array(a, "sum") == a).all()
    out, counts = comm.allgatherv(a[:7])
    assert counts == [7] and (out == a[:7]).all()
    out, counts = comm.alltoallv(a, [10])
    assert counts == [10] and (out == a).all()


def test_bfs_on_device_equals_cpu() -> None:
    comm = _nccl_comm()
    A = gd.kronecker(12, comm=comm)  # noqa: N806
    S = gd.kronecker_serial(12)  # noqa: N806
    assert A.local.device == "cuda:0"
    for direction in ("auto", "push", "pull"):
        lv, pi = bfs(A, 1, parents=True, direction=direction)
        assert lv.local.device == "cuda:0"
        with gb.config.override(bfs_cpu="ops"):
            rl, rp = bfs(S, 1, parents=True, direction=direction)
        assert lv.gather().to("cpu").isequal(rl) and pi.gather().to("cpu").isequal(rp)
        gd.validate_bfs(A, 1, lv, pi)
        validate_bfs(S, 1, lv.gather().to("cpu"), pi.gather().to("cpu"))


@pytest.mark.parametrize(("scale", "edge_factor", "noise"), [(9, 8, 0.0), (14, 16, 0.1)])
def test_device_generation_equals_the_host_loader(scale: int, edge_factor: int,
                                                  noise: float) -> None:
    """kronecker(..., generate="device"): every edge drawn on the GPU from the host loader's
    chunk streams (scale 14: two chunks; noise: per-level thresholds), the same graph."""
    comm = _nccl_comm()
    D = gd.kronecker(scale, edge_factor=edge_factor, seed=3, noise=noise, comm=comm,  # noqa: N806
                     generate="device")
    H = gd.kronecker(scale, edge_factor=edge_factor, seed=3, noise=noise, comm=comm)  # noqa: N806
    assert D.local.device == "cuda:0" and D.local.isequal(H.local)
    assert D.local.isequal(gd.kronecker_serial(scale, edge_factor, seed=3, noise=noise)
                           .to("cuda:0"))


def test_level_kernels_equal_one_gpu_search() -> None:
    """gblas.distributed.bfs_levels (the default for a DistMatrix) against the one-GPU
    fused search on the same rows as a plain Matrix: levels, parents and directions; the
    graph has hubs (out-degree >= 256: expanded in chunks) and the level loop of GraphBLAS
    operations (config "ops") agrees as well."""
    comm = _nccl_comm()
    A = gd.kronecker(14, comm=comm)  # noqa: N806
    M = A.local  # noqa: N806 - one process: its block is the whole matrix
    assert int(M.out_degree().reduce(gb.monoid.max).new().value) >= 1024
    for src in (1, 77, 4000, 16000):  # sources in every part of a grid-stride pass
        for direction in ("auto", "push", "pull"):
            st: dict = {}
            lv, pi = bfs(A, src, parents=True, direction=direction, stats=st)
            assert st["kernels"] == ["dist_bfs_levels"]
            ref: dict = {}
            rl, rp = bfs(M, src, parents=True, direction=direction, stats=ref)
            assert lv.local.isequal(rl) and pi.local.isequal(rp), (src, direction)
            assert st["directions"] == ref["directions"] and st["levels"] == ref["levels"]
            with gb.config.override(bfs_gpu="ops"):
                ol, op = bfs(A, src, parents=True, direction=direction)
            assert ol.isequal(lv) and op.isequal(pi)


def test_two_gpus_two_processes() -> None:
    import importlib.util  # noqa: PLC0415
    from pathlib import Path  # noqa: PLC0415

    import cupy as cp  # noqa: PLC0415

    path = Path(__file__).resolve().parents[1] / "distributed" / "test_mpi.py"
    spec = importlib.util.spec_from_file_location("gblas_test_mpi", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    if cp.cuda.runtime.getDeviceCount() < 2:
        pytest.skip("needs 2 GPUs (one per process)")
    _nccl_comm()
    mod.launch(2, "bfs", "-", "cuda")
