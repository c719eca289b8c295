"""A tiny BFS timing, CPU vs GPU (not a test): python3 tests/gpu/bench_bfs_small.py [scale]."""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np

from gblas import generators
from gblas.algorithms import bfs


def main() -> None:
    import cupy as cp  # noqa: PLC0415

    scale = int(sys.argv[1]) if len(sys.argv) > 1 else 18
    t0 = time.perf_counter()
    A = generators.kronecker(scale)  # noqa: N806
    print(f"kron{scale}: n={A.nrows} nnz={A.nvals} built in {time.perf_counter() - t0:.1f} s")
    Ag = A.to("cuda")  # noqa: N806
    deg = A.reduce_rowwise().new().to_dense(0)
    srcs = np.random.default_rng(1).choice(np.flatnonzero(deg > 0), 4, replace=False).tolist()
    for parents in (False, True):
        for label, M in (("cpu", A), ("gpu", Ag)):
            bfs(M, srcs[0], parents=parents)  # warm-up (JIT / NVRTC)
            times, st = [], {}
            for s in srcs:
                if label == "gpu":
                    cp.cuda.Device().synchronize()
                t = time.perf_counter()
                out = bfs(M, s, parents=parents, stats=st)
                if label == "gpu":
                    cp.cuda.Device().synchronize()
                times.append(time.perf_counter() - t)
            lv = out[0] if parents else out
            dirs = "".join(">" if d == "push" else "<" for d in st["directions"])
            print(f"{label} parents={parents}: median {1e3 * statistics.median(times):.1f} ms "
                  f"over {len(srcs)} sources; levels={st['levels']} reached={lv.nvals} "
                  f"kernels={st['kernels']} dirs={dirs}")


if __name__ == "__main__":
    main()
