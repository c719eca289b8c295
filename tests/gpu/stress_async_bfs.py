"""Stress the barrier-free GPU BFS for races (not a test: a tool to run on a GPU machine).

    PYTHONPATH=. python3 tests/gpu/stress_async_bfs.py [seconds] [--profile]

For the given wall time (default 60 s), searches from random sources on graphs where levels
get corrected (a road-like graph, a grid, a sparse uniform graph), each source with 1, 5
and 32 slots claimed at once, with the look build (the default) and without, and compares
every search's levels and parents with the CPU BFS's (computed once per source). A race in
bfs_async.cu (a vertex lost from the queue, a search that stops early, a level not
corrected) shows as a mismatch; the fused kernel taking over after an overflow is counted
as one too, since these graphs never overflow the queue.
``--profile`` runs the profile build instead. Prints the searches run and the mismatches;
exits 1 when there was any.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from gblas import Vector, generators  # noqa: E402
from gblas.algorithms import bfs  # noqa: E402
from gblas.formats.csr.bfs_fused import fused_bfs  # noqa: E402


def dense(v: Vector, n: int) -> np.ndarray:
    """The vector's values with -1 where it holds none, on the host."""
    idx, val = (np.asarray(x.get() if hasattr(x, "get") else x) for x in v.to_coo()[:2])
    out = np.full(n, -1, dtype=np.int64)
    out[idx] = val
    return out


def main(argv: list[str]) -> int:
    seconds = float(argv[0]) if argv and not argv[0].startswith("-") else 60.0
    profile = "--profile" in argv
    graphs = {"road_like 200K": generators.road_like(200_000, seed=5),
              "grid 400x500": generators.grid2d(400, 500),
              "urand:17 ef 3": generators.urand(17, 3, seed=2)}
    on_gpu = {name: A.to("cuda") for name, A in graphs.items()}
    rng = np.random.default_rng(7)
    refs: dict[tuple[str, int], tuple[np.ndarray, np.ndarray]] = {}
    runs = wrong = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        for name, A in graphs.items():
            src = int(rng.integers(0, A.nrows))
            if (name, src) not in refs:
                lc, pc = bfs(A, src, parents=True)
                refs[name, src] = (dense(lc, A.nrows), dense(pc, A.nrows))
            for claim, look in ((1, True), (5, False), (32, True), (32, False)):
                knobs: dict[str, Any] = {"async_bfs": True, "async_claim": claim,
                                         "async_profile": profile, "async_look": look}
                lg, pg, info = fused_bfs(on_gpu[name], src, parents=True, **knobs)
                got = (dense(Vector._from_data(lg, "cuda"), A.nrows),
                       dense(Vector._from_data(pg, "cuda"), A.nrows))
                runs += 1
                if (info.get("async_fallback") or not np.array_equal(got[0], refs[name, src][0])
                        or not np.array_equal(got[1], refs[name, src][1])):
                    wrong += 1
                    print(f"MISMATCH {name} source {src} claim {claim} look {look} "
                          f"fallback {info.get('async_fallback')}", flush=True)
    print(f"stress: {runs} searches, {wrong} wrong, {time.perf_counter() - t0:.0f} s",
          flush=True)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
