"""What one exchange of the distributed BFS costs on its own: NCCL all-gathers of the sizes a
level sends (a few words to the whole block's bitmap words), an MPI barrier, and the read of
the level's counts, with no search around them.

    mpiexec -n 2 python3 benchmarks/exchange_costs.py --device cuda [--reps 200]

For each size: the host time of one call (a barrier first, then the call and a stream
synchronisation; median over the reps, the slowest process's), and the device time per call
of 20 calls issued back to back (CUDA events; the host's launches overlap the device).
The words are uint32, as gblas.distributed.bfs_levels sends them; kron:26 on two processes
sends 2 097 152 + 4 words a process at every level.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

import gblas.distributed as gd


def _median_ms(comm: Any, times: list[float]) -> float:
    return float(comm.allreduce(float(np.median(times)), "max")) * 1e3


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default="cuda", choices=("cuda", "cpu"))
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--words", type=int, nargs="+",
                    default=[4, 1024, 65536, 1048576, 2097156])
    args = ap.parse_args()
    comm = gd.world(args.device)
    xp = comm.xp
    gpu = args.device == "cuda"
    if gpu:
        import cupy as cp  # noqa: PLC0415

        stream = cp.cuda.get_current_stream()
        sync = stream.synchronize
    else:
        def sync() -> None:
            return None
    rows = []
    for w in args.words:
        buf = xp.ones(w, dtype=np.uint32)
        comm.allgather_equal(buf)  # warm-up (NCCL's channels)
        sync()
        host = []
        for _ in range(args.reps):
            comm.barrier()
            t = time.perf_counter()
            comm.allgather_equal(buf)
            sync()
            host.append(time.perf_counter() - t)
        dev = float("nan")
        if gpu:
            comm.barrier()
            e0 = stream.record()
            for _ in range(20):
                comm.allgather_equal(buf)
            e1 = stream.record()
            e1.synchronize()
            dev = float(comm.allreduce(cp.cuda.get_elapsed_time(e0, e1) / 20, "max"))
        rows.append((f"all-gather {w} words ({4 * w / 1e6:.3f} MB a process)",
                     _median_ms(comm, host), dev))
    host = []
    for _ in range(args.reps):
        t = time.perf_counter()
        comm.barrier()
        host.append(time.perf_counter() - t)
    rows.append(("MPI barrier", _median_ms(comm, host), float("nan")))
    if gpu:
        counts = cp.zeros(2, dtype=np.uint64)
        pinned = cp.cuda.alloc_pinned_memory(16)
        host = []
        for _ in range(args.reps):
            t = time.perf_counter()
            cp.cuda.runtime.memcpyAsync(pinned.ptr, counts.data.ptr, 16, 2, stream.ptr)
            stream.synchronize()
            host.append(time.perf_counter() - t)
        rows.append(("16-byte read of the counts", _median_ms(comm, host), float("nan")))
    if comm.rank == 0:
        print(f"{comm.size} processes, {args.device}, median of {args.reps} (host) / 20 "
              "back to back (device)")
        print("| operation | host ms (call + sync) | device ms per call |")
        print("|---|--:|--:|")
        for name, h, d in rows:
            print(f"| {name} | {h:.4f} | {d:.4f} |")


if __name__ == "__main__":
    main()
