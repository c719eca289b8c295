"""Does a vertex order make the GPU BFS's levels on a mesh faster? A grid's levels under
several numberings, barrier-free and fused kernels, in one run.

    PYTHONPATH=. python3 benchmarks/bfs_orders.py --rows 2048 --small 1024 --sources 8

Grid ``rows``² in its generator's row-major order, under RCM (gblas.formats.bvss.reorder),
in 8×8 tiles (row-major tiles, row-major inside), and in Morton (Z) order; and grid
``small``², whose CSR fits in an H200's L2, in row-major order. Every order searches from
the same vertices (mapped through the permutation). Prints, per order and kernel
(``async_bfs`` True and False), the median kernel µs and µs per level of
:func:`gblas.formats.csr.bfs_fused.fused_bfs`. docs/gpu_bfs_notes.md §8 has a run: the
orders within 2-7 % of each other, the small grid 7 % faster a level.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gblas import Matrix, generators  # noqa: E402
from gblas.formats.bvss.reorder import permute_csr, reorder_permutation  # noqa: E402
from gblas.formats.csr.bfs_fused import fused_bfs  # noqa: E402

KERNELS = ({"async_bfs": True}, {"async_bfs": False})


def tile_order(rows: int, tile: int = 8) -> np.ndarray:
    """perm[p] = the row-major id of position p when tile×tile blocks are numbered in
    row-major order and the vertices row-major inside each (rows a multiple of tile)."""
    i, j = np.divmod(np.arange(rows * rows, dtype=np.int64), rows)
    block = (i // tile) * (rows // tile) + j // tile
    return np.lexsort((j % tile, i % tile, block))


def morton_order(rows: int) -> np.ndarray:
    """perm[p] = the row-major id of position p in Morton order (bits of i and j
    interleaved)."""
    i, j = np.divmod(np.arange(rows * rows, dtype=np.uint64), np.uint64(rows))

    def spread(x: np.ndarray) -> np.ndarray:
        out = np.zeros_like(x)
        for b in range(32):
            out |= ((x >> np.uint64(b)) & np.uint64(1)) << np.uint64(2 * b)
        return out

    return np.argsort(spread(i) | (spread(j) << np.uint64(1)), kind="stable").astype(np.int64)


def time_order(label: str, A: Matrix, sources: np.ndarray) -> None:  # noqa: N803
    """Each kernel's median kernel µs and µs a level over ``sources`` on the GPU copy of A."""
    Ag = A.to("cuda")  # noqa: N806
    for knobs in KERNELS:
        fused_bfs(Ag, int(sources[0]), **knobs)  # compile and warm
    for knobs in KERNELS:
        us: list[float] = []
        per_level: list[float] = []
        for s in sources:
            info: dict[str, Any] = fused_bfs(Ag, int(s), **knobs)[2]
            us.append(info["kernel_us"])
            per_level.append(info["kernel_us"] / max(info["levels"], 1))
        print(f"{label:28s} async_bfs={knobs['async_bfs']!s:5s}  kernel "
              f"{np.median(us):9.0f} us  {np.median(per_level):5.2f} us/level", flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=2048)
    ap.add_argument("--small", type=int, default=1024)
    ap.add_argument("--sources", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    if args.rows % 8:
        ap.error("--rows must be a multiple of 8 (the tiles)")
    rng = np.random.default_rng(args.seed)
    small = args.small
    time_order(f"grid {small}^2 row-major", generators.grid2d(small, small),
               rng.integers(0, small * small, args.sources))
    rows = args.rows
    A = generators.grid2d(rows, rows)  # noqa: N806
    sources = rng.integers(0, rows * rows, args.sources)
    time_order(f"grid {rows}^2 row-major", A, sources)
    t0 = time.perf_counter()
    orders = {"rcm": reorder_permutation(A._csr(), "rcm")[0]}
    print(f"(rcm ordering {time.perf_counter() - t0:.2f} s on the host)", flush=True)
    orders.update({"8x8 tiles": tile_order(rows), "morton": morton_order(rows)})
    for name, perm in orders.items():
        position = np.empty_like(perm)
        position[perm] = np.arange(len(perm))
        P = Matrix._from_csr(permute_csr(A._csr(), perm), "cpu")  # noqa: N806
        time_order(f"grid {rows}^2 {name}", P, position[sources])
    return 0


if __name__ == "__main__":
    sys.exit(main())
