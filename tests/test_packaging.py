"""The installed package carries what the GPU path compiles at run time."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_cuda_sources_are_installed() -> None:
    """Every .cu/.cuh file of the checkout is package data of the installed gblas (the
    RawModule sources are read from the package folder, not from the checkout)."""
    in_tree = {p.name for p in (ROOT / "gblas" / "formats" / "csr").iterdir()
               if p.suffix in (".cu", ".cuh")}
    installed = {p.name for p in resources.files("gblas.formats.csr").iterdir()
                 if p.name.endswith((".cu", ".cuh"))}
    assert in_tree >= {"mxv.cu", "bfs_fused.cu", "bfs_levels.cu", "bfs_common.cuh"}
    assert in_tree <= installed, f"missing from the installed package: {in_tree - installed}"
