"""Where a distributed BFS (gblas.distributed) spends its host time, per process (not a
test). Run under MPI; every rank profiles the same searches and rank 0 prints each rank's
cProfile by own time, the search's directions and its time per level.

    mpiexec -n 2 python3 benchmarks/profile_distributed.py --scale 22 --device cuda

On a GPU the host launches every operation of the level loop, so host time is the
search's time wherever a kernel is short: a function that waits for the device (a count
read back, a copy to the host, an NCCL or MPI exchange) shows its wait as its own time.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, default=18)
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--searches", type=int, default=4)
    ap.add_argument("--rows", type=int, default=22)
    ap.add_argument("--method", default="fused", choices=["fused", "ops"],
                    help="fused: gblas.distributed.bfs_levels (bfs()'s default on a "
                         "DistMatrix); ops: the GraphBLAS level loop")
    args = ap.parse_args()

    import gblas.distributed as gd  # noqa: PLC0415
    from gblas import config  # noqa: PLC0415
    from gblas._device import synchronize  # noqa: PLC0415
    from gblas.algorithms import bfs  # noqa: PLC0415

    config.set(bfs_cpu=args.method, bfs_gpu=args.method)

    comm = gd.world(args.device)
    A = gd.kronecker(args.scale, comm=comm)  # noqa: N806
    deg = A.out_degree().to_dense(0)
    sources = [int(s) for s in common.pick_sources(deg, args.searches, seed=1)]
    stats: dict = {}
    bfs(A, sources[0], stats=stats)  # warm-up: compilation, kernel caches

    def searches() -> float:
        comm.barrier()
        t = time.perf_counter()
        for s in sources:
            bfs(A, s)
        synchronize(comm.device)
        return comm.allreduce(time.perf_counter() - t, "max")

    plain = searches()
    prof = cProfile.Profile()
    prof.enable()
    searches()
    prof.disable()
    text = io.StringIO()
    pstats.Stats(prof, stream=text).sort_stats("tottime").print_stats(args.rows)
    report = comm.allgather(text.getvalue())
    if comm.rank == 0:
        levels = len(stats.get("directions", []))
        print(f"kron:{args.scale} P={comm.size} device {args.device} ({args.method}): "
              f"{plain / len(sources) * 1e3:.2f} ms per search, {levels} levels "
              f"({plain / len(sources) / max(levels, 1) * 1e6:.0f} us per level), "
              f"directions {stats.get('directions')}", flush=True)
        for r, t in enumerate(report):
            print(f"---- rank {r} (cProfile of {len(sources)} searches)")
            print("\n".join(t.splitlines()[:args.rows + 12]))


if __name__ == "__main__":
    main()
