"""benchmarks/bfs_distributed.py's graph cache: a block read back from ``--graph-cache``
equals the one generated (one process, in this process), and launches over MPI that read
the cache give the same validated searches as the launch that wrote it."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_mpi import mpiexec  # (pytest puts this folder on sys.path)

import gblas.distributed as gd

_BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(_BENCH))
import bfs_distributed  # noqa: E402


def test_cached_block_equals_the_generated_one(tmp_path: Path) -> None:
    args = argparse.Namespace(scale=9, edge_factor=8, seed=3, graph_cache=str(tmp_path),
                              generate="host")
    comm = gd.local_comm()
    made = bfs_distributed._kronecker(args, comm)
    assert [p.name for p in tmp_path.iterdir()] == ["kron9-ef8-seed3-P1-r0.npz"]
    read = bfs_distributed._kronecker(args, comm)
    ref = gd.kronecker(9, edge_factor=8, seed=3, comm=comm)
    assert read.local.isequal(made.local) and read.local.isequal(ref.local)
    assert read.nvals == ref.nvals and read.local._props.get("symmetric_True")
    assert read.local._csr().indices32() is not None


def test_launches_reading_the_cache(tmp_path: Path) -> None:
    if mpiexec() is None:
        pytest.skip("no mpiexec on PATH or beside this Python: install gblas[distributed]")
    pytest.importorskip("mpi4py", reason="mpi4py is not installed: gblas[distributed]")
    runs = []
    for i in range(2):
        out = tmp_path / f"run{i}.json"
        cmd = [sys.executable, str(_BENCH / "bfs_distributed.py"), "--scales", "10",
               "--procs", "2", "--sources", "3", "--graph-cache", str(tmp_path / "g"),
               "--out", str(out)]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        runs.append(json.loads(out.read_text())["results"][0])
    assert len(list((tmp_path / "g").iterdir())) == 2  # a block a process, written once
    first, second = runs
    assert first["validated"] and second["validated"]
    assert (first["nvals"], first["algorithms"]["bfs"]["sources"]) == \
        (second["nvals"], second["algorithms"]["bfs"]["sources"])
