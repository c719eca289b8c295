"""The same BFS on one GPU three ways, for Nsight Compute to compare their pull steps (not a
test): the fused kernel (``bfs_fused``), the one-GPU level kernels (``bfs_lv_phase``) and
gblas.distributed's level loop on one process (``dbfs_claim``, NCCL's one-rank
communicator). Each runs ``--searches`` searches from the same roots of the same graph;
the script prints each method's median ms and its directions.

    python3 benchmarks/ncu_bfs_pull.py --scale 24
    ncu --kernel-name regex:'dbfs_claim$|bfs_lv_phase' --launch-skip 20 --launch-count 8 \
        --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \
        --section WarpStateStats python3 benchmarks/ncu_bfs_pull.py --scale 24 --searches 2
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, default=22)
    ap.add_argument("--searches", type=int, default=4)
    ap.add_argument("--methods", default="fused,levels,dist")
    args = ap.parse_args()

    import cupy as cp  # noqa: PLC0415

    import gblas.distributed as gd  # noqa: PLC0415
    from gblas import cuda  # noqa: PLC0415
    from gblas.algorithms import bfs  # noqa: PLC0415
    from gblas.distributed.loader import kronecker_serial  # noqa: PLC0415

    comm = gd.local_comm("cuda:0")
    D = gd.kronecker(args.scale, comm=comm)  # noqa: N806 - P = 1: the whole graph
    A = kronecker_serial(args.scale, device="cuda:0")  # noqa: N806 - the same graph
    deg = D.out_degree().to_dense(0)
    roots = [int(s) for s in common.pick_sources(deg, args.searches, seed=1)]
    runs = {
        "fused": lambda s: cuda.bfs(A, s, method="fused")[2],
        "levels": lambda s: cuda.bfs(A, s, method="levels")[2],
        "dist": lambda s: _dist(bfs, D, s),
    }
    for name in args.methods.split(","):
        run = runs[name]
        info = run(roots[0])  # warm-up: compilation, caches
        times = []
        for s in roots:
            cp.cuda.Device().synchronize()
            t = time.perf_counter()
            info = run(s)
            cp.cuda.Device().synchronize()
            times.append((time.perf_counter() - t) * 1e3)
        print(f"kron:{args.scale} {name:7s} median {statistics.median(times):.2f} ms "
              f"(min {min(times):.2f}); directions {info.get('directions')}", flush=True)


def _dist(bfs: object, D: object, s: int) -> dict:  # noqa: N803
    stats: dict = {}
    bfs(D, s, stats=stats)  # type: ignore[operator]
    return stats


if __name__ == "__main__":
    main()
