"""gblas.cuda's checks that need no GPU: a CPU matrix, a bad method or levels_per_sync, a
non-Matrix, and the config key ``bfs_gpu`` validated at ``config.set`` time."""

from __future__ import annotations

import pytest

import gblas as gb
from gblas import generators
from gblas.algorithms import bfs
from gblas.exceptions import (
    GraphblasException,
    InvalidObject,
    InvalidValue,
    NotImplementedForFormat,
)


@pytest.fixture(scope="module")
def grid() -> gb.Matrix:
    return generators.grid2d(4, 5)


def test_cpu_matrix_needs_cuda(grid: gb.Matrix) -> None:
    for method in ("fused", "levels"):
        with pytest.raises(NotImplementedForFormat, match="CUDA device") as e:
            gb.cuda.bfs(grid, 0, method=method)
        assert isinstance(e.value, GraphblasException)
        assert "'cpu'" in str(e.value)
        assert not gb.cuda.bfs_applies(grid, method=method)


def test_bad_method(grid: gb.Matrix) -> None:
    with pytest.raises(InvalidValue, match="method must be 'fused' or 'levels', got 'ops'"):
        gb.cuda.bfs(grid, 0, method="ops")
    with pytest.raises(InvalidValue, match="got None"):
        gb.cuda.bfs(grid, 0, method=None)  # type: ignore[arg-type]
    assert not gb.cuda.bfs_applies(grid, method="sideways")


def test_bad_arguments(grid: gb.Matrix) -> None:
    with pytest.raises(InvalidObject, match="gblas.Matrix"):
        gb.cuda.bfs([[0, 1], [1, 0]], 0)
    assert not gb.cuda.bfs_applies("not a matrix")
    assert gb.cuda.METHODS == ("fused", "levels")
    assert "cuda" in gb.__all__


def test_config_bfs_gpu_validated() -> None:
    assert gb.config.get("bfs_gpu") == "fused"
    for bad in ("cuda", True, 1, None, "FUSED"):
        with pytest.raises(InvalidValue, match="bfs_gpu"):
            gb.config.set(bfs_gpu=bad)
        assert gb.config.get("bfs_gpu") == "fused"
    # nothing is applied when one value is bad
    with pytest.raises(InvalidValue):
        gb.config.set(bitmap_density=0.5, bfs_gpu="nope")
    assert gb.config.get("bitmap_density") == 0.05
    with pytest.raises(InvalidValue):
        with gb.config.override(bfs_gpu="x"):
            pass
    for ok in ("levels", "ops", "fused"):
        with gb.config.override(bfs_gpu=ok):
            assert gb.config.get("bfs_gpu") == ok
    assert gb.config.get("bfs_gpu") == "fused"
    with pytest.raises(InvalidValue, match="unknown config key 'bfs_fused'"):
        gb.config.set(bfs_fused=True)


def test_cpu_bfs_ignores_bfs_gpu(grid: gb.Matrix) -> None:
    ref = bfs(grid, 3)
    for method in ("fused", "levels", "ops"):
        with gb.config.override(bfs_gpu=method):
            st: dict = {}
            lv = bfs(grid, 3, stats=st)
        assert lv.isequal(ref)
        assert not any(k.startswith("cuda_") for k in st["kernels"])


def _param_letter(decl: str) -> str:
    """A C parameter declaration as CoopLaunch's type letter."""
    decl = " ".join(decl.replace("__restrict__", "").split())
    if "*" in decl:
        return "p"
    ctype = decl.rsplit(" ", 1)[0]
    return {"long long": "q", "int": "i", "double": "d"}[ctype]


def test_fused_launch_types_match_the_kernel() -> None:
    """The packed launch writes its arguments by position and type: they must be the
    parameters of bfs_fused in bfs_fused.cu (a mismatch would hand the kernel garbage)."""
    import re

    from gblas.formats.csr import bfs_fused

    text = bfs_fused.module_source("bfs_fused.cu")
    body = re.search(r"\bbfs_fused\((.*?)\)\s*\{", text, re.S)
    assert body is not None
    params = [p.strip() for p in re.sub(r"//[^\n]*", "", body[1]).split(",")]
    assert "".join(_param_letter(p) for p in params) == bfs_fused._FUSED_ARGS
    assert len(bfs_fused._FUSED_ARGS) == 29
