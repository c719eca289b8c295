"""Where a GPU BFS spends its host time (not a test): python3 tests/gpu/profile_bfs.py [scale]."""

from __future__ import annotations

import cProfile
import pstats
import sys

from gblas import generators
from gblas.algorithms import bfs

scale = int(sys.argv[1]) if len(sys.argv) > 1 else 18
Ag = generators.kronecker(scale).to("cuda")  # noqa: N816
bfs(Ag, 1, parents=True)
prof = cProfile.Profile()
prof.enable()
for _ in range(3):
    bfs(Ag, 1, parents=True)
prof.disable()
pstats.Stats(prof).sort_stats("tottime").print_stats(22)
