"""The installed package carries every subpackage and what the GPU path compiles at run
time (pyproject.toml lists packages and package data explicitly)."""

from __future__ import annotations

import importlib
from importlib import resources
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "gblas"


def _subpackages() -> list[str]:
    return sorted(".".join(("gblas", *p.parent.relative_to(SRC).parts))
                  for p in SRC.rglob("__init__.py"))


def test_every_subpackage_is_installed() -> None:
    pkgs = _subpackages()
    assert {"gblas.formats.csr", "gblas.formats.sellcs"} <= set(pkgs)
    for name in pkgs:
        importlib.import_module(name)  # ModuleNotFoundError if pyproject does not list it


def test_cuda_sources_are_installed() -> None:
    """Every .cu/.cuh file of the checkout is package data of the installed gblas (the
    RawModule sources are read from the package folder, not from the checkout)."""
    found = [p for p in SRC.rglob("*") if p.suffix in (".cu", ".cuh")]
    assert {p.name for p in found} >= {"mxv.cu", "bfs_fused.cu", "bfs_levels.cu",
                                       "bfs_common.cuh"}
    for p in found:
        pkg = ".".join(("gblas", *p.parent.relative_to(SRC).parts))
        installed = {f.name for f in resources.files(pkg).iterdir()}
        assert p.name in installed, f"{p.name} is not package data of the installed {pkg}"
