"""Distributed BFS (gblas.distributed): GTEPS over P processes, Graph500-validated.

    python3 benchmarks/bfs_distributed.py --scales 16 18 --procs 1 2            # CPU table
    python3 benchmarks/bfs_distributed.py --device cuda --scales 24 26 --procs 1 2 4 8

The launcher runs ``mpiexec -n P`` of this script in worker mode for every P and scale.
Each worker generates its part of the Kronecker graph (gblas.distributed.kronecker: no
process holds the whole graph), runs ``gblas.algorithms.bfs`` from ``--sources`` random
non-isolated roots, validates every result with gblas.distributed.validate_bfs, and rank 0
prints a JSON line. TEPS as Graph500 counts them: the undirected edges of the searched
component over the time of the search (the slowest process), harmonic mean over roots.
``--device cuda`` gives each process one GPU (rank % GPUs) and exchanges device buffers
through NCCL (NCCL_NVLS_ENABLE=0 is set for the workers).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import common

HERE = Path(__file__).resolve()


def worker(args: argparse.Namespace) -> None:
    import numpy as np  # noqa: PLC0415

    import gblas.distributed as gd  # noqa: PLC0415
    from gblas import monoid  # noqa: PLC0415
    from gblas.algorithms import bfs  # noqa: PLC0415

    comm = gd.world(args.device)
    t0 = time.perf_counter()
    A = gd.kronecker(args.scale, edge_factor=args.edge_factor, seed=args.seed, comm=comm)  # noqa: N806
    comm.barrier()
    build_s = time.perf_counter() - t0
    deg = A.out_degree().to_dense(0)
    sources = common.pick_sources(deg, args.sources, seed=args.seed + 1)
    bfs(A, sources[0], parents=args.parents)  # warm-up: Numba/CUDA compilation
    teps, times, levels = [], [], []
    for src in sources:
        comm.barrier()
        t = time.perf_counter()
        res = bfs(A, src, parents=args.parents)
        lv = res[0] if args.parents else res
        if A.layout.local_device != "cpu":
            from gblas._device import synchronize  # noqa: PLC0415

            synchronize(A.layout.local_device)
        dt = comm.allreduce(time.perf_counter() - t, "max")
        reached = lv.to_dense(-1) >= 0
        edges = float(deg[reached].sum()) / 2  # undirected edges of the component
        if args.validate:
            gd.validate_bfs(A, src, lv, res[1] if args.parents else None)
        teps.append(edges / dt)
        times.append(dt)
        levels.append(int(lv.reduce(monoid.max).new().value or 0) + 1)
    if comm.rank == 0:
        hm = len(teps) / sum(1.0 / x for x in teps)
        print("RESULT " + json.dumps({
            "procs": comm.size, "device": comm.device if comm.size == 1 else args.device,
            "scale": args.scale, "edge_factor": args.edge_factor, "n": A.nrows,
            "nvals": A.nvals, "sources": len(sources), "gteps_hmean": hm / 1e9,
            "median_ms": float(np.median(times)) * 1e3, "build_s": build_s,
            "levels_median": float(np.median(levels)), "validated": bool(args.validate),
            "parents": bool(args.parents)}), flush=True)


def launch(args: argparse.Namespace) -> None:
    exe = shutil.which("mpiexec", path=os.pathsep.join(
        [str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
    if exe is None:
        raise SystemExit("no mpiexec: pip install 'gblas[distributed]' (mpi4py, mpich)")
    rows, results = [], []
    for scale in args.scales:
        for p in args.procs:
            threads = max(1, (os.cpu_count() or 1) // p) if args.device == "cpu" else 1
            env = dict(os.environ, NUMBA_NUM_THREADS=str(threads), NCCL_NVLS_ENABLE="0",
                       OMP_NUM_THREADS=str(threads))
            cmd = [exe, "-n", str(p), sys.executable, str(HERE), "--worker",
                   "--scale", str(scale), "--edge-factor", str(args.edge_factor),
                   "--seed", str(args.seed), "--sources", str(args.sources),
                   "--device", args.device] + (["--parents"] if args.parents else []) + \
                (["--no-validate"] if not args.validate else [])
            done = subprocess.run(cmd, capture_output=True, text=True, env=env)
            line = [x for x in done.stdout.splitlines() if x.startswith("RESULT ")]
            if done.returncode != 0 or not line:
                print(done.stdout[-2000:], done.stderr[-4000:], file=sys.stderr)
                raise SystemExit(f"P={p} scale {scale} failed ({done.returncode})")
            r = json.loads(line[0][len("RESULT "):])
            r["threads_per_proc"] = threads
            results.append(r)
            base = next((x for x in results if x["scale"] == scale and x["procs"] == 1), None)
            speedup = r["gteps_hmean"] / base["gteps_hmean"] if base else None
            rows.append([f"kron:{scale}", p, threads, r["gteps_hmean"], r["median_ms"],
                         speedup, r["levels_median"], r["build_s"],
                         "yes" if r["validated"] else "no"])
            print(common.markdown_table(["graph", "P", "threads/P", "GTEPS (hmean)",
                                         "median ms", "vs P=1", "levels", "build s",
                                         "valid"], rows[-1:]), flush=True)
    print()
    print(common.markdown_table(["graph", "P", "threads/P", "GTEPS (hmean)", "median ms",
                                 "vs P=1", "levels", "build s", "valid"], rows))
    if args.out:
        common.write_json(args.out, {"machine": common.machine_info(), "device": args.device,
                                     "results": results})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--scale", type=int, default=16, help=argparse.SUPPRESS)
    ap.add_argument("--scales", type=int, nargs="+", default=[16, 18])
    ap.add_argument("--procs", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--edge-factor", type=int, default=16)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--sources", type=int, default=16)
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--parents", action="store_true", help="Graph500 output: the BFS tree")
    ap.add_argument("--no-validate", dest="validate", action="store_false")
    ap.add_argument("--out", default="", help="JSON output path")
    args = ap.parse_args()
    worker(args) if args.worker else launch(args)


if __name__ == "__main__":
    main()
