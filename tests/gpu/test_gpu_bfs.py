"""gblas.algorithms.bfs on GPU objects gives the same levels and parents as on the CPU, through
each path of the config key ``bfs_gpu``: the fused cooperative kernel (the default), the
level kernels replayed from a CUDA graph, and the level loop of GraphBLAS operations."""

from __future__ import annotations

import numpy as np
import pytest

import gblas as gb
from gblas import generators
from gblas.algorithms import bfs as run_bfs

pytestmark = pytest.mark.gpu
GPU = "cuda:0"


@pytest.fixture(scope="module", params=["kron12", "grid64"])
def graph(request: pytest.FixtureRequest):  # noqa: ANN201
    if request.param == "kron12":
        return generators.kronecker(12)
    return generators.grid2d(64, 64)


def _coo(v):  # noqa: ANN001, ANN202
    idx, vals = v.to_coo()
    return idx, vals


KERNELS = {"fused": ["cuda_csr_bfs_fused"], "levels": ["cuda_csr_bfs_levels"]}


@pytest.mark.parametrize("method", ["fused", "levels", "ops"])
@pytest.mark.parametrize("direction", ["auto", "push", "pull"])
@pytest.mark.parametrize("parents", [False, True])
def test_bfs_same_as_cpu(graph, direction: str, parents: bool, method: str) -> None:  # noqa: ANN001
    Ag = graph.to(GPU)
    rng = np.random.default_rng(7)
    for src in rng.choice(graph.nrows, 3, replace=False).tolist():
        cpu = run_bfs(graph, src, parents=parents, direction=direction)
        stats: dict = {}
        with gb.config.override(bfs_gpu=method):
            gpu = run_bfs(Ag, src, parents=parents, direction=direction, stats=stats)
        if parents:
            (lc, pc), (lg, pg) = cpu, gpu
        else:
            lc, lg, pc, pg = cpu, gpu, None, None
        assert lg.device == GPU
        for a, b in zip(_coo(lc), _coo(lg), strict=True):
            np.testing.assert_array_equal(a, b)
        if parents:
            for a, b in zip(_coo(pc), _coo(pg), strict=True):
                np.testing.assert_array_equal(a, b)
        assert all(k.startswith("cuda_") for k in stats["kernels"]), stats["kernels"]
        if method in KERNELS:
            assert stats["kernels"] == KERNELS[method], stats["kernels"]
        else:
            assert not {"cuda_csr_bfs_fused", "cuda_csr_bfs_levels"} & set(stats["kernels"])
