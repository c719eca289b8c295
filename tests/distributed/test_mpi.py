"""gblas.distributed over real MPI processes: ``mpiexec -n 2`` and ``-n 3`` run
mpi_check.py, which compares every distributed result with one-process gblas on each rank.

mpiexec comes from the ``mpich`` wheel (the ``test`` and ``distributed`` extras), installed
beside the Python running the tests. The tests skip only when no mpiexec is found.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import gblas as gb

_HERE = Path(__file__).resolve().parent
_TIMEOUT = 120  # seconds per launch (they take a few each on 2 cores)


def mpiexec() -> str | None:
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    return shutil.which("mpiexec", path=path)


def launch(nprocs: int, *args: str) -> str:
    exe = mpiexec()
    if exe is None:
        pytest.skip("no mpiexec on PATH or beside this Python: install gblas[distributed]")
    pytest.importorskip("mpi4py", reason="mpi4py is not installed: gblas[distributed]")
    env = dict(os.environ, OMP_NUM_THREADS="1", NUMBA_NUM_THREADS="1")
    cmd = [exe, "-n", str(nprocs), sys.executable, str(_HERE / "mpi_check.py"), *args]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=_TIMEOUT, env=env)
    out = done.stdout + done.stderr
    assert done.returncode == 0, f"{' '.join(cmd)} failed ({done.returncode}):\n{out[-4000:]}"
    for r in range(nprocs):
        assert f"rank {r} ok {args[0]}" in done.stdout, out[-4000:]
    return out


@pytest.mark.parametrize("nprocs", [2, 3])
def test_bfs_matches_one_process(nprocs: int) -> None:
    launch(nprocs, "bfs")


@pytest.mark.parametrize("nprocs", [2, 3])
def test_algorithms_and_ops_match_one_process(nprocs: int) -> None:
    launch(nprocs, "algorithms")


@pytest.mark.parametrize("nprocs", [2, 3])
def test_connected_components_match_one_process(nprocs: int) -> None:
    launch(nprocs, "cc")


@pytest.mark.parametrize("nprocs", [2, 3])
def test_index_lists_match_one_process(nprocs: int) -> None:
    launch(nprocs, "indexing")


def test_mmread_in_parts(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    n = 300
    r, c = rng.integers(0, n, 2000), rng.integers(0, n, 2000)
    A = gb.Matrix.from_coo(r, c, rng.integers(1, 9, 2000), gb.INT64, nrows=n, ncols=n,  # noqa: N806
                           dup_op=gb.binary.plus)
    path = tmp_path / "g.mtx"
    gb.io.mmwrite(path, A)
    launch(3, "mmread", str(path))
    sym = tmp_path / "sym.mtx"
    gb.io.mmwrite(sym, gb.Matrix.from_coo(np.concatenate([r, c]), np.concatenate([c, r]), True,
                                          nrows=n, ncols=n))
    assert "symmetric" in sym.read_text().splitlines()[0]
    launch(2, "mmread", str(sym))


def test_exchange_encodings() -> None:
    launch(2, "exchange")
